/* SPDX-License-Identifier: MIT */
/* totals.c - running totals of a trace (the footer's summary) in bounded memory. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "format/fmt.h"

/*
 * Distinct streams and (stream, txn) pairs are counted exactly in open
 * addressing hash sets until a set holds FMT_DISTINCT_CAP entries; past
 * that the set stops growing, the count becomes a lower bound and the
 * matching IST_TOTALS_*_EXACT bit is cleared.  Memory stays bounded
 * (at most 2 * FMT_DISTINCT_CAP slots per table, two tables per set:
 * pairs that pack into 8 bytes and the others).
 */
struct pair {
	uint64_t a, b; /* b == 0 marks an empty slot (txn 0 is never stored) */
};

/* Pairs met lately, by hash: a repeat (a transaction's next I/O) is
 * recognised without a probe into the large table, whose lines are
 * rarely in the cache. */
#define RECENT_BITS 10

struct pairset {
	uint64_t *key; /* pairs with a < 2^16, b < 2^48 as a << 48 | b; 0 empty */
	size_t kmask;  /* key slots - 1, a power of two */
	size_t kcount;
	struct pair *slot; /* the other pairs */
	size_t mask;  /* slots - 1, slots a power of two */
	size_t wcount;
	size_t count; /* kcount + wcount: the two tables never share a pair */
	int full;     /* hit the cap: count is a lower bound */
	struct pair recent[1u << RECENT_BITS]; /* b == 0: empty */
};

struct ist_totals_acc {
	struct ist_totals t;
	uint32_t dev_cap;
	uint64_t prev_t;
	struct pairset streams; /* (0, stream) */
	struct pairset txns;    /* (stream, txn) */
	uint64_t last_stream, last_txn; /* fast path for runs */
	int any;                /* a record was added (last_* are set) */
};

#define KEY_BBITS 48
#define KEY_BMASK ((UINT64_C(1) << KEY_BBITS) - 1)

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

static inline uint64_t pair_hash(uint64_t a, uint64_t b)
{
	return mix64(a * 31 + b);
}

/*
 * The slots of a table after slots (0: none yet): four times as many, so
 * that a set of many pairs is rehashed half as often as by doubling (the
 * rehash of the synthetic trace's 125k transactions was ~1 % of its
 * encode), but at most 2 * FMT_DISTINCT_CAP, which the cap keeps at a
 * load of 1/2 (from 1024, the quadrupled sizes reach it exactly).
 */
static size_t grown(size_t slots)
{
	size_t n = slots ? slots * 4 : 1024;

	return n > 2 * (size_t)FMT_DISTINCT_CAP ? 2 * (size_t)FMT_DISTINCT_CAP
						 : n;
}

static int keyset_grow(struct pairset *s)
{
	size_t nslots = grown(s->key ? s->kmask + 1 : 0);
	uint64_t *n = calloc(nslots, sizeof(*n));

	if (!n)
		return -ENOMEM;
	if (s->key) {
		for (size_t i = 0; i <= s->kmask; i++) {
			uint64_t k = s->key[i];
			size_t h;

			if (!k)
				continue;
			h = pair_hash(k >> KEY_BBITS, k & KEY_BMASK) &
			    (nslots - 1);
			while (n[h])
				h = (h + 1) & (nslots - 1);
			n[h] = k;
		}
		free(s->key);
	}
	s->key = n;
	s->kmask = nslots - 1;
	return 0;
}

static int pairset_grow(struct pairset *s)
{
	size_t nslots = grown(s->slot ? s->mask + 1 : 0);
	struct pair *n = calloc(nslots, sizeof(*n));

	if (!n)
		return -ENOMEM;
	if (s->slot) {
		for (size_t i = 0; i <= s->mask; i++) {
			struct pair p = s->slot[i];
			size_t h;

			if (!p.b)
				continue;
			h = pair_hash(p.a, p.b) & (nslots - 1);
			while (n[h].b)
				h = (h + 1) & (nslots - 1);
			n[h] = p;
		}
		free(s->slot);
	}
	s->slot = n;
	s->mask = nslots - 1;
	return 0;
}

/* Adds packed key k (x its hash) to the 8-byte table; 0 or -ENOMEM. */
static int keyset_add(struct pairset *s, uint64_t k, uint64_t x)
{
	size_t h;

	if (!s->key && keyset_grow(s))
		return -ENOMEM;
	h = x & s->kmask;
	while (s->key[h]) {
		if (s->key[h] == k)
			return 0;
		h = (h + 1) & s->kmask;
	}
	if (s->count >= FMT_DISTINCT_CAP) {
		s->full = 1;
		return 0;
	}
	s->key[h] = k;
	s->kcount++;
	s->count++;
	if (s->kcount * 4 > (s->kmask + 1) * 3)
		return keyset_grow(s);
	return 0;
}

