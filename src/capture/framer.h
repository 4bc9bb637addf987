/* SPDX-License-Identifier: MIT */
/* framer.h - cuts a reassembled byte stream into protocol messages, with
 * resynchronisation on the next plausible header after lost bytes. */
#ifndef CAP_FRAMER_H
#define CAP_FRAMER_H

#include <stddef.h>
#include <stdint.h>

#define CAP_HEAD_MAX 1024      /* longest header a protocol may ask for  */
#define CAP_KEEP_MAX 65536     /* longest body prefix a protocol may keep */
#define CAP_RESYNC_WIN 262144  /* bytes scanned for a header at most     */

/* What a protocol decoder tells the framer (one table per protocol). */
struct cap_frame_ops {
	/* Header bytes needed given the have bytes so far (have = 0 at the
	 * start of a message); the header is complete when it returns have. */
	size_t (*head_size)(void *p, int dir, const uint8_t *h, size_t have);
	/* A complete header: sets the body length to follow and how much of
	 * it to keep for on_body (<= CAP_KEEP_MAX); < 0 if not a valid
	 * header (the framer then resynchronises). */
	int (*on_header)(void *p, int dir, const uint8_t *h, size_t n,
			 uint64_t ts, uint64_t *body, size_t *keep);
	/* End of a message's body with its kept prefix; complete = 0 if some
	 * of it was not captured.  -EPROTO: resynchronise from here. */
	int (*on_body)(void *p, int dir, const uint8_t *b, size_t n,
		       int complete, uint64_t ts);
	/* Resync: could a header start at h (n bytes available)?  1 yes, 0 no,
	 * 2 need more bytes. */
	int (*plausible)(void *p, int dir, const uint8_t *h, size_t n);
	size_t min_head; /* bytes plausible() wants at least */
};

struct cap_framer_stats {
	uint64_t resyncs;
	uint64_t undecoded;
	uint64_t messages;
};

struct cap_framer {
	uint8_t head[CAP_HEAD_MAX];
	size_t have, need;
	uint64_t skip;          /* body bytes still to pass over            */
	uint8_t *keep;          /* kept body prefix (allocated on demand)   */
	size_t keep_have, keep_want;
	int keep_complete;
	int want_body_call;    /* on_body is due at the end of the body   */
	int resync;
	uint8_t *win;           /* resync window                            */
	size_t win_len;
	uint64_t msg_ts;
};

void cap_framer_init(struct cap_framer *f);
void cap_framer_free(struct cap_framer *f);
/* Starts in resync mode (stream joined in the middle). */
void cap_framer_lost(struct cap_framer *f);
int cap_framer_data(struct cap_framer *f, const struct cap_frame_ops *ops,
		    void *p, int dir, const uint8_t *d, size_t n, uint64_t ts,
		    struct cap_framer_stats *st);
/* n stream bytes whose content was not captured. */
int cap_framer_unknown(struct cap_framer *f, const struct cap_frame_ops *ops,
		       void *p, int dir, uint64_t n, uint64_t ts,
		       struct cap_framer_stats *st);

#endif
