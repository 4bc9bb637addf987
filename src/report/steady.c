/* SPDX-License-Identifier: MIT */
/* steady.c - SNIA PTS steady-state test over a window of rounds. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "report/noise.h"
#include "report/steady.h"

int rpt_steady_check(const double *y, size_t n, size_t window, double max_exc,
		     double max_slope, struct rpt_steady *s)
{
	double x[64], lo = INFINITY, hi = -INFINITY, sum = 0, a, b;
	const double *w;

	memset(s, 0, sizeof(*s));
	s->average = s->excursion = s->slope = s->slope_excursion = NAN;
	if (window < 2 || window > 64 || n < window)
		return 0;
	w = y + n - window;
	s->first = n - window;
	s->last = n - 1;
	for (size_t i = 0; i < window; i++) {
		if (!isfinite(w[i]))
			return 0;
		x[i] = (double)(s->first + i);
		sum += w[i];
		lo = fmin(lo, w[i]);
		hi = fmax(hi, w[i]);
	}
	s->average = sum / (double)window;
	if (!(s->average > 0))
		return 0;
	s->excursion = (hi - lo) / s->average;
	if (rpt_linefit(x, w, window, &a, &b) < 0)
		return 0;
	s->slope = b;
	s->slope_excursion = fabs(b) * (double)(window - 1) / s->average;
	s->reached = s->excursion <= max_exc && s->slope_excursion <= max_slope;
	return s->reached;
}
