/* SPDX-License-Identifier: MIT */
/*
 * steady.h - steady state by the SNIA Solid State Storage Performance
 * Test Specification (PTS): over a measurement window of the last W
 * rounds (W = 5), the largest data excursion (max - min) is within 20%
 * of the window's average, and the excursion of the least-squares line
 * across the window (|slope| x (W - 1)) within 10% of the average
 * (internal, rpt_ prefix).
 */
#ifndef IST_REPORT_STEADY_H
#define IST_REPORT_STEADY_H

#include <stddef.h>

#define RPT_STEADY_WINDOW 5
#define RPT_STEADY_MAX_EXCURSION 0.20
#define RPT_STEADY_MAX_SLOPE 0.10

struct rpt_steady {
	int reached;
	size_t first, last;     /* window: rounds first..last (0-based)    */
	double average;
	double excursion;       /* (max - min) / average                   */
	double slope;           /* per round                               */
	double slope_excursion; /* |slope| (W - 1) / average               */
};

/* Tests the window of the last `window` values of y[0..n-1] (none when
 * n < window, or the average is not positive).  Returns s->reached. */
int rpt_steady_check(const double *y, size_t n, size_t window, double max_exc,
		     double max_slope, struct rpt_steady *s);

#endif
