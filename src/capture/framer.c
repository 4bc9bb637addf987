/* SPDX-License-Identifier: MIT */
/* framer.c - cuts a reassembled byte stream into protocol messages, with
 * resynchronisation on the next plausible header after lost bytes. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/framer.h"

void cap_framer_init(struct cap_framer *f)
{
	memset(f, 0, sizeof(*f));
}

void cap_framer_free(struct cap_framer *f)
{
	free(f->keep);
	free(f->win);
	f->keep = NULL;
	f->win = NULL;
}

void cap_framer_lost(struct cap_framer *f)
{
	f->have = 0;
	f->need = 0;
	f->skip = 0;
	f->keep_want = 0;
	f->keep_have = 0;
	f->resync = 1;
	f->win_len = 0;
}

static int finish_body(struct cap_framer *f, const struct cap_frame_ops *ops,
		       void *p, int dir)
{
	int ret = 0;

	if (f->keep_want || f->want_body_call)
		ret = ops->on_body(p, dir, f->keep, f->keep_have,
				   f->keep_complete && f->keep_have == f->keep_want,
				   f->msg_ts);
	f->keep_want = 0;
	f->keep_have = 0;
	f->want_body_call = 0;
	if (ret == -EPROTO) {
		/* The decoder lost track (e.g. digests it cannot know):
		 * find the next header by scanning. */
		cap_framer_lost(f);
		return 1;
	}
	return ret;
}

static int scan_window(struct cap_framer *f, const struct cap_frame_ops *ops,
		       void *p, int dir, uint64_t ts, struct cap_framer_stats *st);

/* Normal framing of n bytes; returns bytes consumed before a switch to
 * resync mode (all of them otherwise). */
static int frame(struct cap_framer *f, const struct cap_frame_ops *ops, void *p,
		 int dir, const uint8_t *d, size_t n, uint64_t ts,
		 struct cap_framer_stats *st, size_t *used)
{
	size_t i = 0;
	int ret;

	while (i < n) {
		if (f->skip) {
			size_t take = f->skip < n - i ? (size_t)f->skip : n - i;

			if (f->keep_have < f->keep_want) {
				size_t k = f->keep_want - f->keep_have;

				if (k > take)
					k = take;
				memcpy(f->keep + f->keep_have, d + i, k);
				f->keep_have += k;
			}
			f->skip -= take;
			i += take;
			if (!f->skip) {
				ret = finish_body(f, ops, p, dir);
				if (ret < 0)
					return ret;
				if (ret == 1)
					goto relost;
			}
			continue;
		}
		if (f->have == 0) {
			f->need = ops->head_size(p, dir, f->head, 0);
			f->msg_ts = ts;
		}
		while (f->have < f->need && i < n)
			f->head[f->have++] = d[i++];
		if (f->have < f->need)
			break;
		f->need = ops->head_size(p, dir, f->head, f->have);
		if (f->need > CAP_HEAD_MAX) {
			f->need = 0;
			goto bad;
		}
		if (f->need > f->have)
			continue;
		{
			uint64_t body = 0;
			size_t keep = 0;

			ret = ops->on_header(p, dir, f->head, f->have, f->msg_ts,
					     &body, &keep);
			if (ret < 0 && ret != -EPROTO)
				return ret;
			if (ret == -EPROTO)
				goto bad;
			st->messages++;
			f->have = 0;
			f->skip = body;
			if (keep > body)
				keep = (size_t)body;
			if (keep > CAP_KEEP_MAX)
				keep = CAP_KEEP_MAX;
			f->keep_want = keep;
			f->keep_have = 0;
			f->keep_complete = 1;
			if (keep && !f->keep) {
				f->keep = malloc(CAP_KEEP_MAX);
				if (!f->keep)
					return -ENOMEM;
			}
			f->want_body_call = 1;
			if (!body) {
				ret = finish_body(f, ops, p, dir);
				if (ret < 0)
					return ret;
				if (ret == 1)
					goto relost;
			}
		}
	}
	*used = i;
	return 0;
relost:
	if (!f->win) {
		f->win = malloc(CAP_RESYNC_WIN);
		if (!f->win)
			return -ENOMEM;
	}
	*used = i;
	return 1;
bad:
	/* Not a header: rescan from the byte after where it seemed to start. */
	{
		size_t hl = f->have;
		uint8_t tmp[CAP_HEAD_MAX];

		memcpy(tmp, f->head, hl);
		cap_framer_lost(f);
		st->resyncs++;
		if (!f->win) {
			f->win = malloc(CAP_RESYNC_WIN);
			if (!f->win)
				return -ENOMEM;
		}
		if (hl > 1) {
			memcpy(f->win, tmp + 1, hl - 1);
			f->win_len = hl - 1;
		}
		st->undecoded++;
		*used = i;
		return 1;
	}
}

