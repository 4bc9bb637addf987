/* SPDX-License-Identifier: MIT */
/* backend_null.c - the null back-end: I/Os complete at once, after a fixed latency, or after latencies given per op. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "replay/internal.h"

/* In-flight I/Os in the order of their completion times: a list of slot
 * indices through rpl_slot.next (with a fixed latency, submission order:
 * each new one goes at the tail).  With latency lists
 * (rpl_opts.null_lat_list) an I/O may complete before one issued earlier:
 * inserted in place, after those due at the same time. */
struct null_priv {
	unsigned head, tail; /* slot indices, UINT32_MAX = empty */
	size_t next[IST_OP_COUNT]; /* position in each op's latency list */
	size_t *dnext;       /* the same in the per-device lists */
	uint64_t *unlisted;  /* per (trace device, op): no list served it */
};

static int null_init(struct rpl_worker *w)
{
	const struct rpl_run *r = w->run;
	struct null_priv *n = calloc(1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	n->head = n->tail = UINT32_MAX;
	w->be_priv = n;
	if (r->o.null_lat_ndev &&
	    !(n->dnext = calloc((size_t)r->o.null_lat_ndev * IST_OP_COUNT, sizeof(*n->dnext))))
		return -ENOMEM;
	if (r->null_unlisted &&
	    !(n->unlisted = calloc((size_t)(r->ndev + 1) * IST_OP_COUNT, sizeof(*n->unlisted))))
		return -ENOMEM;
	if (w->id == 0)
		rpl_feature(w->run, w->run->o.virtual_clock ? "virtual_clock" : "null");
	return 0;
}

static void null_fini(struct rpl_worker *w)
{
	struct rpl_run *r = w->run;
	struct null_priv *n = w->be_priv;

	if (!n)
		return;
	for (size_t i = 0; n->unlisted && i < (size_t)(r->ndev + 1) * IST_OP_COUNT; i++)
		if (n->unlisted[i])
			__atomic_fetch_add(&r->null_unlisted[i], n->unlisted[i], __ATOMIC_RELAXED);
	free(n->dnext);
	free(n->unlisted);
	free(n);
	w->be_priv = NULL;
}

/* The latency of the next I/O of op on trace device dev: its device's
 * list, else its op's, else the fixed one (counted) */
static uint64_t next_latency(struct rpl_worker *w, struct null_priv *n, unsigned dev, unsigned op)
{
	const struct rpl_run *r = w->run;
	const struct rpl_opts *o = &r->o;

	if (dev < o->null_lat_ndev) {
		size_t i = (size_t)dev * IST_OP_COUNT + op;

		if (o->null_lat_dev_count[i]) {
			uint64_t lat = o->null_lat_dev_list[i][n->dnext[i]];

			if (++n->dnext[i] == o->null_lat_dev_count[i])
				n->dnext[i] = 0;
			return lat;
		}
	}
	if (o->null_lat_count[op]) {
		uint64_t lat = o->null_lat_list[op][n->next[op]];

		if (++n->next[op] == o->null_lat_count[op])
			n->next[op] = 0;
		return lat;
	}
	if (n->unlisted)
		n->unlisted[(size_t)(dev < r->ndev ? dev : r->ndev) * IST_OP_COUNT + op]++;
	return o->null_latency_ns;
}

static int null_prep(struct rpl_worker *w, struct rpl_slot *s)
{
	struct null_priv *n = w->be_priv;

	const struct rpl_opts *o = &w->run->o;
	unsigned op = s->io.rec.op < IST_OP_COUNT ? s->io.rec.op : 0;

	s->done_at = s->issue + next_latency(w, n, s->io.dev, op);
	/* --inline always: the null device completes its I/O in the issuing
	 * thread, as a RAM device does (no sleep for the completion) */
	s->io.sync = o->inline_io == RPL_INLINE_ALWAYS;
	s->next = UINT32_MAX;
	if (n->tail == UINT32_MAX) {
		n->head = n->tail = s->idx;
	} else if (w->slots[n->tail].done_at <= s->done_at) {
		w->slots[n->tail].next = s->idx;
		n->tail = s->idx;
	} else if (w->slots[n->head].done_at > s->done_at) {
		s->next = n->head;
		n->head = s->idx;
	} else {
		unsigned p = n->head;

		while (w->slots[w->slots[p].next].done_at <= s->done_at)
			p = w->slots[p].next;
		s->next = w->slots[p].next;
		w->slots[p].next = s->idx;
	}
	return 0;
}

static int null_submit(struct rpl_worker *w)
{
	(void)w;
	return 0;
}

static unsigned complete_due(struct rpl_worker *w, uint64_t now)
{
	struct null_priv *n = w->be_priv;
	unsigned done = 0;

	while (n->head != UINT32_MAX && w->slots[n->head].done_at <= now) {
		struct rpl_slot *s = &w->slots[n->head];
		int res = s->io.rec.op == IST_OP_FLUSH ? 0 : (int)s->io.rec.len;

		n->head = s->next;
		if (n->head == UINT32_MAX)
			n->tail = UINT32_MAX;
		/* Completion is stamped at its due time (exact with a virtual
		 * clock; the real clock may have passed it). */
		rpl_complete(w, s, res, w->run->o.virtual_clock ? s->done_at : now);
		done++;
	}
	return done;
}

static int null_reap(struct rpl_worker *w, uint64_t until)
{
	struct null_priv *n = w->be_priv;
	uint64_t now = rpl_now(w), due;

	if (complete_due(w, now) || !until || n->head == UINT32_MAX)
		return 0;
	due = w->slots[n->head].done_at;
	if (w->run->o.virtual_clock) {
		w->vclock = due < until ? due : until;
		complete_due(w, w->vclock);
		return 0;
	}
	if (due > until)
		due = until;
	if (due > now) {
		struct timespec ts = { (time_t)((due - now) / 1000000000ull),
				       (long)((due - now) % 1000000000ull) };

		nanosleep(&ts, NULL);
	}
	complete_due(w, rpl_mono_ns());
	return 0;
}

const struct rpl_backend_ops rpl_backend_null = {
	.name = "null",
	.init = null_init,
	.fini = null_fini,
	.prep = null_prep,
	.submit = null_submit,
	.reap = null_reap,
};
