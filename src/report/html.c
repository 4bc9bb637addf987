/* SPDX-License-Identifier: MIT */
/* html.c - the report: run results drawn as inline SVG charts in one
 * self-contained HTML page (no script, no network), or the charts alone
 * as one SVG document. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/svg.h"

/* Longer runs are drawn from merged intervals: a polyline of a few
 * thousand points is as detailed as a page gets. */
#define MAX_POINTS 1500

#define CHART_W 760u
#define CHART_H(nseries) (300u + 18u * (unsigned)(((nseries) + 2) / 3))

struct out {
	FILE *f;
	int svg;         /* charts only, stacked in one SVG */
	unsigned y;      /* svg: next chart's top           */
	unsigned charts; /* charts drawn                     */
};

/* A growable set of series whose x/y arrays the set owns. */
struct sset {
	struct rpt_series *s;
	size_t n, cap;
	int err;
};

static double *sset_add(struct sset *ss, const char *label, size_t npts,
			unsigned colour, int style, double **y)
{
	struct rpt_series *s;
	double *x;

	if (ss->err)
		return NULL;
	if (ss->n == ss->cap) {
		size_t cap = ss->cap ? 2 * ss->cap : 8;

		s = realloc(ss->s, cap * sizeof(*s));
		if (!s) {
			ss->err = -ENOMEM;
			return NULL;
		}
		ss->s = s;
		ss->cap = cap;
	}
	x = calloc(2 * (npts ? npts : 1), sizeof(double));
	if (!x) {
		ss->err = -ENOMEM;
		return NULL;
	}
	s = &ss->s[ss->n++];
	memset(s, 0, sizeof(*s));
	s->label = strdup(label);
	s->x = x;
	s->y = x + (npts ? npts : 1);
	s->n = npts;
	s->colour = colour;
	s->dashed = style == 1;
	s->dotted = style == 2;
	*y = x + (npts ? npts : 1);
	if (!s->label)
		ss->err = -ENOMEM;
	return x;
}

static void sset_release(struct sset *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		free((void *)ss->s[i].label);
		free((void *)ss->s[i].x);
	}
	free(ss->s);
	memset(ss, 0, sizeof(*ss));
}

/* Emits one chart (a <figure> in HTML, a translated group in SVG). */
static int emit(struct out *o, struct rpt_chart *c, struct sset *ss,
		const char *caption)
{
	int e;

	if (ss->err)
		return ss->err;
	if (!ss->n)
		return 0;
	c->width = CHART_W;
	c->height = CHART_H(ss->n);
	if (o->svg)
		fprintf(o->f, "<g transform=\"translate(0,%u)\">\n", o->y);
	else
		fputs("<figure>\n", o->f);
	e = rpt_svg_chart(o->f, c, ss->s, ss->n);
	if (o->svg) {
		fputs("</g>\n", o->f);
		o->y += c->height + 10;
	} else {
		if (caption) {
			fputs("<figcaption>", o->f);
			rpt_xml_escape(o->f, caption);
			fputs("</figcaption>\n", o->f);
		}
		fputs("</figure>\n", o->f);
	}
	o->charts++;
	return e;
}

/* Intervals merged k at a time (time-weighted rates; summaries: counts
 * and means weighted, percentiles the largest of the merged ones, max the
 * max) so that at most MAX_POINTS remain.  Caller frees. */
static struct rpt_interval *reduce(const struct rpt_run *r, size_t *nout)
{
	size_t k = (r->niv + MAX_POINTS - 1) / MAX_POINTS, n;
	struct rpt_interval *v;

	if (k < 1)
		k = 1;
	n = (r->niv + k - 1) / k;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct rpt_interval *d = &v[i];

