/* SPDX-License-Identifier: MIT */
/* cmd_sweep.c - `iostorm sweep`: threads x queue depth grid and rate
 * curve of a trace or a synthetic pattern, one JSON result. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/rpt_out.h"
#include "report/sweep.h"
#include "report/synthsrc.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iostorm sweep TRACE --target PATH -o FILE [options]\n"
		"       iostorm sweep --synth PROFILE --target PATH -o FILE [options]\n"
		"       iostorm sweep --pattern NAME --target PATH -o FILE [options]\n"
		"\n"
		"Measures a workload across a grid of threads x queue depth as fast as\n"
		"possible (the reviews' 2T2Q ... 16T16Q), then along a rate curve: arrivals\n"
		"at percentages of the largest IOPS of the grid (vdbench's iorate curve),\n"
		"with that point's threads and queue depth.  One JSON result (schema\n"
		"iostorm-sweep/1) that `iostorm report` draws as latency against IOPS.\n"
		"\n"
		"Workload:\n"
		"  TRACE                 an IST trace or canonical CSV, repeated as needed\n"
		"      --synth PROFILE   a workload emulator (iostorm synth --list) or a\n"
		"                        .ini mix profile, generated on the fly\n"
		"      --set NAME=VALUE  a parameter of the profile (repeatable)\n"
		"      --pattern NAME    a built-in fio-like pattern (--list), over --region\n"
		"      --region SIZE     bytes of the target the pattern uses, at least 4k\n"
		"                        (default all; --pattern only)\n"
		"      --seed N          seed of the profile or pattern (default 1; not for\n"
		"                        a TRACE)\n"
		"      --remap MODE      trace offsets beyond the target: strict (default\n"
		"                        for traces), wrap, scale (default for --synth)\n"
		"Grid and curve:\n"
		"      --threads LIST    thread counts (default 2,4,8,16; at most 64)\n"
		"      --qd LIST         queue depths per thread (default 2,4,8,16; at most\n"
		"                        65536)\n"
		"      --rates LIST      percentages of the maximum, 1-1000 (default\n"
		"                        10,20,...,120; \"none\": no curve)\n"
		"      --point T         length of each point, at least 10ms (default 5s)\n"
		"Target:\n"
		"  -t, --target PATH     file or block device\n"
		"      --null            the null back-end (no device: engine cost alone)\n"
		"      --create          create or extend a file target (with --size)\n"
		"      --size SIZE       size of a created file, or of the null target\n"
		"                        (default 1G)\n"
		"      --buffered        page cache I/O (default O_DIRECT)\n"
		"      --allow-write     permit writes to block devices\n"
		"      --force           even to a device with a filesystem or partition\n"
		"                        table signature\n"
		"      --data PATTERN    write data (as replay: random, zero, ...)\n"
		"Output:\n"
		"  -o, --output FILE     the JSON result (also --json FILE)\n"
		"      --quiet           no table on stdout\n"
		"      --list            list the built-in patterns\n"
		"  -h, --help            this help\n"
		"\n"
		"LISTs are comma-separated; \"a,b,...,z\" continues the step from a to b up\n"
		"to z; a value given twice is a usage error.  Interrupted (SIGINT), the\n"
		"sweep writes what it measured, marked interrupted.  Exit status: 0 done\n"
		"(also when interrupted), 1 failure or refusal (safety rules of\n"
		"iostorm-replay(1)), 2 usage error.\n");
}

struct workload {
	const char *trace;
	const struct rpt_pattern *pattern;
	struct rpt_synth_spec synth;
	uint64_t region, seed;
};

static int open_workload(void *arg, struct rpl_source **s)
{
	struct workload *w = arg;
	char err[256];

	if (w->trace)
		return rpl_source_open(s, w->trace);
	if (w->synth.profile)
		return rpt_synth_source(s, &w->synth, err, sizeof(err));
	return rpt_pattern_source(s, w->pattern, w->region, 0, w->seed);
}

static void print_point(void *arg, const char *phase, const struct rpt_point *p)
{
	char a[32], b[32], name[64];

	if (*(int *)arg)
		return;
	if (!strcmp(phase, "grid"))
		snprintf(name, sizeof(name), "%uT%uQ", p->threads, p->qd);
	else
		snprintf(name, sizeof(name), "%.0f%% (%uT%uQ)", p->pct, p->threads, p->qd);
	printf("%-6s %-16s %12.0f IOPS %10.1f MB/s  mean %10s  p99 %10s\n", phase, name,
	       p->iops, p->mbps, cli_fmt_ns(p->lat.mean, a, sizeof(a)),
	       cli_fmt_ns(p->lat.p99, b, sizeof(b)));
	cli_flush_stdout();
}

/* A list of counts (threads, queue depths): cli_parse_list() of whole
 * numbers; 1.5 threads was taken as 1 (the result said 1.5). */
