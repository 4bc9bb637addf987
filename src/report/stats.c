/* SPDX-License-Identifier: MIT */
/* stats.c - streaming workload characterization with bounded memory. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"

#define SIZE_SLOTS 1024          /* distinct sizes counted exactly      */
#define WS_SLOTS (1u << 18)      /* working-set sample table            */
#define QD_CAP (1u << 20)        /* in-flight completions tracked       */

struct dev_acc {
	struct rpt_device pub;
	char name[24];
	uint64_t hint;           /* size from the header, 0 = unknown     */
	uint64_t range;          /* bucket array covers [0, range)        */
	uint64_t max_end;
	uint64_t ends[RPT_SEQ_RECENT]; /* where recent requests ended      */
	unsigned nends, ends_pos;
	uint64_t seq, rw;
	uint64_t bucket[RPT_SKEW_BUCKETS];
};

struct stream_acc {
	struct rpt_stream pub;
	uint64_t last_end;
	uint32_t last_dev;
	int used;
};

struct rpt_stats {
	struct rpt_summary sum;
	uint64_t interval_ns;
	int auto_interval;
	uint32_t block;
	/* devices */
	struct dev_acc **dev;
	unsigned ndev;
	/* sizes */
	uint64_t size_hist[RPT_SIZE_LOG2];
	uint32_t size_key[SIZE_SLOTS];
	uint64_t size_cnt[SIZE_SLOTS];
	uint64_t size_other;
	/* inter-arrival */
	uint64_t ia_hist[RPT_IA_LOG2];
	uint64_t prev_t;
	int have_prev;
	double ia_n, ia_mean, ia_m2;
	/* sequentiality */
	uint64_t seq, stream_seq, rw;
	/* working set: blocks whose hash falls under ws_thresh are kept */
	uint64_t *ws;
	uint32_t ws_used;
	uint64_t ws_thresh;      /* out of 2^32                            */
	/* streams */
	struct stream_acc *streams;
	uint32_t nstreams;
	int streams_full;
	struct rpt_stream *sorted;
	/* series */
	struct rpt_interval *iv;
	unsigned niv;
	double *qd_sum;
	/* queue depth: a min-heap of completion times */
	uint64_t *qd_heap;
	uint32_t qd_n;
	double qd_total, qd_samples, lat_sum;
	uint64_t lat_n;
	int finished;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static struct dev_acc *get_dev(struct rpt_stats *st, uint32_t d)
{
	if (d >= RPT_MAX_DEVICES)
		return NULL;
	if (d >= st->ndev) {
		struct dev_acc **p = realloc(st->dev, (d + 1) * sizeof(*p));

		if (!p)
			return NULL;
		st->dev = p;
		for (unsigned i = st->ndev; i <= d; i++) {
			st->dev[i] = calloc(1, sizeof(**p));
			if (!st->dev[i])
				return NULL;
			snprintf(st->dev[i]->name, sizeof(st->dev[i]->name),
				 "dev%u", i);
			st->dev[i]->pub.name = st->dev[i]->name;
			st->dev[i]->range = 64ull << 20; /* grows as needed */
			st->ndev = i + 1;
		}
	}
	return st->dev[d];
}

int rpt_stats_new(struct rpt_stats **stp, const ist_header *h,
		  const struct rpt_stats_opts *o)
{
	struct rpt_stats *st = calloc(1, sizeof(*st));

	*stp = NULL;
	if (!st)
		return -ENOMEM;
	st->interval_ns = o && o->interval_ns ? o->interval_ns : 1000000000ull;
	st->auto_interval = !(o && o->interval_ns);
	st->block = o && o->block ? o->block : 4096;
	st->ws = calloc(WS_SLOTS, sizeof(*st->ws));
	st->streams = calloc(RPT_MAX_STREAMS * 2, sizeof(*st->streams));
	st->iv = calloc(RPT_MAX_INTERVALS, sizeof(*st->iv));
	st->qd_sum = calloc(RPT_MAX_INTERVALS, sizeof(*st->qd_sum));
	st->qd_heap = malloc(QD_CAP * sizeof(*st->qd_heap));
	st->ws_thresh = 1ull << 32;
	if (!st->ws || !st->streams || !st->iv || !st->qd_sum || !st->qd_heap) {
		rpt_stats_free(st);
		return -ENOMEM;
	}
	/* devices beyond the limit fail only when a record uses them */
	for (unsigned i = 0; h && i < ist_header_device_count(h) && i < RPT_MAX_DEVICES;
	     i++) {
		const struct ist_device *d = ist_header_device(h, i);
		struct dev_acc *a = get_dev(st, i);

		if (!a) {
			rpt_stats_free(st);
			return -ENOMEM;
		}
		if (d->name)
			snprintf(a->name, sizeof(a->name), "%s", d->name);
		a->hint = d->size;
		if (d->size) {
			a->range = RPT_SKEW_BUCKETS * 512;
			while (a->range < d->size)
				a->range <<= 1;
		}
	}
	*stp = st;
	return 0;
}

void rpt_stats_free(struct rpt_stats *st)
{
	if (!st)
		return;
	for (unsigned i = 0; i < st->ndev; i++)
		free(st->dev[i]);
	free(st->dev);
	free(st->ws);
	free(st->streams);
	free(st->sorted);
	free(st->iv);
	free(st->qd_sum);
	free(st->qd_heap);
	free(st);
}

static void dev_bucket(struct dev_acc *a, uint64_t off)
{
	while (off >= a->range) {
		/* double the range: merge bucket pairs */
		for (unsigned i = 0; i < RPT_SKEW_BUCKETS / 2; i++)
			a->bucket[i] = a->bucket[2 * i] + a->bucket[2 * i + 1];
		memset(a->bucket + RPT_SKEW_BUCKETS / 2, 0,
		       RPT_SKEW_BUCKETS / 2 * sizeof(a->bucket[0]));
		a->range <<= 1;
	}
	a->bucket[(unsigned)(off / (a->range / RPT_SKEW_BUCKETS))]++;
}

static void count_size(struct rpt_stats *st, uint32_t len)
{
	uint32_t h = (uint32_t)(mix64(len) % SIZE_SLOTS);

	st->size_hist[len ? 31 - __builtin_clz(len) : 0]++;
	for (unsigned k = 0; k < 8; k++) {
		uint32_t i = (h + k) % SIZE_SLOTS;

		if (st->size_cnt[i] && st->size_key[i] == len) {
			st->size_cnt[i]++;
			return;
		}
		if (!st->size_cnt[i]) {
			st->size_key[i] = len;
			st->size_cnt[i] = 1;
			return;
		}
	}
	st->size_other++;
}

static void ws_insert(struct rpt_stats *st, uint64_t key);

static void ws_rebuild(struct rpt_stats *st)
{
	uint64_t *old = st->ws;
	uint64_t *fresh = calloc(WS_SLOTS, sizeof(*fresh));

	if (!fresh) /* keep going with the old table (it is only a sample) */
		return;
	st->ws = fresh;
	st->ws_used = 0;
	st->ws_thresh >>= 1;
	for (uint32_t i = 0; i < WS_SLOTS; i++)
		if (old[i])
			ws_insert(st, old[i]);
	free(old);
}

/* key = hash of (dev, block) | 1 (0 marks an empty slot) */
static void ws_insert(struct rpt_stats *st, uint64_t key)
{
	uint32_t i;

	if ((key >> 32) >= st->ws_thresh)
		return;
	for (i = (uint32_t)key % WS_SLOTS;; i = (i + 1) % WS_SLOTS) {
		if (st->ws[i] == key)
			return;
		if (!st->ws[i])
			break;
	}
	st->ws[i] = key;
	if (++st->ws_used > WS_SLOTS / 2)
		ws_rebuild(st);
}

static struct stream_acc *get_stream(struct rpt_stats *st, uint64_t id)
{
	uint32_t cap = RPT_MAX_STREAMS * 2;
	uint32_t i = (uint32_t)(mix64(id) % cap);

