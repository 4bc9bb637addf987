/* SPDX-License-Identifier: MIT */
/* annotate.c - commit markers, transactions, dependencies and inferred
 * streams for closed-loop replay of captured traces. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/annotate.h"
#include "core/u64map.h"

#define SMALL_WRITE (64u << 10)

struct stream_state {
	uint64_t last_done;   /* latest completion among issued I/Os   */
	uint64_t own_done;    /* the same without flushes moved to it   */
	uint64_t txn_counter; /* transactions ended so far             */
	uint64_t ios_in_txn;
	int seen;
	/* group commits */
	int in_sec;           /* between its first log write and its commit */
	uint64_t commit_end;  /* recorded end of its last commit           */
	double acc;           /* commits owed to its cycles, not yet emitted */
	double gap_mean;      /* mean think time of its commit cycles       */
	uint64_t ngaps;
};

struct done_ev {
	uint64_t done;
	uint64_t chain;
	double think;   /* the chain's typical gap from completion to issue */
	int has_think;
};

/* flush_owner: the writers of a device not yet covered by a flush */
#define ANN_PENDING 32
struct dev_writers {
	uint64_t stream[ANN_PENDING], done[ANN_PENDING];
	unsigned n;
};

struct ann_state {
	struct ann_opts o;
	struct dev_writers *devw;
	unsigned ndevw;
	int log_dev;
	int infer;
	struct u64map streams;
	struct ann_report rep;
	/* stream inference */
	struct done_ev *heap;  /* in-flight I/Os by completion time */
	size_t nheap, heap_cap;
	struct done_ev *recent; /* completed, unclaimed, by completion time */
	size_t recent_head, nrecent, recent_cap;
	uint64_t *idle;        /* chain ids free for reuse */
	size_t nidle, idle_cap;
	uint64_t next_chain;
	int moved;             /* flush_owner moved the current record */
	struct ist_record *out; /* ann_process_split's output */
	size_t nout, out_cap;
};

void ann_devstat_add(struct ann_devstat *ds, unsigned ndev,
		     const struct ist_record *r)
{
	struct ann_devstat *d;

	if (r->dev >= ndev)
		return;
	d = &ds[r->dev];
	d->records++;
	switch (r->op) {
	case IST_OP_READ:
		d->reads++;
		break;
	case IST_OP_FLUSH:
		d->flushes++;
		break;
	case IST_OP_WRITE:
		d->writes++;
		d->write_bytes += r->len;
		if (r->len <= SMALL_WRITE)
			d->small_writes++;
		/* appends, or rewrites of the log's current block */
		if (d->writes > 1 && (r->offset == d->last_end ||
				      (r->offset < d->last_end &&
				       d->last_end - r->offset <= 8192)))
			d->seq_writes++;
		if (r->flags & (IST_F_SYNC | IST_F_FUA | IST_F_PREFLUSH))
			d->sync_writes++;
		d->last_end = r->offset + r->len;
		break;
	default:
		break;
	}
}

int ann_detect_log_dev(const struct ann_devstat *ds, unsigned ndev,
		       double *confidence)
{
	int best = -1;
	double best_score = 0;

	for (unsigned i = 0; i < ndev; i++) {
		const struct ann_devstat *d = &ds[i];
		double w, seq, small, wr, sync, score;

		if (d->writes < 16)
			continue;
		w = (double)d->writes;
		seq = (double)d->seq_writes / (w - 1);
		small = (double)d->small_writes / w;
		wr = w / (double)(d->reads + d->writes);
		sync = (double)(d->sync_writes + d->flushes) / w;
		if (sync > 1)
			sync = 1;
		score = 0.4 * seq + 0.2 * small + 0.2 * wr + 0.2 * sync;
		if (score > best_score) {
			best_score = score;
			best = (int)i;
		}
	}
	/* a device is a log only when it looks clearly like one */
	if (best >= 0 && best_score < 0.7)
		best = -1;
	if (confidence)
		*confidence = best >= 0 ? best_score : 0;
	return best;
}

