/* SPDX-License-Identifier: MIT */
/* vans.c - the VANS column storage: static rANS over a column's values, with tables that small chunks can afford. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "format/fmt.h"

/*
 * ARITH (arith.c) makes a small chunk's columns short without tables, but
 * its ~10 binary decisions a value decode 3-5 times slower than ANS.
 * VANS codes one symbol a value instead: the value's bit length and the
 * top K bits below its leading one (the whole value while it has at most
 * F + 1 bits), with a static rANS table of at most 256 symbols whose
 * frequencies sum to 2^L (L <= 11, chosen for the chunk's size); the bits
 * below the symbol's are written raw in a bit stream.  The table is coded
 * compactly in the same bit stream (the symbols' gaps and frequencies in
 * Exp-Golomb codes), so a column of 1000 values pays a few dozen bytes
 * for it.  Decoding a value is a table look-up, a multiply and a raw-bit
 * read, on two interleaved states.  man/iostorm-trace.5 specifies the
 * bytes.
 */
#define RANS_L (1u << 16) /* lower bound of a normalised state */
#define TAB_SYMS 256      /* symbols a table may have */
#define NTOK 1024         /* bound on token numbers (F 8, K 3: 952) */
#define EG_ZMAX 20        /* longest run of zeros in an Exp-Golomb code */

/* ---- tokens: a value's symbol under (F, K) */

/* Tokens of (f, k): values of up to f + 1 bits are their own token; a
 * longer value of b bits is 2^(f+1) + (b - f - 2) * 2^k + its top k bits
 * below the leading one. */
static inline unsigned tok_limit(unsigned f, unsigned k)
{
	return (1u << (f + 1)) + ((63 - f) << k);
}

static inline unsigned tok_of(uint64_t v, unsigned f, unsigned k,
			      unsigned *nraw)
{
	unsigned b = v ? 64 - (unsigned)__builtin_clzll(v) : 0;
	unsigned nm = b ? b - 1 : 0;

	if (nm <= f) {
		*nraw = 0;
		return (unsigned)v;
	}
	*nraw = nm - k;
	return (1u << (f + 1)) + ((b - f - 2) << k) +
	       (unsigned)((v >> (nm - k)) & ((1u << k) - 1));
}

/* The value of token t with its raw bits 0, and their count. */
static inline uint64_t tok_base(unsigned t, unsigned f, unsigned k,
				unsigned *nraw)
{
	unsigned b, nm;

	if (t < (1u << (f + 1))) {
		*nraw = 0;
		return t;
	}
	t -= 1u << (f + 1);
	b = (t >> k) + f + 2;
	nm = b - 1;
	*nraw = nm - k;
	return (uint64_t)1 << nm | (uint64_t)(t & ((1u << k) - 1)) << (nm - k);
}

/* ---- bit writer (LSB first) */

struct bitw {
	uint64_t acc;
	unsigned n;
	uint8_t *p, *end;
	int full;
};

/* k <= 32 bits (inlined into the loop of raw bits: a call a value
 * was a fifth of the encoder's time). */
static inline __attribute__((always_inline)) void
bw_put32(struct bitw *w, uint64_t v, unsigned k)
{
	unsigned nb;

	w->acc |= (v & (((uint64_t)1 << k) - 1)) << w->n;
	w->n += k; /* at most 39 */
	nb = w->n >> 3;
	if (!nb)
		return;
	if (w->end - w->p >= 8) {
		/* the whole bytes in one store (the bytes past them are
		 * written again by the next one) */
		fmt_put64(w->p, w->acc);
		w->p += nb;
	} else {
		for (unsigned j = 0; j < nb; j++) {
			if (w->p < w->end)
				*w->p++ = (uint8_t)(w->acc >> (8 * j));
			else
				w->full = 1;
		}
	}
	w->acc >>= 8 * nb;
	w->n -= 8 * nb;
}

/* k <= 64 bits. */
static inline __attribute__((always_inline)) void
bw_put(struct bitw *w, uint64_t v, unsigned k)
{
	if (k > 32) {
		bw_put32(w, v & 0xffffffffu, 32);
		v >>= 32;
		k -= 32;
	}
	bw_put32(w, v, k);
}

/* Exp-Golomb code of order k for u: z zero bits, a one, then the n = z + k
 * low bits of u + 2^k (whose leading one is the z + k + 1th bit). */
static inline unsigned eg_len(uint64_t u, unsigned k)
{
	uint64_t w = u + ((uint64_t)1 << k);
	unsigned n = 63 - (unsigned)__builtin_clzll(w);

	return 2 * n - k + 1;
}

static inline void bw_eg(struct bitw *w, uint64_t u, unsigned k)
{
	uint64_t x = u + ((uint64_t)1 << k);
	unsigned n = 63 - (unsigned)__builtin_clzll(x);

	bw_put(w, (uint64_t)1 << (n - k), n - k + 1);
	bw_put(w, x, n);
}

/* ---- tables */

/* A symbol table as the encoder plans it. */
struct vtab {
	unsigned lg, eg;          /* L (frequencies sum to 2^L), freq code */
	unsigned nsym;
	uint16_t tok[TAB_SYMS];   /* ascending */
	uint16_t freq[TAB_SYMS];
	uint16_t cum[TAB_SYMS];
	double bits;              /* estimated: table and symbols */
};

