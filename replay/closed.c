/* SPDX-License-Identifier: MIT */
/* closed.c - closed-loop scheduling per stream, and transactions (TPS-eq). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/satmath.h"
#include "replay/internal.h"

/* ------------------------------------------------------------ u64 map */

/* Open addressing map from a non-zero-hashed u64 key to an index. */
struct u64map {
	uint64_t *keys;
	unsigned *vals;
	unsigned char *used;
	size_t cap, n;
};

static size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

static int map_grow(struct u64map *m)
{
	struct u64map n = { 0 };
	size_t cap = m->cap ? m->cap * 2 : 64;

	n.keys = calloc(cap, sizeof(*n.keys));
	n.vals = calloc(cap, sizeof(*n.vals));
	n.used = calloc(cap, 1);
	if (!n.keys || !n.vals || !n.used) {
		free(n.keys);
		free(n.vals);
		free(n.used);
		return -ENOMEM;
	}
	n.cap = cap;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->used[i] != 1)
			continue;
		size_t j = hash64(m->keys[i]) & (cap - 1);

		while (n.used[j])
			j = (j + 1) & (cap - 1);
		n.used[j] = 1;
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
		n.n++;
	}
	free(m->keys);
	free(m->vals);
	free(m->used);
	*m = n;
	return 0;
}

/* Slot of key: used[] == 1 when present. */
static size_t map_find(const struct u64map *m, uint64_t key, int *found)
{
	size_t j = hash64(key) & (m->cap - 1), tomb = SIZE_MAX;

	while (m->used[j]) {
		if (m->used[j] == 1 && m->keys[j] == key) {
			*found = 1;
			return j;
		}
		if (m->used[j] == 2 && tomb == SIZE_MAX)
			tomb = j;
		j = (j + 1) & (m->cap - 1);
	}
	*found = 0;
	return tomb != SIZE_MAX ? tomb : j;
}

static int map_get(const struct u64map *m, uint64_t key, unsigned *val)
{
	int found;
	size_t j;

	if (!m->cap)
		return 0;
	j = map_find(m, key, &found);
	if (found)
		*val = m->vals[j];
	return found;
}

static int map_put(struct u64map *m, uint64_t key, unsigned val)
{
	int found;
	size_t j;

	if ((m->n + 1) * 2 > m->cap && map_grow(m) < 0)
		return -ENOMEM;
	j = map_find(m, key, &found);
	if (!found)
		m->n++;
	m->used[j] = 1;
	m->keys[j] = key;
	m->vals[j] = val;
	return 0;
}

static void map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------ closed loop */

#define NIL UINT32_MAX

struct cl_node {
	struct rpl_io io;
	uint64_t lock_wait;    /* serial commits: the part of the recorded
				  think time before the I/O when other
				  streams held the commit lock */
	uint64_t gc_wait;      /* the same before an I/O that does not take
				  the lock (a read after a commit that
				  another's flush made durable) */
	uint64_t runq_wait;    /* --think-sched: the part of the recorded
				  think time before the I/O when the stream
				  waited for a CPU behind a foreign thread */
	uint64_t on_cpu;       /* --think-sched: the part on a CPU, */
	uint64_t on_cpu_rt;    /* the CPU time charged in it (version 3's
				  runtime; on_cpu without it) */
	uint64_t runnable;     /* and the part runnable (any wait for a CPU) */
	uint64_t client_sleep; /* --think-sched: the part asleep until a
				  client woke it, */
	uint64_t client_cpu;   /* and the clients' CPU time for those sleeps */
	/* --wake-cost: the bursts in the gap after a wake-up that was not a
	 * client's: its I/O's completion (the sleep spanned the stream's
	 * recorded completion that opened the gap), another (a lock), and
	 * the preemptions by such a wake-up of another stream */
	unsigned n_iowake, n_wake, n_prewake;
	uint64_t wake_back;    /* the lock wake-ups' cost taken off, given
				  back when the replay waits for the lock */
	int lock_waited;       /* its lock deadline was a wait */
	uint64_t cpu_end;      /* --cpus: its on-CPU part served until then */
	int cpu_served;        /* cpu_end is set */
	/* --cpu-queue burst: the gap's CPU times in recorded order (each
	 * on-CPU interval, each client's CPU for a round trip), queued one
	 * by one for the virtual CPUs, each when the one before has been
	 * served (burst_serve) */
	uint64_t *bursts;
	unsigned nbursts, burst_next;
	int burst_on;          /* the first was asked for (burst_due) */
	uint64_t burst_at;     /* when the next is asked for */
	double burst_f;        /* their CPU time's factor (the scales, and
				  --wake-cost's share taken off) */
	/* --commit-groups with --think-sched: the gap holds a sleep that
	 * another stream's commit ended (a lock wake-up) and then a wait for
	 * the client: the CPU time (the stream's and its client's) before
	 * that wake-up and after it (see woke_ready) */
	int woke;
	uint64_t woke_pre, woke_post;
	uint64_t woke_from;    /* replay: when the stream drained before it */
	int woke_armed;        /* woke_from is set */
	int woke_wait;         /* another stream held the lock when the
				  stream reached the sleep: it waits for
				  that holder's release, */
	uint64_t woke_rel;     /* which came then (0: not yet) */
	/* --holder-waits: the gap holds a sleep that another stream (the
	 * holder, hw_stream) ended just after the completion of its commit
	 * hw_ord (its hw_ord-th commit marker), then a wait for the client:
	 * the stream waited for a lock that the holder kept through its
	 * commit (a row's); hw_post: its CPU time after the wake-up (see
	 * holder_ready) */
	int hw;
	unsigned hw_stream;
	uint64_t hw_ord, hw_post;
	uint64_t hw_sleep;     /* the sleep's part left in the think time (its
				  length less the lock others held in it) */
	int hw_waited;         /* counted as a wait in the replay */
	/* --lock-handover: when the node opens a commit section, the median
	 * of the handovers recorded up to it (see ho_sample) */
	uint64_t handover;
	unsigned next;
};

/* --holder-waits: the completion times kept per stream (a dependency on
 * an older commit is met: the waiter's drain is later) */
#define CL_DONE_RING 64

struct cl_stream {
	uint64_t id;
	unsigned head, tail;   /* FIFO of pending nodes */
	unsigned ver;          /* bumps when the head's readiness changes */
	int have_prev;
	int explicit_deps;     /* the stream's records carry "dependent" flags */
	unsigned inflight;     /* issued, not completed */
	uint64_t prev_t, prev_issue;     /* previous I/O: trace time, actual issue */
	uint64_t rec_end;      /* max recorded completion (t + lat) so far */
	uint64_t last_done;    /* max actual completion so far (absolute) */
	int commits;           /* serial commits: the stream has commit markers */
	/* serial commits, in trace order (at add time) */
	uint64_t add_end;      /* max recorded completion of the added I/Os */
	int added;             /* some I/O of the stream was added */
	uint64_t sec_start;    /* its open commit section's first issue */
	unsigned sec_dev;      /* and device */
	int in_sec;
	/* --commit-groups: the stream whose flush carries its waiting commit
	 * (NIL: none), and when its commit was ready */
	unsigned leader;
	uint64_t ride_at;
	/* --think-sched, in trace order (at add time) */
	uint64_t rq_from;      /* max recorded completion of the added I/Os */
	uint64_t rq_acc[9];    /* intervals of its open gap read early */
	int last_sync;         /* its latest completion did not sleep */
	/* --holder-waits: its commit markers added (in trace order) and
	 * completed in the replay, with the latest completions' times */
	uint64_t rec_ord, done_ord;
	uint64_t done_at[CL_DONE_RING];
};

/* A recorded commit section: a stream's first write of the commit device
 * to its commit marker's completion - the time it held the lock. */
#define CL_SECS 256
struct cl_sec {
	uint64_t start, end;
	uint64_t ord;           /* the stream's commit marker: which */
	unsigned stream;
};

struct cl_heap_ent {
	uint64_t key;
	uint64_t prio;  /* ties: the earliest ready first (lock waiters) */
	unsigned stream, ver;
	int burst;      /* --cpu-queue burst: the stream's next CPU burst
			   is asked for at key (no I/O) */
};

static int ent_before(const struct cl_heap_ent *a, const struct cl_heap_ent *b)
{
	return a->key < b->key || (a->key == b->key && a->prio < b->prio);
}

/* A sidecar interval: a foreign run-queue wait, on a CPU (cpu: the
 * runtime charged in it, when the line has one), runnable, or asleep until
 * a client woke the stream (cpu: the client's CPU time for it).
 * RQ_CLIENT_CPU, RQ_CPU_RT: the indexes of the clients' CPU and of the
 * streams' charged CPU in the sums. */
enum { RQ_FOREIGN, RQ_CPU, RQ_RUNNABLE, RQ_CLIENT, RQ_CLIENT_CPU, RQ_CPU_RT,
       RQ_N_IOWAKE, RQ_N_WAKE, RQ_N_PREWAKE, RQ_SUMS };
/* What an on-CPU interval followed: the stream's first one, a client's
 * wake-up, another wake-up (an I/O's completion, a lock), a preemption,
 * a preemption by another stream's burst after such a wake-up. */
enum { WK_FIRST, WK_CLIENT, WK_WAKE, WK_PREEMPT, WK_PREWAKE };
_Static_assert(RQ_SUMS == sizeof(((struct cl_stream *)0)->rq_acc) / sizeof(uint64_t),
	       "cl_stream.rq_acc holds the sums");
struct rq_iv {
	uint64_t stream, a, b, cpu;
	int kind;
	int has_cpu;            /* RQ_CPU: cpu is its runtime */
	int wk;                 /* RQ_CPU: WK_*, what it followed */
	uint64_t sleep_from;    /* WK_CLIENT, WK_WAKE: the sleep's start */
	uint64_t wake_at;       /* WK_WAKE: when it was made runnable */
};

/* The classifier's state of one stream, in the sidecar's order: its latest
 * on-CPU interval's end, its latest runnable interval and client sleep. */
struct rq_cls_st {
	uint64_t id, c_end, r_a, r_b, w_a;
	int have_c, have_r, have_w;
};
#define RQ_WAKE_RING 64
struct rq_cls {
	struct u64map map;
	struct rq_cls_st *st;
	unsigned n, cap;
	/* the starts of the latest bursts after a non-client wake-up: a
	 * preemption at one of them was by that wake-up */
	uint64_t wake_at[RQ_WAKE_RING];
	unsigned wake_next;
};

/* An interval read ahead: live until a gap takes it, in its stream's
 * list until then, and in the stale heap until it is popped (then free). */
struct rq_pend {
	struct rq_iv iv;
	unsigned prev, next;    /* its stream's list; next: the free list */
	unsigned list;          /* the list (index in rq_head) */
	int live;
};

/* A stale-heap entry: the interval goes stale when an I/O's issue passes
 * key = its end + RQ_STALE_NS (computed as the sweep always did). */
struct rq_stale {
	uint64_t key;
	unsigned slot;
};

/* --lock-handover: the latest recorded handovers kept (see ho_sample) */
#define CL_HO 255
/* Busy intervals of a gap kept (the latest), see busy_runs. */
#define RQ_BUSY_MAX 256
/* On-CPU intervals of all streams kept (the latest), see holder_scan. */
#define CL_ONCPU 4096
/* --holder-waits: the most waits for the client after such a wake-up (the
 * rest of the transaction: pgbench's TPC-B has 2 statements after its
 * branch's update, 3 after its teller's) */
#define HW_MAX_CLIENT 3

