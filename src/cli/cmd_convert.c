/* SPDX-License-Identifier: MIT */
/* cmd_convert.c - `iostorm convert IN OUT`: IST <-> canonical CSV. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/tmpout.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "import/import.h"

#define BATCH 65536

enum kind { K_AUTO, K_IST, K_CSV };

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iostorm convert [options] IN OUT\n"
		"\n"
		"Converts a trace between IST and iostorm's canonical CSV (either way,\n"
		"or IST to IST and CSV to CSV to re-encode).  The input kind comes from\n"
		"its magic; the output kind from --to, else OUT's extension (.ist,\n"
		".csv), else the other kind than the input.  '-' is stdin or stdout\n"
		"(stdout is CSV unless --to ist).  An IST output is written to a\n"
		"temporary file renamed into place at the end: on failure nothing is\n"
		"left behind.\n"
		"\n"
		"Options:\n"
		"  -t, --to KIND           output kind: ist or csv\n"
		"  -c, --chunk-records N   records per IST chunk (1..1048576, default 65536)\n"
		"  -l, --level N           deflate level 1..9 for IST output (default 1)\n"
		"      --fast              IST output: write faster, larger files (ANS or\n"
		"                          plain columns, deflate only where a sample\n"
		"                          halves them; not with --level)\n"
		"                          (these three: a usage error for a CSV output)\n"
		"  -s, --salvage           IST input: skip damaged chunks (one warning\n"
		"                          line each) instead of failing (a usage error\n"
		"                          for a CSV input)\n"
		"  -h, --help              show this help\n"
		"\n"
		"Exit status: 0 success, 1 bad input or failure, 2 usage error.\n");
}

static int parse_kind(const char *s, enum kind *k)
{
	if (!strcmp(s, "ist"))
		*k = K_IST;
	else if (!strcmp(s, "csv"))
		*k = K_CSV;
	else
		return -1;
	return 0;
}

static int has_ext(const char *path, const char *ext)
{
	size_t n = strlen(path), e = strlen(ext);

	return n > e && !strcmp(path + n - e, ext);
}

/*
 * The input: a path or '-'.  Its kind comes from its first byte: the IST
 * magic starts with 0x89, which no CSV line can (one byte can always be
 * pushed back, even on a pipe).  A piped IST input is copied to an
 * unlinked temporary file first, since the reader seeks.
 */
struct input {
	const char *name;   /* for messages */
	const char *path;   /* for the IST reader */
	FILE *f;            /* for the CSV reader */
	int spool_fd;
	char spool_path[64];
	enum kind kind;
};

static int spool_stdin(struct input *in)
{
	char tmpl[] = "/tmp/iostorm-convert-XXXXXX";
	char buf[65536];
	size_t n;

	in->spool_fd = mkstemp(tmpl);
	if (in->spool_fd < 0)
		goto fail;
	unlink(tmpl);
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		if (write(in->spool_fd, buf, n) != (ssize_t)n)
			goto fail;
	if (ferror(stdin))
		goto fail;
	snprintf(in->spool_path, sizeof(in->spool_path), "/proc/self/fd/%d",
		 in->spool_fd);
	in->path = in->spool_path;
	return 0;
fail:
	cli_err("stdin: cannot copy the IST input to a temporary file: %s",
		strerror(errno));
	return -1;
}

static int open_input(struct input *in, const char *arg)
{
	struct stat st;
	int c;

	memset(in, 0, sizeof(*in));
	in->spool_fd = -1;
	in->path = arg;
	in->name = strcmp(arg, "-") ? arg : "stdin";
	in->f = strcmp(arg, "-") ? fopen(arg, "rb") : stdin;
	if (!in->f) {
		cli_err("%s: %s", arg, strerror(errno));
		return -1;
	}
	if (fstat(fileno(in->f), &st) == 0 && S_ISDIR(st.st_mode)) {
		cli_err("%s: %s", in->name, strerror(EISDIR));
		return -1;
	}
	c = getc(in->f);
	if (c == EOF && ferror(in->f)) {
		cli_err("%s: %s", in->name, strerror(errno));
		return -1;
	}
	if (c == EOF) {
		/* neither kind: no magic, no header row */
		cli_err("%s: empty file", in->name);
		return -1;
	}
	/* gzip's and xz's first bytes begin no text line: the CSV reader
	 * said "line 1: NUL byte in line" of a .csv.gz */
	if (c == 0x1f || c == 0xfd) {
		cli_err("%s: %s-compressed: convert reads IST and canonical CSV (decompress "
			"it into 'iostorm convert -', or use iostorm import)", in->name,
			c == 0x1f ? "gzip" : "xz");
		return -1;
	}
	ungetc(c, in->f);
	in->kind = c == 0x89 ? K_IST : K_CSV;
	if (in->kind == K_CSV)
		return 0;
	if (in->f != stdin) {
		fclose(in->f);
		in->f = NULL;
		return 0;
	}
	if (S_ISREG(st.st_mode) && lseek(0, 0, SEEK_CUR) == 0) {
		in->path = "/dev/stdin";
		return 0;
	}
	return spool_stdin(in);
}

