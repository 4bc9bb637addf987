/* SPDX-License-Identifier: MIT */
/* trace_rec_int.h - the recorder's internals, shared by trace_rec.c (the
 * tracefs instance, decoding, merging) and rec_spool.c (--spool's splicer,
 * the spool's meta file, --recover).  Not installed. */
#ifndef CAP_TRACE_REC_INT_H
#define CAP_TRACE_REC_INT_H

#ifdef HAVE_TRACEFS

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

#include <tracefs/tracefs.h>

#include "capture/trace_rec.h"

enum { EV_RQ_ISSUE, EV_RQ_COMPLETE, EV_BIO_QUEUE, EV_BIO_COMPLETE, EV_COUNT };

extern const char *const cap_ev_names[EV_COUNT];

struct ev_layout {
	int id;
	int used;
	int off_dev, off_sector, off_nr, off_rwbs, len_rwbs, off_comm;
	int min_len; /* an event shorter than this is malformed */
};

/* Small: a poll holds tens of thousands (the process name is passed on
 * when the event is decoded, the first time its pid is seen). */
struct held_event {
	struct cap_event ev;
};

/* One CPU's trace_pipe_raw and the events read from it, in time order
 * (a CPU's ring buffer is: its time deltas are unsigned), waiting to be
 * merged with the other CPUs' up to the watermark. */
struct cpu_reader {
	int fd;
	uint8_t *page;
	size_t page_size;
	uint64_t drained_ns; /* everything before this time has been read */
	int32_t named_pid;   /* the last pid seen named on this CPU */
	struct held_event *q;
	size_t qhead, qn, qcap;
	/* --spool: the CPU's spool file (whole sub-buffers, as read) */
	int sfd;
	int pipe[2];          /* splicer: trace_pipe_raw -> pipe -> sfd */
	uint8_t *spage;       /* splicer: the partly filled sub-buffer read */
	uint64_t wr_off;      /* splicer: bytes in sfd */
	uint64_t pub_bytes;   /* under sp_lock: bytes the decoder may read */
	uint64_t pub_drained; /* under sp_lock: the ring was empty at this
				 time when pub_bytes was reached (0: not) */
	uint64_t rd_off;      /* decoder: bytes of sfd decoded */
	uint64_t last_ts;     /* decoder: the last event's time read */
};

struct cap_rec {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct ev_layout ev[EV_COUNT];
	int nused;            /* the events enabled, for decode_event() */
	int used_id[EV_COUNT], used_k[EV_COUNT];
	struct cap_devinfo *dev;
	unsigned ndev;
	struct cpu_reader *cpu;
	int ncpu;
	cap_match *match;
	size_t nheld; /* events in the CPUs' queues */
	uint32_t *pids; /* open-addressed set of named pids (+1), bounded */
	size_t pid_cap, npids;
	uint64_t t0_ns, stop_ns;
	/* --trace-clock local: sched_clock() - CLOCK_MONOTONIC, subtracted
	 * from each event's timestamp, and when to read it again */
	int clock_local;
	int clock_fd; /* the scheduler's debug file, or -1 */
	int64_t clock_off;
	uint64_t clock_next_ns;
	uint64_t wm_ns; /* the last poll's watermark: every event before it
			   has been fed to the matcher */
	int started, stopping;
	int behind; /* the last poll left data in a buffer */
	cap_name_fn name; /* during a poll */
	void *name_ctx;
	uint64_t drain_ns;
	size_t max_pending;
	struct cap_rwbs_cache rwbs;
	struct cap_rec_stats st;
	/* --spool (and --recover): the splicer thread moves whole sub-
	 * buffers to the spool while the caller decodes from it. */
	int spool;            /* 1: recording to a spool; 2: recovering one */
	char *spool_dir;
	size_t page_size;     /* the sub-buffer size (the spool's slot) */
	pthread_t splicer;
	int splicer_on;
	pthread_mutex_t sp_lock;
	uint64_t pub_round_ns;  /* under sp_lock: start of the round published */
	uint64_t seen_round_ns; /* decoder: pub_round_ns of its last look */
	int sp_stopping;      /* atomic: poll every 2 ms (the drain) */
	int sp_final;         /* atomic: 1 trace off and empty the rings;
				 2 quit at once (an error) */
	int sp_err;           /* atomic: the splicer's error (< 0) */
	uint64_t tail_bytes;  /* recover: a partly written slot ignored */
	pid_t decoder_tid;    /* the caller's thread, under SCHED_IDLE */
	const volatile sig_atomic_t *stop_req; /* the caller's stop flag */
	uint64_t stop_at_ns;  /* the caller's --duration end, 0: none */
	int boosted;          /* splicer: the decoder has its priority back */
	sigset_t old_mask;    /* the caller's signal mask before the start */
};

#define HELD_MAX ((size_t)1 << 21) /* events held for time ordering */
#define BYTES_PER_ROUND (2u << 20)  /* per CPU, so one busy CPU cannot starve */
/* Sub-buffer size asked (kernels since 6.8; older ones keep one page).
 * A read returns one sub-buffer: a full one is swapped out of the ring
 * whole and copied once, but the one a writer is still filling is copied
 * event by event with interrupts off, which costs several times as much
 * per event; each poll ends on such a partly filled sub-buffer per CPU.
 * 16 KiB keeps that part small at a few thousand reads a second (bench/
 * README.md: 256-512 KiB tripled the recorder's CPU per I/O, 16 KiB used
 * 4-17% less than 64 KiB). */
#define SUBBUF_KB 16
#define ORDER_SLACK_NS 2000000ull   /* events committed late on a CPU */
#define MAX_NAMED_PIDS 65536
#define CAP_SPOOL_CPUS_MAX 1024
#define POLL_NS_SPOOL 50000000  /* the splicer's interval (the live one's) */
#define SPLICE_SLOTS 64         /* sub-buffers a splice moves at most */
#define SPOOL_SKEW_NS 20000000ull /* catching up: CPUs read within 20 ms */
#define SPOOL_MAGIC "iostorm-spool 1"

static inline uint64_t now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* rec_spool.c: the splicer thread (cap_rec_start()) and dir/meta */
void *cap_spool_splicer_main(void *arg);
int cap_spool_write_meta(cap_rec *r);
int cap_rec_fill_header(const cap_rec *r, ist_header *h, char *err, size_t errlen);

#endif /* HAVE_TRACEFS */
#endif
