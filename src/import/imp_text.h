/* SPDX-License-Identifier: MIT */
/* imp_text.h - fast field splitting and strict number parsing for text importers. */
#ifndef IST_IMP_TEXT_H
#define IST_IMP_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define IMP_MAX_FIELDS 32

struct imp_fields {
	unsigned n;
	char *f[IMP_MAX_FIELDS];
	size_t len[IMP_MAX_FIELDS];
};

/*
 * Splits line at delim (' ' means runs of blanks, leading and trailing
 * blanks ignored); other delimiters keep empty fields and strip blanks
 * around each field.  Fields are not NUL-terminated.  Returns the number
 * of fields, at most IMP_MAX_FIELDS (more is reported as IMP_MAX_FIELDS+1
 * with the rest in the last field).
 */
unsigned imp_split(char *line, size_t len, char delim, struct imp_fields *fl);

/* Strict unsigned decimal (optional leading '+'); 0 or -1 (empty, junk,
 * overflow). */
static inline int imp_u64(const char *s, size_t len, uint64_t *v)
{
	uint64_t x = 0;
	size_t i = 0, stop;

	if (len && s[0] == '+')
		i++;
	if (i == len || len - i > 20)
		return -1;
	/* 19 digits cannot overflow: only a 20th is checked */
	stop = len - i == 20 ? len - 1 : len;
	for (; i < stop; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -1;
		x = x * 10 + d;
	}
	if (i < len) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

/* Signed decimal; 0 or -1. */
int imp_i64(const char *s, size_t len, int64_t *v);
/* Hexadecimal with optional 0x; 0 or -1. */
int imp_hex(const char *s, size_t len, uint64_t *v);
/*
 * Non-negative decimal fraction "123.456" (or an exponent form) scaled by
 * 10^digits and truncated: imp_fixed("1.5", 3, 9, &v) gives 1500000000
 * for digits 9.  0 or -1 (junk, negative, overflow).
 */
int imp_fixed(const char *s, size_t len, unsigned digits, uint64_t *v);

/* Length-bounded case-insensitive equality with a NUL-terminated word. */
int imp_word_eq(const char *s, size_t len, const char *word);

/* Copies a field into a NUL-terminated, printable, truncated string for an
 * error message. */
const char *imp_quote(const char *s, size_t len, char *buf, size_t size);

/* True if the line is empty or only blanks. */
int imp_blank(const char *s, size_t len);

#endif
