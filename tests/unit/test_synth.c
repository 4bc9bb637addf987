/* SPDX-License-Identifier: MIT */
/*
 * test_synth.c - every emulator profile, generated in memory and measured
 * through stats.c (the code of `iostorm stats`), against the published
 * figures of WORKLOADS.md, each within the tolerance stated here.
 */
#include "config.h"

#include <errno.h>

#include "synth/engine.h"
#include "synth_util.h"

#undef MiB
#define MiB (1024.0 * 1024)

static const struct rpt_device *dev_named(const struct rpt_stats *st,
					  const char *name)
{
	for (unsigned i = 0; i < rpt_stats_device_count(st); i++)
		if (!strcmp(rpt_stats_device(st, i)->name, name))
			return rpt_stats_device(st, i);
	CU_FAIL("device missing");
	return rpt_stats_device(st, 0);
}

/* ---------------------------------------------------------- vdbench */

static void check_corner(const char *profile, double read, uint32_t size,
			 int seq, uint64_t threads)
{
	struct scan sc = { 0 };
	struct rpt_stats *st = run_profile(profile, 0.2, 1, NULL, &sc, 0);
	const struct rpt_summary *s = rpt_stats_summary(st);

	/* WORKLOADS.md four corners: exact op and size by construction */
	NEAR(s->read_share, read, 0.0, "read share");
	CU_ASSERT_EQUAL(s->mode_size, size);
	NEAR(s->mode_share, 1.0, 0.0, "mode share");
	NEAR(s->mean_size, size, 0.0, "mean size");
	/* threads per the methodology, one stream each */
	CU_ASSERT_EQUAL(s->streams, threads);
	if (seq)
		NEAR(s->seq_share, 1.0, 0.01, "sequential share");
	else
		NEAR(s->seq_share, 0.0, 0.01, "sequential share");
	/* closed loop: every I/O but a thread's first waits for the previous */
	CU_ASSERT_EQUAL(s->dependent, s->records - threads);
	/* max rate = threads / nominal latency (200 us) */
	NEAR_REL(s->iops, threads / 200e-6, 0.05, "IOPS");
	rpt_stats_free(st);
}

static void test_4k_randread(void) { check_corner("4k-randread", 1, 4096, 0, 128); }
static void test_4k_randwrite(void) { check_corner("4k-randwrite", 0, 4096, 0, 64); }
static void test_64k_seqread(void) { check_corner("64k-seqread", 1, 65536, 1, 16); }
static void test_64k_seqwrite(void) { check_corner("64k-seqwrite", 0, 65536, 1, 8); }

static void check_db(const char *profile, double read, double mean,
		     uint32_t mode, double hot_io, double hot_space)
{
	static const char *const sets[] = { "rate=50000", NULL };
	struct scan sc = { 0 };
	struct rpt_stats *st = run_profile(profile, 2, 1, sets, &sc, 0);
	const struct rpt_summary *s = rpt_stats_summary(st);

	/* WORKLOADS.md: OLTP 70/30 8 KB; RDBMS 60/40 22 KB mean */
	NEAR(s->read_share, read, 0.01, "read share");
	NEAR_REL(s->mean_size, mean, 0.03, "mean size");
	CU_ASSERT_EQUAL(s->mode_size, mode);
	NEAR(s->seq_share, 0.0, 0.01, "sequential share");
	/* "90-10": 90% of I/Os on 10% of the data; uniform: 10% on 10% */
	if (hot_space == 0.10)
		NEAR(s->skew.top10, hot_io, 0.02, "I/Os on hottest 10%");
	else
		NEAR(s->skew.top20, hot_io, 0.02, "I/Os on hottest 20%");
	/* open loop at the rate asked */
	NEAR_REL(s->iops, 50000, 0.03, "IOPS");
	CU_ASSERT_EQUAL(s->dependent, 0);
	rpt_stats_free(st);
}

