/* SPDX-License-Identifier: MIT */
/* import_fuzz.h - the body shared by the importer fuzz targets. */
#ifndef IST_IMPORT_FUZZ_H
#define IST_IMPORT_FUZZ_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_count(void *ctx, const struct ist_record *rec)
{
	uint64_t *n = ctx;

	/* touch the record so that uninitialised fields would show */
	*n += rec->len + rec->op + rec->dev + (rec->t_ns & 1);
	return 0;
}

/*
 * Parses data with the named importer (bad records tolerated, so that the
 * fuzzer gets past the first one).  For "csv" the first line is the column
 * map, for blkparse/blktrace the size's parity picks the event.
 */
static inline int fuzz_import(const char *format, const uint8_t *data,
			      size_t size)
{
	struct imp_options o = { .header_rows = -1, .skip_bad = 4 };
	const struct imp_format *f = imp_format_find(format);
	struct imp_result *res = malloc(sizeof(*res));
	ist_header *h = ist_header_new();
	char cols[256];
	uint64_t n = 0;
	int ret;

	if (!f || !res || !h)
		abort();
	o.event = (size & 1) ? 'Q' : 'D';
	if (!strcmp(format, "csv")) {
		const uint8_t *nl = memchr(data, '\n', size < 255 ? size : 255);

		if (!nl)
			goto out;
		memcpy(cols, data, nl - data);
		cols[nl - data] = '\0';
		o.columns = cols;
		o.delimiter = (size & 2) ? ';' : ',';
		size -= nl + 1 - data;
		data = nl + 1;
	}
	ret = imp_parse_mem(f, data, size, &o, fuzz_count, &n, h, res);
	/* a refusal explains itself, on one line: the CLI prints
	 * "FILE: WHERE: REASON" */
	if (ret < 0 && ret != -ENOMEM &&
	    (!res->err_reason[0] || strpbrk(res->err_reason, "\r\n") ||
	     strpbrk(res->err_where, "\r\n") || !res->err_file[0]))
		abort();
	imp_format_detect((const char *)data, size < 65536 ? size : 65536);
out:
	ist_header_free(h);
	free(res);
	return 0;
}

#endif
