/* SPDX-License-Identifier: MIT */
/* imp_stream.c - buffered, transparently decompressing input with line and offset counting. */
#include "config.h"

#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "core/bigmem.h"
#include "iostorm.h"
#include "import/imp_stream.h"

#define RAW_SIZE (256u << 10)              /* compressed input buffer */
#define BUF_SIZE (IMP_LINE_MAX + (64u << 10)) /* decompressed buffer  */

struct codec_ops {
	const char *name;
	unsigned char magic[6];
	unsigned magic_len;
	int (*init)(struct imp_stream *s);
	/* Decompresses into out[0..cap); returns bytes produced (0 = end) or
	 * a negative error. */
	ssize_t (*fill)(struct imp_stream *s, unsigned char *out, size_t cap);
	void (*end)(struct imp_stream *s);
};

struct imp_stream {
	int fd;                     /* -1 for memory input */
	const unsigned char *mem;   /* memory input */
	size_t mem_len, mem_pos;
	const struct codec_ops *codec;
	/* raw (compressed) bytes */
	unsigned char *raw;
	size_t raw_pos, raw_end;
	uint64_t raw_consumed;      /* raw bytes before raw[0] */
	int raw_eof;
	union {
		z_stream z;
		bz_stream bz;
		lzma_stream xz;
		ZSTD_DStream *zs;
	} u;
	size_t zs_next, zs_first;   /* zstd: input size it asks for next */
	int codec_done;             /* the last member ended */
	/* decompressed bytes */
	unsigned char *buf;
	size_t pos, end;
	uint64_t buf_base;          /* stream offset of buf[0] */
	int eof;
	uint64_t line;
	uint64_t last_offset;
	const char *err;
	uint64_t err_offset;        /* compressed byte offset of err */
};

/* Records a codec error and where in the compressed input it was found:
 * the decompressed offset of the last line says nothing of where the
 * damage is (a small file is decompressed whole before its first line). */
static void codec_error(struct imp_stream *s, const char *what)
{
	s->err = what;
	s->err_offset = s->raw_consumed + s->raw_pos;
}

/* ---------------------------------------------------------------- raw input */

static int raw_fill(struct imp_stream *s)
{
	ssize_t n;

	if (s->raw_pos > 0) {
		memmove(s->raw, s->raw + s->raw_pos, s->raw_end - s->raw_pos);
		s->raw_consumed += s->raw_pos;
		s->raw_end -= s->raw_pos;
		s->raw_pos = 0;
	}
	if (s->raw_eof || s->raw_end == RAW_SIZE)
		return 0;
	if (s->fd < 0) {
		size_t k = s->mem_len - s->mem_pos;

		if (k > RAW_SIZE - s->raw_end)
			k = RAW_SIZE - s->raw_end;
		memcpy(s->raw + s->raw_end, s->mem + s->mem_pos, k);
		s->mem_pos += k;
		s->raw_end += k;
		if (s->mem_pos == s->mem_len)
			s->raw_eof = 1;
		return 0;
	}
	do
		n = read(s->fd, s->raw + s->raw_end, RAW_SIZE - s->raw_end);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		s->raw_eof = 1;
	s->raw_end += n;
	return 0;
}

/* ---------------------------------------------------------------- codecs */

/*
 * Makes compressed input available for a codec: 1 if there is some, 0 at
 * the end of the input after a complete stream, IST_ETRUNC ("NAME data
 * truncated") at the end of the input within one, or a read error.
 */
static int raw_need(struct imp_stream *s, const char *truncated)
{
	int ret;

	if (s->raw_pos < s->raw_end)
		return 1;
	ret = raw_fill(s);
	if (ret)
		return ret;
	if (s->raw_pos < s->raw_end)
		return 1;
	if (s->codec_done)
		return 0;
	codec_error(s, truncated);
	return IST_ETRUNC;
}

/* Uncompressed input: what stream_start() read into raw first, then
 * straight into out (no copy through raw). */
static ssize_t plain_fill(struct imp_stream *s, unsigned char *out, size_t cap)
{
	size_t k;
	ssize_t n;

	if (s->raw_pos == s->raw_end) {
		if (s->raw_eof)
			return 0;
		if (s->fd < 0) {
			k = s->mem_len - s->mem_pos;
			if (k > cap)
				k = cap;
			memcpy(out, s->mem + s->mem_pos, k);
			s->mem_pos += k;
			s->raw_eof = s->mem_pos == s->mem_len;
			return k;
		}
		do
			n = read(s->fd, out, cap);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		s->raw_eof = n == 0;
		return n;
	}
	k = s->raw_end - s->raw_pos;
	if (k > cap)
		k = cap;
	memcpy(out, s->raw + s->raw_pos, k);
	s->raw_pos += k;
	return k;
}

