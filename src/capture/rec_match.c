/* SPDX-License-Identifier: MIT */
/* rec_match.c - pairs block issue and completion events into records. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/rec_match.h"
#include "core/rwbs.h"

/*
 * Pending requests live in a ring indexed by a sequence number (issue
 * order), so records leave in issue order even though completions come in
 * any order.  A hash on (dev, sector, op) finds the oldest pending request
 * a completion belongs to; chains are singly linked through the ring by
 * sequence number + 1 (0 ends a chain).
 */
struct pending {
	struct ist_record rec;
	uint64_t issue_ts;
	uint64_t key;     /* sector, or a protocol's task tag          */
	uint64_t next;    /* seq + 1 of the next entry in the hash chain */
	uint32_t kdev;    /* device or connection the key belongs to   */
	uint32_t bucket;  /* its hash bucket while linked: unlinking
			     needs no second hash */
	uint8_t kop;
	uint8_t linked;
	uint8_t done;
};

struct cap_match {
	struct pending *ring;
	uint64_t *bucket; /* seq + 1 of the chain head, 0 = empty */
	size_t cap;       /* ring size, power of two */
	size_t max_pending;
	uint64_t head, tail; /* seqs: [head, tail) pending */
	uint64_t timeout_ns;
	uint64_t t0_ns;
	uint64_t stop_ns; /* 0: not stopped */
	struct cap_match_stats st;
};

int cap_rwbs_parse(const char *rwbs, size_t len, uint8_t *op, uint16_t *flags)
{
	size_t i = 0;
	uint16_t f = 0;

	if (len && rwbs[0] == 'F' && len > 1 &&
	    strchr("WDRNFZ", rwbs[1]) && rwbs[1] != '\0') {
		f |= IST_F_PREFLUSH;
		i = 1;
	}
	if (i >= len)
		return -EINVAL;
	switch (rwbs[i++]) {
	case 'R':
		*op = IST_OP_READ;
		break;
	case 'W':
		*op = IST_OP_WRITE;
		if (i < len && rwbs[i] == 'Z') { /* "WZ": write zeroes, as kernels since 2025 name it */
			*op = IST_OP_WRITE_ZEROES;
			i++;
		}
		break;
	case 'D':
		*op = IST_OP_DISCARD;
		if (i < len && rwbs[i] == 'E') /* secure erase */
			i++;
		break;
	case 'F':
		*op = IST_OP_FLUSH;
		break;
	case 'Z':
		/* Zone commands, as kernels since 2025 name them (the block
		 * importers read them so too): an append is a write of its
		 * length; reset, open, close and finish move no data:
		 * CAP_OP_ZONE, skipped and counted. */
		switch (rwbs_zone(rwbs, len, &i)) {
		case RWBS_ZONE_APPEND:
			*op = IST_OP_WRITE;
			break;
		case RWBS_ZONE_MGMT:
			*op = CAP_OP_ZONE;
			break;
		default:
			return -EINVAL;
		}
		break;
	case 'N':
		/* REQ_OP_WRITE_ZEROES and driver-private ops print as 'N':
		 * IST_OP_COUNT lets the caller decide from the length. */
		*op = IST_OP_COUNT;
		if (f & IST_F_PREFLUSH) { /* empty preflush: a flush */
			*op = IST_OP_FLUSH;
			f &= (uint16_t)~IST_F_PREFLUSH;
		}
		break;
	default:
		return -EINVAL;
	}
	for (; i < len && rwbs[i]; i++) {
		switch (rwbs[i]) {
		case 'F':
			f |= IST_F_FUA;
			break;
		case 'A':
			f |= IST_F_READAHEAD;
			break;
		case 'S':
			f |= IST_F_SYNC;
			break;
		case 'M':
			f |= IST_F_META;
			break;
		default: /* 'U' atomic and future letters: no IST flag */
			break;
		}
	}
	if (*op == IST_OP_FLUSH)
		f &= (uint16_t)~IST_F_PREFLUSH;
	*flags = f;
	return 0;
}

int cap_rwbs_cached(struct cap_rwbs_cache *c, const uint8_t *rwbs, size_t len,
		    uint8_t *op, uint16_t *flags)
{
	uint64_t key = cap_rwbs_key(rwbs, len);
	char s[16];
	size_t n;

	if (key) {
		unsigned i = cap_rwbs_slot(key);

		if (c->slot[i].key != key) {
			uint64_t le = htole64(key);

			memcpy(s, &le, 8);
			s[8] = '\0';
			c->slot[i].ret = (int8_t)cap_rwbs_parse(
				s, 8, &c->slot[i].op, &c->slot[i].flags);
			c->slot[i].key = key;
		}
		*op = c->slot[i].op;
		*flags = c->slot[i].flags;
		return c->slot[i].ret;
	}
	memset(s, 0, sizeof(s));
	n = len < sizeof(s) - 1 ? len : sizeof(s) - 1;
	memcpy(s, rwbs, n);
	return cap_rwbs_parse(s, n, op, flags);
}

