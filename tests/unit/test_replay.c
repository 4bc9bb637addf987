/* SPDX-License-Identifier: MIT */
/* test_replay.c - unit tests of the replay engine: histograms, schedules and closed loop on the null back-end. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/replay.h"
#include "replay/internal.h"
#include "tests/unit/cutest.h"

/* ------------------------------------------------------------ histogram */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t exact_q(const uint64_t *v, size_t n, double q)
{
	size_t rank = (size_t)ceil(q * (double)n);

	if (rank < 1)
		rank = 1;
	return v[rank - 1];
}

static double rel_err(uint64_t got, uint64_t want)
{
	return want ? fabs((double)got - (double)want) / (double)want : (double)got;
}

static void check_hist_against(uint64_t *v, size_t n)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999, 0.9999 };
	struct rpl_hist h;
	struct rpl_pcts p;
	double sum = 0;

	CU_ASSERT_FATAL(rpl_hist_init(&h) == 0);
	for (size_t i = 0; i < n; i++) {
		rpl_hist_add(&h, v[i]);
		sum += (double)v[i];
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	for (unsigned k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		uint64_t got = rpl_hist_quantile(&h, qs[k]), want = exact_q(v, n, qs[k]);

		if (rel_err(got, want) > 0.01)
			fprintf(stderr, "q%g: got %llu want %llu\n", qs[k],
				(unsigned long long)got, (unsigned long long)want);
		CU_ASSERT(rel_err(got, want) <= 0.01);
	}
	rpl_hist_summary(&h, &p);
	CU_ASSERT_EQUAL(p.count, n);
	CU_ASSERT_EQUAL(p.min, v[0]);
	CU_ASSERT_EQUAL(p.max, v[n - 1]);
	CU_ASSERT(fabs(p.mean - sum / (double)n) <= 1e-6 * p.mean + 1e-9);
	/* the summary holds each percentile, each its own (p99.9 was never
	 * checked: a summary giving p99 for it passed) */
	CU_ASSERT(rel_err(p.p50, exact_q(v, n, 0.5)) <= 0.01);
	CU_ASSERT(rel_err(p.p90, exact_q(v, n, 0.9)) <= 0.01);
	CU_ASSERT(rel_err(p.p99, exact_q(v, n, 0.99)) <= 0.01);
	CU_ASSERT(rel_err(p.p999, exact_q(v, n, 0.999)) <= 0.01);
	CU_ASSERT(rel_err(p.p9999, exact_q(v, n, 0.9999)) <= 0.01);
	{
		double m = sum / (double)n, ss = 0;

		for (size_t i = 0; i < n; i++)
			ss += ((double)v[i] - m) * ((double)v[i] - m);
		CU_ASSERT(fabs(p.stddev - sqrt(ss / (double)n)) <= 1e-3 * sqrt(ss / (double)n));
	}
	rpl_hist_release(&h);
}

static void test_hist_accuracy_log_uniform(void)
{
	size_t n = 200000;
	uint64_t *v = malloc(n * sizeof(*v));

	srand48(42);
	/* 100 ns to 3 hours, log-uniform. */
	for (size_t i = 0; i < n; i++)
		v[i] = (uint64_t)exp(log(100.0) + drand48() * (log(1.08e13) - log(100.0)));
	check_hist_against(v, n);
	free(v);
}

static void test_hist_accuracy_narrow(void)
{
	size_t n = 100000;
	uint64_t *v = malloc(n * sizeof(*v));

	srand48(7);
	/* Latencies around 80 us with a long tail: typical of an SSD. */
	for (size_t i = 0; i < n; i++)
		v[i] = 80000 + (uint64_t)(-log(1.0 - drand48()) * 15000.0) +
		       (drand48() < 0.001 ? 5000000 : 0);
	check_hist_against(v, n);
	/* one stall of a second among 100 us I/Os: every percentile up to
	 * p99.99 is 100 us, only the maximum sees the stall */
	for (size_t i = 0; i < n; i++)
		v[i] = 100000;
	v[n / 2] = 1000000000;
	check_hist_against(v, n);
	free(v);
}

static void test_hist_buckets_contiguous(void)
{
	uint64_t lo, hi, prev_hi = 0;

	for (unsigned i = 0; i < RPL_HIST_BUCKETS; i++) {
		rpl_hist_bucket_range(i, &lo, &hi);
		if (i)
			CU_ASSERT_EQUAL(lo, prev_hi + 1);
		CU_ASSERT(hi >= lo);
		/* relative width at most 1/128 */
		CU_ASSERT((double)(hi - lo) <= (double)lo / 128.0 + 1e-9);
		CU_ASSERT_EQUAL(rpl_hist_index(lo), i);
		CU_ASSERT_EQUAL(rpl_hist_index(hi), i);
		prev_hi = hi;
	}
	/* Hours fit; beyond 2^48 ns lands in the last bucket. */
	CU_ASSERT(rpl_hist_index(3600ull * 1000000000ull * 4) < RPL_HIST_BUCKETS - 1);
	CU_ASSERT_EQUAL(rpl_hist_index(UINT64_MAX), RPL_HIST_BUCKETS - 1);
}

static void test_hist_merge_empty(void)
{
	struct rpl_hist a, b;
	struct rpl_pcts p;

	CU_ASSERT_FATAL(rpl_hist_init(&a) == 0 && rpl_hist_init(&b) == 0);
	rpl_hist_summary(&a, &p);
	CU_ASSERT_EQUAL(p.count, 0);
	CU_ASSERT_EQUAL(rpl_hist_quantile(&a, 0.99), 0);
	rpl_hist_add(&b, 1000);
	rpl_hist_add(&b, 3000);
	rpl_hist_merge(&a, &b);
	CU_ASSERT_EQUAL(a.count, 2);
	CU_ASSERT(rel_err(rpl_hist_quantile(&a, 0.5), 1000) < 0.005);
	CU_ASSERT_EQUAL(rpl_hist_quantile(&a, 1.0), 3000);
	CU_ASSERT_DOUBLE_EQUAL(rpl_hist_mean(&a), 2000.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(rpl_hist_stddev(&a), 1000.0, 1e-6);
	rpl_hist_release(&a);
	rpl_hist_release(&b);
}

/* ------------------------------------------------------------ runs */

#define MAXEV 4096

struct evlog {
	size_t n;
	struct rpl_io_event ev[MAXEV];
	struct ist_record rec[MAXEV];
};

/* Called from the worker threads: serialized. */
static pthread_mutex_t evlock = PTHREAD_MUTEX_INITIALIZER;

static void log_event(void *arg, const struct rpl_io_event *ev)
{
	struct evlog *l = arg;

	pthread_mutex_lock(&evlock);
	if (l->n < MAXEV) {
		l->ev[l->n] = *ev;
		l->rec[l->n] = *ev->rec;
		l->ev[l->n].rec = &l->rec[l->n];
		l->n++;
	}
	pthread_mutex_unlock(&evlock);
}

static const struct rpl_io_event *find_seq(const struct evlog *l, uint64_t seq)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->ev[i].seq == seq)
			return &l->ev[i];
	return NULL;
}

static struct ist_record mkrec(uint64_t t, unsigned op, uint64_t off, uint32_t len,
			       uint64_t lat, uint64_t stream, uint64_t txn)
{
	struct ist_record r;

	memset(&r, 0, sizeof(r));
	r.t_ns = t;
	r.op = (uint8_t)op;
	r.offset = off;
	r.len = len;
	r.lat_ns = lat;
	r.stream = stream;
	r.txn = txn;
	return r;
}

/* Runs recs on the null back-end with a virtual clock; events in *l. */
static const struct rpl_result *run_null(struct rpl_opts *o, const struct ist_record *recs,
					 size_t n, struct evlog *l, rpl_run **rp)
{
	struct rpl_source *src;
	const struct rpl_result *res;
	int err;

	o->backend = RPL_BACKEND_NULL;
	o->virtual_clock = 1;
	o->io_cb = log_event;
	o->io_cb_arg = l;
	l->n = 0;
	CU_ASSERT_FATAL(rpl_source_array(&src, recs, n, NULL) == 0);
	CU_ASSERT_FATAL(rpl_run_new(rp, o, src) == 0);
	CU_ASSERT_FATAL(rpl_run_start(*rp) == 0);
	while (!rpl_run_wait(*rp, 1000))
		;
	res = rpl_run_result(*rp, &err);
	CU_ASSERT_FATAL(res != NULL);
	return res;
}

static struct evlog evl;

static void test_original_timing_exact(void)
{
	struct ist_record recs[100];
	struct rpl_opts o;
	const struct rpl_result *res;
	rpl_run *r;

	for (int i = 0; i < 100; i++)
		recs[i] = mkrec(1000000 + (uint64_t)i * 37000, i % 3 ? IST_OP_READ : IST_OP_WRITE,
				(uint64_t)i * 4096, 4096, 0, 0, 0);
	rpl_opts_init(&o);
	o.speed = 2.0;
	o.null_latency_ns = 5000;
	res = run_null(&o, recs, 100, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, 100);
	CU_ASSERT_EQUAL(res->op[IST_OP_READ].ios, 66);
	CU_ASSERT_EQUAL(res->op[IST_OP_WRITE].ios, 34);
	CU_ASSERT_EQUAL(res->bytes, 100 * 4096);
	CU_ASSERT(res->complete);
	CU_ASSERT(!res->interrupted);
	CU_ASSERT_EQUAL(evl.n, 100);
	for (uint64_t i = 0; i < 100; i++) {
		const struct rpl_io_event *e = find_seq(&evl, i);

		CU_ASSERT_FATAL(e != NULL);
		/* absolute deadlines: (t - 0) / speed, no drift */
		CU_ASSERT_EQUAL(e->deadline_ns, (1000000 + i * 37000) / 2);
		CU_ASSERT_EQUAL(e->issue_ns, e->deadline_ns);
		CU_ASSERT_EQUAL(e->done_ns, e->issue_ns + 5000);
		CU_ASSERT_EQUAL(e->rec->offset, i * 4096);
	}
	CU_ASSERT_EQUAL(res->late.max, 0);
	CU_ASSERT_EQUAL(res->lat.p50, 5000);
	CU_ASSERT(!res->late_warning);
	rpl_run_free(r);
}

static void test_afap_iodepth(void)
{
	struct ist_record recs[10];
	struct rpl_opts o;
	const struct rpl_result *res;
	rpl_run *r;

	for (int i = 0; i < 10; i++)
		recs[i] = mkrec((uint64_t)i * 1000000000ull, IST_OP_READ, (uint64_t)i * 512, 512, 0, 0, 0);
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_AFAP;
	o.iodepth = 2;
	o.null_latency_ns = 100000;
	res = run_null(&o, recs, 10, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, 10);
	/* two at a time, 100 us each: 500 us in all, order kept */
	CU_ASSERT_EQUAL(res->elapsed_ns, 500000);
	for (uint64_t i = 0; i < 10; i++) {
		const struct rpl_io_event *e = find_seq(&evl, i);

		CU_ASSERT_FATAL(e != NULL);
		CU_ASSERT_EQUAL(e->issue_ns, (i / 2) * 100000);
	}
	CU_ASSERT_EQUAL(res->max_inflight, 2);
	CU_ASSERT_EQUAL(res->late.count, 0); /* no deadlines in afap */
	rpl_run_free(r);
}

static void test_rate(void)
{
	struct ist_record recs[50];
	struct rpl_opts o;
	const struct rpl_result *res;
	rpl_run *r;

	for (int i = 0; i < 50; i++)
		recs[i] = mkrec((uint64_t)i * i * 1000, IST_OP_READ, 0, 4096, 0, 0, 0);
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_RATE;
	o.rate_iops = 10000;
	res = run_null(&o, recs, 50, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, 50);
	for (uint64_t i = 0; i < 50; i++)
		CU_ASSERT_EQUAL(find_seq(&evl, i)->issue_ns, i * 100000);
	rpl_run_free(r);
}

static void test_window_loop_duration(void)
{
	struct ist_record recs[100];
	struct rpl_opts o;
	const struct rpl_result *res;
	rpl_run *r;

	for (int i = 0; i < 100; i++)
		recs[i] = mkrec((uint64_t)i * 10000, IST_OP_READ, (uint64_t)i * 4096, 4096, 0, 0, 0);
	/* window [200 us, 500 us): 30 records, rebased to 0 */
	rpl_opts_init(&o);
	o.from_ns = 200000;
	o.to_ns = 500000;
	res = run_null(&o, recs, 100, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, 30);
	CU_ASSERT_EQUAL(find_seq(&evl, 0)->deadline_ns, 0);
	CU_ASSERT_EQUAL(find_seq(&evl, 0)->rec->offset, 20 * 4096);
	CU_ASSERT_EQUAL(find_seq(&evl, 29)->deadline_ns, 290000);
	rpl_run_free(r);

	/* three loops: the second starts one mean gap after the last */
	rpl_opts_init(&o);
	o.loops = 3;
	res = run_null(&o, recs, 100, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, 300);
	CU_ASSERT_EQUAL(find_seq(&evl, 100)->deadline_ns, 1000000);
	CU_ASSERT_EQUAL(find_seq(&evl, 299)->deadline_ns, 2990000);
	rpl_run_free(r);

	/* duration caps the schedule */
	rpl_opts_init(&o);
	o.duration_ns = 250000;
	res = run_null(&o, recs, 100, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, 25);
	rpl_run_free(r);
}

static void test_slow_device_lateness(void)
{
	struct ist_record recs[200];
	struct rpl_opts o;
	const struct rpl_result *res;
	rpl_run *r;

	/* 10k IOPS offered to a device doing 4 x 1 ms at a time = 4k IOPS */
	for (int i = 0; i < 200; i++)
		recs[i] = mkrec((uint64_t)i * 100000, IST_OP_READ, 0, 4096, 0, 0, 0);
	rpl_opts_init(&o);
	o.iodepth = 4;
	o.null_latency_ns = 1000000;
	res = run_null(&o, recs, 200, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, 200);
	CU_ASSERT_EQUAL(res->max_inflight, 4);
	/* I/O 4k+j issues when 4(k-1)+j completes: the last at 49.3 ms, not 19.9 */
	CU_ASSERT_EQUAL(find_seq(&evl, 199)->issue_ns, 49300000);
	CU_ASSERT(res->late.max >= 29000000);
	CU_ASSERT(res->late_warning);
	rpl_run_free(r);
}

