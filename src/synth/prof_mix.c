/* SPDX-License-Identifier: MIT */
/*
 * prof_mix.c - the generic "mix" workload (user INI profile) and the
 * vdbench-style profiles built on it: four corners, SQL and Oracle mixes,
 * each an INI text compiled in and tuned by a few parameters.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth/engine.h"
#include "synth/mix.h"

struct mix_priv {
	struct syn_mix_spec m;
	uint64_t lat_ns;
	double think_ns;
	double mean_ns;         /* open loop: mean gap per stream      */
	double h2_p, h2_m1, h2_m2; /* hyperexponential phases          */
	uint64_t nblocks[SYN_MIX_MAX_DEV];
	struct syn_zipf zipf[SYN_MIX_MAX_DEV];
};

/* Stream slots: u0 = sequential cursor, sub = its device, u1 = I/Os done. */

static uint32_t draw_size(const struct syn_sizes *z, struct syn_rng *r)
{
	double u;
	unsigned i;

	if (z->n == 1)
		return z->size[0];
	u = syn_rng_unit(r);
	for (i = 0; i + 1 < z->n && u >= z->weight[i]; i++)
		;
	return z->size[i];
}

static uint64_t random_offset(struct mix_priv *p, unsigned dev, uint32_t len,
			      struct syn_rng *r)
{
	const struct syn_mix_spec *m = &p->m;
	uint64_t nb = p->nblocks[dev], blk, off;

	switch (m->skew) {
	case SYN_SKEW_HOTSPOT: {
		uint64_t hot = (uint64_t)((double)nb * m->hot_space);

		if (!hot)
			hot = 1;
		if (syn_rng_chance(r, m->hot_io))
			blk = syn_rng_below(r, hot);
		else
			blk = hot + syn_rng_below(r, nb - hot);
		break;
	}
	case SYN_SKEW_ZIPF:
		blk = syn_zipf_draw(&p->zipf[dev], r);
		break;
	default:
		blk = syn_rng_below(r, nb);
		break;
	}
	off = blk * m->align;
	if (off + len > m->dev_size[dev])
		off = (m->dev_size[dev] - len) / m->align * m->align;
	return off;
}

static uint64_t next_gap(struct mix_priv *p, struct syn_stream *s)
{
	const struct syn_mix_spec *m = &p->m;
	struct syn_rng *r = &s->rng;

	switch (m->arrival) {
	case SYN_ARR_CLOSED:
		return ist_add_sat(p->lat_ns, syn_think(r, p->think_ns));
	case SYN_ARR_CONSTANT:
		return ist_ns_sat(p->mean_ns);
	case SYN_ARR_POISSON:
		return ist_ns_sat(syn_rng_exp(r, p->mean_ns));
	case SYN_ARR_HYPEREXP:
		return ist_ns_sat(syn_rng_exp(r, syn_rng_chance(r, p->h2_p) ?
					     p->h2_m1 : p->h2_m2));
	case SYN_ARR_ONOFF: {
		/* the rate during "on" is raised so the average stays rate */
		double duty = m->on_s / (m->on_s + m->off_s);

		return ist_ns_sat(syn_rng_exp(r, p->mean_ns * duty));
	}
	}
	return 1;
}

/* On/off: all streams share one clock, so the bursts are aggregate. */
static uint64_t onoff_adjust(const struct syn_mix_spec *m, uint64_t t)
{
	uint64_t on = (uint64_t)llround(m->on_s * 1e9);
	uint64_t off = (uint64_t)llround(m->off_s * 1e9);
	uint64_t cyc = on + off, ph;

	if (!off || !cyc)
		return t;
	ph = t % cyc;
	return ph < on ? t : ist_add_sat(t - ph, cyc);
}