static void test_sql(void) { check_db("sql", 0.7, 8192, 8192, 0.10, 0.10); }
static void test_sql_90_10(void) { check_db("sql-90-10", 0.7, 8192, 8192, 0.90, 0.10); }
static void test_sql_80_20(void) { check_db("sql-80-20", 0.7, 8192, 8192, 0.80, 0.20); }
static void test_oracle(void) { check_db("oracle", 0.6, 22528, 8192, 0.10, 0.10); }
static void test_oracle_90_10(void) { check_db("oracle-90-10", 0.6, 22528, 8192, 0.90, 0.10); }
static void test_oracle_80_20(void) { check_db("oracle-80-20", 0.6, 22528, 8192, 0.80, 0.20); }

/* ---------------------------------------------------------- TPC-C */

static void test_tpcc(void)
{
	struct scan sc = { 0 };
	struct rpt_stats *st = run_profile("tpcc", 120, 1, NULL, &sc, 0);
	const struct rpt_summary *s = rpt_stats_summary(st);
	const struct rpt_device *data = dev_named(st, "data");
	const struct rpt_device *log = dev_named(st, "log");

	/* read:write ~ 1.9:1 [Chen et al. 2011] -> 65.5% reads, +-3 points */
	NEAR(s->read_share, 1.9 / 2.9, 0.03, "read share");
	/* mean 8.53 KB, mode 8 KB [Kavalanekar et al. 2008], mean +-10% */
	NEAR_REL(s->mean_size, 8.53 * 1024, 0.10, "mean size");
	CU_ASSERT_EQUAL(s->mode_size, 8192);
	/* sequential ~2% [Kavalanekar] on the data device, +-2 points; the
	 * log device is an append stream, sequential by nature */
	NEAR(data->seq_share, 0.02, 0.02, "data sequential share");
	NEAR(log->seq_share, 1.0, 0.001, "log sequential share");
	CU_ASSERT_EQUAL(log->count[IST_OP_READ], 0);
	/* a flush per (group) commit: at most one, fewer when concurrent */
	CU_ASSERT(s->flushes_per_commit > 0.5 && s->flushes_per_commit <= 1.0);
	/* the commit is the log write, synchronous */
	CU_ASSERT(sc.commit_writes > 0);
	CU_ASSERT(sc.commits_fua > 0 && sc.commits_fua < sc.commit_writes);
	/* one stream per user plus the checkpoint writer */
	CU_ASSERT_EQUAL(s->streams, 15001);
	/* checkpoints come in bursts: peak interval >> average */
	CU_ASSERT(s->peak_iops > 3 * s->iops);
	/* NURand skew: the hottest 10% of the data space takes > 10% */
	CU_ASSERT(data->skew.top10 > 0.12);
	/* keying + think times: ~21 s per cycle, 15,000 users -> ~700 TPS;
	 * New-Order at most 12.86/min/warehouse -> <= 715 TPS (x 1.15
	 * for transactions cut by the window) */
	CU_ASSERT(s->commits / s->duration_s < 715 * 1.15);
	CU_ASSERT(s->commits / s->duration_s > 500);
	rpt_stats_free(st);
}

static void test_tpcc_no_think_is_faster(void)
{
	static const char *const sets[] = { "think=0", "users=32", "warehouses=10", NULL };
	struct scan sc = { 0 };
	struct rpt_stats *st = run_profile("tpcc", 5, 1, sets, &sc, 0);
	const struct rpt_summary *s = rpt_stats_summary(st);

	/* without think times users are closed loop: every I/O dependent
	 * but a user's first */
	CU_ASSERT(s->dependent >= s->records - 33 - s->count[IST_OP_WRITE]);
	CU_ASSERT(s->commits / s->duration_s > 1000);
	rpt_stats_free(st);
}

/* ---------------------------------------------------------- sysbench */

struct sb_seen {
	uint64_t redo_writes, redo_misaligned, dblwr_writes, binlog_writes;
};

static void sb_visit(const struct ist_record *r, void *arg)
{
	struct sb_seen *v = arg;

	if (r->op != IST_OP_WRITE)
		return;
	if (r->offset < 96 * MiB) {
		v->redo_writes++;
		if (r->offset % 512 || r->len % 512)
			v->redo_misaligned++;
	} else if (r->offset < 98 * MiB) {
		v->dblwr_writes++;
	} else if (r->offset >= 128 * MiB && r->offset < 1152 * MiB) {
		v->binlog_writes++;
	}
}