/* Scales cnt[0..ns) (all > 0, total n) to frequencies summing to 2^lg
 * (ns <= 2^lg), each at least 1. */
static void normalise(const uint32_t *cnt, unsigned ns, uint64_t n,
		      unsigned lg, uint16_t *freq)
{
	int64_t m = (int64_t)1 << lg, sum = 0;
	unsigned big = 0;

	for (unsigned s = 0; s < ns; s++) {
		uint64_t f = (cnt[s] * (uint64_t)m + n / 2) / n;

		freq[s] = (uint16_t)(f ? f : 1);
		sum += freq[s];
		if (cnt[s] > cnt[big])
			big = s;
	}
	if (sum < m) {
		freq[big] = (uint16_t)(freq[big] + (m - sum));
		return;
	}
	/* take the excess from the largest, then from every one above 1 */
	while (sum > m) {
		for (unsigned s = 0; s < ns && sum > m; s++) {
			unsigned t = (s + big) % ns;
			int64_t take = freq[t] > 1 ? (freq[t] - 1) / 2 + 1 : 0;

			if (take > sum - m)
				take = sum - m;
			freq[t] = (uint16_t)(freq[t] - take);
			sum -= take;
		}
	}
}

/*
 * Plans the table of the ns distinct tokens tok[] counted cnt[] (n in
 * all, ns <= TAB_SYMS): the L (from about log2(n) - 3 to log2(n) + 1) and
 * frequency code giving the fewest bits for the table and the symbols.
 */
static void plan_table(struct vtab *t, const uint16_t *tok, const uint32_t *cnt,
		       unsigned ns, uint64_t n)
{
	unsigned lmin = 1, lmax, lg0 = 64 - (unsigned)__builtin_clzll(n);
	unsigned head = 4 + 3 + eg_len(ns - 1, 0), prev = 0;
	uint16_t freq[TAB_SYMS];

	while ((1u << lmin) < ns)
		lmin++;
	if (lg0 > lmin + 3)
		lmin = lg0 - 3;
	if (lmin > FMT_VANS_LMAX) /* 2^15 values or more */
		lmin = FMT_VANS_LMAX;
	lmax = lg0 + 1 < FMT_VANS_LMAX ? lg0 + 1 : FMT_VANS_LMAX;
	if (lmax < lmin)
		lmax = lmin;
	for (unsigned s = 0; s < ns; s++) {
		head += eg_len(tok[s] - prev - (s ? 1 : 0), 0);
		prev = tok[s];
	}
	t->bits = INFINITY;
	for (unsigned lg = lmin; lg <= lmax; lg++) {
		double sym = 0;
		unsigned eb[8] = { 0 };

		normalise(cnt, ns, n, lg, freq);
		for (unsigned s = 0; s < ns; s++)
			sym += cnt[s] * (lg - log2(freq[s]));
		for (unsigned s = 0; s + 1 < ns; s++)
			for (unsigned e = 0; e < 8; e++)
				eb[e] += eg_len(freq[s] - 1u, e);
		for (unsigned e = 0; e < 8; e++)
			if (sym + head + eb[e] < t->bits) {
				t->bits = sym + head + eb[e];
				t->lg = lg;
				t->eg = e;
				memcpy(t->freq, freq, ns * sizeof(*freq));
			}
	}
	t->nsym = ns;
	memcpy(t->tok, tok, ns * sizeof(*tok));
	for (unsigned s = 0, cum = 0; s < ns; s++) {
		t->cum[s] = (uint16_t)cum;
		cum += t->freq[s];
	}
}

/* L (4 bits), the frequency code's order (3 bits), the symbol count - 1,
 * each symbol's gap after the one before it (the first: its token), every
 * frequency but the last (which makes them sum to 2^L) - 1. */
static void write_table(struct bitw *w, const struct vtab *t)
{
	unsigned prev = 0;

	bw_put(w, t->lg, 4);
	bw_put(w, t->eg, 3);
	bw_eg(w, t->nsym - 1, 0);
	for (unsigned s = 0; s < t->nsym; s++) {
		bw_eg(w, t->tok[s] - prev - (s ? 1 : 0), 0);
		prev = t->tok[s];
	}
	for (unsigned s = 0; s + 1 < t->nsym; s++)
		bw_eg(w, t->freq[s] - 1u, t->eg);
}

/*
 * The values' histogram, from which the tokens of every (F, K) are
 * counted without another pass over the values: values below 2^(FMT_VANS_FMAX
 * + 1) by value, longer ones by bit length and top FMT_VANS_KMAX bits
 * below the leading one (a token never needs more), in one array: a
 * value's counter is found without a branch (hist_slot()).
 */
#define SMALL (1u << (FMT_VANS_FMAX + 1))
#define NSLOT (SMALL + 65 * (1u << FMT_VANS_KMAX))
struct vhist {
	/* value x < SMALL at x; a longer one of b bits at SMALL + b * 2^KMAX
	 * + its top KMAX bits below the leading one */
	uint32_t cnt[NSLOT];
	/* the bins in use: a value with their top bits, and its count */
	unsigned nbin;
	uint64_t bin[NSLOT];
	uint32_t bcnt[NSLOT];
};

static inline unsigned hist_slot(uint64_t x)
{
	unsigned nm = 63 - (unsigned)__builtin_clzll(x | 1);
	/* the shift is masked: its result is not used for a small value */
	unsigned big = SMALL + ((nm + 1) << FMT_VANS_KMAX) +
		       (unsigned)((x >> ((nm - FMT_VANS_KMAX) & 63)) &
				  ((1u << FMT_VANS_KMAX) - 1));

	return x < SMALL ? (unsigned)x : big;
}

