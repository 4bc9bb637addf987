/* SPDX-License-Identifier: MIT */
/* nbd.c - decodes the NBD protocol (handshake and transmission) into
 * block requests. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "capture/proto.h"

#define NBDMAGIC 0x4e42444d41474943ull       /* "NBDMAGIC" */
#define IHAVEOPT 0x49484156454f5054ull       /* "IHAVEOPT" */
#define OLDSTYLE 0x00420281861253ull
#define REPLY_MAGIC_OPT 0x3e889045565a9ull
#define REQ_MAGIC 0x25609513u
#define SIMPLE_MAGIC 0x67446698u
#define STRUCT_MAGIC 0x668e33efu

enum { PH_HELLO, PH_OPTIONS, PH_EXPORT_INFO, PH_TRANSMISSION };

enum { OPT_EXPORT_NAME = 1, OPT_INFO = 6, OPT_GO = 7, OPT_STRUCTURED = 8 };
enum { REP_ACK = 1, REP_INFO = 3 };

#define NHANDLES 256

struct handle {
	uint64_t handle;
	uint32_t len;
	uint8_t used;
	uint8_t is_read;
};

struct nbd {
	int phase[2];      /* per direction: where that side's stream is */
	int client_flags_seen;
	int no_zeroes;
	int structured;
	int oldstyle;
	char export_name[256];
	uint32_t dev;
	int have_dev;
	uint32_t last_opt;  /* option the client sent last */
	int pending_go;     /* GO/EXPORT_NAME sent, transmission follows */
	struct handle h[NHANDLES];
	/* body in progress */
	int body_opt;        /* client option whose data follows */
	uint32_t body_rep_type;
};

static struct handle *handle_slot(struct nbd *s, uint64_t handle, int create)
{
	size_t i = (size_t)((handle * 0x9e3779b97f4a7c15ull) >> 56) % NHANDLES;

	for (size_t k = 0; k < NHANDLES; k++, i = (i + 1) % NHANDLES) {
		if (s->h[i].used && s->h[i].handle == handle)
			return &s->h[i];
		if (!s->h[i].used) {
			if (!create)
				return NULL;
			s->h[i].used = 1;
			s->h[i].handle = handle;
			return &s->h[i];
		}
	}
	if (!create)
		return NULL;
	/* Full (replies lost): reuse the home slot. */
	i = (size_t)((handle * 0x9e3779b97f4a7c15ull) >> 56) % NHANDLES;
	s->h[i].handle = handle;
	return &s->h[i];
}

static void handle_drop(struct nbd *s, struct handle *h)
{
	/* Open addressing: re-insert the run that follows. */
	size_t i = (size_t)(h - s->h);

	h->used = 0;
	for (size_t j = (i + 1) % NHANDLES; s->h[j].used; j = (j + 1) % NHANDLES) {
		struct handle t = s->h[j];
		struct handle *n;

		s->h[j].used = 0;
		n = handle_slot(s, t.handle, 1);
		*n = t;
	}
}

static int device(struct cap_conn *c, struct nbd *s)
{
	char name[400];
	int ret;

	if (s->have_dev)
		return 0;
	snprintf(name, sizeof(name), "nbd:%s/%s", c->server, s->export_name);
	ret = cap_pctx_device(c->ctx, name, &s->dev);
	if (ret < 0)
		return ret;
	s->have_dev = 1;
	return 0;
}

static size_t nbd_head_size(void *p, int dir, const uint8_t *h, size_t have)
{
	struct cap_conn *c = p;
	struct nbd *s = c->state;

	if (dir == 0) {
		switch (s->phase[0]) {
		case PH_HELLO:
			return 4; /* client flags */
		case PH_OPTIONS:
			return 16;
		default:
			return 28;
		}
	}
	switch (s->phase[1]) {
	case PH_HELLO:
		if (have < 16)
			return 16;
		if (cap_be64(h + 8) == OLDSTYLE)
			return 152;
		return 18;
	case PH_OPTIONS:
		return 20;
	case PH_EXPORT_INFO:
		return s->no_zeroes ? 10 : 134;
	default:
		if (have < 4)
			return 4;
		return cap_be32(h) == STRUCT_MAGIC ? 20 : 16;
	}
}

static int plausible_req(const uint8_t *h)
{
	return cap_be32(h) == REQ_MAGIC && cap_be16(h + 6) <= 10 &&
	       cap_be16(h + 4) < 0x40;
}

