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

/* Devices [from, to) of h as the device table codes them. */
static void put_devices(struct obuf *b, const ist_header *h, unsigned from,
			unsigned to)
{
	for (unsigned i = from; i < to; i++) {
		const struct ist_device *d = ist_header_device(h, i);

		put_str(b, d->name);
		put_varint(b, d->size);
		put_varint(b, d->block_size);
	}
}

static void put_meta(struct obuf *b, const ist_header *h)
{
	unsigned nmeta = ist_header_meta_count(h);

	put_varint(b, nmeta);
	for (unsigned i = 0; i < nmeta; i++) {
		const char *k, *v;

		ist_header_meta_at(h, i, &k, &v);
		put_str(b, k);
		put_str(b, v);
	}
}

int fmt_header_encode(const ist_header *h, uint8_t **buf, size_t *len)
{
	struct obuf b = { 0 };
	unsigned ndev = ist_header_device_count(h);

	put_meta(&b, h);
	put_varint(&b, ndev);
	put_devices(&b, h, 0, ndev);
	return obuf_finish(&b, buf, len);
}

/* Deflates [in, in + len) into a new buffer; its size, or 0 on failure
 * or when it would not save a quarter. */
static size_t deflate_table(const uint8_t *in, size_t len, uint8_t **out)
{
	z_stream zs;
	size_t cap, zlen = 0;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	cap = deflateBound(&zs, (uLong)len);
	*out = malloc(cap);
	if (*out) {
		zs.next_in = (Bytef *)in;
		zs.avail_in = (uInt)len;
		zs.next_out = *out;
		zs.avail_out = (uInt)cap;
		if (deflate(&zs, Z_FINISH) == Z_STREAM_END)
			zlen = cap - zs.avail_out;
	}
	deflateEnd(&zs);
	if (zlen == 0 || zlen > len - len / 4) {
		free(*out);
		*out = NULL;
		return 0;
	}
	return zlen;
}

int fmt_header_encode_packed(const ist_header *h, uint8_t **buf, size_t *len)
{
	struct obuf b = { 0 }, t = { 0 };
	unsigned ndev = ist_header_device_count(h);
	uint8_t *z = NULL;
	size_t zlen = 0;

	if (ndev >= FMT_PACK_MIN_DEVICES) {
		put_devices(&t, h, 0, ndev);
		if (t.err)
			return t.err;
		zlen = deflate_table(t.p, t.len, &z);
	}
	put_meta(&b, h);
	if (zlen) {
		/* no plain devices; the packed table */
		put_varint(&b, 0);
		put_varint(&b, ndev);
		put_varint(&b, t.len);
		put_varint(&b, zlen);
		put_bytes(&b, z, zlen);
	} else {
		put_varint(&b, ndev);
		put_devices(&b, h, 0, ndev);
		put_varint(&b, 0);
	}
	free(z);
	free(t.p);
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

/* Reads n devices into h; 0 or a negative error. */
static int get_devices(const uint8_t **pp, const uint8_t *end, uint64_t n,
		       ist_header *h)
{
	for (uint64_t i = 0; i < n; i++) {
		char *name = NULL;
		uint64_t size, bs;
		int ret;

		ret = get_str(pp, end, &name);
		if (ret)
			return ret;
		if (fmt_get_varint(pp, end, &size) ||
		    fmt_get_varint(pp, end, &bs) || bs > UINT32_MAX) {
			free(name);
			return IST_ECORRUPT;
		}
		ret = ist_header_add_device(h, name, size, (uint32_t)bs);
		free(name);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The packed device table (1.3): npacked devices more, deflated. */
static int get_packed_devices(const uint8_t **pp, const uint8_t *end,
			      ist_header *h)
{
	uint64_t n, raw_len, zlen;
	const uint8_t *q;
	uint8_t *raw;
	z_stream zs;
	int ret, zr;

	if (fmt_get_varint(pp, end, &n))
		return IST_ECORRUPT;
	if (n == 0)
		return 0;
	if (n > IST_MAX_FOOTER_DEVICES - ist_header_device_count(h) ||
	    fmt_get_varint(pp, end, &raw_len) || raw_len > FMT_MAX_HDR ||
	    raw_len < n * 3 || fmt_get_varint(pp, end, &zlen) ||
	    zlen > (uint64_t)(end - *pp))
		return IST_ECORRUPT;
	raw = malloc(raw_len);
	if (!raw)
		return -ENOMEM;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, -15) != Z_OK) {
		free(raw);
		return IST_EZLIB;
	}
	zs.next_in = (Bytef *)*pp;
	zs.avail_in = (uInt)zlen;
	zs.next_out = raw;
	zs.avail_out = (uInt)raw_len;
	zr = inflate(&zs, Z_FINISH);
	ret = zr != Z_STREAM_END || zs.avail_out || zs.avail_in ? IST_ECORRUPT : 0;
	inflateEnd(&zs);
	q = raw;
	if (!ret)
		ret = get_devices(&q, raw + raw_len, n, h);
	if (!ret && q != raw + raw_len)
		ret = IST_ECORRUPT;
	free(raw);
	*pp += zlen;
	return ret;
}

/* The header body (or footer metadata) of a file of the given minor
 * version: packed devices only in headers of 1.3 and later. */
static int header_decode(const uint8_t *p, size_t len, ist_header **hp,
			 int packed)
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
	ret = get_devices(&p, end, n, h);
	if (!ret && packed)
		ret = get_packed_devices(&p, end, h);
	if (ret)
		goto fail;
	/* bytes after the device table belong to later minor versions */
	*hp = h;
	return 0;
fail:
	ist_header_free(h);
	return ret;
}