static int mix_build(struct syn_gen *g, struct mix_priv *p)
{
	struct syn_mix_spec *m = &p->m;
	double total = 0, acc = 0;
	uint32_t minsz = UINT32_MAX;

	for (unsigned i = 0; i < m->rsize.n; i++)
		minsz = m->rsize.size[i] < minsz ? m->rsize.size[i] : minsz;
	for (unsigned i = 0; i < m->wsize.n; i++)
		minsz = m->wsize.size[i] < minsz ? m->wsize.size[i] : minsz;
	if (!m->align)
		m->align = minsz < 4096 ? minsz : 4096;
	for (unsigned i = 0; i < m->ndev; i++)
		total += m->dev_weight[i];
	for (unsigned i = 0; i < m->ndev; i++) {
		int rc = syn_add_device(g, m->dev_name[i], m->dev_size[i], 512);

		if (rc < 0)
			return rc;
		acc += m->dev_weight[i];
		m->dev_weight[i] = acc / total;
		p->nblocks[i] = m->dev_size[i] / m->align;
		if (m->skew == SYN_SKEW_ZIPF)
			syn_zipf_init(&p->zipf[i], p->nblocks[i], m->theta);
	}
	p->lat_ns = (uint64_t)llround(m->latency_s * 1e9);
	p->think_ns = m->think_s * 1e9;
	g->nominal_lat_ns = p->lat_ns;
	if (m->rate > 0)
		p->mean_ns = 1e9 * m->streams / m->rate;
	if (m->arrival == SYN_ARR_HYPEREXP) {
		/* balanced-means two-phase hyperexponential with the given CV */
		double c2 = m->cv * m->cv;

		p->h2_p = 0.5 * (1.0 + sqrt((c2 - 1.0) / (c2 + 1.0)));
		p->h2_m1 = p->mean_ns / (2.0 * p->h2_p);
		p->h2_m2 = p->mean_ns / (2.0 * (1.0 - p->h2_p));
	}
	for (unsigned i = 0; i < m->streams; i++) {
		struct syn_stream *s = syn_add_stream(g, 0);
		unsigned dev = i % m->ndev;

		if (!s)
			return -ENOMEM;
		/* each stream's sequential run starts in its own slice */
		s->sub = dev;
		s->u0 = m->dev_size[dev] / m->streams * i / m->align * m->align;
		/* open loop: streams start at a random phase of their gap */
		if (m->arrival != SYN_ARR_CLOSED)
			s->t = ist_ns_sat(syn_rng_unit(&s->rng) * p->mean_ns);
		else
			s->t = syn_rng_below(&s->rng, p->lat_ns + 1);
		if (m->arrival == SYN_ARR_ONOFF)
			s->t = onoff_adjust(m, s->t);
	}
	return 0;
}

static int mix_step(struct syn_gen *g, void *priv, struct syn_stream *s,
		    struct ist_record *rec)
{
	struct mix_priv *p = priv;
	const struct syn_mix_spec *m = &p->m;
	struct syn_rng *r = &s->rng;
	int is_read = m->read >= 1.0 || (m->read > 0 && syn_rng_chance(r, m->read));
	uint32_t len = draw_size(is_read ? &m->rsize : &m->wsize, r);
	unsigned dev, flags = 0;
	uint64_t off;

	if (m->seq > 0 && (m->seq >= 1.0 || syn_rng_chance(r, m->seq))) {
		dev = s->sub;
		off = s->u0;
		if (off + len > m->dev_size[dev])
			off = 0;
	} else {
		double u = m->ndev > 1 ? syn_rng_unit(r) : 0;

		for (dev = 0; dev + 1 < m->ndev && u >= m->dev_weight[dev]; dev++)
			;
		off = random_offset(p, dev, len, r);
	}
	s->sub = dev;
	s->u0 = off + len;
	if (m->arrival == SYN_ARR_CLOSED && s->u1)
		flags |= IST_F_DEPENDENT;
	if (!is_read && m->fua > 0 && syn_rng_chance(r, m->fua))
		flags |= IST_F_FUA | IST_F_SYNC;
	if (m->txn_ios) {
		s->txn = s->u1 / m->txn_ios + 1;
		if (s->u1 % m->txn_ios == m->txn_ios - 1)
			flags |= IST_F_COMMIT;
	}
	syn_rec(rec, s, dev, is_read ? IST_OP_READ : IST_OP_WRITE, off, len,
		flags);
	s->u1++;
	s->t = ist_add_sat(s->t, next_gap(p, s));
	if (m->arrival == SYN_ARR_ONOFF)
		s->t = onoff_adjust(m, s->t);
	return 1;
}

