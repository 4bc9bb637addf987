/* SPDX-License-Identifier: MIT */
/* imp_sort.h - time-sorting records with bounded memory (window + external merge). */
#ifndef IST_IMP_SORT_H
#define IST_IMP_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "iostorm.h"

/*
 * Records enter in source order with t_ns holding a signed absolute time
 * and leave sorted by time (stable for equal times, except between spilled
 * runs) into a sink, the output.
 *
 * Up to `window` records are kept in memory.  When the window fills, the
 * sink is opened (with the smallest time seen so far as the shift that
 * makes the trace start at 0) and the older half of the sorted window is
 * written to it directly.  Only when a record arrives that is earlier than
 * what was already written (out-of-order data exceeding the window), or
 * when the sink cannot take more (it returns IMP_SINK_REOPEN, e.g. because
 * a new device appeared after its header was written), does the sorter
 * fall back: the output so far becomes run 0 (sink->demote), later
 * records go to sorted runs in temporary IST files in a private directory
 * under tmpdir, and at the end the runs are merged (k-way, in passes of at
 * most 64) into a newly opened sink.
 */
struct imp_sorter;

#define IMP_SINK_REOPEN 1

struct imp_sink {
	void *ctx;
	/* Opens the output, whose records are to have shift subtracted
	 * from their times.  0 or a negative error. */
	int (*open)(void *ctx, int64_t shift);
	/* Writes sorted records, in absolute time: the sink subtracts the
	 * shift of its open (ist_writer_write_shifted()).  0, a negative
	 * error, or IMP_SINK_REOPEN (nothing written; the sorter falls
	 * back). */
	int (*write)(void *ctx, const struct ist_record *recs, size_t n);
	/* Closes the output as a complete IST file that the sorter may read
	 * back and delete, and gives its path; 0 or a negative error. */
	int (*demote)(void *ctx, char *path, size_t size);
};

int imp_sorter_new(struct imp_sorter **s, size_t window, const char *tmpdir,
		   int absolute_time, const struct imp_sink *sink);
/* Adds one record; 0 or a negative error. */
int imp_sorter_add(struct imp_sorter *s, const struct ist_record *rec);
/*
 * The same in two steps, without the copy: imp_sorter_slot() gives the
 * place of the next record (valid until the next call on s), which the
 * caller fills and adds with imp_sorter_commit() (or leaves: the next
 * slot() gives the same place again).  An importer's record goes
 * straight into the window this way: a record built field by field on
 * the stack and then copied as a whole stalls on every record (the
 * copy's wide loads cannot be forwarded from the narrow stores).
 */
struct ist_record *imp_sorter_slot(struct imp_sorter *s);
int imp_sorter_commit(struct imp_sorter *s);
/* Likewise for many: *room (at least 1) contiguous places, of which the
 * first k filled are added by imp_sorter_commit_n(s, k), 1 <= k <= room. */
struct ist_record *imp_sorter_slots(struct imp_sorter *s, size_t *room);
int imp_sorter_commit_n(struct imp_sorter *s, size_t k);
/* Writes what is left (merging runs if any).  Call once, after the last
 * add; the sink is open afterwards (also for an empty input). */
int imp_sorter_finish(struct imp_sorter *s);
/* Removes the temporary runs and frees s. */
void imp_sorter_free(struct imp_sorter *s);

uint64_t imp_sorter_count(const struct imp_sorter *s);
/* Smallest time added (0 when empty). */
int64_t imp_sorter_min_t(const struct imp_sorter *s);
/* Records that came earlier than a predecessor. */
uint64_t imp_sorter_reordered(const struct imp_sorter *s);
/* Runs spilled to disk (the demoted output counts as one). */
uint64_t imp_sorter_runs(const struct imp_sorter *s);

#endif
