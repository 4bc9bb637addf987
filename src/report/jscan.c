/* SPDX-License-Identifier: MIT */
/* jscan.c - locating JSON values by scanning strings and nesting. */
#include "config.h"

#include <string.h>

#include "report/jscan.h"

size_t rpt_jscan_ws(const char *buf, size_t len, size_t pos)
{
	while (pos < len && (buf[pos] == ' ' || buf[pos] == '\n' || buf[pos] == '\t' ||
			     buf[pos] == '\r'))
		pos++;
	return pos;
}

/* Past the closing quote of the string opening at pos; 0 if unterminated. */
static size_t string_end(const char *buf, size_t len, size_t pos)
{
	for (pos++; pos < len; pos++) {
		if (buf[pos] == '\\')
			pos++;
		else if (buf[pos] == '"')
			return pos + 1;
	}
	return 0;
}

size_t rpt_jscan_value_end(const char *buf, size_t len, size_t pos)
{
	size_t depth = 0;

	if (pos >= len)
		return 0;
	if (buf[pos] == '"')
		return string_end(buf, len, pos);
	if (buf[pos] != '{' && buf[pos] != '[') {
		while (pos < len && !strchr(",]} \t\r\n", buf[pos]))
			pos++;
		return pos;
	}
	for (; pos < len; pos++) {
		switch (buf[pos]) {
		case '"':
			pos = string_end(buf, len, pos);
			if (!pos)
				return 0;
			pos--;
			break;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (--depth == 0)
				return pos + 1;
			break;
		default:
			break;
		}
	}
	return 0;
}

int rpt_jscan_member(const char *buf, size_t len, const char *key, size_t *vs,
		     size_t *ve)
{
	size_t klen = strlen(key), pos = rpt_jscan_ws(buf, len, 0);

	if (pos >= len || buf[pos] != '{')
		return -1;
	pos = rpt_jscan_ws(buf, len, pos + 1);
	while (pos < len && buf[pos] == '"') {
		size_t ks = pos + 1, kend = string_end(buf, len, pos), v, e;

		if (!kend)
			return -1;
		pos = rpt_jscan_ws(buf, len, kend);
		if (pos >= len || buf[pos] != ':')
			return -1;
		v = rpt_jscan_ws(buf, len, pos + 1);
		e = rpt_jscan_value_end(buf, len, v);
		if (!e || e == v)
			return -1;
		if (kend - 1 - ks == klen && !memcmp(buf + ks, key, klen)) {
			*vs = v;
			*ve = e;
			return 0;
		}
		pos = rpt_jscan_ws(buf, len, e);
		if (pos < len && buf[pos] == ',')
			pos = rpt_jscan_ws(buf, len, pos + 1);
		else
			return -1;
	}
	return -1;
}
