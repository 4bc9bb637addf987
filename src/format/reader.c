/* SPDX-License-Identifier: MIT */
/* reader.c - streaming IST reader: header, footer or chunk scan, chunk decoding, seeking. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include "format/fmt.h"

struct ist_reader {
	int fd;
	uint64_t file_size;
	unsigned major, minor;
	ist_header *h;
	uint64_t data_start;  /* first byte after the header */
	uint64_t data_end;    /* footer offset, or file size without one */
	int has_footer;
	int footer_err;       /* why there is no usable footer */
	struct ist_totals totals;
	ist_header *foot;     /* footer metadata (1.2), merged into h */
	struct ist_chunk_info *idx;
	uint64_t nchunks, idx_cap;

	uint64_t next;        /* next chunk to load */
	/* The chunk being decoded: payload, scratch and the column cursors
	 * hold its state while a caller reads it in pieces. */
	uint64_t cur_chunk;
	uint32_t cur_count, cur_done; /* its records, those decoded */
	int cur_err;          /* the rest of it was lost: the next read's */
	struct ist_record *check_buf; /* for ist_reader_check_chunk() */
	size_t check_cap;
	uint64_t returned;    /* records returned so far */
	struct ist_position pos;

	uint8_t *payload;     /* chunk payload as stored (+ FMT_PAD) */
	size_t payload_cap;
	uint8_t *scratch;     /* inflated columns (+ FMT_PAD) */
	size_t scratch_cap;
	z_stream zs;
	int zs_ready;
#ifdef HAVE_LIBDEFLATE
	struct libdeflate_decompressor *ld;
#endif
	struct fmt_hist *hist;
	/* ANS decoding tables, a set per lane: the first from malloc() as
	 * before the lanes, the second mmap()ed, so that the malloc heap is
	 * left as it was (with 160 KiB from malloc(), glibc's mmap and trim
	 * thresholds moved, and a writer opened after the reader took its
	 * buffers' pages afresh: 3200 more page faults, ist_speed's encode
	 * of msr and systor 20 % slower) */
	struct fmt_ans_dec *ans[2];
	struct fmt_colcur cur[FMT_NCOLS];
	/* VANS columns decoded into values (count + 1 entries each) */
	uint64_t *vals;
	size_t vals_cap;
	/* the chunk's CONST columns' values, copied into every record
	 * (nconst of them), and the columns decoded block by block */
	struct ist_record tpl;
	unsigned nconst, nlive;
	uint8_t live[FMT_NCOLS];
};

/* Records decoded per block (48 KiB of records: they stay in L2). */
#define DECODE_BLOCK 1024u

static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return IST_ETRUNC;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int grow(void **p, size_t *cap, size_t need)
{
	void *n;

	if (*cap >= need)
		return 0;
	n = realloc(*p, need);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = need;
	return 0;
}

static int read_header(ist_reader *r)
{
	uint8_t fixed[FMT_FIXED_HDR], *buf;
	uint32_t hlen;
	int ret;

	ret = pread_all(r->fd, fixed, sizeof(fixed), 0);
	if (ret == IST_ETRUNC) {
		/* a short file is not an IST file unless its start says so */
		size_t n = r->file_size < FMT_MAGIC_LEN ? r->file_size : FMT_MAGIC_LEN;

		if (n == 0 || pread_all(r->fd, fixed, n, 0) ||
		    memcmp(fixed, FMT_MAGIC, n))
			return IST_EFORMAT;
		return IST_ETRUNC;
	}
	if (ret)
		return ret;
	if (memcmp(fixed, FMT_MAGIC, FMT_MAGIC_LEN))
		return IST_EFORMAT;
	r->major = fmt_get16(fixed + 8);
	r->minor = fmt_get16(fixed + 10);
	if (r->major != FMT_MAJOR)
		return IST_EVERSION;
	hlen = fmt_get32(fixed + 12);
	if (hlen < FMT_FIXED_HDR + 4 || hlen > FMT_MAX_HDR)
		return IST_ECORRUPT;
	if (hlen > r->file_size)
		return IST_ETRUNC;
	buf = malloc(hlen);
	if (!buf)
		return -ENOMEM;
	ret = pread_all(r->fd, buf, hlen, 0);
	if (!ret && fmt_get32(buf + hlen - 4) != (uint32_t)crc32(0, buf, hlen - 4))
		ret = IST_ECRC;
	if (!ret)
		ret = fmt_header_decode_minor(buf + FMT_FIXED_HDR,
					      hlen - FMT_FIXED_HDR - 4,
					      r->minor, &r->h);
	free(buf);
	r->data_start = hlen;
	return ret;
}