static void close_input(struct input *in)
{
	if (in->f && in->f != stdin)
		fclose(in->f);
	if (in->spool_fd >= 0)
		close(in->spool_fd);
}

/* The output: an IST writer or a CSV stream (to a temporary file renamed
 * into place at the end, or stdout). */
struct output {
	const char *name;
	const char *path;
	enum kind kind;
	ist_writer *w;
	FILE *f;
	char *tmp;
};

/*
 * A file output is written to a new OUT.converting-PID-N
 * (istint_tmp_create(): O_EXCL, mode 0666 less the umask, guarded against
 * the signals), renamed into place at the end.  The IST output was
 * OUT.converting-PID, opened with O_TRUNC: a file or a symbolic link of
 * that name was written through; the CSV one OUT.tmp-XXXXXX of mkstemp().
 */
static int create_tmp(struct output *out, const char *arg)
{
	size_t n = strlen(arg) + 48;
	int fd;

	out->tmp = malloc(n);
	if (!out->tmp) {
		cli_err("%s: %s", arg, strerror(ENOMEM));
		return -1;
	}
	fd = istint_tmp_create(out->tmp, n, arg, "converting");
	if (fd < 0) {
		cli_err("%s: %s", arg, strerror(-fd));
		free(out->tmp);
		out->tmp = NULL;
	}
	return fd;
}

/* The output's failed write or close, err a negative errno or IST error:
 * standard output's in every command's words (cli_err_stdout(), said once:
 * main()'s final check adds no second line; it was "stdout: REASON"). */
static void out_err(const struct output *out, int err)
{
	if (!strcmp(out->path, "-") && err < 0 && err > -IST_E_BASE)
		cli_err_stdout(-err);
	else
		cli_err("%s: %s", out->name, ist_strerror(err));
}

static int open_output(struct output *out, const char *arg, const ist_header *h,
		       const struct ist_writer_opts *opts)
{
	int ret, fd;

	out->path = arg;
	out->name = strcmp(arg, "-") ? arg : "stdout";
	if (out->kind == K_IST) {
		if (!strcmp(arg, "-")) {
			ret = ist_writer_open_fd(&out->w, 1, h, opts);
		} else {
			/* the writer writes the new file itself (.direct:
			 * truncating only what was just made) */
			struct ist_writer_opts wo = *opts;

			fd = create_tmp(out, arg);
			if (fd < 0)
				return -1;
			wo.direct = 1;
			ret = ist_writer_open(&out->w, out->tmp, h, &wo);
			close(fd);
			if (ret) {
				out->w = NULL;
				unlink(out->tmp);
				istint_tmp_release(out->tmp);
				free(out->tmp);
				out->tmp = NULL;
			}
		}
		if (ret) {
			out_err(out, ret);
			return -1;
		}
		return 0;
	}
	if (!strcmp(arg, "-")) {
		out->f = stdout;
	} else {
		fd = create_tmp(out, arg);
		if (fd < 0)
			return -1;
		out->f = fdopen(fd, "w");
		if (!out->f) {
			cli_err("%s: %s", arg, strerror(errno));
			close(fd);
			unlink(out->tmp);
			istint_tmp_release(out->tmp);
			free(out->tmp);
			out->tmp = NULL;
			return -1;
		}
	}
	setvbuf(out->f, NULL, _IOFBF, 1 << 20);
	if (ist_csv_write_header(out->f, h)) {
		out_err(out, errno ? -errno : -EIO);
		return -1;
	}
	return 0;
}

