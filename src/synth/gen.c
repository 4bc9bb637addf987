/* SPDX-License-Identifier: MIT */
/* gen.c - the generator: profile registry, parameters, the event queue. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "synth/engine.h"

const struct syn_profile *const syn_profiles[] = {
	&syn_prof_tpcc,
	&syn_prof_sysbench,
	&syn_prof_marklogic,
	&syn_prof_vdi_boot,
	&syn_prof_vdi_login,
	&syn_prof_vdi_monday,
	&syn_prof_4k_randread,
	&syn_prof_4k_randwrite,
	&syn_prof_64k_seqread,
	&syn_prof_64k_seqwrite,
	&syn_prof_sql,
	&syn_prof_sql_90_10,
	&syn_prof_sql_80_20,
	&syn_prof_oracle,
	&syn_prof_oracle_90_10,
	&syn_prof_oracle_80_20,
	&syn_prof_mix,
	NULL,
};

const struct syn_profile *syn_profile_find(const char *name)
{
	for (unsigned i = 0; syn_profiles[i]; i++)
		if (!strcmp(syn_profiles[i]->name, name))
			return syn_profiles[i];
	return NULL;
}

const struct syn_param *syn_profile_param(const struct syn_profile *p,
					  unsigned i)
{
	for (unsigned k = 0; k <= i; k++)
		if (!p->params[k].name)
			return NULL;
	return &p->params[i];
}

static int parse_scaled(const char *s, double *v, const char *const *units,
			const double *scale)
{
	char *end;
	double x;

	if (!s || !*s)
		return IST_EPARSE;
	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || !isfinite(x))
		return IST_EPARSE;
	while (*end == ' ')
		end++;
	if (*end) {
		unsigned i;

		for (i = 0; units[i]; i++)
			if (!strcasecmp(end, units[i]))
				break;
		if (!units[i])
			return IST_EPARSE;
		x *= scale[i];
	}
	*v = x;
	return 0;
}

int syn_parse_value(enum syn_ptype t, const char *choices, const char *s,
		    double *v)
{
	static const char *const size_u[] = { "b", "k", "kb", "kib", "m", "mb",
		"mib", "g", "gb", "gib", "t", "tb", "tib", NULL };
	static const double size_s[] = { 1, 1024, 1024, 1024, 1048576.0,
		1048576.0, 1048576.0, 1073741824.0, 1073741824.0,
		1073741824.0, 1099511627776.0, 1099511627776.0,
		1099511627776.0 };
	static const char *const time_u[] = { "ns", "us", "ms", "s", "m", "min",
		"h", NULL };
	static const double time_s[] = { 1e-9, 1e-6, 1e-3, 1, 60, 60, 3600 };
	static const char *const none[] = { "%", NULL };
	static const double one[] = { 1 };

	switch (t) {
	case SYN_P_NUM:
		return parse_scaled(s, v, none, one);
	case SYN_P_INT: {
		int rc = parse_scaled(s, v, none, one);

		if (!rc && (*v < 0 || floor(*v) != *v))
			return IST_EPARSE;
		return rc;
	}
	case SYN_P_SIZE: {
		int rc = parse_scaled(s, v, size_u, size_s);

		if (!rc && *v < 0)
			return IST_EPARSE;
		return rc;
	}
	case SYN_P_TIME: {
		int rc = parse_scaled(s, v, time_u, time_s);

		if (!rc && *v < 0)
			return IST_EPARSE;
		return rc;
	}
	case SYN_P_ENUM: {
		size_t n = strlen(s);
		const char *c = choices;

		for (unsigned i = 0; c && *c; i++) {
			const char *bar = strchr(c, '|');
			size_t len = bar ? (size_t)(bar - c) : strlen(c);

			if (len == n && !strncmp(c, s, n)) {
				*v = i;
				return 0;
			}
			if (!bar)
				break;
			c = bar + 1;
		}
		return IST_EPARSE;
	}
	case SYN_P_STR:
		*v = 0;
		return 0;
	}
	return IST_EPARSE;
}

int syn_gen_new(struct syn_gen **gp, const struct syn_profile *p)
{
	struct syn_gen *g;

	*gp = NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->prof = p;
	g->seed = 1;
	g->duration_ns = 60 * NS_PER_S;
	for (unsigned i = 0; p->params[i].name; i++) {
		const struct syn_param *d = &p->params[i];

		if (i >= SYN_MAX_PARAMS) {
			free(g);
			return IST_ERANGE;
		}
		g->nparams = i + 1;
		if (d->type == SYN_P_STR) {
			g->str[i] = strdup(d->def);
			if (!g->str[i]) {
				syn_gen_free(g);
				return -ENOMEM;
			}
		} else if (syn_parse_value(d->type, d->choices, d->def,
					   &g->val[i]) < 0) {
			syn_gen_free(g);
			return IST_ECORRUPT; /* a bad built-in default */
		}
	}
	*gp = g;
	return 0;
}

