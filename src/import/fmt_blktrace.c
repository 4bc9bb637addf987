/* SPDX-License-Identifier: MIT */
/* fmt_blktrace.c - importer for blktrace binary per-CPU files (record format v7 or v8, either byte order). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/imp_blk.h"
#include "import/import.h"

#define BLK_MAGIC 0x65617400u
#define BLK_VERSION 0x07u
#define BLK_VERSION2 0x08u
#define BLK_HDR 48
#define BLK_HDR2 64

/* action = category bits << 16 | action code (blktrace_api.h) */
enum {
	TC_READ = 1 << 0, TC_WRITE = 1 << 1, TC_FLUSH = 1 << 2,
	TC_SYNC = 1 << 3, TC_AHEAD = 1 << 11, TC_META = 1 << 12,
	TC_DISCARD = 1 << 13, TC_FUA = 1 << 15, TC_NOTIFY = 1 << 10,
	TC_PC = 1 << 9,
	/* version 8 records (struct blk_io_trace2, kernels from 2025:
	 * a 64-bit action) have more categories than 16 bits hold */
	TC_ZONE_APPEND = 1 << 16, TC_ZONE_RESET = 1 << 17,
	TC_ZONE_RESET_ALL = 1 << 18, TC_ZONE_FINISH = 1 << 19,
	TC_ZONE_OPEN = 1 << 20, TC_ZONE_CLOSE = 1 << 21,
	TC_WRITE_ZEROES = 1 << 22,
	TC_ZONE_MGMT = TC_ZONE_RESET | TC_ZONE_RESET_ALL | TC_ZONE_FINISH |
		       TC_ZONE_OPEN | TC_ZONE_CLOSE,
};

static const char action_letter[] = {
	[1] = 'Q', [2] = 'M', [3] = 'F', [4] = 'G', [5] = 'S', [6] = 'R',
	[7] = 'D', [8] = 'C', [9] = 'P', [10] = 'U', [11] = 'U', [12] = 'I',
	[13] = 'X', [14] = 'B', [15] = 'A', [16] = 'K', [17] = '?',
	/* zone write plugging's plug and unplug (__BLK_TA_ZONE_PLUG and
	 * _UNPLUG, 2025: blkparse's ZP, ZU): plugs, as P and U */
	[18] = 'P', [19] = 'U',
};

struct blk_file {
	struct imp_stream *s;
	const char *path;
	int owned;
	int swap;          /* big-endian records */
	int have;          /* ev holds the next event */
	int done;
	uint64_t recno;    /* records read */
	uint64_t offset;   /* byte offset of the pending record */
	struct blk_event ev;
	uint32_t devt;
};

struct blktrace_state {
	struct blk_file *f;
	unsigned nf;
	struct imp_blk *m;
	int eof;
	uint32_t devt_cache[8];
	int dev_cache[8];
	unsigned ndc;
	/* counters of every record, added to the import's at the end (a
	 * call a record, imp_stat() looks its name up); registered at
	 * their first use, so that the report lists them in that order */
	uint64_t pdu_bytes, notify_records;
	int pdu_seen, notify_seen;
};

static void count(struct imp_ctx *c, int *seen, uint64_t *ctr,
		  const char *name, uint64_t n)
{
	if (!*seen) {
		*seen = 1;
		imp_stat(c, name, 0);
	}
	*ctr += n;
}

static inline uint32_t rd32(const unsigned char *p, int swap)
{
	if (swap)
		return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t rd64(const unsigned char *p, int swap)
{
	if (swap)
		return (uint64_t)rd32(p, 1) << 32 | rd32(p + 4, 1);
	return rd32(p, 0) | (uint64_t)rd32(p + 4, 0) << 32;
}

static inline uint16_t rd16(const unsigned char *p, int swap)
{
	return swap ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[0] | p[1] << 8);
}

static int blktrace_probe(const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;

	if (len < BLK_HDR)
		return 0;
	if ((rd32(p, 0) & 0xffffff00u) == BLK_MAGIC ||
	    (rd32(p, 1) & 0xffffff00u) == BLK_MAGIC)
		return 100;
	return 0;
}

