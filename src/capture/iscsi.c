/* SPDX-License-Identifier: MIT */
/* iscsi.c - decodes iSCSI (RFC 7143) SCSI commands into block requests. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "capture/proto.h"

#define BHS 48

enum { BODY_NONE, BODY_LOGIN_REQ, BODY_LOGIN_RSP, BODY_RCAP10, BODY_RCAP16,
       BODY_UNMAP };

#define NSLOTS 16

struct slot {
	uint32_t itt;
	uint32_t dev;
	uint64_t ts;
	uint8_t kind; /* BODY_RCAP10/16, BODY_UNMAP; 0 = free */
};

struct iscsi {
	int hd, dd;               /* digests in use: 1 yes, 0 no, -1 unknown   */
	int hd_neg, dd_neg;       /* negotiated for after the login            */
	int login_done;
	char target[224];
	uint8_t isid[6];
	uint16_t tsih;
	int discovery;
	struct slot slot[NSLOTS]; /* commands whose data we want to read       */
	uint32_t other[64];       /* ITTs of commands that carry no block I/O  */
	unsigned nother;
	uint32_t unmap_itt[8];    /* UNMAPs issued as several records          */
	uint32_t unmap_n[8];
	unsigned nunmap;
	/* The message whose body is coming. */
	int body_kind;
	int login_final;
	struct slot cur;
};

static uint32_t crc32c(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xffffffffu;

	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return ~crc;
}

static int valid_opcode(int dir, uint8_t op)
{
	if (dir == 0)
		return op <= 0x06 || op == 0x10;
	return (op >= 0x20 && op <= 0x26) || op == 0x31 || op == 0x32 ||
	       op == 0x3f;
}

static size_t hdr_len(const struct iscsi *s, const uint8_t *h)
{
	return BHS + (size_t)h[4] * 4 + (s->hd == 1 ? 4 : 0);
}

static uint32_t dsl(const uint8_t *h)
{
	return (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7];
}

/* Checks the fields a real PDU of this opcode must have. */
static int sane_bhs(int dir, const uint8_t *h)
{
	uint8_t op = h[0] & 0x3f;
	uint32_t len = dsl(h);

	if (h[0] & 0x80 || !valid_opcode(dir, op) || len > (1u << 24) - 1)
		return 0;
	if (op != 0x01 && h[4])
		return 0; /* only SCSI commands carry AHS */
	switch (op) {
	case 0x00: /* NOP-Out */
	case 0x20: /* NOP-In */
		return h[1] == 0x80 && !h[2] && !h[3];
	case 0x01: /* SCSI Command: F R W ATTR, reserved bytes 2-3 */
		return !h[2] && !h[3] && !(h[1] & 0x18) &&
		       (len == 0 || (h[1] & 0x20)) && h[4] < 64;
	case 0x05: /* Data-Out */
		return (h[1] & 0x7f) == 0 && !h[2] && !h[3] && len > 0;
	case 0x21: /* SCSI Response */
		return (h[1] & 0x80) && !(h[1] & 0x61) && h[2] <= 1;
	case 0x25: /* Data-In: F A 0 0 0 O U S */
		return !(h[1] & 0x38) && !h[2];
	case 0x31: /* R2T */
		return h[1] == 0x80 && !h[2] && !h[3] && len == 0;
	case 0x03:
	case 0x23:
		return !(h[1] & 0x30) && (h[1] & 0x0c) != 0x08;
	default:
		return 1;
	}
}

static int iscsi_plausible(void *p, int dir, const uint8_t *h, size_t n)
{
	struct cap_conn *c = p;
	struct iscsi *s = c->state;
	size_t hl;

	if (n < BHS)
		return 2;
	if (!sane_bhs(dir, h))
		return 0;
	hl = BHS + (size_t)h[4] * 4;
	if (s->hd != 0) {
		/* A header digest is the best witness of a header start. */
		uint32_t want;

		if (n < hl + 4)
			return s->hd == 1 ? 2 : 1;
		want = crc32c(h, hl);
		if (((uint32_t)h[hl] | (uint32_t)h[hl + 1] << 8 |
		     (uint32_t)h[hl + 2] << 16 | (uint32_t)h[hl + 3] << 24) == want) {
			s->hd = 1;
			return 1;
		}
		if (s->hd == 1)
			return 0;
		s->hd = 0;
	}
	return 1;
}

static size_t iscsi_head_size(void *p, int dir, const uint8_t *h, size_t have)
{
	struct cap_conn *c = p;
	struct iscsi *s = c->state;

	(void)dir;
	if (have < BHS)
		return BHS;
	return hdr_len(s, h);
}

