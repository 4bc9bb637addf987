/* SPDX-License-Identifier: MIT */
/* data.c - write data patterns, generated once into a shared buffer pool. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/internal.h"

#define BLOCK 4096u
/* Writes take windows of the first half; the second half lets a write of
 * up to RPL_MAX_IO_LEN start anywhere in the first. */
#define POOL_WINDOW (8u << 20)

int rpl_data_parse(const char *s, enum rpl_data *data, unsigned *param)
{
	char *end;
	double v;

	*param = 0;
	if (!strcmp(s, "random")) {
		*data = RPL_DATA_RANDOM;
		return 0;
	}
	if (!strcmp(s, "zero")) {
		*data = RPL_DATA_ZERO;
		return 0;
	}
	if (!strcmp(s, "stamp")) {
		*data = RPL_DATA_STAMP;
		return 0;
	}
	if (!strncmp(s, "compress:", 9)) {
		/* in hundredths, as dedupe: 2.555 was rounded to 2.56;
		 * finer than 0.01 is refused */
		v = strtod(s + 9, &end);
		if (end == s + 9 || *end || !(v >= 1.0) || v > 1000 ||
		    fabs(v * 100 - round(v * 100)) > 1e-6)
			return -EINVAL;
		*data = RPL_DATA_COMPRESS;
		*param = (unsigned)round(v * 100);
		return 0;
	}
	if (!strncmp(s, "dedupe:", 7)) {
		/* in hundredths of a percent: 33.3 was rounded to 33 (and
		 * reported as 33); finer than 0.01 is refused rather than
		 * rounded in turn */
		v = strtod(s + 7, &end);
		if (end == s + 7 || *end || !(v >= 0) || v > 100 ||
		    fabs(v * 100 - round(v * 100)) > 1e-6)
			return -EINVAL;
		*data = RPL_DATA_DEDUPE;
		*param = (unsigned)round(v * 100);
		return 0;
	}
	return -EINVAL;
}

const char *rpl_data_format(enum rpl_data d, unsigned param, char *buf,
			    size_t size)
{
	switch (d) {
	case RPL_DATA_ZERO:
		snprintf(buf, size, "zero");
		break;
	case RPL_DATA_COMPRESS:
		snprintf(buf, size, "compress:%.2f", param / 100.0);
		break;
	case RPL_DATA_DEDUPE:
		/* as given: 50, 33.3, 33.33 */
		if (param % 100 == 0)
			snprintf(buf, size, "dedupe:%u", param / 100);
		else if (param % 10 == 0)
			snprintf(buf, size, "dedupe:%u.%u", param / 100, param % 100 / 10);
		else
			snprintf(buf, size, "dedupe:%u.%02u", param / 100, param % 100);
		break;
	case RPL_DATA_STAMP:
		snprintf(buf, size, "stamp");
		break;
	default:
		snprintf(buf, size, "random");
		break;
	}
	return buf;
}

static uint64_t next_rand(uint64_t *s)
{
	/* splitmix64: fast, good enough for incompressible data */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void fill_random(unsigned char *p, size_t n, uint64_t *s)
{
	uint64_t v;

	while (n >= 8) {
		v = next_rand(s);
		memcpy(p, &v, 8);
		p += 8;
		n -= 8;
	}
	if (n) {
		v = next_rand(s);
		memcpy(p, &v, n);
	}
}

static int trace_writes(const struct rpl_run *r)
{
	if (r->o.read_only || r->o.backend == RPL_BACKEND_NULL)
		return 0;
	if (!r->have_totals)
		return 1;
	return r->totals.count[IST_OP_WRITE] != 0;
}

int rpl_data_pool(struct rpl_run *r)
{
	uint64_t seed = r->o.seed ? r->o.seed : 0x1057034dull;
	size_t size = POOL_WINDOW + RPL_MAX_IO_LEN, nblk = size / BLOCK;
	unsigned char *p;
	void *mem;

	if (!trace_writes(r))
		return 0;
	if (posix_memalign(&mem, BLOCK, size))
		return -ENOMEM;
	p = mem;
	switch (r->o.data) {
	case RPL_DATA_ZERO:
	case RPL_DATA_STAMP:
		memset(p, 0, size);
		break;
	case RPL_DATA_COMPRESS: {
		/* Each block: 1/ratio random bytes, the rest zero. */
		size_t rnd = (size_t)(BLOCK * 100.0 / r->o.data_param);

		if (rnd > BLOCK)
			rnd = BLOCK;
		for (size_t b = 0; b < nblk; b++) {
			fill_random(p + b * BLOCK, rnd, &seed);
			memset(p + b * BLOCK + rnd, 0, BLOCK - rnd);
		}
		break;
	}
	case RPL_DATA_DEDUPE: {
		/* PCT% of the blocks repeat one of 16 common blocks, spread
		 * evenly (Bresenham, in hundredths of a percent) so that any
		 * write window sees the ratio, within one block. */
		unsigned acc = 0;

		fill_random(p, (size_t)16 * BLOCK, &seed);
		for (size_t b = 16; b < nblk; b++) {
			acc += r->o.data_param;
			if (acc >= 10000) {
				acc -= 10000;
				memcpy(p + b * BLOCK, p + (b % 16) * BLOCK, BLOCK);
			} else {
				fill_random(p + b * BLOCK, BLOCK, &seed);
			}
		}
		break;
	}
	default:
		fill_random(p, size, &seed);
		break;
	}
	r->pool = p;
	r->pool_size = size;
	return 0;
}

uint64_t rpl_data_next(struct rpl_worker *w, uint32_t len)
{
	uint64_t off = w->pool_cursor;
	uint64_t step = ((uint64_t)len + BLOCK - 1) / BLOCK * BLOCK;

	w->pool_cursor += step ? step : BLOCK;
	if (w->pool_cursor >= POOL_WINDOW)
		w->pool_cursor = 0;
	return off;
}

void rpl_data_stamp(unsigned char *buf, uint32_t len, uint64_t seq, uint64_t off)
{
	for (uint32_t i = 0; i + 512 <= len; i += 512) {
		uint64_t o = off + i;

		memcpy(buf + i, RPL_STAMP_MAGIC, 4);
		for (int k = 0; k < 8; k++) {
			buf[i + 4 + k] = (unsigned char)(seq >> (8 * k));
			buf[i + 12 + k] = (unsigned char)(o >> (8 * k));
		}
	}
}
