/* SPDX-License-Identifier: MIT */
/* test_import.c - unit tests of the import module: text parsing, streams and codecs, block matching, sorting, parsers. */
#include "config.h"

#include <bzlib.h>
#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "cutest.h"
#include "import/imp_blk.h"
#include "import/imp_sort.h"
#include "import/imp_stream.h"
#include "import/imp_text.h"
#include "import/import.h"

/* ---------------------------------------------------------------- text */

static void test_numbers(void)
{
	uint64_t v;
	int64_t s;

	CU_ASSERT_EQUAL(imp_u64("18446744073709551615", 20, &v), 0);
	CU_ASSERT_EQUAL(v, UINT64_MAX);
	CU_ASSERT_EQUAL(imp_u64("18446744073709551616", 20, &v), -1);
	CU_ASSERT_EQUAL(imp_u64("99999999999999999999", 20, &v), -1);
	CU_ASSERT_EQUAL(imp_u64("1844674407370955161x", 20, &v), -1);
	CU_ASSERT_EQUAL(imp_u64("+18446744073709551615", 21, &v), 0);
	CU_ASSERT_EQUAL(v, UINT64_MAX);
	CU_ASSERT_EQUAL(imp_u64("9999999999999999999", 19, &v), 0);
	CU_ASSERT_EQUAL(v, 9999999999999999999ull);
	CU_ASSERT_EQUAL(imp_u64("123456789012345678901", 21, &v), -1);
	CU_ASSERT_EQUAL(imp_u64("", 0, &v), -1);
	CU_ASSERT_EQUAL(imp_u64("12a", 3, &v), -1);
	CU_ASSERT_EQUAL(imp_u64("-1", 2, &v), -1);
	CU_ASSERT_EQUAL(imp_i64("-42", 3, &s), 0);
	CU_ASSERT_EQUAL(s, -42);
	CU_ASSERT_EQUAL(imp_i64("-9223372036854775808", 20, &s), 0);
	CU_ASSERT_EQUAL(s, INT64_MIN);
	CU_ASSERT_EQUAL(imp_i64("9223372036854775808", 19, &s), -1);
	CU_ASSERT_EQUAL(imp_hex("0x2A", 4, &v), 0);
	CU_ASSERT_EQUAL(v, 42);
	CU_ASSERT_EQUAL(imp_hex("28", 2, &v), 0);
	CU_ASSERT_EQUAL(v, 0x28);
	CU_ASSERT_EQUAL(imp_hex("0x", 2, &v), -1);
	CU_ASSERT_EQUAL(imp_hex("2g", 2, &v), -1);
	/* fixed point: scaled and truncated, never rounded */
	CU_ASSERT_EQUAL(imp_fixed("1456095145.133076000", 20, 9, &v), 0);
	CU_ASSERT_EQUAL(v, 1456095145133076000ull);
	CU_ASSERT_EQUAL(imp_fixed("0.0000009", 9, 6, &v), 0);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(imp_fixed("2.5", 3, 6, &v), 0);
	CU_ASSERT_EQUAL(v, 2500000);
	CU_ASSERT_EQUAL(imp_fixed("7", 1, 3, &v), 0);
	CU_ASSERT_EQUAL(v, 7000);
	CU_ASSERT_EQUAL(imp_fixed(".5", 2, 1, &v), 0);
	CU_ASSERT_EQUAL(v, 5);
	CU_ASSERT_EQUAL(imp_fixed("1.5e3", 5, 0, &v), 0);
	CU_ASSERT_EQUAL(v, 1500);
	CU_ASSERT_EQUAL(imp_fixed("-1.5", 4, 3, &v), -1);
	CU_ASSERT_EQUAL(imp_fixed(".", 1, 3, &v), -1);
	CU_ASSERT_EQUAL(imp_fixed("1.2.3", 5, 3, &v), -1);
	CU_ASSERT_EQUAL(imp_fixed("99999999999999999999", 20, 3, &v), -1);
	/* 19 digits, the most that cannot overflow, and more only when
	 * their value fits: leading zeros */
	CU_ASSERT_EQUAL(imp_fixed("9999999999999999999", 19, 0, &v), 0);
	CU_ASSERT_EQUAL(v, 9999999999999999999ull);
	CU_ASSERT_EQUAL(imp_fixed("18446744073709551615", 20, 0, &v), 0);
	CU_ASSERT_EQUAL(v, UINT64_MAX);
	CU_ASSERT_EQUAL(imp_fixed("18446744073709551616", 20, 0, &v), -1);
	CU_ASSERT_EQUAL(imp_fixed("000000000000000000001.25", 24, 2, &v), 0);
	CU_ASSERT_EQUAL(v, 125);
	CU_ASSERT_EQUAL(imp_fixed("1844674407370955161.5", 21, 1, &v), 0);
	CU_ASSERT_EQUAL(v, UINT64_MAX);
	CU_ASSERT_EQUAL(imp_fixed("1844674407370955161.6", 21, 1, &v), -1);
	/* fraction digits past digits skipped, every one checked */
	CU_ASSERT_EQUAL(imp_fixed("+3.14159265358979", 17, 4, &v), 0);
	CU_ASSERT_EQUAL(v, 31415);
	CU_ASSERT_EQUAL(imp_fixed("3.1415926x", 10, 4, &v), -1);
	CU_ASSERT_EQUAL(imp_fixed("3.", 2, 4, &v), 0);
	CU_ASSERT_EQUAL(v, 30000);
	CU_ASSERT_EQUAL(imp_fixed("+", 1, 4, &v), -1);
	CU_ASSERT_EQUAL(imp_fixed("", 0, 4, &v), -1);
	CU_ASSERT_EQUAL(imp_fixed("12.5", 4, 0, &v), 0);
	CU_ASSERT_EQUAL(v, 12);
	CU_ASSERT(imp_word_eq("Read", 4, "read"));
	CU_ASSERT(!imp_word_eq("Rea", 3, "read"));
	CU_ASSERT(!imp_word_eq("Reads", 5, "read"));
}

