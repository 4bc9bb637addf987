/* SPDX-License-Identifier: MIT */
/* csv.c - canonical CSV files: header comments (metadata, devices), header row, streaming record reader. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iostorm.h"

/*
 * A canonical CSV file is
 *     # meta: KEY=VALUE              (zero or more, in header order)
 *     # device: N size=S block_size=B name=NAME   (N = 0, 1, ... in order)
 *     t_ns,dev,op,offset,len,lat_ns,stream,txn,flags
 *     one line per record
 * KEY, VALUE and NAME escape '\' as "\\" and control bytes as "\xHH"; KEY
 * also escapes '=' (as "\x3d").  Other lines starting with '#' are
 * comments and are ignored.
 */

#define LINE_MAX_BYTES 65536
#define READ_BUF (1u << 20)
#define CSV_WHY 160 /* bytes of a reason */

struct ist_csv_reader {
	FILE *f;
	char *buf;          /* READ_BUF bytes of input */
	size_t len, pos;    /* valid bytes, next unread byte */
	int eof;
	uint64_t line;      /* number of the last line taken */
	ist_header *h;
	int begun;
	int pending;        /* error to report on the next read */
	char detail[CSV_WHY];
};

/* ---- escaping */

static int put_escaped(FILE *f, const char *s, int escape_eq)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\') {
			if (fputs("\\\\", f) == EOF)
				return -1;
		} else if (c < 0x20 || c == 0x7f || (escape_eq && c == '=')) {
			if (fprintf(f, "\\x%02x", c) < 0)
				return -1;
		} else if (putc(c, f) == EOF) {
			return -1;
		}
	}
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Unescapes [s, s + n) into a new string; NULL on a bad escape (errno
 * EINVAL) or no memory. */
static char *unescape(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			*o++ = s[i];
			continue;
		}
		if (i + 1 < n && s[i + 1] == '\\') {
			*o++ = '\\';
			i++;
		} else if (i + 3 < n && s[i + 1] == 'x' && hexval(s[i + 2]) >= 0 &&
			   hexval(s[i + 3]) >= 0 &&
			   (hexval(s[i + 2]) | hexval(s[i + 3]))) {
			*o++ = (char)(hexval(s[i + 2]) * 16 + hexval(s[i + 3]));
			i += 3;
		} else {
			free(out);
			errno = EINVAL;
			return NULL;
		}
	}
	*o = 0;
	return out;
}

int ist_csv_write_header(FILE *f, const ist_header *h)
{
	if (h) {
		for (unsigned i = 0; i < ist_header_meta_count(h); i++) {
			const char *k, *v;

			ist_header_meta_at(h, i, &k, &v);
			if (fputs("# meta: ", f) == EOF || put_escaped(f, k, 1) ||
			    putc('=', f) == EOF || put_escaped(f, v, 0) ||
			    putc('\n', f) == EOF)
				return -EIO;
		}
		for (unsigned i = 0; i < ist_header_device_count(h); i++) {
			const struct ist_device *d = ist_header_device(h, i);

			if (fprintf(f, "# device: %u size=%" PRIu64 " block_size=%" PRIu32
				    " name=", i, d->size, d->block_size) < 0 ||
			    put_escaped(f, d->name, 0) || putc('\n', f) == EOF)
				return -EIO;
		}
	}
	if (fputs(IST_CSV_HEADER "\n", f) == EOF)
		return -EIO;
	return 0;
}

/* ---- reader */

ist_csv_reader *ist_csv_reader_new(FILE *f)
{
	ist_csv_reader *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->buf = malloc(READ_BUF);
	c->h = ist_header_new();
	if (!c->buf || !c->h) {
		ist_csv_reader_free(c);
		return NULL;
	}
	c->f = f;
	return c;
}

void ist_csv_reader_free(ist_csv_reader *c)
{
	if (!c)
		return;
	free(c->buf);
	ist_header_free(c->h);
	free(c);
}

uint64_t ist_csv_reader_line(const ist_csv_reader *c)
{
	return c->line;
}

const char *ist_csv_reader_detail(const ist_csv_reader *c)
{
	return c->detail;
}

const ist_header *ist_csv_reader_header(const ist_csv_reader *c)
{
	return c->h;
}

