/* SPDX-License-Identifier: MIT */
/* fmt_csv.c - generic delimited-text importer (libcsv) driven by a column map. */
#include "config.h"

#include <csv.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/imp_text.h"
#include "import/import.h"

/*
 * Column map grammar (documented in iostorm-import(1)):
 *   MAP   := ITEM { ',' ITEM }
 *   ITEM  := KEY '=' COLUMN [ ':' UNIT ]
 *   KEY   := t | dev | op | offset | len | lat | stream | txn
 *   COLUMN:= 1-based field number
 *   UNIT  := for t, lat: s | ms | us | ns | 100ns   (default ns; decimals ok)
 *            for offset, len: bytes | sectors | kib | a byte multiplier
 *            for op: TOKENS = READ '/' WRITE [ '/' FLUSH [ '/' DISCARD ] ]
 * t, offset and len are required; without dev every record goes to one
 * device (--device, default "csv0"); without op every record is a read.
 */

enum { C_T, C_DEV, C_OP, C_OFF, C_LEN, C_LAT, C_STREAM, C_TXN, C_N };
static const char *const key_names[C_N] = {
	"t", "dev", "op", "offset", "len", "lat", "stream", "txn",
};

#define MAX_COLS 64
#define MAX_TOKENS 4

struct col {
	unsigned idx;          /* 0 = absent, else 1-based */
	uint64_t mul;          /* numeric multiplier */
	unsigned digits;       /* decimal digits kept (times) */
	unsigned ntok;
	char tok[MAX_TOKENS][24];
};

struct csv_state {
	struct csv_parser p;
	int p_init;
	struct col col[C_N];
	/* current row */
	char *buf;
	size_t buf_len, buf_cap;
	size_t off[MAX_COLS], len[MAX_COLS];
	unsigned nf;
	int overflow;
	int row_done;
	uint64_t rows;
	int in_header;
	int dev_single;
	char last_dev[64];
	size_t last_dev_len;
	int dev;
};

static int time_unit(const char *u, size_t n, struct col *c)
{
	static const struct { const char *name; uint64_t mul; unsigned digits; }
	units[] = {
		{ "s", 1, 9 }, { "ms", 1, 6 }, { "us", 1, 3 }, { "ns", 1, 0 },
		{ "100ns", 100, 0 },
	};

	for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (imp_word_eq(u, n, units[i].name)) {
			c->mul = units[i].mul;
			c->digits = units[i].digits;
			return 0;
		}
	return -1;
}

static int size_unit(const char *u, size_t n, struct col *c)
{
	uint64_t v;

	if (imp_word_eq(u, n, "bytes") || imp_word_eq(u, n, "b"))
		c->mul = 1;
	else if (imp_word_eq(u, n, "sectors"))
		c->mul = 512;
	else if (imp_word_eq(u, n, "kib") || imp_word_eq(u, n, "k"))
		c->mul = 1024;
	else if (!imp_u64(u, n, &v) && v > 0)
		c->mul = v;
	else
		return -1;
	return 0;
}

/* Parses the column map into st->col; 0 or -1 with a message in err. */
static int imp_csv_parse_columns(const char *spec, struct col *cols, char *err,
			  size_t errlen)
{
	const char *p = spec;

	memset(cols, 0, C_N * sizeof(*cols));
	while (*p) {
		const char *item = p, *end = strchr(p, ','), *eq, *colon;
		size_t ilen, klen;
		uint64_t idx;
		unsigned k;
		struct col *c;

		if (!end)
			end = p + strlen(p);
		ilen = end - item;
		eq = memchr(item, '=', ilen);
		if (!eq) {
			snprintf(err, errlen, "'%.*s': expected KEY=COLUMN[:UNIT]",
				 (int)ilen, item);
			return -1;
		}
		klen = eq - item;
		for (k = 0; k < C_N; k++)
			if (imp_word_eq(item, klen, key_names[k]))
				break;
		if (k == C_N) {
			snprintf(err, errlen, "unknown column key '%.*s' (t, dev, op, offset, len, lat, stream, txn)",
				 (int)klen, item);
			return -1;
		}
		c = &cols[k];
		colon = memchr(eq + 1, ':', end - eq - 1);
		if (imp_u64(eq + 1, (colon ? colon : end) - eq - 1, &idx) ||
		    idx == 0 || idx > MAX_COLS) {
			snprintf(err, errlen, "'%.*s': column must be 1..%d",
				 (int)ilen, item, MAX_COLS);
			return -1;
		}
		if (c->idx) {
			snprintf(err, errlen, "column key '%s' given twice",
				 key_names[k]);
			return -1;
		}
		c->idx = (unsigned)idx;
		c->mul = 1;
		if (k == C_T || k == C_LAT)
			c->digits = 0;
		if (colon) {
			const char *u = colon + 1;
			size_t ul = end - u;
			int bad = 0;

			if (k == C_T || k == C_LAT)
				bad = time_unit(u, ul, c);
			else if (k == C_OFF || k == C_LEN)
				bad = size_unit(u, ul, c);
			else if (k == C_OP) {
				const char *q = u;

				while (q <= end && c->ntok < MAX_TOKENS) {
					const char *s = memchr(q, '/', end - q);
					size_t tl = (s ? s : end) - q;

					if (tl == 0 || tl >= sizeof(c->tok[0])) {
						bad = 1;
						break;
					}
					memcpy(c->tok[c->ntok], q, tl);
					c->tok[c->ntok++][tl] = '\0';
					if (!s)
						break;
					q = s + 1;
				}
				if (c->ntok < 2)
					bad = 1;
			} else {
				bad = 1;
			}
			if (bad) {
				snprintf(err, errlen, "'%.*s': bad unit for %s",
					 (int)ilen, item, key_names[k]);
				return -1;
			}
		}
		p = *end ? end + 1 : end;
	}
	if (!cols[C_T].idx || !cols[C_OFF].idx || !cols[C_LEN].idx) {
		snprintf(err, errlen, "the column map needs t, offset and len");
		return -1;
	}
	return 0;
}

