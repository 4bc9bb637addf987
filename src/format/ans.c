/* SPDX-License-Identifier: MIT */
/* ans.c - the ANS column storage: a static rANS coder over a column's bytes. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

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

/* Model 2 codes the first `prefix` bytes (HIST offset symbols) with a
 * table of their own, index FMT_ANS_PRE, and the rest as model 1. */
#define FMT_ANS_PRE FMT_ANS_CTX

/*
 * IST 1.4's models: 3 is model 0 with four states; 4 has model 2's
 * tables (the prefix's only when there is a prefix) but codes a varint
 * column's bytes plane by plane: the prefix, then the first byte of every
 * varint, then the second byte of those that have one, the third, and
 * the rest (bytes 3 and on, in column order).  The decoder then knows
 * every byte's table before decoding it, and four states in turn
 * decode four bytes at once; model 1's context chain (a byte's table
 * known only once the byte before it is decoded) cost ~5 ns a byte.
 */
#define ANS_WAYS 4 /* states of models 3 and 4 */

struct ans_model {
	unsigned kind;   /* 0 to 4 */
	unsigned nctx;   /* tables used: 1, 4 or 5 */
	uint64_t prefix; /* models 2 and 4 */
	uint64_t nvar;   /* model 4: varints after the prefix */
	uint16_t freq[FMT_ANS_CTX + 1][256];
	uint16_t start[FMT_ANS_CTX + 1][256];
	uint64_t rcp[FMT_ANS_CTX + 1][256]; /* ceil(2^64 / freq), freq >= 2 */
};

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

	*p++ = (uint8_t)m->kind;
	if (m->kind == 2 || m->kind == 4)
		p += fmt_put_varint(p, m->prefix);
	if (m->kind == 4)
		p += fmt_put_varint(p, m->nvar);
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

/*
 * The encoder's view of a symbol: C(x) = (x / f) * 2^12 + x % f + start
 * = x + bias + q * cmpl with q = x / f (a multiplication by rcp, the
 * high half of x * ceil(2^64 / f)), bias = start and cmpl = 2^12 - f;
 * for f = 1, rcp = 2^64 - 1 gives q = x - 1, made good by a bias of
 * start + 2^12 - 1.  xlim = (f << 20) - 1 (32 bits even for f = 2^12):
 * a state above it first gives its low 16 bits to the stream.
 */
struct ans_esym {
	uint64_t rcp;
	uint32_t xlim;
	uint16_t bias;
	uint16_t cmpl;
};

static void esym_prepare(const struct ans_model *m, struct ans_esym (*e)[256])
{
	for (unsigned c = 0; c < m->nctx; c++)
		for (unsigned s = 0; s < 256; s++) {
			unsigned f = m->freq[c][s];
			struct ans_esym *y = &e[c][s];

			y->xlim = (uint32_t)(((uint64_t)f << (32 - FMT_ANS_BITS)) - 1);
			y->cmpl = (uint16_t)(ANS_M - f);
			y->bias = (uint16_t)(m->start[c][s] + (f == 1 ? ANS_M - 1 : 0));
			y->rcp = f >= 2 ? m->rcp[c][s] : UINT64_MAX;
		}
}

/*
 * One encoding step of state x with the symbol y; words are written
 * downwards from *wp.  The renormalisation stores its word whether it is
 * needed or not and moves the pointer by the comparison: no branch to
 * mispredict (wp[-1] is scratch when nothing is written).
 */
static inline uint32_t enc_step(uint32_t x, const struct ans_esym *y,
				uint16_t **wp)
{
	uint32_t big = x > y->xlim;
	uint32_t q;

	(*wp)[-1] = (uint16_t)x;
	*wp -= big;
	x = big ? x >> 16 : x;
	q = (uint32_t)(((unsigned __int128)x * y->rcp) >> 64);
	return x + y->bias + q * y->cmpl;
}

/* Codes in[0..len) backwards, byte i with state x[i % 2] and context
 * ctx[i] (all 0 when ctx is NULL); returns the lowest word written. */
