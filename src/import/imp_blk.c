/* SPDX-License-Identifier: MIT */
/* imp_blk.c - issue/completion matching over merges, splits and requeues for block traces. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/rwbs.h"
#include "import/imp_blk.h"
#include "import/import.h"

#define MAX_PENDING (1u << 18) /* records held waiting for completion */
#define BLK_TIMEOUT_NS (30 * 1000000000ll) /* see imp_blk_open() */

struct pend {
	struct ist_record rec;
	uint64_t sector;    /* its key */
	unsigned pieces;    /* split parts still to complete */
	int state;          /* 0 pending, 1 done, 2 dropped */
	int append;         /* a zone append: in appends[], not in the map */
};

/* A zone append pending: issued at its zone's start, completed where the
 * device put it, so not found by sector in the map (imp_blk.h). */
struct append {
	uint64_t seq;
	uint64_t sector;    /* the zone's start, as issued */
	uint64_t nsect;
	uint32_t dev;
};

struct slot {
	uint64_t sector;
	uint64_t seq;       /* pending record */
	uint64_t nsect;     /* sectors this piece covers */
	uint32_t dev;
	uint32_t used;
};

struct imp_blk {
	char mode;
	int64_t timeout;
	int64_t now;
	/* ring of pending records, seq head..tail-1; cap a power of two */
	struct pend *ring;
	uint64_t cap, head, tail;
	/* (dev, sector) -> piece */
	struct slot *map;
	uint64_t mcap, mused;
	/* the zone appends pending, in issue order (as many as are in
	 * flight: searched whole at each append's completion) */
	struct append *app;
	size_t napp, capp;
	struct imp_blk_counts n;
};

int imp_blk_open(struct imp_ctx *c, struct imp_blk **mp)
{
	char ev = imp_opts(c)->event ? imp_opts(c)->event : 'D';
	char v[2] = { ev, 0 };
	int ret = imp_blk_new(mp, ev, BLK_TIMEOUT_NS);

	return ret ? ret : imp_meta(c, "blktrace_event", v);
}

int imp_blk_new(struct imp_blk **mp, char mode, int64_t timeout_ns)
{
	struct imp_blk *m = calloc(1, sizeof(*m));

	*mp = NULL;
	if (!m)
		return -ENOMEM;
	m->mode = mode;
	m->timeout = timeout_ns;
	m->cap = 1024;
	m->ring = malloc(m->cap * sizeof(*m->ring));
	m->mcap = 2048;
	m->map = calloc(m->mcap, sizeof(*m->map));
	if (!m->ring || !m->map) {
		imp_blk_free(m);
		return -ENOMEM;
	}
	*mp = m;
	return 0;
}

void imp_blk_free(struct imp_blk *m)
{
	if (!m)
		return;
	free(m->ring);
	free(m->map);
	free(m->app);
	free(m);
}

const struct imp_blk_counts *imp_blk_counts(const struct imp_blk *m)
{
	return &m->n;
}

static inline uint64_t key_hash(uint32_t dev, uint64_t sector)
{
	uint64_t h = sector * 0x9e3779b97f4a7c15ull ^ (uint64_t)dev * 0xc2b2ae3d27d4eb4full;

	return h ^ (h >> 29);
}

/*
 * A key may be in the map several times: I/Os in flight at the same
 * sector (two reads of one block), in issue order.  Linear probing finds
 * the oldest first, and deletion's backward shift never moves an entry
 * past an older one of its key (both have the same home), so completions
 * match the issues of a sector first in, first out.
 */
static struct slot *map_find(struct imp_blk *m, uint32_t dev, uint64_t sector)
{
	uint64_t mask = m->mcap - 1;

	for (uint64_t i = key_hash(dev, sector) & mask; m->map[i].used;
	     i = (i + 1) & mask)
		if (m->map[i].sector == sector && m->map[i].dev == dev)
			return &m->map[i];
	return NULL;
}

/* Linear-probing deletion with backward shift (no tombstones). */
static void map_del(struct imp_blk *m, struct slot *s)
{
	uint64_t mask = m->mcap - 1, i = s - m->map, j = i;

	for (;;) {
		uint64_t k;

		j = (j + 1) & mask;
		if (!m->map[j].used)
			break;
		k = key_hash(m->map[j].dev, m->map[j].sector) & mask;
		/* can the entry at j move to the hole at i? */
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			m->map[i] = m->map[j];
			i = j;
		}
	}
	m->map[i].used = 0;
	m->mused--;
}

