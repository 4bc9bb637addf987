/* SPDX-License-Identifier: MIT */
/* fmt_snia.c - importers for the SNIA IOTTA CSV traces: MSR Cambridge, SYSTOR'17, UMass/SPC, Alibaba, Tencent CBS. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "import/imp_text.h"
#include "import/import.h"

/* Windows FILETIME (100 ns since 1601) of the Unix epoch. */
#define FILETIME_UNIX 116444736000000000ull

/* A direct-mapped cache of device names of up to 24 bytes (Tencent's
 * samples interleave thousands of volumes: the generic lookup hashes and
 * compares through the header each time). */
#define DEV_CACHE_BITS 12
#define DEV_CACHE_WORDS 3

struct dev_cache_ent {
	uint64_t w[DEV_CACHE_WORDS];
	uint32_t len;            /* 0: empty */
	int32_t dev;
};

struct snia_state {
	int header_checked;
	struct dev_cache_ent cache[1u << DEV_CACHE_BITS];
};

/* Device index for a name built from parts. */
static int snia_dev(struct imp_ctx *c, struct snia_state *st, const char *name,
		    size_t len)
{
	uint64_t w[DEV_CACHE_WORDS] = { 0 };
	struct dev_cache_ent *e;
	uint64_t h;
	int dev;

	if (len == 0 || len > sizeof(w))
		return imp_device(c, name, len);
	memcpy(w, name, len);
	h = (w[0] * 0x9e3779b97f4a7c15ull) ^ (w[1] * 0xc2b2ae3d27d4eb4full) ^
	    (w[2] * 0x165667b19e3779f9ull) ^ len;
	h ^= h >> 29;
	e = &st->cache[(h * 0x9e3779b97f4a7c15ull) >> (64 - DEV_CACHE_BITS)];
	if (e->len == len && e->w[0] == w[0] && e->w[1] == w[1] &&
	    e->w[2] == w[2])
		return e->dev;
	dev = imp_device(c, name, len);
	if (dev >= 0) {
		memcpy(e->w, w, sizeof(w));
		e->len = (uint32_t)len;
		e->dev = dev;
	}
	return dev;
}

static int prefixed_dev(struct imp_ctx *c, struct snia_state *st,
			const char *prefix, const char *id, size_t len)
{
	size_t pl = strlen(prefix);
	char name[96];

	if (len == 0)
		return imp_bad(c, "empty device field");
	if (pl + len >= sizeof(name))
		return imp_bad(c, "device name too long");
	memcpy(name, prefix, pl);
	memcpy(name + pl, id, len);
	return snia_dev(c, st, name, pl + len);
}

static int want_fields(struct imp_ctx *c, const struct imp_fields *fl,
		       unsigned min, unsigned max, const char *what)
{
	if (fl->n < min || fl->n > max) {
		if (min == max)
			return imp_bad(c, "expected %u comma-separated fields (%s), got %u",
				       min, what, fl->n);
		return imp_bad(c, "expected %u to %u comma-separated fields (%s), got %u",
			       min, max, what, fl->n);
	}
	return 0;
}

static int op_rw(struct imp_ctx *c, const struct imp_fields *fl, unsigned i,
		 struct ist_record *rec)
{
	char q[32];

	if (imp_word_eq(fl->f[i], fl->len[i], "read") ||
	    imp_word_eq(fl->f[i], fl->len[i], "r") ||
	    imp_word_eq(fl->f[i], fl->len[i], "rs"))
		rec->op = IST_OP_READ;
	else if (imp_word_eq(fl->f[i], fl->len[i], "write") ||
		 imp_word_eq(fl->f[i], fl->len[i], "w") ||
		 imp_word_eq(fl->f[i], fl->len[i], "ws"))
		rec->op = IST_OP_WRITE;
	else
		return imp_bad(c, "bad I/O type '%s' (expected R or W)",
			       imp_quote(fl->f[i], fl->len[i], q, sizeof(q)));
	return 0;
}

/* A header row is a first line whose first field is not a number. */
static int is_header(const struct imp_fields *fl)
{
	return fl->n && fl->len[0] && !(fl->f[0][0] >= '0' && fl->f[0][0] <= '9');
}

static int next_fields(struct imp_ctx *c, struct snia_state *st,
		       struct imp_fields *fl, char delim)
{
	char *line;
	size_t len;
	int ret;

	for (;;) {
		ret = imp_next_line(c, &line, &len);
		if (ret <= 0)
			return ret;
		imp_split(line, len, delim, fl);
		if (!st->header_checked) {
			st->header_checked = 1;
			if (is_header(fl))
				continue;
		}
		return 1;
	}
}

/* ---------------------------------------------------------------- probes */