static void lun_name(const struct cap_conn *c, const struct iscsi *s,
		     const uint8_t *l, char *buf, size_t size)
{
	unsigned lun;

	if ((l[0] >> 6) == 1) /* flat space addressing */
		lun = (unsigned)(l[0] & 0x3f) << 8 | l[1];
	else
		lun = l[1];
	snprintf(buf, size, "iscsi:%s/lun:%u", s->target[0] ? s->target : c->server,
		 lun);
}

static struct slot *slot_find(struct iscsi *s, uint32_t itt)
{
	for (int i = 0; i < NSLOTS; i++)
		if (s->slot[i].kind && s->slot[i].itt == itt)
			return &s->slot[i];
	return NULL;
}

static void slot_add(struct iscsi *s, uint32_t itt, uint32_t dev, uint64_t ts,
		     uint8_t kind)
{
	int i;

	for (i = 0; i < NSLOTS; i++)
		if (!s->slot[i].kind)
			break;
	if (i == NSLOTS)
		i = (int)(itt % NSLOTS);
	s->slot[i].itt = itt;
	s->slot[i].dev = dev;
	s->slot[i].ts = ts;
	s->slot[i].kind = kind;
}

static int is_other(struct iscsi *s, uint32_t itt, int remove)
{
	unsigned n = s->nother < 64 ? s->nother : 64;

	for (unsigned i = 0; i < n; i++)
		if (s->other[i] == itt) {
			if (remove)
				s->other[i] = 0xffffffffu;
			return 1;
		}
	return 0;
}

/* Decodes a CDB into a record; 1 if it is block I/O, 0 if not. */
static int decode_cdb(const uint8_t *cdb, uint32_t bs, struct ist_record *r,
		      int *unmap, int *rcap)
{
	uint64_t lba = 0, blocks = 0;
	uint8_t op = cdb[0];

	*unmap = 0;
	*rcap = 0;
	switch (op) {
	case 0x08: case 0x0a: /* READ/WRITE(6) */
		lba = (uint64_t)(cdb[1] & 0x1f) << 16 | (uint64_t)cdb[2] << 8 | cdb[3];
		blocks = cdb[4] ? cdb[4] : 256;
		r->op = op == 0x08 ? IST_OP_READ : IST_OP_WRITE;
		break;
	case 0x28: case 0x2a: /* READ/WRITE(10) */
		lba = cap_be32(cdb + 2);
		blocks = cap_be16(cdb + 7);
		r->op = op == 0x28 ? IST_OP_READ : IST_OP_WRITE;
		break;
	case 0xa8: case 0xaa: /* READ/WRITE(12) */
		lba = cap_be32(cdb + 2);
		blocks = cap_be32(cdb + 6);
		r->op = op == 0xa8 ? IST_OP_READ : IST_OP_WRITE;
		break;
	case 0x88: case 0x8a: /* READ/WRITE(16) */
		lba = cap_be64(cdb + 2);
		blocks = cap_be32(cdb + 10);
		r->op = op == 0x88 ? IST_OP_READ : IST_OP_WRITE;
		break;
	case 0x35: /* SYNCHRONIZE CACHE(10) */
		lba = cap_be32(cdb + 2);
		blocks = cap_be16(cdb + 7);
		r->op = IST_OP_FLUSH;
		break;
	case 0x91: /* SYNCHRONIZE CACHE(16) */
		lba = cap_be64(cdb + 2);
		blocks = cap_be32(cdb + 10);
		r->op = IST_OP_FLUSH;
		break;
	case 0x41: /* WRITE SAME(10) */
		lba = cap_be32(cdb + 2);
		blocks = cap_be16(cdb + 7);
		r->op = (cdb[1] & 0x08) ? IST_OP_DISCARD : IST_OP_WRITE_ZEROES;
		break;
	case 0x93: /* WRITE SAME(16) */
		lba = cap_be64(cdb + 2);
		blocks = cap_be32(cdb + 10);
		r->op = (cdb[1] & 0x08) ? IST_OP_DISCARD : IST_OP_WRITE_ZEROES;
		break;
	case 0x42: /* UNMAP: ranges in the parameter data */
		*unmap = 1;
		return 0;
	case 0x25:
		*rcap = BODY_RCAP10;
		return 0;
	case 0x9e:
		if ((cdb[1] & 0x1f) == 0x10)
			*rcap = BODY_RCAP16;
		return 0;
	default:
		return 0;
	}
	if ((op == 0x28 || op == 0x2a || op == 0xa8 || op == 0xaa || op == 0x88 ||
	     op == 0x8a) && (cdb[1] & 0x08))
		r->flags |= IST_F_FUA;
	if (lba > UINT64_MAX / bs)
		lba = 0;
	r->offset = lba * bs;
	r->len = blocks * bs > UINT32_MAX ? UINT32_MAX : (uint32_t)(blocks * bs);
	return 1;
}

