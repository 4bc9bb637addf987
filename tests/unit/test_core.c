/* SPDX-License-Identifier: MIT */
/* test_core.c - op and flag names, canonical CSV lines, the header object. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bigmem.h"
#include "core/textenc.h"
#include "iostorm.h"
#include "tests/unit/cutest.h"

static void test_op_names(void)
{
	for (unsigned op = 0; op < IST_OP_COUNT; op++) {
		const char *n = ist_op_name(op);

		CU_ASSERT_PTR_NOT_NULL_FATAL(n);
		CU_ASSERT_EQUAL(ist_op_parse(n, strlen(n)), (int)op);
	}
	CU_ASSERT_PTR_NULL(ist_op_name(IST_OP_COUNT));
	CU_ASSERT_EQUAL(ist_op_parse("rea", 3), IST_EPARSE);
	CU_ASSERT_EQUAL(ist_op_parse("reads", 5), IST_EPARSE);
	CU_ASSERT_EQUAL(ist_op_parse("", 0), IST_EPARSE);
}

static void test_flags(void)
{
	char buf[128];

	CU_ASSERT_EQUAL(ist_flags_format(0, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "");
	CU_ASSERT_EQUAL(ist_flags_format(IST_F_SYNC | IST_F_FUA, buf, sizeof(buf)), 8);
	CU_ASSERT_STRING_EQUAL(buf, "sync|fua");
	CU_ASSERT_EQUAL(ist_flags_parse("sync|fua", 8), (int)(IST_F_SYNC | IST_F_FUA));
	CU_ASSERT_EQUAL(ist_flags_parse("", 0), 0);
	CU_ASSERT_EQUAL(ist_flags_parse("sync|", 5), IST_EPARSE);
	CU_ASSERT_EQUAL(ist_flags_parse("|sync", 5), IST_EPARSE);
	CU_ASSERT_EQUAL(ist_flags_parse("bogus", 5), IST_EPARSE);
	/* every flag round-trips, and all together fit */
	CU_ASSERT(ist_flags_format(IST_F_ALL, buf, sizeof(buf)) > 0);
	CU_ASSERT_EQUAL(ist_flags_parse(buf, strlen(buf)), (int)IST_F_ALL);
	CU_ASSERT_EQUAL(ist_flags_format(IST_F_ALL, buf, 5), IST_ERANGE);
	CU_ASSERT_EQUAL(ist_flags_format(1u << 15, buf, sizeof(buf)), IST_ERANGE);
	for (unsigned i = 0; i < IST_F_COUNT; i++)
		CU_ASSERT_PTR_NOT_NULL(ist_flag_name(1u << i));
	CU_ASSERT_PTR_NULL(ist_flag_name(3));
}

static void test_csv_round_trip(void)
{
	struct ist_record r = {
		.t_ns = UINT64_MAX, .offset = UINT64_MAX - 511, .lat_ns = 123,
		.stream = (1ull << 32) + 5, .txn = UINT64_MAX, .len = UINT32_MAX,
		.dev = 7, .flags = IST_F_SYNC | IST_F_COMMIT, .op = IST_OP_WRITE,
	}, back;
	char line[IST_CSV_LINE_MAX];
	int n = ist_csv_format(&r, line, sizeof(line));

	CU_ASSERT_FATAL(n > 0);
	CU_ASSERT_STRING_EQUAL(line, "18446744073709551615,7,write,18446744073709551104,"
			       "4294967295,123,4294967301,18446744073709551615,sync|commit\n");
	CU_ASSERT_EQUAL(ist_csv_parse(line, (size_t)n, &back), 0);
	CU_ASSERT_EQUAL(memcmp(&r, &back, sizeof(r)), 0);
	CU_ASSERT_EQUAL(ist_csv_format(&r, line, 20), IST_ERANGE);
}

