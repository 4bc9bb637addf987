/* SPDX-License-Identifier: MIT */
/* satmath.h - saturating time arithmetic (internal): times in ns made
 * from doubles (rates, scales) and their sums, where a conversion out of
 * range would be undefined and a sum could wrap. */
#ifndef IST_CORE_SATMATH_H
#define IST_CORE_SATMATH_H

#include <stdint.h>

/*
 * A time in ns from a double, saturated: 0 for a negative value or NaN,
 * UINT64_MAX from 2^64 up (a float-to-integer conversion out of range is
 * undefined).  A saturated time is past any duration.
 */
static inline uint64_t ist_ns_sat(double x)
{
	if (!(x > 0))
		return 0;
	if (x >= 18446744073709549568.0)	/* the largest double below 2^64 */
		return UINT64_MAX;
	return (uint64_t)x;
}

/* a + b, UINT64_MAX when it would wrap. */
static inline uint64_t ist_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

#endif
