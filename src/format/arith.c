/* SPDX-License-Identifier: MIT */
/* arith.c - the ARITH column storage: an adaptive binary range coder over a column's values or bytes. */
#include "config.h"

#include "format/fmt.h"

/*
 * ANS (ans.c) needs a frequency table per context in the file: cheap in a
 * column of 65536 records, most of a column of 1000.  This storage learns
 * its model while coding instead: binary decisions with adaptive
 * probabilities (11 bits, moved 1/2^shift of the way after each bit) and a
 * range coder, so a small column pays no table.
 *
 * In value mode the column is read as varints (every coding but DICT
 * writes them), and each value is split into its bit length b and the bits
 * below its leading one: b with a 7-bit decision tree, the mantissa fully
 * modelled (a tree per b) while the value is below 512 (small lengths,
 * ranks, dictionary-like values), only its top two bits above (measured
 * times, latencies and offsets are near log-uniform: below the top bits
 * the mantissa is noise, coded as raw bits at 1 bit each).  Byte mode
 * codes the bytes themselves with a tree per position in the varint, as
 * ANS's model 1 does.  A prefix (the HIST offset symbols) has a tree of
 * its own in both.  man/iostorm-trace.5 specifies the bytes.
 */
#define PROB_BITS 11
#define PROB_ONE (1u << PROB_BITS)
#define RC_TOP (1u << 24)
#define FULL_BITS 8    /* mantissas of up to 8 bits are modelled fully */
#define TOP_BITS 2     /* longer ones: their top 2 bits */
#define BYTE_CTX 4
#define DIRECT_GROUP 16 /* raw bits per range coder step */

struct arith_model {
	unsigned shift;
	uint16_t pre[256];                  /* prefix bytes */
	uint16_t cls[128];                  /* bit length, 0..64 */
	uint16_t mant[65][1u << FULL_BITS]; /* per bit length */
	uint16_t byte[BYTE_CTX][256];       /* byte mode */
};

/* Mantissa bits of a bit length b modelled by the tree (the rest raw). */
static inline unsigned tree_bits(unsigned b)
{
	unsigned nm = b ? b - 1 : 0;

	return nm <= FULL_BITS ? nm : TOP_BITS;
}

static void model_init(struct arith_model *m, unsigned shift, unsigned mode)
{
	m->shift = shift;
	for (unsigned i = 0; i < 256; i++)
		m->pre[i] = PROB_ONE / 2;
	if (mode == FMT_ARITH_VALUES) {
		for (unsigned i = 0; i < 128; i++)
			m->cls[i] = PROB_ONE / 2;
		for (unsigned b = 0; b < 65; b++)
			for (unsigned i = 0; i < (1u << tree_bits(b)); i++)
				m->mant[b][i] = PROB_ONE / 2;
	} else {
		for (unsigned c = 0; c < BYTE_CTX; c++)
			for (unsigned i = 0; i < 256; i++)
				m->byte[c][i] = PROB_ONE / 2;
	}
}

/* ---- encoder (a carry-propagating range coder, bytes forwards) */

struct rc_enc {
	uint64_t low;
	uint32_t range;
	uint8_t cache;
	uint64_t pending; /* cache plus this many - 1 0xff bytes unwritten */
	uint8_t *p, *end;
	int full;         /* ran past end: the result is too long */
};

static inline void enc_byte(struct rc_enc *e, uint8_t b)
{
	if (e->p < e->end)
		*e->p++ = b;
	else
		e->full = 1;
}

static inline void enc_shift(struct rc_enc *e)
{
	if ((uint32_t)e->low < 0xff000000u || (e->low >> 32)) {
		uint8_t carry = (uint8_t)(e->low >> 32), c = e->cache;

		do {
			enc_byte(e, (uint8_t)(c + carry));
			c = 0xff;
		} while (--e->pending);
		e->cache = (uint8_t)(e->low >> 24);
	}
	e->pending++;
	e->low = (e->low & 0x00ffffffu) << 8;
}

static inline void enc_norm(struct rc_enc *e)
{
	while (e->range < RC_TOP) {
		e->range <<= 8;
		enc_shift(e);
	}
}

