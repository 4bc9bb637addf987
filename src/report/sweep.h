/* SPDX-License-Identifier: MIT */
/*
 * sweep.h - load sweeps and preconditioning on the replay engine, and
 * their JSON results ("iostorm-sweep/1", "iostorm-precondition/1", read
 * back by run.h for the reports) (internal, rpt_ prefix).
 */
#ifndef IST_REPORT_SWEEP_H
#define IST_REPORT_SWEEP_H

#include <json-c/json.h>
#include <signal.h>
#include <stddef.h>

#include "report/measure.h"
#include "report/steady.h"

#define RPT_SWEEP_MAX 64

/* Opens a fresh source of the swept workload for each point. */
typedef int (*rpt_source_fn)(void *arg, struct rpl_source **s);
/* Told after each point (phase "grid", "curve", "fill", "round"). */
typedef void (*rpt_point_fn)(void *arg, const char *phase, const struct rpt_point *p);

struct rpt_sweep_opts {
	struct rpl_opts base;      /* targets, safety, data, back-end       */
	unsigned threads[RPT_SWEEP_MAX], nthreads;
	unsigned qd[RPT_SWEEP_MAX], nqd;
	double rates[RPT_SWEEP_MAX]; /* percent of the measured maximum      */
	unsigned nrates;
	uint64_t point_ns;         /* length of each point                   */
	rpt_source_fn open_source;
	void *source_arg;
	const char *source_name;   /* for messages                           */
	rpt_point_fn point_done;
	void *point_arg;
	volatile sig_atomic_t *stop;
};

struct rpt_sweep_result {
	struct rpt_point grid[RPT_SWEEP_MAX * RPT_SWEEP_MAX];
	size_t ngrid;
	struct rpt_point curve[RPT_SWEEP_MAX];
	size_t ncurve;
	double max_iops;
	unsigned max_threads, max_qd;
	int interrupted;
};

/*
 * The grid: every threads x qd pair as fast as possible (threads =
 * replay workers partitioned by stream, qd = in-flight cap per worker);
 * then the rate curve: arrivals at each percentage of the grid's largest
 * IOPS, with that point's threads and queue depth.  Returns 0, or a
 * negative error with err set.  An interruption ends the sweep early
 * (res->interrupted) with what was measured.
 */
int rpt_sweep_run(const struct rpt_sweep_opts *o, struct rpt_sweep_result *res,
		  char *err, size_t errsize);

struct rpt_precond_opts {
	struct rpl_opts base;      /* target (one), safety, data             */
	unsigned passes;           /* sequential fill passes (0 = none)      */
	const struct rpt_pattern *fill; /* pattern of the fill            */
	uint64_t fill_bytes;       /* bytes of one pass (the target size)    */
	unsigned threads, qd;      /* of the workload rounds                 */
	uint64_t round_ns;
	unsigned max_rounds;
	unsigned window;           /* steady-state window (rounds)           */
	double max_excursion, max_slope;
	rpt_source_fn open_source; /* the workload                           */
	void *source_arg;
	const char *source_name;   /* for messages                           */
	rpt_point_fn point_done;
	void *point_arg;
	volatile sig_atomic_t *stop;
};

#define RPT_MAX_ROUNDS 1000

struct rpt_precond_result {
	double fill_bytes, fill_s;
	unsigned passes_done;
	struct rpt_point rounds[RPT_MAX_ROUNDS];
	size_t nrounds;
	struct rpt_steady steady;
	int interrupted;
};

/* Fill, then rounds until steady state or max_rounds.  0 or a negative
 * error with err set. */
int rpt_precond_run(const struct rpt_precond_opts *o, struct rpt_precond_result *res,
		    char *err, size_t errsize);

/* JSON of one point (grid, curve or round). */
json_object *rpt_point_json(const struct rpt_point *p, const char *phase);
/* Writes obj to path through a temporary file renamed into place;
 * consumes obj.  0 or -errno. */
int rpt_json_write(const char *path, json_object *obj);

#endif
