/* SPDX-License-Identifier: MIT */
/* codec.c - the column codings of an IST chunk: const, raw, delta, seq. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "format/fmt.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__) &&                                \
	(defined(__clang__) || __GNUC__ >= 7)
#include <immintrin.h>
#define HAVE_SCAN_AVX512 1
/* put_varint8x8()'s vpcompressb (VBMI2): gcc 8, clang 6 */
#if defined(__clang__) ? __clang_major__ >= 6 : __GNUC__ >= 8
#define HAVE_VARINT_AVX512 1
#endif
#endif

int fmt_varint_no_avx512;

/*
 * Each column holds one field of every record of the chunk.  The writer
 * picks, per chunk and column, the coding whose varints are shortest and
 * divides the coded values by their greatest common divisor: timestamps in
 * 100 ns or 1 us units, offsets and lengths in sectors or pages then cost a
 * few bits less per record.  Division and the divisibility test use the
 * modular inverse of the divisor's odd part, so that the hot loops
 * multiply instead of dividing.
 */
struct divisor {
	uint64_t g;   /* the divisor, >= 1 */
	unsigned s;   /* trailing zero bits of g */
	uint64_t inv; /* inverse of (g >> s) modulo 2^64 */
	uint64_t lim; /* UINT64_MAX / g */
};

static void divisor_set(struct divisor *d, uint64_t g)
{
	uint64_t odd, inv;

	d->g = g;
	d->s = (unsigned)__builtin_ctzll(g);
	odd = g >> d->s;
	inv = odd; /* Newton: correct to 3 bits, doubling each step */
	for (int i = 0; i < 5; i++)
		inv *= 2 - odd * inv;
	d->inv = inv;
	d->lim = UINT64_MAX / g;
}

/* x divisible by d (x taken as unsigned magnitude)?  x = q * g gives
 * x * inv = q << s modulo 2^64, which rotated right by s is q <= lim;
 * any other x gives a larger value, its low s bits rotated to the top
 * or a product past lim (the test of Granlund and Montgomery, with a
 * rotation for even divisors: no branch on the low bits). */
static inline int divisor_divides(const struct divisor *d, uint64_t x)
{
	uint64_t y = x * d->inv;

	y = y >> (d->s & 63) | y << ((64 - d->s) & 63); /* rotation */
	return y <= d->lim;
}

/* Exact quotient of an unsigned x divisible by d. */
static inline uint64_t divisor_div(const struct divisor *d, uint64_t x)
{
	return (x >> d->s) * d->inv;
}

/* Exact quotient of a signed x divisible by d. */
static inline int64_t divisor_sdiv(const struct divisor *d, int64_t x)
{
	return (int64_t)((uint64_t)(x >> d->s) * d->inv);
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static inline uint64_t magnitude(int64_t v)
{
	return v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
}

/* A running gcd starts at 0 (gcd(0, x) = x), whose divisibility test
 * (lim 0) passes 0 alone. */
static void gcd_start(struct divisor *d)
{
	d->g = 0;
	d->s = 0;
	d->inv = 1;
	d->lim = 0;
}

/* Folds x into the running gcd; one multiply and compare while x is a
 * multiple of it (0 always is; everything is, once the gcd is 1). */
static inline void gcd_add(struct divisor *d, uint64_t x)
{
	if (__builtin_expect(divisor_divides(d, x), 1))
		return;
	divisor_set(d, d->g ? gcd64(d->g, x) : x);
}

/* All values zero: divide by 1. */
static void gcd_end(struct divisor *d)
{
	if (d->g == 0)
		divisor_set(d, 1);
}

/*
 * fmt_put_varint() without a branch on the varint's length, for the
 * encoders' loops over a column (whose output buffers,
 * FMT_MAX_COL_BYTES(n), leave room for it): a value below 2^56 is spread
 * to seven bits a byte by three shift-and-mask steps, the continuation
 * bits of all but its last byte set, and stored as 8 bytes, of which the
 * caller keeps the varint's length.  The time and offset deltas of a
 * trace take 1, 2 or 3 bytes at random, and fmt_put_varint()'s loop
 * mispredicted its exit about once a value: the vscsi bench input's
 * time column took 4.3 ns a record to code, nearly all of it there.
 * Same bytes (larger values, and big-endian hosts, take the loop).
 */
static inline size_t put_varint8(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (__builtin_expect(v < UINT64_C(1) << 56, 1)) {
		unsigned n = fmt_varint_len(v);
		uint64_t x = v;

		x = (x & UINT64_C(0x000000000fffffff)) |
		    (x & UINT64_C(0x00fffffff0000000)) << 4;
		x = (x & UINT64_C(0x00003fff00003fff)) |
		    (x & UINT64_C(0x0fffc0000fffc000)) << 2;
		x = (x & UINT64_C(0x007f007f007f007f)) |
		    (x & UINT64_C(0x3f803f803f803f80)) << 1;
		x |= UINT64_C(0x8080808080808080) &
		     ((UINT64_C(1) << (8 * n - 8)) - 1);
		memcpy(p, &x, 8);
		return n;
	}
#endif
	return fmt_put_varint(p, v);
}

#ifdef HAVE_VARINT_AVX512
/*
 * Eight signed deltas dl, exact multiples of dv, as put_varint8() writes
 * zigzag(dl / g) each, with AVX-512 (F, BW, CD, DQ, VBMI2): the quotient
 * (shift and multiply by the inverse, as divisor_sdiv()), the zigzag, the
 * varint lengths (vplzcntq), the spread to seven bits a byte (the three
 * shift-and-mask steps of put_varint8()) and the continuation bits are
 * done in the eight lanes at once, then vpcompressb packs the varints'
 * bytes together and one masked store writes them.  Returns the bytes
 * written, or 0 (nothing written) when a value is 2^56 or more: the
 * caller then codes the eight one by one.  A scalar varint a value took
 * about twenty instructions (the time column and the offsets' deltas
 * were most of fmt_encode_column(), a tenth of the vscsi import).
 */
#define VARINT8_TARGET "avx512f,avx512bw,avx512cd,avx512dq,avx512vbmi2"

__attribute__((target(VARINT8_TARGET))) static inline size_t
put_varint8x8(uint8_t *p, __m512i dl, __m128i shift, __m512i inv)
{
	const __m512i one = _mm512_set1_epi64(1);
	__m512i q = _mm512_mullo_epi64(_mm512_sra_epi64(dl, shift), inv);
	__m512i zz = _mm512_xor_si512(_mm512_slli_epi64(q, 1),
				      _mm512_srai_epi64(q, 63));
	__m512i lz, len, x, cont, lb;
	__mmask64 keep;
	unsigned nb;

	if (_mm512_test_epi64_mask(zz, _mm512_set1_epi64(
					       (long long)UINT64_C(0xff00000000000000))))
		return 0;
	lz = _mm512_lzcnt_epi64(_mm512_or_si512(zz, one));
	len = _mm512_srli_epi64(
		_mm512_sub_epi64(_mm512_set1_epi64(640),
				 _mm512_add_epi64(_mm512_slli_epi64(lz, 3), lz)),
		6);
#define SPREAD(x, lo, hi, sh)                                                  \
	_mm512_or_si512(                                                       \
		_mm512_and_si512(x, _mm512_set1_epi64((long long)UINT64_C(lo))), \
		_mm512_slli_epi64(_mm512_and_si512(                            \
			x, _mm512_set1_epi64((long long)UINT64_C(hi))), sh))
	x = SPREAD(zz, 0x000000000fffffff, 0x00fffffff0000000, 4);
	x = SPREAD(x, 0x00003fff00003fff, 0x0fffc0000fffc000, 2);
	x = SPREAD(x, 0x007f007f007f007f, 0x3f803f803f803f80, 1);
#undef SPREAD
	/* continuation bits on all bytes but the last: 0x80 in each byte
	 * below 8 * len - 8 bits */
	cont = _mm512_sub_epi64(
		_mm512_sllv_epi64(one, _mm512_sub_epi64(_mm512_slli_epi64(len, 3),
							_mm512_set1_epi64(8))),
		one);
	x = _mm512_or_si512(x, _mm512_and_si512(cont, _mm512_set1_epi64(
				(long long)UINT64_C(0x8080808080808080))));
	/* byte b of lane l kept when b < len: len in every byte of its
	 * lane against the bytes' ranks */
	lb = _mm512_mullo_epi64(len, _mm512_set1_epi64(
					     (long long)UINT64_C(0x0101010101010101)));
	keep = _mm512_cmpgt_epu8_mask(
		lb, _mm512_set1_epi64((long long)UINT64_C(0x0706050403020100)));
	x = _mm512_maskz_compress_epi8(keep, x);
	nb = (unsigned)__builtin_popcountll(keep);
	_mm512_mask_storeu_epi8(p, nb == 64 ? ~(__mmask64)0 :
				   ((__mmask64)1 << nb) - 1, x);
	return nb;
}

/* 1 if n >= 16 values may go through put_varint8x8(). */
static inline int varint8x8_use(size_t n)
{
	return n >= 16 && !fmt_varint_no_avx512 &&
	       __builtin_cpu_supports("avx512f") &&
	       __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512cd") &&
	       __builtin_cpu_supports("avx512dq") &&
	       __builtin_cpu_supports("avx512vbmi2");
}

/* The divisibility test of divisor_divides() on eight magnitudes: the
 * lanes dv does not divide. */
__attribute__((target(VARINT8_TARGET))) static inline __mmask8
divides_not8(__m512i mag, __m512i inv, __m512i rot, __m512i lim)
{
	return _mm512_cmpgt_epu64_mask(
		_mm512_rorv_epi64(_mm512_mullo_epi64(mag, inv), rot), lim);
}

/*
 * The time column's DELTA varints of a[i0..n) (the value before a[i0]
 * is a[i0 - 1], i0 >= 1), eight at a time, at p; returns the end, *ip
 * the first value not coded (the caller codes the rest), *bad set when
 * a delta is not a multiple of dv (as enc_t()'s loop).
 */
__attribute__((target(VARINT8_TARGET))) static uint8_t *
t_varints8(const uint64_t *a, size_t i0, size_t n, const struct divisor *dv,
	   uint8_t *p, size_t *ip, unsigned *bad)
{
	const __m128i shift = _mm_cvtsi32_si128((int)dv->s);
	const __m512i inv = _mm512_set1_epi64((long long)dv->inv);
	const __m512i rot = _mm512_set1_epi64((long long)dv->s);
	const __m512i lim = _mm512_set1_epi64((long long)dv->lim);
	__mmask8 nd = 0;
	size_t i;

	for (i = i0; i + 8 <= n; i += 8) {
		__m512i dl = _mm512_sub_epi64(_mm512_loadu_si512(a + i),
					      _mm512_loadu_si512(a + i - 1));
		size_t k;

		nd |= divides_not8(_mm512_abs_epi64(dl), inv, rot, lim);
		k = put_varint8x8(p, dl, shift, inv);
		if (!k)
			break;
		p += k;
	}
	*bad |= nd != 0;
	*ip = i;
	return p;
}

/* The varints of zigzag(deltas[i] / g) for i in [0, n) (deltas at
 * delta, 8 bytes each, multiples of dv), eight at a time, at p; returns
 * the end, *ip the first not coded. */
__attribute__((target(VARINT8_TARGET))) static uint8_t *
delta_varints8(const uint8_t *delta, size_t n, const struct divisor *dv,
	       uint8_t *p, size_t *ip)
{
	const __m128i shift = _mm_cvtsi32_si128((int)dv->s);
	const __m512i inv = _mm512_set1_epi64((long long)dv->inv);
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		size_t k = put_varint8x8(
			p, _mm512_loadu_si512(delta + 8 * i), shift, inv);

		if (!k)
			break;
		p += k;
	}
	*ip = i;
	return p;
}
#endif

/*
 * Where fmt_encode_column_values() wants the values of the varints: v[i]
 * the value of varint i (after HIST's symbols); only: their lengths
 * counted, the varints not written (a VANS run of the writer codes the
 * values, and needs only the column's raw_len).
 */
struct vsink {
	uint64_t *v;
	int only;
};

static inline size_t put_val8(uint8_t *p, uint64_t z, const struct vsink *vs,
			      size_t i)
{
	if (vs) {
		vs->v[i] = z;
		if (vs->only)
			return fmt_varint_len(z);
	}
	return put_varint8(p, z);
}

static inline size_t put_val(uint8_t *p, uint64_t z, const struct vsink *vs,
			     size_t i)
{
	if (vs) {
		vs->v[i] = z;
		if (vs->only)
			return fmt_varint_len(z);
	}
	return fmt_put_varint(p, z);
}

