/* SPDX-License-Identifier: MIT */
/* ans.c - the ANS column storage: a static rANS coder over a column's bytes. */
#include "config.h"

#include <math.h>

#include "format/fmt.h"

/*
 * A column's coded bytes (varints mostly) are entropy coded with range
 * ANS: per column and chunk a static model of FMT_ANS_CTX byte contexts
 * (model 1: the position of the byte inside its varint, 0..3+) or one
 * (model 0), each a table of symbol frequencies summing to 2^12, then two
 * interleaved 32-bit states renormalised 16 bits at a time.  The low
 * byte of a varint (nearly random in times and offsets) and its high
 * bytes (the magnitude, very skewed) then get models of their own, which
 * deflate's single Huffman table cannot give them.  man/iostorm-trace.5
 * specifies the bytes.
 */
#define ANS_M (1u << FMT_ANS_BITS)
#define ANS_L (1u << 16) /* lower bound of a normalised state */
/* A decoding table entry: symbol, frequency - 1 (12 bits), slot - start
 * (12 bits, at most frequency - 1).  ANS_NONE (slot - start 4095 with
 * frequency 1) is no symbol: the slots of an unused context. */
#define ANS_NONE 0xfff00000u

struct ans_model {
	unsigned nctx;
	uint16_t freq[FMT_ANS_CTX][256];
	uint16_t start[FMT_ANS_CTX][256];
	uint64_t rcp[FMT_ANS_CTX][256]; /* ceil(2^64 / freq), freq >= 2 */
};

/* The context of the byte after b, whose context was ctx (model 1). */
static inline unsigned next_ctx(unsigned ctx, uint8_t b)
{
	return (b & 0x80) ? (ctx < FMT_ANS_CTX - 1 ? ctx + 1 : ctx) : 0;
}

/* -log2(f / ANS_M) in 1/256 bits, for f in [1, ANS_M] (a few hundred
 * calls per column: no table, nothing shared between threads). */
static inline uint64_t cost_of(unsigned f)
{
	return (uint64_t)lrint(256.0 * log2((double)ANS_M / f));
}

/* Scales counts (total > 0) to frequencies summing to ANS_M, every
 * present symbol at least 1. */
static void normalise(const uint32_t *cnt, uint64_t total, uint16_t *freq)
{
	int64_t sum = 0;
	unsigned big = 0;

	for (unsigned s = 0; s < 256; s++) {
		uint64_t f = cnt[s] ? cnt[s] * (uint64_t)ANS_M / total : 0;

		if (cnt[s] && f == 0)
			f = 1;
		freq[s] = (uint16_t)f;
		sum += (int64_t)f;
		if (freq[s] > freq[big])
			big = s;
	}
	if ((int64_t)freq[big] - (sum - ANS_M) >= 1) {
		freq[big] = (uint16_t)(freq[big] - (sum - ANS_M));
		return;
	}
	/* many rare symbols rounded up: take from every large one */
	while (sum > ANS_M) {
		for (unsigned s = 0; s < 256 && sum > ANS_M; s++)
			if (freq[s] > 1) {
				freq[s]--;
				sum--;
			}
	}
}

/* Bits (1/256) of coding the counts with freq, plus the table's bytes. */
static uint64_t model_cost(const uint32_t *cnt, const uint16_t *freq,
			   uint64_t *table_bytes)
{
	uint64_t c = 0;
	unsigned prev = 0, first = 1, nsym = 0;

	for (unsigned s = 0; s < 256; s++) {
		if (!freq[s])
			continue;
		c += (uint64_t)cnt[s] * cost_of(freq[s]);
		*table_bytes += fmt_varint_len(s - (first ? 0 : prev + 1)) +
				fmt_varint_len(freq[s] - 1u);
		prev = s;
		first = 0;
		nsym++;
	}
	*table_bytes += fmt_varint_len(nsym);
	return c;
}

/* Serialises the model's tables; returns bytes written. */
static size_t put_tables(const struct ans_model *m, uint8_t *out)
{
	uint8_t *p = out;

	*p++ = (uint8_t)(m->nctx == 1 ? 0 : 1);
	for (unsigned c = 0; c < m->nctx; c++) {
		unsigned nsym = 0, prev = 0, first = 1;

		for (unsigned s = 0; s < 256; s++)
			nsym += m->freq[c][s] != 0;
		p += fmt_put_varint(p, nsym);
		for (unsigned s = 0; s < 256; s++) {
			if (!m->freq[c][s])
				continue;
			p += fmt_put_varint(p, s - (first ? 0 : prev + 1));
			p += fmt_put_varint(p, m->freq[c][s] - 1u);
			prev = s;
			first = 0;
		}
	}
	return (size_t)(p - out);
}

