/* SPDX-License-Identifier: MIT */
/* cmd_compare.c - `iostorm compare`: a regression gate between two runs. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/textenc.h"
#include "cli/commands.h"
#include "report/compare.h"
#include "report/report.h"

#define EXIT_INCOMPARABLE 3

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iostorm compare BASE.json NEW.json [options]\n"
		"\n"
		"Compares two replay results (iostorm replay --json) figure by figure:\n"
		"IOPS, MB/s, TPS-eq, mean and percentile latencies, lateness, CPU per I/O,\n"
		"each with its absolute and relative change and, from the per-interval\n"
		"figures, the confidence interval of the change.  A threshold fails when\n"
		"the figure got worse by more than the threshold and the change is\n"
		"significant; a crossing within the noise is reported and passes.\n"
		"\n"
		"Options:\n"
		"  --max-iops-drop PCT    largest accepted IOPS drop (e.g. 5%%; a drop\n"
		"                         0 to below 100, a rise 0 to 1000000)\n"
		"  --max-mbps-drop PCT    largest accepted MB/s drop\n"
		"  --max-tps-drop PCT     largest accepted TPS-eq drop\n"
		"  --max-p99-rise PCT     largest accepted p99 latency rise\n"
		"  --max-mean-rise PCT    largest accepted mean latency rise\n"
		"  --max-p999-rise PCT    largest accepted p99.9 latency rise\n"
		"  --max-drop FIG=PCT     the same for any figure (see --list)\n"
		"  --max-rise FIG=PCT     the same for any figure\n"
		"  --confidence PCT       confidence of the intervals, 50 to below 100\n"
		"                         (default 95%%)\n"
		"  --ignore KEY           leave a setting (or \"trace\", \"interrupted\")\n"
		"                         out of the comparability check (repeatable)\n"
		"  --json                 machine-readable result on stdout\n"
		"  --list                 list the figures and their names\n"
		"  -h, --help             this help\n"
		"\n"
		"A sweep or preconditioning result is refused (bad input): iostorm\n"
		"report charts several of them on one page.\n"
		"\n"
		"Exit status: 0 within the thresholds, 1 a threshold failed (or bad\n"
		"input), 2 usage error, 3 the runs are not comparable (another trace,\n"
		"other settings, an interrupted run: the message says which).\n");
}

/*
 * compare's figures and noise model are a replay's (one run, per-interval
 * rows); a sweep is a grid of points and a preconditioning run a series
 * of rounds, with neither.  Such a file is bad input (exit 1, one line),
 * not a pair of runs that differ (exit 3 is for those).
 */
static int check_replay(const struct rpt_run *r)
{
	if (r->kind == RPT_REPLAY)
		return 0;
	cli_err("%s: a %s result (%s), not a replay's: compare takes replay results "
		"(iostorm replay --json); iostorm report charts several on one page", r->path,
		r->kind == RPT_SWEEP ? "sweep" : "preconditioning", r->schema);
	return -1;
}

static int parse_pct(const char *s, double *v)
{
	char buf[64];
	size_t n = strlen(s);

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n + 1);
	if (buf[n - 1] == '%')
		buf[n - 1] = 0;
	if (cli_parse_double(buf, v) < 0 || *v < 0 || *v > 1e6)
		return -1;
	return 0;
}

static int add_threshold(struct rpt_compare_opts *o, const char *opt,
			 const char *key, const char *val, int want_drop)
{
	const struct rpt_metric *m = rpt_metric_find(key);
	double pct;

	if (!m)
		return cli_usage_error("compare", "%s: unknown figure '%s' (see --list)", opt, key);
	if (want_drop != m->higher_better)
		return cli_usage_error("compare", "%s: %s is %s the lower the better: use --max-%s",
				       opt, key, m->higher_better ? "not" : "",
				       m->higher_better ? "drop" : "rise");
	if (parse_pct(val, &pct) < 0)
		return cli_usage_error("compare", "%s: '%s' is not a percentage (0 to 1000000)",
				       opt, val);
	/* a figure falls by 100% at most: such a gate never fails */
	if (want_drop && pct >= 100)
		return cli_usage_error("compare", "%s: '%s': a drop is below 100%% (a figure "
				       "cannot fall by more than all of it)", opt, val);
	if (o->nth == RPT_MAX_THRESHOLDS)
		return cli_usage_error("compare", "too many thresholds");
	for (unsigned i = 0; i < o->nth; i++)
		if (o->th[i].m == m) {
			o->th[i].pct = pct;
			return 0;
		}
	o->th[o->nth].m = m;
	o->th[o->nth].pct = pct;
	o->nth++;
	return 0;
}