static int scan_window(struct cap_framer *f, const struct cap_frame_ops *ops,
		       void *p, int dir, uint64_t ts, struct cap_framer_stats *st)
{
	size_t i = 0;

	for (;;) {
		int pl = 2;

		while (i < f->win_len) {
			if (f->win_len - i < ops->min_head) {
				pl = 2;
				break;
			}
			pl = ops->plausible(p, dir, f->win + i, f->win_len - i);
			if (pl != 0)
				break;
			i++;
		}
		if (pl != 1) {
			/* Keep the tail that may still start a header. */
			st->undecoded += i;
			memmove(f->win, f->win + i, f->win_len - i);
			f->win_len -= i;
			return 0;
		}
		/* Found one: leave resync and frame the rest normally. */
		st->undecoded += i;
		f->resync = 0;
		{
			size_t rest = f->win_len - i, used = 0;
			uint8_t *buf = malloc(rest ? rest : 1);
			int ret;

			if (!buf)
				return -ENOMEM;
			memcpy(buf, f->win + i, rest);
			f->win_len = 0;
			ret = frame(f, ops, p, dir, buf, rest, ts, st, &used);
			if (ret < 0) {
				free(buf);
				return ret;
			}
			if (ret == 1) {
				/* Bad again: the window now holds the header
				 * bytes after its first; add what followed. */
				size_t tail = rest - used;

				if (f->win_len + tail > CAP_RESYNC_WIN) {
					st->undecoded += f->win_len;
					f->win_len = 0;
					if (tail > CAP_RESYNC_WIN) {
						st->undecoded += tail - CAP_RESYNC_WIN;
						used += tail - CAP_RESYNC_WIN;
						tail = CAP_RESYNC_WIN;
					}
				}
				memcpy(f->win + f->win_len, buf + used, tail);
				f->win_len += tail;
				free(buf);
				i = 0;
				continue;
			}
			free(buf);
			return 0;
		}
	}
}

int cap_framer_data(struct cap_framer *f, const struct cap_frame_ops *ops,
		    void *p, int dir, const uint8_t *d, size_t n, uint64_t ts,
		    struct cap_framer_stats *st)
{
	while (n) {
		if (!f->resync) {
			size_t used = 0;
			int ret = frame(f, ops, p, dir, d, n, ts, st, &used);

			if (ret <= 0)
				return ret;
			d += used;
			n -= used;
			/* The window holds the bad header's tail: scan it
			 * together with the rest. */
		}
		if (!f->win) {
			f->win = malloc(CAP_RESYNC_WIN);
			if (!f->win)
				return -ENOMEM;
		}
		{
			size_t room = CAP_RESYNC_WIN - f->win_len;
			size_t take = n < room ? n : room;
			int ret;

			memcpy(f->win + f->win_len, d, take);
			f->win_len += take;
			d += take;
			n -= take;
			ret = scan_window(f, ops, p, dir, ts, st);
			if (ret < 0)
				return ret;
			if (f->resync && f->win_len == CAP_RESYNC_WIN) {
				st->undecoded += f->win_len;
				f->win_len = 0;
			}
		}
	}
	return 0;
}

int cap_framer_unknown(struct cap_framer *f, const struct cap_frame_ops *ops,
		       void *p, int dir, uint64_t n, uint64_t ts,
		       struct cap_framer_stats *st)
{
	(void)ts;
	if (!n)
		return 0;
	if (f->resync) {
		st->undecoded += f->win_len + n;
		f->win_len = 0;
		return 0;
	}
	if (f->skip) {
		uint64_t take = f->skip < n ? f->skip : n;

		/* Body bytes we do not have: the kept prefix is incomplete. */
		if (f->keep_have < f->keep_want) {
			f->keep_complete = 0;
			f->keep_want = f->keep_have; /* deliver what we have */
		}
		f->skip -= take;
		n -= take;
		if (!f->skip) {
			int ret = finish_body(f, ops, p, dir);

			if (ret < 0)
				return ret;
			if (ret == 1) {
				st->undecoded += n;
				return 0;
			}
		}
		if (!n)
			return 0;
	}
	/* A header (or its start) was not captured: resynchronise. */
	st->undecoded += f->have + n;
	st->resyncs++;
	cap_framer_lost(f);
	return 0;
}
