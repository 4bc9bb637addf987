/* SPDX-License-Identifier: MIT */
/* test_capture.c - unit tests of the capture module: rwbs flags, the
 * issue/completion matcher, TCP reassembly, and the iSCSI and NBD decoders
 * on synthetic and real captures. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cutest.h"
#include "capture/pcap_import.h"
#include "capture/rb_page.h"
#include "capture/rec_match.h"
#include "capture/tcp_reasm.h"
#include "capture/trace_rec.h"

/* ------------------------------------------------- ring-buffer pages */

static size_t rb_put(uint8_t *p, unsigned type_len, uint32_t delta,
		     const uint32_t *words, size_t nwords)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	uint32_t h = type_len << 27 | delta;
#else
	uint32_t h = type_len | delta << 5;
#endif

	memcpy(p, &h, 4);
	if (nwords)
		memcpy(p + 4, words, 4 * nwords);
	return 4 + 4 * nwords;
}

/* A sub-buffer of 256 bytes: header, then n bytes of events. */
static void rb_header(uint8_t *page, uint64_t ts, unsigned long commit)
{
	memcpy(page, &ts, 8);
	memcpy(page + 8, &commit, sizeof(commit));
}

static void test_rb_page_events(void)
{
	uint8_t page[512];
	const size_t hdr = 8 + sizeof(long);
	uint8_t *p = page + hdr;
	uint32_t w[40];
	struct rb_page_iter it;
	const uint8_t *d;
	uint64_t ts;
	int64_t missed;
	uint32_t len;
	size_t n = 0;

	memset(page, 0xee, sizeof(page));
	w[0] = 0x11111111; w[1] = 0x22222222;
	n += rb_put(p + n, 2, 5, w, 2);             /* data, 8 bytes, +5   */
	w[0] = 1;
	n += rb_put(p + n, 30, 3, w, 1);            /* extend by 2^27 + 3  */
	w[0] = 8; w[1] = 0;
	n += rb_put(p + n, 29, 1, w, 2);            /* discarded, 12 bytes */
	w[0] = 4 + 120;
	memset(w + 1, 0x33, 120);
	n += rb_put(p + n, 0, 7, w, 31);            /* long: 120 bytes, +7 */
	w[0] = 0;
	n += rb_put(p + n, 31, 5000, w, 1);         /* absolute 5000       */
	w[0] = 0x44444444;
	n += rb_put(p + n, 1, 0, w, 1);             /* data, 4 bytes, +0   */
	w[0] = 0;
	n += rb_put(p + n, 29, 0, w, 1);            /* the rest is empty   */
	n += rb_put(p + n, 1, 0, w, 1);             /* not reached         */
	rb_header(page, 1000, n);
	CU_ASSERT_EQUAL_FATAL(rb_page_open(&it, page, hdr + n, &missed), 0);
	CU_ASSERT_EQUAL(missed, 0);
	d = rb_page_next(&it, &len, &ts);
	CU_ASSERT_PTR_EQUAL_FATAL(d, p + 4);
	CU_ASSERT_EQUAL(len, 8);
	CU_ASSERT_EQUAL(ts, 1005);
	d = rb_page_next(&it, &len, &ts);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(len, 120);
	CU_ASSERT_EQUAL(d[0], 0x33);
	CU_ASSERT_EQUAL(d[119], 0x33);
	CU_ASSERT_EQUAL(ts, 1005 + (1ull << 27) + 3 + 7);
	d = rb_page_next(&it, &len, &ts);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(len, 4);
	CU_ASSERT_EQUAL(d[0], 0x44);
	CU_ASSERT_EQUAL(ts, 5000);
	CU_ASSERT_PTR_NULL(rb_page_next(&it, &len, &ts));
	CU_ASSERT_PTR_NULL(rb_page_next(&it, &len, &ts));
}

static void test_rb_page_missed_and_bad(void)
{
	uint8_t page[256];
	const size_t hdr = 8 + sizeof(long);
	unsigned long lost = 42;
	struct rb_page_iter it;
	uint64_t ts;
	int64_t missed;
	uint32_t w[2] = { 7, 0 }, len;
	size_t n;

	memset(page, 0, sizeof(page));
	n = rb_put(page + hdr, 1, 2, w, 1);
	memcpy(page + hdr + n, &lost, sizeof(lost));
	rb_header(page, 10, n | 1ul << 31 | 1ul << 30);
	CU_ASSERT_EQUAL(rb_page_open(&it, page, sizeof(page), &missed), 0);
	CU_ASSERT_EQUAL(missed, 42);
	CU_ASSERT_PTR_NOT_NULL(rb_page_next(&it, &len, &ts));
	CU_ASSERT_EQUAL(ts, 12);
	CU_ASSERT_PTR_NULL(rb_page_next(&it, &len, &ts)); /* the count is not an event */
	rb_header(page, 10, n | 1ul << 31);
	CU_ASSERT_EQUAL(rb_page_open(&it, page, sizeof(page), &missed), 0);
	CU_ASSERT_EQUAL(missed, -1);
	/* A long event longer than the data is not followed. */
	w[0] = 200;
	n = rb_put(page + hdr, 0, 0, w, 2);
	rb_header(page, 0, n);
	CU_ASSERT_EQUAL(rb_page_open(&it, page, sizeof(page), &missed), 0);
	CU_ASSERT_PTR_NULL(rb_page_next(&it, &len, &ts));
	/* A commit larger than what was read is cut to it. */
	n = rb_put(page + hdr, 28, 0, w, 0);
	rb_header(page, 0, 4000);
	CU_ASSERT_EQUAL(rb_page_open(&it, page, hdr + 20, &missed), 0);
	CU_ASSERT_PTR_NULL(rb_page_next(&it, &len, &ts));
	CU_ASSERT_EQUAL(rb_page_open(&it, page, 4, &missed), -EINVAL);
}

/* ---------------------------------------------------------------- rwbs */