static void test_sysbench(void)
{
	struct sb_seen v = { 0 };
	struct scan sc = { .visit = sb_visit, .arg = &v };
	struct rpt_stats *st = run_profile("sysbench-oltp", 10, 1, NULL, &sc, 0);
	const struct rpt_summary *s = rpt_stats_summary(st);
	double fpc = s->flushes_per_commit;

	/* InnoDB 16 KB pages are the data I/O */
	CU_ASSERT_EQUAL(s->mode_size, 16384);
	/* redo in 512-byte blocks, one write per commit */
	CU_ASSERT(v.redo_writes > 0);
	CU_ASSERT_EQUAL(v.redo_misaligned, 0);
	NEAR_REL((double)v.redo_writes, (double)s->commits, 0.001, "redo writes per commit");
	/* group commit: fewer flushes than commits with 32 threads */
	CU_ASSERT(fpc > 0 && fpc < 1.0);
	/* doublewrite batches exist (the page cleaner runs every second) */
	CU_ASSERT(v.dblwr_writes > 0);
	CU_ASSERT_EQUAL(v.binlog_writes, 0);
	CU_ASSERT_EQUAL(s->streams, 33);
	rpt_stats_free(st);

	{
		static const char *const sets[] = { "binlog=on", NULL };
		struct sb_seen v2 = { 0 };
		struct scan sc2 = { .visit = sb_visit, .arg = &v2 };

		st = run_profile("sysbench-oltp", 10, 1, sets, &sc2, 0);
		s = rpt_stats_summary(st);
		/* sync_binlog=1: a second synced append per group commit */
		NEAR_REL((double)v2.binlog_writes, (double)s->commits, 0.001,
			 "binlog writes per commit");
		CU_ASSERT(s->flushes_per_commit > fpc);
		CU_ASSERT(s->flushes_per_commit <= 2.0);
		rpt_stats_free(st);
	}
	{
		/* one thread: no concurrency, no grouping: exactly 1 flush/commit */
		static const char *const sets[] = { "threads=1", NULL };
		struct scan sc3 = { 0 };

		st = run_profile("sysbench-oltp", 5, 1, sets, &sc3, 0);
		s = rpt_stats_summary(st);
		NEAR(s->flushes_per_commit, 1.0, 0.0, "flushes per commit, 1 thread");
		rpt_stats_free(st);
	}
}

/*
 * Group commit as the trace records it: a follower's commit is its own
 * log write, without FUA or flush, issued while a leader's flush is in
 * flight (the record cannot name the leader's I/O: see "Group commit" in
 * iostorm-workloads(7)).  tpcc: the leader's log write carries FUA and is
 * in flight for the nominal latency; sysbench: the leader's redo write
 * (no COMMIT) is followed by a flush, 2 latencies in all.
 */
struct group_seen {
	int sysbench;
	uint64_t leaders, followers, outside, follower_fua, last_leader;
};

static void group_visit(const struct ist_record *r, void *arg)
{
	struct group_seen *v = arg;
	uint64_t window = v->sysbench ? 2 * 200000 : 200000;
	int log_write = r->op == IST_OP_WRITE &&
			(v->sysbench ? r->offset < 96 * 1048576ull : r->dev == 1);
	int leader;

	if (!log_write)
		return;
	leader = v->sysbench ? !(r->flags & IST_F_COMMIT) : !!(r->flags & IST_F_FUA);
	if (leader) {
		v->leaders++;
		v->last_leader = r->t_ns;
		return;
	}
	v->followers++;
	if (!v->leaders || r->t_ns >= v->last_leader + window)
		v->outside++;
	if (r->flags & IST_F_FUA)
		v->follower_fua++;
}

static void check_group(const char *profile, double dur, const char *const *sets,
			int sysbench)
{
	struct group_seen v = { .sysbench = sysbench };
	struct scan sc = { .visit = group_visit, .arg = &v };
	struct rpt_stats *st = run_profile(profile, dur, 3, sets, &sc, 0);
	const struct rpt_summary *s = rpt_stats_summary(st);

	/* concurrent commits group: followers exist, fewer flushes */
	CU_ASSERT(v.followers > v.leaders / 20);
	CU_ASSERT(v.leaders > 0);
	/* every follower commits inside a leader's flush, without a flush */
	CU_ASSERT_EQUAL(v.outside, 0);
	CU_ASSERT_EQUAL(v.follower_fua, 0);
	/* one flush per group: flushes per commit = leaders / commits */
	NEAR_REL(s->flushes_per_commit * (double)s->commits, (double)v.leaders,
		 0.01, "flushes = group leaders");
	rpt_stats_free(st);
}

