/* SPDX-License-Identifier: MIT */
/* test_annotate.c - log-device detection, commit markers, transactions,
 * dependencies and stream inference on hand-made traces. */
#include "config.h"

#include <string.h>

#include "core/annotate.h"
#include "tests/unit/cutest.h"

static struct ist_record rec(uint64_t t, unsigned dev, unsigned op, uint64_t off,
			     uint32_t len, uint64_t lat, uint64_t stream, unsigned flags)
{
	struct ist_record r = { .t_ns = t, .dev = dev, .op = (uint8_t)op, .offset = off,
		.len = len, .lat_ns = lat, .stream = stream, .flags = (uint16_t)flags };
	return r;
}

static const struct ann_opts defaults = { .log_dev = -1, .infer_streams = -1 };

static void test_dependency_known_streams(void)
{
	struct ist_record r[] = {
		rec(0, 0, IST_OP_READ, 0, 8192, 100, 1, 0),
		rec(150, 0, IST_OP_READ, 8192, 8192, 100, 1, 0),  /* after r0 done */
		rec(160, 0, IST_OP_READ, 65536, 8192, 100, 1, 0), /* r1 in flight */
		rec(170, 0, IST_OP_READ, 0, 4096, 50, 2, 0),      /* first of 2 */
		rec(400, 0, IST_OP_READ, 0, 4096, 50, 1, 0),      /* all done */
		rec(401, 0, IST_OP_READ, 0, 4096, 50, 0, 0),      /* unknown */
	};
	struct ann_report rep;
	ann_state *a;

	CU_ASSERT_EQUAL_FATAL(ann_new(&a, &defaults, -1, 0, 0), 0);
	CU_ASSERT_EQUAL(ann_process(a, r, 6), 0);
	ann_finish(a, &rep);
	CU_ASSERT_FALSE(r[0].flags & IST_F_DEPENDENT);
	CU_ASSERT_TRUE(r[1].flags & IST_F_DEPENDENT);
	CU_ASSERT_FALSE(r[2].flags & IST_F_DEPENDENT);
	CU_ASSERT_FALSE(r[3].flags & IST_F_DEPENDENT);
	CU_ASSERT_TRUE(r[4].flags & IST_F_DEPENDENT);
	CU_ASSERT_FALSE(r[5].flags & IST_F_DEPENDENT);
	CU_ASSERT_EQUAL(rep.dependent, 2);
	CU_ASSERT_EQUAL(rep.streams, 2);
	CU_ASSERT_EQUAL(rep.records, 6);
	CU_ASSERT_EQUAL(r[5].txn, 0);
}

/* dev 0: random data reads/writes; dev 1: a log, appended and flushed */
static size_t make_oltp(struct ist_record *r, size_t max)
{
	size_t n = 0;
	uint64_t t = 0, log_off = 0;

	for (unsigned txn = 0; txn < 40 && n + 4 <= max; txn++) {
		uint64_t s = 1 + txn % 4;

		r[n++] = rec(t, 0, IST_OP_READ, (txn * 7919ull % 1000) * 8192, 8192, 200, s, 0);
		t += 300;
		r[n++] = rec(t, 1, IST_OP_WRITE, log_off, 512, 50, s, IST_F_SYNC);
		log_off += 512;
		t += 60;
		r[n++] = rec(t, 1, IST_OP_FLUSH, 0, 0, 30, s, 0);
		t += 40;
		if (txn % 5 == 0)
			r[n++] = rec(t, 0, IST_OP_WRITE, (txn * 104729ull % 1000) * 8192,
				     8192, 100, 9, 0); /* checkpoint: background */
		t += 10;
	}
	return n;
}

