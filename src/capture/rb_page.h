/* SPDX-License-Identifier: MIT */
/* rb_page.h - walks the events of one raw ftrace ring-buffer sub-buffer. */
#ifndef CAP_RB_PAGE_H
#define CAP_RB_PAGE_H

#include <stddef.h>
#include <stdint.h>

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

#endif
