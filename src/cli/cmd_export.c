/* SPDX-License-Identifier: MIT */
/* cmd_export.c - `iostorm export`: write an IST trace as canonical CSV, fio iolog v3 or blkparse-like text. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "import/export.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iostorm export --format F IN.ist -o OUT\n"
		"\n"
		"Writes an IST trace in a format other tools read.\n"
		"\n"
		"Options:\n"
		"  -f, --format F        csv (canonical, exact, with the metadata and\n"
		"                        device table: convert's CSV), fio (iolog v3, for\n"
		"                        fio --read_iolog) or blkparse (blkparse-like text)\n"
		"  -o, --output FILE     output file ('-' for standard output; required)\n"
		"      --map DEV=FILE    write FILE instead of the device name DEV\n"
		"                        (fio: the file or device fio replays on);\n"
		"                        repeatable, once per DEV; not for csv\n"
		"                        (device indexes)\n"
		"      --list-formats    list the output formats and exit\n"
		"  -q, --quiet           no summary on standard error\n"
		"  -h, --help            this help\n"
		"\n"
		"Exit status: 0 success, 1 bad input or failure, 2 usage error.\n");
}

int cmd_export(int argc, char **argv)
{
	enum { O_MAP = 256, O_LIST };
	static const struct option lopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "map", required_argument, NULL, O_MAP },
		{ "list-formats", no_argument, NULL, O_LIST },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct exp_format *f = NULL;
	struct exp_map *map = NULL;
	struct exp_options opt = { 0 };
	struct exp_result res;
	const char *out = NULL;
	int c, quiet = 0, list = 0, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:o:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			f = exp_format_find(optarg);
			if (!f) {
				free(map);
				return cli_usage_error("export", "unknown format '%s' (csv, fio, blkparse)",
						       optarg);
			}
			break;
		case 'o':
			out = optarg;
			break;
		case O_MAP: {
			char *eq = strchr(optarg, '=');
			struct exp_map *n;

			if (!eq || eq == optarg || !eq[1]) {
				free(map);
				return cli_usage_error("export", "--map takes DEV=FILE");
			}
			n = realloc(map, (opt.nmap + 1) * sizeof(*map));
			if (!n) {
				free(map);
				cli_err("out of memory");
				return EXIT_FAIL;
			}
			map = n;
			*eq = '\0';
			/* the first one was used and the others dropped */
			for (unsigned i = 0; i < opt.nmap; i++)
				if (!strcmp(map[i].dev, optarg)) {
					free(map);
					return cli_usage_error("export", "--map: device '%s' given twice",
							       optarg);
				}
			map[opt.nmap].dev = optarg;
			map[opt.nmap].file = eq + 1;
			opt.nmap++;
			break;
		}
		case O_LIST:
			/* after the options: an operand is a usage error */
			list = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			free(map);
			return EXIT_OK;
		default:
			free(map);
			return cli_bad_option("export", argc, argv);
		}
	}
	opt.map = map;
	if (list) {
		ret = cli_list_no_operand("export", "--list-formats", argc, argv, optind);
		for (unsigned i = 0; !ret && exp_formats[i]; i++)
			printf("%-10s %s\n", exp_formats[i]->name,
			       exp_formats[i]->description);
	} else if (!f)
		ret = cli_usage_error("export", "no --format (csv, fio, blkparse)");
	else if (optind != argc - 1)
		ret = cli_usage_error("export", "expected one input IST file");
	else if (!out)
		ret = cli_usage_error("export", "no output file (-o OUT)");
	else if (map && !strcmp(f->name, "csv"))
		/* it was accepted and changed nothing */
		ret = cli_usage_error("export", "--map applies to fio and blkparse output "
				      "(csv keeps device indexes)");
	else if (cli_check_inputs((const char *const *)&argv[optind], 1) ||
		 cli_check_output(out, (const char *const *)&argv[optind], 1))
		ret = EXIT_FAIL;
	else
		ret = -1;
	if (ret != -1) {
		free(map);
		return ret;
	}
	{
		/* exp_run() reads its input itself: a look at the footer
		 * first, to warn of a trace that may be cut short */
		ist_reader *r;
		int e = ist_reader_open(&r, argv[optind]);

		if (e < 0) {
			/* said as every command says it */
			cli_err_open(argv[optind], e);
			free(map);
			return EXIT_FAIL;
		}
		cli_warn_no_footer(argv[optind], r);
		ist_reader_close(r);
	}
	ret = exp_run(argv[optind], out, f, &opt, &res);
	free(map);
	if (ret) {
		/* a failed write on standard output in every command's words
		 * (it was "-: REASON", then main()'s own line) */
		if (!strcmp(out, "-") && ferror(stdout))
			cli_err_stdout(ret < 0 && ret > -4096 ? -ret : 0);
		else if (res.err_where[0])
			cli_err("%s: %s: %s", res.err_file, res.err_where,
				res.err_reason);
		else
			cli_err("%s: %s", res.err_file, res.err_reason);
		return EXIT_FAIL;
	}
	if (!quiet) {
		fprintf(stderr, "exported %" PRIu64 " records as %s to %s\n",
			res.records, f->name, out);
		if (res.converted)
			fprintf(stderr, "%" PRIu64 " records approximated (no such operation in %s)\n",
				res.converted, f->name);
		if (res.unaligned)
			fprintf(stderr, "%" PRIu64 " records not sector-aligned (rounded down)\n",
				res.unaligned);
	}
	return EXIT_OK;
}