static void cb_field(void *s, size_t len, void *data)
{
	struct csv_state *st = data;

	if (st->nf >= MAX_COLS) {
		st->overflow = 1;
		return;
	}
	if (st->buf_len + len + 1 > st->buf_cap) {
		size_t cap = (st->buf_len + len + 1) * 2;
		char *n = realloc(st->buf, cap);

		if (!n) {
			st->overflow = 2;
			return;
		}
		st->buf = n;
		st->buf_cap = cap;
	}
	memcpy(st->buf + st->buf_len, s, len);
	st->off[st->nf] = st->buf_len;
	st->len[st->nf] = len;
	st->buf_len += len;
	st->buf[st->buf_len++] = '\0';
	st->nf++;
}

static void cb_row(int ch, void *data)
{
	struct csv_state *st = data;

	(void)ch;
	st->row_done = 1;
}

static int csv_open(struct imp_ctx *c, void *priv)
{
	struct csv_state *st = priv;
	const struct imp_options *o = imp_opts(c);
	char err[160];

	if (!o->columns)
		return imp_bad_file(c, imp_cur_path(c),
				    "the csv format needs --columns");
	if (imp_csv_parse_columns(o->columns, st->col, err, sizeof(err))) {
		/* the map is quoted in err: shown as the file's text is
		 * (imp_quote), a control character as '?', so that the error
		 * stays one line */
		for (char *p = err; *p; p++)
			if (!isprint((unsigned char)*p))
				*p = '?';
		return imp_bad_file(c, imp_cur_path(c), "--columns: %s", err);
	}
	if (o->device && st->col[C_DEV].idx)
		/* the dev column names the devices: it would be ignored */
		return imp_bad_file(c, imp_cur_path(c),
				    "--device does not apply to a column map with dev");
	if (csv_init(&st->p, CSV_APPEND_NULL) != 0)
		return -ENOMEM;
	st->p_init = 1;
	csv_set_delim(&st->p, o->delimiter ? o->delimiter : ',');
	csv_set_quote(&st->p, o->quote ? o->quote : '"');
	st->in_header = 1;
	st->dev = -1;
	if (!st->col[C_DEV].idx) {
		const char *d = o->device ? o->device : "csv0";

		st->dev = imp_device(c, d, strlen(d));
		if (st->dev < 0)
			return st->dev;
		st->dev_single = 1;
	}
	return imp_meta(c, "csv_columns", o->columns);
}

static const char *fld(struct csv_state *st, unsigned idx, size_t *len)
{
	*len = st->len[idx - 1];
	return st->buf + st->off[idx - 1];
}

static int num_field(struct imp_ctx *c, struct csv_state *st, unsigned k,
		     uint64_t *v)
{
	struct col *col = &st->col[k];
	size_t len;
	const char *s = fld(st, col->idx, &len);
	char q[48];

	if (imp_fixed(s, len, col->digits, v))
		return imp_bad(c, "column %u (%s): bad number '%s'", col->idx,
			       key_names[k], imp_quote(s, len, q, sizeof(q)));
	if (col->mul > 1 && *v > UINT64_MAX / col->mul)
		return imp_bad(c, "column %u (%s): value out of range",
			       col->idx, key_names[k]);
	*v *= col->mul;
	return 0;
}

static int parse_op(struct imp_ctx *c, struct csv_state *st, uint8_t *op)
{
	struct col *col = &st->col[C_OP];
	size_t len;
	const char *s;
	char q[48];
	int r;

	if (!col->idx) {
		*op = IST_OP_READ;
		return 0;
	}
	s = fld(st, col->idx, &len);
	if (col->ntok) {
		for (unsigned i = 0; i < col->ntok; i++)
			if (imp_word_eq(s, len, col->tok[i])) {
				*op = i;
				return 0;
			}
	} else {
		if (imp_word_eq(s, len, "r"))
			r = IST_OP_READ;
		else if (imp_word_eq(s, len, "w"))
			r = IST_OP_WRITE;
		else
			r = ist_op_parse(s, len);
		if (r >= 0) {
			*op = r;
			return 0;
		}
	}
	return imp_bad(c, "column %u (op): unknown operation '%s'", col->idx,
		       imp_quote(s, len, q, sizeof(q)));
}

