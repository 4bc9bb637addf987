/* SPDX-License-Identifier: MIT */
/*
 * rng.c - the ziggurat tables for exponential variates (Marsaglia & Tsang
 * 2000) and Zipf sampling by rejection-inversion (Hoermann & Derflinger
 * 1996).
 */
#include "config.h"

#include <math.h>

#include "synth/rng.h"

/* ---------------------------------------------------------- ziggurat */

#define ZIG_R 7.69711747013104972      /* start of the tail             */
#define ZIG_V 3.949659822581572e-3     /* area of each layer            */
#define ZIG_M 9007199254740992.0       /* 2^53: the abscissa's range    */

uint64_t syn_zig_k[256];
double syn_zig_w[256], syn_zig_f[256];

/* Layer i (1..255) spans [0, x_i] between heights f(x_i) and f(x_{i-1});
 * its part left of x_{i-1} is under the curve: k[i] = x_{i-1}/x_i in
 * units of 2^-53.  Layer 0 is the base strip with the tail beyond R. */
__attribute__((constructor)) static void zig_init(void)
{
	double x = ZIG_R, prev = ZIG_R, q = ZIG_V / exp(-ZIG_R);

	syn_zig_k[0] = (uint64_t)(ZIG_R / q * ZIG_M);
	syn_zig_k[1] = 0;
	syn_zig_w[0] = q / ZIG_M;
	syn_zig_w[255] = ZIG_R / ZIG_M;
	syn_zig_f[0] = 1.0;
	syn_zig_f[255] = exp(-ZIG_R);
	for (int i = 254; i >= 1; i--) {
		x = -log(ZIG_V / x + exp(-x));
		syn_zig_k[i + 1] = (uint64_t)(x / prev * ZIG_M);
		prev = x;
		syn_zig_f[i] = exp(-x);
		syn_zig_w[i] = x / ZIG_M;
	}
}

double syn_exp_slow(struct syn_rng *r, uint64_t u)
{
	for (;;) {
		unsigned i = (unsigned)u & 255;
		uint64_t j = u >> 11;
		double x;

		if (j < syn_zig_k[i])
			return (double)j * syn_zig_w[i];
		if (!i) /* the tail: memoryless, R plus a fresh variate */
			return ZIG_R - log(1.0 - syn_rng_unit(r));
		x = (double)j * syn_zig_w[i];
		if (syn_zig_f[i] + syn_rng_unit(r) * (syn_zig_f[i - 1] - syn_zig_f[i]) <
		    exp(-x))
			return x;
		u = syn_rng_u64(r);
	}
}

/* ---------------------------------------------------------------- zipf */

static double helper1(double x) /* log1p(x) / x */
{
	/* log(1 + x) loses ~1e-16/x relative: nothing a sampler sees above
	 * 1e-4, and log() is twice as fast as log1p() */
	if (fabs(x) > 1e-4)
		return log(1.0 + x) / x;
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
