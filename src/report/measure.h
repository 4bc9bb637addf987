/* SPDX-License-Identifier: MIT */
/*
 * measure.h - measurements built on the replay engine for sweeps and
 * preconditioning: built-in access patterns as endless record sources
 * (4 KiB random writes, 64 KiB sequential reads, a sequential fill...),
 * the size of a target, and one measurement point (a replay capped in
 * time, summarised) (internal, rpt_ prefix).
 */
#ifndef IST_REPORT_MEASURE_H
#define IST_REPORT_MEASURE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/replay.h"
#include "report/run.h"

/* A synthetic access pattern (fio-like): block size, read share, random
 * or sequential, over a region of the target. */
struct rpt_pattern {
	const char *name;
	const char *summary;
	unsigned bs;       /* bytes                              */
	unsigned read_pct; /* 0..100                             */
	int sequential;
};

/* The built-in patterns, terminated by a NULL name. */
extern const struct rpt_pattern rpt_patterns[];
const struct rpt_pattern *rpt_pattern_find(const char *name);

/*
 * An endless source of p's records over [0, region) of one device of
 * that size (region a multiple of 4096, at least p->bs).  Records are
 * spread over 256 streams so that workers partitioned by stream share
 * the load.  limit_bytes > 0 ends the source after that many bytes (a
 * sequential fill: region bytes per pass).  Random offsets come from a
 * generator seeded with seed: the same seed, the same records.
 */
int rpt_pattern_source(struct rpl_source **s, const struct rpt_pattern *p,
		       uint64_t region, uint64_t limit_bytes, uint64_t seed);

/* The size in bytes of a file or block device; 0 or -errno. */
int rpt_target_size(const char *path, uint64_t *size);

/* Converts the engine's summary. */
void rpt_pcts_from(struct rpt_pcts *d, const struct rpl_pcts *s);

/*
 * Runs one replay of src (owned) with options o and fills pt (iops, mbps,
 * latency and lateness; threads and qd from o).  stop, when set by a
 * signal handler, ends the run early (the point is still filled, and
 * 1 is returned).  Returns 0, 1 when stopped, or a negative error with a
 * message in err.
 */
int rpt_measure(const struct rpl_opts *o, struct rpl_source *src,
		volatile sig_atomic_t *stop, struct rpt_point *pt, char *err,
		size_t errsize);

#endif