		for (size_t j = i * k; j < (i + 1) * k && j < r->niv; j++) {
			const struct rpt_interval *s = &r->iv[j];
			const struct rpt_pcts *sp[2] = { &s->lat, &s->late };
			struct rpt_pcts *dp[2] = { &d->lat, &d->late };

			if (j == i * k)
				d->start_s = s->start_s;
			d->len_s += s->len_s;
			d->ios += s->ios;
			d->bytes += s->bytes;
			d->txns += s->txns;
			d->errors += s->errors;
			for (int q = 0; q < 2; q++) {
				const struct rpt_pcts *a = sp[q];
				struct rpt_pcts *b = dp[q];

				if (!a->present)
					continue;
				if (!b->present) {
					*b = *a;
					continue;
				}
				b->mean = (b->mean * b->count + a->mean * a->count) /
					  (b->count + a->count > 0 ? b->count + a->count : 1);
				b->count += a->count;
				b->min = fmin(b->min, a->min);
				b->max = fmax(b->max, a->max);
				b->p50 = fmax(b->p50, a->p50);
				b->p90 = fmax(b->p90, a->p90);
				b->p99 = fmax(b->p99, a->p99);
				b->p999 = fmax(b->p999, a->p999);
				b->p9999 = fmax(b->p9999, a->p9999);
			}
		}
	}
	*nout = n;
	return v;
}

static unsigned run_colour(size_t i)
{
	return (unsigned)(i % RPT_PALETTE_SIZE) + 1;
}

/* Time-series charts of the replay runs. */
enum ts_what { TS_IOPS, TS_MBPS, TS_TPS, TS_LAT, TS_LATE };

static int any_interval_with(struct rpt_run *const *runs, size_t n,
			     enum ts_what w)
{
	for (size_t i = 0; i < n; i++) {
		const struct rpt_run *r = runs[i];

		if (r->kind != RPT_REPLAY)
			continue;
		for (size_t j = 0; j < r->niv; j++) {
			const struct rpt_interval *iv = &r->iv[j];

			if (w == TS_TPS && iv->txns > 0)
				return 1;
			if (w == TS_LATE && iv->late.present && iv->late.max > 0)
				return 1;
			if ((w == TS_IOPS || w == TS_MBPS || w == TS_LAT) && r->niv)
				return 1;
		}
	}
	return 0;
}

static int time_chart(struct out *o, struct rpt_run *const *runs, size_t n,
		      enum ts_what w)
{
	static const char *const titles[] = {
		"IOPS over time", "Throughput over time", "TPS-eq over time",
		"Latency over time (mean, p99, max)", "Timing lateness over time (p99, max)"
	};
	static const char *const ylabels[] = {
		"IOPS", "MB/s", "transactions/s", "latency (us)", "lateness (us)"
	};
	struct rpt_chart c = { .title = titles[w], .xlabel = "time (s)",
			       .ylabel = ylabels[w], .ymin0 = 1,
			       .logy = w == TS_LAT || w == TS_LATE };
	struct sset ss = { 0 };
	int e;

	if (!any_interval_with(runs, n, w))
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct rpt_run *r = runs[i];
		struct rpt_interval *iv;
		size_t m;
		double t0;
		char label[256];

