/* SPDX-License-Identifier: MIT */
/* report.h - HTML and SVG reports of run results (internal, rpt_ prefix). */
#ifndef IST_REPORT_REPORT_H
#define IST_REPORT_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "report/run.h"

struct rpt_report_opts {
	const char *title;     /* NULL: "iostorm report"                     */
	const char *generator; /* e.g. "iostorm 0.1.0", shown in the footer  */
};

/* The charts an HTML report or an SVG file holds, in order (for tests and
 * the manual).  Each is drawn only when some run has its data. */
enum rpt_chart_id {
	RPT_CH_IOPS = 0,    /* IOPS over time                           */
	RPT_CH_MBPS,        /* MB/s over time                           */
	RPT_CH_LAT_TIME,    /* mean, p99, max latency over time         */
	RPT_CH_PCT_CURVE,   /* latency percentile curve                 */
	RPT_CH_LATENESS,    /* timing lateness over time                */
	RPT_CH_TPS,         /* TPS-eq over time                         */
	RPT_CH_SWEEP_MEAN,  /* sweep: mean latency against IOPS         */
	RPT_CH_SWEEP_P99,   /* sweep: p99 latency against IOPS          */
	RPT_CH_PRECOND,     /* precondition: IOPS per round             */
	RPT_CH_PRECOND_LAT, /* precondition: latency per round          */
	RPT_CH_COUNT
};

/*
 * Writes a self-contained HTML document (inline SVG, inline CSS, no
 * script, no external reference) describing runs[0..n-1] overlaid.
 * Returns 0 or -EIO when writing failed.
 */
int rpt_write_html(FILE *f, struct rpt_run *const *runs, size_t n,
		   const struct rpt_report_opts *o);
/* Writes the charts alone as one SVG document.  0 or -EIO. */
int rpt_write_svg(FILE *f, struct rpt_run *const *runs, size_t n,
		  const struct rpt_report_opts *o);

/* Formats a figure of metric m for tables ("12,345", "1.23 ms", "-"). */
const char *rpt_fmt_metric(const struct rpt_metric *m, double v, char *buf,
			   size_t size);

#endif