static void model_prepare(struct ans_model *m)
{
	for (unsigned c = 0; c < m->nctx; c++) {
		unsigned st = 0;

		for (unsigned s = 0; s < 256; s++) {
			unsigned f = m->freq[c][s];

			m->start[c][s] = (uint16_t)st;
			st += f;
			m->rcp[c][s] = f >= 2 ? UINT64_MAX / f + 1 : 0;
		}
	}
}

/* One encoding step of state *x with symbol s of context c; words are
 * written downwards from *wp. */
static inline void enc_put(const struct ans_model *m, uint32_t *x,
			   uint16_t **wp, unsigned c, uint8_t s)
{
	uint32_t f = m->freq[c][s], q;
	uint32_t xv = *x;

	if (xv >= ((uint64_t)f << (32 - FMT_ANS_BITS))) {
		*--(*wp) = (uint16_t)xv;
		xv >>= 16;
	}
	q = f == 1 ? xv : (uint32_t)(((unsigned __int128)xv * m->rcp[c][s]) >> 64);
	*x = (q << FMT_ANS_BITS) + (xv - q * f) + m->start[c][s];
}

size_t fmt_ans_encode(const uint8_t *in, size_t len, uint8_t *out,
		      size_t limit, uint8_t *tmp)
{
	uint32_t cnt[FMT_ANS_CTX + 1][256];
	struct ans_model m;
	uint64_t total[FMT_ANS_CTX] = { 0 }, cost0 = 0, cost1 = 0, tb0 = 0, tb1 = 0;
	uint16_t *wp, *wend;
	uint32_t x[2] = { ANS_L, ANS_L };
	unsigned ctx = 0;
	size_t hl, nw;

	if (len < 16)
		return 0;
	memset(cnt, 0, sizeof(cnt));
	for (size_t i = 0; i < len; i++) {
		cnt[ctx][in[i]]++;
		ctx = next_ctx(ctx, in[i]);
	}
	for (unsigned c = 0; c < FMT_ANS_CTX; c++)
		for (unsigned s = 0; s < 256; s++) {
			cnt[FMT_ANS_CTX][s] += cnt[c][s];
			total[c] += cnt[c][s];
		}
	/* both models' sizes; keep the smaller */
	memset(&m, 0, sizeof(m));
	normalise(cnt[FMT_ANS_CTX], len, m.freq[0]);
	cost0 = model_cost(cnt[FMT_ANS_CTX], m.freq[0], &tb0);
	for (unsigned c = 0; c < FMT_ANS_CTX; c++) {
		uint16_t f[256] = { 0 };

		if (total[c]) {
			normalise(cnt[c], total[c], f);
			cost1 += model_cost(cnt[c], f, &tb1);
		} else {
			tb1++;
		}
	}
	cost0 = cost0 / 2048 + tb0;
	cost1 = cost1 / 2048 + tb1;
	if ((cost0 < cost1 ? cost0 : cost1) + 16 >= limit)
		return 0;
	if (cost1 < cost0) {
		m.nctx = FMT_ANS_CTX;
		for (unsigned c = 0; c < FMT_ANS_CTX; c++) {
			memset(m.freq[c], 0, sizeof(m.freq[c]));
			if (total[c])
				normalise(cnt[c], total[c], m.freq[c]);
		}
	} else {
		m.nctx = 1;
	}
	model_prepare(&m);
	hl = put_tables(&m, out);
	/* contexts forwards into tmp, then the symbols backwards */
	if (m.nctx > 1) {
		ctx = 0;
		for (size_t i = 0; i < len; i++) {
			tmp[i] = (uint8_t)ctx;
			ctx = next_ctx(ctx, in[i]);
		}
	}
	wend = (uint16_t *)(void *)(tmp + ((len + 1) & ~(size_t)1)) + len + 8;
	wp = wend;
	for (size_t i = len; i-- > 0;)
		enc_put(&m, &x[i & 1], &wp, m.nctx > 1 ? tmp[i] : 0, in[i]);
	nw = (size_t)(wend - wp);
	if (hl + 8 + nw * 2 >= limit)
		return 0;
	fmt_put32(out + hl, x[0]);
	fmt_put32(out + hl + 4, x[1]);
	for (size_t i = 0; i < nw; i++)
		fmt_put16(out + hl + 8 + 2 * i, wp[i]);
	return hl + 8 + nw * 2;
}

