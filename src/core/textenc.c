/* SPDX-License-Identifier: MIT */
/* textenc.c - strings of arbitrary bytes in JSON and XML text: escaped, invalid UTF-8 replaced. */
#include "config.h"

#include <string.h>

#include "core/textenc.h"

size_t istint_utf8_len(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	/* RFC 3629's table: the second byte's range rules out overlong
	 * forms (E0, F0), surrogates (ED) and code points past U+10FFFF
	 * (F4); C0, C1 and F5..FF never begin a character */
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

int istint_json_put_str(FILE *f, const char *s)
{
	size_t n = strlen(s);

	putc('"', f);
	while (n) {
		unsigned char c = (unsigned char)*s;
		size_t k = istint_utf8_len(s, n);

		if (k == 0) {
			fputs("\\ufffd", f);
			k = 1;
		} else if (c == '"' || c == '\\') {
			putc('\\', f);
			putc(c, f);
		} else if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
		} else {
			fwrite(s, 1, k, f);
		}
		s += k;
		n -= k;
	}
	putc('"', f);
	return ferror(f) ? -1 : 0;
}

int istint_json_put_text(FILE *f, const char *js)
{
	size_t n = strlen(js);

	while (n) {
		size_t run = 0, k;

		/* runs of well-formed text in one write */
		while (run < n && (k = istint_utf8_len(js + run, n - run)))
			run += k;
		if (run)
			fwrite(js, 1, run, f);
		js += run;
		n -= run;
		if (n) {
			fputs("\\ufffd", f);
			js++;
			n--;
		}
	}
	return ferror(f) ? -1 : 0;
}

void istint_xml_put_str(FILE *f, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	while (n) {
		size_t k = istint_utf8_len(s, n);

		if (k == 0) {
			fputs("&#xFFFD;", f);
			k = 1;
		} else {
			switch (*s) {
			case '<': fputs("&lt;", f); break;
			case '>': fputs("&gt;", f); break;
			case '&': fputs("&amp;", f); break;
			case '"': fputs("&quot;", f); break;
			case '\'': fputs("&apos;", f); break;
			default:
				/* control characters are not allowed in XML 1.0 */
				if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
					putc('?', f);
				else
					fwrite(s, 1, k, f);
			}
		}
		s += k;
		n -= k;
	}
}
