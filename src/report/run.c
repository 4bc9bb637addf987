/* SPDX-License-Identifier: MIT */
/* run.c - loads replay, sweep and precondition results from their JSON
 * files into one model, and defines the headline figures. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/jscan.h"
#include "report/run.h"

/* Result files are small (a row per interval); refuse absurd ones rather
 * than reading gigabytes into memory. */
#define MAX_RESULT_BYTES (256u << 20)

struct ctx {
	char *err;
	size_t errsize;
};

static int fail(struct ctx *c, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct ctx *c, int code, const char *fmt, ...)
{
	va_list ap;

	if (c->err && c->errsize) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errsize, fmt, ap);
		va_end(ap);
		/* the message quotes the file's strings (an unknown schema, a
		 * key), which json-c takes with raw control characters in
		 * them: a refusal stays on one line */
		for (char *p = c->err; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	}
	return code;
}

/* Member name of obj (one level). */
static json_object *get(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_is_type(o, json_type_object))
		return NULL;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* The first of several alternative names (NULL-terminated list). */
static json_object *get_alt(json_object *o, const char *const *keys)
{
	for (; *keys; keys++) {
		json_object *v = get(o, *keys);

		if (v && !json_object_is_type(v, json_type_null))
			return v;
	}
	return NULL;
}

static int is_num(json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) ||
		     json_object_is_type(v, json_type_double));
}

static double num(json_object *v, double def)
{
	if (!is_num(v))
		return def;
	if (json_object_is_type(v, json_type_int)) {
		int64_t i = json_object_get_int64(v);

		/* json-c keeps integers above INT64_MAX as unsigned */
		return i == INT64_MAX ? (double)json_object_get_uint64(v) : (double)i;
	}
	return json_object_get_double(v);
}

/* A number, or the sum of an object's numeric members (per-op counts). */
/* A count or index: num() clamped to [0, UINT_MAX] (a cast of a negative,
 * huge or NaN double to unsigned is undefined); def when absent. */
static unsigned unum(json_object *v, unsigned def)
{
	double d = num(v, def);

	if (!(d >= 0))
		return 0;
	return d >= (double)UINT_MAX ? UINT_MAX : (unsigned)d;
}

static double num_or_sum(json_object *v, double def)
{
	double s = 0;
	int any = 0;

	if (is_num(v))
		return num(v, def);
	if (!v || !json_object_is_type(v, json_type_object))
		return def;
	json_object_object_foreach(v, k, m) {
		(void)k;
		if (is_num(m)) {
			s += num(m, 0);
			any = 1;
		}
	}
	return any ? s : def;
}

static char *dup_str(json_object *v)
{
	if (!v || !json_object_is_type(v, json_type_string))
		return NULL;
	return strdup(json_object_get_string(v));
}

static int boolean(json_object *v)
{
	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_boolean))
		return json_object_get_boolean(v);
	return num(v, 0) != 0;
}

#define ALT(...) ((const char *const[]){ __VA_ARGS__, NULL })

/*
 * The figures a result is judged by, when present: a number (null is
 * absent), finite and not negative.  A negative IOPS or latency is no
 * measurement (a damaged or edited file): compare reported it as a -100%
 * change "not significant" and the gate passed.
 */
static int check_figures(struct ctx *c, json_object *o, const char *where,
			 const char *const *keys)
{
	if (!o || !json_object_is_type(o, json_type_object))
		return 0;
	for (; *keys; keys++) {
		json_object *v = get(o, *keys);

		if (!v || json_object_is_type(v, json_type_null))
			continue;
		if (!is_num(v))
			return fail(c, IST_EPARSE, "%s%s: not a number", where, *keys);
		if (!isfinite(num(v, 0)))
			return fail(c, IST_EPARSE, "%s%s: not a finite number", where, *keys);
		if (num(v, 0) < 0)
			return fail(c, IST_EPARSE, "%s%s: %s is negative", where, *keys,
				    json_object_get_string(v));
	}
	return 0;
}

static const char *const pct_keys[] = {
	"count", "min", "max", "mean", "stddev", "p50", "p90", "p99", "p99_9",
	"p99_99", "min_ns", "max_ns", "mean_ns", "stddev_ns", "p50_ns", "p90_ns",
	"p99_ns", "p99_9_ns", "p999_ns", "p99_99_ns", "p9999_ns", NULL
};