static void test_rwbs(void)
{
	static const struct {
		const char *s;
		int op;
		unsigned flags;
	} t[] = {
		{ "R", IST_OP_READ, 0 },
		{ "RA", IST_OP_READ, IST_F_READAHEAD },
		{ "RS", IST_OP_READ, IST_F_SYNC },
		{ "RM", IST_OP_READ, IST_F_META },
		{ "WS", IST_OP_WRITE, IST_F_SYNC },
		{ "WFS", IST_OP_WRITE, IST_F_FUA | IST_F_SYNC },
		{ "FWFS", IST_OP_WRITE, IST_F_PREFLUSH | IST_F_FUA | IST_F_SYNC },
		{ "FWSM", IST_OP_WRITE, IST_F_PREFLUSH | IST_F_SYNC | IST_F_META },
		{ "F", IST_OP_FLUSH, 0 },
		{ "FF", IST_OP_FLUSH, 0 },
		{ "FN", IST_OP_FLUSH, 0 },
		{ "D", IST_OP_DISCARD, 0 },
		{ "DE", IST_OP_DISCARD, 0 },
		{ "DS", IST_OP_DISCARD, IST_F_SYNC },
		{ "N", IST_OP_COUNT, 0 },
		/* kernels since 2025: write zeroes and zone commands named */
		{ "WZ", IST_OP_WRITE_ZEROES, 0 },
		{ "WZS", IST_OP_WRITE_ZEROES, IST_F_SYNC },
		{ "ZA", IST_OP_WRITE, 0 },
		{ "ZAS", IST_OP_WRITE, IST_F_SYNC },
		{ "ZR", CAP_OP_ZONE, 0 },
		{ "ZRA", CAP_OP_ZONE, 0 },
		{ "ZO", CAP_OP_ZONE, 0 },
		{ "ZC", CAP_OP_ZONE, 0 },
		{ "ZF", CAP_OP_ZONE, 0 },
		{ "ZFS", CAP_OP_ZONE, IST_F_SYNC },
	};
	uint8_t op;
	uint16_t fl;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CU_ASSERT_EQUAL_FATAL(cap_rwbs_parse(t[i].s, strlen(t[i].s), &op, &fl), 0);
		CU_ASSERT_EQUAL(op, t[i].op);
		CU_ASSERT_EQUAL(fl, t[i].flags);
	}
	CU_ASSERT_EQUAL(cap_rwbs_parse("", 0, &op, &fl), -EINVAL);
	CU_ASSERT_EQUAL(cap_rwbs_parse("X", 1, &op, &fl), -EINVAL);
	/* a lone 'Z' or an unknown zone command is no op iostorm knows */
	CU_ASSERT_EQUAL(cap_rwbs_parse("Z", 1, &op, &fl), -EINVAL);
	CU_ASSERT_EQUAL(cap_rwbs_parse("ZX", 2, &op, &fl), -EINVAL);
}

/* The cache gives what the parser gives, for every string in a 10-byte
 * field whatever follows its NUL, for fields too short to cache, strings
 * too long to cache, invalid ones, and many strings sharing the slots. */
static void test_rwbs_cached(void)
{
	static const char *const t[] = {
		"R", "W", "WS", "RA", "RS", "RM", "WFS", "FWFS", "FWSM", "F",
		"FF", "FN", "D", "DE", "DS", "N", "X", "", "WSM", "RAM",
		"WZ", "ZA", "ZR", "ZRA", "ZC", "Z", "ZX",
		"FWFSM", "WFSMU", "FWFSMU", "RSAMUF", "WFSAMUF", /* 7 */
		"FWFSAMU", "FWFSAMUX", "FWFSAMUXY", /* 7, 8, 9: not cached */
	};
	struct cap_rwbs_cache c;
	uint8_t field[10], op, op2;
	uint16_t fl, fl2;
	int ret, ret2;

	memset(&c, 0, sizeof(c));
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			size_t n = strlen(t[i]);

			/* garbage after the NUL, different each round */
			memset(field, 'W' + round, sizeof(field));
			memcpy(field, t[i], n);
			if (n < sizeof(field))
				field[n] = '\0';
			ret = cap_rwbs_parse(t[i], n, &op, &fl);
			ret2 = cap_rwbs_cached(&c, field, sizeof(field), &op2, &fl2);
			CU_ASSERT_EQUAL(ret2, ret);
			if (ret == 0 && ret2 == 0) {
				CU_ASSERT_EQUAL(op2, op);
				CU_ASSERT_EQUAL(fl2, fl);
			}
			/* the inline lookup (its hit, or the call) likewise */
			ret2 = cap_rwbs_lookup(&c, field, sizeof(field), &op2, &fl2);
			CU_ASSERT_EQUAL(ret2, ret);
			if (ret == 0 && ret2 == 0) {
				CU_ASSERT_EQUAL(op2, op);
				CU_ASSERT_EQUAL(fl2, fl);
			}
			/* a field shorter than a word: parsed, not cached */
			if (n < 6) {
				ret2 = cap_rwbs_cached(&c, field, n + 1, &op2, &fl2);
				CU_ASSERT_EQUAL(ret2, ret);
				if (ret == 0 && ret2 == 0) {
					CU_ASSERT_EQUAL(op2, op);
					CU_ASSERT_EQUAL(fl2, fl);
				}
			}
		}
	}
	/* "R" then "RA" in the same call sequence: no prefix confusion */
	memcpy(field, "RA\0\0\0\0\0\0\0", 10);
	CU_ASSERT_EQUAL(cap_rwbs_cached(&c, field, 10, &op, &fl), 0);
	CU_ASSERT_EQUAL(fl, IST_F_READAHEAD);
	memcpy(field, "R\0A\0\0\0\0\0\0", 10);
	CU_ASSERT_EQUAL(cap_rwbs_cached(&c, field, 10, &op, &fl), 0);
	CU_ASSERT_EQUAL(op, IST_OP_READ);
	CU_ASSERT_EQUAL(fl, 0);
}