	for (;; i = (i + 1) % cap) {
		if (st->streams[i].used && st->streams[i].pub.id == id)
			return &st->streams[i];
		if (!st->streams[i].used)
			break;
	}
	if (st->nstreams >= RPT_MAX_STREAMS) {
		st->streams_full = 1;
		return NULL;
	}
	st->streams[i].used = 1;
	st->streams[i].pub.id = id;
	st->nstreams++;
	return &st->streams[i];
}

static void coarsen(struct rpt_stats *st)
{
	for (unsigned i = 0; i < RPT_MAX_INTERVALS / 2; i++) {
		struct rpt_interval *a = &st->iv[2 * i], *b = &st->iv[2 * i + 1];

		st->iv[i].count = a->count + b->count;
		st->iv[i].reads = a->reads + b->reads;
		st->iv[i].bytes = a->bytes + b->bytes;
		st->iv[i].qd_max = a->qd_max > b->qd_max ? a->qd_max : b->qd_max;
		st->qd_sum[i] = st->qd_sum[2 * i] + st->qd_sum[2 * i + 1];
	}
	memset(st->iv + RPT_MAX_INTERVALS / 2, 0,
	       RPT_MAX_INTERVALS / 2 * sizeof(*st->iv));
	memset(st->qd_sum + RPT_MAX_INTERVALS / 2, 0,
	       RPT_MAX_INTERVALS / 2 * sizeof(*st->qd_sum));
	st->interval_ns *= 2;
}

static void qd_push(struct rpt_stats *st, uint64_t v)
{
	uint32_t i = st->qd_n++;

	while (i) {
		uint32_t p = (i - 1) / 2;

		if (st->qd_heap[p] <= v)
			break;
		st->qd_heap[i] = st->qd_heap[p];
		i = p;
	}
	st->qd_heap[i] = v;
}

static void qd_pop(struct rpt_stats *st)
{
	uint64_t x = st->qd_heap[--st->qd_n];
	uint32_t i = 0, n = st->qd_n;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && st->qd_heap[c + 1] < st->qd_heap[c])
			c++;
		if (st->qd_heap[c] >= x)
			break;
		st->qd_heap[i] = st->qd_heap[c];
		i = c;
	}
	if (n)
		st->qd_heap[i] = x;
}