/*
 * Adding a pair is split in two: pair_seen() checks the cache of recent
 * pairs (and notes the pair there), pair_insert() probes the large table
 * for the pairs the cache did not know.  ist_totals_acc_add() gathers a
 * block's probes and prefetches their slots first: a new transaction's
 * slot is a cache miss in a table of megabytes, and several misses then
 * overlap instead of each stalling the loop (the probes were a tenth of
 * the writer's time on the synthetic trace's 125k transactions).  The
 * probes run in the order of the records, so the counts and the cap are
 * what one add per pair gives.
 */
struct probe {
	struct pairset *s;
	uint64_t a, b, x;
};

static inline int pair_packs(uint64_t a, uint64_t b)
{
	return a < (UINT64_C(1) << (64 - KEY_BBITS)) && b <= KEY_BMASK;
}

/* The slot of (a, b) in the cache of recent pairs: one multiply (the
 * cache only has to spread a few hundred live pairs; pair_hash()'s four
 * dependent steps are for the large tables, needed on a miss only). */
static inline unsigned recent_slot(uint64_t a, uint64_t b)
{
	return (unsigned)(((a * 31 + b) * UINT64_C(0x9e3779b97f4a7c15)) >>
			  (64 - RECENT_BITS));
}

/* 1 if (a, b), b != 0, was not in the cache of recent pairs (it is now):
 * it needs a probe, *x its hash. */
static inline int pair_seen(struct pairset *s, uint64_t a, uint64_t b,
			    uint64_t *x)
{
	struct pair *r;

	r = &s->recent[recent_slot(a, b)];
	/* a pair in recent is in the set (or was met after the cap, when
	 * it changes nothing either) */
	if (r->a == a && r->b == b)
		return 0;
	r->a = a;
	r->b = b;
	*x = pair_hash(a, b);
	if (pair_packs(a, b)) {
		if (s->key)
			__builtin_prefetch(&s->key[*x & s->kmask]);
	} else if (s->slot) {
		__builtin_prefetch(&s->slot[*x & s->mask]);
	}
	return 1;
}

/* Adds (a, b) with hash x to its table; 0 or -ENOMEM. */
static int pair_insert(struct pairset *s, uint64_t a, uint64_t b, uint64_t x)
{
	size_t h;

	/* most pairs fit 8 bytes: half the memory traffic of the probes */
	if (pair_packs(a, b))
		return keyset_add(s, a << KEY_BBITS | b, x);
	if (!s->slot && pairset_grow(s))
		return -ENOMEM;
	h = x & s->mask;
	while (s->slot[h].b) {
		if (s->slot[h].a == a && s->slot[h].b == b)
			return 0;
		h = (h + 1) & s->mask;
	}
	if (s->count >= FMT_DISTINCT_CAP) {
		/* Not stored, so a later repeat cannot be recognised: the
		 * count stays at the cap, a lower bound. */
		s->full = 1;
		return 0;
	}
	s->slot[h].a = a;
	s->slot[h].b = b;
	s->wcount++;
	s->count++;
	/* load <= 3/4; at the cap the table has 2 * cap slots, load 1/2 */
	if (s->wcount * 4 > (s->mask + 1) * 3)
		return pairset_grow(s);
	return 0;
}

ist_totals_acc *ist_totals_acc_new(void)
{
	ist_totals_acc *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->t.flags_exact = IST_TOTALS_STREAMS_EXACT | IST_TOTALS_TXNS_EXACT;
	return a;
}

void ist_totals_acc_free(ist_totals_acc *a)
{
	if (!a)
		return;
	free(a->t.dev_max_end);
	free(a->streams.slot);
	free(a->streams.key);
	free(a->txns.slot);
	free(a->txns.key);
	free(a);
}

int ist_totals_acc_reserve_dev(ist_totals_acc *a, uint32_t ndev)
{
	if (ndev > IST_MAX_FOOTER_DEVICES)
		return IST_EDEVICE;
	if (ndev > a->dev_cap) {
		uint32_t cap = a->dev_cap ? a->dev_cap : 4;
		uint64_t *d;

		while (cap < ndev)
			cap *= 2;
		d = realloc(a->t.dev_max_end, cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		for (uint32_t i = a->dev_cap; i < cap; i++)
			d[i] = 0;
		a->t.dev_max_end = d;
		a->dev_cap = cap;
	}
	if (ndev > a->t.ndev)
		a->t.ndev = ndev;
	return 0;
}

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t s = a + b;

	return s < a ? UINT64_MAX : s;
}

/* Records per block of ist_totals_acc_add(): its probes (at most two a
 * record) wait together. */
#define ACC_BLOCK 64

#define NO_DEV UINT64_MAX

/* The adding of both calls below; shift is a constant 0 in the first,
 * which the compiler then drops.
 *
 * The sums, the time bounds, the running state and the largest end of
 * the device last met are kept in locals through the call and stored
 * once at its end (or at an error): through t and a, every record's
 * stores to count[op], bytes[op] and dev_max_end[dev] (any of which may
 * alias the rest, for all the compiler knows) made it load and store
 * every field again, a store-forwarding chain a record (4 % of the
 * default vscsi import).  The per-op sums are two sets taken by records
 * in turn, so that a run of one op does not chain each increment on
 * the one before either. */
