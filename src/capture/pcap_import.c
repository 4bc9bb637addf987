/* SPDX-License-Identifier: MIT */
/* pcap_import.c - iSCSI and NBD block I/O from packet captures (libpcap). */
#include "config.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * libpcap is loaded (dlopen) by the first capture opened, not linked:
 * with its dependencies (libdbus, libsystemd, libgcrypt, liblz4, libcap,
 * libgpg-error on Debian) it was 7 of the 21 libraries that every iostorm
 * process mapped and relocated at start-up, 3.5 ms of task-clock (a
 * program linked with it alone: 6.4 ms against 2.8), which every import,
 * even one of a few ms, paid.  Only this file calls libpcap: its calls
 * go through the pointers below, taken from the library by
 * pcap_load().  The shared object is the one configure found
 * (PCAP_SONAME), else the usual names.
 */
#define PCAP_FNS(X)                                                            \
	X(pcap_activate) X(pcap_close) X(pcap_compile) X(pcap_create)          \
	X(pcap_datalink) X(pcap_datalink_val_to_name)                          \
	X(pcap_fopen_offline_with_tstamp_precision) X(pcap_freecode)           \
	X(pcap_get_selectable_fd) X(pcap_get_tstamp_precision) X(pcap_geterr)  \
	X(pcap_next_ex) X(pcap_open_offline_with_tstamp_precision)             \
	X(pcap_set_buffer_size) X(pcap_set_immediate_mode) X(pcap_set_snaplen) \
	X(pcap_set_timeout) X(pcap_set_tstamp_precision) X(pcap_setfilter)     \
	X(pcap_setnonblock) X(pcap_stats) X(pcap_statustostr)

static struct {
	int loaded;
#define PCAP_PTR(f) __typeof__(f) *f;
	PCAP_FNS(PCAP_PTR)
#undef PCAP_PTR
} lp;

/* Loads libpcap once; 0, or -1 with err set. */
static int pcap_load(char *err, size_t errlen)
{
	static const char *const names[] = {
#ifdef PCAP_SONAME
		PCAP_SONAME,
#endif
		"libpcap.so.1", "libpcap.so.0.8", "libpcap.so",
	};
	void *h = NULL;

	if (lp.loaded)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !h; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "cannot load libpcap (%s), which packet "
			 "captures need", names[0]);
		return -1;
	}