/* ---------------------------------------------------------------- matcher */

struct sink {
	struct ist_record r[64];
	int n;
	int fail_at; /* emit fails on this record (1-based), 0 never */
};

static int sink_emit(void *ctx, const struct ist_record *rec)
{
	struct sink *s = ctx;

	if (s->fail_at && s->n + 1 == s->fail_at)
		return -EIO;
	if (s->n < 64)
		s->r[s->n] = *rec;
	s->n++;
	return 0;
}

static struct cap_event ev(uint64_t ts, uint64_t sector, int complete, uint8_t op)
{
	struct cap_event e;

	memset(&e, 0, sizeof(e));
	e.ts_ns = ts;
	e.sector = sector;
	e.nr_sector = 8;
	e.complete = (uint8_t)complete;
	e.op = op;
	e.pid = 42;
	return e;
}

static void test_match_order(void)
{
	struct sink s = { .n = 0 };
	struct cap_match_stats st;
	cap_match *m;
	struct cap_event e;

	CU_ASSERT_EQUAL_FATAL(cap_match_new(&m, 0, 1000000, 100), 0);
	e = ev(1000, 8, 0, IST_OP_READ);
	cap_match_event(m, &e, sink_emit, &s);
	e = ev(2000, 16, 0, IST_OP_WRITE);
	cap_match_event(m, &e, sink_emit, &s);
	/* The second completes first: nothing leaves before the first. */
	e = ev(2500, 16, 1, IST_OP_WRITE);
	cap_match_event(m, &e, sink_emit, &s);
	CU_ASSERT_EQUAL(s.n, 0);
	/* A completion with another op at the same sector is not its. */
	e = ev(2600, 8, 1, IST_OP_WRITE);
	cap_match_event(m, &e, sink_emit, &s);
	CU_ASSERT_EQUAL(s.n, 0);
	e = ev(3000, 8, 1, IST_OP_READ);
	cap_match_event(m, &e, sink_emit, &s);
	CU_ASSERT_EQUAL_FATAL(s.n, 2);
	CU_ASSERT_EQUAL(s.r[0].t_ns, 900);
	CU_ASSERT_EQUAL(s.r[0].offset, 8 * 512);
	CU_ASSERT_EQUAL(s.r[0].len, 4096);
	CU_ASSERT_EQUAL(s.r[0].lat_ns, 2000);
	CU_ASSERT_EQUAL(s.r[0].stream, 42);
	CU_ASSERT_EQUAL(s.r[1].op, IST_OP_WRITE);
	CU_ASSERT_EQUAL(s.r[1].lat_ns, 500);
	cap_match_get_stats(m, &st);
	CU_ASSERT_EQUAL(st.matched, 2);
	CU_ASSERT_EQUAL(st.orphan_completions, 1);
	CU_ASSERT_EQUAL(cap_match_pending(m), 0);
	cap_match_free(m);
}

/* After the stop: a completion that matches nothing belongs to an issue
 * after the stop (not recorded) and is no orphan; one at or before the
 * stop instant still is; one that matches a request in flight at the stop
 * completes it. */
static void test_match_after_stop(void)
{
	struct sink s = { .n = 0 };
	struct cap_match_stats st;
	cap_match *m;
	struct cap_event e;

	CU_ASSERT_EQUAL_FATAL(cap_match_new(&m, 0, 1000000, 100), 0);
	e = ev(1000, 8, 1, IST_OP_READ); /* issued before the start */
	cap_match_event(m, &e, sink_emit, &s);
	e = ev(2000, 16, 0, IST_OP_WRITE);
	cap_match_event(m, &e, sink_emit, &s);
	cap_match_set_stop(m, 3000);
	e = ev(3000, 24, 1, IST_OP_READ); /* at the stop: still lost */
	cap_match_event(m, &e, sink_emit, &s);
	e = ev(3500, 32, 1, IST_OP_WRITE); /* its issue after the stop */
	cap_match_event(m, &e, sink_emit, &s);
	CU_ASSERT_EQUAL(s.n, 0);
	e = ev(4000, 16, 1, IST_OP_WRITE); /* in flight at the stop */
	cap_match_event(m, &e, sink_emit, &s);
	CU_ASSERT_EQUAL_FATAL(s.n, 1);
	CU_ASSERT_EQUAL(s.r[0].lat_ns, 2000);
	e = ev(4500, 16, 1, IST_OP_WRITE); /* its second issue: after */
	cap_match_event(m, &e, sink_emit, &s);
	cap_match_get_stats(m, &st);
	CU_ASSERT_EQUAL(st.completions, 5);
	CU_ASSERT_EQUAL(st.matched, 1);
	CU_ASSERT_EQUAL(st.orphan_completions, 2);
	CU_ASSERT_EQUAL(st.after_stop, 2);
	cap_match_free(m);
}

static void test_match_same_sector_fifo(void)
{
	struct sink s = { .n = 0 };
	cap_match *m;
	struct cap_event e;

	CU_ASSERT_EQUAL_FATAL(cap_match_new(&m, 0, 0, 0), 0);
	for (int i = 0; i < 3; i++) {
		e = ev(100 + (uint64_t)i * 100, 0, 0, IST_OP_FLUSH);
		cap_match_event(m, &e, sink_emit, &s);
	}
	for (int i = 0; i < 3; i++) {
		e = ev(1000 + (uint64_t)i, 0, 1, IST_OP_FLUSH);
		cap_match_event(m, &e, sink_emit, &s);
	}
	CU_ASSERT_EQUAL_FATAL(s.n, 3);
	CU_ASSERT_EQUAL(s.r[0].lat_ns, 900); /* oldest first */
	CU_ASSERT_EQUAL(s.r[1].lat_ns, 801);
	CU_ASSERT_EQUAL(s.r[2].lat_ns, 702);
	cap_match_free(m);
}