static void load_pcts(json_object *o, struct rpt_pcts *p)
{
	memset(p, 0, sizeof(*p));
	if (!o || !json_object_is_type(o, json_type_object))
		return;
	p->count = num(get_alt(o, ALT("count", "n")), 0);
	p->min = num(get_alt(o, ALT("min_ns", "min")), NAN);
	p->max = num(get_alt(o, ALT("max_ns", "max")), NAN);
	p->mean = num(get_alt(o, ALT("mean_ns", "mean")), NAN);
	p->stddev = num(get_alt(o, ALT("stddev_ns", "stddev")), NAN);
	p->p50 = num(get_alt(o, ALT("p50_ns", "p50")), NAN);
	p->p90 = num(get_alt(o, ALT("p90_ns", "p90")), NAN);
	p->p99 = num(get_alt(o, ALT("p99_ns", "p99")), NAN);
	p->p999 = num(get_alt(o, ALT("p99_9_ns", "p999_ns", "p99.9", "p99_9", "p999")), NAN);
	p->p9999 = num(get_alt(o, ALT("p99_99_ns", "p9999_ns", "p99.99", "p99_99", "p9999")), NAN);
	/* an empty summary (count 0) carries no figures */
	p->present = p->count > 0 || (!get(o, "count") && isfinite(p->mean));
	if (p->count == 0 && get(o, "count"))
		p->present = 0;
}

static json_object *lat_of(json_object *o)
{
	return get_alt(o, ALT("latency_ns", "latency"));
}

static json_object *late_of(json_object *o)
{
	return get_alt(o, ALT("lateness_ns", "lateness"));
}