static int scsi_command(struct cap_conn *c, struct iscsi *s, const uint8_t *h,
			uint64_t ts)
{
	struct cap_pctx *x = c->ctx;
	struct ist_record r;
	uint32_t itt = cap_be32(h + 16), dev;
	char name[300];
	int unmap, rcap, ret;

	lun_name(c, s, h + 8, name, sizeof(name));
	ret = cap_pctx_device(x, name, &dev);
	if (ret < 0)
		return ret;
	memset(&r, 0, sizeof(r));
	r.dev = dev;
	if (decode_cdb(h + 32, cap_pctx_block_size(x, dev), &r, &unmap, &rcap))
		return cap_pctx_issue(x, c, &r, ts, itt);
	if (unmap) {
		if (dsl(h)) {
			s->body_kind = BODY_UNMAP;
			s->cur.itt = itt;
			s->cur.dev = dev;
			s->cur.ts = ts;
		} else {
			slot_add(s, itt, dev, ts, BODY_UNMAP);
		}
		return 0;
	}
	cap_pctx_stats(x)->other_commands++;
	s->other[s->nother++ % 64] = itt;
	if (rcap)
		slot_add(s, itt, dev, ts, (uint8_t)rcap);
	return 0;
}

static int iscsi_on_header(void *p, int dir, const uint8_t *h, size_t n,
			   uint64_t ts, uint64_t *body, size_t *keep)
{
	struct cap_conn *c = p;
	struct iscsi *s = c->state;
	struct cap_pctx *x = c->ctx;
	uint8_t op = h[0] & 0x3f;
	uint32_t len = dsl(h), itt = cap_be32(h + 16);
	struct slot *sl;
	int ret = 0;

	if (!sane_bhs(dir, h))
		return -EPROTO;
	if (s->hd == 1 && n >= BHS + 4) {
		size_t hl = n - 4;
		uint32_t got = (uint32_t)h[hl] | (uint32_t)h[hl + 1] << 8 |
			       (uint32_t)h[hl + 2] << 16 | (uint32_t)h[hl + 3] << 24;

		if (crc32c(h, hl) != got)
			return -EPROTO;
	}
	cap_pctx_stats(x)->iscsi_pdus++;
	*body = (len + 3u) & ~3u;
	if (len && s->dd == 1)
		*body += 4;
	*keep = 0;
	s->body_kind = BODY_NONE;
	switch (op) {
	case 0x03: /* Login Request */
		memcpy(s->isid, h + 8, 6);
		s->body_kind = BODY_LOGIN_REQ;
		*keep = len;
		break;
	case 0x23: /* Login Response */
		s->tsih = cap_be16(h + 14);
		s->body_kind = BODY_LOGIN_RSP;
		s->login_final = (h[1] & 0x80) && (h[1] & 0x03) == 3 && h[36] == 0;
		*keep = len;
		break;
	case 0x01:
		ret = scsi_command(c, s, h, ts);
		if (s->body_kind == BODY_UNMAP)
			*keep = len;
		break;
	case 0x05: /* Data-Out: UNMAP parameter data? */
		sl = slot_find(s, itt);
		if (sl && sl->kind == BODY_UNMAP) {
			s->body_kind = BODY_UNMAP;
			s->cur = *sl;
			sl->kind = 0;
			*keep = len;
		}
		break;
	case 0x25: /* Data-In */
		sl = slot_find(s, itt);
		if (sl && (sl->kind == BODY_RCAP10 || sl->kind == BODY_RCAP16)) {
			s->body_kind = sl->kind;
			s->cur = *sl;
			sl->kind = 0;
			*keep = len;
		}
		if (h[1] & 0x01) /* S: the status is in this PDU */
			goto complete;
		break;
	case 0x21: /* SCSI Response */
	complete:
		if (is_other(s, itt, 1))
			break;
		{
			uint32_t times = 1;

			/* An UNMAP may have issued several records. */
			for (unsigned i = 0; i < 8; i++)
				if (s->unmap_n[i] && s->unmap_itt[i] == itt) {
					times = s->unmap_n[i];
					s->unmap_n[i] = 0;
				}
			while (times-- && ret >= 0)
				ret = cap_pctx_complete(x, c, itt, ts);
		}
		break;
	default:
		break;
	}
	return ret < 0 ? ret : 0;
}

/* Looks for key=value in NUL-separated login text. */
static const char *text_key(const uint8_t *b, size_t n, const char *key,
			    size_t *vlen)
{
	size_t kl = strlen(key), i = 0;

	while (i < n) {
		size_t e = i;

		while (e < n && b[e])
			e++;
		if (e - i > kl && !memcmp(b + i, key, kl) && b[i + kl] == '=') {
			*vlen = e - i - kl - 1;
			return (const char *)b + i + kl + 1;
		}
		i = e + 1;
	}
	return NULL;
}

