/* SPDX-License-Identifier: MIT */
/*
 * noise.h - telling a real change from run-to-run noise: a confidence
 * interval of the difference of two means of per-interval figures
 * (Welch's t with an effective sample size corrected for the serial
 * correlation of consecutive intervals), Student's t distribution, and
 * least-squares lines (internal, rpt_ prefix).
 */
#ifndef IST_REPORT_NOISE_H
#define IST_REPORT_NOISE_H

#include <stddef.h>

/* Summary of a series of per-interval values. */
struct rpt_sample {
	size_t n;      /* values used                                      */
	double mean, var; /* sample mean and variance (n - 1)             */
	double rho;    /* lag-1 autocorrelation, clamped to [0, 0.95]      */
	double n_eff;  /* n (1 - rho) / (1 + rho), at least 2 (when n >= 2) */
};

/* Summarises v[0..n-1], skipping NaN values. */
void rpt_sample_of(const double *v, size_t n, struct rpt_sample *s);

/* The confidence interval of mean(b) - mean(a). */
struct rpt_diff_ci {
	int valid;        /* both samples have at least 3 values           */
	double diff;      /* mean(b) - mean(a)                             */
	double se, df;    /* standard error and Welch's degrees of freedom */
	double lo, hi;    /* diff -/+ t(conf, df) se                       */
	int significant;  /* the interval excludes 0                       */
};

/* Welch's interval at confidence conf (e.g. 0.95). */
void rpt_welch(const struct rpt_sample *a, const struct rpt_sample *b,
	       double conf, struct rpt_diff_ci *ci);

/* Student's t: cumulative distribution at t with df degrees of freedom
 * (df > 0, need not be an integer), and its quantile (p in (0,1)). */
double rpt_t_cdf(double t, double df);
double rpt_t_quantile(double p, double df);

/* Least-squares line y = a + b x through (x[i], y[i]); 0, or -1 when
 * fewer than two distinct x. */
int rpt_linefit(const double *x, const double *y, size_t n, double *a,
		double *b);

#endif