static uint16_t *enc_run(const struct ans_esym (*e)[256], const uint8_t *in,
			 const uint8_t *ctx, size_t len, uint32_t *x,
			 uint16_t *wend)
{
	uint16_t *wp = wend;
	uint32_t x0 = x[0], x1 = x[1];
	size_t i = len;

#define CTX(i) (ctx ? ctx[i] : 0)
	if (i & 1) {
		i--;
		x0 = enc_step(x0, &e[CTX(i)][in[i]], &wp);
	}
	while (i >= 2) {
		x1 = enc_step(x1, &e[CTX(i - 1)][in[i - 1]], &wp);
		x0 = enc_step(x0, &e[CTX(i - 2)][in[i - 2]], &wp);
		i -= 2;
	}
#undef CTX
	x[0] = x0;
	x[1] = x1;
	return wp;
}

/* Codes in[from..to) backwards with the one table e, byte i with state
 * x[i % 4] (models 3 and 4); returns the lowest word written. */
static uint16_t *enc4_run(const struct ans_esym *e, const uint8_t *in,
			  size_t from, size_t to, uint32_t *x, uint16_t *wp)
{
	size_t i = to;
	uint32_t x0, x1, x2, x3;

	for (; i > from && (i & 3); i--)
		x[(i - 1) & 3] = enc_step(x[(i - 1) & 3], &e[in[i - 1]], &wp);
	x0 = x[0];
	x1 = x[1];
	x2 = x[2];
	x3 = x[3];
	for (; i >= from + 4; i -= 4) {
		x3 = enc_step(x3, &e[in[i - 1]], &wp);
		x2 = enc_step(x2, &e[in[i - 2]], &wp);
		x1 = enc_step(x1, &e[in[i - 3]], &wp);
		x0 = enc_step(x0, &e[in[i - 4]], &wp);
	}
	x[0] = x0;
	x[1] = x1;
	x[2] = x2;
	x[3] = x3;
	for (; i > from; i--)
		x[(i - 1) & 3] = enc_step(x[(i - 1) & 3], &e[in[i - 1]], &wp);
	return wp;
}

/* Model 4's order of in[0..len): the prefix, then the planes (plane c:
 * the bytes of context c, in column order) into t; bound[c + 1] gets the
 * end of plane c in t (bound[0] the prefix's). */
static void to_planes(const uint8_t *in, size_t len, size_t prefix,
		      const uint64_t *total, uint8_t *t, size_t *bound)
{
	size_t at[FMT_ANS_CTX];
	unsigned pos = 0;

	memcpy(t, in, prefix);
	bound[0] = prefix;
	for (unsigned c = 0; c < FMT_ANS_CTX; c++) {
		at[c] = bound[c];
		bound[c + 1] = bound[c] + total[c];
	}
	for (size_t i = prefix; i < len; i++) {
		uint8_t b = in[i];

		t[at[pos]++] = b;
		pos = (pos + (pos < FMT_ANS_CTX - 1)) & (0u - (b >> 7));
	}
}

/*
 * The byte counts of a long column, per context (model 1's contexts in
 * cnt[0..FMT_ANS_CTX), the prefix's in cnt[FMT_ANS_PRE]; cnt zeroed by
 * the caller), each byte's context written to ctxs.  Two things slowed
 * the plain loop down: a column's skewed bytes (HIST symbols, the high
 * bytes of varints) increment the same few counters in a row, each
 * increment waiting for the one before it to reach memory, and the
 * context chained from byte to byte.  Here four sets of counters take
 * the bytes in turn, and the context comes from the continuation bits
 * of the three bytes before (a shift register and a table, not a chain
 * of compares).
 */
#define COUNT_SPLIT_MIN 4096
#define COUNT_WAYS 4