/*
 * The encoders read the chunk by field (struct fmt_cols).  Every one is
 * generated from the same template, typed by its field, and makes as few
 * passes as its column allows: one building the dictionary (DICT columns:
 * it stops at the first value that does not fit), one over the values for
 * the sizes of the other codings and the gcd, which a dictionary shorter
 * than a byte a value makes needless (RAW and DELTA cannot beat it), then
 * one writing the coding chosen (a constant column stops at its first
 * pass, which exits at the first value that differs).
 */

/* Which codings a column tries besides CONST.  USE_GCD divides DELTA's
 * deltas when TRY_DELTA is set, else RAW's values (never both kinds:
 * the gcd is gathered before the choice). */
enum { TRY_RAW = 1, TRY_DELTA = 2, USE_GCD = 4, TRY_DICT = 8 };

static inline unsigned dict_width(unsigned k)
{
	return k <= 2 ? 1 : k <= 4 ? 2 : 4;
}

/* Bytes of the DICT coding of n values with k entries. */
static inline uint64_t dict_size(const uint64_t *dict, unsigned k, size_t n)
{
	uint64_t sz = ((uint64_t)n * dict_width(k) + 7) / 8;

	for (unsigned i = 0; i < k; i++)
		sz += fmt_varint_len(dict[i]);
	return sz;
}

/* Index of v in dict (adding it if there is room); FMT_DICT_MAX if full. */
static inline unsigned dict_index(uint64_t *dict, unsigned *k, uint64_t v)
{
	for (unsigned i = 0; i < *k; i++)
		if (dict[i] == v)
			return i;
	if (*k == FMT_DICT_MAX)
		return FMT_DICT_MAX;
	dict[*k] = v;
	return (*k)++;
}

/*
 * A direct-mapped cache in front of a dictionary's linear search: the
 * entry of v sits at slot dmap_hash(v) unless another value took it, so
 * that a column alternating between its values finds each index with a
 * multiplication and one load instead of a search whose exit the branch
 * predictor cannot guess.  The dictionary itself (its order) is what
 * dict_index() builds.
 */
#define DMAP_BITS 6
struct dict_map {
	uint64_t v[1u << DMAP_BITS];
	uint8_t ix[1u << DMAP_BITS]; /* index + 1; 0: empty */
};

static inline unsigned dmap_hash(uint64_t v)
{
	return (unsigned)((v * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - DMAP_BITS));
}

/* dict_index() through the cache m (zeroed before the first call). */
static inline unsigned dict_find(struct dict_map *m, uint64_t *dict,
				 unsigned *k, uint64_t v)
{
	unsigned h = dmap_hash(v), idx;

	if (__builtin_expect(m->ix[h] != 0 && m->v[h] == v, 1))
		return m->ix[h] - 1u;
	idx = dict_index(dict, k, v);
	if (idx < FMT_DICT_MAX) {
		m->v[h] = v;
		m->ix[h] = (uint8_t)(idx + 1);
	}
	return idx;
}

/* Appends the w-bit index idx to the bit stream at *pp (acc holds *nb
 * pending bits); the indexes are gathered 64 bits at a time (bit i * w
 * of the little-endian stream is bit (i % per) * w of byte i / per). */
static inline void dict_put(uint8_t **pp, uint64_t *acc, unsigned *nb,
			    unsigned idx, unsigned w)
{
	*acc |= (uint64_t)idx << *nb;
	*nb += w;
	if (*nb == 64) {
		fmt_put64(*pp, *acc);
		*pp += 8;
		*acc = 0;
		*nb = 0;
	}
}

/* The pending bits of the stream, whole bytes. */
static inline void dict_flush(uint8_t **pp, uint64_t acc, unsigned nb)
{
	for (; nb > 0; nb = nb > 8 ? nb - 8 : 0) {
		*(*pp)++ = (uint8_t)acc;
		acc >>= 8;
	}
}

/*
 * The w-bit indexes ix[0..n) packed as dict_put() and dict_flush() pack
 * them, a 64-bit word at a time: dict_put()'s accumulator and count made
 * each index wait for the one before it (with the dictionary's hash
 * lookups, 4-5 cycles a record: the op column of the vscsi bench input,
 * two values, cost as much to code as its lengths).  The indexes of a
 * word are independent here; with SSE2 a one-bit word is four mask moves.
 * Same bytes.
 */
static uint8_t *dict_pack(uint8_t *p, const uint8_t *ix, size_t n, unsigned w)
{
	const unsigned per = 64 / w;
	uint64_t acc = 0;
	unsigned nb = 0;
	size_t i = 0;

	for (; i + per <= n; i += per) {
		const uint8_t *x = ix + i;

		acc = 0;
		if (w == 1) {
#ifdef __SSE2__
			for (unsigned j = 0; j < 64; j += 16)
				acc |= (uint64_t)(unsigned)_mm_movemask_epi8(
					       _mm_slli_epi16(_mm_loadu_si128(
						       (const __m128i *)(const void *)(x + j)), 7))
				       << j;
#else
			for (unsigned j = 0; j < 64; j++)
				acc |= (uint64_t)x[j] << j;
#endif
		} else if (w == 2) {
			for (unsigned j = 0; j < 32; j++)
				acc |= (uint64_t)x[j] << 2 * j;
		} else {
			for (unsigned j = 0; j < 16; j++)
				acc |= (uint64_t)x[j] << 4 * j;
		}
		fmt_put64(p, acc);
		p += 8;
	}
	acc = 0;
	for (; i < n; i++) {
		acc |= (uint64_t)ix[i] << nb;
		nb += w;
	}
	dict_flush(&p, acc, nb);
	return p;
}

/* DEV only: the MTF coding replaces RAW (whose size raw_sz is known,
 * not yet written) when shorter; 1 if it did (codec below). */
static int enc_dev_mtf(const struct fmt_cols *c, size_t n, uint8_t *out,
		       struct fmt_coldesc *d, uint64_t raw_sz, uint64_t vor);
enum { THEN_MTF = 16 };

/* The DICT indexes of the size pass are kept in the last n bytes of the
 * output buffer, which the packed indexes (at most n / 2 bytes after 16
 * varints) never reach from 64 values on; below, the output pass finds
 * them again. */
#define DICT_IX_MIN 64

/* a[0..n) all equal?  (The writer knows it from its copy: COL_SAME.) */
#define DEFINE_ALL_SAME(name, T)                                               \
	static int name(const T *a, size_t n)                                  \
	{                                                                      \
		for (size_t i = 1; i < n; i++)                                 \
			if (a[i] != a[0])                                      \
				return 0;                                      \
		return 1;                                                      \
	}
DEFINE_ALL_SAME(all_same64, uint64_t)
DEFINE_ALL_SAME(all_same32, uint32_t)
DEFINE_ALL_SAME(all_same16, uint16_t)
DEFINE_ALL_SAME(all_same8, uint8_t)

/* Column col of c, whose n values a are in c's arrays, holds one value? */
#define COL_SAME(c, col, SAME, a, n)                                           \
	((c)->known & (1u << (col)) ? !!((c)->same & (1u << (col)))            \
				     : SAME(a, n))

#define DEFINE_ENCODER(name, T, SAME, FIELD, COL, what)                        \
	static void name(const struct fmt_cols *c, size_t n, uint8_t *out,     \
			 struct fmt_coldesc *d, const struct vsink *vs)                \
	{                                                                      \
		const T *a = c->FIELD;                                         \
		uint64_t raw_sz = 0, delta_sz = 0, prev = 0, vor = 0;          \
		uint64_t dict[FMT_DICT_MAX], dict_sz = UINT64_MAX;             \
		unsigned nd = 0;                                               \
		struct dict_map dm;                                            \
		struct divisor dv;                                             \
		uint8_t *p = out, *ix = out + FMT_MAX_COL_BYTES(n) - n;        \
		size_t i;                                                      \
                                                                               \
		_Static_assert(!((what) & USE_GCD) || !((what) & TRY_RAW) ||   \
			       !((what) & TRY_DELTA), "one kind of gcd");      \
		d->raw_len = 0;                                                \
		if (COL_SAME(c, COL, SAME, a, n)) {                            \
			d->coding = FMT_CODE_CONST;                            \
			d->param = a[0];                                       \
			return;                                                \
		}                                                              \
		if ((what) & TRY_DICT) {                                       \
			/* the dictionary first, alone: it stops at the        \
			 * 17th distinct value */                              \
			dict[nd++] = a[0];                                     \
			if (sizeof(T) == 1) {                                  \
				/* bytes: a direct table, no hash */          \
				uint8_t tab[256];                              \
                                                                               \
				memset(tab, 0xff, sizeof(tab));                \
				tab[(uint8_t)a[0]] = 0;                        \
				for (i = 0; i < n; i++) {                      \
					unsigned id = tab[(uint8_t)a[i]];      \
                                                                               \
					if (__builtin_expect(id == 0xff, 0)) { \
						id = dict_index(dict, &nd,     \
								a[i]);         \
						if (id >= FMT_DICT_MAX)        \
							break;                 \
						tab[(uint8_t)a[i]] =           \
							(uint8_t)id;           \
					}                                      \
					ix[i] = (uint8_t)id;                   \
				}                                              \
			} else {                                               \
				memset(&dm, 0, sizeof(dm));                    \
				for (i = 0; i < n; i++) {                      \
					unsigned id = dict_find(&dm, dict,     \
								&nd, a[i]);    \
                                                                               \
					if (id >= FMT_DICT_MAX)                \
						break;                         \
					ix[i] = (uint8_t)id;                   \
				}                                              \
			}                                                      \
			if (i == n)                                            \
				dict_sz = dict_size(dict, nd, n);              \
		}                                                              \
		d->coding = FMT_CODE_RAW;                                      \
		gcd_start(&dv);                                                \
		if (dict_sz < n) {                                             \
			/* RAW and DELTA take a byte a value at least: the     \
			 * dictionary wins, their sizes are not needed */      \
			raw_sz = n;                                            \
		} else {                                                       \
			for (i = 0; i < n; i++) {                              \
				uint64_t v = a[i];                             \
                                                                               \
				if ((what) & TRY_RAW)                          \
					raw_sz += fmt_varint_len(v);           \
				if ((what) & THEN_MTF)                         \
					vor |= v;                              \
				if ((what) & TRY_DELTA)                        \
					delta_sz += fmt_varint_len(fmt_zigzag( \
						(int64_t)(v - prev)));         \
				if (((what) & USE_GCD) && ((what) & TRY_DELTA))\
					gcd_add(&dv, magnitude(                \
						(int64_t)(v - prev)));         \
				else if ((what) & USE_GCD)                     \
					gcd_add(&dv, v);                       \
				prev = v;                                      \
			}                                                      \
			if (((what) & TRY_DELTA) &&                            \
			    (!((what) & TRY_RAW) || delta_sz < raw_sz)) {      \
				d->coding = FMT_CODE_DELTA;                    \
				raw_sz = delta_sz;                             \
			}                                                      \
		}                                                              \
		if (dict_sz < raw_sz) {                                        \
			unsigned w = dict_width(nd), nb = 0, k = nd;           \
			uint64_t acc = 0;                                      \
                                                                               \
			for (unsigned j = 0; j < nd; j++)                      \
				p += fmt_put_varint(p, dict[j]);               \
			if (n >= DICT_IX_MIN) {                                \
				p = dict_pack(p, ix, n, w);                    \
			} else {                                               \
				memset(&dm, 0, sizeof(dm));                    \
				for (i = 0; i < n; i++)                        \
					dict_put(&p, &acc, &nb, dict_find(     \
						&dm, dict, &k, a[i]), w);      \
			}                                                      \
			dict_flush(&p, acc, nb);                               \
			d->coding = FMT_CODE_DICT;                             \
			d->param = nd;                                         \
			d->raw_len = (uint64_t)(p - out);                      \
			return;                                                \
		}                                                              \
		gcd_end(&dv);                                                  \
		d->param = dv.g;                                               \
		if (((what) & THEN_MTF) && d->coding == FMT_CODE_RAW &&        \
		    enc_dev_mtf(c, n, out, d, raw_sz, vor))                    \
			return;                                                \
		prev = 0;                                                      \
		if (d->coding == FMT_CODE_RAW) {                               \
			if (dv.g == 1)                                         \
				for (i = 0; i < n; i++) {                      \
					p += put_val(p, a[i], vs, i);      \
				}                                              \
			else                                                   \
				for (i = 0; i < n; i++) {                      \
					uint64_t q = divisor_div(&dv, a[i]);   \
                                                                               \
					p += put_val(p, q, vs, i);          \
				}                                              \
		} else {                                                       \
			for (i = 0; i < n; i++) {                              \
				uint64_t v = a[i], z = fmt_zigzag(             \
					divisor_sdiv(&dv, (int64_t)(v - prev)));\
                                                                               \
				p += put_val8(p, z, vs, i);                     \
				prev = v;                                      \
			}                                                      \
		}                                                              \
		d->raw_len = (uint64_t)(p - out);                              \
	}