static int map_grow(struct imp_blk *m)
{
	struct slot *old = m->map;
	uint64_t ocap = m->mcap;

	m->mcap *= 2;
	m->map = calloc(m->mcap, sizeof(*m->map));
	if (!m->map) {
		m->map = old;
		m->mcap = ocap;
		return -ENOMEM;
	}
	m->mused = 0;
	for (uint64_t i = 0; i < ocap; i++) {
		uint64_t mask = m->mcap - 1, j;

		if (!old[i].used)
			continue;
		for (j = key_hash(old[i].dev, old[i].sector) & mask;
		     m->map[j].used; j = (j + 1) & mask)
			;
		m->map[j] = old[i];
		m->mused++;
	}
	free(old);
	return 0;
}

static int map_put(struct imp_blk *m, uint32_t dev, uint64_t sector,
		   uint64_t seq, uint64_t nsect)
{
	struct slot *s = map_find(m, dev, sector);
	uint64_t mask, i;

	/* an older issue of the same sector still pending: a second I/O in
	 * flight there (or one that lost its completion, released by the
	 * timeout); queued behind it, not in its place, which gave the
	 * older one's completion to the newer and lost the other's */
	if (s && s->seq >= m->head && s->seq < m->tail &&
	    m->ring[s->seq & (m->cap - 1)].state == 0)
		m->n.reissued++;
	if ((m->mused + 1) * 2 > m->mcap && map_grow(m))
		return -ENOMEM;
	mask = m->mcap - 1;
	for (i = key_hash(dev, sector) & mask; m->map[i].used; i = (i + 1) & mask)
		;
	m->map[i] = (struct slot){ sector, seq, nsect, dev, 1 };
	m->mused++;
	return 0;
}

static struct pend *pend_of(struct imp_blk *m, uint64_t seq)
{
	if (seq < m->head || seq >= m->tail)
		return NULL;
	return &m->ring[seq & (m->cap - 1)];
}