static int dev_index(struct imp_ctx *c, struct blktrace_state *st,
		     uint32_t devt)
{
	char name[32];
	int n, idx;

	for (unsigned i = 0; i < st->ndc; i++)
		if (st->devt_cache[i] == devt)
			return st->dev_cache[i];
	n = snprintf(name, sizeof(name), "%u,%u", devt >> 20, devt & 0xfffff);
	idx = imp_device(c, name, n);
	if (idx < 0)
		return idx;
	if (st->ndc < 8) {
		st->devt_cache[st->ndc] = devt;
		st->dev_cache[st->ndc++] = idx;
	}
	return idx;
}

/* Reads the next event of file f into f->ev (f->done at the end). */
static int read_event(struct imp_ctx *c, struct blktrace_state *st,
		      struct blk_file *f)
{
	const unsigned char *h, *pdu;
	unsigned char h2[BLK_HDR2];
	uint32_t magic, cat, act, bytes;
	uint64_t action;
	uint16_t pdu_len;
	size_t avail;
	ssize_t n;
	int whole;

	for (;;) {
		/* a v7 record whose PDU is buffered too (all but one per
		 * buffer): taken at once, after the first record's checks */
		whole = 0;
		avail = imp_stream_buffered(f->s, &h);
		if (f->recno && avail >= BLK_HDR &&
		    rd32(h, f->swap) == (BLK_MAGIC | BLK_VERSION)) {
			pdu_len = rd16(h + 46, f->swap);
			if (avail - BLK_HDR >= pdu_len) {
				imp_stream_consume(f->s, BLK_HDR + pdu_len,
						   BLK_HDR + pdu_len);
				f->offset = imp_stream_offset(f->s);
				memset(&f->ev, 0, sizeof(f->ev));
				whole = 1;
				goto v7;
			}
		}
		n = imp_stream_take(f->s, &h, BLK_HDR);
		f->offset = imp_stream_offset(f->s);
		if (n < 0 && *imp_stream_error(f->s)) {
			char where[64];

			snprintf(where, sizeof(where),
				 "compressed byte offset %" PRIu64,
				 imp_stream_error_offset(f->s));
			return imp_fail(c, f->path, where,
					imp_stream_error(f->s), (int)n);
		}
		if (n < 0)
			return imp_fatal(c, imp_bad_at(c, f->path, f->offset, -1,
						       "%s", ist_strerror((int)n)));
		if (n == 0) {
			f->done = 1;
			return 0;
		}
		if (n < BLK_HDR) {
			/* cut off mid-record: the trace simply ends here */
			imp_stat(c, "truncated_records", 1);
			f->done = 1;
			return 0;
		}
		if (f->recno == 0)
			f->swap = (rd32(h, 0) & 0xffffff00u) != BLK_MAGIC;
		magic = rd32(h, f->swap);
		if ((magic & 0xffffff00u) != BLK_MAGIC)
			return imp_fatal(c, imp_bad_at(c, f->path, f->offset,
						       f->recno + 1,
						       "bad magic 0x%08x (not a blktrace record)",
						       magic));
		if ((magic & 0xff) != BLK_VERSION && (magic & 0xff) != BLK_VERSION2)
			return imp_fatal(c, imp_bad_at(c, f->path, f->offset,
						       f->recno + 1,
						       "unsupported blktrace version %u (expected 7 or 8)",
						       magic & 0xff));
		/* the header is read before the PDU moves the stream's buffer */
		memset(&f->ev, 0, sizeof(f->ev));
		if ((magic & 0xff) == BLK_VERSION2) {
			/* 64 bytes: time, sector, bytes, pid, a 64-bit
			 * action, device, cpu, error, pdu_len, padding */
			memcpy(h2, h, BLK_HDR);
			n = imp_stream_take(f->s, &h, BLK_HDR2 - BLK_HDR);
			if (n < 0)
				return imp_fatal(c, imp_bad_at(c, f->path,
							       f->offset, f->recno + 1,
							       "%s", ist_strerror((int)n)));
			if (n < BLK_HDR2 - BLK_HDR) {
				imp_stat(c, "truncated_records", 1);
				f->done = 1;
				return 0;
			}
			memcpy(h2 + BLK_HDR, h, BLK_HDR2 - BLK_HDR);
			bytes = rd32(h2 + 24, f->swap);
			f->ev.pid = rd32(h2 + 28, f->swap);
			action = rd64(h2 + 32, f->swap);
			f->devt = rd32(h2 + 40, f->swap);
			f->ev.error = rd16(h2 + 48, f->swap);
			pdu_len = rd16(h2 + 50, f->swap);
			h = h2;
		} else {
v7:
			bytes = rd32(h + 24, f->swap);
			action = rd32(h + 28, f->swap);
			f->ev.pid = rd32(h + 32, f->swap);
			f->devt = rd32(h + 36, f->swap);
			f->ev.error = rd16(h + 44, f->swap);
			pdu_len = rd16(h + 46, f->swap);
		}
		f->ev.t = (int64_t)(rd64(h + 8, f->swap) & INT64_MAX);
		f->ev.sector = rd64(h + 16, f->swap);
		pdu = NULL;
		if (pdu_len && whole) {
			pdu = h + BLK_HDR;
			count(c, &st->pdu_seen, &st->pdu_bytes, "pdu_bytes",
			      pdu_len);
		} else if (pdu_len) {
			n = imp_stream_take(f->s, &pdu, pdu_len);
			if (n < 0)
				return imp_fatal(c, imp_bad_at(c, f->path,
							       f->offset, f->recno + 1,
							       "%s", ist_strerror((int)n)));
			if (n < pdu_len) {
				imp_stat(c, "truncated_records", 1);
				f->done = 1;
				return 0;
			}
			count(c, &st->pdu_seen, &st->pdu_bytes, "pdu_bytes",
			      pdu_len);
		}
		f->recno++;
		cat = (uint32_t)(action >> 16);
		act = action & 0xff;
		if (cat & TC_NOTIFY) {
			count(c, &st->notify_seen, &st->notify_records,
			      "notify_records", 1);
			continue;
		}
		if (act == 0 || act >= sizeof(action_letter) ||
		    !action_letter[act]) {
			imp_stat(c, "unknown_actions", 1);
			continue;
		}
		f->ev.action = action_letter[act];
		f->ev.nsect = bytes / 512;
		if (f->ev.sector > UINT64_MAX / 512 - f->ev.nsect)
			f->ev.sector = 0;
		if (cat & TC_PC) {
			/* a packet command (SG_IO: smartctl, udev's scsi_id;
			 * a driver's REQ_OP_DRV_IN/OUT): no sector, its CDB
			 * as PDU on older kernels; skipped, counted */
			f->ev.op = -1;
			f->ev.skip = IMP_BLK_PC;
			f->ev.sector = f->ev.nsect = 0;
		} else if (cat & TC_ZONE_MGMT) {
			f->ev.op = -1;
			f->ev.skip = IMP_BLK_ZONE;
		} else if (cat & TC_DISCARD)
			f->ev.op = IST_OP_DISCARD;
		else if (cat & TC_WRITE_ZEROES)
			f->ev.op = IST_OP_WRITE_ZEROES;
		else if (cat & (TC_WRITE | TC_ZONE_APPEND)) {
			/* a zone append: a write of its length, completed
			 * where it was written (imp_blk.h) */
			f->ev.op = IST_OP_WRITE;
			f->ev.append = !!(cat & TC_ZONE_APPEND);
		}
		else if (bytes)
			f->ev.op = IST_OP_READ;
		else if (cat & TC_FLUSH)
			/* the kernel traces every op that is not a write as a
			 * read: a flush request (REQ_OP_FLUSH) is TC_READ |
			 * TC_FLUSH of no bytes, 'FN' in blkparse, which shows
			 * 'R' only for bytes */
			f->ev.op = IST_OP_FLUSH;
		else {
			/* 'N' in blkparse: zone open or finish (even ops of
			 * no data: traced as reads) */
			f->ev.op = -1;
			f->ev.skip = IMP_BLK_NODATA;
		}
		if ((cat & TC_FLUSH) && f->ev.op != IST_OP_FLUSH)
			f->ev.flags |= IST_F_PREFLUSH;
		if (cat & TC_SYNC)
			f->ev.flags |= IST_F_SYNC;
		if (cat & TC_META)
			f->ev.flags |= IST_F_META;
		if (cat & TC_AHEAD)
			f->ev.flags |= IST_F_READAHEAD;
		if (cat & TC_FUA)
			f->ev.flags |= IST_F_FUA;
		imp_blk_classify(&f->ev);
		if (f->ev.action == 'X') {
			/* the split point is a big-endian u64 PDU */
			if (pdu_len >= 8)
				f->ev.sector2 = rd64(pdu, 1);
		}
		if (f->ev.action == 'A' && pdu_len >= 16) {
			/* name the remap by its target as blkparse does:
			 * PDU = be32 device_from, be32 device_to, be64 sector */
			f->devt = rd32(pdu + 4, 1);
		}
		f->have = 1;
		return 0;
	}
}

