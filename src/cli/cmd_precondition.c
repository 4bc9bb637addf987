/* SPDX-License-Identifier: MIT */
/* cmd_precondition.c - `iostorm precondition`: sequential fill, then a
 * workload in rounds until steady state (SNIA PTS), one JSON result. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/rpt_out.h"
#include "report/sweep.h"
#include "report/synthsrc.h"
#include "synth/synth.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iostorm precondition TARGET --allow-write -o FILE [options]\n"
		"\n"
		"Brings a drive to steady state before measurements: writes it\n"
		"sequentially (--passes times), then runs a workload in rounds until the\n"
		"SNIA PTS steady-state rules hold over the last 5 rounds (IOPS within a\n"
		"band of 20%% of their average, least-squares slope excursion within\n"
		"10%%), or until --max-rounds.  The curve goes to a JSON result (schema\n"
		"iostorm-precondition/1) that `iostorm report` charts.  DESTROYS the data\n"
		"on TARGET.\n"
		"\n"
		"Options:\n"
		"      --passes N        sequential fill passes, 0-100 (default 2; 0: no fill)\n"
		"      --workload W      4k-randwrite (default), another built-in pattern\n"
		"                        (iostorm sweep --list), a synth profile or .ini\n"
		"                        file (iostorm synth --list), or a trace file\n"
		"      --set NAME=VALUE  a parameter of a synth profile (repeatable)\n"
		"      --round T         length of a round, at least 10ms (default 60s)\n"
		"      --max-rounds N    give up after N rounds, 1-1000 (default 25; below\n"
		"                        5, the steady-state window, it cannot be reached)\n"
		"      --threads N       threads of the workload, 1-64 (default 16)\n"
		"      --qd N            queue depth per thread, 1-65536 (default 16)\n"
		"      --region SIZE     bytes of the target used, at least 4k (default all)\n"
		"      --null            the null back-end instead of TARGET (tests)\n"
		"      --create          create or extend a file TARGET (with --size)\n"
		"      --size SIZE       size of a created file, or of the null target\n"
		"                        (default 1G)\n"
		"      --buffered        page cache I/O (default O_DIRECT)\n"
		"      --allow-write     permit the writes to a block device or an\n"
		"                        existing file with data (required for them)\n"
		"      --force           even to a device with a filesystem or partition\n"
		"                        table signature\n"
		"      --data PATTERN    write data (as replay: random, zero, ...)\n"
		"  -o, --output FILE     the JSON result (also --json FILE)\n"
		"      --quiet           no progress on stdout\n"
		"  -h, --help            this help\n"
		"\n"
		"Exit status: 0 steady state reached, 1 failure or refusal (or the\n"
		"progress on stdout lost), 2 usage error, 4 no steady state within\n"
		"--max-rounds (or interrupted); the result is written in both cases.\n");
}

#define EXIT_NOT_STEADY 4

struct workload {
	const char *trace;
	const struct rpt_pattern *pattern;
	struct rpt_synth_spec synth;
	uint64_t region;
};

static int open_workload(void *arg, struct rpl_source **s)
{
	struct workload *w = arg;
	char err[256];

	if (w->trace)
		return rpl_source_open(s, w->trace);
	if (w->synth.profile)
		return rpt_synth_source(s, &w->synth, err, sizeof(err));
	return rpt_pattern_source(s, w->pattern, w->region, 0, 1);
}

static int synth_known(const char *name)
{
	size_t n = strlen(name);

	return syn_profile_find(name) || (n > 4 && !strcmp(name + n - 4, ".ini"));
}

static void print_point(void *arg, const char *phase, const struct rpt_point *p)
{
	char a[32], b[32];

	if (*(int *)arg)
		return;
	if (!strcmp(phase, "fill"))
		printf("fill      %10.1f MB/s  %s in %.1f s\n", p->mbps,
		       cli_fmt_bytes(p->bytes, a, sizeof(a)), p->elapsed_s);
	else
		printf("round %3u %10.0f IOPS %8.1f MB/s  mean %10s  p99 %10s\n", p->round,
		       p->iops, p->mbps, cli_fmt_ns(p->lat.mean, a, sizeof(a)),
		       cli_fmt_ns(p->lat.p99, b, sizeof(b)));
	cli_flush_stdout();
}

enum { O_PASSES = 256, O_WORKLOAD, O_SET, O_ROUND, O_MAXR, O_THREADS, O_QD, O_REGION, O_QUIET };

int cmd_precondition(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "passes", required_argument, NULL, O_PASSES },
		{ "workload", required_argument, NULL, O_WORKLOAD },
		{ "set", required_argument, NULL, O_SET },
		{ "round", required_argument, NULL, O_ROUND },
		{ "max-rounds", required_argument, NULL, O_MAXR },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "qd", required_argument, NULL, O_QD },
		{ "region", required_argument, NULL, O_REGION },
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rpt_precond_opts *o = NULL;
	struct rpt_precond_result *res = NULL;
	struct workload w = { 0 };
	const char *target = NULL, *output = NULL, *wname = "4k-randwrite";
	uint64_t size = 0, region = 0, v, passes = 2, maxr = 25, th = 16, qd = 16;
	uint64_t round_ns = 60000000000ull;
	int quiet = 0, c, e, rc = EXIT_OK;
	json_object *root, *arr, *x;
	char err[512], started[32], *cmdline = NULL;

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
	while ((c = getopt_long(argc, argv, "o:h", lopts, NULL)) != -1) {
		switch (c) {
		case O_PASSES:
			if (cli_parse_uint(optarg, 100, &passes) < 0) {
				rc = cli_usage_error("precondition", "--passes: bad number '%s' (0..100)",
						     optarg);
				goto out;
			}
			break;
		case O_WORKLOAD:
			wname = optarg;
			break;
		case O_SET:
			if (w.synth.nsets == RPT_SYNTH_MAX_SETS || !strchr(optarg, '=')) {
				rc = cli_usage_error("precondition", "--set: expected NAME=VALUE "
						     "(at most %d)", RPT_SYNTH_MAX_SETS);
				goto out;
			}
			w.synth.sets[w.synth.nsets++] = optarg;
			break;
		case O_ROUND:
			if (cli_parse_duration_ns(optarg, &round_ns) < 0 || round_ns < 10000000) {
				rc = cli_usage_error("precondition", "--round: bad duration '%s' "
						     "(at least 10ms)", optarg);
				goto out;
			}
			break;
		case O_MAXR:
			if (cli_parse_uint(optarg, RPT_MAX_ROUNDS, &maxr) < 0 || maxr < 1) {
				rc = cli_usage_error("precondition", "--max-rounds: bad number '%s' "
						     "(1..%d)", optarg, RPT_MAX_ROUNDS);
				goto out;
			}
			break;
		case O_THREADS:
			if (cli_parse_uint(optarg, RPL_MAX_WORKERS, &th) < 0 || th < 1) {
				rc = cli_usage_error("precondition", "--threads: bad number '%s' (1..%d)",
						     optarg, RPL_MAX_WORKERS);
				goto out;
			}
			break;
		case O_QD:
			if (cli_parse_uint(optarg, 65536, &qd) < 0 || qd < 1) {
				rc = cli_usage_error("precondition", "--qd: bad number '%s' (1..65536)", optarg);
				goto out;
			}
			break;
		case O_REGION:
			if (cli_parse_size(optarg, &region) < 0 || region < 4096) {
				rc = cli_usage_error("precondition", "--region: bad size '%s' (at least 4k)", optarg);
				goto out;
			}
			break;
		CLI_TARGET_CASES:
			rc = cli_target_option("precondition", c, optarg, &o->base, &size);
			if (rc)
				goto out;
			break;
		case 'o':
			output = optarg;
			break;
		case O_QUIET:
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			goto out;
		default:
			rc = cli_bad_option("precondition", argc, argv);
			goto out;
		}
	}
	if (optind < argc)
		target = argv[optind++];
	if (optind < argc) {
		rc = cli_usage_error("precondition", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!output) {
		rc = cli_usage_error("precondition", "no output: give -o FILE");
		goto out;
	}
	rc = cli_target_set("precondition", "TARGET", target, &o->base, size);
	if (rc)
		goto out;
	/* the fill and the pattern cover the target, or --region of it */
	if (cli_target_bytes(target, &o->base, size, region, &v)) {
		rc = EXIT_FAIL;
		goto out;
	}
	v -= v % 131072;
	/* it was "'': No such file or directory, nor a built-in pattern..." */
	if (!*wname) {
		cli_err("'': an empty --workload (a pattern, a synth profile or a trace file)");
		rc = EXIT_FAIL;
		goto out;
	}
	w.pattern = rpt_pattern_find(wname);
	if (!w.pattern && synth_known(wname)) {
		struct rpl_source *probe;

		w.synth.profile = wname;
		w.synth.duration_ns = 60000000000ull;
		e = rpt_synth_source(&probe, &w.synth, err, sizeof(err));
		if (e < 0) {
			if (e == -ENOENT || e == IST_ERANGE || (e == IST_EPARSE && !strstr(err, "line")))
				rc = cli_usage_error("precondition", "--workload: %s", err);
			else {
				cli_err("%s", err);
				rc = EXIT_FAIL;
			}
			goto out;
		}
		rpl_source_close(probe);
		/* the profile's devices are scaled onto the target */
		o->base.remap = RPL_REMAP_SCALE;
	} else if (!w.pattern) {
		struct stat st;

		/* a mistyped pattern or profile name was "bogus: No such
		 * file or directory", as if only a file had been meant */
		if (stat(wname, &st) < 0 && errno == ENOENT) {
			cli_err("%s: No such file or directory, nor a built-in pattern (iostorm "
				"sweep --list) or a synth profile (iostorm synth --list)", wname);
			rc = EXIT_FAIL;
			goto out;
		}
		w.trace = wname;
	}
	if (w.synth.nsets && !w.synth.profile) {
		rc = cli_usage_error("precondition", "--set needs a synth profile as --workload");
		goto out;
	}
	if (target && !o->base.allow_write &&
	    (passes || !w.pattern || w.pattern->read_pct < 100)) {
		struct stat st;

		/* block devices: the engine refuses (needs --allow-write);
		 * an existing file with data is as much someone's data */
		if (stat(target, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
			cli_err("%s: refused: an existing file of %llu bytes; preconditioning "
				"overwrites it (--allow-write permits it)", target,
				(unsigned long long)st.st_size);
			rc = EXIT_FAIL;
			goto out;
		}
	}
	if (target && w.trace) {
		struct stat st, sw;

		/* the fill (a pattern, not the trace) would overwrite it
		 * before the engine's own check on the workload's run */
		if (stat(target, &st) == 0 && stat(w.trace, &sw) == 0 &&
		    st.st_dev == sw.st_dev && st.st_ino == sw.st_ino) {
			cli_err("%s: refused: the target is the workload's trace", target);
			rc = EXIT_FAIL;
			goto out;
		}
	}
	/* before the fill, which may take hours */
	if (cli_check_run_files(output, w.trace, target)) {
		rc = EXIT_FAIL;
		goto out;
	}
	w.region = v;
	if (v < 131072) {
		cli_err("%s: %llu bytes: too small to precondition", target ? target : "null target",
			(unsigned long long)v);
		rc = EXIT_FAIL;
		goto out;
	}
	o->passes = (unsigned)passes;
	o->fill = rpt_pattern_find("128k-seqwrite");
	o->fill_bytes = v;
	o->threads = (unsigned)th;
	o->qd = (unsigned)qd;
	o->round_ns = round_ns;
	o->max_rounds = (unsigned)maxr;
	o->open_source = open_workload;
	o->source_arg = &w;
	o->source_name = wname;
	o->point_done = print_point;
	o->point_arg = &quiet;
	o->stop = cli_stop_flag();
	cli_now_iso(started, sizeof(started));
	cmdline = cli_command_line(argc, argv, "precondition");
	cli_catch_stop();
	e = rpt_precond_run(o, res, err, sizeof(err));
	cli_release_stop();
	if (e < 0) {
		cli_err("%s", err);
		rc = EXIT_FAIL;
		goto out;
	}

	root = cli_json_result("iostorm-precondition/1", cmdline, started, res->interrupted);
	json_object_object_add(root, "target", json_object_new_string(target ? target : "null"));
	json_object_object_add(root, "workload", json_object_new_string(wname));
	x = json_object_new_object();
	json_object_object_add(x, "threads", json_object_new_int64((int64_t)th));
	json_object_object_add(x, "qd", json_object_new_int64((int64_t)qd));
	json_object_object_add(x, "round_ns", json_object_new_int64((int64_t)round_ns));
	json_object_object_add(x, "max_rounds", json_object_new_int64((int64_t)maxr));
	json_object_object_add(x, "passes", json_object_new_int64((int64_t)passes));
	json_object_object_add(x, "region", json_object_new_int64((int64_t)v));
	json_object_object_add(x, "window", json_object_new_int(RPT_STEADY_WINDOW));
	json_object_object_add(x, "max_excursion", json_object_new_double(RPT_STEADY_MAX_EXCURSION));
	json_object_object_add(x, "max_slope_excursion", json_object_new_double(RPT_STEADY_MAX_SLOPE));
	json_object_object_add(root, "settings", x);
	x = json_object_new_object();
	json_object_object_add(x, "passes", json_object_new_int64((int64_t)res->passes_done));
	json_object_object_add(x, "bytes", json_object_new_int64((int64_t)res->fill_bytes));
	json_object_object_add(x, "elapsed_ns", json_object_new_int64((int64_t)(res->fill_s * 1e9)));
	json_object_object_add(root, "fill", x);
	arr = json_object_new_array();
	for (size_t i = 0; i < res->nrounds; i++)
		json_object_array_add(arr, rpt_point_json(&res->rounds[i], "round"));
	json_object_object_add(root, "rounds", arr);
	x = json_object_new_object();
	json_object_object_add(x, "reached", json_object_new_boolean(res->steady.reached));
	json_object_object_add(x, "metric", json_object_new_string("iops"));
	if (res->nrounds >= RPT_STEADY_WINDOW) {
		/* the last window tested, reached or not (1-based rounds) */
		json_object_object_add(x, "window_first", json_object_new_int64((int64_t)res->steady.first + 1));
		json_object_object_add(x, "window_last", json_object_new_int64((int64_t)res->steady.last + 1));
		if (isfinite(res->steady.average)) {
			json_object_object_add(x, "average", json_object_new_double(res->steady.average));
			json_object_object_add(x, "excursion", json_object_new_double(res->steady.excursion));
			json_object_object_add(x, "slope", json_object_new_double(res->steady.slope));
			json_object_object_add(x, "slope_excursion",
					       json_object_new_double(res->steady.slope_excursion));
		}
	}
	json_object_object_add(root, "steady_state", x);
	e = rpt_json_write(output, root);
	if (e < 0) {
		cli_err("%s: %s", output, strerror(-e));
		rc = EXIT_FAIL;
		goto out;
	}
	if (!quiet) {
		if (res->steady.reached)
			printf("steady state in rounds %zu-%zu: %.0f IOPS (excursion %.1f%%, slope "
			       "excursion %.1f%%); result in %s\n", res->steady.first + 1,
			       res->steady.last + 1, res->steady.average, res->steady.excursion * 100,
			       res->steady.slope_excursion * 100, output);
		else
			printf("no steady state after %zu rounds%s; result in %s\n", res->nrounds,
			       res->interrupted ? " (interrupted)" : "", output);
	}
	rc = res->steady.reached ? EXIT_OK : EXIT_NOT_STEADY;
out:
	free(cmdline);
	free(o);
	free(res);
	return rc;
}
