/* SPDX-License-Identifier: MIT */
/* internal.h - replay engine internals shared by its files (rpl_ prefix). */
#ifndef IST_REPLAY_INTERNAL_H
#define IST_REPLAY_INTERNAL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "replay/replay.h"

/* ------------------------------------------------------------ helpers */

static inline uint64_t rpl_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int rpl_source_ist(struct rpl_source **s, const char *path);

/* ------------------------------------------------------------ targets */

struct rpl_target {
	char *path;
	int fd;
	int is_blk;
	int is_null;
	int direct;
	int writable;
	int inline_io;  /* issued by the worker with pread/pwrite (see rpl_inline) */
	int kthread_io; /* a kernel thread does its I/O (a loop device) */
	uint64_t size;
	unsigned lbs;
};

/* An I/O as it travels from the decoder to a worker: rec.dev is the
 * target index, rec.offset/len are mapped, rec.t_ns is the trace time
 * relative to the window start (plus loop offsets), sched_ns the
 * deadline relative to the epoch for the open modes. */
struct rpl_io {
	struct ist_record rec;
	uint64_t sched_ns;
	uint64_t seq;
	uint32_t txn_ent; /* worker's transaction entry (set at issue) */
	uint32_t dev;     /* the trace's device (rec.dev is the target) */
	uint8_t sync;     /* completed in the issuing thread (no sleep: an
			     inline I/O of a RAM device; the null back-end
			     with --inline always) */
};

/* ------------------------------------------------------------ queue */

/* Single-producer single-consumer ring between the decoder and a worker. */
struct rpl_queue {
	struct rpl_io *ring;
	unsigned mask;
	_Alignas(64) atomic_uint head; /* consumer */
	_Alignas(64) atomic_uint tail; /* producer */
};

/* ------------------------------------------------------------ worker */

struct rpl_slot {
	struct rpl_io io;
	uint64_t deadline;  /* absolute engine ns (0 = none) */
	uint64_t issue;     /* absolute engine ns */
	uint64_t done_at;   /* null back-end: completion time */
	unsigned idx;
	unsigned next;      /* null back-end FIFO link */
};

struct rpl_worker;

struct rpl_backend_ops {
	const char *name;
	int (*init)(struct rpl_worker *w);
	void (*fini)(struct rpl_worker *w);
	/* Prepares one I/O (issued at the next submit): 0; 1 when it was
	 * done at once (completed at the next reap); or -errno. */
	int (*prep)(struct rpl_worker *w, struct rpl_slot *s);
	/* Hands the prepared I/Os to the device; count or -errno. */
	int (*submit)(struct rpl_worker *w);
	/* Reaps completions (rpl_complete() for each); waits until one
	 * arrives or until the absolute time until (0: no wait). */
	int (*reap)(struct rpl_worker *w, uint64_t until);
};

extern const struct rpl_backend_ops rpl_backend_uring;
extern const struct rpl_backend_ops rpl_backend_null;

struct rpl_stream;

struct rpl_interval_acc {
	uint64_t ios[IST_OP_COUNT], bytes[IST_OP_COUNT], errors, txns;
	struct rpl_hist lat, late;
};

struct rpl_worker {
	struct rpl_run *run;
	unsigned id;
	int cpu;         /* CPU the worker is pinned to, or -1 */
	pthread_t thread;
	int started;
	struct rpl_queue q;
	const struct rpl_backend_ops *be;
	void *be_priv;
	unsigned iodepth;
	struct rpl_slot *slots;
	unsigned *free_slots, nfree;
	unsigned inflight, prepared;
	uint64_t vclock; /* virtual clock (null back-end, tests) */
	/* Wake-up margin: how long before a deadline the worker stops
	 * sleeping and spins (--spin; learned with --spin auto, see
	 * wake_learn), its largest value, the longest oversleep seen. */
	uint64_t wake_margin, wake_margin_max, oversleep_max;
	/* statistics */
	uint64_t ios[IST_OP_COUNT], bytes[IST_OP_COUNT], errs[IST_OP_COUNT];
	int first_error;
	struct rpl_hist lat[IST_OP_COUNT], rec_lat[IST_OP_COUNT], late;
	struct rpl_hist txn_lat, rec_txn_lat;
	struct rpl_hist txn_lat_streams; /* of the streams in tps_streams */
	int txn_lat_streams_ok;          /* every stream with transactions had
					    its histogram (at most TX_HISTS) */
	uint64_t txns;
	double tps_streams; /* sum of the streams' transaction rates */
	uint64_t starved, max_inflight;
	uint64_t inline_ios; /* done by the worker itself (--inline) */
	uint64_t wakes_dropped, wakes_kept, wake_cpu_dropped; /* --wake-cost */
	uint64_t commits_joined, commit_groups;  /* --commit-groups */
	uint64_t commits_after_release;  /* and commits that slept on it */
	uint64_t holder_marked, holder_waited; /* --holder-waits */
	uint64_t handover_samples, handovers, handover_ns; /* --lock-handover */
	uint64_t cpu_wait, cpu_bursts;   /* --cpus: the queue, bursts served */
	uint64_t last_done;
	/* current interval, merged into the run's table when it ends */
	uint64_t cur_interval;
	struct rpl_interval_acc iacc;
	/* write data: offset of the next write in the pattern pool */
	uint64_t pool_cursor;
	/* closed loop / transactions */
	struct rpl_closed *closed;
	struct rpl_txns *txtab;
	/* progress */
	atomic_uint_fast64_t issued, completed;
	int err; /* fatal worker error */
	char errmsg[160];
};

static inline uint64_t rpl_now(const struct rpl_worker *w);