/* Closed loop: the expected schedule of a hand-made trace. */
static void test_closed_dependent_think(void)
{
	struct ist_record recs[6];
	struct rpl_opts o;
	const struct rpl_result *res;
	rpl_run *r;

	/* stream 1: A at 0 (lat 100 us); B at 150 us: issued after A
	 * completed, think 50 us; C at 170 us while B (lat 100) in flight:
	 * concurrent, 20 us after B.  stream 2: D at 10 us, E at 500 us
	 * after D completed at 110 (think 390). */
	recs[0] = mkrec(0, IST_OP_READ, 0, 4096, 100000, 1, 0);
	recs[1] = mkrec(10000, IST_OP_READ, 8192, 4096, 100000, 2, 0);
	recs[2] = mkrec(150000, IST_OP_READ, 4096, 4096, 100000, 1, 0);
	recs[3] = mkrec(170000, IST_OP_WRITE, 4096, 4096, 100000, 1, 0);
	recs[4] = mkrec(500000, IST_OP_READ, 4096, 4096, 100000, 2, 0);
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 10000; /* a drive 10 times faster */
	res = run_null(&o, recs, 5, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, 5);
	CU_ASSERT_EQUAL(find_seq(&evl, 0)->issue_ns, 0);
	CU_ASSERT_EQUAL(find_seq(&evl, 1)->issue_ns, 10000);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 10000 + 50000);
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 60000 + 20000);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 20000 + 390000);
	rpl_run_free(r);

	/* think times doubled */
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 10000;
	o.think_scale = 2.0;
	res = run_null(&o, recs, 5, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 10000 + 100000);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 20000 + 780000);
	rpl_run_free(r);

	/* a slower drive: B waits for A's 300 us completion */
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 300000;
	res = run_null(&o, recs, 5, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 300000 + 50000);
	rpl_run_free(r);
}

/* --null-latency-from: each op's latencies taken in turn, in issue order,
 * cycling; completions in time order (a short one overtakes a long one
 * issued before it); an op without a list keeps null_latency_ns; and a
 * closed loop schedules on those latencies. */
static void test_null_latency_lists(void)
{
	static const uint64_t wl[] = { 300000, 50000, 120000 };
	static const uint64_t fl[] = { 7000 };
	struct ist_record recs[8];
	struct rpl_opts o;
	const struct rpl_result *res;
	rpl_run *r;
	/* original timing, all at t = 0..4 us: writes 0, 2, 4, 6 and reads
	 * 1, 3 (no list: 9 us), a flush 5 */
	for (int i = 0; i < 7; i++)
		recs[i] = mkrec((uint64_t)i * 1000, i == 5 ? IST_OP_FLUSH :
				i % 2 ? IST_OP_READ : IST_OP_WRITE, (uint64_t)i * 4096,
				i == 5 ? 0 : 4096, 0, 0, 0);
	rpl_opts_init(&o);
	o.null_latency_ns = 9000;
	o.null_lat_list[IST_OP_WRITE] = wl;
	o.null_lat_count[IST_OP_WRITE] = 3;
	o.null_lat_list[IST_OP_FLUSH] = fl;
	o.null_lat_count[IST_OP_FLUSH] = 1;
	res = run_null(&o, recs, 7, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, 7);
	CU_ASSERT_EQUAL(evl.n, 7);
	CU_ASSERT_EQUAL(find_seq(&evl, 0)->done_ns, 0 + 300000);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->done_ns, 2000 + 50000);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->done_ns, 4000 + 120000);
	CU_ASSERT_EQUAL(find_seq(&evl, 6)->done_ns, 6000 + 300000); /* cycled */
	CU_ASSERT_EQUAL(find_seq(&evl, 1)->done_ns, 1000 + 9000);
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->done_ns, 3000 + 9000);
	CU_ASSERT_EQUAL(find_seq(&evl, 5)->done_ns, 5000 + 7000);
	/* reported in completion order: 1, 3, 5, 2, 4, 0, 6 */
	{
		static const uint64_t order[] = { 1, 3, 5, 2, 4, 0, 6 };

		for (size_t i = 0; i < 7 && i < evl.n; i++)
			CU_ASSERT_EQUAL(evl.ev[i].seq, order[i]);
	}
	CU_ASSERT_EQUAL(res->op[IST_OP_WRITE].lat.max, 300000);
	rpl_run_free(r);

	/* closed loop, one stream: write, flush, write, each after the
	 * previous completed with 20 us of think time */
	recs[0] = mkrec(0, IST_OP_WRITE, 0, 4096, 10000, 1, 0);
	recs[1] = mkrec(30000, IST_OP_FLUSH, 0, 0, 10000, 1, 0);
	recs[2] = mkrec(60000, IST_OP_WRITE, 8192, 4096, 10000, 1, 0);
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_lat_list[IST_OP_WRITE] = wl;
	o.null_lat_count[IST_OP_WRITE] = 3;
	o.null_lat_list[IST_OP_FLUSH] = fl;
	o.null_lat_count[IST_OP_FLUSH] = 1;
	res = run_null(&o, recs, 3, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 1)->issue_ns, 300000 + 20000);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 320000 + 7000 + 20000);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->done_ns, 347000 + 50000);
	rpl_run_free(r);

	/* lists are for the null back-end */
	{
		struct rpl_source *src;

		rpl_opts_init(&o);
		o.null_lat_list[IST_OP_WRITE] = wl;
		o.null_lat_count[IST_OP_WRITE] = 3;
		o.ntargets = 1;
		o.targets[0].dev = -1;
		o.targets[0].path = "/nonexistent-iostorm-target";
		CU_ASSERT_FATAL(rpl_source_array(&src, recs, 3, NULL) == 0);
		CU_ASSERT_EQUAL(rpl_run_new(&r, &o, src), -EINVAL);
		CU_ASSERT(strstr(rpl_run_errmsg(r), "null back-end") != NULL);
		rpl_run_free(r);
	}
}

/* Latency lists per trace device (a --lat-log with its dev column): a
 * device's list first, then the op's list, then null_latency_ns, counted
 * per (device, op) in null_unlisted; the event names the trace device. */
static void test_null_latency_dev_lists(void)
{
	static const uint64_t w0[] = { 100000 };
	static const uint64_t w1[] = { 20000, 30000 };
	static const uint64_t rl[] = { 5000 };
	const uint64_t *dl[2 * IST_OP_COUNT] = { NULL };
	size_t dc[2 * IST_OP_COUNT] = { 0 };
	struct ist_record recs[8];
	struct rpl_opts o;
	const struct rpl_result *res;
	rpl_run *r;

	/* t = 0..6 us: writes on dev 0 (seq 0, 3), dev 1 (1, 4, 6), reads
	 * on dev 1 (2: the op's list), a flush on dev 1 (5: no list, 9 us) */
	for (int i = 0; i < 7; i++) {
		static const unsigned dev[] = { 0, 1, 1, 0, 1, 1, 1 };
		static const unsigned op[] = { IST_OP_WRITE, IST_OP_WRITE, IST_OP_READ, IST_OP_WRITE,
					       IST_OP_WRITE, IST_OP_FLUSH, IST_OP_WRITE };

		recs[i] = mkrec((uint64_t)i * 1000, op[i], (uint64_t)i * 4096,
				op[i] == IST_OP_FLUSH ? 0 : 4096, 0, 0, 0);
		recs[i].dev = dev[i];
	}
	dl[0 * IST_OP_COUNT + IST_OP_WRITE] = w0;
	dc[0 * IST_OP_COUNT + IST_OP_WRITE] = 1;
	dl[1 * IST_OP_COUNT + IST_OP_WRITE] = w1;
	dc[1 * IST_OP_COUNT + IST_OP_WRITE] = 2;
	rpl_opts_init(&o);
	o.null_latency_ns = 9000;
	o.null_lat_list[IST_OP_READ] = rl;
	o.null_lat_count[IST_OP_READ] = 1;
	o.null_lat_list[IST_OP_WRITE] = rl; /* behind the devices' lists */
	o.null_lat_count[IST_OP_WRITE] = 1;
	o.null_lat_dev_list = dl;
	o.null_lat_dev_count = dc;
	o.null_lat_ndev = 2;
	res = run_null(&o, recs, 7, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, 7);
	CU_ASSERT_EQUAL(find_seq(&evl, 0)->done_ns, 0 + 100000);
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->done_ns, 3000 + 100000);
	CU_ASSERT_EQUAL(find_seq(&evl, 1)->done_ns, 1000 + 20000);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->done_ns, 4000 + 30000);
	CU_ASSERT_EQUAL(find_seq(&evl, 6)->done_ns, 6000 + 20000); /* cycled */
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->done_ns, 2000 + 5000);
	CU_ASSERT_EQUAL(find_seq(&evl, 5)->done_ns, 5000 + 9000);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->dev, 1);
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->dev, 0);
	CU_ASSERT_FATAL(res->null_unlisted != NULL);
	CU_ASSERT(res->null_unlisted_ndev >= 2);
	for (unsigned d = 0; d < res->null_unlisted_ndev; d++)
		for (unsigned k = 0; k < IST_OP_COUNT; k++)
			CU_ASSERT_EQUAL(res->null_unlisted[(size_t)d * IST_OP_COUNT + k],
					d == 1 && k == IST_OP_FLUSH ? 1 : 0);
	rpl_run_free(r);

	/* a device beyond the lists takes the op's list */
	recs[0].dev = 2;
	res = run_null(&o, recs, 7, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 0)->done_ns, 0 + 5000);
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->done_ns, 3000 + 100000);
	rpl_run_free(r);
}

/*
 * The transactions' latencies of the streams counted in tps_streams apart
 * (latency_streams): a client stream of 200 transactions (one read each,
 * 20 us of think time) and a background stream of 2, a second apart (a
 * database's WAL writer, a journal): with --txn-latency cycle its second
 * takes a second, in txn_lat, not in txn_lat_streams.
 */
static void test_closed_txn_latency_streams(void)
{
	const uint64_t us = 1000;
	static struct ist_record recs[202];
	const struct rpl_result *res;
	struct rpl_opts o;
	size_t n = 0;
	rpl_run *r;

	for (uint64_t k = 0; k < 200; k++) {
		if (k == 1)
			recs[n++] = mkrec(50 * us, IST_OP_READ, 0, 4096, 100 * us, 9, 1);
		recs[n] = mkrec(k * 120 * us, IST_OP_READ, (k + 1) * 4096, 4096, 100 * us, 1, k + 1);
		recs[n++].flags = k ? IST_F_DEPENDENT : 0;
	}
	recs[n] = mkrec(1000000 * us, IST_OP_READ, 0, 4096, 100 * us, 9, 2);
	recs[n++].flags = IST_F_DEPENDENT;
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 10 * us;
	o.txn_latency_cycle = 1;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->txns, 202);
	/* stream 9: from its first end (60 us) to 1 s - 150 us of think + 10 us */
	CU_ASSERT_EQUAL(res->txn_lat.max, 1000000 * us - 140 * us);
	CU_ASSERT_EQUAL(res->txn_lat_streams.count, 200);
	CU_ASSERT_EQUAL(res->txn_lat_streams.max, 30 * us);
	CU_ASSERT_EQUAL(res->txn_lat_streams.min, 10 * us);
	rpl_run_free(r);
	/* without cycle, each from its first issue: 10 us */
	o.txn_latency_cycle = 0;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->txn_lat_streams.count, 200);
	CU_ASSERT_EQUAL(res->txn_lat_streams.max, 10 * us);
	rpl_run_free(r);
}

static void test_closed_txn_tps(void)
{
	struct ist_record recs[64];
	struct rpl_opts o;
	const struct rpl_result *res;
	double tps_fast, tps_slow;
	size_t n = 0;
	rpl_run *r;

	/* 4 streams x 4 transactions of 4 dependent I/Os, 20 us think */
	for (uint64_t s = 1; s <= 4; s++) {
		uint64_t t = s * 1000;

		for (uint64_t tx = 1; tx <= 4; tx++)
			for (int k = 0; k < 4; k++) {
				recs[n] = mkrec(t, k == 3 ? IST_OP_WRITE : IST_OP_READ,
						n * 4096, 4096, 100000, s, tx);
				recs[n].flags = IST_F_DEPENDENT;
				n++;
				t += 120000;
			}
	}
	/* keep the records sorted by time (as a trace is) */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && recs[j].t_ns < recs[j - 1].t_ns; j--) {
			struct ist_record x = recs[j];

			recs[j] = recs[j - 1];
			recs[j - 1] = x;
		}
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 10000;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, 64);
	CU_ASSERT_EQUAL(res->txns, 16);
	/* a transaction: 4 x (10 us + 20 us think) - the last think = 100 us */
	CU_ASSERT_EQUAL(res->txn_lat.p50, 4 * 10000 + 3 * 20000);
	CU_ASSERT_EQUAL(res->rec_txn_lat.p50, 3 * 120000 + 100000);
	tps_fast = (double)res->txns * 1e9 / (double)res->elapsed_ns;
	rpl_run_free(r);

	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 400000;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->txns, 16);
	CU_ASSERT_EQUAL(res->txn_lat.p50, 4 * 400000 + 3 * 20000);
	tps_slow = (double)res->txns * 1e9 / (double)res->elapsed_ns;
	CU_ASSERT(tps_fast > 2 * tps_slow);
	rpl_run_free(r);

	/* --txn-per: no ids, every 2 I/Os of a stream */
	for (size_t i = 0; i < n; i++)
		recs[i].txn = 0;
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 10000;
	o.txn_per = 2;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->txns, 32);
	CU_ASSERT_EQUAL(res->txn_lat.p50, 2 * 10000 + 20000);
	rpl_run_free(r);
}

/*
 * Serial commits: two streams committing on one device (write, then flush),
 * serialized in the recording: stream 2's write waited 1.5 ms for stream
 * 1's commit, stream 1's second write 2 ms for stream 2's.  Replayed at
 * 100 us per I/O the waits shrink to what the replayed commits take, and a
 * stream ready while another commits waits for it.
 */
