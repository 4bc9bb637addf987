/* SPDX-License-Identifier: MIT */
/* export.c - export driver and the canonical CSV, fio iolog v3 and blkparse-like text exporters. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tmpout.h"
#include "import/export.h"
#include "import/import.h"
#include "import/imp_text.h"

#define EXP_BATCH 4096

struct exp_ctx {
	FILE *out;
	const char *in;
	const ist_header *h;
	const char **names;
	unsigned ndev;
	struct exp_result *res;
};

FILE *exp_out(struct exp_ctx *c)
{
	return c->out;
}

const ist_header *exp_header(struct exp_ctx *c)
{
	return c->h;
}

struct exp_result *exp_res(struct exp_ctx *c)
{
	return c->res;
}

const char *exp_dev_name(struct exp_ctx *c, uint32_t dev)
{
	return dev < c->ndev ? c->names[dev] : "unknown";
}

/* A failed write's error: stdio leaves the cause (ENOSPC, EDQUOT, EIO) in
 * errno; "Input/output error" for a full disk misled. */
static int write_err(void)
{
	return errno > 0 ? -errno : -EIO;
}

/* ---------------------------------------------------------------- canonical CSV */

/* The trace's metadata and device table as '# meta:' and '# device:'
 * lines before the header row, as cat and convert write them: import and
 * convert read them back, so CSV -> IST -> CSV is exact and an exported
 * trace keeps its device names and sizes (without them it came back with
 * devices dev0, dev1, ... and the import's metadata). */
static int csv_begin(struct exp_ctx *c, void *priv)
{
	(void)priv;
	return ist_csv_write_header(c->out, exp_header(c)) < 0 ? write_err() : 0;
}

static int csv_record(struct exp_ctx *c, void *priv, const struct ist_record *r)
{
	char line[IST_CSV_LINE_MAX];
	int n = ist_csv_format(r, line, sizeof(line));

	(void)priv;
	if (n < 0)
		return n;
	return fwrite(line, 1, n, c->out) == (size_t)n ? 0 : write_err();
}

static const struct exp_format exp_csv = {
	.name = "csv",
	.description = "canonical CSV (" IST_CSV_HEADER "), exact",
	.begin = csv_begin,
	.record = csv_record,
};

/* ---------------------------------------------------------------- fio iolog v3 */

struct fio_state {
	uint64_t max_us; /* the latest record's time: a trace need not be
			  * in time order (a recording's footer counts its
			  * out_of_order records) */
};

static int fio_begin(struct exp_ctx *c, void *priv)
{
	(void)priv;
	/* fio reads a line of the log as "%256s %256s %llu %u": a file name
	 * that is empty, longer, or holds white space becomes other fields
	 * (the log did not replay, and iostorm's own import refused it) */
	for (unsigned i = 0; i < c->ndev; i++) {
		const char *n = c->names[i];
		size_t len = strlen(n);
		char q[96];

		if (len && len <= 256 && !strpbrk(n, " \t\n\v\f\r"))
			continue;
		snprintf(c->res->err_file, sizeof(c->res->err_file), "%s", c->in);
		snprintf(c->res->err_where, sizeof(c->res->err_where), "device %u", i);
		snprintf(c->res->err_reason, sizeof(c->res->err_reason),
			 "file name '%s': %s in a fio iolog (give --map)",
			 imp_quote(n, len, q, sizeof(q)),
			 !len ? "an empty name cannot stand" : len > 256 ? "longer than 256 bytes" :
			 "white space cannot stand");
		return -EINVAL;
	}
	fputs("fio version 3 iolog\n", c->out);
	for (unsigned i = 0; i < c->ndev; i++)
		fprintf(c->out, "0 %s add\n", c->names[i]);
	for (unsigned i = 0; i < c->ndev; i++)
		fprintf(c->out, "0 %s open\n", c->names[i]);
	return ferror(c->out) ? write_err() : 0;
}