int ann_rule_parse(const char *s, struct ann_rule *rule)
{
	char *copy = strdup(s), *save = NULL, *tok;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	memset(rule, 0, sizeof(*rule));
	rule->dev = -1;
	rule->op = -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		char *end;

		if (!eq) {
			ret = IST_EPARSE;
			break;
		}
		*eq++ = '\0';
		if (!strcmp(tok, "dev")) {
			if (!strcmp(eq, "log")) {
				rule->log_dev_only = 1;
			} else {
				long v = strtol(eq, &end, 10);

				if (!*eq || *end || v < 0 || v > 65535) {
					ret = IST_EPARSE;
					break;
				}
				rule->dev = (int)v;
			}
		} else if (!strcmp(tok, "op")) {
			int op = ist_op_parse(eq, strlen(eq));

			if (op < 0) {
				ret = IST_EPARSE;
				break;
			}
			rule->op = op;
		} else if (!strcmp(tok, "flags")) {
			int fl = ist_flags_parse(eq, strlen(eq));

			if (fl <= 0) {
				ret = IST_EPARSE;
				break;
			}
			rule->flags = (unsigned)fl;
		} else {
			ret = IST_EPARSE;
			break;
		}
	}
	free(copy);
	/* no field at all ('' or ','): a rule that every I/O meets, each
	 * a commit - a mistake, not a wish */
	if (!ret && rule->dev < 0 && rule->op < 0 && !rule->flags && !rule->log_dev_only)
		ret = IST_EPARSE;
	return ret;
}

int ann_new(ann_state **ap, const struct ann_opts *opts, int log_dev,
	    double log_confidence, int infer_streams)
{
	ann_state *a = calloc(1, sizeof(*a));

	*ap = NULL;
	if (!a)
		return -ENOMEM;
	a->o = *opts;
	if (!a->o.dep_window_ns)
		a->o.dep_window_ns = 2000000;
	if (!a->o.nrules) {
		/* the default commit markers: a flush, or a write that must be
		 * durable (FUA, preflush), on the log device - or anywhere when
		 * no device looks like a log */
		a->o.rules[0] = (struct ann_rule){ .dev = -1, .op = IST_OP_FLUSH,
			.log_dev_only = log_dev >= 0 };
		a->o.rules[1] = (struct ann_rule){ .dev = -1, .op = IST_OP_WRITE,
			.flags = IST_F_FUA, .log_dev_only = log_dev >= 0 };
		a->o.rules[2] = (struct ann_rule){ .dev = -1, .op = IST_OP_WRITE,
			.flags = IST_F_PREFLUSH, .log_dev_only = log_dev >= 0 };
		a->o.nrules = 3;
	}
	a->log_dev = log_dev;
	a->infer = infer_streams;
	a->rep.log_dev = log_dev;
	a->rep.log_dev_given = opts->log_dev >= 0;
	a->rep.log_confidence = log_confidence;
	a->rep.streams_inferred = infer_streams;
	a->next_chain = 1;
	if (u64map_init(&a->streams, sizeof(struct stream_state), 64)) {
		free(a);
		return -ENOMEM;
	}
	*ap = a;
	return 0;
}

static int is_marker(const ann_state *a, const struct ist_record *r)
{
	for (unsigned i = 0; i < a->o.nrules; i++) {
		const struct ann_rule *ru = &a->o.rules[i];

		if (ru->log_dev_only && (a->log_dev < 0 || r->dev != (unsigned)a->log_dev))
			continue;
		if (ru->dev >= 0 && r->dev != (unsigned)ru->dev)
			continue;
		if (ru->op >= 0 && r->op != (unsigned)ru->op)
			continue;
		if ((r->flags & ru->flags) != ru->flags)
			continue;
		return 1;
	}
	return 0;
}

/* --- flush owners ------------------------------------------------------ */

static struct dev_writers *dev_writers(ann_state *a, unsigned dev)
{
	if (dev >= a->ndevw) {
		unsigned n = dev + 1;
		struct dev_writers *d = realloc(a->devw, n * sizeof(*d));

		if (!d)
			return NULL;
		memset(d + a->ndevw, 0, (n - a->ndevw) * sizeof(*d));
		a->devw = d;
		a->ndevw = n;
	}
	return &a->devw[dev];
}

static void writers_drop(struct dev_writers *d, unsigned i)
{
	memmove(d->stream + i, d->stream + i + 1, (d->n - i - 1) * sizeof(*d->stream));
	memmove(d->done + i, d->done + i + 1, (d->n - i - 1) * sizeof(*d->done));
	d->n--;
}

/*
 * A write makes its stream a writer of the device until a flush covers it;
 * a flush issued by a stream that is not one of them (the kernel issues
 * fsync's flush from a worker) belongs to the writer that waits on it: the
 * latest whose write had completed when the flush was issued (the latest
 * writer when none had).
 */
