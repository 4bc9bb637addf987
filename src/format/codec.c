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

/* A running gcd starts at 0 (gcd(0, x) = x). */
static void gcd_start(struct divisor *d)
{
	d->g = 0;
	d->s = 0;
	d->inv = 1;
	d->lim = UINT64_MAX;
}

/* Folds x into the running gcd; cheap while x is a multiple of it. */
static inline void gcd_add(struct divisor *d, uint64_t x)
{
	if (d->g == 1 || x == 0)
		return;
	if (d->g == 0) {
		divisor_set(d, x);
		return;
	}
	if (divisor_divides(d, x))
		return;
	divisor_set(d, gcd64(d->g, x));
}

/* All values zero: divide by 1. */
static void gcd_end(struct divisor *d)
{
	if (d->g == 0)
		divisor_set(d, 1);
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

static uint64_t get_t(const struct ist_record *r) { return GET_T(r); }
static uint64_t get_dev(const struct ist_record *r) { return GET_DEV(r); }
static uint64_t get_op(const struct ist_record *r) { return GET_OP(r); }
static uint64_t get_flags(const struct ist_record *r) { return GET_FLAGS(r); }
static uint64_t get_len(const struct ist_record *r) { return GET_LEN(r); }
static uint64_t get_offset(const struct ist_record *r) { return GET_OFFSET(r); }
static uint64_t get_lat(const struct ist_record *r) { return GET_LAT(r); }
static uint64_t get_stream(const struct ist_record *r) { return GET_STREAM(r); }
static uint64_t get_txn(const struct ist_record *r) { return GET_TXN(r); }
#define GET_FN(GET) GET_FN_##GET
#define GET_FN_GET_T get_t
#define GET_FN_GET_DEV get_dev
#define GET_FN_GET_OP get_op
#define GET_FN_GET_FLAGS get_flags
#define GET_FN_GET_LEN get_len
#define GET_FN_GET_OFFSET get_offset
#define GET_FN_GET_LAT get_lat
#define GET_FN_GET_STREAM get_stream
#define GET_FN_GET_TXN get_txn

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

/* DICT coding; dict holds every value of the column (k entries).  The
 * indexes are gathered 64 bits at a time (bit i * w of the little-endian
 * stream is bit (i % per) * w of byte i / per). */
static inline size_t enc_dict(const uint64_t *dict, unsigned k,
			      const struct ist_record *recs, size_t n,
			      uint8_t *out, uint64_t (*get)(const struct ist_record *))
{
	unsigned w = dict_width(k), nb = 0;
	uint64_t acc = 0, copy[FMT_DICT_MAX];
	struct dict_map m;
	uint8_t *p = out;
	size_t i;

	memset(&m, 0, sizeof(m));
	memcpy(copy, dict, k * sizeof(*dict));
	for (unsigned j = 0; j < k; j++)
		p += fmt_put_varint(p, dict[j]);
	for (i = 0; i < n; i++) {
		unsigned idx = dict_find(&m, copy, &k, get(&recs[i]));

		acc |= (uint64_t)idx << nb;
		nb += w;
		if (nb == 64) {
			fmt_put64(p, acc);
			p += 8;
			acc = 0;
			nb = 0;
		}
	}
	for (; nb > 0; nb = nb > 8 ? nb - 8 : 0) {
		*p++ = (uint8_t)acc;
		acc >>= 8;
	}
	return (size_t)(p - out);
}

#define DEFINE_ENCODER(name, GET, what)                                        \
	static void name(const struct ist_record *recs, size_t n,              \
			 uint8_t *out, struct fmt_coldesc *d)                  \
	{                                                                      \
		uint64_t first = GET(&recs[0]), raw_sz = 0, delta_sz = 0;      \
		uint64_t prev = 0, dict[FMT_DICT_MAX];                         \
		unsigned nd = 0, li = 0;                                       \
		struct dict_map dm;                                            \
		int all_same = 1, dict_ok = !!((what) & TRY_DICT);             \
		struct divisor dv;                                             \
		uint8_t *p = out;                                              \
		size_t i;                                                      \
                                                                               \
		if (dict_ok) {                                                 \
			dict[nd++] = first;                                    \
			memset(&dm, 0, sizeof(dm));                            \
		}                                                              \
		for (i = 0; i < n; i++) {                                      \
			uint64_t v = GET(&recs[i]);                            \
                                                                               \
			all_same &= v == first;                                \
			if (dict_ok) {                                         \
				li = dict_find(&dm, dict, &nd, v);             \
				dict_ok = li < FMT_DICT_MAX;                   \
			}                                                      \
			if ((what) & TRY_RAW)                                  \
				raw_sz += fmt_varint_len(v);                   \
			if ((what) & TRY_DELTA) {                              \
				delta_sz += fmt_varint_len(                    \
					fmt_zigzag((int64_t)(v - prev)));      \
				prev = v;                                      \
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
		(void)li;                                                      \
		if (dict_ok && dict_size(dict, nd, n) < raw_sz) {              \
			d->raw_len = enc_dict(dict, nd, recs, n, out,          \
					      GET_FN(GET));                    \
			d->coding = FMT_CODE_DICT;                             \
			d->param = nd;                                         \
			return;                                                \
		}                                                              \
		gcd_start(&dv);                                                \
		if ((what) & USE_GCD) {                                        \
			prev = 0;                                              \
			for (i = 0; i < n && dv.g != 1; i++) {                 \
				uint64_t v = GET(&recs[i]);                    \
                                                                               \
				if (d->coding == FMT_CODE_RAW) {               \
					gcd_add(&dv, v);                       \
				} else {                                       \
					gcd_add(&dv, magnitude(                \
						(int64_t)(v - prev)));         \
					prev = v;                              \
				}                                              \
			}                                                      \
		}                                                              \
		gcd_end(&dv);                                                  \
		d->param = dv.g;                                               \
		prev = 0;                                                      \
		if (d->coding == FMT_CODE_RAW) {                               \
			if (dv.g == 1)                                         \
				for (i = 0; i < n; i++)                        \
					p += fmt_put_varint(p, GET(&recs[i])); \
			else                                                   \
				for (i = 0; i < n; i++)                        \
					p += fmt_put_varint(                   \
						p, divisor_div(&dv,            \
							       GET(&recs[i])));\
		} else {                                                       \
			for (i = 0; i < n; i++) {                              \
				uint64_t v = GET(&recs[i]);                    \
                                                                               \
				p += fmt_put_varint(p, fmt_zigzag(divisor_sdiv(\
					&dv, (int64_t)(v - prev))));           \
				prev = v;                                      \
			}                                                      \
		}                                                              \
		d->raw_len = (uint64_t)(p - out);                              \
	}

DEFINE_ENCODER(enc_t, GET_T, TRY_DELTA | USE_GCD)
DEFINE_ENCODER(enc_dev, GET_DEV, TRY_RAW | TRY_DICT)
DEFINE_ENCODER(enc_op, GET_OP, TRY_RAW | TRY_DICT)
DEFINE_ENCODER(enc_flags, GET_FLAGS, TRY_RAW | TRY_DICT)
DEFINE_ENCODER(enc_len, GET_LEN, TRY_RAW | USE_GCD | TRY_DICT)
DEFINE_ENCODER(enc_raw_offset, GET_OFFSET, TRY_RAW | USE_GCD)
DEFINE_ENCODER(enc_lat, GET_LAT, TRY_RAW | USE_GCD)
DEFINE_ENCODER(enc_stream, GET_STREAM, TRY_RAW | TRY_DELTA | TRY_DICT)
DEFINE_ENCODER(enc_txn, GET_TXN, TRY_RAW | TRY_DELTA)

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
		memset(h->v[sl], 0, sizeof(h->v[sl]));
		h->head[sl] = 0;
		h->gen[sl] = h->cur;
	}
	return sl;
}

/* The smallest k with hist_at(h, sl, k) == off, or FMT_HIST.  All
 * entries are compared (no early exit for the branch predictor to
 * miss), then the matches' mask is rotated so that the newest entry is
 * its top bit. */
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

static void enc_offset(struct fmt_hist *h, const struct ist_record *recs,
		       size_t n, uint8_t *out, struct fmt_coldesc *d)
{
	uint64_t seq_sz = 0, hist_sz = n / 4, raw_sz = 0;
	uint8_t *delta = out + 3 * n + 64;
	int all_same = 1;
	struct divisor dv;
	uint8_t *p;
	size_t i;

	/* sizes of the candidates, as varints before any deflate; HIST
	 * symbols count 2 bits each (they deflate well) */
	hist_reset(h);
	for (i = 0; i < n; i++) {
		unsigned sl = hist_slot(h, recs[i].dev);
		uint64_t off = recs[i].offset, dl = off - hist_at(h, sl, 0);
		unsigned len = fmt_varint_len(fmt_zigzag((int64_t)dl));
		unsigned k = hist_find(h, sl, off);

		all_same &= off == recs[0].offset;
		raw_sz += fmt_varint_len(off);
		seq_sz += len;
		out[i] = (uint8_t)k;
		memcpy(delta + 8 * i, &dl, 8);
		if (k == FMT_HIST)
			hist_sz += len;
		hist_push(h, sl, off, off + recs[i].len);
	}
	if (raw_sz <= seq_sz && raw_sz <= hist_sz) {
		enc_raw_offset(recs, n, out, d); /* also finds a constant */
		return;
	}
	if (all_same) {
		d->coding = FMT_CODE_CONST;
		d->param = recs[0].offset;
		d->raw_len = 0;
		return;
	}
	d->coding = hist_sz < seq_sz * 15 / 16 ? FMT_CODE_HIST : FMT_CODE_SEQ;
	gcd_start(&dv);
	for (i = 0; i < n && dv.g != 1; i++)
		if (d->coding == FMT_CODE_SEQ || out[i] == FMT_HIST)
			gcd_add(&dv, magnitude((int64_t)delta_at(delta, i)));
	gcd_end(&dv);
	d->param = dv.g;
	if (d->coding == FMT_CODE_HIST) {
		/* the symbols are in place */
		p = out + n;
		for (i = 0; i < n; i++)
			if (out[i] == FMT_HIST)
				p += fmt_put_varint(p, fmt_zigzag(divisor_sdiv(
					&dv, (int64_t)delta_at(delta, i))));
	} else {
		p = out;
		for (i = 0; i < n; i++)
			p += fmt_put_varint(p, fmt_zigzag(divisor_sdiv(
				&dv, (int64_t)delta_at(delta, i))));
	}
	d->raw_len = (uint64_t)(p - out);
}

/*
 * MTF devices: the rank of a device among the FMT_MTF distinct devices
 * used last in the chunk.  A trace of many volumes (Tencent's 2038)
 * sends bursts to a few at a time, so small ranks dominate where the
 * device numbers themselves are spread over thousands of values.
 */
static inline uint64_t mtf_use(uint32_t *list, unsigned *nl, uint32_t dev)
{
	unsigned k;

	for (k = 0; k < *nl && list[k] != dev; k++)
		;
	if (k == *nl) { /* new: the oldest falls off a full list */
		if (*nl < FMT_MTF)
			(*nl)++;
		memmove(list + 1, list, (*nl - 1) * sizeof(*list));
		list[0] = dev;
		return FMT_MTF + (uint64_t)dev;
	}
	memmove(list + 1, list, k * sizeof(*list));
	list[0] = dev;
	return k;
}

static void enc_dev_mtf(const struct ist_record *recs, size_t n, uint8_t *out,
			struct fmt_coldesc *d)
{
	uint32_t list[FMT_MTF];
	unsigned nl = 0;
	uint64_t sz = 0;
	uint8_t *p = out;
	size_t i;

	/* worth it when it saves 1/8 of the varints */
	for (i = 0; i < n && sz < d->raw_len - d->raw_len / 8; i++)
		sz += fmt_varint_len(mtf_use(list, &nl, recs[i].dev));
	if (sz >= d->raw_len - d->raw_len / 8)
		return;
	nl = 0;
	for (i = 0; i < n; i++)
		p += fmt_put_varint(p, mtf_use(list, &nl, recs[i].dev));
	d->coding = FMT_CODE_MTF;
	d->param = 1;
	d->raw_len = (uint64_t)(p - out);
}

/*
 * CDELTA latencies: the delta of the completion time t + lat from the
 * previous record's.  Devices that complete requests in batches (MSR
 * Cambridge's, where a burst of writes all complete together) give
 * completion times far more regular than the latencies themselves, and
 * traces sorted by completion (SYSTOR '17) give increasing ones.
 */
static void enc_lat_cdelta(const struct ist_record *recs, size_t n,
			   uint8_t *out, struct fmt_coldesc *d)
{
	uint64_t prev = 0, sz = 0;
	struct divisor dv;
	uint8_t *p = out;
	size_t i;

	gcd_start(&dv);
	for (i = 0; i < n && dv.g != 1; i++) {
		uint64_t c = recs[i].t_ns + recs[i].lat_ns;

		gcd_add(&dv, magnitude((int64_t)(c - prev)));
		prev = c;
	}
	gcd_end(&dv);
	/* worth it when it saves 1/8 of the varints */
	prev = 0;
	for (i = 0; i < n && sz < d->raw_len - d->raw_len / 8; i++) {
		uint64_t c = recs[i].t_ns + recs[i].lat_ns;

		sz += fmt_varint_len(fmt_zigzag(divisor_sdiv(&dv, (int64_t)(c - prev))));
		prev = c;
	}
	if (sz >= d->raw_len - d->raw_len / 8)
		return;
	prev = 0;
	for (i = 0; i < n; i++) {
		uint64_t c = recs[i].t_ns + recs[i].lat_ns;

		p += fmt_put_varint(p, fmt_zigzag(divisor_sdiv(&dv, (int64_t)(c - prev))));
		prev = c;
	}
	d->coding = FMT_CODE_CDELTA;
	d->param = dv.g;
	d->raw_len = (uint64_t)(p - out);
}

void fmt_encode_column(struct fmt_hist *h, enum fmt_col col,
		       const struct ist_record *recs, size_t n, uint8_t *out,
		       struct fmt_coldesc *d)
{
	d->store = FMT_STORE_PLAIN;
	switch (col) {
	case FMT_COL_T: enc_t(recs, n, out, d); break;
	case FMT_COL_DEV:
		enc_dev(recs, n, out, d);
		if (d->coding == FMT_CODE_RAW)
			enc_dev_mtf(recs, n, out, d);
		break;
	case FMT_COL_OP: enc_op(recs, n, out, d); break;
	case FMT_COL_FLAGS: enc_flags(recs, n, out, d); break;
	case FMT_COL_LEN: enc_len(recs, n, out, d); break;
	case FMT_COL_OFFSET: enc_offset(h, recs, n, out, d); break;
	case FMT_COL_LAT:
		enc_lat(recs, n, out, d);
		if (d->coding == FMT_CODE_RAW)
			enc_lat_cdelta(recs, n, out, d);
		break;
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
			if (c->w == 1)                                         \
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

int fmt_colcur_init(struct fmt_colcur *c, struct fmt_hist *h, enum fmt_col col,
		    const struct fmt_coldesc *d, const uint8_t *in, size_t n)
{
	memset(c, 0, sizeof(*c));
	c->d = *d;
	c->col = col;
	c->p = in;
	c->end = in + d->raw_len;
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
	if (c->d.coding == FMT_CODE_SEQ || c->d.coding == FMT_CODE_HIST)
		return dec_offset(h, c, recs, m);
	if (c->d.coding == FMT_CODE_MTF)
		return dec_dev_mtf(c, recs, m);
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

int fmt_colcur_finish(const struct fmt_colcur *c)
{
	if (c->d.coding == FMT_CODE_DICT || c->d.coding == FMT_CODE_CONST)
		return 0; /* sizes checked at init */
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