		if (r->kind != RPT_REPLAY || !r->niv)
			continue;
		iv = reduce(r, &m);
		if (!iv) {
			ss.err = -ENOMEM;
			break;
		}
		t0 = r->iv[0].start_s;
		if (w == TS_LAT || w == TS_LATE) {
			static const char *const stat[] = { "mean", "p99", "max" };

			for (int q = w == TS_LATE ? 1 : 0; q < 3; q++) {
				double *x, *y;

				snprintf(label, sizeof(label), "%s %s", r->label, stat[q]);
				x = sset_add(&ss, label, m, run_colour(i), q, &y);
				if (!x)
					break;
				for (size_t j = 0; j < m; j++) {
					const struct rpt_pcts *p = w == TS_LAT ? &iv[j].lat : &iv[j].late;
					double v = !p->present ? NAN : q == 0 ? p->mean :
						   q == 1 ? p->p99 : p->max;

					x[j] = iv[j].start_s - t0 + iv[j].len_s / 2;
					/* lateness 0 cannot sit on a log axis */
					y[j] = v / 1e3;
				}
			}
		} else {
			double *x, *y;

			x = sset_add(&ss, r->label, m, run_colour(i), 0, &y);
			if (x)
				for (size_t j = 0; j < m; j++) {
					double len = iv[j].len_s;

					x[j] = iv[j].start_s - t0 + len / 2;
					y[j] = w == TS_IOPS ? iv[j].ios / len :
					       w == TS_MBPS ? iv[j].bytes / len / 1e6 :
					       iv[j].txns / len;
				}
		}
		free(iv);
	}
	e = emit(o, &c, &ss, w == TS_LAT ? "Solid: mean; dashed: p99; dotted: max, per interval (log scale)." :
		 w == TS_LATE ? "Actual issue time minus scheduled time, per interval: dashed p99, dotted max (log scale)." :
		 NULL);
	sset_release(&ss);
	return e;
}

static int pct_curve(struct out *o, struct rpt_run *const *runs, size_t n)
{
	struct rpt_chart c = { .title = "Latency percentiles", .xlabel = "percentile",
			       .ylabel = "latency (us)", .logy = 1, .percentile_x = 1 };
	struct sset ss = { 0 };
	int e;

	for (size_t i = 0; i < n; i++) {
		const struct rpt_run *r = runs[i];
		const struct rpt_pcts *p = &r->lat;
		double *x, *y;
		char label[256];

		if (r->kind != RPT_REPLAY || !p->present)
			continue;
		x = sset_add(&ss, r->label, 6, run_colour(i), 0, &y);
		if (!x)
			break;
		x[0] = 0; y[0] = p->min / 1e3;
		x[1] = 0.5; y[1] = p->p50 / 1e3;
		x[2] = 0.9; y[2] = p->p90 / 1e3;
		x[3] = 0.99; y[3] = p->p99 / 1e3;
		x[4] = 0.999; y[4] = p->p999 / 1e3;
		x[5] = 0.9999; y[5] = p->p9999 / 1e3;
		ss.s[ss.n - 1].markers = 1;
		for (unsigned op = 0; op < IST_OP_COUNT; op++) {
			const struct rpt_pcts *q = &r->op_lat[op];

			if (!q->present || r->op_ios[op] == r->ios)
				continue;
			snprintf(label, sizeof(label), "%s %s", r->label, ist_op_name(op));
			x = sset_add(&ss, label, 5, run_colour(i), op == IST_OP_READ ? 1 : 2, &y);
			if (!x)
				break;
			x[0] = 0.5; y[0] = q->p50 / 1e3;
			x[1] = 0.9; y[1] = q->p90 / 1e3;
			x[2] = 0.99; y[2] = q->p99 / 1e3;
			x[3] = 0.999; y[3] = q->p999 / 1e3;
			x[4] = 0.9999; y[4] = q->p9999 / 1e3;
		}
	}
	e = emit(o, &c, &ss, "Latency from submission to completion at each percentile, "
		 "all operations (solid, with markers); reads dashed, writes and others dotted. "
		 "Both axes logarithmic: p90, p99, p99.9, p99.99 are evenly spaced.");
	sset_release(&ss);
	return e;
}

static int cmp_point_qd(const void *a, const void *b)
{
	const struct rpt_point *x = a, *y = b;

	if (x->threads != y->threads)
		return x->threads < y->threads ? -1 : 1;
	return x->qd < y->qd ? -1 : x->qd > y->qd;
}

