/* SPDX-License-Identifier: MIT */
/* meta.c - the IST header body (metadata, devices) and footer (index, totals) on disk. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <zlib.h>

#include "format/fmt.h"

/* A growable output buffer; on allocation failure it remembers -ENOMEM. */
struct obuf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

static uint8_t *obuf_room(struct obuf *b, size_t n)
{
	if (b->err)
		return NULL;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	return b->p + b->len;
}

static void put_varint(struct obuf *b, uint64_t v)
{
	uint8_t *p = obuf_room(b, 10);

	if (p)
		b->len += fmt_put_varint(p, v);
}

static void put_bytes(struct obuf *b, const void *s, size_t n)
{
	uint8_t *p = obuf_room(b, n);

	if (p) {
		memcpy(p, s, n);
		b->len += n;
	}
}

static void put_str(struct obuf *b, const char *s)
{
	size_t n = strlen(s);

	put_varint(b, n);
	put_bytes(b, s, n);
}

static void put32(struct obuf *b, uint32_t v)
{
	uint8_t *p = obuf_room(b, 4);

	if (p) {
		fmt_put32(p, v);
		b->len += 4;
	}
}

static void put64(struct obuf *b, uint64_t v)
{
	uint8_t *p = obuf_room(b, 8);

	if (p) {
		fmt_put64(p, v);
		b->len += 8;
	}
}

static int obuf_finish(struct obuf *b, uint8_t **buf, size_t *len)
{
	if (b->err) {
		free(b->p);
		return b->err;
	}
	*buf = b->p;
	*len = b->len;
	return 0;
}

int fmt_header_encode(const ist_header *h, uint8_t **buf, size_t *len)
{
	struct obuf b = { 0 };
	unsigned nmeta = ist_header_meta_count(h);
	unsigned ndev = ist_header_device_count(h);

	put_varint(&b, nmeta);
	for (unsigned i = 0; i < nmeta; i++) {
		const char *k, *v;

		ist_header_meta_at(h, i, &k, &v);
		put_str(&b, k);
		put_str(&b, v);
	}
	put_varint(&b, ndev);
	for (unsigned i = 0; i < ndev; i++) {
		const struct ist_device *d = ist_header_device(h, i);

		put_str(&b, d->name);
		put_varint(&b, d->size);
		put_varint(&b, d->block_size);
	}
	return obuf_finish(&b, buf, len);
}

/* Reads a length-prefixed string into a new NUL-terminated buffer. */
static int get_str(const uint8_t **p, const uint8_t *end, char **out)
{
	uint64_t n;
	char *s;

	if (fmt_get_varint(p, end, &n) || n > (uint64_t)(end - *p))
		return IST_ECORRUPT;
	if (memchr(*p, 0, n))
		return IST_ECORRUPT;
	s = malloc(n + 1);
	if (!s)
		return -ENOMEM;
	memcpy(s, *p, n);
	s[n] = 0;
	*p += n;
	*out = s;
	return 0;
}

int fmt_header_decode(const uint8_t *p, size_t len, ist_header **hp)
{
	const uint8_t *end = p + len;
	ist_header *h = ist_header_new();
	uint64_t n;
	int ret = IST_ECORRUPT;

	if (!h)
		return -ENOMEM;
	if (fmt_get_varint(&p, end, &n) || n > len)
		goto fail;
	for (uint64_t i = 0; i < n; i++) {
		char *k = NULL, *v = NULL;

		ret = get_str(&p, end, &k);
		if (!ret)
			ret = get_str(&p, end, &v);
		if (!ret && !*k)
			ret = IST_ECORRUPT;
		if (!ret)
			ret = ist_header_set(h, k, v);
		free(k);
		free(v);
		if (ret)
			goto fail;
	}
	ret = IST_ECORRUPT;
	if (fmt_get_varint(&p, end, &n) || n > IST_MAX_FOOTER_DEVICES)
		goto fail;
	for (uint64_t i = 0; i < n; i++) {
		char *name = NULL;
		uint64_t size, bs;

		ret = get_str(&p, end, &name);
		if (ret)
			goto fail;
		if (fmt_get_varint(&p, end, &size) ||
		    fmt_get_varint(&p, end, &bs) || bs > UINT32_MAX) {
			free(name);
			ret = IST_ECORRUPT;
			goto fail;
		}
		ret = ist_header_add_device(h, name, size, (uint32_t)bs);
		free(name);
		if (ret < 0)
			goto fail;
	}
	/* bytes after the device table belong to later minor versions */
	*hp = h;
	return 0;
fail:
	ist_header_free(h);
	return ret;
}