static void test_csv_bad(void)
{
	struct ist_record r;
	static const char *const bad[] = {
		"", "1,0,read,0,4096,0,0,0", "x,0,read,0,4096,0,0,0,",
		"1,0,reed,0,4096,0,0,0,", "1,0,read,0,4294967296,0,0,0,",
		"18446744073709551616,0,read,0,1,0,0,0,", "1,0,read,0,1,0,0,0,bogus",
		"1,0,read,0,1,0,0,0,,", "1,,read,0,1,0,0,0,", "-1,0,read,0,1,0,0,0,",
		"1,4294967296,read,0,1,0,0,0,", "1,0,read,0 ,1,0,0,0,",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT(ist_csv_parse(bad[i], strlen(bad[i]), &r) < 0);
	CU_ASSERT_EQUAL(ist_csv_parse("5,1,flush,0,0,0,0,0,\r\n", 21, &r), 0);
	CU_ASSERT_EQUAL(r.t_ns, 5);
	CU_ASSERT_EQUAL(r.op, IST_OP_FLUSH);
}

static void test_header(void)
{
	ist_header *h = ist_header_new(), *d;
	const char *k, *v;

	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(ist_header_set(h, "source", "synth"), 0);
	CU_ASSERT_EQUAL(ist_header_set(h, "host", "a"), 0);
	CU_ASSERT_EQUAL(ist_header_set(h, "source", "csv"), 0);
	CU_ASSERT_EQUAL(ist_header_set(h, "", "x"), -EINVAL);
	CU_ASSERT_EQUAL(ist_header_meta_count(h), 2);
	CU_ASSERT_STRING_EQUAL(ist_header_get(h, "source"), "csv");
	CU_ASSERT_PTR_NULL(ist_header_get(h, "missing"));
	CU_ASSERT_EQUAL(ist_header_meta_at(h, 1, &k, &v), 0);
	CU_ASSERT_STRING_EQUAL(k, "host");
	CU_ASSERT_EQUAL(ist_header_meta_at(h, 2, &k, &v), IST_ERANGE);
	CU_ASSERT_EQUAL(ist_header_add_device(h, "sda", 1ull << 40, 512), 0);
	CU_ASSERT_EQUAL(ist_header_add_device(h, "nvme0n1", 0, 4096), 1);
	CU_ASSERT_EQUAL(ist_header_find_device(h, "nvme0n1"), 1);
	CU_ASSERT_EQUAL(ist_header_find_device(h, "sdb"), IST_EDEVICE);
	CU_ASSERT_EQUAL(ist_header_set_device_size(h, 1, 4096), 0);
	CU_ASSERT_EQUAL(ist_header_set_device_size(h, 2, 4096), IST_EDEVICE);
	d = ist_header_dup(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	ist_header_free(h);
	CU_ASSERT_EQUAL(ist_header_device_count(d), 2);
	CU_ASSERT_EQUAL(ist_header_device(d, 1)->size, 4096);
	CU_ASSERT_EQUAL(ist_header_device(d, 0)->block_size, 512);
	CU_ASSERT_STRING_EQUAL(ist_header_device(d, 1)->name, "nvme0n1");
	CU_ASSERT_PTR_NULL(ist_header_device(d, 2));
	CU_ASSERT_STRING_EQUAL(ist_header_get(d, "host"), "a");
	ist_header_free(d);
}

/* Many keys (the index past 32 of them): set, replace, get, order kept. */
static void test_header_many_keys(void)
{
	ist_header *h = ist_header_new(), *d;
	const char *k, *v;
	char key[32], val[32];

	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	for (unsigned i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "stream.%u", i);
		snprintf(val, sizeof(val), "v%u", i);
		CU_ASSERT_EQUAL(ist_header_set(h, key, val), 0);
	}
	for (unsigned i = 0; i < 5000; i += 7) {
		snprintf(key, sizeof(key), "stream.%u", i);
		CU_ASSERT_EQUAL(ist_header_set(h, key, "again"), 0);
	}
	CU_ASSERT_EQUAL(ist_header_meta_count(h), 5000);
	CU_ASSERT_STRING_EQUAL(ist_header_get(h, "stream.4999"), "v4999");
	CU_ASSERT_STRING_EQUAL(ist_header_get(h, "stream.4998"), "again");
	CU_ASSERT_PTR_NULL(ist_header_get(h, "stream.5000"));
	CU_ASSERT_EQUAL(ist_header_meta_at(h, 31, &k, &v), 0);
	CU_ASSERT_STRING_EQUAL(k, "stream.31");
	d = ist_header_dup(h);
	ist_header_free(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(ist_header_meta_count(d), 5000);
	CU_ASSERT_STRING_EQUAL(ist_header_get(d, "stream.7"), "again");
	CU_ASSERT_STRING_EQUAL(ist_header_get(d, "stream.8"), "v8");
	ist_header_free(d);
}

static void test_strerror(void)
{
	CU_ASSERT_STRING_EQUAL(ist_strerror(IST_ECRC), "checksum mismatch");
	CU_ASSERT_STRING_EQUAL(ist_strerror(-ENOENT), "No such file or directory");
	for (int e = IST_E_LAST + 1; e <= IST_EFORMAT; e++)
		CU_ASSERT_STRING_NOT_EQUAL(ist_strerror(e), "unknown error");
	CU_ASSERT_STRING_EQUAL(ist_strerror(IST_E_LAST), "unknown error");
}

/* what istint_json_put_str() / _put_text() / istint_xml_put_str() make
 * of s, in buf */
static const char *enc(int how, const char *s, char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size, "w");

	CU_ASSERT_FATAL(f != NULL);
	if (how == 0) {
		CU_ASSERT_EQUAL(istint_json_put_str(f, s), 0);
	} else if (how == 1) {
		CU_ASSERT_EQUAL(istint_json_put_text(f, s), 0);
	} else {
		istint_xml_put_str(f, s);
	}
	fclose(f);
	return buf;
}

/* RFC 3629's well-formed sequences, and what is not one: each byte of it
 * one U+FFFD (names were put into JSON as they were: invalid JSON) */
static void test_utf8(void)
{
	static const struct { const char *s; size_t len; } c[] = {
		{ "a", 1 }, { "\xc2\x80", 2 }, { "\xdf\xbf", 2 },
		{ "\xe0\xa0\x80", 3 }, { "\xe2\x82\xac", 3 }, { "\xed\x9f\xbf", 3 },
		{ "\xef\xbf\xbd", 3 }, { "\xf0\x90\x80\x80", 4 },
		{ "\xf4\x8f\xbf\xbf", 4 },
		{ "\x80", 0 }, { "\xbf", 0 }, { "\xc0\xaf", 0 }, { "\xc1\xbf", 0 },
		{ "\xc2", 0 }, { "\xc2" "A", 0 }, { "\xe0\x9f\xbf", 0 },
		{ "\xed\xa0\x80", 0 }, { "\xe2\x82", 0 }, { "\xf0\x8f\xbf\xbf", 0 },
		{ "\xf4\x90\x80\x80", 0 }, { "\xf5\x80\x80\x80", 0 }, { "\xff", 0 },
	};
	char buf[256];

	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		CU_ASSERT_EQUAL(istint_utf8_len(c[i].s, strlen(c[i].s)), c[i].len);
	/* a character cut short by the end of the string */
	CU_ASSERT_EQUAL(istint_utf8_len("\xe2\x82\xac", 2), 0);
	CU_ASSERT_EQUAL(istint_utf8_len("", 0), 0);

	CU_ASSERT_STRING_EQUAL(enc(0, "sd\xff\xc3X\xe2\x82\xac\"\\\t", buf, sizeof(buf)),
			       "\"sd\\ufffd\\ufffdX\xe2\x82\xac\\\"\\\\\\u0009\"");
	CU_ASSERT_STRING_EQUAL(enc(0, "", buf, sizeof(buf)), "\"\"");
	CU_ASSERT_STRING_EQUAL(enc(1, "{\"a\xed\xa0\x80\": \"\xc3\xa9\xc3\"}", buf, sizeof(buf)),
			       "{\"a\\ufffd\\ufffd\\ufffd\": \"\xc3\xa9\\ufffd\"}");
	CU_ASSERT_STRING_EQUAL(enc(2, "<a&\xff\x01\xc3\xa9'>", buf, sizeof(buf)),
			       "&lt;a&amp;&#xFFFD;?\xc3\xa9&apos;&gt;");
}

/* The VmFlags line of the mapping of /proc/self/smaps holding p, in
 * line (empty if not found). */
static void vm_flags(const void *p, char *line, size_t cap)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char buf[512];
	int in = 0;

	line[0] = 0;
	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f)) {
		unsigned long lo, hi;

		if (sscanf(buf, "%lx-%lx ", &lo, &hi) == 2) {
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		} else if (in && !strncmp(buf, "VmFlags:", 8)) {
			snprintf(line, cap, "%s", buf);
			break;
		}
	}
	fclose(f);
}