/* One multiply: the product's high bits mix every bit of the key (dev and
 * op folded into the sector's top bits, which real sectors leave 0; a
 * collision only lengthens a chain). */
static size_t hash_key(uint32_t dev, uint64_t sector, uint8_t op, size_t n)
{
	uint64_t k = sector ^ ((uint64_t)dev << 40) ^ ((uint64_t)op << 60);
	uint64_t h = k * 0x9e3779b97f4a7c15ull;

	return (size_t)((h ^ (h >> 32)) & (n - 1));
}

static struct pending *at(const cap_match *m, uint64_t seq)
{
	return &m->ring[seq & (m->cap - 1)];
}

static void link_entry(cap_match *m, uint64_t seq)
{
	struct pending *p = at(m, seq);
	size_t b = hash_key(p->kdev, p->key, p->kop, 2 * m->cap);

	p->next = m->bucket[b];
	p->bucket = (uint32_t)b;
	m->bucket[b] = seq + 1;
	p->linked = 1;
}

static void unlink_entry(cap_match *m, uint64_t seq)
{
	struct pending *p = at(m, seq);
	uint64_t *link = &m->bucket[p->bucket];

	while (*link) {
		if (*link == seq + 1) {
			*link = p->next;
			break;
		}
		link = &at(m, *link - 1)->next;
	}
	p->linked = 0;
	p->next = 0;
}

static int grow(cap_match *m)
{
	size_t ncap = m->cap * 2;
	struct pending *ring = calloc(ncap, sizeof(*ring));
	uint64_t *bucket = calloc(2 * ncap, sizeof(*bucket));
	struct pending *old = m->ring;
	size_t ocap = m->cap;

	if (!ring || !bucket) {
		free(ring);
		free(bucket);
		return -ENOMEM;
	}
	for (uint64_t s = m->head; s < m->tail; s++)
		ring[s & (ncap - 1)] = old[s & (ocap - 1)];
	free(old);
	free(m->bucket);
	m->ring = ring;
	m->bucket = bucket;
	m->cap = ncap;
	for (uint64_t s = m->head; s < m->tail; s++)
		if (at(m, s)->linked)
			link_entry(m, s);
	return 0;
}

int cap_match_new(cap_match **mp, size_t max_pending, uint64_t timeout_ns,
		  uint64_t t0_ns)
{
	cap_match *m = calloc(1, sizeof(*m));

	*mp = NULL;
	if (!m)
		return -ENOMEM;
	m->cap = 256; /* grows; small while few are pending: stays in cache */
	m->max_pending = max_pending ? max_pending : (size_t)1 << 20;
	m->timeout_ns = timeout_ns ? timeout_ns : 30000000000ull;
	m->t0_ns = t0_ns;
	m->ring = calloc(m->cap, sizeof(*m->ring));
	m->bucket = calloc(2 * m->cap, sizeof(*m->bucket));
	if (!m->ring || !m->bucket) {
		cap_match_free(m);
		return -ENOMEM;
	}
	*mp = m;
	return 0;
}

void cap_match_free(cap_match *m)
{
	if (!m)
		return;
	free(m->ring);
	free(m->bucket);
	free(m);
}

/* Emits head entries that are done; with force, the head in any state. */
static int emit_head(cap_match *m, int force, cap_emit_fn emit, void *ctx)
{
	while (m->head < m->tail) {
		struct pending *p = at(m, m->head);
		int ret;

		if (!p->done && !force)
			break;
		if (p->linked)
			unlink_entry(m, m->head);
		m->head++;
		m->st.emitted++;
		ret = emit(ctx, &p->rec);
		if (ret < 0)
			return ret;
		if (force)
			force--;
	}
	return 0;
}

/* The slot for the next issued request (after an eviction when max_pending
 * are in flight, or a growth of the ring), or NULL with *err set. */
static struct pending *reserve(cap_match *m, cap_emit_fn emit, void *ctx,
			       int *err)
{
	*err = 0;
	if (m->tail - m->head >= m->max_pending) {
		/* Bounded memory: the oldest goes out without latency. */
		struct pending *h = at(m, m->head);

		if (!h->done)
			m->st.evicted++;
		*err = emit_head(m, 1, emit, ctx);
		if (*err < 0)
			return NULL;
	}
	if (m->tail - m->head >= m->cap) {
		*err = grow(m);
		if (*err < 0)
			return NULL;
	}
	return at(m, m->tail);
}

/* Queues the request filled in p (reserve()'s slot) under (key, kdev, kop). */
static void commit(cap_match *m, struct pending *p, uint64_t ts, uint64_t key,
		   uint32_t kdev, uint8_t kop)
{
	p->issue_ts = ts;
	p->key = key;
	p->kdev = kdev;
	p->kop = kop;
	p->done = 0;
	link_entry(m, m->tail);
	m->tail++;
	m->st.issues++;
	if (m->tail - m->head > m->st.max_pending)
		m->st.max_pending = m->tail - m->head;
}

