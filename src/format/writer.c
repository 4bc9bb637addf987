/* SPDX-License-Identifier: MIT */
/* writer.c - streaming IST writer: header, columnar deflated chunks, footer, trailer. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include "core/bigmem.h"
#include "core/tmpout.h"
#include "format/fmt.h"

/* Deflate level when the caller does not choose: fast enough for the
 * 10 M records/s encode target; higher levels gain little on columns. */
#define DEFAULT_LEVEL 1

struct ist_writer {
	int fd;
	int own_fd;          /* close fd on close/abort */
	char *path;          /* final path (NULL for an fd writer) */
	char *tmppath;       /* what we write, renamed to path at close */
	int level;
	int effort;          /* enum ist_effort */
	unsigned chunk_records;
	int err;             /* sticky I/O error: the writer is unusable */

	struct fmt_cols cols; /* the current chunk, by field */
	size_t nrecs;
	/* per column, the OR of every value's difference from the chunk's
	 * first: 0 for a constant column (see copy_cols()) */
	uint64_t diff[FMT_NCOLS];

	uint8_t *colbuf;     /* one coded column */
	uint8_t *zbuf;       /* its deflated form */
	uint8_t *abuf;       /* its ARITH form */
	uint8_t *anstmp;     /* scratch of the ANS coder */
	struct fmt_ans_plan plan; /* its model for the current column */
	uint8_t *data;       /* stored column bytes of the chunk (room for
			      * FMT_NCOLS * FMT_MAX_COL_BYTES(chunk_records)) */
	void *arena;         /* cols' arrays and the buffers above, in one
			      * allocation: see writer_arena() */
	size_t arena_size;
#ifdef HAVE_LIBDEFLATE
	struct libdeflate_compressor *ldc; /* deflates the columns */
#else
	z_stream zs;         /* deflates the columns */
	int zs_ready;
#endif

	uint64_t file_off;   /* bytes written so far */
	struct ist_chunk_info *idx;
	uint64_t nidx, idx_cap;
	ist_totals_acc *acc;
	struct fmt_hist *hist;
	unsigned hdr_ndev;   /* devices in the header */
	ist_header *foot;    /* footer metadata and late devices (1.2) */
	/* per column: chunks left before deflate is tried again, after a
	 * full deflate of the column lost (see defl_lost()), and how many
	 * trials in a row lost */
	unsigned char defl_skip[FMT_NCOLS];
	unsigned char defl_lost[FMT_NCOLS];
	/* per column (default effort): chunks left whose deflate is kept
	 * without ANS's plan, after deflate won by a wide margin (see
	 * PLAN_SKIP) */
	unsigned char plan_skip[FMT_NCOLS];
	/* VANS in chunks of more than ARITH_MAX_RECORDS records (default
	 * effort, see try_vans_large()): the coded column's values, the
	 * encoder's memory (both NULL for smaller chunks); per column the
	 * chunks left that take VANS without ANS's plan, VANS's bytes a
	 * coded byte (x 2^16) in the chunk that chose it and that chunk's
	 * coding (or the run's last chunk of another coding), the chunks left
	 * before VANS is tried again after it lost, and its losses in a
	 * row */
	uint64_t *vals;
	struct fmt_vans_work *vwork;
	unsigned char vans_run[FMT_NCOLS];
	uint32_t vans_q[FMT_NCOLS];
	unsigned char vans_coding[FMT_NCOLS];
	unsigned char vans_skip[FMT_NCOLS];
	unsigned char vans_lost[FMT_NCOLS];
};

/* A column whose whole deflate lost to ANS is not deflated for this many
 * chunks: a column keeps its nature over a trace (deflate lost on the
 * time, latency, flags and length columns of every chunk of the
 * synthetic trace), and the trial was a third to half of the writer's
 * time. */
#define DEFL_BACKOFF 7

/* The default writer's column whose deflate lost: skipped for 7, 15, 31,
 * then 63 chunks as the losses go on (a trial that deflated the whole
 * column lost every time on the synthetic trace's six large columns and
 * its op column, on wsrch's and tencent's offsets: retrying every eighth
 * chunk was still 40-60 % of the zlib time of their encode).  The trial
 * after a loss deflates the whole only if its 4 KiB sample alone beats
 * ANS's ratio (see try_deflate()); a win resets the count.  A sample
 * that does not deflate to 15/16 counts as a loss too (the synthetic
 * trace's stream, txn and offset columns: no column of the six bench
 * traces whose sample was that flat ever deflated). */
static void defl_lost(ist_writer *w, unsigned c)
{
	unsigned k = w->defl_lost[c];

	if (k < 4)
		w->defl_lost[c] = (unsigned char)++k;
	w->defl_skip[c] = (unsigned char)((8u << (k - 1)) - 1);
}

static int write_all(ist_writer *w, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(w->fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return w->err = -errno;
		}
		p += n;
		len -= (size_t)n;
		w->file_off += (uint64_t)n;
	}
	return 0;
}

/* The CRC-32 of a chunk's directory and payload, continuing crc (zlib's:
 * libdeflate's computes the same value several times as fast, 1-2 % of
 * the fast writer's import in perf). */
static uint32_t payload_crc(uint32_t crc, const uint8_t *p, size_t len)
{
#ifdef HAVE_LIBDEFLATE
	return libdeflate_crc32(crc, p, len);
#else
	return (uint32_t)crc32(crc, p, (uInt)len);
#endif
}

static int write_header(ist_writer *w, const ist_header *h)
{
	uint8_t *body = NULL, *buf;
	size_t blen, total;
	int ret;

	ret = fmt_header_encode_packed(h, &body, &blen);
	if (ret)
		return ret;
	total = FMT_FIXED_HDR + blen + 4;
	if (total > FMT_MAX_HDR) {
		free(body);
		return IST_ERANGE;
	}
	buf = malloc(total);
	if (!buf) {
		free(body);
		return -ENOMEM;
	}
	memcpy(buf, FMT_MAGIC, FMT_MAGIC_LEN);
	fmt_put16(buf + 8, FMT_MAJOR);
	fmt_put16(buf + 10, FMT_WRITE_MINOR);
	fmt_put32(buf + 12, (uint32_t)total);
	memcpy(buf + FMT_FIXED_HDR, body, blen);
	fmt_put32(buf + total - 4, (uint32_t)crc32(0, buf, (uInt)(total - 4)));
	ret = write_all(w, buf, total);
	free(buf);
	free(body);
	w->hdr_ndev = ist_header_device_count(h);
	return ret;
}

