/* SPDX-License-Identifier: MIT */
/*
 * stats.h - streaming workload characterization of a trace, the engine of
 * `iostorm stats` and of the emulators' tests.  Memory is bounded whatever
 * the trace length: fixed histograms, per-device address buckets for
 * skew, hash-sampled blocks for the working set, a capped stream table,
 * and an interval series that coarsens itself when it grows too long.
 *
 * Use: rpt_stats_new() -> rpt_stats_add() per batch -> rpt_stats_finish()
 * -> read the summary, devices, streams, series -> rpt_stats_free().
 */
#ifndef IST_REPORT_STATS_H
#define IST_REPORT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "iostorm.h"

#define RPT_SKEW_BUCKETS 1024   /* address buckets per device            */
#define RPT_SIZE_LOG2 33        /* size histogram: [2^k, 2^(k+1))         */
#define RPT_IA_LOG2 48          /* inter-arrival histogram (ns)           */
#define RPT_MAX_INTERVALS 4096  /* series coarsens beyond this            */
#define RPT_SEQ_RECENT 16       /* recent request ends kept per device   */
#define RPT_MAX_STREAMS 32768   /* streams tracked individually           */
#define RPT_MAX_DEVICES 4096    /* devices 0 to this - 1 (8 KiB each)      */

struct rpt_stats_opts {
	uint64_t interval_ns; /* series interval; 0 = 1 s                 */
	uint32_t block;       /* block for working set; 0 = 4096          */
};

/* Share of I/Os on the hottest 1, 10 and 20% of the address space. */
struct rpt_skew {
	double top1, top10, top20;
};

struct rpt_summary {
	uint64_t records;
	uint64_t count[IST_OP_COUNT];
	uint64_t bytes[IST_OP_COUNT];
	uint64_t first_t_ns, last_t_ns;
	double duration_s;
	double read_share;       /* reads / (reads + writes), by count    */
	double read_bytes_share; /* by bytes                               */
	double mean_size;        /* of reads and writes                    */
	double mean_read_size, mean_write_size;
	uint32_t mode_size;      /* most frequent read/write size          */
	double mode_share;       /* its share of reads and writes          */
	double seq_share;        /* starts where one of the device's last
				    RPT_SEQ_RECENT reads/writes ended        */
	double stream_seq_share; /* starts where its stream's previous ended */
	double ia_mean_ns, ia_cv, burstiness; /* inter-arrival; burstiness
				    (sigma - mu) / (sigma + mu) in [-1, 1]  */
	double iops, mbps;       /* averages over the duration             */
	double peak_iops;        /* highest interval                       */
	struct rpt_skew skew;    /* over all devices' address space        */
	uint64_t working_set;    /* bytes touched (estimate from samples)  */
	uint64_t streams;        /* distinct non-zero streams (tracked)    */
	int streams_exact;       /* 0 if more than RPT_MAX_STREAMS         */
	double stream_iops_mean, stream_iops_median; /* per active stream  */
	uint64_t commits;        /* records with IST_F_COMMIT              */
	uint64_t txn_ios;        /* records with txn != 0                  */
	uint64_t txn_flushes;    /* FLUSH / FUA / PREFLUSH in transactions */
	uint64_t flushes;        /* all of them                            */
	double ios_per_txn, flushes_per_commit;
	uint64_t sync, fua, dependent;
	int have_latency;        /* some records carry lat_ns              */
	double lat_mean_ns;
	double qd_mean, qd_max;  /* in-flight I/Os seen at each arrival    */
	uint64_t out_of_order;
};

struct rpt_device {
	const char *name;        /* from the header, or "devN"             */
	uint64_t size;           /* address space used for skew            */
	uint64_t count[IST_OP_COUNT];
	uint64_t bytes[IST_OP_COUNT];
	double read_share, mean_size, seq_share;
	struct rpt_skew skew;
};

struct rpt_stream {
	uint64_t id;
	uint64_t count, reads, bytes, commits;
	uint64_t first_t_ns, last_t_ns;
	double iops;             /* count / (last - first), 0 if undefined */
};

struct rpt_interval {
	uint64_t start_ns;
	uint64_t count, reads, bytes;
	double iops, mbps, qd_mean;
	uint64_t qd_max;
};

struct rpt_stats;

/* h gives device names and sizes (may be NULL); it is not kept. */
int rpt_stats_new(struct rpt_stats **st, const ist_header *h,
		  const struct rpt_stats_opts *opts);
void rpt_stats_free(struct rpt_stats *st);
/* Adds n records (in time order ideally; disorder is counted). */
int rpt_stats_add(struct rpt_stats *st, const struct ist_record *recs,
		  size_t n);
/* Computes the derived figures; call once after the last add. */
int rpt_stats_finish(struct rpt_stats *st);

const struct rpt_summary *rpt_stats_summary(const struct rpt_stats *st);
unsigned rpt_stats_device_count(const struct rpt_stats *st);
const struct rpt_device *rpt_stats_device(const struct rpt_stats *st,
					  unsigned i);
/* Streams sorted by I/O count, most active first. */
unsigned rpt_stats_stream_count(const struct rpt_stats *st);
const struct rpt_stream *rpt_stats_stream(const struct rpt_stats *st,
					  unsigned i);
unsigned rpt_stats_interval_count(const struct rpt_stats *st);
const struct rpt_interval *rpt_stats_interval(const struct rpt_stats *st,
					      unsigned i);
uint64_t rpt_stats_interval_ns(const struct rpt_stats *st);
/* Read/write I/Os with size in [2^k, 2^(k+1)) (k < RPT_SIZE_LOG2). */
uint64_t rpt_stats_size_hist(const struct rpt_stats *st, unsigned k);
/* Inter-arrival gaps in [2^k, 2^(k+1)) ns (k = 0 also holds 0). */
uint64_t rpt_stats_ia_hist(const struct rpt_stats *st, unsigned k);

#endif
