/* SPDX-License-Identifier: MIT */
/*
 * replay.h - the replay engine's library interface: record sources, run
 * options, the run handle (create -> start -> wait -> result) and results.
 *
 * The engine never prints.  Functions return 0 or a count, or a negative
 * error (-errno or IST_E*); after a failure of rpl_run_new() or
 * rpl_run_start(), rpl_run_errmsg() says what failed in one line without
 * the program name (e.g. "/dev/loop3: carries an ext4 signature").
 */
#ifndef IST_REPLAY_H
#define IST_REPLAY_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "iostorm.h"

/* ------------------------------------------------------------ sources */

/*
 * Where the records come from: an IST reader, a canonical CSV file, or an
 * in-memory array (tests).  A source is read from the decoder thread only.
 */
struct rpl_source;

struct rpl_source_ops {
	const char *name;
	/* Up to max records; count, 0 at the end, or a negative error. */
	ssize_t (*read)(struct rpl_source *s, struct ist_record *recs,
			size_t max);
	/* Back to the first record (for --loop); 0 or negative error. */
	int (*rewind)(struct rpl_source *s);
	/* Skip ahead to (at most) the first record with t >= t_ns; optional. */
	int (*seek_time)(struct rpl_source *s, uint64_t t_ns);
	/* Totals without reading the data (footer), or a pre-scan; 0,
	 * -ENOENT when unknown.  The caller releases *t. */
	int (*totals)(struct rpl_source *s, struct ist_totals *t);
	/* One line describing where the last error occurred ("line 12",
	 * "chunk 3 (byte offset 4096)"). */
	void (*where)(struct rpl_source *s, char *buf, size_t size);
	void (*close)(struct rpl_source *s);
	/* The last error in words ("field op: unknown op 'rd'"), or NULL
	 * (then ist_strerror() of the code); optional. */
	const char *(*why)(struct rpl_source *s);
};

struct rpl_source {
	const struct rpl_source_ops *ops;
	const ist_header *header; /* device table and metadata (owned) */
	const char *path;         /* for messages; may be NULL */
	const char *format;       /* "ist", "csv", "array" */
	void *priv;
};

/* An in-memory array (not copied: must outlive the source); h copied. */
int rpl_source_array(struct rpl_source **s, const struct ist_record *recs,
		     size_t n, const ist_header *h);
/* A canonical CSV file (iostorm-trace(5)'s comment lines, then the header
 * row IST_CSV_HEADER); the devices and metadata of its comment lines, the
 * devices beyond them named "devN" with sizes from the records.  On an
 * error in the file *s is left set (where() and why() name it): the
 * caller closes it. */
int rpl_source_csv(struct rpl_source **s, const char *path);
/* An IST file (or CSV, recognised by its first line: the header row or a
 * comment); what the CLI uses. */
int rpl_source_open(struct rpl_source **s, const char *path);
void rpl_source_close(struct rpl_source *s);

/* ------------------------------------------------------------ options */

enum rpl_timing {
	RPL_TIMING_ORIGINAL = 0, /* absolute deadlines: epoch + t / speed     */
	RPL_TIMING_AFAP,         /* as fast as possible, order kept          */
	RPL_TIMING_RATE,         /* fixed arrival rate (rate_iops)           */
	RPL_TIMING_CLOSED,       /* per-stream dependencies + think time     */
};

enum rpl_remap {
	RPL_REMAP_STRICT = 0, /* refuse when a trace offset is beyond a target */
	RPL_REMAP_WRAP,       /* offset modulo the target size               */
	RPL_REMAP_SCALE,      /* offset scaled by target size / device size  */
};

enum rpl_partition {
	RPL_PART_DEVICE = 0, /* worker = trace device mod workers */
	RPL_PART_STREAM,     /* worker = stream mod workers        */
};

enum rpl_data {
	RPL_DATA_RANDOM = 0, /* incompressible                         */
	RPL_DATA_ZERO,
	RPL_DATA_COMPRESS,   /* compressible to data_param (ratio x100) */
	RPL_DATA_DEDUPE,     /* data_param/100 percent of blocks duplicated */
	RPL_DATA_STAMP,      /* verification: each 512 B sector stamped */
};

enum rpl_backend {
	RPL_BACKEND_URING = 0,
	RPL_BACKEND_NULL,
};

/* Text of one stamped sector written by RPL_DATA_STAMP (first bytes):
 * "IST1" magic, then little-endian u64 record sequence number and u64
 * target byte offset of the sector. */
