/* SPDX-License-Identifier: MIT */
/* fmt_misc.c - importers for DiskSim/MQSim ASCII, VMware vscsiStats (binary v1 and CSV) and canonical IST CSV. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/imp_text.h"
#include "import/import.h"

/* Device numbers seen, direct-mapped (MQSim traces alternate devices
 * record by record: naming one takes an snprintf and a hash lookup). */
#define DEV_SLOTS 64

struct dev_cache {
	uint64_t id[DEV_SLOTS];
	int dev[DEV_SLOTS];
	unsigned char valid[DEV_SLOTS];
	int header_checked;
};

/* Device "<prefix><id>" (or --device when given), not in the cache. */
static int __attribute__((noinline))
num_dev_new(struct imp_ctx *c, struct dev_cache *dc, const char *prefix,
	    uint64_t id)
{
	const char *forced = imp_opts(c)->device;
	unsigned slot = (unsigned)(id % DEV_SLOTS);
	char name[64];
	int n, dev;

	if (forced)
		n = snprintf(name, sizeof(name), "%s", forced);
	else
		n = snprintf(name, sizeof(name), "%s%" PRIu64, prefix, id);
	dev = imp_device(c, name, n);
	if (dev >= 0) {
		dc->id[slot] = id;
		dc->dev[slot] = dev;
		dc->valid[slot] = 1;
	}
	return dev;
}

/* Device "<prefix><id>" (or --device when given), cached: the lookup
 * inline, once a record (vscsi's binary records parse in ~25 ns). */
static inline int num_dev(struct imp_ctx *c, struct dev_cache *dc,
			  const char *prefix, uint64_t id)
{
	unsigned slot = (unsigned)(id % DEV_SLOTS);

	if (dc->valid[slot] && dc->id[slot] == id)
		return dc->dev[slot];
	return num_dev_new(c, dc, prefix, id);
}

/* ---------------------------------------------------------------- DiskSim / MQSim */

/*
 * DiskSim's ASCII input: "arrival_ms devno blkno size_blocks flags" with
 * flags bit 0 set for reads; MQSim uses the same columns with the arrival
 * time in integer nanoseconds.
 */
static int ascii_probe(const char *buf, size_t len, int mqsim)
{
	struct imp_fields fl;
	char line[512];
	uint64_t v;
	int n = imp_first_line(buf, len, line, sizeof(line), 0);

	if (n < 0 || imp_split(line, n, ' ', &fl) != 5)
		return 0;
	for (unsigned i = 1; i < 5; i++)
		if (imp_u64(fl.f[i], fl.len[i], &v))
			return 0;
	if (mqsim)
		return imp_u64(fl.f[0], fl.len[0], &v) ? 0 : 55;
	return memchr(fl.f[0], '.', fl.len[0]) &&
			       !imp_fixed(fl.f[0], fl.len[0], 6, &v) ? 55 : 0;
}

static int disksim_probe(const char *buf, size_t len)
{
	return ascii_probe(buf, len, 0);
}

static int mqsim_probe(const char *buf, size_t len)
{
	return ascii_probe(buf, len, 1);
}

static int ascii_next(struct imp_ctx *c, struct dev_cache *dc,
		      struct ist_record *rec, int mqsim)
{
	struct imp_fields fl;
	uint64_t t, devno, blk, size, flags;
	char *line;
	size_t n;
	int ret;

	ret = imp_next_line(c, &line, &n);
	if (ret <= 0)
		return ret;
	if (imp_split(line, n, ' ', &fl) != 5)
		return imp_bad(c, "expected 5 fields (%s device block size flags), got %u",
			       mqsim ? "arrival_ns" : "arrival_ms", fl.n);
	if (mqsim)
		ret = imp_field_u64(c, &fl, 0, "arrival time", &t);
	else
		ret = imp_field_fixed(c, &fl, 0, 6, "arrival time", &t);
	if (ret || (ret = imp_time(c, t, 1, &(int64_t){ 0 })) ||
	    (ret = imp_field_u64(c, &fl, 1, "device number", &devno)) ||
	    (ret = imp_field_u64(c, &fl, 2, "block number", &blk)) ||
	    (ret = imp_scale(c, blk, 512, "block number", &rec->offset)) ||
	    (ret = imp_field_u64(c, &fl, 3, "size", &size)) ||
	    (ret = imp_scale(c, size, 512, "size", &size)) ||
	    (ret = imp_set_len(c, rec, size)) ||
	    (ret = imp_field_u64(c, &fl, 4, "flags", &flags)))
		return ret;
	imp_set_t(rec, (int64_t)t);
	rec->op = (flags & 1) ? IST_OP_READ : IST_OP_WRITE;
	ret = num_dev(c, dc, "dev", devno);
	if (ret < 0)
		return ret;
	rec->dev = ret;
	return 1;
}