static inline void enc_bit(struct rc_enc *e, uint16_t *pr, unsigned bit,
			   unsigned shift)
{
	uint32_t bound = (e->range >> PROB_BITS) * *pr;

	if (!bit) {
		e->range = bound;
		*pr = (uint16_t)(*pr + ((PROB_ONE - *pr) >> shift));
	} else {
		e->low += bound;
		e->range -= bound;
		*pr = (uint16_t)(*pr - (*pr >> shift));
	}
	enc_norm(e);
}

/* Raw bits, most significant first, in groups of up to 16 coded as one
 * digit (one step instead of one per bit). */
static inline void enc_direct(struct rc_enc *e, uint64_t v, unsigned nbits)
{
	while (nbits) {
		unsigned k = nbits > DIRECT_GROUP ? DIRECT_GROUP : nbits;

		nbits -= k;
		e->range >>= k;
		e->low += ((v >> nbits) & ((1u << k) - 1)) * (uint64_t)e->range;
		enc_norm(e);
	}
}

/* nbits of v, most significant first, down the tree t (1-based). */
static inline void enc_tree(struct rc_enc *e, uint16_t *t, unsigned v,
			    unsigned nbits, unsigned shift)
{
	unsigned node = 1;

	while (nbits--) {
		unsigned bit = (v >> nbits) & 1;

		enc_bit(e, &t[node], bit, shift);
		node = node * 2 + bit;
	}
}

static void enc_value(struct rc_enc *e, struct arith_model *m, uint64_t v)
{
	unsigned b = v ? 64 - (unsigned)__builtin_clzll(v) : 0;
	unsigned k = tree_bits(b), nm = b ? b - 1 : 0;

	enc_tree(e, m->cls, b, 7, m->shift);
	if (k)
		enc_tree(e, m->mant[b], (unsigned)(v >> (nm - k)) & ((1u << k) - 1),
			 k, m->shift);
	enc_direct(e, v, nm - k);
}

size_t fmt_arith_encode(const uint8_t *in, size_t len, size_t prefix,
			uint8_t *out, size_t limit)
{
	struct arith_model m;
	struct rc_enc e;
	unsigned mode, shift, ctx = 0;
	size_t hl;

	if (prefix > len)
		prefix = 0;
	if (limit < 16)
		return 0;
	mode = fmt_parses_as_varints(in, len, prefix) ? FMT_ARITH_VALUES :
						     FMT_ARITH_BYTES;
	/* fast adaptation while the model is young, finer steps later */
	shift = len > 8192 ? 5 : 4;
	model_init(&m, shift, mode);
	out[0] = (uint8_t)(mode | shift << 4);
	hl = 1 + fmt_put_varint(out + 1, prefix);
	e.low = 0;
	e.range = 0xffffffffu;
	e.cache = 0;
	e.pending = 1;
	e.p = out + hl;
	e.end = out + limit - 1; /* shorter than limit */
	e.full = 0;
	for (size_t i = 0; i < prefix && !e.full; i++)
		enc_tree(&e, m.pre, in[i], 8, shift);
	if (mode == FMT_ARITH_VALUES) {
		const uint8_t *p = in + prefix, *end = in + len;

		while (p < end && !e.full) {
			uint64_t v = 0;

			(void)fmt_get_varint(&p, end, &v); /* checked above */
			enc_value(&e, &m, v);
		}
	} else {
		for (size_t i = prefix; i < len && !e.full; i++) {
			enc_tree(&e, m.byte[ctx], in[i], 8, shift);
			ctx = (in[i] & 0x80) ? (ctx < BYTE_CTX - 1 ? ctx + 1 : ctx) : 0;
		}
	}
	for (int i = 0; i < 5; i++)
		enc_shift(&e);
	if (e.full)
		return 0;
	return (size_t)(e.p - out);
}

/* ---- decoder */

struct rc_dec {
	uint32_t range, code;
	const uint8_t *p, *end;
	int over; /* read past the end: corrupt */
};

static inline void dec_norm(struct rc_dec *d)
{
	while (d->range < RC_TOP) {
		d->range <<= 8;
		d->code <<= 8;
		if (d->p < d->end)
			d->code |= *d->p++;
		else
			d->over = 1;
	}
}

