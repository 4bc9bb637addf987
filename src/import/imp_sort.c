/* SPDX-License-Identifier: MIT */
/* imp_sort.c - window sort writing straight to the output, falling back to IST runs and a k-way merge. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bigmem.h"
#include "import/imp_sort.h"

#define MERGE_FANIN 64
#define MERGE_BATCH 1024
#define OUT_BATCH 4096
#define SINK_PIECE 2048 /* see sink_write() */

enum sort_state { S_MEM, S_DIRECT, S_RUNS };

struct sort_key {
	int64_t t;
	uint64_t idx;
};

struct run {
	char *path;
	int64_t shift; /* added back to the times read from it */
};

/* Radix digits of the key sort. */
#define RADIX_BITS 12
#define RADIX_SIZE (1u << RADIX_BITS)
#define RADIX_PASSES ((64 + RADIX_BITS - 1) / RADIX_BITS)

/*
 * The window is a ring: the i-th record held (in arrival order, or in
 * time order once sorted) is buf[(head + i) % window].  Records already
 * in order are written from where they stand (their times shifted in
 * place), so input in time order is copied once, into the ring; only a
 * window with late records is sorted, into tmp, which then becomes buf.
 */
struct imp_sorter {
	size_t window;
	int absolute;
	struct imp_sink sink;
	enum sort_state state;
	struct ist_record *buf, *tmp;
	struct sort_key *keys, *keys_tmp;
	uint32_t *hist;        /* RADIX_PASSES x RADIX_SIZE counts */
	size_t head, n;
	int in_order;          /* the records held are sorted */
	size_t sorted;         /* the first `sorted` records are sorted */
	int64_t buf_last;      /* t of the last record when in order */
	uint64_t count, reordered;
	int64_t min_t, max_t;
	int64_t shift;         /* of the open sink */
	int64_t last_out;      /* last time written (sink or run) */
	struct ist_record spare; /* the slot of a record added to a full window */
	int have_out;
	/* runs */
	char dir[PATH_MAX];
	int dir_made;
	struct run *runs;
	size_t nruns, cap_runs, first_live;
	uint64_t run_files;    /* names run-0.. used in dir */
	ist_writer *run;       /* the open run, if any */
	int finished;
};

/* The window's big arrays are in transparent huge pages where the system
 * offers them on request (ist_big_alloc(): a few faults instead of
 * thousands of 4 KiB ones, which cost as much as the sorting on a
 * virtual machine). */