/* why: a CSV_WHY-byte buffer for the reason */
static int fail(char *why, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *why, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, CSV_WHY, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * Takes the next line (without its '\n' or "\r\n") in *line, *len; returns
 * 1, 0 at the end of input, or a negative error.
 */
static int next_line(ist_csv_reader *c, const char **line, size_t *len)
{
	for (;;) {
		char *s = c->buf + c->pos, *nl;
		size_t avail = c->len - c->pos;

		nl = memchr(s, '\n', avail);
		if (nl || (c->eof && avail)) {
			size_t n = nl ? (size_t)(nl - s) : avail;

			c->pos += nl ? n + 1 : n;
			c->line++;
			if (n > LINE_MAX_BYTES)
				return fail(c->detail, IST_EPARSE, "line too long");
			if (n && s[n - 1] == '\r')
				n--;
			if (memchr(s, 0, n))
				return fail(c->detail, IST_EPARSE, "NUL byte in line");
			*line = s;
			*len = n;
			return 1;
		}
		if (c->eof)
			return 0;
		if (avail > LINE_MAX_BYTES) {
			c->line++;
			return fail(c->detail, IST_EPARSE, "line too long");
		}
		memmove(c->buf, s, avail);
		c->len = avail;
		c->pos = 0;
		{
			size_t n = fread(c->buf + c->len, 1, READ_BUF - c->len, c->f);

			c->len += n;
			if (n == 0) {
				if (ferror(c->f))
					return fail(c->detail, -EIO, "read error");
				c->eof = 1;
			}
		}
	}
}

static int parse_meta(ist_header *h, char *why, const char *s, size_t n)
{
	const char *eq = memchr(s, '=', n);
	char *k, *v;
	int ret;

	if (!eq || eq == s)
		return fail(why, IST_EPARSE, "'# meta:' line needs KEY=VALUE");
	k = unescape(s, (size_t)(eq - s));
	v = k ? unescape(eq + 1, n - (size_t)(eq - s) - 1) : NULL;
	if (!k || !v) {
		free(k);
		if (errno == ENOMEM)
			return fail(why, -ENOMEM, "out of memory");
		return fail(why, IST_EPARSE, "bad escape in '# meta:' line");
	}
	if (ist_header_get(h, k))
		ret = fail(why, IST_EPARSE, "metadata key '%.40s' given twice", k);
	else
		ret = ist_header_set(h, k, v);
	free(k);
	free(v);
	return ret;
}

/* Parses "NAME=<u64>" at *pp (followed by a space); advances *pp. */
static int parse_kv_u64(const char **pp, const char *end, const char *name,
			uint64_t max, uint64_t *v)
{
	size_t nl = strlen(name);
	const char *p = *pp;
	uint64_t x = 0;

	if ((size_t)(end - p) < nl + 1 || memcmp(p, name, nl) || p[nl] != '=')
		return -1;
	p += nl + 1;
	if (p == end || *p < '0' || *p > '9')
		return -1;
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
		p++;
	}
	if (x > max || p == end || *p != ' ')
		return -1;
	*v = x;
	*pp = p + 1;
	return 0;
}

static int parse_device(ist_header *h, char *why, const char *s, size_t n)
{
	const char *p = s, *end = s + n;
	uint64_t idx = 0, size, bs;
	char *name;
	int ret;

	while (p < end && *p >= '0' && *p <= '9' && idx < UINT32_MAX)
		idx = idx * 10 + (uint64_t)(*p++ - '0');
	if (p == s || p == end || *p != ' ')
		return fail(why, IST_EPARSE, "'# device:' line needs an index");
	p++;
	if (idx != ist_header_device_count(h))
		return fail(why, IST_EPARSE, "device %" PRIu64 " out of order (expected %u)",
			    idx, ist_header_device_count(h));
	if (parse_kv_u64(&p, end, "size", UINT64_MAX, &size) ||
	    parse_kv_u64(&p, end, "block_size", UINT32_MAX, &bs) ||
	    (size_t)(end - p) < 5 || memcmp(p, "name=", 5))
		return fail(why, IST_EPARSE,
			    "'# device:' line must read 'N size=S block_size=B name=NAME'");
	p += 5;
	name = unescape(p, (size_t)(end - p));
	if (!name)
		return errno == ENOMEM ? fail(why, -ENOMEM, "out of memory")
				       : fail(why, IST_EPARSE, "bad escape in device name");
	ret = ist_header_add_device(h, name, size, (uint32_t)bs);
	free(name);
	if (ret < 0)
		return fail(why, ret, "cannot add device: %s", ist_strerror(ret));
	return 0;
}

/*
 * One line of the part before the header row.  Shared with the ist-csv
 * importer (src/import/fmt_misc.c), which reads its lines from its own
 * (possibly decompressed) stream: both read the same files the same way.
 */
int ist_csv_preamble_line(ist_header *h, const char *s, size_t n, char *why,
			  size_t size)
{
	char d[CSV_WHY] = "";
	int ret;

	if (n >= 8 && !memcmp(s, "# meta: ", 8)) {
		ret = parse_meta(h, d, s + 8, n - 8);
	} else if (n >= 10 && !memcmp(s, "# device: ", 10)) {
		ret = parse_device(h, d, s + 10, n - 10);
	} else if (n && s[0] == '#') {
		ret = 0; /* a comment */
	} else if (n == strlen(IST_CSV_HEADER) &&
		   !memcmp(s, IST_CSV_HEADER, n)) {
		ret = 1;
	} else {
		ret = fail(d, IST_EPARSE, "expected the header row '%s'",
			   IST_CSV_HEADER);
	}
	if (ret < 0 && size)
		snprintf(why, size, "%s", d);
	return ret;
}