/* The bins in use, from h's counts. */
static void hist_bins(struct vhist *h)
{
	h->nbin = 0;
	for (unsigned x = 0; x < SMALL; x++)
		if (h->cnt[x]) {
			h->bin[h->nbin] = x;
			h->bcnt[h->nbin++] = h->cnt[x];
		}
	for (unsigned b = FMT_VANS_FMAX + 2; b <= 64; b++)
		for (unsigned top = 0; top < (1u << FMT_VANS_KMAX); top++) {
			uint32_t c = h->cnt[SMALL + (b << FMT_VANS_KMAX) + top];

			if (c) {
				h->bin[h->nbin] = (uint64_t)1 << (b - 1) |
					(uint64_t)top << (b - 1 - FMT_VANS_KMAX);
				h->bcnt[h->nbin++] = c;
			}
		}
}

/* Counts the tokens under (f, k) from h; fills tok/cnt (ascending tokens:
 * tok_of() never decreases as the value grows, and the bins are in
 * increasing order) and returns the number of distinct ones (TAB_SYMS + 1
 * when there are more), *raw the raw bits. */
static unsigned count_tokens(const struct vhist *h, unsigned f, unsigned k,
			     uint16_t *tok, uint32_t *cnt, uint64_t *raw)
{
	unsigned ns = 0;
	uint64_t r = 0;

	for (unsigned i = 0; i < h->nbin; i++) {
		unsigned nr, t = tok_of(h->bin[i], f, k, &nr);

		r += (uint64_t)nr * h->bcnt[i];
		if (ns && tok[ns - 1] == t) {
			cnt[ns - 1] += h->bcnt[i];
			continue;
		}
		if (ns == TAB_SYMS)
			return TAB_SYMS + 1;
		tok[ns] = (uint16_t)t;
		cnt[ns++] = h->bcnt[i];
	}
	*raw = r;
	return ns;
}

/* Bits of the tokens of cnt[0..ns) (n in all) coded with their own
 * counts, and a rough table (10 bits a symbol): to rank the (F, K). */
static double rough_bits(const uint32_t *cnt, unsigned ns, uint64_t n)
{
	double b = n * log2((double)n);

	for (unsigned s = 0; s < ns; s++)
		b -= cnt[s] * log2((double)cnt[s]);
	return b + 10.0 * ns;
}

/* ---- rANS encoder (backwards, 16-bit words) */

struct renc {
	uint32_t x[2];
	uint8_t *p, *start; /* written downwards from the end of the buffer */
	int full;
};

static inline void renc_put(struct renc *e, unsigned i, unsigned lg,
			    unsigned freq, unsigned cum, uint64_t rcp)
{
	uint32_t x = e->x[i & 1], q;

	if ((uint64_t)x >= (uint64_t)freq << (32 - lg)) {
		if (e->p - e->start >= 2) {
			e->p -= 2;
			fmt_put16(e->p, (uint16_t)x);
		} else {
			e->full = 1;
		}
		x >>= 16;
	}
	/* x / freq by a multiplication: rcp = ceil(2^64 / freq) gives the
	 * exact quotient of a 32-bit x (freq <= 2^11) */
	q = freq == 1 ? x : (uint32_t)(((unsigned __int128)x * rcp) >> 64);
	e->x[i & 1] = (q << lg) + (x - q * freq) + cum;
}

/* The reciprocal renc_put() divides by. */
static inline uint64_t freq_rcp(unsigned freq)
{
	return freq >= 2 ? UINT64_MAX / freq + 1 : 0;
}

/* A value token's coding, looked up by the token itself (no symbol
 * index between): the state bound that sends 16 bits out, the quotient's
 * reciprocal (0: frequency 1, the quotient is the state), and what the
 * state gains: x' = x + q * (2^L - freq) + cum. */
struct esym {
	uint64_t xmax; /* freq << (32 - L) */
	uint64_t rcp;
	uint32_t cmpl; /* 2^L - freq */
	uint32_t cum;
};

static void fill_esym(const struct vtab *t, struct esym *es)
{
	for (unsigned s = 0; s < t->nsym; s++) {
		struct esym *e = &es[t->tok[s]];

		e->xmax = (uint64_t)t->freq[s] << (32 - t->lg);
		e->rcp = freq_rcp(t->freq[s]);
		e->cmpl = (1u << t->lg) - t->freq[s];
		e->cum = t->cum[s];
	}
}

/* A token without a branch on the value's size (mixed short and long
 * values mispredicted tok_of()'s): as tok_of(). */
static inline __attribute__((always_inline)) unsigned
tok_of_nb(uint64_t v, unsigned f, unsigned k, unsigned *nraw)
{
	unsigned nm = 63 - (unsigned)__builtin_clzll(v | 1);
	unsigned big = nm > f, sh = big ? nm - k : 0;
	unsigned tb = (1u << (f + 1)) + ((nm - f - 1) << k) +
		      (unsigned)((v >> sh) & ((1u << k) - 1));

	*nraw = sh;
	return big ? tb : (unsigned)v;
}