static int flush_owner(ann_state *a, struct ist_record *r)
{
	struct dev_writers *d;
	unsigned i, pick;

	if (r->op != IST_OP_WRITE && r->op != IST_OP_FLUSH)
		return 0;
	d = dev_writers(a, r->dev);
	if (!d)
		return -ENOMEM;
	for (i = 0; i < d->n && d->stream[i] != r->stream; i++)
		;
	if (r->op == IST_OP_WRITE) {
		if (!r->stream)
			return 0;
		if (i < d->n)
			writers_drop(d, i);
		else if (d->n == ANN_PENDING)
			writers_drop(d, 0);
		d->stream[d->n] = r->stream;
		d->done[d->n++] = r->t_ns + r->lat_ns;
		return 0;
	}
	if (i < d->n) { /* the writer flushed itself */
		writers_drop(d, i);
		return 0;
	}
	if (!d->n)
		return 0;
	pick = d->n - 1;
	for (i = d->n; i-- > 0;)
		if (d->done[i] <= r->t_ns) {
			pick = i;
			break;
		}
	r->stream = d->stream[pick];
	writers_drop(d, pick);
	a->rep.flushes_moved++;
	a->moved = 1;
	return 0;
}

/* --- stream inference: dependency chains from timing ------------------ */

static void heap_push(ann_state *a, struct done_ev ev)
{
	size_t i = a->nheap++;

	while (i) {
		size_t p = (i - 1) / 2;

		if (a->heap[p].done <= ev.done)
			break;
		a->heap[i] = a->heap[p];
		i = p;
	}
	a->heap[i] = ev;
}

static struct done_ev heap_pop(ann_state *a)
{
	struct done_ev top = a->heap[0], last = a->heap[--a->nheap];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= a->nheap)
			break;
		if (c + 1 < a->nheap && a->heap[c + 1].done < a->heap[c].done)
			c++;
		if (last.done <= a->heap[c].done)
			break;
		a->heap[i] = a->heap[c];
		i = c;
	}
	if (a->nheap)
		a->heap[i] = last;
	return top;
}

static int grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*arr, n * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

static int chain_release(ann_state *a, uint64_t chain)
{
	if (grow_array((void **)&a->idle, &a->idle_cap, a->nidle + 1, sizeof(uint64_t)))
		return -ENOMEM;
	a->idle[a->nidle++] = chain;
	return 0;
}

/* Assigns r to a chain: the one whose I/O completed most recently before
 * r was issued (within the window) - r then depends on it - or a new one. */
static int infer_stream(ann_state *a, struct ist_record *r)
{
	uint64_t t = r->t_ns, chain;
	int dependent = 0, has_think = 0;
	double think = 0;

	/* move completions up to t from the in-flight heap to recent */
	while (a->nheap && a->heap[0].done <= t) {
		struct done_ev ev = heap_pop(a);
		size_t tail;

		if (a->recent_head && a->recent_head == a->nrecent) {
			a->recent_head = a->nrecent = 0;
		}
		if (grow_array((void **)&a->recent, &a->recent_cap, a->nrecent + 1,
			       sizeof(struct done_ev)))
			return -ENOMEM;
		tail = a->nrecent++;
		a->recent[tail] = ev;
	}
	/* completions older than the window: their chains go idle */
	while (a->recent_head < a->nrecent &&
	       a->recent[a->recent_head].done + a->o.dep_window_ns < t) {
		if (a->recent[a->recent_head].chain &&
		    chain_release(a, a->recent[a->recent_head].chain))
			return -ENOMEM;
		a->recent_head++;
	}
	if (a->recent_head > 4096 && a->recent_head * 2 > a->nrecent) {
		memmove(a->recent, a->recent + a->recent_head,
			(a->nrecent - a->recent_head) * sizeof(*a->recent));
		a->nrecent -= a->recent_head;
		a->recent_head = 0;
	}
	/* The likeliest cause among the unclaimed completions in the window:
	 * the one whose gap to t best matches its chain's usual think time;
	 * a chain without history scores its gap (the latest wins). */
	chain = 0;
	{
		size_t best = 0;
		double best_score = 0;

		for (size_t i = a->recent_head; i < a->nrecent; i++) {
			const struct done_ev *ev = &a->recent[i];
			double gap = (double)(t - ev->done), score;

			if (!ev->chain)
				continue;
			score = ev->has_think ? (gap > ev->think ? gap - ev->think :
						 ev->think - gap) : gap;
			if (!chain || score <= best_score) {
				chain = ev->chain;
				best = i;
				best_score = score;
			}
		}
		if (chain) {
			const struct done_ev *ev = &a->recent[best];
			double gap = (double)(t - ev->done);

			think = ev->has_think ? 0.7 * ev->think + 0.3 * gap : gap;
			has_think = 1;
			a->recent[best].chain = 0; /* claimed */
			dependent = 1;
		}
	}
	if (!chain)
		chain = a->nidle ? a->idle[--a->nidle] : a->next_chain++;
	r->stream = chain;
	if (dependent)
		r->flags |= IST_F_DEPENDENT;
	if (grow_array((void **)&a->heap, &a->heap_cap, a->nheap + 1, sizeof(struct done_ev)))
		return -ENOMEM;
	heap_push(a, (struct done_ev){ .done = t + r->lat_ns, .chain = chain,
				       .think = think, .has_think = has_think });
	if (a->nheap > a->rep.chains_max_inflight)
		a->rep.chains_max_inflight = a->nheap;
	return 0;
}

