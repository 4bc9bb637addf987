/* SPDX-License-Identifier: MIT */
/* cmd_report.c - `iostorm report`: run results to an HTML page or SVG. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/rpt_out.h"
#include "report/report.h"

#define MAX_RUNS 64

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iostorm report RUN.json [RUN2.json ...] -o FILE [options]\n"
		"\n"
		"Draws run results (iostorm replay --json, sweep, precondition) as one\n"
		"self-contained HTML page with inline SVG charts: IOPS and MB/s over time,\n"
		"mean/p99/max latency over time, the latency percentile curve, timing\n"
		"lateness, TPS-eq, latency against IOPS for sweeps, IOPS per round for\n"
		"preconditioning; several runs overlaid, and a table of headline figures.\n"
		"\n"
		"Options:\n"
		"  -o, --output FILE     where to write (\"-\" for standard output)\n"
		"  -f, --format FMT      html (default) or svg (the charts alone)\n"
		"  -t, --title TEXT      title of the page (default \"iostorm report\")\n"
		"  -l, --label TEXT      name of the next run in legends (repeatable, in\n"
		"                        the order of the files; default: the run's\n"
		"                        \"label\" field, else the file name less .json)\n"
		"  -h, --help            this help\n"
		"\n"
		"Exit status: 0 written, 1 bad input or write failure, 2 usage error.\n");
}

int cmd_report(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "title", required_argument, NULL, 't' },
		{ "label", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL, *title = NULL, *labels[MAX_RUNS];
	struct rpt_run *runs[MAX_RUNS];
	struct rpt_report_opts ro = { 0 };
	struct cli_outfile of;
	size_t nlabels = 0, nruns = 0;
	int svg = 0, c, rc = EXIT_OK, e;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:f:t:l:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "html"))
				svg = 0;
			else if (!strcmp(optarg, "svg"))
				svg = 1;
			else
				return cli_usage_error("report", "--format: '%s' is not html or svg",
						       optarg);
			break;
		case 't':
			/* an empty <title>, a run without a name in the legends */
			if (!*optarg)
				return cli_usage_error("report", "--title: empty");
			title = optarg;
			break;
		case 'l':
			if (!*optarg)
				return cli_usage_error("report", "--label: empty");
			if (nlabels == MAX_RUNS)
				return cli_usage_error("report", "more than %d labels", MAX_RUNS);
			labels[nlabels++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("report", argc, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("report", "no run result file given");
	if (!output)
		return cli_usage_error("report", "no output: give -o FILE (or -o - for stdout)");
	if (argc - optind > MAX_RUNS)
		return cli_usage_error("report", "more than %d runs", MAX_RUNS);
	if (nlabels > (size_t)(argc - optind))
		return cli_usage_error("report", "%zu labels for %d runs", nlabels, argc - optind);
	if (cli_check_inputs((const char *const *)&argv[optind], argc - optind) ||
	    cli_check_output(output, (const char *const *)&argv[optind], argc - optind))
		return EXIT_FAIL;
	for (int i = optind; i < argc; i++) {
		char err[256];

		e = rpt_run_load(&runs[nruns], argv[i], err, sizeof(err));
		if (e < 0) {
			cli_err("%s: %s", argv[i], err[0] ? err : ist_strerror(e));
			rc = EXIT_FAIL;
			goto out;
		}
		if (nruns < nlabels) {
			char *l = strdup(labels[nruns]);

			if (l) {
				free(runs[nruns]->label);
				runs[nruns]->label = l;
			}
		}
		nruns++;
	}
	ro.title = title;
	ro.generator = PACKAGE_STRING;
	if (cli_outfile_open(&of, output) < 0) {
		rc = EXIT_FAIL;
		goto out;
	}
	e = svg ? rpt_write_svg(of.f, runs, nruns, &ro) :
		  rpt_write_html(of.f, runs, nruns, &ro);
	if (cli_outfile_close(&of, e) < 0)
		rc = EXIT_FAIL;
out:
	for (size_t i = 0; i < nruns; i++)
		rpt_run_free(runs[i]);
	return rc;
}