static int disksim_next(struct imp_ctx *c, void *priv, struct ist_record *rec)
{
	return ascii_next(c, priv, rec, 0);
}

static int mqsim_next(struct imp_ctx *c, void *priv, struct ist_record *rec)
{
	return ascii_next(c, priv, rec, 1);
}

const struct imp_format imp_fmt_disksim = {
	.name = "disksim",
	.description = "DiskSim ASCII (arrival_ms devno blkno blocks flags; flags&1 = read)",
	.time_unit = "ms",
	.time_epoch = "trace",
	.probe = disksim_probe,
	.priv_size = sizeof(struct dev_cache),
	.next = disksim_next,
	.flags = IMP_DEVICE_NAME,
};

const struct imp_format imp_fmt_mqsim = {
	.name = "mqsim",
	.description = "MQSim ASCII (arrival_ns devno lba sectors type; 1 = read, 0 = write)",
	.time_unit = "ns",
	.time_epoch = "trace",
	.probe = mqsim_probe,
	.priv_size = sizeof(struct dev_cache),
	.next = mqsim_next,
	.flags = IMP_DEVICE_NAME,
};

/* ---------------------------------------------------------------- vscsiStats */

/* SCSI opcode -> op + 1, 0 for an opcode not read. */
static const unsigned char scsi_ops[256] = {
	[0x08] = IST_OP_READ + 1, [0x28] = IST_OP_READ + 1,
	[0xa8] = IST_OP_READ + 1, [0x88] = IST_OP_READ + 1,
	[0x0a] = IST_OP_WRITE + 1, [0x2a] = IST_OP_WRITE + 1,
	[0xaa] = IST_OP_WRITE + 1, [0x8a] = IST_OP_WRITE + 1,
	[0x35] = IST_OP_FLUSH + 1, [0x91] = IST_OP_FLUSH + 1,
	[0x42] = IST_OP_DISCARD + 1,
	[0x41] = IST_OP_WRITE_ZEROES + 1, [0x93] = IST_OP_WRITE_ZEROES + 1,
};

/* SCSI opcode -> op, or -1.  A table, not a switch: the switch became
 * compares and a jump table whose target (read or write, at random in a
 * trace) mispredicted about a record in three, a sixth of the vscsi
 * binary parse (vscsi_next_batch's profile). */
static inline int scsi_op(unsigned cmd)
{
	return cmd < 256 ? (int)scsi_ops[cmd] - 1 : -1;
}

#define VSCSI_REC 32

static inline uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const unsigned char *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static int vscsi_probe(const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t n = len / VSCSI_REC;

	if (n == 0)
		return 0;
	if (n > 16)
		n = 16;
	for (size_t i = 0; i < n; i++, p += VSCSI_REC) {
		unsigned cmd = p[12] | p[13] << 8, ver = p[14] | p[15] << 8;

		if ((ver >> 8) != 1 || scsi_op(cmd) < 0 || le32(p + 4) == 0)
			return 0;
	}
	return 80;
}

struct vscsi_state {
	struct dev_cache dc;
	uint64_t recno;
};