#define RPL_STAMP_MAGIC "IST1"

struct rpl_target_spec {
	int dev;          /* trace device index, or -1 for "every device" */
	const char *path; /* file or block device                          */
};

#define RPL_MAX_TARGETS 256
#define RPL_MAX_WORKERS 64
#define RPL_MAX_IO_LEN (8u << 20)

/* Called from the worker threads (concurrently when several) for each
 * completed I/O when set (tests, debugging):
 * seq is the record's position in the replay, deadline_ns and issue_ns
 * relative to the run's epoch (deadline 0 in afap mode), done_ns too. */
struct rpl_io_event {
	uint64_t seq;
	const struct ist_record *rec; /* mapped: dev = target, offset mapped */
	uint32_t dev;                 /* the trace's device */
	uint64_t deadline_ns;
	uint64_t issue_ns;
	uint64_t done_ns;
	int res;                      /* bytes, or -errno */
};
typedef void (*rpl_io_cb)(void *arg, const struct rpl_io_event *ev);

/* Which targets the worker reads and writes itself (pread/pwrite at the
 * deadline) instead of through io_uring: RAM-backed block devices that
 * complete in the caller (zram, brd, pmem) have no REQ_NOWAIT support, so
 * io_uring would hand each of their I/Os to an io-wq thread, late. */
enum rpl_inline {
	RPL_INLINE_AUTO = 0,  /* the synchronous RAM devices above */
	RPL_INLINE_NEVER,
	RPL_INLINE_ALWAYS,    /* every target (tests, comparisons) */
};

struct rpl_opts {
	enum rpl_timing timing;
	double speed;               /* original: t / speed (0 = 1.0)           */
	double rate_iops;           /* RPL_TIMING_RATE                         */
	unsigned iodepth;           /* per worker in-flight cap (0 = 64)       */
	unsigned workers;           /* 0 = 1                                   */
	enum rpl_partition partition;
	uint64_t from_ns, to_ns;    /* window of trace time (to 0 = end)      */
	unsigned loops;             /* 0 = 1                                   */
	uint64_t duration_ns;       /* cap of the replay (0 = none)            */
	enum rpl_backend backend;
	int buffered;               /* no O_DIRECT                             */
	int create;                 /* create/extend file targets              */
	uint64_t create_size;       /* size for created files (0 = needed)     */
	int allow_write;            /* writes on block devices permitted       */
	int force;                  /* even with a signature on the device     */
	int read_only;              /* skip (and count) writes/discards        */
	enum rpl_remap remap;
	enum rpl_data data;
	unsigned data_param;        /* compress: ratio x 100; dedupe: percent x 100 */
	uint64_t seed;              /* data pattern seed (0 = fixed default)   */
	int sqpoll, iopoll;
	int realtime;               /* workers SCHED_FIFO (fallback: a note)   */
	int no_pin;                 /* do not pin workers to their own CPUs    */
	int pin;                    /* --pin: pin them also where the default
	                             * does not (closed timing, loop device)   */
	enum rpl_inline inline_io;  /* I/O issued by the worker itself         */
	uint64_t interval_ns;       /* per-interval rows (0 = none)            */
	uint64_t spin_ns;           /* spin before a deadline (0 = 40 us)      */
	int spin_auto;              /* learn the spin window from oversleeps,
	                             * spin_ns its minimum                     */
	uint64_t late_warn_ns;      /* p99 lateness warning (0 = 1 ms)         */
	double think_scale;         /* closed: think times x F (0 = 1.0)       */
	unsigned txn_per;           /* closed/TPS-eq: N I/Os per txn if no ids */
	int serial_commits;         /* closed: one stream at a time writes and
				       flushes the commit device (a WAL lock) */
	int commit_groups;          /* serial commits: a commit ready while
				       the lock is held completes with the
				       next holder's flush (group commit) */
	int holder_waits;           /* commit groups, think_sched: a commit
				       whose stream slept on another's commit
				       in the recording waits for that
				       commit's replayed completion */
	int lock_handover;          /* commit groups, think_sched: a commit
				       that waited for the lock takes it the
				       recording's median handover (another's
				       release to a woken waiter's first
				       write) after the release */
	int txn_latency_cycle;      /* a transaction's latency runs from its
				       stream's previous transaction's end */
	const char *think_sched;    /* closed: a run-queue sidecar (record
				       --sched): its waits are taken out of
				       the think times */
	unsigned cpus;              /* closed: the streams' on-CPU think time
				       (think_sched's "c" lines) is served on
				       N virtual CPUs (0 = unlimited) */
	int cpu_bursts;             /* closed, cpus: each on-CPU interval and
				       each client's CPU time for a round
				       trip queues for the virtual CPUs on its
				       own, when the one before it ends (0:
				       the gap's CPU time at once, at the
				       drain) */
	double cpu_scale;           /* closed, cpus: that on-CPU time x F (the
				       target's CPU time per unit of work
				       against the recording's; 0 = 1.0) */
	uint64_t wake_cost_ns;      /* closed, cpus: the CPU cost of a wake-up
				       taken off the gaps for the wake-ups the
				       replay does not cause (0: none) */
	int wake_cost_auto;         /* derive it from think_sched's bursts */
	uint64_t null_latency_ns;   /* null back-end: fixed completion latency */
	/* Null back-end: per op, latencies taken in turn (the k-th I/O of
	 * the op a worker issues gets the k-th, cycling) instead of
	 * null_latency_ns, e.g. those a real target gave in a replay
	 * (--null-latency-from); an op without a list (count 0) keeps
	 * null_latency_ns.  Not copied: must outlive the run. */
	const uint64_t *null_lat_list[IST_OP_COUNT];
	size_t null_lat_count[IST_OP_COUNT];
	/* The same per trace device (a --lat-log with its dev column: a
	 * WAL device's writes do not take a data device's latencies): the
	 * lists of device d and op k are null_lat_dev_list[d * IST_OP_COUNT
	 * + k], counts alike; they come first, then null_lat_list, then
	 * null_latency_ns.  Devices from null_lat_ndev on have none. */
	const uint64_t *const *null_lat_dev_list;
	const size_t *null_lat_dev_count;
	unsigned null_lat_ndev;
	int virtual_clock;          /* null back-end: simulated time (tests)   */
	unsigned ntargets;
	struct rpl_target_spec targets[RPL_MAX_TARGETS];
	rpl_io_cb io_cb;
	void *io_cb_arg;
};