struct rpl_closed {
	struct u64map map;
	struct cl_stream *s;
	unsigned ns, scap;
	struct cl_node *nodes;
	unsigned nnodes, free_head, pending;
	struct cl_heap_ent *heap;
	unsigned nheap, hcap;
	/* serial commits: the commit device's lock */
	int commit_dev;         /* device of the first commit marker, -1 */
	unsigned lock_owner;    /* stream index, NIL when free */
	uint64_t lock_released; /* actual time of the last release */
	struct cl_sec secs[CL_SECS]; /* the latest closed commit sections */
	unsigned nsecs, sec_next;
	/* --think-sched: the sidecar, read as the records are added */
	FILE *rq;
	int rq_have;            /* rq_next holds the next interval */
	int rq_version;         /* of its header (checked before) */
	struct rq_iv rq_next;
	struct rq_cls cls;      /* what each on-CPU interval followed */
	/* the intervals read ahead, not yet given to a gap: in a pool, each
	 * in its stream's list (its gaps take them) and in a heap by the time
	 * they go stale (the other streams' I/Os sweep them): each I/O visits
	 * its own stream's intervals and the stale ones, not all of them */
	struct rq_pend *pend;
	unsigned pcap, pfree;   /* pool size, free list (NIL: none) */
	struct u64map rq_map;   /* stream id -> its list in rq_head */
	unsigned *rq_head, nrqs, rqscap;
	struct rq_stale *rq_heap;
	unsigned nrqh;          /* heap entries (its capacity is pcap) */
	/* --cpus: when each virtual CPU is free */
	uint64_t *vcpu;
	/* --cpu-queue burst: the gap's CPU times (start, CPU) being added */
	int bursts;
	uint64_t *bbuf;
	unsigned nbbuf, bbcap;
	/* --think-sched, --commit-groups: the busy runs of the I/O being added */
	int groups;
	uint64_t busy[2 * RQ_BUSY_MAX];
	unsigned nbusy;
	/* --think-sched, --commit-groups: the intervals of the gap before the
	 * I/O being added (the latest RQ_BUSY_MAX), see woke_scan */
	struct rq_iv gapiv[RQ_BUSY_MAX];
	unsigned ngapiv;
	/* --lock-handover: the latest recorded handovers (a ring), the same
	 * values sorted (ho_sorted), and their median */
	int handover;
	uint64_t ho[CL_HO], ho_sorted[CL_HO], ho_med;
	unsigned nho, ho_next;
	/* --holder-waits: the latest on-CPU intervals read, of all streams,
	 * in the sidecar's order (of their ends): who ran at a wake-up */
	int holder;
	struct cl_oncpu {
		uint64_t stream, a, b;
	} oncpu[CL_ONCPU];
	unsigned noncpu, oncpu_next;
};

/* ------------------------------------------------------------ run-queue sidecar */

/* A decimal field after blanks: 0, or -1 when absent or beyond 2^64-1. */
static int rq_num(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	if (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
		return -1;
	*p = s;
	*v = x;
	return 0;
}

/*
 * One line of a sidecar: 1 an interval, 0 a comment or blank, -1 bad.
 * "STREAM START END": a wait for a CPU behind a foreign thread; "c ...":
 * on a CPU, with the runtime the kernel charged in it (at most END - START)
 * as an optional 4th field from version 3; "r ...": runnable (any wait
 * for a CPU); "w ... CPU" (version 2): asleep until a client woke it, the
 * client's CPU time for it.
 */
static int rq_parse(const char *line, struct rq_iv *iv, int version)
{
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line == '#' || *line == '\n' || !*line)
		return 0;
	iv->kind = RQ_FOREIGN;
	iv->cpu = 0;
	iv->has_cpu = 0;
	iv->wk = WK_FIRST; /* rq_classify() tells, for the "c" lines */
	iv->sleep_from = 0;
	iv->wake_at = 0;
	if ((*line == 'c' || *line == 'r' || (*line == 'w' && version >= 2)) &&
	    (line[1] == ' ' || line[1] == '\t')) {
		iv->kind = *line == 'c' ? RQ_CPU : *line == 'r' ? RQ_RUNNABLE : RQ_CLIENT;
		line += 2;
		while (*line == ' ' || *line == '\t')
			line++;
	}
	if (rq_num(&line, &iv->stream) || rq_num(&line, &iv->a) || rq_num(&line, &iv->b))
		return -1;
	if (iv->kind == RQ_CLIENT && rq_num(&line, &iv->cpu))
		return -1;
	while (*line == ' ' || *line == '\t' || *line == '\r' || *line == '\n')
		line++;
	if (*line && iv->kind == RQ_CPU && version >= 3) {
		if (rq_num(&line, &iv->cpu))
			return -1;
		iv->has_cpu = 1;
		while (*line == ' ' || *line == '\t' || *line == '\r' || *line == '\n')
			line++;
		if (iv->b >= iv->a && iv->cpu > iv->b - iv->a)
			return -1; /* more CPU than the interval's length */
	}
	return *line || iv->b < iv->a ? -1 : 1;
}

/* The version of a sidecar's first line "# iostorm-sched N ...", 0 if
 * it is not one. */
static int rq_version(const char *line)
{
	uint64_t v;

	if (strncmp(line, "# iostorm-sched", 15) || (line[15] != ' ' && line[15] != '\t'))
		return 0;
	line += 15;
	if (rq_num(&line, &v) || !v || v > 1000)
		return 0;
	return (int)v;
}

/*
 * fgets() into line (size bytes), with the number of bytes read in *len:
 * fgets() does not say, and a NUL byte in the line would make strlen()
 * short of it (a short line taken for a long one without its newline).
 * The buffer is filled with non-NUL bytes first, so that the terminating
 * NUL is the last one in it.
 */
static char *rq_gets(char *line, size_t size, FILE *f, size_t *len)
{
	char *end;

	memset(line, '\n', size);
	if (!fgets(line, (int)size, f))
		return NULL;
	end = memrchr(line, '\0', size);
	*len = end ? (size_t)(end - line) : 0;
	return line;
}

/*
 * What the on-CPU interval iv followed, from the stream's lines before it
 * (the sidecar is in the order of the intervals' ends: a stream's "w"
 * line, written at the client's wake-up, and its "r" line, written at the
 * switch to it, come before the "c" line of that time on a CPU):
 *   - a preemption: runnable from its previous time on a CPU's end;
 *     by another stream's burst after a wake-up (not a client's) when
 *     that burst started at the preemption;
 *   - a client's wake-up: a "w" line from its previous time's end;
 *   - another wake-up (an I/O's completion, a lock): asleep from its
 *     previous time's end (sleep_from) until it was made runnable.
 * Sets iv->wk and iv->sleep_from; 0 or -ENOMEM.
 */
