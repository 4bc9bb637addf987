/* SPDX-License-Identifier: MIT */
/*
 * prof_marklogic.c - MarkLogic NoSQL on 4 nodes (one drive each): client
 * threads run update transactions (query reads, then a journal append
 * synced as the commit marker) and query transactions; per forest, a
 * saver writes the in-memory stand as a new on-disk stand (large
 * sequential writes) and a merger reads and writes stands as paired
 * sequential streams at 20 MB/s each.  The run is cut into intervals
 * that alternate ingest-heavy and query-heavy load, as in the reviews.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "synth/engine.h"

enum { P_NODES, P_FORESTS, P_THREADS, P_NODE_SIZE, P_INTERVALS, P_INGEST,
       P_DOC, P_STAND, P_MERGE_AT, P_MERGE_RATE, P_MERGE_MAX, P_LATENCY,
       P_CPU };

static const struct syn_param ml_params[] = {
	{ "nodes", SYN_P_INT, "4", "", "database nodes, one drive each",
	  "WORKLOADS.md: 4 database nodes, one SSD per node", NULL, 1, 64 },
	{ "forests", SYN_P_INT, "2", "", "forests per node", "assumption", NULL, 1, 16 },
	{ "threads", SYN_P_INT, "8", "", "client threads per node", "assumption",
	  NULL, 1, 4096 },
	{ "node-size", SYN_P_SIZE, "200G", "B", "drive region per node",
	  "WORKLOADS.md: ~650 GB over 4 nodes", NULL, 4294967296.0, 1e15 },
	{ "intervals", SYN_P_INT, "24", "", "intervals the run is cut into",
	  "WORKLOADS.md: 24 intervals", NULL, 1, 10000 },
	{ "ingest", SYN_P_NUM, "70", "%", "update share in ingest intervals (query intervals: 100 - ingest)",
	  "assumption", NULL, 0, 100 },
	{ "doc-size", SYN_P_SIZE, "8k", "B", "mean journal record per update",
	  "assumption", NULL, 512, 16777216 },
	{ "stand-size", SYN_P_SIZE, "32M", "B", "in-memory stand saved when this full",
	  "assumption (in-memory limits)", NULL, 1048576, 1e12 },
	{ "merge-stands", SYN_P_INT, "4", "", "stands that trigger a merge",
	  "assumption", NULL, 2, 1000 },
	{ "merge-rate", SYN_P_SIZE, "20M", "B/s", "merge read and write rate per forest",
	  "WORKLOADS.md: 20 MB/s read + 20 MB/s write per forest", NULL, 1048576, 1e10 },
	{ "merge-max", SYN_P_SIZE, "48G", "B", "largest merge",
	  "WORKLOADS.md: merge max size 48 GB", NULL, 1048576, 1e13 },
	{ "latency", SYN_P_TIME, "200us", "s", "nominal device latency",
	  "assumption", NULL, 1e-6, 10 },
	{ "cpu", SYN_P_TIME, "500us", "s", "CPU time per transaction step",
	  "assumption", NULL, 0, 10 },
	{ NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0 },
};

#define MAX_FORESTS (64 * 16)
#define JOURNAL (1 * GiB)
#define IO_MB (1 * MiB)

enum { K_CLIENT, K_SAVER, K_MERGER };

struct forest {
	uint64_t pending;   /* bytes in the in-memory stand           */
	uint64_t stands;    /* on-disk stands                          */
	uint64_t disk;      /* their bytes                             */
	uint64_t jcur;      /* journal cursor                          */
	uint64_t acur;      /* stand allocation cursor                 */
};

struct ml_priv {
	unsigned nodes, forests;
	uint64_t node_size, area, stand, merge_at, merge_max, doc;
	uint64_t lat, cpu, interval_ns, merge_gap;
	double ingest;
	struct forest f[MAX_FORESTS];
};

static uint64_t alloc(struct ml_priv *p, unsigned fi, uint64_t bytes)
{
	struct forest *f = &p->f[fi];
	uint64_t base = JOURNAL * p->forests + (fi % p->forests) * p->area;
	uint64_t off;

	if (f->acur + bytes > p->area)
		f->acur = 0;
	off = base + f->acur;
	f->acur += bytes;
	return off;
}