static void count_split(const uint8_t *in, size_t len, size_t prefix,
			uint8_t *ctxs, uint32_t (*cnt)[256])
{
	/* context by the continuation bits of bytes i-1 (bit 0), i-2, i-3 */
	static const uint8_t ctx_of[8] = { 0, 1, 0, 2, 0, 1, 0, 3 };
	uint32_t part[COUNT_WAYS][FMT_ANS_CTX + 1][256];
	unsigned c = 0;
	size_t i = 0;

	memset(part, 0, sizeof(part));
	for (; i + COUNT_WAYS <= prefix; i += COUNT_WAYS)
		for (unsigned k = 0; k < COUNT_WAYS; k++)
			part[k][FMT_ANS_PRE][in[i + k]]++;
	for (; i < prefix; i++)
		part[0][FMT_ANS_PRE][in[i]]++;
	for (; i + COUNT_WAYS <= len; i += COUNT_WAYS) {
#define COUNT1(k)                                                              \
	do {                                                                   \
		unsigned x = ctx_of[c & 7], b = in[i + (k)];                   \
                                                                               \
		ctxs[i + (k)] = (uint8_t)x;                                    \
		part[k][x][b]++;                                               \
		c = c << 1 | b >> 7;                                           \
	} while (0)
		COUNT1(0);
		COUNT1(1);
		COUNT1(2);
		COUNT1(3);
#undef COUNT1
	}
	for (; i < len; i++) {
		unsigned x = ctx_of[c & 7];

		ctxs[i] = (uint8_t)x;
		part[0][x][in[i]]++;
		c = c << 1 | in[i] >> 7;
	}
	for (unsigned x = 0; x <= FMT_ANS_CTX; x++)
		for (unsigned s = 0; s < 256; s++)
			cnt[x][s] = part[0][x][s] + part[1][x][s] +
				    part[2][x][s] + part[3][x][s];
}

size_t fmt_ans_encode(const uint8_t *in, size_t len, size_t prefix,
		      uint8_t *out, size_t limit, uint8_t *tmp)
{
	enum { ALL = FMT_ANS_CTX + 1 };
	uint32_t cnt[ALL + 1][256];
	struct ans_esym esym[FMT_ANS_CTX + 1][256];
	struct ans_model m;
	uint64_t total[ALL] = { 0 }, cost0 = 0, cost1 = 0, tb0 = 0, tb1 = 0;
	uint16_t *wp, *wend;
	uint32_t x[ANS_WAYS] = { ANS_L, ANS_L, ANS_L, ANS_L };
	unsigned ctx = 0, nt, nx;
	size_t hl, nw;
	/* model 4 needs whole varints (the column's last byte ends one) */
	int planes;

	if (len < 16)
		return 0;
	if (prefix > len)
		prefix = 0;
	planes = len == prefix || !(in[len - 1] & 0x80);
	memset(cnt, 0, sizeof(cnt));
	/* the contexts of model 1 go to tmp on the way */
	memset(tmp, FMT_ANS_PRE, prefix);
	if (len >= COUNT_SPLIT_MIN) {
		count_split(in, len, prefix, tmp, cnt);
	} else {
		for (size_t i = 0; i < prefix; i++)
			cnt[FMT_ANS_PRE][in[i]]++;
		for (size_t i = prefix; i < len; i++) {
			uint8_t b = in[i];

			tmp[i] = (uint8_t)ctx;
			cnt[ctx][b]++;
			/* model 1's next context: the continuation bytes
			 * (>= 0x80) met in a row, at most 3 */
			ctx = (ctx + (ctx < FMT_ANS_CTX - 1)) & (0u - (b >> 7));
		}
	}
	nt = prefix ? FMT_ANS_CTX + 1 : FMT_ANS_CTX;
	for (unsigned c = 0; c < ALL; c++)
		for (unsigned s = 0; s < 256; s++) {
			cnt[ALL][s] += cnt[c][s];
			total[c] += cnt[c][s];
		}
	/* the sizes of model 0 and of model 1 (2 with a prefix); keep the
	 * smaller */
	memset(&m, 0, sizeof(m));
	normalise(cnt[ALL], len, m.freq[0]);
	cost0 = model_cost(cnt[ALL], m.freq[0], &tb0);
	for (unsigned c = 0; c < nt; c++) {
		uint16_t f[256] = { 0 };

		if (total[c]) {
			normalise(cnt[c], total[c], f);
			cost1 += model_cost(cnt[c], f, &tb1);
		} else {
			tb1++;
		}
	}
	/* models 3 and 4 (IST 1.4): two more states */
	cost0 = cost0 / 2048 + tb0 + 8;
	cost1 = cost1 / 2048 + tb1 + fmt_varint_len(prefix) +
		(planes ? 8 + fmt_varint_len(total[0]) : 0);
	if ((cost0 < cost1 ? cost0 : cost1) + 16 >= limit)
		return 0;
	if (cost1 < cost0) {
		m.kind = planes ? 4 : prefix ? 2 : 1;
		m.nctx = nt;
		m.prefix = prefix;
		m.nvar = total[0];
		for (unsigned c = 0; c < nt; c++) {
			memset(m.freq[c], 0, sizeof(m.freq[c]));
			if (total[c])
				normalise(cnt[c], total[c], m.freq[c]);
		}
	} else {
		m.kind = 3;
		m.nctx = 1;
	}
	model_prepare(&m);
	esym_prepare(&m, esym);
	hl = put_tables(&m, out);
	/* the symbols backwards, words downwards from wend (at most one
	 * per symbol; tmp keeps the contexts or the planes below them) */
	wend = (uint16_t *)(void *)(tmp + ((len + 1) & ~(size_t)1)) + len + 8;
	if (m.kind == 3) {
		nx = ANS_WAYS;
		wp = enc4_run(esym[0], in, 0, len, x, wend);
	} else if (m.kind == 4) {
		size_t bound[FMT_ANS_CTX + 1];

		nx = ANS_WAYS;
		to_planes(in, len, prefix, total, tmp, bound);
		wp = enc4_run(esym[FMT_ANS_CTX - 1], tmp, bound[FMT_ANS_CTX - 1],
			      len, x, wend);
		for (unsigned c = FMT_ANS_CTX - 1; c-- > 0;)
			wp = enc4_run(esym[c], tmp, bound[c], bound[c + 1], x, wp);
		wp = enc4_run(esym[FMT_ANS_PRE], tmp, 0, prefix, x, wp);
	} else {
		nx = 2;
		wp = enc_run(esym, in, tmp, len, x, wend);
	}
	nw = (size_t)(wend - wp);
	if (hl + 4 * nx + nw * 2 >= limit)
		return 0;
	for (unsigned k = 0; k < nx; k++)
		fmt_put32(out + hl + 4 * k, x[k]);
	hl += 4 * nx;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(out + hl, wp, nw * 2);
#else
	for (size_t i = 0; i < nw; i++)
		fmt_put16(out + hl + 2 * i, wp[i]);
#endif
	return hl + nw * 2;
}

