/* SPDX-License-Identifier: MIT */
/* util.c - messages and argument parsing shared by the iostorm commands. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "replay/replay.h"

void cli_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cli_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s%s%s: ", cli_progname, cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s%s%s --help' for more information.\n",
		cli_progname, cmd ? " " : "", cmd ? cmd : "");
	return EXIT_USAGE;
}

void cli_err_ist(const char *file, const struct ist_position *pos, int err)
{
	if (pos)
		cli_err("%s: chunk %" PRIu64 " (byte offset %" PRIu64 "): %s",
			file, pos->chunk, pos->byte_offset, ist_strerror(err));
	else
		cli_err("%s: %s", file, ist_strerror(err));
}

void cli_err_open(const char *file, int err)
{
	struct stat st;

	/* An empty file (a recording that never started, a failed copy)
	 * has no bad magic: it has none. */
	if ((err == IST_EFORMAT || err == IST_ETRUNC) && !stat(file, &st) &&
	    S_ISREG(st.st_mode) && !st.st_size)
		cli_err("%s: empty file", file);
	/* The reader's format errors at open, other than a bad magic, are
	 * the header's: a damaged footer only loses the index (chunks are
	 * then found by scanning) and chunk damage shows when read. */
	else if (err <= -IST_E_BASE && err != IST_EFORMAT)
		cli_err("%s: header: %s", file, ist_strerror(err));
	else
		cli_err("%s: %s", file, ist_strerror(err));
}

void cli_err_source(const char *file, const struct rpl_source *src, int err)
{
	char where[96] = "";
	const char *why;

	if (!src) {
		/* rpl_source_open() keeps a CSV source that failed; what it
		 * does not keep failed as an IST file, or to open at all */
		cli_err_open(file, err);
		return;
	}
	if (src->ops->where)
		src->ops->where((struct rpl_source *)src, where, sizeof(where));
	why = src->ops->why ? src->ops->why((struct rpl_source *)src) : NULL;
	if (why)
		cli_err("%s: %s%s%s", file, where, where[0] ? ": " : "", why);
	else if (where[0])
		cli_err("%s: %s: %s", file, where, ist_strerror(err));
	else
		cli_err("%s: %s", file, ist_strerror(err));
}

int cli_check_trace(const char *file)
{
	struct rpl_source *src;
	int err = rpl_source_open(&src, file);

	if (err < 0)
		cli_err_source(file, src, err);
	else
		cli_warn_source_no_footer(file, src);
	rpl_source_close(src);
	return err < 0 ? -1 : 0;
}

int cli_parse_double(const char *s, double *v)
{
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	if (errno || *end || !isfinite(*v))
		return -1;
	return 0;
}

int cli_parse_uint(const char *s, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end || x > max)
		return -1;
	*v = x;
	return 0;
}

int cli_parse_duration_ns(const char *s, uint64_t *ns)
{
	char *end;
	double v, mult = 1e9;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	if (!*end || !strcmp(end, "s"))
		mult = 1e9;
	else if (!strcmp(end, "ms"))
		mult = 1e6;
	else if (!strcmp(end, "us"))
		mult = 1e3;
	else if (!strcmp(end, "ns"))
		mult = 1;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		mult = 60e9;
	else if (!strcmp(end, "h"))
		mult = 3600e9;
	else
		return -1;
	v *= mult;
	if (v >= 1.8e19)
		return -1;
	*ns = (uint64_t)llround(v);
	return 0;
}

int cli_parse_size(const char *s, uint64_t *bytes)
{
	char *end;
	double v;
	double mult = 1;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	if (*end) {
		switch (*end) {
		case 'k': case 'K': mult = 1024.0; break;
		case 'm': case 'M': mult = 1024.0 * 1024; break;
		case 'g': case 'G': mult = 1024.0 * 1024 * 1024; break;
		case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; break;
		case 'b': case 'B': mult = 1; break;
		default: return -1;
		}
		end++;
		if (*end && strcasecmp(end, "iB") && strcasecmp(end, "B"))
			return -1;
	}
	v *= mult;
	if (v >= 1.8e19 || v != floor(v))
		return -1;
	*bytes = (uint64_t)v;
	return 0;
}

