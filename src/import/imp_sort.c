/* SPDX-License-Identifier: MIT */
/* imp_sort.c - window sort with spilled IST runs and a k-way merge. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/imp_sort.h"

#define MERGE_FANIN 64
#define MERGE_BATCH 1024
#define OUT_BATCH 4096

struct sort_key {
	int64_t t;
	uint64_t idx;
};

struct imp_sorter {
	size_t window;
	struct ist_record *buf, *tmp;
	struct sort_key *keys;
	size_t n;
	int in_order;          /* buf[0..n) is sorted */
	int64_t buf_last;      /* t of buf[n-1] */
	uint64_t count, reordered;
	int64_t min_t, max_t;
	/* runs */
	char dir[PATH_MAX];
	uint64_t nruns;        /* run files created (names run-0..) */
	uint64_t first_live;   /* runs below this were merged away */
	ist_writer *run;       /* the open run, if any */
	int64_t run_last;
	int finished;
};

static int t_of(const struct ist_record *r, int64_t *t)
{
	*t = (int64_t)r->t_ns;
	return 0;
}

int imp_sorter_new(struct imp_sorter **sp, size_t window, const char *tmpdir)
{
	struct imp_sorter *s;

	*sp = NULL;
	if (window < 16)
		window = 16;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->window = window;
	s->buf = malloc(window * sizeof(*s->buf));
	s->tmp = malloc(window * sizeof(*s->tmp));
	s->keys = malloc(window * sizeof(*s->keys));
	if (!s->buf || !s->tmp || !s->keys) {
		imp_sorter_free(s);
		return -ENOMEM;
	}
	if (!tmpdir || !*tmpdir)
		tmpdir = getenv("TMPDIR");
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	if ((size_t)snprintf(s->dir, sizeof(s->dir), "%s/iostorm-sort.XXXXXX",
			     tmpdir) >= sizeof(s->dir)) {
		imp_sorter_free(s);
		return -ENAMETOOLONG;
	}
	s->in_order = 1;
	*sp = s;
	return 0;
}

static void run_path(const struct imp_sorter *s, uint64_t i, char *p,
		     size_t size)
{
	snprintf(p, size, "%s/run-%llu.ist", s->dir, (unsigned long long)i);
}

void imp_sorter_free(struct imp_sorter *s)
{
	char p[PATH_MAX + 32];

	if (!s)
		return;
	if (s->run)
		ist_writer_abort(s->run);
	if (s->nruns) {
		for (uint64_t i = 0; i < s->nruns; i++) {
			run_path(s, i, p, sizeof(p));
			unlink(p);
		}
	}
	if (!strstr(s->dir, "XXXXXX"))
		rmdir(s->dir);
	free(s->buf);
	free(s->tmp);
	free(s->keys);
	free(s);
}

uint64_t imp_sorter_count(const struct imp_sorter *s)
{
	return s->count;
}

int64_t imp_sorter_min_t(const struct imp_sorter *s)
{
	return s->count ? s->min_t : 0;
}

uint64_t imp_sorter_reordered(const struct imp_sorter *s)
{
	return s->reordered;
}

uint64_t imp_sorter_runs(const struct imp_sorter *s)
{
	return s->nruns;
}

