/* SPDX-License-Identifier: MIT */
/* fmt.h - internal pieces of the IST file format shared by writer and reader. */
#ifndef IST_FORMAT_FMT_H
#define IST_FORMAT_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "iostorm.h"

/*
 * On-disk layout constants (man/iostorm-trace.5 is the specification;
 * keep the two in step).  Every multi-byte integer is little-endian.
 */
#define FMT_MAGIC "\x89IST\r\n\x1a\n"    /* file magic, 8 bytes            */
#define FMT_MAGIC_LEN 8
#define FMT_MAJOR 1
#define FMT_MINOR_ANS 1                  /* first minor with FMT_STORE_ANS */
/* 1.2: the footer ends with metadata pairs and devices learned after the
 * header was written (written by every 1.2 writer, empty or not). */
#define FMT_MINOR_FOOTER_META 2
/* 1.3: FMT_STORE_ARITH storage, FMT_CODE_CDELTA latencies. */
#define FMT_MINOR_ARITH 3
/* 1.4: FMT_STORE_VANS storage (the small chunks' value coder). */
#define FMT_MINOR_SMALL 4
#define FMT_MINOR FMT_MINOR_SMALL
#define FMT_WRITE_MINOR \
	(FMT_MINOR > FMT_MINOR_FOOTER_META ? FMT_MINOR : FMT_MINOR_FOOTER_META)
#define FMT_FIXED_HDR 16                 /* magic, major, minor, hdr_len   */
#define FMT_MAX_HDR (16u << 20)          /* sanity bound on header length  */

#define FMT_CHUNK_MAGIC "ISTC"
#define FMT_CHUNK_HDR 40                 /* fixed chunk header size        */
#define FMT_FOOTER_MAGIC "ISTF"
#define FMT_TRAILER_MAGIC "ISTEND\r\n"
#define FMT_TRAILER 24                   /* footer offset, len, crc, magic */

#define FMT_NCOLS 9
#define FMT_DEFAULT_CHUNK 65536u
#define FMT_MAX_CHUNK (1u << 20)
/* Bound on a column's coded size: 10 bytes per record (11 in HIST). */
#define FMT_MAX_COL_BYTES(n) ((size_t)(n) * 11 + 64)
/* Readable slack after every column buffer (for unchecked varint reads). */
#define FMT_PAD 16

/* Column order inside a chunk (also the decode order: len before offset,
 * because offsets are coded against the previous end on the device). */
enum fmt_col {
	FMT_COL_T = 0,
	FMT_COL_DEV,
	FMT_COL_OP,
	FMT_COL_FLAGS,
	FMT_COL_LEN,
	FMT_COL_OFFSET,
	FMT_COL_LAT,
	FMT_COL_STREAM,
	FMT_COL_TXN,
};

/* Column codings (first byte of a column descriptor). */
enum fmt_coding {
	FMT_CODE_CONST = 0, /* every value equals param                     */
	FMT_CODE_RAW = 1,   /* varint(v / param)                            */
	FMT_CODE_DELTA = 2, /* varint(zigzag((v - prev) / param)), prev = 0 */
	FMT_CODE_SEQ = 3,   /* offset only: varint(zigzag((v - end) / param))
			       where end is the previous end on the same
			       device slot (dev % FMT_SEQ_SLOTS)            */
	FMT_CODE_HIST = 4,  /* offset only: a symbol byte per record, index
			       into the slot's history of recent offsets and
			       ends, or FMT_HIST for a miss, coded after the
			       symbols as in SEQ (see codec.c)              */
	FMT_CODE_DICT = 5,  /* param = k (2..16) dictionary entries: k
			       varints, then per record its entry's index
			       in w = 1, 2 or 4 bits (LSB first)            */
	FMT_CODE_MTF = 6,   /* dev only, minor >= FMT_MINOR_ANS: varint of
			       the device's rank in the list of the
			       FMT_MTF last distinct devices of the chunk
			       (then moved to the front), or FMT_MTF + dev
			       for a device not in it                       */
	FMT_CODE_CDELTA = 7, /* lat only, minor >= FMT_MINOR_ARITH: varint(
			       zigzag((c - prev c) / param)) of the
			       completion times c = t + lat, prev c = 0     */
	FMT_CODE_LAST
};
#define FMT_MTF 16
#define FMT_DICT_MAX 16
#define FMT_SEQ_SLOTS 4096
#define FMT_HIST 16          /* history entries per slot (power of two) */

