/* SPDX-License-Identifier: MIT */
/* rec_match.h - pairs block issue and completion events into records. */
#ifndef CAP_REC_MATCH_H
#define CAP_REC_MATCH_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "iostorm.h"

/*
 * One decoded block trace event, in time order.  sector/nr_sector are in
 * 512-byte units as the kernel reports them; dev is the index in the
 * trace's device table.
 */
struct cap_event {
	uint64_t ts_ns;     /* trace clock (CLOCK_MONOTONIC)               */
	uint64_t sector;
	uint32_t nr_sector;
	uint32_t dev;
	int32_t pid;
	uint8_t complete;   /* 0 issue/queue, 1 completion                 */
	uint8_t op;         /* enum ist_op                                 */
	uint16_t flags;     /* IST_F_*                                     */
	uint64_t lat_ns;    /* an issue: 0, or its latency when its
			       completion was already paired with it (the
			       recorder's same-CPU shortcut)              */
};

/* Parses a kernel rwbs string ("WS", "FWFS", "RA", "FF", "D", "WZ", "ZA"...)
 * into op and flags; 0, or -EINVAL for a string it does not know.  op is
 * IST_OP_COUNT for 'N' (write zeroes before kernels named it, or a
 * driver-private request: the caller decides from the length) and
 * CAP_OP_ZONE for a zone reset, open, close or finish (no data). */
#define CAP_OP_ZONE (IST_OP_COUNT + 1)
int cap_rwbs_parse(const char *rwbs, size_t len, uint8_t *op, uint16_t *flags);

/*
 * The same through a cache of parsed strings (zero-initialise it): a
 * workload uses a handful ("R", "W", "WS", "FWS"...), so an event costs a
 * compare instead of the parse.  rwbs is a trace event's field of len
 * bytes, NUL-terminated within it or not; the bytes after its NUL are
 * ignored.  Strings of 1 to 7 characters are cached, others parsed.
 */
#define CAP_RWBS_SLOTS 8
struct cap_rwbs_cache {
	struct {
		uint64_t key; /* the string's bytes, little-endian; 0 empty */
		uint16_t flags;
		uint8_t op;
		int8_t ret;
	} slot[CAP_RWBS_SLOTS];
};
int cap_rwbs_cached(struct cap_rwbs_cache *c, const uint8_t *rwbs, size_t len,
		    uint8_t *op, uint16_t *flags);

/* The key of a cached string: the field's first word up to its NUL, or 0
 * when it cannot be cached (no NUL in bytes 1..7, or a field shorter than
 * a word). */
static inline uint64_t cap_rwbs_key(const uint8_t *rwbs, size_t len)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t x, z, low;

	if (len < 8)
		return 0;
	memcpy(&x, rwbs, 8);
	x = le64toh(x);
	/* Marks the zero bytes: the lowest mark is exact (the first NUL);
	 * higher ones may be false and do not matter. */
	z = (x - ones) & ~x & (ones << 7);
	low = z & -z;
	return low > 0x80 ? x & ((low >> 7) - 1) : 0;
}

static inline unsigned cap_rwbs_slot(uint64_t key)
{
	return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 61);
}

/* cap_rwbs_cached() with its hit inline, for a per-event loop. */
static inline int cap_rwbs_lookup(struct cap_rwbs_cache *c, const uint8_t *rwbs,
				  size_t len, uint8_t *op, uint16_t *flags)
{
	uint64_t key = cap_rwbs_key(rwbs, len);
	unsigned i = cap_rwbs_slot(key);

	if (key && c->slot[i].key == key) {
		*op = c->slot[i].op;
		*flags = c->slot[i].flags;
		return c->slot[i].ret;
	}
	return cap_rwbs_cached(c, rwbs, len, op, flags);
}

struct cap_match_stats {
	uint64_t issues;
	uint64_t completions;
	uint64_t matched;
	uint64_t orphan_completions; /* completion without a recorded issue   */
	uint64_t after_stop;         /* completion after the stop without a
					pending issue: the issue came after
					the stop (not recorded), no loss     */
	uint64_t no_completion;      /* issue whose completion never came     */
	uint64_t evicted;            /* forced out: too many in flight        */
	uint64_t max_pending;
	uint64_t emitted;            /* records passed to emit              */
};

typedef struct cap_match cap_match;

typedef int (*cap_emit_fn)(void *ctx, const struct ist_record *rec);

/*
 * A matcher keeps issued requests until completed and emits records in
 * issue order.  max_pending bounds memory (0 = 1 << 20); timeout_ns is how
 * long an issue may wait for its completion before it is written without
 * latency (0 = 30 s).  t0_ns is subtracted from event times.
 */
int cap_match_new(cap_match **m, size_t max_pending, uint64_t timeout_ns,
		  uint64_t t0_ns);
void cap_match_free(cap_match *m);
/* Feeds one event (events must come in time order); may emit records.
 * An issue with lat_ns set is complete already: it is queued done (never
 * waits for a completion) and counted as issued, completed and matched. */
int cap_match_event(cap_match *m, const struct cap_event *ev, cap_emit_fn emit,
		    void *ctx);
/* Lower level, for protocol decoders: an issued request rec (t_ns set
 * by the caller) waiting for the completion that carries (key, kdev, kop);
 * ts is the issue time in ns for the latency. */
int cap_match_issue(cap_match *m, const struct ist_record *rec, uint64_t ts,
		    uint64_t key, uint32_t kdev, uint8_t kop, cap_emit_fn emit,
		    void *ctx);
/* Completes the oldest pending request with that key: 1 matched, 0 none
 * (counted as an orphan completion, or as after_stop when ts is after the
 * stop set by cap_match_set_stop()), or < 0. */
int cap_match_complete(cap_match *m, uint64_t ts, uint64_t key, uint32_t kdev,
		       uint8_t kop, cap_emit_fn emit, void *ctx);
/* The recording's stop (event time, 0: none): from here on a completion
 * that matches no pending request belongs to an issue after the stop,
 * which is not recorded; it counts as after_stop, not as an orphan. */
void cap_match_set_stop(cap_match *m, uint64_t stop_ns);
/* Emits what is ready up to time now_ns (timeouts). */
int cap_match_advance(cap_match *m, uint64_t now_ns, cap_emit_fn emit,
		      void *ctx);
/* Emits everything pending (uncompleted issues without latency). */
int cap_match_drain(cap_match *m, cap_emit_fn emit, void *ctx);
void cap_match_get_stats(const cap_match *m, struct cap_match_stats *st);
/* Requests currently waiting for completion or emission. */
size_t cap_match_pending(const cap_match *m);

#endif
