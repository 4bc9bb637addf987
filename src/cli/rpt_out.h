/* SPDX-License-Identifier: MIT */
/* rpt_out.h - shared pieces of report, compare, sweep and precondition:
 * output files written to a temporary file beside the target and renamed
 * when complete (a failed command never leaves a partial file that looks
 * finished), number lists, interruption, run metadata. */
#ifndef IST_CLI_RPT_OUT_H
#define IST_CLI_RPT_OUT_H

#include <signal.h>
#include <stddef.h>
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

/* Parses "2,4,8,16" or "10,20,...,120" (an arithmetic progression from
 * the first two values up to the last) into v; count, or -1 when bad,
 * empty, not within [min, max], or longer than maxn. */
int cli_parse_list(const char *s, double min, double max, double *v, unsigned maxn);

/* SIGINT/SIGTERM set *cli_stop_flag() (the running measurement drains and
 * the command writes what it has, marked interrupted). */
volatile sig_atomic_t *cli_stop_flag(void);
void cli_catch_stop(void);
void cli_release_stop(void);

/* The command line as one string (caller frees) and the UTC time now as
 * ISO 8601. */
char *cli_command_line(int argc, char **argv, const char *cmd);
void cli_now_iso(char *buf, size_t size);
#endif