/* Column storage (second byte of a column descriptor). */
enum fmt_store {
	FMT_STORE_PLAIN = 0,   /* bytes as coded                            */
	FMT_STORE_DEFLATE = 1, /* raw deflate (zlib, windowBits -15)        */
	FMT_STORE_ANS = 2,     /* rANS with a static byte model (ans.c);
				  minor version >= FMT_MINOR_ANS            */
	FMT_STORE_ARITH = 3,   /* adaptive binary range coding of the
				  column's values or bytes (arith.c); minor
				  version >= FMT_MINOR_ARITH                */
	FMT_STORE_VANS = 4,    /* static rANS of the column's values or
				  bytes, one symbol each and raw low bits
				  (vans.c); minor version >= FMT_MINOR_SMALL */
};

/* ---- little-endian helpers */

static inline void fmt_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* One store on a little-endian host: gcc 12 -O2 kept the byte loop (8
 * byte stores a call), a seventh of the VANS encoder's time in perf. */
static inline void fmt_put32(uint8_t *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 4);
#else
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
#endif
}

static inline void fmt_put64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 8);
#else
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
#endif
}

static inline uint16_t fmt_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t fmt_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static inline uint64_t fmt_get64(const uint8_t *p)
{
	return (uint64_t)fmt_get32(p) | ((uint64_t)fmt_get32(p + 4) << 32);
}

/* ---- varint (LEB128, at most 10 bytes) and zigzag */

static inline uint64_t fmt_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t fmt_unzigzag(uint64_t v)
{
	return (int64_t)((v >> 1) ^ (0 - (v & 1)));
}

/* Writes v at p (room for 10 bytes needed); returns bytes written. */
static inline size_t fmt_put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Bytes fmt_put_varint() would write for v: ceil(bits / 7) for its
 * 1-64 significant bits, as (9 * bits + 64) / 64, which is exact over
 * that range (a multiply-add and a shift instead of a division by 7:
 * every size pass of the writer counts varints). */
static inline unsigned fmt_varint_len(uint64_t v)
{
	unsigned lg = 63 ^ (unsigned)__builtin_clzll(v | 1); /* bits - 1 */

	return (lg * 9 + 73) >> 6;
}

/*
 * A varint of at most 8 bytes read without a branch on its length: the
 * first byte without bit 7 found in the 8 bytes at p (the caller
 * guarantees them), the 7-bit groups before it packed by three
 * shift-and-mask steps.  Returns its length, or 0 when the 8 bytes all
 * continue (9 or 10 bytes, or not a varint) and on a big-endian machine:
 * the caller then reads it byte by byte.
 */
static inline unsigned fmt_varint_word(const uint8_t *p, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t x, stop;

	memcpy(&x, p, 8);
	stop = ~x & UINT64_C(0x8080808080808080);
	if (__builtin_expect(!stop, 0))
		return 0;
	x &= (stop ^ (stop - 1)) & UINT64_C(0x7f7f7f7f7f7f7f7f);
	x = (x & UINT64_C(0x007f007f007f007f)) |
	    ((x & UINT64_C(0x7f007f007f007f00)) >> 1);
	x = (x & UINT64_C(0x00003fff00003fff)) |
	    ((x & UINT64_C(0x3fff00003fff0000)) >> 2);
	x = (x & UINT64_C(0x000000000fffffff)) |
	    ((x & UINT64_C(0x0fffffff00000000)) >> 4);
	*v = x;
	return (unsigned)__builtin_ctzll(stop) / 8 + 1;
#else
	(void)p;
	(void)v;
	return 0;
#endif
}

/*
 * Reads a varint from [*pp, end); returns 0 or IST_ECORRUPT (truncated or
 * longer than 10 bytes or overflowing 64 bits).  Advances *pp.
 */
static inline int fmt_get_varint(const uint8_t **pp, const uint8_t *end,
				 uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t x = 0;
	unsigned shift = 0;

	for (;;) {
		uint8_t b;

		if (p >= end)
			return IST_ECORRUPT;
		b = *p++;
		if (shift == 63 && b > 1)
			return IST_ECORRUPT;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
		if (shift > 63)
			return IST_ECORRUPT;
	}
	*pp = p;
	*v = x;
	return 0;
}

/* Whether [in + prefix, in + len) is a run of canonical varints (each in
 * its shortest form), so that coding the values reproduces the bytes
 * exactly (ARITH's and VANS's value modes). */
int fmt_parses_as_varints(const uint8_t *in, size_t len, size_t prefix);

/* ---- column codec (codec.c) */