static int fio_record(struct exp_ctx *c, void *priv, const struct ist_record *r)
{
	struct fio_state *st = priv;
	uint64_t us = r->t_ns / 1000;
	const char *act;

	switch (r->op) {
	case IST_OP_READ:
		act = "read";
		break;
	case IST_OP_WRITE:
		act = "write";
		break;
	case IST_OP_DISCARD:
		act = "trim";
		break;
	case IST_OP_FLUSH:
		if (us > st->max_us)
			st->max_us = us;
		return fprintf(c->out, "%" PRIu64 " %s sync 0 0\n", us,
			       exp_dev_name(c, r->dev)) < 0 ? write_err() : 0;
	default:
		/* write-zeroes: fio can only write */
		act = "write";
		c->res->converted++;
		break;
	}
	if (us > st->max_us)
		st->max_us = us;
	return fprintf(c->out, "%" PRIu64 " %s %s %" PRIu64 " %u\n", us,
		       exp_dev_name(c, r->dev), act, r->offset, r->len) < 0 ?
		       write_err() : 0;
}

static int fio_end(struct exp_ctx *c, void *priv)
{
	struct fio_state *st = priv;

	/* after every record of the log, not at the last one's time: the
	 * records need not be in time order, and a close line before a
	 * record of its file is out of the log's order */
	for (unsigned i = 0; i < c->ndev; i++)
		fprintf(c->out, "%" PRIu64 " %s close\n", st->max_us,
			c->names[i]);
	return ferror(c->out) ? write_err() : 0;
}

static const struct exp_format exp_fio = {
	.name = "fio",
	.description = "fio iolog version 3 (us timestamps; devices become files, see --map)",
	.priv_size = sizeof(struct fio_state),
	.begin = fio_begin,
	.record = fio_record,
	.end = fio_end,
};

/* ---------------------------------------------------------------- blkparse-like text */

struct pending_c {
	uint64_t t;
	struct ist_record r;
};

struct blk_state {
	struct pending_c *heap;
	size_t n, cap;
	uint64_t seq;
	unsigned *maj, *min;
};

static void rwbs(const struct ist_record *r, char *b)
{
	int i = 0;

	if (r->op == IST_OP_FLUSH) {
		b[i++] = 'F';
		b[i++] = 'N';
	} else {
		if (r->flags & IST_F_PREFLUSH)
			b[i++] = 'F';
		b[i++] = r->op == IST_OP_READ ? 'R' :
			 r->op == IST_OP_DISCARD ? 'D' : 'W';
	}
	if (r->flags & IST_F_FUA)
		b[i++] = 'F';
	if (r->flags & IST_F_READAHEAD)
		b[i++] = 'A';
	if (r->flags & IST_F_SYNC)
		b[i++] = 'S';
	if (r->flags & IST_F_META)
		b[i++] = 'M';
	b[i] = '\0';
}

static int blk_line(struct exp_ctx *c, struct blk_state *st, char act,
		    uint64_t t, const struct ist_record *r)
{
	char b[16];

	rwbs(r, b);
	st->seq++;
	if (act == 'C')
		return fprintf(c->out, "%3u,%-3u %2d %8" PRIu64 " %5" PRIu64
			       ".%09" PRIu64 " %5u  C %3s %" PRIu64 " + %u [0]\n",
			       st->maj[r->dev], st->min[r->dev], 0, st->seq,
			       t / 1000000000, t % 1000000000,
			       (unsigned)r->stream, b, r->offset / 512,
			       r->len / 512) < 0 ? write_err() : 0;
	return fprintf(c->out, "%3u,%-3u %2d %8" PRIu64 " %5" PRIu64 ".%09" PRIu64
		       " %5u  %c %3s %" PRIu64 " + %u [iostorm]\n",
		       st->maj[r->dev], st->min[r->dev], 0, st->seq,
		       t / 1000000000, t % 1000000000, (unsigned)r->stream, act,
		       b, r->offset / 512, r->len / 512) < 0 ? write_err() : 0;
}

static void heap_up(struct pending_c *h, size_t i)
{
	while (i) {
		size_t p = (i - 1) / 2;
		struct pending_c t;

		if (h[p].t <= h[i].t)
			break;
		t = h[p];
		h[p] = h[i];
		h[i] = t;
		i = p;
	}
}