/*
 * Dependencies and transactions of a record of a known stream.  A flush
 * that flush_owner moved to the stream may still be in flight when the
 * stream issues its next I/O: then the stream was not waiting on it (the
 * flush was another's, or its completion was recorded after the waiter
 * had been released, as when a flush held up behind a throttled write
 * covers several fsyncs), and the I/O depends on the stream's own earlier
 * I/Os only.  Otherwise the closed loop would keep it at its recorded
 * distance from the previous issue, the source's stall included.
 */
static int stream_txn(ann_state *a, struct ist_record *r)
{
	struct stream_state *s;
	int created, moved = a->moved && r->op == IST_OP_FLUSH;

	if (!r->stream)
		return 0; /* unknown issuer: no dependency, no txn */
	s = u64map_upsert(&a->streams, r->stream, &created);
	if (!s)
		return -ENOMEM;
	if (!a->infer && s->seen && r->lat_ns && s->last_done &&
	    r->t_ns >= s->last_done)
		r->flags |= IST_F_DEPENDENT;
	else if (!a->infer && s->seen && r->lat_ns && s->own_done &&
		 r->t_ns >= s->own_done) {
		r->flags |= IST_F_DEPENDENT;
		a->rep.dep_past_moved++;
	}
	s->seen = 1;
	if (r->t_ns + r->lat_ns > s->last_done)
		s->last_done = r->t_ns + r->lat_ns;
	if (!moved && r->t_ns + r->lat_ns > s->own_done)
		s->own_done = r->t_ns + r->lat_ns;
	if (r->flags & IST_F_DEPENDENT)
		a->rep.dependent++;
	if (!(a->o.keep_existing && r->txn)) {
		r->txn = s->txn_counter + 1;
		s->ios_in_txn++;
		if (is_marker(a, r) ||
		    (a->o.txn_per && s->ios_in_txn >= a->o.txn_per)) {
			r->flags |= IST_F_COMMIT;
			if (is_marker(a, r))
				a->rep.markers++;
			s->txn_counter++;
			s->ios_in_txn = 0;
			a->rep.txns++;
		}
	}
	return 0;
}

/* What every record goes through first: flags reset, streams inferred,
 * flushes given to their owner. */
static int prepare(ann_state *a, struct ist_record *r)
{
	int ret = 0;

	a->rep.records++;
	a->moved = 0;
	if (!a->o.keep_existing)
		r->flags &= (uint16_t)~(IST_F_COMMIT | IST_F_DEPENDENT);
	if (!r->lat_ns)
		a->rep.without_latency++;
	if (a->infer)
		ret = infer_stream(a, r);
	if (!ret && a->o.flush_owner)
		ret = flush_owner(a, r);
	return ret;
}

