/* SPDX-License-Identifier: MIT */
/* rb_page.c - walks the events of one raw ftrace ring-buffer sub-buffer. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "capture/rb_page.h"

/* The commit word's flags (kernel/trace/ring_buffer.c). */
#define MISSED_EVENTS (1ul << 31)
#define MISSED_STORED (1ul << 30)

/* Event header type_len values above the data lengths. */
enum { TYPE_PADDING = 29, TYPE_TIME_EXTEND = 30, TYPE_TIME_STAMP = 31 };

#define TS_SHIFT 27
#define TS_MSB_SHIFT 59

int rb_page_open(struct rb_page_iter *it, const void *page, size_t size,
		 int64_t *missed)
{
	const uint8_t *base = page;
	const size_t hdr = sizeof(uint64_t) + sizeof(long);
	unsigned long commit;
	size_t len;

	*missed = 0;
	if (size < hdr)
		return -EINVAL;
	memcpy(&it->ts, base, sizeof(it->ts));
	memcpy(&commit, base + sizeof(uint64_t), sizeof(commit));
	len = commit & (MISSED_STORED - 1);
	if (len > size - hdr)
		len = size - hdr;
	it->p = base + hdr;
	it->end = it->p + len;
	if (commit & MISSED_EVENTS) {
		unsigned long n = 0;

		*missed = -1;
		if ((commit & MISSED_STORED) && hdr + len + sizeof(n) <= size) {
			memcpy(&n, it->end, sizeof(n));
			if (n)
				*missed = (int64_t)n;
		}
	}
	return 0;
}

static uint32_t word(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

const uint8_t *rb_page_next(struct rb_page_iter *it, uint32_t *len,
			    uint64_t *ts)
{
	while (it->end - it->p >= 4) {
		uint32_t h = word(it->p);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		/* The bit-field type_len:5, time_delta:27 starts at the top. */
		unsigned type_len = h >> 27;
		uint64_t delta = h & ((1u << 27) - 1), v;
#else
		unsigned type_len = h & 31;
		uint64_t delta = h >> 5, v;
#endif
		const uint8_t *data;
		uint32_t n;

		if (type_len == 0 || type_len >= TYPE_PADDING) {
			if (it->end - it->p < 8)
				return NULL;
			n = word(it->p + 4);
		} else {
			n = 0;
		}
		switch (type_len) {
		case TYPE_PADDING:
			if (!delta && !n)
				return NULL; /* the rest of the page is empty */
			if (n > (size_t)(it->end - it->p) - 4)
				return NULL; /* longer than the data left */
			it->p += 4 + (size_t)n; /* a discarded event */
			continue;
		case TYPE_TIME_EXTEND:
			it->ts += (uint64_t)n << TS_SHIFT | delta;
			it->p += 8;
			continue;
		case TYPE_TIME_STAMP:
			/* Absolute, but only the low 59 bits. */
			v = (uint64_t)n << TS_SHIFT | delta;
			if (it->ts >> TS_MSB_SHIFT) {
				v |= it->ts & ~((1ull << TS_MSB_SHIFT) - 1);
				if (v < it->ts)
					v += 1ull << TS_MSB_SHIFT;
			}
			it->ts = v;
			it->p += 8;
			continue;
		case 0: /* long event: array[0] holds the length + 4 */
			if (n < 4 || n > (size_t)(it->end - it->p) - 4)
				return NULL;
			data = it->p + 8;
			*len = n - 4;
			it->p += 4 + (size_t)n;
			break;
		default:
			n = type_len * 4;
			if (n > (size_t)(it->end - it->p) - 4)
				return NULL;
			data = it->p + 4;
			*len = n;
			it->p += 4 + (size_t)n;
			break;
		}
		it->ts += delta;
		*ts = it->ts;
		return data;
	}
	return NULL;
}