static void test_log_detection_and_commits(void)
{
	struct ist_record r[256];
	struct ann_devstat ds[2];
	struct ann_report rep;
	ann_state *a;
	double conf;
	size_t n = make_oltp(r, 256);
	int log;
	unsigned commits = 0;

	memset(ds, 0, sizeof(ds));
	for (size_t i = 0; i < n; i++)
		ann_devstat_add(ds, 2, &r[i]);
	log = ann_detect_log_dev(ds, 2, &conf);
	CU_ASSERT_EQUAL(log, 1);
	CU_ASSERT(conf >= 0.7 && conf <= 1.0);
	CU_ASSERT_EQUAL_FATAL(ann_new(&a, &defaults, log, conf, 0), 0);
	CU_ASSERT_EQUAL(ann_process(a, r, n), 0);
	ann_finish(a, &rep);
	CU_ASSERT_EQUAL(rep.markers, 40);
	CU_ASSERT_EQUAL(rep.txns, 40);
	CU_ASSERT_EQUAL(rep.log_dev, 1);
	for (size_t i = 0; i < n; i++) {
		if (r[i].flags & IST_F_COMMIT) {
			commits++;
			CU_ASSERT_EQUAL(r[i].op, IST_OP_FLUSH);
		}
		/* stream 1's k-th transaction is its (k)th group of 3 I/Os */
	}
	CU_ASSERT_EQUAL(commits, 40);
	/* stream 1 ran transactions 0, 4, 8...: its I/Os carry txn 1, 2, ... */
	CU_ASSERT_EQUAL(r[0].txn, 1);
	CU_ASSERT_EQUAL(r[2].txn, 1);
	/* the 5th transaction (index 4) is stream 1's second */
	{
		size_t i;
		unsigned seen = 0;

		for (i = 0; i < n; i++)
			if (r[i].stream == 1 && r[i].op == IST_OP_READ && ++seen == 2)
				break;
		CU_ASSERT_EQUAL(r[i].txn, 2);
	}
	/* the background writer never commits: its txn stays the first */
	for (size_t i = 0; i < n; i++)
		if (r[i].stream == 9)
			CU_ASSERT_EQUAL(r[i].txn, 1);
}

static void test_no_log_device(void)
{
	struct ann_devstat ds[1];
	struct ist_record r;
	double conf = 5;

	memset(ds, 0, sizeof(ds));
	for (unsigned i = 0; i < 100; i++) {
		r = rec(i, 0, i % 3 ? IST_OP_READ : IST_OP_WRITE,
			(i * 2654435761u % 100000) * 4096, 4096, 0, 0, 0);
		ann_devstat_add(ds, 1, &r);
	}
	CU_ASSERT_EQUAL(ann_detect_log_dev(ds, 1, &conf), -1);
	CU_ASSERT_EQUAL(conf, 0);
	/* a device index beyond the table is ignored, not a crash */
	r.dev = 7;
	ann_devstat_add(ds, 1, &r);
	CU_ASSERT_EQUAL(ds[0].records, 100);
}

static void test_stream_inference(void)
{
	/* two closed chains interleaved: A issues 10 ns after each of its
	 * completions, B 20 ns after; all with stream 0.  At t=1970 an A
	 * completion and a B completion are both candidates for B's I/O:
	 * the think times tell them apart. */
	struct ist_record r[40];
	struct ann_report rep;
	struct ann_opts o = defaults;
	uint64_t ta = 0, tb = 50;
	size_t n = 0;
	ann_state *a;

	while (n < 40) {
		if (ta <= tb) {
			r[n] = rec(ta, 0, IST_OP_READ, 1000 + n, 512, 100, 0, 0);
			ta += 110;
		} else {
			r[n] = rec(tb, 0, IST_OP_READ, 9000 + n, 512, 300, 0, 0);
			tb += 320;
		}
		n++;
	}
	o.dep_window_ns = 50;
	CU_ASSERT_EQUAL_FATAL(ann_new(&a, &o, -1, 0, 1), 0);
	CU_ASSERT_EQUAL(ann_process(a, r, n), 0);
	ann_finish(a, &rep);
	CU_ASSERT_EQUAL(rep.streams, 2);
	CU_ASSERT_TRUE(rep.streams_inferred);
	CU_ASSERT_EQUAL(rep.dependent, 38); /* all but the first of each */
	for (size_t i = 0; i < n; i++) {
		/* offsets tell the chains apart: A < 9000 */
		uint64_t want = r[i].offset < 9000 ? r[0].stream : r[1].stream;

		CU_ASSERT_EQUAL(r[i].stream, want);
	}
	CU_ASSERT_NOT_EQUAL(r[0].stream, r[1].stream);
	CU_ASSERT_EQUAL(rep.chains_max_inflight, 2);
}