DEFINE_ENCODER(enc_dev, uint32_t, all_same32, dev, FMT_COL_DEV,
	       TRY_RAW | TRY_DICT | THEN_MTF)
DEFINE_ENCODER(enc_op, uint8_t, all_same8, op, FMT_COL_OP, TRY_RAW | TRY_DICT)
DEFINE_ENCODER(enc_flags, uint16_t, all_same16, flags, FMT_COL_FLAGS,
	       TRY_RAW | TRY_DICT)
DEFINE_ENCODER(enc_len, uint32_t, all_same32, len, FMT_COL_LEN,
	       TRY_RAW | USE_GCD | TRY_DICT)
DEFINE_ENCODER(enc_raw_offset, uint64_t, all_same64, offset, FMT_COL_OFFSET,
	       TRY_RAW | USE_GCD)
DEFINE_ENCODER(enc_stream, uint64_t, all_same64, stream, FMT_COL_STREAM,
	       TRY_RAW | TRY_DELTA | TRY_DICT)
DEFINE_ENCODER(enc_txn, uint64_t, all_same64, txn, FMT_COL_TXN, TRY_RAW | TRY_DELTA)

/*
 * The time column: DELTA (its one coding besides CONST), the deltas
 * divided by their gcd, in one pass where the template above makes two
 * (the gcd's, then the varints').  The gcd of the first T_GUESS deltas
 * is a multiple of the column's; the deltas are written divided by it
 * while each is tested to be its multiple, and when all are, it divides
 * every delta and every common divisor divides it: it is the column's
 * gcd, and the varints are those the two passes wrote.  When one is not
 * (a finer clock met late in the chunk), the gcd is completed over the
 * rest and the varints written again.  A chunk of the vscsi bench
 * input's times (us as ns: gcd 1000 from its first deltas) is read once
 * instead of twice.
 */
#define T_GUESS 64

static void enc_t(const struct fmt_cols *c, size_t n, uint8_t *out,
		  struct fmt_coldesc *d, const struct vsink *vs)
{
	const uint64_t *a = c->t;
	size_t i, k = n < T_GUESS ? n : T_GUESS;
	uint64_t prev = 0;
	struct divisor dv;
	uint8_t *p = out;

	d->raw_len = 0;
	if (COL_SAME(c, FMT_COL_T, all_same64, a, n)) {
		d->coding = FMT_CODE_CONST;
		d->param = a[0];
		return;
	}
	d->coding = FMT_CODE_DELTA;
	gcd_start(&dv);
	for (i = 0; i < k; i++) {
		gcd_add(&dv, magnitude((int64_t)(a[i] - prev)));
		prev = a[i];
	}
	if (dv.g) {
		unsigned bad = 0;

		prev = 0;
		i = 0;
#ifdef HAVE_VARINT_AVX512
		if (!vs && varint8x8_use(n)) {
			/* the first value alone (its delta from 0) */
			bad |= !divisor_divides(&dv, magnitude((int64_t)a[0]));
			p += put_varint8(p, fmt_zigzag(divisor_sdiv(
				&dv, (int64_t)a[0])));
			p = t_varints8(a, 1, n, &dv, p, &i, &bad);
			prev = a[i - 1];
		}
#endif
		for (; i < n; i++) {
			int64_t dl = (int64_t)(a[i] - prev);
			uint64_t z = fmt_zigzag(divisor_sdiv(&dv, dl));

			bad |= !divisor_divides(&dv, magnitude(dl));
			p += put_val8(p, z, vs, i);
			prev = a[i];
		}
		if (!bad) {
			d->param = dv.g;
			d->raw_len = (uint64_t)(p - out);
			return;
		}
		p = out;
	}
	for (prev = a[k - 1], i = k; i < n; i++) {
		gcd_add(&dv, magnitude((int64_t)(a[i] - prev)));
		prev = a[i];
	}
	gcd_end(&dv);
	for (prev = 0, i = 0; i < n; i++) {
		uint64_t z = fmt_zigzag(divisor_sdiv(&dv, (int64_t)(a[i] - prev)));

		p += put_val8(p, z, vs, i);
		prev = a[i];
	}
	d->param = dv.g;
	d->raw_len = (uint64_t)(p - out);
}

/*
 * The offset history: per device slot the last FMT_HIST values pushed,
 * two per record (its offset, then its end).  Index k counts back from the
 * newest: 0 is the previous end (a sequential run), 1 the previous offset
 * (a re-read), 2 the end before, ...  Real traces repeat recent offsets
 * often (read after write, rewrites of a log block, interleaved streams).
 * SEQ codes the delta from entry 0; HIST a symbol per record (the index,
 * or FMT_HIST for a miss coded as in SEQ).
 */
static void hist_reset(struct fmt_hist *h)
{
	if (++h->cur == 0) { /* generation wrapped: clear for real */
		memset(h->gen, 0, sizeof(h->gen));
		h->cur = 1;
	}
}

static inline unsigned hist_slot(struct fmt_hist *h, uint32_t dev)
{
	unsigned sl = dev % FMT_SEQ_SLOTS;

	if (h->gen[sl] != h->cur) {
#ifdef __SSE2__
		/* eight stores: memset() of the 128 bytes was a rep stos,
		 * 5 % of Tencent's HIST decode (2038 volumes a chunk) */
		for (unsigned j = 0; j < FMT_HIST; j += 2)
			_mm_storeu_si128((__m128i *)(void *)&h->v[sl][j],
					 _mm_setzero_si128());
#else
		memset(h->v[sl], 0, sizeof(h->v[sl]));
#endif
		h->head[sl] = 0;
		h->gen[sl] = h->cur;
	}
	return sl;
}

#ifndef __SSE2__
/* The smallest k with hist_at(h, sl, k) == off, or FMT_HIST.  All
 * entries are compared (no early exit for the branch predictor to
 * miss), then the matches' mask is rotated so that the newest entry is
 * its top bit.  (With SSE2, offset_scan() below keeps the history in
 * registers instead.) */
static inline unsigned hist_find(const struct fmt_hist *h, unsigned sl,
				 uint64_t off)
{
	const uint64_t *v = h->v[sl];
	unsigned hd = h->head[sl], m = 0;

	for (unsigned j = 0; j < FMT_HIST; j++)
		m |= (unsigned)(v[j] == off) << j;
	if (!m)
		return FMT_HIST;
	m = ((m << (FMT_HIST - 1 - hd)) | (m >> (hd + 1))) & 0xffffu;
	return (unsigned)__builtin_clz(m) - (32 - FMT_HIST);
}
#endif

static inline uint64_t hist_at(const struct fmt_hist *h, unsigned sl, unsigned k)
{
	return h->v[sl][(h->head[sl] - k) & (FMT_HIST - 1)];
}

static inline void hist_push(struct fmt_hist *h, unsigned sl, uint64_t off,
			     uint64_t end)
{
	unsigned hd = h->head[sl];

	h->v[sl][(hd + 1) & (FMT_HIST - 1)] = off;
	h->v[sl][(hd + 2) & (FMT_HIST - 1)] = end;
	h->head[sl] = (uint16_t)((hd + 2) & (FMT_HIST - 1));
}

/*
 * The size pass leaves each record's history symbol in out[i] and its
 * delta from the previous end in delta[i], at the end of out (8n bytes
 * from out + 3n + 64: the varints, at most 10 bytes per record after at
 * most n symbol bytes, never reach a delta not yet read), so that the
 * gcd and output passes need not replay the history.
 */
static inline uint64_t delta_at(const uint8_t *delta, size_t i)
{
	uint64_t v;

	memcpy(&v, delta + 8 * i, 8);
	return v;
}

#ifdef __SSE2__
/*
 * The size pass of enc_offset() with SSE2.  The history of the device in
 * use lives in eight registers, newest entry first (entry k, as
 * hist_at() counts, in lane k % 2 of register k / 2): a push moves every
 * register down by one, and the search compares them as hist_find()
 * does, with the rank read straight from the mask.  The history in
 * memory made each record store two entries that the next record's
 * 16-byte loads read back, a store-forwarding stall per record on one
 * device.  A slot is written back (in this order, newest first: the
 * writer's history is only ever read here) when the device changes.
 */
_Static_assert(FMT_HIST == 16, "eight registers of two entries");

static void offset_scan(struct fmt_hist *h, const struct fmt_cols *c,
			size_t n, uint8_t *out, uint8_t *delta,
			uint64_t *raw_szp, uint64_t *seq_szp,
			uint64_t *hist_szp, struct divisor *dh)
{
	const uint64_t *offs = c->offset;
	const uint32_t *devs = c->dev, *lens = c->len;
	uint64_t raw_sz = 0, seq_sz = 0, hist_sz = *hist_szp;
	__m128i r0, r1, r2, r3, r4, r5, r6, r7;
	unsigned cur = FMT_SEQ_SLOTS; /* none yet */

	r0 = r1 = r2 = r3 = r4 = r5 = r6 = r7 = _mm_setzero_si128();
	for (size_t i = 0; i < n; i++) {
		unsigned sl = devs[i] % FMT_SEQ_SLOTS, k, len, miss;
		uint64_t off = offs[i], dl, mag, m;
		__m128i o;

		if (__builtin_expect(sl != cur, 0)) {
			__m128i *v;

			if (cur < FMT_SEQ_SLOTS) {
				v = (__m128i *)(void *)h->v[cur];
				_mm_storeu_si128(v + 0, r0);
				_mm_storeu_si128(v + 1, r1);
				_mm_storeu_si128(v + 2, r2);
				_mm_storeu_si128(v + 3, r3);
				_mm_storeu_si128(v + 4, r4);
				_mm_storeu_si128(v + 5, r5);
				_mm_storeu_si128(v + 6, r6);
				_mm_storeu_si128(v + 7, r7);
			}
			cur = sl;
			if (h->gen[sl] != h->cur) {
				h->gen[sl] = h->cur;
				r0 = r1 = r2 = r3 = r4 = r5 = r6 = r7 =
					_mm_setzero_si128();
			} else {
				v = (__m128i *)(void *)h->v[sl];
				r0 = _mm_loadu_si128(v + 0);
				r1 = _mm_loadu_si128(v + 1);
				r2 = _mm_loadu_si128(v + 2);
				r3 = _mm_loadu_si128(v + 3);
				r4 = _mm_loadu_si128(v + 4);
				r5 = _mm_loadu_si128(v + 5);
				r6 = _mm_loadu_si128(v + 6);
				r7 = _mm_loadu_si128(v + 7);
			}
		}
		dl = off - (uint64_t)_mm_cvtsi128_si64(r0);
		mag = magnitude((int64_t)dl);
		len = fmt_varint_len(fmt_zigzag((int64_t)dl));
		o = _mm_set1_epi64x((long long)off);
#define EQ(r) _mm_cmpeq_epi32(r, o)
		m = (unsigned)_mm_movemask_epi8(_mm_packs_epi16(
			_mm_packs_epi32(EQ(r0), EQ(r1)),
			_mm_packs_epi32(EQ(r2), EQ(r3))));
		m |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_packs_epi16(
			_mm_packs_epi32(EQ(r4), EQ(r5)),
			_mm_packs_epi32(EQ(r6), EQ(r7)))) << 16;
#undef EQ
		/* bit 2k: entry k matches; none: bit 32, k = FMT_HIST (no
		 * branch on hits and misses, which follow the data) */
		m &= (m >> 1) & 0x55555555u;
		k = (unsigned)__builtin_ctzll(m | UINT64_C(1) << 32) / 2;
		miss = k == FMT_HIST;
		raw_sz += fmt_varint_len(off);
		seq_sz += len;
		out[i] = (uint8_t)k;
		memcpy(delta + 8 * i, &dl, 8);
		hist_sz += miss ? len : 0;
		gcd_add(dh, miss ? mag : 0);
		r7 = r6;
		r6 = r5;
		r5 = r4;
		r4 = r3;
		r3 = r2;
		r2 = r1;
		r1 = r0;
		r0 = _mm_set_epi64x((long long)off, (long long)(off + lens[i]));
	}
	*raw_szp = raw_sz;
	*seq_szp = seq_sz;
	*hist_szp = hist_sz;
}
#endif