/* An issue paired already (the recorder's same-CPU shortcut): queued
 * done, leaves in issue order behind a pending one, is not in the hash (a
 * later completion with its key is no longer its), and counts as issued,
 * completed and matched. */
static void test_match_paired_issue(void)
{
	struct sink s = { .n = 0 };
	struct cap_match_stats st;
	cap_match *m;
	struct cap_event e;

	CU_ASSERT_EQUAL_FATAL(cap_match_new(&m, 0, 0, 0), 0);
	e = ev(100, 8, 0, IST_OP_READ);
	cap_match_event(m, &e, sink_emit, &s);
	e = ev(200, 16, 0, IST_OP_WRITE);
	e.lat_ns = 50;
	cap_match_event(m, &e, sink_emit, &s);
	CU_ASSERT_EQUAL(s.n, 0); /* behind the pending read */
	CU_ASSERT_EQUAL(cap_match_pending(m), 2);
	e = ev(300, 16, 1, IST_OP_WRITE);
	cap_match_event(m, &e, sink_emit, &s);
	CU_ASSERT_EQUAL(s.n, 0);
	e = ev(400, 8, 1, IST_OP_READ);
	cap_match_event(m, &e, sink_emit, &s);
	CU_ASSERT_EQUAL_FATAL(s.n, 2);
	CU_ASSERT_EQUAL(s.r[0].lat_ns, 300);
	CU_ASSERT_EQUAL(s.r[1].t_ns, 200);
	CU_ASSERT_EQUAL(s.r[1].offset, 16 * 512);
	CU_ASSERT_EQUAL(s.r[1].lat_ns, 50);
	/* at the head, a paired issue leaves at once */
	e = ev(500, 24, 0, IST_OP_READ);
	e.lat_ns = 7;
	cap_match_event(m, &e, sink_emit, &s);
	CU_ASSERT_EQUAL_FATAL(s.n, 3);
	CU_ASSERT_EQUAL(s.r[2].lat_ns, 7);
	cap_match_get_stats(m, &st);
	CU_ASSERT_EQUAL(st.issues, 3);
	CU_ASSERT_EQUAL(st.completions, 4);
	CU_ASSERT_EQUAL(st.matched, 3);
	CU_ASSERT_EQUAL(st.orphan_completions, 1);
	CU_ASSERT_EQUAL(st.emitted, 3);
	CU_ASSERT_EQUAL(cap_match_pending(m), 0);
	cap_match_free(m);
}

static void test_match_timeout_evict_drain(void)
{
	struct sink s = { .n = 0 };
	struct cap_match_stats st;
	cap_match *m;
	struct cap_event e;

	/* At most 4 in flight; 1000 ns to complete. */
	CU_ASSERT_EQUAL_FATAL(cap_match_new(&m, 4, 1000, 0), 0);
	for (int i = 0; i < 6; i++) {
		e = ev(10 + (uint64_t)i, (uint64_t)i * 8, 0, IST_OP_READ);
		CU_ASSERT_EQUAL(cap_match_event(m, &e, sink_emit, &s), 0);
	}
	cap_match_get_stats(m, &st);
	CU_ASSERT_EQUAL(st.evicted, 2);
	CU_ASSERT_EQUAL(s.n, 2);
	CU_ASSERT_EQUAL(s.r[0].lat_ns, 0);
	/* Before the timeout nothing moves; after it the head goes. */
	cap_match_advance(m, 500, sink_emit, &s);
	CU_ASSERT_EQUAL(s.n, 2);
	cap_match_advance(m, 1012, sink_emit, &s);
	CU_ASSERT_EQUAL(s.n, 3);
	cap_match_drain(m, sink_emit, &s);
	CU_ASSERT_EQUAL(s.n, 6);
	cap_match_get_stats(m, &st);
	CU_ASSERT_EQUAL(st.no_completion, 4);
	CU_ASSERT_EQUAL(st.max_pending, 4);
	cap_match_free(m);
}

static void test_match_grow_and_fail(void)
{
	struct sink s = { .n = 0, .fail_at = 3 };
	cap_match *m;
	struct cap_event e;
	int ret = 0;

	CU_ASSERT_EQUAL_FATAL(cap_match_new(&m, 0, 0, 0), 0);
	/* More in flight than the initial ring: it grows, order kept. */
	for (int i = 0; i < 10000; i++) {
		e = ev((uint64_t)i, (uint64_t)i * 8, 0, IST_OP_WRITE);
		CU_ASSERT_EQUAL(cap_match_event(m, &e, sink_emit, &s), 0);
	}
	CU_ASSERT_EQUAL(cap_match_pending(m), 10000);
	for (int i = 0; i < 10000 && ret == 0; i++) {
		e = ev(20000 + (uint64_t)i, (uint64_t)i * 8, 1, IST_OP_WRITE);
		ret = cap_match_event(m, &e, sink_emit, &s);
	}
	/* An emit error comes back to the caller. */
	CU_ASSERT_EQUAL(ret, -EIO);
	CU_ASSERT_EQUAL(s.n, 2);
	CU_ASSERT_EQUAL(s.r[1].offset, 8 * 512);
	cap_match_free(m);
}

/* ---------------------------------------------------------------- TCP */

struct bytes {
	uint8_t b[256];
	size_t n;
	uint64_t unknown;
};

static int b_data(void *p, const uint8_t *d, size_t n, uint64_t ts)
{
	struct bytes *b = p;

	(void)ts;
	if (b->n + n <= sizeof(b->b))
		memcpy(b->b + b->n, d, n);
	b->n += n;
	return 0;
}

static int b_unknown(void *p, uint64_t n, uint64_t ts)
{
	struct bytes *b = p;

	(void)ts;
	if (b->n + n <= sizeof(b->b))
		memset(b->b + b->n, '?', n);
	b->n += n;
	b->unknown += n;
	return 0;
}

