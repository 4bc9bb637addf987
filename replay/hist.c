/* SPDX-License-Identifier: MIT */
/* hist.c - log-linear latency histograms with bounded relative error. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"

#define SUB (1u << RPL_HIST_SUB_BITS)

int rpl_hist_init(struct rpl_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->b = calloc(RPL_HIST_BUCKETS, sizeof(*h->b));
	if (!h->b)
		return -ENOMEM;
	h->min = UINT64_MAX;
	return 0;
}

void rpl_hist_release(struct rpl_hist *h)
{
	free(h->b);
	h->b = NULL;
}

void rpl_hist_reset(struct rpl_hist *h)
{
	uint64_t *b = h->b;

	if (b && h->count)
		memset(b, 0, RPL_HIST_BUCKETS * sizeof(*b));
	memset(h, 0, sizeof(*h));
	h->b = b;
	h->min = UINT64_MAX;
}

unsigned rpl_hist_index(uint64_t v)
{
	unsigned msb, shift, idx;

	if (v < SUB)
		return (unsigned)v;
	msb = 63 - (unsigned)__builtin_clzll(v);
	shift = msb - RPL_HIST_SUB_BITS;
	/* Buckets of width 2^shift cover [2^msb, 2^(msb+1)): SUB of them. */
	idx = ((shift + 1) << RPL_HIST_SUB_BITS) |
	      (unsigned)((v >> shift) & (SUB - 1));
	if (idx >= RPL_HIST_BUCKETS)
		idx = RPL_HIST_BUCKETS - 1;
	return idx;
}

void rpl_hist_bucket_range(unsigned idx, uint64_t *lo, uint64_t *hi)
{
	unsigned shift;

	if (idx < SUB) {
		*lo = *hi = idx;
		return;
	}
	shift = (idx >> RPL_HIST_SUB_BITS) - 1;
	*lo = ((uint64_t)(SUB | (idx & (SUB - 1)))) << shift;
	*hi = *lo + (((uint64_t)1 << shift) - 1);
}

void rpl_hist_add(struct rpl_hist *h, uint64_t v)
{
	h->b[rpl_hist_index(v)]++;
	h->count++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->sum += (double)v;
	h->sumsq += (double)v * (double)v;
}

int rpl_hist_merge(struct rpl_hist *dst, const struct rpl_hist *src)
{
	if (!src->count)
		return 0;
	/* Buckets of a lazily created histogram (empty intervals own none). */
	if (!dst->b) {
		dst->b = calloc(RPL_HIST_BUCKETS, sizeof(*dst->b));
		if (!dst->b)
			return -ENOMEM;
	}
	for (unsigned i = 0; i < RPL_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	return 0;
}

uint64_t rpl_hist_quantile(const struct rpl_hist *h, double q)
{
	uint64_t rank, seen = 0, lo, hi, mid;

	if (!h->count || !h->b)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* The smallest value with at least ceil(q * count) values <= it,
	 * as for the exact percentile of sorted data (nearest rank). */
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < RPL_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			rpl_hist_bucket_range(i, &lo, &hi);
			mid = lo + (hi - lo) / 2;
			/* The exact extremes are known: never report beyond. */
			if (mid < h->min)
				mid = h->min;
			if (mid > h->max)
				mid = h->max;
			return mid;
		}
	}
	return h->max;
}

double rpl_hist_mean(const struct rpl_hist *h)
{
	return h->count ? h->sum / (double)h->count : 0;
}

double rpl_hist_stddev(const struct rpl_hist *h)
{
	double m, var;

	if (h->count < 2)
		return 0;
	m = h->sum / (double)h->count;
	var = h->sumsq / (double)h->count - m * m;
	return var > 0 ? sqrt(var) : 0;
}

void rpl_hist_summary(const struct rpl_hist *h, struct rpl_pcts *p)
{
	memset(p, 0, sizeof(*p));
	p->count = h->count;
	if (!h->count)
		return;
	p->min = h->min;
	p->max = h->max;
	p->mean = rpl_hist_mean(h);
	p->stddev = rpl_hist_stddev(h);
	p->p50 = rpl_hist_quantile(h, 0.50);
	p->p90 = rpl_hist_quantile(h, 0.90);
	p->p99 = rpl_hist_quantile(h, 0.99);
	p->p999 = rpl_hist_quantile(h, 0.999);
	p->p9999 = rpl_hist_quantile(h, 0.9999);
}