static int add_one(struct rpt_stats *st, const struct ist_record *r)
{
	struct rpt_summary *s = &st->sum;
	int rw = r->op == IST_OP_READ || r->op == IST_OP_WRITE;
	struct dev_acc *a = get_dev(st, r->dev);
	struct stream_acc *sa = NULL;
	uint64_t idx;
	unsigned op = r->op < IST_OP_COUNT ? r->op : IST_OP_COUNT - 1;

	if (r->dev >= RPT_MAX_DEVICES)
		return IST_ERANGE; /* not -ENOMEM: the caller names the record */
	if (!a)
		return -ENOMEM;
	if (!s->records)
		s->first_t_ns = r->t_ns;
	s->records++;
	s->count[op]++;
	s->bytes[op] += r->len;
	a->pub.count[op]++;
	a->pub.bytes[op] += r->len;
	if (r->flags & IST_F_SYNC)
		s->sync++;
	if (r->flags & IST_F_FUA)
		s->fua++;
	if (r->flags & IST_F_DEPENDENT)
		s->dependent++;
	if (r->flags & IST_F_COMMIT)
		s->commits++;
	if (r->txn)
		s->txn_ios++;
	if (op == IST_OP_FLUSH || (r->flags & (IST_F_FUA | IST_F_PREFLUSH))) {
		s->flushes++;
		if (r->txn)
			s->txn_flushes++;
	}
	/* time */
	if (st->have_prev) {
		uint64_t gap;

		if (r->t_ns < st->prev_t) {
			s->out_of_order++;
			gap = 0;
		} else {
			gap = r->t_ns - st->prev_t;
		}
		st->ia_hist[gap ? (63 - __builtin_clzll(gap) < RPT_IA_LOG2 ? 63 - __builtin_clzll(gap) : RPT_IA_LOG2 - 1) : 0]++;
		st->ia_n += 1;
		{
			double d = (double)gap - st->ia_mean;

			st->ia_mean += d / st->ia_n;
			st->ia_m2 += d * ((double)gap - st->ia_mean);
		}
	}
	if (!st->have_prev || r->t_ns > st->prev_t)
		st->prev_t = r->t_ns;
	st->have_prev = 1;
	if (r->t_ns > s->last_t_ns)
		s->last_t_ns = r->t_ns;
	if (r->t_ns < s->first_t_ns)
		s->first_t_ns = r->t_ns;
	idx = r->t_ns / st->interval_ns;
	while (idx >= RPT_MAX_INTERVALS) {
		coarsen(st);
		idx = r->t_ns / st->interval_ns;
	}
	st->iv[idx].count++;
	st->iv[idx].bytes += r->len;
	if (r->op == IST_OP_READ)
		st->iv[idx].reads++;
	if ((unsigned)idx + 1 > st->niv)
		st->niv = (unsigned)idx + 1;
	/* queue depth */
	if (r->lat_ns) {
		s->have_latency = 1;
		st->lat_sum += (double)r->lat_ns;
		st->lat_n++;
		while (st->qd_n && st->qd_heap[0] <= r->t_ns)
			qd_pop(st);
		if (st->qd_n < QD_CAP)
			qd_push(st, r->t_ns + r->lat_ns);
		st->qd_total += st->qd_n;
		st->qd_samples += 1;
		st->qd_sum[idx] += st->qd_n;
		if (st->qd_n > st->iv[idx].qd_max)
			st->iv[idx].qd_max = st->qd_n;
	}
	/* streams */
	if (r->stream) {
		sa = get_stream(st, r->stream);
		if (sa) {
			if (!sa->pub.count)
				sa->pub.first_t_ns = r->t_ns;
			sa->pub.count++;
			sa->pub.bytes += r->len;
			sa->pub.last_t_ns = r->t_ns;
			if (r->op == IST_OP_READ)
				sa->pub.reads++;
			if (r->flags & IST_F_COMMIT)
				sa->pub.commits++;
		}
	}
	if (!rw || !r->len)
		return 0;
	/* reads and writes: sizes, sequentiality, space */
	st->rw++;
	a->rw++;
	count_size(st, r->len);
	for (unsigned i = 0; i < a->nends; i++) {
		if (a->ends[i] == r->offset) {
			st->seq++;
			a->seq++;
			/* a stream continues: replace its end in place */
			a->ends[i] = r->offset + r->len;
			goto seq_done;
		}
	}
	a->ends[a->ends_pos] = r->offset + r->len;
	a->ends_pos = (a->ends_pos + 1) % RPT_SEQ_RECENT;
	if (a->nends < RPT_SEQ_RECENT)
		a->nends++;
seq_done:
	if (sa) {
		if (sa->pub.count > 1 && sa->last_dev == r->dev &&
		    sa->last_end == r->offset)
			st->stream_seq++;
		sa->last_end = r->offset + r->len;
		sa->last_dev = r->dev;
	}
	if (r->offset + r->len > a->max_end)
		a->max_end = r->offset + r->len;
	dev_bucket(a, r->offset);
	for (uint64_t b = r->offset / st->block,
		      e = (r->offset + r->len - 1) / st->block; b <= e; b++)
		ws_insert(st, mix64(b * 0x9e3779b97f4a7c15ull ^ r->dev) | 1);
	return 0;
}