/* Per-device state of the offset codings, reused chunk after chunk (a
 * generation number resets slots lazily: each chunk starts from zeros). */
struct fmt_hist {
	uint64_t v[FMT_SEQ_SLOTS][FMT_HIST];
	uint32_t gen[FMT_SEQ_SLOTS];
	uint16_t head[FMT_SEQ_SLOTS];
	uint32_t cur;
};

/* A column descriptor as stored in the chunk's column directory. */
struct fmt_coldesc {
	uint8_t coding; /* enum fmt_coding */
	uint8_t store;  /* enum fmt_store  */
	uint64_t param; /* CONST: the value; others: the divisor (>= 1) */
	uint64_t raw_len;    /* coded bytes before storage */
	uint64_t stored_len; /* bytes in the file          */
};

/*
 * A chunk's records by field, as the writer keeps them: a pass of a
 * column encoder then reads 64-512 KiB of consecutive values (which stay
 * in the cache for its next pass), not the 3.5 MiB of 65536 records.
 */
struct fmt_cols {
	uint64_t *t, *offset, *lat, *stream, *txn;
	uint32_t *len, *dev;
	uint16_t *flags;
	uint8_t *op;
	/* bit c (enum fmt_col) of known: whether column c holds one value
	 * is known, from bit c of same (the writer learns it while it
	 * copies the records in); otherwise the encoder finds out */
	uint32_t known, same;
};

/* Arrays for n records in c (fmt_cols_free() after; known and same 0);
 * 0 or -ENOMEM. */
int fmt_cols_alloc(struct fmt_cols *c, size_t n);
void fmt_cols_free(struct fmt_cols *c);

/* Stores r as record i of c. */
static inline void fmt_cols_set(const struct fmt_cols *c, size_t i,
				const struct ist_record *r)
{
	c->t[i] = r->t_ns;
	c->offset[i] = r->offset;
	c->lat[i] = r->lat_ns;
	c->stream[i] = r->stream;
	c->txn[i] = r->txn;
	c->len[i] = r->len;
	c->dev[i] = r->dev;
	c->flags[i] = r->flags;
	c->op[i] = r->op;
}

/*
 * Encodes column col of records [0, n) of c into out (room for
 * FMT_MAX_COL_BYTES(n) bytes, all of which it may use as scratch),
 * choosing the coding; fills d->coding, d->param, d->raw_len.
 */
void fmt_encode_column(struct fmt_hist *h, enum fmt_col col,
		       const struct fmt_cols *c, size_t n, uint8_t *out,
		       struct fmt_coldesc *d);
/*
 * fmt_encode_column() that also stores, when vals is not NULL, the values
 * whose varints it wrote (after HIST's n symbols) into vals[0..*nv) (room
 * for n): what the VANS encoder codes (fmt_vans_encode_values()), without
 * parsing the varints again.  *nv is 0 for a coding whose bytes are not
 * varints of values (CONST, DICT, MTF: see fmt_colcur_takes_values()).
 * With only set (and vals), the varints of a column whose coding takes
 * values are not written, only counted in d->raw_len (HIST's symbols
 * are): for a column coded from its values alone.
 */
void fmt_encode_column_values(struct fmt_hist *h, enum fmt_col col,
			      const struct fmt_cols *c, size_t n, uint8_t *out,
			      struct fmt_coldesc *d, uint64_t *vals, size_t *nv,
			      int only);
/* Non-zero: the offsets' history scan is the SSE2 one even on a CPU with
 * AVX-512 (for the tests that compare the two; same output). */
extern int fmt_scan_no_avx512;
/* Non-zero: the decoders are the SSE2 (or portable) ones even on a CPU
 * with AVX-512: MTF devices, HIST offsets' varints without BMI2's pext
 * (for the tests that compare them; same records). */
extern int fmt_dec_no_avx512;
/* Non-zero: the time and offset columns' varints are written one by one
 * even on a CPU with AVX-512 (for the tests that compare; same bytes). */
extern int fmt_varint_no_avx512;
/* What the last offsets' scan of this thread found: the RAW, SEQ and HIST
 * sizes it estimated and the gcd of HIST's misses (for the tests that
 * compare the scans). */
extern __thread uint64_t fmt_scan_found[4];
/* writer.c: arenas taken from the writer closed last, and those kept
 * that were too small for the writer opened (counters for the tests) */
extern unsigned long fmt_arena_reused, fmt_arena_too_small;
/* writer.c: chunks whose column took VANS in a run without ANS's plan,
 * and runs ended by a chunk whose VANS drifted or did not pay (counters
 * for the tests; see try_vans_large()) */
