/* SPDX-License-Identifier: MIT */
/* cmd_import.c - `iostorm import`: convert existing traces (fio, blktrace, SNIA, vscsi, CSV...) to IST. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "import/import.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iostorm import [options] IN... -o OUT.ist\n"
		"       iostorm import --check [options] IN...\n"
		"       iostorm import --list-formats\n"
		"\n"
		"Converts block I/O traces to an IST file.  The format is detected from\n"
		"the content unless given; gzip, bzip2, xz and zstd inputs are read\n"
		"transparently.  Times are shifted to start at 0 (the original start is\n"
		"kept in the metadata) and records are sorted by time.\n"
		"\n"
		"Options:\n"
		"  -f, --format F        input format (see --list-formats)\n"
		"      --list-formats    list the input formats and exit\n"
		"  -o, --output FILE     the IST file to write (required)\n"
		"      --event Q|D       blktrace/blkparse: the event that becomes an I/O:\n"
		"                        Q as submitted, D as issued to the driver (default D)\n"
		"      --columns MAP     csv: column map, e.g.\n"
		"                        't=1:us,dev=2,op=4:R/W,offset=5:sectors,len=6:bytes,lat=7:100ns'\n"
		"      --delimiter C     csv: field delimiter (default ','; 'tab' for a tab)\n"
		"      --quote C         csv: quote character (default '\"')\n"
		"      --header-rows N   csv: leading rows to skip (default: rows whose\n"
		"                        time column is not a number)\n"
		"      --device NAME     device name for single-device inputs (csv without\n"
		"                        dev, vscsi, vscsi-csv; disksim, mqsim: all\n"
		"                        devices); a usage error with other formats\n"
		"      --skip-bad N      tolerate up to N bad records (default 0)\n"
		"      --sort-window N   records held in memory for sorting, 16 to 2^30\n"
		"                        (default 131072)\n"
		"      --check           parse and count only, write nothing (no -o)\n"
		"      --absolute-time   keep the source's time origin (no shift to 0)\n"
		"      --fast            write faster, larger IST (ANS or plain columns,\n"
		"                        deflate only where a sample halves them)\n"
		"      --fastest         write fastest, largest IST (1.1 to 3.3 times the\n"
		"                        default's size): no entropy coding, deflate only\n"
		"                        where a sample shrinks to 1/8\n"
		"  -q, --quiet           no summary on standard output\n"
		"  -h, --help            this help\n"
		"\n"
		"A blktrace input may be given as NAME (for NAME.blktrace.0, .1, ...);\n"
		"'-' is standard input.  An empty input, or one without a single I/O\n"
		"record, is an error.\n"
		"Exit status: 0 success, 1 bad input or failure, 2 usage error.\n");
}

static void list_formats(void)
{
	for (unsigned i = 0; imp_formats[i]; i++)
		printf("%-10s %s%s\n", imp_formats[i]->name,
		       imp_formats[i]->description,
		       (imp_formats[i]->flags & IMP_NO_PROBE) ?
		       " [not detected]" : "");
}

/* NAME -> NAME.blktrace.0 .. N when NAME itself does not exist. */
static int expand_inputs(char **in, int n, char ***outp, int *nout)
{
	char **out = NULL;
	int k = 0;
	struct stat sb;

	for (int i = 0; i < n; i++) {
		char p[4096];
		int cpu = 0;

		snprintf(p, sizeof(p), "%s.blktrace.0", in[i]);
		if (stat(in[i], &sb) == 0 || stat(p, &sb) != 0) {
			out = realloc(out, (k + 1) * sizeof(*out));
			if (!out)
				return -1;
			out[k++] = strdup(in[i]);
			continue;
		}
		for (;;) {
			snprintf(p, sizeof(p), "%s.blktrace.%d", in[i], cpu);
			if (stat(p, &sb) != 0)
				break;
			out = realloc(out, (k + 1) * sizeof(*out));
			if (!out)
				return -1;
			out[k++] = strdup(p);
			cpu++;
		}
	}
	*outp = out;
	*nout = k;
	return 0;
}