static int probe_split(const char *buf, size_t len, unsigned skip, char delim,
		       char *line, size_t size, struct imp_fields *fl)
{
	int n = imp_first_line(buf, len, line, size, skip);

	if (n < 0)
		return -1;
	imp_split(line, n, delim, fl);
	return 0;
}

static int is_num(const struct imp_fields *fl, unsigned i)
{
	uint64_t v;

	return i < fl->n && !imp_u64(fl->f[i], fl->len[i], &v);
}

static int is_dec(const struct imp_fields *fl, unsigned i)
{
	uint64_t v;

	return i < fl->n && !imp_fixed(fl->f[i], fl->len[i], 9, &v);
}

static int is_rw(const struct imp_fields *fl, unsigned i)
{
	return i < fl->n && (imp_word_eq(fl->f[i], fl->len[i], "r") ||
			     imp_word_eq(fl->f[i], fl->len[i], "w") ||
			     imp_word_eq(fl->f[i], fl->len[i], "read") ||
			     imp_word_eq(fl->f[i], fl->len[i], "write"));
}

/* ---------------------------------------------------------------- MSR */

static int msr_probe(const char *buf, size_t len)
{
	struct imp_fields fl;
	char line[512];
	uint64_t ts;

	if (probe_split(buf, len, 0, ',', line, sizeof(line), &fl) ||
	    fl.n != 7)
		return 0;
	if (imp_u64(fl.f[0], fl.len[0], &ts) || ts < 100000000000000000ull ||
	    !is_num(&fl, 2) || !is_rw(&fl, 3) || !is_num(&fl, 4) ||
	    !is_num(&fl, 5) || !is_num(&fl, 6))
		return 0;
	return 90;
}

static int msr_open(struct imp_ctx *c, void *priv)
{
	(void)priv;
	return imp_meta(c, "device_naming", "hostname_disknumber");
}

static int msr_next(struct imp_ctx *c, void *priv, struct ist_record *rec)
{
	struct snia_state *st = priv;
	struct imp_fields fl;
	uint64_t ts, off, size, rt;
	char name[160];
	size_t n;
	int ret;

	ret = next_fields(c, st, &fl, ',');
	if (ret <= 0)
		return ret;
	if ((ret = want_fields(c, &fl, 7, 7,
			       "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime")) ||
	    (ret = imp_field_u64(c, &fl, 0, "timestamp", &ts)) ||
	    (ret = op_rw(c, &fl, 3, rec)) ||
	    (ret = imp_field_u64(c, &fl, 4, "offset", &off)) ||
	    (ret = imp_field_u64(c, &fl, 5, "size", &size)) ||
	    (ret = imp_field_u64(c, &fl, 6, "response time", &rt)))
		return ret;
	if (!is_num(&fl, 2)) {
		char q[32];

		return imp_bad(c, "bad disk number '%s'",
			       imp_quote(fl.f[2], fl.len[2], q, sizeof(q)));
	}
	if (ts < FILETIME_UNIX)
		return imp_bad(c, "timestamp %" PRIu64 " before 1970 (expected Windows FILETIME)", ts);
	if ((ret = imp_time(c, ts - FILETIME_UNIX, 100, &(int64_t){ 0 })))
		return ret;
	imp_set_t(rec, (int64_t)(ts - FILETIME_UNIX) * 100);
	if ((ret = imp_scale(c, rt, 100, "response time", &rec->lat_ns)))
		return ret;
	/* HOST_DISK */
	n = fl.len[1] + 1 + fl.len[2];
	if (fl.len[1] == 0 || n >= sizeof(name))
		return imp_bad(c, "bad hostname");
	memcpy(name, fl.f[1], fl.len[1]);
	name[fl.len[1]] = '_';
	memcpy(name + fl.len[1] + 1, fl.f[2], fl.len[2]);
	ret = snia_dev(c, st, name, n);
	if (ret < 0)
		return ret;
	rec->dev = ret;
	rec->offset = off;
	if ((ret = imp_set_len(c, rec, size)))
		return ret;
	return 1;
}

const struct imp_format imp_fmt_msr = {
	.name = "msr",
	.description = "SNIA MSR Cambridge CSV (FILETIME,host,disk,Read|Write,offset,size,response)",
	.time_unit = "100ns",
	.time_epoch = "unix",
	.probe = msr_probe,
	.priv_size = sizeof(struct snia_state),
	.open = msr_open,
	.next = msr_next,
};

/* ---------------------------------------------------------------- SYSTOR'17 */

