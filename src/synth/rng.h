/* SPDX-License-Identifier: MIT */
/*
 * rng.h - the emulators' own seeded random numbers (xoshiro256** seeded
 * through splitmix64) and the distributions the workload models draw from.
 * Never rand(): the same seed must give the same trace on every libc.
 */
#ifndef IST_SYNTH_RNG_H
#define IST_SYNTH_RNG_H

#include <math.h>
#include <stdint.h>

struct syn_rng {
	uint64_t s[4];
};

static inline uint64_t syn_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Seeds r from seed and a sub-stream number, so that each stream of a
 * generator has its own independent sequence. */
static inline void syn_rng_seed(struct syn_rng *r, uint64_t seed, uint64_t sub)
{
	uint64_t x = seed ^ (sub * 0xd1b54a32d192ed03ull);

	for (int i = 0; i < 4; i++)
		r->s[i] = syn_splitmix64(&x);
}

static inline uint64_t syn_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t syn_rng_u64(struct syn_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = syn_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = syn_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, 1). */
static inline double syn_rng_unit(struct syn_rng *r)
{
	return (double)(syn_rng_u64(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n) (Lemire's multiply-shift; the tiny bias of skipping
 * the rejection step is far below anything a workload model can see). */
static inline uint64_t syn_rng_below(struct syn_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)syn_rng_u64(r) * n) >> 64);
}

/* Uniform integer in [lo, hi]. */
static inline uint64_t syn_rng_range(struct syn_rng *r, uint64_t lo, uint64_t hi)
{
	return lo + syn_rng_below(r, hi - lo + 1);
}

/* True with probability p. */
static inline int syn_rng_chance(struct syn_rng *r, double p)
{
	return syn_rng_unit(r) < p;
}

/*
 * Exponential variates by Marsaglia & Tsang's ziggurat (256 layers): one
 * 64-bit draw, a table look-up and a multiplication in ~99% of the cases
 * (the low 8 bits pick the layer, the high 53 the abscissa); the wedges
 * and the tail fall back to syn_exp_slow().  Tables built by rng.c.
 */
extern uint64_t syn_zig_k[256];
extern double syn_zig_w[256], syn_zig_f[256];
double syn_exp_slow(struct syn_rng *r, uint64_t u);

/* Exponential with mean 1. */
static inline double syn_rng_exp1(struct syn_rng *r)
{
	uint64_t u = syn_rng_u64(r);
	unsigned i = (unsigned)u & 255;
	uint64_t j = u >> 11;

	if (j < syn_zig_k[i])
		return (double)j * syn_zig_w[i];
	return syn_exp_slow(r, u);
}

/* Exponential with the given mean. */
static inline double syn_rng_exp(struct syn_rng *r, double mean)
{
	return mean * syn_rng_exp1(r);
}

/* TPC-C NURand(A, x, y) with run-time constant C (clause 2.1.6). */
static inline uint64_t syn_nurand(struct syn_rng *r, uint64_t a, uint64_t c,
				  uint64_t x, uint64_t y)
{
	return (((syn_rng_range(r, 0, a) | syn_rng_range(r, x, y)) + c) %
		(y - x + 1)) + x;
}

/* Zipf over ranks [0, n) with exponent theta (> 0, != 1 handled, 1 too)
 * by Hoermann & Derflinger's rejection-inversion: O(1) per draw, no table. */
struct syn_zipf {
	double n, theta, h_x1, h_n, s;
};

void syn_zipf_init(struct syn_zipf *z, uint64_t n, double theta);
uint64_t syn_zipf_draw(const struct syn_zipf *z, struct syn_rng *r);
/* Share of draws falling on the k most popular ranks (for buffer models). */
double syn_zipf_mass(const struct syn_zipf *z, uint64_t k);

/* Pareto-like skew as sysbench's "pareto" (h = 0.2): index in [0, n). */
static inline uint64_t syn_pareto(struct syn_rng *r, uint64_t n, double h)
{
	double p = pow(syn_rng_unit(r), log(h) / log(1.0 - h));
	uint64_t v = (uint64_t)(p * (double)n);

	return v < n ? v : n - 1;
}

/* sysbench 1.0 "special": pct of draws in the central res share of the
 * range, the rest uniform over the whole range. */
static inline uint64_t syn_special(struct syn_rng *r, uint64_t n, double pct,
				   double res)
{
	if (syn_rng_chance(r, pct)) {
		uint64_t w = (uint64_t)((double)n * res);
		uint64_t lo = (n - w) / 2;

		if (!w)
			w = 1;
		return lo + syn_rng_below(r, w);
	}
	return syn_rng_below(r, n);
}

#endif