static void test_split(void)
{
	struct imp_fields fl;
	char a[] = "  8,0    1   17  0.5  A   W 24 + 8 <- (8,2) 16";
	char b[] = "a, b ,,\t c\t";
	char big[200];

	CU_ASSERT_EQUAL(imp_split(a, strlen(a), ' ', &fl), 12);
	CU_ASSERT_EQUAL(fl.len[0], 3);
	CU_ASSERT_EQUAL(memcmp(fl.f[0], "8,0", 3), 0);
	CU_ASSERT_EQUAL(memcmp(fl.f[11], "16", 2), 0);
	CU_ASSERT_EQUAL(imp_split(b, strlen(b), ',', &fl), 4);
	CU_ASSERT_EQUAL(fl.len[1], 1);
	CU_ASSERT_EQUAL(fl.f[1][0], 'b');
	CU_ASSERT_EQUAL(fl.len[2], 0);
	CU_ASSERT_EQUAL(fl.len[3], 1);
	CU_ASSERT_EQUAL(imp_split(b, 0, ',', &fl), 1);
	/* more fields than the table holds: reported as one more */
	for (int i = 0; i < 100; i++) {
		big[2 * i] = 'x';
		big[2 * i + 1] = ',';
	}
	CU_ASSERT_EQUAL(imp_split(big, 200, ',', &fl), IMP_MAX_FIELDS + 1);
}

/* ---------------------------------------------------------------- streams */

static const char text[] =
	"first line\n"
	"second line\r\n"
	"\n"
	"last line without newline";

static void check_lines(struct imp_stream *s)
{
	char *l;
	size_t n;

	CU_ASSERT_EQUAL(imp_stream_getline(s, &l, &n), 1);
	CU_ASSERT_STRING_EQUAL(l, "first line");
	CU_ASSERT_EQUAL(imp_stream_line(s), 1);
	CU_ASSERT_EQUAL(imp_stream_offset(s), 0);
	CU_ASSERT_EQUAL(imp_stream_getline(s, &l, &n), 1);
	CU_ASSERT_STRING_EQUAL(l, "second line");
	CU_ASSERT_EQUAL(imp_stream_offset(s), 11);
	CU_ASSERT_EQUAL(imp_stream_getline(s, &l, &n), 1);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(imp_stream_getline(s, &l, &n), 1);
	CU_ASSERT_STRING_EQUAL(l, "last line without newline");
	CU_ASSERT_EQUAL(imp_stream_line(s), 4);
	CU_ASSERT_EQUAL(imp_stream_getline(s, &l, &n), 0);
	CU_ASSERT_EQUAL(imp_stream_getline(s, &l, &n), 0);
}

static void test_stream_plain(void)
{
	struct imp_stream *s;

	CU_ASSERT_EQUAL_FATAL(imp_stream_open_mem(&s, text, strlen(text)), 0);
	CU_ASSERT_STRING_EQUAL(imp_stream_codec(s), "none");
	check_lines(s);
	imp_stream_close(s);
	CU_ASSERT_EQUAL_FATAL(imp_stream_open_mem(&s, "", 0), 0);
	{
		char *l;
		size_t n;

		CU_ASSERT_EQUAL(imp_stream_getline(s, &l, &n), 0);
	}
	imp_stream_close(s);
	CU_ASSERT_EQUAL(imp_stream_open(&s, "/nonexistent/x"), -ENOENT);
	CU_ASSERT_PTR_NULL(s);
}

static size_t compress_with(const char *codec, const void *in, size_t len,
			    unsigned char *out, size_t cap)
{
	if (!strcmp(codec, "gzip")) {
		z_stream z = { 0 };

		deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
		z.next_in = (unsigned char *)in;
		z.avail_in = len;
		z.next_out = out;
		z.avail_out = cap;
		deflate(&z, Z_FINISH);
		deflateEnd(&z);
		return cap - z.avail_out;
	}
	if (!strcmp(codec, "bzip2")) {
		unsigned n = cap;

		BZ2_bzBuffToBuffCompress((char *)out, &n, (char *)in, len, 9, 0, 0);
		return n;
	}
	if (!strcmp(codec, "xz")) {
		size_t pos = 0;

		lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, in, len, out,
					&pos, cap);
		return pos;
	}
	return ZSTD_compress(out, cap, in, len, 3);
}

static void test_stream_codecs(void)
{
	static const char *const codecs[] = { "gzip", "bzip2", "xz", "zstd" };
	/* a large input crosses every buffer boundary */
	size_t big_len = 3u << 20, clen;
	char *big = malloc(big_len);
	unsigned char *z = malloc(big_len + 4096);

	CU_ASSERT_FATAL(big && z);
	for (size_t i = 0, k = 0; i < big_len; k++) {
		int n = snprintf(big + i, big_len - i, "%zu,line\n", k);

		if (n < 0 || (size_t)n >= big_len - i) {
			memset(big + i, 'x', big_len - i - 1);
			big[big_len - 1] = '\n';
			break;
		}
		i += n;
	}
	for (unsigned c = 0; c < 4; c++) {
		struct imp_stream *s;
		size_t total = 0, lines = 0, n;
		char *l;
		int ret;

		clen = compress_with(codecs[c], text, strlen(text), z, big_len);
		CU_ASSERT_FATAL(clen > 0);
		CU_ASSERT_EQUAL_FATAL(imp_stream_open_mem(&s, z, clen), 0);
		CU_ASSERT_STRING_EQUAL(imp_stream_codec(s), codecs[c]);
		check_lines(s);
		imp_stream_close(s);

		clen = compress_with(codecs[c], big, big_len, z, big_len + 4096);
		CU_ASSERT_EQUAL_FATAL(imp_stream_open_mem(&s, z, clen), 0);
		while ((ret = imp_stream_getline(s, &l, &n)) == 1) {
			total += n + 1;
			lines++;
		}
		CU_ASSERT_EQUAL(ret, 0);
		CU_ASSERT_EQUAL(total, big_len);
		CU_ASSERT_EQUAL(imp_stream_line(s), lines);
		imp_stream_close(s);

		/* cut short: an error, not a short stream */
		CU_ASSERT_EQUAL_FATAL(imp_stream_open_mem(&s, z, clen / 2), 0);
		while ((ret = imp_stream_getline(s, &l, &n)) == 1)
			;
		CU_ASSERT(ret < 0);
		CU_ASSERT(strstr(imp_stream_error(s), codecs[c]) != NULL);
		imp_stream_close(s);
	}
	free(big);
	free(z);
}

static void test_stream_long_line(void)
{
	size_t len = IMP_LINE_MAX + 10;
	char *buf = malloc(len + 8), *l;
	struct imp_stream *s;
	size_t n;

	memset(buf, 'a', len);
	memcpy(buf + len, "\nok\n", 4);
	CU_ASSERT_EQUAL_FATAL(imp_stream_open_mem(&s, buf, len + 4), 0);
	CU_ASSERT_EQUAL(imp_stream_getline(s, &l, &n), IST_ERANGE);
	CU_ASSERT_EQUAL(imp_stream_line(s), 1);
	imp_stream_close(s);
	free(buf);
}