static void test_group_commit(void)
{
	static const char *const tpcc_sets[] = { "warehouses=100", "users=2000",
		"think=0.05", NULL };

	check_group("tpcc", 20, tpcc_sets, 0);
	check_group("sysbench-oltp", 5, NULL, 1);
}

static void test_sysbench_uniform_misses_more(void)
{
	static const char *const uni[] = { "rand-type=uniform", NULL };
	struct scan sc = { 0 };
	struct rpt_stats *a = run_profile("sysbench-oltp", 5, 1, NULL, &sc, 0);
	struct rpt_stats *b = run_profile("sysbench-oltp", 5, 1, uni, &sc, 0);

	/* special keeps 75% of keys in 1% of the range: the buffer pool
	 * absorbs them; uniform keys miss far more per transaction */
	CU_ASSERT(rpt_stats_summary(b)->ios_per_txn >
		  2 * rpt_stats_summary(a)->ios_per_txn);
	rpt_stats_free(a);
	rpt_stats_free(b);
}

/* ---------------------------------------------------------- MarkLogic */

static void test_marklogic(void)
{
	static const char *const sets[] = { "intervals=12", NULL };
	struct scan sc = { 0 };
	struct rpt_stats *st = run_profile("marklogic", 24, 1, sets, &sc, 2000000000ull);
	const struct rpt_summary *s = rpt_stats_summary(st);
	const struct rpt_interval *i0, *i1;

	/* 4 nodes, one drive each, evenly loaded */
	CU_ASSERT_EQUAL(rpt_stats_device_count(st), 4);
	for (unsigned d = 0; d < 4; d++)
		NEAR_REL((double)rpt_stats_device(st, d)->count[0] +
			 (double)rpt_stats_device(st, d)->count[1],
			 (double)(s->count[0] + s->count[1]) / 4, 0.05, "per-node I/Os");
	/* journal commits are synced writes (strict journaling) */
	CU_ASSERT(sc.commit_writes > 0);
	CU_ASSERT_EQUAL(sc.commits_fua, sc.commit_writes);
	/* stand saves and merges: 1 MiB sequential I/O is present */
	CU_ASSERT(rpt_stats_size_hist(st, 20) > 0);
	CU_ASSERT(s->seq_share > 0.01);
	/* intervals alternate ingest-heavy and query-heavy */
	i0 = rpt_stats_interval(st, 0);
	i1 = rpt_stats_interval(st, 1);
	CU_ASSERT_FATAL(i0 && i1);
	CU_ASSERT((double)i0->reads / i0->count < (double)i1->reads / i1->count);
	rpt_stats_free(st);
}

/* ---------------------------------------------------------- VDI */

static void test_vdi_login_linked(void)
{
	/* the login phase alone: no steady state after it */
	static const char *const sets[] = { "desktops=300", "window=60s",
		"steady-iops=0", NULL };
	struct scan sc = { 0 };
	struct rpt_stats *st = run_profile("vdi-login", 130, 1, sets, &sc, 0);
	const struct rpt_summary *s = rpt_stats_summary(st);
	const struct rpt_device *rep = dev_named(st, "replica");

	/* Dell/VMware View 4.5: 50/50, 36 KB reads, 10 KB writes, 8-13 IOPS
	 * per desktop, ~90% of reads on the replica; tolerances: 3 points,
	 * 10% of the sizes, the published IOPS range */
	NEAR(s->read_share, 0.5, 0.03, "read share");
	NEAR_REL(s->mean_read_size, 36 * 1024, 0.10, "mean read size");
	NEAR_REL(s->mean_write_size, 10 * 1024, 0.10, "mean write size");
	CU_ASSERT(s->stream_iops_mean >= 8 && s->stream_iops_mean <= 13);
	NEAR((double)rep->count[0] / s->count[0], 0.9, 0.03, "replica read share");
	/* linked clone: the replica is 100% reads */
	CU_ASSERT_EQUAL(rep->count[1], 0);
	CU_ASSERT_EQUAL(s->streams, 300);
	/* each desktop's login is one transaction */
	CU_ASSERT_EQUAL(s->commits, 300);
	rpt_stats_free(st);
}