static void test_inference_window(void)
{
	/* an I/O issued long after the completion does not depend on it */
	struct ist_record r[] = {
		rec(0, 0, IST_OP_READ, 0, 512, 100, 0, 0),
		rec(100000, 0, IST_OP_READ, 512, 512, 100, 0, 0),
	};
	struct ann_report rep;
	struct ann_opts o = defaults;
	ann_state *a;

	o.dep_window_ns = 1000;
	CU_ASSERT_EQUAL_FATAL(ann_new(&a, &o, -1, 0, 1), 0);
	CU_ASSERT_EQUAL(ann_process(a, r, 2), 0);
	ann_finish(a, &rep);
	CU_ASSERT_EQUAL(rep.dependent, 0);
	/* the idle chain id is reused rather than growing the stream count */
	CU_ASSERT_EQUAL(r[0].stream, r[1].stream);
}

static void test_txn_per_and_rules(void)
{
	struct ist_record r[10];
	struct ann_report rep;
	struct ann_opts o = defaults;
	struct ann_rule ru;
	ann_state *a;

	for (unsigned i = 0; i < 10; i++)
		r[i] = rec(i * 1000, 0, IST_OP_WRITE, i * 4096, 4096, 10, 3, 0);
	o.txn_per = 3;
	CU_ASSERT_EQUAL(ann_rule_parse("dev=0,op=flush", &o.rules[0]), 0);
	o.nrules = 1;
	CU_ASSERT_EQUAL_FATAL(ann_new(&a, &o, -1, 0, 0), 0);
	CU_ASSERT_EQUAL(ann_process(a, r, 10), 0);
	ann_finish(a, &rep);
	CU_ASSERT_EQUAL(rep.txns, 3);
	CU_ASSERT_EQUAL(rep.markers, 0);
	CU_ASSERT_EQUAL(r[0].txn, 1);
	CU_ASSERT_EQUAL(r[2].txn, 1);
	CU_ASSERT_TRUE(r[2].flags & IST_F_COMMIT);
	CU_ASSERT_EQUAL(r[3].txn, 2);
	CU_ASSERT_EQUAL(r[9].txn, 4);

	CU_ASSERT_EQUAL(ann_rule_parse("dev=log,op=write,flags=fua|sync", &ru), 0);
	CU_ASSERT_TRUE(ru.log_dev_only);
	CU_ASSERT_EQUAL(ru.op, IST_OP_WRITE);
	CU_ASSERT_EQUAL(ru.flags, IST_F_FUA | IST_F_SYNC);
	CU_ASSERT(ann_rule_parse("dev=x", &ru) < 0);
	CU_ASSERT(ann_rule_parse("op=fly", &ru) < 0);
	CU_ASSERT(ann_rule_parse("flags=", &ru) < 0);
	CU_ASSERT(ann_rule_parse("color=red", &ru) < 0);
	CU_ASSERT(ann_rule_parse("dev", &ru) < 0);
	CU_ASSERT(ann_rule_parse("", &ru) < 0);
	CU_ASSERT(ann_rule_parse(",", &ru) < 0);
}

/* fsync's flush issued by a kernel worker (stream 99) goes to the writer
 * waiting on it; a writer's own flush stays its own. */
static void test_flush_owner(void)
{
	struct ist_record r[] = {
		rec(0, 0, IST_OP_WRITE, 0, 8192, 100, 10, IST_F_SYNC),
		rec(50, 0, IST_OP_WRITE, 8192, 8192, 100, 11, IST_F_SYNC),
		rec(120, 0, IST_OP_FLUSH, 0, 0, 500, 99, 0),  /* 10 done, 11 not */
		rec(700, 0, IST_OP_FLUSH, 0, 0, 500, 99, 0),  /* 11 */
		rec(1300, 0, IST_OP_FLUSH, 0, 0, 500, 99, 0), /* nobody waits */
		rec(1900, 0, IST_OP_WRITE, 0, 4096, 100, 12, IST_F_SYNC),
		rec(2000, 0, IST_OP_FLUSH, 0, 0, 100, 12, 0), /* its own */
		rec(2200, 0, IST_OP_WRITE, 4096, 4096, 100, 10, IST_F_SYNC),
		rec(2250, 0, IST_OP_WRITE, 8192, 4096, 100, 11, IST_F_SYNC),
		rec(2400, 0, IST_OP_FLUSH, 0, 0, 100, 99, 0), /* both done: latest */
	};
	struct ann_report rep;
	struct ann_opts o = defaults;
	ann_state *a;

	o.flush_owner = 1;
	CU_ASSERT_EQUAL_FATAL(ann_new(&a, &o, 0, 1, 0), 0);
	CU_ASSERT_EQUAL(ann_process(a, r, 10), 0);
	ann_finish(a, &rep);
	CU_ASSERT_EQUAL(r[2].stream, 10);
	CU_ASSERT_EQUAL(r[3].stream, 11);
	CU_ASSERT_EQUAL(r[4].stream, 99);
	CU_ASSERT_EQUAL(r[6].stream, 12);
	CU_ASSERT_EQUAL(r[9].stream, 11);
	CU_ASSERT_EQUAL(rep.flushes_moved, 3);
	/* the moved flush follows its write's completion: dependent, and it
	 * ends the writer's transaction */
	CU_ASSERT_TRUE(r[2].flags & IST_F_DEPENDENT);
	CU_ASSERT_TRUE(r[2].flags & IST_F_COMMIT);
	CU_ASSERT_EQUAL(r[0].txn, r[2].txn);
	CU_ASSERT_EQUAL(r[7].txn, r[0].txn + 1);

	/* without the option the flushes stay with the worker */
	r[2].stream = 99;
	CU_ASSERT_EQUAL_FATAL(ann_new(&a, &defaults, 0, 1, 0), 0);
	CU_ASSERT_EQUAL(ann_process(a, r, 3), 0);
	ann_finish(a, &rep);
	CU_ASSERT_EQUAL(r[2].stream, 99);
	CU_ASSERT_EQUAL(rep.flushes_moved, 0);
}

