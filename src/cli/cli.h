/* SPDX-License-Identifier: MIT */
/* cli.h - shared pieces of the iostorm command-line tool. */
#ifndef IST_CLI_H
#define IST_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "iostorm.h"

/* Exit statuses of every command. */
#define EXIT_OK 0
#define EXIT_FAIL 1  /* bad input or failure */
#define EXIT_USAGE 2 /* usage error */

struct cli_command {
	const char *name;
	const char *summary; /* one line for `iostorm help` */
	int (*run)(int argc, char **argv);
};

/* The command table (commands.c), terminated by a NULL name. */
extern const struct cli_command cli_commands[];

/* "iostorm" or what argv[0] said. */
extern const char *cli_progname;

/* Prints "iostorm: " + message + "\n" to stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints a usage error, a hint to --help, returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Parses a duration: "1.5", "1.5s", "250ms", "10us", "100ns", "2m", "1h"
 * (bare numbers are seconds); 0 or -1 on bad input. */
int cli_parse_duration_ns(const char *s, uint64_t *ns);
/* Parses a size: "4096", "4k", "4KiB", "1M", "2G", "1T" (binary units);
 * 0 or -1. */
int cli_parse_size(const char *s, uint64_t *bytes);
/* Parses an unsigned integer (decimal or 0x hex) within [0, max]; 0 or -1. */
int cli_parse_uint(const char *s, uint64_t max, uint64_t *v);
/* Parses a double; 0 or -1. */
int cli_parse_double(const char *s, double *v);
/* Formats ns as a short human duration ("12.3 us", "4.56 ms", "1.2 s"). */
const char *cli_fmt_ns(double ns, char *buf, size_t size);
/* Formats a byte count with a binary unit ("3.1 GiB"). */
const char *cli_fmt_bytes(double bytes, char *buf, size_t size);

/* Reports an IST read error on file at pos: one line, file, chunk, byte
 * offset and reason. */
void cli_err_ist(const char *file, const struct ist_position *pos, int err);
/* An error of ist_reader_open(): "FILE: empty file" for a file of 0
 * bytes, "FILE: header: REASON" for a damaged or unsupported header,
 * "FILE: REASON" otherwise. */
void cli_err_open(const char *file, int err);
struct rpl_source;
/* An error of rpl_source_open() (replay, sweep, precondition: an IST trace
 * or a canonical CSV; src as it left it, may be NULL): an IST file's as
 * cli_err_open(), a CSV's "FILE: line N: REASON". */
void cli_err_source(const char *file, const struct rpl_source *src, int err);
/* Opens the trace file (IST or CSV) as replay would and closes it: 0, or
 * -1 after cli_err_source()'s line.  sweep and precondition check their
 * trace workload so, before any I/O (precondition fills the target first). */
int cli_check_trace(const char *file);

/* Refuses an empty input file name ('' from an unset shell variable) among
 * the n names, in one line ("'': an empty input file name") before any
 * work: it was "iostorm: : No such file or directory", the name lost
 * between the colons.  0, or -1 after the line. */
int cli_check_inputs(const char *const *names, size_t n);

/* Refuses an output path (one line on stderr, -1) that is empty, that
 * exists and is not a regular file, or that is the same file as one of the
 * n inputs; "-" and new paths pass. */
int cli_check_output(const char *out, const char *const *inputs, size_t n);

/* cli_check_output() for a result written when a long run ends (replay's
 * --json, sweep's and precondition's -o), and that its directory can take
 * it: refused now (one line on stderr, -1), not after the run. */
int cli_check_result(const char *out, const char *const *inputs, size_t n);

/* sweep's and precondition's checks before any I/O: cli_check_result() of
 * the result against the trace and the target, then cli_check_trace() of
 * the trace (either may be NULL).  0, or -1 after one line on stderr. */
int cli_check_run_files(const char *out, const char *trace, const char *target);

/* Lists the first 16 of nd devices of h into buf as "0 (sda), 1 (sdb),
 * ..., N" (an index past the header's table without a name), with
 * ", ... (N in all)" beyond; for messages naming a device a trace lacks. */
void cli_device_list(const ist_header *h, unsigned nd, char *buf, size_t size);

/* Flushes standard output; on a write error (a full disk, /dev/full), now
 * or earlier, says so in one line (cli_err_stdout()) and returns -1, so
 * that a command does not exit 0 (or 3, 4) on output that was lost. */
int cli_close_stdout(void);
/* Says "standard output: write error: REASON" (err an errno; 0 when the
 * cause is not known any more: no reason), once per process: a command
 * that reported its failed write and main()'s final check do not both. */
void cli_err_stdout(int err);
/* fflush(stdout) for progress lines that must show now (precondition's
 * rounds, sweep's points, demo's steps): a failure is said at once with
 * its cause (stdio forgets it: the later final check could not name it),
 * the run goes on, and main() makes the exit status a failure. */
void cli_flush_stdout(void);

/* Warns (one line on stderr) when r has no usable footer: its writer died
 * or the file was cut short, and the commands read what chunks it has. */
void cli_warn_no_footer(const char *file, const ist_reader *r);
/* The same for a trace opened as replay opens it (an IST file; a CSV has
 * no footer to miss). */
void cli_warn_source_no_footer(const char *file, const struct rpl_source *src);

/* For an option that lists and exits (--list, --list-formats; iostorm
 * --help and --version, cmd NULL), after the options are parsed: the
 * usage error (EXIT_USAGE) naming the first operand argv[first] when
 * there is one (synth --list tpcc listed the profiles and ignored tpcc),
 * else 0. */
int cli_list_no_operand(const char *cmd, const char *opt, int argc,
			char **argv, int first);

/* The usage error (EXIT_USAGE) for what getopt_long() returned '?' for,
 * naming it; the commands set opterr = 0 so that it is the only message. */
int cli_bad_option(const char *cmd, int argc, char **argv);

#endif