int imp_sorter_new(struct imp_sorter **sp, size_t window, const char *tmpdir,
		   int absolute_time, const struct imp_sink *sink)
{
	struct imp_sorter *s;

	*sp = NULL;
	if (window < 16)
		window = 16;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->window = window;
	s->absolute = absolute_time;
	s->sink = *sink;
	s->buf = ist_big_alloc(window * sizeof(*s->buf));
	s->tmp = ist_big_alloc(window * sizeof(*s->tmp));
	s->keys = ist_big_alloc(window * sizeof(*s->keys));
	s->keys_tmp = ist_big_alloc(window * sizeof(*s->keys_tmp));
	s->hist = malloc(RADIX_PASSES * RADIX_SIZE * sizeof(*s->hist));
	if (!s->buf || !s->tmp || !s->keys || !s->keys_tmp || !s->hist) {
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

void imp_sorter_free(struct imp_sorter *s)
{
	if (!s)
		return;
	if (s->run)
		ist_writer_abort(s->run);
	for (size_t i = 0; i < s->nruns; i++) {
		if (s->runs[i].path) {
			unlink(s->runs[i].path);
			free(s->runs[i].path);
		}
	}
	free(s->runs);
	if (s->dir_made)
		rmdir(s->dir);
	free(s->buf);
	free(s->tmp);
	free(s->keys);
	free(s->keys_tmp);
	free(s->hist);
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

/* The i-th record held. */
static inline struct ist_record *held(const struct imp_sorter *s, size_t i)
{
	i += s->head;
	return &s->buf[i < s->window ? i : i - s->window];
}

/*
 * Sorts keys[0..n) by time, stably: LSD radix sort of the times relative
 * to the smallest, RADIX_BITS at a time, without the low bits that are
 * the same in every key (times in whole seconds or microseconds end in 9
 * or 3 zero bits as nanoseconds), skipping the digits that are the same
 * in every key.  Linear in n, unlike a comparison sort.
 */
static void sort_keys(struct imp_sorter *s, size_t n)
{
	struct sort_key *src = s->keys, *dst = s->keys_tmp, *t;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	uint64_t range, diff = 0;
	unsigned passes, tz;

	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		if (src[i].t < lo)
			lo = src[i].t;
		if (src[i].t > hi)
			hi = src[i].t;
		diff |= (uint64_t)(src[i].t ^ src[0].t);
	}
	if (lo == hi)
		return;
	/* all times agree in their low tz bits, and so do their distances */
	tz = (unsigned)__builtin_ctzll(diff);
	range = ((uint64_t)hi - (uint64_t)lo) >> tz;
	passes = (64 - (unsigned)__builtin_clzll(range) + RADIX_BITS - 1) /
		 RADIX_BITS;
	memset(s->hist, 0, passes * RADIX_SIZE * sizeof(*s->hist));
	for (size_t i = 0; i < n; i++) {
		uint64_t v = ((uint64_t)src[i].t - (uint64_t)lo) >> tz;

		for (unsigned p = 0; p < passes; p++)
			s->hist[p * RADIX_SIZE +
				((v >> (p * RADIX_BITS)) & (RADIX_SIZE - 1))]++;
	}
	for (unsigned p = 0; p < passes; p++) {
		uint32_t *h = s->hist + p * RADIX_SIZE, sum = 0;
		unsigned shift = p * RADIX_BITS;

		if (h[(((uint64_t)src[0].t - (uint64_t)lo) >> tz >> shift) &
		      (RADIX_SIZE - 1)] == n)
			continue; /* one digit value: nothing to do */
		for (unsigned d = 0; d < RADIX_SIZE; d++) {
			uint32_t c = h[d];

			h[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t v = ((uint64_t)src[i].t - (uint64_t)lo) >> tz;

			dst[h[(v >> shift) & (RADIX_SIZE - 1)]++] = src[i];
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != s->keys) {
		s->keys_tmp = s->keys;
		s->keys = src;
	}
}

/*
 * Sorts the records held stably by time, into tmp (which becomes buf,
 * head 0).  The first `sorted` are already in order (the half kept from
 * the previous window): only the rest is sorted (through keys), then the
 * two are merged, the prefix first on ties.
 */
static void sort_buf(struct imp_sorter *s)
{
	struct ist_record *t;
	size_t a = 0, b = 0, o = 0, na = s->sorted, nb;

	if (s->in_order)
		return;
	if (na > s->n)
		na = 0;
	nb = s->n - na;
	for (size_t i = 0; i < nb; i++) {
		s->keys[i].t = (int64_t)held(s, na + i)->t_ns;
		s->keys[i].idx = na + i;
	}
	sort_keys(s, nb);
	while (a < na && b < nb) {
		const struct ist_record *r = held(s, a);

		if ((int64_t)r->t_ns <= s->keys[b].t) {
			s->tmp[o++] = *r;
			a++;
		} else {
			s->tmp[o++] = *held(s, s->keys[b++].idx);
		}
	}
	while (a < na)
		s->tmp[o++] = *held(s, a++);
	while (b < nb)
		s->tmp[o++] = *held(s, s->keys[b++].idx);
	t = s->buf;
	s->buf = s->tmp;
	s->tmp = t;
	s->head = 0;
	s->in_order = 1;
}

/* Makes the records held contiguous from buf[0] (for the final merge). */
static void unwrap_buf(struct imp_sorter *s)
{
	struct ist_record *t;

	if (s->head == 0)
		return;
	for (size_t i = 0; i < s->n; i++)
		s->tmp[i] = *held(s, i);
	t = s->buf;
	s->buf = s->tmp;
	s->tmp = t;
	s->head = 0;
}

static int add_run(struct imp_sorter *s, char *path, int64_t shift)
{
	if (s->nruns == s->cap_runs) {
		size_t cap = s->cap_runs ? s->cap_runs * 2 : 16;
		struct run *n = realloc(s->runs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->runs = n;
		s->cap_runs = cap;
	}
	s->runs[s->nruns].path = path;
	s->runs[s->nruns].shift = shift;
	s->nruns++;
	return 0;
}

static int open_run(struct imp_sorter *s)
{
	/* a run is read back once, by the merge: written fast (its size
	 * matters less than the writer's time) */
	struct ist_writer_opts o = { .direct = 1, .effort = IST_EFFORT_FAST };
	char p[PATH_MAX + 32], *path;
	ist_header *h;
	int ret;

	if (!s->dir_made) {
		if (!mkdtemp(s->dir))
			return -errno;
		s->dir_made = 1;
	}
	snprintf(p, sizeof(p), "%s/run-%llu.ist", s->dir,
		 (unsigned long long)s->run_files++);
	path = strdup(p);
	h = ist_header_new();
	if (!path || !h) {
		free(path);
		ist_header_free(h);
		return -ENOMEM;
	}
	ist_header_set(h, "content", "iostorm import sort run");
	ret = ist_writer_open(&s->run, path, h, &o);
	ist_header_free(h);
	if (ret) {
		free(path);
		return ret;
	}
	ret = add_run(s, path, 0);
	if (ret) {
		ist_writer_abort(s->run);
		s->run = NULL;
		free(path);
	}
	return ret;
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

/* The output written so far becomes run 0. */
static int demote(struct imp_sorter *s)
{
	char p[PATH_MAX + 64], *path;
	int ret;

	ret = s->sink.demote(s->sink.ctx, p, sizeof(p));
	if (ret)
		return ret;
	path = strdup(p);
	if (!path)
		return -ENOMEM;
	ret = add_run(s, path, s->shift);
	if (ret) {
		unlink(path);
		free(path);
		return ret;
	}
	s->state = S_RUNS;
	return 0;
}

/* Records a sink write takes at a time: copied and counted by the IST
 * writer (shifted to trace time while it copies them,
 * ist_writer_write_shifted()) while they are in the cache.  A half
 * window (65536 records, 3.5 MiB) was read from memory twice by the
 * writer (its copy and its totals); shifting the pieces in place dirtied
 * the window's lines, written back to memory later, and a copy shifted
 * into a small buffer (this function until session 11) cost a pass of
 * its own.
 *
 * Writes recs (absolute times) to the sink, which shifts them; recs
 * themselves are left as they are, so that on IMP_SINK_REOPEN (nothing
 * written) or an error they can go to a run instead.  (The sink refuses
 * at its first piece or never: what it checks, the devices, changes only
 * while records are parsed.) */
static int sink_write(struct imp_sorter *s, const struct ist_record *recs,
		      size_t n)
{
	size_t k;
	int ret;

	for (size_t i0 = 0; i0 < n; i0 += k) {
		k = n - i0 < SINK_PIECE ? n - i0 : SINK_PIECE;
		ret = s->sink.write(s->sink.ctx, recs + i0, k);
		if (ret)
			return i0 && ret > 0 ? -EIO : ret;
	}
	return 0;
}

/* Emits recs[0..k) (sorted, following what was emitted before in the
 * window's order): to the output while it stays in order, else to runs. */
static int emit_seg(struct imp_sorter *s, struct ist_record *recs, size_t k)
{
	int64_t first = (int64_t)recs[0].t_ns, last = (int64_t)recs[k - 1].t_ns;
	int ret;

	if (s->state == S_MEM) {
		s->shift = s->absolute ? 0 : s->min_t;
		ret = s->sink.open(s->sink.ctx, s->shift);
		if (ret)
			return ret;
		s->state = S_DIRECT;
	}
	if (s->state == S_DIRECT) {
		if (!s->have_out || first >= s->last_out) {
			ret = sink_write(s, recs, k);
			if (ret < 0)
				return ret;
			if (ret == 0)
				goto done;
		}
		/* late records or the sink cannot go on: fall back */
		ret = demote(s);
		if (ret)
			return ret;
	}
	if (s->run && first < s->last_out) {
		ret = close_run(s);
		if (ret)
			return ret;
	}
	if (!s->run) {
		ret = open_run(s);
		if (ret)
			return ret;
	}
	ret = ist_writer_write(s->run, recs, k);
	if (ret)
		return ret;
done:
	s->last_out = last;
	s->have_out = 1;
	return 0;
}

/* Emits the first k records held (sorted), in at most two pieces of the
 * ring, and drops them from the window. */
static int emit(struct imp_sorter *s, size_t k)
{
	size_t k1 = s->window - s->head;
	int ret;

	if (!k)
		return 0;
	if (k1 > k)
		k1 = k;
	ret = emit_seg(s, s->buf + s->head, k1);
	if (!ret && k > k1)
		ret = emit_seg(s, s->buf, k - k1);
	if (ret)
		return ret;
	s->head += k;
	if (s->head >= s->window)
		s->head -= s->window;
	s->n -= k;
	return 0;
}

struct ist_record *imp_sorter_slot(struct imp_sorter *s)
{
	return s->n < s->window ? held(s, s->n) : &s->spare;
}

/* The window is full: its older half goes out (sorted) to make room. */
static int __attribute__((noinline)) make_room(struct imp_sorter *s)
{
	int ret;

	sort_buf(s);
	ret = emit(s, s->n / 2);
	if (ret)
		return ret;
	s->sorted = s->n;
	s->buf_last = (int64_t)held(s, s->n - 1)->t_ns;
	return 0;
}

int imp_sorter_commit(struct imp_sorter *s)
{
	struct ist_record *slot;
	int64_t t;
	int ret;

	if (s->n < s->window) {
		slot = held(s, s->n);
	} else {
		slot = &s->spare;
	}
	t = (int64_t)slot->t_ns;
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
	if (slot == &s->spare) {
		/* after the statistics: the output's shift, chosen when the
		 * first window goes out, counts this record too */
		ret = make_room(s);
		if (ret)
			return ret;
		*held(s, s->n) = s->spare;
	}
	if (s->n && t < s->buf_last)
		s->in_order = 0;
	s->n++;
	if (s->in_order)
		s->buf_last = t;
	return 0;
}

struct ist_record *imp_sorter_slots(struct imp_sorter *s, size_t *room)
{
	size_t pos, k;

	if (s->n == s->window) {
		*room = 1;
		return &s->spare;
	}
	pos = s->head + s->n;
	if (pos >= s->window)
		pos -= s->window;
	/* up to the ring's end or the window's, whichever comes first: the
	 * record that finds the window full goes alone (commit) */
	k = s->window - pos;
	*room = k < s->window - s->n ? k : s->window - s->n;
	return &s->buf[pos];
}

int imp_sorter_commit_n(struct imp_sorter *s, size_t k)
{
	const struct ist_record *r;
	int64_t lo, hi, last = s->buf_last;
	uint64_t reordered = s->reordered;
	int in_order = s->in_order;
	size_t i = 0;

	if (s->n == s->window)
		return imp_sorter_commit(s); /* the spare, k == 1 */
	r = held(s, s->n);
	if (s->count == 0) {
		s->min_t = s->max_t = (int64_t)r[0].t_ns;
	}
	lo = s->min_t;
	hi = s->max_t;
	if (s->n == 0) {
		/* the first has no predecessor in the window */
		int64_t t = (int64_t)r[0].t_ns;

		if (s->count && t < hi)
			reordered++;
		else
			hi = t;
		if (t < lo)
			lo = t;
		if (in_order)
			last = t;
		i = 1;
	}
	/* what commit does, record by record */
	for (; i < k; i++) {
		int64_t t = (int64_t)r[i].t_ns;

		if (t < hi)
			reordered++;
		else
			hi = t;
		if (t < lo)
			lo = t;
		if (t < last)
			in_order = 0;
		if (in_order)
			last = t;
	}
	s->min_t = lo;
	s->max_t = hi;
	s->buf_last = last;
	s->reordered = reordered;
	s->in_order = in_order;
	s->count += k;
	s->n += k;
	return 0;
}

int imp_sorter_add(struct imp_sorter *s, const struct ist_record *rec)
{
	*imp_sorter_slot(s) = *rec;
	return imp_sorter_commit(s);
}

/* ---------------------------------------------------------------- merge */

struct merge_src {
	ist_reader *r;
	struct ist_record *recs;
	size_t n, pos;
	int64_t shift;
	uint64_t order;
};

/* Where merged records go: a run writer, or the sink (shifted). */
struct merge_out {
	ist_writer *w;
	struct imp_sorter *s;
	struct ist_record batch[OUT_BATCH];
	size_t n;
};

static int out_flush(struct merge_out *o)
{
	int ret;

	if (!o->n)
		return 0;

	if (o->w)
		ret = ist_writer_write(o->w, o->batch, o->n);
	else
		ret = sink_write(o->s, o->batch, o->n);
	o->n = 0;
	/* the final sink has all the devices: IMP_SINK_REOPEN cannot happen */
	return ret > 0 ? -EIO : ret;
}

static int src_fill(struct merge_src *m)
{
	ssize_t n = ist_reader_read(m->r, m->recs, MERGE_BATCH);

	if (n < 0)
		return (int)n;
	m->n = n;
	m->pos = 0;
	if (m->shift)
		for (ssize_t i = 0; i < n; i++)
			m->recs[i].t_ns = (uint64_t)((int64_t)m->recs[i].t_ns +
						     m->shift);
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

/* Merges runs [first, first+k) (plus the in-memory buffer when mem is
 * set, as the newest run) into o. */
static int merge_runs(struct imp_sorter *s, size_t first, size_t k, int mem,
		      struct merge_out *o)
{
	struct merge_src *src = calloc(k + 1, sizeof(*src));
	struct merge_src **heap = calloc(k + 1, sizeof(*heap));
	size_t nh = 0;
	int ret = -ENOMEM;

	if (!src || !heap)
		goto out;
	for (size_t i = 0; i < k; i++) {
		src[i].order = i;
		src[i].shift = s->runs[first + i].shift;
		src[i].recs = malloc(MERGE_BATCH * sizeof(struct ist_record));
		if (!src[i].recs) {
			ret = -ENOMEM;
			goto out;
		}
		ret = ist_reader_open(&src[i].r, s->runs[first + i].path);
		if (ret)
			goto out;
		ret = src_fill(&src[i]);
		if (ret)
			goto out;
		if (src[i].n)
			heap[nh++] = &src[i];
	}
	if (mem && s->n) {
		src[k].order = k;
		src[k].recs = s->buf;
		src[k].n = s->n;
		heap[nh++] = &src[k];
	}
	for (size_t i = nh; i-- > 0;)
		heap_down(heap, nh, i);
	while (nh) {
		struct merge_src *m = heap[0];

		o->batch[o->n++] = m->recs[m->pos];
		if (o->n == OUT_BATCH) {
			ret = out_flush(o);
			if (ret)
				goto out;
		}
		if (++m->pos == m->n) {
			if (m->r) {
				ret = src_fill(m);
				if (ret)
					goto out;
			}
			if (m->pos == m->n)
				heap[0] = heap[--nh];
		}
		heap_down(heap, nh, 0);
	}
	ret = out_flush(o);
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

static void drop_runs(struct imp_sorter *s, size_t first, size_t k)
{
	for (size_t i = first; i < first + k; i++) {
		unlink(s->runs[i].path);
		free(s->runs[i].path);
		s->runs[i].path = NULL;
	}
}

int imp_sorter_finish(struct imp_sorter *s)
{
	struct merge_out *o;
	int ret;

	if (s->finished)
		return -EINVAL;
	s->finished = 1;
	sort_buf(s);
	if (s->state != S_RUNS) {
		/* everything in memory, or the output in order so far */
		if (s->state == S_MEM) {
			s->shift = s->absolute ? 0 : imp_sorter_min_t(s);
			ret = s->sink.open(s->sink.ctx, s->shift);
			if (ret)
				return ret;
			s->state = S_DIRECT;
		}
		if (!s->n)
			return 0;
		if (!s->have_out || (int64_t)held(s, 0)->t_ns >= s->last_out) {
			/* the ring in at most two pieces */
			while (s->n) {
				size_t k = s->window - s->head;

				if (k > s->n)
					k = s->n;
				ret = sink_write(s, s->buf + s->head, k);
				if (ret)
					break;
				s->head = (s->head + k) % s->window;
				s->n -= k;
			}
			if (ret <= 0)
				return ret;
			/* the sink refused: the rest is merged after run 0 */
		}
		ret = demote(s);
		if (ret)
			return ret;
	}
	unwrap_buf(s);
	/* the buffer joins the open run if it can, else is merged as is */
	if (s->run && s->n && (int64_t)s->buf[0].t_ns >= s->last_out) {
		ret = ist_writer_write(s->run, s->buf, s->n);
		if (ret)
			return ret;
		s->n = 0;
	}
	ret = close_run(s);
	if (ret)
		return ret;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	/* reduce to at most MERGE_FANIN runs, the oldest first */
	while (s->nruns - s->first_live > MERGE_FANIN) {
		size_t first = s->first_live;

		ret = open_run(s);
		if (ret)
			goto out;
		o->w = s->run;
		o->n = 0;
		ret = merge_runs(s, first, MERGE_FANIN, 0, o);
		s->run = NULL;
		if (ret) {
			ist_writer_abort(o->w);
			goto out;
		}
		ret = ist_writer_close(o->w);
		if (ret)
			goto out;
		drop_runs(s, first, MERGE_FANIN);
		/* the merged run is listed last but holds the oldest records:
		 * the order only breaks ties between equal times */
		s->first_live = first + MERGE_FANIN;
	}
	s->shift = s->absolute ? 0 : imp_sorter_min_t(s);
	ret = s->sink.open(s->sink.ctx, s->shift);
	if (ret)
		goto out;
	o->w = NULL;
	o->s = s;
	o->n = 0;
	ret = merge_runs(s, s->first_live, s->nruns - s->first_live, 1, o);
out:
	free(o);
	return ret;
}