static int add_kv_threshold(struct rpt_compare_opts *o, const char *opt,
			    const char *arg, int drop)
{
	const char *eq = strchr(arg, '=');
	char key[64];

	if (!eq || (size_t)(eq - arg) >= sizeof(key))
		return cli_usage_error("compare", "%s: expected FIGURE=PCT, got '%s'", opt, arg);
	memcpy(key, arg, (size_t)(eq - arg));
	key[eq - arg] = 0;
	return add_threshold(o, opt, key, eq + 1, drop);
}

static const char *sig_text(const struct rpt_figure_diff *d)
{
	if (d->sig == RPT_SIG_UNKNOWN)
		return d->m->src == RPT_IV_NONE ? "" : "no intervals";
	return d->sig == RPT_SIG_YES ? "significant" : "not significant";
}

static void print_text(const struct rpt_run *a, const struct rpt_run *b,
		       const struct rpt_comparison *c, double conf)
{
	char x[64], y[64], ch[64], rel[32], ci[48];

	printf("BASE %s (%s)\nNEW  %s (%s)\n\n", a->label, a->path, b->label, b->path);
	printf("%-20s %14s %14s %14s %9s  %-19s %s\n", "figure", "base", "new", "change",
	       "change%", "CI of change%", "verdict");
	for (size_t i = 0; i < c->nfig; i++) {
		const struct rpt_figure_diff *d = &c->fig[i];
		const char *verdict;
		char vbuf[96];

		rpt_fmt_metric(d->m, d->base, x, sizeof(x));
		rpt_fmt_metric(d->m, d->new_, y, sizeof(y));
		if (isfinite(d->change)) {
			rpt_fmt_metric(d->m, fabs(d->change), ch + 1, sizeof(ch) - 1);
			ch[0] = d->change < 0 ? '-' : '+';
		} else {
			snprintf(ch, sizeof(ch), "-");
		}
		if (isfinite(d->rel))
			snprintf(rel, sizeof(rel), "%+.1f%%", d->rel * 100);
		else
			snprintf(rel, sizeof(rel), "-");
		if (isfinite(d->rel_lo))
			snprintf(ci, sizeof(ci), "[%+.1f%%, %+.1f%%]", d->rel_lo * 100,
				 d->rel_hi * 100);
		else
			snprintf(ci, sizeof(ci), "-");
		verdict = sig_text(d);
		if (d->crossed) {
			snprintf(vbuf, sizeof(vbuf), "%s: limit %.4g%%, %s",
				 d->fails ? "FAIL" : "pass (noise)", d->threshold,
				 d->sig == RPT_SIG_UNKNOWN ? "significance unknown" : verdict);
			verdict = vbuf;
		} else if (isfinite(d->threshold)) {
			snprintf(vbuf, sizeof(vbuf), "ok (limit %.4g%%)%s%s", d->threshold,
				 verdict[0] ? ", " : "", verdict);
			verdict = vbuf;
		}
		{
			/* no trailing blanks where a figure has no verdict */
			char line[512];
			size_t n = (size_t)snprintf(line, sizeof(line),
						    "%-20s %14s %14s %14s %9s  %-19s %s", d->m->name,
						    x, y, ch, rel, ci, verdict);

			if (n >= sizeof(line))
				n = sizeof(line) - 1;
			while (n && line[n - 1] == ' ')
				line[--n] = '\0';
			printf("%s\n", line);
		}
	}
	printf("\n%.0f%% confidence intervals from the per-interval figures (Welch, "
	       "corrected for serial correlation).\n", conf * 100);
	if (c->fails)
		printf("verdict: REGRESSION (%u threshold%s failed)\n", c->fails,
		       c->fails == 1 ? "" : "s");
	else if (c->noise_only)
		printf("verdict: pass (%u threshold%s crossed within the noise: not significant)\n",
		       c->noise_only, c->noise_only == 1 ? "" : "s");
	else
		printf("verdict: pass\n");
}