/* Most payload bytes a chunk of count records can have. */
static uint64_t payload_bound(uint64_t count)
{
	return FMT_NCOLS * (uint64_t)FMT_MAX_COL_BYTES(count) + 1 + 32 * 64;
}

/* Checks a chunk header; 0, IST_ECORRUPT or IST_ECRC. */
static int check_chunk_header(const uint8_t *hdr)
{
	uint32_t count;

	if (memcmp(hdr, FMT_CHUNK_MAGIC, 4))
		return IST_ECORRUPT;
	if (fmt_get32(hdr + 36) != (uint32_t)crc32(0, hdr, 36))
		return IST_ECRC;
	count = fmt_get32(hdr + 4);
	if (count == 0 || count > FMT_MAX_CHUNK)
		return IST_ECORRUPT;
	if (fmt_get32(hdr + 28) > payload_bound(count) ||
	    fmt_get32(hdr + 24) > FMT_NCOLS * (uint64_t)FMT_MAX_COL_BYTES(count))
		return IST_ECORRUPT;
	if (fmt_get64(hdr + 8) > fmt_get64(hdr + 16))
		return IST_ECORRUPT; /* the first t cannot exceed the largest */
	return 0;
}

static int index_add(ist_reader *r, const struct ist_chunk_info *ci)
{
	if (r->nchunks == r->idx_cap) {
		uint64_t cap = r->idx_cap ? r->idx_cap * 2 : 64;
		struct ist_chunk_info *n = realloc(r->idx, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->idx = n;
		r->idx_cap = cap;
	}
	r->idx[r->nchunks++] = *ci;
	return 0;
}

/*
 * Looks for the next valid chunk header at or after off (a damaged header
 * is skipped by searching for the chunk magic); returns 1 and its offset,
 * 0 when there is none, or a negative error.
 */
static int find_chunk(ist_reader *r, uint64_t off, uint64_t *found)
{
	uint8_t buf[65536 + FMT_CHUNK_HDR];

	while (off + FMT_CHUNK_HDR <= r->file_size) {
		size_t n = sizeof(buf);
		int ret;

		if (r->file_size - off < n)
			n = (size_t)(r->file_size - off);
		ret = pread_all(r->fd, buf, n, off);
		if (ret)
			return ret;
		for (size_t i = 0; i + FMT_CHUNK_HDR <= n; i++) {
			if (buf[i] != 'I' || memcmp(buf + i, FMT_CHUNK_MAGIC, 4))
				continue;
			if (check_chunk_header(buf + i) == 0) {
				*found = off + i;
				return 1;
			}
		}
		if (n < sizeof(buf))
			break;
		off += n - FMT_CHUNK_HDR + 1;
	}
	return 0;
}

/* Builds the chunk index by scanning (no usable footer). */
static int scan_chunks(ist_reader *r)
{
	uint64_t off = r->data_start;

	r->nchunks = 0;
	for (;;) {
		uint8_t hdr[FMT_CHUNK_HDR];
		struct ist_chunk_info ci;
		uint64_t end;
		int ret;

		ret = find_chunk(r, off, &off);
		if (ret <= 0)
			return ret;
		ret = pread_all(r->fd, hdr, sizeof(hdr), off);
		if (ret)
			return ret;
		end = off + FMT_CHUNK_HDR + fmt_get32(hdr + 28);
		if (end > r->file_size) /* torn last chunk */
			return 0;
		ci.offset = off;
		ci.count = fmt_get32(hdr + 4);
		ci.first_t_ns = fmt_get64(hdr + 8);
		ci.last_t_ns = fmt_get64(hdr + 16);
		ret = index_add(r, &ci);
		if (ret)
			return ret;
		off = end;
	}
}

/*
 * A footer key device.N.size or device.N.block_size (N and the value in
 * decimal, no sign or leading zero) is a device geometry learned after the
 * header was written: 1 size, 2 block size, 0 an ordinary key.
 */
static int geometry_key(const char *k, const char *v, unsigned *dev, uint64_t *val)
{
	const char *p;
	char *end;
	int kind;

	if (strncmp(k, "device.", 7))
		return 0;
	p = k + 7;
	if (*p < '0' || *p > '9' || (*p == '0' && p[1] != '.'))
		return 0;
	errno = 0;
	*dev = (unsigned)strtoul(p, &end, 10);
	if (errno || end - p > 5 || *end != '.')
		return 0;
	if (!strcmp(end, ".size"))
		kind = 1;
	else if (!strcmp(end, ".block_size"))
		kind = 2;
	else
		return 0;
	if (*v < '0' || *v > '9' || (*v == '0' && v[1]))
		return 0;
	errno = 0;
	*val = strtoull(v, &end, 10);
	if (errno || *end || (kind == 2 && *val > UINT32_MAX))
		return 0;
	return kind;
}

/* Footer metadata joins the header's: a key replaces the header's value,
 * devices follow the header's table, device geometry keys update the
 * merged table (and are not kept as metadata). */
static int merge_footer_meta(ist_reader *r)
{
	ist_header *m = ist_header_dup(r->h);
	unsigned n = ist_header_meta_count(r->foot);
	unsigned ndev = ist_header_device_count(r->foot);
	int ret = 0;

	if (!m)
		return -ENOMEM;
	if (ist_header_device_count(m) + ndev > IST_MAX_FOOTER_DEVICES)
		ret = IST_ECORRUPT;
	for (unsigned i = 0; !ret && i < ndev; i++) {
		const struct ist_device *d = ist_header_device(r->foot, i);
		int idx = ist_header_add_device(m, d->name, d->size, d->block_size);

		ret = idx < 0 ? idx : 0;
	}
	for (unsigned i = 0; !ret && i < n; i++) {
		const char *k, *v;
		unsigned dev;
		uint64_t val;
		int kind;

		ist_header_meta_at(r->foot, i, &k, &v);
		kind = geometry_key(k, v, &dev, &val);
		if (kind && dev < ist_header_device_count(m))
			ret = kind == 1 ? ist_header_set_device_size(m, dev, val) :
			      ist_header_set_device_block_size(m, dev, (uint32_t)val);
		else
			ret = ist_header_set(m, k, v);
	}
	if (ret) {
		ist_header_free(m);
		return ret;
	}
	ist_header_free(r->h);
	r->h = m;
	return 0;
}

/* Reads and checks the trailer and footer; 0 or why they are unusable. */
static int read_footer(ist_reader *r)
{
	uint8_t tr[FMT_TRAILER], *buf;
	uint64_t off, sum = 0;
	uint32_t len;
	int ret;

	if (r->file_size < r->data_start + FMT_TRAILER)
		return IST_ENOFOOTER;
	ret = pread_all(r->fd, tr, sizeof(tr), r->file_size - FMT_TRAILER);
	if (ret)
		return ret;
	if (memcmp(tr + 16, FMT_TRAILER_MAGIC, 8))
		return IST_ENOFOOTER;
	if (fmt_get32(tr + 12) != (uint32_t)crc32(0, tr, 12))
		return IST_ECRC;
	off = fmt_get64(tr);
	len = fmt_get32(tr + 8);
	if (off < r->data_start || off > r->file_size ||
	    (uint64_t)len != r->file_size - FMT_TRAILER - off)
		return IST_ECORRUPT;
	buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	ret = pread_all(r->fd, buf, len, off);
	if (!ret)
		ret = fmt_footer_decode(buf, len, &r->idx, &r->nchunks, &r->totals,
					r->minor >= FMT_MINOR_FOOTER_META ?
					&r->foot : NULL);
	free(buf);
	if (ret)
		return ret;
	r->idx_cap = r->nchunks;
	/* the index must describe chunks in file order before the footer */
	for (uint64_t i = 0; i < r->nchunks; i++) {
		const struct ist_chunk_info *ci = &r->idx[i];
		uint64_t min = i ? r->idx[i - 1].offset + FMT_CHUNK_HDR : r->data_start;

		if (ci->offset < min || ci->offset > off - FMT_CHUNK_HDR ||
		    ci->count == 0 || ci->count > FMT_MAX_CHUNK ||
		    ci->first_t_ns > ci->last_t_ns)
			ret = IST_ECORRUPT;
		sum += ci->count;
	}
	if (!ret && sum != r->totals.records)
		ret = IST_ECORRUPT;
	if (!ret && r->foot)
		ret = merge_footer_meta(r);
	if (ret) {
		ist_header_free(r->foot);
		r->foot = NULL;
		free(r->idx);
		r->idx = NULL;
		r->nchunks = r->idx_cap = 0;
		ist_totals_release(&r->totals);
		memset(&r->totals, 0, sizeof(r->totals));
		return ret;
	}
	r->data_end = off;
	return 0;
}

int ist_reader_open(ist_reader **rp, const char *path)
{
	ist_reader *r;
	struct stat st;
	int ret;

	*rp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		ret = -errno;
		free(r);
		return ret;
	}
	if (fstat(r->fd, &st)) {
		ret = -errno;
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		goto fail;
	}
	r->file_size = (uint64_t)st.st_size;
	ret = read_header(r);
	if (ret)
		goto fail;
	/* mmap()ed: a slot's 128 bytes of history in two cache lines (from
	 * calloc(), 16 bytes past a page, each spanned three) */
	r->hist = mmap(NULL, sizeof(*r->hist), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->hist == MAP_FAILED)
		r->hist = NULL;
	r->ans[0] = malloc(sizeof(*r->ans[0]));
	r->ans[1] = mmap(NULL, sizeof(*r->ans[1]), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->ans[1] == MAP_FAILED)
		r->ans[1] = NULL;
	if (!r->hist || !r->ans[0] || !r->ans[1]) {
		ret = -ENOMEM;
		goto fail;
	}
	if (inflateInit2(&r->zs, -15) != Z_OK) {
		ret = IST_EZLIB;
		goto fail;
	}
	r->zs_ready = 1;
#ifdef HAVE_LIBDEFLATE
	r->ld = libdeflate_alloc_decompressor();
	if (!r->ld) {
		ret = -ENOMEM;
		goto fail;
	}
#endif
	r->footer_err = read_footer(r);
	if (r->footer_err < 0 && r->footer_err > -IST_E_BASE) {
		ret = r->footer_err; /* an I/O error, not damage */
		goto fail;
	}
	r->has_footer = r->footer_err == 0;
	if (!r->has_footer) {
		r->data_end = r->file_size;
		ret = scan_chunks(r);
		if (ret)
			goto fail;
	}
	*rp = r;
	return 0;
fail:
	ist_reader_close(r);
	return ret;
}