#define PCAP_SYM(f)                                                            \
	if (!(*(void **)&lp.f = dlsym(h, #f))) {                               \
		snprintf(err, errlen, "libpcap: no %s", #f);                   \
		dlclose(h);                                                    \
		return -1;                                                     \
	}
	PCAP_FNS(PCAP_SYM)
#undef PCAP_SYM
	lp.loaded = 1; /* h stays open */
	return 0;
}

/* the calls below go to the loaded library */
#define pcap_activate lp.pcap_activate
#define pcap_close lp.pcap_close
#define pcap_compile lp.pcap_compile
#define pcap_create lp.pcap_create
#define pcap_datalink lp.pcap_datalink
#define pcap_datalink_val_to_name lp.pcap_datalink_val_to_name
#define pcap_fopen_offline_with_tstamp_precision \
	lp.pcap_fopen_offline_with_tstamp_precision
#define pcap_freecode lp.pcap_freecode
#define pcap_get_selectable_fd lp.pcap_get_selectable_fd
#define pcap_get_tstamp_precision lp.pcap_get_tstamp_precision
#define pcap_geterr lp.pcap_geterr
#define pcap_next_ex lp.pcap_next_ex
#define pcap_open_offline_with_tstamp_precision \
	lp.pcap_open_offline_with_tstamp_precision
#define pcap_set_buffer_size lp.pcap_set_buffer_size
#define pcap_set_immediate_mode lp.pcap_set_immediate_mode
#define pcap_set_snaplen lp.pcap_set_snaplen
#define pcap_set_timeout lp.pcap_set_timeout
#define pcap_set_tstamp_precision lp.pcap_set_tstamp_precision
#define pcap_setfilter lp.pcap_setfilter
#define pcap_setnonblock lp.pcap_setnonblock
#define pcap_stats lp.pcap_stats
#define pcap_statustostr lp.pcap_statustostr

#include "capture/proto.h"
#include "capture/rec_match.h"

#define CONN_BUCKETS 4096
#define MAX_CONNS 16384
#define MATCH_TIMEOUT_NS 60000000000ull /* a response later than this is lost */

struct devreg {
	char *name;
	uint64_t size;
	uint32_t block_size;
	int hidx; /* index in the header, -1 before it is added */
};

struct cap_pctx {
	const struct cap_pcap_opts *o;
	uint16_t iscsi_port, nbd_port;
	ist_header *h;
	int (*emit)(void *ctx, const struct ist_record *rec);
	void *ectx;
	int pass;   /* 1: discovery (nothing emitted), 2: emit, 0: live */
	struct cap_pcap_stats st;
	struct cap_tcp_stats tst;
	struct cap_framer_stats fst;
	cap_match *m;
	struct devreg *dev;
	unsigned ndev, devcap;
	unsigned *didx, dicap;  /* names' index: slot = dev + 1, 0 empty */
	struct cap_conn *bucket[CONN_BUCKETS];
	struct cap_conn *lru_head, *lru_tail; /* by last packet, oldest first */
	unsigned nconn;
	uint32_t next_id;
	uint64_t t0;
	int have_t0;
	uint64_t pktno;
	uint64_t emitted;
	int stop;
	const char *why; /* the reason of an error when ist_strerror()'s is vague */
};

/* ---------------------------------------------------------------- devices */

static unsigned name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void didx_put(struct cap_pctx *x, unsigned i)
{
	unsigned s = name_hash(x->dev[i].name) & (x->dicap - 1);

	while (x->didx[s])
		s = (s + 1) & (x->dicap - 1);
	x->didx[s] = i + 1;
}

/*
 * Every command looks its device up by name: through an index, not a
 * scan (a capture of thousands of LUNs was quadratic: 65,536 LUNs' first
 * commands took 9 s).
 */
int cap_pctx_device(struct cap_pctx *x, const char *name, uint32_t *dev)
{
	unsigned s;

	if (x->dicap)
		for (s = name_hash(name) & (x->dicap - 1); x->didx[s];
		     s = (s + 1) & (x->dicap - 1))
			if (!strcmp(x->dev[x->didx[s] - 1].name, name)) {
				*dev = x->didx[s] - 1;
				return 0;
			}
	if (2 * (x->ndev + 1) >= x->dicap) {
		unsigned cap = x->dicap ? 2 * x->dicap : 64, *n = calloc(cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		free(x->didx);
		x->didx = n;
		x->dicap = cap;
		for (unsigned i = 0; i < x->ndev; i++)
			didx_put(x, i);
	}
	if (x->ndev == x->devcap) {
		unsigned ncap = x->devcap ? 2 * x->devcap : 8;
		struct devreg *nd;

		if (ncap > 65536) {
			x->why = "more than 65536 devices";
			return IST_ERANGE;
		}
		nd = realloc(x->dev, ncap * sizeof(*nd));
		if (!nd)
			return -ENOMEM;
		x->dev = nd;
		x->devcap = ncap;
	}
	x->dev[x->ndev].name = strdup(name);
	if (!x->dev[x->ndev].name)
		return -ENOMEM;
	x->dev[x->ndev].size = 0;
	x->dev[x->ndev].block_size = 0;
	x->dev[x->ndev].hidx = -1;
	if (x->pass != 1) {
		int ret = ist_header_add_device(x->h, name, 0, 0);

		if (ret < 0) {
			free(x->dev[x->ndev].name);
			if (ret == IST_ERANGE)
				x->why = "more than 65536 devices";
			return ret;
		}
		x->dev[x->ndev].hidx = ret;
	}
	didx_put(x, x->ndev);
	*dev = x->ndev++;
	return 0;
}

void cap_pctx_geometry(struct cap_pctx *x, uint32_t dev, uint64_t size,
		       uint32_t block_size)
{
	struct devreg *d;

	if (dev >= x->ndev)
		return;
	d = &x->dev[dev];
	if (size)
		d->size = size;
	if (block_size)
		d->block_size = block_size;
	if (x->pass == 0 && d->hidx >= 0 && size)
		ist_header_set_device_size(x->h, (unsigned)d->hidx, size);
	if (x->pass == 0 && d->hidx >= 0 && block_size)
		ist_header_set_device_block_size(x->h, (unsigned)d->hidx, block_size);
}

uint32_t cap_pctx_block_size(struct cap_pctx *x, uint32_t dev)
{
	if (dev < x->ndev && x->dev[dev].block_size)
		return x->dev[dev].block_size;
	return 512;
}

void cap_pctx_stream_desc(struct cap_pctx *x, struct cap_conn *c,
			  const char *desc)
{
	char key[48];

	snprintf(key, sizeof(key), "stream.%llu", (unsigned long long)c->stream);
	ist_header_set(x->h, key, desc);
}

struct cap_pcap_stats *cap_pctx_stats(struct cap_pctx *x)
{
	return &x->st;
}

/* ---------------------------------------------------------------- records */

static int emit_rec(void *p, const struct ist_record *rec)
{
	struct cap_pctx *x = p;
	struct ist_record r = *rec;

	if (x->pass == 1)
		return 0;
	if (x->o->max_ios && x->emitted >= x->o->max_ios) {
		x->stop = 1;
		return 0;
	}
	if (r.dev < x->ndev && x->dev[r.dev].hidx >= 0)
		r.dev = (uint32_t)x->dev[r.dev].hidx;
	x->emitted++;
	x->st.records++;
	return x->emit(x->ectx, &r);
}

int cap_pctx_issue(struct cap_pctx *x, struct cap_conn *c,
		   const struct ist_record *rec, uint64_t ts, uint64_t tag)
{
	struct ist_record r = *rec;

	r.t_ns = ts > x->t0 ? ts - x->t0 : 0;
	r.stream = c->stream;
	x->st.commands++;
	return cap_match_issue(x->m, &r, ts, tag, c->id, 0, emit_rec, x);
}

int cap_pctx_complete(struct cap_pctx *x, struct cap_conn *c, uint64_t tag,
		      uint64_t ts)
{
	return cap_match_complete(x->m, ts, tag, c->id, 0, emit_rec, x);
}

/* ---------------------------------------------------------------- connections */

static size_t conn_hash(const uint8_t *a, uint16_t pa, const uint8_t *b,
			uint16_t pb)
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < 16; i++)
		h = (h ^ a[i] ^ ((uint64_t)b[i] << 8)) * 1099511628211ull;
	h = (h ^ pa ^ ((uint64_t)pb << 16)) * 1099511628211ull;
	return (size_t)(h % CONN_BUCKETS);
}

static int sink_data(void *p, const uint8_t *d, size_t n, uint64_t ts)
{
	struct cap_conn_ref *r = p;
	struct cap_conn *c = r->c;

	return cap_framer_data(&c->fr[r->dir], c->proto->frame, c, r->dir, d, n,
			       ts, &c->ctx->fst);
}

static int sink_unknown(void *p, uint64_t n, uint64_t ts)
{
	struct cap_conn_ref *r = p;
	struct cap_conn *c = r->c;

	return cap_framer_unknown(&c->fr[r->dir], c->proto->frame, c, r->dir, n,
				  ts, &c->ctx->fst);
}

static void conn_sink(struct cap_conn *c, int dir, struct cap_tcp_sink *s)
{
	s->data = sink_data;
	s->unknown = sink_unknown;
	s->p = &c->ref[dir];
}

/* Ends a connection: what is held goes out across its holes. */
static int conn_end(struct cap_pctx *x, struct cap_conn *c, uint64_t ts)
{
	int ret = 0;

	for (int d = 0; d < 2 && ret >= 0; d++) {
		struct cap_tcp_sink s;

		conn_sink(c, d, &s);
		ret = cap_tcp_flush(&c->tcp[d], ts, &s, &x->tst);
	}
	return ret;
}

static void conn_free(struct cap_conn *c)
{
	for (int d = 0; d < 2; d++) {
		cap_tcp_free(&c->tcp[d]);
		cap_framer_free(&c->fr[d]);
	}
	free(c->state);
	free(c);
}

static void lru_remove(struct cap_pctx *x, struct cap_conn *c)
{
	if (c->lprev)
		c->lprev->lnext = c->lnext;
	else
		x->lru_head = c->lnext;
	if (c->lnext)
		c->lnext->lprev = c->lprev;
	else
		x->lru_tail = c->lprev;
	c->lprev = c->lnext = NULL;
}

static void lru_append(struct cap_pctx *x, struct cap_conn *c)
{
	c->lprev = x->lru_tail;
	c->lnext = NULL;
	if (x->lru_tail)
		x->lru_tail->lnext = c;
	else
		x->lru_head = c;
	x->lru_tail = c;
}

static void conn_unlink(struct cap_pctx *x, struct cap_conn *c)
{
	lru_remove(x, c);
	size_t b = conn_hash(c->addr[0], c->port[0], c->addr[1], c->port[1]);

	for (struct cap_conn **pp = &x->bucket[b]; *pp; pp = &(*pp)->hnext)
		if (*pp == c) {
			*pp = c->hnext;
			break;
		}
	x->nconn--;
}

static void fmt_addr(char *buf, size_t size, const uint8_t *a, uint16_t port,
		     int v6)
{
	char ip[INET6_ADDRSTRLEN];

	inet_ntop(v6 ? AF_INET6 : AF_INET, a, ip, sizeof(ip));
	snprintf(buf, size, v6 ? "[%s]:%u" : "%s:%u", ip, port);
}

/* Ends the connection seen least recently: the head of the list, not a
 * scan of all of them per new connection (a capture of a SYN flood or a
 * port scan, one new connection a packet, was quadratic past MAX_CONNS). */
static int evict_oldest(struct cap_pctx *x, uint64_t ts)
{
	struct cap_conn *old = x->lru_head;
	int ret;

	if (!old)
		return 0;
	ret = conn_end(x, old, ts);
	conn_unlink(x, old);
	conn_free(old);
	return ret;
}

static int conn_new(struct cap_pctx *x, const uint8_t *cli, uint16_t cport,
		    const uint8_t *srv, uint16_t sport, int v6,
		    const struct cap_proto_ops *proto, int joined_mid,
		    struct cap_conn **out)
{
	struct cap_conn *c;
	size_t b;
	char desc[160];

	if (x->nconn >= MAX_CONNS) {
		int ret = evict_oldest(x, 0);

		if (ret < 0)
			return ret;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->state = calloc(1, proto->state_size);
	if (!c->state) {
		free(c);
		return -ENOMEM;
	}
	memcpy(c->addr[0], cli, 16);
	memcpy(c->addr[1], srv, 16);
	c->port[0] = cport;
	c->port[1] = sport;
	c->v6 = v6;
	c->id = ++x->next_id;
	c->stream = c->id;
	c->proto = proto;
	c->ctx = x;
	for (int d = 0; d < 2; d++) {
		cap_framer_init(&c->fr[d]);
		c->ref[d].c = c;
		c->ref[d].dir = d;
		if (joined_mid)
			cap_framer_lost(&c->fr[d]);
	}
	fmt_addr(c->client, sizeof(c->client), cli, cport, v6);
	fmt_addr(c->server, sizeof(c->server), srv, sport, v6);
	proto->init(c, joined_mid);
	snprintf(desc, sizeof(desc), "%s %s -> %s", proto->name, c->client,
		 c->server);
	cap_pctx_stream_desc(x, c, desc);
	b = conn_hash(cli, cport, srv, sport);
	c->hnext = x->bucket[b];
	x->bucket[b] = c;
	lru_append(x, c);
	x->nconn++;
	x->st.connections++;
	*out = c;
	return 0;
}

static struct cap_conn *conn_find(struct cap_pctx *x, const uint8_t *cli,
				  uint16_t cport, const uint8_t *srv,
				  uint16_t sport)
{
	size_t b = conn_hash(cli, cport, srv, sport);

	for (struct cap_conn *c = x->bucket[b]; c; c = c->hnext)
		if (c->port[0] == cport && c->port[1] == sport &&
		    !memcmp(c->addr[0], cli, 16) && !memcmp(c->addr[1], srv, 16))
			return c;
	return NULL;
}

/* ---------------------------------------------------------------- packets */

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_ACK 0x10

static int tcp_packet(struct cap_pctx *x, const uint8_t *src, const uint8_t *dst,
		      int v6, const uint8_t *t, size_t cap, size_t len,
		      uint64_t ts)
{
	uint16_t sp, dp, server;
	const struct cap_proto_ops *proto;
	struct cap_conn *c;
	struct cap_tcp_sink sink;
	size_t thl;
	uint8_t fl;
	uint32_t seq, ack;
	int dir, ret;

	if (cap < 20 || len < 20) {
		x->st.other_packets++;
		return 0;
	}
	sp = cap_be16(t);
	dp = cap_be16(t + 2);
	if (dp == x->iscsi_port || dp == x->nbd_port) {
		server = dp;
		dir = 0;
	} else if (sp == x->iscsi_port || sp == x->nbd_port) {
		server = sp;
		dir = 1;
	} else {
		x->st.other_packets++;
		return 0;
	}
	proto = server == x->iscsi_port ? &cap_proto_iscsi : &cap_proto_nbd;
	thl = (size_t)(t[12] >> 4) * 4;
	if (thl < 20 || thl > len) {
		x->st.other_packets++;
		return 0;
	}
	if (thl > cap) { /* TCP options cut by the snap length */
		x->st.other_packets++;
		return 0;
	}
	seq = cap_be32(t + 4);
	ack = cap_be32(t + 8);
	fl = t[13];
	x->st.tcp_segments++;
	if (dir == 0)
		c = conn_find(x, src, sp, dst, dp);
	else
		c = conn_find(x, dst, dp, src, sp);
	if (c && (fl & TH_SYN) && !(fl & TH_ACK) && dir == 0 &&
	    c->tcp[0].have_seq && c->tcp[0].next_seq != seq + 1) {
		/* The client port is reused by a new connection. */
		ret = conn_end(x, c, ts);
		conn_unlink(x, c);
		conn_free(c);
		if (ret < 0)
			return ret;
		c = NULL;
	}
	if (!c) {
		if (fl & TH_RST)
			return 0;
		if (dir == 0)
			ret = conn_new(x, src, sp, dst, dp, v6, proto,
				       !(fl & TH_SYN), &c);
		else
			ret = conn_new(x, dst, dp, src, sp, v6, proto,
				       !(fl & TH_SYN), &c);
		if (ret < 0)
			return ret;
	}
	c->last_ts = ts;
	if (c != x->lru_tail) {
		lru_remove(x, c);
		lru_append(x, c);
	}
	if (fl & TH_ACK) {
		conn_sink(c, !dir, &sink);
		ret = cap_tcp_acked(&c->tcp[!dir], ack, len > thl, ts, &sink,
				    &x->tst);
		if (ret < 0)
			return ret;
	}
	conn_sink(c, dir, &sink);
	ret = cap_tcp_segment(&c->tcp[dir], seq, !!(fl & TH_SYN), t + thl,
			      cap - thl < len - thl ? cap - thl : len - thl,
			      len - thl, ts, &sink, &x->tst);
	if (ret < 0)
		return ret;
	if (fl & (TH_FIN | TH_RST))
		c->closed[dir] = 1;
	if ((fl & TH_RST) || (c->closed[0] && c->closed[1])) {
		ret = conn_end(x, c, ts);
		conn_unlink(x, c);
		conn_free(c);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int ip_packet(struct cap_pctx *x, const uint8_t *p, size_t cap,
		     uint64_t ts)
{
	uint8_t src[16] = { 0 }, dst[16] = { 0 };

	if (cap < 1) {
		x->st.other_packets++;
		return 0;
	}
	if ((p[0] >> 4) == 4) {
		size_t hl, tot;

		if (cap < 20) {
			x->st.other_packets++;
			return 0;
		}
		hl = (size_t)(p[0] & 15) * 4;
		tot = cap_be16(p + 2);
		if (hl < 20 || tot < hl || cap < hl || p[9] != 6 ||
		    (cap_be16(p + 6) & 0x3fff)) { /* fragments: not decoded */
			x->st.other_packets++;
			return 0;
		}
		memcpy(src, p + 12, 4);
		memcpy(dst, p + 16, 4);
		return tcp_packet(x, src, dst, 0, p + hl,
				  cap - hl < tot - hl ? cap - hl : tot - hl,
				  tot - hl, ts);
	}
	if ((p[0] >> 4) == 6) {
		size_t off = 40, plen;
		uint8_t nh;

		if (cap < 40) {
			x->st.other_packets++;
			return 0;
		}
		plen = cap_be16(p + 4);
		nh = p[6];
		memcpy(src, p + 8, 16);
		memcpy(dst, p + 24, 16);
		while (nh == 0 || nh == 43 || nh == 60) {
			size_t el;

			if (off + 8 > cap || off + 8 > 40 + plen) {
				x->st.other_packets++;
				return 0;
			}
			el = ((size_t)p[off + 1] + 1) * 8;
			nh = p[off];
			off += el;
		}
		if (nh != 6 || off > 40 + plen || off > cap) {
			x->st.other_packets++;
			return 0;
		}
		return tcp_packet(x, src, dst, 1, p + off,
				  cap - off < 40 + plen - off ? cap - off
							      : 40 + plen - off,
				  40 + plen - off, ts);
	}
	x->st.other_packets++;
	return 0;
}

static int link_packet(struct cap_pctx *x, int dlt, const uint8_t *p,
		       size_t cap, uint64_t ts)
{
	uint16_t et;
	size_t off;

	switch (dlt) {
	case DLT_EN10MB:
		if (cap < 14)
			goto other;
		et = cap_be16(p + 12);
		off = 14;
		while ((et == 0x8100 || et == 0x88a8) && cap >= off + 4) {
			et = cap_be16(p + off + 2);
			off += 4;
		}
		if (et != 0x0800 && et != 0x86dd)
			goto other;
		return ip_packet(x, p + off, cap - off, ts);
	case DLT_LINUX_SLL:
		if (cap < 16)
			goto other;
		et = cap_be16(p + 14);
		if (et != 0x0800 && et != 0x86dd)
			goto other;
		return ip_packet(x, p + 16, cap - 16, ts);
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2:
		if (cap < 20)
			goto other;
		et = cap_be16(p);
		if (et != 0x0800 && et != 0x86dd)
			goto other;
		return ip_packet(x, p + 20, cap - 20, ts);
#endif
	case DLT_NULL:
	case DLT_LOOP:
		if (cap < 4)
			goto other;
		return ip_packet(x, p + 4, cap - 4, ts);
	case DLT_RAW:
	case 101: /* LINKTYPE_RAW */
	case 228: /* LINKTYPE_IPV4 */
	case 229: /* LINKTYPE_IPV6 */
		return ip_packet(x, p, cap, ts);
	default:
		break;
	}
other:
	x->st.other_packets++;
	return 0;
}

static int link_supported(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
	case DLT_LINUX_SLL:
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2:
#endif
	case DLT_NULL:
	case DLT_LOOP:
	case DLT_RAW:
	case 101:
	case 228:
	case 229:
		return 1;
	default:
		return 0;
	}
}

/* ---------------------------------------------------------------- passes */

static void ctx_reset(struct cap_pctx *x)
{
	for (size_t b = 0; b < CONN_BUCKETS; b++) {
		while (x->bucket[b]) {
			struct cap_conn *c = x->bucket[b];

			x->bucket[b] = c->hnext;
			conn_free(c);
		}
	}
	x->nconn = 0;
	x->lru_head = x->lru_tail = NULL;
	x->next_id = 0;
	cap_match_free(x->m);
	x->m = NULL;
	memset(&x->st, 0, sizeof(x->st));
	memset(&x->tst, 0, sizeof(x->tst));
	memset(&x->fst, 0, sizeof(x->fst));
	x->have_t0 = 0;
	x->pktno = 0;
	x->emitted = 0;
	x->stop = 0;
	x->why = NULL;
}

static void ctx_free(struct cap_pctx *x)
{
	ctx_reset(x);
	for (unsigned i = 0; i < x->ndev; i++)
		free(x->dev[i].name);
	free(x->dev);
	free(x->didx);
}

/* End of input: connections flushed, pending requests written out. */
static int finish_pass(struct cap_pctx *x)
{
	int ret = 0;

	for (size_t b = 0; b < CONN_BUCKETS && ret >= 0; b++)
		for (struct cap_conn *c = x->bucket[b]; c && ret >= 0; c = c->hnext)
			ret = conn_end(x, c, 0);
	if (ret >= 0)
		ret = cap_match_drain(x->m, emit_rec, x);
	return ret;
}

static void fill_stats(struct cap_pctx *x)
{
	struct cap_match_stats ms;

	cap_match_get_stats(x->m, &ms);
	x->st.retransmitted = x->tst.retransmitted;
	x->st.out_of_order = x->tst.out_of_order;
	x->st.gaps = x->tst.gaps;
	x->st.gap_bytes = x->tst.gap_bytes;
	x->st.missing_bytes = x->tst.missing_bytes;
	x->st.resyncs = x->fst.resyncs;
	x->st.undecoded_bytes = x->fst.undecoded;
	x->st.unmatched_commands = ms.no_completion + ms.evicted;
	x->st.unmatched_responses = ms.orphan_completions;
}

static int run_pass(struct cap_pctx *x, pcap_t *pc, const char *name,
		    int live, char *err, size_t errlen)
{
	int dlt = pcap_datalink(pc);
	int nano = pcap_get_tstamp_precision(pc) == PCAP_TSTAMP_PRECISION_NANO;
	struct timespec start;
	int ret;

	ret = cap_match_new(&x->m, 0, MATCH_TIMEOUT_NS, 0);
	if (ret < 0)
		return ret;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct pcap_pkthdr *ph;
		const u_char *data;
		uint64_t ts;
		int r;

		if (x->stop || (x->o->stop && *x->o->stop))
			break;
		if (live) {
			/* Immediate mode may block without a timeout: wait
			 * here, so that the duration and signals are seen. */
			struct pollfd pfd = { pcap_get_selectable_fd(pc), POLLIN, 0 };

			if (pfd.fd >= 0 && poll(&pfd, 1, 100) == 0)
				r = 0;
			else
				r = pcap_next_ex(pc, &ph, &data);
		} else {
			r = pcap_next_ex(pc, &ph, &data);
		}
		if (r == PCAP_ERROR_BREAK)
			break;
		if (live && (r == 0 || (x->pktno & 63) == 63) && x->o->tick) {
			ret = x->o->tick(x->o->tick_ctx);
			if (ret < 0) {
				snprintf(err, errlen, "%s: writing the trace: %s", name,
					 ret > -IST_E_BASE ? strerror(-ret) : ist_strerror(ret));
				return ret;
			}
		}
		if (r == 0) { /* live timeout */
			if (live && x->o->duration_ns) {
				struct timespec now;

				clock_gettime(CLOCK_MONOTONIC, &now);
				if ((uint64_t)(now.tv_sec - start.tv_sec) * 1000000000ull +
				    (uint64_t)now.tv_nsec - (uint64_t)start.tv_nsec >=
				    x->o->duration_ns)
					break;
			}
			continue;
		}
		if (r < 0) {
			snprintf(err, errlen, "%s: packet %llu: %s", name,
				 (unsigned long long)x->pktno + 1, pcap_geterr(pc));
			return IST_EPARSE;
		}
		x->pktno++;
		x->st.packets++;
		ts = (uint64_t)ph->ts.tv_sec * 1000000000ull +
		     (uint64_t)ph->ts.tv_usec * (nano ? 1 : 1000);
		if (!x->have_t0) {
			x->t0 = ts;
			x->have_t0 = 1;
		}
		if (ph->caplen < ph->len)
			x->st.truncated++;
		ret = link_packet(x, dlt, data, ph->caplen, ts);
		if (ret == 0)
			ret = cap_match_advance(x->m, ts, emit_rec, x);
		if (ret < 0) {
			snprintf(err, errlen, "%s: packet %llu: %s", name,
				 (unsigned long long)x->pktno, x->why ? x->why :
				 ret > -IST_E_BASE ? strerror(-ret) : ist_strerror(ret));
			return ret;
		}
		if (live && x->o->duration_ns &&
		    (x->pktno & 63) == 0) {
			struct timespec now;

			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((uint64_t)(now.tv_sec - start.tv_sec) * 1000000000ull +
			    (uint64_t)now.tv_nsec - (uint64_t)start.tv_nsec >=
			    x->o->duration_ns)
				break;
		}
	}
	ret = finish_pass(x);
	if (ret < 0) {
		snprintf(err, errlen, "%s: end of capture: %s", name,
			 ret > -IST_E_BASE ? strerror(-ret) : ist_strerror(ret));
		return ret;
	}
	fill_stats(x);
	return 0;
}

static int apply_filter(pcap_t *pc, const char *filter, const char *name,
			char *err, size_t errlen)
{
	struct bpf_program prog;

	if (!filter)
		return 0;
	if (pcap_compile(pc, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(err, errlen, "%s: bad filter '%s': %s", name, filter,
			 pcap_geterr(pc));
		return -EINVAL;
	}
	if (pcap_setfilter(pc, &prog) < 0) {
		snprintf(err, errlen, "%s: cannot set filter: %s", name,
			 pcap_geterr(pc));
		pcap_freecode(&prog);
		return -EINVAL;
	}
	pcap_freecode(&prog);
	return 0;
}

static void ctx_init(struct cap_pctx *x, const struct cap_pcap_opts *o,
		     ist_header *h,
		     int (*emit)(void *ctx, const struct ist_record *rec),
		     void *ctx)
{
	memset(x, 0, sizeof(*x));
	x->o = o;
	x->iscsi_port = o->iscsi_port ? o->iscsi_port : 3260;
	x->nbd_port = o->nbd_port ? o->nbd_port : 10809;
	x->h = h;
	x->emit = emit;
	x->ectx = ctx;
}

typedef pcap_t *(*open_fn)(void *arg, char *errbuf);

static pcap_t *open_path(void *arg, char *errbuf)
{
	return pcap_open_offline_with_tstamp_precision(arg,
		PCAP_TSTAMP_PRECISION_NANO, errbuf);
}

struct mem_src {
	const void *data;
	size_t size;
};

static pcap_t *open_mem(void *arg, char *errbuf)
{
	struct mem_src *m = arg;
	FILE *f = fmemopen((void *)m->data, m->size, "rb");
	pcap_t *pc;

	if (!f) {
		snprintf(errbuf, PCAP_ERRBUF_SIZE, "%s", strerror(errno));
		return NULL;
	}
	pc = pcap_fopen_offline_with_tstamp_precision(f,
		PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!pc)
		fclose(f);
	return pc;
}

/* Two passes over the file: the first learns the devices (names, block
 * sizes, sizes) so that the header is complete before the first record. */
static int import_two_pass(open_fn op, void *arg, const char *name,
			   const struct cap_pcap_opts *opts, ist_header *h,
			   int (*emit)(void *ctx, const struct ist_record *rec),
			   void *ctx, struct cap_pcap_stats *stats, char *err,
			   size_t errlen)
{
	struct cap_pctx *x = malloc(sizeof(*x));
	char ebuf[PCAP_ERRBUF_SIZE];
	int ret = 0;

	if (!x)
		return -ENOMEM;
	if (pcap_load(err, errlen)) {
		free(x);
		return IST_EUNSUPPORTED;
	}
	ctx_init(x, opts, h, emit, ctx);
	ist_header_set(h, "source", "pcap");
	for (int pass = 1; pass <= 2 && ret == 0; pass++) {
		pcap_t *pc = op(arg, ebuf);

		if (!pc) {
			size_t n = strlen(name);
			const char *why = ebuf;

			/* libpcap names the file it cannot open: once is
			 * enough ("iostorm: F: F: No such file ...") */
			if (!strncmp(why, name, n) && !strncmp(why + n, ": ", 2))
				why += n + 2;
			snprintf(err, errlen, "%s: %s", name, why);
			ret = IST_EFORMAT;
			break;
		}
		if (!link_supported(pcap_datalink(pc))) {
			snprintf(err, errlen, "%s: unsupported link-layer type %s",
				 name, pcap_datalink_val_to_name(pcap_datalink(pc))
				 ? pcap_datalink_val_to_name(pcap_datalink(pc)) : "?");
			pcap_close(pc);
			ret = IST_EUNSUPPORTED;
			break;
		}
		ret = apply_filter(pc, opts->filter, name, err, errlen);
		if (ret == 0) {
			x->pass = pass;
			ret = run_pass(x, pc, name, 0, err, errlen);
		}
		pcap_close(pc);
		if (ret == 0 && pass == 1) {
			for (unsigned i = 0; i < x->ndev && ret == 0; i++) {
				struct devreg *d = &x->dev[i];
				int idx = ist_header_add_device(h, d->name, d->size,
								d->block_size);

				if (idx < 0)
					ret = idx;
				d->hidx = idx;
			}
			if (ret == 0)
				ctx_reset(x);
		}
	}
	if (stats)
		*stats = x->st;
	ctx_free(x);
	free(x);
	return ret;
}

int cap_pcap_import(const char *path, const struct cap_pcap_opts *opts,
		    ist_header *h,
		    int (*emit)(void *ctx, const struct ist_record *rec),
		    void *ctx, struct cap_pcap_stats *stats, char *err,
		    size_t errlen)
{
	return import_two_pass(open_path, (void *)path, path, opts, h, emit, ctx,
			       stats, err, errlen);
}

int cap_pcap_import_mem(const void *data, size_t size,
			const struct cap_pcap_opts *opts, ist_header *h,
			int (*emit)(void *ctx, const struct ist_record *rec),
			void *ctx, struct cap_pcap_stats *stats, char *err,
			size_t errlen)
{
	struct mem_src m = { data, size };

	if (!size) {
		snprintf(err, errlen, "<memory>: empty capture");
		return IST_EFORMAT;
	}
	return import_two_pass(open_mem, &m, "<memory>", opts, h, emit, ctx,
			       stats, err, errlen);
}

int cap_pcap_live(const char *iface, const struct cap_pcap_opts *opts,
		  ist_header *h,
		  int (*emit)(void *ctx, const struct ist_record *rec),
		  void *ctx, struct cap_pcap_stats *stats, char *err,
		  size_t errlen)
{
	struct cap_pctx *x = malloc(sizeof(*x));
	char ebuf[PCAP_ERRBUF_SIZE], deffilter[96];
	struct pcap_stat ps;
	pcap_t *pc;
	int ret;

	if (!x)
		return -ENOMEM;
	if (pcap_load(err, errlen)) {
		free(x);
		return IST_EUNSUPPORTED;
	}
	ctx_init(x, opts, h, emit, ctx);
	pc = pcap_create(iface, ebuf);
	if (!pc) {
		snprintf(err, errlen, "%s: %s", iface, ebuf);
		free(x);
		return -ENODEV;
	}
	pcap_set_snaplen(pc, opts->snaplen ? opts->snaplen : 262144);
	pcap_set_timeout(pc, 100);
	pcap_set_immediate_mode(pc, 1);
	pcap_set_buffer_size(pc, 32 << 20);
	pcap_set_tstamp_precision(pc, PCAP_TSTAMP_PRECISION_NANO);
	ret = pcap_activate(pc);
	if (ret < 0) {
		snprintf(err, errlen, "%s: cannot capture: %s%s", iface,
			 pcap_geterr(pc)[0] ? pcap_geterr(pc) : pcap_statustostr(ret),
			 ret == PCAP_ERROR_PERM_DENIED ?
			 " (live capture needs root or CAP_NET_RAW)" : "");
		pcap_close(pc);
		free(x);
		return -EPERM;
	}
	if (!link_supported(pcap_datalink(pc))) {
		snprintf(err, errlen, "%s: unsupported link-layer type", iface);
		pcap_close(pc);
		free(x);
		return IST_EUNSUPPORTED;
	}
	snprintf(deffilter, sizeof(deffilter), "tcp port %u or tcp port %u",
		 x->iscsi_port, x->nbd_port);
	ret = apply_filter(pc, opts->filter ? opts->filter : deffilter, iface,
			   err, errlen);
	if (ret == 0 && pcap_setnonblock(pc, 1, ebuf) < 0) {
		snprintf(err, errlen, "%s: %s", iface, ebuf);
		ret = -EIO;
	}
	ist_header_set(h, "source", "pcap-live");
	ist_header_set(h, "pcap.interface", iface);
	if (ret == 0) {
		x->pass = 0;
		ret = run_pass(x, pc, iface, 1, err, errlen);
	}
	if (pcap_stats(pc, &ps) == 0)
		x->st.kernel_drops = ps.ps_drop + ps.ps_ifdrop;
	pcap_close(pc);
	if (stats)
		*stats = x->st;
	ctx_free(x);
	free(x);
	return ret;
}