/*
 * A steady rate so low its gap is infinite (1e9 / 1e-300 ns): the same
 * records as with no steady state (steady-iops=0), where the conversion
 * of the gap to nanoseconds was undefined.
 */
static void test_vdi_tiny_rate(void)
{
	static const char *const zero[] = { "desktops=20", "window=10s",
		"steady-iops=0", NULL };
	static const char *const tiny[] = { "desktops=20", "window=10s",
		"steady-iops=1e-300", NULL };
	struct scan a = { 0 }, b = { 0 };
	struct rpt_stats *st = run_profile("vdi-login", 130, 1, zero, &a, 0);
	uint64_t commits = rpt_stats_summary(st)->commits;

	rpt_stats_free(st);
	st = run_profile("vdi-login", 130, 1, tiny, &b, 0);
	CU_ASSERT_EQUAL(b.records, a.records);
	CU_ASSERT_EQUAL(b.hash, a.hash);	/* the same records */
	CU_ASSERT(b.time_order_ok && b.bounds_ok);
	CU_ASSERT(commits > 0);
	CU_ASSERT_EQUAL(rpt_stats_summary(st)->commits, commits);
	rpt_stats_free(st);
}

static void test_vdi_steady(void)
{
	static const char *const sets[] = { "desktops=200", "window=10s",
		"phase-iops=0", NULL };
	struct scan sc = { 0 };
	struct rpt_stats *st = run_profile("vdi-login", 300, 2, sets, &sc, 0);
	const struct rpt_summary *s = rpt_stats_summary(st);

	/* steady state: 25/75, 18 KB reads, 10 KB writes, 3-4 IOPS/desktop */
	NEAR(s->read_share, 0.25, 0.03, "read share");
	NEAR_REL(s->mean_read_size, 18 * 1024, 0.10, "mean read size");
	NEAR_REL(s->mean_write_size, 10 * 1024, 0.10, "mean write size");
	CU_ASSERT(s->stream_iops_mean >= 3 && s->stream_iops_mean <= 4);
	rpt_stats_free(st);
}

static void test_vdi_boot_full(void)
{
	static const char *const sets[] = { "desktops=200", "window=60s",
		"steady-iops=0", "clone=full", NULL };
	struct scan sc = { 0 };
	struct rpt_stats *st = run_profile("vdi-boot", 130, 1, sets, &sc, 0);
	const struct rpt_summary *s = rpt_stats_summary(st);

	/* full-clone boot: ~84% reads (Windows 7), +-3 points; one disk */
	NEAR(s->read_share, 0.84, 0.03, "read share");
	CU_ASSERT_EQUAL(rpt_stats_device_count(st), 1);
	CU_ASSERT_STRING_EQUAL(rpt_stats_device(st, 0)->name, "desktops");
	rpt_stats_free(st);
}

static void test_vdi_boot_storm_peak(void)
{
	/* the published storm: 1,270 desktops in 10-12 min peaked ~15,000
	 * IOPS; defaults reproduce it within 20% (10 s intervals) */
	struct scan sc = { 0 };
	struct rpt_stats *st = run_profile("vdi-boot", 720, 1, NULL, &sc,
					   10000000000ull);
	const struct rpt_summary *s = rpt_stats_summary(st);

	NEAR_REL(s->peak_iops, 15000, 0.20, "boot storm peak IOPS");
	CU_ASSERT_EQUAL(s->streams, 1270);
	rpt_stats_free(st);
}