static int sweep_chart(struct out *o, struct rpt_run *const *runs, size_t n,
		       int p99)
{
	struct rpt_chart c = { .title = p99 ? "p99 latency against IOPS" :
					     "Mean latency against IOPS",
			       .xlabel = "IOPS", .ylabel = p99 ? "p99 latency (us)" :
								 "mean latency (us)",
			       .logy = 1 };
	struct sset ss = { 0 };
	int e;

	for (size_t i = 0; i < n; i++) {
		struct rpt_run *r = runs[i];
		char label[256];

		if (r->kind != RPT_SWEEP)
			continue;
		/* grid: one line per thread count, along the queue depths */
		if (r->ngrid)
			qsort(r->grid, r->ngrid, sizeof(*r->grid), cmp_point_qd);
		for (size_t j = 0, style = 0; j < r->ngrid;) {
			size_t k = j, m;
			double *x, *y;

			while (k < r->ngrid && r->grid[k].threads == r->grid[j].threads)
				k++;
			m = k - j;
			snprintf(label, sizeof(label), "%s %uT (QD %u..%u)", r->label,
				 r->grid[j].threads, r->grid[j].qd, r->grid[k - 1].qd);
			x = sset_add(&ss, label, m, 0, 0, &y);
			if (!x)
				break;
			ss.s[ss.n - 1].markers = 1;
			(void)style;
			for (size_t q = 0; q < m; q++) {
				const struct rpt_point *p = &r->grid[j + q];

				x[q] = p->iops;
				y[q] = (p99 ? p->lat.p99 : p->lat.mean) / 1e3;
			}
			j = k;
		}
		if (r->ncurve) {
			double *x, *y;

			snprintf(label, sizeof(label), "%s rate curve", r->label);
			x = sset_add(&ss, label, r->ncurve, 0, 1, &y);
			if (!x)
				break;
			ss.s[ss.n - 1].markers = 1;
			for (size_t q = 0; q < r->ncurve; q++) {
				x[q] = r->curve[q].iops;
				y[q] = (p99 ? r->curve[q].lat.p99 : r->curve[q].lat.mean) / 1e3;
			}
		}
	}
	e = emit(o, &c, &ss, p99 ? NULL :
		 "Each solid line is one thread count across the queue depths (threads x queue "
		 "depth grid, as fast as possible); the dashed line is the rate curve (arrivals "
		 "at a percentage of the measured maximum).");
	sset_release(&ss);
	return e;
}

static int precond_chart(struct out *o, struct rpt_run *const *runs, size_t n,
			 int lat)
{
	struct rpt_chart c = { .title = lat ? "Preconditioning: latency per round" :
					      "Preconditioning: IOPS per round",
			       .xlabel = "round", .ylabel = lat ? "latency (us)" : "IOPS",
			       .ymin0 = !lat, .logy = lat };
	struct sset ss = { 0 };
	int e;

	for (size_t i = 0; i < n; i++) {
		const struct rpt_run *r = runs[i];
		double *x, *y;
		char label[256];

		if (r->kind != RPT_PRECOND || !r->nrounds)
			continue;
		for (int q = 0; q < (lat ? 2 : 1); q++) {
			snprintf(label, sizeof(label), "%s%s", r->label,
				 lat ? (q ? " p99" : " mean") : " IOPS");
			x = sset_add(&ss, label, r->nrounds, run_colour(i), q, &y);
			if (!x)
				break;
			ss.s[ss.n - 1].markers = 1;
			for (size_t j = 0; j < r->nrounds; j++) {
				x[j] = r->rounds[j].round;
				y[j] = lat ? (q ? r->rounds[j].lat.p99 : r->rounds[j].lat.mean) / 1e3 :
				       r->rounds[j].iops;
			}
		}
		if (!lat && r->steady_last && isfinite(r->steady_avg)) {
			/* the measurement window: its average and the 20% band */
			static const double f[] = { 1.0, 1.1, 0.9 };

			for (int q = 0; q < 3; q++) {
				snprintf(label, sizeof(label), "%s window %s", r->label,
					 q == 0 ? "average" : q == 1 ? "+10%" : "-10%");
				x = sset_add(&ss, label, 2, run_colour(i), q ? 2 : 1, &y);
				if (!x)
					break;
				x[0] = r->steady_first;
				x[1] = r->steady_last;
				y[0] = y[1] = r->steady_avg * f[q];
			}
		}
	}
	e = emit(o, &c, &ss, lat ? NULL :
		 "Dashed: the average over the last measurement window; dotted: +-10% of it "
		 "(SNIA PTS: every round of the window within a 20% band around the average, "
		 "and the least-squares line's excursion within 10%).");
	sset_release(&ss);
	return e;
}

