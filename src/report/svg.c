/* SPDX-License-Identifier: MIT */
/* svg.c - line charts as inline SVG: axes with round ticks, log scales,
 * percentile axes, a legend; no scripts, so they print and render with
 * JavaScript off. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/textenc.h"
#include "report/svg.h"

/* Colour-blind friendly palette (Okabe-Ito). */
static const char *const palette[] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7",
	"#E69F00", "#56B4E9", "#F0E442", "#000000",
};

const char *rpt_palette(unsigned i)
{
	return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

void rpt_xml_escape(FILE *f, const char *s)
{
	istint_xml_put_str(f, s);
}

struct axis {
	double lo, hi; /* in transformed units */
	int log;
	int pct;
};

static double transform(const struct axis *a, double v)
{
	if (a->pct)
		return -log10(1.0 - v);
	return a->log ? log10(v) : v;
}

static int drawable(const struct axis *a, double v)
{
	if (!isfinite(v))
		return 0;
	if (a->pct)
		return v >= 0 && v < 1;
	return a->log ? v > 0 : 1;
}

/* A "nice" step (1, 2, 5 x 10^k) giving about n ticks over span. */
static double nice_step(double span, int n)
{
	double raw = span / n, mag, r;

	if (!(raw > 0))
		return 1;
	mag = pow(10, floor(log10(raw)));
	r = raw / mag;
	if (r < 1.5)
		return mag;
	if (r < 3.5)
		return 2 * mag;
	if (r < 7.5)
		return 5 * mag;
	return 10 * mag;
}

static void fmt_tick(char *buf, size_t size, double v)
{
	double a = fabs(v);

	if (a == 0)
		snprintf(buf, size, "0");
	else if (a >= 1e9)
		snprintf(buf, size, "%gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, size, "%gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, size, "%gk", v / 1e3);
	else
		snprintf(buf, size, "%g", v);
}

static void fmt_pct_tick(char *buf, size_t size, double t)
{
	/* t = -log10(1-p): 1 -> p90, 2 -> p99, 3 -> p99.9 */
	double p = 100.0 * (1.0 - pow(10, -t));

	snprintf(buf, size, "p%.*f", t <= 1 ? 0 : (int)t - 2 > 0 ? (int)t - 2 : 0, p);
	if (t < 0.31)
		snprintf(buf, size, "p%.0f", p);
	if (t < 0.01) /* p0: the smallest value */
		snprintf(buf, size, "min");
}

static void range_of(const struct rpt_series *s, size_t ns, int want_x,
		     struct axis *a)
{
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < ns; i++)
		for (size_t j = 0; j < s[i].n; j++) {
			double v = want_x ? s[i].x[j] : s[i].y[j];

			if (!drawable(a, v))
				continue;
			v = transform(a, v);
			if (v < lo)
				lo = v;
			if (v > hi)
				hi = v;
		}
	if (lo > hi) {
		lo = 0;
		hi = 1;
	}
	if (a->log) {
		lo = floor(lo);
		hi = ceil(hi);
	}
	if (hi - lo < 1e-12) {
		double d = fabs(lo) > 0 ? fabs(lo) * 0.1 : 1;

		lo -= d;
		hi += d;
	}
	a->lo = lo;
	a->hi = hi;
}

