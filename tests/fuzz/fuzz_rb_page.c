/* SPDX-License-Identifier: MIT */
/* fuzz_rb_page.c - the raw ring-buffer sub-buffer walker (record's reader
 * of trace_pipe_raw) on arbitrary bytes: every event it hands out lies
 * inside the sub-buffer's data, time stamps never go back except through
 * an absolute stamp, and the walk ends; the inline walker
 * (rb_page_next_fast) hands out the same events. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/rb_page.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint8_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes, so that ASan sees any read past it. */
	uint8_t *page = malloc(size ? size : 1);
	struct rb_page_iter it;
	const uint8_t *ev;
	int64_t missed;
	uint32_t len, len2;
	uint64_t ts, ts2;
	size_t steps = 0;

	if (!page)
		return 0;
	memcpy(page, data, size);
	if (rb_page_open(&it, page, size, &missed) == 0) {
		struct rb_page_iter it2 = it;

		while ((ev = rb_page_next(&it, &len, &ts))) {
			/* the inline walker hands out the same events */
			const uint8_t *ev2 = rb_page_next_fast(&it2, &len2, &ts2);

			if (ev2 != ev || len2 != len || ts2 != ts || it2.p != it.p)
				abort();
			if (ev < page || ev > page + size || len > (size_t)(page + size - ev))
				abort();
			/* touch the first and last bytes handed out */
			if (len)
				sink ^= ev[0] ^ ev[len - 1];
			if (++steps > size / 4 + 1)
				abort(); /* every event is at least 4 bytes */
		}
		if (rb_page_next_fast(&it2, &len2, &ts2))
			abort();
	}
	free(page);
	return 0;
}
