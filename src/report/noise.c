/* SPDX-License-Identifier: MIT */
/* noise.c - Welch's interval of a difference of means with a serial
 * correlation correction, Student's t, least-squares lines. */
#include "config.h"

#include <math.h>

#include "report/noise.h"

void rpt_sample_of(const double *v, size_t n, struct rpt_sample *s)
{
	double sum = 0, ss = 0, cov = 0, prev = NAN;
	size_t m = 0, pairs = 0;

	s->n = 0;
	s->mean = s->var = s->rho = 0;
	s->n_eff = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			sum += v[i];
			m++;
		}
	if (!m)
		return;
	s->n = m;
	s->mean = sum / (double)m;
	for (size_t i = 0; i < n; i++) {
		double d;

		if (!isfinite(v[i]))
			continue;
		d = v[i] - s->mean;
		ss += d * d;
		/* consecutive usable values form the lag-1 pairs */
		if (isfinite(prev)) {
			cov += d * prev;
			pairs++;
		}
		prev = d;
	}
	s->var = m > 1 ? ss / (double)(m - 1) : 0;
	/*
	 * Consecutive intervals of a run are not independent (caches, garbage
	 * collection in the drive, queueing carry over), so n values carry
	 * less information than n independent draws.  For an AR(1) process
	 * the variance of the mean is that of n (1 - rho) / (1 + rho)
	 * independent values; negative correlation is not credited.
	 */
	s->rho = ss > 0 && pairs ? cov / ss : 0;
	if (s->rho < 0)
		s->rho = 0;
	if (s->rho > 0.95)
		s->rho = 0.95;
	s->n_eff = (double)m * (1 - s->rho) / (1 + s->rho);
	if (m >= 2 && s->n_eff < 2)
		s->n_eff = 2;
	if (m < 2)
		s->n_eff = (double)m;
}

/* Regularised incomplete beta I_x(a, b) by its continued fraction
 * (modified Lentz), the usual way to get Student's t. */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-14)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(a, b, x) / a;
	return 1 - front * betacf(b, a, 1 - x) / b;
}

double rpt_t_cdf(double t, double df)
{
	double x, tail;

	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	x = df / (df + t * t);
	tail = 0.5 * ibeta(df / 2, 0.5, x);
	return t > 0 ? 1 - tail : tail;
}

double rpt_t_quantile(double p, double df)
{
	double lo = -1, hi = 1;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	while (rpt_t_cdf(lo, df) > p)
		lo *= 2;
	while (rpt_t_cdf(hi, df) < p)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + fabs(lo)); i++) {
		double mid = (lo + hi) / 2;

		if (rpt_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void rpt_welch(const struct rpt_sample *a, const struct rpt_sample *b,
	       double conf, struct rpt_diff_ci *ci)
{
	double va, vb, t;

	ci->valid = a->n >= 3 && b->n >= 3;
	ci->diff = b->mean - a->mean;
	ci->se = ci->df = 0;
	ci->lo = ci->hi = ci->diff;
	ci->significant = 0;
	if (!ci->valid)
		return;
	va = a->var / a->n_eff;
	vb = b->var / b->n_eff;
	ci->se = sqrt(va + vb);
	if (!(ci->se > 0)) {
		/* two constant series: any difference is real */
		ci->significant = ci->diff != 0;
		return;
	}
	ci->df = (va + vb) * (va + vb) /
		 (va * va / (a->n_eff - 1) + vb * vb / (b->n_eff - 1));
	t = rpt_t_quantile(0.5 + conf / 2, ci->df);
	ci->lo = ci->diff - t * ci->se;
	ci->hi = ci->diff + t * ci->se;
	ci->significant = ci->lo > 0 || ci->hi < 0;
}

int rpt_linefit(const double *x, const double *y, size_t n, double *a,
		double *b)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0;

	if (n < 2)
		return -1;
	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	if (!(sxx > 0))
		return -1;
	*b = sxy / sxx;
	*a = my - *b * mx;
	return 0;
}
