/* SPDX-License-Identifier: MIT */
/* fmt_fio.c - importer for fio iolog version 2 (with wait) and version 3 (timestamps). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "import/imp_text.h"
#include "import/import.h"

struct fio_state {
	int version;
	int64_t t_ns;  /* v2: sum of waits so far */
	int64_t last_t;
};

static int fio_probe(const char *buf, size_t len)
{
	char line[64];

	if (imp_first_line(buf, len, line, sizeof(line), 0) < 0)
		return 0;
	if (!strcmp(line, "fio version 2 iolog") ||
	    !strcmp(line, "fio version 3 iolog"))
		return 100;
	return 0;
}

static int fio_open(struct imp_ctx *c, void *priv)
{
	struct fio_state *st = priv;
	char *line, q[48];
	size_t len;
	int ret;

	ret = imp_next_line(c, &line, &len);
	if (ret < 0)
		return ret;
	if (ret == 0)
		return imp_bad(c, "empty file (expected 'fio version 2 iolog' or 'fio version 3 iolog')");
	if (!strcmp(line, "fio version 2 iolog"))
		st->version = 2;
	else if (!strcmp(line, "fio version 3 iolog"))
		st->version = 3;
	else
		return imp_bad(c, "not a fio iolog v2/v3 header: '%s'",
			       imp_quote(line, len, q, sizeof(q)));
	return imp_meta(c, "fio_iolog_version", st->version == 2 ? "2" : "3");
}

static int fio_next(struct imp_ctx *c, void *priv, struct ist_record *rec)
{
	struct fio_state *st = priv;
	struct imp_fields fl;
	unsigned a, nf;
	uint64_t ts, off, len;
	char *line, q[48];
	size_t n;
	int ret, dev;

	for (;;) {
		ret = imp_next_line(c, &line, &n);
		if (ret <= 0)
			return ret;
		nf = imp_split(line, n, ' ', &fl);
		a = st->version == 3 ? 2 : 1;
		if (nf != a + 1 && nf != a + 3)
			return imp_bad(c, "expected %s, got %u fields",
				       st->version == 3 ?
				       "'timestamp file action [offset length]'" :
				       "'file action [offset length]'", nf);
		if (st->version == 3) {
			if ((ret = imp_field_u64(c, &fl, 0, "timestamp", &ts)) ||
			    (ret = imp_time(c, ts, 1000, &(int64_t){ 0 })))
				return ret;
			st->t_ns = (int64_t)ts * 1000;
		}
		if (imp_word_eq(fl.f[a], fl.len[a], "wait")) {
			if (st->version == 3)
				return imp_bad(c, "'wait' is not allowed in a version 3 iolog");
			if (nf < 3)
				return imp_bad(c, "'wait' needs a time in microseconds");
			if ((ret = imp_field_u64(c, &fl, 2, "wait time", &ts)) ||
			    (ret = imp_time(c, ts, 1000, &(int64_t){ 0 })))
				return ret;
			if (st->t_ns > INT64_MAX - (int64_t)ts * 1000)
				return imp_bad(c, "time overflows");
			st->t_ns += (int64_t)ts * 1000;
			imp_stat(c, "waits", 1);
			continue;
		}
		dev = imp_device(c, fl.f[a - 1], fl.len[a - 1]);
		if (dev < 0)
			return dev;
		if (nf == a + 1) {
			if (imp_word_eq(fl.f[a], fl.len[a], "add") ||
			    imp_word_eq(fl.f[a], fl.len[a], "open") ||
			    imp_word_eq(fl.f[a], fl.len[a], "close")) {
				imp_stat(c, "file_actions", 1);
				continue;
			}
			if (imp_word_eq(fl.f[a], fl.len[a], "sync") ||
			    imp_word_eq(fl.f[a], fl.len[a], "datasync")) {
				rec->op = IST_OP_FLUSH;
				goto emit;
			}
			return imp_bad(c, "unknown file action '%s' (expected add, open or close)",
				       imp_quote(fl.f[a], fl.len[a], q, sizeof(q)));
		}
		if ((ret = imp_field_u64(c, &fl, a + 1, "offset", &off)) ||
		    (ret = imp_field_u64(c, &fl, a + 2, "length", &len)))
			return ret;
		if (imp_word_eq(fl.f[a], fl.len[a], "read"))
			rec->op = IST_OP_READ;
		else if (imp_word_eq(fl.f[a], fl.len[a], "write"))
			rec->op = IST_OP_WRITE;
		else if (imp_word_eq(fl.f[a], fl.len[a], "trim"))
			rec->op = IST_OP_DISCARD;
		else if (imp_word_eq(fl.f[a], fl.len[a], "sync") ||
			 imp_word_eq(fl.f[a], fl.len[a], "datasync")) {
			rec->op = IST_OP_FLUSH;
			off = len = 0;
		} else
			return imp_bad(c, "unknown action '%s' (expected read, write, trim, sync, datasync%s)",
				       imp_quote(fl.f[a], fl.len[a], q, sizeof(q)),
				       st->version == 2 ? " or wait" : "");
		rec->offset = off;
		if ((ret = imp_set_len(c, rec, len)))
			return ret;
emit:
		rec->dev = dev;
		imp_set_t(rec, st->t_ns);
		return 1;
	}
}

const struct imp_format imp_fmt_fio = {
	.name = "fio",
	.description = "fio iolog version 2 (with wait) or 3 (timestamps in us); files become devices",
	.time_unit = "us",
	.time_epoch = "trace",
	.probe = fio_probe,
	.priv_size = sizeof(struct fio_state),
	.open = fio_open,
	.next = fio_next,
};