static int rq_classify(struct rq_cls *cl, struct rq_iv *iv)
{
	struct rq_cls_st *st;
	unsigned i;

	if (iv->kind == RQ_FOREIGN)
		return 0;
	if (!map_get(&cl->map, iv->stream, &i)) {
		if (cl->n == cl->cap) {
			unsigned cap = cl->cap ? cl->cap * 2 : 16;
			struct rq_cls_st *n = realloc(cl->st, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			cl->st = n;
			cl->cap = cap;
		}
		i = cl->n++;
		memset(&cl->st[i], 0, sizeof(cl->st[i]));
		cl->st[i].id = iv->stream;
		if (map_put(&cl->map, iv->stream, i) < 0)
			return -ENOMEM;
	}
	st = &cl->st[i];
	if (iv->kind == RQ_CLIENT) {
		st->w_a = iv->a;
		st->have_w = 1;
		return 0;
	}
	if (iv->kind == RQ_RUNNABLE) {
		st->r_a = iv->a;
		st->r_b = iv->b;
		st->have_r = 1;
		return 0;
	}
	iv->wk = WK_FIRST;
	iv->sleep_from = 0;
	iv->wake_at = 0;
	if (st->have_c) {
		int woken_at_start = st->have_r && st->r_b == iv->a;

		iv->wake_at = woken_at_start ? st->r_a : iv->a;
		if ((woken_at_start && st->r_a == st->c_end) || iv->a == st->c_end) {
			/* runnable from its end (or back on a CPU at once) */
			iv->wk = WK_PREEMPT;
			for (unsigned k = 0; k < RQ_WAKE_RING; k++)
				if (cl->wake_at[k] == st->c_end && st->c_end) {
					iv->wk = WK_PREWAKE;
					break;
				}
		} else {
			iv->wk = st->have_w && st->w_a == st->c_end ? WK_CLIENT : WK_WAKE;
			iv->sleep_from = st->c_end;
		}
	}
	if (iv->wk == WK_WAKE) {
		cl->wake_at[cl->wake_next] = iv->a;
		cl->wake_next = (cl->wake_next + 1) % RQ_WAKE_RING;
	}
	st->c_end = iv->b;
	st->have_c = 1;
	st->have_r = st->have_w = 0;
	return 0;
}

static void rq_cls_free(struct rq_cls *cl)
{
	map_free(&cl->map);
	free(cl->st);
	memset(cl, 0, sizeof(*cl));
}

/* The bins of the wake-up bursts' CPU time (100 ns each, up to 1 ms). */
#define WAKE_BIN_NS 100ull
#define WAKE_BINS 10000u
/* The bursts with the least work after a wake-up: their 10th percentile */
#define WAKE_QUANTILE 0.10

/*
 * --wake-cost auto: the CPU cost of a wake-up (its switch to the thread,
 * the return from the sleep, the cache it finds cold), from the sidecar
 * alone.  A burst after a wake-up that was not a client's (an I/O's
 * completion, a lock) is that cost plus the work the thread did before it
 * slept again; the bursts with the least work show the cost: the 10th
 * percentile of their CPU time (the runtime charged, the interval's wall
 * time without it).  0 when the sidecar has no such bursts.
 */
uint64_t rpl_sched_wake_cost(const char *path)
{
	FILE *f = fopen(path, "re");
	struct rq_cls cl = { 0 };
	uint32_t *bins;
	uint64_t n = 0, cost = 0;
	char line[256];
	int version = 0;
	struct rq_iv iv;

	if (!f)
		return 0;
	bins = calloc(WAKE_BINS + 1, sizeof(*bins));
	while (bins && fgets(line, sizeof(line), f)) {
		if (!version) {
			version = rq_version(line);
			continue;
		}
		if (rq_parse(line, &iv, version) <= 0)
			continue;
		if (rq_classify(&cl, &iv) < 0)
			break;
		if (iv.kind == RQ_CPU && iv.wk == WK_WAKE) {
			uint64_t t = iv.has_cpu ? iv.cpu : iv.b - iv.a;

			bins[t / WAKE_BIN_NS < WAKE_BINS ? t / WAKE_BIN_NS : WAKE_BINS]++;
			n++;
		}
	}
	if (bins && n) {
		uint64_t want = (uint64_t)((double)n * WAKE_QUANTILE), acc = 0;

		for (unsigned i = 0; i <= WAKE_BINS; i++) {
			acc += bins[i];
			if (acc > want) {
				cost = (uint64_t)i * WAKE_BIN_NS + WAKE_BIN_NS / 2;
				break;
			}
		}
	}
	free(bins);
	rq_cls_free(&cl);
	fclose(f);
	return cost;
}

int rpl_sched_check(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char line[256];
	unsigned long n = 0;
	struct rq_iv iv;
	int ret = 0, kinds = 0, k, version = 0;
	size_t len;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	while (rq_gets(line, sizeof(line), f, &len)) {
		n++;
		if (n == 1 && !(version = rq_version(line))) {
			snprintf(err, errlen, "%s: line 1: not a run-queue sidecar of record --sched "
				 "(no '# iostorm-sched 1' to '3' header)", path);
			ret = IST_EPARSE;
			break;
		}
		if (n == 1 && version > RPL_SCHED_VERSION) {
			snprintf(err, errlen, "%s: line 1: sidecar version %d, newer than this "
				 "iostorm reads (1 to %d)", path, version, RPL_SCHED_VERSION);
			ret = IST_EVERSION;
			break;
		}
		if (memchr(line, '\0', len)) {
			snprintf(err, errlen, "%s: line %lu: NUL byte in line", path, n);
			ret = IST_EPARSE;
			break;
		}
		if ((!len || line[len - 1] != '\n') && !feof(f)) {
			snprintf(err, errlen, "%s: line %lu: too long", path, n);
			ret = IST_EPARSE;
			break;
		}
		k = rq_parse(line, &iv, version);
		if (k < 0) {
			snprintf(err, errlen, "%s: line %lu: expected '[c|r] STREAM START_NS END_NS'%s%s "
				 "with START <= END", path, n,
				 version >= 3 ? ", 'c STREAM START_NS END_NS RUNTIME_NS' (RUNTIME "
				 "<= END - START)" : "",
				 version >= 2 ? " or 'w STREAM START_NS END_NS CPU_NS'" : "");
			ret = IST_EPARSE;
			break;
		}
		if (k > 0 && iv.kind == RQ_CPU)
			kinds |= RPL_SCHED_HAS_CPU;
		if (k > 0 && iv.kind == RQ_CPU && iv.has_cpu)
			kinds |= RPL_SCHED_HAS_RUNTIME;
		if (k > 0 && iv.kind == RQ_CLIENT)
			kinds |= RPL_SCHED_HAS_CLIENT;
	}
	if (!ret && ferror(f)) {
		/* a directory opens, then reads fail: it said "empty" */
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	} else if (!ret && !n) {
		snprintf(err, errlen, "%s: empty (no '# iostorm-sched 1' header)", path);
		ret = IST_EPARSE;
	}
	fclose(f);
	return ret < 0 ? ret : kinds;
}

static int rq_read(struct rpl_closed *c)
{
	char line[256];
	int k;

	while (fgets(line, sizeof(line), c->rq)) {
		if (!c->rq_version) {
			c->rq_version = rq_version(line);
			continue;
		}
		k = rq_parse(line, &c->rq_next, c->rq_version);
		if (k > 0) {
			if (rq_classify(&c->cls, &c->rq_next) < 0)
				break; /* out of memory: the rest unread */
			if (c->holder && c->rq_next.kind == RQ_CPU) {
				c->oncpu[c->oncpu_next] = (struct cl_oncpu){ c->rq_next.stream,
					c->rq_next.a, c->rq_next.b };
				c->oncpu_next = (c->oncpu_next + 1) % CL_ONCPU;
				if (c->noncpu < CL_ONCPU)
					c->noncpu++;
			}
			c->rq_have = 1;
			return 1;
		}
	}
	c->rq_have = 0;
	return 0;
}

/* The sidecar is read this far past an I/O's issue: the stream's time on
 * a CPU before the issue ends with its switch away, just after. */
#define RQ_LOOK_NS 2000000ull
/* Intervals read ahead and older than this go to their stream's open gap. */
#define RQ_STALE_NS 100000000ull

/* Takes slot i out of its stream's list (a gap took it, or it went stale). */
static void rq_unlink(struct rpl_closed *c, unsigned i)
{
	struct rq_pend *p = &c->pend[i];

	if (p->prev != NIL)
		c->pend[p->prev].next = p->next;
	else
		c->rq_head[p->list] = p->next;
	if (p->next != NIL)
		c->pend[p->next].prev = p->prev;
	p->live = 0;
}

static void rq_heap_pop(struct rpl_closed *c)
{
	struct rq_stale last = c->rq_heap[--c->nrqh];
	unsigned i = 0, n = c->nrqh;

	for (;;) {
		unsigned l = 2 * i + 1, m = l;

		if (l >= n)
			break;
		if (l + 1 < n && c->rq_heap[l + 1].key < c->rq_heap[l].key)
			m = l + 1;
		if (c->rq_heap[m].key >= last.key)
			break;
		c->rq_heap[i] = c->rq_heap[m];
		i = m;
	}
	if (n)
		c->rq_heap[i] = last;
}

static int rq_push(struct rpl_closed *c, const struct rq_iv *iv)
{
	struct rq_stale e = { iv->b + RQ_STALE_NS, 0 };
	struct rq_pend *p;
	unsigned i, list;
	int found;

	if (c->pfree == NIL) {
		unsigned cap = c->pcap ? c->pcap * 2 : 256;
		struct rq_pend *np = realloc(c->pend, cap * sizeof(*np));
		struct rq_stale *nh;

		if (!np)
			return -ENOMEM;
		c->pend = np;
		nh = realloc(c->rq_heap, cap * sizeof(*nh));
		if (!nh)
			return -ENOMEM;
		c->rq_heap = nh;
		for (i = c->pcap; i < cap; i++)
			c->pend[i].next = i + 1 < cap ? i + 1 : NIL;
		c->pfree = c->pcap;
		c->pcap = cap;
	}
	found = map_get(&c->rq_map, iv->stream, &list);
	if (!found) {
		if (c->nrqs == c->rqscap) {
			unsigned cap = c->rqscap ? c->rqscap * 2 : 64;
			unsigned *h = realloc(c->rq_head, cap * sizeof(*h));

			if (!h)
				return -ENOMEM;
			c->rq_head = h;
			c->rqscap = cap;
		}
		list = c->nrqs;
		if (map_put(&c->rq_map, iv->stream, list) < 0)
			return -ENOMEM;
		c->rq_head[c->nrqs++] = NIL;
	}
	i = c->pfree;
	p = &c->pend[i];
	c->pfree = p->next;
	p->iv = *iv;
	p->list = list;
	p->live = 1;
	p->prev = NIL;
	p->next = c->rq_head[list];
	if (p->next != NIL)
		c->pend[p->next].prev = i;
	c->rq_head[list] = i;
	/* the heap has room: it holds no more entries than the pool slots */
	e.slot = i;
	for (i = c->nrqh++; i; ) {
		unsigned up = (i - 1) / 2;

		if (c->rq_heap[up].key <= e.key)
			break;
		c->rq_heap[i] = c->rq_heap[up];
		i = up;
	}
	c->rq_heap[i] = e;
	return 0;
}

/* The part of iv in its stream's open gap (from its last recorded
 * completion), up to hi. */
static uint64_t rq_part(const struct cl_stream *s, const struct rq_iv *iv, uint64_t hi)
{
	uint64_t lo = iv->a > s->rq_from ? iv->a : s->rq_from;

	hi = iv->b < hi ? iv->b : hi;
	return hi > lo ? hi - lo : 0;
}

/* Adds the part of iv in s's open gap up to hi to sum; a client's CPU
 * time in proportion to the part of its sleep (all of it for a sleep of
 * no length in the gap), an on-CPU interval's runtime likewise (its wall
 * time without one). */
static void rq_add(uint64_t *sum, const struct cl_stream *s, const struct rq_iv *iv,
		   uint64_t hi)
{
	uint64_t part = rq_part(s, iv, hi), len = iv->b - iv->a;
	int idx = iv->kind == RQ_CLIENT ? RQ_CLIENT_CPU : RQ_CPU_RT;

	sum[iv->kind] += part;
	if (iv->kind == RQ_CPU && iv->a >= s->rq_from && iv->a < hi) {
		/* a burst starting in the gap: what it followed */
		if (iv->wk == WK_WAKE)
			sum[iv->sleep_from < s->rq_from ? RQ_N_IOWAKE : RQ_N_WAKE]++;
		else if (iv->wk == WK_PREWAKE)
			sum[RQ_N_PREWAKE]++;
	}
	if (iv->kind == RQ_CPU && !iv->has_cpu)
		sum[RQ_CPU_RT] += part;
	if ((iv->kind != RQ_CLIENT && !(iv->kind == RQ_CPU && iv->has_cpu)) || !iv->cpu)
		return;
	if (part == len)
		sum[idx] += iv->cpu;
	else if (!len)
		sum[idx] += iv->a >= s->rq_from && iv->a <= hi ? iv->cpu : 0;
	else
		sum[idx] += (uint64_t)((double)iv->cpu * (double)part / (double)len);
}

static int cmp_u64pair(const void *pa, const void *pb);

/*
 * The stream's busy runs in the gap before the I/O being added (on a
 * CPU, runnable, or asleep until a client woke it; merged, in order): the
 * lock others held then did not delay it (it was running its transaction
 * or waiting for its client), so it is no lock wait (held_in_sleep).  The
 * latest RQ_BUSY_MAX intervals are kept.  With --commit-groups only: when
 * a commit is ready decides which commits share a flush (without, the
 * lock wait was taken out a second time, and commits came ready early).
 */
static void busy_runs(struct rpl_closed *c)
{
	unsigned n = 0;

	if (!c->nbusy)
		return;
	qsort(c->busy, c->nbusy, 2 * sizeof(uint64_t), cmp_u64pair);
	for (unsigned i = 1; i < c->nbusy; i++) {
		if (c->busy[2 * i] <= c->busy[2 * n + 1]) {
			if (c->busy[2 * i + 1] > c->busy[2 * n + 1])
				c->busy[2 * n + 1] = c->busy[2 * i + 1];
			continue;
		}
		n++;
		c->busy[2 * n] = c->busy[2 * i];
		c->busy[2 * n + 1] = c->busy[2 * i + 1];
	}
	c->nbusy = n + 1;
}

/* Did a commit section of another stream than si end in (lo, hi] in the
 * recording? */
static int sec_ended(const struct rpl_closed *c, unsigned si, uint64_t lo, uint64_t hi)
{
	for (unsigned i = 0; i < c->nsecs; i++)
		if (c->secs[i].stream != si && c->secs[i].end > lo && c->secs[i].end <= hi)
			return 1;
	return 0;
}

/* The CPU time of iv's part in s's gap up to hi: a stream's time on a CPU
 * (its runtime in proportion, the wall time without one) or its client's
 * CPU time for a sleep, as rq_add counts them. */
static uint64_t iv_cpu(const struct cl_stream *s, const struct rq_iv *iv, uint64_t hi)
{
	uint64_t part = rq_part(s, iv, hi), len = iv->b - iv->a;

	if (iv->kind == RQ_CPU && !iv->has_cpu)
		return part;
	if (iv->kind != RQ_CPU && iv->kind != RQ_CLIENT)
		return 0;
	if (part == len)
		return iv->cpu;
	if (!len)
		return iv->a >= s->rq_from && iv->a <= hi ? iv->cpu : 0;
	return (uint64_t)((double)iv->cpu * (double)part / (double)len);
}

/*
 * --commit-groups: does the gap before nd (recorded issue t) hold a sleep
 * that another stream's commit ended (a burst after a wake-up that was
 * neither a client's nor its own I/O's completion, with another stream's
 * commit section ending during the sleep: the stream waited for the
 * commit lock, its commit made durable by another's flush), followed by a
 * wait for its client before the I/O?  Then nd->woke, with the CPU time
 * before the (latest such) wake-up and after it (see woke_ready).
 */
static void woke_scan(struct rpl_closed *c, unsigned si, struct cl_node *nd, uint64_t t)
{
	const struct cl_stream *s = &c->s[si];
	uint64_t wake = 0, pre = 0, post = 0;
	int found = 0, client = 0;

	for (unsigned i = 0; i < c->ngapiv; i++) {
		const struct rq_iv *iv = &c->gapiv[i];

		if (iv->kind == RQ_CPU && iv->wk == WK_WAKE && iv->sleep_from >= s->rq_from &&
		    iv->a < t && (!found || iv->a > wake) &&
		    sec_ended(c, si, iv->sleep_from, iv->a)) {
			wake = iv->a;
			found = 1;
		}
	}
	if (!found)
		return;
	for (unsigned i = 0; i < c->ngapiv; i++) {
		const struct rq_iv *iv = &c->gapiv[i];
		uint64_t cpu = iv_cpu(s, iv, t);

		if (iv->kind == RQ_CLIENT && iv->a >= wake)
			client = 1;
		if (iv->a >= wake)
			post += cpu;
		else
			pre += cpu;
	}
	if (!client)
		return;
	nd->woke = 1;
	nd->woke_pre = pre;
	nd->woke_post = post;
}

/*
 * --holder-waits: the other stream that ran at wake-up time `wake` (a
 * thread runs when it wakes another: the waker), among those whose commit
 * section ended in the sleep (from, wake]; the latest such section's end
 * wins (several CPUs).  NIL when none; *ord: that section's commit.
 */
static unsigned holder_at(const struct rpl_closed *c, unsigned si, uint64_t from,
			  uint64_t wake, uint64_t *ord)
{
	uint64_t best = 0;
	unsigned hs = NIL;

	/* the ring is in the order of the intervals' ends: the latest first,
	 * until one ended before the wake-up */
	for (unsigned k = 1; k <= c->noncpu; k++) {
		const struct cl_oncpu *o = &c->oncpu[(c->oncpu_next + CL_ONCPU - k) % CL_ONCPU];
		unsigned j;

		if (o->b < wake)
			break;
		if (o->a > wake || o->stream == c->s[si].id || !map_get(&c->map, o->stream, &j))
			continue;
		for (unsigned m = 0; m < c->nsecs; m++) {
			const struct cl_sec *x = &c->secs[m];

			if (x->stream == j && x->end > from && x->end <= wake && x->end >= best) {
				best = x->end;
				hs = j;
				*ord = x->ord;
			}
		}
	}
	return hs;
}

static uint64_t held_in_sleep(struct rpl_closed *c, unsigned si, uint64_t a, uint64_t b);

/*
 * --holder-waits: does the gap before nd (recorded issue t, the first
 * write or flush of a commit section) hold a sleep that another stream
 * ended, that stream on a CPU at the wake-up with its commit section
 * ended during the sleep, followed by 1 to HW_MAX_CLIENT waits for its
 * client before the I/O?  In PostgreSQL: a backend that waited for a row another
 * transaction had updated, until that transaction's commit was durable
 * (the holder wakes the waiters as it releases its locks, after its
 * commit), then ran the rest of its transaction.  Then nd->hw, with the
 * holder, its commit and the CPU time after the wake-up (the latest such
 * sleep).  It replaces woke_scan's mark, which waits for whichever stream
 * holds the log lock then.
 */
static void holder_scan(struct rpl_closed *c, unsigned si, struct cl_node *nd, uint64_t t)
{
	const struct cl_stream *s = &c->s[si];
	const struct ist_record *rec = &nd->io.rec;
	uint64_t wake = 0, from = 0, last = 0, post = 0, ord = 0, o;
	unsigned hs = NIL, h;
	int client = 0;

	if (c->commit_dev < 0 || rec->dev != (unsigned)c->commit_dev ||
	    (rec->op != IST_OP_WRITE && rec->op != IST_OP_FLUSH) ||
	    (s->in_sec && s->sec_dev == rec->dev))
		return; /* not the first I/O of a commit section */
	for (unsigned i = 0; i < c->ngapiv; i++) {
		const struct rq_iv *iv = &c->gapiv[i];

		if (iv->kind != RQ_CPU || iv->wk != WK_WAKE || iv->sleep_from < s->rq_from ||
		    iv->a >= t || (hs != NIL && iv->a <= last))
			continue;
		h = holder_at(c, si, iv->sleep_from, iv->wake_at, &o);
		if (h != NIL) {
			hs = h;
			ord = o;
			last = iv->a;
			wake = iv->wake_at;
			from = iv->sleep_from;
		}
	}
	if (hs == NIL)
		return;
	for (unsigned i = 0; i < c->ngapiv; i++) {
		const struct rq_iv *iv = &c->gapiv[i];

		if (iv->kind == RQ_CLIENT && iv->a >= wake)
			client++;
		if (iv->a >= wake)
			post += iv_cpu(s, iv, t);
	}
	if (!client || client > HW_MAX_CLIENT)
		return; /* none: it went on to its write, the log lock's wait;
			   more: a commit another's flush carried, then the
			   next transaction */
	nd->hw = 1;
	nd->hw_stream = hs;
	nd->hw_ord = ord;
	nd->hw_post = post;
	nd->hw_sleep = wake - from - held_in_sleep(c, si, from, wake);
	nd->woke = 0;
}

/* --cpu-queue burst: a CPU time of the gap being added, from start (none
 * for no CPU); 0 or -ENOMEM. */
static int bbuf_add(struct rpl_closed *c, uint64_t start, uint64_t cpu)
{
	if (!cpu)
		return 0;
	if (c->nbbuf == c->bbcap) {
		unsigned cap = c->bbcap ? c->bbcap * 2 : 64;
		uint64_t *b = realloc(c->bbuf, 2 * cap * sizeof(*b));

		if (!b)
			return -ENOMEM;
		c->bbuf = b;
		c->bbcap = cap;
	}
	c->bbuf[2 * c->nbbuf] = start;
	c->bbuf[2 * c->nbbuf++ + 1] = cpu;
	return 0;
}

/* --cpu-queue burst: nd keeps the gap's CPU times, in order of start. */
static int bursts_keep(struct rpl_closed *c, struct cl_node *nd)
{
	qsort(c->bbuf, c->nbbuf, 2 * sizeof(uint64_t), cmp_u64pair);
	nd->bursts = malloc(c->nbbuf * sizeof(*nd->bursts));
	if (!nd->bursts)
		return -ENOMEM;
	for (unsigned i = 0; i < c->nbbuf; i++)
		nd->bursts[i] = c->bbuf[2 * i + 1];
	nd->nbursts = c->nbbuf;
	return 0;
}

/*
 * The run-queue waits and CPU time in the think time before nd, in trace
 * order.  An interval of the stream that started before the I/O's issue t
 * belongs to that think time (the part after the stream's last recorded
 * completion, up to t); the sidecar, in order of the intervals' ends, is
 * read up to t + RQ_LOOK_NS, the later intervals kept for later gaps.
 */
static int rec_runq(struct rpl_closed *c, unsigned si, struct cl_node *nd)
{
	struct cl_stream *s = &c->s[si];
	const struct ist_record *rec = &nd->io.rec;
	uint64_t t = rec->t_ns, end = t + rec->lat_ns, sum[RQ_SUMS];
	unsigned list;

	c->nbusy = 0;
	c->ngapiv = 0;
	while (c->rq_have && c->rq_next.b <= t + RQ_LOOK_NS) {
		if (rq_push(c, &c->rq_next) < 0)
			return -ENOMEM;
		rq_read(c);
	}
	memcpy(sum, s->rq_acc, sizeof(sum));
	memset(s->rq_acc, 0, sizeof(s->rq_acc));
	c->nbbuf = 0;
	/* --cpu-queue burst: the CPU of intervals that went stale into the
	 * gap (read over RQ_STALE_NS before its end) comes first, as one */
	if (c->bursts && bbuf_add(c, 0, sum[RQ_CPU_RT] + sum[RQ_CLIENT_CPU]) < 0)
		return -ENOMEM;
	/* the stream's intervals that started before t (the latest first:
	 * the list is in the reverse order of reading) */
	if (map_get(&c->rq_map, s->id, &list)) {
		for (unsigned i = c->rq_head[list], next; i != NIL; i = next) {
			next = c->pend[i].next;
			if (c->pend[i].iv.a < t) {
				const struct rq_iv *iv = &c->pend[i].iv;
				uint64_t a = iv->a > s->rq_from ? iv->a : s->rq_from;
				uint64_t b = iv->b < t ? iv->b : t;

				rq_add(sum, s, iv, t);
				if (c->bursts && bbuf_add(c, iv->a, iv_cpu(s, iv, t)) < 0)
					return -ENOMEM;
				if (c->groups && b > a && c->nbusy < RQ_BUSY_MAX) {
					c->busy[2 * c->nbusy] = a;
					c->busy[2 * c->nbusy++ + 1] = b;
				}
				if (c->groups && c->ngapiv < RQ_BUSY_MAX)
					c->gapiv[c->ngapiv++] = *iv;
				rq_unlink(c, i);
			}
		}
	}
	busy_runs(c);
	if (c->groups && t > s->rq_from)
		woke_scan(c, si, nd, t);
	if (c->holder && t > s->rq_from)
		holder_scan(c, si, nd, t);
	/* the stale intervals of the other streams (none of s's is left:
	 * stale, it started before t) to their streams' open gaps, dropped
	 * for a stream without I/Os so far; sums, so the order is free */
	while (c->nrqh && c->rq_heap[0].key < t) {
		unsigned i = c->rq_heap[0].slot, sj;

		rq_heap_pop(c);
		if (c->pend[i].live) {
			const struct rq_iv *iv = &c->pend[i].iv;

			if (map_get(&c->map, iv->stream, &sj))
				rq_add(c->s[sj].rq_acc, &c->s[sj], iv, UINT64_MAX);
			rq_unlink(c, i);
		}
		c->pend[i].next = c->pfree;
		c->pfree = i;
	}
	if (t > s->rq_from) {
		nd->runq_wait = sum[RQ_FOREIGN];
		nd->on_cpu = sum[RQ_CPU];
		nd->on_cpu_rt = sum[RQ_CPU_RT];
		nd->runnable = sum[RQ_RUNNABLE];
		nd->client_sleep = sum[RQ_CLIENT];
		nd->client_cpu = sum[RQ_CLIENT_CPU];
		nd->n_iowake = (unsigned)sum[RQ_N_IOWAKE];
		nd->n_wake = (unsigned)sum[RQ_N_WAKE];
		nd->n_prewake = (unsigned)sum[RQ_N_PREWAKE];
		if (c->nbbuf && bursts_keep(c, nd) < 0)
			return -ENOMEM;
	}
	if (end > s->rq_from)
		s->rq_from = end;
	return 0;
}

int rpl_closed_init(struct rpl_worker *w)
{
	struct rpl_closed *c = calloc(1, sizeof(*c));
	unsigned n = 65536 + 1;

	if (!c)
		return -ENOMEM;
	c->nodes = calloc(n, sizeof(*c->nodes));
	if (!c->nodes) {
		free(c);
		return -ENOMEM;
	}
	c->nnodes = n;
	for (unsigned i = 0; i < n; i++)
		c->nodes[i].next = i + 1 < n ? i + 1 : NIL;
	c->free_head = 0;
	c->commit_dev = -1;
	c->lock_owner = NIL;
	c->groups = w->run->o.commit_groups;
	c->holder = w->run->o.holder_waits;
	c->handover = w->run->o.lock_handover;
	c->bursts = w->run->o.cpus && w->run->o.cpu_bursts;
	c->pfree = NIL;
	if (w->run->o.cpus) {
		c->vcpu = calloc(w->run->o.cpus, sizeof(*c->vcpu));
		if (!c->vcpu) {
			free(c->nodes);
			free(c);
			return -ENOMEM;
		}
	}
	if (w->run->o.think_sched) {
		c->rq = fopen(w->run->o.think_sched, "re");
		if (!c->rq) {
			int e = errno;

			free(c->vcpu);
			free(c->nodes);
			free(c);
			return -e;
		}
		rq_read(c);
	}
	w->closed = c;
	return 0;
}

void rpl_closed_free(struct rpl_worker *w)
{
	struct rpl_closed *c = w->closed;

	if (!c)
		return;
	if (c->rq)
		fclose(c->rq);
	for (unsigned i = 0; i < c->nnodes; i++)
		free(c->nodes[i].bursts);
	free(c->bbuf);
	map_free(&c->map);
	map_free(&c->rq_map);
	free(c->pend);
	rq_cls_free(&c->cls);
	free(c->rq_head);
	free(c->rq_heap);
	free(c->vcpu);
	free(c->s);
	free(c->nodes);
	free(c->heap);
	free(c);
	w->closed = NULL;
}

unsigned rpl_closed_pending(const struct rpl_worker *w)
{
	return w->closed->pending;
}

static int heap_push(struct rpl_closed *c, uint64_t key, uint64_t prio, unsigned s,
		     unsigned ver, int burst)
{
	struct cl_heap_ent e = { key, prio, s, ver, burst };
	unsigned i;

	if (c->nheap == c->hcap) {
		unsigned cap = c->hcap ? c->hcap * 2 : 256;
		struct cl_heap_ent *h = realloc(c->heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		c->heap = h;
		c->hcap = cap;
	}
	i = c->nheap++;
	while (i) {
		unsigned p = (i - 1) / 2;

		if (!ent_before(&e, &c->heap[p]))
			break;
		c->heap[i] = c->heap[p];
		i = p;
	}
	c->heap[i] = e;
	return 0;
}

static void heap_pop(struct rpl_closed *c)
{
	struct cl_heap_ent last = c->heap[--c->nheap];
	unsigned i = 0, n = c->nheap;

	for (;;) {
		unsigned l = 2 * i + 1, m = i;

		if (l >= n)
			break;
		m = l;
		if (l + 1 < n && ent_before(&c->heap[l + 1], &c->heap[l]))
			m = l + 1;
		if (!ent_before(&c->heap[m], &last))
			break;
		c->heap[i] = c->heap[m];
		i = m;
	}
	if (n)
		c->heap[i] = last;
}

/* The recorded latency of an I/O: lat_ns, or the trace's nominal latency
 * (synthesized traces record none: their header gives it). */
static uint64_t rec_lat(const struct rpl_run *r, const struct ist_record *rec)
{
	return rec->lat_ns ? rec->lat_ns : r->nominal_lat_ns;
}

/* Serial commits: is the head of stream si (a stream that commits) a
 * write or flush of the commit device? */
static int head_commits(const struct rpl_worker *w, unsigned si)
{
	const struct rpl_closed *c = w->closed;
	const struct cl_stream *s = &c->s[si];
	const struct ist_record *h;

	if (!w->run->o.serial_commits || c->commit_dev < 0 || s->head == NIL ||
	    !s->id || !s->commits)
		return 0;
	h = &c->nodes[s->head].io.rec;
	return h->dev == (unsigned)c->commit_dev &&
	       (h->op == IST_OP_WRITE || h->op == IST_OP_FLUSH);
}

/* Serial commits: does the lock holder si go on to its flush or commit? */
static int head_flushes(const struct rpl_worker *w, unsigned si)
{
	const struct cl_stream *s = &w->closed->s[si];
	const struct ist_record *h;

	if (!head_commits(w, si))
		return 0;
	h = &w->closed->nodes[s->head].io.rec;
	return h->op == IST_OP_FLUSH || (h->flags & IST_F_COMMIT);
}

/* Serial commits: does the head of stream si take the commit lock? */
static int takes_lock(const struct rpl_worker *w, unsigned si)
{
	return w->closed->lock_owner != si && head_commits(w, si);
}

/*
 * When the think time before the drained stream's head h ends: its
 * recorded think time less the waits the replay redoes (lock: the commit
 * lock's) and the run-queue waits behind foreign threads (--think-sched),
 * times think_scale.  With --cpus N, the think time is its on-CPU part,
 * served first-come first-served on N virtual CPUs shared by the streams
 * (reserved once, when the stream drains), then the rest but the waits
 * for a CPU (asleep: client round trips, lock waits, other sleeps).  The
 * sleeps that a client ended (sidecar version 2) are replaced by the
 * client's CPU time for them, on the same CPUs: on a CPU-bound target a
 * round trip to the client costs the client's CPU and the queue for it,
 * not the recorded wall time.  The on-CPU part served is the runtime the
 * kernel charged (sidecar version 3: without the time the hypervisor stole
 * from the CPU, which is not the workload's demand), its wall time without
 * it.  --cpu-scale F scales the CPU time served
 * (the target's CPU cost per unit of work against the recording's); the
 * part of the gap it replaced is not slept.
 *
 * --wake-cost K takes K of CPU time off the gap for each recorded wake-up
 * that the replay does not cause: the wake-ups by the completion of the
 * stream's I/O when the replayed I/O completed in the issuing thread (no
 * sleep on the target), with the preemptions of other streams' bursts
 * that such wake-ups made; and the wake-ups after a lock wait (the gap
 * before a head that takes the commit lock) when the replay does not wait
 * for the lock (when it does, lock_deadline, their cost is served on a
 * virtual CPU as the I/O issues, rpl_closed_issued).
 */
/* --wake-cost: the CPU time (at most cpu) taken off the gap before h for
 * the wake-ups the replay does not cause (see think_end). */
static uint64_t wake_drop(struct rpl_worker *w, const struct cl_stream *s, struct cl_node *h,
			  int lock, uint64_t cpu)
{
	uint64_t k = w->run->o.wake_cost_ns, n = 0, kept = 0, drop;

	if (s->last_sync)
		n += h->n_iowake + h->n_prewake;
	else
		kept += h->n_iowake + h->n_prewake;
	if (lock)
		n += h->n_wake;
	else
		kept += h->n_wake;
	drop = k * n < cpu ? k * n : cpu;
	/* the lock wake-ups' share, given back if the replay waits */
	h->wake_back = lock && n ? (uint64_t)((double)drop * h->n_wake / (double)n) : 0;
	w->wakes_dropped += n;
	w->wakes_kept += kept;
	w->wake_cpu_dropped += drop;
	return drop;
}

static uint64_t think_end(struct rpl_worker *w, struct cl_stream *s, struct cl_node *h,
			  int lock)
{
	const struct rpl_opts *o = &w->run->o;
	uint64_t t = h->io.rec.t_ns, think, out, cpu, from = s->last_done;

	think = t > s->rec_end ? t - s->rec_end : 0;
	out = (lock ? h->lock_wait : 0) +
	      (o->cpus ? h->on_cpu + h->runnable + h->client_sleep : h->runq_wait);
	think = think > out ? think - out : 0;
	/* With --cpus what is left is sleep: a stream that slept while others
	 * held the commit lock and then went on without a commit of its own
	 * (group commit) waited for the lock, not redone for an I/O that does
	 * not take it: taken out. */
	if (o->cpus && !lock)
		think = think > h->gc_wait ? think - h->gc_wait : 0;
	if (h->nbursts) {
		if (!h->cpu_served)
			return UINT64_MAX; /* its bursts queue (burst_serve) */
		from = h->cpu_end;
	} else if (o->cpus && (h->on_cpu || h->client_cpu)) {
		struct rpl_closed *c = w->closed;

		if (!h->cpu_served) {
			unsigned k = 0;

			for (unsigned i = 1; i < o->cpus; i++)
				if (c->vcpu[i] < c->vcpu[k])
					k = i;
			cpu = h->on_cpu_rt + h->client_cpu;
			if (o->wake_cost_ns)
				cpu -= wake_drop(w, s, h, lock, cpu);
			cpu = ist_ns_sat((double)cpu * o->think_scale * o->cpu_scale);
			w->cpu_wait += from > c->vcpu[k] ? 0 : c->vcpu[k] - from;
			h->cpu_end = ist_add_sat(from > c->vcpu[k] ? from : c->vcpu[k], cpu);
			c->vcpu[k] = h->cpu_end;
			h->cpu_served = 1;
		}
		from = h->cpu_end;
	}
	return ist_add_sat(from, ist_ns_sat((double)think * o->think_scale));
}

/*
 * --commit-groups with --think-sched: a commit h whose recorded gap held a
 * sleep that another stream's commit ended and then a wait for its client
 * (woke_scan; in PostgreSQL a backend whose commit another's flush made
 * durable: it waited for the WAL lock, went back to its client, and
 * commits its next transaction) does that work after the wake-up.  When
 * another stream held the lock at the replayed time of that sleep (the
 * stream's drain plus its CPU time before the wake-up), the commit is
 * ready only after that holder's release (the replayed flush completion
 * that frees it) plus its CPU time after the wake-up, not at its think
 * time's end: the think time counts its work as if done while the other
 * flushed (woke_arm, woke_taken, rpl_closed_done).
 */
static uint64_t woke_cpu(const struct rpl_worker *w, uint64_t cpu)
{
	return ist_ns_sat((double)cpu * w->run->o.think_scale * w->run->o.cpu_scale);
}

static uint64_t woke_ready(const struct rpl_worker *w, const struct cl_node *h, uint64_t ready)
{
	uint64_t r;

	if (!h->woke_wait || !h->woke_rel)
		return ready;
	r = h->woke_rel + woke_cpu(w, h->woke_post);
	return r > ready ? r : ready;
}

/*
 * --holder-waits: a commit h that holder_scan marked is ready only once
 * the holder's commit hw_ord has completed in the replay, plus its own CPU
 * time after the wake-up (the rest of its transaction), and not before
 * ready (its think time's end) less the recorded sleep, which this wait
 * redoes; UINT64_MAX while that commit has not completed
 * (rpl_closed_done requeues it then).  So the wait follows the target's
 * commit latency, not the recording's.  A holder with nothing left to
 * complete (its commit dropped) does not hold it.
 */
static uint64_t holder_ready(struct rpl_worker *w, const struct cl_stream *s,
			     struct cl_node *h, uint64_t ready)
{
	const struct rpl_closed *c = w->closed;
	const struct cl_stream *x;
	uint64_t r, sleep;

	if (!c->holder || !h->hw || ready == UINT64_MAX)
		return ready;
	x = &c->s[h->hw_stream];
	/* the sleep out of the think time, not below the drain */
	sleep = ist_ns_sat((double)h->hw_sleep * w->run->o.think_scale);
	if (ready > s->last_done)
		ready = ready - s->last_done > sleep ? ready - sleep : s->last_done;
	if (x->done_ord < h->hw_ord) {
		if (x->head == NIL && !x->inflight && x->leader == NIL)
			return ready;
		return UINT64_MAX;
	}
	if (x->done_ord - h->hw_ord >= CL_DONE_RING)
		return ready; /* long ago */
	r = ist_add_sat(x->done_at[h->hw_ord % CL_DONE_RING], woke_cpu(w, h->hw_post));
	if (r <= ready)
		return ready;
	if (!h->hw_waited) {
		h->hw_waited = 1;
		w->holder_waited++;
	}
	return r;
}

static int requeue(struct rpl_worker *w, unsigned si);

/* --holder-waits: stream si's commit completed at done: the commits
 * waiting on it may be ready. */
static void holder_done(struct rpl_worker *w, unsigned si, uint64_t done)
{
	struct rpl_closed *c = w->closed;
	struct cl_stream *s = &c->s[si];

	s->done_ord++;
	s->done_at[s->done_ord % CL_DONE_RING] = done;
	if (!c->holder)
		return;
	for (unsigned i = 0; i < c->ns; i++) {
		const struct cl_stream *x = &c->s[i];

		if (i != si && x->head != NIL && !x->inflight && x->leader == NIL &&
		    c->nodes[x->head].hw && c->nodes[x->head].hw_stream == si)
			requeue(w, i);
	}
}

/*
 * The deadline of a head that takes the commit lock, once the stream has
 * drained: its recorded think time less the time other streams held the
 * lock meanwhile (the wait that the replay redoes against the replayed
 * commits), and not before the lock is free; *asked: when it asked.  With
 * --lock-handover a head that waited takes the lock the recording's median
 * handover after the release (ho_sample); a stream ready meanwhile may take
 * it first, and the commits ready by the time the holder issues ride on
 * its flush (gather_riders).
 */
static uint64_t lock_deadline(struct rpl_worker *w, struct cl_stream *s,
			      struct cl_node *h, uint64_t *asked)
{
	uint64_t ready = holder_ready(w, s, h, woke_ready(w, h, think_end(w, s, h, 1)));

	*asked = ready;
	if (ready == UINT64_MAX)
		return ready; /* until the holder's commit completes */
	if (ready >= w->closed->lock_released) {
		h->lock_waited = 0;
		return ready;
	}
	/* it waits for the lock: woken by its release (the wake-up's cost
	 * is served when it issues, rpl_closed_issued) */
	h->lock_waited = 1;
	return ist_add_sat(w->closed->lock_released, w->closed->handover ? h->handover : 0);
}

/*
 * When the head of stream s may issue (absolute ns), or UINT64_MAX while
 * it waits for completions.  An I/O the stream issued after its earlier
 * I/Os had completed (flag "dependent"; in a stream without such flags,
 * a recorded issue time at or after the recorded completions, or no
 * recorded latency at all) waits for all of them to complete in the
 * replay, plus the recorded think time (issue time minus the last recorded
 * completion) times think_scale.  An I/O issued while earlier ones were in
 * flight keeps its recorded distance to the previous issue.  A head that
 * takes the commit lock (--serial-commits) sets *prio to when it asked,
 * the heap's tie-break between lock waiters.
 */
static int head_dependent(const struct cl_stream *s, const struct ist_record *h)
{
	if (h->flags & IST_F_DEPENDENT)
		return 1;
	if (s->explicit_deps)
		return 0;
	return !s->rec_end || h->t_ns >= s->rec_end;
}

/*
 * The issue time of a stream's I/O recorded at t that does not wait for
 * the one before (issued while that was in flight): the recorded distance
 * after that one's issue.  A record out of time order in its stream
 * (annotate's inserted commits may be) goes at once; the difference had
 * wrapped around, a deadline never reached, and the stream stalled.
 */
static uint64_t after_prev(const struct rpl_run *r, const struct cl_stream *s,
			   uint64_t t)
{
	return ist_add_sat(s->prev_issue, ist_ns_sat((double)(t > s->prev_t ?
							      t - s->prev_t : 0) / r->o.speed));
}

static uint64_t head_deadline(struct rpl_worker *w, struct cl_stream *s, uint64_t *prio)
{
	struct rpl_run *r = w->run;
	const struct ist_record *h = &w->closed->nodes[s->head].io.rec;

	if (s->leader != NIL)
		return UINT64_MAX; /* its commit rides on another's flush */
	if (!s->have_prev || !s->id)
		return ist_add_sat(r->epoch, ist_ns_sat((double)h->t_ns / r->o.speed));
	if (head_dependent(s, h)) {
		struct cl_node *nd = &w->closed->nodes[s->head];
		unsigned si = (unsigned)(s - w->closed->s);

		if (s->inflight)
			return UINT64_MAX;
		if (takes_lock(w, si)) {
			if (w->closed->lock_owner != NIL)
				return UINT64_MAX;
			return lock_deadline(w, s, &w->closed->nodes[s->head], prio);
		}
		return think_end(w, s, nd, 0);
	}
	return after_prev(r, s, h->t_ns);
}

/*
 * --cpu-queue burst: is the drained stream si's head (a dependent I/O)
 * asking for the virtual CPUs for its gap's next CPU time, its bursts not
 * all served?  The first is asked for at the drain; then the factor of
 * their CPU time is fixed (think_scale, --cpu-scale and --wake-cost's
 * share taken off, as think_end takes it off the whole).
 */
static int burst_due(struct rpl_worker *w, unsigned si)
{
	struct rpl_closed *c = w->closed;
	struct cl_stream *s = &c->s[si];
	const struct rpl_opts *o = &w->run->o;
	struct cl_node *h;

	if (!c->bursts || s->head == NIL || s->leader != NIL || !s->have_prev || !s->id ||
	    s->inflight)
		return 0;
	h = &c->nodes[s->head];
	if (!h->nbursts || h->cpu_served || !head_dependent(s, &h->io.rec))
		return 0;
	if (!h->burst_on) {
		uint64_t cpu = 0, drop = 0;

		for (unsigned i = 0; i < h->nbursts; i++)
			cpu += h->bursts[i];
		if (o->wake_cost_ns)
			drop = wake_drop(w, s, h, takes_lock(w, si), cpu);
		h->burst_f = (double)(cpu - drop) / (double)cpu * o->think_scale * o->cpu_scale;
		h->burst_on = 1;
		h->burst_at = s->last_done;
	}
	return 1;
}

/* --cpu-queue burst: stream si's next CPU time, asked for at its
 * burst_at, goes on the first free virtual CPU; the last one served
 * sets cpu_end (think_end goes on from there). */
static int burst_serve(struct rpl_worker *w, unsigned si)
{
	struct rpl_closed *c = w->closed;
	struct cl_node *h = &c->nodes[c->s[si].head];
	uint64_t start;
	unsigned k = 0;

	for (unsigned i = 1; i < w->run->o.cpus; i++)
		if (c->vcpu[i] < c->vcpu[k])
			k = i;
	start = h->burst_at > c->vcpu[k] ? h->burst_at : c->vcpu[k];
	w->cpu_wait += start - h->burst_at;
	w->cpu_bursts++;
	h->burst_at = ist_add_sat(start, ist_ns_sat((double)h->bursts[h->burst_next++] *
						    h->burst_f));
	c->vcpu[k] = h->burst_at;
	if (h->burst_next == h->nbursts) {
		h->cpu_end = h->burst_at;
		h->cpu_served = 1;
	}
	return requeue(w, si);
}

static int requeue(struct rpl_worker *w, unsigned si)
{
	struct rpl_closed *c = w->closed;
	struct cl_stream *s = &c->s[si];
	uint64_t d, prio = UINT64_MAX;

	s->ver++;
	if (s->head == NIL)
		return 0;
	if (burst_due(w, si))
		return heap_push(c, c->nodes[s->head].burst_at, c->nodes[s->head].burst_at,
				 si, s->ver, 1);
	d = head_deadline(w, s, &prio);
	if (d == UINT64_MAX)
		return 0;
	return heap_push(c, d, prio == UINT64_MAX ? d : prio, si, s->ver, 0);
}

static int stream_index(struct rpl_closed *c, uint64_t id, unsigned *si)
{
	if (map_get(&c->map, id, si))
		return 0;
	if (c->ns == c->scap) {
		unsigned cap = c->scap ? c->scap * 2 : 64;
		struct cl_stream *s = realloc(c->s, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		c->s = s;
		c->scap = cap;
	}
	*si = c->ns++;
	memset(&c->s[*si], 0, sizeof(c->s[*si]));
	c->s[*si].id = id;
	c->s[*si].head = c->s[*si].tail = NIL;
	c->s[*si].leader = NIL;
	return map_put(&c->map, id, *si);
}

static int cmp_u64pair(const void *pa, const void *pb)
{
	const uint64_t *x = pa, *y = pb;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* How long other streams than si held the lock within (a, b) in the
 * recording: the union of their sections, closed or open, clipped. */
static uint64_t lock_held(struct rpl_closed *c, unsigned si, uint64_t a, uint64_t b)
{
	uint64_t iv[2 * (CL_SECS + 64)], sum = 0, cur;
	unsigned n = 0;

	for (unsigned i = 0; i < c->nsecs; i++) {
		const struct cl_sec *x = &c->secs[i];

		if (x->stream == si || x->end <= a || x->start >= b)
			continue;
		iv[2 * n] = x->start > a ? x->start : a;
		iv[2 * n++ + 1] = x->end < b ? x->end : b;
	}
	for (unsigned i = 0; i < c->ns && n < CL_SECS + 64; i++) {
		const struct cl_stream *x = &c->s[i];

		if (i == si || !x->in_sec || !x->commits || x->sec_start >= b ||
		    x->sec_dev != (unsigned)c->commit_dev)
			continue;
		iv[2 * n] = x->sec_start > a ? x->sec_start : a;
		iv[2 * n++ + 1] = b;
	}
	qsort(iv, n, 2 * sizeof(uint64_t), cmp_u64pair);
	cur = a;
	for (unsigned i = 0; i < n; i++) {
		uint64_t lo = iv[2 * i] > cur ? iv[2 * i] : cur;

		if (iv[2 * i + 1] > lo) {
			sum += iv[2 * i + 1] - lo;
			cur = iv[2 * i + 1];
		}
	}
	return sum;
}

/* The lock held by others in (a, b) while the stream slept: without its
 * busy runs when the sidecar gives them (--think-sched, busy_runs). */
static uint64_t held_in_sleep(struct rpl_closed *c, unsigned si, uint64_t a, uint64_t b)
{
	uint64_t held = lock_held(c, si, a, b), busy = 0;

	for (unsigned i = 0; i < c->nbusy; i++) {
		uint64_t x = c->busy[2 * i] > a ? c->busy[2 * i] : a;
		uint64_t y = c->busy[2 * i + 1] < b ? c->busy[2 * i + 1] : b;

		if (y > x)
			busy += lock_held(c, si, x, y);
	}
	return held > busy ? held - busy : 0;
}

/* The first index of sorted v[0..n) whose value is not below x. */
static unsigned lower_u64(const uint64_t *v, unsigned n, uint64_t x)
{
	unsigned lo = 0, hi = n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * --lock-handover: a handover in the recording.  Stream si opens a commit
 * section at t after a gap from `from` (its drain) in which it slept while
 * others held the lock: when the latest other section ended in the gap
 * (e, the release), no other section was open at t, and the stream was
 * asleep at e (in none of its busy runs: the sidecar's on-CPU, runnable
 * and client intervals), and its client did not wake it between e and t
 * (a round trip to the client: in TPC-B a row lock's waiter going on with
 * its transaction), it waited for the lock and took it t - e after
 * the release; the handover is that less its time on a CPU in it, which
 * the replay serves anyway.  That time is the database's, not the
 * device's: the holder wakes after its flush's completion and releases
 * the lock, the waiter wakes, waits for a CPU and runs to its write (in
 * PostgreSQL, XLogFlush after LWLockAcquireOrWait), and the commits
 * inserted meanwhile ride on its flush.  The replay releases the lock at
 * the flush's completion and the next holder issues at once;
 * lock_deadline adds the recorded median.
 */
static void ho_sample(struct rpl_worker *w, unsigned si, uint64_t from, uint64_t t)
{
	struct rpl_closed *c = w->closed;
	uint64_t e = 0, cpu = 0, h;
	unsigned k;

	for (unsigned i = 0; i < c->nsecs; i++) {
		const struct cl_sec *x = &c->secs[i];

		if (x->stream != si && x->end > from && x->end <= t && x->end > e)
			e = x->end;
	}
	if (!e)
		return;
	for (unsigned i = 0; i < c->ns; i++)
		if (i != si && c->s[i].in_sec && c->s[i].commits &&
		    c->s[i].sec_dev == (unsigned)c->commit_dev)
			return; /* the lock was not free at t */
	for (unsigned i = 0; i < c->nbusy; i++)
		if (c->busy[2 * i] <= e && e < c->busy[2 * i + 1])
			return; /* it was busy at the release, not waiting */
	/* its time on a CPU in the handover is no part of it: the replay
	 * serves it with the rest of the gap's (on the virtual CPUs with
	 * --cpus, in the think time without) */
	for (unsigned i = 0; i < c->ngapiv; i++) {
		const struct rq_iv *iv = &c->gapiv[i];
		uint64_t lo = iv->a > e ? iv->a : e, hi = iv->b < t ? iv->b : t;

		if (iv->kind == RQ_CLIENT && iv->b > e && iv->b <= t)
			return; /* its client woke it after the release */
		if (iv->kind == RQ_CPU && hi > lo)
			cpu += hi - lo;
	}
	h = t - e > cpu ? t - e - cpu : 0;
	/* the ring's sorted mirror: the value the ring drops out, the new
	 * one in, each by a binary search and a move */
	if (c->nho == CL_HO) {
		k = lower_u64(c->ho_sorted, c->nho, c->ho[c->ho_next]);
		memmove(&c->ho_sorted[k], &c->ho_sorted[k + 1],
			(c->nho - k - 1) * sizeof(c->ho_sorted[0]));
		c->nho--;
	}
	k = lower_u64(c->ho_sorted, c->nho, h);
	memmove(&c->ho_sorted[k + 1], &c->ho_sorted[k],
		(c->nho - k) * sizeof(c->ho_sorted[0]));
	c->ho_sorted[k] = h;
	c->nho++;
	c->ho[c->ho_next] = h;
	c->ho_next = (c->ho_next + 1) % CL_HO;
	c->ho_med = c->ho_sorted[c->nho / 2];
	w->handover_samples++;
}

/* Serial commits, in trace order: the commit device, the streams' commit
 * sections, and each I/O's recorded lock wait. */
static void rec_commits(struct rpl_worker *w, unsigned si, struct cl_node *nd)
{
	struct rpl_closed *c = w->closed;
	struct cl_stream *s = &c->s[si];
	const struct ist_record *rec = &nd->io.rec;
	uint64_t end = rec->t_ns + rec->lat_ns;

	nd->lock_wait = nd->gc_wait = 0;
	if ((rec->flags & IST_F_COMMIT) && rec->stream && c->commit_dev < 0)
		c->commit_dev = rec->dev;
	/* an I/O that is no write or flush of the commit device: the lock
	 * held by others in its think time (used only with --cpus, see
	 * think_end) */
	if (rec->stream && c->commit_dev >= 0 && s->added && rec->t_ns > s->add_end &&
	    !((rec->op == IST_OP_WRITE || rec->op == IST_OP_FLUSH) &&
	      rec->dev == (unsigned)c->commit_dev))
		nd->gc_wait = held_in_sleep(c, si, s->add_end, rec->t_ns);
	if (!(rec->op == IST_OP_WRITE || rec->op == IST_OP_FLUSH)) {
		if (end > s->add_end)
			s->add_end = end;
		s->added = 1;
	}
	if (!rec->stream || (rec->op != IST_OP_WRITE && rec->op != IST_OP_FLUSH))
		return;
	/* a section opens with the stream's first write or flush of a device
	 * (the commit device may be known only at its first commit) */
	if (!s->in_sec || s->sec_dev != rec->dev) {
		if (c->commit_dev >= 0 && rec->dev == (unsigned)c->commit_dev &&
		    s->added && rec->t_ns > s->add_end) {
			nd->lock_wait = held_in_sleep(c, si, s->add_end, rec->t_ns);
			if (c->handover && nd->lock_wait)
				ho_sample(w, si, s->add_end, rec->t_ns);
		}
		if (c->handover)
			nd->handover = c->ho_med;
		s->in_sec = 1;
		s->sec_start = rec->t_ns;
		s->sec_dev = rec->dev;
	}
	if (rec->flags & IST_F_COMMIT) {
		s->rec_ord++;
		c->secs[c->sec_next] = (struct cl_sec){ s->sec_start, end, s->rec_ord, si };
		c->sec_next = (c->sec_next + 1) % CL_SECS;
		if (c->nsecs < CL_SECS)
			c->nsecs++;
		s->in_sec = 0;
	}
	if (end > s->add_end)
		s->add_end = end;
	s->added = 1;
}

int rpl_closed_add(struct rpl_worker *w, const struct rpl_io *io)
{
	struct rpl_closed *c = w->closed;
	unsigned si, n;
	struct cl_stream *s;
	int ret;

	if (c->free_head == NIL)
		return -ENOMEM;
	ret = stream_index(c, io->rec.stream, &si);
	if (ret < 0)
		return ret;
	s = &c->s[si];
	n = c->free_head;
	c->free_head = c->nodes[n].next;
	c->nodes[n].io = *io;
	c->nodes[n].next = NIL;
	c->nodes[n].runq_wait = c->nodes[n].on_cpu = c->nodes[n].runnable = 0;
	c->nodes[n].client_sleep = c->nodes[n].client_cpu = 0;
	c->nodes[n].on_cpu_rt = 0;
	c->nodes[n].cpu_served = 0;
	c->nodes[n].nbursts = c->nodes[n].burst_next = 0;
	c->nodes[n].burst_on = 0;
	c->nodes[n].burst_at = 0;
	c->nodes[n].burst_f = 1.0;
	c->nodes[n].n_iowake = c->nodes[n].n_wake = c->nodes[n].n_prewake = 0;
	c->nodes[n].wake_back = 0;
	c->nodes[n].lock_waited = 0;
	c->nodes[n].woke = c->nodes[n].woke_armed = c->nodes[n].woke_wait = 0;
	c->nodes[n].woke_pre = c->nodes[n].woke_post = 0;
	c->nodes[n].woke_from = c->nodes[n].woke_rel = 0;
	c->nodes[n].hw = c->nodes[n].hw_waited = 0;
	c->nodes[n].hw_stream = NIL;
	c->nodes[n].hw_ord = c->nodes[n].hw_post = c->nodes[n].hw_sleep = 0;
	c->nodes[n].handover = 0;
	if (c->rq && rec_runq(c, si, &c->nodes[n]) < 0)
		return -ENOMEM;
	if (c->nodes[n].hw)
		w->holder_marked++;
	if (w->run->o.serial_commits) {
		rec_commits(w, si, &c->nodes[n]);
		if (io->rec.flags & IST_F_COMMIT)
			s->commits = 1;
	}
	c->pending++;
	if (s->tail == NIL) {
		s->head = s->tail = n;
		return requeue(w, si);
	}
	c->nodes[s->tail].next = n;
	s->tail = n;
	return 0;
}

int rpl_closed_next(struct rpl_worker *w, struct rpl_io *io, uint64_t *deadline,
		    uint64_t now)
{
	struct rpl_closed *c = w->closed;

	while (c->nheap) {
		struct cl_heap_ent *e = &c->heap[0];
		struct cl_stream *s = &c->s[e->stream];

		if (e->ver != s->ver || s->head == NIL) {
			heap_pop(c);
			continue;
		}
		if (e->burst) {
			/* the CPU bursts asked for by now, in time order */
			unsigned si = e->stream;

			if (e->key > now) {
				*deadline = e->key;
				return 2;
			}
			heap_pop(c);
			if (burst_serve(w, si) < 0)
				return 0; /* out of memory: it stalls (the
					     heap grows in requeue only) */
			continue;
		}
		if (takes_lock(w, e->stream) && c->lock_owner != NIL) {
			heap_pop(c); /* requeued when the lock is released */
			continue;
		}
		*io = c->nodes[s->head].io;
		*deadline = e->key;
		return 1;
	}
	return 0;
}

/*
 * --commit-groups: group commit as a database forms it (PostgreSQL's
 * XLogFlush: a backend that gets the WAL write lock first checks whether
 * another's write and flush already covered its commit record, and returns
 * without I/O if so; otherwise it writes and flushes all the WAL inserted
 * so far).  A commit that became ready while the lock was held waits; the
 * first waiter to get the lock writes and flushes for all the commits
 * ready by then, which complete with its commit, without I/O of their own.
 * On a target whose flush takes long against the think times, commits
 * queue and coalesce; on a fast one a commit seldom finds the lock held.
 */

/* Does the section from node n on (writes and flushes of the commit
 * device) end in a commit marker among the queued nodes? */
static int section_commits(const struct rpl_closed *c, unsigned n)
{
	for (; n != NIL; n = c->nodes[n].next) {
		const struct ist_record *h = &c->nodes[n].io.rec;

		if (h->dev != (unsigned)c->commit_dev ||
		    (h->op != IST_OP_WRITE && h->op != IST_OP_FLUSH))
			return 0;
		if (h->flags & IST_F_COMMIT)
			return 1;
	}
	return 0;
}

/* Is the head of stream si a commit waiting for the lock (drained, its
 * section ending in a commit)?  *ready: when it became ready, as
 * head_deadline would have it with the lock free. */
static int commit_waiting(struct rpl_worker *w, unsigned si, uint64_t *ready)
{
	struct rpl_closed *c = w->closed;
	struct rpl_run *r = w->run;
	struct cl_stream *s = &c->s[si];
	struct cl_node *h;

	if (s->leader != NIL || s->inflight || !takes_lock(w, si) ||
	    !section_commits(c, s->head))
		return 0;
	h = &c->nodes[s->head];
	if (h->woke_wait && !h->woke_rel)
		return 0; /* asleep until the holder's release */
	if (!s->have_prev)
		*ready = ist_add_sat(r->epoch, ist_ns_sat((double)h->io.rec.t_ns / r->o.speed));
	else if (head_dependent(s, &h->io.rec))
		*ready = holder_ready(w, s, h, woke_ready(w, h, think_end(w, s, h, 1)));
	else
		*ready = after_prev(r, s, h->io.rec.t_ns);
	return *ready != UINT64_MAX; /* not while its holder's commit is to come */
}

/* The lock's new holder si issues its section at issue: the commits ready
 * by then ride on its flush. */
static void gather_riders(struct rpl_worker *w, unsigned si, uint64_t issue)
{
	struct rpl_closed *c = w->closed;
	uint64_t ready;

	for (unsigned i = 0; i < c->ns; i++) {
		struct cl_stream *x = &c->s[i];

		if (i == si || !x->id || !commit_waiting(w, i, &ready) || ready > issue)
			continue;
		x->leader = si;
		x->ride_at = ready;
		x->ver++; /* its heap entries are stale */
		c->nodes[x->head].lock_waited = 1;
	}
}

/* --wake-cost: the lock wake-ups of node n happened after all (it waited
 * for the lock): their cost goes on the first free virtual CPU from issue
 * (it delays the others' CPU, not this I/O, already due). */
static void wake_give_back(struct rpl_worker *w, struct cl_node *nd, uint64_t issue)
{
	struct rpl_closed *c = w->closed;
	uint64_t back;
	unsigned k = 0;

	if (!w->run->o.wake_cost_ns || !nd->lock_waited || !nd->n_wake || !nd->cpu_served)
		return;
	back = ist_ns_sat((double)nd->wake_back * w->run->o.think_scale * w->run->o.cpu_scale);
	for (unsigned i = 1; i < w->run->o.cpus; i++)
		if (c->vcpu[i] < c->vcpu[k])
			k = i;
	c->vcpu[k] = ist_add_sat(c->vcpu[k] > issue ? c->vcpu[k] : issue, back);
	w->wakes_dropped -= nd->n_wake;
	w->wakes_kept += nd->n_wake;
	w->wake_cpu_dropped -= nd->wake_back;
}

/* The stream si drained at d: a head that woke_scan marked notes when,
 * and waits for the holder's release if another stream holds the lock. */
static void woke_arm(struct rpl_worker *w, unsigned si, uint64_t d)
{
	struct rpl_closed *c = w->closed;
	struct cl_stream *s = &c->s[si];
	struct cl_node *h;

	if (!c->groups || s->head == NIL || s->inflight || s->leader != NIL)
		return;
	h = &c->nodes[s->head];
	if (!h->woke || h->woke_armed || !takes_lock(w, si) || !section_commits(c, s->head))
		return; /* not such a commit (a read, a write section) */
	h->woke_armed = 1;
	h->woke_from = d;
	if (c->lock_owner != NIL && c->lock_owner != si)
		h->woke_wait = 1;
}

/* Stream si takes the lock at issue: a drained, marked stream that
 * reaches its recorded sleep (its drain plus its CPU time before the
 * wake-up) at or after issue waits for this holder's release; a holder
 * that took the lock at the very moment of its drain (the next leader at
 * the release that completed its commit) counts. */
static void woke_taken(struct rpl_worker *w, unsigned si, uint64_t issue)
{
	struct rpl_closed *c = w->closed;

	for (unsigned i = 0; i < c->ns; i++) {
		struct cl_node *h;

		if (i == si || c->s[i].head == NIL)
			continue;
		h = &c->nodes[c->s[i].head];
		if (h->woke_armed && !h->woke_wait && issue >= h->woke_from &&
		    issue <= h->woke_from + woke_cpu(w, h->woke_pre)) {
			h->woke_wait = 1;
			/* asleep: its heap entries are stale (but for its
			 * CPU bursts, --cpu-queue burst, still queued) */
			if (!h->burst_on || h->cpu_served)
				c->s[i].ver++;
		}
	}
}

/* The head of stream s (io) leaves at issue: the stream's state moves on. */
static void head_pop(struct rpl_worker *w, struct cl_stream *s, const struct rpl_io *io,
		     uint64_t issue)
{
	struct rpl_closed *c = w->closed;
	unsigned n = s->head;

	s->head = c->nodes[n].next;
	if (s->head == NIL)
		s->tail = NIL;
	free(c->nodes[n].bursts);
	c->nodes[n].bursts = NULL;
	c->nodes[n].nbursts = 0;
	c->nodes[n].next = c->free_head;
	c->free_head = n;
	c->pending--;
	s->have_prev = 1;
	if (io->rec.flags & IST_F_DEPENDENT)
		s->explicit_deps = 1;
	s->prev_t = io->rec.t_ns;
	s->prev_issue = issue;
	if (io->rec.t_ns + rec_lat(w->run, &io->rec) > s->rec_end)
		s->rec_end = io->rec.t_ns + rec_lat(w->run, &io->rec);
}

/* Rider si's commit completes at done with its leader's: its section's
 * I/Os leave without I/O, as issued when it was ready and completed then
 * (the transactions see them so). */
static void ride_done(struct rpl_worker *w, unsigned si, uint64_t done)
{
	struct rpl_closed *c = w->closed;
	struct cl_stream *s = &c->s[si];
	int last = 0;

	s->leader = NIL;
	while (!last && s->head != NIL) {
		struct rpl_io io = c->nodes[s->head].io;

		last = !!(io.rec.flags & IST_F_COMMIT);
		wake_give_back(w, &c->nodes[s->head], s->ride_at);
		head_pop(w, s, &io, s->ride_at);
		if (w->txtab) {
			io.txn_ent = rpl_txn_issue(w, &io, s->ride_at);
			rpl_txn_done(w, &io, done);
		}
	}
	if (done > s->last_done)
		s->last_done = done;
	s->last_sync = 0; /* it slept on the lock */
	w->commits_joined++;
	if (last)
		holder_done(w, si, done);
	woke_arm(w, si, s->last_done);
	requeue(w, si);
}

void rpl_closed_issued(struct rpl_worker *w, const struct rpl_io *io, uint64_t issue)
{
	struct rpl_closed *c = w->closed;
	unsigned si, n;
	struct cl_stream *s;

	if (!map_get(&c->map, io->rec.stream, &si))
		return;
	s = &c->s[si];
	n = s->head;
	if (n == NIL || c->nodes[n].io.seq != io->seq)
		return;
	if (takes_lock(w, si)) {
		c->lock_owner = si;
		if (c->handover && c->nodes[n].lock_waited && c->nodes[n].handover) {
			w->handovers++;
			w->handover_ns += c->nodes[n].handover;
		}
		if (w->run->o.commit_groups && section_commits(c, n))
			gather_riders(w, si, issue);
		if (c->groups)
			woke_taken(w, si, issue);
	}
	wake_give_back(w, &c->nodes[n], issue);
	head_pop(w, s, io, issue);
	s->inflight++;
	requeue(w, si);
}

void rpl_closed_done(struct rpl_worker *w, const struct rpl_io *io, uint64_t done)
{
	struct rpl_closed *c = w->closed;
	unsigned si;
	struct cl_stream *s;

	if (!map_get(&c->map, io->rec.stream, &si))
		return;
	s = &c->s[si];
	if (s->inflight)
		s->inflight--;
	if (done > s->last_done)
		s->last_done = done;
	s->last_sync = io->sync;
	if ((io->rec.flags & IST_F_COMMIT) && io->rec.stream &&
	    (io->rec.op == IST_OP_WRITE || io->rec.op == IST_OP_FLUSH))
		holder_done(w, si, done); /* counted as rec_commits counts them */
	/* The lock holder releases it with its commit, or when it drained and
	 * its next I/O is not for the commit device. */
	if (c->lock_owner == si && ((io->rec.flags & IST_F_COMMIT) ||
				    (!s->inflight && !head_flushes(w, si)))) {
		unsigned riders = 0;

		c->lock_owner = NIL;
		c->lock_released = done;
		/* the commits asleep on it are woken (woke_ready) */
		for (unsigned i = 0; c->groups && i < c->ns; i++) {
			struct cl_node *h;

			if (c->s[i].head == NIL)
				continue;
			h = &c->nodes[c->s[i].head];
			if (h->woke_wait && !h->woke_rel) {
				h->woke_rel = done;
				w->commits_after_release++;
			}
		}
		/* its riders complete with its commit; without one (a write
		 * section that released the lock) they wait again */
		for (unsigned i = 0; i < c->ns; i++) {
			if (c->s[i].leader != si)
				continue;
			if (io->rec.flags & IST_F_COMMIT) {
				ride_done(w, i, done);
				riders++;
			} else {
				c->s[i].leader = NIL;
			}
		}
		if (riders)
			w->commit_groups++;
		for (unsigned i = 0; i < c->ns; i++)
			if (i != si && c->s[i].head != NIL && !c->s[i].inflight)
				requeue(w, i);
	}
	/* A dependent head waits for the stream to drain. */
	if (!s->inflight) {
		woke_arm(w, si, done);
		requeue(w, si);
	}
}

/* ------------------------------------------------------------ transactions */

struct txn_ent {
	uint64_t stream, txn;
	uint64_t first_issue, last_done;
	uint64_t rec_first_t, rec_last_end;
	unsigned outstanding;
	int closed, rec_known;
	unsigned next_free;
};

/* Streams whose transactions' latencies are kept apart (latency_streams:
 * those of the streams counted in tps_streams); beyond, none is told. */
#define TX_HISTS 1024

struct tx_stream {
	struct rpl_hist lat; /* its transactions' latencies (buckets at the
				first, for the first TX_HISTS streams) */
	uint64_t cur_txn;   /* current transaction of the stream (0 none) */
	uint64_t count;     /* I/Os seen (for --txn-per)                    */
	unsigned cur_ent;   /* its table entry, NIL if none                */
	uint64_t done;      /* transactions completed                      */
	uint64_t first_end, last_end; /* first and latest completion        */
	uint64_t rec_prev_end;         /* recorded end of the previous one  */
};

struct rpl_txns {
	struct u64map streams; /* stream id -> index in st */
	struct tx_stream *st;
	unsigned nst, stcap;
	struct txn_ent *e;
	unsigned ne, ecap, free_head;
};

int rpl_txn_init(struct rpl_worker *w)
{
	struct rpl_txns *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->free_head = NIL;
	w->txtab = t;
	return 0;
}

void rpl_txn_free(struct rpl_worker *w)
{
	struct rpl_txns *t = w->txtab;

	if (!t)
		return;
	map_free(&t->streams);
	for (unsigned i = 0; i < t->nst; i++)
		rpl_hist_release(&t->st[i].lat);
	free(t->st);
	free(t->e);
	free(t);
	w->txtab = NULL;
}

static struct tx_stream *tx_stream_get(struct rpl_txns *t, uint64_t id)
{
	unsigned i;

	if (map_get(&t->streams, id, &i))
		return &t->st[i];
	if (t->nst == t->stcap) {
		unsigned cap = t->stcap ? t->stcap * 2 : 64;
		struct tx_stream *s = realloc(t->st, cap * sizeof(*s));

		if (!s)
			return NULL;
		t->st = s;
		t->stcap = cap;
	}
	i = t->nst++;
	t->st[i] = (struct tx_stream){ .cur_ent = NIL };
	t->st[i].lat.min = UINT64_MAX;
	if (map_put(&t->streams, id, i) < 0)
		return NULL;
	return &t->st[i];
}

static void txn_finish(struct rpl_worker *w, unsigned ei)
{
	struct rpl_txns *t = w->txtab;
	struct txn_ent *e = &t->e[ei];
	uint64_t lat = e->last_done > e->first_issue ? e->last_done - e->first_issue : 0;
	unsigned si;

	if (map_get(&t->streams, e->stream, &si)) {
		struct tx_stream *s = &t->st[si];

		if (!s->done++)
			s->first_end = e->last_done;
		if (e->last_done > s->last_end)
			s->last_end = e->last_done;
		if (!s->lat.b && si < TX_HISTS)
			s->lat.b = calloc(RPL_HIST_BUCKETS, sizeof(*s->lat.b));
		if (s->lat.b)
			rpl_hist_add(&s->lat, lat);
	}
	w->txns++;
	rpl_hist_add(&w->txn_lat, lat);
	if (e->rec_known && e->rec_last_end > e->rec_first_t)
		rpl_hist_add(&w->rec_txn_lat, e->rec_last_end - e->rec_first_t);
	if (w->run->o.interval_ns)
		w->iacc.txns++;
	e->next_free = t->free_head;
	t->free_head = ei;
}

static unsigned txn_new(struct rpl_txns *t)
{
	unsigned i;

	if (t->free_head != NIL) {
		i = t->free_head;
		t->free_head = t->e[i].next_free;
		return i;
	}
	if (t->ne == t->ecap) {
		unsigned cap = t->ecap ? t->ecap * 2 : 64;
		struct txn_ent *e = realloc(t->e, cap * sizeof(*e));

		if (!e)
			return NIL;
		t->e = e;
		t->ecap = cap;
	}
	return t->ne++;
}

/* Closes the stream's current transaction: it completes with its last
 * outstanding I/O, or now if none is left. */
static void txn_close(struct rpl_worker *w, struct tx_stream *s)
{
	struct rpl_txns *t = w->txtab;

	if (s->cur_ent == NIL)
		return;
	t->e[s->cur_ent].closed = 1;
	s->rec_prev_end = t->e[s->cur_ent].rec_last_end;
	if (!t->e[s->cur_ent].outstanding) {
		if (!t->e[s->cur_ent].last_done)
			t->e[s->cur_ent].last_done = t->e[s->cur_ent].first_issue;
		txn_finish(w, s->cur_ent);
	}
	s->cur_ent = NIL;
}

unsigned rpl_txn_issue(struct rpl_worker *w, const struct rpl_io *io, uint64_t issue)
{
	struct rpl_txns *t = w->txtab;
	struct tx_stream *s = tx_stream_get(t, io->rec.stream);
	unsigned per = w->run->o.txn_per, ei;
	uint64_t id = io->rec.txn;
	struct txn_ent *e;

	if (!s)
		return NIL;
	if (!id && per)
		id = s->count / per + 1;
	s->count++;
	if (!id) {
		txn_close(w, s);
		return NIL;
	}
	if (s->cur_ent == NIL || s->cur_txn != id) {
		uint64_t prev_end, rec_prev;
		int cycle;

		txn_close(w, s); /* the previous one may finish here */
		prev_end = s->last_end;
		rec_prev = s->rec_prev_end;
		cycle = w->run->o.txn_latency_cycle && s->done;
		ei = txn_new(t);
		if (ei == NIL)
			return NIL;
		e = &t->e[ei];
		memset(e, 0, sizeof(*e));
		e->stream = io->rec.stream;
		e->txn = id;
		e->first_issue = cycle && prev_end < issue ? prev_end : issue;
		e->rec_first_t = cycle && rec_prev && rec_prev < io->rec.t_ns ?
				 rec_prev : io->rec.t_ns;
		e->rec_known = 1;
		s->cur_ent = ei;
		s->cur_txn = id;
	}
	ei = s->cur_ent;
	e = &t->e[ei];
	e->outstanding++;
	if (!io->rec.lat_ns)
		e->rec_known = 0;
	if (io->rec.t_ns + io->rec.lat_ns > e->rec_last_end)
		e->rec_last_end = io->rec.t_ns + io->rec.lat_ns;
	/* A commit marker ends the transaction (when ids are not given). */
	if ((io->rec.flags & IST_F_COMMIT) && !io->rec.txn && !per)
		txn_close(w, s);
	return ei;
}

void rpl_txn_done(struct rpl_worker *w, const struct rpl_io *io, uint64_t done)
{
	struct rpl_txns *t = w->txtab;
	struct txn_ent *e;

	if (io->txn_ent == NIL || io->txn_ent >= t->ne)
		return;
	e = &t->e[io->txn_ent];
	if (!e->outstanding)
		return;
	e->outstanding--;
	if (done > e->last_done)
		e->last_done = done;
	if (!e->outstanding && e->closed)
		txn_finish(w, io->txn_ent);
}

/* At the end of a complete run: the open transactions end too. */
void rpl_txn_finish_all(struct rpl_worker *w)
{
	struct rpl_txns *t = w->txtab;
	uint64_t total = 0;

	if (!t)
		return;
	for (unsigned i = 0; i < t->nst; i++)
		txn_close(w, &t->st[i]);
	w->tps_streams = 0;
	for (unsigned i = 0; i < t->nst; i++)
		total += t->st[i].done;
	/* A stream that carried under 1% of the transactions (a kernel
	 * worker's two journal commits, seconds apart in the recording) says
	 * nothing of the clients' rate: its two commits may come within
	 * microseconds in the replay, a rate of 10^5 per second. */
	/* and their transactions' latencies apart (a database's background
	 * writer, whose "transactions" are its flushes every 200 ms, is no
	 * client: its cycle would be the top 1% of a pgbench capture's) */
	w->txn_lat_streams_ok = 1;
	for (unsigned i = 0; i < t->nst; i++) {
		const struct tx_stream *s = &t->st[i];

		if (s->done && !s->lat.b)
			w->txn_lat_streams_ok = 0; /* beyond TX_HISTS, or no memory */
		if (s->done >= 2 && s->done * 100 >= total && s->last_end > s->first_end) {
			w->tps_streams += (double)(s->done - 1) * 1e9 /
					  (double)(s->last_end - s->first_end);
			if (rpl_hist_merge(&w->txn_lat_streams, &s->lat) < 0)
				w->txn_lat_streams_ok = 0;
		}
	}
}
