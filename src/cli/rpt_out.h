/* SPDX-License-Identifier: MIT */
/* rpt_out.h - shared pieces of report, compare, sweep and precondition:
 * output files written to a temporary file beside the target and renamed
 * when complete (a failed command never leaves a partial file that looks
 * finished), number lists, interruption, run metadata. */
#ifndef IST_CLI_RPT_OUT_H
#define IST_CLI_RPT_OUT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "replay/replay.h"

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

/* A new JSON result object with the head sweep and precondition share:
 * schema, tool {name, version}, command (null when cmdline is), started
 * and interrupted. */
json_object *cli_json_result(const char *schema, const char *cmdline, const char *started,
			     int interrupted);

/* The target options sweep and precondition share (--null, --create,
 * --size, --buffered, --allow-write, --force, --data): the getopt_long
 * values of their option tables (beyond their own, from 256), and the
 * cases of their switch that cli_target_option() handles. */
enum {
	CLI_O_NULL = 0x1000, CLI_O_CREATE, CLI_O_SIZE, CLI_O_BUFFERED, CLI_O_ALLOW,
	CLI_O_FORCE, CLI_O_DATA,
};
#define CLI_TARGET_CASES \
	case CLI_O_NULL: case CLI_O_CREATE: case CLI_O_SIZE: case CLI_O_BUFFERED: \
	case CLI_O_ALLOW: case CLI_O_FORCE: case CLI_O_DATA

/* What a bad --data ARG needs (" (PCT from 0 to 100 ...)"), or "". */
const char *cli_data_hint(const char *arg);

/* Applies target option opt (its argument arg) to o, or to *size for
 * --size; 0, or the usage error's EXIT_USAGE (printed, naming cmd). */
int cli_target_option(const char *cmd, int opt, const char *arg, struct rpl_opts *o,
		      uint64_t *size);

/* The target of the run: target (its option named what in messages) or
 * the null back-end, one of them; 0, or EXIT_USAGE (printed). */
int cli_target_set(const char *cmd, const char *what, const char *target, struct rpl_opts *o,
		   uint64_t size);

/* The bytes a pattern or a fill covers: the null target's --size (1 GiB
 * without one), or target's size (--size when --create makes or extends
 * it), at most region when given.  0, or -1 with the error printed. */
int cli_target_bytes(const char *target, const struct rpl_opts *o, uint64_t size,
		     uint64_t region, uint64_t *bytes);
#endif