#ifdef HAVE_SCAN_AVX512
/*
 * offset_scan() with AVX-512 (F), where the CPU has it: the history in
 * two 512-bit registers, entries 0-7 and 8-15 (lane k of the first is
 * entry k), a push two lane shifts (valignq), the search two compares
 * into one 16-bit mask.  The SSE2 scan's eight registers took eight
 * compares, six packs, two mask moves and their register copies a
 * record.  Same symbols, deltas and sizes (test_format "offset scan:
 * AVX-512 and SSE2 agree"); the slot written back holds the same 16
 * entries in the same order.
 */
__attribute__((target("avx512f"))) static void
offset_scan_avx512(struct fmt_hist *h, const struct fmt_cols *c, size_t n,
		   uint8_t *out, uint8_t *delta, uint64_t *raw_szp,
		   uint64_t *seq_szp, uint64_t *hist_szp, struct divisor *dh)
{
	const uint64_t *offs = c->offset;
	const uint32_t *devs = c->dev, *lens = c->len;
	uint64_t raw_sz = 0, seq_sz = 0, hist_sz = *hist_szp;
	__m512i z0 = _mm512_setzero_si512(), z1 = _mm512_setzero_si512();
	unsigned cur = FMT_SEQ_SLOTS; /* none yet */

	for (size_t i = 0; i < n; i++) {
		unsigned sl = devs[i] % FMT_SEQ_SLOTS, k, len, miss, m;
		uint64_t off = offs[i], dl, mag;
		__m512i o;

		if (__builtin_expect(sl != cur, 0)) {
			if (cur < FMT_SEQ_SLOTS) {
				_mm512_storeu_si512(h->v[cur], z0);
				_mm512_storeu_si512(h->v[cur] + 8, z1);
			}
			cur = sl;
			if (h->gen[sl] != h->cur) {
				h->gen[sl] = h->cur;
				z0 = z1 = _mm512_setzero_si512();
			} else {
				z0 = _mm512_loadu_si512(h->v[sl]);
				z1 = _mm512_loadu_si512(h->v[sl] + 8);
			}
		}
		dl = off - (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(z0));
		mag = magnitude((int64_t)dl);
		len = fmt_varint_len(fmt_zigzag((int64_t)dl));
		o = _mm512_set1_epi64((long long)off);
		m = (unsigned)_mm512_cmpeq_epi64_mask(z0, o) |
		    (unsigned)_mm512_cmpeq_epi64_mask(z1, o) << 8;
		/* none: bit 16, k = FMT_HIST */
		k = (unsigned)__builtin_ctz(m | 1u << FMT_HIST);
		miss = k == FMT_HIST;
		raw_sz += fmt_varint_len(off);
		seq_sz += len;
		out[i] = (uint8_t)k;
		memcpy(delta + 8 * i, &dl, 8);
		hist_sz += miss ? len : 0;
		gcd_add(dh, miss ? mag : 0);
		/* entries 0-13 move to 2-15; the end, then the offset in front
		 * (lanes 6 and 7 of the pair broadcast to every 128 bits) */
		z1 = _mm512_alignr_epi64(z1, z0, 6);
		z0 = _mm512_alignr_epi64(
			z0,
			_mm512_broadcast_i32x4(_mm_set_epi64x(
				(long long)off, (long long)(off + lens[i]))),
			6);
	}
	*raw_szp = raw_sz;
	*seq_szp = seq_sz;
	*hist_szp = hist_sz;
}
#endif

#ifdef HAVE_SCAN_AVX512
/*
 * The offsets' scan of a chunk whose records all have one device slot
 * (one device: every vscsi trace, most block traces), with AVX-512 (F,
 * CD, DQ).  There record i's history is the records before it in the
 * chunk: entry 2j is the end of record i - 1 - j, entry 2j + 1 its
 * offset (0 before the chunk's first record, as after hist_reset()).
 * So eight records are scanned at a time from the columns themselves,
 * with no history carried from record to record: for each of the eight
 * records back, one load of the offsets (and lengths) moved back that far
 * and two compares with the eight records' offsets, the lowest matching
 * entry taken by masked moves from entry 15 down to 0; the deltas,
 * zigzags, varint lengths (vplzcntq) and sizes are vector arithmetic
 * too.  The record-by-record scan (offset_scan_avx512()) chained each
 * record on the history the record before pushed, a vector shift and
 * insert, and its ~60 instructions a record were a tenth of the vscsi
 * import.  The gcd of the misses' deltas is tested eight at a time
 * against the gcd so far (x * inv rotated by s <= lim, as
 * divisor_divides()), and only a delta it does not divide goes through
 * gcd_add(), whose result does not depend on the order.  The first
 * eight records and those after the last full group of eight are
 * scanned one by one (one_rec()).  Same symbols, deltas, sizes and
 * gcd as the other scans (test_format "offset scan: AVX-512 and SSE2
 * agree"); the slot's history is not written back, as the other scans
 * never write back the last slot either.
 */
#define ONE_LANES 8

/* Entry k of record i's history in a chunk of one slot. */
static inline uint64_t one_entry(const uint64_t *offs, const uint32_t *lens,
				 size_t i, unsigned k)
{
	size_t j = k / 2 + 1;

	if (j > i)
		return 0;
	return offs[i - j] + (k & 1 ? 0 : lens[i - j]);
}

/* Record i of a one-slot chunk scanned alone. */
static inline void one_rec(const uint64_t *offs, const uint32_t *lens,
			   size_t i, uint8_t *out, uint8_t *delta,
			   uint64_t *raw_sz, uint64_t *seq_sz,
			   uint64_t *hist_sz, struct divisor *dh)
{
	uint64_t off = offs[i], dl = off - one_entry(offs, lens, i, 0);
	unsigned k = FMT_HIST, len = fmt_varint_len(fmt_zigzag((int64_t)dl));

	for (unsigned j = FMT_HIST; j-- > 0;)
		if (one_entry(offs, lens, i, j) == off)
			k = j;
	*raw_sz += fmt_varint_len(off);
	*seq_sz += len;
	out[i] = (uint8_t)k;
	memcpy(delta + 8 * i, &dl, 8);
	if (k == FMT_HIST) {
		*hist_sz += len;
		gcd_add(dh, magnitude((int64_t)dl));
	}
}

/* Varint lengths of eight values: (640 - 9 * lzcnt(v | 1)) / 64, as
 * fmt_varint_len(). */
__attribute__((target("avx512f,avx512cd"))) static inline __m512i
varint_len8(__m512i v)
{
	__m512i lz = _mm512_lzcnt_epi64(
		_mm512_or_si512(v, _mm512_set1_epi64(1)));

	lz = _mm512_add_epi64(_mm512_slli_epi64(lz, 3), lz);
	return _mm512_srli_epi64(_mm512_sub_epi64(_mm512_set1_epi64(640), lz),
				 6);
}

__attribute__((target("avx512f,avx512cd,avx512dq"))) static void
offset_scan_one(const struct fmt_cols *c, size_t n, uint8_t *out,
		uint8_t *delta, uint64_t *raw_szp, uint64_t *seq_szp,
		uint64_t *hist_szp, struct divisor *dh)
{
	const uint64_t *offs = c->offset;
	const uint32_t *lens = c->len;
	uint64_t raw_sz = 0, seq_sz = 0, hist_sz = *hist_szp;
	__m512i vraw = _mm512_setzero_si512(), vseq = _mm512_setzero_si512();
	__m512i vhist = _mm512_setzero_si512();
	const __m512i none = _mm512_set1_epi64(FMT_HIST);
	__m512i inv = _mm512_set1_epi64((long long)dh->inv);
	__m512i rot = _mm512_set1_epi64((long long)dh->s);
	__m512i lim = _mm512_set1_epi64((long long)dh->lim);
	size_t i, first = n < ONE_LANES ? n : ONE_LANES;

	for (i = 0; i < first; i++)
		one_rec(offs, lens, i, out, delta, &raw_sz, &seq_sz, &hist_sz,
			dh);
	inv = _mm512_set1_epi64((long long)dh->inv);
	rot = _mm512_set1_epi64((long long)dh->s);
	lim = _mm512_set1_epi64((long long)dh->lim);
	for (; i + ONE_LANES <= n; i += ONE_LANES) {
		const __m512i o = _mm512_loadu_si512(offs + i);
		__m512i k = none, e0 = none, dl, zz, len, mag, y;
		__mmask8 miss, bad;

		/* records i - 8 .. i - 1 back: entries 15 down to 0, the
		 * lowest match last */
#define BACK(j)                                                                \
	do {                                                                   \
		const __m512i p = _mm512_loadu_si512(offs + i - 1 - (j));      \
		const __m512i e = _mm512_add_epi64(                            \
			p, _mm512_cvtepu32_epi64(_mm256_loadu_si256(           \
				   (const __m256i *)(const void *)(lens + i -  \
								   1 - (j))))); \
                                                                               \
		k = _mm512_mask_mov_epi64(k, _mm512_cmpeq_epi64_mask(o, p),    \
					  _mm512_set1_epi64(2 * (j) + 1));     \
		k = _mm512_mask_mov_epi64(k, _mm512_cmpeq_epi64_mask(o, e),    \
					  _mm512_set1_epi64(2 * (j)));         \
		e0 = e;                                                        \
	} while (0)
		BACK(7);
		BACK(6);
		BACK(5);
		BACK(4);
		BACK(3);
		BACK(2);
		BACK(1);
		BACK(0);
#undef BACK
		dl = _mm512_sub_epi64(o, e0);
		_mm512_storeu_si512(delta + 8 * i, dl);
		_mm_storel_epi64((__m128i *)(void *)(out + i),
				 _mm512_cvtepi64_epi8(k));
		zz = _mm512_xor_si512(_mm512_slli_epi64(dl, 1),
				      _mm512_srai_epi64(dl, 63));
		len = varint_len8(zz);
		vseq = _mm512_add_epi64(vseq, len);
		vraw = _mm512_add_epi64(vraw, varint_len8(o));
		miss = _mm512_cmpeq_epi64_mask(k, none);
		vhist = _mm512_mask_add_epi64(vhist, miss, vhist, len);
		if (!miss)
			continue;
		/* the misses' magnitudes the gcd so far does not divide */
		mag = _mm512_abs_epi64(dl);
		y = _mm512_rorv_epi64(_mm512_mullo_epi64(mag, inv), rot);
		bad = _mm512_mask_cmpgt_epu64_mask(miss, y, lim);
		if (__builtin_expect(bad != 0, 0)) {
			uint64_t m[ONE_LANES];

			_mm512_storeu_si512(m, mag);
			for (unsigned l = 0; l < ONE_LANES; l++)
				if (bad >> l & 1)
					gcd_add(dh, m[l]);
			inv = _mm512_set1_epi64((long long)dh->inv);
			rot = _mm512_set1_epi64((long long)dh->s);
			lim = _mm512_set1_epi64((long long)dh->lim);
		}
	}
	for (; i < n; i++)
		one_rec(offs, lens, i, out, delta, &raw_sz, &seq_sz, &hist_sz,
			dh);
	*raw_szp = raw_sz + (uint64_t)_mm512_reduce_add_epi64(vraw);
	*seq_szp = seq_sz + (uint64_t)_mm512_reduce_add_epi64(vseq);
	*hist_szp = hist_sz + (uint64_t)_mm512_reduce_add_epi64(vhist);
}
#endif

int fmt_scan_no_avx512;
int fmt_dec_no_avx512;
__thread uint64_t fmt_scan_found[4];

/* The varints of zigzag(delta i / g) for i in [0, m) at p (the deltas at
 * delta, 8 bytes each), their values handed to vs; returns the end.
 * Eight at a time when no values are wanted (VANS's trials and runs take
 * them one by one). */
static uint8_t *put_deltas(const uint8_t *delta, size_t m,
			   const struct divisor *dv, uint8_t *p,
			   const struct vsink *vs)
{
	size_t i = 0;

#ifdef HAVE_VARINT_AVX512
	if (!vs && varint8x8_use(m))
		p = delta_varints8(delta, m, dv, p, &i);
#endif
	for (; i < m; i++)
		p += put_val8(p, fmt_zigzag(divisor_sdiv(
					 dv, (int64_t)delta_at(delta, i))),
			      vs, i);
	return p;
}