/*
 * The values' symbols, backwards (symbol prefix + i with state prefix + i
 * mod 2), with the two states in registers (a state kept in memory and
 * indexed made each step wait for the store of the one before), the
 * 16-bit words written without a branch (a word goes out for about one
 * value in two, at random: the branch mispredicted) into e->p, which has
 * room for two bytes a value.  Each value's count of raw bits goes to
 * nrs[i] for the bit stream's pass.
 */
static void enc_values(struct renc *e, unsigned lg, const struct esym *es,
		       const uint64_t *v, size_t nv, size_t prefix, unsigned f,
		       unsigned k, uint8_t *nrs)
{
	uint32_t xs[2] = { e->x[0], e->x[1] };
	uint32_t x0 = xs[(prefix + nv - 1) & 1], x1 = xs[(prefix + nv) & 1];
	uint8_t *p = e->p;
	size_t i = nv;

	/* x0: the state of symbol prefix + i - 1, x1 of the one before */
#define ENC1(x)                                                                \
	do {                                                                   \
		unsigned nr_, t_ = tok_of_nb(v[i - 1], f, k, &nr_);            \
		const struct esym *s_ = &es[t_];                               \
		unsigned out_ = (uint64_t)(x) >= s_->xmax;                     \
		uint32_t q_;                                                   \
                                                                               \
		nrs[i - 1] = (uint8_t)nr_;                                     \
		fmt_put16(p - 2, (uint16_t)(x));                               \
		p -= 2 * out_;                                                 \
		(x) = out_ ? (x) >> 16 : (x);                                  \
		q_ = (uint32_t)(((unsigned __int128)(x) * s_->rcp) >> 64);     \
		q_ = s_->rcp ? q_ : (x);                                       \
		(x) = (x) + q_ * s_->cmpl + s_->cum;                           \
		i--;                                                           \
	} while (0)
	while (i >= 2) {
		ENC1(x0);
		ENC1(x1);
	}
	if (i) {
		ENC1(x0);
		/* the last state coded is x0's, prefix + 0's parity */
		xs[prefix & 1] = x0;
		xs[(prefix + 1) & 1] = x1;
	} else {
		xs[prefix & 1] = x1;
		xs[(prefix + 1) & 1] = x0;
	}
#undef ENC1
	e->x[0] = xs[0];
	e->x[1] = xs[1];
	e->p = p;
}

/* Index of token t among the table's symbols (present: planned from the
 * same values). */
static void fill_index(const struct vtab *t, uint8_t *idx)
{
	for (unsigned s = 0; s < t->nsym; s++)
		idx[t->tok[s]] = (uint8_t)s;
}

/* The encoder's working memory besides the values: the tables, the raw
 * bit counts (one a value) and the rANS output (two bytes a symbol). */
struct fmt_vans_work {
	struct vhist h;
	uint32_t cnt3[3][NSLOT]; /* more counts, summed into h's */
	struct vtab pt, vt, c;
	struct esym es[NTOK];
	uint32_t hist[256];
	uint64_t rcp[TAB_SYMS];
	uint32_t cnt[TAB_SYMS];
	uint16_t tok[TAB_SYMS];
	uint8_t idx[256];
	uint8_t *nrs, *rbuf;
	size_t rcap, maxv;
};

#define WORK_HEAD ((sizeof(struct fmt_vans_work) + 63) & ~(size_t)63)

size_t fmt_vans_work_size(size_t maxv)
{
	/* nrs: maxv + 1; rbuf: two bytes a symbol (values and prefix, at
	 * most maxv each) and the states */
	return WORK_HEAD + ((maxv + 64) & ~(size_t)63) + 4 * maxv + 64;
}

struct fmt_vans_work *fmt_vans_work_init(void *mem, size_t maxv)
{
	struct fmt_vans_work *w = mem;

	w->nrs = (uint8_t *)mem + WORK_HEAD;
	w->rbuf = w->nrs + ((maxv + 64) & ~(size_t)63);
	w->rcap = 4 * maxv + 64;
	w->maxv = maxv;
	return w;
}

/* The raw bits of v[0..nv) (nrs[i] each) into w, which must hold them all
 * with 8 bytes to spare: no check a value (the accumulator's 8 bytes are
 * stored whole, the bytes past the complete ones written again by the
 * next store). */
static void put_raw_fast(struct bitw *w, const uint64_t *v, const uint8_t *nrs,
			 size_t nv)
{
	uint64_t acc = w->acc;
	unsigned n = w->n;
	uint8_t *p = w->p;

	for (size_t i = 0; i < nv; i++) {
		uint64_t x = v[i];
		unsigned k = nrs[i];

		if (__builtin_expect(k > 56, 0)) {
			/* the low 32 first: n + 32 < 64 */
			acc |= (x & 0xffffffffu) << n;
			n += 32;
			fmt_put64(p, acc);
			p += n >> 3;
			acc >>= n & ~7u;
			n &= 7;
			x >>= 32;
			k -= 32;
		}
		acc |= (x & (((uint64_t)1 << k) - 1)) << n;
		n += k; /* at most 63 */
		fmt_put64(p, acc);
		p += n >> 3;
		acc >>= n & ~7u;
		n &= 7;
	}
	w->acc = acc;
	w->n = n;
	w->p = p;
}

/*
 * The column: its prefix pre[0..prefix) (bytes) and values v[0..nv)
 * (the bytes when bytes is set), whose histogram h is counted, coded
 * into out if shorter than limit.
 */