/* Fills defaults (original timing, speed 1, iodepth 64, one worker...). */
void rpl_opts_init(struct rpl_opts *o);

/* Names <-> values, for the CLI and reports (NULL / negative if unknown). */
const char *rpl_timing_name(enum rpl_timing t);
int rpl_timing_parse(const char *s);
const char *rpl_remap_name(enum rpl_remap r);
int rpl_remap_parse(const char *s);
/* "random", "zero", "compress:R", "dedupe:P", "stamp" -> data and param. */
int rpl_data_parse(const char *s, enum rpl_data *data, unsigned *param);
/* Formats the data setting ("compress:2.00"). */
const char *rpl_data_format(enum rpl_data d, unsigned param, char *buf,
			    size_t size);

/* ------------------------------------------------------------ histogram */

/*
 * Log-linear histogram of nanosecond values: exact below 128 ns, then 128
 * sub-buckets per power of two (bucket width <= 1/128 of its lower bound,
 * values reported at bucket middles: relative error <= 0.4%) up to 2^48 ns
 * (78 hours); larger values land in the last bucket.  min, max, sum and
 * sum of squares are exact.
 */
#define RPL_HIST_SUB_BITS 7
#define RPL_HIST_MAX_BITS 48
#define RPL_HIST_BUCKETS (((RPL_HIST_MAX_BITS - RPL_HIST_SUB_BITS) + 1) << RPL_HIST_SUB_BITS)

struct rpl_hist {
	uint64_t count;
	uint64_t min, max;
	double sum, sumsq;
	uint64_t *b; /* RPL_HIST_BUCKETS counters, allocated on first add */
};

int rpl_hist_init(struct rpl_hist *h);
void rpl_hist_release(struct rpl_hist *h);
void rpl_hist_reset(struct rpl_hist *h);
void rpl_hist_add(struct rpl_hist *h, uint64_t v);
int rpl_hist_merge(struct rpl_hist *dst, const struct rpl_hist *src);
/* Value at quantile q in [0,1] (0 when empty). */
uint64_t rpl_hist_quantile(const struct rpl_hist *h, double q);
double rpl_hist_mean(const struct rpl_hist *h);
double rpl_hist_stddev(const struct rpl_hist *h);
/* Bucket index of v and the [lo, hi] range of a bucket (for tests). */
unsigned rpl_hist_index(uint64_t v);
void rpl_hist_bucket_range(unsigned idx, uint64_t *lo, uint64_t *hi);