static void test_stream_binary(void)
{
	unsigned char data[100], out[64];
	const unsigned char *p;
	struct imp_stream *s;

	for (int i = 0; i < 100; i++)
		data[i] = i;
	CU_ASSERT_EQUAL_FATAL(imp_stream_open_mem(&s, data, 100), 0);
	CU_ASSERT_EQUAL(imp_stream_peek(s, &p, 10), 10);
	CU_ASSERT_EQUAL(p[9], 9);
	CU_ASSERT_EQUAL(imp_stream_read(s, out, 48), 48);
	CU_ASSERT_EQUAL(imp_stream_read(s, out, 48), 48);
	CU_ASSERT_EQUAL(imp_stream_offset(s), 48);
	CU_ASSERT_EQUAL(out[0], 48);
	CU_ASSERT_EQUAL(imp_stream_read(s, out, 48), 4);
	CU_ASSERT_EQUAL(imp_stream_read(s, out, 48), 0);
	imp_stream_close(s);
}

/* imp_stream_take() across the stream's buffer refills (plain input read
 * straight into the buffer after the first 256 KiB). */
static void test_stream_take(void)
{
	size_t len = 3000000 + 20, off = 0, bad = 0;
	unsigned char *data = malloc(len);
	const unsigned char *p;
	struct imp_stream *s;
	ssize_t n;

	CU_ASSERT_FATAL(data != NULL);
	for (size_t i = 0; i < len; i++)
		data[i] = (unsigned char)(i * 7 % 251);
	CU_ASSERT_EQUAL_FATAL(imp_stream_open_mem(&s, data, len), 0);
	CU_ASSERT_STRING_EQUAL(imp_stream_codec(s), "none");
	while ((n = imp_stream_take(s, &p, 48)) == 48) {
		if (imp_stream_offset(s) != off ||
		    memcmp(p, data + off, 48))
			bad++;
		off += 48;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(n, (ssize_t)(len % 48));
	CU_ASSERT_EQUAL(off + n, len);
	CU_ASSERT(n > 0 && !memcmp(p, data + off, n));
	CU_ASSERT_EQUAL(imp_stream_take(s, &p, 48), 0);
	imp_stream_close(s);
	free(data);
}

/* ---------------------------------------------------------------- block matching */

static struct blk_event ev(int64_t t, char a, uint64_t sector, uint64_t nsect)
{
	struct blk_event e = { .t = t, .action = a, .op = IST_OP_WRITE,
			       .sector = sector, .nsect = nsect, .pid = 7 };
	return e;
}

static int pop_all(struct imp_blk *m, struct ist_record *r, int max, int end)
{
	int n = 0;

	while (n < max && imp_blk_pop(m, &r[n], end) == 1)
		n++;
	return n;
}

static void test_blk_merge_split(void)
{
	struct imp_blk *m;
	struct ist_record r[8];
	struct blk_event e;

	CU_ASSERT_EQUAL_FATAL(imp_blk_new(&m, 'Q', 1000000000), 0);
	e = ev(10, 'Q', 100, 8);
	imp_blk_event(m, &e);
	e = ev(20, 'Q', 108, 8);
	imp_blk_event(m, &e);
	e = ev(21, 'M', 108, 8);
	imp_blk_event(m, &e);
	e = ev(30, 'Q', 500, 64);
	imp_blk_event(m, &e);
	e = ev(31, 'X', 500, 0);
	e.sector2 = 532;
	imp_blk_event(m, &e);
	/* nothing completes yet: nothing comes out */
	CU_ASSERT_EQUAL(pop_all(m, r, 8, 0), 0);
	e = ev(100, 'C', 100, 16); /* the merged request: both bios */
	imp_blk_event(m, &e);
	CU_ASSERT_EQUAL_FATAL(pop_all(m, r, 8, 0), 2);
	CU_ASSERT_EQUAL(r[0].lat_ns, 90);
	CU_ASSERT_EQUAL(r[0].offset, 100 * 512);
	CU_ASSERT_EQUAL(r[0].len, 8 * 512);
	CU_ASSERT_EQUAL(r[0].stream, 7);
	CU_ASSERT_EQUAL(r[1].lat_ns, 80);
	e = ev(200, 'C', 500, 32); /* first half of the split bio */
	imp_blk_event(m, &e);
	CU_ASSERT_EQUAL(pop_all(m, r, 8, 0), 0);
	e = ev(300, 'C', 532, 32);
	imp_blk_event(m, &e);
	CU_ASSERT_EQUAL_FATAL(pop_all(m, r, 8, 0), 1);
	CU_ASSERT_EQUAL(r[0].lat_ns, 270);
	CU_ASSERT_EQUAL(r[0].len, 64 * 512);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->merges, 1);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->splits, 1);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->completed, 3);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->incomplete, 0);
	imp_blk_free(m);
}