/* Reads the model's tables into the decoding tables; returns the bytes
 * read or 0 if they are malformed. */
static size_t get_tables(struct fmt_ans_dec *t, const uint8_t *in, size_t inlen,
			 unsigned *nctx)
{
	const uint8_t *p = in, *end = in + inlen;

	if (inlen < 1 || in[0] > 1)
		return 0;
	*nctx = in[0] ? FMT_ANS_CTX : 1;
	p++;
	for (unsigned c = 0; c < *nctx; c++) {
		uint64_t nsym, gap, f;
		unsigned s = 0, st = 0;

		if (fmt_get_varint(&p, end, &nsym) || nsym > 256)
			return 0;
		for (uint64_t k = 0; k < nsym; k++) {
			if (fmt_get_varint(&p, end, &gap) ||
			    fmt_get_varint(&p, end, &f))
				return 0;
			if (gap > 255 || s + gap > 255 || f >= ANS_M ||
			    st + f + 1 > ANS_M)
				return 0;
			s += (unsigned)gap;
			for (unsigned j = 0; j <= f; j++)
				t->tab[c][st + j] = s | (uint32_t)f << 8 |
						    (uint32_t)j << 20;
			st += (unsigned)f + 1;
			s++;
		}
		/* a used context sums to 2^12; an empty one must stay unused:
		 * its slots decode as an impossible symbol */
		if (nsym && st != ANS_M)
			return 0;
		if (!nsym)
			for (unsigned j = 0; j < ANS_M; j++)
				t->tab[c][j] = ANS_NONE;
	}
	return (size_t)(p - in);
}

int fmt_ans_decode(struct fmt_ans_dec *t, const uint8_t *in, size_t inlen,
		   uint8_t *out, size_t want)
{
	static const uint8_t nxt1[FMT_ANS_CTX][2] = { { 0, 1 }, { 0, 2 },
						      { 0, 3 }, { 0, 3 } };
	static const uint8_t nxt0[FMT_ANS_CTX][2] = { { 0 } };
	const uint8_t (*nxt)[2];
	const uint8_t *p, *end = in + inlen;
	unsigned nctx, ctx = 0;
	uint32_t x0, x1;
	size_t hl, i;

	hl = get_tables(t, in, inlen, &nctx);
	if (!hl || inlen - hl < 8)
		return IST_ECORRUPT;
	nxt = nctx > 1 ? nxt1 : nxt0;
	p = in + hl;
	x0 = fmt_get32(p);
	x1 = fmt_get32(p + 4);
	p += 8;
	if (x0 < ANS_L || x1 < ANS_L || (end - p) % 2)
		return IST_ECORRUPT;
#define ANS_STEP(x)                                                            \
	do {                                                                   \
		uint32_t e = t->tab[ctx][(x) & (ANS_M - 1)];                   \
		uint8_t b;                                                     \
                                                                               \
		if (e == ANS_NONE)                                             \
			return IST_ECORRUPT;                                   \
		b = (uint8_t)e;                                                \
		(x) = (((e >> 8) & (ANS_M - 1)) + 1) * ((x) >> FMT_ANS_BITS) + \
		      (e >> 20);                                               \
		if ((x) < ANS_L) {                                             \
			if (p >= end)                                          \
				return IST_ECORRUPT;                           \
			(x) = (x) << 16 | fmt_get16(p);                        \
			p += 2;                                                \
		}                                                              \
		out[i] = b;                                                    \
		ctx = nxt[ctx][b >> 7];                                        \
	} while (0)
	for (i = 0; i + 1 < want; i += 2) {
		ANS_STEP(x0);
		i++;
		ANS_STEP(x1);
		i--;
	}
	if (i < want)
		ANS_STEP(x0);
#undef ANS_STEP
	if (p != end || x0 != ANS_L || x1 != ANS_L)
		return IST_ECORRUPT;
	return 0;
}