/* The summary of a histogram as reported everywhere. */
struct rpl_pcts {
	uint64_t count;
	uint64_t min, max;
	double mean, stddev;
	uint64_t p50, p90, p99, p999, p9999;
};
void rpl_hist_summary(const struct rpl_hist *h, struct rpl_pcts *p);

/* ------------------------------------------------------------ results */

struct rpl_op_result {
	uint64_t ios, bytes, errors;
	struct rpl_pcts lat;      /* submit -> completion                     */
	struct rpl_pcts rec_lat;  /* recorded lat_ns of the same I/Os (count 0
				     when the trace has none)                 */
};

struct rpl_interval {
	uint64_t start_ns;        /* since epoch                              */
	uint64_t length_ns;
	uint64_t ios[IST_OP_COUNT];
	uint64_t bytes[IST_OP_COUNT];
	uint64_t errors;
	uint64_t txns;
	struct rpl_pcts lat;      /* all ops                                  */
	struct rpl_pcts late;     /* lateness of the I/Os issued in it        */
};

struct rpl_target_info {
	int dev;                  /* trace device, -1 = all                    */
	char *path;
	const char *kind;         /* "file", "block", "null"                   */
	uint64_t size;
	unsigned lbs;             /* logical block size                       */
};

struct rpl_result {
	int interrupted;
	int complete;             /* every scheduled record was issued        */
	uint64_t elapsed_ns;      /* epoch -> last completion                 */
	uint64_t schedule_ns;     /* scheduled span (original/rate)           */
	uint64_t cpu_user_ns, cpu_sys_ns;
	uint64_t records_read;    /* from the source (window applied)         */
	uint64_t ios, bytes, errors;
	int first_error;          /* -errno of the first failed I/O           */
	uint64_t skipped_read_only, skipped_beyond_end, skipped_too_large;
	uint64_t realigned, wrapped, scaled;
	uint64_t decoder_starved; /* times a worker found its queue empty     */
	uint64_t max_inflight;
	uint64_t inline_ios;         /* I/Os the workers did themselves        */
	int pinned;                  /* workers pinned to CPUs of their own    */
	uint64_t wake_cost_ns;       /* --wake-cost used (derived or given)    */
	uint64_t wakes_dropped;      /* recorded wake-ups the replay did not
					cause, and the CPU time taken off   */
	uint64_t wakes_kept, wake_cpu_dropped_ns;
	uint64_t commits_joined;     /* --commit-groups: commits completed by
					another stream's flush, no I/O */
	uint64_t commit_groups;      /* and the flushes that carried them */
	uint64_t commits_after_release; /* --think-sched: commits ready only
					after another's release plus their
					CPU time after the wake-up */
	uint64_t handover_samples;   /* --lock-handover: handovers recorded
					(a waiter asleep at another's release,
					its first write after), */
	uint64_t handovers;          /* lock takes after a wait delayed by
					their median, */
	uint64_t handover_ns;        /* and the time added (summed) */
	uint64_t holder_marked;      /* --holder-waits: commits that waited on
					another's commit in the recording, */
	uint64_t holder_waited;      /* and those that waited in the replay */
	uint64_t cpu_wait_ns;        /* --cpus: time the streams' CPU times
					waited for a virtual CPU */
	uint64_t cpu_bursts;         /* --cpu-queue burst: CPU times served
					one by one */
	uint64_t wake_margin_max_ns; /* largest spin window used              */
	uint64_t oversleep_max_ns;   /* largest oversleep of a timed wait      */
	/* null back-end with latency lists: I/Os of trace device d and op k
	 * that no list served (completed after null_latency_ns), at
	 * [d * IST_OP_COUNT + k]; NULL when there were no lists */
	uint64_t *null_unlisted;
	unsigned null_unlisted_ndev;
	struct rpl_op_result op[IST_OP_COUNT];
	struct rpl_pcts lat;      /* all ops                                  */
	struct rpl_pcts late;     /* issue lateness (actual - deadline)       */
	uint64_t late_warn_ns;
	int late_warning;         /* p99 lateness above late_warn_ns          */
	/* transactions (closed loop / TPS-eq); txns 0 when none defined */
	uint64_t txns;
	double tps_streams;       /* sum over streams of (txns - 1) / (last
				     txn end - first txn end), streams with
				     at least 1% of the txns                 */
	struct rpl_pcts txn_lat;
	struct rpl_pcts rec_txn_lat; /* recorded (from t/lat_ns)              */
	struct rpl_pcts txn_lat_streams; /* txn_lat of the streams counted in
					tps_streams (count 0: not known) */
	/* intervals, in time order */
	struct rpl_interval *intervals;
	size_t nintervals;
	/* what the engine used and what it had to fall back from */
	unsigned ntargets;
	struct rpl_target_info *targets;
	char features[256];       /* "single_issuer defer_taskrun fixed_files.." */
	char notes[1024];         /* fallbacks, one per line                  */
};