static int write_records(struct output *out, const struct ist_record *recs,
			 size_t n)
{
	char line[IST_CSV_LINE_MAX];
	int ret;

	if (out->w) {
		ret = ist_writer_write(out->w, recs, n);
		if (ret) {
			out_err(out, ret);
			return -1;
		}
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		ret = ist_csv_format(&recs[i], line, sizeof(line));
		if (ret < 0) {
			cli_err("%s: record %zu: %s", out->name, i, ist_strerror(ret));
			return -1;
		}
		if (fwrite(line, 1, (size_t)ret, out->f) != (size_t)ret) {
			out_err(out, errno ? -errno : -EIO);
			return -1;
		}
	}
	return 0;
}

/* Finishes (ok) or discards the output; 0 or -1 after a message. */
static int close_output(struct output *out, int ok)
{
	int ret = 0;

	if (out->w) {
		if (!ok)
			ist_writer_abort(out->w);
		else
			ret = ist_writer_close(out->w);
		if (ret)
			out_err(out, ret);
		if (out->tmp) {
			if (ok && !ret && (ret = istint_tmp_sync(out->tmp)))
				cli_err("%s: %s", out->name, strerror(-ret));
			if (ok && !ret && rename(out->tmp, out->path)) {
				cli_err("%s: %s", out->name, strerror(errno));
				ret = -1;
			}
			if (!ok || ret)
				unlink(out->tmp);
			istint_tmp_release(out->tmp);
			free(out->tmp);
			out->tmp = NULL;
		}
		return ok && !ret ? 0 : -1;
	}
	if (!out->f)
		return ok ? 0 : -1;
	if (out->f == stdout) {
		/* a failed convert said why; main() says a lost output */
		if (ok && cli_close_stdout())
			return -1;
		return ok ? 0 : -1;
	}
	if (fclose(out->f) && ok) {
		cli_err("%s: %s", out->name, strerror(errno));
		ok = 0;
	}
	if (ok && rename(out->tmp, out->path)) {
		cli_err("%s: %s", out->name, strerror(errno));
		ok = 0;
	}
	if (!ok)
		unlink(out->tmp);
	istint_tmp_release(out->tmp);
	free(out->tmp);
	return ok ? 0 : -1;
}

static int convert_from_csv(struct input *in, struct output *out,
			    const char *out_arg, const struct ist_writer_opts *opts,
			    struct ist_record *recs)
{
	ist_csv_reader *c = ist_csv_reader_new(in->f);
	uint64_t nrec = 0;
	ssize_t n;
	int ret, ok = 0;

	if (!c) {
		cli_err("%s: %s", in->name, strerror(ENOMEM));
		return -1;
	}
	ret = ist_csv_reader_begin(c);
	if (ret) {
		cli_err("%s: line %" PRIu64 ": %s", in->name, ist_csv_reader_line(c),
			ist_csv_reader_detail(c));
		ist_csv_reader_free(c);
		return -1;
	}
	if (open_output(out, out_arg, ist_csv_reader_header(c), opts))
		goto done;
	while ((n = ist_csv_reader_read(c, recs, BATCH)) > 0) {
		/* the CSV's device is any u32, an IST file's below 65536: the
		 * writer's refusal would name the output, without a place */
		for (ssize_t i = 0; out->w && i < n; i++)
			if (recs[i].dev >= IST_MAX_FOOTER_DEVICES) {
				cli_err("%s: record %" PRIu64 ": device %" PRIu32 ": an IST "
					"file holds devices 0 to %u", in->name,
					nrec + (uint64_t)i + 1, recs[i].dev,
					IST_MAX_FOOTER_DEVICES - 1);
				goto done;
			}
		nrec += (uint64_t)n;
		if (write_records(out, recs, (size_t)n))
			goto done;
	}
	if (n < 0) {
		cli_err("%s: line %" PRIu64 ": %s", in->name, ist_csv_reader_line(c),
			ist_csv_reader_detail(c));
		goto done;
	}
	ok = 1;
done:
	ret = close_output(out, ok);
	ist_csv_reader_free(c);
	return ret;
}

static int convert_from_ist(struct input *in, struct output *out,
			    const char *out_arg, const struct ist_writer_opts *opts,
			    struct ist_record *recs, int salvage)
{
	ist_reader *r;
	ssize_t n;
	int ret, ok = 0;