static int key_cmp(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sorts buf[0..n) stably by time (through keys and tmp). */
static void sort_buf(struct imp_sorter *s)
{
	struct ist_record *t;

	if (s->in_order)
		return;
	for (size_t i = 0; i < s->n; i++) {
		t_of(&s->buf[i], &s->keys[i].t);
		s->keys[i].idx = i;
	}
	qsort(s->keys, s->n, sizeof(*s->keys), key_cmp);
	for (size_t i = 0; i < s->n; i++)
		s->tmp[i] = s->buf[s->keys[i].idx];
	t = s->buf;
	s->buf = s->tmp;
	s->tmp = t;
	s->in_order = 1;
	if (s->n)
		s->buf_last = (int64_t)s->buf[s->n - 1].t_ns;
}

static int open_run(struct imp_sorter *s)
{
	char p[PATH_MAX + 32];
	struct ist_writer_opts o = { .direct = 1, .level = 1 };
	ist_header *h;
	int ret;

	if (strstr(s->dir, "XXXXXX") && !mkdtemp(s->dir))
		return -errno;
	run_path(s, s->nruns, p, sizeof(p));
	h = ist_header_new();
	if (!h)
		return -ENOMEM;
	ist_header_set(h, "content", "iostorm import sort run");
	ret = ist_writer_open(&s->run, p, h, &o);
	ist_header_free(h);
	if (ret)
		return ret;
	s->nruns++;
	s->run_last = INT64_MIN;
	return 0;
}

static int close_run(struct imp_sorter *s)
{
	int ret = 0;

	if (s->run) {
		ret = ist_writer_close(s->run);
		s->run = NULL;
	}
	return ret;
}

/* Writes buf[0..k) (sorted) to the open run, or a new one if the records
 * would go back in time. */
static int spill(struct imp_sorter *s, size_t k)
{
	int ret;

	if (!k)
		return 0;
	if (s->run && (int64_t)s->buf[0].t_ns < s->run_last) {
		ret = close_run(s);
		if (ret)
			return ret;
	}
	if (!s->run) {
		ret = open_run(s);
		if (ret)
			return ret;
	}
	ret = ist_writer_write(s->run, s->buf, k);
	if (ret)
		return ret;
	s->run_last = (int64_t)s->buf[k - 1].t_ns;
	return 0;
}

int imp_sorter_add(struct imp_sorter *s, const struct ist_record *rec)
{
	int64_t t = (int64_t)rec->t_ns;
	int ret;

	if (s->count == 0) {
		s->min_t = s->max_t = t;
	} else {
		if (t < s->max_t)
			s->reordered++;
		else
			s->max_t = t;
		if (t < s->min_t)
			s->min_t = t;
	}
	s->count++;
	if (s->n == s->window) {
		size_t half = s->n / 2;

		sort_buf(s);
		ret = spill(s, half);
		if (ret)
			return ret;
		memmove(s->buf, s->buf + half, (s->n - half) * sizeof(*s->buf));
		s->n -= half;
		s->buf_last = (int64_t)s->buf[s->n - 1].t_ns;
	}
	if (s->n && t < s->buf_last)
		s->in_order = 0;
	s->buf[s->n++] = *rec;
	if (s->in_order)
		s->buf_last = t;
	return 0;
}

/* ---------------------------------------------------------------- merge */

struct merge_src {
	ist_reader *r;
	struct ist_record *recs;
	size_t n, pos;
	uint64_t order;
};

struct out_sink {
	imp_batch_fn fn;       /* final output, or NULL: write to w */
	void *ctx;
	ist_writer *w;
	int64_t shift;
	struct ist_record batch[OUT_BATCH];
	size_t n;
};

static int sink_flush(struct out_sink *o)
{
	int ret;

	if (!o->n)
		return 0;
	if (o->fn)
		ret = o->fn(o->ctx, o->batch, o->n);
	else
		ret = ist_writer_write(o->w, o->batch, o->n);
	o->n = 0;
	return ret;
}

static int sink_put(struct out_sink *o, const struct ist_record *r)
{
	o->batch[o->n] = *r;
	o->batch[o->n].t_ns = (uint64_t)((int64_t)r->t_ns - o->shift);
	if (++o->n == OUT_BATCH)
		return sink_flush(o);
	return 0;
}

static int src_fill(struct merge_src *m)
{
	ssize_t n = ist_reader_read(m->r, m->recs, MERGE_BATCH);

	if (n < 0)
		return (int)n;
	m->n = n;
	m->pos = 0;
	return 0;
}

static int src_less(const struct merge_src *a, const struct merge_src *b)
{
	int64_t x = (int64_t)a->recs[a->pos].t_ns;
	int64_t y = (int64_t)b->recs[b->pos].t_ns;

	return x < y || (x == y && a->order < b->order);
}

static void heap_down(struct merge_src **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct merge_src *t;

		if (l < n && src_less(h[l], h[m]))
			m = l;
		if (l + 1 < n && src_less(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Merges runs [first, first+k) into the sink (plus the in-memory buffer
 * when mem is set). */
static int merge_runs(struct imp_sorter *s, uint64_t first, size_t k, int mem,
		      struct out_sink *o)
{
	struct merge_src *src = calloc(k + 1, sizeof(*src));
	struct merge_src **heap = calloc(k + 1, sizeof(*heap));
	size_t nh = 0;
	char p[PATH_MAX + 32];
	int ret = -ENOMEM;

	if (!src || !heap)
		goto out;
	for (size_t i = 0; i < k; i++) {
		src[i].order = i;
		src[i].recs = malloc(MERGE_BATCH * sizeof(struct ist_record));
		if (!src[i].recs) {
			ret = -ENOMEM;
			goto out;
		}
		run_path(s, first + i, p, sizeof(p));
		ret = ist_reader_open(&src[i].r, p);
		if (ret)
			goto out;
		ret = src_fill(&src[i]);
		if (ret)
			goto out;
		if (src[i].n)
			heap[nh++] = &src[i];
	}
	if (mem && s->n) {
		/* the in-memory remainder is the newest run */
		src[k].order = k;
		src[k].recs = s->buf;
		src[k].n = s->n;
		heap[nh++] = &src[k];
	}
	for (size_t i = nh; i-- > 0;)
		heap_down(heap, nh, i);
	while (nh) {
		struct merge_src *m = heap[0];

		ret = sink_put(o, &m->recs[m->pos]);
		if (ret)
			goto out;
		if (++m->pos == m->n) {
			if (m->r) {
				ret = src_fill(m);
				if (ret)
					goto out;
			}
			if (m->pos == m->n) {
				heap[0] = heap[--nh];
			}
		}
		heap_down(heap, nh, 0);
	}
	ret = sink_flush(o);
out:
	if (src) {
		for (size_t i = 0; i < k; i++) {
			if (src[i].r)
				ist_reader_close(src[i].r);
			free(src[i].recs);
		}
	}
	free(src);
	free(heap);
	return ret;
}

int imp_sorter_finish(struct imp_sorter *s, int64_t shift, imp_batch_fn fn,
		      void *ctx)
{
	struct out_sink *o;
	char p[PATH_MAX + 32];
	int ret;

	if (s->finished)
		return -EINVAL;
	s->finished = 1;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->fn = fn;
	o->ctx = ctx;
	o->shift = shift;
	sort_buf(s);
	if (s->nruns == 0) {
		/* everything fitted in memory */
		for (size_t i = 0; i < s->n; i++) {
			ret = sink_put(o, &s->buf[i]);
			if (ret)
				goto out;
		}
		ret = sink_flush(o);
		goto out;
	}
	/* the buffer joins the open run if it can, else is merged as is */
	if (s->run && s->n && (int64_t)s->buf[0].t_ns >= s->run_last) {
		ret = spill(s, s->n);
		if (ret)
			goto out;
		s->n = 0;
	}
	ret = close_run(s);
	if (ret)
		goto out;
	/* reduce to at most MERGE_FANIN runs, merging the oldest first */
	while (s->nruns - s->first_live > MERGE_FANIN) {
		struct out_sink *m = calloc(1, sizeof(*m));
		uint64_t first = s->first_live;

		if (!m) {
			ret = -ENOMEM;
			goto out;
		}
		ret = open_run(s);
		if (!ret) {
			m->w = s->run;
			ret = merge_runs(s, first, MERGE_FANIN, 0, m);
			s->run = NULL;
			if (ret)
				ist_writer_abort(m->w);
			else
				ret = ist_writer_close(m->w);
		}
		free(m);
		if (ret)
			goto out;
		for (uint64_t i = first; i < first + MERGE_FANIN; i++) {
			run_path(s, i, p, sizeof(p));
			unlink(p);
		}
		/* the merged run is the newest file but holds the oldest
		 * records: merge order only matters for equal times */
		s->first_live = first + MERGE_FANIN;
	}
	ret = merge_runs(s, s->first_live, s->nruns - s->first_live, 1, o);
out:
	free(o);
	return ret;
}