#define FOOTER_INDEX_ENTRY 28

int fmt_footer_encode(const struct ist_chunk_info *idx, uint64_t nchunks,
		      const struct ist_totals *t, uint8_t **buf, size_t *len)
{
	struct obuf b = { 0 };
	uint8_t *p;

	put_bytes(&b, FMT_FOOTER_MAGIC, 4);
	put64(&b, nchunks);
	for (uint64_t i = 0; i < nchunks; i++) {
		put64(&b, idx[i].offset);
		put64(&b, idx[i].first_t_ns);
		put64(&b, idx[i].last_t_ns);
		put32(&b, idx[i].count);
	}
	put64(&b, t->records);
	put64(&b, t->first_t_ns);
	put64(&b, t->last_t_ns);
	put32(&b, IST_OP_COUNT);
	for (unsigned i = 0; i < IST_OP_COUNT; i++) {
		put64(&b, t->count[i]);
		put64(&b, t->bytes[i]);
	}
	put64(&b, t->streams);
	put64(&b, t->txns);
	put64(&b, t->with_latency);
	put64(&b, t->out_of_order);
	put32(&b, t->flags_exact);
	put32(&b, t->ndev);
	for (uint32_t i = 0; i < t->ndev; i++)
		put64(&b, t->dev_max_end[i]);
	p = obuf_room(&b, 4);
	if (p) {
		fmt_put32(p, (uint32_t)crc32(0, b.p, (uInt)b.len));
		b.len += 4;
	}
	return obuf_finish(&b, buf, len);
}

int fmt_footer_decode(const uint8_t *p, size_t len, struct ist_chunk_info **idxp,
		      uint64_t *nchunks, struct ist_totals *t)
{
	const uint8_t *end, *q;
	struct ist_chunk_info *idx = NULL;
	uint64_t n;
	uint32_t nops, ndev;

	memset(t, 0, sizeof(*t));
	if (len < 4 + 8 + 4 || memcmp(p, FMT_FOOTER_MAGIC, 4))
		return IST_ECORRUPT;
	if (fmt_get32(p + len - 4) != (uint32_t)crc32(0, p, (uInt)(len - 4)))
		return IST_ECRC;
	end = p + len - 4;
	q = p + 4;
	n = fmt_get64(q);
	q += 8;
	if (n > (uint64_t)(end - q) / FOOTER_INDEX_ENTRY)
		return IST_ECORRUPT;
	idx = malloc((n ? n : 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		idx[i].offset = fmt_get64(q);
		idx[i].first_t_ns = fmt_get64(q + 8);
		idx[i].last_t_ns = fmt_get64(q + 16);
		idx[i].count = fmt_get32(q + 24);
		q += FOOTER_INDEX_ENTRY;
	}
	if (end - q < 8 * 3 + 4)
		goto corrupt;
	t->records = fmt_get64(q);
	t->first_t_ns = fmt_get64(q + 8);
	t->last_t_ns = fmt_get64(q + 16);
	nops = fmt_get32(q + 24);
	q += 28;
	if (nops > 256 || (uint64_t)(end - q) < (uint64_t)nops * 16 + 8 * 4 + 8)
		goto corrupt;
	for (uint32_t i = 0; i < nops; i++, q += 16) {
		if (i < IST_OP_COUNT) {
			t->count[i] = fmt_get64(q);
			t->bytes[i] = fmt_get64(q + 8);
		}
	}
	t->streams = fmt_get64(q);
	t->txns = fmt_get64(q + 8);
	t->with_latency = fmt_get64(q + 16);
	t->out_of_order = fmt_get64(q + 24);
	t->flags_exact = fmt_get32(q + 32);
	ndev = fmt_get32(q + 36);
	q += 40;
	if (ndev > IST_MAX_FOOTER_DEVICES || (uint64_t)(end - q) < (uint64_t)ndev * 8)
		goto corrupt;
	if (ndev) {
		t->dev_max_end = malloc(ndev * sizeof(uint64_t));
		if (!t->dev_max_end) {
			free(idx);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < ndev; i++, q += 8)
			t->dev_max_end[i] = fmt_get64(q);
	}
	t->ndev = ndev;
	/* bytes left before the CRC belong to later minor versions */
	*idxp = idx;
	*nchunks = n;
	return 0;
corrupt:
	free(idx);
	return IST_ECORRUPT;
}
