/* SPDX-License-Identifier: MIT */
/* source.c - record sources for the replay: in-memory array and canonical CSV. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/internal.h"

/* ------------------------------------------------------------ array */

struct array_src {
	const struct ist_record *recs;
	size_t n, pos;
};

static ssize_t array_read(struct rpl_source *s, struct ist_record *recs,
			  size_t max)
{
	struct array_src *a = s->priv;
	size_t n = a->n - a->pos;

	if (n > max)
		n = max;
	memcpy(recs, a->recs + a->pos, n * sizeof(*recs));
	a->pos += n;
	return (ssize_t)n;
}

static int array_rewind(struct rpl_source *s)
{
	((struct array_src *)s->priv)->pos = 0;
	return 0;
}

static int totals_copy(struct ist_totals *dst, const struct ist_totals *src)
{
	*dst = *src;
	dst->dev_max_end = NULL;
	if (src->ndev) {
		dst->dev_max_end = malloc(src->ndev * sizeof(uint64_t));
		if (!dst->dev_max_end)
			return -ENOMEM;
		memcpy(dst->dev_max_end, src->dev_max_end,
		       src->ndev * sizeof(uint64_t));
	}
	return 0;
}

/*
 * Totals of records without a footer (a CSV's pre-scan, an array) through
 * the IST writer's own accumulator: the same figures as the footer of
 * the IST of those records, distinct streams and (stream, txn) pairs
 * included (a count of its own left them 0).
 */
static int totals_scan_end(ist_totals_acc *acc, struct ist_totals *t)
{
	int ret = totals_copy(t, ist_totals_acc_get(acc));

	ist_totals_acc_free(acc);
	return ret;
}

static int array_totals(struct rpl_source *s, struct ist_totals *t)
{
	struct array_src *a = s->priv;
	ist_totals_acc *acc = ist_totals_acc_new();
	int ret;

	memset(t, 0, sizeof(*t));
	if (!acc)
		return -ENOMEM;
	ret = ist_totals_acc_add(acc, a->recs, a->n);
	if (ret < 0) {
		ist_totals_acc_free(acc);
		return ret;
	}
	return totals_scan_end(acc, t);
}

static void array_where(struct rpl_source *s, char *buf, size_t size)
{
	snprintf(buf, size, "record %zu", ((struct array_src *)s->priv)->pos);
}

static void array_close(struct rpl_source *s)
{
	free(s->priv);
}

static const struct rpl_source_ops array_ops = {
	.name = "array",
	.read = array_read,
	.rewind = array_rewind,
	.totals = array_totals,
	.where = array_where,
	.close = array_close,
};

int rpl_source_array(struct rpl_source **sp, const struct ist_record *recs,
		     size_t n, const ist_header *h)
{
	struct rpl_source *s = calloc(1, sizeof(*s));
	struct array_src *a = calloc(1, sizeof(*a));

	if (!s || !a)
		goto nomem;
	a->recs = recs;
	a->n = n;
	s->ops = &array_ops;
	s->priv = a;
	s->format = "array";
	s->header = h ? ist_header_dup(h) : ist_header_new();
	if (!s->header)
		goto nomem;
	*sp = s;
	return 0;
nomem:
	free(s);
	free(a);
	return -ENOMEM;
}

/* ------------------------------------------------------------ CSV */

/* The canonical CSV as convert and export write it: comment lines (the
 * trace header: metadata, devices), the header row, the records; read
 * through the library's reader, which names a bad line's field. */
struct csv_src {
	FILE *f;
	ist_csv_reader *rd;
	struct ist_totals totals;
	int have_totals;
	/* a small CSV's records, kept from the pre-scan: a looped replay
	 * (sweep, precondition) rewinds it without parsing it again */
	struct ist_record *cache;
	size_t ncache, pos;
};

/* Up to one IST chunk's worth of records (3.5 MiB) is kept in memory. */
#define CSV_CACHE_MAX 65536

static ssize_t csv_parse(struct csv_src *c, struct ist_record *recs,
			 size_t max)
{
	ssize_t n = ist_csv_reader_read(c->rd, recs, max);

	for (ssize_t i = 0; i < n; i++)
		if (recs[i].dev >= IST_MAX_FOOTER_DEVICES)
			return IST_EDEVICE;
	return n;
}

static ssize_t csv_read(struct rpl_source *s, struct ist_record *recs,
			size_t max)
{
	struct csv_src *c = s->priv;
	size_t n;

	if (!c->cache)
		return csv_parse(c, recs, max);
	n = c->ncache - c->pos;
	if (n > max)
		n = max;
	memcpy(recs, c->cache + c->pos, n * sizeof(*recs));
	c->pos += n;
	return (ssize_t)n;
}

/* A fresh reader at the start of the file, through the header row. */
static int csv_begin(struct csv_src *c)
{
	if (c->rd)
		ist_csv_reader_free(c->rd);
	c->rd = ist_csv_reader_new(c->f);
	if (!c->rd)
		return -ENOMEM;
	return ist_csv_reader_begin(c->rd);
}

static int csv_rewind(struct rpl_source *s)
{
	struct csv_src *c = s->priv;

	if (c->cache) {
		c->pos = 0;
		return 0;
	}
	if (fseek(c->f, 0, SEEK_SET))
		return -errno;
	return csv_begin(c);
}

static int csv_totals(struct rpl_source *s, struct ist_totals *t)
{
	struct csv_src *c = s->priv;

	if (!c->have_totals)
		return -ENOENT;
	return totals_copy(t, &c->totals);
}