static void enc_offset(struct fmt_hist *h, const struct fmt_cols *c,
		       size_t n, uint8_t *out, struct fmt_coldesc *d,
		       const struct vsink *vs, size_t *nv)
{
	const uint64_t *offs = c->offset;
	uint64_t seq_sz = 0, hist_sz = n / 4, raw_sz = 0;
	uint8_t *delta = out + 3 * n + 64;
	struct divisor dv, dh; /* the gcds of SEQ's deltas, HIST's misses' */
	uint8_t *p;
	size_t i;

	/* sizes of the candidates, as varints before any deflate; HIST
	 * symbols count 2 bits each (they deflate well); HIST's gcd (a hit
	 * adds 0, which leaves it alone), SEQ's later if it is chosen */
	hist_reset(h);
	gcd_start(&dv);
	gcd_start(&dh);
#ifdef HAVE_SCAN_AVX512
	if (!fmt_scan_no_avx512 && __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512cd") &&
	    __builtin_cpu_supports("avx512dq") && n &&
	    COL_SAME(c, FMT_COL_DEV, all_same32, c->dev, n)) {
		unsigned sl = c->dev[0] % FMT_SEQ_SLOTS;

		/* the slot taken, as the other scans leave it */
		h->gen[sl] = h->cur;
		offset_scan_one(c, n, out, delta, &raw_sz, &seq_sz, &hist_sz,
				&dh);
	} else if (!fmt_scan_no_avx512 && __builtin_cpu_supports("avx512f"))
		offset_scan_avx512(h, c, n, out, delta, &raw_sz, &seq_sz,
				   &hist_sz, &dh);
	else
#endif
#ifdef __SSE2__
	offset_scan(h, c, n, out, delta, &raw_sz, &seq_sz, &hist_sz, &dh);
#else
	const uint32_t *devs = c->dev, *lens = c->len;

	for (i = 0; i < n; i++) {
		unsigned sl = hist_slot(h, devs[i]);
		uint64_t off = offs[i], dl = off - hist_at(h, sl, 0);
		uint64_t mag = magnitude((int64_t)dl);
		unsigned len = fmt_varint_len(fmt_zigzag((int64_t)dl));
		unsigned k = hist_find(h, sl, off);

		raw_sz += fmt_varint_len(off);
		seq_sz += len;
		out[i] = (uint8_t)k;
		memcpy(delta + 8 * i, &dl, 8);
		if (k == FMT_HIST)
			hist_sz += len;
		gcd_add(&dh, k == FMT_HIST ? mag : 0);
		hist_push(h, sl, off, off + lens[i]);
	}
#endif
	fmt_scan_found[0] = raw_sz;
	fmt_scan_found[1] = seq_sz;
	fmt_scan_found[2] = hist_sz;
	fmt_scan_found[3] = dh.g;
	if (raw_sz <= seq_sz && raw_sz <= hist_sz) {
		enc_raw_offset(c, n, out, d, vs); /* also finds a constant */
		return;
	}
	if (COL_SAME(c, FMT_COL_OFFSET, all_same64, offs, n)) {
		d->coding = FMT_CODE_CONST;
		d->param = offs[0];
		d->raw_len = 0;
		return;
	}
	d->coding = hist_sz < seq_sz * 15 / 16 ? FMT_CODE_HIST : FMT_CODE_SEQ;
	if (d->coding == FMT_CODE_HIST) {
		dv = dh;
	} else {
		/* SEQ's gcd, of every delta, only when SEQ is chosen: the
		 * size pass folded in the misses' alone (a second gcd there
		 * was a tenth of HIST's encoding, and HIST is the usual
		 * choice where the history is worth scanning) */
		for (i = 0; i < n; i++)
			gcd_add(&dv, magnitude((int64_t)delta_at(delta, i)));
	}
	gcd_end(&dv);
	d->param = dv.g;
	if (d->coding == FMT_CODE_HIST) {
		size_t nm = 0;

		/* the symbols are in place; the misses' deltas are moved to
		 * the front of theirs first, without a branch on the hits
		 * and misses (which follow the data), then coded */
		for (i = 0; i < n; i++) {
			uint64_t dl = delta_at(delta, i);

			memcpy(delta + 8 * nm, &dl, 8);
			nm += out[i] == FMT_HIST;
		}
		p = put_deltas(delta, nm, &dv, out + n, vs);
		*nv = nm;
	} else {
		p = put_deltas(delta, n, &dv, out, vs);
	}
	d->raw_len = (uint64_t)(p - out);
}

/*
 * MTF devices: the rank of a device among the FMT_MTF distinct devices
 * used last in the chunk.  A trace of many volumes (Tencent's 2038)
 * sends bursts to a few at a time, so small ranks dominate where the
 * device numbers themselves are spread over thousands of values.
 */
/* The scalar list (any device number). */
struct mtf_list {
	uint32_t l[FMT_MTF];
	unsigned nl;
};

/* The MTF symbol of dev; moves it to the front. */
static inline uint64_t mtf_use(struct mtf_list *m, uint32_t dev)
{
	uint32_t *list = m->l;
	unsigned k;

	for (k = 0; k < m->nl && list[k] != dev; k++)
		;
	if (k == m->nl) { /* new: the oldest falls off a full list */
		if (m->nl < FMT_MTF)
			m->nl++;
		memmove(list + 1, list, (m->nl - 1) * sizeof(*list));
		list[0] = dev;
		return FMT_MTF + (uint64_t)dev;
	}
	memmove(list + 1, list, k * sizeof(*list));
	list[0] = dev;
	return k;
}

#ifdef __SSE2__
/*
 * With SSE2, for device numbers below 2^16 (every column the writer
 * makes: IST_MAX_FOOTER_DEVICES), the list is 16 lanes of 16 bits in two
 * registers: the device is found by one comparison of each, and moved to
 * the front by a blend of the list with itself shifted by a lane (lanes
 * up to its rank take the shifted list).  The scalar list searched with
 * an early exit the branch predictor missed and moved its entries with
 * memmove: a fifth of the encoding of Tencent's 2038 volumes.  Lanes
 * from nl on are unused.
 */
struct mtf_list16 {
	__m128i a, b; /* lanes 0-7, 8-15 */
	unsigned nl;
};

static inline uint64_t mtf_use16(struct mtf_list16 *m, uint32_t dev)
{
	const __m128i d = _mm_set1_epi16((short)dev);
	const __m128i kv0 = _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7);
	const __m128i kv1 = _mm_setr_epi16(8, 9, 10, 11, 12, 13, 14, 15);
	__m128i sa, sb, ga, gb, kv;
	unsigned hit, k;
	uint64_t sym;

	/* two mask bits per lane */
	hit = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi16(m->a, d)) |
	      (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi16(m->b, d)) << 16;
	hit &= (uint32_t)((UINT64_C(1) << (2 * m->nl)) - 1);
	/* found: lanes 0..rank shift; new: every lane, the last drops */
	k = hit ? (unsigned)__builtin_ctz(hit) / 2 : FMT_MTF - 1;
	sym = hit ? k : FMT_MTF + (uint64_t)dev;
	m->nl += !hit & (m->nl < FMT_MTF);
	sa = _mm_or_si128(_mm_slli_si128(m->a, 2), _mm_cvtsi32_si128((int)dev));
	sb = _mm_or_si128(_mm_slli_si128(m->b, 2), _mm_srli_si128(m->a, 14));
	kv = _mm_set1_epi16((short)k);
	ga = _mm_cmpgt_epi16(kv0, kv);
	gb = _mm_cmpgt_epi16(kv1, kv);
	m->a = _mm_or_si128(_mm_and_si128(ga, m->a), _mm_andnot_si128(ga, sa));
	m->b = _mm_or_si128(_mm_and_si128(gb, m->b), _mm_andnot_si128(gb, sb));
	return sym;
}
#endif

/* MTF into out while it stays shorter than limit; its size, or 0 when
 * it gave up.  vor: the OR of every device number. */
static uint64_t mtf_code(const uint32_t *devs, size_t n, uint8_t *out,
			 uint64_t limit, uint64_t vor)
{
	uint8_t *p = out, *end = out + limit;
	size_t i;

#ifdef __SSE2__
	if (vor < (1u << 16)) {
		struct mtf_list16 m;

		memset(&m, 0, sizeof(m));
		for (i = 0; i < n && p < end; i++)
			p += fmt_put_varint(p, mtf_use16(&m, devs[i]));
		return i == n && p < end ? (uint64_t)(p - out) : 0;
	}
#endif
	(void)vor;
	{
		struct mtf_list m;

		m.nl = 0;
		for (i = 0; i < n && p < end; i++)
			p += fmt_put_varint(p, mtf_use(&m, devs[i]));
	}
	return i == n && p < end ? (uint64_t)(p - out) : 0;
}

/* Worth it when it saves 1/8 of RAW's varints (raw_sz bytes). */
static int enc_dev_mtf(const struct fmt_cols *c, size_t n, uint8_t *out,
		       struct fmt_coldesc *d, uint64_t raw_sz, uint64_t vor)
{
	uint64_t sz = mtf_code(c->dev, n, out, raw_sz - raw_sz / 8, vor);

	if (!sz)
		return 0;
	d->coding = FMT_CODE_MTF;
	d->param = 1;
	d->raw_len = sz;
	return 1;
}

/*
 * Latencies: RAW, or CDELTA, the delta of the completion time t + lat
 * from the previous record's.  Devices that complete requests in batches
 * (MSR Cambridge's, where a burst of writes all complete together) give
 * completion times far more regular than the latencies themselves, and
 * traces sorted by completion (SYSTOR '17) give increasing ones.  CDELTA
 * is kept when its varints are 1/8 shorter than RAW's; both gcds are
 * gathered in one pass, both sizes in the next.
 */
static void enc_lat(const struct fmt_cols *c, size_t n, uint8_t *out,
		    struct fmt_coldesc *d, const struct vsink *vs)
{
	const uint64_t *lat = c->lat, *t = c->t;
	uint64_t prev = 0, raw_sz = 0, cd_sz = 0;
	struct divisor dr, dc;
	uint8_t *p = out;
	size_t i;

	d->raw_len = 0;
	if (COL_SAME(c, FMT_COL_LAT, all_same64, lat, n)) {
		d->coding = FMT_CODE_CONST;
		d->param = lat[0];
		return;
	}
	gcd_start(&dr);
	gcd_start(&dc);
	for (i = 0; i < n; i++) {
		uint64_t cp = t[i] + lat[i];

		gcd_add(&dr, lat[i]);
		gcd_add(&dc, magnitude((int64_t)(cp - prev)));
		prev = cp;
	}
	gcd_end(&dr);
	gcd_end(&dc);
	prev = 0;
	for (i = 0; i < n; i++) {
		uint64_t cp = t[i] + lat[i];

		raw_sz += fmt_varint_len(divisor_div(&dr, lat[i]));
		cd_sz += fmt_varint_len(fmt_zigzag(divisor_sdiv(
			&dc, (int64_t)(cp - prev))));
		prev = cp;
	}
	if (cd_sz < raw_sz - raw_sz / 8) {
		prev = 0;
		for (i = 0; i < n; i++) {
			uint64_t cp = t[i] + lat[i], z = fmt_zigzag(
				divisor_sdiv(&dc, (int64_t)(cp - prev)));

			p += put_val8(p, z, vs, i);
			prev = cp;
		}
		d->coding = FMT_CODE_CDELTA;
		d->param = dc.g;
	} else {
		for (i = 0; i < n; i++) {
			uint64_t q = divisor_div(&dr, lat[i]);

			p += put_val8(p, q, vs, i);
		}
		d->coding = FMT_CODE_RAW;
		d->param = dr.g;
	}
	d->raw_len = (uint64_t)(p - out);
}

void fmt_encode_column_values(struct fmt_hist *h, enum fmt_col col,
			      const struct fmt_cols *c, size_t n, uint8_t *out,
			      struct fmt_coldesc *d, uint64_t *vals, size_t *nv,
			      int only)
{
	struct vsink sink = { vals, only }, *vs = vals ? &sink : NULL;
	size_t m = n;

	d->store = FMT_STORE_PLAIN;
	switch (col) {
	case FMT_COL_T: enc_t(c, n, out, d, vs); break;
	case FMT_COL_DEV: enc_dev(c, n, out, d, vs); break;
	case FMT_COL_OP: enc_op(c, n, out, d, vs); break;
	case FMT_COL_FLAGS: enc_flags(c, n, out, d, vs); break;
	case FMT_COL_LEN: enc_len(c, n, out, d, vs); break;
	case FMT_COL_OFFSET: enc_offset(h, c, n, out, d, vs, &m); break;
	case FMT_COL_LAT: enc_lat(c, n, out, d, vs); break;
	case FMT_COL_STREAM: enc_stream(c, n, out, d, vs); break;
	case FMT_COL_TXN: enc_txn(c, n, out, d, vs); break;
	}
	d->stored_len = d->raw_len;
	if (nv)
		*nv = fmt_colcur_takes_values(d->coding) ? m : 0;
}

void fmt_encode_column(struct fmt_hist *h, enum fmt_col col,
		       const struct fmt_cols *c, size_t n, uint8_t *out,
		       struct fmt_coldesc *d)
{
	fmt_encode_column_values(h, col, c, n, out, d, NULL, NULL, 0);
}

