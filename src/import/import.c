/* SPDX-License-Identifier: MIT */
/* import.c - the import driver: format table, detection, devices, errors, sort and write. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/tmpout.h"
#include "import/imp_sort.h"
#include "import/imp_text.h"
#include "import/import.h"

extern const struct imp_format imp_fmt_fio, imp_fmt_blkparse,
	imp_fmt_blktrace, imp_fmt_msr, imp_fmt_systor, imp_fmt_spc,
	imp_fmt_alibaba, imp_fmt_tencent, imp_fmt_disksim, imp_fmt_mqsim,
	imp_fmt_vscsi, imp_fmt_vscsi_csv, imp_fmt_ist_csv, imp_fmt_csv,
	imp_fmt_pcap;

/* Order matters only for equal detection scores: earlier wins. */
const struct imp_format *const imp_formats[] = {
	&imp_fmt_blktrace,
	&imp_fmt_pcap,
	&imp_fmt_vscsi,
	&imp_fmt_fio,
	&imp_fmt_blkparse,
	&imp_fmt_ist_csv,
	&imp_fmt_msr,
	&imp_fmt_systor,
	&imp_fmt_vscsi_csv,
	&imp_fmt_spc,
	&imp_fmt_alibaba,
	&imp_fmt_tencent,
	&imp_fmt_mqsim,
	&imp_fmt_disksim,
	&imp_fmt_csv,
	NULL,
};

const struct imp_format *imp_format_find(const char *name)
{
	for (unsigned i = 0; imp_formats[i]; i++)
		if (!strcmp(imp_formats[i]->name, name))
			return imp_formats[i];
	return NULL;
}

const char *imp_unused_option(const struct imp_options *opt, const struct imp_format *f)
{
	int csv = !strcmp(f->name, "csv");

	/* the blktrace and blkparse importers pair events; fmt_csv alone
	 * takes a column map and its syntax */
	if (opt->event && !(f->flags & IMP_EVENTS))
		return "--event";
	if (opt->columns && !csv)
		return "--columns";
	if (opt->delimiter && !csv)
		return "--delimiter";
	if (opt->quote && !csv)
		return "--quote";
	if (opt->header_rows >= 0 && !csv)
		return "--header-rows";
	/* the others name their devices themselves (blkparse's major,minor,
	 * MSR's host and disk, a fio iolog's files) */
	if (opt->device && !(f->flags & IMP_DEVICE_NAME))
		return "--device";
	return NULL;
}

const struct imp_format *imp_format_detect(const char *buf, size_t len)
{
	const struct imp_format *best = NULL;
	int best_score = 0;

	for (unsigned i = 0; imp_formats[i]; i++) {
		const struct imp_format *f = imp_formats[i];
		int sc;

		if (!f->probe || (f->flags & IMP_NO_PROBE))
			continue;
		sc = f->probe(buf, len);
		if (sc > best_score) {
			best_score = sc;
			best = f;
		}
	}
	return best;
}

/* ---------------------------------------------------------------- context */

struct dev_slot {
	uint64_t hash;
	int idx; /* -1 = empty */
};

struct imp_ctx {
	const struct imp_options *opt;
	const char *const *inputs;
	unsigned ninputs;
	struct imp_stream *stream;
	struct imp_stream *detected; /* the first input's, read by detect() */
	const char *path;
	ist_header *h;
	struct dev_slot *devs;
	unsigned dev_cap, ndev;
	struct imp_result *res;
	int fatal;
	/* where the records go: the sorter's window directly (pull-style
	 * importers of an import that writes), else emit */
	struct imp_sorter *sorter;
	imp_emit_fn emit;
	void *emit_ctx;
};

struct imp_stream *imp_cur_stream(struct imp_ctx *c)
{
	return c->stream;
}

const char *imp_cur_path(struct imp_ctx *c)
{
	return c->path;
}

unsigned imp_input_count(struct imp_ctx *c)
{
	return c->ninputs;
}

