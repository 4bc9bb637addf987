/* SPDX-License-Identifier: MIT */
/*
 * annotate.h - infer what closed-loop replay needs from a captured trace:
 * the log device, commit markers, transaction ids, per-stream dependencies
 * and (when the capture has none) streams from timing.  Streaming: records
 * go through in time order, state is per stream and per in-flight I/O.
 */
#ifndef IST_CORE_ANNOTATE_H
#define IST_CORE_ANNOTATE_H

#include <stdint.h>

#include "iostorm.h"

/* A commit rule: a record matching every set field is a commit marker. */
struct ann_rule {
	int dev;          /* device index, -1 = any (or the log device when
			     log_dev_only) */
	int op;           /* IST_OP_*, -1 = any */
	unsigned flags;   /* all of these flags set (0 = no condition) */
	int log_dev_only; /* dev = the detected or given log device */
};

#define ANN_MAX_RULES 16

struct ann_opts {
	int log_dev;              /* -1: detect from the device statistics */
	struct ann_rule rules[ANN_MAX_RULES];
	unsigned nrules;          /* 0: default rules (flush, FUA or
				     preflush write on the log device) */
	uint64_t dep_window_ns;   /* stream inference: an I/O issued within
				     this time after another completed
				     depends on it; 0 = 2 ms */
	int infer_streams;        /* 1 force, 0 never, -1 when all streams 0 */
	uint64_t txn_per;         /* also end a transaction every N I/Os of a
				     stream (0 = only at commit markers) */
	int keep_existing;        /* keep txn ids and flags already present */
	int flush_owner;          /* a flush issued by a stream that did not
				     write to the device (a kernel worker) is
				     given to the latest writer waiting on it */
	double group_commits;     /* > 1: transactions per commit in the
				     capture; each commit cycle is split into
				     that many commits (ann_process_split) */
};

/* Per-device statistics from a first pass (ann_devstat_add). */
struct ann_devstat {
	uint64_t records, writes, small_writes, seq_writes, sync_writes;
	uint64_t flushes, reads;
	uint64_t write_bytes;
	uint64_t last_end; /* end of the previous write (sequentiality) */
};

struct ann_report {
	uint64_t records;
	int log_dev;             /* chosen log device, -1 if none */
	int log_dev_given;       /* named by the user */
	double log_confidence;   /* 0..1: how log-like the chosen device is */
	uint64_t markers;        /* commit markers found */
	uint64_t txns;           /* transactions defined */
	uint64_t dependent;      /* records marked IST_F_DEPENDENT */
	uint64_t without_latency;/* records whose lat_ns was 0 */
	uint64_t streams;        /* distinct streams after annotation */
	int streams_inferred;    /* streams came from timing */
	uint64_t chains_max_inflight; /* peak concurrent I/Os seen */
	uint64_t flushes_moved;  /* flushes given to their writer (flush_owner) */
	uint64_t dep_past_moved; /* dependent although a moved flush was in flight */
	uint64_t split_added;    /* commits inserted (group_commits) */
};

typedef struct ann_state ann_state;

/* Accumulates per-device statistics for log-device detection. */
void ann_devstat_add(struct ann_devstat *ds, unsigned ndev,
		     const struct ist_record *r);
/* The most log-like device (small, sequential, synchronous writes) or -1
 * when none looks like a log; *confidence in 0..1. */
int ann_detect_log_dev(const struct ann_devstat *ds, unsigned ndev,
		       double *confidence);

/* Parses a rule "dev=1,op=flush,flags=fua|sync" (dev may be "log"); a rule
 * without a field is IST_EPARSE. */
int ann_rule_parse(const char *s, struct ann_rule *rule);

/* Creates the state; log_dev must be resolved (>= 0 or -1 = no log). */
int ann_new(ann_state **a, const struct ann_opts *opts, int log_dev,
	    double log_confidence, int infer_streams);
/* Annotates n records in place (in time order). */
int ann_process(ann_state *a, struct ist_record *recs, size_t n);
/* Annotates n records (recs are changed) into *out (*nout records, valid
 * until the next call): with group_commits, commits are inserted. */
int ann_process_split(ann_state *a, struct ist_record *recs, size_t n,
		      const struct ist_record **out, size_t *nout);
/* Fills the report and frees a. */
void ann_finish(ann_state *a, struct ann_report *rep);

#endif