static void csv_where(struct rpl_source *s, char *buf, size_t size)
{
	struct csv_src *c = s->priv;

	if (c->cache)
		snprintf(buf, size, "record %zu", c->pos);
	else
		snprintf(buf, size, "line %" PRIu64,
			 c->rd ? ist_csv_reader_line(c->rd) : 1);
}

static const char *csv_why(struct rpl_source *s)
{
	struct csv_src *c = s->priv;
	const char *d = c->rd ? ist_csv_reader_detail(c->rd) : NULL;

	return d && *d ? d : NULL;
}

static void csv_close(struct rpl_source *s)
{
	struct csv_src *c = s->priv;

	if (!c)
		return;
	ist_csv_reader_free(c->rd);
	if (c->f)
		fclose(c->f);
	ist_totals_release(&c->totals);
	free(c->cache);
	free(c);
}

static const struct rpl_source_ops csv_ops = {
	.name = "csv",
	.read = csv_read,
	.rewind = csv_rewind,
	.totals = csv_totals,
	.where = csv_where,
	.why = csv_why,
	.close = csv_close,
};

/*
 * One streaming pass for the totals (a CSV has no footer): strict remap
 * and the progress line need them before the replay starts.  A CSV of
 * at most CSV_CACHE_MAX records is kept from this pass, so that its
 * rewinds cost nothing: looping 3 records 2 us long over a 100 ms round
 * rewound the file 50000 times a round, each a new reader.
 */
static int csv_prescan(struct rpl_source *s)
{
	struct csv_src *c = s->priv;
	struct ist_record recs[256];
	ist_totals_acc *acc = ist_totals_acc_new();
	struct ist_record *cache = NULL;
	size_t ncache = 0, cap = 0;
	int keep = 1, ret = -ENOMEM;
	ssize_t n;

	memset(&c->totals, 0, sizeof(c->totals));
	if (!acc)
		return -ENOMEM;
	while ((n = csv_parse(c, recs, 256)) > 0) {
		ret = ist_totals_acc_add(acc, recs, (size_t)n);
		if (ret < 0)
			goto fail;
		if (!keep)
			continue;
		if (ncache + (size_t)n > CSV_CACHE_MAX) {
			free(cache);
			cache = NULL;
			keep = 0;
			continue;
		}
		if (ncache + (size_t)n > cap) {
			size_t ncap = cap ? cap * 4 : 1024;
			struct ist_record *p;

			if (ncap > CSV_CACHE_MAX)
				ncap = CSV_CACHE_MAX;
			p = realloc(cache, ncap * sizeof(*cache));
			if (!p) {
				ret = -ENOMEM;
				goto fail;
			}
			cache = p;
			cap = ncap;
		}
		memcpy(cache + ncache, recs, (size_t)n * sizeof(*recs));
		ncache += (size_t)n;
	}
	if (n < 0) {
		ret = (int)n;
		goto fail;
	}
	ret = totals_scan_end(acc, &c->totals);
	acc = NULL;
	if (ret < 0)
		goto fail;
	c->have_totals = 1;
	if (keep) {
		c->cache = cache ? cache : malloc(sizeof(*cache));
		if (!c->cache)
			return -ENOMEM;
		c->ncache = ncache;
		c->pos = 0;
		return 0;
	}
	return csv_rewind(s);
fail:
	ist_totals_acc_free(acc);
	free(cache);
	return ret;
}

int rpl_source_csv(struct rpl_source **sp, const char *path)
{
	struct rpl_source *s = calloc(1, sizeof(*s));
	struct csv_src *c = calloc(1, sizeof(*c));
	ist_header *h = NULL;
	char name[32];
	int ret = -ENOMEM;

	*sp = s;
	if (!s || !c)
		goto fail;
	s->ops = &csv_ops;
	s->priv = c;
	s->path = path;
	s->format = "csv";
	c->f = fopen(path, "r");
	if (!c->f) {
		ret = -errno;
		goto fail;
	}
	ret = csv_begin(c);
	if (ret == 0)
		ret = csv_prescan(s);
	if (ret < 0)
		return ret; /* *sp stays set: where() names the line, the caller closes */
	/* the comment lines' devices and metadata (a CSV of convert or
	 * export replays as its IST would), then devices the records use
	 * beyond them, sized by the records */
	h = ist_header_dup(ist_csv_reader_header(c->rd));
	if (!h) {
		ret = -ENOMEM;
		goto fail;
	}
	for (uint32_t d = ist_header_device_count(h); d < c->totals.ndev; d++) {
		snprintf(name, sizeof(name), "dev%u", d);
		ret = ist_header_add_device(h, name, c->totals.dev_max_end[d], 0);
		if (ret < 0)
			goto fail;
	}
	if (!ist_header_get(h, "source"))
		ist_header_set(h, "source", "csv");
	s->header = h;
	return 0;
fail:
	if (s) {
		s->header = h;
		rpl_source_close(s);
	} else {
		ist_header_free(h);
		free(c);
	}
	*sp = NULL;
	return ret;
}

void rpl_source_close(struct rpl_source *s)
{
	if (!s)
		return;
	if (s->ops && s->ops->close)
		s->ops->close(s);
	ist_header_free((ist_header *)s->header);
	free(s);
}

int rpl_source_open(struct rpl_source **sp, const char *path)
{
	char first[8] = { 0 };
	FILE *f = fopen(path, "r");
	size_t n;

	*sp = NULL;
	if (!f)
		return -errno;
	n = fread(first, 1, sizeof(first) - 1, f);
	fclose(f);
	/* a canonical CSV starts with its header row or a comment line (the
	 * trace header that convert and export write) */
	if ((n >= 5 && !memcmp(first, "t_ns,", 5)) || (n && first[0] == '#'))
		return rpl_source_csv(sp, path);
	return rpl_source_ist(sp, path);
}
