/* SPDX-License-Identifier: MIT */
/* test_report.c - unit tests of the reports: statistics (Student's t,
 * Welch intervals, steady state), loading run results, the comparison
 * gate, charts, built-in patterns and sweeps on the null back-end. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cutest.h"
#include "report/compare.h"
#include "report/noise.h"
#include "report/report.h"
#include "report/run.h"
#include "report/steady.h"
#include "report/svg.h"
#include "report/sweep.h"

static char *fixture(const char *name)
{
	static char buf[4096];
	const char *top = getenv("top_srcdir");

	snprintf(buf, sizeof(buf), "%s/tests/data/report/%s", top ? top : ".", name);
	return buf;
}

static struct rpt_run *load(const char *name)
{
	struct rpt_run *r = NULL;
	char err[256];
	int e = rpt_run_load(&r, fixture(name), err, sizeof(err));

	if (e < 0)
		fprintf(stderr, "%s: %s\n", name, err);
	CU_ASSERT_EQUAL_FATAL(e, 0);
	return r;
}

/* ------------------------------------------------------------ statistics */

static void test_t_quantiles(void)
{
	/* textbook two-sided 95% critical values */
	CU_ASSERT_DOUBLE_EQUAL(rpt_t_quantile(0.975, 1), 12.7062, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(rpt_t_quantile(0.975, 2), 4.3027, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(rpt_t_quantile(0.975, 10), 2.2281, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(rpt_t_quantile(0.975, 30), 2.0423, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(rpt_t_quantile(0.975, 1e7), 1.9600, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(rpt_t_quantile(0.995, 5), 4.0321, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(rpt_t_quantile(0.025, 10), -2.2281, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(rpt_t_cdf(0, 7), 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(rpt_t_cdf(2.2281, 10) + rpt_t_cdf(-2.2281, 10), 1, 1e-9);
	CU_ASSERT(isnan(rpt_t_quantile(0, 5)));
	CU_ASSERT(isnan(rpt_t_quantile(0.5, -1)));
}

static void test_sample(void)
{
	double v[] = { 1, 2, 3, 4, NAN, 5 }, alt[40], ramp[40];
	struct rpt_sample s;

	rpt_sample_of(v, 6, &s);
	CU_ASSERT_EQUAL(s.n, 5);
	CU_ASSERT_DOUBLE_EQUAL(s.mean, 3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(s.var, 2.5, 1e-12);
	for (int i = 0; i < 40; i++) {
		alt[i] = i % 2 ? 1 : -1;
		ramp[i] = i;
	}
	/* negative correlation is not credited: n_eff = n */
	rpt_sample_of(alt, 40, &s);
	CU_ASSERT_DOUBLE_EQUAL(s.rho, 0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(s.n_eff, 40, 1e-9);
	/* a drift: strongly correlated, few effective values */
	rpt_sample_of(ramp, 40, &s);
	CU_ASSERT(s.rho > 0.8);
	CU_ASSERT(s.n_eff < 5);
	CU_ASSERT(s.n_eff >= 2);
	rpt_sample_of(v, 0, &s);
	CU_ASSERT_EQUAL(s.n, 0);
}

static void test_welch(void)
{
	double a[30], b[30], c[30];
	struct rpt_sample sa, sb, sc;
	struct rpt_diff_ci ci;
	unsigned x = 12345;

	for (int i = 0; i < 30; i++) {
		/* deterministic white noise of +-5 around 100 */
		x = x * 1103515245u + 12345u;
		a[i] = 100 + (double)(x >> 16 & 1023) / 1023 * 10 - 5;
		x = x * 1103515245u + 12345u;
		b[i] = 100 + (double)(x >> 16 & 1023) / 1023 * 10 - 5;
		c[i] = b[i] - 20;
	}
	rpt_sample_of(a, 30, &sa);
	rpt_sample_of(b, 30, &sb);
	rpt_sample_of(c, 30, &sc);
	rpt_welch(&sa, &sb, 0.95, &ci);
	CU_ASSERT(ci.valid);
	CU_ASSERT(!ci.significant);
	CU_ASSERT(ci.lo < 0 && ci.hi > 0);
	rpt_welch(&sa, &sc, 0.95, &ci);
	CU_ASSERT(ci.significant);
	CU_ASSERT(ci.hi < 0);
	CU_ASSERT(ci.lo < -20 && ci.hi > -22);
	/* too few values: no verdict */
	rpt_sample_of(a, 2, &sa);
	rpt_welch(&sa, &sb, 0.95, &ci);
	CU_ASSERT(!ci.valid);
	CU_ASSERT(!ci.significant);
	/* constant series: any difference is real, none is not */
	for (int i = 0; i < 30; i++) {
		a[i] = 5;
		b[i] = 6;
	}
	rpt_sample_of(a, 30, &sa);
	rpt_sample_of(b, 30, &sb);
	rpt_welch(&sa, &sb, 0.95, &ci);
	CU_ASSERT(ci.significant);
	rpt_welch(&sa, &sa, 0.95, &ci);
	CU_ASSERT(!ci.significant);
}

static void test_linefit(void)
{
	double x[] = { 0, 1, 2, 3 }, y[] = { 1, 3, 5, 7 }, a, b;

	CU_ASSERT_EQUAL(rpt_linefit(x, y, 4, &a, &b), 0);
	CU_ASSERT_DOUBLE_EQUAL(a, 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b, 2, 1e-12);
	CU_ASSERT_EQUAL(rpt_linefit(x, y, 1, &a, &b), -1);
	x[1] = x[2] = x[3] = 0;
	CU_ASSERT_EQUAL(rpt_linefit(x, y, 4, &a, &b), -1);
}

static void test_steady(void)
{
	double flat[] = { 300, 200, 100, 101, 99, 100, 102, 98 };
	double slope[] = { 100, 104, 108, 112, 116 };      /* 16% over the window */
	double jumpy[] = { 100, 125, 100, 125, 100 };      /* 25% excursion */
	double border[] = { 90, 110, 100, 100, 100 };      /* exactly 20%, flat line */
	struct rpt_steady s;

	CU_ASSERT(rpt_steady_check(flat, 8, 5, 0.2, 0.1, &s));
	CU_ASSERT_EQUAL(s.first, 3);
	CU_ASSERT_EQUAL(s.last, 7);
	CU_ASSERT_DOUBLE_EQUAL(s.average, 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.excursion, 0.04, 1e-9);
	/* the first rounds (fresh out of box) are outside the window */
	CU_ASSERT(!rpt_steady_check(flat, 4, 5, 0.2, 0.1, &s));
	CU_ASSERT(!rpt_steady_check(flat, 5, 5, 0.2, 0.1, &s));
	CU_ASSERT(!rpt_steady_check(slope, 5, 5, 0.2, 0.1, &s));
	CU_ASSERT(s.excursion <= 0.2);
	CU_ASSERT_DOUBLE_EQUAL(s.slope, 4, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.slope_excursion, 16.0 / 108, 1e-9);
	CU_ASSERT(!rpt_steady_check(jumpy, 5, 5, 0.2, 0.1, &s));
	CU_ASSERT(s.excursion > 0.2);
	CU_ASSERT(rpt_steady_check(border, 5, 5, 0.2, 0.1, &s));
}

/* ------------------------------------------------------------ loading */

static void test_load_replay(void)
{
	struct rpt_run *r = load("base.json");
	const struct rpt_metric *m = rpt_metric_find("iops");

	CU_ASSERT_EQUAL(r->kind, RPT_REPLAY);
	CU_ASSERT_STRING_EQUAL(r->label, "base");
	CU_ASSERT_EQUAL(r->niv, 30);
	CU_ASSERT(r->iops > 45000 && r->iops < 55000);
	CU_ASSERT_DOUBLE_EQUAL(r->elapsed_s, 30, 1e-9);
	CU_ASSERT(r->lat.present);
	CU_ASSERT(r->lat.p99 > r->lat.p50);
	CU_ASSERT(r->late.present);
	CU_ASSERT(r->txns > 0 && isfinite(r->tps));
	CU_ASSERT_DOUBLE_EQUAL(r->trace_records, 1500000, 0);
	CU_ASSERT_STRING_EQUAL(rpt_run_setting(r, "iodepth"), "32");
	CU_ASSERT_STRING_EQUAL(rpt_run_setting(r, "timing"), "original");
	CU_ASSERT_PTR_NULL(rpt_run_setting(r, "targets")); /* arrays are no settings */
	CU_ASSERT_STRING_EQUAL(r->target, "/dev/nvme0n1");
	CU_ASSERT_DOUBLE_EQUAL(rpt_metric_value(m, r), r->iops, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(rpt_metric_interval(m, &r->iv[0]), r->iv[0].ios, 1e-9);
	CU_ASSERT(r->op_lat[IST_OP_READ].present);
	rpt_run_free(r);
	r = load("afap-long.json");
	CU_ASSERT(r->interrupted);
	CU_ASSERT_EQUAL(r->niv, 120);
	CU_ASSERT_DOUBLE_EQUAL(r->iv[119].start_s, 119, 1e-9);
	CU_ASSERT(isnan(r->tps));
	CU_ASSERT(isnan(rpt_metric_value(rpt_metric_find("tps"), r)));
	rpt_run_free(r);
}

static void test_load_sweep_precond(void)
{
	struct rpt_run *r = load("sweep.json");

	CU_ASSERT_EQUAL(r->kind, RPT_SWEEP);
	CU_ASSERT_EQUAL(r->ngrid, 16);
	CU_ASSERT_EQUAL(r->ncurve, 12);
	CU_ASSERT_EQUAL(r->grid[5].threads, 4);
	CU_ASSERT_EQUAL(r->grid[5].qd, 4);
	CU_ASSERT_DOUBLE_EQUAL(r->curve[0].pct, 10, 0);
	rpt_run_free(r);
	r = load("precond.json");
	CU_ASSERT_EQUAL(r->kind, RPT_PRECOND);
	CU_ASSERT_EQUAL(r->nrounds, 15);
	CU_ASSERT(r->steady);
	CU_ASSERT_EQUAL(r->steady_first, 11);
	CU_ASSERT_EQUAL(r->steady_last, 15);
	CU_ASSERT_STRING_EQUAL(r->workload, "4k-randwrite");
	rpt_run_free(r);
}

static int load_text(const char *text, char *err, size_t size)
{
	char path[] = "/tmp/test_report.XXXXXX";
	int fd = mkstemp(path), e;
	struct rpt_run *r = NULL;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	e = rpt_run_load(&r, path, err, size);
	unlink(path);
	CU_ASSERT(e < 0 ? r == NULL : r != NULL);
	rpt_run_free(r);
	return e;
}

static void test_load_errors(void)
{
	struct rpt_run *r = (struct rpt_run *)1;
	char err[256];

	CU_ASSERT_EQUAL(load_text("{\n\"schema\": \"iostorm-replay/1\",\n\"run\": {,}\n}\n",
				  err, sizeof(err)), IST_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 3"));
	CU_ASSERT_EQUAL(load_text("{\"schema\": \"iostorm-replay/1\",\n", err, sizeof(err)),
			IST_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "truncated"));
	CU_ASSERT_EQUAL(load_text("", err, sizeof(err)), IST_EPARSE);
	CU_ASSERT_STRING_EQUAL(err, "empty file");
	CU_ASSERT_EQUAL(load_text("{} x", err, sizeof(err)), IST_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "after"));
	CU_ASSERT_EQUAL(load_text("[1,2]", err, sizeof(err)), IST_EPARSE);
	CU_ASSERT_EQUAL(load_text("{\"a\": 1}", err, sizeof(err)), IST_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "schema"));
	CU_ASSERT_EQUAL(load_text("{\"schema\": \"iostorm-replay/9\"}", err, sizeof(err)),
			IST_EVERSION);
	CU_ASSERT_EQUAL(load_text("{\"schema\": \"iostorm-replay/1\"}", err, sizeof(err)),
			IST_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "run.elapsed_ns"));
	CU_ASSERT_EQUAL(load_text("{\"schema\": \"iostorm-replay/1\", \"run\": {\"elapsed_ns\": 5},"
				  " \"totals\": {\"ios\": 3, \"latency_ns\": {\"count\": 3, \"mean\": 9}},"
				  " \"intervals\": [{\"ios\": 1}]}", err, sizeof(err)), IST_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "intervals[0].length_ns"));
	CU_ASSERT_EQUAL(load_text("{\"schema\": \"iostorm-sweep/1\", \"grid\": []}", err,
				  sizeof(err)), IST_EPARSE);
	CU_ASSERT_EQUAL(load_text("{\"schema\": \"iostorm-precondition/1\", \"rounds\": "
				  "[{\"round\": 1}]}", err, sizeof(err)), IST_EPARSE);
	/* the intervals are parsed row by row: errors still name their line */
	CU_ASSERT_EQUAL(load_text("{\"schema\": \"iostorm-replay/1\",\n\"intervals\": [\n"
				  "{\"start_ns\": 0, \"length_ns\": 1},\n{\"start_ns\": x}\n],\n"
				  "\"run\": {\"elapsed_ns\": 5}, \"totals\": {\"ios\": 0, "
				  "\"latency_ns\": {\"count\": 0}}}", err, sizeof(err)), IST_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 4"));
	CU_ASSERT_EQUAL(load_text("{\"schema\": \"iostorm-replay/1\", \"intervals\": [{}, 3]}",
				  err, sizeof(err)), IST_EPARSE);
	CU_ASSERT_EQUAL(load_text("{\"schema\": \"iostorm-replay/1\", \"intervals\": [{},]}",
				  err, sizeof(err)), IST_EPARSE);
	CU_ASSERT_EQUAL(load_text("{\"schema\": \"iostorm-replay/1\", \"intervals\": [{}}",
				  err, sizeof(err)), IST_EPARSE);
	CU_ASSERT_EQUAL(load_text("{\"schema\": \"iostorm-replay/1\", \"intervals\": []}\n,",
				  err, sizeof(err)), IST_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 2: data after"));
	CU_ASSERT_EQUAL(load_text("", err, sizeof(err)), IST_EPARSE);
	CU_ASSERT_EQUAL(rpt_run_load(&r, "/nonexistent/run.json", err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NULL(r);
	/* a minimal valid replay result */
	CU_ASSERT_EQUAL(load_text("{\"schema\": \"iostorm-replay/1\", \"run\": {\"elapsed_ns\": 5},"
				  " \"totals\": {\"ios\": 0, \"latency_ns\": {\"count\": 0}}}",
				  err, sizeof(err)), 0);
}

/* ------------------------------------------------------------ compare */

static void test_compare(void)
{
	struct rpt_run *base = load("base.json"), *reg = load("regress.json");
	struct rpt_run *imp = load("improve.json"), *na = load("noisy-a.json");
	struct rpt_run *nb = load("noisy-b.json"), *qd = load("other-qd.json");
	struct rpt_run *tr = load("other-trace.json");
	struct rpt_compare_opts o = { .confidence = 0.95 };
	struct rpt_comparison c;

	o.th[0].m = rpt_metric_find("iops");
	o.th[0].pct = 5;
	o.th[1].m = rpt_metric_find("lat_p99");
	o.th[1].pct = 10;
	o.nth = 2;
	CU_ASSERT_EQUAL(rpt_compare(base, reg, &o, &c), 0);
	CU_ASSERT(c.comparable);
	CU_ASSERT_EQUAL(c.fails, 2);
	CU_ASSERT_EQUAL(c.fig[0].sig, RPT_SIG_YES);
	CU_ASSERT(c.fig[0].rel < -0.1);
	CU_ASSERT(c.fig[0].rel_hi < 0);
	rpt_comparison_release(&c);
	CU_ASSERT_EQUAL(rpt_compare(base, imp, &o, &c), 0);
	CU_ASSERT_EQUAL(c.crossed, 0);
	CU_ASSERT_EQUAL(c.fails, 0);
	rpt_comparison_release(&c);
	/* the same drive twice: a 1% threshold is crossed, within the noise */
	o.th[0].pct = 1;
	CU_ASSERT_EQUAL(rpt_compare(na, nb, &o, &c), 0);
	CU_ASSERT(c.comparable);
	CU_ASSERT_EQUAL(c.crossed, 1);
	CU_ASSERT_EQUAL(c.noise_only, 1);
	CU_ASSERT_EQUAL(c.fails, 0);
	CU_ASSERT_EQUAL(c.fig[0].sig, RPT_SIG_NO);
	rpt_comparison_release(&c);
	/* without intervals, a crossing cannot be called noise */
	free(nb->iv);
	nb->iv = NULL;
	nb->niv = 0;
	CU_ASSERT_EQUAL(rpt_compare(na, nb, &o, &c), 0);
	CU_ASSERT_EQUAL(c.fig[0].sig, RPT_SIG_UNKNOWN);
	CU_ASSERT_EQUAL(c.fails, 1);
	rpt_comparison_release(&c);
	CU_ASSERT_EQUAL(rpt_compare(base, qd, &o, &c), 0);
	CU_ASSERT(!c.comparable);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.why, "iodepth: 32 vs 64"));
	rpt_comparison_release(&c);
	o.ignore[o.nignore++] = "iodepth";
	CU_ASSERT_EQUAL(rpt_compare(base, qd, &o, &c), 0);
	CU_ASSERT(c.comparable);
	rpt_comparison_release(&c);
	CU_ASSERT_EQUAL(rpt_compare(base, tr, &o, &c), 0);
	CU_ASSERT(!c.comparable);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.why, "trace"));
	rpt_comparison_release(&c);
	rpt_run_free(base);
	rpt_run_free(reg);
	rpt_run_free(imp);
	rpt_run_free(na);
	rpt_run_free(nb);
	rpt_run_free(qd);
	rpt_run_free(tr);
}

/* ------------------------------------------------------------ charts */

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static char *render(struct rpt_run **runs, size_t n, int svg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct rpt_report_opts o = { .title = "T <&> \"x\"" };

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(svg ? rpt_write_svg(f, runs, n, &o) : rpt_write_html(f, runs, n, &o), 0);
	fclose(f);
	return buf;
}

static void test_html(void)
{
	struct rpt_run *runs[4] = { load("base.json"), load("regress.json"),
				    load("sweep.json"), load("precond.json") };
	char *h = render(runs, 4, 0), *s;

	CU_ASSERT_PTR_NOT_NULL(strstr(h, "<!DOCTYPE html>"));
	CU_ASSERT_PTR_NULL(strstr(h, "<script"));
	CU_ASSERT_PTR_NULL(strstr(h, "http://www.w3.org/2000/svg\" href"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "T &lt;&amp;&gt; &quot;x&quot;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, ">IOPS over time<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, ">Throughput over time<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, ">Latency over time (mean, p99, max)<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, ">Latency percentiles<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, ">Timing lateness over time (p99, max)<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, ">TPS-eq over time<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, ">Mean latency against IOPS<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, ">Preconditioning: IOPS per round<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, ">regress p99<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, ">sweep 4T (QD 2..16)<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, ">Headline figures<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "steady state</b> in rounds 11-15"));
	CU_ASSERT_EQUAL(count(h, "<svg "), 10);
	s = render(runs, 4, 1);
	CU_ASSERT_EQUAL(strncmp(s, "<?xml", 5), 0);
	CU_ASSERT_EQUAL(count(s, "<svg "), 11); /* the document and its charts */
	CU_ASSERT_PTR_NULL(strstr(s, "<table"));
	free(s);
	free(h);
	for (int i = 0; i < 4; i++)
		rpt_run_free(runs[i]);
}

/* A long run is drawn from merged intervals. */
static char *chart(const struct rpt_chart *c, const struct rpt_series *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(rpt_svg_chart(f, c, s, n), 0);
	fclose(f);
	return buf;
}

/* The geometry of a chart: where the points land, the ticks, and series
 * that make an axis of zero span (a constant, a lone point) or hold values
 * an axis cannot draw: never a "nan" or "inf" coordinate. */
static void test_svg_geometry(void)
{
	static const double x[] = { 0, 5, 10 }, y[] = { 0, 5, 10 }, flat[] = { 7, 7, 7 };
	static const double p[] = { 0.5, 0.9, 0.99, 1.0 }, lat[] = { 1, 2, 3, 4 };
	struct rpt_chart c = { .title = "t", .xlabel = "x", .ylabel = "y" };
	struct rpt_series s = { .label = "a", .x = x, .y = y, .n = 3 };
	char *h, want[64];

	/* 720 x 360, one series: the plot spans x 70..700, y 294..34 */
	h = chart(&c, &s, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "points=\"70.0,294.0 385.0,164.0 700.0,34.0\""));
	/* y ticks every 2 (a 1-2-5 step for about 5 ticks) */
	for (int t = 0; t <= 10; t++) {
		snprintf(want, sizeof(want), "text-anchor=\"end\">%d</text>", t);
		CU_ASSERT((strstr(h, want) != NULL) == (t % 2 == 0));
	}
	free(h);
	/* a constant: a flat line across the middle of a range around it */
	s.y = flat;
	h = chart(&c, &s, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "points=\"70.0,164.0 385.0,164.0 700.0,164.0\""));
	CU_ASSERT_PTR_NULL(strstr(h, "nan"));
	free(h);
	/* a lone point: drawn as a circle, in the middle */
	s.n = 1;
	s.x = flat;
	h = chart(&c, &s, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "<circle cx=\"385.0\" cy=\"164.0\""));
	CU_ASSERT_PTR_NULL(strstr(h, "nan"));
	free(h);
	/* a percentile axis: p = 1 lies at infinity, left out */
	c.percentile_x = 1;
	s = (struct rpt_series){ .label = "p", .x = p, .y = lat, .n = 4 };
	h = chart(&c, &s, 1);
	CU_ASSERT_PTR_NULL(strstr(h, "inf"));
	CU_ASSERT_PTR_NULL(strstr(h, "nan"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, ">p99</text>"));
	{
		const char *pts = strstr(h, "points=\"");
		int n = 0;

		CU_ASSERT_FATAL(pts != NULL);
		for (pts += 8; *pts != '"'; pts++)
			n += *pts == ',';
		CU_ASSERT_EQUAL(n, 3);
	}
	free(h);
}

static void test_html_long(void)
{
	struct rpt_run *r = load("afap-long.json");
	struct rpt_interval *iv = calloc(20000, sizeof(*iv));
	char *h, *p, *e;
	size_t pts = 0;

	CU_ASSERT_FATAL(iv != NULL);
	for (size_t i = 0; i < 20000; i++) {
		iv[i] = r->iv[i % r->niv];
		iv[i].start_s = (double)i;
	}
	free(r->iv);
	r->iv = iv;
	r->niv = 20000;
	h = render(&r, 1, 1);
	/* the first polyline: IOPS over time */
	p = strstr(h, "points=\"");
	CU_ASSERT_FATAL(p != NULL);
	e = strchr(p + 8, '"');
	for (; p < e; p++)
		pts += *p == ',';
	CU_ASSERT(pts > 1000 && pts <= 1500);
	free(h);
	rpt_run_free(r);
}

static void test_fmt(void)
{
	char b[64];

	CU_ASSERT_STRING_EQUAL(rpt_fmt_metric(rpt_metric_find("iops"), 1234567, b, sizeof(b)),
			       "1,234,567");
	CU_ASSERT_STRING_EQUAL(rpt_fmt_metric(rpt_metric_find("lat_p99"), 1500, b, sizeof(b)),
			       "1.5 us");
	CU_ASSERT_STRING_EQUAL(rpt_fmt_metric(rpt_metric_find("lat_p99"), 25e6, b, sizeof(b)),
			       "25.00 ms");
	CU_ASSERT_STRING_EQUAL(rpt_fmt_metric(rpt_metric_find("mbps"), 12.5, b, sizeof(b)),
			       "12.50 MB/s");
	CU_ASSERT_STRING_EQUAL(rpt_fmt_metric(rpt_metric_find("iops"), NAN, b, sizeof(b)), "-");
}

/* ------------------------------------------------------------ patterns, sweeps */

static void test_pattern(void)
{
	struct ist_record a[512], b[512];
	struct rpl_source *s;
	uint64_t total = 0;
	ssize_t n;

	CU_ASSERT_PTR_NULL(rpt_pattern_find("nope"));
	CU_ASSERT_EQUAL(rpt_pattern_source(&s, rpt_pattern_find("4k-randwrite"), 1000, 0, 1),
			-EINVAL);
	CU_ASSERT_EQUAL_FATAL(rpt_pattern_source(&s, rpt_pattern_find("4k-randrw"),
						 (1 << 20) + 100, 0, 7), 0);
	CU_ASSERT_EQUAL(s->ops->read(s, a, 512), 512);
	for (int i = 0; i < 512; i++) {
		CU_ASSERT(a[i].offset % 4096 == 0 && a[i].offset + 4096 <= (1 << 20));
		CU_ASSERT(a[i].op == IST_OP_READ || a[i].op == IST_OP_WRITE);
		CU_ASSERT(a[i].stream >= 1 && a[i].stream <= 256);
	}
	CU_ASSERT_EQUAL(s->ops->rewind(s), 0);
	CU_ASSERT_EQUAL(s->ops->read(s, b, 512), 512);
	CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	rpl_source_close(s);
	/* a fill: two passes of sequential 128 KiB writes, then the end */
	CU_ASSERT_EQUAL_FATAL(rpt_pattern_source(&s, rpt_pattern_find("128k-seqwrite"),
						 1 << 20, 2 << 20, 1), 0);
	while ((n = s->ops->read(s, a, 5)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			CU_ASSERT_EQUAL(a[i].offset, total % (1 << 20));
			CU_ASSERT_EQUAL(a[i].op, IST_OP_WRITE);
			total += a[i].len;
		}
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(total, 2 << 20);
	rpl_source_close(s);
}

struct wl {
	const char *name;
};

static int open_wl(void *arg, struct rpl_source **s)
{
	return rpt_pattern_source(s, rpt_pattern_find(((struct wl *)arg)->name), 64 << 20, 0, 1);
}

static void test_sweep_null(void)
{
	struct rpt_sweep_opts *o = calloc(1, sizeof(*o));
	struct rpt_sweep_result *res = calloc(1, sizeof(*res));
	struct wl w = { "4k-randread" };
	char err[256];

	CU_ASSERT_FATAL(o && res);
	rpl_opts_init(&o->base);
	o->base.backend = RPL_BACKEND_NULL;
	o->base.interval_ns = 0;
	o->threads[0] = 1;
	o->threads[1] = 2;
	o->nthreads = 2;
	o->qd[0] = 4;
	o->nqd = 1;
	o->rates[0] = 50;
	o->nrates = 1;
	o->point_ns = 30000000;
	o->open_source = open_wl;
	o->source_arg = &w;
	CU_ASSERT_EQUAL(rpt_sweep_run(o, res, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(res->ngrid, 2);
	CU_ASSERT_EQUAL(res->ncurve, 1);
	CU_ASSERT(res->max_iops > 0);
	CU_ASSERT_EQUAL(res->grid[1].threads, 2);
	CU_ASSERT_EQUAL(res->grid[1].qd, 4);
	CU_ASSERT_DOUBLE_EQUAL(res->curve[0].target_iops, res->max_iops / 2, 1e-6);
	/* the rate curve runs at the asked rate (the null back-end keeps up) */
	CU_ASSERT(res->curve[0].iops < res->max_iops * 0.75);
	CU_ASSERT(!res->interrupted);
	free(o);
	free(res);
}

static void test_precond_null(void)
{
	struct rpt_precond_opts *o = calloc(1, sizeof(*o));
	struct rpt_precond_result *res = calloc(1, sizeof(*res));
	struct wl w = { "4k-randwrite" };
	char err[256];

	CU_ASSERT_FATAL(o && res);
	rpl_opts_init(&o->base);
	o->base.backend = RPL_BACKEND_NULL;
	o->base.interval_ns = 0;
	o->passes = 2;
	o->fill = rpt_pattern_find("128k-seqwrite");
	o->fill_bytes = 8 << 20;
	o->threads = 1;
	o->qd = 4;
	o->round_ns = 200000000; /* 20 ms rounds saw no I/O when the decoder started late under load */
	o->max_rounds = 3; /* fewer than a window: never steady */
	o->open_source = open_wl;
	o->source_arg = &w;
	CU_ASSERT_EQUAL(rpt_precond_run(o, res, err, sizeof(err)), 0);
	CU_ASSERT_DOUBLE_EQUAL(res->fill_bytes, 16 << 20, 0);
	CU_ASSERT_EQUAL(res->passes_done, 2);
	CU_ASSERT_EQUAL(res->nrounds, 3);
	CU_ASSERT(!res->steady.reached);
	CU_ASSERT(res->rounds[2].iops > 0);
	CU_ASSERT_EQUAL(res->rounds[2].round, 3);
	free(o);
	free(res);
}

int main(void)
{
	static const struct cutest tests[] = {
		{ "t quantiles", test_t_quantiles },
		{ "sample and serial correlation", test_sample },
		{ "Welch interval", test_welch },
		{ "least squares", test_linefit },
		{ "SNIA steady state", test_steady },
		{ "load replay results", test_load_replay },
		{ "load sweep and precondition", test_load_sweep_precond },
		{ "load errors", test_load_errors },
		{ "compare gate", test_compare },
		{ "html and svg", test_html },
		{ "svg geometry", test_svg_geometry },
		{ "long runs are merged", test_html_long },
		{ "figure formats", test_fmt },
		{ "patterns", test_pattern },
		{ "sweep on null", test_sweep_null },
		{ "precondition on null", test_precond_null },
		{ NULL, NULL },
	};

	return cutest_main("report", tests);
}
