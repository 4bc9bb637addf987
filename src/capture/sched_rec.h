/* SPDX-License-Identifier: MIT */
/*
 * sched_rec.h - the run-queue waits of the recorded streams (record
 * --sched): from the scheduler's tracepoints on a tracefs instance of its
 * own, the intervals in which a stream's thread was runnable but not
 * running, written to a sidecar text file (see iostorm-record(1)):
 *
 *     # iostorm-sched 3 runq cpu runtime  (3 runq cpu client runtime with
 *                   clients; 1, 2 without the sched_stat_runtime event)
 *     STREAM START_NS END_NS        (ns since the trace's start, by end)
 *     c STREAM START_NS END_NS RUNTIME_NS   on a CPU (RUNTIME_NS: the CPU
 *                   time the kernel charged, steal out; version 3; with
 *                   "irq" in the header, less the interrupts it took)
 *     r STREAM START_NS END_NS      runnable
 *     w STREAM START_NS END_NS CPU_NS   asleep until a client woke it
 */
#ifndef CAP_SCHED_REC_H
#define CAP_SCHED_REC_H

#include <stddef.h>
#include <stdint.h>

struct sched_rec_stats {
	uint64_t events;     /* scheduler events read                      */
	uint64_t intervals;  /* run-queue intervals written                */
	uint64_t overruns;   /* events the kernel ring buffer overwrote    */
	uint64_t untracked;  /* pids beyond the table (not followed)       */
	uint64_t client_waits; /* sleeps of streams that a client ended    */
	uint64_t kthreads;   /* streams not followed: kernel threads       */
	uint64_t malformed;  /* events shorter than their format (skipped) */
	uint64_t irq_ns;     /* interrupt time taken out of the followed
				threads' runtime (0: not traced)           */
	int irq_out;         /* interrupts traced and taken out            */
	uint64_t switch_cost_ns; /* the tracing's measured CPU cost per
				context switch, taken out (0: none)        */
};

typedef struct sched_rec sched_rec;

/* Creates the instance (sched_switch, sched_wakeup; not yet tracing) and
 * the sidecar file.  comms: the command names of the clients (up to 8;
 * their threads are followed too, their CPU time given to the sleeps of
 * the streams they end: sched_waking).  Returns 0 or a negative error with
 * a reason in err. */
int sched_rec_open(sched_rec **s, const char *path, size_t buffer_kb,
		   const char *const *comms, unsigned ncomm, char *err, size_t errlen);
/* Starts tracing; t0_ns: the trace's start (CLOCK_MONOTONIC). */
int sched_rec_start(sched_rec *s, uint64_t t0_ns);
/* Follows pid from now on (a stream of the trace), unless it is a kernel
 * thread. */
int sched_rec_add_pid(sched_rec *s, uint64_t pid);
/* Reads the per-CPU buffers and writes the intervals that ended. */
int sched_rec_poll(sched_rec *s);
/* Stops tracing, writes what is left and closes the file. */
int sched_rec_finish(sched_rec *s);
void sched_rec_get_stats(const sched_rec *s, struct sched_rec_stats *st);
/* Removes the instance, frees s (the file is kept). */
void sched_rec_close(sched_rec *s);

#endif