/* A flush moved to a writer may still be in flight when the writer issues
 * again: the writer was not waiting on it, so the I/O depends on the
 * writer's own I/Os (all done) and is dependent; an I/O issued while one
 * of its own is in flight stays concurrent; without --flush-owner the
 * rule is as before (a stream's flushes are its own). */
static void test_flush_owner_in_flight(void)
{
	struct ist_record r[] = {
		rec(0, 0, IST_OP_WRITE, 0, 8192, 100, 10, IST_F_SYNC),
		rec(120, 0, IST_OP_FLUSH, 0, 0, 10000, 99, 0), /* to 10, until 10120 */
		rec(5000, 0, IST_OP_WRITE, 8192, 4096, 100, 10, IST_F_SYNC), /* f1 in flight */
		rec(5050, 0, IST_OP_READ, 0, 4096, 100, 10, 0),     /* w2 in flight */
		rec(5200, 0, IST_OP_FLUSH, 0, 0, 100, 99, 0),       /* to 10; f1 in flight */
		rec(5250, 0, IST_OP_WRITE, 0, 4096, 100, 10, IST_F_SYNC), /* f4 in flight */
		rec(20000, 0, IST_OP_WRITE, 0, 4096, 100, 10, IST_F_SYNC), /* all done */
	};
	struct ist_record plain[7];
	struct ann_report rep;
	struct ann_opts o = defaults;
	ann_state *a;

	memcpy(plain, r, sizeof(r));
	o.flush_owner = 1;
	CU_ASSERT_EQUAL_FATAL(ann_new(&a, &o, 0, 1, 0), 0);
	CU_ASSERT_EQUAL(ann_process(a, r, 7), 0);
	ann_finish(a, &rep);
	CU_ASSERT_EQUAL(r[1].stream, 10);
	CU_ASSERT_EQUAL(r[4].stream, 10);
	CU_ASSERT_EQUAL(rep.flushes_moved, 2);
	CU_ASSERT_TRUE(r[1].flags & IST_F_DEPENDENT);
	CU_ASSERT_TRUE(r[2].flags & IST_F_DEPENDENT);  /* past the moved f1 */
	CU_ASSERT_FALSE(r[3].flags & IST_F_DEPENDENT); /* its own w2 in flight */
	CU_ASSERT_TRUE(r[4].flags & IST_F_DEPENDENT);  /* w2, r3 done; f1 moved */
	CU_ASSERT_TRUE(r[5].flags & IST_F_DEPENDENT);  /* f1, f4 moved, in flight */
	CU_ASSERT_TRUE(r[6].flags & IST_F_DEPENDENT);
	CU_ASSERT_EQUAL(rep.dep_past_moved, 3);
	CU_ASSERT_EQUAL(rep.dependent, 5);

	/* without the option the worker's flushes stay its own: stream 10's
	 * I/Os are judged against its own only, as before */
	CU_ASSERT_EQUAL_FATAL(ann_new(&a, &defaults, 0, 1, 0), 0);
	CU_ASSERT_EQUAL(ann_process(a, plain, 7), 0);
	ann_finish(a, &rep);
	CU_ASSERT_EQUAL(plain[1].stream, 99);
	CU_ASSERT_TRUE(plain[2].flags & IST_F_DEPENDENT);
	CU_ASSERT_FALSE(plain[3].flags & IST_F_DEPENDENT);
	CU_ASSERT_TRUE(plain[5].flags & IST_F_DEPENDENT); /* r3 done at 5150 */
	CU_ASSERT_FALSE(plain[4].flags & IST_F_DEPENDENT); /* 99's f1 in flight */
	CU_ASSERT_EQUAL(rep.dep_past_moved, 0);
	CU_ASSERT_EQUAL(rep.dependent, 3);
}

