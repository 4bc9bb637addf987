/* SPDX-License-Identifier: MIT */
/*
 * compare.h - a baseline run against a new run: are they comparable (same
 * trace, same settings), the change of every headline figure with the
 * confidence interval of the change from the per-interval figures, and
 * the verdict against regression thresholds (internal, rpt_ prefix).
 *
 * The gate rule: a threshold fails when the headline figure got worse by
 * more than the threshold AND the change is significant (the confidence
 * interval of the difference of the interval means lies entirely on the
 * worse side of zero).  When a figure has no per-interval values (or
 * fewer than 3 intervals on a side), its significance is unknown and a
 * crossing fails (the safe side for a gate).
 */
#ifndef IST_REPORT_COMPARE_H
#define IST_REPORT_COMPARE_H

#include <stddef.h>

#include "report/noise.h"
#include "report/run.h"

#define RPT_MAX_THRESHOLDS 32
#define RPT_MAX_IGNORED 32

struct rpt_threshold {
	const struct rpt_metric *m;
	double pct;   /* largest accepted worsening, percent (>= 0) */
};

struct rpt_compare_opts {
	double confidence;  /* 0 = 0.95 */
	struct rpt_threshold th[RPT_MAX_THRESHOLDS];
	unsigned nth;
	/* settings (or "trace") left out of the comparability check */
	const char *ignore[RPT_MAX_IGNORED];
	unsigned nignore;
};

/* 1 when key can be given to --ignore: a compared setting, "trace" or
 * "interrupted"; the compared settings in keys (list text) for messages. */
int rpt_compare_ignorable(const char *key, char *keys, size_t size);

enum rpt_signif {
	RPT_SIG_UNKNOWN = -1, /* no per-interval values              */
	RPT_SIG_NO = 0,
	RPT_SIG_YES = 1,
};

struct rpt_figure_diff {
	const struct rpt_metric *m;
	double base, new_;       /* headline figures                         */
	double change, rel;      /* new - base, (new - base) / |base|       */
	enum rpt_signif sig;
	double rel_lo, rel_hi;   /* CI of the change relative to the base's
				    interval mean (NaN when unknown)          */
	size_t n_base, n_new;    /* intervals used                           */
	double threshold;        /* percent, NaN when none                   */
	int crossed;             /* worse by more than the threshold          */
	int fails;               /* crossed, and not shown to be noise        */
};

struct rpt_comparison {
	int comparable;
	char why[1024];          /* reasons, "; "-separated                  */
	struct rpt_figure_diff *fig;
	size_t nfig;
	unsigned crossed, fails, noise_only; /* thresholds                   */
};

/* Appends the reasons why a and b are not comparable to why (empty when
 * they are); returns 1 when comparable, 0 when not. */
int rpt_comparable(const struct rpt_run *a, const struct rpt_run *b,
		   const struct rpt_compare_opts *o, char *why, size_t size);

/* Compares; 0 or -ENOMEM.  Release with rpt_comparison_release(). */
int rpt_compare(const struct rpt_run *base, const struct rpt_run *new_,
		const struct rpt_compare_opts *o, struct rpt_comparison *c);
void rpt_comparison_release(struct rpt_comparison *c);

#endif
