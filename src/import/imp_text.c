/* SPDX-License-Identifier: MIT */
/* imp_text.c - field splitting and number parsing shared by the text importers. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import/imp_text.h"

static inline int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

unsigned imp_split(char *line, size_t len, char delim, struct imp_fields *fl)
{
	char *p = line, *end = line + len;
	unsigned n = 0;

	if (delim == ' ') {
		for (;;) {
			char *s;

			while (p < end && is_blank(*p))
				p++;
			if (p == end)
				break;
			if (n == IMP_MAX_FIELDS) {
				fl->len[n - 1] = end - fl->f[n - 1];
				n++;
				break;
			}
			s = p;
			while (p < end && !is_blank(*p))
				p++;
			fl->f[n] = s;
			fl->len[n] = p - s;
			n++;
		}
		fl->n = n;
		return n;
	}
	for (;;) {
		char *s = p, *e;

		/* fields are short: a byte loop beats a memchr() call each */
		for (e = p; e < end && *e != delim; e++)
			;
		if (n == IMP_MAX_FIELDS) {
			fl->len[n - 1] = end - fl->f[n - 1];
			n++;
			break;
		}
		p = e;
		while (s < e && is_blank(*s))
			s++;
		while (e > s && is_blank(e[-1]))
			e--;
		fl->f[n] = s;
		fl->len[n] = e - s;
		n++;
		if (p == end)
			break;
		p++;
	}
	fl->n = n;
	return n;
}

int imp_i64(const char *s, size_t len, int64_t *v)
{
	uint64_t u;
	int neg = 0;

	if (len && s[0] == '-') {
		neg = 1;
		s++;
		len--;
	}
	if (imp_u64(s, len, &u))
		return -1;
	if (u > (uint64_t)INT64_MAX + neg)
		return -1;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}

int imp_hex(const char *s, size_t len, uint64_t *v)
{
	uint64_t x = 0;
	size_t i = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	if (i == len || len - i > 16)
		return -1;
	for (; i < len; i++) {
		int c = (unsigned char)s[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		x = x << 4 | d;
	}
	*v = x;
	return 0;
}

static const uint64_t pow10_tab[] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
	10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
	100000000000ull, 1000000000000ull,
};

int imp_fixed(const char *s, size_t len, unsigned digits, uint64_t *v)
{
	uint64_t ip = 0, fp = 0;
	size_t i = 0;
	unsigned nf = 0;
	int any = 0;

	if (digits > 12)
		return -1;
	if (len && s[0] == '+')
		i++;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = s[i] - '0';

		if (ip > (UINT64_MAX - d) / 10)
			return -1;
		ip = ip * 10 + d;
		any = 1;
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			any = 1;
			if (nf < digits) {
				fp = fp * 10 + (s[i] - '0');
				nf++;
			}
		}
	}
	if (!any)
		return -1;
	if (i < len) {
		/* exponent form: rare, take the slow path */
		char tmp[64], *end;
		double d;

		if (s[i] != 'e' && s[i] != 'E')
			return -1;
		if (len >= sizeof(tmp))
			return -1;
		memcpy(tmp, s, len);
		tmp[len] = '\0';
		errno = 0;
		d = strtod(tmp, &end);
		if (errno || *end || !(d >= 0))
			return -1;
		d *= (double)pow10_tab[digits];
		if (d >= 1.8e19)
			return -1;
		*v = (uint64_t)d;
		return 0;
	}
	if (ip > UINT64_MAX / pow10_tab[digits])
		return -1;
	ip *= pow10_tab[digits];
	fp *= pow10_tab[digits - nf];
	if (ip > UINT64_MAX - fp)
		return -1;
	*v = ip + fp;
	return 0;
}

int imp_word_eq(const char *s, size_t len, const char *word)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!word[i] || tolower((unsigned char)s[i]) !=
					tolower((unsigned char)word[i]))
			return 0;
	return word[i] == '\0';
}

const char *imp_quote(const char *s, size_t len, char *buf, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 4 < size; i++) {
		unsigned char c = s[i];

		buf[o++] = isprint(c) ? c : '?';
	}
	if (len && o + 4 >= size && o >= 3) {
		buf[o - 3] = buf[o - 2] = buf[o - 1] = '.';
	}
	buf[o] = '\0';
	return buf;
}

int imp_blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!is_blank(s[i]))
			return 0;
	return 1;
}