void syn_gen_free(struct syn_gen *g)
{
	if (!g)
		return;
	if (g->started && g->prof->cleanup)
		g->prof->cleanup(g, g->priv);
	for (unsigned i = 0; i < SYN_MAX_PARAMS; i++)
		free(g->str[i]);
	free(g->priv);
	free(g->streams);
	free(g->q.head);
	free(g->q.next);
	free(g->q.key);
	free(g->q.bits);
	free(g->q.sum);
	free(g->q.far);
	ist_header_free(g->hdr);
	free(g);
}

int syn_gen_set(struct syn_gen *g, const char *name, const char *value)
{
	for (unsigned i = 0; i < g->nparams; i++) {
		const struct syn_param *d = &g->prof->params[i];
		double v;
		int rc;

		if (strcmp(d->name, name))
			continue;
		if (g->started)
			return -EBUSY;
		if (d->type == SYN_P_STR) {
			char *copy = strdup(value);

			if (!copy)
				return -ENOMEM;
			free(g->str[i]);
			g->str[i] = copy;
			return 0;
		}
		rc = syn_parse_value(d->type, d->choices, value, &v);
		if (rc < 0)
			return rc;
		if (d->type != SYN_P_ENUM && (v < d->min || v > d->max))
			return IST_ERANGE;
		g->val[i] = v;
		return 0;
	}
	return -ENOENT;
}

int syn_gen_set_kv(struct syn_gen *g, const char *kv)
{
	const char *eq = strchr(kv, '=');
	char name[64];
	size_t n;

	if (!eq || eq == kv)
		return IST_EPARSE;
	n = (size_t)(eq - kv);
	if (n >= sizeof(name))
		return -ENOENT;
	memcpy(name, kv, n);
	name[n] = '\0';
	return syn_gen_set(g, name, eq + 1);
}

void syn_gen_set_seed(struct syn_gen *g, uint64_t seed)
{
	g->seed = seed;
}

void syn_gen_set_duration(struct syn_gen *g, uint64_t duration_ns)
{
	g->duration_ns = duration_ns;
}

int syn_set_error(struct syn_gen *g, int err, unsigned line,
		  const char *fmt, ...)
{
	va_list ap;

	g->err_line = line;
	va_start(ap, fmt);
	vsnprintf(g->err, sizeof(g->err), fmt, ap);
	va_end(ap);
	return err;
}

const char *syn_gen_error(const struct syn_gen *g, unsigned *line)
{
	if (line)
		*line = g->err_line;
	return g->err[0] ? g->err : NULL;
}

int syn_gen_param_text(const struct syn_gen *g, unsigned i, char *buf,
		       size_t size)
{
	const struct syn_param *d;

	if (i >= g->nparams)
		return IST_ERANGE;
	d = &g->prof->params[i];
	if (d->type == SYN_P_STR)
		return snprintf(buf, size, "%s", g->str[i]);
	if (d->type == SYN_P_ENUM) {
		const char *c = d->choices;

		for (unsigned k = 0; k < (unsigned)g->val[i]; k++)
			c = strchr(c, '|') + 1;
		return snprintf(buf, size, "%.*s", (int)strcspn(c, "|"), c);
	}
	return snprintf(buf, size, "%.15g", g->val[i]);
}

struct syn_stream *syn_add_stream(struct syn_gen *g, uint64_t t)
{
	struct syn_stream *s;