/* ------------------------------------------------------------ run */

typedef struct rpl_run rpl_run;

/*
 * Validates o, opens and checks the targets (safety, strict remap from
 * the source's totals), and prepares workers.  Takes ownership of src in
 * every case.  Returns 0 or a negative error (IST_EUNSAFE for a refusal,
 * -EINVAL for inconsistent options); *r is then still set when non-NULL
 * so that rpl_run_errmsg() can explain, and must be freed.
 */
int rpl_run_new(rpl_run **r, const struct rpl_opts *o, struct rpl_source *src);
const char *rpl_run_errmsg(const rpl_run *r);
/* Starts the decoder and worker threads. */
int rpl_run_start(rpl_run *r);
/* Asks the run to stop issuing and drain; async-signal-safe. */
void rpl_run_stop(rpl_run *r);
/* Waits up to timeout_ms for the end; 1 when finished, 0 on timeout. */
int rpl_run_wait(rpl_run *r, unsigned timeout_ms);

struct rpl_progress {
	uint64_t elapsed_ns;
	uint64_t issued, completed, expected; /* expected 0 = unknown */
	uint64_t last_iops;                   /* last full interval      */
	uint64_t last_p99_ns, last_late_p99_ns;
};
void rpl_run_progress(rpl_run *r, struct rpl_progress *p);

/* After rpl_run_wait() returned 1: the results (owned by r), or NULL and
 * a negative error in *err when the run failed (source error...). */
const struct rpl_result *rpl_run_result(rpl_run *r, int *err);
void rpl_run_free(rpl_run *r);

/* JSON report (schema "iostorm-replay/1", see iostorm-replay(1)). */
struct rpl_report_info {
	const char *trace_path;
	const char *trace_format;
	const ist_header *header;
	const struct ist_totals *totals; /* may be NULL */
	const struct rpl_opts *opts;
	const char *command;             /* command line, may be NULL */
	const char *started;             /* ISO-8601 UTC start time   */
};
/* Both write path complete or not at all: to a new temporary file beside
 * it (PATH.tmp-PID-N, created with O_EXCL: never a file already there, and
 * unique to the call, so two runs writing the same path do not collide),
 * renamed over path when complete, removed on failure and when SIGINT,
 * SIGTERM or SIGHUP (with their default action) end the process meanwhile.
 * 0 or a negative errno. */
int rpl_report_json(const char *path, const struct rpl_report_info *info,
		    const struct rpl_result *res);
int rpl_report_csv_intervals(const char *path, const struct rpl_result *res);
/* The run's info for reports (valid while r lives). */
void rpl_run_report_info(rpl_run *r, struct rpl_report_info *info);

/*
 * --lat-log: one line per completed I/O after this header (the CLI writes
 * it); rpl_lat_log_read() reads one back for --null-latency-from: each
 * op's latencies in issue order (seq; the log is in completion order),
 * failed I/Os (a negative result) left out, ready for
 * rpl_opts.null_lat_list.  0, or -1 with a one-line reason naming path
 * (and the line) in err.
 */
#define RPL_LAT_LOG_HEADER \
	"seq,op,stream,deadline_ns,issue_ns,done_ns,latency_ns,result,dev,offset,len"
#define RPL_LAT_LOG_FIELDS 11
/* the log of the first release (no dev, offset and len): read, its
 * latencies shared by every device */
#define RPL_LAT_LOG_HEADER_V1 "seq,op,stream,deadline_ns,issue_ns,done_ns,latency_ns,result"
#define RPL_LAT_LOG_FIELDS_V1 8
/* lat[k], n[k]: a V1 log's lists per op; a log with the dev column has
 * them per device instead, dlat[d * IST_OP_COUNT + k] and dn alike for
 * the ndev devices 0 .. ndev - 1 (a device without a line has none) */
struct rpl_lat_lists {
	uint64_t *lat[IST_OP_COUNT];
	size_t n[IST_OP_COUNT];
	uint64_t **dlat;
	size_t *dn;
	unsigned ndev;
};
int rpl_lat_log_read(struct rpl_lat_lists *ll, const char *path, char *err, size_t errlen);
void rpl_lat_lists_free(struct rpl_lat_lists *ll);

#endif