static int blktrace_open(struct imp_ctx *c, void *priv)
{
	struct blktrace_state *st = priv;
	int ret = imp_blk_open(c, &st->m);

	if (ret)
		return ret;
	st->nf = imp_input_count(c);
	st->f = calloc(st->nf, sizeof(*st->f));
	if (!st->f)
		return -ENOMEM;
	for (unsigned i = 0; i < st->nf; i++) {
		struct blk_file *f = &st->f[i];

		f->path = imp_input_path(c, i);
		if (imp_cur_stream(c) && st->nf == 1) {
			f->s = imp_cur_stream(c);
		} else {
			ret = imp_stream_open(&f->s, f->path);
			if (ret)
				return imp_bad_file(c, f->path, "%s",
						    ist_strerror(ret));
			f->owned = 1;
		}
		ret = read_event(c, st, f);
		if (ret)
			return ret;
	}
	imp_stat(c, "cpu_files", st->nf);
	return 0;
}

static int blktrace_next(struct imp_ctx *c, void *priv, struct ist_record *rec)
{
	struct blktrace_state *st = priv;
	int ret;

	for (;;) {
		struct blk_file *best = NULL;

		if (imp_blk_pop(st->m, rec, st->eof))
			return 1;
		if (st->eof)
			return 0;
		/* merge the per-CPU files by time */
		for (unsigned i = 0; i < st->nf; i++) {
			struct blk_file *f = &st->f[i];

			if (f->have && (!best || f->ev.t < best->ev.t))
				best = f;
		}
		if (!best) {
			st->eof = 1;
			continue;
		}
		if (imp_blk_zero_len(st->m, &best->ev)) {
			/* its record; taken, so that the next call (--skip-bad)
			 * goes on after it */
			uint64_t off = best->offset, recno = best->recno;
			int op = best->ev.op;

			best->have = 0;
			ret = read_event(c, st, best);
			if (ret)
				return ret;
			return imp_bad_at(c, best->path, off, (int64_t)recno,
					  "zero-length %s (only a flush has no length)",
					  ist_op_name(op));
		}
		ret = dev_index(c, st, best->devt);
		if (ret == IST_EPARSE) /* binary: its byte offset, not a line */
			return imp_fatal(c, imp_bad_at(c, best->path, best->offset,
						       best->recno, "more than %u devices",
						       IST_MAX_FOOTER_DEVICES));
		if (ret < 0)
			return imp_fatal(c, ret);
		best->ev.dev = ret;
		ret = imp_blk_event(st->m, &best->ev);
		if (ret)
			return imp_fatal(c, ret);
		best->have = 0;
		ret = read_event(c, st, best);
		if (ret)
			return ret;
	}
}

static void blktrace_close(struct imp_ctx *c, void *priv)
{
	struct blktrace_state *st = priv;

	if (st->pdu_seen)
		imp_stat(c, "pdu_bytes", st->pdu_bytes);
	if (st->notify_seen)
		imp_stat(c, "notify_records", st->notify_records);
	if (st->m)
		imp_blk_report(c, st->m);
	imp_blk_free(st->m);
	for (unsigned i = 0; st->f && i < st->nf; i++)
		if (st->f[i].owned)
			imp_stream_close(st->f[i].s);
	free(st->f);
}

const struct imp_format imp_fmt_blktrace = {
	.name = "blktrace",
	.description = "blktrace binary per-CPU files NAME.blktrace.N (v7 or v8, merged by time; --event Q or D)",
	.time_unit = "ns",
	.time_epoch = "trace",
	.flags = IMP_BINARY | IMP_ALL_INPUTS | IMP_EVENTS,
	.probe = blktrace_probe,
	.priv_size = sizeof(struct blktrace_state),
	.open = blktrace_open,
	.next = blktrace_next,
	.close = blktrace_close,
};