/* zone appends: issued at the zone's start, completed where written */
static void test_blk_zone_append(void)
{
	struct imp_blk *m;
	struct ist_record r[8];
	struct blk_event e;

	CU_ASSERT_EQUAL_FATAL(imp_blk_new(&m, 'D', 1000), 0);
	e = ev(10, 'D', 1000, 16);
	e.append = 1;
	imp_blk_event(m, &e);
	e = ev(20, 'D', 1000, 8);
	e.append = 1;
	imp_blk_event(m, &e);
	e = ev(25, 'D', 1008, 8); /* a write (not an append) where one lands */
	imp_blk_event(m, &e);
	e = ev(30, 'D', 5000, 8); /* another zone */
	e.append = 1;
	imp_blk_event(m, &e);
	/* the 8-sector append written first, at the zone's start */
	e = ev(40, 'C', 1000, 8);
	e.append = 1;
	imp_blk_event(m, &e);
	e = ev(50, 'C', 5016, 8);
	e.append = 1;
	imp_blk_event(m, &e);
	e = ev(60, 'C', 1008, 16);
	e.append = 1;
	imp_blk_event(m, &e);
	CU_ASSERT_EQUAL_FATAL(pop_all(m, r, 8, 0), 2);
	CU_ASSERT_EQUAL(r[0].lat_ns, 50);
	CU_ASSERT_EQUAL(r[0].offset, 1000 * 512);
	CU_ASSERT_EQUAL(r[1].lat_ns, 20);
	/* the write at 1008 is still pending: it was not taken */
	e = ev(70, 'C', 1008, 8);
	imp_blk_event(m, &e);
	CU_ASSERT_EQUAL_FATAL(pop_all(m, r, 8, 0), 2);
	CU_ASSERT_EQUAL(r[0].lat_ns, 45);
	CU_ASSERT_EQUAL(r[1].lat_ns, 20);
	/* an append requeued, issued again, completed; one never completed
	 * is released after the timeout and forgotten */
	e = ev(100, 'D', 1000, 8);
	e.append = 1;
	imp_blk_event(m, &e);
	e = ev(110, 'R', 1000, 8);
	e.append = 1;
	imp_blk_event(m, &e);
	e = ev(120, 'D', 1000, 8);
	e.append = 1;
	imp_blk_event(m, &e);
	e = ev(130, 'C', 1024, 8);
	e.append = 1;
	imp_blk_event(m, &e);
	CU_ASSERT_EQUAL_FATAL(pop_all(m, r, 8, 0), 1);
	CU_ASSERT_EQUAL(r[0].t_ns, 120);
	CU_ASSERT_EQUAL(r[0].lat_ns, 10);
	e = ev(200, 'D', 9000, 8);
	e.append = 1;
	imp_blk_event(m, &e);
	e = ev(5000, 'Q', 1, 1);
	imp_blk_event(m, &e);
	CU_ASSERT_EQUAL_FATAL(pop_all(m, r, 8, 0), 1);
	CU_ASSERT_EQUAL(r[0].lat_ns, 0);
	e = ev(5010, 'C', 9000, 8); /* its completion, too late: nothing */
	e.append = 1;
	imp_blk_event(m, &e);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->completed, 5);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->incomplete, 1);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->unmatched_completions, 1);
	imp_blk_free(m);
}

static void test_blk_requeue_cutoff(void)
{
	struct imp_blk *m;
	struct ist_record r[8];
	struct blk_event e;

	CU_ASSERT_EQUAL_FATAL(imp_blk_new(&m, 'D', 1000), 0);
	e = ev(10, 'D', 100, 8);
	imp_blk_event(m, &e);
	e = ev(20, 'R', 100, 8);
	imp_blk_event(m, &e);
	e = ev(30, 'D', 100, 8);
	imp_blk_event(m, &e);
	e = ev(40, 'D', 900, 8); /* never completes */
	imp_blk_event(m, &e);
	e = ev(50, 'C', 100, 8);
	imp_blk_event(m, &e);
	e = ev(60, 'C', 7000, 8); /* completes nothing we saw */
	imp_blk_event(m, &e);
	CU_ASSERT_EQUAL_FATAL(pop_all(m, r, 8, 0), 1);
	CU_ASSERT_EQUAL(r[0].t_ns, 30);
	CU_ASSERT_EQUAL(r[0].lat_ns, 20);
	/* the timeout releases the lost one without latency */
	e = ev(5000, 'Q', 1, 1);
	imp_blk_event(m, &e);
	CU_ASSERT_EQUAL_FATAL(pop_all(m, r, 8, 0), 1);
	CU_ASSERT_EQUAL(r[0].t_ns, 40);
	CU_ASSERT_EQUAL(r[0].lat_ns, 0);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->requeues, 1);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->incomplete, 1);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->unmatched_completions, 1);
	/* a trace cut off: what is pending comes out at the end */
	e = ev(5001, 'D', 77, 8);
	imp_blk_event(m, &e);
	CU_ASSERT_EQUAL(pop_all(m, r, 8, 0), 0);
	CU_ASSERT_EQUAL(pop_all(m, r, 8, 1), 1);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->incomplete, 2);
	imp_blk_free(m);
}

static void test_rwbs(void)
{
	int op;
	unsigned fl;
	char sk;

	CU_ASSERT_EQUAL(imp_blk_rwbs("WS", 2, &op, &fl, &sk), 0);
	CU_ASSERT_EQUAL(op, IST_OP_WRITE);
	CU_ASSERT_EQUAL(fl, IST_F_SYNC);
	CU_ASSERT_EQUAL(imp_blk_rwbs("FWFSM", 5, &op, &fl, &sk), 0);
	CU_ASSERT_EQUAL(op, IST_OP_WRITE);
	CU_ASSERT_EQUAL(fl, IST_F_PREFLUSH | IST_F_FUA | IST_F_SYNC | IST_F_META);
	CU_ASSERT_EQUAL(imp_blk_rwbs("FN", 2, &op, &fl, &sk), 0);
	CU_ASSERT_EQUAL(op, IST_OP_FLUSH);
	CU_ASSERT_EQUAL(sk, 0);
	CU_ASSERT_EQUAL(imp_blk_rwbs("N", 1, &op, &fl, &sk), 0);
	CU_ASSERT_EQUAL(op, -1);
	CU_ASSERT_EQUAL(sk, IMP_BLK_NODATA);
	CU_ASSERT_EQUAL(imp_blk_rwbs("RA", 2, &op, &fl, &sk), 0);
	CU_ASSERT_EQUAL(fl, IST_F_READAHEAD);
	CU_ASSERT_EQUAL(imp_blk_rwbs("DE", 2, &op, &fl, &sk), 0);
	CU_ASSERT_EQUAL(op, IST_OP_DISCARD);
	CU_ASSERT_EQUAL(imp_blk_rwbs("WX", 2, &op, &fl, &sk), -1);
	CU_ASSERT_EQUAL(imp_blk_rwbs("", 0, &op, &fl, &sk), -1);
	/* the kernel's zone commands, write zeroes and atomic writes: they
	 * were bad RWBS (a real trace of a zoned drive did not import) */
	CU_ASSERT_EQUAL(imp_blk_rwbs("ZAS", 3, &op, &fl, &sk), 0);
	CU_ASSERT_EQUAL(op, IST_OP_WRITE);
	CU_ASSERT_EQUAL(fl, IST_F_SYNC);
	CU_ASSERT_EQUAL(sk, 0);
	static const char *const zone[] = { "ZR", "ZRA", "ZO", "ZC", "ZFS" };
	for (unsigned i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(imp_blk_rwbs(zone[i], strlen(zone[i]), &op, &fl, &sk), 0);
		CU_ASSERT_EQUAL(op, -1);
		CU_ASSERT_EQUAL(sk, IMP_BLK_ZONE);
	}
	CU_ASSERT_EQUAL(imp_blk_rwbs("ZX", 2, &op, &fl, &sk), -1);
	CU_ASSERT_EQUAL(imp_blk_rwbs("Z", 1, &op, &fl, &sk), -1);
	CU_ASSERT_EQUAL(imp_blk_rwbs("WZS", 3, &op, &fl, &sk), 0);
	CU_ASSERT_EQUAL(op, IST_OP_WRITE_ZEROES);
	CU_ASSERT_EQUAL(fl, IST_F_SYNC);
	CU_ASSERT_EQUAL(imp_blk_rwbs("WSU", 3, &op, &fl, &sk), 0);
	CU_ASSERT_EQUAL(op, IST_OP_WRITE);
	CU_ASSERT_EQUAL(fl, IST_F_SYNC);
}