	ret = ist_reader_open(&r, in->path);
	if (ret) {
		cli_err_open(in->name, ret);
		return -1;
	}
	cli_warn_no_footer(in->name, r);
	if (open_output(out, out_arg, ist_reader_header(r), opts))
		goto done;
	for (;;) {
		n = ist_reader_read(r, recs, BATCH);
		if (n == 0)
			break;
		if (n < 0) {
			struct ist_position pos;

			ist_reader_position(r, &pos);
			if (salvage) {
				cli_err("warning: %s: chunk %" PRIu64 " (byte offset %"
					PRIu64 "): %s; skipped", in->name, pos.chunk,
					pos.byte_offset, ist_strerror((int)n));
				continue;
			}
			cli_err_ist(in->name, &pos, (int)n);
			goto done;
		}
		if (write_records(out, recs, (size_t)n))
			goto done;
	}
	ok = 1;
done:
	ret = close_output(out, ok);
	ist_reader_close(r);
	return ret;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "chunk-records", required_argument, NULL, 'c' },
		{ "level", required_argument, NULL, 'l' },
		{ "salvage", no_argument, NULL, 's' },
		{ "fast", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ist_writer_opts opts = { 0 };
	struct output out = { 0 };
	struct input in;
	struct ist_record *recs;
	enum kind to = K_AUTO;
	int opt, salvage = 0, ret;
	uint64_t v;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "t:c:l:sh", longopts, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (parse_kind(optarg, &to))
				return cli_usage_error("convert",
						       "--to must be 'ist' or 'csv'");
			break;
		case 'c':
			if (cli_parse_uint(optarg, 1u << 20, &v) || v == 0)
				return cli_usage_error("convert",
						       "bad --chunk-records '%s' (1..1048576)",
						       optarg);
			opts.chunk_records = (unsigned)v;
			break;
		case 'l':
			if (cli_parse_uint(optarg, 9, &v) || v == 0)
				return cli_usage_error("convert", "bad --level '%s' (1..9)",
						       optarg);
			opts.level = (int)v;
			break;
		case 's':
			salvage = 1;
			break;
		case 'F':
			opts.effort = IST_EFFORT_FAST;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("convert", argc, argv);
		}
	}
	if (argc - optind != 2)
		return cli_usage_error("convert", "expected IN and OUT");
	/* the fast writer deflates at level 1 only (and seldom) */
	if (opts.level && opts.effort)
		return cli_usage_error("convert", "--level and --fast exclude each other");
	if (cli_check_inputs((const char *const *)&argv[optind], 1) ||
	    cli_check_output(argv[optind + 1], (const char *const *)&argv[optind], 1))
		return EXIT_FAIL;
	if (open_input(&in, argv[optind])) {
		close_input(&in);
		return EXIT_FAIL;
	}
	out.kind = to;
	if (out.kind == K_AUTO) {
		const char *o = argv[optind + 1];

		if (!strcmp(o, "-"))
			out.kind = K_CSV;
		else if (has_ext(o, ".ist"))
			out.kind = K_IST;
		else if (has_ext(o, ".csv"))
			out.kind = K_CSV;
		else
			out.kind = in.kind == K_IST ? K_CSV : K_IST;
	}
	/* the kinds are known now: options for the other kind did nothing */
	if (out.kind == K_CSV && (opts.chunk_records || opts.level || opts.effort)) {
		close_input(&in);
		return cli_usage_error("convert", "--%s applies to an IST output (OUT is CSV)",
				       opts.level ? "level" :
				       opts.effort ? "fast" : "chunk-records");
	}
	if (in.kind == K_CSV && salvage) {
		close_input(&in);
		return cli_usage_error("convert", "--salvage applies to an IST input (%s is CSV)",
				       in.name);
	}
	if (out.kind == K_IST && !strcmp(argv[optind + 1], "-") && isatty(1)) {
		close_input(&in);
		cli_err("stdout: refusing to write binary IST to a terminal");
		return EXIT_FAIL;
	}
	recs = malloc(BATCH * sizeof(*recs));
	if (!recs) {
		close_input(&in);
		cli_err("%s", strerror(ENOMEM));
		return EXIT_FAIL;
	}
	if (in.kind == K_CSV)
		ret = convert_from_csv(&in, &out, argv[optind + 1], &opts, recs);
	else
		ret = convert_from_ist(&in, &out, argv[optind + 1], &opts, recs,
				       salvage);
	free(recs);
	close_input(&in);
	return ret ? EXIT_FAIL : EXIT_OK;
}