	if (g->nstreams == g->cap) {
		unsigned cap = g->cap ? g->cap * 2 : 64;
		void *p = realloc(g->streams, cap * sizeof(*g->streams));

		if (!p)
			return NULL;
		g->streams = p;
		p = realloc(g->q.next, cap * sizeof(*g->q.next));
		if (!p)
			return NULL;
		g->q.next = p;
		p = realloc(g->q.key, cap * sizeof(*g->q.key));
		if (!p)
			return NULL;
		g->q.key = p;
		p = realloc(g->q.far, cap * sizeof(*g->q.far));
		if (!p)
			return NULL;
		g->q.far = p;
		g->cap = cap;
	}
	s = &g->streams[g->nstreams];
	memset(s, 0, sizeof(*s));
	s->t = t;
	s->id = g->nstreams + 1;
	syn_rng_seed(&s->rng, g->seed, s->id);
	g->nstreams++;
	return s;
}

int syn_add_device(struct syn_gen *g, const char *name, uint64_t size,
		   uint32_t block_size)
{
	return ist_header_add_device(g->hdr, name, size, block_size);
}

/* ----- the pending events, ordered by (t, index) for a total order */

static inline int before(const struct syn_heap_ent *a,
			 const struct syn_heap_ent *b)
{
	return a->t < b->t || (a->t == b->t && a->idx < b->idx);
}

/* The far heap is 4-ary: half the depth of a binary one, and the four
 * children share a cache line. */
static void far_down(struct syn_queue *q, unsigned i)
{
	struct syn_heap_ent *h = q->far, x = h[i];
	unsigned n = q->nfar;

	for (;;) {
		unsigned c = 4 * i + 1, best, end;

		if (c >= n)
			break;
		best = c;
		end = c + 4 < n ? c + 4 : n;
		for (unsigned k = c + 1; k < end; k++)
			if (before(&h[k], &h[best]))
				best = k;
		if (!before(&h[best], &x))
			break;
		h[i] = h[best];
		i = best;
	}
	h[i] = x;
}