static int vscsi_next(struct imp_ctx *c, void *priv, struct ist_record *rec)
{
	struct vscsi_state *st = priv;
	struct imp_stream *s = imp_cur_stream(c);
	const unsigned char *r;
	unsigned cmd, ver;
	uint64_t lbn, ts;
	ssize_t n;
	int op, dev;

	n = imp_stream_take(s, &r, VSCSI_REC);
	if (n < 0)
		return imp_stream_fail(c, (int)n);
	if (n == 0)
		return 0;
	st->recno++;
	if (n < VSCSI_REC)
		return imp_fatal(c, imp_bad_at(c, imp_cur_path(c),
					       imp_stream_offset(s), st->recno,
					       "truncated record (%zd of %d bytes)",
					       n, VSCSI_REC));
	cmd = r[12] | r[13] << 8;
	ver = r[14] | r[15] << 8;
	lbn = le64(r + 16);
	ts = le64(r + 24);
	if ((ver >> 8) != 1)
		return imp_bad_at(c, imp_cur_path(c), imp_stream_offset(s),
				  st->recno, "unsupported vscsi record version 0x%04x (only v1 is read)",
				  ver);
	op = scsi_op(cmd);
	if (op < 0)
		return imp_bad_at(c, imp_cur_path(c), imp_stream_offset(s),
				  st->recno, "unknown SCSI opcode 0x%02x", cmd);
	if (lbn > UINT64_MAX / 512 || ts > (uint64_t)INT64_MAX / 1000)
		return imp_bad_at(c, imp_cur_path(c), imp_stream_offset(s),
				  st->recno, "block number or timestamp out of range");
	rec->op = op;
	rec->len = le32(r + 4);
	rec->offset = lbn * 512;
	imp_set_t(rec, (int64_t)ts * 1000);
	dev = num_dev(c, &st->dc, "vscsi", 0);
	if (dev < 0)
		return dev;
	rec->dev = dev;
	return 1;
}

/* Many records at once straight from the stream's buffer, into the sort
 * window: no call, copy or stream bookkeeping per record.  Anything
 * unusual (a bad field, the first record's device, the buffer's end)
 * is left to vscsi_next(). */
static size_t vscsi_next_batch(struct imp_ctx *c, void *priv,
			       struct ist_record *recs, size_t n)
{
	struct vscsi_state *st = priv;
	struct imp_stream *s = imp_cur_stream(c);
	const unsigned char *r;
	size_t k, avail = imp_stream_buffered(s, &r) / VSCSI_REC;
	int dev;

	if (n > avail)
		n = avail;
	if (!n || !st->dc.valid[0] || st->dc.id[0] != 0)
		return 0;
	dev = st->dc.dev[0];
	for (k = 0; k < n; k++, r += VSCSI_REC) {
		unsigned cmd = r[12] | r[13] << 8, ver = r[14] | r[15] << 8;
		uint64_t lbn = le64(r + 16), ts = le64(r + 24);
		int op = scsi_op(cmd);
		struct ist_record *rec = &recs[k];

		if ((ver >> 8) != 1 || op < 0 || lbn > UINT64_MAX / 512 ||
		    ts > (uint64_t)INT64_MAX / 1000)
			break;
		*rec = (struct ist_record){
			.t_ns = ts * 1000,
			.offset = lbn * 512,
			.len = le32(r + 4),
			.dev = (uint32_t)dev,
			.op = (uint8_t)op,
		};
		if (!imp_rec_plain(rec))
			break;
	}
	imp_stream_consume(s, k * VSCSI_REC, VSCSI_REC);
	st->recno += k;
	return k;
}

const struct imp_format imp_fmt_vscsi = {
	.name = "vscsi",
	.description = "VMware vscsiStats binary trace v1 (32-byte records, us timestamps)",
	.time_unit = "us",
	.time_epoch = "trace",
	.flags = IMP_BINARY | IMP_DEVICE_NAME,
	.probe = vscsi_probe,
	.priv_size = sizeof(struct vscsi_state),
	.next = vscsi_next,
	.next_batch = vscsi_next_batch,
};

static int vscsi_csv_probe(const char *buf, size_t len)
{
	struct imp_fields fl;
	char line[128];
	uint64_t v;
	int n = imp_first_line(buf, len, line, sizeof(line), 0);

	if (n < 0)
		return 0;
	if (!strcmp(line, "version,time,op,size,lbn"))
		return 95;
	/* headerless: "1,time,hex opcode,size,lbn" */
	if (imp_split(line, n, ',', &fl) == 5 && fl.len[0] == 1 &&
	    fl.f[0][0] == '1' && !imp_u64(fl.f[1], fl.len[1], &v) &&
	    !imp_hex(fl.f[2], fl.len[2], &v) && v <= 0xff && scsi_op(v) >= 0 &&
	    !imp_u64(fl.f[3], fl.len[3], &v) && !imp_u64(fl.f[4], fl.len[4], &v))
		return 60;
	return 0;
}