int rpt_stats_add(struct rpt_stats *st, const struct ist_record *recs,
		  size_t n)
{
	if (st->finished)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int rc = add_one(st, &recs[i]);

		if (rc < 0)
			return rc;
	}
	return 0;
}

struct piece {
	double density; /* I/Os per byte */
	double bytes;
	double ios;
};

static int cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	return x->density < y->density ? 1 : x->density > y->density ? -1 : 0;
}

/* Pieces of address space (a device's buckets, clipped to its size). */
static unsigned dev_pieces(const struct dev_acc *a, struct piece *out)
{
	uint64_t space = a->hint ? a->hint : a->max_end;
	double w = (double)a->range / RPT_SKEW_BUCKETS;
	unsigned n = 0;

	if (space > a->range)
		space = a->range;
	for (unsigned i = 0; i < RPT_SKEW_BUCKETS; i++) {
		double lo = i * w, hi = lo + w, bytes;

		if (lo >= (double)space)
			break;
		bytes = (hi > (double)space ? (double)space : hi) - lo;
		out[n].bytes = bytes;
		out[n].ios = (double)a->bucket[i];
		out[n].density = out[n].ios / bytes;
		n++;
	}
	return n;
}

static struct rpt_skew skew_of(struct piece *p, unsigned n)
{
	struct rpt_skew k = { 0, 0, 0 };
	double total_b = 0, total_io = 0;
	const double pct[3] = { 0.01, 0.10, 0.20 };
	double *out[3] = { &k.top1, &k.top10, &k.top20 };