static size_t vans_code(struct fmt_vans_work *wk, const uint8_t *pre,
			size_t prefix, const uint64_t *v, size_t nv,
			unsigned bytes, uint8_t *out, size_t limit)
{
	struct vtab *pt = &wk->pt, *vt = &wk->vt, *c = &wk->c;
	struct vhist *h = &wk->h;
	uint32_t *cnt = wk->cnt;
	uint16_t *tok = wk->tok;
	uint64_t raw = 0;
	unsigned bf = 0, bk = 0;
	size_t hl, rlen, need;
	struct bitw bw;
	struct renc e;

	pt->bits = vt->bits = 0;
	pt->nsym = vt->nsym = 0;
	if (prefix) {
		unsigned ns;

		/* the prefix's bytes are their own tokens (f 7, k 0) */
		memset(wk->hist, 0, sizeof(wk->hist));
		for (size_t i = 0; i < prefix; i++)
			wk->hist[pre[i]]++;
		ns = 0;
		for (unsigned t = 0; t < 256; t++)
			if (wk->hist[t]) {
				tok[ns] = (uint16_t)t;
				cnt[ns++] = wk->hist[t];
			}
		plan_table(pt, tok, cnt, ns, prefix);
	}
	if (nv) {
		/* the (F, K) with the fewest bits by the counts' entropy and
		 * a rough table, then the best two of those planned exactly */
		double r1 = INFINITY, r2 = INFINITY;
		unsigned f1 = 0, k1 = 0, f2 = 0, k2 = 0, have = 0;

		hist_bins(h);
		for (unsigned f = 0; f <= FMT_VANS_FMAX; f++)
			for (unsigned k = 0; k <= FMT_VANS_KMAX && k <= f + 1; k++) {
				uint64_t r;
				unsigned ns = count_tokens(h, f, k, tok, cnt, &r);
				double est;

				if (ns > TAB_SYMS)
					continue;
				est = rough_bits(cnt, ns, nv) + (double)r;
				if (est < r1) {
					r2 = r1;
					f2 = f1;
					k2 = k1;
					r1 = est;
					f1 = f;
					k1 = k;
				} else if (est < r2) {
					r2 = est;
					f2 = f;
					k2 = k;
				}
				have++;
			}
		vt->bits = INFINITY;
		for (unsigned i = 0; i < 2 && i < have; i++) {
			unsigned f = i ? f2 : f1, k = i ? k2 : k1, ns;
			uint64_t r;

			ns = count_tokens(h, f, k, tok, cnt, &r);
			plan_table(c, tok, cnt, ns, nv);
			if (c->bits + (double)r < vt->bits + (double)raw) {
				*vt = *c;
				raw = r;
				bf = f;
				bk = k;
			}
		}
		if (vt->bits == INFINITY)
			return 0;
	}
	/* estimate against the limit before coding */
	if ((pt->bits + vt->bits + (double)raw) / 8 + 12 >= (double)limit)
		return 0;

	/* the header */
	out[0] = (uint8_t)(bf | bk << 4 | bytes << 6);
	hl = 1 + fmt_put_varint(out + 1, prefix);

	/* rANS, backwards: the values, then the prefix (the buffer has room
	 * for two bytes a symbol and the states) */
	e.x[0] = e.x[1] = RANS_L;
	e.start = wk->rbuf;
	e.p = wk->rbuf + wk->rcap;
	e.full = 0;
	if (nv) {
		fill_esym(vt, wk->es);
		enc_values(&e, vt->lg, wk->es, v, nv, prefix, bf, bk, wk->nrs);
	}
	if (prefix) {
		fill_index(pt, wk->idx);
		for (unsigned s = 0; s < pt->nsym; s++)
			wk->rcp[s] = freq_rcp(pt->freq[s]);
		for (size_t i = prefix; i-- > 0;) {
			unsigned s = wk->idx[pre[i]];

			renc_put(&e, (unsigned)i, pt->lg, pt->freq[s], pt->cum[s],
				 wk->rcp[s]);
		}
	}
	if (e.full || e.p - e.start < 8)
		return 0;
	e.p -= 8;
	fmt_put32(e.p, e.x[0]);
	fmt_put32(e.p + 4, e.x[1]);
	rlen = (size_t)(wk->rbuf + wk->rcap - e.p);
	if (hl + 10 + rlen >= limit)
		return 0;
	hl += fmt_put_varint(out + hl, rlen);
	memcpy(out + hl, e.p, rlen);
	hl += rlen;

	/* the bit stream: tables, then every value's raw bits */
	bw.acc = 0;
	bw.n = 0;
	bw.p = out + hl;
	bw.end = out + limit - 1; /* shorter than limit */
	bw.full = 0;
	if (prefix)
		write_table(&bw, pt);
	if (nv)
		write_table(&bw, vt);
	/* the stream's length is known: the raw bits without a check each
	 * when they fit with the 8 bytes a store may write past them */
	need = (size_t)(bw.p - out) + (bw.n + raw + 7) / 8;
	if (!bw.full && need + 8 <= limit) {
		put_raw_fast(&bw, v, wk->nrs, nv);
	} else {
		for (size_t i = 0; i < nv && !bw.full; i++)
			bw_put(&bw, v[i], wk->nrs[i]);
	}
	if (bw.n)
		bw_put(&bw, 0, 8 - bw.n);
	return bw.full || bw.p - out >= (ptrdiff_t)limit ? 0 :
							    (size_t)(bw.p - out);
}