static void far_push(struct syn_queue *q, uint32_t idx, uint64_t t)
{
	struct syn_heap_ent *h = q->far, x = { t, idx };
	unsigned i = q->nfar++;

	while (i) {
		unsigned parent = (i - 1) / 4;

		if (!before(&x, &h[parent]))
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = x;
}

static void far_pop(struct syn_queue *q)
{
	q->far[0] = q->far[--q->nfar];
	if (q->nfar)
		far_down(q, 0);
}

static inline void wheel_put(struct syn_queue *q, uint32_t i, uint64_t t)
{
	unsigned b = (unsigned)(t >> q->shift) & (q->nb - 1);

	q->key[i] = t;
	q->next[i] = q->head[b];
	q->head[b] = i;
	q->bits[b >> 6] |= 1ull << (b & 63);
	q->sum[b >> 12] |= 1ull << ((b >> 6) & 63);
	q->count++;
}

/* Queues stream i's event at t (t never before the wheel's base). */
static inline void q_put(struct syn_queue *q, uint32_t i, uint64_t t)
{
	if (q->heap_only) {
		if (q->held) { /* the popped stream again: re-key the top */
			q->held = 0;
			q->far[0].t = t;
			q->far[0].idx = i;
			far_down(q, 0);
		} else {
			far_push(q, i, t);
		}
		return;
	}
	if ((t >> q->shift) - q->base < q->nb)
		wheel_put(q, i, t);
	else
		far_push(q, i, t);
}

/* Moves the far events the wheel now covers into it. */
static void q_migrate(struct syn_queue *q)
{
	while (q->nfar && (q->far[0].t >> q->shift) - q->base < q->nb) {
		wheel_put(q, (uint32_t)q->far[0].idx, q->far[0].t);
		far_pop(q);
	}
}

/* First non-zero bits word at or after w, or -1. */
static int next_word(const struct syn_queue *q, unsigned w)
{
	unsigned nsum = q->nb >> 12, k = w >> 6;
	uint64_t m;

	if (k >= nsum)
		return -1;
	m = q->sum[k] & (~0ull << (w & 63));
	while (!m) {
		if (++k >= nsum)
			return -1;
		m = q->sum[k];
	}
	return (int)(k << 6 | (unsigned)__builtin_ctzll(m));
}

/* The first non-empty bucket from slot p on, wrapping (count > 0). */
static unsigned find_bucket(const struct syn_queue *q, unsigned p)
{
	unsigned w = p >> 6;
	uint64_t m = q->bits[w] & (~0ull << (p & 63));
	int w2;

	if (m)
		return w << 6 | (unsigned)__builtin_ctzll(m);
	w2 = next_word(q, w + 1);
	if (w2 < 0)
		w2 = next_word(q, 0);
	return (unsigned)w2 << 6 | (unsigned)__builtin_ctzll(q->bits[w2]);
}

/* Detaches the stream with the earliest (t, index); SYN_NIL if none. */
static uint32_t q_pop(struct syn_queue *q)
{
	unsigned mask = q->nb - 1, b;
	uint32_t best, *link, *best_link;
	uint64_t bt;

	if (q->heap_only) { /* the top stays until q_put() re-keys it */
		if (q->held)
			far_pop(q);
		q->held = q->nfar != 0;
		return q->nfar ? (uint32_t)q->far[0].idx : SYN_NIL;
	}
	if (!q->count) {
		if (!q->nfar)
			return SYN_NIL;
		q->base = q->far[0].t >> q->shift;
		q_migrate(q);
	}
	b = find_bucket(q, (unsigned)q->base & mask);
	if (b != ((unsigned)q->base & mask)) {
		q->base += (b - (unsigned)q->base) & mask;
		q_migrate(q);
	}
	best_link = &q->head[b];
	best = *best_link;
	bt = q->key[best];
	for (link = &q->next[best]; *link != SYN_NIL; link = &q->next[*link]) {
		uint32_t j = *link;

		if (q->key[j] < bt || (q->key[j] == bt && j < best)) {
			best = j;
			bt = q->key[j];
			best_link = link;
		}
	}
	*best_link = q->next[best];
	if (q->head[b] == SYN_NIL) {
		q->bits[b >> 6] &= ~(1ull << (b & 63));
		if (!q->bits[b >> 6])
			q->sum[b >> 12] &= ~(1ull << ((b >> 6) & 63));
	}
	q->count--;
	q->pops++;
	return best;
}

static unsigned log2_floor(uint64_t x)
{
	return x ? 63u - (unsigned)__builtin_clzll(x) : 0;
}

/* Empties the queue into ents (count + nfar entries). */
static unsigned q_drain(struct syn_queue *q, struct syn_heap_ent *ents)
{
	unsigned n = 0;

	for (unsigned b = 0; b < q->nb; b++) {
		for (uint32_t i = q->head[b]; i != SYN_NIL; i = q->next[i]) {
			ents[n].t = q->key[i];
			ents[n++].idx = i;
		}
		q->head[b] = SYN_NIL;
	}
	memset(q->bits, 0, (q->nb >> 6) * sizeof(*q->bits));
	memset(q->sum, 0, (q->nb >> 12) * sizeof(*q->sum));
	for (unsigned i = 0; i < q->nfar; i++)
		ents[n++] = q->far[i];
	q->count = q->nfar = 0;
	return n;
}

/* Re-buckets the queue with buckets of 2^shift ns from time now on. */
static void q_rebuild(struct syn_queue *q, unsigned shift, uint64_t now)
{
	struct syn_heap_ent *ents = malloc(((size_t)q->count + q->nfar + 1) *
					   sizeof(*ents));
	unsigned n;

	if (!ents)
		return; /* keep the old width: only slower */
	n = q_drain(q, ents);
	q->shift = shift;
	q->base = now >> shift;
	for (unsigned i = 0; i < n; i++)
		q_put(q, (uint32_t)ents[i].idx, ents[i].t);
	free(ents);
}

/* Every so often, sets the bucket width to about twice the mean time
 * between events, so that a bucket holds one or two of them. */
static void q_adapt(struct syn_queue *q, uint64_t now)
{
	uint64_t n = q->pops - q->mark_pops, dt = now - q->mark_t;
	unsigned shift = log2_floor(2 * dt / n + 1);

	q->mark_pops = q->pops;
	q->mark_t = now;
	if (!q->heap_only && (shift + 1 < q->shift || shift > q->shift + 1))
		q_rebuild(q, shift, now);
}

static int q_init(struct syn_gen *g)
{
	struct syn_queue *q = &g->q;
	uint64_t lo = UINT64_MAX, hi = 0;
	unsigned nb = 4096;

	while (nb < 8 * g->nstreams && nb < (1u << 18))
		nb *= 2;
	q->nb = nb;
	q->head = malloc(nb * sizeof(*q->head));
	q->bits = calloc(nb >> 6, sizeof(*q->bits));
	q->sum = calloc(nb >> 12, sizeof(*q->sum));
	if (!q->head || !q->bits || !q->sum)
		return -ENOMEM;
	memset(q->head, 0xff, nb * sizeof(*q->head));
	for (unsigned i = 0; i < g->nstreams; i++) {
		lo = g->streams[i].t < lo ? g->streams[i].t : lo;
		hi = g->streams[i].t > hi ? g->streams[i].t : hi;
	}
	if (!g->nstreams)
		return 0;
	/* a few streams: the heap alone, re-keyed in place, is cheaper */
	q->heap_only = g->nstreams <= SYN_HEAP_ONLY;
	/* a first guess from the start times; q_adapt() corrects it */
	q->shift = log2_floor(2 * (hi - lo) / g->nstreams + 1);
	if (q->shift < 10)
		q->shift = 10;
	q->base = lo >> q->shift;
	q->mark_t = lo;
	for (unsigned i = 0; i < g->nstreams; i++)
		if (g->streams[i].t < g->duration_ns)
			q_put(q, i, g->streams[i].t);
	return 0;
}

static int set_meta(struct syn_gen *g)
{
	char buf[4096], v[256];
	size_t off = 0;
	int rc = 0;

	for (unsigned i = 0; i < g->nparams; i++) {
		syn_gen_param_text(g, i, v, sizeof(v));
		off += snprintf(buf + off, off < sizeof(buf) ? sizeof(buf) - off : 0,
				"%s%s=%s", i ? "," : "", g->prof->params[i].name, v);
	}
	if (off >= sizeof(buf))
		buf[sizeof(buf) - 1] = '\0';
	rc |= ist_header_set(g->hdr, "source", "synth");
	rc |= ist_header_set(g->hdr, "profile", g->prof->name);
	rc |= ist_header_set(g->hdr, "parameters", buf);
	snprintf(v, sizeof(v), "%" PRIu64, g->seed);
	rc |= ist_header_set(g->hdr, "seed", v);
	snprintf(v, sizeof(v), "%" PRIu64, g->duration_ns);
	rc |= ist_header_set(g->hdr, "duration_ns", v);
	snprintf(v, sizeof(v), "%" PRIu64, g->nominal_lat_ns);
	rc |= ist_header_set(g->hdr, "nominal_latency_ns", v);
	rc |= ist_header_set(g->hdr, "timing",
			     "t_ns assumes every I/O completes after nominal_latency_ns; "
			     "IST_F_DEPENDENT I/Os follow their stream's previous I/O "
			     "after that latency plus think time");
	rc |= ist_header_set(g->hdr, "version", IST_VERSION_STRING);
	return rc ? -ENOMEM : 0;
}

int syn_gen_start(struct syn_gen *g)
{
	int rc;

	if (g->started)
		return -EBUSY;
	g->err[0] = '\0';
	g->err_line = 0;
	g->hdr = ist_header_new();
	if (!g->hdr)
		return -ENOMEM;
	if (g->prof->priv_size) {
		g->priv = calloc(1, g->prof->priv_size);
		if (!g->priv)
			return -ENOMEM;
	}
	syn_rng_seed(&g->rng, g->seed, 0);
	rc = g->prof->setup(g, g->priv);
	if (rc < 0) {
		if (g->prof->cleanup)
			g->prof->cleanup(g, g->priv);
		return rc;
	}
	g->started = 1;
	rc = set_meta(g);
	if (rc < 0)
		return rc;
	return q_init(g);
}

ssize_t syn_gen_read(struct syn_gen *g, struct ist_record *recs, size_t max)
{
	const struct syn_profile *p = g->prof;
	size_t n = 0;

	if (!g->started)
		return -EINVAL;
	while (n < max) {
		uint32_t i = q_pop(&g->q);
		struct syn_stream *s;
		int rc;

		if (i == SYN_NIL)
			break;
		s = &g->streams[i];
		if (g->q.pops - g->q.mark_pops >=
		    (g->q.mark_pops ? 65536u : 4096u))
			q_adapt(&g->q, s->t);
		rc = p->step(g, g->priv, s, &recs[n]);
		if (rc < 0) {
			q_put(&g->q, i, s->t); /* as it was: reading again fails again */
			return rc;
		}
		if (rc == SYN_RETIRE)
			continue;
		n += rc;
		if (s->t < g->duration_ns)
			q_put(&g->q, i, s->t);
	}
	g->emitted += n;
	return (ssize_t)n;
}

const ist_header *syn_gen_header(const struct syn_gen *g)
{
	return g->hdr;
}

uint64_t syn_gen_count(const struct syn_gen *g)
{
	return g->emitted;
}