static int unmap_data(struct cap_conn *c, struct iscsi *s, const uint8_t *b,
		      size_t n)
{
	struct cap_pctx *x = c->ctx;
	uint32_t bs = cap_pctx_block_size(x, s->cur.dev);
	size_t dl;
	uint32_t issued = 0;
	int ret;

	if (n < 8)
		return 0;
	dl = cap_be16(b + 2);
	for (size_t off = 8; off + 16 <= n && off + 16 <= 8 + dl; off += 16) {
		struct ist_record r;
		uint64_t lba = cap_be64(b + off);
		uint64_t cnt = cap_be32(b + off + 8);

		memset(&r, 0, sizeof(r));
		r.dev = s->cur.dev;
		r.op = IST_OP_DISCARD;
		r.offset = lba > UINT64_MAX / bs ? 0 : lba * bs;
		r.len = cnt * bs > UINT32_MAX ? UINT32_MAX : (uint32_t)(cnt * bs);
		ret = cap_pctx_issue(x, c, &r, s->cur.ts, s->cur.itt);
		if (ret < 0)
			return ret;
		issued++;
	}
	if (issued > 1) {
		s->unmap_itt[s->nunmap % 8] = s->cur.itt;
		s->unmap_n[s->nunmap % 8] = issued;
		s->nunmap++;
	}
	return 0;
}

static int iscsi_on_body(void *p, int dir, const uint8_t *b, size_t n,
			 int complete, uint64_t ts)
{
	struct cap_conn *c = p;
	struct iscsi *s = c->state;
	struct cap_pctx *x = c->ctx;
	const char *v;
	size_t vl;
	char desc[400];

	(void)dir;
	(void)ts;
	switch (s->body_kind) {
	case BODY_LOGIN_REQ:
		if ((v = text_key(b, n, "TargetName", &vl)) && vl < sizeof(s->target)) {
			memcpy(s->target, v, vl);
			s->target[vl] = '\0';
		}
		if ((v = text_key(b, n, "SessionType", &vl)) && vl == 9 &&
		    !memcmp(v, "Discovery", 9))
			s->discovery = 1;
		break;
	case BODY_LOGIN_RSP:
		if ((v = text_key(b, n, "HeaderDigest", &vl)))
			s->hd_neg = vl == 6 && !memcmp(v, "CRC32C", 6);
		if ((v = text_key(b, n, "DataDigest", &vl)))
			s->dd_neg = vl == 6 && !memcmp(v, "CRC32C", 6);
		if (s->login_final) {
			s->login_done = 1;
			s->hd = s->hd_neg;
			s->dd = s->dd_neg;
			snprintf(desc, sizeof(desc),
				 "iscsi session %02x%02x%02x%02x%02x%02x/%04x %s -> %s %s",
				 s->isid[0], s->isid[1], s->isid[2], s->isid[3],
				 s->isid[4], s->isid[5], s->tsih, c->client,
				 c->server, s->discovery ? "discovery" : s->target);
			cap_pctx_stream_desc(x, c, desc);
			if (!complete) {
				/* The text was not all captured: the digests
				 * are learnt from the PDUs themselves. */
				s->hd = -1;
				s->dd = 0;
				s->body_kind = BODY_NONE;
				return -EPROTO;
			}
		}
		break;
	case BODY_RCAP10:
		if (n >= 8) {
			uint64_t last = cap_be32(b);
			uint32_t bs = cap_be32(b + 4);

			if (bs >= 512 && bs <= 65536 && !(bs & (bs - 1)))
				cap_pctx_geometry(x, s->cur.dev, (last + 1) * bs, bs);
		}
		break;
	case BODY_RCAP16:
		if (n >= 12) {
			uint64_t last = cap_be64(b);
			uint32_t bs = cap_be32(b + 8);

			if (bs >= 512 && bs <= 65536 && !(bs & (bs - 1)) &&
			    last < UINT64_MAX / bs)
				cap_pctx_geometry(x, s->cur.dev, (last + 1) * bs, bs);
		}
		break;
	case BODY_UNMAP:
		if (complete)
			return unmap_data(c, s, b, n);
		break;
	default:
		break;
	}
	s->body_kind = BODY_NONE;
	return 0;
}

static void iscsi_init(struct cap_conn *c, int joined_mid)
{
	struct iscsi *s = c->state;

	/* Without the login the digests are found from the PDUs. */
	s->hd = joined_mid ? -1 : 0;
	s->dd = 0;
}

static const struct cap_frame_ops iscsi_frame = {
	.head_size = iscsi_head_size,
	.on_header = iscsi_on_header,
	.on_body = iscsi_on_body,
	.plausible = iscsi_plausible,
	.min_head = BHS,
};

const struct cap_proto_ops cap_proto_iscsi = {
	.name = "iscsi",
	.state_size = sizeof(struct iscsi),
	.frame = &iscsi_frame,
	.init = iscsi_init,
};