static json_object *jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static int print_json(const struct rpt_run *a, const struct rpt_run *b,
		      const struct rpt_comparison *c, double conf, int status)
{
	json_object *root = json_object_new_object(), *figs = json_object_new_array();
	json_object *reasons = json_object_new_array();
	const char *s;

	json_object_object_add(root, "schema", json_object_new_string("iostorm-compare/1"));
	json_object_object_add(root, "base", json_object_new_string(a->path));
	json_object_object_add(root, "new", json_object_new_string(b->path));
	json_object_object_add(root, "comparable", json_object_new_boolean(c->comparable));
	/* the reasons, one string each */
	for (const char *p = c->why; *p;) {
		const char *e = strstr(p, "; ");
		size_t n = e ? (size_t)(e - p) : strlen(p);

		json_object_array_add(reasons, json_object_new_string_len(p, (int)n));
		p += n + (e ? 2 : 0);
	}
	json_object_object_add(root, "reasons", reasons);
	json_object_object_add(root, "confidence", json_object_new_double(conf));
	for (size_t i = 0; i < c->nfig; i++) {
		const struct rpt_figure_diff *d = &c->fig[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "figure", json_object_new_string(d->m->key));
		json_object_object_add(o, "name", json_object_new_string(d->m->name));
		json_object_object_add(o, "unit", json_object_new_string(d->m->is_ns ? "ns" : d->m->unit));
		json_object_object_add(o, "higher_is_better", json_object_new_boolean(d->m->higher_better));
		json_object_object_add(o, "base", jnum(d->base));
		json_object_object_add(o, "new", jnum(d->new_));
		json_object_object_add(o, "change", jnum(d->change));
		json_object_object_add(o, "change_pct", jnum(d->rel * 100));
		json_object_object_add(o, "ci_low_pct", jnum(d->rel_lo * 100));
		json_object_object_add(o, "ci_high_pct", jnum(d->rel_hi * 100));
		json_object_object_add(o, "intervals_base", json_object_new_int64((int64_t)d->n_base));
		json_object_object_add(o, "intervals_new", json_object_new_int64((int64_t)d->n_new));
		json_object_object_add(o, "significant", d->sig == RPT_SIG_UNKNOWN ? NULL :
				       json_object_new_boolean(d->sig == RPT_SIG_YES));
		json_object_object_add(o, "threshold_pct", jnum(d->threshold));
		json_object_object_add(o, "crossed", json_object_new_boolean(d->crossed));
		json_object_object_add(o, "fails", json_object_new_boolean(d->fails));
		json_object_array_add(figs, o);
	}
	json_object_object_add(root, "figures", figs);
	json_object_object_add(root, "failed", json_object_new_int(c->fails));
	json_object_object_add(root, "crossed_within_noise", json_object_new_int(c->noise_only));
	json_object_object_add(root, "verdict", json_object_new_string(
		status == EXIT_INCOMPARABLE ? "incomparable" : status ? "regression" : "pass"));
	json_object_object_add(root, "exit_status", json_object_new_int(status));
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	/* trace names and run paths are bytes, not always UTF-8 */
	istint_json_put_text(stdout, s);
	putchar('\n');
	json_object_put(root);
	if (cli_close_stdout())
		return EXIT_FAIL;
	return status;
}

enum { O_IOPS = 256, O_MBPS, O_TPS, O_P99, O_MEAN, O_P999, O_DROP, O_RISE,
       O_CONF, O_IGNORE, O_JSON, O_LIST };

