/* SPDX-License-Identifier: MIT */
/* ans.c - the ANS column storage: a static rANS coder over a column's bytes. */
#include "config.h"

#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
/* A decoding table entry: symbol, slot - start (12 bits, at most
 * frequency - 1), frequency - 1 (12 bits, on top: one shift for the
 * multiplication).  ANS_NONE (slot - start 4095 with frequency 1) is no
 * symbol: the slots of an unused context. */
#define ANS_NONE 0x000fff00u

/* Model 2 codes the first `prefix` bytes (HIST offset symbols) with a
 * table of their own, index FMT_ANS_PRE, and the rest as model 1. */
#define FMT_ANS_PRE FMT_ANS_CTX

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
static size_t put_tables(const struct fmt_ans_plan *m, uint8_t *out)
{
	uint8_t *p = out;

	*p++ = (uint8_t)m->kind;
	if (m->kind == 2)
		p += fmt_put_varint(p, m->prefix);
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

static void esym_prepare(const struct fmt_ans_plan *m,
			 struct ans_esym (*e)[256])
{
	for (unsigned c = 0; c < m->nctx; c++) {
		unsigned st = 0;

		for (unsigned s = 0; s < 256; s++) {
			unsigned f = m->freq[c][s];
			struct ans_esym *y = &e[c][s];

			y->xlim = (uint32_t)(((uint64_t)f << (32 - FMT_ANS_BITS)) - 1);
			y->cmpl = (uint16_t)(ANS_M - f);
			y->bias = (uint16_t)(st + (f == 1 ? ANS_M - 1 : 0));
			y->rcp = f >= 2 ? UINT64_MAX / f + 1 : UINT64_MAX;
			st += f;
		}
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
 * ctx[i] (all 0 when ctx is NULL); returns the lowest word written.
 * Inlined into each call, whose constant ctx (NULL or not) removes the
 * test from the loop. */
static inline __attribute__((always_inline)) uint16_t *
enc_run(const struct ans_esym (*e)[256], const uint8_t *in,
	const uint8_t *ctx, size_t len, uint32_t *x, uint16_t *wend)
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

size_t fmt_ans_plan(struct fmt_ans_plan *m, const uint8_t *in, size_t len,
		    size_t prefix, size_t limit, uint8_t *tmp)
{
	enum { ALL = FMT_ANS_CTX + 1 };
	uint32_t cnt[ALL + 1][256];
	uint64_t total[ALL] = { 0 }, cost0 = 0, cost1 = 0, tb0 = 0, tb1 = 0;
	unsigned ctx = 0, nt;

	m->len = 0;
	if (len < 16)
		return 0;
	if (prefix > len)
		prefix = 0;
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
	memset(m->freq[0], 0, sizeof(m->freq[0]));
	normalise(cnt[ALL], len, m->freq[0]);
	cost0 = model_cost(cnt[ALL], m->freq[0], &tb0);
	for (unsigned c = 0; c < nt; c++) {
		uint16_t f[256] = { 0 };

		if (total[c]) {
			normalise(cnt[c], total[c], f);
			cost1 += model_cost(cnt[c], f, &tb1);
		} else {
			tb1++;
		}
	}
	cost0 = cost0 / 2048 + tb0;
	cost1 = cost1 / 2048 + tb1 + fmt_varint_len(prefix);
	if ((cost0 < cost1 ? cost0 : cost1) + 16 >= limit)
		return 0;
	if (cost1 < cost0) {
		m->kind = prefix ? 2 : 1;
		m->nctx = nt;
		m->prefix = prefix;
		for (unsigned c = 0; c < nt; c++) {
			memset(m->freq[c], 0, sizeof(m->freq[c]));
			if (total[c])
				normalise(cnt[c], total[c], m->freq[c]);
		}
	} else {
		m->kind = 0;
		m->nctx = 1;
		m->prefix = 0;
	}
	m->len = len;
	/* the model byte and the two states besides the tables and the
	 * symbols' bits */
	return (cost0 < cost1 ? cost0 : cost1) + 9;
}

size_t fmt_ans_write(const struct fmt_ans_plan *m, const uint8_t *in,
		     uint8_t *out, size_t limit, uint8_t *tmp)
{
	struct ans_esym esym[FMT_ANS_CTX + 1][256];
	uint16_t *wp, *wend;
	uint32_t x[2] = { ANS_L, ANS_L };
	size_t hl, nw, len = m->len;

	if (!len)
		return 0;
	esym_prepare(m, esym);
	hl = put_tables(m, out);
	/* the symbols backwards, words downwards from wend (at most one
	 * per symbol; tmp keeps the contexts below them) */
	wend = (uint16_t *)(void *)(tmp + ((len + 1) & ~(size_t)1)) + len + 8;
	if (m->kind)
		wp = enc_run(esym, in, tmp, len, x, wend);
	else
		wp = enc_run(esym, in, NULL, len, x, wend);
	nw = (size_t)(wend - wp);
	if (hl + 8 + nw * 2 >= limit)
		return 0;
	fmt_put32(out + hl, x[0]);
	fmt_put32(out + hl + 4, x[1]);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(out + hl + 8, wp, nw * 2);
#else
	for (size_t i = 0; i < nw; i++)
		fmt_put16(out + hl + 8 + 2 * i, wp[i]);
#endif
	return hl + 8 + nw * 2;
}

size_t fmt_ans_encode(const uint8_t *in, size_t len, size_t prefix,
		      uint8_t *out, size_t limit, uint8_t *tmp)
{
	struct fmt_ans_plan m;

	if (!fmt_ans_plan(&m, in, len, prefix, limit, tmp))
		return 0;
	return fmt_ans_write(&m, in, out, limit, tmp);
}

/*
 * The decoding table entries of a symbol s of frequency f + 1 starting at
 * slot st of row: slots st..st + f, each with its slot - start j.  With
 * SSE2 four entries a store: the last vector may run past the symbol
 * into the next one's slots (which that symbol writes after) when it
 * stays in the row; past the row, the last entries one by one.  (One by
 * one, the 12 rows a wsrch chunk's columns take were 3-4 % of its
 * decode.)
 */
static inline void fill_symbol(uint32_t *row, unsigned st, unsigned s,
			       unsigned f)
{
	const uint32_t base = s | (uint32_t)f << 20;
	unsigned j = 0;
#ifdef __SSE2__
	unsigned n = f + 1, up = (n + 3) & ~3u;
	__m128i v = _mm_add_epi32(_mm_set1_epi32((int)base),
				  _mm_setr_epi32(0, 1 << 8, 2 << 8, 3 << 8));
	const __m128i step = _mm_set1_epi32(4 << 8);

	if (st + up <= ANS_M)
		n = up;
	for (; j + 4 <= n; j += 4) {
		_mm_storeu_si128((__m128i *)(void *)(row + st + j), v);
		v = _mm_add_epi32(v, step);
	}
#endif
	for (; j <= f; j++)
		row[st + j] = base | (uint32_t)j << 8;
}

/* Reads the model's tables into the decoding tables; returns the bytes
 * read or 0 if they are malformed. */
static size_t get_tables(struct fmt_ans_dec *t, const uint8_t *in, size_t inlen,
			 unsigned *kind, uint64_t *prefix)
{
	const uint8_t *p = in, *end = in + inlen;
	unsigned nctx;

	if (inlen < 1 || in[0] > 2)
		return 0;
	*kind = in[0];
	nctx = *kind == 0 ? 1 : *kind == 1 ? FMT_ANS_CTX : FMT_ANS_CTX + 1;
	p++;
	*prefix = 0;
	if (*kind == 2 && fmt_get_varint(&p, end, prefix))
		return 0;
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
			fill_symbol(t->tab[c], st, s, (unsigned)f);
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
	uint32_t x[2];
	const uint8_t *p, *end;
};

/* One decoding step of state x with the table entry e (checked); a
 * state below ANS_L takes the next word. */
#define ANS_ADVANCE(x, e)                                                      \
	do {                                                                   \
		(x) = ((e) >> 20) * ((x) >> FMT_ANS_BITS) +                    \
		      ((x) >> FMT_ANS_BITS) + ((e) >> 8 & (ANS_M - 1));        \
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
#undef ANS_ADVANCE

/*
 * Several columns at a time.  In one column the bytes form a chain (each
 * byte's table known only once the byte before it is decoded, and each
 * state waits for its own step before), which leaves the core idle part
 * of the time.  Two lanes decode two columns in turn, byte by byte, so
 * that one column's chain runs while the other's waits (the chunks of
 * the synthetic trace, wsrch and tencent: 5-15 % less time in ANS).  A lane takes its columns one after the
 * other, each in up to two segments (the prefix with its table, then the
 * rest with model 1's contexts or model 0's one table); a segment of
 * model 0 or a prefix is the same loop with no next context (inc0).
 */

/*
 * c ? a : b without a branch.  The compilers turn some of the lanes'
 * selects into branches (gcc 12: the continuation bit's, the
 * renormalisations'), which mispredict on random bits; on x86-64 a
 * cmov, elsewhere (or built with FMT_ANS_PORTABLE, as
 * tests/unit/test_ans_portable does) a mask.
 */
static inline uint32_t ans_sel(uint32_t c, uint32_t a, uint32_t b)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(FMT_ANS_PORTABLE)
	__asm__("test %1, %1\n\tcmovne %2, %0" : "+r"(b) : "r"(c), "rm"(a) : "cc");
	return b;
#else
	uint32_t m = 0u - (uint32_t)(c != 0);

	return (a & m) | (b & ~m);
#endif
}

/* A state after its step x: x << 16 | w if it is below ANS_L, else x;
 * the comparison straight into the cmov (through ans_sel() it would be
 * a setcc and a test more on the state's chain). */
static inline uint32_t ans_renorm(uint32_t x, uint32_t w)
{
	uint32_t t = x << 16 | w;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(FMT_ANS_PORTABLE)
	__asm__("cmp %2, %0\n\tcmovb %1, %0" : "+r"(x) : "r"(t), "i"(ANS_L) : "cc");
	return x;
#else
	return x < ANS_L ? t : x;
#endif
}

struct ans_lane {
	struct fmt_ans_dec *t;      /* this lane's tables */
	struct fmt_ans_job *job;    /* the column being decoded, or NULL */
	const uint32_t *tab;        /* the segment's context 0 table */
	uint32_t cmask;             /* ANS_CMASK with contexts, 0 without */
	uint32_t xa, xb;            /* the states of bytes i and i + 1 */
	uint32_t e;                 /* byte i's table entry */
	uint32_t c1;                /* byte i + 1's context if byte i is a
				     * continuation (0 without contexts) */
	const uint8_t *p, *end;     /* the next word, the column end */
	const uint8_t *lim;         /* words readable unchecked up to it */
	uint8_t *out;
	size_t i, to;               /* the segment: bytes [i, to) */
	size_t rest;                /* the second segment's end, or 0 */
	unsigned kind;
};

/* Model 1's contexts: after a continuation byte (>= 0x80) the next one
 * up to FMT_ANS_CTX - 1, else 0; c1 (the next byte's context should
 * this one continue) is then min(ctx + 1, 3), or 1 after a byte that
 * ends its varint.  ANS_CMASK keeps it, 0 makes it 0 (no contexts). */
#define ANS_CMASK (FMT_ANS_CTX - 1)
/* Keeps the compiler from folding (f - 1) * q + q + j into f * q + j,
 * an addition more on the state's chain before the multiplication. */
#if defined(__GNUC__)
#define ANS_OPAQUE(v) __asm__("" : "+r"(v))
#else
#define ANS_OPAQUE(v) ((void)0)
#endif
#define ANS_C1_NEXT(c1, cont, cm)                                              \
	((cm) ? ans_sel(cont, (c1) + ((c1) < FMT_ANS_CTX - 1), 1) : 0u)

/* Starts the segment of lane l's column from byte l->i to byte to, with
 * the table row tab (cmask: contexts after it, or 0: tab alone). */
static void lane_segment(struct ans_lane *l, const uint32_t *tab,
			 uint32_t cmask, size_t to)
{
	l->tab = tab;
	l->cmask = cmask;
	l->to = to;
	l->c1 = cmask ? 1 : 0;
	l->e = tab[l->xa & (ANS_M - 1)];
}

/* Starts lane l on job j: its tables and states; 0 or IST_ECORRUPT. */
static int lane_start(struct ans_lane *l, struct fmt_ans_job *j)
{
	uint64_t prefix;
	size_t hl;

	l->job = j;
	hl = get_tables(l->t, j->in, j->inlen, &l->kind, &prefix);
	if (!hl || j->inlen - hl < 8 || prefix > j->want)
		return IST_ECORRUPT;
	l->p = j->in + hl;
	l->end = j->in + j->inlen;
	l->lim = j->limit && j->limit > l->end ? j->limit : l->end;
	l->xa = fmt_get32(l->p);
	l->xb = fmt_get32(l->p + 4);
	l->p += 8;
	if (l->xa < ANS_L || l->xb < ANS_L || (l->end - l->p) % 2)
		return IST_ECORRUPT;
	l->out = j->out;
	l->i = 0;
	if (prefix) {
		lane_segment(l, l->t->tab[FMT_ANS_PRE], 0, (size_t)prefix);
		l->rest = j->want;
	} else {
		lane_segment(l, l->t->tab[0], l->kind ? ANS_CMASK : 0,
			     j->want);
		l->rest = 0;
	}
	return 0;
}

/* After a segment: the next one, or the column's end checked; 0 or
 * IST_ECORRUPT. */
static int lane_next(struct ans_lane *l)
{
	if (l->rest) {
		lane_segment(l, l->t->tab[0], l->kind ? ANS_CMASK : 0, l->rest);
		l->rest = 0;
		return 0;
	}
	l->job = NULL;
	if (l->p != l->end || l->xa != ANS_L || l->xb != ANS_L)
		return IST_ECORRUPT;
	return 0;
}

/*
 * One byte of a lane, up to its renormalisation: byte i from the entry
 * e, into x (its state advanced; r: whether it takes a word); the
 * entries of byte i + 1 in its two possible contexts are loaded
 * meanwhile (state xb), and the continuation bit picks one.  CM: the
 * lane's cmask (a constant in the two-lane loops).
 */
#define LANE_STEP(tab, CM, xa, xb, e, c1, row1, out, x, r)                    \
	do {                                                                   \
		uint32_t k_ = (xb) & (ANS_M - 1), n0_, n1_, q_, j_, cont_;     \
                                                                               \
		if (__builtin_expect((e) == ANS_NONE, 0))                      \
			return IST_ECORRUPT;                                   \
		n0_ = (tab)[k_];                                               \
		n1_ = (CM) ? (row1)[k_] : n0_;                                 \
		*(out) = (uint8_t)(e);                                         \
		q_ = (xa) >> FMT_ANS_BITS;                                     \
		j_ = q_ + ((e) >> 8 & (ANS_M - 1));                            \
		ANS_OPAQUE(j_);                                                \
		(x) = ((e) >> 20) * q_ + j_;                                   \
		(r) = (x) < ANS_L;                                             \
		cont_ = (e) & 0x80;                                            \
		(c1) = ANS_C1_NEXT(c1, cont_, CM);                             \
		(row1) = (tab) + (c1) * ANS_M;                                 \
		(e) = (CM) ? ans_sel(cont_, n1_, n0_) : n0_;                   \
	} while (0)

__thread unsigned long fmt_ans_alone_bytes;

/* Runs lane l's segment to its end, checking every word. */
static int lane_run1(struct ans_lane *l)
{
	const uint32_t *tab = l->tab;
	const uint8_t *p = l->p, *end = l->end;
	uint32_t xa = l->xa, xb = l->xb, e = l->e, c1 = l->c1, cm = l->cmask;
	const uint32_t *row1 = tab + c1 * ANS_M;
	uint8_t *out = l->out;
	size_t i = l->i, to = l->to;

	fmt_ans_alone_bytes += to - i;

	for (; i < to; i++) {
		uint32_t x, r;

		LANE_STEP(tab, cm, xa, xb, e, c1, row1, out + i, x, r);
		if (r) {
			if (p >= end)
				return IST_ECORRUPT;
			x = x << 16 | fmt_get16(p);
			p += 2;
		}
		xa = xb;
		xb = x;
	}
	l->p = p;
	l->xa = xa;
	l->xb = xb;
	l->e = e;
	l->c1 = c1;
	l->i = i;
	return 0;
}

/*
 * Runs lanes a and b in turn, 2 * n bytes each (they have them, and the
 * words: at most 4 n bytes of each, readable).  No branch on the
 * renormalisations (about one byte in three of an offset column takes a
 * word, at random: a branch's mispredictions cost more than the
 * selects): the four bytes that two steps can take are read at once, the
 * first step's word is their low half, the second's the low or the high
 * half by whether the first took one.  One function per pair of cmasks
 * (constants): the lanes' live values then fit in registers.
 */
#define DEFINE_RUN2(name, CMA, CMB)                                            \
	static __attribute__((noinline)) int                                   \
	name(struct ans_lane *a, struct ans_lane *b, size_t n)                 \
	{                                                                      \
		const uint32_t *ta = a->tab, *tb = b->tab;                     \
		const uint8_t *pa = a->p, *pb = b->p;                          \
		uint32_t xaa = a->xa, xab = a->xb, ea = a->e, ca = a->c1;      \
		uint32_t xba = b->xa, xbb = b->xb, eb = b->e, cb = b->c1;      \
		uint8_t *oa = a->out + a->i, *ob = b->out + b->i;              \
		uint8_t *oend = oa + 2 * n;                                    \
		const uint32_t *ra = ta + ca * ANS_M, *rb = tb + cb * ANS_M;   \
                                                                               \
		for (; oa < oend; oa += 2, ob += 2) {                          \
			uint32_t wa = fmt_get32(pa), wb = fmt_get32(pb);       \
			uint32_t xa1, xa2, xb1, xb2, ra1, ra2, rb1, rb2;       \
                                                                               \
			LANE_STEP(ta, CMA, xaa, xab, ea, ca, ra, oa, xa1, ra1);    \
			LANE_STEP(tb, CMB, xba, xbb, eb, cb, rb, ob, xb1, rb1);    \
			xaa = ans_renorm(xa1, wa & 0xffff);                    \
			xba = ans_renorm(xb1, wb & 0xffff);                    \
			wa = ans_sel(ra1, wa >> 16, wa & 0xffff);              \
			wb = ans_sel(rb1, wb >> 16, wb & 0xffff);              \
			LANE_STEP(ta, CMA, xab, xaa, ea, ca, ra, oa + 1, xa2, ra2);\
			LANE_STEP(tb, CMB, xbb, xba, eb, cb, rb, ob + 1, xb2, rb2);\
			xab = ans_renorm(xa2, wa);                             \
			xbb = ans_renorm(xb2, wb);                             \
			pa += 2 * (ra1 + ra2);                                 \
			pb += 2 * (rb1 + rb2);                                 \
		}                                                              \
		a->p = pa;                                                     \
		a->xa = xaa;                                                   \
		a->xb = xab;                                                   \
		a->e = ea;                                                     \
		a->c1 = ca;                                                    \
		a->i += 2 * n;                                                 \
		b->p = pb;                                                     \
		b->xa = xba;                                                   \
		b->xb = xbb;                                                   \
		b->e = eb;                                                     \
		b->c1 = cb;                                                    \
		b->i += 2 * n;                                                 \
		return 0;                                                      \
	}
/*
 * Two lanes without contexts (model 0 and prefixes, as the synthetic
 * trace's columns): branches on the renormalisations measured faster
 * there (their words a few steps apart, well predicted), the same steps
 * otherwise.
 */
static __attribute__((noinline)) int
lane_run2_00(struct ans_lane *a, struct ans_lane *b, size_t n)
{
	const uint32_t *ta = a->tab, *tb = b->tab;
	const uint8_t *pa = a->p, *pb = b->p;
	uint32_t xaa = a->xa, xab = a->xb, ea = a->e, ca = 0;
	uint32_t xba = b->xa, xbb = b->xb, eb = b->e, cb = 0;
	uint8_t *oa = a->out + a->i, *ob = b->out + b->i;
	uint8_t *oend = oa + 2 * n;

#define RENORM_BR(x, p)                                                        \
	do {                                                                   \
		if ((x) < ANS_L) {                                             \
			(x) = (x) << 16 | fmt_get16(p);                        \
			(p) += 2;                                              \
		}                                                              \
	} while (0)
	for (; oa < oend; oa += 2, ob += 2) {
		uint32_t xa1, xa2, xb1, xb2, r;

		LANE_STEP(ta, 0, xaa, xab, ea, ca, ta, oa, xa1, r);
		RENORM_BR(xa1, pa);
		xaa = xa1;
		LANE_STEP(tb, 0, xba, xbb, eb, cb, tb, ob, xb1, r);
		RENORM_BR(xb1, pb);
		xba = xb1;
		LANE_STEP(ta, 0, xab, xaa, ea, ca, ta, oa + 1, xa2, r);
		RENORM_BR(xa2, pa);
		xab = xa2;
		LANE_STEP(tb, 0, xbb, xba, eb, cb, tb, ob + 1, xb2, r);
		RENORM_BR(xb2, pb);
		xbb = xb2;
		(void)r;
	}
#undef RENORM_BR
	a->p = pa;
	a->xa = xaa;
	a->xb = xab;
	a->e = ea;
	a->i += 2 * n;
	b->p = pb;
	b->xa = xba;
	b->xb = xbb;
	b->e = eb;
	b->i += 2 * n;
	return 0;
}
DEFINE_RUN2(lane_run2_cc, ANS_CMASK, ANS_CMASK)
DEFINE_RUN2(lane_run2_c0, ANS_CMASK, 0)

/* Runs two lanes for 2 * n bytes each, by their kinds of segment. */
static int lane_run2(struct ans_lane *a, struct ans_lane *b, size_t n)
{
	if (!a->cmask && !b->cmask)
		return lane_run2_00(a, b, n);
	if (!a->cmask)
		return lane_run2_c0(b, a, n);
	if (!b->cmask)
		return lane_run2_c0(a, b, n);
	return lane_run2_cc(a, b, n);
}

/* Gives lane l its next column while jobs are left; 0 or IST_ECORRUPT. */
static int lane_feed(struct ans_lane *l, struct fmt_ans_job *jobs, size_t n,
		     size_t *next)
{
	int ret;

	for (;;) {
		/* past the segments that are done (or empty) */
		while (l->job && l->i >= l->to) {
			ret = lane_next(l);
			if (ret)
				return ret;
		}
		if (l->job || *next >= n)
			return 0;
		ret = lane_start(l, &jobs[(*next)++]);
		if (ret)
			return ret;
	}
}

int fmt_ans_decode_jobs(struct fmt_ans_dec *const t[2],
			struct fmt_ans_job *jobs, size_t n)
{
	struct ans_lane lane[2];
	size_t next = 0;
	int ret;

	memset(lane, 0, sizeof(lane));
	lane[0].t = t[0];
	lane[1].t = t[1];
	for (;;) {
		struct ans_lane *a = &lane[0], *b = &lane[1];
		size_t k, m;

		ret = lane_feed(a, jobs, n, &next);
		if (!ret)
			ret = lane_feed(b, jobs, n, &next);
		if (ret)
			return ret;
		if (!a->job && !b->job)
			return 0;
		if (!a->job || !b->job) {
			/* one column left: alone, to the end */
			struct ans_lane *l = a->job ? a : b;

			ret = lane_run1(l);
			if (ret)
				return ret;
			continue;
		}
		/* as many pairs of bytes as both segments have and both
		 * streams can give without a check (a word a byte at most):
		 * up to the readable limit, past the column's end, so that
		 * a column coded in few words (tencent's times: 373 B for
		 * 50000 bytes) does not leave the other lane alone; a lane
		 * past its end is damaged, and its end's check says so */
		k = (a->to - a->i) / 2;
		m = (b->to - b->i) / 2;
		k = k < m ? k : m;
		m = (size_t)(a->lim - a->p) / 4;
		k = k < m ? k : m;
		m = (size_t)(b->lim - b->p) / 4;
		k = k < m ? k : m;
		if (k >= 4) {
			ret = lane_run2(a, b, k);
		} else {
			/* a segment's last bytes, or a stream near its
			 * limit: the shorter segment alone, checked */
			ret = lane_run1(a->to - a->i < b->to - b->i ? a : b);
		}
		if (ret)
			return ret;
	}
}

int fmt_ans_decode(struct fmt_ans_dec *t, const uint8_t *in, size_t inlen,
		   uint8_t *out, size_t want)
{
	struct ans_dec_state st;
	unsigned kind;
	uint64_t prefix;
	size_t hl;
	int ret;

	hl = get_tables(t, in, inlen, &kind, &prefix);
	if (!hl || inlen - hl < 8 || prefix > want)
		return IST_ECORRUPT;
	st.p = in + hl;
	st.end = in + inlen;
	st.x[0] = fmt_get32(st.p);
	st.x[1] = fmt_get32(st.p + 4);
	st.p += 8;
	if (st.x[0] < ANS_L || st.x[1] < ANS_L || (st.end - st.p) % 2)
		return IST_ECORRUPT;
	ret = dec_one(t->tab[FMT_ANS_PRE], &st, out, 0, (size_t)prefix);
	if (!ret && kind)
		ret = dec_ctx(t, &st, out, (size_t)prefix, want);
	else if (!ret)
		ret = dec_one(t->tab[0], &st, out, (size_t)prefix, want);
	if (ret)
		return ret;
	if (st.p != st.end || st.x[0] != ANS_L || st.x[1] != ANS_L)
		return IST_ECORRUPT;
	return 0;
}