static int add_setting(struct rpt_run *r, const char *key, json_object *v)
{
	struct rpt_setting *s;
	const char *txt;

	if (json_object_is_type(v, json_type_object) ||
	    json_object_is_type(v, json_type_array))
		return 0;
	s = realloc(r->settings, (r->nsettings + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	r->settings = s;
	txt = json_object_is_type(v, json_type_null) ? "null" :
	      json_object_get_string(v);
	s[r->nsettings].key = strdup(key);
	s[r->nsettings].value = strdup(txt ? txt : "");
	if (!s[r->nsettings].key || !s[r->nsettings].value) {
		free(s[r->nsettings].key);
		free(s[r->nsettings].value);
		return -ENOMEM;
	}
	r->nsettings++;
	return 0;
}

static int load_settings(struct rpt_run *r, json_object *o)
{
	if (!o || !json_object_is_type(o, json_type_object))
		return 0;
	json_object_object_foreach(o, k, v) {
		int e = add_setting(r, k, v);

		if (e < 0)
			return e;
	}
	return 0;
}

/* The trace's identity: its totals (records, span, op mix) when the file
 * had a footer, and a synthetic profile's name from the metadata. */
static int load_trace(struct rpt_run *r, json_object *t)
{
	json_object *tot, *meta;

	if (!t || !json_object_is_type(t, json_type_object))
		return 0;
	r->trace_path = dup_str(get(t, "path"));
	r->trace_records = NAN;
	r->trace_duration_s = NAN;
	tot = get(t, "totals");
	if (tot && json_object_is_type(tot, json_type_object)) {
		r->trace_records = num(get(tot, "records"), NAN);
		if (get(tot, "duration_ns"))
			r->trace_duration_s = num(get(tot, "duration_ns"), NAN) / 1e9;
		for (unsigned i = 0; i < IST_OP_COUNT; i++) {
			json_object *v = get(tot, ist_op_name(i));

			r->trace_ops[i] = num(get(v, "count"), 0);
			if (v)
				r->trace_ops_present = 1;
		}
	}
	meta = get(t, "metadata");
	if (meta) {
		/* a synthetic trace is identified by its profile, parameters and
		 * seed, a recorded one by its source; kept as text */
		const char *keys[] = { "profile", "params", "seed", "source", "host" };
		char id[1024] = "";

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			const char *v = json_object_get_string(get(meta, keys[i]));

			if (v && strlen(id) + strlen(keys[i]) + strlen(v) + 3 < sizeof(id)) {
				if (id[0])
					strcat(id, " ");
				strcat(id, keys[i]);
				strcat(id, "=");
				strcat(id, v);
			}
		}
		if (id[0])
			r->trace_id = strdup(id);
	}
	return 0;
}

static void load_interval(json_object *o, struct rpt_interval *iv)
{
	memset(iv, 0, sizeof(*iv));
	iv->start_s = num(get_alt(o, ALT("start_ns", "t_ns")), 0) / 1e9;
	iv->len_s = num(get_alt(o, ALT("length_ns", "len_ns", "duration_ns")), 0) / 1e9;
	iv->ios = num_or_sum(get(o, "ios"), 0);
	iv->bytes = num_or_sum(get(o, "bytes"), 0);
	iv->txns = num(get_alt(o, ALT("txns", "transactions")), 0);
	iv->errors = num(get(o, "errors"), 0);
	load_pcts(lat_of(o), &iv->lat);
	load_pcts(late_of(o), &iv->late);
}

static int load_points(struct ctx *c, json_object *a, const char *what,
		       struct rpt_point **out, size_t *n)
{
	size_t len;

	*out = NULL;
	*n = 0;
	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return fail(c, IST_EPARSE, "%s: not an array", what);
	len = json_object_array_length(a);
	if (!len)
		return 0;
	*out = calloc(len, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		json_object *o = json_object_array_get_idx(a, i);
		struct rpt_point *p = &(*out)[i];

		if (!json_object_is_type(o, json_type_object))
			return fail(c, IST_EPARSE, "%s[%zu]: not an object", what, i);
		{
			char w[64];
			int e;

			snprintf(w, sizeof(w), "%s[%zu].", what, i);
			e = check_figures(c, o, w, ALT("elapsed_ns", "ios", "bytes", "iops",
						       "mb_per_s", "mbps"));
			if (e < 0)
				return e;
			snprintf(w, sizeof(w), "%s[%zu].latency_ns.", what, i);
			e = check_figures(c, lat_of(o), w, pct_keys);
			if (e < 0)
				return e;
		}
		p->threads = unum(get(o, "threads"), 0);
		p->qd = unum(get_alt(o, ALT("qd", "iodepth")), 0);
		p->pct = num(get(o, "pct"), NAN);
		p->target_iops = num(get(o, "target_iops"), NAN);
		p->round = unum(get(o, "round"), (unsigned)(i + 1));
		p->elapsed_s = num(get(o, "elapsed_ns"), 0) / 1e9;
		p->ios = num_or_sum(get(o, "ios"), 0);
		p->bytes = num_or_sum(get(o, "bytes"), 0);
		p->iops = num(get(o, "iops"), NAN);
		p->mbps = num(get_alt(o, ALT("mb_per_s", "mbps")), NAN);
		if (!isfinite(p->iops))
			p->iops = p->elapsed_s > 0 ? p->ios / p->elapsed_s : NAN;
		if (!isfinite(p->mbps))
			p->mbps = p->elapsed_s > 0 ? p->bytes / p->elapsed_s / 1e6 : NAN;
		if (!isfinite(p->iops))
			return fail(c, IST_EPARSE, "%s[%zu]: no iops", what, i);
		load_pcts(lat_of(o), &p->lat);
		load_pcts(late_of(o), &p->late);
	}
	*n = len;
	return 0;
}

/* Target paths joined by ", ". */
static char *join_targets(json_object *tg)
{
	size_t n, len = 1;
	char *s;

	if (!tg || !json_object_is_type(tg, json_type_array))
		return NULL;
	n = json_object_array_length(tg);
	for (size_t i = 0; i < n; i++) {
		const char *p = json_object_get_string(get(json_object_array_get_idx(tg, i), "path"));

		len += (p ? strlen(p) : 0) + 2;
	}
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *p = json_object_get_string(get(json_object_array_get_idx(tg, i), "path"));

		if (!p)
			continue;
		if (*s)
			strcat(s, ", ");
		strcat(s, p);
	}
	return s;
}