int cmd_compare(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "max-iops-drop", required_argument, NULL, O_IOPS },
		{ "max-mbps-drop", required_argument, NULL, O_MBPS },
		{ "max-tps-drop", required_argument, NULL, O_TPS },
		{ "max-p99-rise", required_argument, NULL, O_P99 },
		{ "max-mean-rise", required_argument, NULL, O_MEAN },
		{ "max-p999-rise", required_argument, NULL, O_P999 },
		{ "max-drop", required_argument, NULL, O_DROP },
		{ "max-rise", required_argument, NULL, O_RISE },
		{ "confidence", required_argument, NULL, O_CONF },
		{ "ignore", required_argument, NULL, O_IGNORE },
		{ "json", no_argument, NULL, O_JSON },
		{ "list", no_argument, NULL, O_LIST },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rpt_compare_opts o = { .confidence = 0.95 };
	struct rpt_run *a = NULL, *b = NULL;
	struct rpt_comparison cmp;
	int json = 0, list = 0, c, e, rc;
	char err[256];

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case O_IOPS: e = add_threshold(&o, "--max-iops-drop", "iops", optarg, 1); break;
		case O_MBPS: e = add_threshold(&o, "--max-mbps-drop", "mbps", optarg, 1); break;
		case O_TPS: e = add_threshold(&o, "--max-tps-drop", "tps", optarg, 1); break;
		case O_P99: e = add_threshold(&o, "--max-p99-rise", "lat_p99", optarg, 0); break;
		case O_MEAN: e = add_threshold(&o, "--max-mean-rise", "lat_mean", optarg, 0); break;
		case O_P999: e = add_threshold(&o, "--max-p999-rise", "lat_p999", optarg, 0); break;
		case O_DROP: e = add_kv_threshold(&o, "--max-drop", optarg, 1); break;
		case O_RISE: e = add_kv_threshold(&o, "--max-rise", optarg, 0); break;
		case O_CONF: {
			double v;

			e = 0;
			if (parse_pct(optarg, &v) < 0 || v < 50 || v >= 100)
				e = cli_usage_error("compare", "--confidence: '%s' is not a "
						    "percentage in [50, 100)", optarg);
			o.confidence = v / 100;
			break;
		}
		case O_IGNORE: {
			char keys[512];

			/* a misspelt key ignored nothing, silently */
			e = 0;
			if (!rpt_compare_ignorable(optarg, keys, sizeof(keys)))
				e = cli_usage_error("compare", "--ignore: '%s' is none of %s",
						    optarg, keys);
			else if (o.nignore == RPT_MAX_IGNORED)
				e = cli_usage_error("compare", "too many --ignore");
			else
				o.ignore[o.nignore++] = optarg;
			break;
		}
		case O_JSON: json = 1; e = 0; break;
		case O_LIST:
			/* after the options: an operand is a usage error */
			list = 1;
			e = 0;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("compare", argc, argv);
		}
		if (e)
			return e;
	}
	if (list) {
		e = cli_list_no_operand("compare", "--list", argc, argv, optind);
		for (const struct rpt_metric *m = rpt_metrics; !e && m->key; m++)
			printf("%-12s %-20s %-5s %s is better%s\n", m->key, m->name,
			       m->unit, m->higher_better ? "higher" : "lower",
			       m->src == RPT_IV_NONE ? "" : ", per-interval noise model");
		return e;
	}
	if (argc - optind != 2)
		return cli_usage_error("compare", "expected BASE.json NEW.json, got %d file%s",
				       argc - optind, argc - optind == 1 ? "" : "s");
	if (cli_check_inputs((const char *const *)&argv[optind], 2))
		return EXIT_FAIL;
	e = rpt_run_load(&a, argv[optind], err, sizeof(err));
	if (e < 0) {
		cli_err("%s: %s", argv[optind], err[0] ? err : ist_strerror(e));
		return EXIT_FAIL;
	}
	e = rpt_run_load(&b, argv[optind + 1], err, sizeof(err));
	if (e < 0) {
		cli_err("%s: %s", argv[optind + 1], err[0] ? err : ist_strerror(e));
		rpt_run_free(a);
		return EXIT_FAIL;
	}
	if (check_replay(a) || check_replay(b)) {
		rc = EXIT_FAIL;
		goto out;
	}
	if (rpt_compare(a, b, &o, &cmp) < 0) {
		cli_err("%s", strerror(ENOMEM));
		rc = EXIT_FAIL;
		goto out;
	}
	rc = !cmp.comparable ? EXIT_INCOMPARABLE : cmp.fails ? EXIT_FAIL : EXIT_OK;
	/* a threshold on a figure neither run has cannot be checked: say so */
	for (unsigned i = 0; cmp.comparable && i < o.nth; i++) {
		size_t k;

		for (k = 0; k < cmp.nfig && cmp.fig[k].m != o.th[i].m; k++)
			;
		if (k == cmp.nfig)
			cli_err("warning: neither run has %s: its threshold is not checked",
				o.th[i].m->name);
	}
	if (!cmp.comparable)
		cli_err("%s and %s are not comparable: %s", a->path, b->path, cmp.why);
	if (json)
		rc = print_json(a, b, &cmp, o.confidence, rc);
	else if (cmp.comparable)
		print_text(a, b, &cmp, o.confidence);
	rpt_comparison_release(&cmp);
out:
	rpt_run_free(a);
	rpt_run_free(b);
	return rc;
}