	for (unsigned i = 0; i < n; i++) {
		total_b += p[i].bytes;
		total_io += p[i].ios;
	}
	if (total_io <= 0 || total_b <= 0)
		return k;
	qsort(p, n, sizeof(*p), cmp_piece);
	for (unsigned j = 0; j < 3; j++) {
		double budget = pct[j] * total_b, ios = 0;

		for (unsigned i = 0; i < n && budget > 0; i++) {
			double take = p[i].bytes < budget ? p[i].bytes : budget;

			ios += p[i].ios * take / p[i].bytes;
			budget -= take;
		}
		*out[j] = ios / total_io;
	}
	return k;
}

static int cmp_stream(const void *a, const void *b)
{
	const struct rpt_stream *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int rpt_stats_finish(struct rpt_stats *st)
{
	struct rpt_summary *s = &st->sum;
	uint64_t rd = s->count[IST_OP_READ], wr = s->count[IST_OP_WRITE];
	struct piece *all;
	unsigned nall = 0;
	double *iops;
	unsigned niops = 0, best = 0;

	if (st->finished)
		return 0;
	st->finished = 1;
	s->duration_s = s->records ? (double)(s->last_t_ns - s->first_t_ns) / 1e9 : 0;
	if (rd + wr) {
		s->read_share = (double)rd / (double)(rd + wr);
		s->mean_size = (double)(s->bytes[0] + s->bytes[1]) / (double)(rd + wr);
	}
	if (s->bytes[0] + s->bytes[1])
		s->read_bytes_share = (double)s->bytes[0] /
				      (double)(s->bytes[0] + s->bytes[1]);
	s->mean_read_size = rd ? (double)s->bytes[0] / (double)rd : 0;
	s->mean_write_size = wr ? (double)s->bytes[1] / (double)wr : 0;
	for (unsigned i = 0; i < SIZE_SLOTS; i++)
		if (st->size_cnt[i] > st->size_cnt[best] ||
		    (st->size_cnt[i] == st->size_cnt[best] &&
		     st->size_key[i] < st->size_key[best]))
			best = i;
	if (st->size_cnt[best]) {
		s->mode_size = st->size_key[best];
		s->mode_share = (double)st->size_cnt[best] / (double)st->rw;
	}
	if (st->rw) {
		s->seq_share = (double)st->seq / (double)st->rw;
		s->stream_seq_share = (double)st->stream_seq / (double)st->rw;
	}
	s->ia_mean_ns = st->ia_mean;
	if (st->ia_n > 1 && st->ia_mean > 0) {
		double sd = sqrt(st->ia_m2 / (st->ia_n - 1));

		s->ia_cv = sd / st->ia_mean;
		s->burstiness = (sd - st->ia_mean) / (sd + st->ia_mean);
	}
	if (s->duration_s > 0) {
		s->iops = (double)s->records / s->duration_s;
		s->mbps = (double)(s->bytes[0] + s->bytes[1]) / s->duration_s / 1e6;
	}
	for (unsigned i = 0; i < st->niv; i++) {
		struct rpt_interval *v = &st->iv[i];

		v->start_ns = i * st->interval_ns;
		v->iops = (double)v->count * 1e9 / (double)st->interval_ns;
		v->mbps = (double)v->bytes * 1e3 / (double)st->interval_ns;
		v->qd_mean = v->count ? st->qd_sum[i] / (double)v->count : 0;
		if (v->iops > s->peak_iops)
			s->peak_iops = v->iops;
	}
	/* skew: per device, and over all devices' address space */
	all = malloc((size_t)(st->ndev ? st->ndev : 1) * RPT_SKEW_BUCKETS *
		     sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (unsigned d = 0; d < st->ndev; d++) {
		struct dev_acc *a = st->dev[d];
		uint64_t drd = a->pub.count[0], dwr = a->pub.count[1];
		unsigned n = dev_pieces(a, all + nall);

		a->pub.size = a->hint ? a->hint : a->max_end;
		a->pub.read_share = drd + dwr ? (double)drd / (double)(drd + dwr) : 0;
		a->pub.mean_size = drd + dwr ? (double)(a->pub.bytes[0] + a->pub.bytes[1]) /
					       (double)(drd + dwr) : 0;
		a->pub.seq_share = a->rw ? (double)a->seq / (double)a->rw : 0;
		{
			struct piece *copy = malloc(n * sizeof(*copy) + 1);

			if (!copy) {
				free(all);
				return -ENOMEM;
			}
			memcpy(copy, all + nall, n * sizeof(*copy));
			a->pub.skew = skew_of(copy, n);
			free(copy);
		}
		nall += n;
	}
	s->skew = skew_of(all, nall);
	free(all);
	s->working_set = (uint64_t)((double)st->ws_used * (double)(1ull << 32) /
				    (double)st->ws_thresh * st->block);
	/* streams: sorted by activity; per-stream IOPS over its active time */
	st->sorted = malloc((st->nstreams + 1) * sizeof(*st->sorted));
	iops = malloc((st->nstreams + 1) * sizeof(*iops));
	if (!st->sorted || !iops) {
		free(iops);
		return -ENOMEM;
	}
	for (uint32_t i = 0, k = 0; i < RPT_MAX_STREAMS * 2; i++) {
		struct rpt_stream *p;

		if (!st->streams[i].used)
			continue;
		p = &st->sorted[k++];
		*p = st->streams[i].pub;
		if (p->count > 1 && p->last_t_ns > p->first_t_ns) {
			p->iops = (double)(p->count - 1) * 1e9 /
				  (double)(p->last_t_ns - p->first_t_ns);
			iops[niops++] = p->iops;
		}
	}
	qsort(st->sorted, st->nstreams, sizeof(*st->sorted), cmp_stream);
	s->streams = st->nstreams;
	s->streams_exact = !st->streams_full;
	if (niops) {
		double tot = 0;

		for (unsigned i = 0; i < niops; i++)
			tot += iops[i];
		qsort(iops, niops, sizeof(*iops), cmp_double);
		s->stream_iops_mean = tot / niops;
		s->stream_iops_median = niops & 1 ? iops[niops / 2] :
			(iops[niops / 2 - 1] + iops[niops / 2]) / 2;
	}
	free(iops);
	if (s->commits) {
		s->ios_per_txn = (double)s->txn_ios / (double)s->commits;
		s->flushes_per_commit = (double)s->txn_flushes / (double)s->commits;
	}
	if (st->lat_n)
		s->lat_mean_ns = st->lat_sum / (double)st->lat_n;
	if (st->qd_samples > 0) {
		s->qd_mean = st->qd_total / st->qd_samples;
		for (unsigned i = 0; i < st->niv; i++)
			if (st->iv[i].qd_max > s->qd_max)
				s->qd_max = (double)st->iv[i].qd_max;
	}
	return 0;
}

const struct rpt_summary *rpt_stats_summary(const struct rpt_stats *st)
{
	return &st->sum;
}

unsigned rpt_stats_device_count(const struct rpt_stats *st)
{
	return st->ndev;
}

const struct rpt_device *rpt_stats_device(const struct rpt_stats *st,
					  unsigned i)
{
	return i < st->ndev ? &st->dev[i]->pub : NULL;
}

unsigned rpt_stats_stream_count(const struct rpt_stats *st)
{
	return st->sorted ? st->nstreams : 0;
}

const struct rpt_stream *rpt_stats_stream(const struct rpt_stats *st,
					  unsigned i)
{
	return st->sorted && i < st->nstreams ? &st->sorted[i] : NULL;
}

unsigned rpt_stats_interval_count(const struct rpt_stats *st)
{
	return st->niv;
}

const struct rpt_interval *rpt_stats_interval(const struct rpt_stats *st,
					      unsigned i)
{
	return i < st->niv ? &st->iv[i] : NULL;
}

uint64_t rpt_stats_interval_ns(const struct rpt_stats *st)
{
	return st->interval_ns;
}

uint64_t rpt_stats_size_hist(const struct rpt_stats *st, unsigned k)
{
	return k < RPT_SIZE_LOG2 ? st->size_hist[k] : 0;
}

uint64_t rpt_stats_ia_hist(const struct rpt_stats *st, unsigned k)
{
	return k < RPT_IA_LOG2 ? st->ia_hist[k] : 0;
}