/* Schema iostorm-replay/1, see iostorm-replay(1). */
static int load_replay(struct ctx *c, struct rpt_run *r, json_object *root)
{
	json_object *run = get(root, "run"), *tot = get(root, "totals");
	json_object *ops, *tx, *ivs, *set;
	int e;

	r->interrupted = boolean(get(root, "interrupted"));
	r->complete = get(root, "complete") ? boolean(get(root, "complete")) : 1;
	if (!run || !is_num(get(run, "elapsed_ns")))
		return fail(c, IST_EPARSE, "run.elapsed_ns: missing");
	if ((e = check_figures(c, run, "run.", ALT("elapsed_ns", "cpu_user_ns",
						    "cpu_sys_ns"))) < 0 ||
	    (e = check_figures(c, tot, "totals.", ALT("ios", "bytes", "errors", "iops",
						       "mb_per_s", "mbps"))) < 0 ||
	    (e = check_figures(c, lat_of(tot), "totals.latency_ns.", pct_keys)) < 0 ||
	    (e = check_figures(c, get(root, "transactions"), "transactions.",
			       ALT("count", "tps"))) < 0 ||
	    (e = check_figures(c, lat_of(get(root, "transactions")),
			       "transactions.latency_ns.", pct_keys)) < 0)
		return e;
	r->elapsed_s = num(get(run, "elapsed_ns"), 0) / 1e9;
	r->cpu_s = (num(get(run, "cpu_user_ns"), 0) + num(get(run, "cpu_sys_ns"), 0)) / 1e9;
	if (!tot || !is_num(get(tot, "ios")))
		return fail(c, IST_EPARSE, "totals.ios: missing");
	r->ios = num(get(tot, "ios"), 0);
	r->bytes = num(get(tot, "bytes"), 0);
	r->errors = num(get(tot, "errors"), 0);
	r->iops = num(get(tot, "iops"), NAN);
	r->mbps = num(get_alt(tot, ALT("mb_per_s", "mbps")), NAN);
	if (!isfinite(r->iops))
		r->iops = r->elapsed_s > 0 ? r->ios / r->elapsed_s : 0;
	if (!isfinite(r->mbps))
		r->mbps = r->elapsed_s > 0 ? r->bytes / r->elapsed_s / 1e6 : 0;
	load_pcts(lat_of(tot), &r->lat);
	if (!lat_of(tot))
		return fail(c, IST_EPARSE, "totals.latency_ns: missing");
	load_pcts(late_of(root), &r->late);
	ops = get(root, "ops");
	if (ops && json_object_is_type(ops, json_type_object))
		for (unsigned i = 0; i < IST_OP_COUNT; i++) {
			json_object *o = get(ops, ist_op_name(i));

			if (!o)
				continue;
			r->op_ios[i] = num(get(o, "ios"), 0);
			r->op_bytes[i] = num(get(o, "bytes"), 0);
			load_pcts(lat_of(o), &r->op_lat[i]);
		}
	tx = get(root, "transactions");
	r->tps = NAN;
	if (tx && json_object_is_type(tx, json_type_object)) {
		r->txns = num(get(tx, "count"), 0);
		r->tps = num(get(tx, "tps"), NAN);
		load_pcts(lat_of(tx), &r->txn_lat);
		load_pcts(get_alt(tx, ALT("recorded_latency_ns")), &r->rec_lat);
	}
	if (!isfinite(r->tps) && r->txns > 0 && r->elapsed_s > 0)
		r->tps = r->txns / r->elapsed_s;
	if (!(r->txns > 0))
		r->tps = NAN;

	ivs = get(root, "intervals");
	if (ivs) {
		size_t n;

		if (!json_object_is_type(ivs, json_type_array))
			return fail(c, IST_EPARSE, "intervals: not an array");
		n = json_object_array_length(ivs);
		r->iv = n ? calloc(n, sizeof(*r->iv)) : NULL;
		if (n && !r->iv)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			json_object *o = json_object_array_get_idx(ivs, i);

			if (!json_object_is_type(o, json_type_object))
				return fail(c, IST_EPARSE, "intervals[%zu]: not an object", i);
			load_interval(o, &r->iv[i]);
			if (!(r->iv[i].len_s > 0))
				return fail(c, IST_EPARSE, "intervals[%zu].length_ns: missing", i);
		}
		r->niv = n;
	}
	set = get(root, "settings");
	r->target = join_targets(get(set, "targets"));
	e = load_trace(r, get(root, "trace"));
	if (e < 0)
		return e;
	return load_settings(r, set);
}