static void test_closed_serial_commits(void)
{
	const uint64_t us = 1000;
	struct ist_record recs[] = {
		mkrec(0, IST_OP_WRITE, 0, 4096, 1000 * us, 1, 1),          /* 0 */
		mkrec(0, IST_OP_READ, 65536, 4096, 500 * us, 2, 1),        /* 1 */
		mkrec(1000 * us, IST_OP_FLUSH, 0, 0, 1000 * us, 1, 1),     /* 2 */
		mkrec(2050 * us, IST_OP_WRITE, 4096, 4096, 1000 * us, 2, 1), /* 3 */
		mkrec(3050 * us, IST_OP_FLUSH, 0, 0, 1000 * us, 2, 1),     /* 4 */
		mkrec(4200 * us, IST_OP_WRITE, 8192, 4096, 1000 * us, 1, 2), /* 5 */
		mkrec(5200 * us, IST_OP_FLUSH, 0, 0, 1000 * us, 1, 2),     /* 6 */
	};
	const size_t n = sizeof(recs) / sizeof(recs[0]);
	const struct rpl_result *res;
	struct rpl_opts o;
	rpl_run *r;

	for (size_t i = 2; i < n; i++)
		recs[i].flags = IST_F_DEPENDENT;
	recs[2].flags |= IST_F_COMMIT;
	recs[4].flags |= IST_F_COMMIT;
	recs[6].flags |= IST_F_COMMIT;

	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 100 * us;
	o.serial_commits = 1;
	o.txn_latency_cycle = 1;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, n);
	CU_ASSERT_EQUAL(res->txns, 3);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 100 * us);
	/* stream 2: ready at 100 + 50 us (think 1550 less 1500 waited), but
	 * stream 1 commits until 200 us */
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 200 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 300 * us);
	/* stream 1: 200 us + think 2200 less 2000 waited = 400 us, when
	 * stream 2's commit ends */
	CU_ASSERT_EQUAL(find_seq(&evl, 5)->issue_ns, 400 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 6)->issue_ns, 500 * us);
	/* cycle latency: stream 1's second transaction from 200 to 600 us;
	 * its rate: one transaction per 400 us (stream 2 has only one) */
	CU_ASSERT_EQUAL(res->txn_lat.max, 400 * us);
	CU_ASSERT_EQUAL(res->txn_lat.p50, 400 * us); /* 200, 400, 400 */
	/* recorded: stream 1's second from 2 ms to 6.2 ms */
	CU_ASSERT_EQUAL(res->rec_txn_lat.max, 4200 * us);
	CU_ASSERT(res->tps_streams > 2499 && res->tps_streams < 2501);
	rpl_run_free(r);

	/* without: the recorded think times (waits included) are replayed */
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 100 * us;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 100 * us + 1550 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 5)->issue_ns, 200 * us + 2200 * us);
	/* latency from the first I/O: stream 2's read at 0 to its flush's end */
	CU_ASSERT_EQUAL(res->txn_lat.max, 1850 * us);
	rpl_run_free(r);
}

/*
 * --commit-groups: 4 streams committing (a write of 10 us, then a flush
 * of 10 us, the commit) once per ms in the recording, 200 us apart, 10
 * cycles each; each gap from a commit to the next write is 980 us, of
 * which the three others held the lock 60 us: 920 us of think time.
 */
enum { GC_NS = 4, GC_NK = 10 };

static size_t gc_trace(struct ist_record *recs)
{
	const uint64_t us = 1000;
	size_t n = 0;

	for (uint64_t c = 0; c < GC_NK; c++)
		for (uint64_t s = 1; s <= GC_NS; s++) {
			uint64_t t = c * 1000 * us + (s - 1) * 200 * us;

			recs[n] = mkrec(t, IST_OP_WRITE, (c * GC_NS + s) * 4096, 4096, 10 * us, s,
					c + 1);
			recs[n].flags = c ? IST_F_DEPENDENT : 0;
			n++;
			recs[n] = mkrec(t + 10 * us, IST_OP_FLUSH, 0, 0, 10 * us, s, c + 1);
			recs[n].flags = IST_F_DEPENDENT | IST_F_COMMIT;
			n++;
		}
	return n;
}

/* The issue time of stream s's write of cycle c (txn c + 1), or -1. */
static int64_t gc_write_at(const struct evlog *l, uint64_t s, uint64_t c)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->rec[i].stream == s && l->rec[i].txn == c + 1 &&
		    l->rec[i].op == IST_OP_WRITE)
			return (int64_t)l->ev[i].issue_ns;
	return -1;
}

static size_t gc_count(const struct evlog *l, unsigned op)
{
	size_t k = 0;

	for (size_t i = 0; i < l->n; i++)
		k += l->rec[i].op == op;
	return k;
}

static void test_closed_commit_groups(void)
{
	const uint64_t us = 1000, ms = 1000 * us;
	static struct ist_record recs[GC_NS * GC_NK * 2];
	const size_t n = gc_trace(recs);
	const struct rpl_result *res;
	struct rpl_opts o;
	rpl_run *r;

	/* fast target (10 us an I/O): a stream's cycle is 20 us of commit and
	 * 920 us of think, the streams' commits 200 us apart never meet: no
	 * group, a write and a flush per transaction */
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 10 * us;
	o.serial_commits = 1;
	o.commit_groups = 1;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, n);
	CU_ASSERT_EQUAL(res->txns, GC_NS * GC_NK);
	CU_ASSERT_EQUAL(res->commits_joined, 0);
	CU_ASSERT_EQUAL(res->commit_groups, 0);
	CU_ASSERT_EQUAL(gc_count(&evl, IST_OP_FLUSH), GC_NS * GC_NK);
	for (uint64_t s = 1; s <= GC_NS; s++)
		for (uint64_t c = 0; c < GC_NK; c++)
			CU_ASSERT_EQUAL(gc_write_at(&evl, s, c),
					(int64_t)((s - 1) * 200 * us + c * 940 * us));
	rpl_run_free(r);

	/* slow target (1 ms an I/O): a commit takes 2 ms, longer than the
	 * 920 us of think, so commits wait for the lock.  Stream 1 commits
	 * at 0 - 2 ms; streams 2 - 4 (ready at 0.2, 0.4, 0.6 ms) wait, stream
	 * 2 takes the lock at 2 ms and its write and flush carry 3's and 4's
	 * commits (2 - 4 ms).  Stream 1, ready at 2.92 ms, waited: it commits
	 * alone at 4 - 6 ms; 2 - 4, ready at 4.92 ms while its flush was in
	 * flight, are not carried by it: one of them commits for the three at
	 * 6 - 8 ms, and so on: two groups every 4 ms, 20 writes and 20
	 * flushes for 40 transactions in 40 ms. */
	o.null_latency_ns = 1 * ms;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->txns, GC_NS * GC_NK);
	CU_ASSERT_EQUAL(res->ios, 2 * 2 * GC_NK);
	CU_ASSERT_EQUAL(gc_count(&evl, IST_OP_WRITE), 2 * GC_NK);
	CU_ASSERT_EQUAL(gc_count(&evl, IST_OP_FLUSH), 2 * GC_NK);
	CU_ASSERT_EQUAL(res->commits_joined, 2 * GC_NK);
	CU_ASSERT_EQUAL(res->commit_groups, GC_NK);
	CU_ASSERT_EQUAL(res->elapsed_ns, 4 * GC_NK * ms);
	/* a rider's transaction: from its commit's readiness to its leader's
	 * flush: at most stream 3's first, 0.4 to 4 ms */
	CU_ASSERT_EQUAL(res->txn_lat.max, 3600 * us);
	for (uint64_t c = 0; c < GC_NK; c++) {
		unsigned writers = 0;

		CU_ASSERT_EQUAL(gc_write_at(&evl, 1, c), (int64_t)(4 * c * ms));
		for (uint64_t s = 2; s <= GC_NS; s++) {
			int64_t t = gc_write_at(&evl, s, c);

			if (t >= 0) {
				CU_ASSERT_EQUAL(t, (int64_t)((4 * c + 2) * ms));
				writers++;
			}
		}
		CU_ASSERT_EQUAL(writers, 1);
	}
	rpl_run_free(r);

	/* without the groups: each commit its own write and flush, one at a
	 * time: 40 commits of 2 ms */
	o.commit_groups = 0;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->txns, GC_NS * GC_NK);
	CU_ASSERT_EQUAL(res->ios, n);
	CU_ASSERT_EQUAL(res->commits_joined, 0);
	CU_ASSERT_EQUAL(res->elapsed_ns, 2 * GC_NS * GC_NK * ms);
	rpl_run_free(r);
}

/* Writes text to a temporary file; its name in path (unlink after). */
static void write_tmp(char *path, const char *text)
{
	int fd;

	strcpy(path, "/tmp/test_replay_schedXXXXXX");
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

/*
 * A group commit's wait before an I/O that takes no lock: stream 1 commits
 * (write, flush: 0 to 2 ms); stream 2 read at 0 (100 us), slept while
 * stream 1 held the lock (its commit made durable by stream 1's flush,
 * without an I/O of its own), then ran 100 us on a CPU and read again at
 * 2.1 ms.  With --serial-commits --cpus the 1.9 ms of lock held by
 * stream 1 is taken out of that read's think time; without --cpus the
 * think time is kept as recorded.
 */
static void test_closed_group_commit_wait(void)
{
	const uint64_t us = 1000;
	struct ist_record recs[] = {
		mkrec(0, IST_OP_WRITE, 0, 4096, 1000 * us, 1, 1),      /* 0 */
		mkrec(0, IST_OP_READ, 65536, 4096, 100 * us, 2, 1),    /* 1 */
		mkrec(1000 * us, IST_OP_FLUSH, 0, 0, 1000 * us, 1, 1), /* 2 */
		mkrec(2100 * us, IST_OP_READ, 131072, 4096, 100 * us, 2, 2), /* 3 */
	};
	const size_t n = sizeof(recs) / sizeof(recs[0]);
	const struct rpl_result *res;
	struct rpl_opts o;
	char path[64];
	rpl_run *r;

	recs[2].flags = IST_F_DEPENDENT | IST_F_COMMIT;
	recs[3].flags = IST_F_DEPENDENT;
	write_tmp(path, "# iostorm-sched 1 runq cpu\nc 2 2000000 2100000\n");
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 100 * us;
	o.serial_commits = 1;
	o.think_sched = path;
	o.cpus = 1;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, n);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 100 * us);
	/* 100 us on the CPU from the read's completion, no sleep left */
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 200 * us);
	rpl_run_free(r);

	/* without --cpus the sleep is kept (the remainder is not all sleep) */
	o.cpus = 0;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 100 * us + 2000 * us);
	rpl_run_free(r);

	/* nor without --serial-commits: the CPU, then the recorded sleep */
	o.cpus = 1;
	o.serial_commits = 0;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 200 * us + 1900 * us);
	rpl_run_free(r);
	unlink(path);
}

/*
 * --commit-groups: the lock others held while a stream was busy is no lock
 * wait (when a commit is ready decides the groups): stream 1
 * commits from 0 to 2 ms; stream 2 read at 0 (100 us), then ran 1 ms on a
 * CPU (100 to 1100 us) and slept until its write at 2.1 ms.  Of the 1.9 ms
 * that stream 1 held the lock in that gap, 1 ms were stream 2's CPU time:
 * its lock wait is 0.9 ms, and 100 us of sleep are left (they were taken
 * out with the CPU time before: the write came at the CPU's end).
 */
static void test_closed_lock_wait_sleeps(void)
{
	const uint64_t us = 1000;
	struct ist_record recs[] = {
		mkrec(0, IST_OP_WRITE, 0, 4096, 1000 * us, 1, 1),          /* 0 */
		mkrec(0, IST_OP_READ, 65536, 4096, 100 * us, 2, 1),        /* 1 */
		mkrec(1000 * us, IST_OP_FLUSH, 0, 0, 1000 * us, 1, 1),     /* 2 */
		mkrec(2100 * us, IST_OP_WRITE, 4096, 4096, 100 * us, 2, 1), /* 3 */
		mkrec(2200 * us, IST_OP_FLUSH, 0, 0, 100 * us, 2, 1),      /* 4 */
	};
	const size_t n = sizeof(recs) / sizeof(recs[0]);
	struct rpl_opts o;
	char path[64];
	rpl_run *r;

	for (size_t i = 2; i < n; i++)
		recs[i].flags = IST_F_DEPENDENT;
	recs[2].flags |= IST_F_COMMIT;
	recs[4].flags |= IST_F_COMMIT;
	write_tmp(path, "# iostorm-sched 3 runq cpu runtime\nc 2 100000 1100000 1000000\n");
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 100 * us;
	o.serial_commits = 1;
	o.commit_groups = 1;
	o.think_sched = path;
	o.cpus = 1;
	run_null(&o, recs, n, &evl, &r);
	/* the read's end, 1 ms on the CPU, 100 us asleep */
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 1200 * us);
	rpl_run_free(r);
	/* without --commit-groups as before: the CPU's end */
	o.commit_groups = 0;
	run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 1100 * us);
	rpl_run_free(r);
	unlink(path);
}

/*
 * --commit-groups --think-sched: a commit woken by another's commit.
 * Stream 2 commits (write at 0, flush at 100 us, 100 us each), runs 100 us
 * on a CPU, sleeps while stream 1 holds the lock (300 us to 2.3 ms: its
 * write and flush of 1 ms each), is woken at stream 1's flush completion,
 * runs 100 us, waits for its client (200 us, 50 us of the client's CPU),
 * runs 100 us and commits again at 2.7 ms: in PostgreSQL a commit that
 * stream 1's flush made durable, then its next transaction.  On the null
 * back-end at 1 ms an I/O: stream 2 commits 0 - 2 ms; stream 1 (recorded
 * at 300 us) takes the lock at 2 ms, while stream 2 runs its 100 us
 * before the sleep, and holds it until 4 ms.  Stream 2's think time (lock
 * wait out) is 350 us of CPU from 2 ms, ready at 2.35 ms: without the rule
 * it commits at the release, 4 ms; with it, it sleeps until the release
 * and runs its 250 us after the wake-up first: 4.25 ms.
 */
