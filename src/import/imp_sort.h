/* SPDX-License-Identifier: MIT */
/* imp_sort.h - time-sorting records with bounded memory (window + external merge). */
#ifndef IST_IMP_SORT_H
#define IST_IMP_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "iostorm.h"

/*
 * Records enter in source order with t_ns holding a signed absolute time
 * and leave sorted by time (stable for equal times within the window).
 * Up to `window` records are kept in memory; a sorted window is released
 * half at a time into a sorted run.  A run is written to a temporary IST
 * file (in a private directory under tmpdir) only when the input does not
 * fit in memory; a record that arrives later than records already spilled
 * starts a new run, and the runs are merged (k-way, in passes of at most
 * 64 runs) at the end.
 */
struct imp_sorter;

/* Called with sorted batches; returns 0 or a negative error. */
typedef int (*imp_batch_fn)(void *ctx, const struct ist_record *recs,
			    size_t n);

int imp_sorter_new(struct imp_sorter **s, size_t window, const char *tmpdir);
/* Adds one record; 0 or a negative error (I/O on a run). */
int imp_sorter_add(struct imp_sorter *s, const struct ist_record *rec);
/* Delivers every record in time order, with shift subtracted from t_ns,
 * to fn.  Call once, after the last add. */
int imp_sorter_finish(struct imp_sorter *s, int64_t shift, imp_batch_fn fn,
		      void *ctx);
/* Removes the temporary runs and frees s. */
void imp_sorter_free(struct imp_sorter *s);

uint64_t imp_sorter_count(const struct imp_sorter *s);
/* Smallest time added (0 when empty). */
int64_t imp_sorter_min_t(const struct imp_sorter *s);
/* Records that came earlier than a predecessor. */
uint64_t imp_sorter_reordered(const struct imp_sorter *s);
/* Runs spilled to disk so far. */
uint64_t imp_sorter_runs(const struct imp_sorter *s);

#endif