static void heap_down(struct pending_c *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct pending_c t;

		if (l < n && h[l].t < h[m].t)
			m = l;
		if (l + 1 < n && h[l + 1].t < h[m].t)
			m = l + 1;
		if (m == i)
			return;
		t = h[m];
		h[m] = h[i];
		h[i] = t;
		i = m;
	}
}

/* Writes the completions due before time t (all with t = UINT64_MAX). */
static int blk_drain(struct exp_ctx *c, struct blk_state *st, uint64_t t)
{
	int ret;

	while (st->n && st->heap[0].t < t) {
		ret = blk_line(c, st, 'C', st->heap[0].t, &st->heap[0].r);
		if (ret)
			return ret;
		st->heap[0] = st->heap[--st->n];
		heap_down(st->heap, st->n, 0);
	}
	return 0;
}

static int blk_begin(struct exp_ctx *c, void *priv)
{
	struct blk_state *st = priv;

	st->maj = calloc(c->ndev + 1, sizeof(*st->maj));
	st->min = calloc(c->ndev + 1, sizeof(*st->min));
	if (!st->maj || !st->min)
		return -ENOMEM;
	for (unsigned i = 0; i < c->ndev; i++) {
		unsigned a, b;
		char tail;

		/* devices named "major,minor" keep their numbers */
		if (sscanf(c->names[i], "%u,%u%c", &a, &b, &tail) == 2) {
			st->maj[i] = a;
			st->min[i] = b;
		} else {
			st->maj[i] = 0;
			st->min[i] = i;
		}
	}
	return 0;
}

static int blk_record(struct exp_ctx *c, void *priv, const struct ist_record *r)
{
	struct blk_state *st = priv;
	struct ist_record rr = *r;
	int ret;

	if (r->dev >= c->ndev)
		rr.dev = c->ndev; /* maj/min 0,0 */
	if ((r->offset | r->len) & 511)
		c->res->unaligned++;
	ret = blk_drain(c, st, r->t_ns);
	if (ret)
		return ret;
	ret = blk_line(c, st, 'Q', r->t_ns, &rr);
	if (ret || !r->lat_ns)
		return ret;
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 1024;
		struct pending_c *n = realloc(st->heap, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		st->heap = n;
		st->cap = cap;
	}
	st->heap[st->n].t = r->t_ns + r->lat_ns;
	st->heap[st->n].r = rr;
	heap_up(st->heap, st->n++);
	return 0;
}

static int blk_end(struct exp_ctx *c, void *priv)
{
	return blk_drain(c, priv, UINT64_MAX);
}

static void blk_free(void *priv)
{
	struct blk_state *st = priv;

	free(st->heap);
	free(st->maj);
	free(st->min);
}

static const struct exp_format exp_blkparse = {
	.name = "blkparse",
	.description = "blkparse-like text: a Q line per I/O, a C line when its latency is known",
	.priv_size = sizeof(struct blk_state),
	.begin = blk_begin,
	.record = blk_record,
	.end = blk_end,
	.free = blk_free,
};

/* ---------------------------------------------------------------- driver */

const struct exp_format *const exp_formats[] = {
	&exp_csv,
	&exp_fio,
	&exp_blkparse,
	NULL,
};

const struct exp_format *exp_format_find(const char *name)
{
	for (unsigned i = 0; exp_formats[i]; i++)
		if (!strcmp(exp_formats[i]->name, name))
			return exp_formats[i];
	return NULL;
}

static void set_err(struct exp_result *res, const char *file,
		    const char *where, const char *reason)
{
	snprintf(res->err_file, sizeof(res->err_file), "%s", file);
	snprintf(res->err_where, sizeof(res->err_where), "%s", where);
	snprintf(res->err_reason, sizeof(res->err_reason), "%s", reason);
}