static int ring_push(struct imp_blk *m, const struct blk_event *e)
{
	struct pend *p;

	if (m->tail - m->head == m->cap) {
		uint64_t ncap = m->cap * 2;
		struct pend *n = malloc(ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (uint64_t s = m->head; s < m->tail; s++)
			n[s & (ncap - 1)] = m->ring[s & (m->cap - 1)];
		free(m->ring);
		m->ring = n;
		m->cap = ncap;
	}
	p = &m->ring[m->tail & (m->cap - 1)];
	memset(p, 0, sizeof(*p));
	p->rec.t_ns = (uint64_t)e->t;
	p->rec.dev = e->dev;
	p->rec.op = e->op;
	p->rec.flags = e->flags;
	if (e->nsect == 0 && (e->flags & IST_F_PREFLUSH) &&
	    e->op == IST_OP_WRITE) {
		/* an empty write with a preflush is a cache flush */
		p->rec.op = IST_OP_FLUSH;
		p->rec.flags &= ~IST_F_PREFLUSH;
	}
	p->rec.offset = e->sector * 512;
	p->rec.len = (uint32_t)(e->nsect * 512);
	p->rec.stream = e->pid;
	p->sector = e->sector;
	p->pieces = 1;
	if (e->append && e->nsect) {
		/* never split (a zone append is issued whole) */
		if (m->napp == m->capp) {
			size_t nc = m->capp ? m->capp * 2 : 16;
			struct append *n = realloc(m->app, nc * sizeof(*n));

			if (!n)
				return -ENOMEM;
			m->app = n;
			m->capp = nc;
		}
		m->app[m->napp++] = (struct append){ m->tail, e->sector, e->nsect, e->dev };
		p->append = 1;
		m->tail++;
		return 0;
	}
	return map_put(m, e->dev, e->sector, m->tail++, e->nsect);
}

static void append_del(struct imp_blk *m, size_t i)
{
	memmove(&m->app[i], &m->app[i + 1], (m->napp - i - 1) * sizeof(*m->app));
	m->napp--;
}

static void append_del_seq(struct imp_blk *m, uint64_t seq)
{
	for (size_t i = 0; i < m->napp; i++)
		if (m->app[i].seq == seq) {
			append_del(m, i);
			return;
		}
}

/* A zone append's completion at the sector the device wrote it to: the
 * zone is that of the pending appends' start nearest below it (zones do
 * not overlap); in it, the oldest append of the completion's length, else
 * the oldest (the kernel reports the request's bytes). */
static void complete_append(struct imp_blk *m, const struct blk_event *e)
{
	size_t best = m->napp;
	int same_len = 0;

	for (size_t i = 0; i < m->napp; i++) {
		const struct append *a = &m->app[i];
		int len_ok = a->nsect == e->nsect;

		if (a->dev != e->dev || a->sector > e->sector)
			continue;
		if (best == m->napp || a->sector > m->app[best].sector ||
		    (a->sector == m->app[best].sector && len_ok && !same_len)) {
			best = i;
			same_len = len_ok;
		}
	}
	if (best == m->napp) {
		m->n.unmatched_completions++;
		return;
	}
	{
		struct pend *p = pend_of(m, m->app[best].seq);

		append_del(m, best);
		if (p && p->state == 0) {
			p->state = 1;
			p->rec.lat_ns = e->t > (int64_t)p->rec.t_ns ?
				(uint64_t)(e->t - (int64_t)p->rec.t_ns) : 1;
		}
	}
	m->n.completed++;
	if (e->error)
		m->n.errors++;
}

static void complete(struct imp_blk *m, const struct blk_event *e)
{
	uint64_t cur = e->sector, end = e->sector + e->nsect;
	int matched = 0;

	do {
		struct slot *s = map_find(m, e->dev, cur);
		struct pend *p;
		uint64_t step;

		if (!s)
			break;
		p = pend_of(m, s->seq);
		step = s->nsect;
		map_del(m, s);
		if (p && p->state == 0) {
			matched = 1;
			if (--p->pieces == 0) {
				p->state = 1;
				p->rec.lat_ns = e->t > (int64_t)p->rec.t_ns ?
					(uint64_t)(e->t - (int64_t)p->rec.t_ns) : 1;
			}
		}
		if (step == 0)
			break;
		cur += step;
	} while (cur < end);
	if (matched) {
		m->n.completed++;
		if (e->error)
			m->n.errors++;
	} else {
		m->n.unmatched_completions++;
	}
}

static void split(struct imp_blk *m, const struct blk_event *e)
{
	struct slot *s = map_find(m, e->dev, e->sector);
	struct pend *p;
	uint64_t seq, rest;

	m->n.splits++;
	if (!s || e->sector2 <= e->sector ||
	    e->sector2 >= e->sector + s->nsect)
		return;
	seq = s->seq;
	rest = e->sector + s->nsect - e->sector2;
	s->nsect = e->sector2 - e->sector;
	p = pend_of(m, seq);
	if (p && p->state == 0)
		p->pieces++;
	map_put(m, e->dev, e->sector2, seq, rest);
}

static void requeue(struct imp_blk *m, const struct blk_event *e)
{
	struct slot *s = map_find(m, e->dev, e->sector);
	struct pend *p;

	m->n.requeues++;
	if (m->mode == 'D' && e->append) {
		/* requeued before the device wrote it: still at the zone's
		 * start, where it is issued again */
		for (size_t i = 0; i < m->napp; i++)
			if (m->app[i].dev == e->dev && m->app[i].sector == e->sector) {
				p = pend_of(m, m->app[i].seq);
				if (p && p->state == 0)
					p->state = 2;
				append_del(m, i);
				return;
			}
		return;
	}
	if (m->mode != 'D' || !s)
		return;
	/* the request will be issued again: that issue is the record */
	p = pend_of(m, s->seq);
	if (p && p->state == 0)
		p->state = 2;
	map_del(m, s);
}

/*
 * The event of the mode becomes a record, but for an operation that moves
 * no data and is no flush (op -1): no IST operation says what it did, so
 * it is skipped, counted by its kind (imp_blk.h).
 */
static int record_event(struct imp_blk *m, const struct blk_event *e)
{
	if (e->op < 0) {
		if (e->skip == IMP_BLK_ZONE)
			m->n.zone_mgmt++;
		else
			m->n.no_data++;
		return 0;
	}
	return ring_push(m, e);
}

int imp_blk_event(struct imp_blk *m, const struct blk_event *e)
{
	if (e->t > m->now)
		m->now = e->t;
	if (e->skip == IMP_BLK_PC) {
		/* no sector: nothing of it is matched; its issue is counted
		 * (a passthrough request is never a queued bio: no Q) */
		if (e->action == 'D')
			m->n.packet_commands++;
		return 0;
	}
	switch (e->action) {
	case 'Q':
		m->n.queued++;
		if (m->mode == 'Q')
			return record_event(m, e);
		return 0;
	case 'D':
		m->n.issued++;
		if (m->mode == 'D')
			return record_event(m, e);
		return 0;
	case 'C':
		/* a skipped no-data op's completion (or requeue, below)
		 * would be taken for that of another I/O pending at its
		 * sector (the kernel gives both the request's bytes: a
		 * read has some) */
		if (e->op < 0)
			return 0;
		if (e->append)
			complete_append(m, e);
		else
			complete(m, e);
		return 0;
	case 'M':
	case 'F':
		m->n.merges++;
		return 0;
	case 'X':
		/* not checked: a skipped op left no piece to split, and a
		 * split event's bytes (hence its op) are not reliable */
		split(m, e);
		return 0;
	case 'A':
		m->n.remaps++;
		return 0;
	case 'R':
		if (e->op >= 0)
			requeue(m, e);
		else
			m->n.requeues++;
		return 0;
	default:
		m->n.ignored++;
		return 0;
	}
}

void imp_blk_classify(struct blk_event *e)
{
	/* ring_push() makes a flush of an empty write with a preflush */
	if (e->op == IST_OP_WRITE && !e->nsect && !(e->flags & IST_F_PREFLUSH)) {
		e->op = -1;
		e->skip = IMP_BLK_ZONE;
	}
}

int imp_blk_zero_len(const struct imp_blk *m, const struct blk_event *e)
{
	if (e->action != m->mode || e->nsect || e->op < 0 || e->op == IST_OP_FLUSH)
		return 0;
	return !(e->op == IST_OP_WRITE && (e->flags & IST_F_PREFLUSH));
}

int imp_blk_pop(struct imp_blk *m, struct ist_record *rec, int at_end)
{
	while (m->head < m->tail) {
		struct pend *p = &m->ring[m->head & (m->cap - 1)];

		if (p->state == 2) {
			m->head++;
			continue;
		}
		if (p->state == 0) {
			if (!at_end && m->tail - m->head < MAX_PENDING &&
			    m->now - (int64_t)p->rec.t_ns < m->timeout)
				return 0;
			/* never completed (cut off, or lost) */
			struct slot *s = map_find(m, p->rec.dev, p->sector);

			if (p->append)
				append_del_seq(m, m->head);
			else if (s && s->seq == m->head)
				map_del(m, s);
			m->n.incomplete++;
			p->rec.lat_ns = 0;
		}
		*rec = p->rec;
		m->head++;
		return 1;
	}
	return 0;
}

int imp_blk_rwbs(const char *s, size_t len, int *op, unsigned *flags, char *skip)
{
	size_t i = 0;
	int preflush = 0;

	*op = -1;
	*flags = 0;
	*skip = 0;
	if (len == 0)
		return -1;
	if (s[0] == 'F' && len > 1) {
		preflush = 1;
		i++;
	}
	if (i == len)
		return -1;
	switch (s[i++]) {
	case 'D':
		*op = IST_OP_DISCARD;
		if (i < len && s[i] == 'E')
			i++;
		break;
	case 'W':
		*op = IST_OP_WRITE;
		if (i < len && s[i] == 'Z') { /* write zeroes, as newer kernels name it */
			*op = IST_OP_WRITE_ZEROES;
			i++;
		}
		break;
	case 'R':
		*op = IST_OP_READ;
		break;
	case 'N':
		*op = preflush ? IST_OP_FLUSH : -1;
		*skip = preflush ? 0 : IMP_BLK_NODATA;
		preflush = 0;
		break;
	case 'F':
		if (!preflush) {
			*op = IST_OP_FLUSH;
			break;
		}
		return -1;
	case 'Z':
		/* zone commands (older kernels: see imp_blk_classify()) */
		switch (rwbs_zone(s, len, &i)) {
		case RWBS_ZONE_APPEND:
			*op = IST_OP_WRITE;
			break;
		case RWBS_ZONE_MGMT:
			*skip = IMP_BLK_ZONE;
			break;
		default:
			return -1;
		}
		break;
	default:
		return -1;
	}
	if (preflush)
		*flags |= IST_F_PREFLUSH;
	for (; i < len; i++) {
		switch (s[i]) {
		case 'F':
			*flags |= IST_F_FUA;
			break;
		case 'A':
			*flags |= IST_F_READAHEAD;
			break;
		case 'S':
			*flags |= IST_F_SYNC;
			break;
		case 'M':
			*flags |= IST_F_META;
			break;
		case 'B': /* barrier (kernels before 2.6.37): flush + FUA */
			*flags |= IST_F_PREFLUSH | IST_F_FUA;
			break;
		case 'E': /* secure erase */
		case 'U': /* atomic write (REQ_ATOMIC): no IST flag */
			break;
		default:
			return -1;
		}
	}
	return 0;
}