/* Creates a new PATH.tmp-PID-N (istint_tmp_create(): O_EXCL, mode 0666
 * less the umask, removed by SIGINT, SIGTERM or SIGHUP until the close).
 * It was PATH.tmp-XXXXXX from a hash of the clock, O_EXCL too but not
 * guarded: an interrupted writer left it behind. */
static int create_tmp(ist_writer *w, const char *path)
{
	size_t n = strlen(path) + 48;
	int fd;

	w->tmppath = malloc(n);
	if (!w->tmppath)
		return -ENOMEM;
	fd = istint_tmp_create(w->tmppath, n, path, "tmp");
	if (fd < 0) {
		/* writer_free() must not release a name never guarded */
		free(w->tmppath);
		w->tmppath = NULL;
		return fd;
	}
	w->fd = fd;
	return 0;
}

/* Chunks of more records keep ANS, deflate or VANS (see
 * try_vans_large()), not ARITH: ANS's tables are then a small part of a
 * column, and ARITH decodes 3-5 times slower (on every
 * column of a 65536-record chunk: decode 3x slower for 1-2 % in size). */
#define ARITH_MAX_RECORDS 8192

/*
 * The arena of the last writer closed, kept for the next one opened (a
 * process that writes several files: the import's sorted runs, a
 * benchmark's passes).  A fresh arena is new memory that the kernel
 * zeroes on first touch, 14 MiB a writer (bench/ist_speed's synthetic
 * trace, a writer a pass: 9.5 against 11.7 M records/s encode with it
 * kept).  While kept, its first 8 bytes hold its size.  Exchanged
 * atomically: writers may be opened and closed in several threads.
 */
static void *spare_arena;
unsigned long fmt_arena_reused, fmt_arena_too_small;

/* An arena of at least size bytes (its size, maybe more, in *cap). */
static void *arena_take(size_t size, size_t *cap)
{
	void *p = __atomic_exchange_n(&spare_arena, NULL, __ATOMIC_ACQ_REL);
	size_t have;

	if (p) {
		memcpy(&have, p, sizeof(have));
		if (have >= size) {
			__atomic_fetch_add(&fmt_arena_reused, 1, __ATOMIC_RELAXED);
			*cap = have;
			return p;
		}
		__atomic_fetch_add(&fmt_arena_too_small, 1, __ATOMIC_RELAXED);
		free(p);
	}
	*cap = size;
	return ist_big_alloc(size);
}

static void arena_put(void *p, size_t size)
{
	if (!p)
		return;
	memcpy(p, &size, sizeof(size));
	free(__atomic_exchange_n(&spare_arena, p, __ATOMIC_ACQ_REL));
}

/*
 * The chunk's columns and the buffers of its coding, in one allocation
 * (the arena), in huge pages when it is large (ist_big_alloc(); 14 MiB
 * for the default 65536-record chunk): one page fault for each 2 MiB
 * touched instead of 512, which cost ~20 us each on the bench VM (the
 * writer's buffers took ~1,000 of the vscsi import's 1,464 faults).  What
 * may never be touched comes last, behind the stored data (sized for a
 * full chunk, never grown, of which a chunk uses the start): the columns
 * that may stay lazy (latency, stream, transaction: see lazy_cols()) and
 * ARITH's buffer (chunks of at most ARITH_MAX_RECORDS records), so that
 * their huge pages are not faulted in and zeroed for nothing.
 */
static int writer_arena(ist_writer *w)
{
	size_t n = w->chunk_records ? w->chunk_records : 1;
	size_t colb = FMT_MAX_COL_BYTES(n), off = 0;
	size_t o_t, o_off, o_len, o_dev, o_flags, o_op, o_lat, o_stream, o_txn;
	size_t o_col, o_z, o_a = 0, o_tmp, o_data, o_vals = 0, o_vw = 0;
	int vans = w->effort == IST_EFFORT_DEFAULT && n > ARITH_MAX_RECORDS;
	uint8_t *b;

#define TAKE(o, bytes)                                                         \
	do {                                                                   \
		(o) = off;                                                     \
		off += ((bytes) + 63) & ~(size_t)63;                           \
	} while (0)
	TAKE(o_col, colb);
	TAKE(o_z, colb);
	TAKE(o_tmp, FMT_ANS_TMP(colb));
	TAKE(o_t, n * sizeof(uint64_t));
	TAKE(o_off, n * sizeof(uint64_t));
	TAKE(o_len, n * sizeof(uint32_t));
	TAKE(o_dev, n * sizeof(uint32_t));
	TAKE(o_flags, n * sizeof(uint16_t));
	TAKE(o_op, n);
	TAKE(o_data, FMT_NCOLS * colb);
	TAKE(o_lat, n * sizeof(uint64_t));
	TAKE(o_stream, n * sizeof(uint64_t));
	TAKE(o_txn, n * sizeof(uint64_t));
	if (w->effort == IST_EFFORT_DEFAULT) /* the others do not try ARITH */
		TAKE(o_a, colb);
	if (vans) {
		TAKE(o_vals, (n + 1) * sizeof(uint64_t));
		TAKE(o_vw, fmt_vans_work_size(n));
	}
#undef TAKE
	b = w->arena = arena_take(off, &w->arena_size);
	if (!b)
		return -ENOMEM;
	memset(&w->cols, 0, sizeof(w->cols));
	w->cols.t = (uint64_t *)(void *)(b + o_t);
	w->cols.offset = (uint64_t *)(void *)(b + o_off);
	w->cols.len = (uint32_t *)(void *)(b + o_len);
	w->cols.dev = (uint32_t *)(void *)(b + o_dev);
	w->cols.flags = (uint16_t *)(void *)(b + o_flags);
	w->cols.op = b + o_op;
	w->cols.lat = (uint64_t *)(void *)(b + o_lat);
	w->cols.stream = (uint64_t *)(void *)(b + o_stream);
	w->cols.txn = (uint64_t *)(void *)(b + o_txn);
	w->colbuf = b + o_col;
	w->zbuf = b + o_z;
	w->abuf = w->effort == IST_EFFORT_DEFAULT ? b + o_a : NULL;
	w->anstmp = b + o_tmp;
	w->data = b + o_data;
	w->vals = vans ? (uint64_t *)(void *)(b + o_vals) : NULL;
	w->vwork = vans ? fmt_vans_work_init(b + o_vw, n) : NULL;
	return 0;
}

