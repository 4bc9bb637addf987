/* SPDX-License-Identifier: MIT */
/* rpt_out.h - output files of report, sweep and precondition: written to a
 * temporary file beside the target and renamed when complete, so that a
 * failed command never leaves a partial file that looks finished. */
#ifndef IST_CLI_RPT_OUT_H
#define IST_CLI_RPT_OUT_H

#include <stdio.h>

struct cli_outfile {
	FILE *f;
	const char *path; /* "-" for standard output */
	char *tmp;        /* temporary name, NULL for stdout */
};

/* Opens path ("-" = stdout) for writing; prints the error and returns -1. */
int cli_outfile_open(struct cli_outfile *o, const char *path);
/* Completes (err == 0: flush, rename into place) or discards (err < 0)
 * the output; prints the error and returns -1 when anything failed. */
int cli_outfile_close(struct cli_outfile *o, int err);

#endif