/* ---------------------------------------------------------------- mix */

enum { MIX_FILE };

static const struct syn_param mix_params[] = {
	{ "file", SYN_P_STR, "", "path", "INI profile to run (see traces/profiles/)",
	  "user", NULL, 0, 0 },
	{ NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0 },
};

static int mix_setup(struct syn_gen *g, void *priv)
{
	struct mix_priv *p = priv;
	const char *path = g->str[MIX_FILE];
	char *text = NULL;
	size_t len = 0, cap = 0;
	unsigned line;
	FILE *f;
	int rc;

	if (!path || !*path)
		return syn_set_error(g, -EINVAL, 0,
				     "mix needs a profile: --set file=PROFILE.ini");
	f = fopen(path, "r");
	if (!f)
		return -errno;
	for (;;) {
		size_t n;

		if (len == cap) {
			char *t;

			if (cap >= 1u << 20) {
				fclose(f);
				free(text);
				return syn_set_error(g, IST_EPARSE, 0,
						     "profile larger than 1 MiB");
			}
			cap = cap ? cap * 2 : 4096;
			t = realloc(text, cap);
			if (!t) {
				fclose(f);
				free(text);
				return -ENOMEM;
			}
			text = t;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (rc < 0) {
		free(text);
		return rc;
	}
	syn_mix_defaults(&p->m);
	rc = syn_mix_parse(text, len, &p->m, &line, g->err, sizeof(g->err));
	free(text);
	if (rc < 0) {
		g->err_line = line;
		return rc;
	}
	return mix_build(g, p);
}

const struct syn_profile syn_prof_mix = {
	.name = "mix",
	.summary = "user INI profile: op mix, sizes, skew, arrivals, devices",
	.params = mix_params,
	.priv_size = sizeof(struct mix_priv),
	.setup = mix_setup,
	.step = mix_step,
};

/* ------------------------------------------------ vdbench-style built-ins */

enum { VDB_THREADS, VDB_RATE, VDB_LATENCY, VDB_REGION };

#define VDB_PARAMS(name, threads, tsrc)                                        \
	static const struct syn_param name[] = {                               \
		{ "threads", SYN_P_INT, threads, "", "closed-loop threads (streams)", \
		  tsrc, NULL, 1, 65536 },                                      \
		{ "rate", SYN_P_NUM, "0", "IOPS",                              \
		  "open-loop Poisson rate (a point of the 0-120% curve); 0 = max (closed loop)", \
		  "WORKLOADS.md: each swept 0-120% of max I/O rate", NULL, 0, 1e9 }, \
		{ "latency", SYN_P_TIME, "200us", "s",                         \
		  "nominal device latency assumed between a thread's I/Os",   \
		  "assumption: a mid-range SSD at queue depth 1", NULL, 1e-6, 10 }, \
		{ "region", SYN_P_SIZE, "240G", "B", "size of the region exercised", \
		  "WORKLOADS.md: 25% of the drive; 960 GB drive", NULL, 1048576, 1e18 }, \
		{ NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0 },               \
	}

static int vdb_setup(struct syn_gen *g, struct mix_priv *p, const char *ini)
{
	unsigned line;
	int rc;

	syn_mix_defaults(&p->m);
	rc = syn_mix_parse(ini, strlen(ini), &p->m, &line, g->err, sizeof(g->err));
	if (rc < 0)
		return rc;
	p->m.streams = (unsigned)syn_pu(g, VDB_THREADS);
	p->m.latency_s = syn_p(g, VDB_LATENCY);
	p->m.dev_size[0] = syn_pu(g, VDB_REGION) / 4096 * 4096;
	if (syn_p(g, VDB_RATE) > 0) {
		p->m.rate = syn_p(g, VDB_RATE);
		p->m.arrival = SYN_ARR_POISSON;
	}
	if (syn_mix_check(&p->m, g->err, sizeof(g->err)) < 0)
		return IST_EPARSE;
	return mix_build(g, p);
}

#define VDB_PROFILE(var, pname, summary_, threads, tsrc, ini)                  \
	VDB_PARAMS(var##_params, threads, tsrc);                              \
	static int var##_setup(struct syn_gen *g, void *priv)                  \
	{                                                                      \
		return vdb_setup(g, priv, "[device region]\nsize = 240G\n"     \
				 "[workload]\n" ini);                          \
	}                                                                      \
	const struct syn_profile var = {                                       \
		.name = pname,                                                 \
		.summary = summary_,                                           \
		.params = var##_params,                                        \
		.priv_size = sizeof(struct mix_priv),                          \
		.setup = var##_setup,                                          \
		.step = mix_step,                                              \
	}

#define FOURC "WORKLOADS.md: VDBench four corners"
#define ORACLE_SIZES "size = 8k:45,16k:25,32k:15,64k:15\n"

VDB_PROFILE(syn_prof_4k_randread, "4k-randread",
	    "vdbench four corners: 4 KiB random reads, 128 threads", "128", FOURC,
	    "read = 100\nseq = 0\nsize = 4k\n");
VDB_PROFILE(syn_prof_4k_randwrite, "4k-randwrite",
	    "vdbench four corners: 4 KiB random writes, 64 threads", "64", FOURC,
	    "read = 0\nseq = 0\nsize = 4k\n");
VDB_PROFILE(syn_prof_64k_seqread, "64k-seqread",
	    "vdbench four corners: 64 KiB sequential reads, 16 threads", "16", FOURC,
	    "read = 100\nseq = 100\nsize = 64k\n");
VDB_PROFILE(syn_prof_64k_seqwrite, "64k-seqwrite",
	    "vdbench four corners: 64 KiB sequential writes, 8 threads", "8", FOURC,
	    "read = 0\nseq = 100\nsize = 64k\n");
#define DBT "assumption: 16 threads (vdbench database profiles)"
VDB_PROFILE(syn_prof_sql, "sql",
	    "vdbench SQL: 8 KiB 100% random, 70% reads, uniform", "16", DBT,
	    "read = 70\nseq = 0\nsize = 8k\n");
VDB_PROFILE(syn_prof_sql_90_10, "sql-90-10",
	    "vdbench SQL 90-10: as sql, 90% of I/Os on 10% of the region", "16", DBT,
	    "read = 70\nseq = 0\nsize = 8k\nskew = hotspot:90:10\n");
VDB_PROFILE(syn_prof_sql_80_20, "sql-80-20",
	    "vdbench SQL 80-20: as sql, 80% of I/Os on 20% of the region", "16", DBT,
	    "read = 70\nseq = 0\nsize = 8k\nskew = hotspot:80:20\n");
VDB_PROFILE(syn_prof_oracle, "oracle",
	    "vdbench Oracle/RDBMS: 60% reads, 8-64 KiB (mean 22 KiB), random", "16", DBT,
	    "read = 60\nseq = 0\n" ORACLE_SIZES);
VDB_PROFILE(syn_prof_oracle_90_10, "oracle-90-10",
	    "vdbench Oracle 90-10: as oracle, 90% of I/Os on 10% of the region", "16", DBT,
	    "read = 60\nseq = 0\n" ORACLE_SIZES "skew = hotspot:90:10\n");
VDB_PROFILE(syn_prof_oracle_80_20, "oracle-80-20",
	    "vdbench Oracle 80-20: as oracle, 80% of I/Os on 20% of the region", "16", DBT,
	    "read = 60\nseq = 0\n" ORACLE_SIZES "skew = hotspot:80:20\n");