size_t fmt_vans_encode_values(struct fmt_vans_work *wk, const uint8_t *pre,
			      size_t prefix, const uint64_t *v, size_t nv,
			      uint8_t *out, size_t limit)
{
	struct vhist *h = &wk->h;
	uint32_t *c0 = h->cnt, *c1 = wk->cnt3[0], *c2 = wk->cnt3[1];
	uint32_t *c3 = wk->cnt3[2];
	size_t i;

	if (limit < 16 || (!prefix && !nv) || nv > wk->maxv ||
	    prefix > wk->maxv)
		return 0;
	/* four sets of counts by turns: values of one bin in a row (most
	 * of a column's, often) each waited for the increment before */
	memset(h->cnt, 0, sizeof(h->cnt));
	memset(wk->cnt3, 0, sizeof(wk->cnt3));
	for (i = 0; i + 4 <= nv; i += 4) {
		c0[hist_slot(v[i])]++;
		c1[hist_slot(v[i + 1])]++;
		c2[hist_slot(v[i + 2])]++;
		c3[hist_slot(v[i + 3])]++;
	}
	for (; i < nv; i++)
		c0[hist_slot(v[i])]++;
	for (unsigned s = 0; s < NSLOT; s++)
		c0[s] += c1[s] + c2[s] + c3[s];
	return vans_code(wk, pre, prefix, v, nv, 0, out, limit);
}

size_t fmt_vans_encode(const uint8_t *in, size_t len, size_t prefix,
		       uint8_t *out, size_t limit)
{
	struct fmt_vans_work *wk;
	uint64_t *v = NULL;
	void *mem = NULL;
	unsigned bytes = 0;
	size_t nv = 0, ret = 0;

	if (prefix > len)
		prefix = 0;
	if (limit < 16)
		return 0;
	v = malloc((len - prefix + 1) * sizeof(*v));
	mem = malloc(fmt_vans_work_size(len));
	if (!v || !mem)
		goto out;
	wk = fmt_vans_work_init(mem, len);
	memset(wk->h.cnt, 0, sizeof(wk->h.cnt));
	{
		const uint8_t *p = in + prefix, *end = in + len;

		/* the values of canonical varints, else the bytes */
		while (p < end) {
			const uint8_t *q = p;
			unsigned w = end - p >= 8 ? fmt_varint_word(p, &v[nv]) : 0;

			if (w) {
				p += w;
			} else if (fmt_get_varint(&p, end, &v[nv])) {
				bytes = 1;
				break;
			}
			if (fmt_varint_len(v[nv]) != (size_t)(p - q)) {
				bytes = 1;
				break;
			}
			wk->h.cnt[hist_slot(v[nv])]++;
			nv++;
		}
		if (bytes) {
			memset(wk->h.cnt, 0, sizeof(wk->h.cnt));
			nv = 0;
			for (size_t i = prefix; i < len; i++) {
				v[nv++] = in[i];
				wk->h.cnt[in[i]]++;
			}
		}
	}
	ret = vans_code(wk, in, prefix, v, nv, bytes, out, limit);
out:
	free(v);
	free(mem);
	return ret;
}

/* ---- decoder */

/* The bit stream s[0..len), read at bit pos * 8 - n. */
struct bitr {
	uint64_t buf;
	unsigned n;               /* valid bits in buf */
	size_t pos, len;
	const uint8_t *s;
};

/* At least 56 valid bits in buf (zeros past the end: a stream read past
 * it is refused at the end, br_finish()). */
static inline void br_refill(struct bitr *b)
{
	uint64_t w;

	if (b->pos + 8 <= b->len) {
		w = fmt_get64(b->s + b->pos);
	} else {
		w = 0;
		for (size_t i = b->pos; i < b->len && i < b->pos + 8; i++)
			w |= (uint64_t)b->s[i] << (8 * (i - b->pos));
	}
	b->buf |= w << b->n;
	b->pos += (63 - b->n) >> 3;
	b->n |= 56;
}

/* k <= 56 bits, after br_refill(). */
static inline uint64_t br_get(struct bitr *b, unsigned k)
{
	uint64_t v = b->buf & (((uint64_t)1 << k) - 1);

	b->buf >>= k;
	b->n -= k;
	return v;
}

/* An Exp-Golomb code of order k (k <= 7); -1 when its zeros run longer
 * than EG_ZMAX (no table needs that many).  One refill holds the whole
 * code: 2 * EG_ZMAX + 1 + 7 <= 56 bits. */
static inline int64_t br_eg(struct bitr *b, unsigned k)
{
	unsigned z;

	br_refill(b);
	if (!(b->buf & ((1u << (EG_ZMAX + 1)) - 1)))
		return -1;
	z = (unsigned)__builtin_ctzll(b->buf);
	b->buf >>= z + 1;
	b->n -= z + 1;
	return (int64_t)((br_get(b, z + k) | (uint64_t)1 << (z + k)) -
			 ((uint64_t)1 << k));
}

/* The stream was read to its last byte, and no further; the bits left in
 * that byte are 0. */
static inline int br_finish(const struct bitr *b)
{
	uint64_t total = (uint64_t)b->len * 8;
	uint64_t used = (uint64_t)b->pos * 8 - b->n;

	if (used > total || total - used >= 8)
		return IST_ECORRUPT;
	if (b->buf & (((uint64_t)1 << (total - used)) - 1))
		return IST_ECORRUPT;
	return 0;
}