static int ml_setup(struct syn_gen *g, void *priv)
{
	struct ml_priv *p = priv;
	unsigned threads = (unsigned)syn_pu(g, P_THREADS);
	char name[32], v[32];
	int rc;

	p->nodes = (unsigned)syn_pu(g, P_NODES);
	p->forests = (unsigned)syn_pu(g, P_FORESTS);
	p->node_size = syn_pu(g, P_NODE_SIZE) / MiB * MiB;
	if (p->node_size < JOURNAL * p->forests * 2)
		return syn_set_error(g, IST_ERANGE, 0, "node-size too small for %u journals",
				     p->forests);
	p->area = (p->node_size - JOURNAL * p->forests) / p->forests / MiB * MiB;
	p->stand = syn_pu(g, P_STAND);
	p->merge_at = syn_pu(g, P_MERGE_AT);
	p->merge_max = syn_pu(g, P_MERGE_MAX);
	if (p->merge_max > p->area / 2)
		p->merge_max = p->area / 2;
	p->doc = syn_pu(g, P_DOC);
	p->lat = syn_pns(g, P_LATENCY);
	p->cpu = syn_pns(g, P_CPU);
	p->ingest = syn_p(g, P_INGEST) / 100;
	p->interval_ns = g->duration_ns / syn_pu(g, P_INTERVALS);
	if (!p->interval_ns)
		p->interval_ns = 1;
	/* one 1 MiB read and one 1 MiB write per gap = the merge rate */
	p->merge_gap = (uint64_t)(1e9 * IO_MB / syn_p(g, P_MERGE_RATE));
	g->nominal_lat_ns = p->lat;
	for (unsigned n = 0; n < p->nodes; n++) {
		snprintf(name, sizeof(name), "node%u", n + 1);
		rc = syn_add_device(g, name, p->node_size, 512);
		if (rc < 0)
			return rc;
	}
	snprintf(v, sizeof(v), "%llu", (unsigned long long)p->interval_ns);
	if (ist_header_set(g->hdr, "interval_ns", v) < 0)
		return -ENOMEM;
	for (unsigned n = 0; n < p->nodes; n++) {
		for (unsigned i = 0; i < threads; i++) {
			struct syn_stream *s = syn_add_stream(g, 0);

			if (!s)
				return -ENOMEM;
			s->kind = K_CLIENT;
			s->sub = n;
			s->t = syn_rng_below(&s->rng, p->cpu + 1);
		}
	}
	for (unsigned fi = 0; fi < p->nodes * p->forests; fi++) {
		struct syn_stream *s = syn_add_stream(g, 100 * NS_PER_MS);

		if (!s)
			return -ENOMEM;
		s->kind = K_SAVER;
		s->sub = fi;
		s = syn_add_stream(g, 100 * NS_PER_MS);
		if (!s)
			return -ENOMEM;
		s->kind = K_MERGER;
		s->sub = fi;
	}
	return 0;
}

/* client: state 0 = start, 1 = reads left, 2 = journal commit */
static int client_step(struct ml_priv *p, struct syn_stream *s,
		       struct ist_record *rec)
{
	struct syn_rng *r = &s->rng;
	unsigned dep = s->u2 ? IST_F_DEPENDENT : 0;

	if (s->state == 0) {
		uint64_t iv = s->t / p->interval_ns;
		double upd = iv & 1 ? 1.0 - p->ingest : p->ingest;

		s->u1++;
		s->txn = s->u1;
		s->u3 = syn_rng_chance(r, upd); /* an update? */
		s->left = (uint32_t)syn_rng_range(r, s->u3 ? 1 : 2, s->u3 ? 2 : 6);
		s->state = 1;
		s->t += p->cpu;
		return 0;
	}
	if (s->state == 1) {
		unsigned fi = (unsigned)syn_rng_below(r, p->nodes * p->forests);
		unsigned node = fi / p->forests;
		uint32_t len = (uint32_t)syn_rng_range(r, 1, 8) * 4096;
		uint64_t base = JOURNAL * p->forests + (fi % p->forests) * p->area;
		unsigned flags = dep | IST_F_SYNC;

		s->left--;
		if (!s->left) {
			s->state = s->u3 ? 2 : 0;
			if (!s->u3)
				flags |= IST_F_COMMIT;
		}
		syn_rec(rec, s, node, IST_OP_READ,
			base + syn_rng_below(r, (p->area - len) / 4096) * 4096, len,
			flags);
		s->u2 = 1;
		s->t += p->lat + p->cpu;
		return 1;
	}
	{
		/* the update lands in a forest of this node: journal append,
		 * synced (strict journaling) - the commit marker */
		unsigned fi = s->sub * p->forests + (unsigned)syn_rng_below(r, p->forests);
		struct forest *f = &p->f[fi];
		uint32_t len = (uint32_t)((syn_rng_exp(r, (double)p->doc) + 511) / 512) * 512;

		if (len < 512)
			len = 512;
		if (len > 8 * MiB)
			len = 8 * MiB;
		syn_rec(rec, s, s->sub, IST_OP_WRITE,
			(fi % p->forests) * JOURNAL +
			syn_log_append(&f->jcur, JOURNAL, len), len,
			dep | IST_F_SYNC | IST_F_FUA | IST_F_COMMIT);
		f->pending += 2 * (uint64_t)len; /* document + its indexes */
		s->state = 0;
		s->t += p->lat + p->cpu;
		return 1;
	}
}