static void test_closed_woken_commit(void)
{
	const uint64_t us = 1000;
	struct ist_record recs[] = {
		mkrec(0, IST_OP_WRITE, 0, 4096, 100 * us, 2, 1),           /* 0 */
		mkrec(100 * us, IST_OP_FLUSH, 0, 0, 100 * us, 2, 1),       /* 1 */
		mkrec(300 * us, IST_OP_WRITE, 4096, 4096, 1000 * us, 1, 1), /* 2 */
		mkrec(1300 * us, IST_OP_FLUSH, 0, 0, 1000 * us, 1, 1),     /* 3 */
		mkrec(2700 * us, IST_OP_WRITE, 8192, 4096, 100 * us, 2, 2), /* 4 */
		mkrec(2800 * us, IST_OP_FLUSH, 0, 0, 100 * us, 2, 2),      /* 5 */
	};
	const size_t n = sizeof(recs) / sizeof(recs[0]);
	const struct rpl_result *res;
	struct rpl_opts o;
	char path[64];
	rpl_run *r;

	recs[1].flags = recs[3].flags = recs[5].flags = IST_F_DEPENDENT | IST_F_COMMIT;
	recs[4].flags = IST_F_DEPENDENT;
	write_tmp(path, "# iostorm-sched 2 runq cpu client\n"
			"c 2 200000 300000\n"
			"c 2 2300000 2400000\n"
			"w 2 2400000 2600000 50000\n"
			"c 2 2600000 2700000\n");
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 1000 * us;
	o.serial_commits = 1;
	o.commit_groups = 1;
	o.think_sched = path;
	o.cpus = 1;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, n);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 2000 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 3000 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 4250 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 5)->issue_ns, 5250 * us);
	CU_ASSERT_EQUAL(res->commits_after_release, 1);
	CU_ASSERT_EQUAL(res->commits_joined, 0);
	rpl_run_free(r);

	/* without --commit-groups: at the release */
	o.commit_groups = 0;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 4000 * us);
	CU_ASSERT_EQUAL(res->commits_after_release, 0);
	rpl_run_free(r);
	unlink(path);

	/* no wait for the client after the wake-up: not such a commit, at
	 * the release (its 500 us of CPU served from 2 ms) */
	write_tmp(path, "# iostorm-sched 2 runq cpu client\n"
			"c 2 200000 300000\n"
			"c 2 2300000 2700000\n");
	o.commit_groups = 1;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 4000 * us);
	CU_ASSERT_EQUAL(res->commits_after_release, 0);
	rpl_run_free(r);
	unlink(path);

	/* a fast target (10 us an I/O): stream 1 takes the lock at 300 us,
	 * after stream 2 passed its sleep (at 20 us + 100 us of CPU): no
	 * wait; stream 2 is ready at its think time's end, 20 + 350 us, when
	 * stream 1's commit (300 - 320 us) is over */
	write_tmp(path, "# iostorm-sched 2 runq cpu client\n"
			"c 2 200000 300000\n"
			"c 2 2300000 2400000\n"
			"w 2 2400000 2600000 50000\n"
			"c 2 2600000 2700000\n");
	o.null_latency_ns = 10 * us;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 300 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 370 * us);
	CU_ASSERT_EQUAL(res->commits_after_release, 0);
	rpl_run_free(r);

	/* the same gap before reads, not a commit: at its think time's end
	 * (350 us of CPU from 2 ms), not held until stream 1's release */
	recs[4].op = recs[5].op = IST_OP_READ;
	recs[5].flags = IST_F_DEPENDENT;
	recs[5].len = 4096;
	o.null_latency_ns = 1000 * us;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 2350 * us);
	CU_ASSERT_EQUAL(res->commits_after_release, 0);
	rpl_run_free(r);
	unlink(path);
}

/*
 * --lock-handover: in the recording (1 us = 1000 ns; every I/O 100 us,
 * reads 50 us) stream 1 commits (write at 0, flush at 100: its section
 * 0 - 200 us); streams 2 and 3 read at 0 and slept while the lock was
 * held: stream 2 wrote at 350, 150 us after stream 1's release, on a CPU
 * from 300, stream 3 at 700, 150 us after stream 2's section (350 - 550)
 * ended, on a CPU from 650: two handovers of 100 us (150 less the 50 on a
 * CPU), the median 100 us.  On the null back-end at 1 ms an I/O: stream
 * 1 holds the lock 0 - 2 ms; stream 2 (ready at 1.15 ms: think 300 less
 * 150 of lock wait) and stream 3 (1.3 ms) wait; stream 2 takes it at the release plus
 * the handover, 2.1 ms (without: 2 ms), and carries stream 3's commit.
 * With stream 4, on a CPU from its read's end to its write at 1.1 ms (no
 * lock wait, no handover), ready at 2.05 ms: during the handover it takes
 * the free lock and carries both waiters: 2 writes and 2 flushes in
 * 4.05 ms; without the handover stream 2 carries stream 3 from 2 ms and
 * stream 4 commits alone after it, 6 ms.  A stream busy at the release
 * (stream 3 on a CPU from 500 us) is no handover: one recorded; nor is
 * a stream its client woke between the release and its write.
 */
static void test_closed_lock_handover(void)
{
	const uint64_t us = 1000, ms = 1000 * us;
	struct ist_record recs[] = {
		mkrec(0, IST_OP_WRITE, 0, 4096, 100 * us, 1, 1),          /* 0 */
		mkrec(0, IST_OP_READ, 65536, 4096, 50 * us, 2, 1),        /* 1 */
		mkrec(0, IST_OP_READ, 131072, 4096, 50 * us, 3, 1),       /* 2 */
		mkrec(0, IST_OP_READ, 196608, 4096, 50 * us, 4, 1),       /* 3 */
		mkrec(100 * us, IST_OP_FLUSH, 0, 0, 100 * us, 1, 1),      /* 4 */
		mkrec(350 * us, IST_OP_WRITE, 4096, 4096, 100 * us, 2, 1), /* 5 */
		mkrec(450 * us, IST_OP_FLUSH, 0, 0, 100 * us, 2, 1),      /* 6 */
		mkrec(700 * us, IST_OP_WRITE, 8192, 4096, 100 * us, 3, 1), /* 7 */
		mkrec(800 * us, IST_OP_FLUSH, 0, 0, 100 * us, 3, 1),      /* 8 */
		mkrec(1100 * us, IST_OP_WRITE, 12288, 4096, 100 * us, 4, 1), /* 9 */
		mkrec(1200 * us, IST_OP_FLUSH, 0, 0, 100 * us, 4, 1),     /* 10 */
	};
	const size_t n = sizeof(recs) / sizeof(recs[0]);
	/* sidecars of stream 3 around stream 2's release, and the
	 * handovers they give (the last part below) */
	static const struct {
		const char *sidecar;
		unsigned samples;
	} sc[] = {
		{ "# iostorm-sched 1 runq cpu\nc 2 300000 350000\nc 3 500000 700000\n", 1 },
		{ "# iostorm-sched 2 runq cpu client\nc 2 300000 350000\n"
		  "w 3 560000 640000 20000\nc 3 650000 700000\n", 1 },
		{ "# iostorm-sched 2 runq cpu client\nc 2 300000 350000\n"
		  "w 3 400000 500000 20000\nc 3 650000 700000\n", 2 },
	};
	struct ist_record three[9];
	size_t n3 = 0;
	const struct rpl_result *res;
	struct rpl_opts o;
	char path[64], busy[64];
	rpl_run *r;

	for (size_t i = 4; i < n; i++)
		recs[i].flags = IST_F_DEPENDENT;
	recs[4].flags |= IST_F_COMMIT;
	recs[6].flags |= IST_F_COMMIT;
	recs[8].flags |= IST_F_COMMIT;
	recs[10].flags |= IST_F_COMMIT;
	for (size_t i = 0; i < n; i++)
		if (recs[i].stream != 4)
			three[n3++] = recs[i];
	write_tmp(path, "# iostorm-sched 1 runq cpu\nc 2 300000 350000\nc 3 650000 700000\n"
		  "c 4 50000 1100000\n");
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 1 * ms;
	o.serial_commits = 1;
	o.commit_groups = 1;
	o.think_sched = path;
	o.lock_handover = 1;
	/* streams 1 - 3 (seq: the index in three[]) */
	res = run_null(&o, three, n3, &evl, &r);
	CU_ASSERT_EQUAL(res->txns, 3);
	CU_ASSERT_EQUAL(res->handover_samples, 2);
	CU_ASSERT_EQUAL(res->handovers, 1);
	CU_ASSERT_EQUAL(res->handover_ns, 100 * us);
	CU_ASSERT_EQUAL(res->commits_joined, 1);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 2100 * us); /* stream 2's write */
	CU_ASSERT_PTR_NULL(find_seq(&evl, 6));                  /* stream 3's rides */
	CU_ASSERT_EQUAL(res->elapsed_ns, 4100 * us);
	rpl_run_free(r);
	o.lock_handover = 0;
	res = run_null(&o, three, n3, &evl, &r);
	CU_ASSERT_EQUAL(res->handovers, 0);
	CU_ASSERT_EQUAL(res->commits_joined, 1);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 2000 * us);
	CU_ASSERT_EQUAL(res->elapsed_ns, 4000 * us);
	rpl_run_free(r);

	/* with stream 4 */
	o.lock_handover = 1;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->txns, 4);
	CU_ASSERT_EQUAL(res->handover_samples, 2);
	CU_ASSERT_EQUAL(res->commits_joined, 2);
	CU_ASSERT_EQUAL(gc_count(&evl, IST_OP_WRITE), 2);
	CU_ASSERT_EQUAL(gc_count(&evl, IST_OP_FLUSH), 2);
	CU_ASSERT_EQUAL(find_seq(&evl, 9)->issue_ns, 2050 * us); /* stream 4's write */
	CU_ASSERT_PTR_NULL(find_seq(&evl, 5));
	CU_ASSERT_PTR_NULL(find_seq(&evl, 7));
	CU_ASSERT_EQUAL(res->elapsed_ns, 4050 * us);
	rpl_run_free(r);
	o.lock_handover = 0;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->commits_joined, 1);
	CU_ASSERT_EQUAL(gc_count(&evl, IST_OP_WRITE), 3);
	CU_ASSERT_EQUAL(find_seq(&evl, 5)->issue_ns, 2000 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 9)->issue_ns, 4000 * us);
	CU_ASSERT_EQUAL(res->elapsed_ns, 6000 * us);
	rpl_run_free(r);

	/* stream 3 busy at stream 2's release (on a CPU from 500 us): not a
	 * handover; nor asleep at the release (550 us) but woken by its
	 * client at 640 us, before its write: a round trip to its client (in
	 * TPC-B a row lock's waiter going on with its transaction); a client
	 * wake-up before the release is one again.  The median stays stream
	 * 2's 100 us. */
	o.think_sched = busy;
	o.lock_handover = 1;
	for (size_t i = 0; i < sizeof(sc) / sizeof(sc[0]); i++) {
		write_tmp(busy, sc[i].sidecar);
		res = run_null(&o, three, n3, &evl, &r);
		CU_ASSERT_EQUAL(res->handover_samples, sc[i].samples);
		CU_ASSERT_EQUAL(res->handovers, 1);
		CU_ASSERT_EQUAL(res->handover_ns, 100 * us);
		CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 2100 * us);
		rpl_run_free(r);
		unlink(busy);
	}
	unlink(path);
}

/*
 * --holder-waits: a commit that waited for a row another's commit held.
 * Stream 2 commits (write at 0, flush at 100 us, 100 us each), runs 50 us,
 * sleeps from 250 us; stream 1 commits (write at 300 us, flush at 400 us,
 * 100 us each), runs 500-600 us and wakes stream 2 at 520 us (runnable
 * until 600 us: one CPU); stream 2 runs 100 us, waits 100 us for its
 * client (50 us of its CPU), runs 50 us and commits at 850 us.  Stream
 * 2's think time: 200 us on the CPU, 50 us of the client's, 70 us asleep
 * (the 200 us of stream 1's lock taken out); after the wake-up 200 us of
 * CPU.  Fast target (10 us an I/O): stream 2's first commit 0 - 20 us,
 * stream 1's (its first I/O, at its recorded 300 us) 300 - 320 us; stream
 * 2 ready at 20 + 250 + 70 = 340 us without the rule (the log lock free
 * then), at 320 + 200 = 520 us with it.  Slow target (1 ms an I/O): stream
 * 1 takes the log lock at 2 ms, completes at 4 ms: 4.2 ms either way (the
 * woken-commit rule's release is that commit's).
 */
static void test_closed_holder_waits(void)
{
	const uint64_t us = 1000;
	struct ist_record recs[] = {
		mkrec(0, IST_OP_WRITE, 0, 4096, 100 * us, 2, 1),           /* 0 */
		mkrec(100 * us, IST_OP_FLUSH, 0, 0, 100 * us, 2, 1),       /* 1 */
		mkrec(300 * us, IST_OP_WRITE, 4096, 4096, 100 * us, 1, 1), /* 2 */
		mkrec(400 * us, IST_OP_FLUSH, 0, 0, 100 * us, 1, 1),       /* 3 */
		mkrec(850 * us, IST_OP_WRITE, 8192, 4096, 100 * us, 2, 2), /* 4 */
		mkrec(950 * us, IST_OP_FLUSH, 0, 0, 100 * us, 2, 2),       /* 5 */
	};
	const size_t n = sizeof(recs) / sizeof(recs[0]);
	const char *sched = "# iostorm-sched 2 runq cpu client\n"
			    "c 2 200000 250000\n"
			    "c 1 250000 300000\n"
			    "c 1 500000 600000\n"
			    "r 2 520000 600000\n"
			    "c 2 600000 700000\n"
			    "w 2 700000 800000 50000\n"
			    "c 2 800000 850000\n";
	const struct rpl_result *res;
	struct rpl_opts o;
	char path[64];
	rpl_run *r;

	recs[1].flags = recs[3].flags = recs[5].flags = IST_F_DEPENDENT | IST_F_COMMIT;
	recs[4].flags = IST_F_DEPENDENT;
	write_tmp(path, sched);
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 10 * us;
	o.serial_commits = 1;
	o.commit_groups = 1;
	o.think_sched = path;
	o.cpus = 1;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, n);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 300 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 340 * us);
	CU_ASSERT_EQUAL(res->holder_marked, 0);
	rpl_run_free(r);

	o.holder_waits = 1;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, n);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 300 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 520 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 5)->issue_ns, 530 * us);
	CU_ASSERT_EQUAL(res->holder_marked, 1);
	CU_ASSERT_EQUAL(res->holder_waited, 1);
	CU_ASSERT_EQUAL(res->commits_after_release, 0);
	rpl_run_free(r);

	/* slow target: stream 1 commits 2 - 4 ms; 4.2 ms with or without */
	o.null_latency_ns = 1000 * us;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 2000 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 4200 * us);
	CU_ASSERT_EQUAL(res->holder_waited, 1);
	CU_ASSERT_EQUAL(res->commits_after_release, 0);
	rpl_run_free(r);
	o.holder_waits = 0;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 4200 * us);
	CU_ASSERT_EQUAL(res->commits_after_release, 1);
	rpl_run_free(r);

	/* the holder's commit over early (stream 1 reads 0 - 10 us on another
	 * device first, runs 50 us, commits 60 - 80 us): stream 2 does not
	 * wait, and the recorded sleep's 70 us left in its think time (its
	 * 270 us less the 200 us of stream 1's lock) are out of it, redone by
	 * the wait: its CPU served 60 - 310 us (the CPU's queue), ready at 310
	 * us, not 380 */
	{
		struct ist_record e[] = {
			recs[0], mkrec(0, IST_OP_READ, 0, 4096, 250 * us, 1, 1), recs[1],
			recs[2], recs[3], recs[4], recs[5],
		};

		e[1].dev = 1;
		e[3].flags = IST_F_DEPENDENT;
		o.holder_waits = 1;
		o.null_latency_ns = 10 * us;
		res = run_null(&o, e, n + 1, &evl, &r);
		CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 60 * us);
		CU_ASSERT_EQUAL(find_seq(&evl, 5)->issue_ns, 310 * us);
		CU_ASSERT_EQUAL(res->holder_marked, 1);
		CU_ASSERT_EQUAL(res->holder_waited, 0);
		rpl_run_free(r);
		o.holder_waits = 0;
		res = run_null(&o, e, n + 1, &evl, &r);
		CU_ASSERT_EQUAL(find_seq(&evl, 5)->issue_ns, 380 * us);
		rpl_run_free(r);
		o.holder_waits = 1;
	}
	unlink(path);

	/* stream 1 not on a CPU at the wake-up: no holder known, not marked */
	write_tmp(path, "# iostorm-sched 2 runq cpu client\n"
			"c 2 200000 250000\n"
			"c 1 250000 300000\n"
			"c 1 500000 510000\n"
			"r 2 520000 600000\n"
			"c 2 600000 700000\n"
			"w 2 700000 800000 50000\n"
			"c 2 800000 850000\n");
	o.holder_waits = 1;
	o.null_latency_ns = 10 * us;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 340 * us);
	CU_ASSERT_EQUAL(res->holder_marked, 0);
	CU_ASSERT_EQUAL(res->holder_waited, 0);
	rpl_run_free(r);
	unlink(path);

	/* four waits for the client after the wake-up (a commit another's
	 * flush carried, then the next transaction): not marked; three are */
	write_tmp(path, "# iostorm-sched 2 runq cpu client\n"
			"c 2 200000 250000\n"
			"c 1 250000 300000\n"
			"c 1 500000 600000\n"
			"r 2 520000 600000\n"
			"c 2 600000 620000\n"
			"w 2 620000 640000 0\n"
			"c 2 640000 660000\n"
			"w 2 660000 680000 0\n"
			"c 2 680000 700000\n"
			"w 2 700000 720000 0\n"
			"c 2 720000 740000\n"
			"w 2 740000 800000 50000\n"
			"c 2 800000 850000\n");
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->holder_marked, 0);
	rpl_run_free(r);
	unlink(path);
	write_tmp(path, "# iostorm-sched 2 runq cpu client\n"
			"c 2 200000 250000\n"
			"c 1 250000 300000\n"
			"c 1 500000 600000\n"
			"r 2 520000 600000\n"
			"c 2 600000 640000\n"
			"w 2 640000 660000 0\n"
			"c 2 660000 700000\n"
			"w 2 700000 720000 0\n"
			"c 2 720000 740000\n"
			"w 2 740000 800000 50000\n"
			"c 2 800000 850000\n");
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->holder_marked, 1);
	rpl_run_free(r);
	unlink(path);

	/* no wait for the client after the wake-up (the log lock's wait, then
	 * its own write): not marked; ready at its think time's end, 20 us +
	 * 300 us of CPU + 70 us asleep */
	write_tmp(path, "# iostorm-sched 2 runq cpu client\n"
			"c 2 200000 250000\n"
			"c 1 250000 300000\n"
			"c 1 500000 600000\n"
			"r 2 520000 600000\n"
			"c 2 600000 850000\n");
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->holder_marked, 0);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 390 * us);
	rpl_run_free(r);
	unlink(path);
}