/* A decoding table: per slot, the frequency (12 bits), slot - cum (12
 * bits) and the symbol (8 bits); per symbol its base value and raw bits. */
struct vdec {
	unsigned lg;
	uint32_t slot[1u << FMT_VANS_LMAX];
	uint64_t base[TAB_SYMS];
	uint8_t nraw[TAB_SYMS];
};

/* Reads a table of tokens below lim under (f, k); bytes: every symbol
 * must stand for values below 256.  0 or IST_ECORRUPT. */
static int read_table(struct bitr *b, struct vdec *d, unsigned f, unsigned k,
		      unsigned lim, unsigned bytes)
{
	uint16_t freq[TAB_SYMS];
	unsigned lg, eg, ns, m, sum = 0, slot = 0;
	int64_t x;

	br_refill(b);
	lg = (unsigned)br_get(b, 4);
	eg = (unsigned)br_get(b, 3);
	x = br_eg(b, 0);
	if (lg < 1 || lg > FMT_VANS_LMAX || x < 0 || x >= TAB_SYMS ||
	    x >= (int64_t)1 << lg)
		return IST_ECORRUPT;
	ns = (unsigned)x + 1;
	m = 1u << lg;
	for (unsigned s = 0, t = 0; s < ns; s++) {
		unsigned nr;

		x = br_eg(b, 0);
		if (x < 0 || x >= (int64_t)lim)
			return IST_ECORRUPT;
		t += (unsigned)x + (s ? 1 : 0);
		if (t >= lim)
			return IST_ECORRUPT;
		d->base[s] = tok_base(t, f, k, &nr);
		d->nraw[s] = (uint8_t)nr;
		if (bytes && (nr >= 8 || d->base[s] + (1u << nr) - 1 > 255))
			return IST_ECORRUPT;
	}
	for (unsigned s = 0; s + 1 < ns; s++) {
		x = br_eg(b, eg);
		if (x < 0 || (uint64_t)x + 1 + sum >= m)
			return IST_ECORRUPT;
		freq[s] = (uint16_t)(x + 1);
		sum += freq[s];
	}
	freq[ns - 1] = (uint16_t)(m - sum);
	d->lg = lg;
	for (unsigned s = 0; s < ns; s++) {
		uint32_t e = freq[s] | s << 24;

		for (unsigned j = 0; j < freq[s]; j++)
			d->slot[slot++] = e + (j << 12);
	}
	return 0;
}

/*
 * One symbol of table slot[] (L lg) from state x0, which then becomes x1
 * and x1 the decoded one (the two states take turns); renormalises from
 * the words at p (p < end: a word is left; past the end the state takes
 * zeros and over is set).  Evaluates to the symbol.
 */
#define RD_SYM(sym, slot, lg, x0, x1, p, end, over)                          \
	do {                                                                 \
		uint32_t e_ = (slot)[(x0) & ((1u << (lg)) - 1)];             \
		uint32_t y_ = (e_ & 0xfff) * ((x0) >> (lg)) +                \
			      ((e_ >> 12) & 0xfff);                          \
		if (y_ < RANS_L) {                                           \
			int ok_ = (p) < (end);                               \
			y_ = y_ << 16 | (ok_ ? fmt_get16(p) : 0);            \
			(p) += 2 * ok_;                                      \
			(over) |= !ok_;                                      \
		}                                                            \
		(x0) = (x1);                                                 \
		(x1) = y_;                                                   \
		(sym) = e_ >> 24;                                            \
	} while (0)

/* A column being decoded: its mode, the rANS states and words, the bit
 * stream, and its prefix decoded. */
struct vans_cur {
	unsigned f, k, bytes, over;
	uint64_t prefix;
	uint32_t x0, x1;
	const uint8_t *rp, *rend;
	struct bitr b;
};

/* Reads the header and the states of [in, in + inlen) (a column of want
 * bytes) and decodes its prefix into out[0..prefix); 0 or IST_ECORRUPT. */
static int vans_start(struct vans_cur *v, const uint8_t *in, size_t inlen,
		      uint8_t *out, size_t want)
{
	const uint8_t *p = in, *end = in + inlen;
	uint64_t rlen;

	if (inlen < 1)
		return IST_ECORRUPT;
	v->f = in[0] & 15;
	v->k = (in[0] >> 4) & 3;
	v->bytes = (in[0] >> 6) & 1;
	v->over = 0;
	p++;
	if ((in[0] & 0x80) || v->f > FMT_VANS_FMAX || v->k > v->f + 1 ||
	    fmt_get_varint(&p, end, &v->prefix) || v->prefix > want ||
	    fmt_get_varint(&p, end, &rlen) || rlen < 8 || rlen % 2 ||
	    rlen > (uint64_t)(end - p))
		return IST_ECORRUPT;
	v->x0 = fmt_get32(p);
	v->x1 = fmt_get32(p + 4);
	v->rp = p + 8;
	v->rend = p + rlen;
	if (v->x0 < RANS_L || v->x1 < RANS_L)
		return IST_ECORRUPT;
	v->b.buf = 0;
	v->b.n = 0;
	v->b.s = v->rend;
	v->b.pos = 0;
	v->b.len = (size_t)(end - v->rend);
	if (v->prefix) {
		struct vdec pd;
		uint32_t x0 = v->x0, x1 = v->x1;
		const uint8_t *rp = v->rp;
		unsigned s;

		if (read_table(&v->b, &pd, 7, 0, 256, 1))
			return IST_ECORRUPT;
		for (size_t o = 0; o < v->prefix; o++) {
			RD_SYM(s, pd.slot, pd.lg, x0, x1, rp, v->rend, v->over);
			out[o] = (uint8_t)pd.base[s];
		}
		v->x0 = x0;
		v->x1 = x1;
		v->rp = rp;
	}
	return 0;
}