int cmd_import(int argc, char **argv)
{
	enum { O_LIST = 256, O_EVENT, O_COLUMNS, O_DELIM, O_QUOTE, O_HEADER,
	       O_DEVICE, O_SKIP, O_WINDOW, O_ABS, O_CHECK, O_FAST, O_FASTEST };
	static const struct option lopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "list-formats", no_argument, NULL, O_LIST },
		{ "output", required_argument, NULL, 'o' },
		{ "event", required_argument, NULL, O_EVENT },
		{ "columns", required_argument, NULL, O_COLUMNS },
		{ "delimiter", required_argument, NULL, O_DELIM },
		{ "quote", required_argument, NULL, O_QUOTE },
		{ "header-rows", required_argument, NULL, O_HEADER },
		{ "device", required_argument, NULL, O_DEVICE },
		{ "skip-bad", required_argument, NULL, O_SKIP },
		{ "sort-window", required_argument, NULL, O_WINDOW },
		{ "absolute-time", no_argument, NULL, O_ABS },
		{ "check", no_argument, NULL, O_CHECK },
		{ "fast", no_argument, NULL, O_FAST },
		{ "fastest", no_argument, NULL, O_FASTEST },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct imp_options opt = { .header_rows = -1 };
	struct imp_result *res;
	const char *out = NULL;
	char **inputs = NULL;
	int c, quiet = 0, ninputs = 0, ret, check = 0, list = 0, effort;
	uint64_t v;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:o:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			opt.format = imp_format_find(optarg);
			if (!opt.format)
				return cli_usage_error("import", "unknown format '%s' (see --list-formats)",
						       optarg);
			break;
		case O_LIST:
			/* after the options: an operand is a usage error */
			list = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case O_EVENT:
			if (strcmp(optarg, "Q") && strcmp(optarg, "D"))
				return cli_usage_error("import", "--event must be Q or D");
			opt.event = optarg[0];
			break;
		case O_COLUMNS:
			opt.columns = optarg;
			break;
		case O_DELIM:
			if (!strcmp(optarg, "tab") || !strcmp(optarg, "\\t"))
				opt.delimiter = '\t';
			else if (strlen(optarg) == 1)
				opt.delimiter = optarg[0];
			else
				return cli_usage_error("import", "--delimiter takes one character or 'tab'");
			break;
		case O_QUOTE:
			if (strlen(optarg) != 1)
				return cli_usage_error("import", "--quote takes one character");
			opt.quote = optarg[0];
			break;
		case O_HEADER:
			if (cli_parse_uint(optarg, 1000000, &v))
				return cli_usage_error("import", "bad --header-rows '%s'", optarg);
			opt.header_rows = (int)v;
			break;
		case O_DEVICE:
			opt.device = optarg;
			break;
		case O_SKIP:
			if (cli_parse_uint(optarg, UINT64_MAX, &v))
				return cli_usage_error("import", "bad --skip-bad '%s'", optarg);
			opt.skip_bad = v;
			break;
		case O_WINDOW:
			if (cli_parse_uint(optarg, 1u << 30, &v) || v < 16)
				return cli_usage_error("import", "bad --sort-window '%s' (16 to 2^30 records)",
						       optarg);
			opt.sort_window = v;
			break;
		case O_ABS:
			opt.absolute_time = 1;
			break;
		case O_CHECK:
			check = 1;
			break;
		case O_FAST:
		case O_FASTEST:
			effort = c == O_FAST ? IST_EFFORT_FAST : IST_EFFORT_FASTEST;
			if (opt.writer.effort && opt.writer.effort != effort)
				return cli_usage_error("import", "--fast and --fastest exclude each other");
			opt.writer.effort = effort;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("import", argc, argv);
		}
	}
	if (list) {
		ret = cli_list_no_operand("import", "--list-formats", argc, argv, optind);
		if (!ret)
			list_formats();
		return ret;
	}
	if (optind >= argc)
		return cli_usage_error("import", "no input file");
	if (!out && !check)
		return cli_usage_error("import", "no output file (-o OUT.ist)");
	if (out && check)
		return cli_usage_error("import", "--check writes nothing: no -o");
	if (opt.writer.effort && check)
		return cli_usage_error("import", "--check writes nothing: no %s",
				       opt.writer.effort == IST_EFFORT_FAST ?
				       "--fast" : "--fastest");
	/* an option the format does not use would be ignored (--columns
	 * replaced an explicit --format by csv without a word) */
	if (opt.format && imp_unused_option(&opt, opt.format))
		return cli_usage_error("import", "%s does not apply to --format %s",
				       imp_unused_option(&opt, opt.format), opt.format->name);
	if (opt.columns && !opt.format)
		opt.format = imp_format_find("csv");
	/* before the expansion: '' would be ".blktrace.0", ... */
	if (cli_check_inputs((const char *const *)&argv[optind], argc - optind))
		return EXIT_FAIL;
	if (expand_inputs(argv + optind, argc - optind, &inputs, &ninputs)) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	res = NULL;
	if (cli_check_output(out, (const char *const *)inputs, ninputs)) {
		ret = EXIT_FAIL;
		goto done;
	}
	res = calloc(1, sizeof(*res));
	if (!res) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	ret = imp_run((const char *const *)inputs, ninputs, out, &opt, res);
	if (ret) {
		if (res->err_where[0])
			cli_err("%s: %s: %s", res->err_file, res->err_where,
				res->err_reason);
		else if (res->err_reason[0])
			cli_err("%s: %s", res->err_file, res->err_reason);
		else
			cli_err("%s: %s", out ? out : argv[optind], ist_strerror(ret));
		ret = EXIT_FAIL;
		goto done;
	}
	if (!quiet) {
		if (check)
			printf("checked %" PRIu64 " records in %d file%s (format %s)\n",
			       res->records, ninputs, ninputs == 1 ? "" : "s",
			       res->format->name);
		else
			printf("imported %" PRIu64 " records from %d file%s (format %s) into %s\n",
			       res->records, ninputs, ninputs == 1 ? "" : "s",
			       res->format->name, out);
		printf("reordered %" PRIu64 " records (sort runs spilled: %" PRIu64 ")\n",
		       res->reordered, res->runs);
		if (res->skipped) {
			printf("skipped %" PRIu64 " bad records, first at:", res->skipped);
			for (unsigned i = 0; i < IMP_MAX_BADPOS && i < res->skipped; i++)
				printf("%s %s", i ? "," : "", res->skipped_at[i]);
			printf("\n");
		}
		for (unsigned i = 0; i < res->nstats; i++)
			printf("%s %" PRIu64 "\n", res->stats[i].name,
			       res->stats[i].value);
	}
	ret = EXIT_OK;
done:
	for (int i = 0; i < ninputs; i++)
		free(inputs[i]);
	free(inputs);
	free(res);
	return ret;
}