static void test_vdi_monday_sharper(void)
{
	/* the storms alone (no steady state under them) */
	static const char *const sets[] = { "desktops=300", "steady-iops=0", NULL };
	struct scan sc = { 0 };
	struct rpt_stats *a = run_profile("vdi-login", 1900, 1, sets, &sc,
					  10000000000ull);
	struct rpt_stats *b = run_profile("vdi-login-monday", 700, 1, sets, &sc,
					  10000000000ull);

	/* Monday: the same users, a sharper and larger peak */
	CU_ASSERT(rpt_stats_summary(b)->peak_iops >
		  2 * rpt_stats_summary(a)->peak_iops);
	rpt_stats_free(a);
	rpt_stats_free(b);
}

/* ---------------------------------------------------------- determinism */

static void test_determinism(void)
{
	static const char *const profiles[] = { "tpcc", "sysbench-oltp",
		"marklogic", "vdi-login", "oracle-90-10", NULL };

	for (unsigned i = 0; profiles[i]; i++) {
		struct scan a = { 0 }, b = { 0 }, c = { 0 };
		struct rpt_stats *sa = run_profile(profiles[i], 3, 42, NULL, &a, 0);
		struct rpt_stats *sb = run_profile(profiles[i], 3, 42, NULL, &b, 0);
		struct rpt_stats *sc = run_profile(profiles[i], 3, 43, NULL, &c, 0);
		const struct rpt_summary *x = rpt_stats_summary(sa);
		const struct rpt_summary *z = rpt_stats_summary(sc);

		/* same seed: the same records */
		CU_ASSERT_EQUAL(a.records, b.records);
		CU_ASSERT_EQUAL(a.hash, b.hash);
		/* another seed: another trace, the same statistics */
		CU_ASSERT_NOT_EQUAL(a.hash, c.hash);
		if (x->records > 20000) {
			NEAR(z->read_share, x->read_share, 0.03, "read share across seeds");
			NEAR_REL(z->mean_size, x->mean_size, 0.10, "mean size across seeds");
			NEAR_REL((double)z->records, (double)x->records, 0.10,
				 "records across seeds");
		}
		rpt_stats_free(sa);
		rpt_stats_free(sb);
		rpt_stats_free(sc);
	}
}

/* ---------------------------------------------------------- event queue */

/* A profile of streams with gaps from 0 (ties) to minutes, some retiring,
 * to check the calendar queue's order against a plain scan for the
 * minimum (t, stream). */
#define QT_STREAMS qt_streams
static unsigned qt_streams;

static int qt_advance(struct syn_stream *s)
{
	uint64_t x = syn_rng_below(&s->rng, 1000);

	if (x < 5)
		return 0; /* retire */
	if (x < 150)
		s->t += 0;
	else if (x < 500)
		s->t += syn_rng_below(&s->rng, 1000);
	else if (x < 900)
		s->t += syn_rng_below(&s->rng, 5000000);
	else if (x < 990)
		s->t += syn_rng_below(&s->rng, 2000000000);
	else
		s->t += syn_rng_below(&s->rng, 300000000000ull);
	return 1;
}

static int qt_setup(struct syn_gen *g, void *priv)
{
	(void)priv;
	if (syn_add_device(g, "d", 1 << 20, 512) < 0)
		return -ENOMEM;
	for (unsigned i = 0; i < QT_STREAMS; i++) {
		struct syn_stream *s = syn_add_stream(g, 0);

		if (!s)
			return -ENOMEM;
		s->t = i % 7 ? syn_rng_below(&s->rng, 3000000000ull) : 0;
	}
	return 0;
}

static int qt_step(struct syn_gen *g, void *priv, struct syn_stream *s,
		   struct ist_record *rec)
{
	(void)g;
	(void)priv;
	syn_rec(rec, s, 0, IST_OP_READ, 0, 512, 0);
	return qt_advance(s) ? 1 : SYN_RETIRE;
}

static const struct syn_param qt_params[] = {
	{ NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0 },
};

static const struct syn_profile qt_profile = {
	.name = "qtest", .summary = "", .params = qt_params,
	.setup = qt_setup, .step = qt_step,
};