/*
 * Closed loop: a stream whose records carry "dependent" flags and has one
 * without the flag recorded before the previous one (annotate's inserted
 * commits can be out of time order): it is issued at once after the
 * previous one's issue.  The recorded distance had wrapped around to a
 * deadline never reached: the stream stalled, the rest not replayed.
 */
static void test_closed_out_of_order(void)
{
	const uint64_t us = 1000;
	struct ist_record recs[] = {
		mkrec(0, IST_OP_WRITE, 0, 4096, 100 * us, 1, 1),
		mkrec(500 * us, IST_OP_WRITE, 4096, 4096, 100 * us, 1, 2),
		mkrec(400 * us, IST_OP_WRITE, 8192, 4096, 1, 1, 3),
		mkrec(700 * us, IST_OP_WRITE, 12288, 4096, 100 * us, 1, 4),
	};
	const size_t n = sizeof(recs) / sizeof(recs[0]);
	const struct rpl_result *res;
	struct rpl_opts o;
	rpl_run *r;

	recs[1].flags = recs[3].flags = IST_F_DEPENDENT;
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 10 * us;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->ios, n);
	/* 0 - 10 us; 400 us of think: 410 - 420 us; at once: 410 us; the
	 * last after both completed (420 us) and its 100 us of think (from
	 * the latest recorded completion, 600 us) */
	CU_ASSERT_EQUAL(find_seq(&evl, 1)->issue_ns, 410 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 410 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 520 * us);
	rpl_run_free(r);
}

/*
 * --cpus: 4 streams, each a 100 us read then 1 ms of think time (CPU ms of
 * it on a CPU, the rest asleep), 40 times.  Unlimited: each stream at its
 * own pace, 1 / 1.01 ms; on N CPUs the streams' CPU time queues.
 */
static const struct rpl_result *run_cpus(unsigned cpus, uint64_t cpu_us, rpl_run **r)
{
	enum { NS = 4, NK = 40 };
	const uint64_t us = 1000;
	static struct ist_record recs[NS * NK];
	static char text[NS * NK * 48 + 64];
	size_t n = 0, len;
	struct rpl_opts o;
	char path[64];
	const struct rpl_result *res;

	len = (size_t)snprintf(text, sizeof(text), "# iostorm-sched 1 runq cpu\n");
	for (unsigned k = 0; k < NK; k++) {
		for (unsigned i = 1; i <= NS; i++) {
			uint64_t t = k * 1100 * us + i * us;

			recs[n] = mkrec(t, IST_OP_READ, n * 4096, 4096, 100 * us, i, k + 1);
			recs[n++].flags = k ? IST_F_DEPENDENT : 0;
			if (k + 1 < NK)
				len += (size_t)snprintf(text + len, sizeof(text) - len,
							"c %u %" PRIu64 " %" PRIu64 "\n", i,
							t + 100 * us, t + (100 + cpu_us) * us);
		}
	}
	write_tmp(path, text);
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 10 * us;
	o.think_sched = path;
	o.cpus = cpus;
	res = run_null(&o, recs, n, &evl, r);
	unlink(path);
	return res;
}