void ist_reader_close(ist_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	if (r->zs_ready)
		inflateEnd(&r->zs);
#ifdef HAVE_LIBDEFLATE
	if (r->ld)
		libdeflate_free_decompressor(r->ld);
#endif
	ist_header_free(r->h);
	ist_header_free(r->foot);
	ist_totals_release(&r->totals);
	free(r->idx);
	free(r->check_buf);
	free(r->payload);
	free(r->scratch);
	free(r->vals);
	if (r->hist)
		munmap(r->hist, sizeof(*r->hist));
	free(r->ans[0]);
	if (r->ans[1])
		munmap(r->ans[1], sizeof(*r->ans[1]));
	free(r);
}

const ist_header *ist_reader_header(const ist_reader *r)
{
	return r->h;
}

int ist_reader_version(const ist_reader *r, unsigned *major, unsigned *minor)
{
	if (major)
		*major = r->major;
	if (minor)
		*minor = r->minor;
	return 0;
}

const ist_header *ist_reader_footer_meta(const ist_reader *r)
{
	if (!r->foot || (!ist_header_meta_count(r->foot) &&
			 !ist_header_device_count(r->foot)))
		return NULL;
	return r->foot;
}

int ist_reader_has_footer(const ist_reader *r)
{
	return r->has_footer;
}