/* ist_big_alloc(): from 1 MiB, whole 2 MiB pages, aligned to them and
 * advised for huge pages (the "hg" flag of the mapping, where the kernel
 * has MADV_HUGEPAGE); below, malloc's; all usable and freed by free() */
static void test_big_alloc(void)
{
	size_t sizes[] = { 0, 1, 4096, IST_BIG_MIN - 1, IST_BIG_MIN,
			   IST_BIG_PAGE + 1, 14u << 20 };
	char flags[512];

	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];
		unsigned char *p = ist_big_alloc(n);

		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		memset(p, 0x5a, n);
		if (n)
			CU_ASSERT_EQUAL(p[n - 1], 0x5a);
		if (n >= IST_BIG_MIN) {
			CU_ASSERT_EQUAL((uintptr_t)p % IST_BIG_PAGE, 0);
#ifdef MADV_HUGEPAGE
			vm_flags(p, flags, sizeof(flags));
			if (flags[0])
				CU_ASSERT_PTR_NOT_NULL(strstr(flags, " hg"));
#endif
		}
		free(p);
	}
	CU_ASSERT_PTR_NULL(ist_big_alloc(SIZE_MAX - 4096));
}

int main(void)
{
	static const struct cutest tests[] = {
		{ "op names", test_op_names },
		{ "flags", test_flags },
		{ "csv round trip", test_csv_round_trip },
		{ "csv bad lines", test_csv_bad },
		{ "header", test_header },
		{ "header: many keys", test_header_many_keys },
		{ "strerror", test_strerror },
		{ "utf8 in json and xml", test_utf8 },
		{ "big buffers in huge pages", test_big_alloc },
		{ NULL, NULL },
	};

	return cutest_main("core", tests);
}
