/* SPDX-License-Identifier: MIT */
/* export.h - exporters from IST to the formats other tools read. */
#ifndef IST_EXPORT_H
#define IST_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "iostorm.h"

struct exp_ctx;

/* One exporter: begin (header lines), one call per record, end. */
struct exp_format {
	const char *name;
	const char *description;
	size_t priv_size;
	int (*begin)(struct exp_ctx *c, void *priv);
	int (*record)(struct exp_ctx *c, void *priv, const struct ist_record *r);
	int (*end)(struct exp_ctx *c, void *priv);
	void (*free)(void *priv);
};

extern const struct exp_format *const exp_formats[];
const struct exp_format *exp_format_find(const char *name);

struct exp_map {
	const char *dev;  /* device name in the trace */
	const char *file; /* what to write instead (fio: file to replay on) */
};

struct exp_options {
	const struct exp_map *map;
	unsigned nmap;
};

struct exp_result {
	uint64_t records;
	uint64_t converted;   /* ops the format cannot express, approximated */
	uint64_t unaligned;   /* blkparse: offsets/lengths not in sectors     */
	/* on failure */
	char err_file[512];
	char err_where[96];
	char err_reason[256];
};

/*
 * Writes the IST file in to out ("-" = standard output) in format f.
 * Returns 0 or a negative error (res->err_* describe it; a partial output
 * file is removed).
 */
int exp_run(const char *in, const char *out, const struct exp_format *f,
	    const struct exp_options *opt, struct exp_result *res);

/* ---------------------------------------------------------------- for exporters */

FILE *exp_out(struct exp_ctx *c);
const ist_header *exp_header(struct exp_ctx *c);
/* Device name as the exporter should write it (after --map). */
const char *exp_dev_name(struct exp_ctx *c, uint32_t dev);
struct exp_result *exp_res(struct exp_ctx *c);

#endif