int fmt_cols_alloc(struct fmt_cols *c, size_t n)
{
	memset(c, 0, sizeof(*c));
	if (!n)
		n = 1;
	c->t = malloc(n * sizeof(*c->t));
	c->offset = malloc(n * sizeof(*c->offset));
	c->lat = malloc(n * sizeof(*c->lat));
	c->stream = malloc(n * sizeof(*c->stream));
	c->txn = malloc(n * sizeof(*c->txn));
	c->len = malloc(n * sizeof(*c->len));
	c->dev = malloc(n * sizeof(*c->dev));
	c->flags = malloc(n * sizeof(*c->flags));
	c->op = malloc(n * sizeof(*c->op));
	if (c->t && c->offset && c->lat && c->stream && c->txn && c->len &&
	    c->dev && c->flags && c->op)
		return 0;
	fmt_cols_free(c);
	return -ENOMEM;
}

void fmt_cols_free(struct fmt_cols *c)
{
	free(c->t);
	free(c->offset);
	free(c->lat);
	free(c->stream);
	free(c->txn);
	free(c->len);
	free(c->dev);
	free(c->flags);
	free(c->op);
	memset(c, 0, sizeof(*c));
}
/*
 * Reads a varint without bounds checks: the caller guarantees at least 10
 * readable bytes after p (column buffers carry FMT_PAD bytes of padding)
 * and checks p against the column end after each value.
 */
static inline const uint8_t *get_varint_fast(const uint8_t *p, uint64_t *v)
{
	uint64_t b = *p++, x;
	unsigned s = 7;

	if (b < 0x80) {
		*v = b;
		return p;
	}
	x = b & 0x7f;
	do {
		b = *p++;
		x |= (b & 0x7f) << s;
		s += 7;
	} while ((b & 0x80) && s < 70);
	*v = x;
	return (b & 0x80) ? NULL : p;
}

#define SET_T(r, v) ((r)->t_ns = (v))
#define SET_DEV(r, v) ((r)->dev = (uint32_t)(v))
/* reserved is set with op, saving a pass over the records */
#define SET_OP(r, v) ((r)->op = (uint8_t)(v), (r)->reserved = 0)
#define SET_FLAGS(r, v) ((r)->flags = (uint16_t)(v))
#define SET_LEN(r, v) ((r)->len = (uint32_t)(v))
#define SET_LAT(r, v) ((r)->lat_ns = (v))
#define SET_STREAM(r, v) ((r)->stream = (v))
#define SET_TXN(r, v) ((r)->txn = (v))
#define SET_OFFSET(r, v) ((r)->offset = (v))

/* The DICT indexes of values j.. (W bits each, LSB first) into recs[0..m). */
#define DICT_LOOP(SET, W)                                                      \
	do {                                                                   \
		for (i = 0; i < m; i++, j++) {                                 \
			unsigned ix = (p[j / (8 / (W))] >>                      \
				       ((j % (8 / (W))) * (W))) &               \
				      ((1u << (W)) - 1);                       \
                                                                               \
			if (ix >= c->k)                                        \
				return IST_ECORRUPT;                           \
			SET(&recs[i], c->dict[ix]);                            \
		}                                                              \
	} while (0)

/* DICT_LOOP(SET, 1) for two entries: no index can be out of range, and
 * both values are held in registers (op's byte stores may alias c). */
#define DICT_LOOP2(SET)                                                        \
	do {                                                                   \
		const uint64_t d2[2] = { c->dict[0], c->dict[1] };             \
                                                                               \
		for (i = 0; i < m; i++, j++)                                   \
			SET(&recs[i], d2[(p[j / 8] >> (j % 8)) & 1]);          \
	} while (0)

/*
 * Decoding runs in blocks: a cursor per column keeps its position, and
 * the reader decodes every column of a block of records before the next
 * block, so that the records being filled stay in the cache instead of
 * streaming the whole chunk through it once per column.
 *
 * The block template.  MAX is the largest value the field holds; values
 * beyond it make the chunk corrupt (the test vanishes for UINT64_MAX).
 */
#define DEFINE_DECODER(name, SET, MAX)                                         \
	static int name(struct fmt_colcur *c, struct ist_record *recs,        \
			size_t m)                                              \
	{                                                                      \
		const uint8_t *p = c->p, *end = c->end;                        \
		const uint64_t g = c->d.param;                                 \
		uint64_t v, prev = c->prev;                                    \
		size_t i;                                                      \
                                                                               \
		switch (c->d.coding) {                                         \
		case FMT_CODE_CONST:                                           \
			if (c->d.raw_len || c->d.param > (MAX))                \
				return IST_ECORRUPT;                           \
			for (i = 0; i < m; i++)                                \
				SET(&recs[i], c->d.param);                     \
			break;                                                 \
		case FMT_CODE_RAW: {                                           \
			const uint64_t qmax = (MAX) / g;                       \
                                                                               \
			for (i = 0; i < m; i++) {                              \
				p = get_varint_fast(p, &v);                    \
				if (!p || p > end)                             \
					return IST_ECORRUPT;                   \
				if ((MAX) != UINT64_MAX && v > qmax)           \
					return IST_ECORRUPT;                   \
				SET(&recs[i], v * g);                          \
			}                                                      \
			break;                                                 \
		}                                                              \
		case FMT_CODE_DELTA:                                           \
			for (i = 0; i < m; i++) {                              \
				p = get_varint_fast(p, &v);                    \
				if (!p || p > end)                             \
					return IST_ECORRUPT;                   \
				prev += (uint64_t)fmt_unzigzag(v) * g;         \
				if ((MAX) != UINT64_MAX && prev > (MAX))       \
					return IST_ECORRUPT;                   \
				SET(&recs[i], prev);                           \
			}                                                      \
			break;                                                 \
		case FMT_CODE_DICT: {                                          \
			size_t j = c->done;                                    \
                                                                               \
			for (unsigned k = 0; k < c->k; k++)                    \
				if (c->dict[k] > (MAX))                        \
					return IST_ECORRUPT;                   \
			/* a width known at compile time: shifts, where a   \
			 * width in a variable cost a division per value */ \
			if (c->w == 1 && c->k == 2)                            \
				DICT_LOOP2(SET);                               \
			else if (c->w == 1)                                    \
				DICT_LOOP(SET, 1);                             \
			else if (c->w == 2)                                    \
				DICT_LOOP(SET, 2);                             \
			else                                                   \
				DICT_LOOP(SET, 4);                             \
			break;                                                 \
		}                                                              \
		default:                                                       \
			return IST_ECORRUPT;                                   \
		}                                                              \
		if (c->d.coding != FMT_CODE_DICT)                              \
			c->p = p;                                              \
		c->prev = prev;                                                \
		c->done += m;                                                  \
		return 0;                                                      \
	}

DEFINE_DECODER(dec_t, SET_T, UINT64_MAX)
DEFINE_DECODER(dec_dev, SET_DEV, UINT32_MAX)
DEFINE_DECODER(dec_op, SET_OP, (uint64_t)(IST_OP_COUNT - 1))
DEFINE_DECODER(dec_flags, SET_FLAGS, UINT16_MAX)
DEFINE_DECODER(dec_len, SET_LEN, UINT32_MAX)
DEFINE_DECODER(dec_raw_offset, SET_OFFSET, UINT64_MAX)
DEFINE_DECODER(dec_lat, SET_LAT, UINT64_MAX)
DEFINE_DECODER(dec_stream, SET_STREAM, UINT64_MAX)
DEFINE_DECODER(dec_txn, SET_TXN, UINT64_MAX)

/* Chunks of at most this many records keep the branch: a trace of one
 * small chunk read again and again (bench/ist_speed's loop over
 * msr-cambridge1 and systor17, 1000 records) lets the branch predictor
 * learn its hits and misses; branch-free, they decoded 3-6 % slower. */
#define HIST_MASKS_MIN 8192

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * HIST offsets without a branch on hit or miss (which the symbols make
 * unpredictable): every record reads the varint at p, and a miss
 * (symbol FMT_HIST) both takes it and moves p past it; a hit's index
 * and a miss's entry 0 are the same expression, (head - k) % FMT_HIST.
 */
/* HIST offsets, a varint_word() given (VARINT_WORD): fmt_varint_word(), or
 * BMI2's pext where the CPU has it (dec_offset_hist_bmi2()). */
#define DEFINE_OFFSET_HIST(ATTR, name, VARINT_WORD)                            \
	ATTR static int name(struct fmt_hist *h, struct fmt_colcur *c,         \
				struct ist_record *recs, size_t m)             \
{                                                                              \
	const uint8_t *p = c->p, *end = c->end;                                \
	const uint8_t *sym = c->sym + c->done;                                 \
	const uint64_t g = c->d.param;                                         \
                                                                               \
	for (size_t i = 0; i < m; i++) {                                       \
		unsigned sl = hist_slot(h, recs[i].dev), k = sym[i], n;        \
		uint64_t v, miss, off;                                         \
		if (k > FMT_HIST)                                              \
			return IST_ECORRUPT;                                   \
		n = VARINT_WORD(p, &v);                                        \
		if (__builtin_expect(!n, 0)) {                                 \
			const uint8_t *q = NULL;                               \
                                                                               \
			v = 0;                                                 \
			/* only a miss's varint must be one */                 \
			if (k == FMT_HIST && !(q = get_varint_fast(p, &v)))    \
				return IST_ECORRUPT;                           \
			n = q ? (unsigned)(q - p) : 0;                         \
		}                                                              \
		miss = 0 - (uint64_t)(k == FMT_HIST);                          \
		off = h->v[sl][(h->head[sl] - k) & (FMT_HIST - 1)] +           \
		      (((uint64_t)fmt_unzigzag(v) * g) & miss);                \
		p += n & miss;                                                 \
		if (p > end)                                                   \
			return IST_ECORRUPT;                                   \
		recs[i].offset = off;                                          \
		hist_push(h, sl, off, off + recs[i].len);                      \
	}                                                                      \
	c->p = p;                                                              \
	c->done += m;                                                          \
	return 0;                                                              \
}

DEFINE_OFFSET_HIST(, dec_offset_hist, fmt_varint_word)

#ifdef HAVE_SCAN_AVX512
/* fmt_varint_word() by BMI2's pext: the 7-bit groups up to the first byte
 * without bit 7 gathered in one instruction.  Taken on CPUs with AVX-512
 * too (fmt_decode_block()): those with BMI2 but slow pext (AMD's before
 * Zen 3) have no AVX-512. */
__attribute__((target("bmi2"))) static inline unsigned
varint_word_bmi2(const uint8_t *p, uint64_t *v)
{
	uint64_t x, stop;

	memcpy(&x, p, 8);
	stop = ~x & UINT64_C(0x8080808080808080);
	if (__builtin_expect(!stop, 0))
		return 0;
	*v = _pext_u64(x, (stop ^ (stop - 1)) & UINT64_C(0x7f7f7f7f7f7f7f7f));
	return (unsigned)__builtin_ctzll(stop) / 8 + 1;
}

DEFINE_OFFSET_HIST(__attribute__((target("bmi2"))), dec_offset_hist_bmi2,
		   varint_word_bmi2)
#endif
#define HAVE_OFFSET_HIST 1

/* get_varint_fast() by fmt_varint_word(): a varint's length without a branch
 * (9 and 10 bytes, and errors, by get_varint_fast()). */
static inline const uint8_t *get_varint_word(const uint8_t *p, uint64_t *v)
{
	unsigned n = fmt_varint_word(p, v);

	return __builtin_expect(n != 0, 1) ? p + n : get_varint_fast(p, v);
}
#else
#define get_varint_word get_varint_fast
#endif

/* SEQ offsets: each the previous end on its device and a varint. */
static int dec_offset_seq(struct fmt_hist *h, struct fmt_colcur *c,
			  struct ist_record *recs, size_t m)
{
	const uint8_t *p = c->p, *end = c->end;
	const uint64_t g = c->d.param;
	uint64_t v;

	for (size_t i = 0; i < m; i++) {
		unsigned sl = hist_slot(h, recs[i].dev);
		uint64_t off;

		p = get_varint_word(p, &v);
		if (!p || p > end)
			return IST_ECORRUPT;
		off = hist_at(h, sl, 0) + (uint64_t)fmt_unzigzag(v) * g;
		recs[i].offset = off;
		hist_push(h, sl, off, off + recs[i].len);
	}
	c->p = p;
	c->done += m;
	return 0;
}

/* SEQ and HIST offsets; the history lives in h across blocks. */
static int dec_offset(struct fmt_hist *h, struct fmt_colcur *c,
		      struct ist_record *recs, size_t m)
{
	const uint8_t *p = c->p, *end = c->end;
	const uint8_t *sym = c->sym ? c->sym + c->done : NULL; /* HIST only */
	const uint64_t g = c->d.param;
	uint64_t v;

