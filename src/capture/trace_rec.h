/* SPDX-License-Identifier: MIT */
/* trace_rec.h - live block I/O recorder on a private tracefs instance. */
#ifndef CAP_TRACE_REC_H
#define CAP_TRACE_REC_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "iostorm.h"
#include "capture/rec_match.h"

/* What the recorder knows about one block device. */
struct cap_devinfo {
	char name[64];        /* kernel name: "loop0", "zram1", "sda2"      */
	dev_t rdev;           /* the device recorded                         */
	uint32_t trace_dev;   /* kernel dev_t of the disk the events carry   */
	uint64_t start;       /* partition start (sectors), 0 for a disk     */
	uint64_t size;        /* bytes                                       */
	uint32_t block_size;  /* logical block size                          */
	int bio_based;        /* 1: bio events (zram, dm, md); 0: request    */
};

/*
 * Finds path's block device in sysfs: name, size, block size and whether
 * it is request-based (has a blk-mq "mq" directory) or bio-based.
 * Returns 0, -ENOENT, -ENOTBLK or another -errno; err gets a reason.
 */
int cap_dev_probe(const char *path, struct cap_devinfo *di, char *err,
		  size_t errlen);

struct cap_rec_opts {
	const char *const *devs; /* device paths                               */
	unsigned ndev;
	size_t buffer_kb;        /* ring buffer per CPU; 0 = 16384             */
	size_t max_pending;      /* in-flight requests kept; 0 = 1 << 20       */
	uint64_t drain_ns;       /* wait for in-flight at stop; 0 = 1 s        */
	int trace_clock;         /* CAP_CLOCK_*; 0 = mono                      */
};

/* The instance's trace clock.  mono: CLOCK_MONOTONIC itself.  local:
 * sched_clock(), cheaper to read in the tracepoints where the kernel
 * holds it stable (coherent across CPUs: its scheduler's debug file says
 * so); its timestamps are moved to CLOCK_MONOTONIC by the offset that
 * file gives, read again every second.  auto: local where it is stable,
 * else mono.  Not with a spool (cap_rec_spool() refuses local). */
enum { CAP_CLOCK_MONO = 0, CAP_CLOCK_LOCAL, CAP_CLOCK_AUTO };

struct cap_rec_stats {
	struct cap_match_stats match;
	uint64_t events;       /* block events read                           */
	uint64_t records;      /* records emitted                             */
	uint64_t overruns;     /* events the kernel ring buffer overwrote     */
	uint64_t missed;       /* events a sub-buffer said were missed        */
	uint64_t ignored;      /* events outside the devices or without data  */
	uint64_t late_issues;  /* issues after stop (not recorded); their
				  completions: match.after_stop              */
	uint64_t zone_cmds;    /* zone reset/open/close/finish issued: no data
				  to replay, skipped (in ignored too)          */
	uint64_t driver_cmds;  /* driver-private requests issued ('N', no
				  data): skipped (in ignored too)              */
	uint64_t paired;       /* completions paired with the issue just
				  before them on the same CPU (no matching) */
	uint64_t clock_unstable; /* --trace-clock local: the once-a-second
				    checks that found sched_clock no longer
				    stable (times across CPUs may then
				    disagree)                                 */
};

typedef struct cap_rec cap_rec;

/* Called once per new stream (process id) with its command name. */
typedef int (*cap_name_fn)(void *ctx, uint64_t stream, const char *comm);

/*
 * Probes the devices, creates the tracefs instance with the block events
 * filtered to them (not yet tracing) and fills h's device table and
 * metadata ("dev.NAME.event" = rq | bio, "trace_clock", "source").
 * Returns 0 or a negative error with a reason in err.
 */
int cap_rec_open(cap_rec **r, const struct cap_rec_opts *o, ist_header *h,
		 char *err, size_t errlen);
/* Starts tracing; t_ns of records counts from here. */
int cap_rec_start(cap_rec *r);
/* Reads what the per-CPU buffers hold and emits completed records in issue
 * order.  Returns the number of events read (0: nothing new) or < 0. */
int cap_rec_poll(cap_rec *r, cap_emit_fn emit, cap_name_fn name, void *ctx);
/* 1 when the last poll stopped with data left in a buffer (a round reads
 * at most a few MB per CPU): poll again without waiting. */
int cap_rec_behind(const cap_rec *r);
/* Removes tracefs instances PREFIX<pid> of processes that are gone. */
void cap_remove_stale_instances(const char *prefix);
/* Stops: ignores new issues, waits up to drain_ns for in-flight
 * completions, turns tracing off, emits everything left. */
int cap_rec_finish(cap_rec *r, cap_emit_fn emit, cap_name_fn name, void *ctx);
void cap_rec_get_stats(const cap_rec *r, struct cap_rec_stats *st);
/* The trace's start (CLOCK_MONOTONIC ns): t_ns 0 of the records. */
uint64_t cap_rec_t0(const cap_rec *r);
/* Removes the instance and frees r. */
void cap_rec_close(cap_rec *r);

/*
 * --spool: records to the directory dir (made by the caller, empty)
 * instead of decoding while tracing.  Between cap_rec_open() and
 * cap_rec_start().  cap_rec_start() then writes dir/meta (what decoding
 * needs), starts a thread that splices each CPU's full sub-buffers into
 * dir/cpuN (whole, as read: host byte order), and puts the calling
 * thread under SCHED_IDLE: cap_rec_poll() decodes the spool as far as the
 * splicer has published, with the CPU time nobody else wants;
 * cap_rec_finish() gives the caller its priority back, catches up, drains
 * as without a spool and stops the thread.  The spool stays: the caller
 * removes it (cap_rec_spool_remove()) once the trace is written.
 * Returns 0 or a negative error with a reason in err.
 */
int cap_rec_spool(cap_rec *r, const char *dir, char *err, size_t errlen);
/*
 * --recover: a recorder over the spool dir of a recorder that ended
 * without decoding it all (killed, failed): cap_rec_finish() decodes
 * every whole sub-buffer in it (no tracefs; no root needed to read the
 * files); h gets the device table and metadata as cap_rec_open() gives.
 */
int cap_rec_recover(cap_rec **r, const char *dir, ist_header *h, char *err,
		    size_t errlen);
/* Bytes at the spool's ends that did not make a whole sub-buffer (a
 * write the killed recorder had not finished): not decoded. */
uint64_t cap_rec_spool_tail(const cap_rec *r);
/* Bytes in the spool (written, or found by cap_rec_recover()). */
uint64_t cap_rec_spooled(const cap_rec *r);
int cap_rec_ncpu(const cap_rec *r);
/*
 * --spool: after cap_rec_start() the calling thread runs under SCHED_IDLE
 * and may get no CPU for seconds while the workload keeps every CPU busy;
 * SIGINT and SIGTERM are blocked in it (their handlers run in the splicer
 * until cap_rec_finish()).  As soon as *flag is set (by those handlers) or
 * at_ns (CLOCK_MONOTONIC, 0: never) has passed, the splicer gives the
 * caller its normal priority back, so that it sees the stop at once.
 */
void cap_rec_spool_stop_watch(cap_rec *r, const volatile sig_atomic_t *flag,
			      uint64_t at_ns);
/* Unlinks dir/meta, dir/cpu0..ncpu-1 and dir; 0 or -errno. */
int cap_rec_spool_remove(const char *dir, int ncpu);

#endif