static inline __attribute__((always_inline)) int
acc_add(ist_totals_acc *a, const struct ist_record *recs, size_t n,
	uint64_t shift)
{
	struct ist_totals *t = &a->t;
	struct probe pr[2 * ACC_BLOCK];
	uint64_t records = t->records, first = t->first_t_ns;
	uint64_t last = t->last_t_ns, prev = a->prev_t;
	uint64_t ooo = t->out_of_order, wlat = t->with_latency;
	uint64_t lstream = a->last_stream, ltxn = a->last_txn;
	uint64_t cnt[2][IST_OP_COUNT] = { { 0 } }, byt[2][IST_OP_COUNT] = { { 0 } };
	/* dmax is dev_max_end[dcur]; dcur NO_DEV: none (a value no
	 * record's dev has, UINT32_MAX included) */
	uint64_t dmax = 0, dcur = NO_DEV;
	int any = a->any, ret = 0;
	size_t i0;

	for (i0 = 0; i0 < n; i0 += ACC_BLOCK) {
		size_t e = n - i0 < ACC_BLOCK ? n : i0 + ACC_BLOCK;
		unsigned np = 0;

		for (size_t i = i0; i < e; i++) {
			const struct ist_record *r = &recs[i];
			uint64_t end, x, tn = r->t_ns - shift;
			unsigned w = i & 1;

			if (__builtin_expect(r->dev != dcur, 0)) {
				if (r->dev >= t->ndev) {
					if (dcur != NO_DEV)
						t->dev_max_end[dcur] = dmax;
					dcur = NO_DEV;
					/* (r->dev + 1 wraps at UINT32_MAX) */
					ret = r->dev < IST_MAX_FOOTER_DEVICES ?
						ist_totals_acc_reserve_dev(
							a, r->dev + 1) :
						IST_EDEVICE;
					if (ret)
						goto out;
				}
				if (dcur != NO_DEV)
					t->dev_max_end[dcur] = dmax;
				dcur = r->dev;
				dmax = t->dev_max_end[dcur];
			}
			if (__builtin_expect(records == 0, 0)) {
				first = last = tn;
			} else {
				ooo += tn < prev;
				first = tn < first ? tn : first;
				last = tn > last ? tn : last;
			}
			prev = tn;
			records++;
			if (r->op < IST_OP_COUNT) {
				cnt[w][r->op]++;
				byt[w][r->op] = sat_add(byt[w][r->op], r->len);
			}
			end = sat_add(r->offset, r->len);
			dmax = end > dmax ? end : dmax;
			wlat += r->lat_ns != 0;
			if (r->stream && (r->stream != lstream || !any) &&
			    pair_seen(&a->streams, 0, r->stream, &x))
				pr[np++] = (struct probe){ &a->streams, 0, r->stream, x };
			if (r->txn && (r->txn != ltxn ||
				       r->stream != lstream || !any) &&
			    pair_seen(&a->txns, r->stream, r->txn, &x))
				pr[np++] = (struct probe){ &a->txns, r->stream, r->txn, x };
			any = 1;
			lstream = r->stream;
			ltxn = r->txn;
		}
		for (unsigned k = 0; k < np; k++) {
			ret = pair_insert(pr[k].s, pr[k].a, pr[k].b, pr[k].x);
			if (ret)
				goto out;
		}
		t->streams = a->streams.count;
		t->txns = a->txns.count;
	}
out:
	if (dcur != NO_DEV)
		t->dev_max_end[dcur] = dmax;
	t->records = records;
	t->first_t_ns = first;
	t->last_t_ns = last;
	a->prev_t = prev;
	t->out_of_order = ooo;
	t->with_latency = wlat;
	a->last_stream = lstream;
	a->last_txn = ltxn;
	a->any = any;
	for (unsigned k = 0; k < IST_OP_COUNT; k++) {
		t->count[k] += cnt[0][k] + cnt[1][k];
		t->bytes[k] = sat_add(t->bytes[k], sat_add(byt[0][k], byt[1][k]));
	}
	return ret;
}

int ist_totals_acc_add(ist_totals_acc *a, const struct ist_record *recs,
		       size_t n)
{
	return acc_add(a, recs, n, 0);
}

int ist_totals_acc_add_shifted(ist_totals_acc *a, const struct ist_record *recs,
			       size_t n, uint64_t shift)
{
	return acc_add(a, recs, n, shift);
}

const struct ist_totals *ist_totals_acc_get(const ist_totals_acc *a)
{
	struct ist_totals *t = (struct ist_totals *)&a->t;

	t->flags_exact = (a->streams.full ? 0 : IST_TOTALS_STREAMS_EXACT) |
			 (a->txns.full ? 0 : IST_TOTALS_TXNS_EXACT);
	return t;
}
