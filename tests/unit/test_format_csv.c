/* SPDX-License-Identifier: MIT */
/* test_format_csv.c - CUnit suite of the canonical CSV reader and header lines. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutest.h"
#include "iostorm.h"

/* Reads all of text; returns records read, *err the final status. */
static ssize_t read_text(const char *text, struct ist_record *recs, size_t max,
			 int *err, uint64_t *line, char *detail, size_t dsize,
			 ist_header **hdr)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	ist_csv_reader *c = ist_csv_reader_new(f);
	ssize_t n, total = 0;

	*err = 0;
	while ((n = ist_csv_reader_read(c, recs + total, max - (size_t)total)) > 0)
		total += n;
	if (n < 0)
		*err = (int)n;
	*line = ist_csv_reader_line(c);
	snprintf(detail, dsize, "%s", ist_csv_reader_detail(c));
	if (hdr)
		*hdr = ist_header_dup(ist_csv_reader_header(c));
	/* the error stays */
	if (n < 0)
		CU_ASSERT_EQUAL(ist_csv_reader_read(c, recs, max), n);
	ist_csv_reader_free(c);
	fclose(f);
	return total;
}

static void test_header_roundtrip(void)
{
	ist_header *h = ist_header_new(), *back = NULL;
	struct ist_record recs[4];
	char *buf = NULL, detail[200];
	size_t len = 0;
	uint64_t line;
	int err;
	FILE *f = open_memstream(&buf, &len);

	ist_header_set(h, "a=b", "x\\y\tz\nw\x7f");
	ist_header_set(h, "empty", "");
	ist_header_add_device(h, " lead space, trail ", 1ull << 50, 4096);
	ist_header_add_device(h, "", 0, 0);
	CU_ASSERT_EQUAL(ist_csv_write_header(f, h), 0);
	fputs("1,1,write,2,3,4,5,6,sync|commit\r\n", f);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "# meta: a\\x3db=x\\\\y\\x09z\\x0aw\\x7f\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "# device: 0 size=1125899906842624 block_size=4096 name= lead space, trail \n"));
	CU_ASSERT_EQUAL(read_text(buf, recs, 4, &err, &line, detail, sizeof(detail), &back), 1);
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(back);
	CU_ASSERT_STRING_EQUAL(ist_header_get(back, "a=b"), "x\\y\tz\nw\x7f");
	CU_ASSERT_STRING_EQUAL(ist_header_get(back, "empty"), "");
	CU_ASSERT_EQUAL(ist_header_device_count(back), 2);
	CU_ASSERT_STRING_EQUAL(ist_header_device(back, 0)->name, " lead space, trail ");
	CU_ASSERT_EQUAL(ist_header_device(back, 0)->size, 1ull << 50);
	CU_ASSERT_STRING_EQUAL(ist_header_device(back, 1)->name, "");
	CU_ASSERT_EQUAL(recs[0].txn, 6);
	CU_ASSERT_EQUAL(recs[0].flags, IST_F_SYNC | IST_F_COMMIT);
	ist_header_free(back);
	ist_header_free(h);
	free(buf);
}

struct bad_case {
	const char *text;
	uint64_t line;
	const char *detail;
	ssize_t good; /* records handed out before the error */
};

static void test_errors(void)
{
	static const struct bad_case cases[] = {
		{ "", 0, "no header row", 0 },
		{ "# meta: k=v\n", 1, "no header row", 0 },
		{ "t_ns,dev\n", 1, "expected the header row", 0 },
		{ "# meta: =v\n" IST_CSV_HEADER "\n", 1, "KEY=VALUE", 0 },
		{ "# meta: k=\\q\n" IST_CSV_HEADER "\n", 1, "bad escape", 0 },
		{ "# meta: k=\\x00\n" IST_CSV_HEADER "\n", 1, "bad escape", 0 },
		{ "# meta: k=1\n# meta: k=2\n" IST_CSV_HEADER "\n", 2, "given twice", 0 },
		{ "# device: 1 size=0 block_size=0 name=x\n", 1, "out of order", 0 },
		{ "# device: 0 size=0 name=x\n", 1, "must read", 0 },
		{ "# device: 0 size=0 block_size=4294967296 name=x\n", 1, "must read", 0 },
		{ IST_CSV_HEADER "\n1,0,read,0,0,0,0,0,\n\n", 3, "expected 9 fields", 1 },
		{ IST_CSV_HEADER "\n1,0,read,0,0,0,0,0,\n2,0,read,0,0,0,0,0\n", 3,
		  "expected 9 fields", 1 },
		{ IST_CSV_HEADER "\n1,0,read,0,0,0,0,0,,\n", 2, "expected 9 fields", 0 },
		{ IST_CSV_HEADER "\n-1,0,read,0,0,0,0,0,\n", 2, "field t_ns: not a number", 0 },
		{ IST_CSV_HEADER "\n18446744073709551616,0,read,0,0,0,0,0,\n", 2,
		  "field t_ns: out of range", 0 },
		{ IST_CSV_HEADER "\n1,4294967296,read,0,0,0,0,0,\n", 2,
		  "field dev: out of range", 0 },
		{ IST_CSV_HEADER "\n1,0,READ,0,0,0,0,0,\n", 2, "field op: unknown op 'READ'", 0 },
		{ IST_CSV_HEADER "\n1,0,read,,0,0,0,0,\n", 2, "field offset: empty", 0 },
		{ IST_CSV_HEADER "\n1,0,read,0,0,0,0,0,sync|\n", 2, "field flags", 0 },
		{ IST_CSV_HEADER "\n1,0,read,0,0,0,0,0, sync\n", 2, "field flags", 0 },
		{ IST_CSV_HEADER "\n1,0,read,0,0,0,0,0,\n2,0,read,0x10,0,0,0,0,\n", 3,
		  "field offset: not a number", 1 },
	};
	struct ist_record recs[8];
	char detail[200];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t line;
		int err;
		ssize_t n = read_text(cases[i].text, recs, 8, &err, &line, detail,
				      sizeof(detail), NULL);

		if (err >= 0 || line != cases[i].line || n != cases[i].good ||
		    !strstr(detail, cases[i].detail)) {
			fprintf(stderr, "case %zu: err %d line %llu n %zd detail '%s'\n",
				i, err, (unsigned long long)line, n, detail);
			CU_FAIL("bad CSV not reported as expected");
		}
	}
}