int rpt_svg_chart(FILE *f, const struct rpt_chart *c,
		  const struct rpt_series *s, size_t ns)
{
	unsigned W = c->width ? c->width : 720, H = c->height ? c->height : 360;
	const double ml = 70, mr = 20, mt = 34, mb = 48 + 18.0 * (double)((ns + 2) / 3);
	double pw = W - ml - mr, ph = H - mt - mb;
	struct axis ax = { .log = c->logx, .pct = c->percentile_x };
	struct axis ay = { .log = c->logy };
	char buf[64];

	if (ph < 60) {
		H = (unsigned)(mt + mb + 60);
		ph = 60;
	}
	range_of(s, ns, 1, &ax);
	range_of(s, ns, 0, &ay);
	if (c->ymin0 && !ay.log && ay.lo > 0)
		ay.lo = 0;
	if (!ay.log) { /* round the y range out to whole steps */
		double st = nice_step(ay.hi - ay.lo, 5);

		ay.lo = floor(ay.lo / st) * st;
		ay.hi = ceil(ay.hi / st) * st;
	}
#define PX(v) (ml + (transform(&ax, (v)) - ax.lo) / (ax.hi - ax.lo) * pw)
#define PY(v) (mt + ph - (transform(&ay, (v)) - ay.lo) / (ay.hi - ay.lo) * ph)
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" font-family=\"sans-serif\" font-size=\"11\">\n",
		W, H, W, H);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#ffffff\"/>\n", W, H);
	fputs("<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">", f);
	rpt_xml_escape(f, c->title);
	fputs("</text>\n", f);

	/* y grid and ticks */
	if (ay.log) {
		for (double e = ay.lo; e <= ay.hi + 1e-9; e += 1) {
			double y = mt + ph - (e - ay.lo) / (ay.hi - ay.lo) * ph;

			fmt_tick(buf, sizeof(buf), pow(10, e));
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>"
				"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
				ml, y, ml + pw, y, ml - 6, y + 4, buf);
		}
	} else {
		double st = nice_step(ay.hi - ay.lo, 5);

		for (double v = ay.lo; v <= ay.hi + st * 1e-6; v += st) {
			double y = mt + ph - (v - ay.lo) / (ay.hi - ay.lo) * ph;

			fmt_tick(buf, sizeof(buf), fabs(v) < st * 1e-9 ? 0 : v);
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>"
				"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
				ml, y, ml + pw, y, ml - 6, y + 4, buf);
		}
	}
	/* x ticks */
	{
		double st = ax.log || ax.pct ? 1 : nice_step(ax.hi - ax.lo, 8);
		double v0 = ax.log || ax.pct ? ceil(ax.lo) : ceil(ax.lo / st) * st;

		for (double v = v0; v <= ax.hi + st * 1e-6; v += st) {
			double x = ml + (v - ax.lo) / (ax.hi - ax.lo) * pw;

			if (ax.pct)
				fmt_pct_tick(buf, sizeof(buf), v);
			else
				fmt_tick(buf, sizeof(buf), ax.log ? pow(10, v) :
					 fabs(v) < st * 1e-9 ? 0 : v);
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eeeeee\"/>"
				"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
				x, mt, x, mt + ph, x, mt + ph + 15, buf);
		}
		/* the median has its own tick between "min" and p90 */
		if (ax.pct && ax.lo < 0.2 && ax.hi > 0.5) {
			double x = ml + (log10(2.0) - ax.lo) / (ax.hi - ax.lo) * pw;

			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eeeeee\"/>"
				"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">p50</text>\n",
				x, mt, x, mt + ph, x, mt + ph + 15);
		}
	}
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#444444\"/>\n",
		ml, mt, pw, ph);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", ml + pw / 2, mt + ph + 32);
	rpt_xml_escape(f, c->xlabel);
	fprintf(f, "</text>\n<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 14 %.1f)\">", mt + ph / 2, mt + ph / 2);
	rpt_xml_escape(f, c->ylabel);
	fputs("</text>\n", f);

	for (size_t i = 0; i < ns; i++) {
		const char *col = rpt_palette(s[i].colour ? s[i].colour - 1 : (unsigned)i);
		const char *dash = s[i].dashed ? " stroke-dasharray=\"6,3\"" :
				   s[i].dotted ? " stroke-dasharray=\"1.5,2.5\"" : "";
		size_t drawn = 0;

		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s points=\"",
			col, dash);
		for (size_t j = 0; j < s[i].n; j++) {
			if (!drawable(&ax, s[i].x[j]) || !drawable(&ay, s[i].y[j]))
				continue;
			fprintf(f, "%s%.1f,%.1f", drawn ? " " : "", PX(s[i].x[j]), PY(s[i].y[j]));
			drawn++;
		}
		fputs("\"/>\n", f);
		if (drawn == 1 || s[i].markers) /* a lone point is invisible as a line */
			for (size_t j = 0; j < s[i].n; j++)
				if (drawable(&ax, s[i].x[j]) && drawable(&ay, s[i].y[j]))
					fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
						PX(s[i].x[j]), PY(s[i].y[j]), col);
		/* legend, three entries a row */
		{
			double lx = ml + (double)(i % 3) * (pw / 3);
			double ly = mt + ph + 46 + 18.0 * (double)(i / 3);

			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				"stroke-width=\"3\"%s/><text x=\"%.1f\" y=\"%.1f\">",
				lx, ly - 4, lx + 22, ly - 4, col, dash, lx + 28, ly);
			rpt_xml_escape(f, s[i].label);
			fputs("</text>\n", f);
		}
	}
#undef PX
#undef PY
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
