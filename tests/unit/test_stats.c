/* SPDX-License-Identifier: MIT */
/* test_stats.c - stats.c on hand-made records with known answers. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cutest.h"
#include "report/stats.h"

static struct ist_record rec(uint64_t t, unsigned op, uint64_t off, uint32_t len,
			     uint64_t stream)
{
	struct ist_record r;

	memset(&r, 0, sizeof(r));
	r.t_ns = t;
	r.op = (uint8_t)op;
	r.offset = off;
	r.len = len;
	r.stream = stream;
	return r;
}

static struct rpt_stats *run(const ist_header *h, const struct ist_record *r,
			     size_t n, uint64_t interval_ns)
{
	struct rpt_stats_opts o = { interval_ns, 0 };
	struct rpt_stats *st;

	CU_ASSERT_FATAL(rpt_stats_new(&st, h, &o) == 0);
	CU_ASSERT_FATAL(rpt_stats_add(st, r, n) == 0);
	CU_ASSERT_FATAL(rpt_stats_finish(st) == 0);
	return st;
}

#define EQD(a, b) CU_ASSERT_DOUBLE_EQUAL(a, b, 1e-9)

static void test_basic(void)
{
	struct ist_record r[4] = {
		rec(0, IST_OP_READ, 0, 4096, 1),
		rec(1000, IST_OP_READ, 4096, 4096, 1),
		rec(2000, IST_OP_WRITE, 1 << 20, 8192, 2),
		rec(3000, IST_OP_FLUSH, 0, 0, 2),
	};
	struct rpt_stats *st;
	const struct rpt_summary *s;

	r[2].txn = 1;
	r[3].txn = 1;
	r[3].flags = IST_F_COMMIT | IST_F_SYNC;
	st = run(NULL, r, 4, 0);
	s = rpt_stats_summary(st);
	CU_ASSERT_EQUAL(s->records, 4);
	CU_ASSERT_EQUAL(s->count[IST_OP_READ], 2);
	CU_ASSERT_EQUAL(s->count[IST_OP_WRITE], 1);
	CU_ASSERT_EQUAL(s->count[IST_OP_FLUSH], 1);
	CU_ASSERT_EQUAL(s->bytes[IST_OP_READ], 8192);
	EQD(s->read_share, 2.0 / 3);
	EQD(s->read_bytes_share, 0.5);
	EQD(s->mean_size, 16384.0 / 3);
	CU_ASSERT_EQUAL(s->mode_size, 4096);
	EQD(s->mode_share, 2.0 / 3);
	EQD(s->seq_share, 1.0 / 3);
	EQD(s->stream_seq_share, 1.0 / 3);
	EQD(s->ia_mean_ns, 1000);
	EQD(s->ia_cv, 0);
	EQD(s->burstiness, -1);
	EQD(s->duration_s, 3e-6);
	CU_ASSERT_EQUAL(s->commits, 1);
	CU_ASSERT_EQUAL(s->txn_ios, 2);
	EQD(s->ios_per_txn, 2);
	EQD(s->flushes_per_commit, 1);
	CU_ASSERT_EQUAL(s->sync, 1);
	CU_ASSERT_EQUAL(s->streams, 2);
	CU_ASSERT_FALSE(s->have_latency);
	/* sizes 4096 x2 in [4K, 8K), 8192 in [8K, 16K) */
	CU_ASSERT_EQUAL(rpt_stats_size_hist(st, 12), 2);
	CU_ASSERT_EQUAL(rpt_stats_size_hist(st, 13), 1);
	/* gaps of 1000 ns fall in [512, 1024) */
	CU_ASSERT_EQUAL(rpt_stats_ia_hist(st, 9), 3);
	/* a device without a header entry gets a name */
	CU_ASSERT_STRING_EQUAL(rpt_stats_device(st, 0)->name, "dev0");
	/* streams sorted by activity (tie: lower id first) */
	CU_ASSERT_EQUAL(rpt_stats_stream(st, 0)->id, 1);
	CU_ASSERT_EQUAL(rpt_stats_stream(st, 1)->commits, 1);
	CU_ASSERT_EQUAL(rpt_stats_add(st, r, 1), -EINVAL); /* after finish */
	rpt_stats_free(st);
}

static void test_skew_and_working_set(void)
{
	ist_header *h = ist_header_new();
	struct ist_record *r = calloc(1000, sizeof(*r));
	struct rpt_stats *st;
	const struct rpt_summary *s;
	const uint64_t mib = 1 << 20;

	CU_ASSERT_FATAL(h && r);
	CU_ASSERT_FATAL(ist_header_add_device(h, "disk", 100 * mib, 512) == 0);
	/* 900 I/Os on distinct blocks of the first 10 MiB, 100 on the rest */
	for (unsigned i = 0; i < 1000; i++) {
		uint64_t off = i < 900 ? (uint64_t)i * 2560 / 900 * 4096 :
			       10 * mib + (uint64_t)(i - 900) * 230 * 4096;

		r[i] = rec(i, IST_OP_READ, off, 4096, 1);
	}
	st = run(h, r, 1000, 0);
	s = rpt_stats_summary(st);
	/* the hottest 10% of the 100 MiB device holds exactly the 900 */
	EQD(s->skew.top10, 0.9);
	EQD(rpt_stats_device(st, 0)->skew.top10, 0.9);
	/* + the next 10%: 80 buckets of 128 KiB holding one cold I/O each */
	EQD(s->skew.top20, 0.98);
	CU_ASSERT_STRING_EQUAL(rpt_stats_device(st, 0)->name, "disk");
	CU_ASSERT_EQUAL(rpt_stats_device(st, 0)->size, 100 * mib);
	/* 1000 distinct 4 KiB blocks */
	CU_ASSERT_EQUAL(s->working_set, 1000 * 4096);
	rpt_stats_free(st);
	ist_header_free(h);
	free(r);
}