/* A write of no bytes without a preflush is a zone command (reset, close)
 * as the kernel traces it where its RWBS has no letters for those: it was
 * refused as a zero-length write; an empty write with a preflush stays a
 * flush, an empty read stays a bad record. */
static void test_blk_classify(void)
{
	struct imp_blk *m;
	struct blk_event e = { .action = 'D', .op = IST_OP_WRITE,
			       .flags = IST_F_SYNC, .sector = 524288 };
	struct ist_record r[4];

	CU_ASSERT_FATAL(imp_blk_new(&m, 'D', 1000000) == 0);
	imp_blk_classify(&e);
	CU_ASSERT_EQUAL(e.op, -1);
	CU_ASSERT_EQUAL(e.skip, IMP_BLK_ZONE);
	CU_ASSERT_FALSE(imp_blk_zero_len(m, &e));
	CU_ASSERT_EQUAL(imp_blk_event(m, &e), 0);
	/* a write pending at the zone's start keeps its own completion */
	e = (struct blk_event){ .t = 10, .action = 'D', .op = IST_OP_WRITE,
				.sector = 524288, .nsect = 8 };
	imp_blk_classify(&e);
	CU_ASSERT_EQUAL(e.op, IST_OP_WRITE);
	CU_ASSERT_EQUAL(imp_blk_event(m, &e), 0);
	e = (struct blk_event){ .t = 20, .action = 'C', .op = IST_OP_WRITE,
				.sector = 524288 };
	imp_blk_classify(&e);
	CU_ASSERT_EQUAL(imp_blk_event(m, &e), 0);
	e = (struct blk_event){ .t = 30, .action = 'C', .op = IST_OP_WRITE,
				.sector = 524288, .nsect = 8 };
	CU_ASSERT_EQUAL(imp_blk_event(m, &e), 0);
	/* packet commands: counted at their issue only */
	e = (struct blk_event){ .t = 40, .action = 'I', .op = -1, .skip = IMP_BLK_PC };
	CU_ASSERT_EQUAL(imp_blk_event(m, &e), 0);
	e.action = 'D';
	CU_ASSERT_EQUAL(imp_blk_event(m, &e), 0);
	e.action = 'C';
	CU_ASSERT_EQUAL(imp_blk_event(m, &e), 0);
	CU_ASSERT_EQUAL(pop_all(m, r, 4, 1), 1);
	CU_ASSERT_EQUAL(r[0].lat_ns, 20);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->zone_mgmt, 1);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->packet_commands, 1);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->issued, 2);
	CU_ASSERT_EQUAL(imp_blk_counts(m)->unmatched_completions, 0);
	/* a flush, and a read of nothing */
	e = (struct blk_event){ .action = 'D', .op = IST_OP_WRITE, .flags = IST_F_PREFLUSH };
	imp_blk_classify(&e);
	CU_ASSERT_EQUAL(e.op, IST_OP_WRITE);
	CU_ASSERT_FALSE(imp_blk_zero_len(m, &e));
	e = (struct blk_event){ .action = 'D', .op = IST_OP_READ };
	imp_blk_classify(&e);
	CU_ASSERT_TRUE(imp_blk_zero_len(m, &e));
	imp_blk_free(m);
}

/* ---------------------------------------------------------------- sorting */

/* A test sink: a real IST file, optionally refusing records once (as the
 * import does when a new device appears) to force the fallback. */
struct tsink {
	char dir[64], path[128];
	ist_writer *w;
	unsigned opens;
	uint64_t written, refuse_at;
	int refused;
	int64_t shift;
};

static int ts_open(void *ctx, int64_t shift)
{
	struct tsink *t = ctx;
	struct ist_writer_opts o = { .direct = 1 };
	ist_header *h = ist_header_new();
	int ret;

	snprintf(t->path, sizeof(t->path), "%s/out-%u.ist", t->dir, t->opens++);
	ret = ist_writer_open(&t->w, t->path, h, &o);
	ist_header_free(h);
	t->shift = shift;
	return ret;
}

static int ts_write(void *ctx, const struct ist_record *r, size_t n)
{
	struct tsink *t = ctx;

	if (t->refuse_at && !t->refused && t->written + n > t->refuse_at) {
		t->refused = 1;
		return IMP_SINK_REOPEN;
	}
	t->written += n;
	/* the sorter hands absolute times: the sink shifts */
	return ist_writer_write_shifted(t->w, r, n, (uint64_t)t->shift);
}

static int ts_demote(void *ctx, char *path, size_t size)
{
	struct tsink *t = ctx;
	int ret = ist_writer_close(t->w);

	t->w = NULL;
	snprintf(path, size, "%s", t->path);
	return ret;
}

/* Record i's time in sort_case(): 10 ns apart plus up to jitter, or
 * (unit > 1) whole units, i / per_unit plus up to jitter units, from a
 * negative origin, so that many records share a time. */
static int64_t sort_time(size_t i, int64_t jitter, int64_t unit)
{
	if (unit > 1)
		return -5 * unit + ((int64_t)i / 97 + (jitter ? rand() % jitter : 0)) * unit;
	return 1000 + (int64_t)i * 10 + (jitter ? rand() % jitter : 0);
}