static void check_event_order(unsigned streams)
{
	struct syn_gen *g;
	struct syn_stream *ref = calloc(QT_STREAMS, sizeof(*ref));
	struct ist_record *buf = malloc(1000 * sizeof(*buf));
	uint64_t dur = 600 * 1000000000ull, n = 0, bad = 0;
	ssize_t got;

	CU_ASSERT_FATAL(ref && buf);
	CU_ASSERT_FATAL(syn_gen_new(&g, &qt_profile) == 0);
	syn_gen_set_seed(g, 7);
	syn_gen_set_duration(g, dur);
	CU_ASSERT_FATAL(syn_gen_start(g) == 0);
	memcpy(ref, g->streams, QT_STREAMS * sizeof(*ref));
	while ((got = syn_gen_read(g, buf, 1000)) > 0) {
		for (ssize_t k = 0; k < got && !bad; k++) {
			unsigned best;
			uint64_t t;

			do { /* the reference: a scan for the minimum (t, id) */
				best = QT_STREAMS;
				for (unsigned i = 0; i < QT_STREAMS; i++)
					if (ref[i].id && ref[i].t < dur &&
					    (best == QT_STREAMS || ref[i].t < ref[best].t))
						best = i;
				if (best == QT_STREAMS)
					break;
				t = ref[best].t;
				if (!qt_advance(&ref[best])) {
					ref[best].id = 0; /* retired: no record */
					best = QT_STREAMS + 1;
				}
			} while (best == QT_STREAMS + 1);
			if (best == QT_STREAMS || buf[k].t_ns != t ||
			    buf[k].stream != best + 1u)
				bad++;
			n++;
		}
		if (bad)
			break;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(n > 30 * streams); /* enough to turn the wheel, rebuild it */
	CU_ASSERT(g->q.heap_only == (streams <= SYN_HEAP_ONLY));
	syn_gen_free(g);
	free(ref);
	free(buf);
}

static void test_event_order(void)
{
	qt_streams = 3000; /* the calendar queue */
	check_event_order(qt_streams);
	qt_streams = 12;   /* few streams: the heap alone */
	check_event_order(qt_streams);
}

/* ---------------------------------------------------------- ziggurat */

static void test_exp_ziggurat(void)
{
	struct syn_rng r;
	double sum = 0, sum2 = 0, n = 2000000, above3 = 0, above8 = 0;

	syn_rng_seed(&r, 5, 0);
	for (unsigned i = 0; i < (unsigned)n; i++) {
		double x = syn_rng_exp(&r, 2.0);

		CU_ASSERT(x >= 0);
		sum += x;
		sum2 += x * x;
		above3 += x > 6.0;
		above8 += x > 16.0;
	}
	/* mean 2, variance 4, P(X > 3 means) = e^-3, the tail beyond the
	 * ziggurat's base (7.7 means) reached: P(X > 8 means) = e^-8 */
	NEAR_REL(sum / n, 2.0, 0.005, "exponential mean");
	NEAR_REL(sum2 / n - (sum / n) * (sum / n), 4.0, 0.02, "exponential variance");
	NEAR_REL(above3 / n, exp(-3.0), 0.02, "exponential P(X > 3 means)");
	NEAR_REL(above8 / n, exp(-8.0), 0.15, "exponential P(X > 8 means)");
}

/* ---------------------------------------------------------- parameters */

static void test_params(void)
{
	const struct syn_profile *p = syn_profile_find("vdi-boot");
	struct syn_gen *g;
	char buf[64];

	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT(syn_profile_find("nope") == NULL);
	CU_ASSERT_FATAL(syn_gen_new(&g, p) == 0);
	CU_ASSERT_EQUAL(syn_gen_set(g, "clone", "full"), 0);
	CU_ASSERT_EQUAL(syn_gen_set(g, "clone", "half"), IST_EPARSE);
	CU_ASSERT_EQUAL(syn_gen_set(g, "desktops", "-3"), IST_EPARSE);
	CU_ASSERT_EQUAL(syn_gen_set(g, "desktops", "2.5"), IST_EPARSE);
	CU_ASSERT_EQUAL(syn_gen_set(g, "desktops", "0"), IST_ERANGE);
	CU_ASSERT_EQUAL(syn_gen_set(g, "nosuch", "1"), -ENOENT);
	CU_ASSERT_EQUAL(syn_gen_set_kv(g, "window=90s"), 0);
	CU_ASSERT_EQUAL(syn_gen_set_kv(g, "window"), IST_EPARSE);
	CU_ASSERT_EQUAL(syn_gen_set_kv(g, "phase-read-size=64k"), 0);
	for (unsigned i = 0; syn_profile_param(p, i); i++) {
		if (!strcmp(syn_profile_param(p, i)->name, "clone")) {
			syn_gen_param_text(g, i, buf, sizeof(buf));
			CU_ASSERT_STRING_EQUAL(buf, "full");
		}
		if (!strcmp(syn_profile_param(p, i)->name, "phase-read-size")) {
			syn_gen_param_text(g, i, buf, sizeof(buf));
			CU_ASSERT_STRING_EQUAL(buf, "65536");
		}
		/* every parameter is documented */
		CU_ASSERT(*syn_profile_param(p, i)->meaning);
		CU_ASSERT(*syn_profile_param(p, i)->source);
	}
	syn_gen_set_duration(g, 1000000000ull);
	CU_ASSERT_EQUAL(syn_gen_start(g), 0);
	CU_ASSERT_STRING_EQUAL(ist_header_get(syn_gen_header(g), "source"), "synth");
	CU_ASSERT_STRING_EQUAL(ist_header_get(syn_gen_header(g), "profile"), "vdi-boot");
	CU_ASSERT_STRING_EQUAL(ist_header_get(syn_gen_header(g), "nominal_latency_ns"),
			       "500000");
	CU_ASSERT(strstr(ist_header_get(syn_gen_header(g), "parameters"),
			 "clone=full,") != NULL);
	CU_ASSERT_EQUAL(syn_gen_set(g, "clone", "linked"), -EBUSY);
	syn_gen_free(g);
	/* every profile's defaults are valid and documented */
	for (unsigned i = 0; syn_profiles[i]; i++) {
		CU_ASSERT_EQUAL(syn_gen_new(&g, syn_profiles[i]), 0);
		for (unsigned k = 0; syn_profile_param(syn_profiles[i], k); k++)
			CU_ASSERT(*syn_profile_param(syn_profiles[i], k)->source);
		syn_gen_free(g);
	}
}

static void test_mix_needs_file(void)
{
	struct syn_gen *g;
	unsigned line = 99;

	CU_ASSERT_FATAL(syn_gen_new(&g, syn_profile_find("mix")) == 0);
	CU_ASSERT(syn_gen_start(g) < 0);
	CU_ASSERT(strstr(syn_gen_error(g, &line), "file=") != NULL);
	CU_ASSERT_EQUAL(line, 0);
	syn_gen_free(g);
}

static const struct cutest tests[] = {
	{ "4k-randread", test_4k_randread },
	{ "4k-randwrite", test_4k_randwrite },
	{ "64k-seqread", test_64k_seqread },
	{ "64k-seqwrite", test_64k_seqwrite },
	{ "sql", test_sql },
	{ "sql-90-10", test_sql_90_10 },
	{ "sql-80-20", test_sql_80_20 },
	{ "oracle", test_oracle },
	{ "oracle-90-10", test_oracle_90_10 },
	{ "oracle-80-20", test_oracle_80_20 },
	{ "tpcc", test_tpcc },
	{ "tpcc without think times", test_tpcc_no_think_is_faster },
	{ "sysbench-oltp", test_sysbench },
	{ "sysbench uniform keys miss more", test_sysbench_uniform_misses_more },
	{ "group commit (tpcc, sysbench)", test_group_commit },
	{ "marklogic", test_marklogic },
	{ "vdi-login linked", test_vdi_login_linked },
	{ "vdi steady rate too low for 64-bit gaps", test_vdi_tiny_rate },
	{ "vdi steady state", test_vdi_steady },
	{ "vdi-boot full clone", test_vdi_boot_full },
	{ "vdi-boot storm peak", test_vdi_boot_storm_peak },
	{ "vdi-login-monday sharper", test_vdi_monday_sharper },
	{ "determinism", test_determinism },
	{ "event queue order", test_event_order },
	{ "exponential ziggurat", test_exp_ziggurat },
	{ "parameters", test_params },
	{ "mix needs a file", test_mix_needs_file },
	{ NULL, NULL },
};

int main(void)
{
	return cutest_main("synth", tests);
}
