/* SPDX-License-Identifier: MIT */
/* tcp_reasm.h - one direction of a TCP connection put back in order. */
#ifndef CAP_TCP_REASM_H
#define CAP_TCP_REASM_H

#include <stddef.h>
#include <stdint.h>

#define CAP_TCP_HOLD_SEGS 512          /* out-of-order segments held     */
#define CAP_TCP_HOLD_BYTES (4u << 20)  /* out-of-order bytes held        */
#define CAP_TCP_ACK_STRIKES 8          /* ACKs past a hole: it is lost   */

struct cap_tcp_seg;

struct cap_tcp_stats {
	uint64_t retransmitted;
	uint64_t out_of_order;
	uint64_t gaps;
	uint64_t gap_bytes;
	uint64_t missing_bytes;
};

/* Where in-order stream bytes go: data (content known) or unknown (n bytes
 * whose content was not captured: snap length, or a gap never filled). */
struct cap_tcp_sink {
	int (*data)(void *p, const uint8_t *d, size_t n, uint64_t ts);
	int (*unknown)(void *p, uint64_t n, uint64_t ts);
	void *p;
};

struct cap_tcp_dir {
	uint32_t next_seq;
	int have_seq;
	int joined_mid;          /* no SYN seen: started mid-stream */
	struct cap_tcp_seg *held; /* sorted by seq */
	unsigned nheld;
	size_t held_bytes;
	unsigned ack_strikes;    /* ACKs seen beyond a hole */
};

/* A segment: seq, SYN flag, payload with caplen bytes captured of len. */
int cap_tcp_segment(struct cap_tcp_dir *d, uint32_t seq, int syn,
		    const uint8_t *payload, size_t caplen, size_t len,
		    uint64_t ts, const struct cap_tcp_sink *sink,
		    struct cap_tcp_stats *st);
/* The peer acknowledged up to ack (answered: in a segment carrying data):
 * bytes before it still missing here were lost by the capture, not the
 * network; after enough evidence, skip to the held data. */
int cap_tcp_acked(struct cap_tcp_dir *d, uint32_t ack, int answered,
		  uint64_t ts, const struct cap_tcp_sink *sink,
		  struct cap_tcp_stats *st);
/* End of capture: delivers held segments across the holes. */
int cap_tcp_flush(struct cap_tcp_dir *d, uint64_t ts,
		  const struct cap_tcp_sink *sink, struct cap_tcp_stats *st);
void cap_tcp_free(struct cap_tcp_dir *d);

#endif
