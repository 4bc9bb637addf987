/* SPDX-License-Identifier: MIT */
/* fuzz_csv.c - libFuzzer target: the canonical CSV reader on arbitrary text. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iostorm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ist_record recs[100];
	char line[IST_CSV_LINE_MAX];
	ist_csv_reader *c;
	FILE *f, *out;
	ssize_t n;

	if (size == 0)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	c = ist_csv_reader_new(f);
	out = fopen("/dev/null", "w");
	if (c && out) {
		while ((n = ist_csv_reader_read(c, recs, 100)) > 0) {
			for (ssize_t i = 0; i < n; i++) {
				struct ist_record back;
				int len = ist_csv_format(&recs[i], line, sizeof(line));

				/* what parsed formats and parses back the same */
				if (len < 0 || ist_csv_parse(line, (size_t)len, &back) ||
				    memcmp(&back, &recs[i], sizeof(back)))
					abort();
			}
		}
		if (n < 0 && !*ist_csv_reader_detail(c))
			abort(); /* every error has a reason */
		ist_csv_write_header(out, ist_csv_reader_header(c));
	}
	if (out)
		fclose(out);
	ist_csv_reader_free(c);
	fclose(f);
	return 0;
}