extern unsigned long fmt_vans_run_chunks, fmt_vans_run_ends;
/* A column being decoded block by block (codec.c). */
struct fmt_colcur {
	struct fmt_coldesc d;
	enum fmt_col col;
	const uint8_t *p, *end; /* next coded byte, column end */
	const uint8_t *sym;     /* HIST symbols */
	uint64_t prev;          /* DELTA */
	uint64_t dict[FMT_DICT_MAX];
	unsigned k, w;          /* DICT entries and index width */
	uint32_t mtf[FMT_MTF];  /* MTF: recent devices, newest first */
	unsigned nmtf;
	int hist_masks;         /* HIST: decoded without the hit/miss branch */
	size_t done;            /* values decoded so far */
	/* a VANS column decoded into values (fmt_colcur_values()): the
	 * next one and the end; NULL: the varints at p */
	const uint64_t *vp, *vend;
};

/* Checks d and positions c at the start of the column [in, in + raw_len)
 * of n values (FMT_PAD readable bytes must follow it); 0 or IST_ECORRUPT. */
int fmt_colcur_init(struct fmt_colcur *c, struct fmt_hist *h, enum fmt_col col,
		    const struct fmt_coldesc *d, const uint8_t *in, size_t n);
/* fmt_colcur_init() for a column whose values (the varints its raw_len
 * bytes hold after its HIST symbols) were decoded already into
 * vals[0..nv), which has a readable entry after them: sym the n HIST
 * symbols (NULL for other codings).  The column decoders then read the
 * values instead of the varints.  RAW, DELTA, SEQ, HIST and CDELTA only
 * (1 for the others: the caller decodes the varints instead); 0 or
 * IST_ECORRUPT. */
int fmt_colcur_values(struct fmt_colcur *c, struct fmt_hist *h,
		      enum fmt_col col, const struct fmt_coldesc *d,
		      const uint8_t *sym, const uint64_t *vals, size_t nv,
		      size_t n);
/* Whether fmt_colcur_values() takes columns of coding coding. */
static inline int fmt_colcur_takes_values(unsigned coding)
{
	return coding == FMT_CODE_RAW || coding == FMT_CODE_DELTA ||
	       coding == FMT_CODE_SEQ || coding == FMT_CODE_HIST ||
	       coding == FMT_CODE_CDELTA;
}
/* Decodes the next m values of the column into recs[0..m). */
int fmt_decode_block(struct fmt_hist *h, struct fmt_colcur *c,
		     struct ist_record *recs, size_t m);
/* A CONST column's value set in the template record tpl, which then
 * stands for the column: the reader copies tpl into each record before
 * the other columns' blocks (one pass for all the CONST fields, where
 * each took a pass of fmt_decode_block()); 0, or IST_ECORRUPT as
 * fmt_decode_block() for the column (bytes, or a value too large for
 * the field). */
int fmt_colcur_const(const struct fmt_colcur *c, struct ist_record *tpl);
/* After the last block: the column was consumed exactly?  0 or IST_ECORRUPT. */
int fmt_colcur_finish(const struct fmt_colcur *c);

/*
 * Decodes column col from [in, in + d->raw_len) into recs[0..n) (which
 * already holds the columns before it in decode order).  Returns 0 or
 * IST_ECORRUPT (bad coding, too few or too many bytes, value too large for
 * the field).
 */
int fmt_decode_column(struct fmt_hist *h, enum fmt_col col,
		      const struct fmt_coldesc *d, const uint8_t *in,
		      struct ist_record *recs, size_t n);

/* ---- the ANS column storage (ans.c) */

#define FMT_ANS_BITS 12 /* frequencies sum to 2^12 */
#define FMT_ANS_CTX 4   /* byte contexts of model 1 */

/* Decoding tables, reused column after column (80 KiB): the varint
 * contexts, then the prefix's (model 2). */
struct fmt_ans_dec {
	uint32_t tab[FMT_ANS_CTX + 1][1u << FMT_ANS_BITS];
};

/* Room fmt_ans_encode() needs in tmp for len bytes. */
#define FMT_ANS_TMP(len) ((size_t)(len) * 3 + 64)

/*
 * Codes [in, in + len) into out if the result is shorter than limit
 * bytes (out has room for limit bytes); returns its size, or 0 to keep
 * another storage.  The first prefix bytes (HIST symbols; 0: none) may
 * get a model of their own.  tmp: FMT_ANS_TMP(len) bytes of scratch.
 */