static void sort_case_unit(size_t n, size_t window, int64_t jitter, int far,
			   uint64_t refuse_at, int expect_runs, int64_t unit)
{
	struct tsink t = { .refuse_at = refuse_at };
	struct imp_sink sink = { &t, ts_open, ts_write, ts_demote };
	struct imp_sorter *s;
	struct ist_record *out = calloc(n + 1, sizeof(*out));
	uint64_t expect_reord = 0;
	int64_t max = INT64_MIN;
	ist_reader *r;
	ssize_t got, total = 0;

	snprintf(t.dir, sizeof(t.dir), "/tmp/iostorm-sorttest.XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(t.dir) != NULL);
	CU_ASSERT_EQUAL_FATAL(imp_sorter_new(&s, window, t.dir, 0, &sink), 0);
	srand(42);
	for (size_t i = 0; i < n; i++) {
		struct ist_record rec = { 0 };
		int64_t tm = sort_time(i, jitter, unit);

		if (far && i % 997 == 0 && i > 0)
			tm = 1000 + (int64_t)(rand() % (int)i) * 10; /* far back */
		rec.t_ns = (uint64_t)tm;
		rec.offset = i; /* identity */
		if (i && tm < max)
			expect_reord++;
		if (tm > max)
			max = tm;
		CU_ASSERT_EQUAL_FATAL(imp_sorter_add(s, &rec), 0);
	}
	CU_ASSERT_EQUAL(imp_sorter_count(s), n);
	CU_ASSERT_EQUAL(imp_sorter_reordered(s), expect_reord);
	CU_ASSERT_EQUAL_FATAL(imp_sorter_finish(s), 0);
	CU_ASSERT_EQUAL(t.shift, imp_sorter_min_t(s));
	if (expect_runs) {
		CU_ASSERT(imp_sorter_runs(s) >= (uint64_t)expect_runs);
	} else {
		CU_ASSERT_EQUAL(imp_sorter_runs(s), 0);
	}
	CU_ASSERT_EQUAL_FATAL(ist_writer_close(t.w), 0);
	imp_sorter_free(s);
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&r, t.path), 0);
	while ((got = ist_reader_read(r, out + total, n + 1 - total)) > 0)
		total += got;
	ist_reader_close(r);
	unlink(t.path);
	CU_ASSERT_EQUAL(rmdir(t.dir), 0); /* runs and demoted outputs removed */
	CU_ASSERT_EQUAL_FATAL((size_t)total, n);
	CU_ASSERT_EQUAL(out[0].t_ns, 0);
	for (size_t i = 1; i < n; i++)
		if (out[i].t_ns < out[i - 1].t_ns) {
			CU_FAIL("output not sorted");
			break;
		}
	/* stable: equal times keep the input order (within the window) */
	for (size_t i = 1; i < n && !expect_runs; i++)
		if (out[i].t_ns == out[i - 1].t_ns &&
		    out[i].offset < out[i - 1].offset) {
			CU_FAIL("equal times reordered");
			break;
		}
	{
		/* every record exactly once */
		char *seen = calloc(n, 1);
		size_t dup = 0;

		for (size_t i = 0; i < n; i++) {
			if (out[i].offset >= n || seen[out[i].offset])
				dup++;
			else
				seen[out[i].offset] = 1;
		}
		CU_ASSERT_EQUAL(dup, 0);
		free(seen);
	}
	free(out);
}

static void sort_case(size_t n, size_t window, int64_t jitter, int far,
		      uint64_t refuse_at, int expect_runs)
{
	sort_case_unit(n, window, jitter, far, refuse_at, expect_runs, 1);
}

static void test_sort(void)
{
	sort_case(1000, 4096, 0, 0, 0, 0);     /* in memory, in order */
	sort_case(1000, 4096, 500, 0, 0, 0);   /* in memory, shuffled */
	sort_case(20000, 256, 0, 0, 0, 0);     /* straight to the output */
	sort_case(20000, 256, 500, 0, 0, 0);   /* disorder within the window */
	sort_case(20000, 256, 50, 1, 0, 2);    /* far-back records: runs */
	sort_case(20000, 256, 0, 0, 5000, 2);  /* the sink refuses: runs */
	sort_case(1000, 4096, 0, 0, 500, 1);   /* ... at the end, in memory */
	sort_case(20003, 256, 0, 0, 19950, 1); /* ... at the end, ring wrapped */
	sort_case(100000, 64, 30, 1, 0, 65);   /* more runs than one merge pass */
	/* second-granularity times (few distinct values, many ties), negative
	 * origin; then times 2^40 ns apart (40 equal low bits), and 2^40 + 1
	 * apart (several radix passes) */
	sort_case_unit(50000, 4096, 3, 0, 0, 0, 1000000000);
	sort_case_unit(50000, 1000, 2, 0, 0, 0, 1000000000);
	sort_case_unit(20000, 4096, 40, 0, 0, 0, (int64_t)1 << 40);
	sort_case_unit(20000, 4096, 40, 0, 0, 0, ((int64_t)1 << 40) + 1);
}

/*
 * The window filled in place (imp_sorter_slots / commit_n in batches of
 * 1..max records, as a batch parser does, or slot / commit one by one)
 * gives the same output file, statistics and runs as imp_sorter_add().
 */