static int systor_probe(const char *buf, size_t len)
{
	struct imp_fields fl;
	char line[512];

	if (probe_split(buf, len, 0, ',', line, sizeof(line), &fl))
		return 0;
	if (fl.n == 6 && imp_word_eq(fl.f[0], fl.len[0], "timestamp") &&
	    imp_word_eq(fl.f[1], fl.len[1], "response") &&
	    imp_word_eq(fl.f[2], fl.len[2], "iotype"))
		return 95;
	if (fl.n == 6 && memchr(fl.f[0], '.', fl.len[0]) && is_dec(&fl, 0) &&
	    is_dec(&fl, 1) && is_rw(&fl, 2) && is_num(&fl, 4) && is_num(&fl, 5))
		return 60;
	return 0;
}

static int systor_next(struct imp_ctx *c, void *priv, struct ist_record *rec)
{
	struct snia_state *st = priv;
	struct imp_fields fl;
	uint64_t ts, resp, size;
	int ret;

	ret = next_fields(c, st, &fl, ',');
	if (ret <= 0)
		return ret;
	if ((ret = want_fields(c, &fl, 6, 6,
			       "Timestamp,Response,IOType,LUN,Offset,Size")) ||
	    (ret = imp_field_fixed(c, &fl, 0, 9, "timestamp", &ts)) ||
	    (ret = imp_field_fixed(c, &fl, 1, 9, "response time", &resp)) ||
	    (ret = op_rw(c, &fl, 2, rec)) ||
	    (ret = imp_field_u64(c, &fl, 4, "offset", &rec->offset)) ||
	    (ret = imp_field_u64(c, &fl, 5, "size", &size)) ||
	    (ret = imp_set_len(c, rec, size)) ||
	    (ret = imp_time(c, ts, 1, &(int64_t){ 0 })))
		return ret;
	imp_set_t(rec, (int64_t)ts);
	rec->lat_ns = resp;
	ret = prefixed_dev(c, st, "lun", fl.f[3], fl.len[3]);
	if (ret < 0)
		return ret;
	rec->dev = ret;
	return 1;
}

const struct imp_format imp_fmt_systor = {
	.name = "systor",
	.description = "SNIA SYSTOR'17 CSV (Timestamp,Response,IOType,LUN,Offset,Size)",
	.time_unit = "s",
	.time_epoch = "unix",
	.probe = systor_probe,
	.priv_size = sizeof(struct snia_state),
	.next = systor_next,
};

/* ---------------------------------------------------------------- UMass / SPC */

static int spc_probe(const char *buf, size_t len)
{
	struct imp_fields fl;
	char line[512];

	if (probe_split(buf, len, 0, ',', line, sizeof(line), &fl))
		return 0;
	if (fl.n >= 5 && fl.n <= 8 && is_num(&fl, 0) && is_num(&fl, 1) &&
	    is_num(&fl, 2) && fl.len[3] == 1 && is_rw(&fl, 3) && is_dec(&fl, 4))
		return 60;
	return 0;
}

static int spc_next(struct imp_ctx *c, void *priv, struct ist_record *rec)
{
	struct snia_state *st = priv;
	struct imp_fields fl;
	uint64_t lba, size, ts;
	int ret;

	ret = next_fields(c, st, &fl, ',');
	if (ret <= 0)
		return ret;
	if ((ret = want_fields(c, &fl, 5, 8, "ASU,LBA,Size,Opcode,Timestamp")) ||
	    (ret = imp_field_u64(c, &fl, 1, "LBA", &lba)) ||
	    (ret = imp_scale(c, lba, 512, "LBA", &rec->offset)) ||
	    (ret = imp_field_u64(c, &fl, 2, "size", &size)) ||
	    (ret = imp_set_len(c, rec, size)) ||
	    (ret = op_rw(c, &fl, 3, rec)) ||
	    (ret = imp_field_fixed(c, &fl, 4, 9, "timestamp", &ts)) ||
	    (ret = imp_time(c, ts, 1, &(int64_t){ 0 })))
		return ret;
	if (!is_num(&fl, 0)) {
		char q[32];

		return imp_bad(c, "bad ASU '%s'",
			       imp_quote(fl.f[0], fl.len[0], q, sizeof(q)));
	}
	imp_set_t(rec, (int64_t)ts);
	ret = prefixed_dev(c, st, "asu", fl.f[0], fl.len[0]);
	if (ret < 0)
		return ret;
	rec->dev = ret;
	return 1;
}

const struct imp_format imp_fmt_spc = {
	.name = "spc",
	.description = "UMass/SPC trace (ASU,LBA,Size,Opcode,Timestamp)",
	.time_unit = "s",
	.time_epoch = "trace",
	.probe = spc_probe,
	.priv_size = sizeof(struct snia_state),
	.next = spc_next,
};

/* ---------------------------------------------------------------- Alibaba */

