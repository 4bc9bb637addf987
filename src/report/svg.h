/* SPDX-License-Identifier: MIT */
/* svg.h - self-contained SVG line charts for the HTML reports (internal). */
#ifndef IST_REPORT_SVG_H
#define IST_REPORT_SVG_H

#include <stddef.h>
#include <stdio.h>

struct rpt_series {
	const char *label;
	const double *x;
	const double *y;
	size_t n;
	int dashed; /* draw with a dashed line (e.g. a recorded reference) */
	int dotted; /* draw with a dotted line                              */
	int markers; /* a circle at each point (sweep curves)               */
	unsigned colour; /* 1-based palette index (same run, same colour);
			    0 = by position in the series array             */
};

/* The number of distinct colours of the palette. */
#define RPT_PALETTE_SIZE 8
/* The colour of palette index i (0-based, wraps), "#rrggbb". */
const char *rpt_palette(unsigned i);

struct rpt_chart {
	const char *title;
	const char *xlabel;
	const char *ylabel;
	int logx;  /* logarithmic x axis (values <= 0 are skipped) */
	int logy;  /* logarithmic y axis (values <= 0 are skipped) */
	int ymin0; /* linear y axis starts at 0 */
	unsigned width, height; /* pixels; 0 = 720 x 360 */
	/* labels of the x axis of a percentile curve: x is p in (0,1) drawn as
	 * -log10(1-p) so that p50, p90, p99, p99.9 are evenly spaced */
	int percentile_x;
};

/* Writes one <svg> element (no XML declaration) to f.  Series with fewer
 * than one drawable point are listed in the legend but not drawn.
 * Returns 0, or -EIO when writing failed. */
int rpt_svg_chart(FILE *f, const struct rpt_chart *c,
		  const struct rpt_series *s, size_t nseries);

/* Writes s to f with XML special characters escaped. */
void rpt_xml_escape(FILE *f, const char *s);

#endif
