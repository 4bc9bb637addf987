/* SPDX-License-Identifier: MIT */
/* rb_page.h - walks the events of one raw ftrace ring-buffer sub-buffer. */
#ifndef CAP_RB_PAGE_H
#define CAP_RB_PAGE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * A sub-buffer as trace_pipe_raw returns it (events/header_page): a u64
 * time stamp, a long "commit" holding the data length and two flags (events
 * were missed before this sub-buffer; their count is stored after the data),
 * then the events, each a 32-bit header (type_len:5, time_delta:27) and its
 * payload.  Host byte order and word size.
 */
struct rb_page_iter {
	const uint8_t *p, *end;
	uint64_t ts;
};

/*
 * Starts on the size bytes at page.  *missed gets 0, the number of events
 * lost before this sub-buffer, or -1 when some were but not how many.
 * Returns 0 or -EINVAL when the header does not fit.
 */
int rb_page_open(struct rb_page_iter *it, const void *page, size_t size,
		 int64_t *missed);
/*
 * The next data event: its payload (the trace entry, common_type first),
 * its length in *len and its time stamp in *ts; NULL at the end of the
 * data or at a malformed event.  Discarded events and time extends are
 * consumed on the way.
 */
const uint8_t *rb_page_next(struct rb_page_iter *it, uint32_t *len,
			    uint64_t *ts);

/*
 * The same, with the common case inline for a per-event loop: a data event
 * of up to 112 bytes (its length in the header's type_len) is handed out
 * here, anything else (long events, time extends and stamps, discarded
 * events, the end) by rb_page_next().  Same results, same checks.
 */
static inline const uint8_t *rb_page_next_fast(struct rb_page_iter *it,
					       uint32_t *len, uint64_t *ts)
{
	if (it->end - it->p >= 4) {
		uint32_t h, n;
		unsigned type_len;

		memcpy(&h, it->p, sizeof(h));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		type_len = h >> 27;
		h &= (1u << 27) - 1;
#else
		type_len = h & 31;
		h >>= 5;
#endif
		n = type_len * 4;
		if (type_len - 1 < 28 && n <= (size_t)(it->end - it->p) - 4) {
			const uint8_t *data = it->p + 4;

			it->p = data + n;
			it->ts += h;
			*len = n;
			*ts = it->ts;
			return data;
		}
	}
	return rb_page_next(it, len, ts);
}

#endif