	for (size_t i = 0; i < m; i++) {
		unsigned sl = hist_slot(h, recs[i].dev), k;
		uint64_t off;

		k = c->d.coding == FMT_CODE_SEQ ? FMT_HIST : sym[i];
		if (k < FMT_HIST) {
			off = hist_at(h, sl, k);
		} else if (k == FMT_HIST) {
			p = get_varint_fast(p, &v);
			if (!p || p > end)
				return IST_ECORRUPT;
			off = hist_at(h, sl, 0) + (uint64_t)fmt_unzigzag(v) * g;
		} else {
			return IST_ECORRUPT;
		}
		recs[i].offset = off;
		hist_push(h, sl, off, off + recs[i].len);
	}
	c->p = p;
	c->done += m;
	return 0;
}

#ifdef __SSE2__
/*
 * MTF devices with SSE2: the list's 16 entries move by four registers'
 * shift and a blend (entries up to the rank take the shifted list, the
 * rest stay), where the scalar loop ran as many times as the rank says
 * and its exit was mispredicted whenever the rank changed (Tencent's
 * volumes).  The list stays in c->mtf: a record reads its device there,
 * from the stores of the record before.  Entries from nmtf on are
 * shifted too; they are never read (a rank there is refused).
 */
_Static_assert(FMT_MTF == 16, "four registers of four entries");