static int gz_init(struct imp_stream *s)
{
	memset(&s->u.z, 0, sizeof(s->u.z));
	return inflateInit2(&s->u.z, 15 + 32) == Z_OK ? 0 : -ENOMEM;
}

static ssize_t gz_fill(struct imp_stream *s, unsigned char *out, size_t cap)
{
	z_stream *z = &s->u.z;
	int ret;

	z->next_out = out;
	z->avail_out = cap;
	while (z->avail_out == cap) {
		ret = raw_need(s, "gzip data truncated");
		if (ret <= 0)
			return ret;
		if (s->codec_done) {
			/* another member follows */
			if (inflateReset(z) != Z_OK)
				return -ENOMEM;
			s->codec_done = 0;
		}
		z->next_in = s->raw + s->raw_pos;
		z->avail_in = s->raw_end - s->raw_pos;
		ret = inflate(z, Z_NO_FLUSH);
		s->raw_pos = s->raw_end - z->avail_in;
		if (ret == Z_STREAM_END)
			s->codec_done = 1;
		else if (ret == Z_MEM_ERROR)
			return -ENOMEM;
		else if (ret != Z_OK && ret != Z_BUF_ERROR) {
			codec_error(s, "gzip data corrupt");
			return IST_EZLIB;
		}
	}
	return cap - z->avail_out;
}

static void gz_end(struct imp_stream *s)
{
	inflateEnd(&s->u.z);
}

static int bz_init(struct imp_stream *s)
{
	memset(&s->u.bz, 0, sizeof(s->u.bz));
	return BZ2_bzDecompressInit(&s->u.bz, 0, 0) == BZ_OK ? 0 : -ENOMEM;
}

static ssize_t bz_fill(struct imp_stream *s, unsigned char *out, size_t cap)
{
	bz_stream *bz = &s->u.bz;
	int ret;

	bz->next_out = (char *)out;
	bz->avail_out = cap;
	while (bz->avail_out == cap) {
		ret = raw_need(s, "bzip2 data truncated");
		if (ret <= 0)
			return ret;
		if (s->codec_done) {
			BZ2_bzDecompressEnd(bz);
			memset(bz, 0, sizeof(*bz));
			if (BZ2_bzDecompressInit(bz, 0, 0) != BZ_OK)
				return -ENOMEM;
			bz->next_out = (char *)out;
			bz->avail_out = cap;
			s->codec_done = 0;
		}
		bz->next_in = (char *)s->raw + s->raw_pos;
		bz->avail_in = s->raw_end - s->raw_pos;
		ret = BZ2_bzDecompress(bz);
		s->raw_pos = s->raw_end - bz->avail_in;
		if (ret == BZ_STREAM_END)
			s->codec_done = 1;
		else if (ret == BZ_MEM_ERROR)
			return -ENOMEM;
		else if (ret != BZ_OK) {
			codec_error(s, "bzip2 data corrupt");
			return IST_EZLIB;
		}
	}
	return cap - bz->avail_out;
}

static void bz_end(struct imp_stream *s)
{
	BZ2_bzDecompressEnd(&s->u.bz);
}

static int xz_init(struct imp_stream *s)
{
	lzma_stream init = LZMA_STREAM_INIT;

	s->u.xz = init;
	return lzma_stream_decoder(&s->u.xz, UINT64_MAX, LZMA_CONCATENATED) ==
			       LZMA_OK ? 0 : -ENOMEM;
}

static ssize_t xz_fill(struct imp_stream *s, unsigned char *out, size_t cap)
{
	lzma_stream *xz = &s->u.xz;
	lzma_ret ret;
	int r;

	if (s->codec_done)
		return 0;
	xz->next_out = out;
	xz->avail_out = cap;
	while (xz->avail_out == cap) {
		lzma_action act = LZMA_RUN;

		if (s->raw_pos == s->raw_end) {
			r = raw_fill(s);
			if (r)
				return r;
			if (s->raw_pos == s->raw_end)
				act = LZMA_FINISH;
		}
		xz->next_in = s->raw + s->raw_pos;
		xz->avail_in = s->raw_end - s->raw_pos;
		ret = lzma_code(xz, act);
		s->raw_pos = s->raw_end - xz->avail_in;
		if (ret == LZMA_STREAM_END) {
			s->codec_done = 1;
			break;
		}
		if (ret == LZMA_MEM_ERROR)
			return -ENOMEM;
		if (ret != LZMA_OK) {
			codec_error(s, ret == LZMA_BUF_ERROR ?
					       "xz data truncated" :
					       "xz data corrupt");
			return ret == LZMA_BUF_ERROR ? IST_ETRUNC : IST_EZLIB;
		}
	}
	return cap - xz->avail_out;
}