int exp_run(const char *in, const char *out, const struct exp_format *f,
	    const struct exp_options *opt, struct exp_result *res)
{
	struct ist_record *recs = NULL;
	struct exp_ctx c = { 0 };
	ist_reader *r = NULL;
	char tmp[4200] = "";
	void *priv = NULL;
	int ret, to_stdout = !strcmp(out, "-");
	ssize_t n;

	memset(res, 0, sizeof(*res));
	c.res = res;
	c.in = in;
	ret = ist_reader_open(&r, in);
	if (ret) {
		set_err(res, in, "", ist_strerror(ret));
		return ret;
	}
	c.h = ist_reader_header(r);
	c.ndev = ist_header_device_count(c.h);
	c.names = calloc(c.ndev + 1, sizeof(*c.names));
	recs = malloc(EXP_BATCH * sizeof(*recs));
	if (f->priv_size)
		priv = calloc(1, f->priv_size);
	if (!c.names || !recs || (f->priv_size && !priv)) {
		ret = -ENOMEM;
		set_err(res, in, "", ist_strerror(ret));
		goto out;
	}
	for (unsigned i = 0; i < c.ndev; i++) {
		c.names[i] = ist_header_device(c.h, i)->name;
		for (unsigned j = 0; opt && j < opt->nmap; j++)
			if (!strcmp(opt->map[j].dev, c.names[i]))
				c.names[i] = opt->map[j].file;
	}
	/* a misspelt device would leave its name in the log unmapped */
	for (unsigned j = 0; opt && j < opt->nmap; j++) {
		unsigned i;

		for (i = 0; i < c.ndev; i++)
			if (!strcmp(opt->map[j].dev,
				    ist_header_device(c.h, i)->name))
				break;
		if (i == c.ndev) {
			char why[256];

			snprintf(why, sizeof(why),
				 "--map %.180s: no device of that name in the trace",
				 opt->map[j].dev);
			set_err(res, in, "", why);
			ret = -ENODEV;
			goto out;
		}
	}
	if (to_stdout) {
		c.out = stdout;
	} else {
		/* a new file (never a user's file or a symlink's target of
		 * the same name), guarded against the signals from the start */
		int fd = istint_tmp_create(tmp, sizeof(tmp), out, "exporting");

		c.out = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!c.out) {
			ret = fd >= 0 ? -errno : fd;
			if (fd >= 0) {
				close(fd);
				unlink(tmp);
			}
			istint_tmp_release(tmp);
			tmp[0] = '\0';
			set_err(res, out, "", ist_strerror(ret));
			goto out;
		}
	}
	ret = f->begin ? f->begin(&c, priv) : 0;
	while (!ret) {
		n = ist_reader_read(r, recs, EXP_BATCH);
		if (n < 0) {
			struct ist_position pos;
			char where[96];

			ist_reader_position(r, &pos);
			snprintf(where, sizeof(where),
				 "chunk %" PRIu64 " (byte offset %" PRIu64 ")",
				 pos.chunk, pos.byte_offset);
			set_err(res, in, where, ist_strerror((int)n));
			ret = (int)n;
			break;
		}
		if (n == 0)
			break;
		for (ssize_t i = 0; i < n && !ret; i++)
			ret = f->record(&c, priv, &recs[i]);
		res->records += n;
	}
	if (!ret && f->end)
		ret = f->end(&c, priv);
	if (ret && !res->err_reason[0])
		set_err(res, out, "", ist_strerror(ret));
	if (!to_stdout) {
		if (fclose(c.out) && !ret) {
			ret = write_err();
			set_err(res, out, "", ist_strerror(ret));
		}
		if (ret)
			unlink(tmp);
		else if (rename(tmp, out)) {
			ret = -errno;
			set_err(res, out, "", ist_strerror(ret));
			unlink(tmp);
		}
		istint_tmp_release(tmp);
	} else if (fflush(stdout) && !ret) {
		ret = write_err();
		set_err(res, "-", "", ist_strerror(ret));
	}
out:
	if (f->free && priv)
		f->free(priv);
	free(priv);
	free(recs);
	free(c.names);
	ist_reader_close(r);
	return ret;
}