static int load_sweep(struct ctx *c, struct rpt_run *r, json_object *root)
{
	int e;

	e = load_points(c, get(root, "grid"), "grid", &r->grid, &r->ngrid);
	if (e < 0)
		return e;
	e = load_points(c, get(root, "curve"), "curve", &r->curve, &r->ncurve);
	if (e < 0)
		return e;
	if (!r->ngrid && !r->ncurve)
		return fail(c, IST_EPARSE, "grid, curve: both missing or empty");
	r->max_iops = num(get(root, "max_iops"), NAN);
	r->target = dup_str(get(root, "target"));
	e = load_trace(r, get(root, "trace"));
	if (e < 0)
		return e;
	return load_settings(r, get(root, "settings"));
}

static int load_precond(struct ctx *c, struct rpt_run *r, json_object *root)
{
	json_object *fill = get(root, "fill"), *ss = get(root, "steady_state");
	int e;

	e = load_points(c, get(root, "rounds"), "rounds", &r->rounds, &r->nrounds);
	if (e < 0)
		return e;
	if (!get(root, "rounds"))
		return fail(c, IST_EPARSE, "rounds: missing");
	r->target = dup_str(get(root, "target"));
	r->workload = dup_str(get(root, "workload"));
	r->interrupted = boolean(get(root, "interrupted"));
	if (fill) {
		r->fill_passes = num(get(fill, "passes"), 0);
		r->fill_bytes = num(get(fill, "bytes"), 0);
		r->fill_s = num(get(fill, "elapsed_ns"), 0) / 1e9;
	}
	if (ss) {
		r->steady = boolean(get(ss, "reached"));
		r->steady_first = unum(get(ss, "window_first"), 0);
		r->steady_last = unum(get(ss, "window_last"), 0);
		r->steady_avg = num(get(ss, "average"), NAN);
		r->steady_excursion = num(get(ss, "excursion"), NAN);
		r->steady_slope_excursion = num(get(ss, "slope_excursion"), NAN);
	}
	return load_settings(r, get(root, "settings"));
}