int ann_process(ann_state *a, struct ist_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int ret = prepare(a, &recs[i]);

		if (!ret)
			ret = stream_txn(a, &recs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static int out_push(ann_state *a, const struct ist_record *r)
{
	if (grow_array((void **)&a->out, &a->out_cap, a->nout + 1, sizeof(*a->out)))
		return -ENOMEM;
	a->out[a->nout] = *r;
	return stream_txn(a, &a->out[a->nout++]);
}

/* Is r a write or flush of the commit (log) device? */
static int on_log(const ann_state *a, const struct ist_record *r)
{
	return (r->op == IST_OP_WRITE || r->op == IST_OP_FLUSH) &&
	       (a->log_dev < 0 || r->dev == (unsigned)a->log_dev);
}

/*
 * Group commits: a commit cycle of a stream (from its previous commit's
 * end to its next write of the log) carried group_commits transactions on
 * average; all but one had no I/O of their own.  Each cycle adds G - 1 to
 * the commits the stream owes; a cycle at least as long as the mean of
 * the stream's think times so far takes all of those owed, a shorter one
 * the share 2 gap / (gap + mean) (rounded down, the rest owed on): a
 * backend that went long without a flush of its own carried more
 * transactions, and the stream's cycles carry G on average in all (but
 * for the fraction owed at its end).  Before the cycle's first log write,
 * the commits taken (a copy of the write and a flush, of 1 ns recorded
 * latency) are inserted, evenly over the cycle's think time, so that each
 * transaction has its share of it and its own commit.
 * (Before 2026-12-04 a cycle took G times its think time over the mean, at
 * least one, that one charged to the remainder: with think times skewed
 * to the short side, a pgbench -N capture on a loaded CPU got 0.11 of its
 * 0.40 commits a cycle inserted.)
 */
static int split_cycle(ann_state *a, const struct ist_record *r)
{
	struct stream_state *s;
	int created;
	unsigned k;
	double gap, share;

	if (!r->stream || !on_log(a, r))
		return 0;
	s = u64map_upsert(&a->streams, r->stream, &created);
	if (!s)
		return -ENOMEM;
	if (s->in_sec || r->op != IST_OP_WRITE) {
		s->in_sec = 1;
		return 0;
	}
	s->in_sec = 1;
	if (!s->commit_end || r->t_ns <= s->commit_end)
		return 0;
	/* G - 1 more owed a cycle; the longer the cycle's think time, the
	 * more of them it takes (a backend that went long without a flush
	 * of its own carried more transactions) */
	gap = (double)(r->t_ns - s->commit_end);
	s->gap_mean += (gap - s->gap_mean) / (double)++s->ngaps;
	s->acc += a->o.group_commits - 1;
	share = 2 * gap / (gap + s->gap_mean);
	k = (unsigned)(s->acc * (share < 1 ? share : 1));
	s->acc -= k;
	k++; /* and the cycle's own commit */
	for (unsigned j = 1; j < k; j++) {
		struct ist_record w = *r, f = *r;
		uint64_t t = s->commit_end + (r->t_ns - s->commit_end) * j / k;
		int ret;

		w.t_ns = t;
		w.lat_ns = 1;
		w.txn = 0;
		f.t_ns = t + 1;
		f.lat_ns = 1;
		f.op = IST_OP_FLUSH;
		f.offset = 0;
		f.len = 0;
		f.flags = 0;
		f.txn = 0;
		ret = out_push(a, &w);
		if (!ret)
			ret = out_push(a, &f);
		if (ret)
			return ret;
		a->rep.split_added++;
	}
	return 0;
}

int ann_process_split(ann_state *a, struct ist_record *recs, size_t n,
		      const struct ist_record **out, size_t *nout)
{
	a->nout = 0;
	for (size_t i = 0; i < n; i++) {
		struct ist_record *r = &recs[i];
		int ret = prepare(a, r);

		if (!ret && a->o.group_commits > 1)
			ret = split_cycle(a, r);
		if (!ret)
			ret = out_push(a, r);
		if (ret)
			return ret;
		r = &a->out[a->nout - 1];
		if ((r->flags & IST_F_COMMIT) && r->stream && on_log(a, r)) {
			int created;
			struct stream_state *s = u64map_upsert(&a->streams, r->stream, &created);

			if (!s)
				return -ENOMEM;
			s->in_sec = 0;
			s->commit_end = r->t_ns + r->lat_ns;
		}
	}
	*out = a->out;
	*nout = a->nout;
	return 0;
}

void ann_finish(ann_state *a, struct ann_report *rep)
{
	a->rep.streams = a->streams.count;
	*rep = a->rep;
	u64map_free(&a->streams);
	free(a->heap);
	free(a->recent);
	free(a->idle);
	free(a->devw);
	free(a->out);
	free(a);
}