int ist_reader_footer_error(const ist_reader *r)
{
	return r->footer_err;
}

const struct ist_totals *ist_reader_totals(const ist_reader *r)
{
	return r->has_footer ? &r->totals : NULL;
}

uint64_t ist_reader_chunk_count(const ist_reader *r)
{
	return r->nchunks;
}

int ist_reader_chunk_info(const ist_reader *r, uint64_t i,
			  struct ist_chunk_info *ci)
{
	if (i >= r->nchunks)
		return IST_ERANGE;
	*ci = r->idx[i];
	return 0;
}

uint64_t ist_reader_file_size(const ist_reader *r)
{
	return r->file_size;
}

/*
 * Inflates a column; the result must be exactly want bytes, from exactly
 * inlen bytes.  With libdeflate (configure finds it): its decompressor
 * inflates whole buffers 2-3 times as fast as zlib's inflate() (which was
 * 40 % of the decode of cloudphysics, whose offsets are deflated), and
 * the bytes out are the same (a deflate stream has one decoding).
 */
static int inflate_column(ist_reader *r, const uint8_t *in, size_t inlen,
			  uint8_t *out, size_t want)
{
#ifdef HAVE_LIBDEFLATE
	size_t used, got;

	if (libdeflate_deflate_decompress_ex(r->ld, in, inlen, out, want, &used,
					     &got) != LIBDEFLATE_SUCCESS ||
	    used != inlen || got != want)
		return IST_EZLIB;
	return 0;
#else
	int zr;

	if (inflateReset(&r->zs) != Z_OK)
		return IST_EZLIB;
	r->zs.next_in = (Bytef *)in;
	r->zs.avail_in = (uInt)inlen;
	r->zs.next_out = out;
	r->zs.avail_out = (uInt)want;
	zr = inflate(&r->zs, Z_FINISH);
	if (zr != Z_STREAM_END || r->zs.avail_out || r->zs.avail_in)
		return IST_EZLIB;
	return 0;
#endif
}

