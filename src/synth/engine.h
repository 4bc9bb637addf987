/* SPDX-License-Identifier: MIT */
/*
 * engine.h - what the workload models share inside src/synth: the
 * generator's state, the stream state machine slot and small helpers.
 */
#ifndef IST_SYNTH_ENGINE_H
#define IST_SYNTH_ENGINE_H

#include <stdint.h>
#include <sys/types.h>

#include "core/satmath.h"
#include "synth/rng.h"
#include "synth/synth.h"

#define SYN_MAX_PARAMS 48
#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull
#define KiB 1024ull
#define MiB (1024ull * 1024)
#define GiB (1024ull * 1024 * 1024)

/* One issuing entity.  Profiles keep their per-stream state in the
 * generic slots (kind, state, left, ...) so that a stream costs ~100 B. */
struct syn_stream {
	uint64_t t;     /* time of the next event                       */
	uint64_t id;    /* stream id written into records (1-based)     */
	uint64_t txn;   /* current transaction (0 = background I/O)      */
	struct syn_rng rng;
	uint32_t kind;  /* profile-defined role                          */
	uint32_t state; /* profile-defined state                         */
	uint32_t left;  /* profile-defined counter                       */
	uint32_t sub;   /* profile-defined                               */
	uint64_t u0, u1, u2, u3;
};

struct syn_heap_ent {
	uint64_t t;
	uint64_t idx;
};

/*
 * The pending events: one per live stream, popped in (t, index) order.
 * A calendar queue (a timing wheel of nb buckets, 2^shift ns each, that
 * covers [base, base + nb) in bucket numbers) holds the near events as
 * unsorted lists threaded through next[]; a bitmap (and a summary of it)
 * finds the first non-empty bucket; the events beyond the wheel wait in
 * a 4-ary heap (far[]) and move into the wheel as it turns.  The bucket
 * width follows the mean time between events.
 */
struct syn_queue {
	uint32_t *head;   /* nb bucket heads (SYN_NIL = empty)        */
	uint32_t *next;   /* per stream: next in its bucket          */
	uint64_t *key;    /* per stream: its event time, cached      */
	uint64_t *bits;   /* nb bits: bucket non-empty               */
	uint64_t *sum;    /* nb / 64 bits: bits word non-zero         */
	unsigned nb, shift, count;
	uint64_t base;    /* bucket number of the wheel's first bucket */
	struct syn_heap_ent *far;
	unsigned nfar;
	uint64_t pops, mark_pops, mark_t; /* for the width adaptation   */
	int heap_only;    /* few streams: far[] alone, top re-keyed     */
	int held;         /* heap_only: far[0] is the popped stream     */
};
#define SYN_HEAP_ONLY 16
#define SYN_NIL UINT32_MAX

struct syn_gen {
	const struct syn_profile *prof;
	double val[SYN_MAX_PARAMS];
	char *str[SYN_MAX_PARAMS];
	unsigned nparams;
	uint64_t seed;
	uint64_t duration_ns;
	uint64_t nominal_lat_ns; /* set by the profile; goes into metadata */
	int started;
	ist_header *hdr;
	struct syn_stream *streams;
	unsigned nstreams, cap;
	struct syn_queue q;
	void *priv;
	uint64_t emitted;
	struct syn_rng rng; /* the generator's own, for shared decisions */
	unsigned err_line;
	char err[160];
};

/* Value of parameter i (as declared in the profile's table). */
static inline double syn_p(const struct syn_gen *g, unsigned i)
{
	return g->val[i];
}

static inline uint64_t syn_pu(const struct syn_gen *g, unsigned i)
{
	return (uint64_t)g->val[i];
}

/* Value of a SYN_P_TIME parameter in ns, rounded (0.0002 s is 200000). */
static inline uint64_t syn_pns(const struct syn_gen *g, unsigned i)
{
	return (uint64_t)llround(g->val[i] * 1e9);
}

/* Adds a stream starting at t; returns it (stable until the next add) or
 * NULL on allocation failure.  Its id is its index + 1. */
struct syn_stream *syn_add_stream(struct syn_gen *g, uint64_t t);
/* Adds a device; its index or a negative error. */
int syn_add_device(struct syn_gen *g, const char *name, uint64_t size,
		   uint32_t block_size);
/* Records an error message (and line) for syn_gen_error(); returns err. */
int syn_set_error(struct syn_gen *g, int err, unsigned line,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static inline void syn_rec(struct ist_record *r, const struct syn_stream *s,
			   unsigned dev, unsigned op, uint64_t off, uint32_t len,
			   unsigned flags)
{
	r->t_ns = s->t;
	r->offset = off;
	r->len = len;
	r->dev = dev;
	r->op = (uint8_t)op;
	r->flags = (uint16_t)flags;
	r->lat_ns = 0;
	r->stream = s->id;
	r->txn = s->txn;
	r->reserved = 0;
}

/* An append-only circular log (journal, WAL, redo, binlog): returns the
 * offset of the next len bytes, from 0 again when they would pass size. */
static inline uint64_t syn_log_append(uint64_t *cursor, uint64_t size,
				      uint32_t len)
{
	uint64_t off;

	if (*cursor + len > size)
		*cursor = 0;
	off = *cursor;
	*cursor += len;
	return off;
}

/*
 * Group commit: a commit at t that finds no log flush in flight (the
 * previous one ended at *flush_until) leads a group, and its flush is in
 * flight for busy ns; returns 1 for a leader, 0 for a follower, whose
 * commit the leader's flush carries.
 */
static inline int syn_group_lead(uint64_t *flush_until, uint64_t t,
				 uint64_t busy)
{
	if (t < *flush_until)
		return 0;
	*flush_until = t + busy;
	return 1;
}

/*
 * Exponential think time in ns around mean_ns (0 -> 0).  Gaps saturate
 * (ist_ns_sat, ist_add_sat in core/satmath.h): a very low rate (1e-9
 * IOPS over 32 streams is a gap of 3.2e19 ns; 1e-300 IOPS is infinite)
 * or a hyperexponential's long phase (cv 100 stretches it 10^4 times)
 * does not fit in 64 bits.  A saturated time is past any duration: the
 * stream ends.
 */
static inline uint64_t syn_think(struct syn_rng *r, double mean_ns)
{
	return mean_ns > 0 ? ist_ns_sat(syn_rng_exp(r, mean_ns)) : 0;
}

/* The profiles (one file each). */
extern const struct syn_profile syn_prof_tpcc;
extern const struct syn_profile syn_prof_sysbench;
extern const struct syn_profile syn_prof_marklogic;
extern const struct syn_profile syn_prof_vdi_boot;
extern const struct syn_profile syn_prof_vdi_login;
extern const struct syn_profile syn_prof_vdi_monday;
extern const struct syn_profile syn_prof_mix;
extern const struct syn_profile syn_prof_4k_randread;
extern const struct syn_profile syn_prof_4k_randwrite;
extern const struct syn_profile syn_prof_64k_seqread;
extern const struct syn_profile syn_prof_64k_seqwrite;
extern const struct syn_profile syn_prof_sql;
extern const struct syn_profile syn_prof_sql_90_10;
extern const struct syn_profile syn_prof_sql_80_20;
extern const struct syn_profile syn_prof_oracle;
extern const struct syn_profile syn_prof_oracle_90_10;
extern const struct syn_profile syn_prof_oracle_80_20;

#endif