/* Maps the file (bounded) for the scanner and the tokenizer. */
static int map_file(struct ctx *c, const char *path, const char **buf, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *m;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return fail(c, -errno, "%s", strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail(c, -EINVAL, "not a regular file");
	}
	if ((unsigned long long)st.st_size > MAX_RESULT_BYTES) {
		close(fd);
		return fail(c, -EFBIG, "larger than %u MiB: not a result file",
			    MAX_RESULT_BYTES >> 20);
	}
	if (st.st_size == 0) {
		/* as every command says it ("line 1: truncated JSON" was
		 * true, but not the reason) */
		close(fd);
		return fail(c, IST_EPARSE, "empty file");
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return fail(c, -errno, "%s", strerror(errno));
	madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
	*buf = m;
	*len = (size_t)st.st_size;
	return 0;
}

static size_t line_of(const char *buf, size_t off)
{
	size_t line = 1;

	for (size_t k = 0; k < off; k++)
		line += buf[k] == '\n';
	return line;
}

/* A piece of the text to parse: p[0..n), at file offset off. */
struct piece {
	const char *p;
	size_t n, off;
};

/* Parses the concatenation of pieces as one JSON value; errors name the
 * line in the file. */
static json_object *parse(struct ctx *c, const char *file, const struct piece *pc,
			  size_t npc, int *err)
{
	json_tokener *tok = json_tokener_new();
	enum json_tokener_error je = json_tokener_continue;
	json_object *o = NULL;
	size_t i, used = 0;

	if (!tok) {
		*err = -ENOMEM;
		return NULL;
	}
	for (i = 0; i < npc && je == json_tokener_continue; i++) {
		if (pc[i].n > (size_t)INT32_MAX) {
			*err = fail(c, IST_EPARSE, "line 1: too large");
			json_tokener_free(tok);
			return NULL;
		}
		o = json_tokener_parse_ex(tok, pc[i].p, (int)pc[i].n);
		je = json_tokener_get_error(tok);
		used = (size_t)tok->char_offset;
	}
	i--;
	if (o && je == json_tokener_success) {
		/* nothing but white space may follow */
		size_t rest = rpt_jscan_ws(pc[i].p, pc[i].n, used);

		if (rest < pc[i].n || i + 1 < npc) {
			json_object_put(o);
			*err = fail(c, IST_EPARSE, "line %zu: data after the JSON value",
				    line_of(file, pc[i].off + rest));
			o = NULL;
		}
		json_tokener_free(tok);
		return o;
	}
	if (o)
		json_object_put(o);
	if (je == json_tokener_continue)
		*err = fail(c, IST_EPARSE, "line %zu: truncated JSON",
			    line_of(file, pc[i].off + pc[i].n));
	else
		*err = fail(c, IST_EPARSE, "line %zu: bad JSON: %s",
			    line_of(file, pc[i].off + (used < pc[i].n ? used : pc[i].n)),
			    json_tokener_error_desc(je));
	json_tokener_free(tok);
	return NULL;
}

/* The intervals array [vs, ve) of a replay result, one row at a time. */
static int stream_intervals(struct ctx *c, struct rpt_run *r, const char *buf,
			    size_t vs, size_t ve)
{
	size_t n = 0, pos;
	int e;

	/* count first: one allocation of the right size */
	for (pos = rpt_jscan_ws(buf, ve, vs + 1); pos < ve && buf[pos] != ']';) {
		size_t end = rpt_jscan_value_end(buf, ve, pos);

		if (!end || end == pos)
			return fail(c, IST_EPARSE, "line %zu: bad JSON in intervals",
				    line_of(buf, pos));
		n++;
		pos = rpt_jscan_ws(buf, ve, end);
		if (pos < ve && buf[pos] == ',')
			pos = rpt_jscan_ws(buf, ve, pos + 1);
		else if (pos >= ve || buf[pos] != ']')
			return fail(c, IST_EPARSE, "line %zu: bad JSON in intervals",
				    line_of(buf, pos));
	}
	free(r->iv);
	r->iv = n ? calloc(n, sizeof(*r->iv)) : NULL;
	r->niv = 0;
	if (n && !r->iv)
		return -ENOMEM;
	for (pos = rpt_jscan_ws(buf, ve, vs + 1); r->niv < n;) {
		size_t end = rpt_jscan_value_end(buf, ve, pos);
		struct piece pc = { buf + pos, end - pos, pos };
		json_object *o = parse(c, buf, &pc, 1, &e);

		if (!o)
			return e;
		if (!json_object_is_type(o, json_type_object)) {
			json_object_put(o);
			return fail(c, IST_EPARSE, "intervals[%zu]: not an object", r->niv);
		}
		load_interval(o, &r->iv[r->niv]);
		json_object_put(o);
		if (!(r->iv[r->niv].len_s > 0))
			return fail(c, IST_EPARSE, "intervals[%zu].length_ns: missing", r->niv);
		r->niv++;
		pos = rpt_jscan_ws(buf, ve, end);
		pos = rpt_jscan_ws(buf, ve, pos + 1); /* past the comma */
	}
	return 0;
}

static char *default_label(const char *path)
{
	const char *b = strrchr(path, '/');
	char *l;
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 5 && !strcmp(b + n - 5, ".json"))
		n -= 5;
	l = malloc(n + 1);
	if (l) {
		memcpy(l, b, n);
		l[n] = 0;
	}
	return l;
}