/* The CRC-32 of a chunk payload (zlib's: libdeflate's computes the same
 * value several times as fast, 3 % of the synthetic trace's decode). */
static uint32_t payload_crc(const uint8_t *p, size_t len)
{
#ifdef HAVE_LIBDEFLATE
	return libdeflate_crc32(0, p, len);
#else
	return (uint32_t)crc32(0, p, len);
#endif
}

/* Decodes stored column d at src into dst (room for its raw_len): 0 or
 * the error its storage's decoder gives. */
static int decode_column(ist_reader *r, const struct fmt_coldesc *d,
			 const uint8_t *src, uint8_t *dst)
{
	switch (d->store) {
	case FMT_STORE_DEFLATE:
		return inflate_column(r, src, d->stored_len, dst, d->raw_len);
	case FMT_STORE_ARITH:
		return fmt_arith_decode(src, d->stored_len, dst, d->raw_len);
	case FMT_STORE_VANS:
		return fmt_vans_decode(src, d->stored_len, dst, d->raw_len);
	case FMT_STORE_ANS:
		return fmt_ans_decode(r->ans[0], src, d->stored_len, dst,
				      d->raw_len);
	default:
		return 0;
	}
}

/*
 * The stored columns of a chunk decoded one by one, in column order, up to
 * column last (FMT_NCOLS: all): the error of the first that fails, as the
 * reader reports it.  Only after a failure of the faster path (the ANS
 * columns two at a time, after the others), to say which error it was.
 */
static int decode_stored(ist_reader *r, const struct fmt_coldesc *desc,
			 const uint8_t *p, unsigned last)
{
	uint64_t data_len = 0, scratch_used = 0;
	int ret = 0;

	for (unsigned c = 0; c < FMT_NCOLS && c <= last && !ret; c++) {
		ret = decode_column(r, &desc[c], p + data_len,
				    r->scratch + scratch_used);
		if (desc[c].store != FMT_STORE_PLAIN)
			scratch_used += desc[c].raw_len;
		data_len += desc[c].stored_len;
	}
	return ret ? ret : IST_ECORRUPT;
}

static int job_longer(const void *a, const void *b)
{
	const struct fmt_ans_job *x = a, *y = b;

	return x->want < y->want ? 1 : x->want > y->want ? -1 : 0;
}

/* Whether the stored column at src is decoded into values: VANS in value
 * mode, of a coding whose decoder reads values. */
static inline int valued_column(const struct fmt_coldesc *d, const uint8_t *src)
{
	return d->store == FMT_STORE_VANS && fmt_colcur_takes_values(d->coding) &&
	       fmt_vans_values(src, d->stored_len);
}

/* Reads and checks chunk i and positions the column cursors at its
 * start (r->cur_*: nothing decoded yet). */