static int alibaba_probe(const char *buf, size_t len)
{
	struct imp_fields fl;
	char line[512];
	uint64_t ts;

	if (probe_split(buf, len, 0, ',', line, sizeof(line), &fl))
		return 0;
	if (fl.n == 5 && is_num(&fl, 0) && fl.len[1] == 1 && is_rw(&fl, 1) &&
	    is_num(&fl, 2) && is_num(&fl, 3) &&
	    !imp_u64(fl.f[4], fl.len[4], &ts))
		return 70;
	return 0;
}

static int alibaba_next(struct imp_ctx *c, void *priv, struct ist_record *rec)
{
	struct snia_state *st = priv;
	struct imp_fields fl;
	uint64_t size, ts;
	int ret;

	ret = next_fields(c, st, &fl, ',');
	if (ret <= 0)
		return ret;
	if ((ret = want_fields(c, &fl, 5, 5,
			       "device_id,opcode,offset,length,timestamp")) ||
	    (ret = op_rw(c, &fl, 1, rec)) ||
	    (ret = imp_field_u64(c, &fl, 2, "offset", &rec->offset)) ||
	    (ret = imp_field_u64(c, &fl, 3, "length", &size)) ||
	    (ret = imp_set_len(c, rec, size)) ||
	    (ret = imp_field_u64(c, &fl, 4, "timestamp", &ts)) ||
	    (ret = imp_time(c, ts, 1000, &(int64_t){ 0 })))
		return ret;
	imp_set_t(rec, (int64_t)ts * 1000);
	ret = prefixed_dev(c, st, "dev", fl.f[0], fl.len[0]);
	if (ret < 0)
		return ret;
	rec->dev = ret;
	return 1;
}

const struct imp_format imp_fmt_alibaba = {
	.name = "alibaba",
	.description = "Alibaba block trace CSV (device_id,R|W,offset,length,timestamp_us)",
	.time_unit = "us",
	.time_epoch = "unix",
	.probe = alibaba_probe,
	.priv_size = sizeof(struct snia_state),
	.next = alibaba_next,
};

/* ---------------------------------------------------------------- Tencent CBS */

static int tencent_probe(const char *buf, size_t len)
{
	struct imp_fields fl;
	char line[512];
	uint64_t ts;

	if (probe_split(buf, len, 0, ',', line, sizeof(line), &fl))
		return 0;
	if (fl.n == 5 && !imp_u64(fl.f[0], fl.len[0], &ts) &&
	    ts >= 100000000ull && ts < 10000000000ull && is_num(&fl, 1) &&
	    is_num(&fl, 2) && fl.len[3] == 1 &&
	    (fl.f[3][0] == '0' || fl.f[3][0] == '1') && is_num(&fl, 4))
		return 70;
	return 0;
}

static int tencent_next(struct imp_ctx *c, void *priv, struct ist_record *rec)
{
	struct snia_state *st = priv;
	struct imp_fields fl;
	uint64_t ts, off, size;
	char q[32];
	int ret;

	ret = next_fields(c, st, &fl, ',');
	if (ret <= 0)
		return ret;
	if ((ret = want_fields(c, &fl, 5, 5,
			       "Timestamp,Offset,Size,IOType,VolumeID")) ||
	    (ret = imp_field_u64(c, &fl, 0, "timestamp", &ts)) ||
	    (ret = imp_time(c, ts, 1000000000, &(int64_t){ 0 })) ||
	    (ret = imp_field_u64(c, &fl, 1, "offset", &off)) ||
	    (ret = imp_scale(c, off, 512, "offset", &rec->offset)) ||
	    (ret = imp_field_u64(c, &fl, 2, "size", &size)) ||
	    (ret = imp_scale(c, size, 512, "size", &size)) ||
	    (ret = imp_set_len(c, rec, size)))
		return ret;
	if (fl.len[3] == 1 && fl.f[3][0] == '0')
		rec->op = IST_OP_READ;
	else if (fl.len[3] == 1 && fl.f[3][0] == '1')
		rec->op = IST_OP_WRITE;
	else
		return imp_bad(c, "bad I/O type '%s' (expected 0 or 1)",
			       imp_quote(fl.f[3], fl.len[3], q, sizeof(q)));
	imp_set_t(rec, (int64_t)ts * 1000000000);
	ret = prefixed_dev(c, st, "vol", fl.f[4], fl.len[4]);
	if (ret < 0)
		return ret;
	rec->dev = ret;
	return 1;
}

const struct imp_format imp_fmt_tencent = {
	.name = "tencent",
	.description = "Tencent CBS CSV (timestamp_s,offset_sectors,size_sectors,0|1,volume)",
	.time_unit = "s",
	.time_epoch = "unix",
	.probe = tencent_probe,
	.priv_size = sizeof(struct snia_state),
	.next = tencent_next,
};