static void test_queue_depth(void)
{
	struct ist_record r[4] = {
		rec(0, IST_OP_READ, 0, 4096, 1),
		rec(10, IST_OP_READ, 8192, 4096, 2),
		rec(20, IST_OP_READ, 16384, 4096, 3),
		rec(200, IST_OP_READ, 32768, 4096, 4),
	};
	struct rpt_stats *st;
	const struct rpt_summary *s;

	for (unsigned i = 0; i < 4; i++)
		r[i].lat_ns = 100;
	st = run(NULL, r, 4, 0);
	s = rpt_stats_summary(st);
	/* in flight at each arrival, itself included: 1, 2, 3, then 1 */
	CU_ASSERT(s->have_latency);
	EQD(s->qd_mean, 7.0 / 4);
	EQD(s->qd_max, 3);
	EQD(s->lat_mean_ns, 100);
	rpt_stats_free(st);
}

static void test_series_and_streams(void)
{
	size_t n = 10000;
	struct ist_record *r = calloc(n, sizeof(*r));
	struct rpt_stats *st;
	const struct rpt_summary *s;
	uint64_t total = 0;

	CU_ASSERT_FATAL(r != NULL);
	/* one I/O per second for 10000 s: the series coarsens to fit 4096 */
	for (size_t i = 0; i < n; i++)
		r[i] = rec(i * 1000000000ull, IST_OP_WRITE, i * 4096, 4096, 7);
	st = run(NULL, r, n, 0);
	s = rpt_stats_summary(st);
	CU_ASSERT_EQUAL(rpt_stats_interval_ns(st), 4000000000ull);
	CU_ASSERT(rpt_stats_interval_count(st) <= RPT_MAX_INTERVALS);
	for (unsigned i = 0; i < rpt_stats_interval_count(st); i++)
		total += rpt_stats_interval(st, i)->count;
	CU_ASSERT_EQUAL(total, n);
	EQD(rpt_stats_interval(st, 0)->iops, 1.0);
	/* a single sequential writer */
	EQD(s->seq_share, (double)(n - 1) / n);
	EQD(rpt_stats_stream(st, 0)->iops, 1.0);
	EQD(s->stream_iops_mean, 1.0);
	EQD(s->iops, (double)n / (n - 1));
	rpt_stats_free(st);
	free(r);
}

static void test_disorder_and_devices(void)
{
	struct ist_record r[3] = {
		rec(100, IST_OP_READ, 0, 512, 0),
		rec(50, IST_OP_READ, 512, 512, 0),
		rec(150, IST_OP_DISCARD, 0, 1 << 20, 0),
	};
	struct rpt_stats *st;
	const struct rpt_summary *s;

	r[2].dev = 5;
	st = run(NULL, r, 3, 0);
	s = rpt_stats_summary(st);
	CU_ASSERT_EQUAL(s->out_of_order, 1);
	CU_ASSERT_EQUAL(s->first_t_ns, 50);
	CU_ASSERT_EQUAL(s->last_t_ns, 150);
	CU_ASSERT_EQUAL(rpt_stats_device_count(st), 6);
	CU_ASSERT_STRING_EQUAL(rpt_stats_device(st, 5)->name, "dev5");
	CU_ASSERT_EQUAL(rpt_stats_device(st, 5)->count[IST_OP_DISCARD], 1);
	/* stream 0 is "unknown": not counted as a stream */
	CU_ASSERT_EQUAL(s->streams, 0);
	/* discards are neither reads nor writes for the size figures */
	EQD(s->mean_size, 512);
	rpt_stats_free(st);
}

static void test_burstiness(void)
{
	/* gaps alternating 10 ns and 10 ms: CV ~1, burstiness ~0 ...
	 * and a regular train: CV 0; a very bursty one: CV >> 1 */
	struct ist_record r[1001];
	struct rpt_stats *st;
	uint64_t t = 0;

	for (unsigned i = 0; i <= 1000; i++) {
		r[i] = rec(t, IST_OP_READ, 0, 4096, 1);
		t += i % 100 == 99 ? 100000000ull : 1000;
	}
	st = run(NULL, r, 1001, 0);
	CU_ASSERT(rpt_stats_summary(st)->ia_cv > 5);
	CU_ASSERT(rpt_stats_summary(st)->burstiness > 0.6);
	rpt_stats_free(st);
}

static void test_empty(void)
{
	struct rpt_stats *st = run(NULL, NULL, 0, 0);
	const struct rpt_summary *s = rpt_stats_summary(st);

	CU_ASSERT_EQUAL(s->records, 0);
	EQD(s->read_share, 0);
	EQD(s->iops, 0);
	CU_ASSERT_EQUAL(rpt_stats_stream_count(st), 0);
	CU_ASSERT_EQUAL(rpt_stats_interval_count(st), 0);
	CU_ASSERT(rpt_stats_device(st, 0) == NULL);
	rpt_stats_free(st);
}

static const struct cutest tests[] = {
	{ "basic figures", test_basic },
	{ "skew and working set", test_skew_and_working_set },
	{ "queue depth", test_queue_depth },
	{ "series coarsening and streams", test_series_and_streams },
	{ "disorder and unknown devices", test_disorder_and_devices },
	{ "burstiness", test_burstiness },
	{ "empty trace", test_empty },
	{ NULL, NULL },
};

int main(void)
{
	return cutest_main("stats", tests);
}