static int dec_dev_mtf(struct fmt_colcur *c, struct ist_record *recs, size_t m)
{
	const __m128i i0 = _mm_setr_epi32(0, 1, 2, 3);
	const __m128i i1 = _mm_setr_epi32(4, 5, 6, 7);
	const __m128i i2 = _mm_setr_epi32(8, 9, 10, 11);
	const __m128i i3 = _mm_setr_epi32(12, 13, 14, 15);
	const uint8_t *p = c->p, *end = c->end;
	__m128i *l = (__m128i *)(void *)c->mtf;
	unsigned nmtf = c->nmtf;
	uint64_t v;

	for (size_t i = 0; i < m; i++) {
		__m128i a0, a1, a2, a3, s0, s1, s2, s3, g, kv;
		uint32_t dev;
		unsigned k;

		p = get_varint_fast(p, &v);
		if (!p || p > end)
			return IST_ECORRUPT;
		if (v < FMT_MTF) {
			if (v >= nmtf)
				return IST_ECORRUPT;
			k = (unsigned)v;
			dev = c->mtf[k];
		} else {
			if (v - FMT_MTF > UINT32_MAX)
				return IST_ECORRUPT;
			dev = (uint32_t)(v - FMT_MTF);
			nmtf += nmtf < FMT_MTF;
			k = nmtf - 1;
		}
		a0 = _mm_loadu_si128(l);
		a1 = _mm_loadu_si128(l + 1);
		a2 = _mm_loadu_si128(l + 2);
		a3 = _mm_loadu_si128(l + 3);
		s0 = _mm_or_si128(_mm_slli_si128(a0, 4),
				  _mm_cvtsi32_si128((int)dev));
		s1 = _mm_or_si128(_mm_slli_si128(a1, 4), _mm_srli_si128(a0, 12));
		s2 = _mm_or_si128(_mm_slli_si128(a2, 4), _mm_srli_si128(a1, 12));
		s3 = _mm_or_si128(_mm_slli_si128(a3, 4), _mm_srli_si128(a2, 12));
		kv = _mm_set1_epi32((int)k);
#define MTF_BLEND(j)                                                           \
	do {                                                                   \
		g = _mm_cmpgt_epi32(i##j, kv);                                 \
		_mm_storeu_si128(l + (j), _mm_or_si128(_mm_and_si128(g, a##j), \
						       _mm_andnot_si128(g, s##j))); \
	} while (0)
		MTF_BLEND(0);
		MTF_BLEND(1);
		MTF_BLEND(2);
		MTF_BLEND(3);
#undef MTF_BLEND
		recs[i].dev = dev;
	}
	c->nmtf = nmtf;
	c->p = p;
	c->done += m;
	return 0;
}
/*
 * A varint of one or two bytes without a branch on which (MTF symbols: a
 * rank is one byte, a new device below 2^14 - FMT_MTF two); longer ones,
 * and errors, by get_varint_fast().  The caller guarantees the bytes, as
 * for get_varint_fast().
 */
static inline const uint8_t *get_varint12(const uint8_t *p, uint64_t *v)
{
	unsigned x = p[0] | (unsigned)p[1] << 8, two = x >> 7 & 1;

	if (__builtin_expect(x & two << 15, 0))
		return get_varint_fast(p, v);
	*v = (x & 0x7f) | ((x >> 1) & (0x3f80 & (0 - two)));
	return p + 1 + two;
}

#ifdef HAVE_SCAN_AVX512
/*
 * MTF devices with AVX-512 (F), where the CPU has it: the 16 entries in
 * one register, and a record's move one two-source permute of the list
 * and the new device (lane 0 of the second source), the entries past the
 * rank masked off.  Its index vector (lane 0 the rank, or 16 for a new
 * device; lanes 1.. the entry before: mtf_ix[]) and its mask come from
 * the symbol alone, so that the list's only dependency from one record to
 * the next is the permute; the device is lane 0 of the list after it.
 * The SSE2 decoder stored and reloaded its four registers every record,
 * and branched on hit or miss (and on a varint's length: a new device's
 * symbol is two bytes).  The checks are the same: a rank at or past the
 * entries known, a new device beyond 32 bits.  Once the list is full
 * (Tencent's 2038 volumes: from the 16th), the loop has no count to keep.
 */
#define MTF_IX(j) { j, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 }
static const uint32_t mtf_ix[FMT_MTF + 1][FMT_MTF]
	__attribute__((aligned(64))) = {
	MTF_IX(0),  MTF_IX(1),  MTF_IX(2),  MTF_IX(3),  MTF_IX(4),  MTF_IX(5),
	MTF_IX(6),  MTF_IX(7),  MTF_IX(8),  MTF_IX(9),  MTF_IX(10), MTF_IX(11),
	MTF_IX(12), MTF_IX(13), MTF_IX(14), MTF_IX(15), MTF_IX(16),
};
#undef MTF_IX
/* the entries that move when the list is full: up to the rank, all for a
 * new device */
static const __mmask16 mtf_mask[FMT_MTF + 1] = {
	0x0001, 0x0003, 0x0007, 0x000f, 0x001f, 0x003f, 0x007f, 0x00ff, 0x01ff,
	0x03ff, 0x07ff, 0x0fff, 0x1fff, 0x3fff, 0x7fff, 0xffff, 0xffff,
};

__attribute__((target("avx512f"))) static int
dec_dev_mtf_avx512(struct fmt_colcur *c, struct ist_record *recs, size_t m)
{
	const uint8_t *p = c->p, *end = c->end;
	__m512i l = _mm512_loadu_si512(c->mtf);
	unsigned nmtf = c->nmtf;
	size_t i = 0;
	uint64_t v;

	/* k the last entry that moves, j lane 0's index */
#define MTF_MOVE(k, j)                                                         \
	do {                                                                   \
		l = _mm512_mask_permutex2var_epi32(                            \
			l, (__mmask16)((2u << (k)) - 1),                       \
			_mm512_load_si512(mtf_ix[j]),                          \
			_mm512_set1_epi32((int)(uint32_t)(v - FMT_MTF)));      \
		recs[i].dev = (uint32_t)_mm_cvtsi128_si32(                     \
			_mm512_castsi512_si128(l));                            \
	} while (0)
	for (; i < m && nmtf < FMT_MTF; i++) {
		unsigned k;

		p = get_varint12(p, &v);
		if (!p || p > end)
			return IST_ECORRUPT;
		/* no branch on hit or miss (a new device's v is at least
		 * FMT_MTF): each test fails on both in a good column */
		if (__builtin_expect(v - nmtf < FMT_MTF - nmtf, 0) ||
		    __builtin_expect(v > (uint64_t)UINT32_MAX + FMT_MTF, 0))
			return IST_ECORRUPT;
		nmtf += v >= FMT_MTF;
		k = v < nmtf - 1 ? (unsigned)v : nmtf - 1;
		MTF_MOVE(k, v < FMT_MTF ? (unsigned)v : FMT_MTF);
	}
	for (; i < m; i++) {
		unsigned j;

		p = get_varint12(p, &v);
		if (!p || p > end)
			return IST_ECORRUPT;
		if (__builtin_expect(v > (uint64_t)UINT32_MAX + FMT_MTF, 0))
			return IST_ECORRUPT;
		/* min(v, FMT_MTF) by masks: gcc made the ?: a branch */
		j = (unsigned)(v ^ ((v ^ FMT_MTF) & (0 - (uint64_t)(v >= FMT_MTF))));
		l = _mm512_mask_permutex2var_epi32(
			l, mtf_mask[j], _mm512_load_si512(mtf_ix[j]),
			_mm512_set1_epi32((int)(uint32_t)(v - FMT_MTF)));
		recs[i].dev = (uint32_t)_mm_cvtsi128_si32(
			_mm512_castsi512_si128(l));
	}
#undef MTF_MOVE
	_mm512_storeu_si512(c->mtf, l);
	c->nmtf = nmtf;
	c->p = p;
	c->done += m;
	return 0;
}
#endif
#else
static int dec_dev_mtf(struct fmt_colcur *c, struct ist_record *recs, size_t m)
{
	const uint8_t *p = c->p, *end = c->end;
	uint64_t v;

	for (size_t i = 0; i < m; i++) {
		uint32_t dev;

		p = get_varint_fast(p, &v);
		if (!p || p > end)
			return IST_ECORRUPT;
		unsigned last;

		if (v < FMT_MTF) {
			if (v >= c->nmtf)
				return IST_ECORRUPT;
			dev = c->mtf[v];
			last = (unsigned)v;
		} else {
			if (v - FMT_MTF > UINT32_MAX)
				return IST_ECORRUPT;
			dev = (uint32_t)(v - FMT_MTF);
			if (c->nmtf < FMT_MTF)
				c->nmtf++;
			last = c->nmtf - 1;
		}
		/* entries 0..last-1 move down one, carried in a register:
		 * ranks are small, and gcc turns a plain copying loop into
		 * a call to memmove (5 % of tencent's decode) */
		for (unsigned k = 0, carry = dev; k <= last; k++) {
			unsigned t = c->mtf[k];

			c->mtf[k] = carry;
			carry = t;
		}
		recs[i].dev = dev;
	}
	c->p = p;
	c->done += m;
	return 0;
}

#endif

/* CDELTA latencies; c->prev is the previous completion time.  t_ns of
 * the same records is decoded already (column 0). */
static int dec_lat_cdelta(struct fmt_colcur *c, struct ist_record *recs,
			  size_t m)
{
	const uint8_t *p = c->p, *end = c->end;
	const uint64_t g = c->d.param;
	uint64_t v, prev = c->prev;

	for (size_t i = 0; i < m; i++) {
		p = get_varint_fast(p, &v);
		if (!p || p > end)
			return IST_ECORRUPT;
		prev += (uint64_t)fmt_unzigzag(v) * g;
		recs[i].lat_ns = prev - recs[i].t_ns;
	}
	c->p = p;
	c->prev = prev;
	c->done += m;
	return 0;
}

/*
 * The same codings from values decoded already (a VANS column,
 * fmt_colcur_values()): a load where the varint was parsed.  Every
 * coding but HIST takes one value a record, which fmt_colcur_values()
 * checked, so the loops need no bounds check.
 */
#define DEFINE_VDECODER(name, SET, MAX)                                        \
	static int name(struct fmt_colcur *c, struct ist_record *recs,        \
			size_t m)                                              \
	{                                                                      \
		const uint64_t *vp = c->vp, g = c->d.param;                    \
		uint64_t prev = c->prev;                                       \
		size_t i;                                                      \
                                                                               \
		if (c->d.coding == FMT_CODE_RAW) {                             \
			const uint64_t qmax = (MAX) / g;                       \
                                                                               \
			for (i = 0; i < m; i++) {                              \
				if ((MAX) != UINT64_MAX && vp[i] > qmax)       \
					return IST_ECORRUPT;                   \
				SET(&recs[i], vp[i] * g);                      \
			}                                                      \
		} else {                                                       \
			for (i = 0; i < m; i++) {                              \
				prev += (uint64_t)fmt_unzigzag(vp[i]) * g;     \
				if ((MAX) != UINT64_MAX && prev > (MAX))       \
					return IST_ECORRUPT;                   \
				SET(&recs[i], prev);                           \
			}                                                      \
		}                                                              \
		c->vp = vp + m;                                                \
		c->prev = prev;                                                \
		c->done += m;                                                  \
		return 0;                                                      \
	}

DEFINE_VDECODER(vdec_t, SET_T, UINT64_MAX)
DEFINE_VDECODER(vdec_dev, SET_DEV, UINT32_MAX)
DEFINE_VDECODER(vdec_op, SET_OP, (uint64_t)(IST_OP_COUNT - 1))
DEFINE_VDECODER(vdec_flags, SET_FLAGS, UINT16_MAX)
DEFINE_VDECODER(vdec_len, SET_LEN, UINT32_MAX)
DEFINE_VDECODER(vdec_raw_offset, SET_OFFSET, UINT64_MAX)
DEFINE_VDECODER(vdec_lat, SET_LAT, UINT64_MAX)
DEFINE_VDECODER(vdec_stream, SET_STREAM, UINT64_MAX)
DEFINE_VDECODER(vdec_txn, SET_TXN, UINT64_MAX)

/* SEQ offsets from values. */
static int vdec_offset_seq(struct fmt_hist *h, struct fmt_colcur *c,
			   struct ist_record *recs, size_t m)
{
	const uint64_t *vp = c->vp, g = c->d.param;

	for (size_t i = 0; i < m; i++) {
		unsigned sl = hist_slot(h, recs[i].dev);
		uint64_t off = hist_at(h, sl, 0) + (uint64_t)fmt_unzigzag(vp[i]) * g;

		recs[i].offset = off;
		hist_push(h, sl, off, off + recs[i].len);
	}
	c->vp = vp + m;
	c->done += m;
	return 0;
}

/* HIST offsets from values: a miss takes the next value.  In large
 * chunks without a branch on hit or miss (as dec_offset_hist(): the
 * entry after the last value is readable, and taken by no hit). */
static int vdec_offset_hist(struct fmt_hist *h, struct fmt_colcur *c,
			    struct ist_record *recs, size_t m)
{
	const uint64_t *vp = c->vp, *vend = c->vend, g = c->d.param;
	const uint8_t *sym = c->sym + c->done;

	if (c->hist_masks) {
		for (size_t i = 0; i < m; i++) {
			unsigned sl = hist_slot(h, recs[i].dev), k = sym[i];
			uint64_t miss, off;

			if (k > FMT_HIST || vp > vend)
				return IST_ECORRUPT;
			miss = 0 - (uint64_t)(k == FMT_HIST);
			off = h->v[sl][(h->head[sl] - k) & (FMT_HIST - 1)] +
			      (((uint64_t)fmt_unzigzag(*vp) * g) & miss);
			vp += miss & 1;
			recs[i].offset = off;
			hist_push(h, sl, off, off + recs[i].len);
		}
		if (vp > vend)
			return IST_ECORRUPT;
	} else {
		for (size_t i = 0; i < m; i++) {
			unsigned sl = hist_slot(h, recs[i].dev), k = sym[i];
			uint64_t off;

			if (k < FMT_HIST) {
				off = hist_at(h, sl, k);
			} else if (k == FMT_HIST && vp < vend) {
				off = hist_at(h, sl, 0) +
				      (uint64_t)fmt_unzigzag(*vp++) * g;
			} else {
				return IST_ECORRUPT;
			}
			recs[i].offset = off;
			hist_push(h, sl, off, off + recs[i].len);
		}
	}
	c->vp = vp;
	c->done += m;
	return 0;
}

/* CDELTA latencies from values. */
static int vdec_lat_cdelta(struct fmt_colcur *c, struct ist_record *recs,
			   size_t m)
{
	const uint64_t *vp = c->vp, g = c->d.param;
	uint64_t prev = c->prev;

	for (size_t i = 0; i < m; i++) {
		prev += (uint64_t)fmt_unzigzag(vp[i]) * g;
		recs[i].lat_ns = prev - recs[i].t_ns;
	}
	c->vp = vp + m;
	c->prev = prev;
	c->done += m;
	return 0;
}

/* The value decoders' dispatch (fmt_decode_block()). */
static int vdec_block(struct fmt_hist *h, struct fmt_colcur *c,
		      struct ist_record *recs, size_t m)
{
	switch (c->d.coding) {
	case FMT_CODE_SEQ: return vdec_offset_seq(h, c, recs, m);
	case FMT_CODE_HIST: return vdec_offset_hist(h, c, recs, m);
	case FMT_CODE_CDELTA: return vdec_lat_cdelta(c, recs, m);
	default: break;
	}
	switch (c->col) {
	case FMT_COL_T: return vdec_t(c, recs, m);
	case FMT_COL_DEV: return vdec_dev(c, recs, m);
	case FMT_COL_OP: return vdec_op(c, recs, m);
	case FMT_COL_FLAGS: return vdec_flags(c, recs, m);
	case FMT_COL_LEN: return vdec_len(c, recs, m);
	case FMT_COL_OFFSET: return vdec_raw_offset(c, recs, m);
	case FMT_COL_LAT: return vdec_lat(c, recs, m);
	case FMT_COL_STREAM: return vdec_stream(c, recs, m);
	case FMT_COL_TXN: return vdec_txn(c, recs, m);
	}
	return IST_ECORRUPT;
}

int fmt_colcur_values(struct fmt_colcur *c, struct fmt_hist *h,
		      enum fmt_col col, const struct fmt_coldesc *d,
		      const uint8_t *sym, const uint64_t *vals, size_t nv,
		      size_t n)
{
	int ret;

	if (!fmt_colcur_takes_values(d->coding))
		return 1;
	if ((d->coding == FMT_CODE_HIST) != (sym != NULL))
		return IST_ECORRUPT;
	/* the checks of the varints' form: coding, column, param, and the
	 * HIST symbols' n bytes (no bytes but those: sym NULL otherwise) */
	ret = fmt_colcur_init(c, h, col, d, sym, n);
	if (ret)
		return ret;
	/* one value a record, but for HIST's hits */
	if (d->coding == FMT_CODE_HIST ? nv > n : nv != n)
		return IST_ECORRUPT;
	c->p = c->end = NULL;
	c->vp = vals;
	c->vend = vals + nv;
	return 0;
}

int fmt_colcur_init(struct fmt_colcur *c, struct fmt_hist *h, enum fmt_col col,
		    const struct fmt_coldesc *d, const uint8_t *in, size_t n)
{
	memset(c, 0, sizeof(*c));
	c->d = *d;
	c->col = col;
	c->p = in;
	c->end = in ? in + d->raw_len : NULL; /* no bytes: values */
	if (d->coding >= FMT_CODE_LAST)
		return IST_ECORRUPT;
	if (d->coding != FMT_CODE_CONST && d->param == 0)
		return IST_ECORRUPT;
	switch (d->coding) {
	case FMT_CODE_SEQ:
	case FMT_CODE_HIST:
		if (col != FMT_COL_OFFSET)
			return IST_ECORRUPT;
		hist_reset(h);
		if (d->coding == FMT_CODE_HIST) {
			if (d->raw_len < n)
				return IST_ECORRUPT;
			c->sym = in;
			c->p = in + n;
			c->hist_masks = n > HIST_MASKS_MIN;
		}
		break;
	case FMT_CODE_MTF:
		if (col != FMT_COL_DEV || d->param != 1)
			return IST_ECORRUPT;
		break;
	case FMT_CODE_CDELTA:
		if (col != FMT_COL_LAT)
			return IST_ECORRUPT;
		break;
	case FMT_CODE_DICT:
		if (d->param < 2 || d->param > FMT_DICT_MAX)
			return IST_ECORRUPT;
		c->k = (unsigned)d->param;
		for (unsigned j = 0; j < c->k; j++)
			if (fmt_get_varint(&c->p, c->end, &c->dict[j]))
				return IST_ECORRUPT;
		c->w = dict_width(c->k);
		/* the index bits fill the rest of the column exactly */
		if ((uint64_t)(c->end - c->p) != ((uint64_t)n * c->w + 7) / 8)
			return IST_ECORRUPT;
		break;
	default:
		break;
	}
	return 0;
}

int fmt_decode_block(struct fmt_hist *h, struct fmt_colcur *c,
		     struct ist_record *recs, size_t m)
{
	if (c->vp)
		return vdec_block(h, c, recs, m);
#ifdef HAVE_OFFSET_HIST
	if (c->d.coding == FMT_CODE_HIST && c->hist_masks) {
#ifdef HAVE_SCAN_AVX512
		if (!fmt_dec_no_avx512 && __builtin_cpu_supports("avx512f") &&
		    __builtin_cpu_supports("bmi2"))
			return dec_offset_hist_bmi2(h, c, recs, m);
#endif
		return dec_offset_hist(h, c, recs, m);
	}
#endif
	if (c->d.coding == FMT_CODE_SEQ)
		return dec_offset_seq(h, c, recs, m);
	if (c->d.coding == FMT_CODE_SEQ || c->d.coding == FMT_CODE_HIST)
		return dec_offset(h, c, recs, m);
	if (c->d.coding == FMT_CODE_MTF) {
#ifdef HAVE_SCAN_AVX512
		if (!fmt_dec_no_avx512 && __builtin_cpu_supports("avx512f"))
			return dec_dev_mtf_avx512(c, recs, m);
#endif
		return dec_dev_mtf(c, recs, m);
	}
	if (c->d.coding == FMT_CODE_CDELTA)
		return dec_lat_cdelta(c, recs, m);
	switch (c->col) {
	case FMT_COL_T: return dec_t(c, recs, m);
	case FMT_COL_DEV: return dec_dev(c, recs, m);
	case FMT_COL_OP: return dec_op(c, recs, m);
	case FMT_COL_FLAGS: return dec_flags(c, recs, m);
	case FMT_COL_LEN: return dec_len(c, recs, m);
	case FMT_COL_OFFSET: return dec_raw_offset(c, recs, m);
	case FMT_COL_LAT: return dec_lat(c, recs, m);
	case FMT_COL_STREAM: return dec_stream(c, recs, m);
	case FMT_COL_TXN: return dec_txn(c, recs, m);
	}
	return IST_ECORRUPT;
}

int fmt_colcur_const(const struct fmt_colcur *c, struct ist_record *tpl)
{
	const uint64_t v = c->d.param;
	uint64_t max = UINT64_MAX;

	if (c->d.coding != FMT_CODE_CONST || c->d.raw_len)
		return IST_ECORRUPT;
	switch (c->col) {
	case FMT_COL_DEV:
	case FMT_COL_LEN:
		max = UINT32_MAX;
		break;
	case FMT_COL_OP:
		max = IST_OP_COUNT - 1;
		break;
	case FMT_COL_FLAGS:
		max = UINT16_MAX;
		break;
	default:
		break;
	}
	if (v > max)
		return IST_ECORRUPT;
	switch (c->col) {
	case FMT_COL_T: SET_T(tpl, v); break;
	case FMT_COL_DEV: SET_DEV(tpl, v); break;
	case FMT_COL_OP: SET_OP(tpl, v); break;
	case FMT_COL_FLAGS: SET_FLAGS(tpl, v); break;
	case FMT_COL_LEN: SET_LEN(tpl, v); break;
	case FMT_COL_OFFSET: SET_OFFSET(tpl, v); break;
	case FMT_COL_LAT: SET_LAT(tpl, v); break;
	case FMT_COL_STREAM: SET_STREAM(tpl, v); break;
	case FMT_COL_TXN: SET_TXN(tpl, v); break;
	}
	return 0;
}

int fmt_colcur_finish(const struct fmt_colcur *c)
{
	if (c->d.coding == FMT_CODE_DICT || c->d.coding == FMT_CODE_CONST)
		return 0; /* sizes checked at init */
	if (c->vp)
		return c->vp == c->vend ? 0 : IST_ECORRUPT;
	return c->p == c->end ? 0 : IST_ECORRUPT;
}

int fmt_decode_column(struct fmt_hist *h, enum fmt_col col,
		      const struct fmt_coldesc *d, const uint8_t *in,
		      struct ist_record *recs, size_t n)
{
	struct fmt_colcur c;
	int ret = fmt_colcur_init(&c, h, col, d, in, n);

	if (!ret)
		ret = fmt_decode_block(h, &c, recs, n);
	if (!ret)
		ret = fmt_colcur_finish(&c);
	return ret;
}

int fmt_parses_as_varints(const uint8_t *in, size_t len, size_t prefix)
{
	const uint8_t *p = in + prefix, *end = in + len;

	while (p < end) {
		const uint8_t *q = p;
		uint64_t v;

		if (fmt_get_varint(&p, end, &v) ||
		    fmt_varint_len(v) != (size_t)(p - q))
			return 0;
	}
	return 1;
}