static int writer_setup(ist_writer *w, const ist_header *h,
			const struct ist_writer_opts *opts)
{
	int ret;

	w->chunk_records = FMT_DEFAULT_CHUNK;
	w->level = DEFAULT_LEVEL;
	if (opts) {
		if (opts->chunk_records > FMT_MAX_CHUNK)
			return -EINVAL;
		if (opts->chunk_records)
			w->chunk_records = opts->chunk_records;
		if (opts->level < 0 || opts->level > 9)
			return -EINVAL;
		if (opts->level)
			w->level = opts->level;
		if (opts->effort != IST_EFFORT_DEFAULT &&
		    opts->effort != IST_EFFORT_FAST &&
		    opts->effort != IST_EFFORT_FASTEST)
			return -EINVAL;
		w->effort = opts->effort;
	}
	if (w->effort != IST_EFFORT_DEFAULT)
		w->level = DEFAULT_LEVEL; /* deflate at level 1 */
	if (writer_arena(w))
		return -ENOMEM;
	w->acc = ist_totals_acc_new();
	w->hist = calloc(1, sizeof(*w->hist));
	w->foot = ist_header_new();
	if (!w->acc || !w->hist || !w->foot)
		return -ENOMEM;
#ifdef HAVE_LIBDEFLATE
	w->ldc = libdeflate_alloc_compressor(w->level);
	if (!w->ldc)
		return -ENOMEM;
#else
	if (deflateInit2(&w->zs, w->level, Z_DEFLATED, -15, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return IST_EZLIB;
	w->zs_ready = 1;
#endif
	if (h) {
		ret = ist_totals_acc_reserve_dev(w->acc,
						 ist_header_device_count(h));
		if (ret)
			return ret;
	}
	return 0;
}

static void writer_free(ist_writer *w)
{
#ifdef HAVE_LIBDEFLATE
	libdeflate_free_compressor(w->ldc);
#else
	if (w->zs_ready)
		deflateEnd(&w->zs);
#endif
	if (w->own_fd && w->fd >= 0)
		close(w->fd);
	free(w->path);
	free(w->tmppath);
	arena_put(w->arena, w->arena_size);
	free(w->idx);
	ist_totals_acc_free(w->acc);
	free(w->hist);
	ist_header_free(w->foot);
	free(w);
}

static int writer_start(ist_writer **wp, ist_writer *w, const ist_header *h,
			const struct ist_writer_opts *opts)
{
	ist_header *empty = NULL;
	int ret;

	ret = writer_setup(w, h, opts);
	if (!ret && !h) {
		empty = ist_header_new();
		if (!empty)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = write_header(w, h ? h : empty);
	ist_header_free(empty);
	if (ret) {
		ist_writer_abort(w);
		return ret;
	}
	*wp = w;
	return 0;
}

int ist_writer_open(ist_writer **wp, const char *path, const ist_header *h,
		    const struct ist_writer_opts *opts)
{
	ist_writer *w;
	int ret;

	*wp = NULL;
	if (!path || !*path)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	w->own_fd = 1;
	w->path = strdup(path);
	if (!w->path) {
		writer_free(w);
		return -ENOMEM;
	}
	if (opts && opts->direct) {
		w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		ret = w->fd < 0 ? -errno : 0;
	} else {
		ret = create_tmp(w, path);
	}
	if (ret) {
		writer_free(w);
		return ret;
	}
	return writer_start(wp, w, h, opts);
}

int ist_writer_open_fd(ist_writer **wp, int fd, const ist_header *h,
		       const struct ist_writer_opts *opts)
{
	ist_writer *w;

	*wp = NULL;
	if (fd < 0)
		return -EBADF;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	return writer_start(wp, w, h, opts);
}

static int index_add(ist_writer *w, const struct ist_chunk_info *ci)
{
	if (w->nidx == w->idx_cap) {
		uint64_t cap = w->idx_cap ? w->idx_cap * 2 : 64;
		struct ist_chunk_info *n = realloc(w->idx, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		w->idx = n;
		w->idx_cap = cap;
	}
	w->idx[w->nidx++] = *ci;
	return 0;
}

/* Columns from which try_deflate() decides on a sample first. */
#define DEFL_SAMPLE_MIN 16384

/* Deflates [in, in + len) into out if that takes fewer than room bytes;
 * returns its size or 0.  libdeflate's compressor when configured: 2.5
 * times as fast as zlib's at level 1 on the columns it wins (the
 * cloudphysics offsets: 1.4 against 3.4 ms a chunk) and a few % smaller;
 * its output is deflate as zlib's is, any inflater reads it, but its
 * bytes are not zlib's (tests/cli/ist_golden.sh keeps a golden for
 * each). */
static size_t deflate_into(ist_writer *w, const uint8_t *in, size_t len,
			   uint8_t *out, size_t room)
{
	if (room < 2)
		return 0;
#ifdef HAVE_LIBDEFLATE
	return libdeflate_deflate_compress(w->ldc, in, len, out, room - 1);
#else
	/* zlib reports an output that fills its room exactly as
	 * unfinished: room - 1 bytes at most either way */
	if (deflateReset(&w->zs) != Z_OK)
		return 0;
	w->zs.next_in = (Bytef *)in;
	w->zs.avail_in = (uInt)len;
	w->zs.next_out = out;
	w->zs.avail_out = (uInt)room;
	if (deflate(&w->zs, Z_FINISH) != Z_STREAM_END)
		return 0;
	return room - w->zs.avail_out;
#endif
}

/* What try_deflate() did besides its result. */
enum { DEFL_NONE, DEFL_SAMPLE, DEFL_SAMPLE_FLAT, DEFL_FULL };

/* Deflates [in, in + len) into out if that is shorter than limit;
 * returns the deflated size or 0, *did telling how far it went: a large
 * column's 4 KiB sample must come within 1/4 of the ratio target / len,
 * or beat it when strict, before the whole is deflated (DEFL_FULL);
 * DEFL_SAMPLE_FLAT is a sample that did not even deflate to 15/16. */
static size_t try_deflate(ist_writer *w, const uint8_t *in, size_t len,
			  uint8_t *out, size_t target, size_t limit, int strict,
			  int *did)
{
	*did = DEFL_NONE;
	if (len < 64)
		return 0;
	if (len > DEFL_SAMPLE_MIN) {
		/* random offsets or latencies barely deflate, and ANS
		 * often does better: a sample of the column says whether
		 * the whole is worth trying (deflate on the whole does
		 * better than on the sample: 1/4 of slack) */
		uint64_t room = (uint64_t)target * 4096 / len;
		const size_t flat = 4096 - 4096 / 16;

		size_t sz;

		if (!strict)
			room = room * 5 / 4;
		if (room > flat)
			room = flat;
		*did = DEFL_SAMPLE_FLAT;
		sz = deflate_into(w, in, 4096, out, flat);
		if (!sz)
			return 0;
		*did = DEFL_SAMPLE;
		if (sz >= room)
			return 0;
	}
	*did = DEFL_FULL;
	return deflate_into(w, in, len, out, limit);
}

/*
 * ARITH's ~50 binary decisions a record decode 3-5 times slower than
 * inflate or ANS (msr's 1000-record sample: 12 M records/s against 26
 * without ARITH): it is kept only where it is at least 1/ARITH_MARGIN
 * shorter than the best other form (the column as coded when neither
 * ANS nor deflate saved 1/32), not where it wins by a few percent.
 */
#define ARITH_MARGIN 16

/*
 * The form of the coded column by enc (fmt_arith_encode or
 * fmt_vans_encode) if shorter than limit, or 0; only in chunks of at most
 * ARITH_MAX_RECORDS, where ANS's tables cost too much.  VANS, one static
 * rANS symbol a value with a table of a few dozen bytes, is nearly as
 * short as ARITH and decodes 3-4 times faster: the writer takes it
 * whenever it is the shortest, and tries ARITH only when it is not.
 */
static size_t try_small(size_t (*enc)(const uint8_t *, size_t, size_t,
				      uint8_t *, size_t),
			const uint8_t *col, const struct fmt_coldesc *d,
			size_t n, uint8_t *out, size_t limit)
{
	if (d->raw_len < 16 || n > ARITH_MAX_RECORDS)
		return 0;
	return enc(col, d->raw_len, d->coding == FMT_CODE_HIST ? n : 0, out,
		   limit);
}

/* The ANS form of the column planned in w->plan, at the chunk's data
 * offset dlen; its size or 0.  The writer plans before it deflates: a
 * column that deflate wins by more than the plan's error (cloudphysics's
 * offsets and lengths, and every column of a trace whose records repeat)
 * is never ANS-coded, which was a third of such a column's time. */
static size_t ans_write(ist_writer *w, const struct fmt_coldesc *d,
			size_t dlen)
{
	return fmt_ans_write(&w->plan, w->colbuf, w->data + dlen,
			     d->raw_len - d->raw_len / 32, w->anstmp);
}

/*
 * VANS in chunks of more than ARITH_MAX_RECORDS records (default effort):
 * on a column whose coding the reader's value decoders take (RAW, DELTA,
 * SEQ, HIST, CDELTA: fmt_encode_column_values() gave its values), where
 * ANS codes the column and deflate did not win.  A VANS column is decoded
 * into 64-bit values that the column decoders read without parsing
 * varints, one rANS symbol a value instead of one a byte: the synthetic
 * trace's four value columns in VANS decode it ~1.5 times as fast
 * (bench/README.md, sessions 15 and 16).  VANS is kept where it is
 * shorter than ANS; when it is shorter than ANS's estimate by more than
 * the estimate's error, ANS is not written at all.
 *
 * Trying VANS and planning ANS on every chunk cost too much (session 15:
 * the synthetic trace's encode 12.6 -> 6.8 M records/s), so a column
 * whose VANS won keeps VANS for the next VANS_RUN chunks without ANS's
 * plan or deflate's trial (vans_sticky()), as long as its size a coded
 * byte stays within 1/VANS_DRIFT of the chunk that chose it (of the run's
 * last chunk of another coding, if the coding changed: a column's ratio
 * depends on its coding); the chunk after them, or one that drifted, is
 * planned and compared again.  A
 * column whose VANS lost is not tried for 7, 15, 31, then 63 chunks (the
 * real traces' large chunks: VANS lost on nearly all).  Returns VANS's
 * size in w->abuf, or 0.
 */
#define VANS_RUN 7
#define VANS_DRIFT 16

unsigned long fmt_vans_run_chunks, fmt_vans_run_ends;

/* VANS's bytes a coded byte, x 2^16 (at most 2^16: VANS is kept only
 * when shorter than the coded column). */
static inline uint32_t vans_ratio(size_t v, size_t raw)
{
	return (uint32_t)(((uint64_t)v << 16) / raw);
}

/* What VANS may take in a run: VANS_DRIFT more a coded byte than the
 * base ratio q, and VANS_SLACK bytes (a column of a few dozen bytes
 * varies by a byte or two from chunk to chunk). */
#define VANS_SLACK 64

static inline uint64_t vans_bound(uint32_t q, size_t raw)
{
	uint64_t b = ((uint64_t)q * raw) >> 16;

	return b + b / VANS_DRIFT + VANS_SLACK;
}

static size_t vans_prefix(const struct fmt_coldesc *d, size_t n)
{
	return d->coding == FMT_CODE_HIST ? n : 0;
}

/* The column in VANS without ANS's plan, in a chunk of a column's run
 * (w->vans_run[c] > 0): its size in w->abuf, or 0 when VANS does not
 * save 1/32 of the coded column or drifted (the run ends; the column is
 * then planned as always). */
static size_t vans_sticky(ist_writer *w, unsigned c,
			  const struct fmt_coldesc *d, size_t n, size_t nv,
			  size_t limit)
{
	uint32_t q = w->vans_q[c];
	size_t v;

	w->vans_run[c]--;
	v = fmt_vans_encode_values(w->vwork, w->colbuf, vans_prefix(d, n),
				   w->vals, nv, w->abuf, limit);
	if (v && d->coding != w->vans_coding[c]) {
		/* another coding of the column (random offsets: RAW and
		 * SEQ by turns), whose ratio differs: the new base */
		w->vans_coding[c] = d->coding;
		w->vans_q[c] = q = vans_ratio(v, d->raw_len);
	}
	if (v && v <= vans_bound(q, d->raw_len)) {
		__atomic_fetch_add(&fmt_vans_run_chunks, 1, __ATOMIC_RELAXED);
		return v;
	}
	__atomic_fetch_add(&fmt_vans_run_ends, 1, __ATOMIC_RELAXED);
	w->vans_run[c] = 0;
	return 0;
}

static size_t try_vans_large(ist_writer *w, unsigned c,
			     const struct fmt_coldesc *d, size_t n, size_t nv,
			     size_t e, size_t limit, size_t dlen, size_t *a)
{
	size_t err = FMT_ANS_EST_ERR(d->raw_len), v;

	v = fmt_vans_encode_values(w->vwork, w->colbuf, vans_prefix(d, n),
				   w->vals, nv, w->abuf,
				   e + err < limit ? e + err : limit);
	if (v && v + err >= e) {
		/* within the estimate's error: ANS written to know */
		*a = ans_write(w, d, dlen);
		if (*a && *a <= v)
			v = 0;
	}
	if (v) {
		w->vans_run[c] = VANS_RUN;
		w->vans_q[c] = vans_ratio(v, d->raw_len);
		w->vans_coding[c] = d->coding;
		w->vans_lost[c] = 0;
	} else {
		unsigned k = w->vans_lost[c];

		if (k < 4)
			w->vans_lost[c] = (unsigned char)++k;
		w->vans_skip[c] = (unsigned char)((8u << (k - 1)) - 1);
	}
	return v;
}

/*
 * The default writer's column whose whole deflate won by far (under 15/16
 * of ANS's planned size, a coded column of PLAN_SKIP_MIN bytes or more:
 * plan_skippable()) is deflated straight away in the next PLAN_SKIP chunks, without
 * ANS's plan (its count of the column) or the 4 KiB sample, and kept when
 * it saves a quarter of the column (skip_limit()); a chunk whose deflate
 * does not is planned and tried as always, and ends the skipping.  A
 * column keeps its nature over a trace: the vscsi input of
 * bench/import.sh deflates its offsets, lengths and ops in every chunk,
 * and their plans were 5 % of the import.  The bytes can differ from a
 * planned chunk's where ANS would have won that chunk, or where the
 * sample would have stopped a deflate that wins on the whole (that
 * input: 0.44 % smaller, every other sample of the benchmarks alike).
 */
#define PLAN_SKIP 7
#define PLAN_SKIP_MIN 4096

/*
 * The default writer keeps the deflate of a column of more than
 * DEFL_SAMPLE_MIN bytes only when it is at least 1/DEFL_GAIN shorter
 * than the ANS form (where there is one): deflate (libdeflate, level 1:
 * 113 MB/s on the bench VM) costs about three times ANS's count and
 * encode a byte, and where it wins by a few % the file gains little for
 * it.  cloudphysics's offsets (HIST) deflate 9 % under ANS: their
 * deflate was a third of the default vscsi import (80 of 247 ms); with
 * ANS the file is 4 % larger.  Its lengths and ops, which deflate to
 * half of ANS or less, are unchanged, and so are smaller columns (chunks
 * of a few thousand records, where ARITH is tried too), whose deflate
 * costs little: any gain keeps it there, as before.
 */
#define DEFL_GAIN 8

static inline size_t defl_goal(size_t e, size_t raw)
{
	return raw > DEFL_SAMPLE_MIN ? e - e / DEFL_GAIN : e;
}

static inline int plan_skippable(size_t z, size_t e, size_t raw)
{
	return raw >= PLAN_SKIP_MIN && e && z < defl_goal(e, raw) - e / 16;
}

/* What a deflate in a skipped chunk must stay under. */
static inline size_t skip_limit(size_t raw)
{
	return raw - raw / 4;
}

/*
 * Stores column d in its chosen form: len bytes at src, copied to the
 * chunk's data at offset dlen (src NULL: the form is there already, as
 * ANS and the plain fastest column leave it), tagged store; returns len,
 * what the chunk's data grows by.
 */
static size_t store_col(ist_writer *w, struct fmt_coldesc *d, size_t dlen,
			uint8_t store, const uint8_t *src, size_t len)
{
	if (src)
		memcpy(w->data + dlen, src, len);
	d->store = store;
	d->stored_len = len;
	return len;
}

/* The fastest writer's deflate: only for a column whose 4 KiB sample
 * deflates to 1/8 (FASTEST_RATIO) or less. */
#define FASTEST_RATIO 8

/*
 * Stores column c, coded at the chunk's data offset dlen as d says, for
 * IST_EFFORT_FASTEST; returns its stored size.  No entropy
 * coding (ANS's count and encode, ARITH), which was most of the fast
 * writer's time: the coded column as it is, unless it is long repeats
 * (a replicated sample, a constant pattern) that only deflate's matches
 * see and that make a plain column many times larger than the
 * default's.  A column larger than 16 KiB is deflated when a 4 KiB
 * sample of it deflates to 1/8 or less (a cheap test: deflating 4 KiB
 * that does not compress stops early at that room) and the whole to
 * 1/8 too; a column whose sample or whole did not is not sampled again
 * for DEFL_BACKOFF chunks.
 */
static size_t store_fastest(ist_writer *w, unsigned c, struct fmt_coldesc *d,
			    size_t dlen)
{
	uint8_t *col = w->data + dlen;
	size_t z = 0, len = d->raw_len;

	if (w->defl_skip[c]) {
		w->defl_skip[c]--;
	} else if (len > DEFL_SAMPLE_MIN) {
		z = deflate_into(w, col, 4096, w->zbuf,
				 4096 / FASTEST_RATIO + 1);
		if (z)
			z = deflate_into(w, col, len, w->zbuf,
					 len / FASTEST_RATIO + 1);
		if (!z)
			w->defl_skip[c] = DEFL_BACKOFF;
	}
	if (z)
		return store_col(w, d, dlen, FMT_STORE_DEFLATE, w->zbuf, z);
	return store_col(w, d, dlen, FMT_STORE_PLAIN, NULL, len);
}

static int write_chunk(ist_writer *w)
{
	struct fmt_coldesc desc[FMT_NCOLS];
	uint8_t dir[1 + FMT_NCOLS * 32], hdr[FMT_CHUNK_HDR];
	size_t n = w->nrecs, dlen = 0, dirlen = 0, raw_total = 0;
	struct ist_chunk_info ci;
	uint64_t tmax = 0;
	uint32_t crc;
	int ret;

	if (!n)
		return 0;
	/* which columns are constant, known from the copy */
	w->cols.known = (1u << FMT_NCOLS) - 1;
	w->cols.same = 0;
	for (unsigned c = 0; c < FMT_NCOLS; c++)
		w->cols.same |= (uint32_t)!w->diff[c] << c;
	for (unsigned c = 0; c < FMT_NCOLS; c++) {
		struct fmt_coldesc *d = &desc[c];
		size_t a, e, err, m, v, z, zlim, limit, nv = 0;
		int vans = 0, run;

		if (w->effort == IST_EFFORT_FASTEST) {
			/* coded in place (the room left holds a column's
			 * worst case and its scratch) */
			fmt_encode_column(w->hist, (enum fmt_col)c, &w->cols,
					  n, w->data + dlen, d);
			dlen += store_fastest(w, c, d, dlen);
			continue;
		}
		if (w->vals && n > ARITH_MAX_RECORDS) {
			/* VANS may be tried: the values too */
			if (w->vans_skip[c])
				w->vans_skip[c]--;
			else
				vans = 1;
		}
		/* in a VANS run, the values alone (the varints are not
		 * written: VANS codes the values) */
		run = vans && w->vans_run[c];
		fmt_encode_column_values(w->hist, (enum fmt_col)c, &w->cols, n,
					 w->colbuf, d, vans ? w->vals : NULL,
					 &nv, run);
		vans = vans && nv;
		/* stored as coded unless ANS or deflate saves 1/32 */
		limit = d->raw_len - d->raw_len / 32;
		if (vans && run) {
			v = vans_sticky(w, c, d, n, nv, limit);
			if (v) {
				dlen += store_col(w, d, dlen, FMT_STORE_VANS,
						  w->abuf, v);
				continue;
			}
			/* the run ended: the column as always, varints
			 * written */
			fmt_encode_column_values(w->hist, (enum fmt_col)c,
						 &w->cols, n, w->colbuf, d,
						 w->vals, &nv, 0);
		}
		if (w->plan_skip[c]) {
			/* deflate won a recent planned chunk by far: kept
			 * when it still saves a quarter, else planned as
			 * always (see PLAN_SKIP) */
			w->plan_skip[c]--;
			z = deflate_into(w, w->colbuf, d->raw_len, w->zbuf,
					 skip_limit(d->raw_len));
			if (z) {
				dlen += store_col(w, d, dlen, FMT_STORE_DEFLATE,
						  w->zbuf, z);
				continue;
			}
			w->plan_skip[c] = 0;
		}
		/* ANS's size first, its encoding only if deflate does not
		 * beat it for sure (see ans_write()) */
		e = fmt_ans_plan(&w->plan, w->colbuf, d->raw_len,
				 d->coding == FMT_CODE_HIST ? n : 0, limit,
				 w->anstmp);
		err = FMT_ANS_EST_ERR(d->raw_len);
		zlim = e && e + err < limit ? e + err : limit;
		a = z = m = v = 0;
		if (w->defl_skip[c]) {
			w->defl_skip[c]--;
		} else if (w->effort == IST_EFFORT_DEFAULT) {
			int did, lost = w->defl_lost[c] != 0;

			/* deflate must come 1/DEFL_GAIN under ANS in a
			 * large column */
			if (e && defl_goal(e + err, d->raw_len) < limit)
				zlim = defl_goal(e + err, d->raw_len);
			z = try_deflate(w, w->colbuf, d->raw_len, w->zbuf,
					e ? e : limit, zlim, lost, &did);
			/* deflate is kept when it is that much shorter than
			 * ANS (zlib reports an output that fills its room
			 * exactly as not finished) */
			if (z && e && z + err >= defl_goal(e, d->raw_len)) {
				a = ans_write(w, d, dlen);
				if (a && z >= defl_goal(a, d->raw_len))
					z = 0;
			}
			if (z) {
				w->defl_lost[c] = 0;
				if (plan_skippable(z, e, d->raw_len))
					w->plan_skip[c] = PLAN_SKIP;
			} else if (did == DEFL_FULL || did == DEFL_SAMPLE_FLAT ||
				 lost)
				defl_lost(w, c);
		} else if (d->raw_len > DEFL_SAMPLE_MIN) {
			int did;

			/* The fast writer keeps ANS or plain: deflating a
			 * column (zlib, even at level 1) costs more than
			 * ANS's count and encode together, and ARITH's
			 * adaptive coder more still.  But long repeats,
			 * which only deflate's matches see (a replicated
			 * sample: deflate 20 times smaller than ANS), are
			 * not given up: a column whose 4 KiB sample
			 * promises half of ANS's size is deflated, and a
			 * column that promised nothing is not sampled
			 * again for DEFL_BACKOFF chunks. */
			z = try_deflate(w, w->colbuf, d->raw_len, w->zbuf,
					(e ? e : limit) / 2, zlim / 2, 0, &did);
			if (z && e && 2 * z + err + 2 >= e) {
				a = ans_write(w, d, dlen);
				if (a && z >= a / 2)
					z = 0;
			}
			if (!z)
				w->defl_skip[c] = DEFL_BACKOFF;
		}
		if (e && !z && !a && vans)
			v = try_vans_large(w, c, d, n, nv, e, limit, dlen, &a);
		if (e && !z && !a && !v)
			a = ans_write(w, d, dlen);
		if (w->effort == IST_EFFORT_DEFAULT && !v) {
			size_t best = z ? z : a ? a : d->raw_len;

			/* ARITH only where VANS does not pay: it rarely
			 * beats VANS by its margin (0 of 76 columns in
			 * test_arith_margin), and its trial cost as much
			 * as the rest of a small chunk's writing */
			v = try_small(fmt_vans_encode, w->colbuf, d, n,
				      w->abuf, best);
			if (!v)
				m = try_small(fmt_arith_encode, w->colbuf, d, n,
					      w->abuf, best - best / ARITH_MARGIN);
		}
		if (m)
			dlen += store_col(w, d, dlen, FMT_STORE_ARITH,
					  w->abuf, m);
		else if (v)
			dlen += store_col(w, d, dlen, FMT_STORE_VANS,
					  w->abuf, v);
		else if (z)
			dlen += store_col(w, d, dlen, FMT_STORE_DEFLATE,
					  w->zbuf, z);
		else if (a) /* ans_write() left it in place */
			dlen += store_col(w, d, dlen, FMT_STORE_ANS, NULL, a);
		else
			dlen += store_col(w, d, dlen, FMT_STORE_PLAIN,
					  w->colbuf, d->raw_len);
	}
	dir[dirlen++] = FMT_NCOLS;
	for (unsigned c = 0; c < FMT_NCOLS; c++) {
		raw_total += desc[c].raw_len;
		dir[dirlen++] = desc[c].coding;
		dir[dirlen++] = desc[c].store;
		dirlen += fmt_put_varint(dir + dirlen, desc[c].param);
		dirlen += fmt_put_varint(dir + dirlen, desc[c].raw_len);
		dirlen += fmt_put_varint(dir + dirlen, desc[c].stored_len);
	}
	for (size_t i = 0; i < n; i++)
		if (w->cols.t[i] > tmax)
			tmax = w->cols.t[i];
	crc = payload_crc(0, dir, dirlen);
	crc = payload_crc(crc, w->data, dlen);
	memcpy(hdr, FMT_CHUNK_MAGIC, 4);
	fmt_put32(hdr + 4, (uint32_t)n);
	fmt_put64(hdr + 8, w->cols.t[0]);
	fmt_put64(hdr + 16, tmax);
	fmt_put32(hdr + 24, (uint32_t)raw_total);
	fmt_put32(hdr + 28, (uint32_t)(dirlen + dlen));
	fmt_put32(hdr + 32, crc);
	fmt_put32(hdr + 36, (uint32_t)crc32(0, hdr, 36));

	ci.offset = w->file_off;
	ci.first_t_ns = w->cols.t[0];
	ci.last_t_ns = tmax;
	ci.count = (uint32_t)n;
	ret = index_add(w, &ci);
	if (ret)
		return w->err = ret;
	if ((ret = write_all(w, hdr, sizeof(hdr))) ||
	    (ret = write_all(w, dir, dirlen)) ||
	    (ret = write_all(w, w->data, dlen)))
		return ret;
	w->nrecs = 0;
	memset(w->diff, 0, sizeof(w->diff));
	return 0;
}

/* The error a record makes the batch fail with, or 0. */
static inline int check_record(const struct ist_record *r)
{
	if (r->op >= IST_OP_COUNT || (r->flags & ~IST_F_ALL))
		return IST_ERANGE;
	if (r->dev >= IST_MAX_FOOTER_DEVICES)
		return IST_EDEVICE;
	return 0;
}

/* Copies recs[0..n) to records at..at + n of the chunk; when check is
 * set, checks them on the way: one pass over the caller's records, which
 * are often not in the cache.  The arrays are held in locals: a store to
 * the op bytes may alias anything, and fmt_cols_set() through dst had
 * every pointer loaded again for every record.
 *
 * On the way it ORs each field's difference from the chunk's first
 * record into diff[] (only once the whole copy succeeded): a column whose
 * diff stays 0 is constant.  The encoders had to read every value of the
 * chunk again to find that out, from memory (a chunk's columns, 3.3 MiB,
 * do not stay in the cache): 4 % of the fast writer's vscsi import, five
 * of whose nine columns are constant. */
static inline __attribute__((always_inline)) int
copy_cols(const struct fmt_cols *dst, size_t at, const struct ist_record *recs,
	  size_t n, int check, uint64_t *diff, uint64_t shift, int lazy)
{
	uint64_t *t = dst->t + at, *offset = dst->offset + at;
	uint64_t *lat = dst->lat + at, *stream = dst->stream + at;
	uint64_t *txn = dst->txn + at;
	uint32_t *len = dst->len + at, *dev = dst->dev + at;
	uint16_t *flags = dst->flags + at;
	uint8_t *op = dst->op + at;
	uint64_t bt, bo, bl, bs, bx, dt = 0, dof = 0, dl = 0, ds = 0, dx = 0;
	uint32_t blen, bdev, bfo, dlen = 0, ddev = 0, dfo = 0; /* fo: flags, op */

	if (!n)
		return 0;
	if (lazy && !at) {
		/* lazy: a constant column's value, its first */
		dst->lat[0] = recs[0].lat_ns;
		dst->stream[0] = recs[0].stream;
		dst->txn[0] = recs[0].txn;
	}
	if (at) {
		bt = dst->t[0];
		bo = dst->offset[0];
		bl = dst->lat[0];
		bs = dst->stream[0];
		bx = dst->txn[0];
		blen = dst->len[0];
		bdev = dst->dev[0];
		bfo = dst->flags[0] | (uint32_t)dst->op[0] << 16;
	} else {
		bt = recs[0].t_ns - shift;
		bo = recs[0].offset;
		bl = recs[0].lat_ns;
		bs = recs[0].stream;
		bx = recs[0].txn;
		blen = recs[0].len;
		bdev = recs[0].dev;
		bfo = recs[0].flags | (uint32_t)recs[0].op << 16;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ist_record *r = &recs[i];
		uint64_t tn = r->t_ns - shift;

		if (check) {
			int ret = check_record(r);

			if (__builtin_expect(ret != 0, 0))
				return ret;
		}
		t[i] = tn;
		offset[i] = r->offset;
		if (!lazy) {
			lat[i] = r->lat_ns;
			stream[i] = r->stream;
			txn[i] = r->txn;
		}
		len[i] = r->len;
		dev[i] = r->dev;
		flags[i] = r->flags;
		op[i] = r->op;
		dt |= tn ^ bt;
		dof |= r->offset ^ bo;
		dl |= r->lat_ns ^ bl;
		ds |= r->stream ^ bs;
		dx |= r->txn ^ bx;
		dlen |= r->len ^ blen;
		ddev |= r->dev ^ bdev;
		dfo |= (r->flags | (uint32_t)r->op << 16) ^ bfo;
	}
	diff[FMT_COL_T] |= dt;
	diff[FMT_COL_OFFSET] |= dof;
	diff[FMT_COL_LAT] |= dl;
	diff[FMT_COL_STREAM] |= ds;
	diff[FMT_COL_TXN] |= dx;
	diff[FMT_COL_LEN] |= dlen;
	diff[FMT_COL_DEV] |= ddev;
	diff[FMT_COL_FLAGS] |= dfo & 0xffff;
	diff[FMT_COL_OP] |= dfo >> 16;
	return 0;
}

/*
 * The latency, stream and transaction columns are copied lazily: while
 * all three are constant in the chunk (the writer's diff[] of them 0;
 * so in every chunk of a trace without latencies, streams or
 * transactions, as imported traces often are), only their first value
 * is stored, which is all their CONST coding reads.  The first batch
 * that makes one of them vary fills the three in (unlazy()), and the
 * chunk's later batches copy them as the other columns.  A third of the
 * copy's stores and of the chunk's column memory (1.5 of 3.3 MiB) were
 * these columns' on the vscsi bench input.
 */
static inline int lazy_cols(const ist_writer *w)
{
	return !(w->diff[FMT_COL_LAT] | w->diff[FMT_COL_STREAM] |
		 w->diff[FMT_COL_TXN]);
}

/* The lazy columns of records 0..at + n of the chunk, whose first at
 * records held their value at 0, and whose records at.. are recs. */
static void unlazy(ist_writer *w, size_t at, const struct ist_record *recs,
		   size_t n)
{
	const struct fmt_cols *c = &w->cols;

	for (size_t i = 1; i < at; i++) {
		c->lat[i] = c->lat[0];
		c->stream[i] = c->stream[0];
		c->txn[i] = c->txn[0];
	}
	for (size_t i = 0; i < n; i++) {
		c->lat[at + i] = recs[i].lat_ns;
		c->stream[at + i] = recs[i].stream;
		c->txn[at + i] = recs[i].txn;
	}
}

/* Copies recs[0..n) to the chunk at record at, lazily (see above) while
 * it can; 0 or the error of a record when check is set. */
static inline __attribute__((always_inline)) int
copy_in(ist_writer *w, size_t at, const struct ist_record *recs, size_t n,
	int check, uint64_t shift)
{
	int ret;

	if (!lazy_cols(w))
		return copy_cols(&w->cols, at, recs, n, check, w->diff, shift, 0);
	ret = copy_cols(&w->cols, at, recs, n, check, w->diff, shift, 1);
	if (!ret && !lazy_cols(w))
		unlazy(w, at, recs, n);
	return ret;
}

/* ist_writer_write() and ist_writer_write_shifted(); shift is a constant
 * 0 in the first, which the compiler then drops. */
static inline __attribute__((always_inline)) int
writer_write(ist_writer *w, const struct ist_record *recs, size_t n,
	     uint64_t shift)
{
	size_t k = w->chunk_records - w->nrecs;
	int ret;

	if (w->err)
		return w->err;
	if (!n)
		return 0; /* (recs may be NULL: no arithmetic on it) */
	/* Check the batch first: a bad record leaves the writer usable.
	 * What fits in the chunk is checked while it is copied there (the
	 * chunk grows only once all is well), the rest on its own. */
	if (k > n)
		k = n;
	ret = copy_in(w, w->nrecs, recs, k, 1, shift);
	for (size_t i = k; !ret && i < n; i++)
		ret = check_record(&recs[i]);
	if (ret)
		return ret;
	ret = shift ? ist_totals_acc_add_shifted(w->acc, recs, n, shift) :
		      ist_totals_acc_add(w->acc, recs, n);
	if (ret)
		return w->err = ret;
	w->nrecs += k;
	recs += k;
	n -= k;
	for (;;) {
		if (w->nrecs == w->chunk_records) {
			ret = write_chunk(w);
			if (ret)
				return w->err = ret;
		}
		if (!n)
			break;
		k = w->chunk_records - w->nrecs;
		if (k > n)
			k = n;
		copy_in(w, w->nrecs, recs, k, 0, shift);
		w->nrecs += k;
		recs += k;
		n -= k;
	}
	return 0;
}

int ist_writer_write(ist_writer *w, const struct ist_record *recs, size_t n)
{
	return writer_write(w, recs, n, 0);
}

int ist_writer_write_shifted(ist_writer *w, const struct ist_record *recs,
			     size_t n, uint64_t shift)
{
	return writer_write(w, recs, n, shift);
}

int ist_writer_flush(ist_writer *w)
{
	int ret;

	if (w->err)
		return w->err;
	ret = write_chunk(w);
	return ret ? (w->err = ret) : 0;
}

const struct ist_totals *ist_writer_totals(const ist_writer *w)
{
	return ist_totals_acc_get(w->acc);
}

int ist_writer_set_meta(ist_writer *w, const char *key, const char *value)
{
	if (!w || !key || !*key || !value)
		return -EINVAL;
	return ist_header_set(w->foot, key, value);
}

int ist_writer_add_device(ist_writer *w, const char *name, uint64_t size,
			  uint32_t block_size)
{
	unsigned n;
	int ret;

	if (!w || !name)
		return -EINVAL;
	n = w->hdr_ndev + ist_header_device_count(w->foot);
	if (n >= IST_MAX_FOOTER_DEVICES)
		return IST_ERANGE;
	ret = ist_header_add_device(w->foot, name, size, block_size);
	if (ret < 0)
		return ret;
	/* the footer's per-device table covers every device */
	ret = ist_totals_acc_reserve_dev(w->acc, n + 1);
	return ret ? ret : (int)n;
}

static int write_footer(ist_writer *w)
{
	uint8_t *buf = NULL, tr[FMT_TRAILER];
	size_t len;
	uint64_t off;
	int ret;

	ret = write_chunk(w);
	if (ret)
		return ret;
	ret = fmt_footer_encode(w->idx, w->nidx, ist_totals_acc_get(w->acc),
				w->foot, &buf, &len);
	if (ret)
		return ret;
	if (len > UINT32_MAX) {
		free(buf);
		return IST_ERANGE;
	}
	off = w->file_off;
	ret = write_all(w, buf, len);
	free(buf);
	if (ret)
		return ret;
	fmt_put64(tr, off);
	fmt_put32(tr + 8, (uint32_t)len);
	fmt_put32(tr + 12, (uint32_t)crc32(0, tr, 12));
	memcpy(tr + 16, FMT_TRAILER_MAGIC, 8);
	return write_all(w, tr, sizeof(tr));
}

int ist_writer_close(ist_writer *w)
{
	int ret;

	if (!w)
		return -EINVAL;
	ret = w->err;
	if (!ret)
		ret = write_footer(w);
	if (!ret && w->tmppath && fdatasync(w->fd))
		ret = -errno;
	if (w->own_fd) {
		if (close(w->fd) && !ret)
			ret = -errno;
		w->fd = -1;
	}
	if (!ret && w->tmppath && rename(w->tmppath, w->path))
		ret = -errno;
	if (ret && w->tmppath)
		unlink(w->tmppath);
	istint_tmp_release(w->tmppath);
	writer_free(w);
	return ret;
}

void ist_writer_abort(ist_writer *w)
{
	if (!w)
		return;
	if (w->own_fd && w->fd >= 0) {
		close(w->fd);
		w->fd = -1;
	}
	if (w->tmppath)
		unlink(w->tmppath);
	else if (w->path)
		unlink(w->path);
	istint_tmp_release(w->tmppath);
	writer_free(w);
}