static void test_comments_crlf_and_long_lines(void)
{
	struct ist_record recs[4];
	char detail[200], *big;
	uint64_t line;
	int err;
	const char *text = "# a comment\r\n# meta: k=v\r\n" IST_CSV_HEADER "\r\n"
			   "# another comment\r\n5,0,flush,0,0,0,0,0,preflush\r\n"
			   "6,0,discard,4096,4096,0,0,0,";

	CU_ASSERT_EQUAL(read_text(text, recs, 4, &err, &line, detail, sizeof(detail),
				  NULL), 2);
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT_EQUAL(recs[0].op, IST_OP_FLUSH);
	CU_ASSERT_EQUAL(recs[1].offset, 4096);
	/* a line beyond 64 KiB is refused, without unbounded memory */
	big = malloc(200000);
	strcpy(big, IST_CSV_HEADER "\n# ");
	memset(big + strlen(big), 'x', 150000);
	big[strlen(IST_CSV_HEADER) + 3 + 150000] = 0;
	read_text(big, recs, 4, &err, &line, detail, sizeof(detail), NULL);
	CU_ASSERT_EQUAL(err, IST_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(detail, "line too long"));
	CU_ASSERT_EQUAL(line, 2);
	free(big);
}

/* ist_csv_format and ist_csv_parse: extremes, and the buffer bound. */
static void test_line_format_parse(void)
{
	struct ist_record r = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
				UINT64_MAX, UINT32_MAX, UINT32_MAX, IST_F_ALL,
				IST_OP_WRITE_ZEROES, 0 }, back;
	char buf[IST_CSV_LINE_MAX];
	int n = ist_csv_format(&r, buf, sizeof(buf));

	CU_ASSERT(n > 0 && n < IST_CSV_LINE_MAX);
	CU_ASSERT_EQUAL(ist_csv_parse(buf, (size_t)n, &back), 0);
	CU_ASSERT_EQUAL(memcmp(&r, &back, sizeof(r)), 0);
	CU_ASSERT_EQUAL(ist_csv_format(&r, buf, (size_t)n), IST_ERANGE);
	CU_ASSERT_EQUAL(ist_csv_format(&r, buf, (size_t)n + 1), n);
	r.flags = 1u << IST_F_COUNT;
	CU_ASSERT_EQUAL(ist_csv_format(&r, buf, sizeof(buf)), IST_ERANGE);
	r.flags = 0;
	r.op = IST_OP_COUNT;
	CU_ASSERT_EQUAL(ist_csv_format(&r, buf, sizeof(buf)), IST_ERANGE);
}

/* The line parsers the ist-csv importer shares: results, reasons, and the
 * reason buffer's bound. */
static void test_line_parsers(void)
{
	ist_header *h = ist_header_new();
	struct ist_record r;
	char why[160], tiny[8];
#define L(s) s, strlen(s)

	CU_ASSERT_EQUAL(ist_csv_preamble_line(h, L("# meta: a\\x3db=c"), why, sizeof(why)), 0);
	CU_ASSERT_STRING_EQUAL(ist_header_get(h, "a=b"), "c");
	CU_ASSERT_EQUAL(ist_csv_preamble_line(h, L("# just a comment"), why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(ist_csv_preamble_line(h, L("# device: 0 size=8 block_size=4 name=d"),
					      why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(ist_header_device_count(h), 1);
	CU_ASSERT_EQUAL(ist_header_device(h, 0)->size, 8);
	CU_ASSERT_EQUAL(ist_csv_preamble_line(h, L(IST_CSV_HEADER), why, sizeof(why)), 1);
	CU_ASSERT_EQUAL(ist_csv_preamble_line(h, L("# device: 0 size=8 block_size=4 name=e"),
					      why, sizeof(why)), IST_EPARSE);
	CU_ASSERT_STRING_EQUAL(why, "device 0 out of order (expected 1)");
	CU_ASSERT_EQUAL(ist_csv_preamble_line(h, L("0,0,read,0,1,0,0,0,"), tiny, sizeof(tiny)),
			IST_EPARSE);
	CU_ASSERT_STRING_EQUAL(tiny, "expecte");
	CU_ASSERT_EQUAL(ist_csv_record_line(L("5,1,write,4096,8,0,2,7,sync"), &r, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(r.t_ns, 5);
	CU_ASSERT_EQUAL(ist_csv_record_line(L("5,1,rd,4096,8,0,2,7,"), &r, why, sizeof(why)),
			IST_EPARSE);
	CU_ASSERT_STRING_EQUAL(why, "field op: unknown op 'rd'");
#undef L
	ist_header_free(h);
}

int main(void)
{
	static const struct cutest tests[] = {
		{ "header lines round trip", test_header_roundtrip },
		{ "errors: line and reason", test_errors },
		{ "comments, CRLF, long lines", test_comments_crlf_and_long_lines },
		{ "record line format and parse", test_line_format_parse },
		{ "line parsers for other readers", test_line_parsers },
		{ NULL, NULL },
	};

	return cutest_main("format_csv", tests);
}
