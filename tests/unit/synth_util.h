/* SPDX-License-Identifier: MIT */
/* synth_util.h - helpers shared by the synth unit suites: generate a
 * profile in memory, characterize it, check record invariants. */
#ifndef IST_TEST_SYNTH_UTIL_H
#define IST_TEST_SYNTH_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutest.h"
#include "report/stats.h"
#include "synth/synth.h"

#define MAX_TRACK_STREAMS 20000

/* What a scan of the records found, beyond what stats.c computes. */
struct scan {
	uint64_t records;
	uint64_t hash;            /* FNV-1a over every record's fields     */
	int time_order_ok;
	int bounds_ok;            /* dev known, offset + len <= its size   */
	int shape_ok;             /* len > 0 for R/W, 0 for flush, stream  */
	uint64_t commit_without_txn;
	uint64_t first_not_dependent; /* stream's first record DEPENDENT   */
	uint64_t commit_not_last; /* records after a COMMIT, same txn      */
	uint64_t commits_fua;     /* COMMIT records with FUA               */
	uint64_t commit_writes;   /* COMMIT records that are writes        */
	void (*visit)(const struct ist_record *r, void *arg);
	void *arg;
};

/* Formats a --set list and runs profile for duration_s; returns the
 * finished stats (caller frees) and fills *sc. */
static inline struct rpt_stats *run_profile(const char *profile, double dur_s,
					    uint64_t seed, const char *const *sets,
					    struct scan *sc, uint64_t interval_ns)
{
	const struct syn_profile *p = syn_profile_find(profile);
	struct syn_gen *g = NULL;
	struct rpt_stats *st = NULL;
	struct rpt_stats_opts o = { interval_ns, 0 };
	struct ist_record *buf = malloc(4096 * sizeof(*buf));
	uint8_t *seen = calloc(MAX_TRACK_STREAMS, 1);
	uint64_t *last_commit_txn = calloc(MAX_TRACK_STREAMS, sizeof(uint64_t));
	uint64_t prev_t = 0;
	const ist_header *h;
	ssize_t n;
	int rc;

	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_FATAL(buf && seen && last_commit_txn);
	CU_ASSERT_FATAL(syn_gen_new(&g, p) == 0);
	for (unsigned i = 0; sets && sets[i]; i++) {
		rc = syn_gen_set_kv(g, sets[i]);
		if (rc)
			fprintf(stderr, "set %s: %d\n", sets[i], rc);
		CU_ASSERT_FATAL(rc == 0);
	}
	syn_gen_set_seed(g, seed);
	syn_gen_set_duration(g, (uint64_t)(dur_s * 1e9));
	rc = syn_gen_start(g);
	if (rc) {
		unsigned line;
		const char *why = syn_gen_error(g, &line);

		fprintf(stderr, "%s: start %d %s\n", profile, rc, why ? why : "");
	}
	CU_ASSERT_FATAL(rc == 0);
	h = syn_gen_header(g);
	CU_ASSERT_FATAL(rpt_stats_new(&st, h, &o) == 0);
	sc->records = 0;
	sc->hash = 1469598103934665603ull;
	sc->time_order_ok = sc->bounds_ok = sc->shape_ok = 1;
	sc->commit_without_txn = sc->first_not_dependent = 0;
	sc->commit_not_last = sc->commits_fua = sc->commit_writes = 0;
	while ((n = syn_gen_read(g, buf, 4096)) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			const struct ist_record *r = &buf[i];
			const struct ist_device *d = ist_header_device(h, r->dev);
			uint64_t f[9] = { r->t_ns, r->offset, r->lat_ns, r->stream,
					  r->txn, r->len, r->dev, r->flags, r->op };

			for (unsigned k = 0; k < 9; k++)
				sc->hash = (sc->hash ^ f[k]) * 1099511628211ull;
			if (r->t_ns < prev_t)
				sc->time_order_ok = 0;
			prev_t = r->t_ns;
			if (!d || r->offset + r->len > d->size)
				sc->bounds_ok = 0;
			if (!r->stream ||
			    ((r->op == IST_OP_READ || r->op == IST_OP_WRITE) && !r->len) ||
			    (r->op == IST_OP_FLUSH && r->len))
				sc->shape_ok = 0;
			if ((r->flags & IST_F_COMMIT) && !r->txn)
				sc->commit_without_txn++;
			if (r->stream < MAX_TRACK_STREAMS) {
				if (!seen[r->stream] && (r->flags & IST_F_DEPENDENT))
					sc->first_not_dependent++;
				seen[r->stream] = 1;
				if (r->txn && last_commit_txn[r->stream] == r->txn)
					sc->commit_not_last++;
				if (r->flags & IST_F_COMMIT)
					last_commit_txn[r->stream] = r->txn;
			}
			if (r->flags & IST_F_COMMIT) {
				if (r->flags & IST_F_FUA)
					sc->commits_fua++;
				if (r->op == IST_OP_WRITE)
					sc->commit_writes++;
			}
			if (sc->visit)
				sc->visit(r, sc->arg);
		}
		sc->records += (uint64_t)n;
		CU_ASSERT_FATAL(rpt_stats_add(st, buf, (size_t)n) == 0);
	}
	CU_ASSERT_FATAL(n == 0);
	CU_ASSERT_FATAL(rpt_stats_finish(st) == 0);
	CU_ASSERT(sc->records > 0);
	CU_ASSERT(sc->time_order_ok);
	CU_ASSERT(sc->bounds_ok);
	CU_ASSERT(sc->shape_ok);
	CU_ASSERT(sc->commit_without_txn == 0);
	CU_ASSERT(sc->first_not_dependent == 0);
	CU_ASSERT(sc->commit_not_last == 0);
	free(buf);
	free(seen);
	free(last_commit_txn);
	syn_gen_free(g);
	return st;
}

/* |got - want| <= tol, with a message naming the figure on failure. */
#define NEAR(got, want, tol, what)                                             \
	do {                                                                   \
		double g_ = (got), w_ = (want), t_ = (tol);                    \
		if (fabs(g_ - w_) > t_)                                        \
			fprintf(stderr, "\n  %s: %s = %g, want %g +- %g\n",    \
				__func__, what, g_, w_, t_);                   \
		CU_ASSERT(fabs(g_ - w_) <= t_);                                \
	} while (0)

/* relative tolerance */
#define NEAR_REL(got, want, rel, what) NEAR(got, want, fabs((double)(want)) * (rel), what)

#endif
