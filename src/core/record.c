/* SPDX-License-Identifier: MIT */
/* record.c - op and flag names and the canonical CSV line of a record. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "iostorm.h"
#include "core/numfmt.h"

static const char *const op_names[IST_OP_COUNT] = {
	[IST_OP_READ] = "read",
	[IST_OP_WRITE] = "write",
	[IST_OP_FLUSH] = "flush",
	[IST_OP_DISCARD] = "discard",
	[IST_OP_WRITE_ZEROES] = "write_zeroes",
};

static const char *const flag_names[IST_F_COUNT] = {
	"sync", "fua", "meta", "preflush", "readahead", "commit", "dependent",
};

const char *ist_op_name(unsigned op)
{
	return op < IST_OP_COUNT ? op_names[op] : NULL;
}

int ist_op_parse(const char *name, size_t len)
{
	for (unsigned i = 0; i < IST_OP_COUNT; i++)
		if (strlen(op_names[i]) == len && !memcmp(op_names[i], name, len))
			return (int)i;
	return IST_EPARSE;
}

const char *ist_flag_name(unsigned flag)
{
	for (unsigned i = 0; i < IST_F_COUNT; i++)
		if (flag == (1u << i))
			return flag_names[i];
	return NULL;
}

int ist_flags_format(unsigned flags, char *buf, size_t size)
{
	size_t n = 0;

	if (size == 0)
		return IST_ERANGE;
	buf[0] = '\0';
	if (flags & ~IST_F_ALL)
		return IST_ERANGE;
	for (unsigned i = 0; i < IST_F_COUNT; i++) {
		size_t l;

		if (!(flags & (1u << i)))
			continue;
		l = strlen(flag_names[i]);
		if (n + l + (n ? 1 : 0) + 1 > size)
			return IST_ERANGE;
		if (n)
			buf[n++] = '|';
		memcpy(buf + n, flag_names[i], l);
		n += l;
		buf[n] = '\0';
	}
	return (int)n;
}

int ist_flags_parse(const char *s, size_t len)
{
	unsigned flags = 0;
	size_t i = 0;

	while (i < len) {
		size_t j = i;
		unsigned k;

		while (j < len && s[j] != '|')
			j++;
		for (k = 0; k < IST_F_COUNT; k++)
			if (strlen(flag_names[k]) == j - i &&
			    !memcmp(flag_names[k], s + i, j - i))
				break;
		if (k == IST_F_COUNT)
			return IST_EPARSE;
		flags |= 1u << k;
		if (j == len)
			break;
		i = j + 1;
		if (i == len) /* trailing '|' */
			return IST_EPARSE;
	}
	return (int)flags;
}

int ist_csv_format(const struct ist_record *rec, char *buf, size_t size)
{
	char tmp[IST_CSV_LINE_MAX];
	char *p = tmp;
	const char *op = ist_op_name(rec->op);
	int fl;

	if (!op)
		return IST_ERANGE;
	p += istint_u64toa(rec->t_ns, p);
	*p++ = ',';
	p += istint_u64toa(rec->dev, p);
	*p++ = ',';
	memcpy(p, op, strlen(op));
	p += strlen(op);
	*p++ = ',';
	p += istint_u64toa(rec->offset, p);
	*p++ = ',';
	p += istint_u64toa(rec->len, p);
	*p++ = ',';
	p += istint_u64toa(rec->lat_ns, p);
	*p++ = ',';
	p += istint_u64toa(rec->stream, p);
	*p++ = ',';
	p += istint_u64toa(rec->txn, p);
	*p++ = ',';
	fl = ist_flags_format(rec->flags, p, sizeof(tmp) - (size_t)(p - tmp) - 2);
	if (fl < 0)
		return fl;
	p += fl;
	*p++ = '\n';
	if ((size_t)(p - tmp) + 1 > size)
		return IST_ERANGE;
	memcpy(buf, tmp, (size_t)(p - tmp));
	buf[p - tmp] = '\0';
	return (int)(p - tmp);
}

/* Parses a decimal u64 field ending at ',' or end; advances *pp. */
static int parse_u64_field(const char **pp, const char *end, uint64_t max,
			   uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (p == end || *p < '0' || *p > '9')
		return IST_EPARSE;
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return IST_ERANGE;
		v = v * 10 + d;
		p++;
	}
	if (v > max)
		return IST_ERANGE;
	if (p < end && *p != ',')
		return IST_EPARSE;
	*out = v;
	*pp = p;
	return 0;
}

static int expect_comma(const char **pp, const char *end)
{
	if (*pp == end || **pp != ',')
		return IST_EPARSE;
	(*pp)++;
	return 0;
}

int ist_csv_parse(const char *line, size_t len, struct ist_record *rec)
{
	const char *p = line, *end = line + len, *q;
	uint64_t v;
	int ret;

	if (len && end[-1] == '\n')
		end--;
	if (end > p && end[-1] == '\r')
		end--;
	memset(rec, 0, sizeof(*rec));
	if ((ret = parse_u64_field(&p, end, UINT64_MAX, &rec->t_ns)) ||
	    (ret = expect_comma(&p, end)) ||
	    (ret = parse_u64_field(&p, end, UINT32_MAX, &v)) ||
	    (ret = expect_comma(&p, end)))
		return ret;
	rec->dev = (uint32_t)v;
	for (q = p; q < end && *q != ','; q++)
		;
	ret = ist_op_parse(p, (size_t)(q - p));
	if (ret < 0)
		return ret;
	rec->op = (uint8_t)ret;
	p = q;
	if ((ret = expect_comma(&p, end)) ||
	    (ret = parse_u64_field(&p, end, UINT64_MAX, &rec->offset)) ||
	    (ret = expect_comma(&p, end)) ||
	    (ret = parse_u64_field(&p, end, UINT32_MAX, &v)) ||
	    (ret = expect_comma(&p, end)))
		return ret;
	rec->len = (uint32_t)v;
	if ((ret = parse_u64_field(&p, end, UINT64_MAX, &rec->lat_ns)) ||
	    (ret = expect_comma(&p, end)) ||
	    (ret = parse_u64_field(&p, end, UINT64_MAX, &rec->stream)) ||
	    (ret = expect_comma(&p, end)) ||
	    (ret = parse_u64_field(&p, end, UINT64_MAX, &rec->txn)) ||
	    (ret = expect_comma(&p, end)))
		return ret;
	ret = ist_flags_parse(p, (size_t)(end - p));
	if (ret < 0)
		return ret;
	rec->flags = (uint16_t)ret;
	return 0;
}