static int nbd_plausible(void *p, int dir, const uint8_t *h, size_t n)
{
	struct cap_conn *c = p;
	struct nbd *s = c->state;
	int ok;

	if (n < 4)
		return 2;
	if (dir == 0) {
		if (n < 28)
			return cap_be32(h) == REQ_MAGIC ? 2 : 0;
		ok = plausible_req(h);
	} else {
		uint32_t m = cap_be32(h);

		if (m == SIMPLE_MAGIC) {
			if (n < 16)
				return 2;
			ok = cap_be32(h + 4) < 256; /* errno values */
		} else if (m == STRUCT_MAGIC) {
			if (n < 20)
				return 2;
			ok = cap_be16(h + 4) <= 1 &&
			     (cap_be16(h + 6) <= 5 || (cap_be16(h + 6) & 0x8000));
			if (ok)
				s->structured = 1;
		} else {
			ok = 0;
		}
	}
	if (ok)
		s->phase[dir] = PH_TRANSMISSION; /* joined mid-stream */
	return ok;
}

static int request(struct cap_conn *c, struct nbd *s, const uint8_t *h,
		   uint64_t ts, uint64_t *body)
{
	struct cap_pctx *x = c->ctx;
	uint16_t flags = cap_be16(h + 4), type = cap_be16(h + 6);
	uint64_t handle = cap_be64(h + 8), off = cap_be64(h + 16);
	uint32_t len = cap_be32(h + 24);
	struct ist_record r;
	struct handle *hs;
	int ret;

	if (type == 1) /* WRITE data follows */
		*body = len;
	memset(&r, 0, sizeof(r));
	switch (type) {
	case 0: r.op = IST_OP_READ; break;
	case 1: r.op = IST_OP_WRITE; break;
	case 3: r.op = IST_OP_FLUSH; break;
	case 4: r.op = IST_OP_DISCARD; break;
	case 6: r.op = IST_OP_WRITE_ZEROES; break;
	default:
		/* DISC, CACHE, BLOCK_STATUS, RESIZE: no block I/O */
		cap_pctx_stats(x)->other_commands++;
		if (type != 2) {
			hs = handle_slot(s, handle, 1);
			hs->len = 0;
			hs->is_read = 2; /* answered, but not a record */
		}
		return 0;
	}
	if ((ret = device(c, s)) < 0)
		return ret;
	if (flags & 1)
		r.flags |= IST_F_FUA;
	r.dev = s->dev;
	r.offset = off;
	r.len = len;
	hs = handle_slot(s, handle, 1);
	hs->len = len;
	hs->is_read = type == 0;
	return cap_pctx_issue(x, c, &r, ts, handle);
}

static int reply_done(struct cap_conn *c, struct nbd *s, uint64_t handle,
		      uint64_t ts)
{
	struct handle *hs = handle_slot(s, handle, 0);
	int other = hs && hs->is_read == 2;

	if (hs)
		handle_drop(s, hs);
	if (other)
		return 0;
	return cap_pctx_complete(c->ctx, c, handle, ts) < 0 ? -ENOMEM : 0;
}