/* Completes one I/O: statistics, callbacks, slot freed. */
void rpl_complete(struct rpl_worker *w, struct rpl_slot *s, int res,
		  uint64_t now);

/* ------------------------------------------------------------ run */

struct rpl_run {
	struct rpl_opts o;
	struct rpl_source *src;
	struct ist_totals totals;
	int have_totals;
	char errmsg[512];
	/* targets: per trace device, index into tgt */
	struct rpl_target *tgt;
	unsigned ntgt;
	unsigned *dev_map;
	uint64_t *dev_size;   /* trace device sizes (for scale) */
	unsigned ndev;
	/* null back-end with latency lists: per (trace device, op), the I/Os
	 * no list served, added up by the workers as they finish */
	uint64_t *null_unlisted;
	/* write data pool, shared read-only by workers */
	unsigned char *pool;
	size_t pool_size;
	/* workers and decoder */
	struct rpl_worker *w;
	unsigned nw;
	pthread_t decoder;
	int decoder_started;
	atomic_int decoder_done;
	atomic_int stop;
	atomic_int ready;     /* workers initialised */
	atomic_int finished;  /* threads finished */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t epoch;
	uint64_t expected;
	uint64_t nominal_lat_ns; /* header "nominal_latency_ns" (synth traces) */
	int src_err;
	char src_where[96];
	uint64_t skipped_ro, skipped_end, skipped_big;
	uint64_t realigned, wrapped, scaled, records_read;
	uint64_t schedule_ns;
	/* intervals: shared accumulators, merged by workers */
	struct rpl_interval_acc *iv;
	size_t niv, ivcap, rowcap;
	uint64_t cpu0_user, cpu0_sys;
	struct rpl_result res;
	int have_result;
	/* CPU placement: workers alone on their CPUs, the rest elsewhere */
	int pinned;
	cpu_set_t others;
	char features[256];
	char notes[1024];
};

static inline uint64_t rpl_now(const struct rpl_worker *w)
{
	return w->run->o.virtual_clock ? w->vclock : rpl_mono_ns();
}

/* Appends one line to the run's notes (fallbacks, warnings). */
void rpl_note(struct rpl_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rpl_feature(struct rpl_run *r, const char *name);

/* target.c */
int rpl_targets_open(struct rpl_run *r);
void rpl_targets_close(struct rpl_run *r);
/* Maps one record in place (dev -> target, offset remapped and aligned);
 * 0 to issue, 1 to skip (counted). */
int rpl_map_io(struct rpl_run *r, struct ist_record *rec);

/* data.c */
int rpl_data_pool(struct rpl_run *r);
/* Pool offset for a write of len bytes (advances the worker's cursor). */
uint64_t rpl_data_next(struct rpl_worker *w, uint32_t len);
/* RPL_DATA_STAMP: stamps buf (len bytes at target offset off). */
void rpl_data_stamp(unsigned char *buf, uint32_t len, uint64_t seq,
		    uint64_t off);

/* closed.c: closed-loop scheduling and transactions */
int rpl_closed_init(struct rpl_worker *w);
/* Reads a run-queue sidecar through (record --sched, versions 1 to
 * RPL_SCHED_VERSION): the RPL_SCHED_HAS_* bits of the kinds of lines it
 * has (on-CPU intervals "c", sleeps ended by a client "w", "c" lines with
 * the runtime charged), or a negative error with the line and the reason
 * in err. */
#define RPL_SCHED_VERSION 3
#define RPL_SCHED_HAS_CPU 1
#define RPL_SCHED_HAS_CLIENT 2
#define RPL_SCHED_HAS_RUNTIME 4
int rpl_sched_check(const char *path, char *err, size_t errlen);
/* --wake-cost auto: the CPU cost of a wake-up in the sidecar's bursts
 * (see closed.c), 0 when it has none to tell. */
uint64_t rpl_sched_wake_cost(const char *path);
void rpl_closed_free(struct rpl_worker *w);
/* Takes an I/O from the queue into the per-stream state; 0 or -ENOMEM. */
int rpl_closed_add(struct rpl_worker *w, const struct rpl_io *io);
/* Number of I/Os held. */
unsigned rpl_closed_pending(const struct rpl_worker *w);
/* The earliest issuable I/O: 1 with *io and *deadline set, 0 if none
 * can issue before a completion; 2: none before *deadline, when a stream's
 * next CPU burst is due (--cpu-queue burst: the bursts due by now are
 * served first), call again then. */
int rpl_closed_next(struct rpl_worker *w, struct rpl_io *io,
		    uint64_t *deadline, uint64_t now);
void rpl_closed_issued(struct rpl_worker *w, const struct rpl_io *io,
		       uint64_t issue);
void rpl_closed_done(struct rpl_worker *w, const struct rpl_io *io,
		     uint64_t done);
int rpl_txn_init(struct rpl_worker *w);
void rpl_txn_free(struct rpl_worker *w);
/* Returns the transaction entry of the I/O (UINT32_MAX = none). */
unsigned rpl_txn_issue(struct rpl_worker *w, const struct rpl_io *io,
		       uint64_t issue);
void rpl_txn_finish_all(struct rpl_worker *w);
void rpl_txn_done(struct rpl_worker *w, const struct rpl_io *io,
		  uint64_t done);

/* results.c */
int rpl_interval_merge(struct rpl_run *r, uint64_t idx,
		       struct rpl_interval_acc *acc);
int rpl_results_build(struct rpl_run *r);
void rpl_results_free(struct rpl_result *res);
int rpl_iacc_init(struct rpl_interval_acc *a);
void rpl_iacc_release(struct rpl_interval_acc *a);
void rpl_iacc_reset(struct rpl_interval_acc *a);

#endif
