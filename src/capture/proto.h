/* SPDX-License-Identifier: MIT */
/* proto.h - what the iSCSI and NBD decoders share with the pcap importer. */
#ifndef CAP_PROTO_H
#define CAP_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "iostorm.h"
#include "capture/framer.h"
#include "capture/pcap_import.h"
#include "capture/tcp_reasm.h"

struct cap_pctx;

/* One TCP connection to a decoded port; dir 0 runs client -> server. */
struct cap_conn {
	struct cap_conn *hnext;      /* hash chain                        */
	struct cap_conn *lprev, *lnext; /* least recently seen first      */
	uint32_t id;                 /* 1, 2, ... in order of appearance  */
	uint8_t addr[2][16];         /* client, server address            */
	uint16_t port[2];
	int v6;
	char client[64], server[64]; /* "127.0.0.1:50000"                 */
	uint64_t stream;
	uint64_t last_ts;
	int closed[2];
	const struct cap_proto_ops *proto;
	void *state;
	struct cap_pctx *ctx;
	struct cap_framer fr[2];
	struct cap_tcp_dir tcp[2];
	struct cap_conn_ref {
		struct cap_conn *c;
		int dir;
	} ref[2];                    /* what the TCP sinks get            */
};

struct cap_proto_ops {
	const char *name;
	size_t state_size;
	const struct cap_frame_ops *frame;
	/* Called once the state is zeroed; joined_mid: no SYN was seen. */
	void (*init)(struct cap_conn *c, int joined_mid);
};

extern const struct cap_proto_ops cap_proto_iscsi;
extern const struct cap_proto_ops cap_proto_nbd;

/* Device index for name (created on first use), or < 0. */
int cap_pctx_device(struct cap_pctx *x, const char *name, uint32_t *dev);
/* Geometry learnt from the protocol (READ CAPACITY, NBD export info). */
void cap_pctx_geometry(struct cap_pctx *x, uint32_t dev, uint64_t size,
		       uint32_t block_size);
/* Logical block size of dev (512 until known). */
uint32_t cap_pctx_block_size(struct cap_pctx *x, uint32_t dev);
/* Names the connection's stream in the metadata. */
void cap_pctx_stream_desc(struct cap_pctx *x, struct cap_conn *c,
			  const char *desc);
/* A block request issued at ts, completed later by the same tag. */
int cap_pctx_issue(struct cap_pctx *x, struct cap_conn *c,
		   const struct ist_record *rec, uint64_t ts, uint64_t tag);
/* Completion of tag: 1 matched, 0 not an issued block request. */
int cap_pctx_complete(struct cap_pctx *x, struct cap_conn *c, uint64_t tag,
		      uint64_t ts);
struct cap_pcap_stats *cap_pctx_stats(struct cap_pctx *x);

static inline uint16_t cap_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t cap_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t cap_be64(const uint8_t *p)
{
	return (uint64_t)cap_be32(p) << 32 | cap_be32(p + 4);
}

#endif