static int draw_charts(struct out *o, struct rpt_run *const *runs, size_t n)
{
	int e = 0;

	if (!e) e = time_chart(o, runs, n, TS_IOPS);
	if (!e) e = time_chart(o, runs, n, TS_MBPS);
	if (!e) e = time_chart(o, runs, n, TS_LAT);
	if (!e) e = pct_curve(o, runs, n);
	if (!e) e = time_chart(o, runs, n, TS_LATE);
	if (!e) e = time_chart(o, runs, n, TS_TPS);
	if (!e) e = sweep_chart(o, runs, n, 0);
	if (!e) e = sweep_chart(o, runs, n, 1);
	if (!e) e = precond_chart(o, runs, n, 0);
	if (!e) e = precond_chart(o, runs, n, 1);
	return e;
}

/* ------------------------------------------------------------- tables */

static void group3(char *buf, size_t size, double v, int decimals)
{
	char tmp[64], *p;
	size_t len, intlen, o = 0;
	int neg = v < 0;

	snprintf(tmp, sizeof(tmp), "%.*f", decimals, fabs(v));
	p = strchr(tmp, '.');
	intlen = p ? (size_t)(p - tmp) : strlen(tmp);
	len = strlen(tmp);
	if (neg && o + 1 < size)
		buf[o++] = '-';
	for (size_t i = 0; i < len; i++) {
		int comma = i < intlen && i > 0 && (intlen - i) % 3 == 0;

		/* room for the comma, the digit and the final NUL */
		if (o + 1 + (size_t)comma >= size)
			break;
		if (comma)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	if (size)
		buf[o] = 0;
}

const char *rpt_fmt_metric(const struct rpt_metric *m, double v, char *buf,
			   size_t size)
{
	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return buf;
	}
	if (m->is_ns) {
		double us = v / 1e3;

		if (us >= 1e4)
			snprintf(buf, size, "%.2f ms", us / 1e3);
		else if (us >= 100)
			snprintf(buf, size, "%.0f us", us);
		else
			snprintf(buf, size, "%.1f us", us);
		return buf;
	}
	if (!strcmp(m->unit, "MB/s")) {
		group3(buf, size, v, v < 100 ? 2 : 1);
		strncat(buf, " MB/s", size - strlen(buf) - 1);
		return buf;
	}
	group3(buf, size, v, v < 100 && v != floor(v) ? 1 : 0);
	return buf;
}