/* saver: when the in-memory stand is full, writes it as a new stand in
 * 1 MiB sequential writes, 4 in flight (u0 = next offset) */
static int saver_step(struct ml_priv *p, struct syn_stream *s,
		      struct ist_record *rec)
{
	struct forest *f = &p->f[s->sub];
	unsigned node = s->sub / p->forests;

	if (!s->left) {
		if (f->pending < p->stand) {
			s->t += 100 * NS_PER_MS;
			return 0;
		}
		s->left = (uint32_t)((f->pending + IO_MB - 1) / IO_MB);
		s->u0 = alloc(p, s->sub, (uint64_t)s->left * IO_MB);
		s->u1 = (uint64_t)s->left * IO_MB;
		f->pending = 0;
	}
	syn_rec(rec, s, node, IST_OP_WRITE, s->u0, IO_MB, 0);
	s->u0 += IO_MB;
	s->t += p->lat + 250 * NS_PER_US;
	if (!--s->left) {
		f->stands++;
		f->disk += s->u1;
	}
	return 1;
}

/* merger: merges the stands when there are enough, reading the old ones
 * and writing the new one as paired sequential streams at merge-rate
 * (u0 = read cursor, u1 = write cursor, left = MiB to go) */
static int merger_step(struct ml_priv *p, struct syn_stream *s,
		       struct ist_record *rec)
{
	struct forest *f = &p->f[s->sub];
	unsigned node = s->sub / p->forests;

	if (!s->left) {
		uint64_t bytes;

		if (f->stands < p->merge_at) {
			s->t += 100 * NS_PER_MS;
			return 0;
		}
		bytes = f->disk < p->merge_max ? f->disk : p->merge_max;
		s->left = (uint32_t)(bytes / IO_MB);
		if (!s->left)
			s->left = 1;
		/* the old stands sit just behind the allocation cursor */
		s->u0 = JOURNAL * p->forests + (s->sub % p->forests) * p->area +
			(f->acur >= bytes ? f->acur - bytes : 0);
		s->u1 = alloc(p, s->sub, (uint64_t)s->left * IO_MB);
		s->u2 = (uint64_t)s->left * IO_MB;
		s->state = 0;
	}
	if (s->state == 0) {
		syn_rec(rec, s, node, IST_OP_READ, s->u0, IO_MB, 0);
		s->u0 += IO_MB;
		s->state = 1;
		s->t += p->merge_gap / 2;
		return 1;
	}
	syn_rec(rec, s, node, IST_OP_WRITE, s->u1, IO_MB, 0);
	s->u1 += IO_MB;
	s->state = 0;
	s->t += p->merge_gap - p->merge_gap / 2;
	if (!--s->left) {
		f->stands = 1;
		f->disk = s->u2;
		s->t += 100 * NS_PER_MS;
	}
	return 1;
}

static int ml_step(struct syn_gen *g, void *priv, struct syn_stream *s,
		   struct ist_record *rec)
{
	switch (s->kind) {
	case K_SAVER:
		return saver_step(priv, s, rec);
	case K_MERGER:
		return merger_step(priv, s, rec);
	}
	return client_step(priv, s, rec);
}

const struct syn_profile syn_prof_marklogic = {
	.name = "marklogic",
	.summary = "MarkLogic NoSQL on 4 nodes: journals, stand saves, merges, intervals",
	.params = ml_params,
	.priv_size = sizeof(struct ml_priv),
	.setup = ml_setup,
	.step = ml_step,
};