size_t fmt_ans_encode(const uint8_t *in, size_t len, size_t prefix,
		      uint8_t *out, size_t limit, uint8_t *tmp);

/* fmt_ans_encode() in two steps, so that a writer learns ANS's size
 * before it spends the encoding: fmt_ans_plan() counts the bytes,
 * chooses the model and returns the size it estimates (the model's
 * ideal code length, its tables and states; the coded size is within
 * FMT_ANS_EST_ERR(len) bytes of it either way: each symbol's cost is
 * rounded to 1/512 bit, and the states add or save a few bytes;
 * measured: -18 to +18), or 0 when that is not below limit; fmt_ans_write() then codes the same in with the same tmp
 * (which keeps the plan's contexts), as fmt_ans_encode() would. */
struct fmt_ans_plan {
	unsigned kind;   /* model 0, 1 or 2 */
	unsigned nctx;   /* tables used */
	uint64_t prefix; /* model 2 */
	size_t len;      /* 0: no plan */
	uint16_t freq[FMT_ANS_CTX + 1][256];
};
#define FMT_ANS_EST_ERR(len) ((len) / 4096 + 32)
size_t fmt_ans_plan(struct fmt_ans_plan *m, const uint8_t *in, size_t len,
		    size_t prefix, size_t limit, uint8_t *tmp);
size_t fmt_ans_write(const struct fmt_ans_plan *m, const uint8_t *in,
		     uint8_t *out, size_t limit, uint8_t *tmp);
/* Decodes [in, in + inlen) into exactly want bytes at out; 0 or
 * IST_ECORRUPT. */
int fmt_ans_decode(struct fmt_ans_dec *t, const uint8_t *in, size_t inlen,
		   uint8_t *out, size_t want);

/* One column of fmt_ans_decode_jobs(): its stored bytes, and where its
 * want bytes go.  limit: the bytes from in up to limit (at or past
 * in + inlen; NULL: in + inlen) may be read, so that the lanes read
 * their words unchecked to the end of their columns (a chunk's columns
 * lie in one buffer with FMT_PAD bytes after it); only a damaged column
 * reads past in + inlen, and is refused. */
struct fmt_ans_job {
	const uint8_t *in;
	size_t inlen;
	uint8_t *out;
	size_t want;
	const uint8_t *limit;
};
/* Decodes the n columns of jobs as fmt_ans_decode() would each, two at a
 * time (t: two table sets); 0, or IST_ECORRUPT when one of them is (not
 * saying which: the caller decodes again one by one to know). */
int fmt_ans_decode_jobs(struct fmt_ans_dec *const t[2],
			struct fmt_ans_job *jobs, size_t n);
/* Bytes fmt_ans_decode_jobs() decoded with one lane alone, in this
 * thread (for the tests: the lanes should run to the end together). */
extern __thread unsigned long fmt_ans_alone_bytes;

/* ---- the ARITH column storage (arith.c) */

#define FMT_ARITH_BYTES 0  /* mode: the bytes, by position in their varint */
#define FMT_ARITH_VALUES 1 /* mode: the varints' values */
#define FMT_ARITH_SHIFT_MIN 3 /* adaptation rates (probability steps of */
#define FMT_ARITH_SHIFT_MAX 6 /* 1/2^shift) a reader accepts           */

/*
 * Codes [in, in + len) into out if the result is shorter than limit
 * bytes (out has room for limit bytes); returns its size, or 0 to keep
 * another storage.  The first prefix bytes (HIST symbols; 0: none) get a
 * model of their own.
 */
size_t fmt_arith_encode(const uint8_t *in, size_t len, size_t prefix,
			uint8_t *out, size_t limit);
/* Decodes [in, in + inlen) into exactly want bytes at out (room for want
 * bytes); 0 or IST_ECORRUPT. */
int fmt_arith_decode(const uint8_t *in, size_t inlen, uint8_t *out,
		     size_t want);

/* ---- the VANS column storage (vans.c) */

#define FMT_VANS_LMAX 11 /* frequencies sum to 2^L, L in [1, 11] */
#define FMT_VANS_FMAX 8  /* values of up to F + 1 bits are symbols */
#define FMT_VANS_KMAX 3  /* longer ones: bit length and top K bits */

/*
 * Codes [in, in + len) into out if the result is shorter than limit
 * bytes (out has room for limit bytes); returns its size, or 0 to keep
 * another storage.  The first prefix bytes (HIST symbols; 0: none) get a
 * table of their own.
 */