static void test_tcp_reassembly(void)
{
	struct bytes b = { .n = 0 };
	struct cap_tcp_sink sink = { b_data, b_unknown, &b };
	struct cap_tcp_stats st;
	struct cap_tcp_dir d;

	memset(&d, 0, sizeof(d));
	memset(&st, 0, sizeof(st));
	/* SYN at 1000: data starts at 1001. */
	cap_tcp_segment(&d, 1000, 1, NULL, 0, 0, 0, &sink, &st);
	cap_tcp_segment(&d, 1001, 0, (const uint8_t *)"abc", 3, 3, 1, &sink, &st);
	/* Out of order: "ghi" before "def". */
	cap_tcp_segment(&d, 1007, 0, (const uint8_t *)"ghi", 3, 3, 2, &sink, &st);
	CU_ASSERT_EQUAL(b.n, 3);
	cap_tcp_segment(&d, 1004, 0, (const uint8_t *)"def", 3, 3, 3, &sink, &st);
	CU_ASSERT_EQUAL(b.n, 9);
	/* Retransmission, and an overlap bringing two new bytes. */
	cap_tcp_segment(&d, 1004, 0, (const uint8_t *)"def", 3, 3, 4, &sink, &st);
	cap_tcp_segment(&d, 1008, 0, (const uint8_t *)"hijk", 4, 4, 5, &sink, &st);
	CU_ASSERT_EQUAL(b.n, 11);
	CU_ASSERT_EQUAL(memcmp(b.b, "abcdefghijk", 11), 0);
	CU_ASSERT_EQUAL(st.retransmitted, 1);
	CU_ASSERT_EQUAL(st.out_of_order, 1);
	/* Snap length: 5 bytes long, 2 captured. */
	cap_tcp_segment(&d, 1012, 0, (const uint8_t *)"lm", 2, 5, 6, &sink, &st);
	CU_ASSERT_EQUAL(b.n, 16);
	CU_ASSERT_EQUAL(b.unknown, 3);
	CU_ASSERT_EQUAL(st.missing_bytes, 3);
	/* A hole never filled: held until the peer answers past it. */
	cap_tcp_segment(&d, 1020, 0, (const uint8_t *)"xy", 2, 2, 7, &sink, &st);
	CU_ASSERT_EQUAL(b.n, 16);
	cap_tcp_acked(&d, 1022, 0, 8, &sink, &st); /* a pure ACK: not yet */
	CU_ASSERT_EQUAL(b.n, 16);
	cap_tcp_acked(&d, 1022, 1, 9, &sink, &st); /* an answer: lost */
	CU_ASSERT_EQUAL(b.n, 21);
	CU_ASSERT_EQUAL(memcmp(b.b + 16, "???xy", 5), 0);
	CU_ASSERT_EQUAL(st.gaps, 1);
	CU_ASSERT_EQUAL(st.gap_bytes, 3);
	/* End of capture delivers what is held across the hole. */
	cap_tcp_segment(&d, 1030, 0, (const uint8_t *)"z", 1, 1, 10, &sink, &st);
	cap_tcp_flush(&d, 11, &sink, &st);
	CU_ASSERT_EQUAL(b.n, 30);
	CU_ASSERT_EQUAL(st.gaps, 2);
	cap_tcp_free(&d);
}

static void test_tcp_wrap_and_bound(void)
{
	struct bytes b = { .n = 0 };
	struct cap_tcp_sink sink = { b_data, b_unknown, &b };
	struct cap_tcp_stats st;
	struct cap_tcp_dir d;

	memset(&d, 0, sizeof(d));
	memset(&st, 0, sizeof(st));
	/* Joined mid-stream just before the sequence number wraps. */
	cap_tcp_segment(&d, 0xfffffffe, 0, (const uint8_t *)"ab", 2, 2, 0, &sink, &st);
	cap_tcp_segment(&d, 0, 0, (const uint8_t *)"cd", 2, 2, 0, &sink, &st);
	CU_ASSERT_EQUAL(b.n, 4);
	CU_ASSERT_EQUAL(d.joined_mid, 1);
	/* Held segments are bounded: past the bound the hole is a gap. */
	b.n = 0;
	for (unsigned i = 0; i < CAP_TCP_HOLD_SEGS + 1; i++)
		cap_tcp_segment(&d, 100 + i * 1000, 0, NULL, 0, 1000, 0, &sink, &st);
	CU_ASSERT(d.nheld <= CAP_TCP_HOLD_SEGS);
	CU_ASSERT_EQUAL(st.gaps, 1);
	cap_tcp_free(&d);
}

/* ---------------------------------------------------------------- pcap */

/* A capture built in memory: Ethernet/IPv4/TCP packets. */
struct pcapbuf {
	uint8_t *b;
	size_t n, cap;
	uint32_t seq[2];
};