int rpt_run_load(struct rpt_run **out, const char *path, char *err,
		 size_t errsize)
{
	struct ctx c = { err, errsize };
	struct rpt_run *r;
	json_object *root, *sch;
	const char *schema, *buf = NULL;
	struct piece pc[3];
	size_t len = 0, npc = 1, vs = 0, ve = 0;
	int e, split;

	*out = NULL;
	if (err && errsize)
		err[0] = 0;
	e = map_file(&c, path, &buf, &len);
	if (e < 0)
		return e;
	/* a replay's intervals are parsed row by row, the rest as a tree */
	split = rpt_jscan_member(buf, len, "intervals", &vs, &ve) == 0 && buf[vs] == '[';
	pc[0] = (struct piece){ buf, split ? vs : len, 0 };
	if (split) {
		pc[1] = (struct piece){ "[]", 2, vs };
		pc[2] = (struct piece){ buf + ve, len - ve, ve };
		npc = 3;
	}
	root = parse(&c, buf, pc, npc, &e);
	if (!root && split && e == IST_EPARSE) {
		/* The scan tracks nesting, not which brackets: a value it
		 * took ('[{"a": 1]}') is refused by the parser as what was
		 * left around it ("truncated JSON").  The whole text parsed
		 * as one says what is wrong, and where. */
		split = 0;
		pc[0] = (struct piece){ buf, len, 0 };
		npc = 1;
		root = parse(&c, buf, pc, npc, &e);
	}
	if (!root) {
		if (buf)
			munmap((void *)buf, len);
		return e;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		json_object_put(root);
		munmap((void *)buf, len);
		return -ENOMEM;
	}
	r->path = strdup(path);
	if (!json_object_is_type(root, json_type_object)) {
		e = fail(&c, IST_EPARSE, "line 1: not a JSON object");
		goto out;
	}
	sch = get(root, "schema");
	schema = sch ? json_object_get_string(sch) : NULL;
	if (!schema) {
		e = fail(&c, IST_EPARSE, "schema: missing (not an iostorm result)");
		goto out;
	}
	r->schema = strdup(schema);
	r->started = dup_str(get(root, "started"));
	r->command = dup_str(get(root, "command"));
	r->label = dup_str(get(root, "label"));
	if (!r->label)
		r->label = default_label(path);
	if (!r->path || !r->schema || !r->label) {
		e = -ENOMEM;
		goto out;
	}
	if (!strcmp(schema, "iostorm-replay/1")) {
		r->kind = RPT_REPLAY;
		e = load_replay(&c, r, root);
		if (e == 0 && split)
			e = stream_intervals(&c, r, buf, vs, ve);
	} else if (!strcmp(schema, "iostorm-sweep/1")) {
		r->kind = RPT_SWEEP;
		e = load_sweep(&c, r, root);
	} else if (!strcmp(schema, "iostorm-precondition/1")) {
		r->kind = RPT_PRECOND;
		e = load_precond(&c, r, root);
	} else {
		e = fail(&c, IST_EVERSION, "schema: unknown schema '%s'", schema);
	}
out:
	json_object_put(root);
	if (buf)
		munmap((void *)buf, len);
	if (e < 0) {
		if (e == -ENOMEM && err && errsize && !err[0])
			snprintf(err, errsize, "%s", strerror(ENOMEM));
		rpt_run_free(r);
		return e;
	}
	*out = r;
	return 0;
}

void rpt_run_free(struct rpt_run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nsettings; i++) {
		free(r->settings[i].key);
		free(r->settings[i].value);
	}
	free(r->settings);
	free(r->path);
	free(r->label);
	free(r->schema);
	free(r->started);
	free(r->command);
	free(r->target);
	free(r->trace_path);
	free(r->trace_id);
	free(r->iv);
	free(r->grid);
	free(r->curve);
	free(r->rounds);
	free(r->workload);
	free(r);
}

const char *rpt_run_setting(const struct rpt_run *r, const char *key)
{
	for (size_t i = 0; i < r->nsettings; i++)
		if (!strcmp(r->settings[i].key, key))
			return r->settings[i].value;
	return NULL;
}

/* ------------------------------------------------------- headline figures */

#define PO(f) offsetof(struct rpt_pcts, f)

const struct rpt_metric rpt_metrics[] = {
	{ "iops", "IOPS", "IOPS", 1, 0, RPT_V_IOPS, RPT_IV_IOPS, 0 },
	{ "mbps", "Throughput", "MB/s", 1, 0, RPT_V_MBPS, RPT_IV_MBPS, 0 },
	{ "tps", "TPS-eq", "txn/s", 1, 0, RPT_V_TPS, RPT_IV_TPS, 0 },
	{ "lat_mean", "Mean latency", "us", 0, 1, RPT_V_LAT, RPT_IV_LAT, PO(mean) },
	{ "lat_p50", "p50 latency", "us", 0, 1, RPT_V_LAT, RPT_IV_LAT, PO(p50) },
	{ "lat_p90", "p90 latency", "us", 0, 1, RPT_V_LAT, RPT_IV_LAT, PO(p90) },
	{ "lat_p99", "p99 latency", "us", 0, 1, RPT_V_LAT, RPT_IV_LAT, PO(p99) },
	{ "lat_p999", "p99.9 latency", "us", 0, 1, RPT_V_LAT, RPT_IV_LAT, PO(p999) },
	/* an interval holds too few I/Os for its p99.99 or max to mean much */
	{ "lat_p9999", "p99.99 latency", "us", 0, 1, RPT_V_LAT, RPT_IV_NONE, PO(p9999) },
	{ "lat_max", "Max latency", "us", 0, 1, RPT_V_LAT, RPT_IV_NONE, PO(max) },
	{ "lat_stddev", "Latency std dev", "us", 0, 1, RPT_V_LAT, RPT_IV_NONE, PO(stddev) },
	{ "read_iops", "Read IOPS", "IOPS", 1, 0, RPT_V_READ_IOPS, RPT_IV_NONE, 0 },
	{ "write_iops", "Write IOPS", "IOPS", 1, 0, RPT_V_WRITE_IOPS, RPT_IV_NONE, 0 },
	{ "read_p99", "Read p99 latency", "us", 0, 1, RPT_V_READ_LAT, RPT_IV_NONE, PO(p99) },
	{ "write_p99", "Write p99 latency", "us", 0, 1, RPT_V_WRITE_LAT, RPT_IV_NONE, PO(p99) },
	{ "txn_mean", "Mean txn latency", "us", 0, 1, RPT_V_TXN_LAT, RPT_IV_NONE, PO(mean) },
	{ "txn_p99", "p99 txn latency", "us", 0, 1, RPT_V_TXN_LAT, RPT_IV_NONE, PO(p99) },
	{ "late_p99", "p99 lateness", "us", 0, 1, RPT_V_LATE, RPT_IV_LATE, PO(p99) },
	{ "late_max", "Max lateness", "us", 0, 1, RPT_V_LATE, RPT_IV_NONE, PO(max) },
	{ "errors", "I/O errors", "", 0, 0, RPT_V_ERRORS, RPT_IV_NONE, 0 },
	{ "cpu_per_io", "CPU per I/O", "us", 0, 1, RPT_V_CPU_PER_IO, RPT_IV_NONE, 0 },
	{ NULL, NULL, NULL, 0, 0, RPT_V_IOPS, RPT_IV_NONE, 0 },
};