static void xz_end(struct imp_stream *s)
{
	lzma_end(&s->u.xz);
}

static int zs_init(struct imp_stream *s)
{
	s->u.zs = ZSTD_createDStream();
	if (!s->u.zs)
		return -ENOMEM;
	s->zs_first = s->zs_next = ZSTD_initDStream(s->u.zs);
	s->codec_done = 1; /* nothing pending before the first frame */
	return 0;
}

static ssize_t zs_fill(struct imp_stream *s, unsigned char *out, size_t cap)
{
	ZSTD_outBuffer ob = { out, cap, 0 };
	size_t ret;
	int r;

	while (ob.pos == 0) {
		ZSTD_inBuffer ib;

		r = raw_need(s, "zstd data truncated");
		if (r <= 0)
			return r;
		/*
		 * Only as much input as the decoder asks for (a frame header,
		 * a block header, a block): on an error it does not say how
		 * far it read, so a whole buffer given at once placed all
		 * damage at the buffer's start (offset 0 for a small file).
		 * This way the error lies in the slice just given, and its
		 * start is the damaged header's or block's offset.
		 */
		ib.src = s->raw + s->raw_pos;
		ib.size = s->raw_end - s->raw_pos;
		if (s->zs_next && ib.size > s->zs_next)
			ib.size = s->zs_next;
		ib.pos = 0;
		ret = ZSTD_decompressStream(s->u.zs, &ob, &ib);
		if (ZSTD_isError(ret)) {
			codec_error(s, "zstd data corrupt");
			return IST_EZLIB;
		}
		s->raw_pos += ib.pos;
		s->codec_done = ret == 0;
		/* 0: a frame ended; the next one starts with a header */
		s->zs_next = ret ? ret : s->zs_first;
		if (ib.pos == 0 && ob.pos == 0 && ret != 0 &&
		    s->raw_end - s->raw_pos == RAW_SIZE) {
			codec_error(s, "zstd data corrupt");
			return IST_EZLIB;
		}
	}
	return ob.pos;
}

static void zs_end(struct imp_stream *s)
{
	ZSTD_freeDStream(s->u.zs);
}