int ist_csv_reader_begin(ist_csv_reader *c)
{
	const char *s;
	size_t n;
	int ret;

	if (c->begun)
		return 0;
	for (;;) {
		ret = next_line(c, &s, &n);
		if (ret < 0)
			return ret;
		if (ret == 0)
			return fail(c->detail, IST_EPARSE, "no header row '%s'",
				    IST_CSV_HEADER);
		ret = ist_csv_preamble_line(c->h, s, n, c->detail,
					    sizeof(c->detail));
		if (ret < 0)
			return ret;
		if (ret == 1) {
			c->begun = 1;
			return 0;
		}
	}
}

static const char *const field_names[] = {
	"t_ns", "dev", "op", "offset", "len", "lat_ns", "stream", "txn", "flags",
};

/* Explains why ist_csv_parse() rejected a line. */
static int diagnose(char *why, const char *s, size_t n, int err)
{
	const char *f[9], *p = s, *end = s + n, *q = NULL;
	size_t fl[9];
	unsigned nf = 0;

	while (nf < 9) {
		q = memchr(p, ',', (size_t)(end - p));
		f[nf] = p;
		fl[nf] = q ? (size_t)(q - p) : (size_t)(end - p);
		nf++;
		if (!q)
			break;
		p = q + 1;
	}
	if (nf < 9 || q) /* too few, or a comma after the ninth */
		return fail(why, IST_EPARSE, "expected 9 fields (%s)", IST_CSV_HEADER);
	if (n == 0)
		return fail(why, IST_EPARSE, "empty line");
	for (unsigned i = 0; i < 9; i++) {
		int len = fl[i] > 40 ? 40 : (int)fl[i];

		if (i == 2) {
			if (ist_op_parse(f[i], fl[i]) < 0)
				return fail(why, IST_EPARSE, "field op: unknown op '%.*s'",
					    len, f[i]);
		} else if (i == 8) {
			if (ist_flags_parse(f[i], fl[i]) < 0)
				return fail(why, IST_EPARSE,
					    "field flags: unknown flags '%.*s'", len, f[i]);
		} else {
			if (fl[i] == 0)
				return fail(why, IST_EPARSE, "field %s: empty", field_names[i]);
			for (size_t k = 0; k < fl[i]; k++)
				if (f[i][k] < '0' || f[i][k] > '9')
					return fail(why, IST_EPARSE,
						    "field %s: not a number '%.*s'",
						    field_names[i], len, f[i]);
			if ((i == 1 || i == 4) ? fl[i] > 10 : fl[i] > 20)
				goto range;
			{
				uint64_t v = 0;
				int over = 0;

				for (size_t k = 0; k < fl[i]; k++) {
					unsigned d = (unsigned)(f[i][k] - '0');

					if (v > (UINT64_MAX - d) / 10)
						over = 1;
					v = v * 10 + d;
				}
				if (over || ((i == 1 || i == 4) && v > UINT32_MAX))
					goto range;
			}
			continue;
range:
			return fail(why, IST_ERANGE, "field %s: out of range '%.*s'",
				    field_names[i], len, f[i]);
		}
	}
	return fail(why, err, "%s", ist_strerror(err));
}

int ist_csv_record_line(const char *s, size_t n, struct ist_record *rec,
			char *why, size_t size)
{
	char d[CSV_WHY];
	int ret = ist_csv_parse(s, n, rec);

	if (ret) {
		ret = diagnose(d, s, n, ret);
		if (size)
			snprintf(why, size, "%s", d);
	}
	return ret;
}

ssize_t ist_csv_reader_read(ist_csv_reader *c, struct ist_record *recs,
			    size_t max)
{
	size_t k = 0;
	int ret;

	if (c->pending)
		return c->pending; /* sticky: the input cannot be resumed */
	if (!c->begun) {
		ret = ist_csv_reader_begin(c);
		if (ret)
			return c->pending = ret;
	}
	while (k < max) {
		const char *s;
		size_t n;

		ret = next_line(c, &s, &n);
		if (ret == 0)
			break;
		if (ret > 0 && n && s[0] == '#')
			continue;
		if (ret > 0)
			ret = ist_csv_record_line(s, n, &recs[k], c->detail,
						  sizeof(c->detail));
		if (ret < 0) {
			/* hand out what parsed; the error comes next call,
			 * and ist_csv_reader_line() still names its line */
			c->pending = ret;
			return k ? (ssize_t)k : ret;
		}
		k++;
	}
	return (ssize_t)k;
}
