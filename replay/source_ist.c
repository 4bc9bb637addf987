/* SPDX-License-Identifier: MIT */
/* source_ist.c - the IST file record source (an ist_reader, footer totals). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/internal.h"

static ssize_t ist_src_read(struct rpl_source *s, struct ist_record *recs, size_t max)
{
	return ist_reader_read(s->priv, recs, max);
}

static int ist_src_rewind(struct rpl_source *s)
{
	return ist_reader_seek_chunk(s->priv, 0);
}

static int ist_src_seek(struct rpl_source *s, uint64_t t_ns)
{
	return ist_reader_seek_time(s->priv, t_ns);
}

static int ist_src_totals(struct rpl_source *s, struct ist_totals *t)
{
	const struct ist_totals *f = ist_reader_totals(s->priv);

	if (!f)
		return -ENOENT;
	*t = *f;
	t->dev_max_end = NULL;
	if (f->ndev) {
		t->dev_max_end = malloc(f->ndev * sizeof(uint64_t));
		if (!t->dev_max_end)
			return -ENOMEM;
		memcpy(t->dev_max_end, f->dev_max_end, f->ndev * sizeof(uint64_t));
	}
	return 0;
}

static void ist_src_where(struct rpl_source *s, char *buf, size_t size)
{
	struct ist_position pos;

	ist_reader_position(s->priv, &pos);
	snprintf(buf, size, "chunk %" PRIu64 " (byte offset %" PRIu64 ")",
		 pos.chunk, pos.byte_offset);
}

static void ist_src_close(struct rpl_source *s)
{
	ist_reader_close(s->priv);
	s->header = NULL; /* owned by the reader */
}

static const struct rpl_source_ops ist_ops = {
	.name = "ist",
	.read = ist_src_read,
	.rewind = ist_src_rewind,
	.seek_time = ist_src_seek,
	.totals = ist_src_totals,
	.where = ist_src_where,
	.close = ist_src_close,
};

int rpl_source_ist(struct rpl_source **sp, const char *path)
{
	struct rpl_source *s = calloc(1, sizeof(*s));
	ist_reader *r;
	int ret;

	*sp = NULL;
	if (!s)
		return -ENOMEM;
	ret = ist_reader_open(&r, path);
	if (ret < 0) {
		free(s);
		return ret;
	}
	s->ops = &ist_ops;
	s->priv = r;
	s->path = path;
	s->format = "ist";
	s->header = ist_reader_header(r);
	*sp = s;
	return 0;
}