const struct rpt_metric *rpt_metric_find(const char *key)
{
	for (const struct rpt_metric *m = rpt_metrics; m->key; m++)
		if (!strcmp(m->key, key))
			return m;
	return NULL;
}

double rpt_pcts_field(const struct rpt_pcts *p, size_t off)
{
	if (!p->present || off + sizeof(double) > sizeof(*p))
		return NAN;
	return *(const double *)(const void *)((const char *)p + off);
}

double rpt_metric_value(const struct rpt_metric *m, const struct rpt_run *r)
{
	switch (m->value) {
	case RPT_V_IOPS: return r->iops;
	case RPT_V_MBPS: return r->mbps;
	case RPT_V_TPS: return r->txns > 0 ? r->tps : NAN;
	case RPT_V_LAT: return rpt_pcts_field(&r->lat, m->pcts_off);
	case RPT_V_LATE: return rpt_pcts_field(&r->late, m->pcts_off);
	case RPT_V_TXN_LAT: return r->txns > 0 ? rpt_pcts_field(&r->txn_lat, m->pcts_off) : NAN;
	case RPT_V_READ_LAT: return rpt_pcts_field(&r->op_lat[IST_OP_READ], m->pcts_off);
	case RPT_V_WRITE_LAT: return rpt_pcts_field(&r->op_lat[IST_OP_WRITE], m->pcts_off);
	case RPT_V_READ_IOPS:
		return r->op_ios[IST_OP_READ] > 0 && r->elapsed_s > 0 ?
		       r->op_ios[IST_OP_READ] / r->elapsed_s : NAN;
	case RPT_V_WRITE_IOPS:
		return r->op_ios[IST_OP_WRITE] > 0 && r->elapsed_s > 0 ?
		       r->op_ios[IST_OP_WRITE] / r->elapsed_s : NAN;
	case RPT_V_ERRORS: return r->errors;
	case RPT_V_CPU_PER_IO:
		return r->ios > 0 && r->cpu_s > 0 ? r->cpu_s / r->ios * 1e9 : NAN;
	}
	return NAN;
}

double rpt_metric_interval(const struct rpt_metric *m,
			   const struct rpt_interval *iv)
{
	if (!(iv->len_s > 0))
		return NAN;
	switch (m->src) {
	case RPT_IV_IOPS: return iv->ios / iv->len_s;
	case RPT_IV_MBPS: return iv->bytes / iv->len_s / 1e6;
	case RPT_IV_TPS: return iv->txns / iv->len_s;
	case RPT_IV_LAT: return rpt_pcts_field(&iv->lat, m->pcts_off);
	case RPT_IV_LATE: return rpt_pcts_field(&iv->late, m->pcts_off);
	default: return NAN;
	}
}