int fmt_header_decode(const uint8_t *p, size_t len, ist_header **hp)
{
	return header_decode(p, len, hp, 0);
}

int fmt_header_decode_minor(const uint8_t *p, size_t len, unsigned minor,
			    ist_header **hp)
{
	return header_decode(p, len, hp, minor >= FMT_MINOR_ARITH);
}

int fmt_footer_encode(const struct ist_chunk_info *idx, uint64_t nchunks,
		      const struct ist_totals *t, const ist_header *ext,
		      uint8_t **buf, size_t *len)
{
	struct obuf b = { 0 };
	uint64_t prev = 0;
	uint8_t *p;

	put_bytes(&b, FMT_FOOTER_MAGIC, 4);
	put_varint(&b, nchunks);
	for (uint64_t i = 0; i < nchunks; i++) {
		put_varint(&b, idx[i].offset - prev);
		put_varint(&b, idx[i].first_t_ns);
		put_varint(&b, idx[i].last_t_ns - idx[i].first_t_ns);
		put_varint(&b, idx[i].count);
		prev = idx[i].offset;
	}
	put_varint(&b, t->records);
	put_varint(&b, t->first_t_ns);
	put_varint(&b, t->last_t_ns);
	put_varint(&b, IST_OP_COUNT);
	for (unsigned i = 0; i < IST_OP_COUNT; i++) {
		put_varint(&b, t->count[i]);
		put_varint(&b, t->bytes[i]);
	}
	put_varint(&b, t->streams);
	put_varint(&b, t->txns);
	put_varint(&b, t->with_latency);
	put_varint(&b, t->out_of_order);
	put_varint(&b, t->flags_exact);
	put_varint(&b, t->ndev);
	for (uint32_t i = 0; i < t->ndev; i++)
		put_varint(&b, t->dev_max_end[i]);
	if (ext) {
		uint8_t *body;
		size_t blen;
		int ret = fmt_header_encode(ext, &body, &blen);

		if (ret) {
			free(b.p);
			return ret;
		}
		put_bytes(&b, body, blen);
		free(body);
	}
	p = obuf_room(&b, 4);
	if (p) {
		fmt_put32(p, (uint32_t)crc32(0, b.p, (uInt)b.len));
		b.len += 4;
	}
	return obuf_finish(&b, buf, len);
}

int fmt_footer_decode(const uint8_t *p, size_t len, struct ist_chunk_info **idxp,
		      uint64_t *nchunks, struct ist_totals *t, ist_header **ext)
{
	const uint8_t *end, *q;
	struct ist_chunk_info *idx = NULL;
	uint64_t n, prev = 0, v[16], nops, ndev;

	memset(t, 0, sizeof(*t));
	if (len < 4 + 4 || memcmp(p, FMT_FOOTER_MAGIC, 4))
		return IST_ECORRUPT;
	if (fmt_get32(p + len - 4) != (uint32_t)crc32(0, p, (uInt)(len - 4)))
		return IST_ECRC;
	end = p + len - 4;
	q = p + 4;
	if (fmt_get_varint(&q, end, &n) || n > (uint64_t)(end - q) / 4)
		return IST_ECORRUPT;
	idx = malloc((n ? n : 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		for (int k = 0; k < 4; k++)
			if (fmt_get_varint(&q, end, &v[k]))
				goto corrupt;
		if (v[3] > UINT32_MAX || v[0] > UINT64_MAX - prev ||
		    v[2] > UINT64_MAX - v[1])
			goto corrupt;
		prev += v[0];
		idx[i].offset = prev;
		idx[i].first_t_ns = v[1];
		idx[i].last_t_ns = v[1] + v[2];
		idx[i].count = (uint32_t)v[3];
	}
	if (fmt_get_varint(&q, end, &t->records) ||
	    fmt_get_varint(&q, end, &t->first_t_ns) ||
	    fmt_get_varint(&q, end, &t->last_t_ns) ||
	    fmt_get_varint(&q, end, &nops) || nops > 256)
		goto corrupt;
	for (uint64_t i = 0; i < nops; i++) {
		if (fmt_get_varint(&q, end, &v[0]) || fmt_get_varint(&q, end, &v[1]))
			goto corrupt;
		if (i < IST_OP_COUNT) {
			t->count[i] = v[0];
			t->bytes[i] = v[1];
		}
	}
	if (fmt_get_varint(&q, end, &t->streams) ||
	    fmt_get_varint(&q, end, &t->txns) ||
	    fmt_get_varint(&q, end, &t->with_latency) ||
	    fmt_get_varint(&q, end, &t->out_of_order) ||
	    fmt_get_varint(&q, end, &v[0]) || v[0] > UINT32_MAX ||
	    fmt_get_varint(&q, end, &ndev) || ndev > IST_MAX_FOOTER_DEVICES ||
	    ndev > (uint64_t)(end - q))
		goto corrupt;
	t->flags_exact = (uint32_t)v[0];
	if (ndev) {
		t->dev_max_end = malloc(ndev * sizeof(uint64_t));
		if (!t->dev_max_end) {
			free(idx);
			return -ENOMEM;
		}
		for (uint64_t i = 0; i < ndev; i++)
			if (fmt_get_varint(&q, end, &t->dev_max_end[i])) {
				ist_totals_release(t);
				goto corrupt;
			}
	}
	t->ndev = (uint32_t)ndev;
	if (ext) {
		int ret = fmt_header_decode(q, (size_t)(end - q), ext);

		if (ret) {
			ist_totals_release(t);
			free(idx);
			return ret;
		}
	}
	/* bytes left before the CRC belong to later minor versions */
	*idxp = idx;
	*nchunks = n;
	return 0;
corrupt:
	free(idx);
	return IST_ECORRUPT;
}