static int parse_count_list(const char *s, double max, double *v)
{
	int n = cli_parse_list(s, 1, max, v, RPT_SWEEP_MAX);

	for (int i = 0; i < n; i++)
		if (v[i] != floor(v[i]))
			return -1;
	return n;
}

/* The first value given twice in v, or NULL: a point measured twice
 * (grid, or curve) took a second --point of the drive's time, and the
 * list was more likely mistyped ("1,4,4" for "1,4,8") than meant. */
static const double *list_dup(const double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = 0; j < i; j++)
			if (v[i] == v[j])
				return &v[i];
	return NULL;
}

static char *list_text(const double *v, unsigned n)
{
	char *s = calloc(1, (size_t)n * 24 + 1);

	for (unsigned i = 0; s && i < n; i++)
		sprintf(s + strlen(s), "%s%g", i ? "," : "", v[i]);
	return s;
}

enum { O_SYNTH = 256, O_SET, O_PATTERN, O_REMAP, O_REGION, O_SEED, O_THREADS, O_QD, O_RATES, O_POINT,
       O_QUIET, O_LIST };

int cmd_sweep(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "synth", required_argument, NULL, O_SYNTH },
		{ "set", required_argument, NULL, O_SET },
		{ "pattern", required_argument, NULL, O_PATTERN },
		{ "remap", required_argument, NULL, O_REMAP },
		{ "region", required_argument, NULL, O_REGION },
		{ "seed", required_argument, NULL, O_SEED },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "qd", required_argument, NULL, O_QD },
		{ "rates", required_argument, NULL, O_RATES },
		{ "point", required_argument, NULL, O_POINT },
		{ "target", required_argument, NULL, 't' },
		{ "null", no_argument, NULL, CLI_O_NULL },
		{ "create", no_argument, NULL, CLI_O_CREATE },
		{ "size", required_argument, NULL, CLI_O_SIZE },
		{ "buffered", no_argument, NULL, CLI_O_BUFFERED },
		{ "allow-write", no_argument, NULL, CLI_O_ALLOW },
		{ "force", no_argument, NULL, CLI_O_FORCE },
		{ "data", required_argument, NULL, CLI_O_DATA },
		{ "output", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "list", no_argument, NULL, O_LIST },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const double def_tq[] = { 2, 4, 8, 16 };
	double threads[RPT_SWEEP_MAX], qd[RPT_SWEEP_MAX], rates[RPT_SWEEP_MAX];
	int nthreads = 4, nqd = 4, nrates = 12, quiet = 0, c, e, rc = EXIT_OK, remap = -1, seed_set = 0;
	int list = 0;
	struct workload w = { .seed = 1 };
	const char *target = NULL, *output = NULL;
	uint64_t size = 0, region = 0, point_ns = 5000000000ull, v;
	struct rpt_sweep_opts *o = NULL;
	struct rpt_sweep_result *res = NULL;
	json_object *root, *arr, *tr, *set;
	char err[512], started[32], *cmdline = NULL, *t1, *t2, *t3;

	memcpy(threads, def_tq, sizeof(def_tq));
	memcpy(qd, def_tq, sizeof(def_tq));
	for (int i = 0; i < 12; i++)
		rates[i] = 10.0 * (i + 1);
	o = calloc(1, sizeof(*o));
	res = calloc(1, sizeof(*res));
	if (!o || !res) {
		cli_err("%s", strerror(ENOMEM));
		rc = EXIT_FAIL;
		goto out;
	}
	rpl_opts_init(&o->base);
	o->base.interval_ns = 0;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "t:o:h", lopts, NULL)) != -1) {
		switch (c) {
		case O_SYNTH:
			w.synth.profile = optarg;
			break;
		case O_SET:
			if (w.synth.nsets == RPT_SYNTH_MAX_SETS || !strchr(optarg, '=')) {
				rc = cli_usage_error("sweep", "--set: expected NAME=VALUE (at most %d)",
						     RPT_SYNTH_MAX_SETS);
				goto out;
			}
			w.synth.sets[w.synth.nsets++] = optarg;
			break;
		case O_PATTERN:
			w.pattern = rpt_pattern_find(optarg);
			if (!w.pattern) {
				rc = cli_usage_error("sweep", "--pattern: unknown pattern '%s' (see --list)",
						     optarg);
				goto out;
			}
			break;
		case O_REMAP:
			remap = rpl_remap_parse(optarg);
			if (remap < 0) {
				rc = cli_usage_error("sweep", "--remap: '%s' is not strict, wrap or scale",
						     optarg);
				goto out;
			}
			break;
		case O_REGION:
			if (cli_parse_size(optarg, &region) < 0 || region < 4096) {
				rc = cli_usage_error("sweep", "--region: bad size '%s' (at least 4k)", optarg);
				goto out;
			}
			break;
		case O_SEED:
			if (cli_parse_uint(optarg, UINT64_MAX, &w.seed) < 0) {
				rc = cli_usage_error("sweep", "--seed: bad number '%s'", optarg);
				goto out;
			}
			seed_set = 1;
			break;
		case O_THREADS:
			nthreads = parse_count_list(optarg, RPL_MAX_WORKERS, threads);
			if (nthreads < 0) {
				rc = cli_usage_error("sweep", "--threads: bad list '%s' (whole numbers 1..%d)", optarg,
						     RPL_MAX_WORKERS);
				goto out;
			}
			break;
		case O_QD:
			nqd = parse_count_list(optarg, 65536, qd);
			if (nqd < 0) {
				rc = cli_usage_error("sweep", "--qd: bad list '%s' (whole numbers 1..65536)", optarg);
				goto out;
			}
			break;
		case O_RATES:
			if (!strcmp(optarg, "none")) {
				nrates = 0;
				break;
			}
			nrates = cli_parse_list(optarg, 0.1, 1000, rates, RPT_SWEEP_MAX);
			if (nrates < 0) {
				rc = cli_usage_error("sweep", "--rates: bad list '%s' (percentages)", optarg);
				goto out;
			}
			break;
		case O_POINT:
			if (cli_parse_duration_ns(optarg, &point_ns) < 0 || point_ns < 10000000) {
				rc = cli_usage_error("sweep", "--point: bad duration '%s' (at least 10ms)",
						     optarg);
				goto out;
			}
			break;
		case 't':
			target = optarg;
			break;
		CLI_TARGET_CASES:
			rc = cli_target_option("sweep", c, optarg, &o->base, &size);
			if (rc)
				goto out;
			break;
		case 'o':
			output = optarg;
			break;
		case O_QUIET:
			quiet = 1;
			break;
		case O_LIST:
			/* after the options: an operand is a usage error */
			list = 1;
			break;
		case 'h':
			usage(stdout);
			goto out;
		default:
			rc = cli_bad_option("sweep", argc, argv);
			goto out;
		}
	}
	if (list) {
		rc = cli_list_no_operand("sweep", "--list", argc, argv, optind);
		if (rc)
			goto out;
		for (const struct rpt_pattern *p = rpt_patterns; p->name; p++)
			printf("%-14s %s\n", p->name, p->summary);
		printf("(--synth takes the profiles of `iostorm synth --list`)\n");
		goto out;
	}
	if (optind < argc)
		w.trace = argv[optind++];
	if (optind < argc) {
		rc = cli_usage_error("sweep", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (cli_check_inputs(&w.trace, 1)) {
		rc = EXIT_FAIL;
		goto out;
	}
	if (!!w.trace + !!w.pattern + !!w.synth.profile != 1) {
		rc = cli_usage_error("sweep", "give one of TRACE, --synth PROFILE, --pattern NAME");
		goto out;
	}
	if (w.synth.nsets && !w.synth.profile) {
		rc = cli_usage_error("sweep", "--set needs --synth");
		goto out;
	}
	/* accepted and ignored before: the workload has its own offsets */
	if (region && !w.pattern) {
		rc = cli_usage_error("sweep", "--region needs --pattern (%s)", w.trace ?
				     "a trace keeps its offsets, --remap fits them" :
				     "a profile has its own: iostorm synth --describe");
		goto out;
	}
	if (seed_set && w.trace) {
		rc = cli_usage_error("sweep", "--seed needs --synth or --pattern (a trace "
				     "replays as recorded)");
		goto out;
	}
	{
		const struct { const char *name; const double *v; int n; } lists[] = {
			{ "--threads", threads, nthreads }, { "--qd", qd, nqd },
			{ "--rates", rates, nrates },
		};

		for (unsigned i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
			const double *d = list_dup(lists[i].v, lists[i].n);

			if (d) {
				rc = cli_usage_error("sweep", "%s: %g given twice (each point is "
						     "measured once)", lists[i].name, *d);
				goto out;
			}
		}
	}
	if (w.synth.profile) {
		struct rpl_source *probe;

		/* checked once here: a bad profile or parameter stops before any I/O */
		w.synth.seed = w.seed;
		w.synth.duration_ns = 60000000000ull;
		e = rpt_synth_source(&probe, &w.synth, err, sizeof(err));
		if (e == -ENOENT || e == IST_ERANGE || (e == IST_EPARSE && w.synth.nsets &&
							 !strstr(err, "line"))) {
			rc = cli_usage_error("sweep", "--synth: %s", err);
			goto out;
		}
		if (e < 0) {
			cli_err("%s", err);
			rc = EXIT_FAIL;
			goto out;
		}
		rpl_source_close(probe);
	}
	o->base.remap = remap >= 0 ? (enum rpl_remap)remap :
			w.synth.profile ? RPL_REMAP_SCALE : RPL_REMAP_STRICT;
	if (!output) {
		rc = cli_usage_error("sweep", "no output: give -o FILE");
		goto out;
	}
	rc = cli_target_set("sweep", "--target", target, &o->base, size);
	if (rc)
		goto out;
	/* written when the sweep ends: checked before any I/O */
	if (cli_check_run_files(output, w.trace, target)) {
		rc = EXIT_FAIL;
		goto out;
	}
	if (w.pattern) {
		/* the pattern covers the target, or --region of it */
		if (cli_target_bytes(target, &o->base, size, region, &v)) {
			rc = EXIT_FAIL;
			goto out;
		}
		if (v < w.pattern->bs) {
			cli_err("%s: %llu bytes: too small for %s", target ? target : "null target",
				(unsigned long long)v, w.pattern->name);
			rc = EXIT_FAIL;
			goto out;
		}
		w.region = v;
	}
	for (int i = 0; i < nthreads; i++)
		o->threads[i] = (unsigned)threads[i];
	for (int i = 0; i < nqd; i++)
		o->qd[i] = (unsigned)qd[i];
	memcpy(o->rates, rates, sizeof(rates));
	o->nthreads = (unsigned)nthreads;
	o->nqd = (unsigned)nqd;
	o->nrates = (unsigned)nrates;
	o->point_ns = point_ns;
	o->open_source = open_workload;
	o->source_arg = &w;
	o->source_name = w.trace ? w.trace : w.synth.profile ? w.synth.profile : w.pattern->name;
	o->point_done = print_point;
	o->point_arg = &quiet;
	o->stop = cli_stop_flag();
	cli_now_iso(started, sizeof(started));
	cmdline = cli_command_line(argc, argv, "sweep");
	cli_catch_stop();
	e = rpt_sweep_run(o, res, err, sizeof(err));
	cli_release_stop();
	if (e < 0) {
		cli_err("%s", err);
		rc = EXIT_FAIL;
		goto out;
	}

	root = cli_json_result("iostorm-sweep/1", cmdline, started, res->interrupted);
	tr = json_object_new_object();
	json_object_object_add(tr, "path", json_object_new_string(w.trace ? w.trace : ""));
	{
		json_object *meta = json_object_new_object();

		if (w.synth.profile) {
			json_object *sets = json_object_new_array();

			json_object_object_add(meta, "profile", json_object_new_string(w.synth.profile));
			for (unsigned i = 0; i < w.synth.nsets; i++)
				json_object_array_add(sets, json_object_new_string(w.synth.sets[i]));
			json_object_object_add(meta, "params", sets);
			json_object_object_add(meta, "seed", json_object_new_int64((int64_t)w.seed));
		}
		if (w.pattern) {
			json_object_object_add(meta, "pattern", json_object_new_string(w.pattern->name));
			json_object_object_add(meta, "seed", json_object_new_int64((int64_t)w.seed));
			json_object_object_add(meta, "region", json_object_new_int64((int64_t)w.region));
		}
		json_object_object_add(tr, "metadata", meta);
	}
	json_object_object_add(root, "trace", tr);
	json_object_object_add(root, "target", json_object_new_string(target ? target : "null"));
	set = json_object_new_object();
	json_object_object_add(set, "point_ns", json_object_new_int64((int64_t)point_ns));
	t1 = list_text(threads, (unsigned)nthreads);
	t2 = list_text(qd, (unsigned)nqd);
	t3 = list_text(rates, (unsigned)nrates);
	json_object_object_add(set, "threads", json_object_new_string(t1 ? t1 : ""));
	json_object_object_add(set, "qd", json_object_new_string(t2 ? t2 : ""));
	json_object_object_add(set, "rates", json_object_new_string(t3 ? t3 : ""));
	free(t1);
	free(t2);
	free(t3);
	json_object_object_add(set, "backend", json_object_new_string(
		o->base.backend == RPL_BACKEND_NULL ? "null" : "io_uring"));
	json_object_object_add(set, "direct", json_object_new_boolean(!o->base.buffered));
	json_object_object_add(set, "remap", json_object_new_string(rpl_remap_name(o->base.remap)));
	{
		char buf[32];

		json_object_object_add(set, "data", json_object_new_string(
			rpl_data_format(o->base.data, o->base.data_param, buf, sizeof(buf))));
	}
	json_object_object_add(root, "settings", set);
	arr = json_object_new_array();
	for (size_t i = 0; i < res->ngrid; i++)
		json_object_array_add(arr, rpt_point_json(&res->grid[i], "grid"));
	json_object_object_add(root, "grid", arr);
	json_object_object_add(root, "max_iops", json_object_new_double(res->max_iops));
	{
		json_object *mp = json_object_new_object();

		json_object_object_add(mp, "threads", json_object_new_int((int)res->max_threads));
		json_object_object_add(mp, "qd", json_object_new_int((int)res->max_qd));
		json_object_object_add(root, "max_point", mp);
	}
	arr = json_object_new_array();
	for (size_t i = 0; i < res->ncurve; i++)
		json_object_array_add(arr, rpt_point_json(&res->curve[i], "curve"));
	json_object_object_add(root, "curve", arr);
	e = rpt_json_write(output, root);
	if (e < 0) {
		cli_err("%s: %s", output, strerror(-e));
		rc = EXIT_FAIL;
		goto out;
	}
	if (!quiet)
		printf("max %.0f IOPS at %uT%uQ%s; result in %s\n", res->max_iops,
		       res->max_threads, res->max_qd, res->interrupted ? " (interrupted)" : "",
		       output);
out:
	free(cmdline);
	free(o);
	free(res);
	return rc;
}