size_t fmt_vans_encode(const uint8_t *in, size_t len, size_t prefix,
		       uint8_t *out, size_t limit);
/*
 * The encoder's working memory for columns of at most maxv values (and
 * prefixes of at most maxv bytes): fmt_vans_work_size(maxv) bytes at mem
 * (64-byte aligned), which a writer keeps (its arena) instead of
 * fmt_vans_encode()'s allocations a column.
 */
struct fmt_vans_work;
size_t fmt_vans_work_size(size_t maxv);
struct fmt_vans_work *fmt_vans_work_init(void *mem, size_t maxv);
/*
 * fmt_vans_encode() of a value-mode column given by its parts: the
 * prefix pre[0..prefix) and the values v[0..nv) whose canonical varints
 * are the rest of the column (as the column coder made them:
 * fmt_encode_column_values()), without parsing them; the same bytes.
 * 0 also when nv or prefix is more than the work's maxv.
 */
size_t fmt_vans_encode_values(struct fmt_vans_work *wk, const uint8_t *pre,
			      size_t prefix, const uint64_t *v, size_t nv,
			      uint8_t *out, size_t limit);
/* Decodes [in, in + inlen) into exactly want bytes at out (room for want
 * bytes); 0 or IST_ECORRUPT. */
int fmt_vans_decode(const uint8_t *in, size_t inlen, uint8_t *out,
		    size_t want);
/* Whether the stored VANS column [in, in + inlen) is in value mode (its
 * bytes canonical varints after the prefix), from its first byte. */
int fmt_vans_values(const uint8_t *in, size_t inlen);
/*
 * A value-mode column as fmt_vans_decode() would decode it, but its
 * values into vals[0..*nv) (at most maxv, or IST_ECORRUPT) instead of
 * their varints: the prefix's bytes into pre[0..*npre), and the values,
 * whose varints must fill the rest of want bytes exactly.  The column
 * decoders then read the values without parsing varints.  0 or
 * IST_ECORRUPT (also for a column in byte mode).
 */
int fmt_vans_decode_values(const uint8_t *in, size_t inlen, uint8_t *pre,
			   size_t want, uint64_t *vals, size_t maxv,
			   size_t *npre, size_t *nv);

/* ---- running totals (totals.c; the rest of the API is public) */

/* Ensures the per-device table has at least ndev entries. */
int ist_totals_acc_reserve_dev(ist_totals_acc *a, uint32_t ndev);

/* Entries a distinct-value set holds before its count becomes a bound. */
#define FMT_DISTINCT_CAP (1u << 19)

/* ---- header and footer (de)serialisation (meta.c) */

/* Serialises h as the header body (after the fixed 16 bytes); returns a
 * malloc'ed buffer in *buf and its length, or a negative error. */
int fmt_header_encode(const ist_header *h, uint8_t **buf, size_t *len);
/* Parses a header body into a new header; IST_ECORRUPT on bad data. */
int fmt_header_decode(const uint8_t *p, size_t len, ist_header **h);

/* Devices from which a 1.3 header's device table is deflated (when that
 * saves a quarter of it). */
#define FMT_PACK_MIN_DEVICES 64
/* The header body of a 1.3 writer: as fmt_header_encode(), then a varint
 * count of packed devices and, when not 0, the device table deflated
 * (the plain table is then empty). */
int fmt_header_encode_packed(const ist_header *h, uint8_t **buf, size_t *len);
/* fmt_header_decode() for the header of a file of that minor version
 * (from 1.3 on, the packed device table follows the plain one). */
int fmt_header_decode_minor(const uint8_t *p, size_t len, unsigned minor,
			    ist_header **h);

/* Serialises the footer (magic, index, totals, then unless ext is NULL the
 * 1.2 footer metadata: ext's pairs and devices, coded as a header body,
 * and crc) into a malloc'ed buffer. */
int fmt_footer_encode(const struct ist_chunk_info *idx, uint64_t nchunks,
		      const struct ist_totals *t, const ist_header *ext,
		      uint8_t **buf, size_t *len);
/* Parses a footer (CRC already checked by the caller is not assumed: this
 * checks it).  On success *idx (malloc'ed) and *t (owning dev_max_end);
 * when ext is not NULL (a 1.2 file) the footer metadata must follow the
 * totals and *ext gets it as a new header. */
int fmt_footer_decode(const uint8_t *p, size_t len, struct ist_chunk_info **idx,
		      uint64_t *nchunks, struct ist_totals *t, ist_header **ext);

#endif