int cap_match_issue(cap_match *m, const struct ist_record *rec, uint64_t ts,
		    uint64_t key, uint32_t kdev, uint8_t kop, cap_emit_fn emit,
		    void *ctx)
{
	struct pending *p;
	int ret;

	p = reserve(m, emit, ctx, &ret);
	if (!p)
		return ret;
	p->rec = *rec;
	p->rec.lat_ns = 0;
	commit(m, p, ts, key, kdev, kop);
	return 0;
}

int cap_match_complete(cap_match *m, uint64_t ts, uint64_t key, uint32_t kdev,
		       uint8_t kop, cap_emit_fn emit, void *ctx)
{
	size_t b = hash_key(kdev, key, kop, 2 * m->cap);
	uint64_t *link, *found = NULL;
	struct pending *p;
	int ret;

	m->st.completions++;
	/* Chains run newest first: the last match is the oldest request;
	 * found is the link that points to it, for unlinking it at once. */
	for (link = &m->bucket[b]; *link; link = &p->next) {
		p = at(m, *link - 1);
		if (p->key == key && p->kdev == kdev && p->kop == kop)
			found = link;
	}
	if (!found) {
		/* After the stop the issues are not recorded: a completion
		 * without one is an I/O outside the recording, not a loss. */
		if (m->stop_ns && ts > m->stop_ns)
			m->st.after_stop++;
		else
			m->st.orphan_completions++;
		return 0;
	}
	p = at(m, *found - 1);
	*found = p->next;
	p->next = 0;
	p->linked = 0;
	p->done = 1;
	p->rec.lat_ns = ts > p->issue_ts ? ts - p->issue_ts : 1;
	m->st.matched++;
	ret = emit_head(m, 0, emit, ctx);
	return ret < 0 ? ret : 1;
}

/* The record of an issue event. */
static void fill_rec(const cap_match *m, const struct cap_event *ev,
		     struct ist_record *rec)
{
	rec->t_ns = ev->ts_ns > m->t0_ns ? ev->ts_ns - m->t0_ns : 0;
	rec->offset = ev->sector * 512;
	rec->lat_ns = ev->lat_ns;
	rec->stream = ev->pid > 0 ? (uint64_t)ev->pid : 0;
	rec->txn = 0;
	rec->len = ev->nr_sector > UINT32_MAX / 512 ? UINT32_MAX
						    : ev->nr_sector * 512;
	rec->dev = ev->dev;
	rec->flags = ev->flags;
	rec->op = ev->op;
	rec->reserved = 0;
}

int cap_match_event(cap_match *m, const struct cap_event *ev, cap_emit_fn emit,
		    void *ctx)
{
	struct pending *p;
	int ret;

	if (ev->complete) {
		ret = cap_match_complete(m, ev->ts_ns, ev->sector, ev->dev,
					 ev->op, emit, ctx);
		return ret < 0 ? ret : 0;
	}
	if (ev->lat_ns) {
		/* Paired already: done, never in the hash; with nothing
		 * pending before it (the common case) it leaves at once,
		 * without a trip through the ring. */
		m->st.issues++;
		m->st.completions++;
		m->st.matched++;
		if (m->head == m->tail) {
			struct ist_record rec;

			fill_rec(m, ev, &rec);
			if (!m->st.max_pending)
				m->st.max_pending = 1;
			m->st.emitted++;
			ret = emit(ctx, &rec);
			return ret < 0 ? ret : 0;
		}
	}
	/* Filled in place: no record on the stack to clear and copy. */
	p = reserve(m, emit, ctx, &ret);
	if (!p)
		return ret;
	fill_rec(m, ev, &p->rec);
	if (!ev->lat_ns) {
		commit(m, p, ev->ts_ns, ev->sector, ev->dev, ev->op);
		return 0;
	}
	p->issue_ts = ev->ts_ns;
	p->linked = 0;
	p->next = 0;
	p->done = 1;
	m->tail++;
	if (m->tail - m->head > m->st.max_pending)
		m->st.max_pending = m->tail - m->head;
	ret = emit_head(m, 0, emit, ctx);
	return ret < 0 ? ret : 0;
}

void cap_match_set_stop(cap_match *m, uint64_t stop_ns)
{
	m->stop_ns = stop_ns;
}

int cap_match_advance(cap_match *m, uint64_t now_ns, cap_emit_fn emit,
		      void *ctx)
{
	while (m->head < m->tail) {
		struct pending *p = at(m, m->head);
		int ret;

		if (!p->done) {
			if (now_ns < p->issue_ts + m->timeout_ns)
				break;
			m->st.no_completion++;
		}
		ret = emit_head(m, 1, emit, ctx);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int cap_match_drain(cap_match *m, cap_emit_fn emit, void *ctx)
{
	while (m->head < m->tail) {
		int ret;

		if (!at(m, m->head)->done)
			m->st.no_completion++;
		ret = emit_head(m, 1, emit, ctx);
		if (ret < 0)
			return ret;
	}
	return 0;
}

void cap_match_get_stats(const cap_match *m, struct cap_match_stats *st)
{
	*st = m->st;
}

size_t cap_match_pending(const cap_match *m)
{
	return (size_t)(m->tail - m->head);
}
