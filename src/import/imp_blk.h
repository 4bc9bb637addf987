/* SPDX-License-Identifier: MIT */
/* imp_blk.h - block-layer event matching shared by the blkparse and blktrace importers. */
#ifndef IST_IMP_BLK_H
#define IST_IMP_BLK_H

#include <stdint.h>

#include "iostorm.h"

/* One block-layer event, whatever the source (text or binary). */
struct blk_event {
	int64_t t;          /* ns */
	uint32_t dev;       /* device index in the output */
	char action;        /* blkparse letter: Q M F G S I D C R A X ... */
	int op;             /* IST_OP_*, or -1 for none (see skip) */
	char skip;          /* why op is -1: IMP_BLK_NODATA, _ZONE, _PC */
	unsigned flags;     /* IST_F_* */
	uint64_t sector;
	uint64_t nsect;     /* length in 512-byte sectors */
	uint64_t sector2;   /* X: where the bio was split */
	uint32_t pid;
	int error;          /* C: completion error */
	char append;        /* a zone append ('ZA', BLK_TC_ZONE_APPEND) */
};

/*
 * The matcher turns events into records: with mode 'Q' a record per
 * queued bio, with mode 'D' one per request issued to the driver; the
 * completion (C) covering it gives its latency.  Merged and split bios are
 * followed (a completion covers every bio of its request), requeued
 * requests are issued again, and records whose completion never comes
 * (trace cut off) are released without latency after `timeout_ns` or at
 * the end.  Records come out in issue order.  Operations that move no
 * data a replay could repeat and are not flushes make no record: their
 * events are left out (a completion of one is matched to nothing) and the
 * event of the mode is counted by kind (skip):
 *  - IMP_BLK_NODATA: an op without data iostorm has no name for ('N':
 *    what the kernel names no further, a write-zeroes on older kernels);
 *  - IMP_BLK_ZONE: zone reset, reset-all, open, close, finish ('ZR',
 *    'ZRA', 'ZO', 'ZC', 'ZF'; before kernels named them, a write of no
 *    bytes without a preflush: reset, reset-all, close, and 'N': open,
 *    finish); a zone append ('ZA') is a write of its length, issued at
 *    the zone's start and completed where the device wrote it (the
 *    driver sets the request's sector from the drive's answer before the
 *    completion is traced): its completion goes to the oldest append of
 *    that length pending in the zone (the pending appends' start nearest
 *    below the completion's sector), else to the zone's oldest, never to
 *    another I/O at the sector it was written to;
 *  - IMP_BLK_PC: a packet command (blktrace's BLK_TC_PC: SG_IO
 *    passthrough of smartctl, udev, sg_*; driver-private REQ_OP_DRV_IN/OUT)
 *    has no sector; counted at its issue (D: it is never queued as a bio,
 *    so it has no Q), whatever the mode.
 */
struct imp_blk;

enum { IMP_BLK_NODATA = 'N', IMP_BLK_ZONE = 'Z', IMP_BLK_PC = 'P' };

struct imp_blk_counts {
	uint64_t queued, issued, completed, merges, splits, remaps, requeues;
	uint64_t unmatched_completions; /* C without a pending issue       */
	uint64_t incomplete;            /* records released without a C     */
	uint64_t reissued;              /* issue while one of its sector pending */
	uint64_t errors;                /* completions with an error        */
	uint64_t no_data;               /* 'N' ops (no data, no flush) skipped */
	uint64_t zone_mgmt;             /* zone management ops skipped      */
	uint64_t packet_commands;       /* packet commands issued, skipped  */
	uint64_t ignored;               /* other events                     */
};

int imp_blk_new(struct imp_blk **m, char mode, int64_t timeout_ns);
struct imp_ctx;
/* The blkparse and blktrace importers' matcher: the mode --event chose
 * (D by default), a 30 s timeout, the mode kept in the metadata
 * (blktrace_event); 0 or an error. */
int imp_blk_open(struct imp_ctx *c, struct imp_blk **m);
void imp_blk_free(struct imp_blk *m);
/* Feeds one event (in time order); 0 or -ENOMEM. */
int imp_blk_event(struct imp_blk *m, const struct blk_event *e);
/* Marks an event of a write of no bytes without a preflush as zone
 * management (op -1, IMP_BLK_ZONE): the kernel has no other such write
 * (an empty write with a preflush is a flush), and traces zone reset,
 * reset-all and close so where its RWBS has no letters for them.  The
 * importers call it on every event once op, flags and nsect are set. */
void imp_blk_classify(struct blk_event *e);
/* Would e become a record (its action is the mode's) of a read or discard
 * of no sectors?  Those move no data and the kernel makes none (only a
 * flush has no length): the importers refuse them as bad records at e's
 * position, as every other importer does. */
int imp_blk_zero_len(const struct imp_blk *m, const struct blk_event *e);
/* Next record ready in issue order: 1, or 0 if none is ready yet (at_end:
 * release everything still pending). */
int imp_blk_pop(struct imp_blk *m, struct ist_record *rec, int at_end);
const struct imp_blk_counts *imp_blk_counts(const struct imp_blk *m);

/* Parses a blkparse or kernel RWBS string ("WS", "FWFS", "RA", "N", "D",
 * "DE", "WZ", "ZA", "ZR", "ZRA", "ZO", "ZC", "ZF", "WSU") into op (-1 for
 * none, *skip then says why: IMP_BLK_NODATA or IMP_BLK_ZONE; 0 otherwise)
 * and flags; 0 or -1. */
int imp_blk_rwbs(const char *s, size_t len, int *op, unsigned *flags, char *skip);

/* Adds the matcher's counters to the import's statistics. */
struct imp_ctx;
void imp_blk_report(struct imp_ctx *c, const struct imp_blk *m);

#endif