static void sort_ways_file(const int64_t *tm, size_t n, size_t window,
			   uint64_t refuse_at, int way, unsigned char **file,
			   size_t *size, uint64_t stat[4])
{
	struct tsink t = { .refuse_at = refuse_at };
	struct imp_sink sink = { &t, ts_open, ts_write, ts_demote };
	struct imp_sorter *s;
	FILE *f;
	long len;

	snprintf(t.dir, sizeof(t.dir), "/tmp/iostorm-sorttest.XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(t.dir) != NULL);
	CU_ASSERT_EQUAL_FATAL(imp_sorter_new(&s, window, t.dir, 0, &sink), 0);
	srand(7);
	for (size_t i = 0; i < n;) {
		struct ist_record rec = { .t_ns = (uint64_t)tm[i], .offset = i,
					  .len = 512 };
		size_t room, k;

		if (way == 0) {
			CU_ASSERT_EQUAL_FATAL(imp_sorter_add(s, &rec), 0);
			i++;
		} else if (way == 1) {
			*imp_sorter_slot(s) = rec;
			CU_ASSERT_EQUAL_FATAL(imp_sorter_commit(s), 0);
			i++;
		} else {
			struct ist_record *r = imp_sorter_slots(s, &room);

			CU_ASSERT_FATAL(room >= 1);
			k = 1 + (size_t)rand() % 37;
			if (k > room)
				k = room;
			if (k > n - i)
				k = n - i;
			for (size_t j = 0; j < k; j++, i++)
				r[j] = (struct ist_record){ .t_ns = (uint64_t)tm[i],
							    .offset = i,
							    .len = 512 };
			CU_ASSERT_EQUAL_FATAL(imp_sorter_commit_n(s, k), 0);
		}
	}
	stat[0] = imp_sorter_count(s);
	stat[1] = imp_sorter_reordered(s);
	CU_ASSERT_EQUAL_FATAL(imp_sorter_finish(s), 0);
	stat[2] = (uint64_t)imp_sorter_min_t(s);
	stat[3] = imp_sorter_runs(s);
	CU_ASSERT_EQUAL(t.shift, imp_sorter_min_t(s));
	CU_ASSERT_EQUAL_FATAL(ist_writer_close(t.w), 0);
	imp_sorter_free(s);
	f = fopen(t.path, "rb");
	CU_ASSERT_FATAL(f != NULL);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	*file = malloc((size_t)len);
	CU_ASSERT_EQUAL_FATAL(fread(*file, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*size = (size_t)len;
	unlink(t.path);
	CU_ASSERT_EQUAL(rmdir(t.dir), 0);
}

static void sort_ways(const int64_t *tm, size_t n, size_t window,
		      uint64_t refuse_at, uint64_t expect_reord, int runs)
{
	unsigned char *file[3];
	size_t size[3];
	uint64_t stat[3][4];

	for (int way = 0; way < 3; way++)
		sort_ways_file(tm, n, window, refuse_at, way, &file[way],
			       &size[way], stat[way]);
	CU_ASSERT_EQUAL(stat[0][0], n);
	CU_ASSERT_EQUAL(stat[0][1], expect_reord);
	CU_ASSERT_EQUAL(stat[0][3] > 0, runs);
	for (int way = 1; way < 3; way++) {
		CU_ASSERT_EQUAL(memcmp(stat[way], stat[0], sizeof(stat[0])), 0);
		CU_ASSERT_EQUAL(size[way], size[0]);
		CU_ASSERT(size[way] == size[0] &&
			  !memcmp(file[way], file[0], size[0]));
	}
	for (int way = 0; way < 3; way++)
		free(file[way]);
}

static void test_sort_in_place(void)
{
	size_t n = 30000;
	int64_t *tm = calloc(n, sizeof(*tm));

	/* in order, runs of equal times (4 each) */
	for (size_t i = 0; i < n; i++)
		tm[i] = 5000 + (int64_t)(i / 4) * 100;
	sort_ways(tm, n, 512, 0, 0, 0);
	sort_ways(tm, 100, 512, 0, 0, 0);   /* all in memory */
	sort_ways(tm, 512, 512, 0, 0, 0);   /* exactly one window */
	sort_ways(tm, 513, 512, 0, 0, 0);   /* one more */
	/* a long ordered run, then one record a little late (within the
	 * window: no runs) equal in time to an earlier one, then in order */
	tm[20000] = tm[19900];
	sort_ways(tm, n, 512, 0, 1, 0);
	/* the first record the latest: every other is reordered */
	tm[0] = INT64_C(1) << 40;
	sort_ways(tm, 1000, 512, 0, 999, 0);
	tm[0] = 5000;
	/* ... and one far back, earlier than the output: runs */
	tm[25000] = 6000;
	sort_ways(tm, n, 512, 0, 2, 1);
	/* the sink refusing mid-way */
	tm[25000] = tm[24999];
	sort_ways(tm, n, 512, 7000, 1, 1);
	/* negative times, disorder everywhere */
	srand(3);
	for (size_t i = 0; i < n; i++)
		tm[i] = -100000 + (int64_t)i * 3 + rand() % 300;
	{
		uint64_t reord = 0;
		int64_t max = tm[0];

		for (size_t i = 1; i < n; i++) {
			if (tm[i] < max)
				reord++;
			else
				max = tm[i];
		}
		sort_ways(tm, n, 1024, 0, reord, 0);
	}
	free(tm);
}

/* ---------------------------------------------------------------- parsers */

struct recs {
	struct ist_record r[64];
	int n;
};

static int keep(void *ctx, const struct ist_record *rec)
{
	struct recs *k = ctx;

	if (k->n < 64)
		k->r[k->n] = *rec;
	k->n++;
	return 0;
}

static int parse(const char *fmt, const char *in, struct recs *k,
		 struct imp_result *res, uint64_t skip_bad)
{
	struct imp_options o = { .header_rows = -1, .skip_bad = skip_bad };
	ist_header *h = ist_header_new();
	int ret;

	memset(k, 0, sizeof(*k));
	ret = imp_parse_mem(fmt ? imp_format_find(fmt) : NULL, in, strlen(in),
			    &o, keep, k, h, res);
	ist_header_free(h);
	return ret;
}

static void test_detect(void)
{
	static const struct { const char *text, *fmt; } cases[] = {
		{ "fio version 2 iolog\n/dev/sda add\n", "fio" },
		{ "fio version 3 iolog\n", "fio" },
		{ "  8,0    1        1     0.000000000 17852  Q   W 24 + 8 [x]\n", "blkparse" },
		{ "128166385295514663,hm,0,Write,9056014336,2048,2833\n", "msr" },
		{ "Timestamp,Response,IOType,LUN,Offset,Size\n", "systor" },
		{ "0,303567,3584,w,0.000000\n", "spc" },
		{ "419,W,8792838144,4096,1577808000000062\n", "alibaba" },
		{ "1538323200,4247200,128,1,1058\n", "tencent" },
		{ "0.000000 0 1024 8 1\n", "disksim" },
		{ "11413000 0 657728 16 1\n", "mqsim" },
		{ "version,time,op,size,lbn\n", "vscsi-csv" },
		{ IST_CSV_HEADER "\n", "ist-csv" },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct imp_format *f =
			imp_format_detect(cases[i].text, strlen(cases[i].text));

		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		if (strcmp(f->name, cases[i].fmt))
			fprintf(stderr, "detect case %u: %s, expected %s\n", i,
				f->name, cases[i].fmt);
		CU_ASSERT_STRING_EQUAL(f->name, cases[i].fmt);
	}
	CU_ASSERT_PTR_NULL(imp_format_detect("hello world\n", 12));
	CU_ASSERT_PTR_NULL(imp_format_detect("", 0));
	/* every format has a name, a description and ops */
	for (unsigned i = 0; imp_formats[i]; i++) {
		CU_ASSERT_PTR_NOT_NULL(imp_formats[i]->description);
		CU_ASSERT(imp_formats[i]->next || imp_formats[i]->run);
		CU_ASSERT_PTR_EQUAL(imp_format_find(imp_formats[i]->name),
				    imp_formats[i]);
	}
}

static void test_parsers(void)
{
	struct imp_result res;
	struct recs k;

	CU_ASSERT_EQUAL(parse("fio", "fio version 2 iolog\nf add\nf wait 100 0\nf read 4096 512\n", &k, &res, 0), 0);
	CU_ASSERT_EQUAL_FATAL(k.n, 1);
	CU_ASSERT_EQUAL(k.r[0].t_ns, 100000);
	CU_ASSERT_EQUAL(k.r[0].offset, 4096);
	CU_ASSERT_EQUAL(k.r[0].len, 512);
	CU_ASSERT_EQUAL(k.r[0].op, IST_OP_READ);

	CU_ASSERT_EQUAL(parse("fio", "fio version 3 iolog\n5 f read 0 4294967296\n", &k, &res, 0), IST_EPARSE);
	CU_ASSERT_STRING_EQUAL(res.err_where, "line 2");
	CU_ASSERT_STRING_EQUAL(res.err_reason, "size 4294967296 too large (max 4294967295 bytes)");

	CU_ASSERT_EQUAL(parse("msr", "128166385295514663,hm,0,Write,9056014336,2048,2833\n", &k, &res, 0), 0);
	CU_ASSERT_EQUAL_FATAL(k.n, 1);
	CU_ASSERT_EQUAL(k.r[0].t_ns, (128166385295514663ull - 116444736000000000ull) * 100);
	CU_ASSERT_EQUAL(k.r[0].lat_ns, 283300);

	/* --skip-bad: bad lines counted, good ones kept */
	CU_ASSERT_EQUAL(parse("tencent", "1,2,3,0,4\nx\n1,2,3,9,4\n2,8,8,1,4\n", &k, &res, 2), 0);
	CU_ASSERT_EQUAL(k.n, 2);
	CU_ASSERT_EQUAL(res.skipped, 2);
	CU_ASSERT_STRING_EQUAL(res.skipped_at[0], "<memory>: line 2");
	CU_ASSERT_STRING_EQUAL(res.skipped_at[1], "<memory>: line 3");
	CU_ASSERT_EQUAL(parse("tencent", "1,2,3,0,4\nx\n1,2,3,9,4\n2,8,8,1,4\n", &k, &res, 1), IST_EPARSE);
	CU_ASSERT_STRING_EQUAL(res.err_where, "line 3");

	/* overflow of sectors to bytes */
	CU_ASSERT_EQUAL(parse("tencent", "1,36028797018963968,3,0,4\n", &k, &res, 0), IST_EPARSE);
	CU_ASSERT_STRING_EQUAL(res.err_reason, "offset 36028797018963968 out of range");

	CU_ASSERT_EQUAL(parse("blkparse", "  8,0  1  1  0.5  9  D  WS 8 + 8 [x]\n  8,0  1  2  0.75  0  C  WS 8 + 8 [0]\n", &k, &res, 0), 0);
	CU_ASSERT_EQUAL_FATAL(k.n, 1);
	CU_ASSERT_EQUAL(k.r[0].lat_ns, 250000000);
	CU_ASSERT_EQUAL(k.r[0].flags, IST_F_SYNC);
}

static void test_csv_columns(void)
{
	struct imp_options o = { .header_rows = -1, .delimiter = '\t',
				 .columns = "t=2:ms,op=1:rd/wr/fl,offset=3:4096,len=4:sectors,stream=5" };
	const char *in = "op\ttime\tblock\tsectors\tthread\n"
			 "wr\t1.5\t2\t8\t3\n"
			 "\"fl\"\t2\t0\t0\t3\n";
	ist_header *h = ist_header_new();
	struct imp_result res;
	struct recs k = { .n = 0 };

	CU_ASSERT_EQUAL(imp_parse_mem(imp_format_find("csv"), in, strlen(in), &o,
				      keep, &k, h, &res), 0);
	CU_ASSERT_EQUAL_FATAL(k.n, 2);
	CU_ASSERT_EQUAL(k.r[0].t_ns, 1500000);
	CU_ASSERT_EQUAL(k.r[0].op, IST_OP_WRITE);
	CU_ASSERT_EQUAL(k.r[0].offset, 8192);
	CU_ASSERT_EQUAL(k.r[0].len, 4096);
	CU_ASSERT_EQUAL(k.r[0].stream, 3);
	CU_ASSERT_EQUAL(k.r[1].op, IST_OP_FLUSH);
	CU_ASSERT_STRING_EQUAL(ist_header_device(h, 0)->name, "csv0");
	/* grammar errors */
	o.columns = "t=0,offset=1,len=2";
	CU_ASSERT_EQUAL(imp_parse_mem(imp_format_find("csv"), in, strlen(in), &o,
				      keep, &k, h, &res), IST_EPARSE);
	CU_ASSERT_STRING_EQUAL(res.err_reason, "--columns: 't=0': column must be 1..64");
	o.columns = "t=1:weeks,offset=1,len=2";
	CU_ASSERT_EQUAL(imp_parse_mem(imp_format_find("csv"), in, strlen(in), &o,
				      keep, &k, h, &res), IST_EPARSE);
	CU_ASSERT_STRING_EQUAL(res.err_reason, "--columns: 't=1:weeks': bad unit for t");
	o.columns = "t=1,size=2";
	CU_ASSERT_EQUAL(imp_parse_mem(imp_format_find("csv"), in, strlen(in), &o,
				      keep, &k, h, &res), IST_EPARSE);
	ist_header_free(h);
}

static const struct cutest tests[] = {
	{ "numbers", test_numbers },
	{ "split", test_split },
	{ "stream_plain", test_stream_plain },
	{ "stream_codecs", test_stream_codecs },
	{ "stream_long_line", test_stream_long_line },
	{ "stream_binary", test_stream_binary },
	{ "stream_take", test_stream_take },
	{ "blk_merge_split", test_blk_merge_split },
	{ "blk_requeue_cutoff", test_blk_requeue_cutoff },
	{ "blk_zone_append", test_blk_zone_append },
	{ "rwbs", test_rwbs },
	{ "blk classify", test_blk_classify },
	{ "sort", test_sort },
	{ "sort_in_place", test_sort_in_place },
	{ "detect", test_detect },
	{ "parsers", test_parsers },
	{ "csv_columns", test_csv_columns },
	{ NULL, NULL },
};

int main(void)
{
	return cutest_main("import", tests);
}
