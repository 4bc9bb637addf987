/* SPDX-License-Identifier: MIT */
/* rng.c - Zipf sampling by rejection-inversion (Hoermann & Derflinger 1996). */
#include "config.h"

#include <math.h>

#include "synth/rng.h"

static double helper1(double x) /* log1p(x) / x */
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x * (0.5 - x / 3.0);
}

static double helper2(double x) /* expm1(x) / x */
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0);
}

static double h(double theta, double x)
{
	return exp(-theta * log(x));
}

static double h_int(double theta, double x)
{
	double lx = log(x);

	return helper2((1.0 - theta) * lx) * lx;
}

static double h_int_inv(double theta, double x)
{
	double t = x * (1.0 - theta);

	if (t < -1.0)
		t = -1.0;
	return exp(helper1(t) * x);
}

void syn_zipf_init(struct syn_zipf *z, uint64_t n, double theta)
{
	if (n < 1)
		n = 1;
	if (theta <= 0.0)
		theta = 1e-9;
	z->n = (double)n;
	z->theta = theta;
	z->h_x1 = h_int(theta, 1.5) - 1.0;
	z->h_n = h_int(theta, z->n + 0.5);
	z->s = 2.0 - h_int_inv(theta, h_int(theta, 2.5) - h(theta, 2.0));
}

uint64_t syn_zipf_draw(const struct syn_zipf *z, struct syn_rng *r)
{
	for (;;) {
		double u = z->h_n + syn_rng_unit(r) * (z->h_x1 - z->h_n);
		double x = h_int_inv(z->theta, u);
		double k = floor(x + 0.5);

		if (k < 1.0)
			k = 1.0;
		else if (k > z->n)
			k = z->n;
		if (k - x <= z->s ||
		    u >= h_int(z->theta, k + 0.5) - h(z->theta, k))
			return (uint64_t)k - 1;
	}
}

double syn_zipf_mass(const struct syn_zipf *z, uint64_t k)
{
	double lo = h_int(z->theta, 0.5);

	if ((double)k >= z->n)
		return 1.0;
	return (h_int(z->theta, (double)k + 0.5) - lo) / (z->h_n - lo);
}