const char *cli_fmt_ns(double ns, char *buf, size_t size)
{
	if (ns < 1e3)
		snprintf(buf, size, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.3f s", ns / 1e9);
	return buf;
}

const char *cli_fmt_bytes(double bytes, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	unsigned u = 0;

	while (bytes >= 1024 && u < 5) {
		bytes /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%.0f B", bytes);
	else
		snprintf(buf, size, "%.1f %s", bytes, units[u]);
	return buf;
}

int cli_check_inputs(const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && !names[i][0]) {
			cli_err("'': an empty input file name");
			return -1;
		}
	return 0;
}

int cli_check_output(const char *out, const char *const *inputs, size_t n)
{
	struct stat so, si;

	/* no file can have it: refused now, not when the output is opened
	 * (after a whole replay, sweep or import) as "iostorm: : No such
	 * file or directory" */
	if (out && !*out) {
		cli_err("'': an empty output file name");
		return -1;
	}
	if (!out || !strcmp(out, "-") || stat(out, &so) < 0)
		return 0; /* standard output, or created anew */
	/*
	 * The commands write a temporary file beside OUT and rename it over
	 * OUT at the end, so that a failed run leaves nothing behind: over a
	 * device (/dev/null, /dev/full, a disk) or a FIFO that rename would
	 * replace the node itself with a regular file.
	 */
	if (!S_ISREG(so.st_mode)) {
		cli_err("%s: not a regular file (the output is written to a "
			"temporary file renamed over it)", out);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!inputs[i] || !strcmp(inputs[i], "-") ||
		    stat(inputs[i], &si) < 0)
			continue;
		if (si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
			cli_err("%s: is also an input (it would be replaced)",
				out);
			return -1;
		}
	}
	return 0;
}

int cli_check_run_files(const char *out, const char *trace, const char *target)
{
	const char *in[2] = { trace, target };

	if (cli_check_result(out, in, 2))
		return -1;
	return trace ? cli_check_trace(trace) : 0;
}

int cli_check_result(const char *out, const char *const *inputs, size_t n)
{
	const char *slash;
	char dir[4096];

	if (!out)
		return 0;
	/* inputs that do not exist yet (a target made by --create) */
	for (size_t i = 0; i < n; i++)
		if (inputs[i] && !strcmp(inputs[i], out)) {
			cli_err("%s: is also an input (it would be replaced)", out);
			return -1;
		}
	if (cli_check_output(out, inputs, n))
		return -1;
	/* written to a new temporary file beside it, then renamed */
	slash = strrchr(out, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == out)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - out), out);
	if (access(dir, W_OK | X_OK) < 0) {
		cli_err("%s: cannot write the result there: %s", out, strerror(errno));
		return -1;
	}
	return 0;
}

void cli_device_list(const ist_header *h, unsigned nd, char *buf, size_t size)
{
	unsigned named = ist_header_device_count(h);
	size_t k = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < nd && i < 16 && k < size; i++) {
		if (i < named)
			k += snprintf(buf + k, size - k, "%s%u (%s)", i ? ", " : "", i,
				      ist_header_device(h, i)->name);
		else
			k += snprintf(buf + k, size - k, "%s%u", i ? ", " : "", i);
	}
	if (nd > 16 && k < size)
		snprintf(buf + k, size - k, ", ... (%u in all)", nd);
}

int cli_list_no_operand(const char *cmd, const char *opt, int argc,
			char **argv, int first)
{
	if (first >= argc)
		return 0;
	return cli_usage_error(cmd, "unexpected argument '%s' (%s takes none)",
			       argv[first], opt);
}

/* the CLI's own state, not the library's: one message per process */
static int stdout_error_said;

void cli_err_stdout(int err)
{
	if (stdout_error_said)
		return;
	stdout_error_said = 1;
	if (err)
		cli_err("standard output: write error: %s", strerror(err));
	else
		cli_err("standard output: write error");
}

void cli_flush_stdout(void)
{
	if (fflush(stdout))
		cli_err_stdout(errno);
}

int cli_close_stdout(void)
{
	int err = 0;

	/* what was printed but not yet written, and any earlier failure:
	 * stdio drops the buffer of a failed write, so that a later fflush()
	 * succeeds with errno of whatever call came last, not the cause */
	if (fflush(stdout))
		err = errno;
	else if (!ferror(stdout))
		return 0;
	cli_err_stdout(err);
	return -1;
}

void cli_warn_no_footer(const char *file, const ist_reader *r)
{
	if (ist_reader_has_footer(r))
		return;
	cli_err("%s: byte offset %" PRIu64 ": warning: %s: only its complete "
		"chunks are read (the trace may be cut short)", file,
		ist_reader_file_size(r),
		ist_strerror(ist_reader_footer_error(r)));
}

void cli_warn_source_no_footer(const char *file, const struct rpl_source *src)
{
	ist_reader *r;

	if (!src || !src->format || strcmp(src->format, "ist") ||
	    ist_reader_open(&r, file) < 0)
		return;
	cli_warn_no_footer(file, r);
	ist_reader_close(r);
}

int cli_bad_option(const char *cmd, int argc, char **argv)
{
	/* getopt_long() with opterr = 0 said nothing: name the argument it
	 * stopped at, in the one usage message */
	const char *arg = optind >= 1 && optind - 1 < argc ? argv[optind - 1] : "";

	return cli_usage_error(cmd, "unknown option '%s', or its value is missing",
			       arg);
}
