/* SPDX-License-Identifier: MIT */
/* numfmt.h - fast integer formatting for the text writers (internal). */
#ifndef IST_CORE_NUMFMT_H
#define IST_CORE_NUMFMT_H

#include <stdint.h>
#include <string.h>

/* Writes v in decimal at p (no NUL); returns the number of digits. */
static inline int istint_u64toa(uint64_t v, char *p)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (int i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

#endif