/* --group-commits 2: each commit cycle after the first gets a second
 * commit (write copy and flush, 1 ns) halfway through its think time. */
static void test_group_commits(void)
{
	struct ist_record r[] = {
		rec(0, 0, IST_OP_WRITE, 0, 4096, 100, 7, IST_F_SYNC),
		rec(100, 0, IST_OP_FLUSH, 0, 0, 100, 7, 0),
		rec(1200, 0, IST_OP_WRITE, 4096, 4096, 100, 7, IST_F_SYNC),
		rec(1300, 0, IST_OP_FLUSH, 0, 0, 100, 7, 0),
	};
	const struct ist_record *out;
	struct ann_report rep;
	struct ann_opts o = defaults;
	size_t nout;
	ann_state *a;

	o.group_commits = 2;
	CU_ASSERT_EQUAL_FATAL(ann_new(&a, &o, 0, 1, 0), 0);
	CU_ASSERT_EQUAL_FATAL(ann_process_split(a, r, 4, &out, &nout), 0);
	CU_ASSERT_EQUAL_FATAL(nout, 6);
	CU_ASSERT_EQUAL(out[2].t_ns, 700);
	CU_ASSERT_EQUAL(out[2].op, IST_OP_WRITE);
	CU_ASSERT_EQUAL(out[2].offset, 4096);
	CU_ASSERT_EQUAL(out[2].lat_ns, 1);
	CU_ASSERT_EQUAL(out[3].t_ns, 701);
	CU_ASSERT_EQUAL(out[3].op, IST_OP_FLUSH);
	CU_ASSERT_EQUAL(out[3].stream, 7);
	CU_ASSERT_TRUE(out[3].flags & IST_F_COMMIT);
	CU_ASSERT_TRUE(out[2].flags & IST_F_DEPENDENT);
	CU_ASSERT_EQUAL(out[2].txn, 2);
	CU_ASSERT_EQUAL(out[4].t_ns, 1200);
	CU_ASSERT_EQUAL(out[4].txn, 3);
	CU_ASSERT_TRUE(out[5].flags & IST_F_COMMIT);
	ann_finish(a, &rep);
	CU_ASSERT_EQUAL(rep.split_added, 1);
	CU_ASSERT_EQUAL(rep.txns, 3);
	CU_ASSERT_EQUAL(rep.records, 4);

	/* 1.5 per cycle: one cycle in two is split; without: unchanged */
	{
		struct ist_record m[40];
		size_t n = 0;

		for (unsigned i = 0; i < 20; i++) {
			m[n++] = rec(i * 1000, 0, IST_OP_WRITE, i * 4096, 4096, 100, 7, IST_F_SYNC);
			m[n++] = rec(i * 1000 + 100, 0, IST_OP_FLUSH, 0, 0, 100, 7, 0);
		}
		o.group_commits = 1.5;
		CU_ASSERT_EQUAL_FATAL(ann_new(&a, &o, 0, 1, 0), 0);
		CU_ASSERT_EQUAL(ann_process_split(a, m, n, &out, &nout), 0);
		ann_finish(a, &rep);
		CU_ASSERT_EQUAL(rep.split_added, 9); /* 19 cycles x 0.5, rounded down */
		CU_ASSERT_EQUAL(rep.txns, 29);
		o.group_commits = 0;
		CU_ASSERT_EQUAL_FATAL(ann_new(&a, &o, 0, 1, 0), 0);
		CU_ASSERT_EQUAL(ann_process_split(a, m, n, &out, &nout), 0);
		CU_ASSERT_EQUAL(nout, 40);
		ann_finish(a, &rep);
		CU_ASSERT_EQUAL(rep.txns, 20);
	}
	/* the longer cycle takes more: gaps of 1, 0.2, 0.2 and 3 us at 2 per
	 * cycle: the first (the mean) takes the 1 owed; the second (share
	 * 2 x 0.2 / (0.2 + 0.6) = 0.5 of 1) none; the third (0.6 of 2) one;
	 * the fourth, longer than the mean, the 2 owed: 2, 1, 2 and 3
	 * transactions, 4 inserted for 4 cycles, G per cycle in all */
	{
		struct ist_record m[] = {
			rec(0, 0, IST_OP_WRITE, 0, 4096, 100, 7, IST_F_SYNC),
			rec(100, 0, IST_OP_FLUSH, 0, 0, 100, 7, 0),
			rec(1200, 0, IST_OP_WRITE, 0, 4096, 100, 7, IST_F_SYNC),
			rec(1300, 0, IST_OP_FLUSH, 0, 0, 100, 7, 0),
			rec(1600, 0, IST_OP_WRITE, 0, 4096, 100, 7, IST_F_SYNC),
			rec(1700, 0, IST_OP_FLUSH, 0, 0, 100, 7, 0),
			rec(2000, 0, IST_OP_WRITE, 0, 4096, 100, 7, IST_F_SYNC),
			rec(2100, 0, IST_OP_FLUSH, 0, 0, 100, 7, 0),
			rec(5200, 0, IST_OP_WRITE, 0, 4096, 100, 7, IST_F_SYNC),
			rec(5300, 0, IST_OP_FLUSH, 0, 0, 100, 7, 0),
		};

		o.group_commits = 2;
		CU_ASSERT_EQUAL_FATAL(ann_new(&a, &o, 0, 1, 0), 0);
		CU_ASSERT_EQUAL(ann_process_split(a, m, 10, &out, &nout), 0);
		CU_ASSERT_EQUAL_FATAL(nout, 10 + 2 * 4);
		CU_ASSERT_EQUAL(out[2].t_ns, 700);   /* 1 us: halfway */
		CU_ASSERT_EQUAL(out[6].t_ns, 1600);  /* 0.2 us: none */
		CU_ASSERT_EQUAL(out[8].t_ns, 1900);  /* 0.2 us: halfway */
		CU_ASSERT_EQUAL(out[12].t_ns, 2200 + 1000); /* 3 us: a third */
		CU_ASSERT_EQUAL(out[14].t_ns, 2200 + 2000); /* and two thirds */
		CU_ASSERT_EQUAL(out[16].t_ns, 5200);
		ann_finish(a, &rep);
		CU_ASSERT_EQUAL(rep.split_added, 4);
		CU_ASSERT_EQUAL(rep.txns, 5 + 4);
	}
	/* think times skewed to the short side (one of 10 us, then nine of
	 * 0.5 us, ten times over; mean 1.45 us) at 1.4 per cycle: 0.4
	 * inserted a cycle, 39.6 for 99 cycles (the rule before 2026-12-04
	 * inserted 20: each short cycle's own commit was charged to what it
	 * owed, and the long cycles paid the debt) */
	{
		static struct ist_record m[200];
		size_t n = 0;
		uint64_t t = 0;

		for (unsigned i = 0; i < 100; i++) {
			m[n++] = rec(t, 0, IST_OP_WRITE, i * 4096, 4096, 100, 7, IST_F_SYNC);
			m[n++] = rec(t + 100, 0, IST_OP_FLUSH, 0, 0, 100, 7, 0);
			t += 200 + (i % 10 == 0 ? 10000 : 500);
		}
		o.group_commits = 1.4;
		CU_ASSERT_EQUAL_FATAL(ann_new(&a, &o, 0, 1, 0), 0);
		CU_ASSERT_EQUAL(ann_process_split(a, m, n, &out, &nout), 0);
		ann_finish(a, &rep);
		CU_ASSERT(rep.split_added >= 38 && rep.split_added <= 40);
		CU_ASSERT_EQUAL(rep.txns, 100 + rep.split_added);
	}
}

int main(void)
{
	static const struct cutest tests[] = {
		{ "dependencies within known streams", test_dependency_known_streams },
		{ "log detection and commit markers", test_log_detection_and_commits },
		{ "no log device", test_no_log_device },
		{ "stream inference from timing", test_stream_inference },
		{ "inference window", test_inference_window },
		{ "txn-per and rules", test_txn_per_and_rules },
		{ "flush owner", test_flush_owner },
		{ "flush owner in flight", test_flush_owner_in_flight },
		{ "group commits", test_group_commits },
		{ NULL, NULL },
	};

	return cutest_main("annotate", tests);
}
