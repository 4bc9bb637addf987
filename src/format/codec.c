/* SPDX-License-Identifier: MIT */
/* codec.c - the column codings of an IST chunk: const, raw, delta, seq. */
#include "config.h"

#include "format/fmt.h"

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
	uint64_t lim; /* UINT64_MAX / (g >> s) */
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
	d->lim = UINT64_MAX / odd;
}

/* x divisible by d (x taken as unsigned magnitude)? */
static inline int divisor_divides(const struct divisor *d, uint64_t x)
{
	if (x & ((UINT64_C(1) << d->s) - 1))
		return 0;
	return (x >> d->s) * d->inv <= d->lim;
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

/* Folds x into the running gcd; cheap while x is a multiple of it. */
static inline void gcd_add(struct divisor *d, uint64_t x)
{
	if (d->g == 1 || divisor_divides(d, x))
		return;
	divisor_set(d, gcd64(d->g, x));
}

/*
 * Field access by column.  Every encoder is generated from the same
 * template with the field access inlined, so the loops run without a
 * call per value.
 */
#define GET_T(r) ((r)->t_ns)
#define GET_DEV(r) ((uint64_t)(r)->dev)
#define GET_OP(r) ((uint64_t)(r)->op)
#define GET_FLAGS(r) ((uint64_t)(r)->flags)
#define GET_LEN(r) ((uint64_t)(r)->len)
#define GET_LAT(r) ((r)->lat_ns)
#define GET_STREAM(r) ((r)->stream)
#define GET_TXN(r) ((r)->txn)
#define GET_OFFSET(r) ((r)->offset)

/* Which codings a column tries besides CONST. */
enum { TRY_RAW = 1, TRY_DELTA = 2, TRY_SEQ = 4, USE_GCD = 8 };

#define DEFINE_ENCODER(name, GET, what)                                        \
	static void name(const struct ist_record *recs, size_t n,              \
			 uint8_t *out, struct fmt_coldesc *d)                  \
	{                                                                      \
		uint64_t first = GET(&recs[0]), raw_sz = 0, delta_sz = 0;      \
		uint64_t seq_sz = 0, prev = 0, ends[FMT_SEQ_SLOTS] = { 0 };    \
		int all_same = 1;                                              \
		struct divisor dv;                                             \
		uint8_t *p = out;                                              \
		size_t i;                                                      \
                                                                               \
		(void)ends;                                                    \
		for (i = 0; i < n; i++) {                                      \
			uint64_t v = GET(&recs[i]);                            \
                                                                               \
			all_same &= v == first;                                \
			if ((what) & TRY_RAW)                                  \
				raw_sz += fmt_varint_len(v);                   \
			if ((what) & TRY_DELTA) {                              \
				delta_sz += fmt_varint_len(                    \
					fmt_zigzag((int64_t)(v - prev)));      \
				prev = v;                                      \
			}                                                      \
			if ((what) & TRY_SEQ) {                                \
				unsigned sl = recs[i].dev % FMT_SEQ_SLOTS;     \
                                                                               \
				seq_sz += fmt_varint_len(fmt_zigzag(           \
					(int64_t)(v - ends[sl])));             \
				ends[sl] = v + recs[i].len;                    \
			}                                                      \
		}                                                              \
		d->raw_len = 0;                                                \
		if (all_same) {                                                \
			d->coding = FMT_CODE_CONST;                            \
			d->param = first;                                      \
			return;                                                \
		}                                                              \
		d->coding = FMT_CODE_RAW;                                      \
		if (((what) & TRY_DELTA) &&                                    \
		    (!((what) & TRY_RAW) || delta_sz < raw_sz)) {              \
			d->coding = FMT_CODE_DELTA;                            \
			raw_sz = delta_sz;                                     \
		}                                                              \
		if (((what) & TRY_SEQ) && seq_sz < raw_sz)                     \
			d->coding = FMT_CODE_SEQ;                              \
		divisor_set(&dv, 1);                                           \
		if ((what) & USE_GCD) {                                        \
			dv.g = 0;                                              \
			dv.s = 0;                                              \
			dv.inv = 1;                                            \
			dv.lim = UINT64_MAX;                                   \
			/* gcd over the values to be coded */                  \
			prev = 0;                                              \
			memset(ends, 0, sizeof(ends));                         \
			for (i = 0; i < n && dv.g != 1; i++) {                 \
				uint64_t v = GET(&recs[i]), x;                 \
                                                                               \
				if (d->coding == FMT_CODE_RAW) {               \
					x = v;                                 \
				} else if (d->coding == FMT_CODE_DELTA) {      \
					x = magnitude((int64_t)(v - prev));    \
					prev = v;                              \
				} else {                                       \
					unsigned sl = recs[i].dev %            \
						      FMT_SEQ_SLOTS;           \
					x = magnitude(                         \
						(int64_t)(v - ends[sl]));      \
					ends[sl] = v + recs[i].len;            \
				}                                              \
				if (x == 0)                                    \
					continue;                              \
				if (dv.g == 0)                                 \
					divisor_set(&dv, x);                   \
				else                                           \
					gcd_add(&dv, x);                       \
			}                                                      \
			if (dv.g == 0)                                         \
				divisor_set(&dv, 1);                           \
		}                                                              \
		d->param = dv.g;                                               \
		prev = 0;                                                      \
		memset(ends, 0, sizeof(ends));                                 \
		if (d->coding == FMT_CODE_RAW) {                               \
			if (dv.g == 1)                                         \
				for (i = 0; i < n; i++)                        \
					p += fmt_put_varint(p, GET(&recs[i])); \
			else                                                   \
				for (i = 0; i < n; i++)                        \
					p += fmt_put_varint(                   \
						p, divisor_div(&dv,            \
							       GET(&recs[i])));\
		} else if (d->coding == FMT_CODE_DELTA) {                      \
			for (i = 0; i < n; i++) {                              \
				uint64_t v = GET(&recs[i]);                    \
                                                                               \
				p += fmt_put_varint(p, fmt_zigzag(divisor_sdiv(\
					&dv, (int64_t)(v - prev))));           \
				prev = v;                                      \
			}                                                      \
		} else {                                                       \
			for (i = 0; i < n; i++) {                              \
				uint64_t v = GET(&recs[i]);                    \
				unsigned sl = recs[i].dev % FMT_SEQ_SLOTS;     \
                                                                               \
				p += fmt_put_varint(p, fmt_zigzag(divisor_sdiv(\
					&dv, (int64_t)(v - ends[sl]))));       \
				ends[sl] = v + recs[i].len;                    \
			}                                                      \
		}                                                              \
		d->raw_len = (uint64_t)(p - out);                              \
	}

DEFINE_ENCODER(enc_t, GET_T, TRY_DELTA | USE_GCD)
DEFINE_ENCODER(enc_dev, GET_DEV, TRY_RAW)
DEFINE_ENCODER(enc_op, GET_OP, TRY_RAW)
DEFINE_ENCODER(enc_flags, GET_FLAGS, TRY_RAW)
DEFINE_ENCODER(enc_len, GET_LEN, TRY_RAW | USE_GCD)
DEFINE_ENCODER(enc_offset, GET_OFFSET, TRY_RAW | TRY_SEQ | USE_GCD)
DEFINE_ENCODER(enc_lat, GET_LAT, TRY_RAW | USE_GCD)
DEFINE_ENCODER(enc_stream, GET_STREAM, TRY_RAW | TRY_DELTA)
DEFINE_ENCODER(enc_txn, GET_TXN, TRY_RAW | TRY_DELTA)

void fmt_encode_column(enum fmt_col col, const struct ist_record *recs,
		       size_t n, uint8_t *out, struct fmt_coldesc *d)
{
	d->store = FMT_STORE_PLAIN;
	switch (col) {
	case FMT_COL_T: enc_t(recs, n, out, d); break;
	case FMT_COL_DEV: enc_dev(recs, n, out, d); break;
	case FMT_COL_OP: enc_op(recs, n, out, d); break;
	case FMT_COL_FLAGS: enc_flags(recs, n, out, d); break;
	case FMT_COL_LEN: enc_len(recs, n, out, d); break;
	case FMT_COL_OFFSET: enc_offset(recs, n, out, d); break;
	case FMT_COL_LAT: enc_lat(recs, n, out, d); break;
	case FMT_COL_STREAM: enc_stream(recs, n, out, d); break;
	case FMT_COL_TXN: enc_txn(recs, n, out, d); break;
	}
	d->stored_len = d->raw_len;
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
#define SET_OP(r, v) ((r)->op = (uint8_t)(v))
#define SET_FLAGS(r, v) ((r)->flags = (uint16_t)(v))
#define SET_LEN(r, v) ((r)->len = (uint32_t)(v))
#define SET_LAT(r, v) ((r)->lat_ns = (v))
#define SET_STREAM(r, v) ((r)->stream = (v))
#define SET_TXN(r, v) ((r)->txn = (v))
#define SET_OFFSET(r, v) ((r)->offset = (v))

/*
 * Decoder template.  MAX is the largest value the field holds; values
 * beyond it make the chunk corrupt (checked per value only for the narrow
 * fields, where the compiler drops the test for MAX == UINT64_MAX).
 */
#define DEFINE_DECODER(name, SET, MAX)                                         \
	static int name(const struct fmt_coldesc *d, const uint8_t *in,        \
			struct ist_record *recs, size_t n)                     \
	{                                                                      \
		const uint8_t *p = in, *end = in + d->raw_len;                 \
		const uint64_t g = d->param;                                   \
		uint64_t v, prev = 0, qmax = 0, ends[FMT_SEQ_SLOTS];           \
		size_t i;                                                      \
                                                                               \
		switch (d->coding) {                                           \
		case FMT_CODE_CONST:                                           \
			if (d->raw_len || d->param > (MAX))                    \
				return IST_ECORRUPT;                           \
			for (i = 0; i < n; i++)                                \
				SET(&recs[i], d->param);                       \
			return 0;                                              \
		case FMT_CODE_RAW:                                             \
			qmax = (MAX) / g;                                      \
			for (i = 0; i < n; i++) {                              \
				p = get_varint_fast(p, &v);                    \
				if (!p || p > end)                             \
					return IST_ECORRUPT;                   \
				if ((MAX) != UINT64_MAX && v > qmax)           \
					return IST_ECORRUPT;                   \
				SET(&recs[i], v * g);                          \
			}                                                      \
			break;                                                 \
		case FMT_CODE_DELTA:                                           \
			for (i = 0; i < n; i++) {                              \
				p = get_varint_fast(p, &v);                    \
				if (!p || p > end)                             \
					return IST_ECORRUPT;                   \
				prev += (uint64_t)fmt_unzigzag(v) * g;         \
				if ((MAX) != UINT64_MAX && prev > (MAX))       \
					return IST_ECORRUPT;                   \
				SET(&recs[i], prev);                           \
			}                                                      \
			break;                                                 \
		case FMT_CODE_SEQ:                                             \
			memset(ends, 0, sizeof(ends));                         \
			for (i = 0; i < n; i++) {                              \
				unsigned sl = recs[i].dev % FMT_SEQ_SLOTS;     \
                                                                               \
				p = get_varint_fast(p, &v);                    \
				if (!p || p > end)                             \
					return IST_ECORRUPT;                   \
				v = ends[sl] + (uint64_t)fmt_unzigzag(v) * g;  \
				if ((MAX) != UINT64_MAX && v > (MAX))          \
					return IST_ECORRUPT;                   \
				SET(&recs[i], v);                              \
				ends[sl] = v + recs[i].len;                    \
			}                                                      \
			break;                                                 \
		default:                                                       \
			return IST_ECORRUPT;                                   \
		}                                                              \
		return p == end ? 0 : IST_ECORRUPT;                            \
	}

DEFINE_DECODER(dec_t, SET_T, UINT64_MAX)
DEFINE_DECODER(dec_dev, SET_DEV, UINT32_MAX)
DEFINE_DECODER(dec_op, SET_OP, (uint64_t)(IST_OP_COUNT - 1))
DEFINE_DECODER(dec_flags, SET_FLAGS, UINT16_MAX)
DEFINE_DECODER(dec_len, SET_LEN, UINT32_MAX)
DEFINE_DECODER(dec_offset, SET_OFFSET, UINT64_MAX)
DEFINE_DECODER(dec_lat, SET_LAT, UINT64_MAX)
DEFINE_DECODER(dec_stream, SET_STREAM, UINT64_MAX)
DEFINE_DECODER(dec_txn, SET_TXN, UINT64_MAX)

int fmt_decode_column(enum fmt_col col, const struct fmt_coldesc *d,
		      const uint8_t *in, struct ist_record *recs, size_t n)
{
	if (d->coding != FMT_CODE_CONST && d->param == 0)
		return IST_ECORRUPT;
	if (d->coding == FMT_CODE_SEQ && col != FMT_COL_OFFSET)
		return IST_ECORRUPT;
	switch (col) {
	case FMT_COL_T: return dec_t(d, in, recs, n);
	case FMT_COL_DEV: return dec_dev(d, in, recs, n);
	case FMT_COL_OP: return dec_op(d, in, recs, n);
	case FMT_COL_FLAGS: return dec_flags(d, in, recs, n);
	case FMT_COL_LEN: return dec_len(d, in, recs, n);
	case FMT_COL_OFFSET: return dec_offset(d, in, recs, n);
	case FMT_COL_LAT: return dec_lat(d, in, recs, n);
	case FMT_COL_STREAM: return dec_stream(d, in, recs, n);
	case FMT_COL_TXN: return dec_txn(d, in, recs, n);
	}
	return IST_ECORRUPT;
}