static int prepare_chunk(ist_reader *r, uint64_t i)
{
	const struct ist_chunk_info *ci = &r->idx[i];
	struct fmt_coldesc desc[FMT_NCOLS];
	const uint8_t *colp[FMT_NCOLS];
	uint8_t hdr[FMT_CHUNK_HDR];
	const uint8_t *p, *end;
	uint32_t count, plen, rawsize;
	struct fmt_ans_job jobs[FMT_NCOLS];
	uint64_t ncols, data_len = 0, scratch_used = 0;
	size_t njobs = 0, nvcols = 0;
	unsigned valued = 0;
	int ret;

	r->cur_count = r->cur_done = 0;
	ret = pread_all(r->fd, hdr, sizeof(hdr), ci->offset);
	if (ret)
		return ret;
	ret = check_chunk_header(hdr);
	if (ret)
		return ret;
	count = fmt_get32(hdr + 4);
	if (count != ci->count || fmt_get64(hdr + 8) != ci->first_t_ns ||
	    fmt_get64(hdr + 16) != ci->last_t_ns)
		return IST_ECORRUPT; /* the index and the chunk disagree */
	rawsize = fmt_get32(hdr + 24);
	plen = fmt_get32(hdr + 28);
	if (ci->offset + FMT_CHUNK_HDR + plen > r->data_end)
		return IST_ETRUNC;
	if (grow((void **)&r->payload, &r->payload_cap, (size_t)plen + FMT_PAD) ||
	    grow((void **)&r->scratch, &r->scratch_cap, (size_t)rawsize + FMT_PAD))
		return -ENOMEM;
	ret = pread_all(r->fd, r->payload, plen, ci->offset + FMT_CHUNK_HDR);
	if (ret)
		return ret;
	memset(r->payload + plen, 0, FMT_PAD);
	if (payload_crc(r->payload, plen) != fmt_get32(hdr + 32))
		return IST_ECRC;

	/* column directory */
	p = r->payload;
	end = p + plen;
	if (p >= end)
		return IST_ECORRUPT;
	ncols = *p++;
	if (ncols < FMT_NCOLS)
		return IST_ECORRUPT;
	{
		const uint8_t *dp = p;
		uint64_t sum_stored = 0, sum_raw = 0;

		/* first pass: lengths, to find where the data starts */
		for (uint64_t c = 0; c < ncols; c++) {
			struct fmt_coldesc d;

			if (end - dp < 2)
				return IST_ECORRUPT;
			d.coding = dp[0];
			d.store = dp[1];
			dp += 2;
			if (fmt_get_varint(&dp, end, &d.param) ||
			    fmt_get_varint(&dp, end, &d.raw_len) ||
			    fmt_get_varint(&dp, end, &d.stored_len))
				return IST_ECORRUPT;
			if (d.raw_len > FMT_MAX_COL_BYTES(count) ||
			    d.stored_len > plen)
				return IST_ECORRUPT;
			if (d.store == FMT_STORE_PLAIN && d.stored_len != d.raw_len)
				return IST_ECORRUPT;
			if (d.store > FMT_STORE_VANS || d.coding >= FMT_CODE_LAST)
				return IST_ECORRUPT;
			if (d.store == FMT_STORE_VANS &&
			    r->minor < FMT_MINOR_SMALL)
				return IST_ECORRUPT;
			if ((d.store == FMT_STORE_ARITH ||
			     d.coding == FMT_CODE_CDELTA) &&
			    r->minor < FMT_MINOR_ARITH)
				return IST_ECORRUPT;
			if ((d.store == FMT_STORE_ANS ||
			     d.coding == FMT_CODE_MTF) &&
			    r->minor < FMT_MINOR_ANS)
				return IST_ECORRUPT;
			if (c < FMT_NCOLS)
				desc[c] = d;
			sum_stored += d.stored_len;
			sum_raw += d.raw_len;
		}
		if (sum_stored != (uint64_t)(end - dp) || sum_raw > rawsize)
			return IST_ECORRUPT;
		p = dp;
	}
	/* VANS columns of values whose coding reads values: decoded into
	 * r->vals, the column decoders then parse no varints */
	for (unsigned c = 0, off = 0; c < FMT_NCOLS; off += desc[c++].stored_len)
		nvcols += valued_column(&desc[c], p + off);
	if (nvcols && grow((void **)&r->vals, &r->vals_cap,
			   nvcols * ((size_t)count + 1) * sizeof(uint64_t)))
		return -ENOMEM;
	/* column data: plain columns are decoded in place, stored ones
	 * into scratch; the ANS columns after the others, two at a time */
	for (unsigned c = 0; c < FMT_NCOLS; c++) {
		const uint8_t *src = p + data_len;

		if (valued_column(&desc[c], src)) {
			uint64_t *v = r->vals + (size_t)valued++ * (count + 1);
			uint8_t *dst = r->scratch + scratch_used;
			int hist = desc[c].coding == FMT_CODE_HIST;
			size_t npre, nv;

			ret = fmt_vans_decode_values(src, desc[c].stored_len,
						     dst, desc[c].raw_len, v,
						     count, &npre, &nv);
			if (ret)
				return decode_stored(r, desc, p, c);
			v[nv] = 0; /* the readable entry after the values */
			if (npre == (hist ? count : 0)) {
				ret = fmt_colcur_values(&r->cur[c], r->hist,
							(enum fmt_col)c, &desc[c],
							hist ? dst : NULL, v,
							nv, count);
				if (ret < 0)
					return ret;
				if (!ret) {
					colp[c] = NULL;
					scratch_used += desc[c].raw_len;
					data_len += desc[c].stored_len;
					continue;
				}
			}
			/* a form the value decoders do not take: the
			 * varints, as before */
		}

		if (desc[c].store == FMT_STORE_ANS) {
			struct fmt_ans_job *j = &jobs[njobs++];

			j->in = src;
			j->inlen = desc[c].stored_len;
			j->out = r->scratch + scratch_used;
			j->want = desc[c].raw_len;
			j->limit = r->payload + plen + FMT_PAD;
		}
		if (desc[c].store != FMT_STORE_PLAIN) {
			uint8_t *dst = r->scratch + scratch_used;

			/* (the ANS columns later) */
			ret = desc[c].store == FMT_STORE_ANS ? 0 :
				decode_column(r, &desc[c], src, dst);
			if (ret)
				return decode_stored(r, desc, p, c);
			colp[c] = dst;
			scratch_used += desc[c].raw_len;
		} else {
			colp[c] = src;
		}
		data_len += desc[c].stored_len;
	}
	if (njobs == 1) {
		/* one column: the one-column decoder, faster alone than a
		 * lane (cloudphysics' times: its decode 4 % slower) */
		if (fmt_ans_decode(r->ans[0], jobs[0].in, jobs[0].inlen,
				   jobs[0].out, jobs[0].want))
			return decode_stored(r, desc, p, FMT_NCOLS);
	} else if (njobs) {
		/* the longest first: two lanes taking them in turn end
		 * close together */
		qsort(jobs, njobs, sizeof(jobs[0]), job_longer);
		if (fmt_ans_decode_jobs(r->ans, jobs, njobs))
			return decode_stored(r, desc, p, FMT_NCOLS);
	}
	memset(r->scratch + scratch_used, 0, FMT_PAD);
	memset(&r->tpl, 0, sizeof(r->tpl));
	r->nconst = r->nlive = 0;
	for (unsigned c = 0; c < FMT_NCOLS; c++) {
		if (!colp[c]) { /* values: set up above */
			r->live[r->nlive++] = (uint8_t)c;
			continue;
		}
		ret = fmt_colcur_init(&r->cur[c], r->hist, (enum fmt_col)c, &desc[c],
				      colp[c], count);
		if (!ret && desc[c].coding == FMT_CODE_CONST) {
			ret = fmt_colcur_const(&r->cur[c], &r->tpl);
			r->nconst++;
		} else {
			r->live[r->nlive++] = (uint8_t)c;
		}
		if (ret)
			return ret;
	}
	r->cur_chunk = i;
	r->cur_count = count;
	return 0;
}

