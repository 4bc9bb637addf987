/* SPDX-License-Identifier: MIT */
/* tcp_reasm.c - one direction of a TCP connection put back in order. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/tcp_reasm.h"

struct cap_tcp_seg {
	struct cap_tcp_seg *next;
	uint32_t seq;
	size_t caplen, len;
	uint64_t ts;
	uint8_t data[];
};

static int32_t seq_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

/* Delivers an in-order segment that starts at or before next_seq. */
static int deliver(struct cap_tcp_dir *d, uint32_t seq, const uint8_t *p,
		   size_t caplen, size_t len, uint64_t ts,
		   const struct cap_tcp_sink *sink, struct cap_tcp_stats *st)
{
	int32_t off = seq_diff(d->next_seq, seq);
	int ret;

	if (off < 0)
		return -EINVAL;
	if ((size_t)off >= len) {
		if (len)
			st->retransmitted++;
		return 0;
	}
	/* Overlap with what was delivered: keep only the new bytes. */
	if ((size_t)off < caplen) {
		p += off;
		caplen -= (size_t)off;
	} else {
		caplen = 0;
	}
	len -= (size_t)off;
	if (caplen) {
		ret = sink->data(sink->p, p, caplen, ts);
		if (ret < 0)
			return ret;
	}
	if (len > caplen) {
		st->missing_bytes += len - caplen;
		ret = sink->unknown(sink->p, len - caplen, ts);
		if (ret < 0)
			return ret;
	}
	d->next_seq += (uint32_t)len;
	return 0;
}

/* Delivers held segments that have become in order. */
static int drain(struct cap_tcp_dir *d, const struct cap_tcp_sink *sink,
		 struct cap_tcp_stats *st)
{
	while (d->held && seq_diff(d->held->seq, d->next_seq) <= 0) {
		struct cap_tcp_seg *s = d->held;
		int ret;

		d->held = s->next;
		d->nheld--;
		d->held_bytes -= s->caplen;
		ret = deliver(d, s->seq, s->data, s->caplen, s->len, s->ts, sink,
			      st);
		free(s);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The bytes up to the first held segment will never come: skip them. */
static int skip_hole(struct cap_tcp_dir *d, uint64_t ts,
		     const struct cap_tcp_sink *sink, struct cap_tcp_stats *st)
{
	uint32_t hole;
	int ret;

	if (!d->held)
		return 0;
	hole = (uint32_t)seq_diff(d->held->seq, d->next_seq);
	st->gaps++;
	st->gap_bytes += hole;
	ret = sink->unknown(sink->p, hole, ts);
	if (ret < 0)
		return ret;
	d->next_seq = d->held->seq;
	return drain(d, sink, st);
}

int cap_tcp_segment(struct cap_tcp_dir *d, uint32_t seq, int syn,
		    const uint8_t *payload, size_t caplen, size_t len,
		    uint64_t ts, const struct cap_tcp_sink *sink,
		    struct cap_tcp_stats *st)
{
	struct cap_tcp_seg *s, **pp;
	int ret;

	if (syn) {
		if (d->have_seq && !d->joined_mid && d->next_seq == seq + 1)
			return 0; /* retransmitted SYN */
		d->next_seq = seq + 1;
		d->have_seq = 1;
		d->joined_mid = 0;
		seq++;
	}
	if (!len)
		return 0;
	if (!d->have_seq) {
		d->next_seq = seq;
		d->have_seq = 1;
		d->joined_mid = 1;
	}
	if (seq_diff(seq, d->next_seq) <= 0) {
		ret = deliver(d, seq, payload, caplen, len, ts, sink, st);
		if (ret < 0)
			return ret;
		return drain(d, sink, st);
	}
	/* Ahead of the stream: hold it until the hole fills. */
	st->out_of_order++;
	for (pp = &d->held; *pp && seq_diff((*pp)->seq, seq) < 0; pp = &(*pp)->next)
		;
	if (*pp && (*pp)->seq == seq && (*pp)->len >= len) {
		st->retransmitted++;
		return 0;
	}
	s = malloc(sizeof(*s) + caplen);
	if (!s)
		return -ENOMEM;
	s->seq = seq;
	s->caplen = caplen;
	s->len = len;
	s->ts = ts;
	if (caplen) /* payload may be NULL when nothing was captured */
		memcpy(s->data, payload, caplen);
	s->next = *pp;
	*pp = s;
	d->nheld++;
	d->held_bytes += caplen;
	/* Bounded memory: a hole that long is a capture loss. */
	while (d->nheld > CAP_TCP_HOLD_SEGS || d->held_bytes > CAP_TCP_HOLD_BYTES) {
		ret = skip_hole(d, ts, sink, st);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int cap_tcp_acked(struct cap_tcp_dir *d, uint32_t ack, int answered,
		  uint64_t ts, const struct cap_tcp_sink *sink,
		  struct cap_tcp_stats *st)
{
	if (!d->have_seq || !d->held) {
		d->ack_strikes = 0;
		return 0;
	}
	if (seq_diff(ack, d->held->seq) <= 0)
		return 0;
	/* Capture points may see an ACK before the segment it acknowledges:
	 * only repeated evidence makes the hole a loss, or a peer that sends
	 * data after it (it answers what it received). */
	if (!answered && ++d->ack_strikes < CAP_TCP_ACK_STRIKES)
		return 0;
	d->ack_strikes = 0;
	return skip_hole(d, ts, sink, st);
}

int cap_tcp_flush(struct cap_tcp_dir *d, uint64_t ts,
		  const struct cap_tcp_sink *sink, struct cap_tcp_stats *st)
{
	while (d->held) {
		int ret = skip_hole(d, ts, sink, st);

		if (ret < 0)
			return ret;
	}
	return 0;
}

void cap_tcp_free(struct cap_tcp_dir *d)
{
	while (d->held) {
		struct cap_tcp_seg *s = d->held;

		d->held = s->next;
		free(s);
	}
	d->nheld = 0;
	d->held_bytes = 0;
}