const char *imp_input_path(struct imp_ctx *c, unsigned i)
{
	return i < c->ninputs ? c->inputs[i] : NULL;
}

const struct imp_options *imp_opts(struct imp_ctx *c)
{
	return c->opt;
}

static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h | 1;
}

ist_header *imp_header(struct imp_ctx *c)
{
	return c->h;
}

int imp_device(struct imp_ctx *c, const char *name, size_t len)
{
	uint64_t h = name_hash(name, len);
	unsigned mask, i;
	char tmp[256];
	int idx;

	if (c->ndev * 2 >= c->dev_cap) {
		unsigned cap = c->dev_cap ? c->dev_cap * 2 : 64;
		struct dev_slot *n = malloc(cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (i = 0; i < cap; i++)
			n[i].idx = -1;
		for (unsigned j = 0; j < c->dev_cap; j++) {
			if (c->devs[j].idx < 0)
				continue;
			for (i = c->devs[j].hash & (cap - 1); n[i].idx >= 0;
			     i = (i + 1) & (cap - 1))
				;
			n[i] = c->devs[j];
		}
		free(c->devs);
		c->devs = n;
		c->dev_cap = cap;
	}
	mask = c->dev_cap - 1;
	for (i = h & mask; c->devs[i].idx >= 0; i = (i + 1) & mask) {
		const struct ist_device *d;

		if (c->devs[i].hash != h)
			continue;
		d = ist_header_device(c->h, c->devs[i].idx);
		if (d && strlen(d->name) == len && !memcmp(d->name, name, len))
			return c->devs[i].idx;
	}
	if (len == 0 || len >= sizeof(tmp))
		return imp_bad(c, "bad device name (%zu characters)", len);
	memcpy(tmp, name, len);
	tmp[len] = '\0';
	idx = ist_header_add_device(c->h, tmp, 0, 0);
	if (idx == IST_ERANGE) {
		/* The format's limit, a fault of the input: without this it
		 * was reported as the output's "writing: value out of
		 * range", without a position.  Fatal: the records of every
		 * further device would be lost. */
		imp_bad(c, "more than %u devices", IST_MAX_FOOTER_DEVICES);
		return imp_fatal(c, IST_EPARSE);
	}
	if (idx < 0)
		return idx;
	c->devs[i].hash = h;
	c->devs[i].idx = idx;
	c->ndev++;
	return idx;
}

int imp_meta(struct imp_ctx *c, const char *key, const char *value)
{
	return ist_header_set(c->h, key, value);
}

void imp_stat(struct imp_ctx *c, const char *name, uint64_t n)
{
	struct imp_result *r = c->res;
	unsigned i;

	for (i = 0; i < r->nstats; i++)
		if (r->stats[i].name == name || !strcmp(r->stats[i].name, name))
			break;
	if (i == r->nstats) {
		if (r->nstats == IMP_MAX_STATS)
			return;
		r->stats[i].name = name;
		r->stats[i].value = 0;
		r->nstats++;
	}
	r->stats[i].value += n;
}

static void __attribute__((format(printf, 4, 0)))
set_err(struct imp_ctx *c, const char *path, const char *where,
	const char *fmt, va_list ap)
{
	struct imp_result *r = c->res;

	snprintf(r->err_file, sizeof(r->err_file), "%s", path ? path : "");
	snprintf(r->err_where, sizeof(r->err_where), "%s", where);
	vsnprintf(r->err_reason, sizeof(r->err_reason), fmt, ap);
	/* one line whatever the input quoted in it (a field's CR, a NUL's
	 * neighbours): control characters as '?' */
	for (char *p = r->err_reason; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

int imp_bad(struct imp_ctx *c, const char *fmt, ...)
{
	char where[64];
	va_list ap;

	snprintf(where, sizeof(where), "line %" PRIu64,
		 c->stream ? imp_stream_line(c->stream) : 0);
	va_start(ap, fmt);
	set_err(c, c->path, where, fmt, ap);
	va_end(ap);
	return IST_EPARSE;
}

int imp_bad_at(struct imp_ctx *c, const char *path, uint64_t offset,
	       int64_t record, const char *fmt, ...)
{
	char where[96];
	va_list ap;

	if (record >= 0)
		snprintf(where, sizeof(where),
			 "record %" PRId64 " (byte offset %" PRIu64 ")", record,
			 offset);
	else
		snprintf(where, sizeof(where), "byte offset %" PRIu64, offset);
	va_start(ap, fmt);
	set_err(c, path, where, fmt, ap);
	va_end(ap);
	return IST_EPARSE;
}

int imp_bad_file(struct imp_ctx *c, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_err(c, path, "", fmt, ap);
	va_end(ap);
	c->fatal = 1;
	return IST_EPARSE;
}

int imp_fail(struct imp_ctx *c, const char *path, const char *where,
	     const char *reason, int err)
{
	struct imp_result *r = c->res;

	snprintf(r->err_file, sizeof(r->err_file), "%s", path ? path : "");
	snprintf(r->err_where, sizeof(r->err_where), "%s", where);
	snprintf(r->err_reason, sizeof(r->err_reason), "%s", reason);
	c->fatal = 1;
	return err;
}

int imp_fatal(struct imp_ctx *c, int err)
{
	c->fatal = 1;
	return err;
}

int imp_stream_fail(struct imp_ctx *c, int err)
{
	struct imp_stream *s = c->stream;
	char where[64];

	c->fatal = 1;
	snprintf(c->res->err_file, sizeof(c->res->err_file), "%s",
		 c->path ? c->path : "");
	if (err == IST_ERANGE) {
		snprintf(where, sizeof(where), "line %" PRIu64,
			 s ? imp_stream_line(s) : 0);
		snprintf(c->res->err_where, sizeof(c->res->err_where), "%s",
			 where);
		snprintf(c->res->err_reason, sizeof(c->res->err_reason),
			 "line longer than %u bytes", IMP_LINE_MAX);
		return IST_EPARSE;
	}
	if (s && *imp_stream_error(s)) {
		snprintf(c->res->err_where, sizeof(c->res->err_where),
			 "compressed byte offset %" PRIu64,
			 imp_stream_error_offset(s));
		snprintf(c->res->err_reason, sizeof(c->res->err_reason), "%s",
			 imp_stream_error(s));
		return err;
	}
	c->res->err_where[0] = '\0';
	snprintf(c->res->err_reason, sizeof(c->res->err_reason), "%s",
		 ist_strerror(err));
	return err;
}

/* ---------------------------------------------------------------- text helpers */

int imp_next_line(struct imp_ctx *c, char **line, size_t *len)
{
	int ret;

	for (;;) {
		ret = imp_stream_getline(c->stream, line, len);
		if (ret < 0)
			return imp_stream_fail(c, ret);
		if (ret == 0)
			return 0;
		if (!imp_blank(*line, *len))
			return 1;
	}
}

int imp_field_u64(struct imp_ctx *c, const struct imp_fields *fl, unsigned i,
		  const char *what, uint64_t *v)
{
	char q[48];

	if (imp_u64(fl->f[i], fl->len[i], v))
		return imp_bad(c, "bad %s '%s'", what,
			       imp_quote(fl->f[i], fl->len[i], q, sizeof(q)));
	return 0;
}

int imp_field_fixed(struct imp_ctx *c, const struct imp_fields *fl,
		    unsigned i, unsigned digits, const char *what, uint64_t *v)
{
	char q[48];

	if (imp_fixed(fl->f[i], fl->len[i], digits, v))
		return imp_bad(c, "bad %s '%s'", what,
			       imp_quote(fl->f[i], fl->len[i], q, sizeof(q)));
	return 0;
}

int imp_set_len(struct imp_ctx *c, struct ist_record *rec, uint64_t len)
{
	if (len > UINT32_MAX)
		return imp_bad(c, "size %" PRIu64 " too large (max %u bytes)",
			       len, UINT32_MAX);
	rec->len = (uint32_t)len;
	return 0;
}

int imp_scale(struct imp_ctx *c, uint64_t v, uint64_t mul, const char *what,
	      uint64_t *out)
{
	if (mul && v > UINT64_MAX / mul)
		return imp_bad(c, "%s %" PRIu64 " out of range", what, v);
	*out = v * mul;
	return 0;
}

int imp_time(struct imp_ctx *c, uint64_t v, uint64_t mul, int64_t *t)
{
	if (mul && v > (uint64_t)INT64_MAX / mul)
		return imp_bad(c, "timestamp %" PRIu64 " out of range", v);
	*t = (int64_t)(v * mul);
	return 0;
}

int imp_first_line(const char *buf, size_t len, char *out, size_t size,
		   unsigned skip)
{
	const char *p = buf, *end = buf + len;

	for (;;) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = (nl ? nl : end) - p;

		if (n && p[n - 1] == '\r')
			n--;
		if (!imp_blank(p, n)) {
			if (skip == 0) {
				if (n >= size)
					n = size - 1;
				memcpy(out, p, n);
				out[n] = '\0';
				return (int)n;
			}
			skip--;
		}
		if (!nl)
			return -1;
		p = nl + 1;
	}
}

/* ---------------------------------------------------------------- driver */

static int ctx_init(struct imp_ctx *c, const struct imp_options *opt,
		    struct imp_result *res, ist_header *h)
{
	memset(c, 0, sizeof(*c));
	c->opt = opt;
	c->res = res;
	c->h = h;
	return 0;
}

static void note_skip(struct imp_ctx *c)
{
	struct imp_result *r = c->res;

	if (r->skipped < IMP_MAX_BADPOS)
		snprintf(r->skipped_at[r->skipped], sizeof(r->skipped_at[0]),
			 "%.1024s: %.64s", r->err_file, r->err_where);
	r->skipped++;
}

/* A bad record found after next() returned it: at the importer's current
 * position, which is the record's (a line, or a binary record's offset). */
static int __attribute__((format(printf, 3, 4)))
bad_record(struct imp_ctx *c, const struct imp_format *f, const char *fmt, ...)
{
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (f->flags & IMP_BINARY)
		return imp_bad_at(c, imp_cur_path(c), c->stream ?
				  imp_stream_offset(c->stream) : 0, -1, "%s",
				  reason);
	return imp_bad(c, "%s", reason);
}

/* Records a batch parser hands c->emit at a time (no sorter). */
#define EMIT_BATCH 256

/* Pulls every record of one open()ed importer: into the sorter's next
 * slot when there is a sorter, else into rec and through c->emit. */
static int pull_all(struct imp_ctx *c, const struct imp_format *f, void *priv)
{
	struct ist_record rec_buf, *rec = &rec_buf;
	struct ist_record batch[EMIT_BATCH];
	int ret;

	for (;;) {
		if (c->sorter && f->next_batch) {
			size_t room, k;

			rec = imp_sorter_slots(c->sorter, &room);
			k = f->next_batch(c, priv, rec, room);
			if (k) {
				ret = imp_sorter_commit_n(c->sorter, k);
				if (ret)
					return ret;
				continue;
			}
			/* the record next_batch left: one at a time */
		} else if (f->next_batch) {
			/* --check, imp_parse_mem() (the unit tests', the
			 * fuzzers'): the same parse, then emit each */
			size_t k = f->next_batch(c, priv, batch, EMIT_BATCH);

			for (size_t i = 0; i < k; i++) {
				ret = c->emit(c->emit_ctx, &batch[i]);
				if (ret)
					return ret;
			}
			if (k)
				continue;
		} else if (c->sorter) {
			rec = imp_sorter_slot(c->sorter);
		}
		memset(rec, 0, sizeof(*rec));
		ret = f->next(c, priv, rec);
		if (ret == 1 && rec->len == 0 && rec->op != IST_OP_FLUSH &&
		    !(f->flags & IMP_EVENTS)) {
			/* a read or write of 0 bytes moves no data: a replay
			 * would time nothing (only a flush has no length) */
			ret = bad_record(c, f, "zero-length %s (only a flush "
					 "has no length)", ist_op_name(rec->op));
		}
		if (ret == 1 && rec->offset + rec->len < rec->offset) {
			/* its end wraps past 2^64: no device has it, and a
			 * replay's offset + len arithmetic would wrap */
			ret = bad_record(c, f, "I/O of %" PRIu32 " bytes at "
					 "offset %" PRIu64 " ends past 2^64",
					 rec->len, rec->offset);
		}
		if (ret == 1) {
			ret = c->sorter ? imp_sorter_commit(c->sorter) :
					  c->emit(c->emit_ctx, rec);
			if (ret)
				return ret;
			continue;
		}
		if (ret == 0)
			return 0;
		if (ret == IST_EPARSE && !c->fatal &&
		    c->res->skipped < c->opt->skip_bad) {
			note_skip(c);
			continue;
		}
		return ret;
	}
}

/*
 * An input with no data at all (after decompression) is refused: given to
 * import it is almost always a mistake (a capture that never ran, a wrong
 * file), and with --format nothing else would notice.  The per-CPU files
 * of a blktrace (IMP_ALL_INPUTS) are exempt: an idle CPU leaves one empty.
 * Looked at in the stream the importer reads (a FIFO is read only once).
 */
static int refuse_empty(struct imp_ctx *c)
{
	const unsigned char *p;
	ssize_t n = imp_stream_peek(c->stream, &p, 1);

	if (n < 0)
		return imp_stream_fail(c, (int)n);
	if (n == 0)
		return imp_bad_file(c, c->path, "empty input");
	return 0;
}

/* Format f over c's input: its state, open, every record pulled, close
 * (run_one() and imp_parse_mem() alike); 0 or the first error. */
static int run_format(struct imp_ctx *c, const struct imp_format *f)
{
	void *priv = NULL;
	int ret;

	if (f->priv_size) {
		priv = calloc(1, f->priv_size);
		if (!priv)
			return -ENOMEM;
	}
	ret = f->open ? f->open(c, priv) : 0;
	if (!ret)
		ret = pull_all(c, f, priv);
	if (f->close)
		f->close(c, priv);
	free(priv);
	return ret;
}

static int run_one(struct imp_ctx *c, const struct imp_format *f,
		   unsigned first, unsigned n)
{
	int ret;

	c->inputs += first;
	c->ninputs = n;
	c->path = c->inputs[0];
	if (f->run || ((f->flags & IMP_ALL_INPUTS) && n > 1)) {
		/* these open their inputs by name (a single blktrace file
		 * is read from the current stream, see blktrace_open()) */
		imp_stream_close(c->detected);
		c->detected = NULL;
	}
	if (f->run) {
		ret = f->run(c, c->path, c->emit, c->emit_ctx);
		c->inputs -= first;
		return ret;
	}
	if (c->detected) {
		/* the bytes detection looked at are still in this stream:
		 * a pipe or standard input cannot be opened again */
		c->stream = c->detected;
		c->detected = NULL;
	} else if (!(f->flags & IMP_ALL_INPUTS)) {
		ret = imp_stream_open(&c->stream, c->path);
		if (ret) {
			c->inputs -= first;
			return imp_stream_fail(c, ret);
		}
	}
	if (c->stream) {
		ret = refuse_empty(c);
		if (ret)
			goto out;
	}
	ret = run_format(c, f);
out:
	imp_stream_close(c->stream);
	c->stream = NULL;
	c->inputs -= first;
	return ret;
}

static int parse_inputs(struct imp_ctx *c, const struct imp_format *f,
			const char *const *inputs, unsigned n)
{
	int ret;

	c->inputs = inputs;
	if (f->flags & IMP_ALL_INPUTS)
		return run_one(c, f, 0, n);
	for (unsigned i = 0; i < n; i++) {
		ret = run_one(c, f, i, 1);
		if (ret)
			return ret;
	}
	return 0;
}

static int detect(struct imp_ctx *c, const char *path,
		  const struct imp_format **fp)
{
	struct imp_stream *s;
	const unsigned char *p;
	ssize_t n;
	int ret;

	c->path = path;
	ret = imp_stream_open(&s, path);
	if (ret)
		return imp_stream_fail(c, ret);
	c->stream = s;
	n = imp_stream_peek(s, &p, 64u << 10);
	if (n < 0) {
		ret = imp_stream_fail(c, (int)n);
		goto out;
	}
	*fp = imp_format_detect((const char *)p, n);
	if (!*fp) {
		snprintf(c->res->err_file, sizeof(c->res->err_file), "%s", path);
		c->res->err_where[0] = '\0';
		snprintf(c->res->err_reason, sizeof(c->res->err_reason),
			 n ? "unknown trace format (give --format; --list-formats lists them)"
			   : "empty input");
		ret = IST_EPARSE;
	} else if (imp_unused_option(c->opt, *fp)) {
		/* it would be ignored: the content is not what the option
		 * was meant for (or the detection guessed wrong) */
		snprintf(c->res->err_file, sizeof(c->res->err_file), "%s", path);
		c->res->err_where[0] = '\0';
		snprintf(c->res->err_reason, sizeof(c->res->err_reason),
			 "detected format %s, which %s does not apply to (give --format)",
			 (*fp)->name, imp_unused_option(c->opt, *fp));
		ret = IST_EPARSE;
	}
out:
	if (ret)
		imp_stream_close(s);
	else
		c->detected = s; /* the first input is read on from here */
	c->stream = NULL;
	return ret;
}

struct sort_emit {
	struct imp_sorter *sorter;
	uint64_t n, reordered;
	int64_t min_t, max_t;
};

static int emit_to_sorter(void *ctx, const struct ist_record *rec)
{
	struct sort_emit *e = ctx;

	e->n++;
	return imp_sorter_add(e->sorter, rec);
}

/* --check: count, nothing kept */
static int emit_check(void *ctx, const struct ist_record *rec)
{
	struct sort_emit *e = ctx;
	int64_t t = (int64_t)rec->t_ns;

	if (e->n++ == 0) {
		e->min_t = e->max_t = t;
		return 0;
	}
	if (t < e->max_t)
		e->reordered++;
	else
		e->max_t = t;
	if (t < e->min_t)
		e->min_t = t;
	return 0;
}

static void fmt_start_time(int64_t t, const char *epoch, char *buf,
			   size_t size)
{
	time_t sec = (time_t)(t / 1000000000);
	long ns = (long)(t % 1000000000);
	struct tm tm;

	if (ns < 0) {
		ns += 1000000000;
		sec--;
	}
	if (!strcmp(epoch, "unix") && gmtime_r(&sec, &tm))
		snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec, ns);
	else
		snprintf(buf, size, "%" PRId64 ".%09ld", (int64_t)sec, ns);
}

/* The output of an import: written directly (opts.direct) to a temporary
 * name beside the output, renamed into place at the very end. */
struct out_sink {
	struct imp_ctx *c;
	const struct imp_format *f;
	const char *const *inputs;
	unsigned n;
	const char *out;
	struct imp_sorter *sorter;
	ist_writer *w;
	char tmp[4200];
	unsigned ndev_at_open;
	uint64_t shift;       /* subtracted from the times written */
};

/* Sets a key of the import's own; with keep, only one the input lacks (an
 * ist-csv file's keys describe its trace, which the import copies). */
static void prov_set(ist_header *h, int keep, const char *key,
		     const char *value)
{
	if (!keep || !ist_header_get(h, key))
		ist_header_set(h, key, value);
}

static int sink_open(void *ctx, int64_t shift)
{
	struct out_sink *o = ctx;
	struct imp_ctx *c = o->c;
	struct ist_writer_opts wo = c->opt->writer;
	char buf[4096];
	size_t k = 0;
	ist_header *h;
	int64_t start = c->opt->absolute_time ? imp_sorter_min_t(o->sorter) :
						shift;
	int ret, fd, keep;

	h = ist_header_dup(c->h);
	if (!h)
		return -ENOMEM;
	keep = !!(o->f->flags & IMP_KEEP_META);
	prov_set(h, keep, "source_format", o->f->name);
	for (unsigned i = 0; i < o->n && k < sizeof(buf) - 1; i++)
		k += snprintf(buf + k, sizeof(buf) - k, "%s%s", i ? "," : "",
			      o->inputs[i]);
	prov_set(h, keep, "source_file", buf);
	prov_set(h, keep, "source_time_unit", o->f->time_unit);
	prov_set(h, keep, "time_epoch", o->f->time_epoch);
	snprintf(buf, sizeof(buf), "%" PRId64, start);
	prov_set(h, keep, "start_time_ns", buf);
	fmt_start_time(start, o->f->time_epoch, buf, sizeof(buf));
	prov_set(h, keep, "start_time", buf);
	prov_set(h, keep, "time_normalized",
		 c->opt->absolute_time || (o->f->flags & IMP_KEEP_TIME) ?
		 "no" : "yes");
	/* a new file of our own, which the writer then opens (truncating
	 * only what we created) */
	fd = istint_tmp_create(o->tmp, sizeof(o->tmp), o->out, "importing");
	if (fd < 0) {
		ist_header_free(h);
		o->w = NULL;
		return fd;
	}
	wo.direct = 1;
	o->shift = (uint64_t)shift;
	ret = ist_writer_open(&o->w, o->tmp, h, &wo);
	close(fd);
	o->ndev_at_open = ist_header_device_count(c->h);
	ist_header_free(h);
	if (ret) {
		o->w = NULL;
		unlink(o->tmp);
		return ret;
	}
	return 0;
}

static int sink_write(void *ctx, const struct ist_record *recs, size_t n)
{
	struct out_sink *o = ctx;

	/* a device appeared after the header was written */
	if (ist_header_device_count(o->c->h) != o->ndev_at_open)
		return IMP_SINK_REOPEN;
	return ist_writer_write_shifted(o->w, recs, n, o->shift);
}

static int sink_demote(void *ctx, char *path, size_t size)
{
	struct out_sink *o = ctx;
	int ret = ist_writer_close(o->w);

	o->w = NULL;
	if (ret) {
		unlink(o->tmp);
		return ret;
	}
	snprintf(path, size, "%s", o->tmp);
	return 0;
}

static void io_error(struct imp_result *res, const char *file, const char *what,
		     int err)
{
	snprintf(res->err_file, sizeof(res->err_file), "%s", file);
	res->err_where[0] = '\0';
	snprintf(res->err_reason, sizeof(res->err_reason), "%s: %s", what,
		 ist_strerror(err));
}

/*
 * Inputs that parsed without error but held no I/O (only headers, comments,
 * events other than the chosen one, or every record skipped as bad): an
 * empty trace replays nothing, so this is an error, not an empty output.
 */
static int no_records(struct imp_ctx *c, const char *const *inputs,
		      unsigned n)
{
	struct imp_result *r = c->res;
	char skipped[64] = "";

	if (r->skipped)
		snprintf(skipped, sizeof(skipped), ", %" PRIu64
			 " bad record%s skipped", r->skipped,
			 r->skipped == 1 ? "" : "s");
	snprintf(r->err_file, sizeof(r->err_file), "%s", inputs[0]);
	r->err_where[0] = '\0';
	if (n == 1)
		snprintf(r->err_reason, sizeof(r->err_reason),
			 "no I/O records (format %s%s)", r->format->name,
			 skipped);
	else
		snprintf(r->err_reason, sizeof(r->err_reason),
			 "no I/O records in any of the %u inputs (format %s%s)",
			 n, r->format->name, skipped);
	return IST_EPARSE;
}

int imp_run(const char *const *inputs, unsigned n, const char *out,
	    const struct imp_options *opt, struct imp_result *res)
{
	const struct imp_format *f = opt->format;
	struct out_sink o = { 0 };
	struct sort_emit se = { 0 };
	struct imp_sink sink;
	struct imp_ctx c;
	ist_header *h;
	int ret;

	memset(res, 0, sizeof(*res));
	h = ist_header_new();
	if (!h)
		return -ENOMEM;
	ctx_init(&c, opt, res, h);
	if (n == 0) {
		ret = -EINVAL;
		goto out;
	}
	if (!f) {
		ret = detect(&c, inputs[0], &f);
		if (ret)
			goto out;
	}
	res->format = f;
	if (!out) {
		/* parse only */
		c.emit = emit_check;
		c.emit_ctx = &se;
		ret = parse_inputs(&c, f, inputs, n);
		res->records = se.n;
		res->reordered = se.reordered;
		res->start_ns = se.min_t;
		if (ret && !res->err_reason[0])
			io_error(res, inputs[0], "reading", ret);
		if (!ret && se.n == 0)
			ret = no_records(&c, inputs, n);
		goto out;
	}
	o.c = &c;
	o.f = f;
	o.inputs = inputs;
	o.n = n;
	o.out = out;
	sink.ctx = &o;
	sink.open = sink_open;
	sink.write = sink_write;
	sink.demote = sink_demote;
	ret = imp_sorter_new(&o.sorter, opt->sort_window ? opt->sort_window :
					    IMP_SORT_WINDOW, opt->tmpdir,
			     opt->absolute_time || (f->flags & IMP_KEEP_TIME),
			     &sink);
	if (ret)
		goto out;
	se.sorter = o.sorter;
	c.sorter = o.sorter;
	c.emit = emit_to_sorter;
	c.emit_ctx = &se;
	ret = parse_inputs(&c, f, inputs, n);
	if (ret) {
		/* a write error while parsing is the output's */
		if (!res->err_reason[0])
			io_error(res, out, "writing", ret);
		goto out;
	}
	if (imp_sorter_count(o.sorter) == 0) {
		ret = no_records(&c, inputs, n);
		goto out;
	}
	ret = imp_sorter_finish(o.sorter);
	res->reordered = imp_sorter_reordered(o.sorter);
	res->runs = imp_sorter_runs(o.sorter);
	res->start_ns = imp_sorter_min_t(o.sorter);
	if (ret) {
		io_error(res, out, "writing", ret);
		goto out;
	}
	ret = ist_writer_close(o.w);
	o.w = NULL;
	if (ret) {
		unlink(o.tmp);
		io_error(res, out, "writing", ret);
		goto out;
	}
	if (rename(o.tmp, out)) {
		ret = -errno;
		unlink(o.tmp);
		io_error(res, out, "cannot create", ret);
		goto out;
	}
	res->records = imp_sorter_count(o.sorter);
out:
	if (o.w)
		ist_writer_abort(o.w);
	imp_sorter_free(o.sorter);
	istint_tmp_release(o.tmp);
	imp_stream_close(c.detected);
	free(c.devs);
	ist_header_free(h);
	return ret;
}

int imp_parse_mem(const struct imp_format *f, const void *buf, size_t len,
		  const struct imp_options *opt, imp_emit_fn emit,
		  void *emit_ctx, ist_header *h, struct imp_result *res)
{
	static const char *const name[] = { "<memory>" };
	struct imp_ctx c;
	int ret;

	memset(res, 0, sizeof(*res));
	ctx_init(&c, opt, res, h);
	c.emit = emit;
	c.emit_ctx = emit_ctx;
	c.inputs = name;
	c.ninputs = 1;
	c.path = name[0];
	if (!f) {
		f = imp_format_detect(buf, len);
		if (!f) {
			ret = IST_EPARSE;
			goto out;
		}
	}
	res->format = f;
	if (f->run) {
		ret = IST_EUNSUPPORTED;
		goto out;
	}
	ret = imp_stream_open_mem(&c.stream, buf, len);
	if (ret)
		goto out;
	ret = run_format(&c, f);
out:
	imp_stream_close(c.stream);
	free(c.devs);
	return ret;
}