/*
 * Decodes the next k records of the prepared chunk into recs; after its
 * last record, checks that every column was consumed exactly.  On an
 * error the chunk is dropped (r->cur_count 0).
 */
static int decode_records(ist_reader *r, struct ist_record *recs, uint32_t k)
{
	int ret = 0;

	/* all columns of a block of records, then the next block: the
	 * records stay in the cache while their fields are filled in */
	for (uint32_t base = 0; base < k && !ret; base += DECODE_BLOCK) {
		uint32_t m = k - base < DECODE_BLOCK ? k - base : DECODE_BLOCK;

		/* the CONST columns in one pass (wsrch and tencent have four:
		 * a pass each was 4 % of their decode), before the others:
		 * the offsets read the devices and lengths */
		if (r->nconst) {
			const struct ist_record tpl = r->tpl;

			for (uint32_t i = 0; i < m; i++)
				recs[base + i] = tpl;
		}
		for (unsigned j = 0; j < r->nlive && !ret; j++)
			ret = fmt_decode_block(r->hist, &r->cur[r->live[j]],
					       recs + base, m);
	}
	if (!ret && r->cur_done == 0 &&
	    recs[0].t_ns != r->idx[r->cur_chunk].first_t_ns)
		ret = IST_ECORRUPT;
	r->cur_done += k;
	for (unsigned c = 0; c < FMT_NCOLS && !ret && r->cur_done == r->cur_count; c++)
		ret = fmt_colcur_finish(&r->cur[c]);
	if (ret || r->cur_done == r->cur_count)
		r->cur_count = r->cur_done = 0;
	return ret;
}