static void td(FILE *f, const char *cls, const char *s)
{
	fprintf(f, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
	rpt_xml_escape(f, s);
	fputs("</td>", f);
}

static void swatch(FILE *f, size_t i)
{
	fprintf(f, "<span class=\"sw\" style=\"background:%s\"></span>",
		rpt_palette(run_colour(i) - 1));
}

static const char *kind_name(enum rpt_kind k)
{
	return k == RPT_REPLAY ? "replay" : k == RPT_SWEEP ? "sweep" : "precondition";
}

static void runs_table(FILE *f, struct rpt_run *const *runs, size_t n)
{
	char buf[128];

	fputs("<h2>Runs</h2>\n<table>\n<tr><th>run</th><th>kind</th><th>trace / workload</th>"
	      "<th>target</th><th>settings</th><th>started</th><th>elapsed</th><th>status</th></tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct rpt_run *r = runs[i];
		const char *timing = rpt_run_setting(r, "timing");
		const char *qd = rpt_run_setting(r, "iodepth");
		const char *wk = rpt_run_setting(r, "workers");
		char set[256];

		fputs("<tr><td>", f);
		swatch(f, i);
		rpt_xml_escape(f, r->label);
		fputs("<br/><span class=\"small\">", f);
		rpt_xml_escape(f, r->path);
		fputs("</span></td>", f);
		td(f, NULL, kind_name(r->kind));
		td(f, NULL, r->trace_path ? r->trace_path : r->workload ? r->workload :
		   r->trace_id ? r->trace_id : "-");
		td(f, NULL, r->target ? r->target : "-");
		if (r->kind == RPT_REPLAY) {
			snprintf(set, sizeof(set), "%s%s%s%s%s%s", timing ? "timing " : "",
				 timing ? timing : "", qd ? ", iodepth " : "", qd ? qd : "",
				 wk ? ", workers " : "", wk ? wk : "");
		} else {
			/* sweeps and preconditioning: threads and queue depths */
			const char *th = rpt_run_setting(r, "threads");
			const char *q = rpt_run_setting(r, "qd");
			const char *x = rpt_run_setting(r, r->kind == RPT_SWEEP ? "rates" : "passes");

			snprintf(set, sizeof(set), "%s%s%s%s%s%s%s", th ? "threads " : "", th ? th : "",
				 q ? ", qd " : "", q ? q : "",
				 x ? (r->kind == RPT_SWEEP ? ", rates % " : ", fill passes ") : "",
				 x ? x : "", "");
		}
		td(f, NULL, set[0] ? set : "-");
		td(f, NULL, r->started ? r->started : "-");
		if (r->kind == RPT_REPLAY)
			snprintf(buf, sizeof(buf), "%.1f s", r->elapsed_s);
		else if (r->kind == RPT_PRECOND)
			snprintf(buf, sizeof(buf), "%zu rounds", r->nrounds);
		else
			snprintf(buf, sizeof(buf), "%zu points", r->ngrid + r->ncurve);
		td(f, "num", buf);
		td(f, r->interrupted ? "bad" : NULL,
		   r->interrupted ? "interrupted" : r->kind == RPT_REPLAY && !r->complete ?
		   "incomplete" : r->kind == RPT_PRECOND ? (r->steady ? "steady state" :
		   "no steady state") : "complete");
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void headline_table(FILE *f, struct rpt_run *const *runs, size_t n)
{
	size_t nrep = 0, first = 0;
	char buf[64];

	for (size_t i = 0; i < n; i++)
		if (runs[i]->kind == RPT_REPLAY && !nrep++)
			first = i;
	if (!nrep)
		return;
	fputs("<h2>Headline figures</h2>\n<table>\n<tr><th>figure</th>", f);
	for (size_t i = 0; i < n; i++) {
		if (runs[i]->kind != RPT_REPLAY)
			continue;
		fputs("<th>", f);
		swatch(f, i);
		rpt_xml_escape(f, runs[i]->label);
		fputs("</th>", f);
		if (i != first) {
			fputs("<th>change</th>", f);
		}
	}
	fputs("</tr>\n", f);
	for (const struct rpt_metric *m = rpt_metrics; m->key; m++) {
		int any = 0;

		for (size_t i = 0; i < n; i++)
			if (runs[i]->kind == RPT_REPLAY && isfinite(rpt_metric_value(m, runs[i])))
				any = 1;
		if (!any)
			continue;
		fputs("<tr><td>", f);
		rpt_xml_escape(f, m->name);
		fputs("</td>", f);
		for (size_t i = 0; i < n; i++) {
			double v, b;

			if (runs[i]->kind != RPT_REPLAY)
				continue;
			v = rpt_metric_value(m, runs[i]);
			td(f, "num", rpt_fmt_metric(m, v, buf, sizeof(buf)));
			if (i == first)
				continue;
			b = rpt_metric_value(m, runs[first]);
			if (isfinite(v) && isfinite(b) && b != 0) {
				double rel = (v - b) / fabs(b) * 100;
				int worse = m->higher_better ? rel < 0 : rel > 0;

				snprintf(buf, sizeof(buf), "%+.1f%%", rel);
				td(f, fabs(rel) < 0.05 ? "num" : worse ? "num bad" : "num good", buf);
			} else {
				td(f, "num", "-");
			}
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<p class=\"small\">Change relative to the first run; red is worse, "
	      "green better (no significance test here: see <code>iostorm compare</code>).</p>\n", f);
}

static void sweep_tables(FILE *f, struct rpt_run *const *runs, size_t n)
{
	char a[64], b[64], c[64];

	for (size_t i = 0; i < n; i++) {
		const struct rpt_run *r = runs[i];

		if (r->kind != RPT_SWEEP)
			continue;
		fputs("<h3>Sweep ", f);
		rpt_xml_escape(f, r->label);
		fputs("</h3>\n<table>\n<tr><th>point</th><th>IOPS</th><th>MB/s</th>"
		      "<th>mean latency</th><th>p99 latency</th><th>max latency</th></tr>\n", f);
		for (size_t j = 0; j < r->ngrid + r->ncurve; j++) {
			const struct rpt_point *p = j < r->ngrid ? &r->grid[j] : &r->curve[j - r->ngrid];
			const struct rpt_metric *ml = rpt_metric_find("lat_mean");
			char name[64];

			if (j < r->ngrid)
				snprintf(name, sizeof(name), "%uT%uQ", p->threads, p->qd);
			else
				snprintf(name, sizeof(name), "%.0f%% (%.0f IOPS asked)", p->pct,
					 p->target_iops);
			fputs("<tr>", f);
			td(f, NULL, name);
			td(f, "num", rpt_fmt_metric(rpt_metric_find("iops"), p->iops, a, sizeof(a)));
			td(f, "num", rpt_fmt_metric(rpt_metric_find("mbps"), p->mbps, a, sizeof(a)));
			td(f, "num", rpt_fmt_metric(ml, p->lat.present ? p->lat.mean : NAN, a, sizeof(a)));
			td(f, "num", rpt_fmt_metric(ml, p->lat.present ? p->lat.p99 : NAN, b, sizeof(b)));
			td(f, "num", rpt_fmt_metric(ml, p->lat.present ? p->lat.max : NAN, c, sizeof(c)));
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

static void precond_tables(FILE *f, struct rpt_run *const *runs, size_t n)
{
	char a[64], b[64];

	for (size_t i = 0; i < n; i++) {
		const struct rpt_run *r = runs[i];

		if (r->kind != RPT_PRECOND)
			continue;
		fputs("<h3>Preconditioning ", f);
		rpt_xml_escape(f, r->label);
		fputs("</h3>\n<p>", f);
		if (r->fill_passes > 0)
			fprintf(f, "Sequential fill: %.0f pass%s, %.1f GB in %.1f s (%.1f MB/s). ",
				r->fill_passes, r->fill_passes == 1 ? "" : "es", r->fill_bytes / 1e9,
				r->fill_s, r->fill_s > 0 ? r->fill_bytes / r->fill_s / 1e6 : 0);
		fputs("Workload ", f);
		rpt_xml_escape(f, r->workload ? r->workload : "?");
		fprintf(f, " in %zu rounds: ", r->nrounds);
		if (r->steady)
			fprintf(f, "<b>steady state</b> in rounds %u-%u (average %.0f IOPS, "
				"excursion %.1f%%, slope excursion %.1f%%).", r->steady_first,
				r->steady_last, r->steady_avg, r->steady_excursion * 100,
				r->steady_slope_excursion * 100);
		else
			fputs("<b class=\"bad\">steady state not reached</b>.", f);
		fputs("</p>\n", f);
		fputs("<table>\n<tr><th>round</th><th>IOPS</th><th>MB/s</th><th>mean latency</th>"
		      "<th>p99 latency</th></tr>\n", f);
		for (size_t j = 0; j < r->nrounds; j++) {
			const struct rpt_point *p = &r->rounds[j];
			const struct rpt_metric *ml = rpt_metric_find("lat_mean");
			int in = r->steady_last && p->round >= r->steady_first &&
				 p->round <= r->steady_last;

			fprintf(f, "<tr%s><td class=\"num\">%u</td>", in ? " class=\"win\"" : "",
				p->round);
			td(f, "num", rpt_fmt_metric(rpt_metric_find("iops"), p->iops, a, sizeof(a)));
			td(f, "num", rpt_fmt_metric(rpt_metric_find("mbps"), p->mbps, a, sizeof(a)));
			td(f, "num", rpt_fmt_metric(ml, p->lat.present ? p->lat.mean : NAN, a, sizeof(a)));
			td(f, "num", rpt_fmt_metric(ml, p->lat.present ? p->lat.p99 : NAN, b, sizeof(b)));
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

static const char css[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1100px}\n"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.5em;border-bottom:1px solid #ccc}\n"
	"table{border-collapse:collapse;margin:.5em 0;font-size:.9em}\n"
	"th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}\n"
	"th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	".bad{color:#b00000;font-weight:bold}.good{color:#006000}\n"
	"tr.win td{background:#eef6ff}.small{font-size:.8em;color:#555}\n"
	".sw{display:inline-block;width:.9em;height:.9em;margin-right:.4em;vertical-align:middle}\n"
	"figure{margin:1em 0;break-inside:avoid;page-break-inside:avoid}\n"
	"figure svg{max-width:100%;height:auto}figcaption{font-size:.85em;color:#444}\n"
	"@media print{body{margin:0;max-width:none}h2{break-after:avoid}}\n";

int rpt_write_html(FILE *f, struct rpt_run *const *runs, size_t n,
		   const struct rpt_report_opts *o)
{
	const char *title = o && o->title ? o->title : "iostorm report";
	struct out out = { .f = f };
	int e;

	fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n"
	      "<head>\n<meta charset=\"utf-8\"/>\n<title>", f);
	rpt_xml_escape(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
	rpt_xml_escape(f, title);
	fputs("</h1>\n", f);
	runs_table(f, runs, n);
	headline_table(f, runs, n);
	fputs("<h2>Charts</h2>\n", f);
	e = draw_charts(&out, runs, n);
	if (e < 0)
		return e;
	if (!out.charts)
		fputs("<p>No per-interval data in these runs: run the replay with "
		      "<code>--interval</code> for charts over time.</p>\n", f);
	for (size_t i = 0; i < n; i++)
		if (runs[i]->kind != RPT_REPLAY) {
			fputs("<h2>Sweeps and preconditioning</h2>\n", f);
			break;
		}
	sweep_tables(f, runs, n);
	precond_tables(f, runs, n);
	fputs("<p class=\"small\">Generated by ", f);
	rpt_xml_escape(f, o && o->generator ? o->generator : "iostorm");
	fputs(". Latencies are from submission to completion; IOPS and MB/s (10<sup>6</sup> "
	      "bytes/s) per interval.</p>\n</body>\n</html>\n", f);
	return ferror(f) ? -EIO : 0;
}

int rpt_write_svg(FILE *f, struct rpt_run *const *runs, size_t n,
		  const struct rpt_report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct out out = { .f = m, .svg = 1, .y = 40 };
	int e;

	if (!m)
		return -ENOMEM;
	e = draw_charts(&out, runs, n);
	if (fclose(m) != 0 && !e)
		e = -ENOMEM;
	if (e < 0) {
		free(buf);
		return e;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
		"<text x=\"10\" y=\"26\" font-size=\"18\" font-weight=\"bold\">",
		CHART_W, out.y, CHART_W, out.y);
	rpt_xml_escape(f, o && o->title ? o->title : "iostorm report");
	fputs("</text>\n", f);
	fwrite(buf, 1, len, f);
	fputs("</svg>\n", f);
	free(buf);
	return ferror(f) ? -EIO : 0;
}