static int nbd_on_header(void *p, int dir, const uint8_t *h, size_t n,
			 uint64_t ts, uint64_t *body, size_t *keep)
{
	struct cap_conn *c = p;
	struct nbd *s = c->state;
	struct cap_pctx *x = c->ctx;
	int ret;

	*body = 0;
	*keep = 0;
	s->body_opt = 0;
	if (dir == 0) {
		switch (s->phase[0]) {
		case PH_HELLO:
			s->no_zeroes = !!(cap_be32(h) & 2);
			s->phase[0] = PH_OPTIONS;
			return 0;
		case PH_OPTIONS: {
			uint32_t opt = cap_be32(h + 8), len = cap_be32(h + 12);

			if (cap_be64(h) != IHAVEOPT)
				return -EPROTO;
			cap_pctx_stats(x)->nbd_messages++;
			s->last_opt = opt;
			*body = len;
			if (opt == OPT_EXPORT_NAME || opt == OPT_GO || opt == OPT_INFO) {
				s->body_opt = (int)opt;
				*keep = len;
			}
			if (opt == OPT_EXPORT_NAME) {
				s->phase[0] = PH_TRANSMISSION;
				s->phase[1] = PH_EXPORT_INFO;
			}
			return 0;
		}
		default:
			if (!plausible_req(h))
				return -EPROTO;
			cap_pctx_stats(x)->nbd_messages++;
			return request(c, s, h, ts, body);
		}
	}
	switch (s->phase[1]) {
	case PH_HELLO:
		if (cap_be64(h) != NBDMAGIC)
			return -EPROTO;
		cap_pctx_stats(x)->nbd_messages++;
		if (n == 152) { /* old style: the export is announced */
			s->oldstyle = 1;
			s->phase[0] = s->phase[1] = PH_TRANSMISSION;
			if ((ret = device(c, s)) < 0)
				return ret;
			cap_pctx_geometry(x, s->dev, cap_be64(h + 16), 0);
		} else {
			s->phase[1] = PH_OPTIONS;
		}
		return 0;
	case PH_OPTIONS: {
		uint32_t type = cap_be32(h + 12), len = cap_be32(h + 16);

		if (cap_be64(h) != REPLY_MAGIC_OPT)
			return -EPROTO;
		cap_pctx_stats(x)->nbd_messages++;
		*body = len;
		s->body_rep_type = type;
		if (type == REP_INFO)
			*keep = len;
		if (type == REP_ACK) {
			uint32_t opt = cap_be32(h + 8);

			if (opt == OPT_STRUCTURED)
				s->structured = 1;
			if (opt == OPT_GO)
				s->phase[1] = PH_TRANSMISSION;
		}
		return 0;
	}
	case PH_EXPORT_INFO:
		cap_pctx_stats(x)->nbd_messages++;
		if ((ret = device(c, s)) < 0)
			return ret;
		cap_pctx_geometry(x, s->dev, cap_be64(h), 0);
		s->phase[1] = PH_TRANSMISSION;
		return 0;
	default:
		break;
	}
	if (cap_be32(h) == SIMPLE_MAGIC) {
		uint64_t handle = cap_be64(h + 8);
		struct handle *hs = handle_slot(s, handle, 0);

		cap_pctx_stats(x)->nbd_messages++;
		/* A read's data follows a successful simple reply. */
		if (hs && hs->is_read == 1 && cap_be32(h + 4) == 0)
			*body = hs->len;
		return reply_done(c, s, handle, ts);
	}
	if (cap_be32(h) == STRUCT_MAGIC) {
		uint64_t handle = cap_be64(h + 8);

		cap_pctx_stats(x)->nbd_messages++;
		*body = cap_be32(h + 16);
		if (cap_be16(h + 4) & 1) /* NBD_REPLY_FLAG_DONE */
			return reply_done(c, s, handle, ts);
		return 0;
	}
	return -EPROTO;
}

static int nbd_on_body(void *p, int dir, const uint8_t *b, size_t n,
		       int complete, uint64_t ts)
{
	struct cap_conn *c = p;
	struct nbd *s = c->state;
	int ret;

	(void)ts;
	(void)complete;
	if (dir == 0 && s->body_opt) {
		size_t nl = 0;
		const uint8_t *name = b;

		if (s->body_opt == OPT_EXPORT_NAME) {
			nl = n;
		} else if (n >= 4) { /* GO/INFO: length-prefixed name */
			nl = cap_be32(b);
			name = b + 4;
			if (nl > n - 4)
				nl = n - 4;
		}
		if (nl >= sizeof(s->export_name))
			nl = sizeof(s->export_name) - 1;
		if (nl) /* b is NULL when the payload was cut by the snap length */
			memcpy(s->export_name, name, nl);
		s->export_name[nl] = '\0';
		for (size_t i = 0; i < nl; i++)
			if (s->export_name[i] < 0x20 || s->export_name[i] == 0x7f)
				s->export_name[i] = '?';
		s->have_dev = 0;
		if (s->body_opt == OPT_GO) {
			s->phase[0] = PH_TRANSMISSION;
			s->pending_go = 1;
		}
	}
	if (dir == 1 && s->body_rep_type == REP_INFO && n >= 12 &&
	    cap_be16(b) == 0) { /* NBD_INFO_EXPORT: size, flags */
		if ((ret = device(c, s)) < 0)
			return ret;
		cap_pctx_geometry(c->ctx, s->dev, cap_be64(b + 2), 0);
	}
	s->body_opt = 0;
	s->body_rep_type = 0;
	return 0;
}

static void nbd_init(struct cap_conn *c, int joined_mid)
{
	struct nbd *s = c->state;

	if (joined_mid)
		s->phase[0] = s->phase[1] = PH_TRANSMISSION;
}

static const struct cap_frame_ops nbd_frame = {
	.head_size = nbd_head_size,
	.on_header = nbd_on_header,
	.on_body = nbd_on_body,
	.plausible = nbd_plausible,
	.min_head = 4,
};

const struct cap_proto_ops cap_proto_nbd = {
	.name = "nbd",
	.state_size = sizeof(struct nbd),
	.frame = &nbd_frame,
	.init = nbd_init,
};