static void test_closed_cpus(void)
{
	const struct rpl_result *res;
	struct rpl_source *src;
	struct ist_record rec = mkrec(0, IST_OP_READ, 0, 4096, 100000, 1, 1);
	struct rpl_opts o;
	char path[64];
	double unl;
	rpl_run *r;

	/* all 1 ms on a CPU: 4 x 990 TPS unlimited, a quarter on one CPU */
	res = run_cpus(0, 1000, &r);
	unl = res->tps_streams;
	CU_ASSERT(unl > 3900 && unl < 4000);
	rpl_run_free(r);
	res = run_cpus(4, 1000, &r);
	CU_ASSERT(res->tps_streams > 0.98 * unl && res->tps_streams < 1.02 * unl);
	rpl_run_free(r);
	res = run_cpus(1, 1000, &r);
	CU_ASSERT(res->tps_streams > 0.23 * unl && res->tps_streams < 0.26 * unl);
	rpl_run_free(r);
	res = run_cpus(2, 1000, &r);
	CU_ASSERT(res->tps_streams > 0.47 * unl && res->tps_streams < 0.52 * unl);
	rpl_run_free(r);
	/* 600 us on a CPU, 400 asleep (in parallel): one CPU, 1 / 600 us */
	res = run_cpus(1, 600, &r);
	CU_ASSERT(res->tps_streams > 1600 && res->tps_streams < 1700);
	rpl_run_free(r);

	/* refusals: --cpus without a sidecar, a sidecar without "c" lines */
	rpl_opts_init(&o);
	o.backend = RPL_BACKEND_NULL;
	o.timing = RPL_TIMING_CLOSED;
	o.cpus = 1;
	CU_ASSERT_FATAL(rpl_source_array(&src, &rec, 1, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == -EINVAL);
	CU_ASSERT(strstr(rpl_run_errmsg(r), "--think-sched") != NULL);
	rpl_run_free(r);
	write_tmp(path, "# iostorm-sched 1 runq\n1 200 300\n");
	o.think_sched = path;
	CU_ASSERT_FATAL(rpl_source_array(&src, &rec, 1, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == IST_EPARSE);
	CU_ASSERT(strstr(rpl_run_errmsg(r), "no on-CPU intervals") != NULL);
	rpl_run_free(r);
	unlink(path);
}

/*
 * --cpus with the sleeps a client ended ("w" lines, sidecar version 2):
 * replaced by the client's CPU time on the same virtual CPUs.  Stream 1:
 * A at 0 (lat 100 us), B at 1000 us; its gap [100, 1000): 100 us on a CPU,
 * then asleep until the client woke it (800 us; the client's CPU for it
 * 300 us).  Stream 2: D at 50 us, E at 1000 us; gap [150, 1000): 50 us on
 * a CPU, asleep 800 us (client 100 us).  Null latency 10 us.
 */
static void run_client_scaled(const char *text, unsigned cpus, double cpu_scale,
			      uint64_t *b, uint64_t *e)
{
	const uint64_t us = 1000;
	struct ist_record recs[] = {
		mkrec(0, IST_OP_READ, 0, 4096, 100 * us, 1, 0),
		mkrec(50 * us, IST_OP_READ, 8192, 4096, 100 * us, 2, 0),
		mkrec(1000 * us, IST_OP_READ, 4096, 4096, 100 * us, 1, 0),
		mkrec(1000 * us, IST_OP_READ, 12288, 4096, 100 * us, 2, 0),
	};
	struct rpl_opts o;
	char path[64];
	rpl_run *r;

	recs[2].flags = recs[3].flags = IST_F_DEPENDENT;
	write_tmp(path, text);
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 10 * us;
	o.think_sched = path;
	o.cpus = cpus;
	o.cpu_scale = cpu_scale;
	run_null(&o, recs, 4, &evl, &r);
	*b = find_seq(&evl, 2)->issue_ns;
	*e = find_seq(&evl, 3)->issue_ns;
	rpl_run_free(r);
	unlink(path);
}

static void run_client(const char *text, unsigned cpus, uint64_t *b, uint64_t *e)
{
	run_client_scaled(text, cpus, 1.0, b, e);
}

/*
 * --cpu-queue burst: each on-CPU interval and each client's CPU time for a
 * round trip queues for the virtual CPUs on its own.  Streams 1 and 2
 * read at 0 and 5 us (100 us recorded), then, each: 100 us on a CPU, a
 * round trip to its client (700 us asleep, 50 us of the client's CPU), 100
 * us on a CPU, and their next read at 1000 and 1005 us; no think time is
 * left besides.  Null latency 10 us: they drain at 10 and 15 us.  One CPU,
 * a gap at once: stream 1's 250 us 10 - 260, stream 2's 260 - 510.  Burst
 * by burst, in the order they are asked for: 1: 10 - 110, 2: 110 - 210,
 * 1 (client): 210 - 260, 2: 260 - 310, 1: 310 - 410, 2: 410 - 510; stream
 * 1 issues at 410 us, stream 2 at 510.  Two CPUs: no queue either way
 * (260, 265 us).
 */
static void run_bursts(int bursts, unsigned cpus, double think_scale, double cpu_scale,
		       uint64_t *i1, uint64_t *i2, const struct rpl_result **resp, rpl_run **r)
{
	const uint64_t us = 1000;
	struct ist_record recs[] = {
		mkrec(0, IST_OP_READ, 0, 4096, 100 * us, 1, 1),
		mkrec(5 * us, IST_OP_READ, 8192, 4096, 100 * us, 2, 1),
		mkrec(1000 * us, IST_OP_READ, 4096, 4096, 100 * us, 1, 2),
		mkrec(1005 * us, IST_OP_READ, 12288, 4096, 100 * us, 2, 2),
	};
	const char *text = "# iostorm-sched 2 runq cpu client\n"
			   "c 1 100000 200000\n"
			   "c 2 105000 205000\n"
			   "w 1 200000 900000 50000\n"
			   "w 2 205000 905000 50000\n"
			   "c 1 900000 1000000\n"
			   "c 2 905000 1005000\n";
	struct rpl_opts o;
	char path[64];

	recs[2].flags = recs[3].flags = IST_F_DEPENDENT;
	write_tmp(path, text);
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 10 * us;
	o.think_sched = path;
	o.cpus = cpus;
	o.cpu_bursts = bursts;
	o.think_scale = think_scale;
	o.cpu_scale = cpu_scale;
	*resp = run_null(&o, recs, 4, &evl, r);
	CU_ASSERT_EQUAL((*resp)->ios, 4);
	*i1 = find_seq(&evl, 2)->issue_ns;
	*i2 = find_seq(&evl, 3)->issue_ns;
	unlink(path);
}

static void test_closed_cpu_bursts(void)
{
	const uint64_t us = 1000;
	const struct rpl_result *res;
	struct rpl_source *src;
	struct ist_record rec = mkrec(0, IST_OP_READ, 0, 4096, 100000, 1, 1);
	struct rpl_opts o;
	uint64_t a, b;
	rpl_run *r;

	/* one CPU: the gap at once, then burst by burst */
	run_bursts(0, 1, 1.0, 1.0, &a, &b, &res, &r);
	CU_ASSERT_EQUAL(a, 260 * us);
	CU_ASSERT_EQUAL(b, 510 * us);
	CU_ASSERT_EQUAL(res->cpu_wait_ns, 245 * us);
	CU_ASSERT_EQUAL(res->cpu_bursts, 0);
	rpl_run_free(r);
	run_bursts(1, 1, 1.0, 1.0, &a, &b, &res, &r);
	CU_ASSERT_EQUAL(a, 410 * us);
	CU_ASSERT_EQUAL(b, 510 * us);
	/* the waits: 95 + 100 + 50 + 50 + 100 us */
	CU_ASSERT_EQUAL(res->cpu_wait_ns, 395 * us);
	CU_ASSERT_EQUAL(res->cpu_bursts, 6);
	rpl_run_free(r);
	/* two CPUs: no queue, the same either way */
	run_bursts(0, 2, 1.0, 1.0, &a, &b, &res, &r);
	CU_ASSERT_EQUAL(a, 260 * us);
	CU_ASSERT_EQUAL(b, 265 * us);
	rpl_run_free(r);
	run_bursts(1, 2, 1.0, 1.0, &a, &b, &res, &r);
	CU_ASSERT_EQUAL(a, 260 * us);
	CU_ASSERT_EQUAL(b, 265 * us);
	CU_ASSERT_EQUAL(res->cpu_wait_ns, 0);
	rpl_run_free(r);
	/* the scales apply to each burst: --cpu-scale 2 on two CPUs (500 us
	 * each); --think-scale 0.5 on one: 1: 10 - 60, 2: 60 - 110, 1: 110 -
	 * 135, 2: 135 - 160, 1: 160 - 210, 2: 210 - 260 */
	run_bursts(1, 2, 1.0, 2.0, &a, &b, &res, &r);
	CU_ASSERT_EQUAL(a, 510 * us);
	CU_ASSERT_EQUAL(b, 515 * us);
	rpl_run_free(r);
	run_bursts(1, 1, 0.5, 1.0, &a, &b, &res, &r);
	CU_ASSERT_EQUAL(a, 210 * us);
	CU_ASSERT_EQUAL(b, 260 * us);
	rpl_run_free(r);

	/* refused without --cpus */
	rpl_opts_init(&o);
	o.backend = RPL_BACKEND_NULL;
	o.timing = RPL_TIMING_CLOSED;
	o.cpu_bursts = 1;
	CU_ASSERT_FATAL(rpl_source_array(&src, &rec, 1, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == -EINVAL);
	CU_ASSERT(strstr(rpl_run_errmsg(r), "--cpu-queue burst needs --cpus") != NULL);
	rpl_run_free(r);
}

static void test_closed_client(void)
{
	const uint64_t us = 1000;
	const char *v2 = "# iostorm-sched 2 runq cpu client\n"
			 "c 1 100000 200000\n"
			 "c 2 150000 200000\n"
			 "w 1 200000 1000000 300000\n"
			 "w 2 200000 1000000 100000\n";
	static const char *bad[] = {
		"# iostorm-sched 1 runq cpu\nc 1 1 2\nw 1 200 300 4\n",   /* w in version 1 */
		"# iostorm-sched 2 runq cpu client\nw 1 200 300\n",        /* no CPU time */
		"# iostorm-sched 2 runq cpu client\nw 1 200 300 4 5\n",    /* one too many */
		"# iostorm-sched 2\nw 1 200 300 18446744073709551616\n",   /* 2^64 */
		"# iostorm-sched 2\nw 1 300 200 4\n",                      /* end first */
		"# iostorm-sched 2\nw 1 200 300 -4\n",
		"# iostorm-sched 2\nw1 200 300 4\n",
		"# iostorm-sched 0\n1 2 3\n",
		"# iostorm-sched x\n1 2 3\n",
		"# iostorm-sched2\n1 2 3\n",
	};
	struct ist_record rec = mkrec(0, IST_OP_READ, 0, 4096, 100000, 1, 1);
	struct rpl_source *src;
	struct rpl_opts o;
	char path[64], err[256];
	uint64_t b, e;
	rpl_run *r;

	/* one CPU: stream 1 drains at 10, its 100 + 300 us of CPU end at
	 * 410; stream 2 drains at 60, queues behind: 410 + 50 + 100 */
	run_client(v2, 1, &b, &e);
	CU_ASSERT_EQUAL(b, 410 * us);
	CU_ASSERT_EQUAL(e, 560 * us);
	/* --cpu-scale 0.5: 10 + 200; 60 queued behind it, 210 + 75 */
	run_client_scaled(v2, 1, 0.5, &b, &e);
	CU_ASSERT_EQUAL(b, 210 * us);
	CU_ASSERT_EQUAL(e, 285 * us);
	/* two CPUs: no queue */
	run_client(v2, 2, &b, &e);
	CU_ASSERT_EQUAL(b, 410 * us);
	CU_ASSERT_EQUAL(e, 210 * us);
	/* unlimited: the sleeps are kept (recorded think: 900, 850 us) */
	run_client(v2, 0, &b, &e);
	CU_ASSERT_EQUAL(b, 910 * us);
	CU_ASSERT_EQUAL(e, 910 * us);
	/* without the "w" lines, one CPU: the streams' own CPU queues, the
	 * sleeps are kept: 10 + 100 + 800; 60 + max(0, 110 - 60) + 50 + 800 */
	run_client("# iostorm-sched 1 runq cpu\n"
		   "c 1 100000 200000\nc 2 150000 200000\n", 1, &b, &e);
	CU_ASSERT_EQUAL(b, 910 * us);
	CU_ASSERT_EQUAL(e, 960 * us);
	/* a sleep that began before the gap: the client's CPU in proportion
	 * (from 50 us: 900 of 950 us in the gap, 380 * 900 / 950 = 360 us) */
	run_client("# iostorm-sched 2 runq cpu client\n"
		   "c 2 150000 200000\n"
		   "w 1 50000 1000000 380000\n"
		   "w 2 200000 1000000 100000\n", 1, &b, &e);
	CU_ASSERT_EQUAL(b, 370 * us);
	CU_ASSERT_EQUAL(e, 520 * us);

	/* the check: kinds of lines; refusals name the line */
	write_tmp(path, v2);
	CU_ASSERT_EQUAL(rpl_sched_check(path, err, sizeof(err)),
			RPL_SCHED_HAS_CPU | RPL_SCHED_HAS_CLIENT);
	unlink(path);
	write_tmp(path, "# iostorm-sched 2 runq cpu client\nw 1 5 5 0\n");
	CU_ASSERT_EQUAL(rpl_sched_check(path, err, sizeof(err)), RPL_SCHED_HAS_CLIENT);
	unlink(path);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_tmp(path, bad[i]);
		err[0] = 0;
		CU_ASSERT(rpl_sched_check(path, err, sizeof(err)) == IST_EPARSE);
		CU_ASSERT(strstr(err, i < 7 ? (i ? "line 2" : "line 3") : "line 1") != NULL);
		unlink(path);
	}
	write_tmp(path, "# iostorm-sched 4 runq cpu client more\nx 1 2 3\n");
	CU_ASSERT(rpl_sched_check(path, err, sizeof(err)) == IST_EVERSION);
	CU_ASSERT(strstr(err, "version 4, newer") != NULL);
	unlink(path);
	/* --cpu-scale needs --cpus, and not below 0 */
	rpl_opts_init(&o);
	o.backend = RPL_BACKEND_NULL;
	o.timing = RPL_TIMING_CLOSED;
	o.cpu_scale = 0.5;
	CU_ASSERT_FATAL(rpl_source_array(&src, &rec, 1, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == -EINVAL);
	CU_ASSERT(strstr(rpl_run_errmsg(r), "--cpu-scale needs --cpus") != NULL);
	rpl_run_free(r);
	o.cpu_scale = -1;
	CU_ASSERT_FATAL(rpl_source_array(&src, &rec, 1, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == -EINVAL);
	CU_ASSERT(strstr(rpl_run_errmsg(r), "negative") != NULL);
	rpl_run_free(r);
	/* --cpus needs "c" lines, "w" lines alone are not enough */
	write_tmp(path, "# iostorm-sched 2 runq cpu client\nw 1 200 300 4\n");
	rpl_opts_init(&o);
	o.backend = RPL_BACKEND_NULL;
	o.timing = RPL_TIMING_CLOSED;
	o.think_sched = path;
	o.cpus = 1;
	CU_ASSERT_FATAL(rpl_source_array(&src, &rec, 1, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == IST_EPARSE);
	CU_ASSERT(strstr(rpl_run_errmsg(r), "no on-CPU intervals") != NULL);
	rpl_run_free(r);
	unlink(path);
}

/*
 * Sidecar version 3: a "c" line's optional 4th field, the runtime the
 * kernel charged in the interval (steal left out), is the CPU time served
 * on the virtual CPUs; its wall time is still the part of the gap
 * replaced.  The records of run_client.
 */
static void test_closed_runtime(void)
{
	const uint64_t us = 1000;
	const char *v3 = "# iostorm-sched 3 runq cpu client runtime\n"
			 "c 1 100000 200000 60000\n"
			 "c 2 150000 200000 20000\n"
			 "w 1 200000 1000000 300000\n"
			 "w 2 200000 1000000 100000\n";
	static const char *bad[] = {
		"# iostorm-sched 3 runtime\nc 1 200 300 101\n",   /* more than the interval */
		"# iostorm-sched 3 runtime\nc 1 200 300 18446744073709551616\n", /* 2^64 */
		"# iostorm-sched 3 runtime\nc 1 200 300 5 6\n",   /* one too many */
		"# iostorm-sched 3 runtime\nc 1 200 300 -5\n",
		"# iostorm-sched 3 runtime\nc 1 200 300 5x\n",
		"# iostorm-sched 3 runtime\nc 1 300 200 5\n",     /* end first */
		"# iostorm-sched 3 runtime\nr 1 200 300 5\n",     /* only on "c" */
		"# iostorm-sched 3 runtime\n1 200 300 5\n",
		"# iostorm-sched 2 runq cpu client\nc 1 200 300 5\n", /* before version 3 */
		"# iostorm-sched 1 runq cpu\nc 1 200 300 5\n",
	};
	char path[64], err[256];
	uint64_t b, e;

	/* one CPU: stream 1 drains at 10, its 60 + 300 us of CPU end at
	 * 370; stream 2 drains at 60, queues behind: 370 + 20 + 100 */
	run_client(v3, 1, &b, &e);
	CU_ASSERT_EQUAL(b, 370 * us);
	CU_ASSERT_EQUAL(e, 490 * us);
	/* two CPUs: 60 + 20 + 100 */
	run_client(v3, 2, &b, &e);
	CU_ASSERT_EQUAL(b, 370 * us);
	CU_ASSERT_EQUAL(e, 180 * us);
	/* --cpu-scale 0.5 scales the runtime: 10 + 180; 190 + 60 */
	run_client_scaled(v3, 1, 0.5, &b, &e);
	CU_ASSERT_EQUAL(b, 190 * us);
	CU_ASSERT_EQUAL(e, 250 * us);
	/* record --sched's "irq" header word (the runtime less the
	 * interrupts the thread took): the same lines, the same schedule */
	run_client("# iostorm-sched 3 runq cpu client runtime irq\n"
		   "c 1 100000 200000 60000\n"
		   "c 2 150000 200000 20000\n"
		   "w 1 200000 1000000 300000\n"
		   "w 2 200000 1000000 100000\n", 1, &b, &e);
	CU_ASSERT_EQUAL(b, 370 * us);
	CU_ASSERT_EQUAL(e, 490 * us);
	/* version 3 without the field: wall time, as version 2 (410, 560) */
	run_client("# iostorm-sched 3 runq cpu client runtime\n"
		   "c 1 100000 200000\n"
		   "c 2 150000 200000 \n"
		   "w 1 200000 1000000 300000\n"
		   "w 2 200000 1000000 100000\n", 1, &b, &e);
	CU_ASSERT_EQUAL(b, 410 * us);
	CU_ASSERT_EQUAL(e, 560 * us);
	/* an interval that began before the gap: its runtime in proportion
	 * (100 of 150 us in the gap from 100 us: 75 * 100 / 150 = 50 us);
	 * 10 + 50 + 300; 360 + 20 + 100 */
	run_client("# iostorm-sched 3 runq cpu client runtime\n"
		   "c 1 50000 200000 75000\n"
		   "c 2 150000 200000 20000\n"
		   "w 1 200000 1000000 300000\n"
		   "w 2 200000 1000000 100000\n", 1, &b, &e);
	CU_ASSERT_EQUAL(b, 360 * us);
	CU_ASSERT_EQUAL(e, 480 * us);

	write_tmp(path, v3);
	CU_ASSERT_EQUAL(rpl_sched_check(path, err, sizeof(err)),
			RPL_SCHED_HAS_CPU | RPL_SCHED_HAS_CLIENT | RPL_SCHED_HAS_RUNTIME);
	unlink(path);
	/* runtime equal to the interval, or none of it */
	write_tmp(path, "# iostorm-sched 3 runq cpu runtime\nc 1 200 300 100\nc 1 400 500 0\n");
	CU_ASSERT_EQUAL(rpl_sched_check(path, err, sizeof(err)),
			RPL_SCHED_HAS_CPU | RPL_SCHED_HAS_RUNTIME);
	unlink(path);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_tmp(path, bad[i]);
		err[0] = 0;
		CU_ASSERT(rpl_sched_check(path, err, sizeof(err)) == IST_EPARSE);
		CU_ASSERT(strstr(err, "line 2") != NULL);
		CU_ASSERT(strstr(err, i < 8 ? "RUNTIME_NS" : "START_NS END_NS'") != NULL);
		unlink(path);
	}
}

/*
 * --wake-cost: one stream committing alone (write, flush as the commit,
 * write, flush) with --serial-commits on one virtual CPU.  Its sidecar:
 * the flush issued 7 us into the burst after the first write's
 * completion (an I/O wake-up: the sleep began at 5 us, before that
 * completion at 1000 us); in the gap before the second write (from the
 * flush's completion at 2008 to 4200 us): a burst after the flush's
 * completion (an I/O wake-up, 50 us), preempted at its end by stream 9's
 * burst after a wake-up (a preemption by a wake-up), then 5 us more, and
 * a burst after a sleep that began in the gap (another wake-up: a lock's,
 * 30 us).  Null latency 100 us.
 */
static const char wake_sidecar[] =
	"# iostorm-sched 3 runq cpu runtime\n"
	"c 9 0 1000 1000\n"
	"c 1 0 5000 5000\n"
	"r 1 1000000 1001000\n"
	"c 1 1001000 1010000 9000\n"
	"r 1 2008000 2010000\n"
	"r 9 2090000 2100000\n"
	"c 1 2010000 2100000 50000\n"
	"c 9 2100000 2150000 10000\n"
	"r 1 2100000 2150000\n"
	"c 1 2150000 2160000 5000\n"
	"r 1 3000000 3010000\n"
	"c 1 3010000 3100000 30000\n";

static const struct rpl_result *run_wake(const char *text, uint64_t cost, int cost_auto,
					 int sync, rpl_run **r)
{
	const uint64_t us = 1000;
	static struct ist_record recs[4];
	struct rpl_opts o;
	char path[64];
	const struct rpl_result *res;

	recs[0] = mkrec(0, IST_OP_WRITE, 0, 4096, 1000 * us, 1, 1);
	recs[1] = mkrec(1008 * us, IST_OP_FLUSH, 0, 0, 1000 * us, 1, 1);
	recs[2] = mkrec(4200 * us, IST_OP_WRITE, 4096, 4096, 1000 * us, 1, 2);
	recs[3] = mkrec(5200 * us, IST_OP_FLUSH, 0, 0, 1000 * us, 1, 2);
	for (int i = 1; i < 4; i++)
		recs[i].flags = IST_F_DEPENDENT;
	recs[1].flags |= IST_F_COMMIT;
	recs[3].flags |= IST_F_COMMIT;
	write_tmp(path, text);
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 100 * us;
	o.serial_commits = 1;
	o.think_sched = path;
	o.cpus = 1;
	o.wake_cost_ns = cost;
	o.wake_cost_auto = cost_auto;
	o.inline_io = sync ? RPL_INLINE_ALWAYS : RPL_INLINE_AUTO;
	res = run_null(&o, recs, 4, &evl, r);
	unlink(path);
	return res;
}

static void test_closed_wake_cost(void)
{
	const uint64_t us = 1000;
	const struct rpl_result *res;
	struct ist_record rec = mkrec(0, IST_OP_READ, 0, 4096, 100000, 1, 1);
	struct rpl_source *src;
	struct rpl_opts o;
	char path[64];
	rpl_run *r;

	/* without: the flush after 7 us of CPU (the part of the 9 us burst
	 * before its issue, in proportion); the second write after the
	 * flush's end at 207, 85 us of CPU and the sleeps kept (2192 us of
	 * think less 190 on a CPU and 62 runnable: 1940) */
	res = run_wake(wake_sidecar, 0, 0, 1, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 1)->issue_ns, 107 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, (207 + 85 + 1940) * us);
	CU_ASSERT_EQUAL(res->wakes_dropped + res->wakes_kept, 0);
	rpl_run_free(r);
	/* 5 us a wake-up, I/O done in the issuing thread: the flush's I/O
	 * wake-up off (102); the second write's I/O wake-up, the preemption
	 * by stream 9's wake-up and the lock wake-up (no wait: alone) off */
	res = run_wake(wake_sidecar, 5 * us, 0, 1, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 1)->issue_ns, 102 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, (202 + 70 + 1940) * us);
	CU_ASSERT_EQUAL(res->wakes_dropped, 4);
	CU_ASSERT_EQUAL(res->wakes_kept, 0);
	CU_ASSERT_EQUAL(res->wake_cpu_dropped_ns, 20 * us);
	CU_ASSERT_EQUAL(res->wake_cost_ns, 5 * us);
	rpl_run_free(r);
	/* I/O that sleeps (the null device not inline): only the lock's */
	res = run_wake(wake_sidecar, 5 * us, 0, 0, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 1)->issue_ns, 107 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, (207 + 80 + 1940) * us);
	CU_ASSERT_EQUAL(res->wakes_dropped, 1);
	CU_ASSERT_EQUAL(res->wakes_kept, 3);
	CU_ASSERT_EQUAL(res->wake_cpu_dropped_ns, 5 * us);
	rpl_run_free(r);
	/* auto: the bursts after wake-ups not a client's, 9, 50, 30 us of
	 * stream 1 and 10 of stream 9 (not the preempted 5 us nor the
	 * first ones): the 10th percentile, 9 us (bin middle 9.05); off the
	 * flush's 7 us all of it (not more), off the write's 3 x 9.05 */
	write_tmp(path, wake_sidecar);
	CU_ASSERT_EQUAL(rpl_sched_wake_cost(path), 9050);
	unlink(path);
	res = run_wake(wake_sidecar, 0, 1, 1, &r);
	CU_ASSERT_EQUAL(res->wake_cost_ns, 9050);
	CU_ASSERT_EQUAL(find_seq(&evl, 1)->issue_ns, 100 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, (200 + 1940) * us + 85 * us - 3 * 9050);
	CU_ASSERT_EQUAL(res->wake_cpu_dropped_ns, 7 * us + 3 * 9050);
	rpl_run_free(r);
	/* a client's wake-up ("w" line from the previous end) is not one:
	 * the same bursts after a client's wake-up, no wake-up cost */
	write_tmp(path, "# iostorm-sched 3 runq cpu client runtime\n"
			"c 1 0 5000 5000\n"
			"w 1 5000 1000000 3000\n"
			"r 1 1000000 1001000\n"
			"c 1 1001000 1010000 9000\n"
			"c 1 1010000 1020000 9000\n");
	CU_ASSERT_EQUAL(rpl_sched_wake_cost(path), 0);
	unlink(path);
	res = run_wake("# iostorm-sched 3 runq cpu client runtime\n"
		       "c 1 0 5000 5000\n"
		       "w 1 5000 1000000 3000\n"
		       "r 1 1000000 1001000\n"
		       "c 1 1001000 1010000 9000\n", 0, 1, 1, &r);
	CU_ASSERT_EQUAL(res->wake_cost_ns, 0);
	CU_ASSERT_EQUAL(res->wakes_dropped, 0);
	CU_ASSERT(strstr(res->notes, "no bursts after wake-ups") != NULL);
	rpl_run_free(r);
	CU_ASSERT_EQUAL(rpl_sched_wake_cost("/nonexistent/x.sched"), 0);

	/* --wake-cost needs --cpus */
	rpl_opts_init(&o);
	o.backend = RPL_BACKEND_NULL;
	o.timing = RPL_TIMING_CLOSED;
	o.wake_cost_auto = 1;
	CU_ASSERT_FATAL(rpl_source_array(&src, &rec, 1, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == -EINVAL);
	CU_ASSERT(strstr(rpl_run_errmsg(r), "--wake-cost needs --cpus") != NULL);
	rpl_run_free(r);
}

/*
 * --wake-cost with two streams (the records of test_closed_serial_commits):
 * stream 2's write waits for stream 1's commit in the replay too, so its
 * lock wake-up is kept (served on the virtual CPU when it issues); its I/O
 * wake-up after its read is dropped.  (Its last burst runs from its wake-up
 * to the write: the lock wait is the sleep before, 620 to 1900 us.)
 */
static void test_closed_wake_lock(void)
{
	const uint64_t us = 1000;
	struct ist_record recs[] = {
		mkrec(0, IST_OP_WRITE, 0, 4096, 1000 * us, 1, 1),
		mkrec(0, IST_OP_READ, 65536, 4096, 500 * us, 2, 1),
		mkrec(1000 * us, IST_OP_FLUSH, 0, 0, 1000 * us, 1, 1),
		mkrec(2050 * us, IST_OP_WRITE, 4096, 4096, 1000 * us, 2, 1),
		mkrec(3050 * us, IST_OP_FLUSH, 0, 0, 1000 * us, 2, 1),
	};
	const size_t n = sizeof(recs) / sizeof(recs[0]);
	const struct rpl_result *res;
	struct rpl_opts o;
	char path[64];
	rpl_run *r;

	for (size_t i = 2; i < n; i++)
		recs[i].flags = IST_F_DEPENDENT;
	recs[2].flags |= IST_F_COMMIT;
	recs[4].flags |= IST_F_COMMIT;
	write_tmp(path, "# iostorm-sched 3 runq cpu runtime\n"
			"c 2 0 10000 10000\n"
			"r 2 500000 600000\n"
			"c 2 600000 620000 20000\n"
			"r 2 1900000 1910000\n"
			"c 2 1910000 2050000 40000\n");
	for (int cost = 0; cost <= 1; cost++) {
		rpl_opts_init(&o);
		o.timing = RPL_TIMING_CLOSED;
		o.null_latency_ns = 100 * us;
		o.serial_commits = 1;
		o.think_sched = path;
		o.cpus = 1;
		o.inline_io = RPL_INLINE_ALWAYS;
		o.wake_cost_ns = cost ? 10 * us : 0;
		res = run_null(&o, recs, n, &evl, &r);
		/* ready at 100 + 60 (or 40) us of CPU; stream 1 commits
		 * until 200 us */
		CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 200 * us);
		CU_ASSERT_EQUAL(res->wakes_dropped, cost ? 1 : 0);
		CU_ASSERT_EQUAL(res->wakes_kept, cost ? 1 : 0);
		CU_ASSERT_EQUAL(res->wake_cpu_dropped_ns, cost ? 10 * us : 0);
		rpl_run_free(r);
	}
	unlink(path);
}

/*
 * --think-sched: run-queue waits taken out of think times.  Stream 1: A at
 * 0 (lat 100 us), B at 1000 us (think 900, of which 300 waiting for a CPU),
 * C at 3000 us (think 1900 after B's end at 1100; a wait from 1050 to 1200
 * counts from 1100: 100).  Stream 2: D at 50 us, E at 600 us (think 450,
 * all of it waiting: none is left).  Stream 7 has no I/O: ignored.
 */
static void test_closed_think_sched(void)
{
	const uint64_t us = 1000;
	struct ist_record recs[] = {
		mkrec(0, IST_OP_READ, 0, 4096, 100 * us, 1, 0),
		mkrec(50 * us, IST_OP_READ, 8192, 4096, 100 * us, 2, 0),
		mkrec(600 * us, IST_OP_READ, 8192, 4096, 100 * us, 2, 0),
		mkrec(1000 * us, IST_OP_READ, 4096, 4096, 100 * us, 1, 0),
		mkrec(3000 * us, IST_OP_READ, 4096, 4096, 100 * us, 1, 0),
	};
	const size_t n = sizeof(recs) / sizeof(recs[0]);
	struct rpl_source *src;
	struct rpl_opts o;
	char path[64];
	rpl_run *r;

	write_tmp(path, "# iostorm-sched 1 runq\n"
		  "# a comment\n"
		  "2 150000 600000\n"
		  "1 200000 500000\n"
		  "\n"
		  "1 1050000 1200000\n"
		  "7 0 5000000\n");
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 10 * us;
	o.think_sched = path;
	run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 0)->issue_ns, 0);
	CU_ASSERT_EQUAL(find_seq(&evl, 1)->issue_ns, 50 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 60 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 10 * us + 600 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 4)->issue_ns, 620 * us + 1800 * us);
	rpl_run_free(r);

	/* without: the recorded think times */
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 10 * us;
	run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 60 * us + 450 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 10 * us + 900 * us);
	rpl_run_free(r);
	unlink(path);

	/* with --serial-commits (the lock's path): one committing stream, a
	 * write 1 ms after its commit ended, 400 us of it waiting for a CPU */
	{
		struct ist_record c[] = {
			mkrec(0, IST_OP_WRITE, 0, 4096, 100 * us, 1, 0),
			mkrec(100 * us, IST_OP_FLUSH, 0, 0, 100 * us, 1, 0),
			mkrec(1200 * us, IST_OP_WRITE, 4096, 4096, 100 * us, 1, 0),
			mkrec(1300 * us, IST_OP_FLUSH, 0, 0, 100 * us, 1, 0),
		};

		for (int i = 1; i < 4; i++)
			c[i].flags = IST_F_DEPENDENT | (i % 2 ? IST_F_COMMIT : 0);
		write_tmp(path, "# iostorm-sched 1 runq\n1 300000 700000\n");
		rpl_opts_init(&o);
		o.timing = RPL_TIMING_CLOSED;
		o.null_latency_ns = 10 * us;
		o.serial_commits = 1;
		o.think_sched = path;
		run_null(&o, c, 4, &evl, &r);
		CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 20 * us + 600 * us);
		CU_ASSERT_EQUAL(find_seq(&evl, 3)->issue_ns, 630 * us);
		rpl_run_free(r);
		o.think_sched = NULL;
		run_null(&o, c, 4, &evl, &r);
		CU_ASSERT_EQUAL(find_seq(&evl, 2)->issue_ns, 20 * us + 1000 * us);
		rpl_run_free(r);
		unlink(path);
	}

	/* refusals: another timing, no header, a bad line, no file */
	rpl_opts_init(&o);
	o.backend = RPL_BACKEND_NULL;
	o.think_sched = "/nonexistent/x.sched";
	CU_ASSERT_FATAL(rpl_source_array(&src, recs, n, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == -EINVAL);
	CU_ASSERT(strstr(rpl_run_errmsg(r), "--timing closed") != NULL);
	rpl_run_free(r);
	o.timing = RPL_TIMING_CLOSED;
	CU_ASSERT_FATAL(rpl_source_array(&src, recs, n, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == -ENOENT);
	CU_ASSERT(strstr(rpl_run_errmsg(r), "/nonexistent/x.sched") != NULL);
	rpl_run_free(r);
	write_tmp(path, "1 2 3\n");
	o.think_sched = path;
	CU_ASSERT_FATAL(rpl_source_array(&src, recs, n, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == IST_EPARSE);
	CU_ASSERT(strstr(rpl_run_errmsg(r), "line 1") != NULL);
	rpl_run_free(r);
	unlink(path);
	write_tmp(path, "# iostorm-sched 1 runq\n1 200 300\n2 500 400\n");
	CU_ASSERT_FATAL(rpl_source_array(&src, recs, n, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == IST_EPARSE);
	CU_ASSERT(strstr(rpl_run_errmsg(r), "line 3") != NULL);
	rpl_run_free(r);
	unlink(path);
	write_tmp(path, "# iostorm-sched 1 runq\n1 200 300 4\n");
	CU_ASSERT_FATAL(rpl_source_array(&src, recs, n, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == IST_EPARSE);
	CU_ASSERT(strstr(rpl_run_errmsg(r), "line 2") != NULL);
	rpl_run_free(r);
	unlink(path);
}

/*
 * --think-sched with a large sidecar: 4 streams of 1000 dependent I/Os,
 * every 100 us (lat 30 us; of each think time of 70 us, 30 us waiting for
 * a CPU), among 200000 intervals read ahead that no gap takes: a stream
 * without I/Os, and the streams' own intervals inside their I/Os.
 * Stream 5: two I/Os 190 ms apart, its wait read long before the second
 * and swept stale by stream 6's I/O at 150 ms.  Each I/O looked at every
 * pending interval (10^5 here); now at its stream's and the stale ones.
 */
static void test_closed_think_sched_large(void)
{
	enum { NS = 4, NK = 1000, NOISE = 200000 };
	const uint64_t us = 1000;
	static struct ist_record recs[NS * NK + 3];
	size_t n = 0, cap = (size_t)(NS * NK * 2 + NOISE) * 48 + 256, len;
	char *text = malloc(cap), path[64];
	uint64_t base[NS + 1];
	struct rpl_opts o;
	rpl_run *r;
	int bad = 0;

	CU_ASSERT_FATAL(text != NULL);
	len = (size_t)snprintf(text, cap, "# iostorm-sched 3 runq cpu client runtime\n");
	recs[n++] = mkrec(0, IST_OP_READ, 0, 4096, 100 * us, 5, 0);
	len += (size_t)snprintf(text + len, cap - len, "5 1000000 1500000\n");
	for (unsigned k = 0, j = 0; k < NK; k++) {
		for (unsigned i = 1; i <= NS; i++) {
			uint64_t t = k * 100 * us + i * us;

			recs[n] = mkrec(t, IST_OP_READ, n * 4096, 4096, 30 * us, i, 0);
			recs[n++].flags = k ? IST_F_DEPENDENT : 0;
			/* one inside the I/O, a wait in the gap after it */
			len += (size_t)snprintf(text + len, cap - len,
						"c %u %" PRIu64 " %" PRIu64 " 5\n%u %" PRIu64 " %"
						PRIu64 "\n", i, t + 5 * us, t + 25 * us, i,
						t + 40 * us, t + 70 * us);
		}
		/* 200 intervals of stream 9 per 100 us */
		for (unsigned m = 0; m < NOISE / NK; m++, j++) {
			uint64_t a = k * 100 * us + m * 500;

			len += (size_t)snprintf(text + len, cap - len, "%s 9 %" PRIu64 " %" PRIu64 "%s\n",
						j % 3 ? "r" : "w", a, a + 50 * us,
						j % 3 ? "" : " 7");
		}
	}
	recs[n++] = mkrec(150000 * us, IST_OP_READ, 0, 4096, 100 * us, 6, 0);
	recs[n] = mkrec(190000 * us, IST_OP_READ, 0, 4096, 100 * us, 5, 0);
	recs[n++].flags = IST_F_DEPENDENT;
	CU_ASSERT_FATAL(len < cap);
	write_tmp(path, text);
	free(text);
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = 10 * us;
	o.think_sched = path;
	run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL_FATAL(evl.n, n);
	/* each stream: 10 us of I/O, then 70 - 30 us of think time */
	for (unsigned i = 1; i <= NS; i++)
		base[i] = find_seq(&evl, i)->issue_ns;
	for (unsigned k = 0; k < NK; k++)
		for (unsigned i = 1; i <= NS; i++)
			bad += find_seq(&evl, 1 + k * NS + i - 1)->issue_ns != base[i] + k * 50 * us;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(base[1], 1 * us);
	CU_ASSERT_EQUAL(base[4], 4 * us);
	CU_ASSERT_EQUAL(find_seq(&evl, n - 2)->issue_ns, 150000 * us);
	/* stream 5: 190 ms - 100 us of think time, 500 us of it waiting */
	CU_ASSERT_EQUAL(find_seq(&evl, n - 1)->issue_ns, 10 * us + 190000 * us - 600 * us);
	rpl_run_free(r);
	unlink(path);
}

/* TPS-eq of a closed-loop replay of 4 x 4 transactions of 4 dependent
 * I/Os (recorded latency 100 us, then think) at a fixed device latency. */
static double closed_tps(uint64_t think_ns, uint64_t dev_lat_ns)
{
	static struct ist_record recs[64];
	struct rpl_opts o;
	const struct rpl_result *res;
	size_t n = 0;
	double tps;
	rpl_run *r;

	for (uint64_t s = 1; s <= 4; s++)
		for (uint64_t tx = 1; tx <= 4; tx++)
			for (int k = 0; k < 4; k++) {
				uint64_t i = (tx - 1) * 4 + (uint64_t)k;

				recs[n] = mkrec(s * 1000 + i * (100000 + think_ns), IST_OP_READ,
						n * 4096, 4096, 100000, s, tx);
				recs[n].flags = IST_F_DEPENDENT;
				n++;
			}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && recs[j].t_ns < recs[j - 1].t_ns; j--) {
			struct ist_record x = recs[j];

			recs[j] = recs[j - 1];
			recs[j - 1] = x;
		}
	rpl_opts_init(&o);
	o.timing = RPL_TIMING_CLOSED;
	o.null_latency_ns = dev_lat_ns;
	res = run_null(&o, recs, n, &evl, &r);
	CU_ASSERT_EQUAL(res->txns, 16);
	tps = (double)res->txns * 1e9 / (double)res->elapsed_ns;
	rpl_run_free(r);
	return tps;
}

static void test_closed_faster_slower_think(void)
{
	double recorded = closed_tps(20000, 100000);
	double faster = closed_tps(20000, 20000), slower = closed_tps(20000, 500000);
	double think_fast = closed_tps(10000000, 20000), think_slow = closed_tps(10000000, 500000);

	/* the device at the recorded latency replays the recorded TPS */
	CU_ASSERT(faster > 1.5 * recorded);
	CU_ASSERT(slower < recorded / 1.5);
	/* think times dominate: the device hardly matters (within 10%) */
	CU_ASSERT(think_fast / think_slow < 1.10);
	CU_ASSERT(think_fast >= think_slow);
}

static void test_workers_partition(void)
{
	static struct ist_record recs[3000];
	static unsigned char seen[3000];
	struct rpl_opts o;
	const struct rpl_result *res;
	rpl_run *r;

	for (int i = 0; i < 3000; i++)
		recs[i] = mkrec((uint64_t)i * 1000, IST_OP_READ, (uint64_t)i * 4096, 4096, 0,
				(uint64_t)(i % 7), 0);
	for (unsigned part = 0; part < 2; part++) {
		rpl_opts_init(&o);
		o.workers = 3;
		o.partition = part ? RPL_PART_STREAM : RPL_PART_DEVICE;
		o.null_latency_ns = 2000;
		res = run_null(&o, recs, 3000, &evl, &r);
		CU_ASSERT_EQUAL(res->ios, 3000);
		CU_ASSERT(res->complete);
		/* MAXEV events logged: each seq at most once, on time */
		memset(seen, 0, sizeof(seen));
		for (size_t i = 0; i < evl.n; i++) {
			CU_ASSERT_FATAL(evl.ev[i].seq < 3000);
			seen[evl.ev[i].seq]++;
			CU_ASSERT_EQUAL(evl.ev[i].issue_ns, evl.ev[i].deadline_ns);
		}
		for (size_t i = 0; i < evl.n; i++)
			CU_ASSERT_EQUAL(seen[evl.ev[i].seq], 1);
		rpl_run_free(r);
	}
}

static void test_options_and_refusals(void)
{
	struct ist_record recs[2];
	struct rpl_source *src;
	struct rpl_opts o;
	enum rpl_data d;
	unsigned p;
	rpl_run *r;

	recs[0] = mkrec(0, IST_OP_READ, 0, 4096, 0, 0, 0);
	recs[1] = mkrec(10, IST_OP_WRITE, 0, 4096, 0, 0, 0);
	/* io_uring without a target is refused with a message */
	rpl_opts_init(&o);
	CU_ASSERT_FATAL(rpl_source_array(&src, recs, 2, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == -EINVAL);
	CU_ASSERT(strstr(rpl_run_errmsg(r), "target") != NULL);
	rpl_run_free(r);
	/* rate without IOPS */
	rpl_opts_init(&o);
	o.backend = RPL_BACKEND_NULL;
	o.timing = RPL_TIMING_RATE;
	CU_ASSERT_FATAL(rpl_source_array(&src, recs, 2, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == -EINVAL);
	rpl_run_free(r);
	/* a missing file without --create */
	rpl_opts_init(&o);
	o.ntargets = 1;
	o.targets[0].dev = -1;
	o.targets[0].path = "/nonexistent/dir/x.img";
	CU_ASSERT_FATAL(rpl_source_array(&src, recs, 2, NULL) == 0);
	CU_ASSERT(rpl_run_new(&r, &o, src) == -ENOENT);
	CU_ASSERT(strstr(rpl_run_errmsg(r), "/nonexistent/dir/x.img") != NULL);
	rpl_run_free(r);

	CU_ASSERT(rpl_data_parse("compress:2.5", &d, &p) == 0 && d == RPL_DATA_COMPRESS && p == 250);
	CU_ASSERT(rpl_data_parse("dedupe:30", &d, &p) == 0 && d == RPL_DATA_DEDUPE && p == 3000);
	CU_ASSERT(rpl_data_parse("dedupe:130", &d, &p) < 0);
	CU_ASSERT(rpl_data_parse("compress:0.5", &d, &p) < 0);
	/* 2.555 was rounded to 2.56: finer than 0.01 refused, as dedupe */
	CU_ASSERT(rpl_data_parse("compress:2.555", &d, &p) < 0);
	CU_ASSERT(rpl_data_parse("compress:2.55", &d, &p) == 0 && p == 255);
	CU_ASSERT(rpl_data_parse("compress:1000", &d, &p) == 0 && p == 100000);
	CU_ASSERT(rpl_data_parse("bogus", &d, &p) < 0);
	CU_ASSERT(rpl_timing_parse("closed") == RPL_TIMING_CLOSED);
	CU_ASSERT(rpl_remap_parse("scale") == RPL_REMAP_SCALE);
	CU_ASSERT(rpl_remap_parse("nope") < 0);
}

/* dedupe:PCT to 0.01 %: 33.3 was rounded to 33 (and reported as 33);
 * finer is refused, not rounded; the pool repeats that share of its
 * blocks within one block. */
static void test_data_dedupe_fraction(void)
{
	static const struct { const char *arg, *fmt; unsigned param; } ok[] = {
		{ "dedupe:33.3", "dedupe:33.3", 3330 },
		{ "dedupe:33.33", "dedupe:33.33", 3333 },
		{ "dedupe:0.05", "dedupe:0.05", 5 },
		{ "dedupe:50", "dedupe:50", 5000 },
		{ "dedupe:50.00", "dedupe:50", 5000 },
		{ "dedupe:100", "dedupe:100", 10000 },
		{ "dedupe:0", "dedupe:0", 0 },
	};
	static const char *const bad[] = {
		"dedupe:33.333", "dedupe:0.001", "dedupe:-1", "dedupe:100.01",
		"dedupe:nan", "dedupe:", "dedupe:5x",
	};
	enum rpl_data d;
	unsigned p;
	char buf[64];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CU_ASSERT(rpl_data_parse(ok[i].arg, &d, &p) == 0);
		CU_ASSERT(d == RPL_DATA_DEDUPE && p == ok[i].param);
		CU_ASSERT_STRING_EQUAL(rpl_data_format(d, p, buf, sizeof(buf)), ok[i].fmt);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT(rpl_data_parse(bad[i], &d, &p) < 0);

	for (unsigned k = 0; k < 3; k++) {
		static const unsigned pct[] = { 3330, 3300, 5 };
		struct rpl_run *r = calloc(1, sizeof(*r));
		size_t nblk, dup = 0, n;

		CU_ASSERT_FATAL(r != NULL);
		rpl_opts_init(&r->o);
		r->o.backend = RPL_BACKEND_URING;
		r->o.data = RPL_DATA_DEDUPE;
		r->o.data_param = pct[k];
		CU_ASSERT_FATAL(rpl_data_pool(r) == 0 && r->pool);
		nblk = r->pool_size / 4096;
		/* blocks 0..15 are the common ones the others repeat */
		for (size_t b = 16; b < nblk; b++)
			dup += !memcmp(r->pool + b * 4096, r->pool + b % 16 * 4096, 4096);
		n = nblk - 16;
		CU_ASSERT(fabs((double)dup - (double)n * pct[k] / 10000) <= 1.0);
		free(r->pool);
		free(r);
	}
}

static void test_csv_source_errors(void)
{
	char path[] = "/tmp/test_replay_csvXXXXXX";
	struct rpl_source *s;
	char where[64];
	int fd = mkstemp(path);
	FILE *f;

	CU_ASSERT_FATAL(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "%s\n0,0,read,0,4096,0,0,0,\n10,0,read,4096,4096,0,0,0,\n"
		   "20,0,reed,0,4096,0,0,0,\n", IST_CSV_HEADER);
	fclose(f);
	CU_ASSERT(rpl_source_csv(&s, path) == IST_EPARSE);
	CU_ASSERT_FATAL(s != NULL);
	s->ops->where(s, where, sizeof(where));
	CU_ASSERT_STRING_EQUAL(where, "line 4");
	rpl_source_close(s);

	f = fopen(path, "w");
	fprintf(f, "%s\n0,1,read,0,4096,0,0,0,\n10,0,write,8192,512,7,0,0,\n", IST_CSV_HEADER);
	fclose(f);
	CU_ASSERT_FATAL(rpl_source_open(&s, path) == 0);
	{
		struct ist_totals t;
		struct ist_record rec[4];

		CU_ASSERT(s->ops->totals(s, &t) == 0);
		CU_ASSERT_EQUAL(t.records, 2);
		CU_ASSERT_EQUAL(t.ndev, 2);
		CU_ASSERT_EQUAL(t.dev_max_end[0], 8704);
		CU_ASSERT_EQUAL(t.dev_max_end[1], 4096);
		CU_ASSERT_EQUAL(t.with_latency, 1);
		ist_totals_release(&t);
		CU_ASSERT(s->ops->read(s, rec, 4) == 2);
		CU_ASSERT(s->ops->read(s, rec, 4) == 0);
		CU_ASSERT(s->ops->rewind(s) == 0);
		CU_ASSERT(s->ops->read(s, rec, 4) == 2);
		CU_ASSERT_EQUAL(ist_header_device_count(s->header), 2);
	}
	rpl_source_close(s);
	unlink(path);
}

static const struct cutest tests[] = {
	{ "hist accuracy log-uniform 100ns..3h", test_hist_accuracy_log_uniform },
	{ "hist accuracy narrow + tail", test_hist_accuracy_narrow },
	{ "hist buckets contiguous, width <= 1/128", test_hist_buckets_contiguous },
	{ "hist merge and empty", test_hist_merge_empty },
	{ "original timing: absolute deadlines, exact", test_original_timing_exact },
	{ "afap keeps order with iodepth", test_afap_iodepth },
	{ "fixed rate", test_rate },
	{ "window, loop, duration", test_window_loop_duration },
	{ "slow device: capped in flight, lateness", test_slow_device_lateness },
	{ "null back-end: latencies per op from lists", test_null_latency_lists },
	{ "null back-end: latencies per device from lists", test_null_latency_dev_lists },
	{ "closed loop: dependencies and think time", test_closed_dependent_think },
	{ "closed loop: transactions and TPS-eq", test_closed_txn_tps },
	{ "closed loop: serial commits, cycle latency", test_closed_serial_commits },
	{ "closed loop: commit groups formed on a slow target, not on a fast", test_closed_commit_groups },
	{ "closed loop: a lock waiter takes the lock the recorded handover after the release", test_closed_lock_handover },
	{ "closed loop: lock waits only in the sleeps", test_closed_lock_wait_sleeps },
	{ "closed loop: group commit waits before reads", test_closed_group_commit_wait },
	{ "closed loop: a commit woken by another's commit", test_closed_woken_commit },
	{ "closed loop: a commit waits for the commit whose row it waited for",
	  test_closed_holder_waits },
	{ "closed loop: a record out of time order in its stream does not stall it",
	  test_closed_out_of_order },
	{ "closed loop: run-queue waits out of think times", test_closed_think_sched },
	{ "closed loop: a large run-queue sidecar", test_closed_think_sched_large },
	{ "closed loop: on-CPU think time on N virtual CPUs", test_closed_cpus },
	{ "closed loop: a client's CPU for the sleeps it ended", test_closed_client },
	{ "closed loop: the latencies of the streams counted in tps_streams",
	  test_closed_txn_latency_streams },
	{ "closed loop: each CPU burst queued on its own (--cpu-queue burst)",
	  test_closed_cpu_bursts },
	{ "closed loop: the runtime of sidecar version 3", test_closed_runtime },
	{ "closed loop: wake-ups the replay does not cause (--wake-cost)", test_closed_wake_cost },
	{ "closed loop: a lock wake-up the replay redoes is kept", test_closed_wake_lock },
	{ "closed loop: faster, slower, think-dominated", test_closed_faster_slower_think },
	{ "three workers, partitioned by device and stream", test_workers_partition },
	{ "options and refusals", test_options_and_refusals },
	{ "CSV source: errors and totals", test_csv_source_errors },
	{ "write data: dedupe:PCT to 0.01 %", test_data_dedupe_fraction },
	{ NULL, NULL },
};

int main(void)
{
	return cutest_main("replay", tests);
}