/* Reads the model's tables into the decoding tables; returns the bytes
 * read or 0 if they are malformed. */
static size_t get_tables(struct fmt_ans_dec *t, const uint8_t *in, size_t inlen,
			 unsigned minor, struct ans_model *m)
{
	const uint8_t *p = in, *end = in + inlen;
	unsigned nctx;

	if (inlen < 1 || in[0] > (minor >= FMT_MINOR_ANS4 ? 4 : 2))
		return 0;
	m->kind = in[0];
	p++;
	m->prefix = 0;
	m->nvar = 0;
	if ((m->kind == 2 || m->kind == 4) &&
	    fmt_get_varint(&p, end, &m->prefix))
		return 0;
	if (m->kind == 4 && fmt_get_varint(&p, end, &m->nvar))
		return 0;
	nctx = m->kind == 0 || m->kind == 3 ? 1 :
	       m->kind == 2 || m->prefix ? FMT_ANS_CTX + 1 : FMT_ANS_CTX;
	m->nctx = nctx;
	for (unsigned c = 0; c < nctx; c++) {
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

/* The state and word stream of a decoding. */
struct ans_dec_state {
	uint32_t x[ANS_WAYS]; /* models 0 to 2: x[0], x[1] */
	const uint8_t *p, *end;
};

/* One decoding step of state x with the table entry e (checked); a
 * state below ANS_L takes the next word. */
#define ANS_ADVANCE(x, e)                                                      \
	do {                                                                   \
		(x) = (((e) >> 8 & (ANS_M - 1)) + 1) * ((x) >> FMT_ANS_BITS) + \
		      ((e) >> 20);                                             \
		if ((x) < ANS_L) {                                             \
			if (p >= end)                                          \
				return IST_ECORRUPT;                           \
			(x) = (x) << 16 | fmt_get16(p);                        \
			p += 2;                                                \
		}                                                              \
	} while (0)

/*
 * Decodes out[from..to) with the one table tab: byte i with state
 * x[i % 2].  Two states in turn, so that the two dependency chains
 * overlap.
 */
static int dec_one(const uint32_t *tab, struct ans_dec_state *st, uint8_t *out,
		   size_t from, size_t to)
{
	const uint8_t *p = st->p, *end = st->end;
	uint32_t x0 = st->x[0], x1 = st->x[1];
	size_t i = from;

#define ANS_STEP(x)                                                            \
	do {                                                                   \
		uint32_t e = tab[(x) & (ANS_M - 1)];                           \
                                                                               \
		if (__builtin_expect(e == ANS_NONE, 0))                        \
			return IST_ECORRUPT;                                   \
		out[i] = (uint8_t)e;                                           \
		ANS_ADVANCE(x, e);                                             \
	} while (0)
	if (i < to && (i & 1)) {
		ANS_STEP(x1);
		i++;
	}
	for (; i + 1 < to; i += 2) {
		ANS_STEP(x0);
		i++;
		ANS_STEP(x1);
		i--;
	}
	if (i < to)
		ANS_STEP(x0);
#undef ANS_STEP
	st->p = p;
	st->x[0] = x0;
	st->x[1] = x1;
	return 0;
}

/*
 * Decodes out[from..to) with the varint contexts of model 1, starting in
 * context 0.  The context of a byte is known only once the byte before
 * it is decoded; so that this chain does not wait for a table load per
 * byte, the entries of both contexts the next byte can have (0, or one
 * more than this byte's) are loaded while this byte is decoded, and the
 * byte's continuation bit picks one.
 */
static int dec_ctx(const struct fmt_ans_dec *t, struct ans_dec_state *st,
		   uint8_t *out, size_t from, size_t to)
{
	static const uint8_t inc[FMT_ANS_CTX] = { 1, 2, 3, 3 };
	const uint8_t *p = st->p, *end = st->end;
	uint32_t x0 = st->x[0], x1 = st->x[1], e, ctx = 0;
	size_t i = from;

	if (i >= to)
		return 0;
	e = t->tab[0][((i & 1) ? x1 : x0) & (ANS_M - 1)];
	/* xn: the state of the next byte (final: it was advanced two
	 * steps ago) */
#define ANS_STEP(x, xn)                                                        \
	do {                                                                   \
		uint32_t c1 = inc[ctx], n0, n1, cont;                          \
                                                                               \
		if (__builtin_expect(e == ANS_NONE, 0))                        \
			return IST_ECORRUPT;                                   \
		n0 = t->tab[0][(xn) & (ANS_M - 1)];                            \
		n1 = t->tab[c1][(xn) & (ANS_M - 1)];                           \
		out[i] = (uint8_t)e;                                           \
		ANS_ADVANCE(x, e);                                             \
		cont = (e >> 7) & 1;                                           \
		ctx = cont ? c1 : 0;                                           \
		e = cont ? n1 : n0;                                            \
	} while (0)
	if (i & 1) {
		ANS_STEP(x1, x0);
		i++;
	}
	for (; i + 1 < to; i += 2) {
		ANS_STEP(x0, x1);
		i++;
		ANS_STEP(x1, x0);
		i--;
	}
	if (i < to)
		ANS_STEP(x0, x1);
#undef ANS_STEP
	st->p = p;
	st->x[0] = x0;
	st->x[1] = x1;
	return 0;
}

/*
 * Models 3 and 4: decodes bytes from..to of the coded order with the one
 * table tab into dst[0..to - from), byte i with state x[i % 4]: four
 * dependency chains that overlap.  A table is either unused (every slot
 * ANS_NONE, refused here once) or has a symbol in every slot: no check
 * per byte.
 */
static int dec4(const uint32_t *tab, struct ans_dec_state *st, uint8_t *dst,
		size_t from, size_t to)
{
	const uint8_t *p = st->p, *end = st->end;
	uint32_t x0, x1, x2, x3;
	size_t i = from;

	if (from < to && tab[0] == ANS_NONE)
		return IST_ECORRUPT;
#define ANS_STEP(x, k)                                                         \
	do {                                                                   \
		uint32_t e = tab[(x) & (ANS_M - 1)];                           \
                                                                               \
		dst[i - from + (k)] = (uint8_t)e;                              \
		ANS_ADVANCE(x, e);                                             \
	} while (0)
	for (; i < to && (i & 3); i++)
		ANS_STEP(st->x[i & 3], 0);
	x0 = st->x[0];
	x1 = st->x[1];
	x2 = st->x[2];
	x3 = st->x[3];
	/*
	 * While 8 bytes of words are left (at most one word per state), a
	 * round of the four states loads those 8 bytes at once, before it
	 * knows which states need a word, and each state then takes the
	 * word its place among the renormalising states gives it: no branch
	 * (the renormalisation's branch mispredicted about every other byte
	 * of a column's near-random low bytes) and no load waiting for the
	 * states' comparisons.
	 */
#define ANS_FAST(x, k)                                                         \
	do {                                                                   \
		uint32_t e = tab[(x) & (ANS_M - 1)];                           \
                                                                               \
		dst[i - from + (k)] = (uint8_t)e;                              \
		(x) = ((e >> 8 & (ANS_M - 1)) + 1) * ((x) >> FMT_ANS_BITS) +   \
		      (e >> 20);                                               \
	} while (0)
#define ANS_RENORM(x)                                                          \
	do {                                                                   \
		uint32_t lo = (x) < ANS_L;                                     \
		uint32_t w = (uint32_t)(words >> used) & 0xffff;               \
                                                                               \
		(x) = lo ? (x) << 16 | w : (x);                                \
		used += 16 * lo;                                               \
	} while (0)
	for (; i + 4 <= to && end - p >= 8; i += 4) {
		uint32_t used = 0;
		uint64_t words;

		memcpy(&words, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		words = (uint64_t)fmt_get16(p) | (uint64_t)fmt_get16(p + 2) << 16 |
			(uint64_t)fmt_get16(p + 4) << 32 |
			(uint64_t)fmt_get16(p + 6) << 48;
#endif
		ANS_FAST(x0, 0);
		ANS_FAST(x1, 1);
		ANS_FAST(x2, 2);
		ANS_FAST(x3, 3);
		ANS_RENORM(x0);
		ANS_RENORM(x1);
		ANS_RENORM(x2);
		ANS_RENORM(x3);
		p += used / 8;
	}
#undef ANS_RENORM
#undef ANS_FAST
	for (; i + 4 <= to; i += 4) {
		ANS_STEP(x0, 0);
		ANS_STEP(x1, 1);
		ANS_STEP(x2, 2);
		ANS_STEP(x3, 3);
	}
	st->x[0] = x0;
	st->x[1] = x1;
	st->x[2] = x2;
	st->x[3] = x3;
	for (; i < to; i++)
		ANS_STEP(st->x[i & 3], 0);
#undef ANS_STEP
	st->p = p;
	return 0;
}
#undef ANS_ADVANCE

/* The continuation bytes (bit 7 set) of b[0..n). */
static size_t count_cont(const uint8_t *b, size_t n)
{
	size_t c = 0, i = 0;

	/* 8 at a time (gcc -O2 does not vectorise the plain loop, and
	 * __builtin_popcountll is a libgcc call without -mpopcnt) */
	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		/* the 8 bits 7 as 0/1 bytes, summed into the top byte */
		c += (size_t)((((w >> 7) & 0x0101010101010101ull) *
			       0x0101010101010101ull) >> 56);
	}
	for (; i < n; i++)
		c += b[i] >> 7;
	return c;
}

/*
 * Model 4 after the prefix: the planes decoded one after the other (the
 * length of each known from the continuation bits of the one before,
 * the last's from want), then put back in column order at out.
 */
static int dec_planes(struct fmt_ans_dec *t, const struct ans_model *m,
		      struct ans_dec_state *st, uint8_t *out, size_t want)
{
	size_t rest = want - (size_t)m->prefix, from = (size_t)m->prefix;
	size_t n[FMT_ANS_CTX], used = 0;
	const uint8_t *q0, *q1, *q2, *q3, *e3;
	uint8_t *pl, *o = out + m->prefix;
	int ret;

	if (m->nvar > rest)
		return IST_ECORRUPT;
	/* (+ 2: the reordering below reads a byte past planes 1 and 2) */
	if (t->planes_cap < rest + 2) {
		uint8_t *b = realloc(t->planes, rest + 2);

		if (!b)
			return -ENOMEM;
		t->planes = b;
		t->planes_cap = rest + 2;
	}
	pl = t->planes;
	n[0] = (size_t)m->nvar;
	for (unsigned c = 0; c < FMT_ANS_CTX; c++) {
		if (c == FMT_ANS_CTX - 1)
			n[c] = rest - used;
		else if (c)
			n[c] = count_cont(pl + used - n[c - 1], n[c - 1]);
		if (n[c] > rest - used)
			return IST_ECORRUPT;
		ret = dec4(t->tab[c], st, pl + used, from + used,
			   from + used + n[c]);
		if (ret)
			return ret;
		used += n[c];
	}
	/* column order: a varint's byte k from plane k (k < 3), its bytes
	 * 3 and on from the last plane */
	q0 = pl;
	q1 = q0 + n[0];
	q2 = q1 + n[1];
	q3 = q2 + n[2];
	e3 = q3 + n[3];
	pl[rest] = pl[rest + 1] = 0;
	/*
	 * Without a branch for bytes 1 and 2 (the varints' lengths are data,
	 * a branch on them mispredicts): the next byte of planes 1 and 2 is
	 * written always and kept by moving o.  At least three varints left:
	 * what is written past this one is the next ones' room.
	 */
	for (size_t j = 0; j + 2 < n[0]; j++) {
		uint32_t b0 = *q0++, b1 = *q1, b2 = *q2, c0, c1;

		c0 = b0 >> 7;
		c1 = c0 & b1 >> 7;
		o[0] = (uint8_t)b0;
		o[1] = (uint8_t)b1;
		o[2] = (uint8_t)b2;
		q1 += c0;
		q2 += c1;
		o += 1 + c0 + c1;
		if (c1 & b2 >> 7) {
			do {
				if (q3 >= e3)
					return IST_ECORRUPT;
				*o++ = (uint8_t)(b2 = *q3++);
			} while (b2 & 0x80);
		}
	}
	for (size_t j = n[0] > 2 ? n[0] - 2 : 0; j < n[0]; j++) {
		uint8_t b = *q0++;

		*o++ = b;
		if (!(b & 0x80))
			continue;
		*o++ = b = *q1++;
		if (!(b & 0x80))
			continue;
		*o++ = b = *q2++;
		while (b & 0x80) {
			if (q3 >= e3)
				return IST_ECORRUPT;
			*o++ = b = *q3++;
		}
	}
	return q3 == e3 ? 0 : IST_ECORRUPT;
}

int fmt_ans_decode(struct fmt_ans_dec *t, const uint8_t *in, size_t inlen,
		   uint8_t *out, size_t want, unsigned minor)
{
	struct ans_dec_state st;
	struct ans_model m;
	unsigned nx;
	size_t hl;
	int ret;

	hl = get_tables(t, in, inlen, minor, &m);
	nx = m.kind >= 3 ? ANS_WAYS : 2;
	if (!hl || inlen - hl < 4 * nx || m.prefix > want)
		return IST_ECORRUPT;
	st.p = in + hl;
	st.end = in + inlen;
	for (unsigned k = 0; k < nx; k++) {
		st.x[k] = fmt_get32(st.p);
		st.p += 4;
		if (st.x[k] < ANS_L)
			return IST_ECORRUPT;
	}
	if ((st.end - st.p) % 2)
		return IST_ECORRUPT;
	switch (m.kind) {
	case 3:
		ret = dec4(t->tab[0], &st, out, 0, want);
		break;
	case 4:
		ret = dec4(t->tab[FMT_ANS_PRE], &st, out, 0, (size_t)m.prefix);
		if (!ret)
			ret = dec_planes(t, &m, &st, out, want);
		break;
	default:
		ret = dec_one(t->tab[FMT_ANS_PRE], &st, out, 0, (size_t)m.prefix);
		if (!ret && m.kind)
			ret = dec_ctx(t, &st, out, (size_t)m.prefix, want);
		else if (!ret)
			ret = dec_one(t->tab[0], &st, out, (size_t)m.prefix, want);
	}
	if (ret)
		return ret;
	if (st.p != st.end)
		return IST_ECORRUPT;
	for (unsigned k = 0; k < nx; k++)
		if (st.x[k] != ANS_L)
			return IST_ECORRUPT;
	return 0;
}

void fmt_ans_dec_release(struct fmt_ans_dec *t)
{
	free(t->planes);
	t->planes = NULL;
	t->planes_cap = 0;
}