static int vscsi_csv_next(struct imp_ctx *c, void *priv, struct ist_record *rec)
{
	struct dev_cache *dc = priv;
	struct imp_fields fl;
	uint64_t ver, ts, cmd, size, lbn;
	char *line, q[32];
	size_t n;
	int ret, op;

	for (;;) {
		ret = imp_next_line(c, &line, &n);
		if (ret <= 0)
			return ret;
		imp_split(line, n, ',', &fl);
		if (!dc->header_checked) {
			dc->header_checked = 1;
			if (fl.n && imp_word_eq(fl.f[0], fl.len[0], "version"))
				continue;
		}
		break;
	}
	if (fl.n != 5)
		return imp_bad(c, "expected 5 comma-separated fields (version,time,op,size,lbn), got %u",
			       fl.n);
	if ((ret = imp_field_u64(c, &fl, 0, "version", &ver)) ||
	    (ret = imp_field_u64(c, &fl, 1, "time", &ts)) ||
	    (ret = imp_time(c, ts, 1000000000, &(int64_t){ 0 })) ||
	    (ret = imp_field_u64(c, &fl, 3, "size", &size)) ||
	    (ret = imp_set_len(c, rec, size)) ||
	    (ret = imp_field_u64(c, &fl, 4, "lbn", &lbn)) ||
	    (ret = imp_scale(c, lbn, 512, "lbn", &rec->offset)))
		return ret;
	if (ver != 1)
		return imp_bad(c, "unsupported vscsi version %" PRIu64, ver);
	if (imp_hex(fl.f[2], fl.len[2], &cmd) || cmd > 0xff ||
	    (op = scsi_op(cmd)) < 0)
		return imp_bad(c, "unknown SCSI opcode '%s'",
			       imp_quote(fl.f[2], fl.len[2], q, sizeof(q)));
	rec->op = op;
	imp_set_t(rec, (int64_t)ts * 1000000000);
	ret = num_dev(c, dc, "vscsi", 0);
	if (ret < 0)
		return ret;
	rec->dev = ret;
	return 1;
}

const struct imp_format imp_fmt_vscsi_csv = {
	.name = "vscsi-csv",
	.description = "vscsiStats trace as CSV (version,time_s,op_hex,size,lbn)",
	.time_unit = "s",
	.time_epoch = "trace",
	.probe = vscsi_csv_probe,
	.priv_size = sizeof(struct dev_cache),
	.next = vscsi_csv_next,
	.flags = IMP_DEVICE_NAME,
};

/* ---------------------------------------------------------------- canonical CSV */

/*
 * The file iostorm cat, convert and export -f csv write: its '# meta:' and
 * '# device:' lines, then the header row, then records.  Lines are taken
 * by the canonical CSV reader's own parsers (ist_csv_preamble_line(),
 * ist_csv_record_line()), so that import reads these files as convert
 * does: the devices with their names, sizes and block sizes, and the
 * metadata (IMP_KEEP_META: the import's own keys only fill what it lacks).
 */
struct istcsv_state {
	int begun;           /* the header row was read */
	ist_header *h;       /* this file's table and metadata */
	int *map;            /* this file's device index -> the output's */
	unsigned nmap, cap;
};

/* Its lines up to the header row: '#' lines only (a preamble longer
 * than buf still counts if it has a '# meta:' or '# device:' line). */
static int istcsv_probe(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int ours = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n && p[n - 1] == '\r')
			n--;
		if (n == strlen(IST_CSV_HEADER) && !memcmp(p, IST_CSV_HEADER, n))
			return 100;
		if (!imp_blank(p, n) && p[0] != '#')
			return 0;
		if ((n >= 8 && !memcmp(p, "# meta: ", 8)) ||
		    (n >= 10 && !memcmp(p, "# device: ", 10)))
			ours = 1;
		if (!nl)
			break;
		p = nl + 1;
	}
	return ours && len >= (60u << 10) ? 90 : 0;
}

static int istcsv_open(struct imp_ctx *c, void *priv)
{
	struct istcsv_state *st = priv;

	(void)c;
	st->h = ist_header_new();
	return st->h ? 0 : -ENOMEM;
}

static void istcsv_close(struct imp_ctx *c, void *priv)
{
	struct istcsv_state *st = priv;

	(void)c;
	ist_header_free(st->h);
	free(st->map);
}

/* The output's index of this file's device i: its table's device (by name,
 * with its size and block size), or "devI" past the table. */
