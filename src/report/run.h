/* SPDX-License-Identifier: MIT */
/*
 * run.h - run results as the reports see them: a replay run (schema
 * "iostorm-replay/1", written by `iostorm replay --json`), a load sweep
 * ("iostorm-sweep/1") or a preconditioning run ("iostorm-precondition/1"),
 * loaded from their JSON files; and the table of headline figures that
 * report and compare print (internal, rpt_ prefix).
 */
#ifndef IST_REPORT_RUN_H
#define IST_REPORT_RUN_H

#include <stddef.h>

#include "iostorm.h"

enum rpt_kind {
	RPT_REPLAY = 0,
	RPT_SWEEP,
	RPT_PRECOND,
};

/* A latency summary; nanoseconds.  present 0 when the file had none. */
struct rpt_pcts {
	int present;
	double count, min, max, mean, stddev;
	double p50, p90, p99, p999, p9999;
};

struct rpt_interval {
	double start_s, len_s;
	double ios, bytes, txns, errors;
	struct rpt_pcts lat, late;
};

/* One point of a sweep (grid or rate curve) or one precondition round. */
struct rpt_point {
	unsigned threads, qd; /* grid                                   */
	double pct;           /* rate curve: percent of the maximum     */
	double target_iops;   /* rate curve: asked arrival rate         */
	unsigned round;       /* precondition                           */
	double elapsed_s, ios, bytes;
	double iops, mbps;
	struct rpt_pcts lat, late;
};

struct rpt_setting {
	char *key;
	char *value;
};

struct rpt_run {
	enum rpt_kind kind;
	char *path;
	char *label;
	char *schema, *started, *command;
	char *target;        /* target paths, joined by ", "             */
	/* what was replayed: compare refuses different traces */
	char *trace_path, *trace_id;
	double trace_records, trace_duration_s;
	int trace_ops_present;
	double trace_ops[IST_OP_COUNT];
	/* how: compare refuses different settings */
	struct rpt_setting *settings;
	size_t nsettings;
	/* headline figures */
	int interrupted, complete;
	double elapsed_s, ios, bytes, errors, txns, cpu_s;
	double iops, mbps, tps;
	struct rpt_pcts lat, late, txn_lat, rec_lat;
	double op_ios[IST_OP_COUNT], op_bytes[IST_OP_COUNT];
	struct rpt_pcts op_lat[IST_OP_COUNT];
	struct rpt_interval *iv;
	size_t niv;
	/* sweep */
	struct rpt_point *grid, *curve;
	size_t ngrid, ncurve;
	double max_iops;
	/* precondition */
	struct rpt_point *rounds;
	size_t nrounds;
	char *workload;
	double fill_passes, fill_bytes, fill_s;
	int steady;                  /* steady state reached            */
	unsigned steady_first, steady_last; /* window (rounds, 1-based) */
	double steady_avg, steady_excursion, steady_slope_excursion;
};

/*
 * Loads a run result file.  Returns 0, or a negative error (-errno,
 * IST_EPARSE for bad JSON or a missing field, IST_EVERSION for an unknown
 * schema) with one line in err saying where and why ("line 3: ...",
 * "result.ios: missing").  *out is NULL on error.
 */
int rpt_run_load(struct rpt_run **out, const char *path, char *err,
		 size_t errsize);
void rpt_run_free(struct rpt_run *r);
/* Value of a setting, or NULL. */
const char *rpt_run_setting(const struct rpt_run *r, const char *key);

/* ------------------------------------------------------- headline figures */

/* Where a figure's per-interval values come from (for the noise model). */
enum rpt_series_src {
	RPT_IV_NONE = 0,
	RPT_IV_IOPS,
	RPT_IV_MBPS,
	RPT_IV_TPS,
	RPT_IV_LAT,  /* a field of the interval's latency summary   */
	RPT_IV_LATE, /* a field of the interval's lateness summary  */
};

/* Where a figure's headline value comes from. */
enum rpt_value_src {
	RPT_V_IOPS = 0,
	RPT_V_MBPS,
	RPT_V_TPS,
	RPT_V_LAT,        /* a field of the run's latency summary          */
	RPT_V_LATE,       /* a field of the lateness summary               */
	RPT_V_TXN_LAT,    /* a field of the transaction latency summary    */
	RPT_V_READ_LAT,   /* a field of the reads' latency summary         */
	RPT_V_WRITE_LAT,  /* a field of the writes' latency summary        */
	RPT_V_READ_IOPS,
	RPT_V_WRITE_IOPS,
	RPT_V_ERRORS,
	RPT_V_CPU_PER_IO, /* ns of CPU time per I/O                         */
};

struct rpt_metric {
	const char *key;     /* "iops", "lat_p99" ... (JSON, thresholds) */
	const char *name;    /* "IOPS", "p99 latency" ...                */
	const char *unit;    /* "IOPS", "MB/s", "us" ...                 */
	int higher_better;
	int is_ns;           /* value in ns; shown in us                 */
	enum rpt_value_src value;
	enum rpt_series_src src;
	size_t pcts_off;     /* the summary's field (RPT_V_*LAT*, RPT_IV_LAT*) */
};

/* The headline figures, terminated by a NULL key. */
extern const struct rpt_metric rpt_metrics[];
const struct rpt_metric *rpt_metric_find(const char *key);
/* Value of metric m in run r; NaN when the run has none. */
double rpt_metric_value(const struct rpt_metric *m, const struct rpt_run *r);
/* Value of m in one interval; NaN when it has none (empty interval...). */
double rpt_metric_interval(const struct rpt_metric *m,
			   const struct rpt_interval *iv);
/* The value of a pcts field at offset off. */
double rpt_pcts_field(const struct rpt_pcts *p, size_t off);

#endif