/* Reads, checks and decodes chunk i into recs (room for its count). */
static int load_chunk(ist_reader *r, uint64_t i, struct ist_record *recs)
{
	int ret = prepare_chunk(r, i);

	return ret ? ret : decode_records(r, recs, r->cur_count);
}

static void set_pos(ist_reader *r, uint64_t chunk)
{
	r->pos.chunk = chunk;
	r->pos.byte_offset = chunk < r->nchunks ? r->idx[chunk].offset : r->data_end;
	r->pos.record = r->returned;
}

/*
 * Records are decoded straight into the caller's array, as many as it
 * asks for: a caller reading in small batches (replay's 512 records)
 * gets its records decoded into its own cache-resident buffer, with no
 * intermediate copy of the whole chunk.
 */
ssize_t ist_reader_read(ist_reader *r, struct ist_record *recs, size_t max)
{
	uint32_t k;
	int ret;

	if (max == 0)
		return 0;
	if (r->cur_err) {
		/* the rest of a chunk could not be restored after a check */
		ret = r->cur_err;
		r->cur_err = 0;
		return ret;
	}
	if (r->cur_done == r->cur_count) {
		uint64_t i;

		if (r->next >= r->nchunks) {
			set_pos(r, r->nchunks);
			return 0;
		}
		i = r->next++;
		set_pos(r, i);
		ret = prepare_chunk(r, i);
		if (ret)
			return ret;
	}
	k = r->cur_count - r->cur_done;
	if (k > max)
		k = (uint32_t)max;
	ret = decode_records(r, recs, k);
	if (ret)
		return ret;
	r->returned += k;
	r->pos.record = r->returned;
	return (ssize_t)k;
}

int ist_reader_seek_chunk(ist_reader *r, uint64_t i)
{
	if (i > r->nchunks)
		return IST_ERANGE;
	r->next = i;
	r->cur_count = r->cur_done = 0;
	r->cur_err = 0;
	set_pos(r, i);
	return 0;
}

int ist_reader_seek_time(ist_reader *r, uint64_t t_ns)
{
	uint64_t i;

	/* chunk maxima need not increase (out-of-order traces): scan */
	for (i = 0; i < r->nchunks; i++)
		if (r->idx[i].last_t_ns >= t_ns)
			break;
	return ist_reader_seek_chunk(r, i);
}

void ist_reader_position(const ist_reader *r, struct ist_position *pos)
{
	*pos = r->pos;
}

int ist_reader_check_chunk(ist_reader *r, uint64_t i)
{
	uint64_t part = r->cur_chunk;
	uint32_t done = r->cur_done;
	size_t need;
	int ret;

	if (i >= r->nchunks)
		return IST_ERANGE;
	need = r->idx[i].count * sizeof(struct ist_record);
	if (done && part < r->nchunks && r->idx[part].count > r->idx[i].count)
		need = r->idx[part].count * sizeof(struct ist_record);
	if (grow((void **)&r->check_buf, &r->check_cap, need))
		return -ENOMEM;
	ret = load_chunk(r, i, r->check_buf);
	/* a chunk read in part: its state is restored by decoding again
	 * the records already returned; if that fails (the file changed
	 * under the reader), the next read reports it instead of skipping
	 * the rest of the chunk silently */
	if (done) {
		int rr = prepare_chunk(r, part);

		if (!rr)
			rr = decode_records(r, r->check_buf, done);
		if (rr) {
			r->cur_count = r->cur_done = 0;
			r->cur_err = rr;
		}
	}
	return ret;
}