static inline unsigned dec_bit(struct rc_dec *d, uint16_t *pr, unsigned shift)
{
	uint32_t bound = (d->range >> PROB_BITS) * *pr;
	unsigned bit;

	if (d->code < bound) {
		d->range = bound;
		*pr = (uint16_t)(*pr + ((PROB_ONE - *pr) >> shift));
		bit = 0;
	} else {
		d->code -= bound;
		d->range -= bound;
		*pr = (uint16_t)(*pr - (*pr >> shift));
		bit = 1;
	}
	dec_norm(d);
	return bit;
}

/* Raw bits as enc_direct() codes them; a digit out of range (only in a
 * damaged stream) sets over. */
static inline uint64_t dec_direct(struct rc_dec *d, unsigned nbits)
{
	uint64_t v = 0;

	while (nbits) {
		unsigned k = nbits > DIRECT_GROUP ? DIRECT_GROUP : nbits;
		uint32_t q;

		nbits -= k;
		d->range >>= k;
		q = d->code / d->range;
		if (q >> k) {
			d->over = 1;
			q = 0;
		}
		d->code -= q * d->range;
		v = v << k | q;
		dec_norm(d);
	}
	return v;
}

static inline unsigned dec_tree(struct rc_dec *d, uint16_t *t, unsigned nbits,
				unsigned shift)
{
	unsigned node = 1;

	for (unsigned i = 0; i < nbits; i++)
		node = node * 2 + dec_bit(d, &t[node], shift);
	return node - (1u << nbits);
}

/* A value, or -1 for a bit length above 64. */
static inline int dec_value(struct rc_dec *d, struct arith_model *m,
			    uint64_t *v)
{
	unsigned b = dec_tree(d, m->cls, 7, m->shift), k, nm;
	uint64_t x;

	if (b > 64)
		return -1;
	if (b == 0) {
		*v = 0;
		return 0;
	}
	nm = b - 1;
	k = tree_bits(b);
	x = k ? dec_tree(d, m->mant[b], k, m->shift) : 0;
	x = (x << (nm - k)) | dec_direct(d, nm - k);
	*v = x | (uint64_t)1 << nm;
	return 0;
}

int fmt_arith_decode(const uint8_t *in, size_t inlen, uint8_t *out, size_t want)
{
	const uint8_t *p = in, *end = in + inlen;
	struct arith_model m;
	struct rc_dec d;
	unsigned mode, shift, ctx = 0;
	uint64_t prefix;
	size_t o;

	if (inlen < 1)
		return IST_ECORRUPT;
	mode = in[0] & 15;
	shift = in[0] >> 4;
	p++;
	if ((mode != FMT_ARITH_VALUES && mode != FMT_ARITH_BYTES) ||
	    shift < FMT_ARITH_SHIFT_MIN || shift > FMT_ARITH_SHIFT_MAX ||
	    fmt_get_varint(&p, end, &prefix) || prefix > want ||
	    end - p < 5 || p[0] != 0)
		return IST_ECORRUPT;
	d.code = (uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 |
		 (uint32_t)p[3] << 8 | p[4]; /* big-endian, as written */
	d.range = 0xffffffffu;
	d.p = p + 5;
	d.end = end;
	d.over = 0;
	if (d.code == d.range)
		return IST_ECORRUPT;
	model_init(&m, shift, mode);
	for (o = 0; o < prefix; o++)
		out[o] = (uint8_t)dec_tree(&d, m.pre, 8, shift);
	if (mode == FMT_ARITH_VALUES) {
		while (o < want) {
			uint64_t v;

			if (dec_value(&d, &m, &v) || d.over ||
			    fmt_varint_len(v) > want - o)
				return IST_ECORRUPT;
			o += fmt_put_varint(out + o, v);
		}
	} else {
		for (; o < want; o++) {
			uint8_t b = (uint8_t)dec_tree(&d, m.byte[ctx], 8, shift);

			out[o] = b;
			ctx = (b & 0x80) ? (ctx < BYTE_CTX - 1 ? ctx + 1 : ctx) : 0;
		}
	}
	/* the encoder flushed its low end exactly: what is left of the code
	 * is 0 when every bit was decoded as coded */
	if (d.over || d.p != d.end || d.code != 0)
		return IST_ECORRUPT;
	return 0;
}