static int istcsv_dev(struct imp_ctx *c, struct istcsv_state *st, uint32_t i)
{
	while (st->nmap <= i) {
		const struct ist_device *d = ist_header_device(st->h, st->nmap);
		char name[32];
		int idx;

		if (st->nmap == st->cap) {
			unsigned cap = st->cap ? st->cap * 2 : 16;
			int *m = realloc(st->map, cap * sizeof(*m));

			if (!m)
				return -ENOMEM;
			st->map = m;
			st->cap = cap;
		}
		if (d) {
			const struct ist_device *o;

			idx = imp_device(c, d->name, strlen(d->name));
			if (idx < 0)
				return idx;
			/* a device of an earlier input keeps what it had */
			o = ist_header_device(imp_header(c), (unsigned)idx);
			if (!o->size && d->size)
				ist_header_set_device_size(imp_header(c),
							   (unsigned)idx, d->size);
			if (!o->block_size && d->block_size)
				ist_header_set_device_block_size(imp_header(c),
					(unsigned)idx, d->block_size);
		} else {
			int k = snprintf(name, sizeof(name), "dev%u", st->nmap);

			idx = imp_device(c, name, (size_t)k);
			if (idx < 0)
				return idx;
		}
		st->map[st->nmap++] = idx;
	}
	return st->map[i];
}

/* The header row was read: this file's table and metadata (the first
 * input's value of a key wins). */
static int istcsv_begin(struct imp_ctx *c, struct istcsv_state *st)
{
	int ret;

	for (unsigned i = 0; i < ist_header_meta_count(st->h); i++) {
		const char *k, *v;

		ist_header_meta_at(st->h, i, &k, &v);
		if (ist_header_get(imp_header(c), k))
			continue;
		ret = imp_meta(c, k, v);
		if (ret)
			return ret;
	}
	/* every device of the table, also those no record uses */
	if (ist_header_device_count(st->h)) {
		ret = istcsv_dev(c, st, ist_header_device_count(st->h) - 1);
		if (ret < 0)
			return imp_fatal(c, ret);
	}
	st->begun = 1;
	return 0;
}

static int istcsv_next(struct imp_ctx *c, void *priv, struct ist_record *rec)
{
	struct istcsv_state *st = priv;
	char *line, why[160];
	size_t n;
	int ret;

	for (;;) {
		ret = imp_next_line(c, &line, &n);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			if (!st->begun) {
				/* the preamble is the file's, not a record's:
				 * past a bad line the table would be wrong */
				imp_bad(c, "no header row '%s'", IST_CSV_HEADER);
				return imp_fatal(c, IST_EPARSE);
			}
			return 0;
		}
		/* as convert's reader: the line parsers read C strings */
		if (memchr(line, '\0', n)) {
			if (st->begun)
				return imp_bad(c, "NUL byte in line");
			imp_bad(c, "NUL byte in line");
			return imp_fatal(c, IST_EPARSE);
		}
		if (!st->begun) {
			ret = ist_csv_preamble_line(st->h, line, n, why,
						    sizeof(why));
			if (ret < 0) {
				if (ret != IST_EPARSE)
					return imp_fatal(c, ret);
				imp_bad(c, "%s", why);
				return imp_fatal(c, IST_EPARSE);
			}
			if (ret == 1) {
				ret = istcsv_begin(c, st);
				if (ret)
					return ret;
			}
			continue;
		}
		if (line[0] != '#')
			break;
	}
	ret = ist_csv_record_line(line, n, rec, why, sizeof(why));
	if (ret)
		return imp_bad(c, "bad canonical CSV record (%s)", why);
	if ((int64_t)rec->t_ns < 0)
		return imp_bad(c, "t_ns out of range");
	if (rec->dev > 65535)
		return imp_bad(c, "device index %u out of range", rec->dev);
	ret = istcsv_dev(c, st, rec->dev);
	if (ret < 0)
		return ret;
	rec->dev = (uint32_t)ret;
	return 1;
}

const struct imp_format imp_fmt_ist_csv = {
	.name = "ist-csv",
	.description = "iostorm canonical CSV (" IST_CSV_HEADER "); times kept",
	.time_unit = "ns",
	.time_epoch = "trace",
	.flags = IMP_KEEP_TIME | IMP_KEEP_META,
	.probe = istcsv_probe,
	.priv_size = sizeof(struct istcsv_state),
	.open = istcsv_open,
	.next = istcsv_next,
	.close = istcsv_close,
};