static void put(struct pcapbuf *p, const void *d, size_t n)
{
	if (p->n + n > p->cap) {
		p->cap = (p->n + n) * 2;
		p->b = realloc(p->b, p->cap);
	}
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

static void put32(struct pcapbuf *p, uint32_t v)
{
	put(p, &v, 4); /* host order, as the magic says */
}

static void pcap_start(struct pcapbuf *p)
{
	uint16_t v[2] = { 2, 4 };

	memset(p, 0, sizeof(*p));
	put32(p, 0xa1b2c3d4);
	put(p, v, 4);
	put32(p, 0);
	put32(p, 0);
	put32(p, 65535);
	put32(p, 1); /* Ethernet */
	p->seq[0] = 5000;
	p->seq[1] = 90000;
}

/* A segment from the client (dir 0) or the server; caplen <= len cuts it. */
static void pcap_seg(struct pcapbuf *p, int dir, uint16_t port, const uint8_t *data,
		     size_t len, size_t caplen, uint32_t usec)
{
	uint8_t h[54];
	uint16_t tot = (uint16_t)(40 + len), cp = dir ? port : 40000,
		 dp = dir ? 40000 : port;

	memset(h, 0, sizeof(h));
	h[12] = 0x08;
	h[14] = 0x45;
	h[16] = (uint8_t)(tot >> 8);
	h[17] = (uint8_t)tot;
	h[22] = 64;
	h[23] = 6;
	h[26] = 127; h[29] = dir ? 2 : 1;
	h[30] = 127; h[33] = dir ? 1 : 2;
	h[34] = (uint8_t)(cp >> 8); h[35] = (uint8_t)cp;
	h[36] = (uint8_t)(dp >> 8); h[37] = (uint8_t)dp;
	h[38] = (uint8_t)(p->seq[dir] >> 24); h[39] = (uint8_t)(p->seq[dir] >> 16);
	h[40] = (uint8_t)(p->seq[dir] >> 8); h[41] = (uint8_t)p->seq[dir];
	h[46] = 0x50;
	h[47] = 0x18; /* PSH ACK; ack number 0: no ACK evidence */
	put32(p, 1);
	put32(p, usec);
	put32(p, (uint32_t)(54 + caplen));
	put32(p, (uint32_t)(54 + len));
	put(p, h, 54);
	put(p, data, caplen);
	p->seq[dir] += (uint32_t)len;
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

static void be64(uint8_t *p, uint64_t v)
{
	be32(p, (uint32_t)(v >> 32));
	be32(p + 4, (uint32_t)v);
}

static size_t nbd_req(uint8_t *b, uint16_t type, uint64_t handle, uint64_t off,
		      uint32_t len)
{
	memset(b, 0, 28);
	be32(b, 0x25609513);
	b[7] = (uint8_t)type;
	be64(b + 8, handle);
	be64(b + 16, off);
	be32(b + 24, len);
	return 28;
}

static size_t nbd_simple(uint8_t *b, uint64_t handle)
{
	memset(b, 0, 16);
	be32(b, 0x67446698);
	be64(b + 8, handle);
	return 16;
}

static int run_mem(struct pcapbuf *p, const struct cap_pcap_opts *o,
		   struct sink *s, struct cap_pcap_stats *st, ist_header **h,
		   char *err, size_t errlen)
{
	*h = ist_header_new();
	s->n = 0;
	return cap_pcap_import_mem(p->b, p->n, o, *h, sink_emit, s, st, err, errlen);
}

static void test_nbd_mid_stream(void)
{
	struct cap_pcap_opts o = { .nbd_port = 10809 };
	struct cap_pcap_stats st;
	struct pcapbuf p;
	struct sink s;
	ist_header *h;
	uint8_t b[9000];
	char err[256];
	size_t n;

	pcap_start(&p);
	/* Joined mid-stream: the first bytes are the tail of a write. */
	memset(b, 0xee, 100);
	pcap_seg(&p, 0, 10809, b, 100, 100, 1);
	n = nbd_req(b, 1, 7, 4096, 4096);         /* WRITE with data */
	memset(b + n, 0x25, 4096);
	pcap_seg(&p, 0, 10809, b, n + 4096, 60, 2); /* snap length: 60 */
	pcap_seg(&p, 1, 10809, b, nbd_simple(b, 7), 16, 30);
	n = nbd_req(b, 0, 8, 8192, 2048);         /* READ */
	n += nbd_req(b + n, 3, 9, 0, 0);          /* FLUSH, same segment */
	pcap_seg(&p, 0, 10809, b, n, n, 40);
	n = nbd_simple(b, 8);
	memset(b + n, 0x67, 2048);                /* read data: looks like magic */
	pcap_seg(&p, 1, 10809, b, n + 2048, n + 2048, 50);
	pcap_seg(&p, 1, 10809, b, nbd_simple(b, 9), 16, 70);
	n = nbd_req(b, 6, 10, 1 << 20, 65536);    /* WRITE_ZEROES, FUA */
	b[5] = 1;
	pcap_seg(&p, 0, 10809, b, n, n, 80);
	n = nbd_req(b, 4, 11, 2 << 20, 4096);     /* TRIM, no reply */
	pcap_seg(&p, 0, 10809, b, n, n, 81);
	/* Structured reply, not done, then done. */
	memset(b, 0, 20);
	be32(b, 0x668e33ef);
	be64(b + 8, 10);
	pcap_seg(&p, 1, 10809, b, 20, 20, 90);
	b[5] = 1;
	pcap_seg(&p, 1, 10809, b, 20, 20, 95);

	CU_ASSERT_EQUAL_FATAL(run_mem(&p, &o, &s, &st, &h, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(s.n, 5);
	CU_ASSERT_EQUAL(s.r[0].op, IST_OP_WRITE);
	CU_ASSERT_EQUAL(s.r[0].offset, 4096);
	CU_ASSERT_EQUAL(s.r[0].len, 4096);
	CU_ASSERT_EQUAL(s.r[0].lat_ns, 28000);
	CU_ASSERT_EQUAL(s.r[1].op, IST_OP_READ);
	CU_ASSERT_EQUAL(s.r[1].lat_ns, 10000);
	CU_ASSERT_EQUAL(s.r[2].op, IST_OP_FLUSH);
	CU_ASSERT_EQUAL(s.r[2].lat_ns, 30000);
	CU_ASSERT_EQUAL(s.r[3].op, IST_OP_WRITE_ZEROES);
	CU_ASSERT_EQUAL(s.r[3].flags, IST_F_FUA);
	CU_ASSERT_EQUAL(s.r[3].lat_ns, 15000);
	CU_ASSERT_EQUAL(s.r[4].op, IST_OP_DISCARD);
	CU_ASSERT_EQUAL(s.r[4].lat_ns, 0);
	CU_ASSERT_EQUAL(st.unmatched_commands, 1);
	CU_ASSERT_EQUAL(st.truncated, 1);
	CU_ASSERT_EQUAL(st.missing_bytes, 4096 + 28 - 60);
	CU_ASSERT_EQUAL(st.undecoded_bytes, 100);
	CU_ASSERT_EQUAL(ist_header_device_count(h), 1);
	CU_ASSERT_STRING_EQUAL(ist_header_device(h, 0)->name, "nbd:127.0.0.2:10809/");
	ist_header_free(h);
	free(p.b);
}

/* An iSCSI SCSI Command PDU (48 bytes) with the CDB and ITT. */
static size_t iscsi_cmd(uint8_t *b, uint32_t itt, const uint8_t *cdb, size_t cdblen,
			int write, uint32_t dsl)
{
	memset(b, 0, 48);
	b[0] = 0x01;
	b[1] = (uint8_t)(0x80 | (write ? 0x20 : 0x40));
	b[5] = (uint8_t)(dsl >> 16); b[6] = (uint8_t)(dsl >> 8); b[7] = (uint8_t)dsl;
	b[9] = 3; /* LUN 3 */
	be32(b + 16, itt);
	memcpy(b + 32, cdb, cdblen);
	return 48;
}

static size_t iscsi_rsp(uint8_t *b, uint32_t itt)
{
	memset(b, 0, 48);
	b[0] = 0x21;
	b[1] = 0x80;
	be32(b + 16, itt);
	return 48;
}

static void test_iscsi_cdbs(void)
{
	struct cap_pcap_opts o = { .iscsi_port = 3260 };
	struct cap_pcap_stats st;
	struct pcapbuf p;
	struct sink s;
	ist_header *h;
	uint8_t b[4096], cdb[16];
	char err[256];
	size_t n;
	uint32_t itt = 100;
	static const struct {
		uint8_t cdb[16];
		int op;
		uint64_t off;
		uint32_t len;
		unsigned flags;
	} t[] = {
		{ { 0x08, 0x01, 0x02, 0x03, 0x00 }, IST_OP_READ, 0x10203ull * 512, 256 * 512, 0 },
		{ { 0x2a, 0x08, 0, 0, 0x10, 0, 0, 0, 8 }, IST_OP_WRITE, 0x1000ull * 512, 8 * 512, IST_F_FUA },
		{ { 0xa8, 0, 0, 0, 0, 9, 0, 0, 0, 1 }, IST_OP_READ, 9 * 512, 512, 0 },
		{ { 0x8a, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2 }, IST_OP_WRITE, (1ull << 32) * 512, 1024, 0 },
		{ { 0x91, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, IST_OP_FLUSH, 0, 0, 0 },
		{ { 0x93, 0x08, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 4 }, IST_OP_DISCARD, 5 * 512, 2048, 0 },
		{ { 0x41, 0, 0, 0, 0, 6, 0, 0, 3 }, IST_OP_WRITE_ZEROES, 6 * 512, 1536, 0 },
	};
	const size_t nt = sizeof(t) / sizeof(t[0]);

	pcap_start(&p);
	for (size_t i = 0; i < nt; i++) {
		n = iscsi_cmd(b, itt + (uint32_t)i, t[i].cdb, 16, 0, 0);
		pcap_seg(&p, 0, 3260, b, n, n, (uint32_t)(10 * i));
	}
	/* TEST UNIT READY: not block I/O; its response is no orphan. */
	memset(cdb, 0, sizeof(cdb));
	n = iscsi_cmd(b, 500, cdb, 16, 0, 0);
	pcap_seg(&p, 0, 3260, b, n, n, 100);
	/* UNMAP with two ranges as immediate data. */
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = 0x42;
	n = iscsi_cmd(b, 600, cdb, 16, 1, 40);
	memset(b + n, 0, 40);
	b[n + 1] = 38; b[n + 3] = 32;
	be64(b + n + 8, 100); be32(b + n + 16, 10);
	be64(b + n + 24, 200); be32(b + n + 32, 20);
	pcap_seg(&p, 0, 3260, b, n + 40, n + 40, 110);
	/* Responses, out of order, all in one segment. */
	n = 0;
	for (size_t i = nt; i-- > 0;)
		n += iscsi_rsp(b + n, itt + (uint32_t)i);
	n += iscsi_rsp(b + n, 500);
	n += iscsi_rsp(b + n, 600);
	pcap_seg(&p, 1, 3260, b, n, n, 1000);

	CU_ASSERT_EQUAL_FATAL(run_mem(&p, &o, &s, &st, &h, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(s.n, (int)nt + 2);
	for (size_t i = 0; i < nt; i++) {
		CU_ASSERT_EQUAL(s.r[i].op, t[i].op);
		CU_ASSERT_EQUAL(s.r[i].offset, t[i].off);
		CU_ASSERT_EQUAL(s.r[i].len, t[i].len);
		CU_ASSERT_EQUAL(s.r[i].flags, t[i].flags);
		CU_ASSERT_EQUAL(s.r[i].lat_ns, (1000 - 10 * i) * 1000);
	}
	CU_ASSERT_EQUAL(s.r[nt].op, IST_OP_DISCARD);
	CU_ASSERT_EQUAL(s.r[nt].offset, 100 * 512);
	CU_ASSERT_EQUAL(s.r[nt + 1].len, 20 * 512);
	CU_ASSERT_EQUAL(s.r[nt + 1].lat_ns, 890000);
	CU_ASSERT_EQUAL(st.other_commands, 1);
	CU_ASSERT_EQUAL(st.unmatched_responses, 0);
	CU_ASSERT_EQUAL(st.unmatched_commands, 0);
	CU_ASSERT_STRING_EQUAL(ist_header_device(h, 0)->name, "iscsi:127.0.0.2:3260/lun:3");
	ist_header_free(h);
	free(p.b);
}

static void test_iscsi_header_digest_guess(void)
{
	/* Joined mid-session with header digests on: found from the CRC. */
	struct cap_pcap_opts o = { 0 };
	struct cap_pcap_stats st;
	struct pcapbuf p;
	struct sink s;
	ist_header *h;
	uint8_t b[256], cdb[16] = { 0x28, 0, 0, 0, 0, 7, 0, 0, 1 };
	char err[256];
	uint32_t crc;

	pcap_start(&p);
	iscsi_cmd(b, 1, cdb, 16, 0, 0);
	crc = 0xffffffffu;
	for (size_t i = 0; i < 48; i++) {
		crc ^= b[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	crc = ~crc;
	b[48] = (uint8_t)crc; b[49] = (uint8_t)(crc >> 8);
	b[50] = (uint8_t)(crc >> 16); b[51] = (uint8_t)(crc >> 24);
	/* Two commands back to back: the second only parses with the digest. */
	memcpy(b + 52, b, 52);
	b[52 + 19] = 2;
	crc = 0xffffffffu;
	for (size_t i = 0; i < 48; i++) {
		crc ^= b[52 + i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	crc = ~crc;
	b[100] = (uint8_t)crc; b[101] = (uint8_t)(crc >> 8);
	b[102] = (uint8_t)(crc >> 16); b[103] = (uint8_t)(crc >> 24);
	pcap_seg(&p, 0, 3260, b, 104, 104, 5);
	CU_ASSERT_EQUAL_FATAL(run_mem(&p, &o, &s, &st, &h, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(s.n, 2);
	CU_ASSERT_EQUAL(st.resyncs, 0);
	ist_header_free(h);
	free(p.b);
}

static void test_pcap_errors(void)
{
	struct cap_pcap_opts o = { 0 };
	struct cap_pcap_stats st;
	struct pcapbuf p;
	struct sink s;
	ist_header *h;
	uint8_t b[64];
	char err[256];

	/* Not a capture. */
	pcap_start(&p);
	memset(p.b, 0x11, 4);
	CU_ASSERT(run_mem(&p, &o, &s, &st, &h, err, sizeof(err)) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "<memory>"));
	ist_header_free(h);
	free(p.b);
	/* A truncated packet record: named by its number. */
	pcap_start(&p);
	memset(b, 0, sizeof(b));
	pcap_seg(&p, 0, 3260, b, 10, 10, 1);
	pcap_seg(&p, 0, 3260, b, 10, 10, 2);
	p.n -= 5;
	CU_ASSERT(run_mem(&p, &o, &s, &st, &h, err, sizeof(err)) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "packet 2"));
	CU_ASSERT_EQUAL(s.n, 0);
	ist_header_free(h);
	free(p.b);
	/* A missing file. */
	h = ist_header_new();
	CU_ASSERT(cap_pcap_import("/nonexistent/x.pcap", &o, h, sink_emit, &s, &st,
				  err, sizeof(err)) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/x.pcap"));
	ist_header_free(h);
}

static void test_real_capture(void)
{
	struct cap_pcap_opts o = { 0 };
	struct cap_pcap_stats st;
	struct sink s = { .n = 0 };
	ist_header *h = ist_header_new();
	char err[256];
	const struct ist_device *d;

	CU_ASSERT_EQUAL_FATAL(cap_pcap_import(TOP_SRCDIR "/tests/data/capture/iscsi-digest-snap200.pcap",
					      &o, h, sink_emit, &s, &st, err,
					      sizeof(err)), 0);
	CU_ASSERT_EQUAL(s.n, 4);
	CU_ASSERT_EQUAL(s.r[0].op, IST_OP_WRITE);
	CU_ASSERT_EQUAL(s.r[0].offset, 65536);
	CU_ASSERT_EQUAL(s.r[0].len, 2048);
	CU_ASSERT_EQUAL(s.r[1].op, IST_OP_READ);
	CU_ASSERT_EQUAL(s.r[2].op, IST_OP_FLUSH);
	CU_ASSERT(st.truncated > 0);
	d = ist_header_device(h, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	/* READ CAPACITY taught the size and the block size. */
	CU_ASSERT_EQUAL(d->size, 16 << 20);
	CU_ASSERT_EQUAL(d->block_size, 512);
	CU_ASSERT_STRING_EQUAL(d->name, "iscsi:iqn.2026-12.org.iostorm:lun-test/lun:1");
	ist_header_free(h);
}

/* ---------------------------------------------------------------- devices */

static void test_dev_probe_errors(void)
{
	struct cap_devinfo di;
	char err[256];

	CU_ASSERT_EQUAL(cap_dev_probe("/nonexistent-dev", &di, err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent-dev"));
	CU_ASSERT_EQUAL(cap_dev_probe("/dev/null", &di, err, sizeof(err)), -ENOTBLK);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a block device"));
}

int main(void)
{
	static const struct cutest tests[] = {
		{ "ring-buffer page: event types", test_rb_page_events },
		{ "ring-buffer page: missed, malformed", test_rb_page_missed_and_bad },
		{ "rwbs flags", test_rwbs },
		{ "rwbs cache", test_rwbs_cached },
		{ "matcher keeps issue order", test_match_order },
		{ "matcher: completions after the stop", test_match_after_stop },
		{ "matcher: same sector FIFO", test_match_same_sector_fifo },
		{ "matcher: an issue paired already", test_match_paired_issue },
		{ "matcher: timeout, eviction, drain", test_match_timeout_evict_drain },
		{ "matcher: growth and emit errors", test_match_grow_and_fail },
		{ "tcp: order, retransmit, snaplen, gaps", test_tcp_reassembly },
		{ "tcp: wrap and bound", test_tcp_wrap_and_bound },
		{ "nbd: mid-stream, resync, replies", test_nbd_mid_stream },
		{ "iscsi: CDBs, UNMAP, responses", test_iscsi_cdbs },
		{ "iscsi: header digest guessed", test_iscsi_header_digest_guess },
		{ "pcap: errors name file and packet", test_pcap_errors },
		{ "pcap: real capture", test_real_capture },
		{ "device probe errors", test_dev_probe_errors },
		{ NULL, NULL },
	};

	return cutest_main("capture", tests);
}