/* The column ended where it should: every word and bit read. */
static int vans_end(const struct vans_cur *v)
{
	if (v->over || v->rp != v->rend || v->x0 != RANS_L ||
	    v->x1 != RANS_L || br_finish(&v->b))
		return IST_ECORRUPT;
	return 0;
}

int fmt_vans_values(const uint8_t *in, size_t inlen)
{
	return inlen >= 1 && !(in[0] & 0x40);
}

/*
 * The value-mode decoding shared by the two outputs: VALUE(v) is run for
 * each value, in order, after checking that its varint still fits in the
 * column's want bytes (o counts them).
 */
#define VANS_VALUES(VALUE)                                                     \
	do {                                                                   \
		while (o < want) {                                             \
			unsigned nr;                                           \
			uint64_t v;                                            \
                                                                               \
			RD_SYM(s, slot, lg, x0, x1, rp, rend, over);           \
			nr = nraw[s];                                          \
			br_refill(&b);                                         \
			if (__builtin_expect(nr <= 56, 1)) {                   \
				v = base[s] | br_get(&b, nr);                  \
			} else {                                               \
				v = br_get(&b, 32);                            \
				br_refill(&b);                                 \
				v = base[s] | v | br_get(&b, nr - 32) << 32;   \
			}                                                      \
			VALUE(v);                                              \
		}                                                              \
	} while (0)

int fmt_vans_decode(const uint8_t *in, size_t inlen, uint8_t *out, size_t want)
{
	struct vans_cur c;
	struct vdec vd;
	size_t o;
	int ret = vans_start(&c, in, inlen, out, want);

	if (ret)
		return ret;
	o = (size_t)c.prefix;
	if (o < want) {
		const uint32_t *slot = vd.slot;
		const uint64_t *base = vd.base;
		const uint8_t *nraw = vd.nraw;
		const uint8_t *rp = c.rp, *rend = c.rend;
		uint32_t x0 = c.x0, x1 = c.x1;
		unsigned lg, s, over = c.over;
		struct bitr b = c.b;

		if (read_table(&b, &vd, c.f, c.k, tok_limit(c.f, c.k), c.bytes))
			return IST_ECORRUPT;
		lg = vd.lg;
		if (c.bytes) {
			for (; o < want; o++) {
				RD_SYM(s, slot, lg, x0, x1, rp, rend, over);
				br_refill(&b);
				out[o] = (uint8_t)(base[s] | br_get(&b, nraw[s]));
			}
		} else {
#define PUT_VARINT(v)                                                          \
	do {                                                                   \
		if (want - o < 10 && fmt_varint_len(v) > want - o)             \
			return IST_ECORRUPT;                                   \
		o += fmt_put_varint(out + o, v);                               \
	} while (0)
			VANS_VALUES(PUT_VARINT);
#undef PUT_VARINT
		}
		c.rp = rp;
		c.x0 = x0;
		c.x1 = x1;
		c.over = over;
		c.b = b;
	}
	return vans_end(&c);
}

int fmt_vans_decode_values(const uint8_t *in, size_t inlen, uint8_t *pre,
			   size_t want, uint64_t *vals, size_t maxv,
			   size_t *npre, size_t *nv)
{
	struct vans_cur c;
	struct vdec vd;
	size_t o, n = 0;
	int ret;

	*nv = *npre = 0;
	if (!fmt_vans_values(in, inlen))
		return IST_ECORRUPT;
	ret = vans_start(&c, in, inlen, pre, want);
	if (ret)
		return ret;
	o = (size_t)c.prefix;
	if (o < want) {
		const uint32_t *slot = vd.slot;
		const uint64_t *base = vd.base;
		const uint8_t *nraw = vd.nraw;
		const uint8_t *rp = c.rp, *rend = c.rend;
		uint32_t x0 = c.x0, x1 = c.x1;
		unsigned lg, s, over = c.over;
		struct bitr b = c.b;

		if (read_table(&b, &vd, c.f, c.k, tok_limit(c.f, c.k), 0))
			return IST_ECORRUPT;
		lg = vd.lg;
		/* the same values as fmt_vans_decode() would write as
		 * varints: as many, and their varints filling want - prefix
		 * bytes exactly */
#define PUT_VALUE(v)                                                           \
	do {                                                                   \
		o += fmt_varint_len(v);                                        \
		if (o > want || n == maxv)                                     \
			return IST_ECORRUPT;                                   \
		vals[n++] = (v);                                               \
	} while (0)
		VANS_VALUES(PUT_VALUE);
#undef PUT_VALUE
		c.rp = rp;
		c.x0 = x0;
		c.x1 = x1;
		c.over = over;
		c.b = b;
	}
	ret = vans_end(&c);
	if (!ret) {
		*npre = (size_t)c.prefix;
		*nv = n;
	}
	return ret;
}