static const struct codec_ops codecs[] = {
	{ "gzip", { 0x1f, 0x8b }, 2, gz_init, gz_fill, gz_end },
	{ "bzip2", { 'B', 'Z', 'h' }, 3, bz_init, bz_fill, bz_end },
	{ "xz", { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6, xz_init, xz_fill, xz_end },
	{ "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4, zs_init, zs_fill, zs_end },
};

static const struct codec_ops plain = { "none", { 0 }, 0, NULL, plain_fill,
					NULL };

/* ---------------------------------------------------------------- stream */

static int stream_start(struct imp_stream *s)
{
	int ret;

	s->codec = &plain;
	/* fill enough raw bytes to see a magic number */
	while (!s->raw_eof && s->raw_end < 8) {
		ret = raw_fill(s);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++) {
		const struct codec_ops *c = &codecs[i];

		if (s->raw_end >= c->magic_len &&
		    !memcmp(s->raw, c->magic, c->magic_len)) {
			ret = c->init(s);
			if (ret)
				return ret;
			s->codec = c;
			break;
		}
	}
	return 0;
}

static struct imp_stream *stream_alloc(void)
{
	struct imp_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->raw = malloc(RAW_SIZE);
	/* 1 MiB and more: in a huge page (a first touch of its 4 KiB
	 * pages was 272 page faults, 19 % of a vscsi import's) */
	s->buf = ist_big_alloc(BUF_SIZE + 1);
	if (!s->raw || !s->buf) {
		free(s->raw);
		free(s->buf);
		free(s);
		return NULL;
	}
	s->fd = -1;
	s->err = "";
	return s;
}

int imp_stream_open(struct imp_stream **sp, const char *path)
{
	struct imp_stream *s;
	int ret;

	*sp = NULL;
	s = stream_alloc();
	if (!s)
		return -ENOMEM;
	if (!strcmp(path, "-"))
		s->fd = dup(0);
	else
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		ret = -errno;
		imp_stream_close(s);
		return ret;
	}
	posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	ret = stream_start(s);
	if (ret) {
		imp_stream_close(s);
		return ret;
	}
	*sp = s;
	return 0;
}

int imp_stream_open_mem(struct imp_stream **sp, const void *buf, size_t len)
{
	struct imp_stream *s;
	int ret;

	*sp = NULL;
	s = stream_alloc();
	if (!s)
		return -ENOMEM;
	s->mem = buf;
	s->mem_len = len;
	if (len == 0)
		s->raw_eof = 1;
	ret = stream_start(s);
	if (ret) {
		imp_stream_close(s);
		return ret;
	}
	*sp = s;
	return 0;
}

void imp_stream_close(struct imp_stream *s)
{
	if (!s)
		return;
	if (s->codec && s->codec->end)
		s->codec->end(s);
	if (s->fd >= 0)
		close(s->fd);
	free(s->raw);
	free(s->buf);
	free(s);
}

const char *imp_stream_codec(const struct imp_stream *s)
{
	return s->codec->name;
}

/* Moves unread data to the front and decompresses more until the buffer
 * is full or the stream ends. */
static int refill(struct imp_stream *s)
{
	ssize_t n;

	if (s->pos > 0) {
		memmove(s->buf, s->buf + s->pos, s->end - s->pos);
		s->buf_base += s->pos;
		s->end -= s->pos;
		s->pos = 0;
	}
	while (!s->eof && s->end < BUF_SIZE) {
		n = s->codec->fill(s, s->buf + s->end, BUF_SIZE - s->end);
		if (n < 0)
			return n;
		if (n == 0)
			s->eof = 1;
		s->end += n;
	}
	return 0;
}

ssize_t imp_stream_peek(struct imp_stream *s, const unsigned char **p,
			size_t want)
{
	int ret;

	if (want > (64u << 10))
		want = 64u << 10;
	if (s->end - s->pos < want && !s->eof) {
		ret = refill(s);
		if (ret)
			return ret;
	}
	*p = s->buf + s->pos;
	return s->end - s->pos < want ? s->end - s->pos : want;
}

int imp_stream_getline(struct imp_stream *s, char **line, size_t *len)
{
	unsigned char *start, *nl;
	size_t n;
	int ret;

	nl = memchr(s->buf + s->pos, '\n', s->end - s->pos);
	if (!nl) {
		if (!s->eof) {
			ret = refill(s);
			if (ret)
				return ret;
			nl = memchr(s->buf + s->pos, '\n', s->end - s->pos);
		}
		if (!nl) {
			if (s->end - s->pos > IMP_LINE_MAX) {
				s->last_offset = s->buf_base + s->pos;
				s->line++;
				return IST_ERANGE;
			}
			if (s->pos == s->end)
				return 0;
			/* last line without a newline */
			nl = s->buf + s->end;
		}
	}
	start = s->buf + s->pos;
	n = nl - start;
	if (n > IMP_LINE_MAX) {
		s->last_offset = s->buf_base + s->pos;
		s->line++;
		return IST_ERANGE;
	}
	s->last_offset = s->buf_base + s->pos;
	s->pos += n + (nl < s->buf + s->end);
	if (n && start[n - 1] == '\r')
		n--;
	start[n] = '\0'; /* safe: buf has one spare byte past BUF_SIZE */
	s->line++;
	*line = (char *)start;
	*len = n;
	return 1;
}

ssize_t imp_stream_take(struct imp_stream *s, const unsigned char **p,
			size_t n)
{
	size_t k;
	int ret;

	if (n > (64u << 10))
		n = 64u << 10;
	if (s->end - s->pos < n && !s->eof) {
		ret = refill(s);
		if (ret)
			return ret;
	}
	k = s->end - s->pos < n ? s->end - s->pos : n;
	s->last_offset = s->buf_base + s->pos;
	*p = s->buf + s->pos;
	s->pos += k;
	return k;
}

size_t imp_stream_buffered(struct imp_stream *s, const unsigned char **p)
{
	*p = s->buf + s->pos;
	return s->end - s->pos;
}

void imp_stream_consume(struct imp_stream *s, size_t n, size_t rec)
{
	if (!n)
		return;
	s->last_offset = s->buf_base + s->pos + n - rec;
	s->pos += n;
}

ssize_t imp_stream_read(struct imp_stream *s, void *out, size_t n)
{
	size_t got = 0, k;
	int ret;

	s->last_offset = s->buf_base + s->pos;
	while (got < n) {
		if (s->pos == s->end) {
			if (s->eof)
				break;
			ret = refill(s);
			if (ret)
				return ret;
			continue;
		}
		k = s->end - s->pos;
		if (k > n - got)
			k = n - got;
		memcpy((unsigned char *)out + got, s->buf + s->pos, k);
		s->pos += k;
		got += k;
	}
	return got;
}

uint64_t imp_stream_line(const struct imp_stream *s)
{
	return s->line;
}

uint64_t imp_stream_offset(const struct imp_stream *s)
{
	return s->last_offset;
}

const char *imp_stream_error(const struct imp_stream *s)
{
	return s->err;
}

uint64_t imp_stream_error_offset(const struct imp_stream *s)
{
	return s->err_offset;
}