static int row_record(struct imp_ctx *c, struct csv_state *st,
		      struct ist_record *rec)
{
	uint64_t v;
	int ret;

	for (unsigned k = 0; k < C_N; k++)
		if (st->col[k].idx > st->nf)
			return imp_bad(c, "expected at least %u fields, got %u",
				       st->col[k].idx, st->nf);
	if ((ret = num_field(c, st, C_T, &v)))
		return ret;
	if (v > INT64_MAX)
		return imp_bad(c, "column %u (t): value out of range",
			       st->col[C_T].idx);
	imp_set_t(rec, (int64_t)v);
	if ((ret = num_field(c, st, C_OFF, &rec->offset)) ||
	    (ret = num_field(c, st, C_LEN, &v)) ||
	    (ret = imp_set_len(c, rec, v)) ||
	    (ret = parse_op(c, st, &rec->op)))
		return ret;
	if (st->col[C_LAT].idx && (ret = num_field(c, st, C_LAT, &rec->lat_ns)))
		return ret;
	if (st->col[C_STREAM].idx &&
	    (ret = num_field(c, st, C_STREAM, &rec->stream)))
		return ret;
	if (st->col[C_TXN].idx && (ret = num_field(c, st, C_TXN, &rec->txn)))
		return ret;
	if (st->dev_single) {
		rec->dev = st->dev;
	} else {
		size_t len;
		const char *s = fld(st, st->col[C_DEV].idx, &len);

		if (st->dev < 0 || len != st->last_dev_len ||
		    memcmp(s, st->last_dev, len)) {
			ret = imp_device(c, s, len);
			if (ret < 0)
				return ret;
			st->dev = ret;
			if (len < sizeof(st->last_dev)) {
				memcpy(st->last_dev, s, len);
				st->last_dev_len = len;
			} else {
				st->dev = -1;
			}
			rec->dev = ret;
		} else {
			rec->dev = st->dev;
		}
	}
	return 1;
}

/* A header row: the time column is not a number. */
static int header_row(struct csv_state *st)
{
	size_t len;
	const char *s;
	uint64_t v;

	if (st->col[C_T].idx > st->nf)
		return 1;
	s = fld(st, st->col[C_T].idx, &len);
	return imp_fixed(s, len, 0, &v) != 0;
}

static int csv_next(struct imp_ctx *c, void *priv, struct ist_record *rec)
{
	struct csv_state *st = priv;
	const struct imp_options *o = imp_opts(c);
	char *line;
	size_t n;
	int ret, eof = 0;

	for (;;) {
		st->nf = 0;
		st->buf_len = 0;
		st->overflow = 0;
		st->row_done = 0;
		while (!st->row_done) {
			ret = imp_stream_getline(imp_cur_stream(c), &line, &n);
			if (ret < 0)
				return imp_stream_fail(c, ret);
			if (ret == 0) {
				eof = 1;
				csv_fini(&st->p, cb_field, cb_row, st);
				if (!st->row_done)
					return 0;
				break;
			}
			if (imp_blank(line, n) && st->nf == 0)
				continue;
			line[n] = '\n'; /* the terminator getline removed */
			if (csv_parse(&st->p, line, n + 1, cb_field, cb_row, st) !=
			    n + 1)
				return imp_fatal(c, imp_bad(c, "%s",
							    csv_strerror(csv_error(&st->p))));
		}
		if (st->overflow == 2)
			return -ENOMEM;
		if (st->overflow)
			return imp_bad(c, "more than %d fields", MAX_COLS);
		st->rows++;
		if (st->in_header) {
			if (o->header_rows > 0 ? st->rows <= (uint64_t)o->header_rows :
			    o->header_rows < 0 && st->rows <= 16 && header_row(st)) {
				imp_stat(c, "header_rows", 1);
				if (eof)
					return 0;
				continue;
			}
			st->in_header = 0;
		}
		return row_record(c, st, rec);
	}
}

static void csv_close(struct imp_ctx *c, void *priv)
{
	struct csv_state *st = priv;

	(void)c;
	if (st->p_init)
		csv_free(&st->p);
	free(st->buf);
}

const struct imp_format imp_fmt_csv = {
	.name = "csv",
	.description = "any delimited text through libcsv, with --columns 't=1:us,dev=2,op=3:R/W,offset=4:sectors,len=5,lat=6:100ns'",
	.time_unit = "column map",
	.time_epoch = "trace",
	.flags = IMP_NO_PROBE | IMP_DEVICE_NAME,
	.priv_size = sizeof(struct csv_state),
	.open = csv_open,
	.next = csv_next,
	.close = csv_close,
};
