/* SPDX-License-Identifier: MIT */
/* test_format.c - CUnit suite of the IST format: codecs, writer, reader, footer, recovery. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include "cutest.h"
#include "format/fmt.h"
#include "ans_lanes.h"

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char buf[256];

	if (!tmpdir[0]) {
		strcpy(tmpdir, "/tmp/test_format.XXXXXX");
		if (!mkdtemp(tmpdir))
			abort();
	}
	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int rec_eq(const struct ist_record *a, const struct ist_record *b)
{
	return a->t_ns == b->t_ns && a->offset == b->offset &&
	       a->lat_ns == b->lat_ns && a->stream == b->stream &&
	       a->txn == b->txn && a->len == b->len && a->dev == b->dev &&
	       a->flags == b->flags && a->op == b->op;
}

/* A record with random, often extreme, field values. */
static void random_record(struct ist_record *r, uint64_t *t)
{
	uint64_t x = rnd();

	memset(r, 0, sizeof(*r));
	switch (x % 8) {
	case 0: *t = rnd(); break;                 /* jump anywhere, 2^64-1 too */
	case 1: break;                             /* equal timestamp */
	case 2: *t -= rnd() % 1000; break;         /* backwards */
	default: *t += rnd() % 100000; break;
	}
	if (x % 97 == 0)
		*t = UINT64_MAX;
	r->t_ns = *t;
	switch ((x >> 8) % 6) {
	case 0: r->offset = UINT64_MAX - rnd() % 4096; break;
	case 1: r->offset = 0; break;
	case 2: r->offset = rnd(); break;
	default: r->offset = (rnd() % (1u << 30)) * 512; break;
	}
	switch ((x >> 16) % 5) {
	case 0: r->len = UINT32_MAX; break;
	case 1: r->len = 0; break;
	default: r->len = 512u << (rnd() % 8); break;
	}
	r->lat_ns = (x >> 24) % 3 ? rnd() % 10000000 : ((x >> 24) % 2 ? UINT64_MAX : 0);
	r->stream = (x >> 28) % 3 == 0 ? (1ull << 32) + rnd() % 5 : rnd() % 4;
	r->txn = (x >> 32) % 4 == 0 ? UINT64_MAX - rnd() % 3 : rnd() % 1000;
	r->dev = (uint32_t)((x >> 36) % 3);
	r->op = (uint8_t)((x >> 40) % IST_OP_COUNT);
	r->flags = (uint16_t)((x >> 44) & IST_F_ALL);
}

static ist_header *sample_header(void)
{
	ist_header *h = ist_header_new();

	ist_header_set(h, "source", "test_format");
	ist_header_set(h, "note", "tab\there, newline\nthere, = and \\");
	ist_header_add_device(h, "sda", 1ull << 40, 512);
	ist_header_add_device(h, "nvme0n1", 0, 4096);
	ist_header_add_device(h, "dm-0 (a name with spaces)", 123, 0);
	return h;
}

/* Writes n records from recs to path; returns 0 or the error. */
static int write_file(const char *path, const struct ist_record *recs, size_t n,
		      unsigned chunk)
{
	struct ist_writer_opts o = { .chunk_records = chunk };
	ist_header *h = sample_header();
	ist_writer *w;
	int ret;

	ret = ist_writer_open(&w, path, h, &o);
	ist_header_free(h);
	if (ret)
		return ret;
	ret = ist_writer_write(w, recs, n);
	if (ret) {
		ist_writer_abort(w);
		return ret;
	}
	return ist_writer_close(w);
}

/* Reads every record of path into a new array; count in *n. */
static struct ist_record *read_all(const char *path, size_t *n, size_t step)
{
	ist_reader *r;
	struct ist_record *a = NULL;
	size_t cap = 0;
	ssize_t k;

	*n = 0;
	if (ist_reader_open(&r, path))
		return NULL;
	for (;;) {
		if (cap - *n < step) {
			cap = cap * 2 + step;
			a = realloc(a, cap * sizeof(*a));
		}
		k = ist_reader_read(r, a + *n, step);
		if (k <= 0)
			break;
		*n += (size_t)k;
	}
	ist_reader_close(r);
	return a;
}

/* Writes the n records r to path with the options o, reads them back
 * (step records a read) and checks every field of every record. */
static void write_read_back(const char *path, const struct ist_writer_opts *o,
			    const struct ist_record *r, size_t n, size_t step)
{
	struct ist_record *b;
	size_t nb, bad = 0;
	ist_writer *w;

	CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, path, NULL, o), 0);
	CU_ASSERT_EQUAL_FATAL(ist_writer_write(w, r, n), 0);
	CU_ASSERT_EQUAL_FATAL(ist_writer_close(w), 0);
	b = read_all(path, &nb, step);
	CU_ASSERT_EQUAL_FATAL(nb, n);
	for (size_t i = 0; i < n; i++)
		bad += !rec_eq(&b[i], &r[i]);
	CU_ASSERT_EQUAL(bad, 0);
	free(b);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	if (fread(b, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void spit(const char *path, const uint8_t *b, size_t len)
{
	FILE *f = fopen(path, "wb");

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(fwrite(b, 1, len, f) == len);
	fclose(f);
}

/* ------------------------------------------------------------ varint */

static void test_varint_zigzag(void)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, 255, 16383, 16384,
		UINT32_MAX, (1ull << 56) - 1, 1ull << 56, (1ull << 63) - 1,
		1ull << 63, UINT64_MAX };
	uint8_t buf[16];

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		const uint8_t *p = buf;
		uint64_t v;
		size_t n = fmt_put_varint(buf, vals[i]);

		CU_ASSERT_EQUAL(n, fmt_varint_len(vals[i]));
		CU_ASSERT(n >= 1 && n <= 10);
		CU_ASSERT_EQUAL(fmt_get_varint(&p, buf + n, &v), 0);
		CU_ASSERT_EQUAL(v, vals[i]);
		CU_ASSERT_PTR_EQUAL(p, buf + n);
		/* every truncation fails */
		for (size_t k = 0; k < n; k++) {
			p = buf;
			CU_ASSERT_EQUAL(fmt_get_varint(&p, buf + k, &v), IST_ECORRUPT);
		}
		CU_ASSERT_EQUAL(fmt_unzigzag(fmt_zigzag((int64_t)vals[i])),
				(int64_t)vals[i]);
	}
	CU_ASSERT_EQUAL(fmt_zigzag(0), 0);
	CU_ASSERT_EQUAL(fmt_zigzag(-1), 1);
	CU_ASSERT_EQUAL(fmt_zigzag(1), 2);
	CU_ASSERT_EQUAL(fmt_zigzag(INT64_MIN), UINT64_MAX);
	CU_ASSERT_EQUAL(fmt_zigzag(INT64_MAX), UINT64_MAX - 1);
	/* 11 continuation bytes, and a 10th byte overflowing 64 bits */
	memset(buf, 0x80, sizeof(buf));
	{
		const uint8_t *p = buf;
		uint64_t v;

		CU_ASSERT_EQUAL(fmt_get_varint(&p, buf + 16, &v), IST_ECORRUPT);
		memset(buf, 0xff, 9);
		buf[9] = 0x02;
		p = buf;
		CU_ASSERT_EQUAL(fmt_get_varint(&p, buf + 10, &v), IST_ECORRUPT);
		buf[9] = 0x01;
		p = buf;
		CU_ASSERT_EQUAL(fmt_get_varint(&p, buf + 10, &v), 0);
		CU_ASSERT_EQUAL(v, UINT64_MAX);
	}
	/* little-endian helpers */
	fmt_put64(buf, 0x0102030405060708ull);
	CU_ASSERT_EQUAL(buf[0], 8);
	CU_ASSERT_EQUAL(buf[7], 1);
	CU_ASSERT_EQUAL(fmt_get64(buf), 0x0102030405060708ull);
	fmt_put32(buf, 0xa1b2c3d4u);
	CU_ASSERT_EQUAL(buf[0], 0xd4);
	CU_ASSERT_EQUAL(fmt_get32(buf), 0xa1b2c3d4u);
	fmt_put16(buf, 0xbeef);
	CU_ASSERT_EQUAL(fmt_get16(buf), 0xbeef);
}

/* ------------------------------------------------------------ ANS */

/* Codes in[0..len) with ANS (it must pay), decodes it back, then checks
 * that every shorter stored length and flipped table byte is refused. */
static void ans_roundtrip(const uint8_t *in, size_t len, size_t prefix,
			  int one_symbol)
{
	static struct fmt_ans_dec t;
	uint8_t *out = malloc(len + FMT_PAD), *tmp = malloc(FMT_ANS_TMP(len));
	uint8_t *back = malloc(len + 1);
	size_t z;

	z = fmt_ans_encode(in, len, prefix, out, len, tmp);
	CU_ASSERT_FATAL(z > 0 && z < len);
	CU_ASSERT_EQUAL(fmt_ans_decode(&t, out, z, back, len), 0);
	CU_ASSERT(memcmp(in, back, len) == 0);
	/* a wrong count is seen unless the state never moves (a single
	 * symbol: the column's own length checks catch that) */
	if (!one_symbol) {
		CU_ASSERT_EQUAL(fmt_ans_decode(&t, out, z, back, len - 1),
				IST_ECORRUPT);
		CU_ASSERT_EQUAL(fmt_ans_decode(&t, out, z, back, len + 1),
				IST_ECORRUPT);
	}
	for (size_t k = 0; k < z; k += 1 + k / 64)
		CU_ASSERT_EQUAL(fmt_ans_decode(&t, out, k, back, len), IST_ECORRUPT);
	/* not enough room: no ANS */
	CU_ASSERT_EQUAL(fmt_ans_encode(in, len, prefix, out, z, tmp), 0);
	/* in two steps: the same bytes, the estimate within its error */
	{
		static struct fmt_ans_plan p;
		uint8_t *two = malloc(len + FMT_PAD);
		size_t e = fmt_ans_plan(&p, in, len, prefix, len, tmp);

		CU_ASSERT_FATAL(e > 0);
		CU_ASSERT(e <= z + FMT_ANS_EST_ERR(len) &&
			  z <= e + FMT_ANS_EST_ERR(len));
		CU_ASSERT_EQUAL(fmt_ans_write(&p, in, two, len, tmp), z);
		CU_ASSERT(memcmp(out, two, z) == 0);
		/* a plan that does not pay is no plan */
		CU_ASSERT_EQUAL(fmt_ans_plan(&p, in, len, prefix, e / 2, tmp), 0);
		CU_ASSERT_EQUAL(fmt_ans_write(&p, in, two, len, tmp), 0);
		free(two);
	}
	free(out);
	free(tmp);
	free(back);
}

static void test_ans(void)
{
	enum { N = 200000 };
	static struct fmt_ans_dec t;
	uint8_t *b = malloc(N + FMT_PAD), out[64];

	/* varints of skewed magnitudes (4 contexts) */
	{
		size_t n = 0;

		while (n + 10 < N)
			n += fmt_put_varint(b + n, rnd() >> (rnd() % 64));
		ans_roundtrip(b, n, 0, 0);
		/* HIST-like: symbols then varints (model 2) */
		for (size_t i = 0; i < 5000; i++)
			b[i] = (uint8_t)(rnd() % 3 ? 0 : rnd() % 17);
		ans_roundtrip(b, n, 5000, 0);
		ans_roundtrip(b, n, 4999, 0);
	}
	/* two symbols, one of them rare (frequency 1 of 4096) */
	for (size_t i = 0; i < N; i++)
		b[i] = rnd() % 100000 ? 3 : 200;
	ans_roundtrip(b, N, 0, 0);
	/* one symbol only (frequency 4096: the state never moves) */
	memset(b, 0x81, 1000);
	ans_roundtrip(b, 1000, 0, 1);
	/* every byte value, skewed */
	for (size_t i = 0; i < N; i++)
		b[i] = (uint8_t)(rnd() % (1 + rnd() % 256));
	ans_roundtrip(b, N, 0, 0);
	/* random input: ANS does not pay */
	for (size_t i = 0; i < N; i++)
		b[i] = (uint8_t)rnd();
	{
		uint8_t *tmp = malloc(FMT_ANS_TMP(N));

		CU_ASSERT_EQUAL(fmt_ans_encode(b, N, 0, tmp, N, tmp + N), 0);
		free(tmp);
	}
	/* garbage never crashes the decoder */
	for (int k = 0; k < 20000; k++) {
		size_t n = rnd() % 48;

		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)(rnd() % 4 ? rnd() % 3 : rnd());
		(void)fmt_ans_decode(&t, b, n, out, rnd() % 64);
	}
	/* a table not summing to 4096, an unknown model */
	{
		const uint8_t bad1[] = { 0, 1, 7, 0x80, 0x10, 0, 0, 1, 0, 0, 0, 1, 0 };
		const uint8_t bad2[] = { 2, 1, 7, 0xff, 0x1f, 0, 0, 1, 0, 0, 0, 1, 0 };
		const uint8_t good[] = { 0, 1, 7, 0xff, 0x1f, 0, 0, 1, 0, 0, 0, 1, 0 };

		CU_ASSERT_EQUAL(fmt_ans_decode(&t, bad1, sizeof(bad1), out, 3),
				IST_ECORRUPT);
		CU_ASSERT_EQUAL(fmt_ans_decode(&t, bad2, sizeof(bad2), out, 3),
				IST_ECORRUPT);
		/* one symbol 7 of frequency 4096, states at 2^16: 3 x 7 */
		CU_ASSERT_EQUAL(fmt_ans_decode(&t, good, sizeof(good), out, 3), 0);
		CU_ASSERT(out[0] == 7 && out[1] == 7 && out[2] == 7);
	}
	free(b);
}

/*
 * fmt_ans_decode_jobs(): columns of every model (varints in 4 contexts,
 * a HIST prefix of even and odd length, model 0, one symbol, a few
 * bytes) decoded two at a time give the bytes of fmt_ans_decode() one by
 * one, in any order and number of jobs; a damaged column among them makes
 * the whole call fail exactly when it fails alone.
 */
static void test_ans_jobs(void)
{
	enum { NJ = 8, N = 40000 };
	static struct fmt_ans_dec t0, t1;
	struct fmt_ans_dec *const t[2] = { &t0, &t1 };
	struct fmt_ans_job jobs[NJ], sub[NJ];
	uint8_t *src[NJ], *enc[NJ], *tmp = malloc(FMT_ANS_TMP(N));
	size_t len[NJ], z[NJ];

	rng = 4242;
	for (unsigned j = 0; j < NJ; j++) {
		size_t n = 0, prefix = 0, cap = N - 16 * j;
		uint8_t *b = src[j] = malloc(N + FMT_PAD);

		switch (j) {
		case 0: /* varints of skewed magnitudes */
			while (n + 10 < cap)
				n += fmt_put_varint(b + n, rnd() >> (rnd() % 64));
			break;
		case 1: /* HIST symbols, then varints (model 2) */
		case 2: /* an odd prefix */
			prefix = j == 1 ? 3000 : 2999;
			for (; n < prefix; n++)
				b[n] = (uint8_t)(rnd() % 3 ? 0 : rnd() % 17);
			while (n + 10 < cap)
				n += fmt_put_varint(b + n, rnd() % 5000);
			break;
		case 3: /* small bytes below 0x80 (model 0) */
			for (; n < cap - 1; n++)
				b[n] = (uint8_t)(rnd() % (1 + rnd() % 100));
			break;
		case 4: /* one symbol */
			memset(b, 0x81, n = 1001);
			break;
		case 6: /* a short column, a few bytes more than the lanes'
			 * unchecked rounds take */
			for (; n < 61; n++)
				b[n] = rnd() % 4 ? 0x81 : 0x01;
			b[n++] = 0x01;
			break;
		case 5: /* two symbols, one rare */
			for (; n < cap; n++)
				b[n] = rnd() % 1000 ? 0x90 : 5;
			break;
		default: /* lengths in 1-3 bytes, odd total */
			while (n + 10 < cap / 3)
				n += fmt_put_varint(b + n, rnd() % 300000);
			n -= !(n & 1) && b[n - 1] < 0x80 && b[n - 2] < 0x80;
			break;
		}
		len[j] = n;
		enc[j] = malloc(N + FMT_PAD);
		z[j] = fmt_ans_encode(b, n, prefix, enc[j], n, tmp);
		CU_ASSERT_FATAL(z[j] > 0);
		memset(enc[j] + z[j], 0, FMT_PAD);
		jobs[j].in = enc[j];
		jobs[j].inlen = z[j];
		jobs[j].out = malloc(N + FMT_PAD);
		jobs[j].want = n;
		/* readable past the column's end (its pad, and for some
		 * the rest of the buffer): the lanes may read ahead */
		jobs[j].limit = j % 2 ? enc[j] + z[j] + FMT_PAD : NULL;
		if (j == 3)
			jobs[j].limit = enc[j] + N + FMT_PAD;
	}
	/* subsets of 0..NJ jobs, in turned orders */
	for (unsigned k = 0; k <= NJ; k++) {
		for (unsigned j = 0; j < k; j++) {
			sub[j] = jobs[(j * 3 + k) % NJ];
			memset(sub[j].out, 0xee, sub[j].want);
		}
		CU_ASSERT_EQUAL(fmt_ans_decode_jobs(t, sub, k), 0);
		for (unsigned j = 0; j < k; j++) {
			unsigned c = (j * 3 + k) % NJ;

			CU_ASSERT(memcmp(sub[j].out, src[c], len[c]) == 0);
		}
	}
	/* one damaged column among the others: a shorter stream, a wrong
	 * count, a flipped byte: refused exactly when refused alone */
	for (unsigned d = 0; d < NJ; d++) {
		for (int how = 0; how < 8; how++) {
			struct fmt_ans_job bad = jobs[d];
			uint8_t *copy = malloc(z[d] + FMT_PAD);
			int alone;

			memcpy(copy, enc[d], z[d] + FMT_PAD);
			bad.in = copy;
			/* readable to the pad's end: a stream cut short
			 * reads on into it, and is refused all the same */
			bad.limit = copy + z[d] + FMT_PAD;
			if (how == 0)
				bad.inlen -= 2;
			else if (how == 1)
				bad.want++;
			else if (how == 2 && bad.want > 1)
				bad.want--;
			else
				copy[rnd() % z[d]] ^= (uint8_t)(1 + rnd() % 255);
			alone = fmt_ans_decode(&t0, bad.in, bad.inlen,
					       bad.out, bad.want);
			memcpy(sub, jobs, sizeof(jobs));
			sub[d] = bad;
			CU_ASSERT_EQUAL(fmt_ans_decode_jobs(t, sub, NJ), alone);
			free(copy);
		}
	}
	/* garbage among good columns never crashes */
	for (int k = 0; k < 3000; k++) {
		uint8_t g[64 + FMT_PAD] = { 0 }, out[64 + FMT_PAD];
		size_t n = rnd() % 48;

		for (size_t i = 0; i < n; i++)
			g[i] = (uint8_t)(rnd() % 4 ? rnd() % 3 : rnd());
		memcpy(sub, jobs, sizeof(jobs));
		sub[k % NJ].in = g;
		sub[k % NJ].inlen = n;
		sub[k % NJ].out = out;
		sub[k % NJ].want = rnd() % 64;
		sub[k % NJ].limit = k % 2 ? g + n + FMT_PAD : NULL;
		(void)fmt_ans_decode_jobs(t, sub, NJ);
	}
	for (unsigned j = 0; j < NJ; j++) {
		free(src[j]);
		free(enc[j]);
		free((void *)jobs[j].out);
	}
	free(tmp);
}

/*
 * The decoding tables fmt_ans_decode() builds (four entries a store with
 * SSE2, the last vector of a symbol running into the next one's slots,
 * one by one past a row's end): every entry of every used row as the
 * model's table bytes say, symbol | (slot - start) << 8 | (frequency -
 * 1) << 20, for tables of many rare symbols (frequencies 1-3, the
 * last symbol of a row 1, 2, 3 or more slots wide), one symbol, and
 * the contexts and prefix of models 1 and 2.
 */
static void test_ans_tables(void)
{
	enum { N = 30000 };
	static struct fmt_ans_dec t;
	uint8_t *in = malloc(N), *enc = malloc(2 * N + 64);
	uint8_t *out = malloc(N + FMT_PAD), *tmp = malloc(FMT_ANS_TMP(N));

	rng = 99;
	for (int k = 0; k < 40; k++) {
		size_t n = 0, prefix = 0, z, rows_checked = 0;
		const uint8_t *q, *end;
		unsigned kind, nrows;
		uint64_t v;

		switch (k % 4) {
		case 0: /* many symbols, most rare; the top one rarest */
			for (; n < N; n++)
				in[n] = (uint8_t)(rnd() % 8 ? rnd() % (8 + k) :
						  255 - rnd() % 200);
			in[N / 2] = 255;
			break;
		case 1: /* one symbol, a second rare one */
			memset(in, 0x21, n = N - k);
			/* the rare one after the common one, or before:
			 * the last symbol of the row 4095 slots wide */
			in[n / 3] = (uint8_t)(k % 8 < 4 ? 0x22 + k : 0x10);
			break;
		case 2: /* varints (model 1) */
			while (n + 10 < N)
				n += fmt_put_varint(in + n, rnd() >> (rnd() % 64));
			break;
		default: /* a HIST prefix, then varints (model 2) */
			prefix = 2000 + (size_t)k;
			for (; n < prefix; n++)
				in[n] = (uint8_t)(rnd() % 3 ? 16 : rnd() % 17);
			while (n + 10 < N)
				n += fmt_put_varint(in + n, rnd() % (1000u << k % 13));
			break;
		}
		z = fmt_ans_encode(in, n, prefix, enc, 2 * N, tmp);
		CU_ASSERT_FATAL(z > 0);
		memset(out, 0xee, n);
		CU_ASSERT_EQUAL_FATAL(fmt_ans_decode(&t, enc, z, out, n), 0);
		CU_ASSERT(memcmp(out, in, n) == 0);
		/* the rows as the table bytes say */
		q = enc;
		end = enc + z;
		kind = *q++;
		nrows = kind == 0 ? 1 : kind == 1 ? FMT_ANS_CTX : FMT_ANS_CTX + 1;
		if (kind == 2)
			CU_ASSERT_FATAL(fmt_get_varint(&q, end, &v) == 0);
		for (unsigned c = 0; c < nrows; c++) {
			uint64_t nsym = 0, gap = 0, f = 0;
			unsigned sym = 0, st = 0, bad = 0;

			CU_ASSERT_FATAL(fmt_get_varint(&q, end, &nsym) == 0);
			for (uint64_t y = 0; y < nsym; y++) {
				CU_ASSERT_FATAL(fmt_get_varint(&q, end, &gap) == 0);
				CU_ASSERT_FATAL(fmt_get_varint(&q, end, &f) == 0);
				sym += (unsigned)gap;
				for (unsigned j = 0; j <= f; j++)
					bad += t.tab[c][st + j] !=
					       (sym | (uint32_t)f << 20 | j << 8);
				st += (unsigned)f + 1;
				sym++;
			}
			CU_ASSERT(nsym == 0 || st == 1u << FMT_ANS_BITS);
			CU_ASSERT_EQUAL(bad, 0);
			rows_checked += nsym != 0;
		}
		CU_ASSERT(rows_checked >= 1);
	}
	free(in);
	free(enc);
	free(out);
	free(tmp);
}

/*
 * Two ANS columns of the same length stored back to back, as in a chunk:
 * one coded in a few words (nearly all zeros, as tencent-cbs' times), one
 * in many (varints).  Given the buffer as readable, the lanes run both to
 * the end together (no more than a segment's last bytes decoded by one
 * lane alone), where a lane used to stop pairing once the short stream
 * had fewer than 16 bytes left; without it (limit NULL) the bytes and the
 * result are the same.  A column cut short, with the next column's bytes
 * after it, or with a damaged last word, is refused as alone.
 */
static void test_ans_jobs_together(void)
{
	enum { N = 50000 };
	static struct fmt_ans_dec t0, t1;
	struct fmt_ans_dec *const t[2] = { &t0, &t1 };
	struct fmt_ans_job jobs[2], bad[2];
	uint8_t *a = malloc(N), *b = malloc(N), *tmp = malloc(FMT_ANS_TMP(N));
	uint8_t *buf = malloc(4 * N + FMT_PAD);
	uint8_t *oa = malloc(N + FMT_PAD), *ob = malloc(N + FMT_PAD);
	size_t za, zb, nb = 0;
	unsigned long before;

	rng = 777;
	for (size_t i = 0; i < N; i++)
		a[i] = rnd() % 500 ? 0 : 1 + rnd() % 2;
	while (nb + 10 < N)
		nb += fmt_put_varint(b + nb, rnd() % 100000);
	while (nb < N)
		b[nb++] = (uint8_t)(rnd() % 100);
	za = fmt_ans_encode(a, N, 0, buf, N, tmp);
	zb = fmt_ans_encode(b, N, 0, buf + za, 2 * N, tmp);
	CU_ASSERT_FATAL(za > 0 && za < 1000 && zb > 10000);
	memset(buf + za + zb, 0, FMT_PAD);
	for (int lim = 0; lim < 2; lim++) {
		jobs[0] = (struct fmt_ans_job){ buf, za, oa, N,
						lim ? buf + za + zb + FMT_PAD : NULL };
		jobs[1] = (struct fmt_ans_job){ buf + za, zb, ob, N,
						lim ? buf + za + zb + FMT_PAD : NULL };
		memset(oa, 0xee, N);
		memset(ob, 0xee, N);
		before = fmt_ans_alone_bytes;
		CU_ASSERT_EQUAL(fmt_ans_decode_jobs(t, jobs, 2), 0);
		CU_ASSERT(memcmp(oa, a, N) == 0 && memcmp(ob, b, N) == 0);
		if (lim) {
			CU_ASSERT(fmt_ans_alone_bytes - before < 16);
		} else {
			CU_ASSERT(fmt_ans_alone_bytes - before > 1000);
		}
	}
	/* the short column cut by a word, or ending a word early (the
	 * next column's bytes readable after it), in either lane */
	for (int how = 0; how < 4; how++) {
		memcpy(bad, jobs, sizeof(bad));
		if (how == 0)
			bad[0].inlen -= 2;
		else if (how == 1)
			bad[1].inlen -= 2;
		else if (how == 2)
			bad[0].want -= 1;
		else
			bad[0].want += 1;
		if (how == 1) {
			CU_ASSERT_EQUAL(fmt_ans_decode(&t0, bad[1].in, bad[1].inlen,
						       ob, bad[1].want),
					IST_ECORRUPT);
		} else {
			CU_ASSERT_EQUAL(fmt_ans_decode(&t0, bad[0].in, bad[0].inlen,
						       oa, bad[0].want),
					IST_ECORRUPT);
		}
		CU_ASSERT_EQUAL(fmt_ans_decode_jobs(t, bad, 2), IST_ECORRUPT);
		/* the other order of lanes */
		{
			struct fmt_ans_job sw[2] = { bad[1], bad[0] };

			CU_ASSERT_EQUAL(fmt_ans_decode_jobs(t, sw, 2), IST_ECORRUPT);
		}
	}
	/* a flipped byte anywhere in the short column: as alone */
	for (size_t k = 0; k < za; k++) {
		uint8_t save = buf[k];
		int alone;

		buf[k] ^= (uint8_t)(1 + rnd() % 255);
		alone = fmt_ans_decode(&t0, buf, za, oa, N);
		CU_ASSERT_EQUAL(fmt_ans_decode_jobs(t, jobs, 2), alone);
		buf[k] = save;
	}
	free(a);
	free(b);
	free(tmp);
	free(buf);
	free(oa);
	free(ob);
}

/* ------------------------------------------------------------ ARITH */

/* Codes in[0..len) with ARITH (it must pay, in the mode expected),
 * decodes it back, then checks that every shorter stored length, a byte
 * more, a wrong count and a flipped byte are refused or never crash. */
static void arith_roundtrip(const uint8_t *in, size_t len, size_t prefix,
			    int mode)
{
	uint8_t *out = malloc(len + 16), *back = malloc(len + 16);
	size_t z;

	z = fmt_arith_encode(in, len, prefix, out, len + 16);
	CU_ASSERT_FATAL(z > 0 && z < len + 16);
	CU_ASSERT_EQUAL(out[0] & 15, mode);
	CU_ASSERT_EQUAL(fmt_arith_decode(out, z, back, len), 0);
	CU_ASSERT(memcmp(in, back, len) == 0);
	/* a byte less or more is refused, unless the most probable
	 * continuation (a 0) costs less than the range coder's last byte:
	 * then the bytes are the same plus or minus a 0 (the column's exact
	 * length check refuses those) */
	if (fmt_arith_decode(out, z, back, len - 1) == 0) {
		CU_ASSERT(memcmp(in, back, len - 1) == 0 && in[len - 1] == 0);
	}
	if (fmt_arith_decode(out, z, back, len + 1) == 0)
		CU_ASSERT(memcmp(in, back, len) == 0 && back[len] == 0);
	for (size_t k = 0; k < z; k += 1 + k / 64)
		CU_ASSERT_EQUAL(fmt_arith_decode(out, k, back, len), IST_ECORRUPT);
	out[z] = 0;
	CU_ASSERT_EQUAL(fmt_arith_decode(out, z + 1, back, len), IST_ECORRUPT);
	for (size_t k = 0; k < z; k += 1 + k / 16) {
		out[k] ^= 0x10;
		(void)fmt_arith_decode(out, z, back, len);
		out[k] ^= 0x10;
	}
	/* not enough room: no ARITH */
	CU_ASSERT_EQUAL(fmt_arith_encode(in, len, prefix, out, z), 0);
	free(out);
	free(back);
}

static void test_arith(void)
{
	enum { N = 100000 };
	uint8_t *b = malloc(N + 16), out[64];
	size_t n = 0;

	/* values of every magnitude, extremes included (value mode) */
	while (n + 10 < N) {
		uint64_t x = rnd();

		switch (x % 8) {
		case 0: x = UINT64_MAX - rnd() % 3; break;
		case 1: x = rnd() % 3; break;
		case 2: x = (uint64_t)1 << (rnd() % 64); break;
		default: x >>= rnd() % 64; break;
		}
		n += fmt_put_varint(b + n, x);
	}
	arith_roundtrip(b, n, 0, FMT_ARITH_VALUES);
	/* HIST-like symbols first, then the misses */
	for (size_t i = 0; i < 3000; i++)
		b[i] = (uint8_t)(rnd() % 3 ? 0 : rnd() % 17);
	arith_roundtrip(b, n, 3000, FMT_ARITH_VALUES);
	/* a small column: 1000 log-uniform times (the adaptive rate 4) */
	n = 0;
	for (size_t i = 0; i < 1000; i++)
		n += fmt_put_varint(b + n, rnd() >> (40 + rnd() % 24));
	arith_roundtrip(b, n, 0, FMT_ARITH_VALUES);
	/* bytes that are not canonical varints (DICT bits): byte mode */
	for (size_t i = 0; i < 5000; i++)
		b[i] = (uint8_t)(rnd() % 4 ? 0x81 : 0x80 | (rnd() & 0x0f));
	b[4999] = 0x80; /* ends inside a varint */
	arith_roundtrip(b, 5000, 0, FMT_ARITH_BYTES);
	arith_roundtrip(b, 5000, 100, FMT_ARITH_BYTES);
	/* an overlong varint (0x80 0x00 is 0 in two bytes) is not a value */
	memset(b, 0, 64);
	b[10] = 0x80;
	arith_roundtrip(b, 64, 0, FMT_ARITH_BYTES);
	/* the whole column a prefix */
	memset(b, 16, 500);
	arith_roundtrip(b, 500, 500, FMT_ARITH_VALUES);
	/* random bytes: ARITH does not pay */
	for (size_t i = 0; i < N; i++)
		b[i] = (uint8_t)rnd();
	CU_ASSERT_EQUAL(fmt_arith_encode(b, N, 0, out, sizeof(out)), 0);
	{
		uint8_t *o = malloc(N);

		CU_ASSERT_EQUAL(fmt_arith_encode(b, N, 0, o, N), 0);
		free(o);
	}
	/* garbage never crashes the decoder */
	for (int k = 0; k < 20000; k++) {
		size_t m = rnd() % 48;

		for (size_t i = 0; i < m; i++)
			b[i] = (uint8_t)(rnd() % 4 ? rnd() % 3 : rnd());
		if (m && rnd() % 2)
			b[0] = (uint8_t)(rnd() % 2 | (4 + rnd() % 2) << 4);
		if (m > 2 && rnd() % 2)
			b[2] = 0;
		(void)fmt_arith_decode(b, m, out, rnd() % 64);
	}
	/* a bad mode, rate or prefix; a first code byte that is not 0 */
	{
		uint8_t in[40], enc[64];
		size_t z;

		for (size_t i = 0; i < sizeof(in); i++)
			in[i] = (uint8_t)(i % 5);
		z = fmt_arith_encode(in, sizeof(in), 4, enc, sizeof(enc));
		CU_ASSERT_FATAL(z > 0);
		CU_ASSERT_EQUAL(fmt_arith_decode(enc, z, out, sizeof(in)), 0);
		CU_ASSERT(memcmp(in, out, sizeof(in)) == 0);
		enc[0] = (uint8_t)((enc[0] & 0xf0) | 2);
		CU_ASSERT_EQUAL(fmt_arith_decode(enc, z, out, sizeof(in)),
				IST_ECORRUPT);
		enc[0] = (uint8_t)(FMT_ARITH_VALUES | (FMT_ARITH_SHIFT_MAX + 1) << 4);
		CU_ASSERT_EQUAL(fmt_arith_decode(enc, z, out, sizeof(in)),
				IST_ECORRUPT);
		enc[0] = (uint8_t)(FMT_ARITH_VALUES | (FMT_ARITH_SHIFT_MIN - 1) << 4);
		CU_ASSERT_EQUAL(fmt_arith_decode(enc, z, out, sizeof(in)),
				IST_ECORRUPT);
		enc[0] = (uint8_t)(FMT_ARITH_VALUES | 4 << 4);
		enc[1] = 41; /* prefix above the column */
		CU_ASSERT_EQUAL(fmt_arith_decode(enc, z, out, sizeof(in)),
				IST_ECORRUPT);
		enc[1] = 4;
		enc[2] = 1;
		CU_ASSERT_EQUAL(fmt_arith_decode(enc, z, out, sizeof(in)),
				IST_ECORRUPT);
		CU_ASSERT_EQUAL(fmt_arith_decode(enc, 0, out, sizeof(in)),
				IST_ECORRUPT);
	}
	free(b);
}

/* ------------------------------------------------------------ VANS */

/*
 * The stored VANS column out[0..z) of in[0..len) decoded into values
 * (fmt_vans_decode_values(), what the reader gives the column decoders):
 * kind 0, the prefix's bytes and exactly the values of the varints after
 * it; room for one value less, a truncation anywhere, a byte more or a
 * count off by one refused (or, a table of one symbol never moving the
 * states, the same values); kind 1 (bytes) refused as no values.
 */
static void vans_values_check(uint8_t *out, size_t z, const uint8_t *in,
			      size_t len, size_t prefix, int kind)
{
	const uint8_t *p = in + prefix, *end = in + len;
	uint64_t *v, x = 0;
	uint8_t *pre = malloc(len + 16); /* a damaged prefix count: up to len */
	size_t nvals = 0, np = 99, nv = 99, bad = 0;

	while (p < end && fmt_get_varint(&p, end, &x) == 0)
		nvals++;
	v = malloc((nvals + 2) * sizeof(*v));
	if (kind) {
		CU_ASSERT_EQUAL(fmt_vans_values(out, z), 0);
		CU_ASSERT_EQUAL(fmt_vans_decode_values(out, z, pre, len, v, nvals + 1,
						       &np, &nv), IST_ECORRUPT);
		CU_ASSERT_EQUAL(nv, 0);
		goto done;
	}
	CU_ASSERT(fmt_vans_values(out, z));
	CU_ASSERT_EQUAL_FATAL(fmt_vans_decode_values(out, z, pre, len, v, nvals,
						     &np, &nv), 0);
	CU_ASSERT_EQUAL(np, prefix);
	CU_ASSERT_EQUAL_FATAL(nv, nvals);
	CU_ASSERT(memcmp(pre, in, prefix) == 0);
	p = in + prefix;
	for (size_t i = 0; i < nv; i++) {
		CU_ASSERT_FATAL(fmt_get_varint(&p, end, &x) == 0);
		bad += x != v[i];
	}
	CU_ASSERT_EQUAL(bad, 0);
	if (nvals)
		CU_ASSERT_EQUAL(fmt_vans_decode_values(out, z, pre, len, v,
						       nvals - 1, &np, &nv),
				IST_ECORRUPT);
	for (size_t k = 0; k < z; k += 1 + k / 64)
		CU_ASSERT_EQUAL(fmt_vans_decode_values(out, k, pre, len, v, nvals,
						       &np, &nv), IST_ECORRUPT);
	out[z] = 0x5a;
	CU_ASSERT_EQUAL(fmt_vans_decode_values(out, z + 1, pre, len, v, nvals,
					       &np, &nv), IST_ECORRUPT);
	if (fmt_vans_decode_values(out, z, pre, len + 1, v, nvals + 1, &np,
				   &nv) == 0)
		CU_ASSERT(nv == nvals + 1 || np == prefix + 1);
	for (size_t k = 0; k < z; k += 1 + k / 16) {
		out[k] ^= 0x21;
		(void)fmt_vans_decode_values(out, z, pre, len, v, nvals, &np, &nv);
		out[k] ^= 0x21;
	}
done:
	free(v);
	free(pre);
}

/*
 * The writer's VANS entry (fmt_vans_encode_values(): the column's values
 * as the column coder gave them, in working memory the writer keeps) must
 * write exactly fmt_vans_encode()'s z bytes out of the varints of
 * in[prefix..len): with room to spare (the raw bits without a check
 * each), with room for z bytes and at most 8 more (the checked bit
 * writer, or nothing when the size estimate says it will not fit), with
 * less (nothing); its work reused for a second column, and too small a
 * work refused.
 */
static unsigned long vans_checked;

static void vans_values_same(const uint8_t *in, size_t len, size_t prefix,
			     const uint8_t *want, size_t z)
{
	const uint8_t *p = in + prefix, *end = in + len;
	size_t nv = 0, maxv = len + 8;
	uint64_t *v = malloc((len + 1) * sizeof(*v));
	uint8_t *out = malloc(len + 80);
	void *mem = malloc(fmt_vans_work_size(maxv));
	struct fmt_vans_work *wk = fmt_vans_work_init(mem, maxv);

	while (p < end && fmt_get_varint(&p, end, &v[nv]) == 0)
		nv++;
	for (int round = 0; round < 2; round++) {
		memset(out, 0xee, len + 80);
		CU_ASSERT_EQUAL(fmt_vans_encode_values(wk, in, prefix, v, nv, out,
						       len + 64), z);
		CU_ASSERT(memcmp(out, want, z) == 0);
		/* rooms within 8 bytes of z: the checked writer when the
		 * estimate lets the column be coded (vans_checked counts) */
		for (size_t lim = z + 1; lim <= z + 8; lim++) {
			size_t r;

			memset(out, 0xee, len + 80);
			r = fmt_vans_encode_values(wk, in, prefix, v, nv, out, lim);
			CU_ASSERT(r == 0 || r == z);
			if (r == z) {
				CU_ASSERT(memcmp(out, want, z) == 0);
				vans_checked++;
			}
			CU_ASSERT_EQUAL(out[lim], 0xee); /* nothing past it */
		}
		CU_ASSERT_EQUAL(fmt_vans_encode_values(wk, in, prefix, v, nv, out,
						       z), 0);
	}
	free(mem);
	if (nv > 1) {
		mem = malloc(fmt_vans_work_size(nv - 1));
		wk = fmt_vans_work_init(mem, nv - 1);
		CU_ASSERT_EQUAL(fmt_vans_encode_values(wk, in, prefix > nv - 1 ?
						       0 : prefix, v, nv, out,
						       len + 64), 0);
		free(mem);
	}
	free(v);
	free(out);
}

/* Codes in[0..len) with VANS (it must pay, in the kind expected: 0
 * values, 1 bytes), decodes it back, then checks that every shorter
 * stored length, a byte more and flipped bytes are refused or never
 * crash, and that a wrong count gives no other bytes. */
static void vans_roundtrip(const uint8_t *in, size_t len, size_t prefix,
			   int kind)
{
	uint8_t *out = malloc(len + 64), *back = malloc(len + 16);
	size_t z;

	z = fmt_vans_encode(in, len, prefix, out, len + 64);
	CU_ASSERT_FATAL(z > 0 && z < len + 64);
	CU_ASSERT_EQUAL((out[0] >> 6) & 1, kind);
	CU_ASSERT_EQUAL(fmt_vans_decode(out, z, back, len), 0);
	CU_ASSERT(memcmp(in, back, len) == 0);
	/* a count a byte off: refused, or (a table of one symbol, which
	 * never moves the states) the same bytes plus or minus one */
	if (len && fmt_vans_decode(out, z, back, len - 1) == 0)
		CU_ASSERT(memcmp(in, back, len - 1) == 0);
	if (fmt_vans_decode(out, z, back, len + 1) == 0)
		CU_ASSERT(memcmp(in, back, len) == 0);
	/* truncated anywhere, or a byte left over */
	for (size_t k = 0; k < z; k += 1 + k / 64)
		CU_ASSERT_EQUAL(fmt_vans_decode(out, k, back, len), IST_ECORRUPT);
	out[z] = 0;
	CU_ASSERT_EQUAL(fmt_vans_decode(out, z + 1, back, len), IST_ECORRUPT);
	out[z] = 0x5a;
	CU_ASSERT_EQUAL(fmt_vans_decode(out, z + 1, back, len), IST_ECORRUPT);
	for (size_t k = 0; k < z; k += 1 + k / 16) {
		out[k] ^= 0x21;
		(void)fmt_vans_decode(out, z, back, len);
		out[k] ^= 0x21;
	}
	vans_values_check(out, z, in, len, prefix, kind);
	if (kind == 0)
		vans_values_same(in, len, prefix, out, z);
	/* not enough room: no VANS */
	CU_ASSERT_EQUAL(fmt_vans_encode(in, len, prefix, out, z), 0);
	free(out);
	free(back);
}

/* n varints of values from distribution kind into b; returns bytes. */
static size_t vans_values(uint8_t *b, size_t n, unsigned kind)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t x = rnd();

		switch (kind % 6) {
		case 0: /* log-uniform, every magnitude, extremes */
			x >>= rnd() % 64;
			if (rnd() % 50 == 0)
				x = UINT64_MAX - rnd() % 3;
			break;
		case 1: /* geometric: mostly small */
			x = (uint64_t)__builtin_ctzll(rnd() | 1ull << 40);
			break;
		case 2: /* a few values */
			x = 1000 * (1 + rnd() % 5);
			break;
		case 3: /* constant */
			x = 77;
			break;
		case 4: /* times: 10-20 bits */
			x = rnd() % (1u << (10 + rnd() % 10));
			break;
		default: /* near 2^63 and 2^64 */
			x = (uint64_t)1 << 63 | rnd() >> (rnd() % 3);
			break;
		}
		o += fmt_put_varint(b + o, x);
	}
	return o;
}

static void test_vans(void)
{
	enum { N = 100000 };
	uint8_t *b = malloc(N + 16), out[64];
	size_t n;

	rng = 777;
	/* values of every magnitude (kind 0) */
	n = vans_values(b, 8000, 0);
	vans_roundtrip(b, n, 0, 0);
	/* 2^15 values and more (more than a chunk the writer gives VANS):
	 * the tables stay within L's 11 bits */
	n = vans_values(b, 60000, 1);
	vans_roundtrip(b, n, 0, 0);
	n = vans_values(b, 40000, 2);
	vans_roundtrip(b, n, 0, 0);
	/* HIST-like symbols first, then the misses */
	for (size_t i = 0; i < 1000; i++)
		b[i] = (uint8_t)(rnd() % 3 ? 0 : rnd() % 17);
	n = 1000 + vans_values(b + 1000, 700, 4);
	vans_roundtrip(b, n, 1000, 0);
	/* many random and skewed small columns, with and without a prefix */
	for (unsigned k = 0; k < 300; k++) {
		size_t m = 1 + rnd() % 3000, pre = k % 3 ? 0 : rnd() % 300;

		for (size_t i = 0; i < pre; i++)
			b[i] = (uint8_t)(k % 2 ? rnd() % 17 : 16);
		n = pre + vans_values(b + pre, m, k);
		if (n < 16)
			continue;
		/* a column VANS cannot shorten (random 64-bit values) is
		 * not coded; the others round-trip */
		if (fmt_vans_encode(b, n, pre, b + N / 2, n + 64))
			vans_roundtrip(b, n, pre, 0);
		else
			CU_ASSERT(k % 6 == 0 || k % 6 == 5);
	}
	/* bytes that are not canonical varints (DICT bits): kind 1 */
	for (size_t i = 0; i < 5000; i++)
		b[i] = (uint8_t)(rnd() % 4 ? 0x81 : 0x80 | (rnd() & 0x0f));
	b[4999] = 0x80; /* ends inside a varint */
	vans_roundtrip(b, 5000, 0, 1);
	vans_roundtrip(b, 5000, 100, 1);
	/* an overlong varint (0x80 0x00 is 0 in two bytes) is not a value */
	memset(b, 0, 64);
	b[10] = 0x80;
	vans_roundtrip(b, 64, 0, 1);
	/* the whole column a prefix; one value */
	memset(b, 16, 500);
	vans_roundtrip(b, 500, 500, 0);
	memset(b, 0, 500);
	vans_roundtrip(b, 500, 0, 0);
	/* the checked raw-bit writer coded some of those columns */
	CU_ASSERT(vans_checked > 0);
	/* random bytes: VANS does not pay */
	for (size_t i = 0; i < N; i++)
		b[i] = (uint8_t)rnd();
	CU_ASSERT_EQUAL(fmt_vans_encode(b, N, 0, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(fmt_vans_encode(b, 4000, 0, b + 8000, 4000), 0);
	/* garbage never crashes the decoder */
	for (int k = 0; k < 20000; k++) {
		size_t m = rnd() % 48;

		for (size_t i = 0; i < m; i++)
			b[i] = (uint8_t)(rnd() % 4 ? rnd() % 3 : rnd());
		if (m > 3 && rnd() % 2) {
			b[0] = (uint8_t)(rnd() % 9 | (rnd() % 2) << 6);
			b[1] = (uint8_t)(rnd() % 4);
			b[2] = (uint8_t)(8 + 2 * (rnd() % 8));
		}
		(void)fmt_vans_decode(b, m, out, rnd() % 64);
	}
	free(b);
}

/* VANS values at the edges, each column decoded to bytes and to values:
 * all 0 (one class), all 2^64 - 1, every bit length 0 to 64 (its
 * smallest and largest value and random ones), in a column of 65536
 * values as the writer's large chunks give, with and without a HIST
 * prefix. */
static void test_vans_values_edges(void)
{
	enum { N = 65536 };
	uint8_t *b = malloc(N * 10 + N + 16);
	size_t n;

	rng = 4242;
	n = 0;
	for (size_t i = 0; i < N; i++)
		n += fmt_put_varint(b + n, 0);
	vans_roundtrip(b, n, 0, 0);
	n = 0;
	for (size_t i = 0; i < 3000; i++)
		n += fmt_put_varint(b + n, UINT64_MAX);
	vans_roundtrip(b, n, 0, 0);
	for (unsigned pass = 0; pass < 2; pass++) {
		size_t pre = pass ? N : 0;

		for (size_t i = 0; i < pre; i++)
			b[i] = (uint8_t)(rnd() % 4 ? FMT_HIST : rnd() % FMT_HIST);
		n = pre;
		for (size_t i = 0; i < (pass ? N / 4 : N); i++) {
			unsigned bits = (unsigned)(i % 65);
			uint64_t x;

			if (!bits)
				x = 0;
			else if (i / 65 % 3 == 0)
				x = (uint64_t)1 << (bits - 1);
			else if (i / 65 % 3 == 1)
				x = UINT64_MAX >> (64 - bits);
			else
				x = (uint64_t)1 << (bits - 1) |
				    (bits > 1 ? rnd() & (UINT64_MAX >> (65 - bits)) : 0);
			n += fmt_put_varint(b + n, x);
		}
		vans_roundtrip(b, n, pre, 0);
	}
	free(b);
}

/*
 * The column decoders reading values (a VANS column decoded by
 * fmt_vans_decode_values()) give what they give reading the varints:
 * the same records, or the same refusal (a value too large for its
 * field), for every coding they take, in small chunks and in large ones
 * (HIST without its branch), read in two blocks.  A value more or less
 * than one a record (a HIST miss short of its value) is refused; MTF and
 * DICT columns are left to the varints.
 */
static void test_colcur_values(void)
{
	enum { N = 10000 };
	static const struct {
		enum fmt_col col;
		unsigned coding;
	} cases[] = {
		{ FMT_COL_T, FMT_CODE_DELTA },     { FMT_COL_T, FMT_CODE_RAW },
		{ FMT_COL_LEN, FMT_CODE_RAW },     { FMT_COL_LEN, FMT_CODE_DELTA },
		{ FMT_COL_LAT, FMT_CODE_CDELTA },  { FMT_COL_LAT, FMT_CODE_RAW },
		{ FMT_COL_TXN, FMT_CODE_DELTA },   { FMT_COL_STREAM, FMT_CODE_RAW },
		{ FMT_COL_OP, FMT_CODE_RAW },      { FMT_COL_DEV, FMT_CODE_RAW },
		{ FMT_COL_FLAGS, FMT_CODE_DELTA }, { FMT_COL_OFFSET, FMT_CODE_RAW },
		{ FMT_COL_OFFSET, FMT_CODE_SEQ },  { FMT_COL_OFFSET, FMT_CODE_HIST },
	};
	struct fmt_hist *h = malloc(sizeof(*h));
	struct ist_record *base = calloc(N, sizeof(*base));
	struct ist_record *a = calloc(N, sizeof(*a)), *b = calloc(N, sizeof(*b));
	uint8_t *col = malloc((size_t)N * 11 + N + 64);
	uint64_t *v = malloc((N + 2) * sizeof(*v));
	struct fmt_colcur c;
	struct fmt_coldesc d;
	int refused = 0;

	CU_ASSERT_FATAL(h && base && a && b && col && v);
	rng = 5150;
	for (size_t i = 0; i < N; i++) {
		base[i].t_ns = i * 1000 + rnd() % 500;
		base[i].dev = (uint32_t)(rnd() % 3);
		base[i].len = 512u * (uint32_t)(1 + rnd() % 16);
	}
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		for (size_t m = 1000; m <= N; m += N - 1000) {
			int hist = cases[k].coding == FMT_CODE_HIST;
			size_t len = 0, nv = 0, bad = 0;
			int r1, r2;

			if (hist)
				for (size_t i = 0; i < m; i++)
					col[len++] = (uint8_t)(rnd() % 3 ? FMT_HIST :
							       rnd() % FMT_HIST);
			for (size_t i = 0; i < m; i++) {
				uint64_t x = rnd() >> (rnd() % 64);

				if (hist && col[i] != FMT_HIST)
					continue;
				/* fields narrower than 64 bits: in range but
				 * for one case in 4 (refused both ways) */
				if (cases[k].col == FMT_COL_OP)
					x = k % 4 || i != m / 2 ? rnd() % IST_OP_COUNT : x;
				else if (cases[k].col != FMT_COL_T &&
					 cases[k].col != FMT_COL_OFFSET &&
					 cases[k].col != FMT_COL_LAT &&
					 cases[k].col != FMT_COL_TXN &&
					 cases[k].col != FMT_COL_STREAM &&
					 (k % 4 || i != m / 2))
					x %= 1000;
				v[nv++] = x;
				len += fmt_put_varint(col + len, x);
			}
			memset(col + len, 0, 16);
			memset(&d, 0, sizeof(d));
			d.coding = (uint8_t)cases[k].coding;
			d.store = FMT_STORE_VANS;
			d.param = 1 + k % 3;
			d.raw_len = len;
			memcpy(a, base, m * sizeof(*a));
			memcpy(b, base, m * sizeof(*b));
			r1 = fmt_decode_column(h, cases[k].col, &d, col, a, m);
			r2 = fmt_colcur_values(&c, h, cases[k].col, &d,
					       hist ? col : NULL, v, nv, m);
			CU_ASSERT_EQUAL_FATAL(r2, 0);
			r2 = fmt_decode_block(h, &c, b, m / 2);
			if (!r2)
				r2 = fmt_decode_block(h, &c, b + m / 2, m - m / 2);
			if (!r2)
				r2 = fmt_colcur_finish(&c);
			CU_ASSERT_EQUAL(r1, r2);
			refused += r1 != 0;
			for (size_t i = 0; i < m && !r1; i++)
				bad += !rec_eq(&a[i], &b[i]);
			CU_ASSERT_EQUAL(bad, 0);
			/* a value short or over */
			if (!hist) {
				CU_ASSERT_EQUAL(fmt_colcur_values(&c, h, cases[k].col, &d,
								  NULL, v, nv - 1, m),
						IST_ECORRUPT);
				CU_ASSERT_EQUAL(fmt_colcur_values(&c, h, cases[k].col, &d,
								  NULL, v, nv + 1, m),
						IST_ECORRUPT);
				continue;
			}
			CU_ASSERT_EQUAL(fmt_colcur_values(&c, h, cases[k].col, &d,
							  NULL, v, nv, m), IST_ECORRUPT);
			CU_ASSERT_EQUAL(fmt_colcur_values(&c, h, cases[k].col, &d,
							  col, v, m + 1, m), IST_ECORRUPT);
			CU_ASSERT_EQUAL_FATAL(fmt_colcur_values(&c, h, cases[k].col, &d,
								col, v, nv - 1, m), 0);
			v[nv - 1] = 0; /* the readable entry after them */
			r2 = fmt_decode_block(h, &c, b, m);
			if (!r2)
				r2 = fmt_colcur_finish(&c);
			CU_ASSERT_EQUAL(r2, IST_ECORRUPT);
		}
	}
	CU_ASSERT(refused >= 2);
	/* MTF and DICT: not taken */
	memset(&d, 0, sizeof(d));
	d.coding = FMT_CODE_MTF;
	d.param = 1;
	CU_ASSERT_EQUAL(fmt_colcur_values(&c, h, FMT_COL_DEV, &d, NULL, v, 10, 10), 1);
	d.coding = FMT_CODE_DICT;
	d.param = 2;
	CU_ASSERT_EQUAL(fmt_colcur_values(&c, h, FMT_COL_OP, &d, NULL, v, 10, 10), 1);
	free(h);
	free(base);
	free(a);
	free(b);
	free(col);
	free(v);
}

/* The header and table rules of VANS: each bad value refused. */
static void test_vans_header(void)
{
	uint8_t in[200], enc[400], out[200], bad[400];
	size_t z, n = 0, hl;
	uint64_t pre = 0, rlen = 0;
	const uint8_t *p;

	rng = 99;
	for (size_t i = 0; i < 40; i++)
		in[i] = (uint8_t)(i % 3 ? 0 : 1 + i % 5); /* HIST-like */
	n = 40;
	for (size_t i = 0; i < 60; i++)
		n += fmt_put_varint(in + n, 300 + rnd() % 5000);
	z = fmt_vans_encode(in, n, 40, enc, sizeof(enc));
	CU_ASSERT_FATAL(z > 0);
	CU_ASSERT_EQUAL(fmt_vans_decode(enc, z, out, n), 0);
	CU_ASSERT(memcmp(in, out, n) == 0);
	p = enc + 1;
	CU_ASSERT_FATAL(!fmt_get_varint(&p, enc + z, &pre) && pre == 40);
	CU_ASSERT_FATAL(!fmt_get_varint(&p, enc + z, &rlen));
	hl = (size_t)(p - enc);
	CU_ASSERT_EQUAL(fmt_vans_decode(enc, 0, out, n), IST_ECORRUPT);
#define BAD(stmt)                                                        \
	do {                                                             \
		memcpy(bad, enc, z);                                     \
		stmt;                                                    \
		CU_ASSERT_EQUAL(fmt_vans_decode(bad, z, out, n),         \
				IST_ECORRUPT);                           \
	} while (0)
	BAD(bad[0] |= 0x80);                            /* bit 7 */
	BAD(bad[0] = (uint8_t)((bad[0] & 0xf0) | 9));   /* F above 8 */
	BAD(bad[0] = (uint8_t)((bad[0] & 0xc0) | 0 | 2 << 4)); /* K > F + 1 */
	BAD(bad[1] = (uint8_t)(n + 1)); /* (a one-byte varint) prefix > raw_len */
	BAD(bad[2]++);                   /* rans_len odd */
	BAD(bad[2] = 6);                 /* rans_len below 8 */
	BAD(fmt_put32(bad + hl, 0xffff)); /* x0 below 2^16 */
	BAD(fmt_put32(bad + hl + 4, 0)); /* x1 below 2^16 */
	BAD(bad[hl + rlen] = (uint8_t)((bad[hl + rlen] & 0xf0) | 0)); /* L 0 */
	BAD(bad[hl + rlen] = (uint8_t)((bad[hl + rlen] & 0xf0) | 12)); /* L 12 */
	/* rans_len past the end */
	memcpy(bad, enc, z);
	CU_ASSERT_EQUAL(fmt_vans_decode(bad, hl + (size_t)rlen - 1, out, n),
			IST_ECORRUPT);
	/* hand-made: a table of one symbol, value 5 (F 7, K 0, L 1):
	 * mode, prefix 0, rans_len 8, both states 2^16, then the bits L 1,
	 * e 0, eg0(S - 1 = 0), eg0(token 5), zeros to the byte */
	{
		uint8_t g[13] = { 0x07, 0, 8, 0, 0, 1, 0, 0, 0, 1, 0, 0x81, 0x14 };
		uint8_t t[16];

		CU_ASSERT_EQUAL(fmt_vans_decode(g, sizeof(g), out, 3), 0);
		CU_ASSERT(out[0] == 5 && out[1] == 5 && out[2] == 5);
		memcpy(t, g, sizeof(g));
		t[12] |= 0x80; /* a padding bit that is not 0 */
		CU_ASSERT_EQUAL(fmt_vans_decode(t, sizeof(g), out, 3), IST_ECORRUPT);
		t[12] = 0x14;
		t[13] = 0;    /* a byte left over after the bits */
		CU_ASSERT_EQUAL(fmt_vans_decode(t, 14, out, 3), IST_ECORRUPT);
		/* two symbols, the first of frequency 2 = 2^L: corrupt */
		memcpy(t, g, 11);
		t[11] = 0x01;
		t[12] = 0xd1;
		t[13] = 0x02;
		CU_ASSERT_EQUAL(fmt_vans_decode(t, 14, out, 3), IST_ECORRUPT);
		/* kind 1 (bytes), F 8: a token of value 300 is corrupt */
		memcpy(t, g, 11);
		t[0] = 8 | 1 << 6;
		t[11] = 0x81;
		t[12] = 0x00;
		t[13] = 0x5b;
		t[14] = 0x00;
		CU_ASSERT_EQUAL(fmt_vans_decode(t, 15, out, 3), IST_ECORRUPT);
		/* F 0, K 0: token 65 is past the last (64: 64-bit values) */
		memcpy(t, g, 11);
		t[0] = 0;
		t[11] = 0x81;
		t[12] = 0x40;
		t[13] = 0x01;
		CU_ASSERT_EQUAL(fmt_vans_decode(t, 14, out, 30), IST_ECORRUPT);
	}
#undef BAD
}

/* ------------------------------------------------------------ columns */

/*
 * fmt_encode_column_values() writes the bytes and directory entry that
 * fmt_encode_column() wrote (buf, d), and its values are those of the
 * varints after a HIST column's n symbols, every one; none for a coding
 * that is not varints of values (CONST, DICT, MTF).  With only set, the
 * same directory entry, the varints not written.
 */
static void column_values_same(enum fmt_col col, const struct fmt_cols *cols,
			       size_t n, const uint8_t *buf,
			       const struct fmt_coldesc *d)
{
	static struct fmt_hist h3;
	uint8_t *b2 = calloc(1, FMT_MAX_COL_BYTES(n) + FMT_PAD);
	uint64_t *v = malloc((n + 1) * sizeof(*v)), x;
	struct fmt_coldesc d2;
	size_t nv = 12345, pre = d->coding == FMT_CODE_HIST ? n : 0, k = 0;
	const uint8_t *p, *end;

	/* the values alone: the same raw_len and values, HIST's symbols
	 * written, the varints not (the bytes past the symbols stay 0xee) */
	memset(b2, 0xee, FMT_MAX_COL_BYTES(n));
	fmt_encode_column_values(&h3, col, cols, n, b2, &d2, v, &nv, 1);
	CU_ASSERT(d2.coding == d->coding && d2.param == d->param &&
		  d2.raw_len == d->raw_len);
	if (fmt_colcur_takes_values(d->coding)) {
		CU_ASSERT(memcmp(buf, b2, pre) == 0);
		/* (the offsets' scan writes its symbols in any coding, the
		 * devices' MTF trial its codes) */
		CU_ASSERT(d->raw_len == pre || col == FMT_COL_OFFSET ||
			  col == FMT_COL_DEV || b2[pre] == 0xee);
	} else {
		CU_ASSERT(memcmp(buf, b2, d->raw_len) == 0);
	}
	nv = 12345;
	fmt_encode_column_values(&h3, col, cols, n, b2, &d2, v, &nv, 0);
	CU_ASSERT(d2.coding == d->coding && d2.param == d->param &&
		  d2.raw_len == d->raw_len);
	CU_ASSERT(memcmp(buf, b2, d->raw_len) == 0);
	if (!fmt_colcur_takes_values(d->coding)) {
		CU_ASSERT_EQUAL(nv, 0);
	} else {
		p = buf + pre;
		end = buf + d->raw_len;
		while (p < end && fmt_get_varint(&p, end, &x) == 0) {
			if (k >= nv || v[k] != x)
				break;
			k++;
		}
		CU_ASSERT(p == end && k == nv);
	}
	free(b2);
	free(v);
}

/* Encodes column col of recs, checks the coding picked and decodes it back
 * into a copy where that column was scrambled. */
static void column_roundtrip(enum fmt_col col, const struct ist_record *recs,
			     size_t n, int want_coding)
{
	static struct fmt_hist h1, h2;
	struct ist_record *copy = malloc(n * sizeof(*copy));
	uint8_t *buf = malloc(FMT_MAX_COL_BYTES(n) + FMT_PAD);
	struct fmt_coldesc d;
	struct fmt_cols cols;

	CU_ASSERT_FATAL(fmt_cols_alloc(&cols, n) == 0);
	for (size_t i = 0; i < n; i++)
		fmt_cols_set(&cols, i, &recs[i]);
	memset(buf, 0, FMT_MAX_COL_BYTES(n) + FMT_PAD);
	fmt_encode_column(&h1, col, &cols, n, buf, &d);
	column_values_same(col, &cols, n, buf, &d);
	fmt_cols_free(&cols);
	if (want_coding >= 0 && d.coding != want_coding) {
		fprintf(stderr, "column %d: coding %d, expected %d\n", col,
			d.coding, want_coding);
		CU_FAIL("unexpected coding");
	}
	CU_ASSERT(d.raw_len <= FMT_MAX_COL_BYTES(n));
	memcpy(copy, recs, n * sizeof(*copy));
	for (size_t i = 0; i < n; i++) {
		switch (col) {
		case FMT_COL_T: copy[i].t_ns = 7; break;
		case FMT_COL_DEV: copy[i].dev = 7; break;
		case FMT_COL_OP: copy[i].op = 3; break;
		case FMT_COL_FLAGS: copy[i].flags = 7; break;
		case FMT_COL_LEN: copy[i].len = 7; break;
		case FMT_COL_OFFSET: copy[i].offset = 7; break;
		case FMT_COL_LAT: copy[i].lat_ns = 7; break;
		case FMT_COL_STREAM: copy[i].stream = 7; break;
		case FMT_COL_TXN: copy[i].txn = 7; break;
		}
	}
	CU_ASSERT_EQUAL(fmt_decode_column(&h2, col, &d, buf, copy, n), 0);
	for (size_t i = 0; i < n; i++)
		if (!rec_eq(&copy[i], &recs[i])) {
			CU_FAIL("column did not round-trip");
			break;
		}
	/* one byte short, or one byte too many: corrupt, never a crash */
	if (d.raw_len) {
		struct fmt_coldesc e = d;

		e.raw_len--;
		CU_ASSERT_EQUAL(fmt_decode_column(&h2, col, &e, buf, copy, n),
				IST_ECORRUPT);
		e.raw_len = d.raw_len + 1;
		CU_ASSERT_EQUAL(fmt_decode_column(&h2, col, &e, buf, copy, n),
				IST_ECORRUPT);
	}
	free(copy);
	free(buf);
}

/*
 * The time column's bytes against a plain reference (deltas, their gcd,
 * zigzag varints written by fmt_put_varint()): the encoder takes the gcd
 * of the first 64 deltas as the column's and writes in one pass, and
 * writes again when a later delta is not its multiple; its varints are
 * written 8 bytes at a time below 2^56.  Deltas of every varint length
 * (1 to 10 bytes), a gcd that only the 3000th delta lowers (1000 to
 * 500), one lowered to 1 by the last delta, one that holds throughout,
 * and columns shorter than 64 records.
 */
static void t_column_ref(const uint64_t *t, size_t n)
{
	size_t cap = FMT_MAX_COL_BYTES(n) + FMT_PAD;
	uint8_t *buf = malloc(cap), *ref = malloc(cap), *q = ref;
	static struct fmt_hist h;
	struct fmt_coldesc d;
	struct fmt_cols cols;
	uint64_t g = 0, prev = 0;

	CU_ASSERT_FATAL(fmt_cols_alloc(&cols, n) == 0);
	for (size_t i = 0; i < n; i++)
		cols.t[i] = t[i];
	cols.known = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t dl = t[i] - prev, m = (int64_t)dl < 0 ? 0 - dl : dl;

		while (m) { /* gcd(g, m) */
			uint64_t r = g % m;

			g = m;
			m = r;
		}
		prev = t[i];
	}
	if (!g)
		g = 1;
	prev = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t dl = (int64_t)(t[i] - prev);

		q += fmt_put_varint(q, fmt_zigzag(dl / (int64_t)g));
		prev = t[i];
	}
	memset(buf, 0xa5, cap);
	fmt_encode_column(&h, FMT_COL_T, &cols, n, buf, &d);
	CU_ASSERT_EQUAL(d.coding, FMT_CODE_DELTA);
	CU_ASSERT_EQUAL(d.param, g);
	CU_ASSERT_EQUAL_FATAL(d.raw_len, (uint64_t)(q - ref));
	CU_ASSERT(memcmp(buf, ref, d.raw_len) == 0);
	fmt_cols_free(&cols);
	free(buf);
	free(ref);
}

static void test_time_column_bytes(void)
{
	enum { N = 6000 };
	uint64_t *t = malloc(N * sizeof(*t)), v = 0;

	/* every varint length, gcd 1 from the start */
	for (size_t i = 0; i < N; i++) {
		unsigned bits = (unsigned)(rnd() % 64);

		v += (rnd() >> (63 - bits)) | 1;
		t[i] = i % 5 == 4 ? t[i - 1] - (rnd() % 1000) : v;
	}
	t_column_ref(t, N);
	/* every varint length of the quotients, gcd 1000 throughout */
	for (size_t i = 0; i < N; i++)
		t[i] = (rnd() >> (rnd() % 64)) / 1000 * 1000;
	t_column_ref(t, N);
	/* gcd 1000 in the first 64 deltas, 500 from the 3000th on */
	v = 1000000;
	for (size_t i = 0; i < N; i++) {
		v += 1000 * (rnd() % 3000) + (i == 3000 ? 500 : 0);
		t[i] = v;
	}
	t_column_ref(t, N);
	/* the last delta alone makes it 1; then a short column */
	t[N - 1] = t[N - 2] + 7;
	t_column_ref(t, N);
	t_column_ref(t, 40);
	t_column_ref(t, 64);
	t_column_ref(t, 65);
	free(t);
}

/*
 * DICT columns against a reference: the dictionary in the order of first
 * appearance, its varints, then each record's index in w = 1, 2 or 4
 * bits, LSB first, whole bytes (the encoder packs 64-bit words at a time,
 * and builds a byte column's dictionary by a direct table: the same
 * bytes).  Op (a byte column) and len (a 32-bit one) with 2, 3, 5 and 16
 * distinct values, at lengths around the word's records and below
 * DICT_IX_MIN (64).
 */
static void dict_column_ref(enum fmt_col col, const struct fmt_cols *cols,
			    size_t n)
{
	static struct fmt_hist h;
	size_t cap = FMT_MAX_COL_BYTES(n) + FMT_PAD;
	uint8_t *buf = malloc(cap), *ref = calloc(1, cap), *q = ref;
	uint64_t dict[FMT_DICT_MAX];
	unsigned nd = 0, w, ix;
	struct fmt_coldesc d;
	size_t bit = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = col == FMT_COL_OP ? cols->op[i] : cols->len[i];

		for (ix = 0; ix < nd && dict[ix] != v; ix++)
			;
		if (ix == nd)
			dict[nd++] = v;
	}
	w = nd <= 2 ? 1 : nd <= 4 ? 2 : 4;
	for (unsigned k = 0; k < nd; k++)
		q += fmt_put_varint(q, dict[k]);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = col == FMT_COL_OP ? cols->op[i] : cols->len[i];

		for (ix = 0; dict[ix] != v; ix++)
			;
		q[bit / 8] |= (uint8_t)(ix << bit % 8);
		bit += w;
	}
	q += (bit + 7) / 8;
	memset(buf, 0xa5, cap);
	fmt_encode_column(&h, col, cols, n, buf, &d);
	CU_ASSERT_EQUAL(d.coding, FMT_CODE_DICT);
	CU_ASSERT_EQUAL(d.param, nd);
	CU_ASSERT_EQUAL_FATAL(d.raw_len, (uint64_t)(q - ref));
	CU_ASSERT(memcmp(buf, ref, d.raw_len) == 0);
	free(buf);
	free(ref);
}

static void test_dict_column_bytes(void)
{
	enum { N = 5000 };
	static const unsigned ks[] = { 2, 3, 5, 16 };
	static const size_t ns[] = { N, 4097, 64, 65, 63, 40, 127, 129 };
	struct fmt_cols cols;

	CU_ASSERT_FATAL(fmt_cols_alloc(&cols, N) == 0);
	for (unsigned a = 0; a < sizeof(ks) / sizeof(ks[0]); a++) {
		unsigned k = ks[a];

		for (size_t i = 0; i < N; i++) {
			uint64_t x = rnd();

			/* runs and random changes; the first values not
			 * 0..k-1 in order */
			cols.op[i] = (uint8_t)(i && x % 3 ? cols.op[i - 1]
							  : (x >> 8) % k * 37 % 251);
			cols.len[i] = (uint32_t)((x >> 16) % k + 1) * 4096 + 512;
		}
		/* every value present in the shortest column too */
		for (unsigned j = 0; j < k; j++) {
			cols.op[j + 1] = (uint8_t)(j * 37 % 251);
			cols.len[j + 1] = (j + 1) * 4096 + 512;
		}
		for (unsigned b = 0; b < sizeof(ns) / sizeof(ns[0]); b++) {
			cols.known = 0;
			dict_column_ref(FMT_COL_OP, &cols, ns[b]);
			dict_column_ref(FMT_COL_LEN, &cols, ns[b]);
		}
	}
	fmt_cols_free(&cols);
}

/*
 * The offsets' history scan with AVX-512 (where the CPU has it) against
 * the SSE2 one (fmt_scan_no_avx512): the same coding, gcd and bytes for
 * columns that repeat recent offsets (hits at every history entry,
 * misses: HIST) on one device or switching between three (the history
 * written back and read again), spread over 40 devices, and sequential;
 * each column encoded twice, and the histories left equal.
 */
static void test_offset_scan_agree(void)
{
	enum { N = 20000 };
	static struct fmt_hist h1, h2;
	size_t cap = FMT_MAX_COL_BYTES(N) + FMT_PAD;
	uint8_t *b1 = malloc(cap), *b2 = malloc(cap);
	struct fmt_cols cols;

	CU_ASSERT_FATAL(fmt_cols_alloc(&cols, N) == 0);
	for (int kind = 0; kind < 4; kind++) {
		uint64_t pos = 1u << 20;

		for (size_t i = 0; i < N; i++) {
			uint64_t x = rnd();

			cols.dev[i] = kind == 0 ? 3 : kind == 1 ? (uint32_t)(i / 50 % 3)
							: (uint32_t)(x % 40);
			cols.len[i] = (uint32_t)(1 + x % 4) * 4096;
			if (kind == 3 || x % 5 == 0)
				cols.offset[i] = pos, pos += cols.len[i];
			else if (i > 20 && x % 5 < 4)
				cols.offset[i] = cols.offset[i - 1 - (x >> 8) % 20] +
						 ((x >> 16) % 3 == 0 ? cols.len[i - 1] : 0);
			else
				cols.offset[i] = (x >> 20) % (1u << 30) * 512;
		}
		cols.known = 0;
		memset(&h1, 0, sizeof(h1));
		memset(&h2, 0, sizeof(h2));
		for (int rep = 0; rep < 2; rep++) {
			struct fmt_coldesc d1, d2;

			fmt_scan_no_avx512 = 0;
			fmt_encode_column(&h1, FMT_COL_OFFSET, &cols, N, b1, &d1);
			fmt_scan_no_avx512 = 1;
			fmt_encode_column(&h2, FMT_COL_OFFSET, &cols, N, b2, &d2);
			fmt_scan_no_avx512 = 0;
			CU_ASSERT_EQUAL(d1.coding, d2.coding);
			CU_ASSERT_EQUAL(d1.param, d2.param);
			CU_ASSERT_EQUAL_FATAL(d1.raw_len, d2.raw_len);
			CU_ASSERT(memcmp(b1, b2, d1.raw_len) == 0);
			if (kind < 2)
				CU_ASSERT_EQUAL(d1.coding, FMT_CODE_HIST);
		}
		CU_ASSERT(memcmp(&h1, &h2, sizeof(h1)) == 0);
	}
	fmt_cols_free(&cols);
	free(b1);
	free(b2);
}

/*
 * The scan of a chunk on one device (offset_scan_one(): eight records at
 * a time from the columns, where the CPU has AVX-512 F, CD and DQ)
 * against the SSE2 scan: chunks of 1 to 70 records and a long one (the
 * records scanned one by one at the start and the end, and every
 * position in a group of eight), hits at each of the 16 entries and
 * several at once (the lowest must win), offsets near 2^64 (10-byte
 * varints, deltas of either sign), misses whose deltas lower the gcd in
 * the middle of a group (4096, then 512, then 1), and the writer's own
 * knowledge of a constant device column (known and same set).
 */
static void offset_one_pair(struct fmt_cols *cols, size_t n)
{
	static struct fmt_hist h1, h2;
	size_t cap = FMT_MAX_COL_BYTES(n) + FMT_PAD;
	uint8_t *b1 = malloc(cap), *b2 = malloc(cap);
	struct fmt_coldesc d1, d2;
	uint64_t found[4];

	CU_ASSERT_FATAL(b1 && b2);
	memset(&h1, 0, sizeof(h1));
	memset(&h2, 0, sizeof(h2));
	fmt_scan_no_avx512 = 0;
	fmt_encode_column(&h1, FMT_COL_OFFSET, cols, n, b1, &d1);
	memcpy(found, fmt_scan_found, sizeof(found));
	fmt_scan_no_avx512 = 1;
	fmt_encode_column(&h2, FMT_COL_OFFSET, cols, n, b2, &d2);
	fmt_scan_no_avx512 = 0;
	/* the sizes and the gcd the scans found, then what was made of
	 * them */
	CU_ASSERT(memcmp(found, fmt_scan_found, sizeof(found)) == 0);
	CU_ASSERT_EQUAL(d1.coding, d2.coding);
	CU_ASSERT_EQUAL(d1.param, d2.param);
	CU_ASSERT_EQUAL_FATAL(d1.raw_len, d2.raw_len);
	CU_ASSERT(memcmp(b1, b2, d1.raw_len) == 0);
	CU_ASSERT(memcmp(&h1, &h2, sizeof(h1)) == 0);
	free(b1);
	free(b2);
}

static void test_offset_scan_one(void)
{
	enum { N = 20000 };
	struct fmt_cols cols;
	unsigned hist = 0, checked = 0;

	CU_ASSERT_FATAL(fmt_cols_alloc(&cols, N) == 0);
	for (int kind = 0; kind < 6; kind++) {
		uint64_t pos = kind == 2 ? UINT64_MAX - (UINT64_C(1) << 40) :
					   UINT64_C(1) << 30;
		uint64_t unit = kind == 3 ? 4096 : 512;

		for (size_t i = 0; i < N; i++) {
			uint64_t x = rnd();
			unsigned r = (unsigned)(x >> 8) % 10;

			cols.dev[i] = 7;
			/* kind 4: lengths of 0 too, whose end is
			 * their offset (entry 2j wins over 2j + 1) */
			cols.len[i] = kind == 5 ? (uint32_t)(x >> 40) % 5 :
					(uint32_t)(kind == 4 ? x % 4 : 1 + x % 4) * 4096;
			if (kind == 3 && i == N / 2 + 3)
				unit = 512; /* the gcd falls mid-group */
			if (kind == 3 && i == N / 2 + 1000)
				unit = 1;
			if (kind == 5)
				/* values and deltas of every bit length:
				 * each varint length's boundaries */
				cols.offset[i] = x % 2 && i > r ?
					cols.offset[i - 1 - r] :
					rnd() >> (x >> 20) % 64;
			else if (kind == 4)
				/* a few values over and over: many entries
				 * match at once */
				cols.offset[i] = (x >> 20) % 3 * 4096;
			else if (x % 4 == 0 || i <= r)
				cols.offset[i] = pos, pos += cols.len[i];
			else if (x % 4 < 3)
				/* the offset or the end of a record 1 to
				 * 10 back (8 and more: a miss) */
				cols.offset[i] = cols.offset[i - 1 - r] +
						 ((x >> 16) % 2 ? cols.len[i - 1 - r] : 0);
			else if (kind == 2)
				cols.offset[i] = UINT64_MAX - (x >> 20) % (1u << 30) * 512;
			else
				cols.offset[i] = (x >> 20) % (1u << 30) * unit;
		}
		for (size_t n = 1; n <= 70; n++) {
			cols.known = 0;
			offset_one_pair(&cols, n);
		}
		cols.known = 0;
		offset_one_pair(&cols, N);
		cols.known = 1u << FMT_COL_DEV;
		cols.same = 1u << FMT_COL_DEV;
		offset_one_pair(&cols, N - 5);
		cols.known = 0;
		{
			static struct fmt_hist h;
			uint8_t *b = malloc(FMT_MAX_COL_BYTES(N) + FMT_PAD);
			struct fmt_coldesc d;

			CU_ASSERT_FATAL(b != NULL);
			fmt_encode_column(&h, FMT_COL_OFFSET, &cols, N, b, &d);
			hist += d.coding == FMT_CODE_HIST;
			if (kind == 3)
				CU_ASSERT_EQUAL(d.param, 1);
			checked++;
			free(b);
		}
	}
	/* the columns are HIST ones, whose symbols the scan makes */
	CU_ASSERT(hist >= checked - 1);
	fmt_cols_free(&cols);
}

/*
 * The time and offset columns' varints written eight at a time
 * (put_varint8x8(), where the CPU has AVX-512 F, BW, CD, DQ and VBMI2)
 * against one by one (fmt_varint_no_avx512): the same coding, divisor
 * and bytes for times whose deltas have every varint length (zigzag
 * values from 0 to past 2^56, where the group falls back), a gcd with
 * a shift (1000) and a delta it does not divide (the column coded
 * again), decreasing times (negative deltas), and for SEQ and HIST
 * offsets (their deltas from the scan), chunks of 1 to 40 records and
 * long ones.
 */
static void varint_pair(enum fmt_col col, struct fmt_cols *cols, size_t n)
{
	size_t cap = FMT_MAX_COL_BYTES(n) + FMT_PAD;
	uint8_t *b1 = malloc(cap), *b2 = malloc(cap);
	static struct fmt_hist h1, h2;
	struct fmt_coldesc d1, d2;

	CU_ASSERT_FATAL(b1 && b2);
	cols->known = 0;
	fmt_varint_no_avx512 = 0;
	fmt_encode_column(&h1, col, cols, n, b1, &d1);
	fmt_varint_no_avx512 = 1;
	fmt_encode_column(&h2, col, cols, n, b2, &d2);
	fmt_varint_no_avx512 = 0;
	CU_ASSERT_EQUAL(d1.coding, d2.coding);
	CU_ASSERT_EQUAL(d1.param, d2.param);
	CU_ASSERT_EQUAL_FATAL(d1.raw_len, d2.raw_len);
	CU_ASSERT(memcmp(b1, b2, d1.raw_len) == 0);
	free(b1);
	free(b2);
}

static void test_varints_eight(void)
{
	enum { N = 30000 };
	struct fmt_cols cols;
	unsigned seen[4] = { 0 };

	CU_ASSERT_FATAL(fmt_cols_alloc(&cols, N) == 0);
	for (int kind = 0; kind < 6; kind++) {
		uint64_t t = UINT64_C(1000000000000), pos = UINT64_C(1) << 30;

		for (size_t i = 0; i < N; i++) {
			uint64_t x = rnd();

			switch (kind) {
			case 0: /* every length, a gcd of 1000 */
				t += (rnd() >> (9 + x % 55)) / 1000 * 1000;
				break;
			case 1: /* zigzag values of 2^56 - 1 (8 bytes) and
				 * 2^56 (9: the group and the rest of the
				 * column one by one) now and then, 2^59
				 * near the end */
				t += x % 97 == 0 ? 0 - (UINT64_C(1) << 55) :
				     x % 997 == 1 ? UINT64_C(1) << 55 :
				     x % 89 == 0 && i > N - 50 ?
						   UINT64_C(1) << 58 :
						   (rnd() >> (9 + x % 55));
				break;
			case 2: /* down too, a gcd of 1000 */
				if (x % 3 == 0)
					t -= (x >> 40) / 1000 * 1000;
				else
					t += (x >> 36) / 1000 * 1000;
				break;
			case 3: /* a gcd of 1000 its first deltas set, one
				 * delta late in the chunk breaks */
				t += i == N - 100 ? 1001 : (x >> 44) * 1000 + 1000;
				break;
			default:
				t += x >> 44;
				break;
			}
			cols.t[i] = t;
			cols.dev[i] = 1;
			cols.len[i] = (uint32_t)(1 + x % 8) * 512;
			if (kind == 4) /* SEQ: near-sequential */
				cols.offset[i] = pos += cols.len[i] +
						       (x >> 50) % 4 * 512;
			else if (kind == 5 && i > 4 && x % 3) /* HIST */
				cols.offset[i] = cols.offset[i - 1 - x % 4];
			else
				cols.offset[i] = (rnd() >> (x % 64)) / 512 * 512;
		}
		for (size_t n = 1; n <= 40; n++) {
			varint_pair(FMT_COL_T, &cols, n);
			varint_pair(FMT_COL_OFFSET, &cols, n);
		}
		varint_pair(FMT_COL_T, &cols, N);
		varint_pair(FMT_COL_OFFSET, &cols, N);
		{
			static struct fmt_hist h;
			uint8_t *b = malloc(FMT_MAX_COL_BYTES(N) + FMT_PAD);
			struct fmt_coldesc d;

			CU_ASSERT_FATAL(b != NULL);
			cols.known = 0;
			fmt_encode_column(&h, FMT_COL_T, &cols, N, b, &d);
			if (kind == 0 || kind == 2)
				seen[0] += d.param == 1000;
			if (kind == 3)
				seen[1] += d.param != 1000;
			fmt_encode_column(&h, FMT_COL_OFFSET, &cols, N, b, &d);
			seen[2] += d.coding == FMT_CODE_SEQ;
			seen[3] += d.coding == FMT_CODE_HIST;
			free(b);
		}
	}
	/* the cases meant: gcds kept and broken, both offset codings */
	CU_ASSERT_EQUAL(seen[0], 2);
	CU_ASSERT_EQUAL(seen[1], 1);
	CU_ASSERT(seen[2] >= 1);
	CU_ASSERT(seen[3] >= 1);
	fmt_cols_free(&cols);
}

static void test_column_codecs(void)
{
	enum { N = 5000 };
	struct ist_record *r = calloc(N, sizeof(*r));
	uint64_t t = 0;

	/* constant columns */
	for (size_t i = 0; i < N; i++) {
		r[i].t_ns = 5;
		r[i].offset = UINT64_MAX;
		r[i].len = UINT32_MAX;
		r[i].stream = 1ull << 40;
	}
	column_roundtrip(FMT_COL_T, r, N, FMT_CODE_CONST);
	column_roundtrip(FMT_COL_OFFSET, r, N, FMT_CODE_CONST);
	column_roundtrip(FMT_COL_LEN, r, N, FMT_CODE_CONST);
	column_roundtrip(FMT_COL_STREAM, r, N, FMT_CODE_CONST);
	column_roundtrip(FMT_COL_DEV, r, N, FMT_CODE_CONST);

	/* time: delta with a gcd (100 ns units), going backwards at times */
	for (size_t i = 0; i < N; i++) {
		t += 100 * (rnd() % 50);
		if (i % 100 == 7)
			t -= 300;
		r[i].t_ns = t;
	}
	column_roundtrip(FMT_COL_T, r, N, FMT_CODE_DELTA);
	/* time: extremes */
	for (size_t i = 0; i < N; i++)
		r[i].t_ns = i % 3 ? UINT64_MAX - i : i;
	column_roundtrip(FMT_COL_T, r, N, FMT_CODE_DELTA);

	/* small-alphabet columns: DICT with 1, 2 and 4 bits */
	for (size_t i = 0; i < N; i++) {
		r[i].op = (uint8_t)(rnd() % 2);
		r[i].flags = (uint16_t)(rnd() % 3);
		r[i].len = 4096u << (rnd() % 16);
		r[i].dev = (uint32_t)(rnd() % 2);
		r[i].stream = 1000 + rnd() % 9;
	}
	column_roundtrip(FMT_COL_OP, r, N, FMT_CODE_DICT);
	column_roundtrip(FMT_COL_FLAGS, r, N, FMT_CODE_DICT);
	column_roundtrip(FMT_COL_LEN, r, N, FMT_CODE_DICT);
	column_roundtrip(FMT_COL_DEV, r, N, FMT_CODE_DICT);
	column_roundtrip(FMT_COL_STREAM, r, N, FMT_CODE_DICT);
	/* the dictionary against a byte a value, at the boundary where the
	 * encoder stops sizing RAW and DELTA: 16 lengths (4-bit indexes,
	 * 16 one-byte entries) are shorter than RAW from 34 values on */
	for (size_t i = 0; i < 40; i++)
		r[i].len = (uint32_t)(i % 16 + 1);
	column_roundtrip(FMT_COL_LEN, r, 40, FMT_CODE_DICT); /* 20 + 16 < 40 */
	column_roundtrip(FMT_COL_LEN, r, 34, FMT_CODE_DICT); /* 17 + 16 < 34 */
	column_roundtrip(FMT_COL_LEN, r, 33, FMT_CODE_RAW);  /* 17 + 16 = 33 */
	column_roundtrip(FMT_COL_LEN, r, 20, FMT_CODE_RAW);  /* 10 + 16 > 20 */
	/* a dictionary longer than a byte a value can still beat RAW and
	 * DELTA: 16 values of 9 bytes 2^50 apart (deltas of 8 bytes), 100,
	 * 64 and 40 records (the indexes kept from the first pass, or found
	 * again below 64 records: DICT_IX_MIN) */
	for (size_t i = 0; i < 100; i++)
		r[i].stream = (1ull << 60) + (i * 7) % 16 * (1ull << 50);
	column_roundtrip(FMT_COL_STREAM, r, 100, FMT_CODE_DICT);
	column_roundtrip(FMT_COL_STREAM, r, 64, FMT_CODE_DICT);
	column_roundtrip(FMT_COL_STREAM, r, 40, FMT_CODE_DICT);
	/* a 17th value: no dictionary (DELTA 803 bytes, RAW 892) */
	r[50].stream = 1;
	column_roundtrip(FMT_COL_STREAM, r, 100, FMT_CODE_DELTA);

	/* many values: RAW (with gcd for len and lat) */
	for (size_t i = 0; i < N; i++) {
		r[i].len = (uint32_t)(rnd() % 1000 + 1) * 512;
		r[i].lat_ns = rnd() % 100000 * 1000;
		r[i].dev = (uint32_t)(rnd() % 1000);
		r[i].flags = (uint16_t)(rnd() & IST_F_ALL);
		r[i].txn = rnd() % 128;
		r[i].stream = rnd() % 100;
	}
	column_roundtrip(FMT_COL_LEN, r, N, FMT_CODE_RAW);
	column_roundtrip(FMT_COL_LAT, r, N, FMT_CODE_RAW);
	column_roundtrip(FMT_COL_DEV, r, N, FMT_CODE_RAW);
	column_roundtrip(FMT_COL_FLAGS, r, N, FMT_CODE_RAW);
	column_roundtrip(FMT_COL_TXN, r, N, FMT_CODE_RAW);
	column_roundtrip(FMT_COL_STREAM, r, N, FMT_CODE_RAW);
	/* increasing ids: DELTA */
	for (size_t i = 0; i < N; i++) {
		r[i].txn = (1ull << 50) + i * 3 + rnd() % 2;
		r[i].stream = (1ull << 33) + i;
	}
	column_roundtrip(FMT_COL_TXN, r, N, FMT_CODE_DELTA);
	column_roundtrip(FMT_COL_STREAM, r, N, FMT_CODE_DELTA);

	/* devices: bursts on a few of thousands of volumes (MTF), the
	 * 16th most recent, new ones and extremes */
	for (size_t i = 0; i < N; i++)
		r[i].dev = i % 500 < 400 ? (uint32_t)(1000 + (i / 500) * 7 + rnd() % 4)
		    : i % 500 < 450 ? (uint32_t)(rnd() % 3000)
		    : i % 2 ? UINT32_MAX : (uint32_t)(i % 17);
	column_roundtrip(FMT_COL_DEV, r, N, FMT_CODE_MTF);
	{
		static struct fmt_hist h;
		uint8_t buf[64 + FMT_PAD] = { FMT_MTF + 5, 0, 0 };
		struct fmt_coldesc d = { .coding = FMT_CODE_MTF, .param = 1,
					 .raw_len = 3 };
		struct ist_record x[3];

		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_DEV, &d, buf, x, 3), 0);
		CU_ASSERT_EQUAL(x[0].dev, 5);
		CU_ASSERT_EQUAL(x[2].dev, 5);
		buf[2] = 1; /* rank 1 of a one-entry list */
		buf[1] = 1;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_DEV, &d, buf, x, 3),
				IST_ECORRUPT);
		d.param = 2;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_DEV, &d, buf, x, 3),
				IST_ECORRUPT);
		d.param = 1;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_LEN, &d, buf, x, 3),
				IST_ECORRUPT);
	}

	/* latencies of requests completed in batches: CDELTA, also when
	 * t + lat wraps past 2^64 */
	t = 1000;
	for (size_t i = 0; i < N; i++) {
		uint64_t done = t + 500000 + (i / 20) * 1000000 + rnd() % 3 * 100;

		t += 100 * (rnd() % 200);
		r[i].t_ns = t;
		r[i].lat_ns = done > t ? done - t : 7;
	}
	column_roundtrip(FMT_COL_LAT, r, N, FMT_CODE_CDELTA);
	for (size_t i = 0; i < N; i++) {
		r[i].t_ns = UINT64_MAX - 10000000 + i * 1000;
		r[i].lat_ns = 20000000 - i * 1000 + (i % 7) * 64;
	}
	column_roundtrip(FMT_COL_LAT, r, N, FMT_CODE_CDELTA);
	{
		static struct fmt_hist h;
		uint8_t buf[64 + FMT_PAD] = { 4, 2 };
		struct fmt_coldesc d = { .coding = FMT_CODE_CDELTA, .param = 3,
					 .raw_len = 2 };
		struct ist_record x[2] = { { .t_ns = 1 }, { .t_ns = 2 } };

		/* c = 6 then 9: lat 5 and 7 */
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_LAT, &d, buf, x, 2), 0);
		CU_ASSERT(x[0].lat_ns == 5 && x[1].lat_ns == 7);
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_T, &d, buf, x, 2),
				IST_ECORRUPT);
		d.param = 0;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_LAT, &d, buf, x, 2),
				IST_ECORRUPT);
		d.param = 1;
		buf[1] = 0x80; /* a varint running past the column */
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_LAT, &d, buf, x, 2),
				IST_ECORRUPT);
	}

	/* offsets: sequential runs (SEQ), repeats (HIST), random (RAW) */
	for (size_t i = 0; i < N; i++) {
		r[i].dev = (uint32_t)(i % 3);
		r[i].len = 4096;
		r[i].offset = i < 3 ? (1ull << 40) * i
				    : r[i - 3].offset + r[i - 3].len +
					      (1 + rnd() % 8) * 4096;
	}
	column_roundtrip(FMT_COL_OFFSET, r, N, FMT_CODE_SEQ);
	for (size_t i = 0; i < N; i++) {
		r[i].dev = 0;
		r[i].offset = i % 2 ? r[i - 1].offset : (rnd() % 100000) * 4096;
	}
	column_roundtrip(FMT_COL_OFFSET, r, N, FMT_CODE_HIST);
	for (size_t i = 0; i < N; i++)
		r[i].offset = (rnd() % 4) * 512 + (UINT64_MAX - 4096);
	column_roundtrip(FMT_COL_OFFSET, r, N, -1);
	for (size_t i = 0; i < N; i++)
		r[i].offset = rnd() % 1000;
	column_roundtrip(FMT_COL_OFFSET, r, N, FMT_CODE_RAW);

	/* a value too wide for its field is corrupt */
	{
		static struct fmt_hist h;
		uint8_t buf[64 + FMT_PAD] = { 0 };
		struct fmt_coldesc d = { .coding = FMT_CODE_RAW, .param = 1 };

		d.raw_len = fmt_put_varint(buf, 1ull << 32);
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_LEN, &d, buf, r, 1),
				IST_ECORRUPT);
		d.raw_len = fmt_put_varint(buf, IST_OP_COUNT);
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_OP, &d, buf, r, 1),
				IST_ECORRUPT);
		d.coding = FMT_CODE_SEQ;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_T, &d, buf, r, 1),
				IST_ECORRUPT);
		d.coding = FMT_CODE_LAST;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_T, &d, buf, r, 1),
				IST_ECORRUPT);
		d.coding = FMT_CODE_CONST;
		d.param = 1ull << 16;
		d.raw_len = 0;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_FLAGS, &d, buf, r, 1),
				IST_ECORRUPT);
	}
	free(r);
}

/*
 * SEQ and HIST offsets as the decoder reads them (in a column of more
 * than 8192 records, every record looks at the 8 bytes at its varint, a
 * hit as well as a miss, and only a miss takes them; a smaller column
 * branches): varints of 1 to 10 bytes, a hit standing before a varint of
 * 9 or 10 bytes or before bytes that are no varint at all, the column's
 * last records hits with no bytes left; and damaged columns refused: a
 * miss's varint of 11 bytes, one running past the column, a symbol above
 * FMT_HIST, a SEQ varint cut short.  HIST is checked both ways: as is,
 * and after PAD hits of offset 0 (which leave the history as it starts);
 * the latter with pext (AVX-512 CPUs) and without (fmt_dec_no_avx512).
 */
enum { PAD = 8200 };

static void hist_case(size_t pad)
{
	static struct fmt_hist h;
	struct ist_record *r = calloc(pad + 64, sizeof(*r));
	uint8_t *buf = calloc(pad + 512 + FMT_PAD, 1), *b;
	const uint64_t deltas[] = { 0, 1, 127, 128, 1ull << 20, 1ull << 35,
				    (1ull << 56) - 1, 1ull << 56, 1ull << 62,
				    UINT64_MAX - 1, UINT64_MAX };
	enum { ND = sizeof(deltas) / sizeof(deltas[0]) };
	struct fmt_coldesc d = { .coding = FMT_CODE_HIST, .param = 3 };
	uint64_t want[64], end = 0;
	size_t n = 0, z;

	/* a miss of each length, each followed by a hit of the previous
	 * end and a hit of the offset before (k = 0, 1); then two hits at
	 * the end with the varints all read */
	b = buf + pad;
	for (size_t j = 0; j < ND; j++) {
		b[n++] = FMT_HIST;
		b[n++] = 0;
		b[n++] = 1;
	}
	b[n++] = 3;
	b[n++] = 0;
	z = pad + n;
	for (size_t j = 0; j < ND; j++)
		z += fmt_put_varint(buf + z, deltas[j]);
	d.raw_len = z;
	for (size_t i = 0; i < n; i++) {
		r[pad + i].len = (uint32_t)(4096 * (i % 5));
		if (b[i] == FMT_HIST)
			want[i] = end + (uint64_t)fmt_unzigzag(deltas[i / 3]) * 3;
		else if (b[i] == 0)
			want[i] = end;
		else if (b[i] == 1)
			want[i] = want[i - 1];
		else /* 3: the offset two records back */
			want[i] = want[i - 2];
		end = want[i] + r[pad + i].len;
	}
	CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_OFFSET, &d, buf, r,
					  pad + n), 0);
	for (size_t i = 0; i < pad; i++)
		CU_ASSERT_EQUAL_FATAL(r[i].offset, 0);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(r[pad + i].offset, want[i]);

	/* two hits before bytes that are no varint: not read */
	memset(b, 0xff, 32);
	b[0] = 0;
	b[1] = 0;
	memset(r, 0, (pad + 2) * sizeof(r[0]));
	/* 12 bytes no miss takes: left over, corrupt */
	d.raw_len = pad + 2 + 12;
	CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_OFFSET, &d, buf, r,
					  pad + 2), IST_ECORRUPT);
	d.raw_len = pad + 2;
	CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_OFFSET, &d, buf, r,
					  pad + 2), 0);
	CU_ASSERT(r[pad].offset == 0 && r[pad + 1].offset == 0);
	/* a miss there: 11 continuation bytes are no varint */
	b[1] = FMT_HIST;
	d.raw_len = pad + 2 + 12;
	CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_OFFSET, &d, buf, r,
					  pad + 2), IST_ECORRUPT);
	/* a symbol above FMT_HIST */
	b[1] = FMT_HIST + 1;
	d.raw_len = pad + 2;
	CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_OFFSET, &d, buf, r,
					  pad + 2), IST_ECORRUPT);
	/* a miss's varint running past the column (its bytes there) */
	b[1] = FMT_HIST;
	z = pad + 2 + fmt_put_varint(b + 2, UINT64_MAX);
	for (size_t k = pad + 2; k < z; k++) {
		d.raw_len = k;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_OFFSET, &d, buf,
						  r, pad + 2), IST_ECORRUPT);
	}
	d.raw_len = z;
	CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_OFFSET, &d, buf, r,
					  pad + 2), 0);
	CU_ASSERT_EQUAL(r[pad + 1].offset, (uint64_t)fmt_unzigzag(UINT64_MAX));
	free(r);
	free(buf);
}

static void test_offset_varints(void)
{
	static struct fmt_hist h;
	struct ist_record r[64];
	uint8_t buf[512 + FMT_PAD];
	const uint64_t deltas[] = { 0, 1, 127, 128, 1ull << 20, 1ull << 35,
				    (1ull << 56) - 1, 1ull << 56, 1ull << 62,
				    UINT64_MAX - 1, UINT64_MAX };
	enum { ND = sizeof(deltas) / sizeof(deltas[0]) };
	struct fmt_coldesc d = { .coding = FMT_CODE_SEQ, .param = 512 };
	uint64_t want[64], end[2] = { 0, 0 };
	size_t z = 0;

	hist_case(0);
	hist_case(PAD);
	/* the portable varint_word() where the CPU has BMI2's pext */
	fmt_dec_no_avx512 = 1;
	hist_case(PAD);
	fmt_dec_no_avx512 = 0;
	/* SEQ: varints of every length, two devices */
	memset(r, 0, sizeof(r));
	memset(buf, 0, sizeof(buf));
	for (size_t j = 0; j < ND; j++)
		z += fmt_put_varint(buf + z, deltas[j]);
	d.raw_len = z;
	for (size_t i = 0; i < ND; i++) {
		r[i].dev = (uint32_t)(i % 2);
		r[i].len = (uint32_t)(512 * i);
		want[i] = end[i % 2] + (uint64_t)fmt_unzigzag(deltas[i]) * 512;
		end[i % 2] = want[i] + r[i].len;
	}
	CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_OFFSET, &d, buf, r, ND), 0);
	for (size_t i = 0; i < ND; i++)
		CU_ASSERT_EQUAL(r[i].offset, want[i]);
	/* the last varint cut short, or 11 bytes long */
	d.raw_len = z - 1;
	CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_OFFSET, &d, buf, r, ND),
			IST_ECORRUPT);
	memset(buf, 0x80, 11);
	buf[11] = 0;
	d.raw_len = 12;
	CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_OFFSET, &d, buf, r, 1),
			IST_ECORRUPT);
}

/*
 * MTF devices decoded in blocks of several sizes (the list carried from
 * one block to the next) against a plain list here: ranks 0 to 15, new
 * devices while the list fills and once it is full (the oldest falls
 * off), device numbers 0 and UINT32_MAX; then a rank at or past the
 * list's length and a device past 2^32 - 1 refused.
 */
static void mtf_decode_check(void)
{
	enum { N = 3000 };
	static struct fmt_hist h;
	uint8_t *buf = calloc(N * 10 + FMT_PAD, 1);
	struct ist_record *r = calloc(N, sizeof(*r));
	uint32_t list[FMT_MTF], want[N];
	uint64_t saved = rng; /* the tests after this one: their data */
	unsigned nl = 0;
	size_t z = 0;

	rng = 77;
	for (size_t i = 0; i < N; i++) {
		uint64_t sym;
		uint32_t dev;
		unsigned k;

		if (nl && (i < 40 ? i % 3 : rnd() % 8)) {
			k = i < 40 ? (unsigned)(i % nl) : (unsigned)(rnd() % nl);
			sym = k;
			dev = list[k];
		} else {
			dev = i % 5 == 0 ? UINT32_MAX : i % 5 == 1 ? 0
			    : (uint32_t)rnd();
			sym = FMT_MTF + (uint64_t)dev;
			if (nl < FMT_MTF)
				nl++;
			k = nl - 1;
		}
		memmove(list + 1, list, k * sizeof(list[0]));
		list[0] = dev;
		want[i] = dev;
		z += fmt_put_varint(buf + z, sym);
	}
	for (size_t step = 1; step <= 1024; step = step * 3 + 1) {
		struct fmt_colcur c;
		struct fmt_coldesc d = { .coding = FMT_CODE_MTF, .param = 1,
					 .raw_len = z };
		int ret = fmt_colcur_init(&c, &h, FMT_COL_DEV, &d, buf, N);

		for (size_t i = 0; i < N && !ret; i += step)
			ret = fmt_decode_block(&h, &c, r + i,
					       N - i < step ? N - i : step);
		CU_ASSERT_EQUAL(ret, 0);
		CU_ASSERT_EQUAL(fmt_colcur_finish(&c), 0);
		for (size_t i = 0; i < N; i++)
			if (r[i].dev != want[i]) {
				CU_FAIL("MTF device differs");
				break;
			}
	}
	/* three new devices, then rank 3 (past the list) or 2 (its end) */
	{
		struct fmt_coldesc d = { .coding = FMT_CODE_MTF, .param = 1 };

		z = 0;
		z += fmt_put_varint(buf + z, FMT_MTF + 7);
		z += fmt_put_varint(buf + z, FMT_MTF + 8);
		z += fmt_put_varint(buf + z, FMT_MTF + 9);
		buf[z++] = 3;
		d.raw_len = z;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_DEV, &d, buf, r, 4),
				IST_ECORRUPT);
		buf[z - 1] = 2;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_DEV, &d, buf, r, 4), 0);
		CU_ASSERT(r[0].dev == 7 && r[1].dev == 8 && r[2].dev == 9 &&
			  r[3].dev == 7);
		z = fmt_put_varint(buf, FMT_MTF + (1ull << 32));
		d.raw_len = z;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_DEV, &d, buf, r, 1),
				IST_ECORRUPT);
		z = fmt_put_varint(buf, FMT_MTF + (uint64_t)UINT32_MAX);
		d.raw_len = z;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_DEV, &d, buf, r, 1), 0);
		CU_ASSERT_EQUAL(r[0].dev, UINT32_MAX);
		/* a varint of 11 bytes; one whose last byte continues at
		 * the column's end; a two-byte one cut after its first */
		memset(buf, 0xff, 11);
		buf[11] = 0;
		d.raw_len = 12;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_DEV, &d, buf, r, 1),
				IST_ECORRUPT);
		z = fmt_put_varint(buf, FMT_MTF + 300);
		buf[z] = 0x80; /* rank 0 in two bytes */
		buf[z + 1] = 0;
		d.raw_len = z + 1;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_DEV, &d, buf, r, 2),
				IST_ECORRUPT);
		d.raw_len = z - 1;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_DEV, &d, buf, r, 1),
				IST_ECORRUPT);
		d.raw_len = z + 2;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_DEV, &d, buf, r, 2), 0);
		CU_ASSERT(r[0].dev == 300 && r[1].dev == 300);
		/* a full list, then a rank of 16 (a device number 0) and
		 * ranks 15 and 0 */
		z = 0;
		for (unsigned j = 0; j < FMT_MTF; j++)
			z += fmt_put_varint(buf + z, FMT_MTF + 1000 + j);
		buf[z++] = FMT_MTF;
		buf[z++] = FMT_MTF - 1;
		buf[z++] = 0;
		d.raw_len = z;
		CU_ASSERT_EQUAL(fmt_decode_column(&h, FMT_COL_DEV, &d, buf, r,
						  FMT_MTF + 3), 0);
		CU_ASSERT(r[FMT_MTF].dev == 0 && r[FMT_MTF + 1].dev == 1001 &&
			  r[FMT_MTF + 2].dev == 1001);
	}
	free(buf);
	free(r);
	rng = saved;
}

/* Both decoders where the CPU has AVX-512: the permute and the SSE2 one
 * (fmt_dec_no_avx512); the SSE2 one alone elsewhere. */
static void test_mtf_decode(void)
{
	fmt_dec_no_avx512 = 1;
	mtf_decode_check();
	fmt_dec_no_avx512 = 0;
	mtf_decode_check();
}

/* ------------------------------------------------------------ files */

static void test_chunks_and_footer(void)
{
	enum { N = 10007 };
	struct ist_record *r = calloc(N, sizeof(*r)), *back;
	const char *path = tmp_path("chunks.ist");
	const struct ist_totals *t;
	struct ist_chunk_info ci;
	ist_reader *rd;
	uint64_t tt = 1000, sum = 0;
	size_t n;

	for (size_t i = 0; i < N; i++) {
		random_record(&r[i], &tt);
		r[i].t_ns = 1000 + i * 10; /* in order, for the totals below */
	}
	r[5].t_ns = 3; /* one record out of order, and the earliest */
	CU_ASSERT_EQUAL_FATAL(write_file(path, r, N, 1000), 0);
	back = read_all(path, &n, 333);
	CU_ASSERT_EQUAL_FATAL(n, N);
	for (size_t i = 0; i < N; i++)
		if (!rec_eq(&r[i], &back[i])) {
			CU_FAIL("record differs");
			break;
		}
	free(back);

	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, path), 0);
	CU_ASSERT_EQUAL(ist_reader_has_footer(rd), 1);
	CU_ASSERT_EQUAL(ist_reader_footer_error(rd), 0);
	CU_ASSERT_EQUAL(ist_reader_chunk_count(rd), 11);
	for (uint64_t i = 0; i < 11; i++) {
		CU_ASSERT_EQUAL(ist_reader_chunk_info(rd, i, &ci), 0);
		CU_ASSERT_EQUAL(ci.count, i < 10 ? 1000 : 7);
		CU_ASSERT_EQUAL(ci.first_t_ns, r[i * 1000].t_ns);
		sum += ci.count;
		CU_ASSERT_EQUAL(ist_reader_check_chunk(rd, i), 0);
	}
	CU_ASSERT_EQUAL(ist_reader_chunk_info(rd, 11, &ci), IST_ERANGE);
	CU_ASSERT_EQUAL(sum, N);
	t = ist_reader_totals(rd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->records, N);
	CU_ASSERT_EQUAL(t->first_t_ns, 3);
	CU_ASSERT_EQUAL(t->last_t_ns, 1000 + (N - 1) * 10);
	CU_ASSERT_EQUAL(t->out_of_order, 1);
	{
		uint64_t cnt[IST_OP_COUNT] = { 0 }, bytes[IST_OP_COUNT] = { 0 };
		uint64_t lat = 0, maxend[3] = { 0 };

		for (size_t i = 0; i < N; i++) {
			uint64_t end = r[i].offset + r[i].len;

			if (end < r[i].offset)
				end = UINT64_MAX;
			cnt[r[i].op]++;
			bytes[r[i].op] += r[i].len;
			lat += r[i].lat_ns != 0;
			if (end > maxend[r[i].dev])
				maxend[r[i].dev] = end;
		}
		for (int op = 0; op < IST_OP_COUNT; op++) {
			CU_ASSERT_EQUAL(t->count[op], cnt[op]);
			CU_ASSERT_EQUAL(t->bytes[op], bytes[op]);
		}
		CU_ASSERT_EQUAL(t->with_latency, lat);
		CU_ASSERT_EQUAL(t->ndev, 3);
		for (int d = 0; d < 3; d++)
			CU_ASSERT_EQUAL(t->dev_max_end[d], maxend[d]);
	}
	CU_ASSERT_EQUAL(t->flags_exact, IST_TOTALS_STREAMS_EXACT | IST_TOTALS_TXNS_EXACT);
	CU_ASSERT(t->streams >= 4 && t->streams <= 9);
	/* the header came back */
	{
		const ist_header *h = ist_reader_header(rd);
		unsigned major, minor;

		CU_ASSERT_STRING_EQUAL(ist_header_get(h, "note"),
				       "tab\there, newline\nthere, = and \\");
		CU_ASSERT_EQUAL(ist_header_device_count(h), 3);
		CU_ASSERT_STRING_EQUAL(ist_header_device(h, 2)->name,
				       "dm-0 (a name with spaces)");
		CU_ASSERT_EQUAL(ist_header_device(h, 0)->size, 1ull << 40);
		CU_ASSERT_EQUAL(ist_header_device(h, 1)->block_size, 4096);
		ist_reader_version(rd, &major, &minor);
		CU_ASSERT_EQUAL(major, FMT_MAJOR);
		CU_ASSERT_EQUAL(minor, FMT_WRITE_MINOR);
	}
	/* seeking by time through the index */
	{
		struct ist_record one;
		struct ist_position pos;

		CU_ASSERT_EQUAL(ist_reader_seek_time(rd, 1000 + 5500 * 10), 0);
		CU_ASSERT_EQUAL(ist_reader_read(rd, &one, 1), 1);
		CU_ASSERT(rec_eq(&one, &r[5000]));
		ist_reader_position(rd, &pos);
		CU_ASSERT_EQUAL(pos.chunk, 5);
		CU_ASSERT_EQUAL(ist_reader_seek_time(rd, UINT64_MAX), 0);
		CU_ASSERT_EQUAL(ist_reader_read(rd, &one, 1), 0);
		CU_ASSERT_EQUAL(ist_reader_seek_chunk(rd, 10), 0);
		CU_ASSERT_EQUAL(ist_reader_read(rd, &one, 1), 1);
		CU_ASSERT(rec_eq(&one, &r[10000]));
		CU_ASSERT_EQUAL(ist_reader_seek_chunk(rd, 12), IST_ERANGE);
	}
	/* a chunk read in pieces is decoded piece by piece; checking another
	 * chunk in between (same buffers and cursors) leaves the rest of it
	 * as it was, and a seek drops it */
	{
		struct ist_record part[700];
		struct ist_position pos;

		CU_ASSERT_EQUAL(ist_reader_seek_chunk(rd, 2), 0);
		CU_ASSERT_EQUAL(ist_reader_read(rd, part, 300), 300);
		CU_ASSERT_EQUAL(ist_reader_check_chunk(rd, 7), 0);
		CU_ASSERT_EQUAL(ist_reader_check_chunk(rd, 10), 0);
		CU_ASSERT_EQUAL(ist_reader_read(rd, part, 700), 700);
		CU_ASSERT(rec_eq(&part[0], &r[2300]) && rec_eq(&part[699], &r[2999]));
		ist_reader_position(rd, &pos);
		CU_ASSERT_EQUAL(pos.chunk, 2);
		CU_ASSERT_EQUAL(ist_reader_read(rd, part, 1), 1);
		CU_ASSERT(rec_eq(&part[0], &r[3000]));
		CU_ASSERT_EQUAL(ist_reader_seek_chunk(rd, 9), 0);
		CU_ASSERT_EQUAL(ist_reader_read(rd, part, 700), 700);
		CU_ASSERT(rec_eq(&part[0], &r[9000]));
	}
	ist_reader_close(rd);

	/* footer encoding alone */
	{
		struct ist_chunk_info idx[2] = { { 16, 5, 9, 3 }, { 400, 9, UINT64_MAX, 1 } };
		struct ist_totals in = { 0 }, out;
		struct ist_chunk_info *oi;
		uint64_t nc, ends[2] = { 7, UINT64_MAX };
		uint8_t *buf;
		size_t len;

		in.records = 4;
		in.last_t_ns = UINT64_MAX;
		in.count[IST_OP_WRITE_ZEROES] = 4;
		in.bytes[IST_OP_WRITE_ZEROES] = UINT64_MAX;
		in.txns = 3;
		in.ndev = 2;
		in.dev_max_end = ends;
		CU_ASSERT_EQUAL_FATAL(fmt_footer_encode(idx, 2, &in, NULL, &buf, &len), 0);
		CU_ASSERT_EQUAL_FATAL(fmt_footer_decode(buf, len, &oi, &nc, &out, NULL), 0);
		CU_ASSERT_EQUAL(nc, 2);
		CU_ASSERT_EQUAL(oi[1].offset, 400);
		CU_ASSERT_EQUAL(oi[1].last_t_ns, UINT64_MAX);
		CU_ASSERT_EQUAL(out.bytes[IST_OP_WRITE_ZEROES], UINT64_MAX);
		CU_ASSERT_EQUAL(out.dev_max_end[1], UINT64_MAX);
		CU_ASSERT_EQUAL(out.txns, 3);
		free(oi);
		ist_totals_release(&out);
		buf[6] ^= 1;
		CU_ASSERT_EQUAL(fmt_footer_decode(buf, len, &oi, &nc, &out, NULL), IST_ECRC);
		free(buf);
	}
	free(r);
}

static void test_empty_file(void)
{
	const char *path = tmp_path("empty.ist");
	struct ist_record one;
	ist_reader *rd;

	CU_ASSERT_EQUAL_FATAL(write_file(path, NULL, 0, 0), 0);
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, path), 0);
	CU_ASSERT_EQUAL(ist_reader_has_footer(rd), 1);
	CU_ASSERT_EQUAL(ist_reader_chunk_count(rd), 0);
	CU_ASSERT_EQUAL(ist_reader_totals(rd)->records, 0);
	CU_ASSERT_EQUAL(ist_reader_read(rd, &one, 1), 0);
	ist_reader_close(rd);
}

/* A file cut after its chunks (the writer died): every chunk comes back. */
static void test_recovery_without_footer(void)
{
	enum { N = 5000 };
	const char *path = tmp_path("direct.ist");
	struct ist_writer_opts o = { .chunk_records = 1000, .direct = 1 };
	struct ist_record *r = calloc(N, sizeof(*r)), *back;
	uint64_t t = 0;
	ist_writer *w;
	ist_reader *rd;
	uint8_t *b;
	size_t n, len;
	int fd;

	for (size_t i = 0; i < N; i++)
		random_record(&r[i], &t);
	CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, path, NULL, &o), 0);
	CU_ASSERT_EQUAL(ist_writer_write(w, r, 3500), 0);
	CU_ASSERT_EQUAL(ist_writer_flush(w), 0); /* 3 full chunks + 500 */
	CU_ASSERT_EQUAL(ist_writer_totals(w)->records, 3500);
	/* what a killed recorder leaves: copy the file as it is now */
	b = slurp(path, &len);
	CU_ASSERT_EQUAL(ist_writer_write(w, r + 3500, N - 3500), 0);
	CU_ASSERT_EQUAL(ist_writer_close(w), 0);
	spit(tmp_path("killed.ist"), b, len);
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, tmp_path("killed.ist")), 0);
	CU_ASSERT_EQUAL(ist_reader_has_footer(rd), 0);
	CU_ASSERT_EQUAL(ist_reader_footer_error(rd), IST_ENOFOOTER);
	CU_ASSERT_PTR_NULL(ist_reader_totals(rd));
	CU_ASSERT_EQUAL(ist_reader_chunk_count(rd), 4);
	ist_reader_close(rd);
	back = read_all(tmp_path("killed.ist"), &n, 4096);
	CU_ASSERT_EQUAL(n, 3500);
	for (size_t i = 0; i < n; i++)
		if (!rec_eq(&r[i], &back[i])) {
			CU_FAIL("recovered record differs");
			break;
		}
	free(back);
	/* a torn chunk at the end and garbage are skipped */
	fd = open(tmp_path("killed.ist"), O_WRONLY | O_APPEND);
	CU_ASSERT(write(fd, b + 100, 700) == 700);
	close(fd);
	back = read_all(tmp_path("killed.ist"), &n, 4096);
	CU_ASSERT_EQUAL(n, 3500);
	free(back);
	/* a damaged chunk header in the middle: the scan finds the next one */
	b[len - 1] ^= 0; /* keep b as is */
	{
		size_t off = 0;
		ist_reader *r2;
		struct ist_chunk_info ci;

		CU_ASSERT_EQUAL_FATAL(ist_reader_open(&r2, path), 0);
		CU_ASSERT_EQUAL(ist_reader_chunk_info(r2, 1, &ci), 0);
		off = ci.offset;
		ist_reader_close(r2);
		b[off + 5] ^= 0x40; /* inside chunk 1's header */
		spit(tmp_path("hole.ist"), b, len);
		back = read_all(tmp_path("hole.ist"), &n, 4096);
		CU_ASSERT_EQUAL(n, 2500); /* chunks 0, 2, 3 */
		if (n == 2500) {
			CU_ASSERT(rec_eq(&back[0], &r[0]));
			CU_ASSERT(rec_eq(&back[1000], &r[2000]));
			CU_ASSERT(rec_eq(&back[2499], &r[3499]));
		}
		free(back);
	}
	free(b);
	free(r);
}

/* A chunk read in pieces whose rest cannot be restored after a check of
 * another chunk (its bytes changed under the reader) reports that at the
 * next read, then the reader goes on with the next chunk. */
static void test_partial_chunk_changed(void)
{
	enum { N = 3000 };
	const char *path = tmp_path("partial.ist");
	struct ist_record *r = calloc(N, sizeof(*r)), got[1000];
	struct ist_chunk_info ci;
	struct ist_position pos;
	ist_reader *rd;
	uint64_t t = 0;
	uint8_t *b;
	size_t len;

	for (size_t i = 0; i < N; i++)
		random_record(&r[i], &t);
	CU_ASSERT_EQUAL_FATAL(write_file(path, r, N, 1000), 0);
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, path), 0);
	CU_ASSERT_EQUAL(ist_reader_chunk_info(rd, 0, &ci), 0);
	CU_ASSERT_EQUAL(ist_reader_read(rd, got, 400), 400);
	CU_ASSERT(rec_eq(&got[399], &r[399]));
	/* the reader keeps its descriptor: rewrite the file in place */
	b = slurp(path, &len);
	b[ci.offset + FMT_CHUNK_HDR + 10] ^= 0x10; /* payload of chunk 0 */
	{
		FILE *fp = fopen(path, "r+b");

		CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
		CU_ASSERT_EQUAL(fwrite(b, 1, len, fp), len);
		fclose(fp);
	}
	free(b);
	CU_ASSERT_EQUAL(ist_reader_check_chunk(rd, 1), 0);
	CU_ASSERT_EQUAL(ist_reader_read(rd, got, 1000), IST_ECRC);
	ist_reader_position(rd, &pos);
	CU_ASSERT_EQUAL(pos.chunk, 0);
	CU_ASSERT_EQUAL(ist_reader_read(rd, got, 1000), 1000);
	CU_ASSERT(rec_eq(&got[0], &r[1000]));
	ist_reader_close(rd);
	free(r);
}

static void test_crc_mismatch(void)
{
	enum { N = 4000 };
	const char *path = tmp_path("crc.ist");
	struct ist_record *r = calloc(N, sizeof(*r)), *got = calloc(N, sizeof(*got));
	struct ist_chunk_info ci;
	struct ist_position pos;
	ist_reader *rd;
	uint64_t t = 0;
	uint8_t *b;
	size_t len, total = 0;
	ssize_t k;

	for (size_t i = 0; i < N; i++)
		random_record(&r[i], &t);
	CU_ASSERT_EQUAL_FATAL(write_file(path, r, N, 1000), 0);
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, path), 0);
	CU_ASSERT_EQUAL(ist_reader_chunk_info(rd, 2, &ci), 0);
	ist_reader_close(rd);
	b = slurp(path, &len);
	b[ci.offset + FMT_CHUNK_HDR + 10] ^= 0x10; /* payload of chunk 2 */
	spit(path, b, len);
	free(b);
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, path), 0);
	CU_ASSERT_EQUAL(ist_reader_has_footer(rd), 1);
	CU_ASSERT_EQUAL(ist_reader_check_chunk(rd, 1), 0);
	CU_ASSERT_EQUAL(ist_reader_check_chunk(rd, 2), IST_ECRC);
	for (int call = 0; call < 10; call++) {
		k = ist_reader_read(rd, got + total, 1000);
		if (k == 0)
			break;
		if (k < 0) {
			CU_ASSERT_EQUAL(k, IST_ECRC);
			ist_reader_position(rd, &pos);
			CU_ASSERT_EQUAL(pos.chunk, 2);
			CU_ASSERT_EQUAL(pos.byte_offset, ci.offset);
			CU_ASSERT_EQUAL(pos.record, 2000);
			continue;
		}
		total += (size_t)k;
	}
	CU_ASSERT_EQUAL(total, 3000); /* chunks 0, 1, 3 */
	CU_ASSERT(rec_eq(&got[2000], &r[3000]));
	ist_reader_close(rd);
	free(r);
	free(got);
}

/* Every prefix of a small file gives an error or a correct prefix of its
 * records: never a crash, never a wrong record. */
static void test_truncation_every_byte(void)
{
	enum { N = 300 };
	const char *path = tmp_path("small.ist"), *cut = tmp_path("cut.ist");
	struct ist_record *r = calloc(N, sizeof(*r));
	struct ist_record got[64];
	uint64_t t = 0;
	uint8_t *b;
	size_t len;
	unsigned opened = 0, full = 0;

	for (size_t i = 0; i < N; i++)
		random_record(&r[i], &t);
	CU_ASSERT_EQUAL_FATAL(write_file(path, r, N, 64), 0);
	b = slurp(path, &len);
	for (size_t l = 0; l <= len; l++) {
		ist_reader *rd;
		size_t idx = 0;
		int ok = 1;
		ssize_t k;

		spit(cut, b, l);
		if (ist_reader_open(&rd, cut) != 0)
			continue;
		opened++;
		while ((k = ist_reader_read(rd, got, 64)) != 0) {
			if (k < 0)
				continue;
			for (ssize_t i = 0; i < k; i++, idx++)
				if (idx >= N || !rec_eq(&got[i], &r[idx]))
					ok = 0;
		}
		if (!ok) {
			CU_FAIL("a truncated file gave a wrong record");
			ist_reader_close(rd);
			break;
		}
		if (idx == N)
			full++;
		CU_ASSERT_EQUAL(ist_reader_has_footer(rd), l == len);
		ist_reader_close(rd);
	}
	CU_ASSERT(opened > len / 2);
	CU_ASSERT(full >= 1);
	free(b);
	free(r);
}

static void rewrite_header_crc(uint8_t *b)
{
	uint32_t hl = fmt_get32(b + 12);

	fmt_put32(b + hl - 4, (uint32_t)crc32(0, b, hl - 4));
}

/*
 * Files of minor version 0 (before the rANS column storage) stay
 * readable: tests/data/format/small-1.0.ist was written by the minor-0
 * writer from small.csv and must read back as the same records.
 */
static void test_golden_minor0(void)
{
	const char *top = getenv("top_srcdir");
	struct ist_record want[64], got[64];
	char path[1024];
	ist_csv_reader *cr;
	ist_reader *rd;
	unsigned major, minor;
	ssize_t nw, ng;
	FILE *f;

	if (!top)
		top = ".";
	snprintf(path, sizeof(path), "%s/tests/data/format/small.csv", top);
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	cr = ist_csv_reader_new(f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cr);
	nw = ist_csv_reader_read(cr, want, 64);
	ist_csv_reader_free(cr);
	fclose(f);
	CU_ASSERT_FATAL(nw > 0);
	snprintf(path, sizeof(path), "%s/tests/data/format/small-1.0.ist", top);
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, path), 0);
	CU_ASSERT_EQUAL(ist_reader_version(rd, &major, &minor), 0);
	CU_ASSERT_EQUAL(major, 1);
	CU_ASSERT_EQUAL(minor, 0);
	ng = ist_reader_read(rd, got, 64);
	CU_ASSERT_EQUAL_FATAL(ng, nw);
	for (ssize_t i = 0; i < ng; i++)
		CU_ASSERT(rec_eq(&got[i], &want[i]));
	CU_ASSERT_EQUAL(ist_reader_read(rd, got, 64), 0);
	ist_reader_close(rd);
}

static void test_versions(void)
{
	const char *path = tmp_path("ver.ist"), *p2 = tmp_path("ver2.ist");
	struct ist_record rec = { .t_ns = 1, .len = 512 }, got;
	ist_reader *rd;
	uint8_t *b;
	size_t len;

	CU_ASSERT_EQUAL_FATAL(write_file(path, &rec, 1, 0), 0);
	b = slurp(path, &len);
	/* unknown major */
	fmt_put16(b + 8, FMT_MAJOR + 1);
	rewrite_header_crc(b);
	spit(p2, b, len);
	CU_ASSERT_EQUAL(ist_reader_open(&rd, p2), IST_EVERSION);
	CU_ASSERT_PTR_NULL(rd);
	fmt_put16(b + 8, 0);
	rewrite_header_crc(b);
	spit(p2, b, len);
	CU_ASSERT_EQUAL(ist_reader_open(&rd, p2), IST_EVERSION);
	/* a higher minor is read */
	fmt_put16(b + 8, FMT_MAJOR);
	fmt_put16(b + 10, FMT_MINOR + 7);
	rewrite_header_crc(b);
	spit(p2, b, len);
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, p2), 0);
	CU_ASSERT_EQUAL(ist_reader_read(rd, &got, 1), 1);
	CU_ASSERT(rec_eq(&got, &rec));
	ist_reader_close(rd);
	/* a damaged header */
	b[20] ^= 1;
	spit(p2, b, len);
	CU_ASSERT_EQUAL(ist_reader_open(&rd, p2), IST_ECRC);
	/* not an IST file at all, or empty */
	spit(p2, (const uint8_t *)"t_ns,dev,op\n", 12);
	CU_ASSERT_EQUAL(ist_reader_open(&rd, p2), IST_EFORMAT);
	spit(p2, b, 0);
	CU_ASSERT_EQUAL(ist_reader_open(&rd, p2), IST_EFORMAT);
	spit(p2, b, 12);
	CU_ASSERT_EQUAL(ist_reader_open(&rd, p2), IST_ETRUNC);
	CU_ASSERT_EQUAL(ist_reader_open(&rd, tmp_path("missing.ist")), -ENOENT);
	free(b);
}

/* A 1.2 footer with metadata and devices learned late: merged by the
 * reader, skipped by a reader of 1.0 (simulated by patching the minor). */
/* A device's size and block size learned after the header was written
 * (device.N.size, device.N.block_size in the footer) update the device
 * table; malformed or out-of-range keys stay ordinary metadata. */
static void test_footer_geometry(void)
{
	char *path = strdup(tmp_path("fgeom.ist"));
	struct ist_record rec = { .t_ns = 1, .dev = 1, .offset = 0, .len = 4096 };
	ist_header *h = ist_header_new();
	const ist_header *rh;
	const struct ist_device *d;
	ist_writer *w;
	ist_reader *rd;

	CU_ASSERT_FATAL(path && h);
	ist_header_add_device(h, "iscsi:t/lun:0", 0, 512);
	ist_header_add_device(h, "iscsi:t/lun:1", 0, 512);
	CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, path, h, NULL), 0);
	CU_ASSERT_EQUAL(ist_writer_write(w, &rec, 1), 0);
	CU_ASSERT_EQUAL(ist_writer_set_meta(w, "device.1.size", "1073741824"), 0);
	CU_ASSERT_EQUAL(ist_writer_set_meta(w, "device.1.block_size", "4096"), 0);
	CU_ASSERT_EQUAL(ist_writer_set_meta(w, "device.01.size", "5"), 0);      /* leading 0 */
	CU_ASSERT_EQUAL(ist_writer_set_meta(w, "device.2.size", "5"), 0);       /* no device 2 */
	CU_ASSERT_EQUAL(ist_writer_set_meta(w, "device.0.size", "-1"), 0);      /* sign */
	CU_ASSERT_EQUAL(ist_writer_set_meta(w, "device.0.block_size", "4294967296"), 0);
	CU_ASSERT_EQUAL(ist_writer_set_meta(w, "device.0.sizes", "7"), 0);
	CU_ASSERT_EQUAL_FATAL(ist_writer_close(w), 0);

	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, path), 0);
	rh = ist_reader_header(rd);
	CU_ASSERT_EQUAL_FATAL(ist_header_device_count(rh), 2);
	d = ist_header_device(rh, 1);
	CU_ASSERT_EQUAL(d->size, 1073741824ull);
	CU_ASSERT_EQUAL(d->block_size, 4096);
	d = ist_header_device(rh, 0);
	CU_ASSERT_EQUAL(d->size, 0);
	CU_ASSERT_EQUAL(d->block_size, 512);
	/* applied keys are not metadata; the others are */
	CU_ASSERT_PTR_NULL(ist_header_get(rh, "device.1.size"));
	CU_ASSERT_PTR_NULL(ist_header_get(rh, "device.1.block_size"));
	CU_ASSERT_STRING_EQUAL(ist_header_get(rh, "device.01.size"), "5");
	CU_ASSERT_STRING_EQUAL(ist_header_get(rh, "device.2.size"), "5");
	CU_ASSERT_STRING_EQUAL(ist_header_get(rh, "device.0.size"), "-1");
	CU_ASSERT_STRING_EQUAL(ist_header_get(rh, "device.0.block_size"), "4294967296");
	CU_ASSERT_STRING_EQUAL(ist_header_get(rh, "device.0.sizes"), "7");
	CU_ASSERT_EQUAL(ist_header_meta_count(rh), 5);
	ist_reader_close(rd);
	unlink(path);
	free(path);
	ist_header_free(h);
}

static void test_footer_meta(void)
{
	char *path = strdup(tmp_path("fmeta.ist")), *p2 = strdup(tmp_path("fmeta0.ist"));
	struct ist_record recs[2] = {
		{ .t_ns = 1, .dev = 0, .offset = 0, .len = 512, .stream = 1 },
		{ .t_ns = 2, .dev = 1, .offset = 4000, .len = 96, .stream = 2 },
	};
	ist_header *h = ist_header_new(), *ext;
	const ist_header *rh, *fm;
	const struct ist_device *d;
	const struct ist_totals *t;
	const char *k, *v;
	unsigned major, minor;
	ist_writer *w;
	ist_reader *rd;
	uint8_t *b;
	size_t len;

	CU_ASSERT_FATAL(path && p2 && h);
	ist_header_set(h, "source", "test");
	ist_header_set(h, "stream.1", "early");
	ist_header_add_device(h, "sda", 1 << 20, 512);
	CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, path, h, NULL), 0);
	CU_ASSERT_EQUAL(ist_writer_write(w, &recs[0], 1), 0);
	CU_ASSERT_EQUAL(ist_writer_set_meta(w, "stream.2", "late"), 0);
	CU_ASSERT_EQUAL(ist_writer_set_meta(w, "source", "replaced"), 0);
	CU_ASSERT_EQUAL(ist_writer_set_meta(w, "", "x"), -EINVAL);
	CU_ASSERT_EQUAL(ist_writer_set_meta(w, "k", NULL), -EINVAL);
	CU_ASSERT_EQUAL(ist_writer_add_device(w, "nbd0", 4096, 512), 1);
	CU_ASSERT_EQUAL(ist_writer_add_device(w, NULL, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(ist_writer_write(w, &recs[1], 1), 0);
	CU_ASSERT_EQUAL_FATAL(ist_writer_close(w), 0);

	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, path), 0);
	ist_reader_version(rd, &major, &minor);
	CU_ASSERT_EQUAL(major, 1);
	CU_ASSERT_EQUAL(minor, FMT_MINOR);
	CU_ASSERT(ist_reader_has_footer(rd));
	rh = ist_reader_header(rd);
	CU_ASSERT_STRING_EQUAL(ist_header_get(rh, "stream.1"), "early");
	CU_ASSERT_STRING_EQUAL(ist_header_get(rh, "stream.2"), "late");
	CU_ASSERT_STRING_EQUAL(ist_header_get(rh, "source"), "replaced");
	/* a replaced key keeps its place */
	CU_ASSERT_EQUAL(ist_header_meta_count(rh), 3);
	ist_header_meta_at(rh, 0, &k, &v);
	CU_ASSERT_STRING_EQUAL(k, "source");
	CU_ASSERT_EQUAL_FATAL(ist_header_device_count(rh), 2);
	d = ist_header_device(rh, 1);
	CU_ASSERT_STRING_EQUAL(d->name, "nbd0");
	CU_ASSERT_EQUAL(d->size, 4096);
	CU_ASSERT_EQUAL(d->block_size, 512);
	t = ist_reader_totals(rd);
	CU_ASSERT_FATAL(t && t->ndev >= 2);
	CU_ASSERT_EQUAL(t->dev_max_end[1], 4096);
	fm = ist_reader_footer_meta(rd);
	CU_ASSERT_FATAL(fm != NULL);
	CU_ASSERT_EQUAL(ist_header_meta_count(fm), 2);
	CU_ASSERT_EQUAL(ist_header_device_count(fm), 1);
	ist_reader_close(rd);

	/* what a 1.0 reader sees: the header alone, footer still valid */
	b = slurp(path, &len);
	fmt_put16(b + 10, 0);
	rewrite_header_crc(b);
	spit(p2, b, len);
	free(b);
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, p2), 0);
	CU_ASSERT(ist_reader_has_footer(rd));
	rh = ist_reader_header(rd);
	CU_ASSERT_PTR_NULL(ist_header_get(rh, "stream.2"));
	CU_ASSERT_STRING_EQUAL(ist_header_get(rh, "source"), "test");
	CU_ASSERT_EQUAL(ist_header_device_count(rh), 1);
	CU_ASSERT_PTR_NULL(ist_reader_footer_meta(rd));
	ist_reader_close(rd);

	/* a file without late metadata has none in its footer */
	CU_ASSERT_EQUAL_FATAL(write_file(p2, recs, 1, 0), 0);
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, p2), 0);
	CU_ASSERT(ist_reader_has_footer(rd));
	CU_ASSERT_PTR_NULL(ist_reader_footer_meta(rd));
	ist_reader_close(rd);

	/* footer codec: a 1.2 footer must carry the metadata */
	{
		struct ist_chunk_info idx = { 16, 1, 1, 1 }, *oi;
		struct ist_totals in = { .records = 1 }, out;
		uint64_t nc;

		CU_ASSERT_EQUAL_FATAL(fmt_footer_encode(&idx, 1, &in, NULL, &b, &len), 0);
		CU_ASSERT_EQUAL(fmt_footer_decode(b, len, &oi, &nc, &out, &ext),
				IST_ECORRUPT);
		free(b);
		CU_ASSERT_EQUAL_FATAL(fmt_footer_encode(&idx, 1, &in, h, &b, &len), 0);
		CU_ASSERT_EQUAL_FATAL(fmt_footer_decode(b, len, &oi, &nc, &out, &ext), 0);
		CU_ASSERT_STRING_EQUAL(ist_header_get(ext, "stream.1"), "early");
		CU_ASSERT_EQUAL(ist_header_device_count(ext), 1);
		ist_header_free(ext);
		free(oi);
		ist_totals_release(&out);
		/* and a 1.0 reading skips it */
		CU_ASSERT_EQUAL(fmt_footer_decode(b, len, &oi, &nc, &out, NULL), 0);
		CU_ASSERT_EQUAL(nc, 1);
		free(oi);
		ist_totals_release(&out);
		free(b);
	}
	ist_header_free(h);
	free(path);
	free(p2);
}

/* A header of many devices deflates its device table (1.3); a reader of
 * 1.2 sees none of them; a damaged packed table is corrupt. */
static void test_packed_devices(void)
{
	enum { NDEV = 300 };
	const char *path = tmp_path("packed.ist");
	ist_header *h = ist_header_new(), *got = NULL;
	struct ist_record rec = { .t_ns = 1, .len = 512, .dev = NDEV - 1 };
	uint8_t *body, *plain, *b;
	size_t blen, plen, plen300, len;
	ist_writer *w;
	ist_reader *rd;

	ist_header_set(h, "source", "packed");
	for (unsigned i = 0; i < NDEV; i++) {
		char name[32];

		snprintf(name, sizeof(name), "vol%u", 1000 + i * 7);
		CU_ASSERT_EQUAL(ist_header_add_device(h, name, i * 4096ull, 512), (int)i);
	}
	CU_ASSERT_EQUAL_FATAL(fmt_header_encode_packed(h, &body, &blen), 0);
	CU_ASSERT_EQUAL_FATAL(fmt_header_encode(h, &plain, &plen), 0);
	CU_ASSERT(blen < plen / 2);
	plen300 = plen;
	CU_ASSERT_EQUAL(fmt_header_decode_minor(body, blen, FMT_MINOR_ARITH, &got), 0);
	CU_ASSERT_EQUAL_FATAL(ist_header_device_count(got), NDEV);
	CU_ASSERT_STRING_EQUAL(ist_header_device(got, NDEV - 1)->name, "vol3093");
	CU_ASSERT_EQUAL(ist_header_device(got, 5)->size, 5 * 4096);
	CU_ASSERT_EQUAL(ist_header_device(got, 5)->block_size, 512);
	CU_ASSERT_STRING_EQUAL(ist_header_get(got, "source"), "packed");
	ist_header_free(got);
	/* as a 1.2 reader sees it: the metadata, no devices */
	CU_ASSERT_EQUAL(fmt_header_decode_minor(body, blen, 2, &got), 0);
	CU_ASSERT_EQUAL(ist_header_device_count(got), 0);
	CU_ASSERT_STRING_EQUAL(ist_header_get(got, "source"), "packed");
	ist_header_free(got);
	/* every truncation is corrupt; flipped bits never crash */
	for (size_t k = 0; k < blen; k++) {
		got = NULL;
		CU_ASSERT_NOT_EQUAL(fmt_header_decode_minor(body, k, 3, &got), 0);
		CU_ASSERT_PTR_NULL(got);
	}
	for (size_t k = 0; k < blen; k++) {
		body[k] ^= 0x21;
		got = NULL;
		if (fmt_header_decode_minor(body, blen, 3, &got) == 0)
			ist_header_free(got);
		body[k] ^= 0x21;
	}
	/* a plain 1.3 header of few devices ends with a packed count of 0 */
	free(body);
	free(plain);
	{
		ist_header *few = sample_header();

		CU_ASSERT_EQUAL_FATAL(fmt_header_encode_packed(few, &body, &blen), 0);
		CU_ASSERT_EQUAL_FATAL(fmt_header_encode(few, &plain, &plen), 0);
		CU_ASSERT_EQUAL(blen, plen + 1);
		CU_ASSERT(memcmp(body, plain, plen) == 0 && body[plen] == 0);
		ist_header_free(few);
		free(body);
		free(plain);
	}
	/* hand-made packed tables: one device "a" (4 bytes deflated) */
	{
		uint8_t raw[] = { 1, 'a', 0, 0 }, z[64], hb[96];
		z_stream zs;
		size_t zl, hl;
		const struct { uint8_t npacked, raw_len; int ok; } cases[] = {
			{ 1, 4, 1 }, { 1, 5, 0 }, { 1, 3, 0 }, { 2, 4, 0 },
		};

		memset(&zs, 0, sizeof(zs));
		CU_ASSERT_FATAL(deflateInit2(&zs, 9, Z_DEFLATED, -15, 8,
					     Z_DEFAULT_STRATEGY) == Z_OK);
		zs.next_in = raw;
		zs.avail_in = sizeof(raw);
		zs.next_out = z;
		zs.avail_out = sizeof(z);
		CU_ASSERT_FATAL(deflate(&zs, Z_FINISH) == Z_STREAM_END);
		zl = sizeof(z) - zs.avail_out;
		deflateEnd(&zs);
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			hl = 0;
			hb[hl++] = 0; /* no metadata */
			hb[hl++] = 0; /* no plain devices */
			hb[hl++] = cases[c].npacked;
			hb[hl++] = cases[c].raw_len;
			hb[hl++] = (uint8_t)zl;
			memcpy(hb + hl, z, zl);
			hl += zl;
			got = NULL;
			if (cases[c].ok) {
				CU_ASSERT_EQUAL(fmt_header_decode_minor(hb, hl, 3, &got), 0);
				CU_ASSERT(got && ist_header_device_count(got) == 1);
				ist_header_free(got);
				/* a zlen past the body */
				hb[4] = (uint8_t)(zl + 1);
				CU_ASSERT_EQUAL(fmt_header_decode_minor(hb, hl, 3, &got),
						IST_ECORRUPT);
			} else {
				CU_ASSERT_EQUAL(fmt_header_decode_minor(hb, hl, 3, &got),
						IST_ECORRUPT);
			}
		}
	}
	/* through a file */
	CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, path, h, NULL), 0);
	CU_ASSERT_EQUAL(ist_writer_write(w, &rec, 1), 0);
	CU_ASSERT_EQUAL_FATAL(ist_writer_close(w), 0);
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, path), 0);
	CU_ASSERT_EQUAL(ist_header_device_count(ist_reader_header(rd)), NDEV);
	CU_ASSERT_STRING_EQUAL(ist_header_device(ist_reader_header(rd), 1)->name,
			       "vol1007");
	ist_reader_close(rd);
	b = slurp(path, &len);
	CU_ASSERT(fmt_get32(b + 12) < plen300 / 2);
	free(b);
	ist_header_free(h);
}

static void count_stores(const char *path, uint64_t counts[5]);

/* The file at path, of minor version from, copied to dst saying minor to
 * (its header CRC made good): reading its records must be IST_ECORRUPT. */
static void refused_as_minor(const char *path, const char *dst,
			     unsigned from, unsigned to)
{
	struct ist_record got[256];
	ist_reader *rd;
	ssize_t n;
	uint8_t *b;
	size_t len;

	b = slurp(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(fmt_get16(b + 10), from);
	fmt_put16(b + 10, (uint16_t)to);
	rewrite_header_crc(b);
	spit(dst, b, len);
	free(b);
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, dst), 0);
	do
		n = ist_reader_read(rd, got, 256);
	while (n > 0);
	CU_ASSERT_EQUAL(n, IST_ECORRUPT);
	ist_reader_close(rd);
}

/* A chunk using ARITH storage in a file that says minor 2 is corrupt (it
 * came with 1.3): the 1.3 golden synth-4000 (the writer of 1.4 stores its
 * small chunks in VANS), which reads at minor 3. */
static void test_minor3_in_minor2(void)
{
	const char *top = getenv("top_srcdir");
	char path[1024];
	uint64_t cs[5];
	ist_reader *rd;
	struct ist_record got[256];
	ssize_t n, total = 0;

	snprintf(path, sizeof(path), "%s/tests/data/format/synth-4000-1.3.ist",
		 top ? top : ".");
	count_stores(path, cs);
	CU_ASSERT(cs[FMT_STORE_ARITH] > 0);
	CU_ASSERT_EQUAL(cs[FMT_STORE_VANS], 0);
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, path), 0);
	while ((n = ist_reader_read(rd, got, 256)) > 0)
		total += n;
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(total, 4000);
	ist_reader_close(rd);
	refused_as_minor(path, tmp_path("m2.ist"), FMT_MINOR_ARITH,
			 FMT_MINOR_FOOTER_META);
}

/* The raw (coded) bytes of a stored column; 0 or -1. */
static int column_raw(const uint8_t *src, const struct fmt_coldesc *d,
		      uint8_t *raw)
{
	if (d->store == FMT_STORE_PLAIN) {
		memcpy(raw, src, d->raw_len);
		return 0;
	}
	if (d->store == FMT_STORE_ARITH)
		return fmt_arith_decode(src, d->stored_len, raw, d->raw_len) ? -1 : 0;
	if (d->store == FMT_STORE_VANS)
		return fmt_vans_decode(src, d->stored_len, raw, d->raw_len) ? -1 : 0;
	if (d->store == FMT_STORE_ANS) {
		struct fmt_ans_dec *t = malloc(sizeof(*t));
		int ret = fmt_ans_decode(t, src, d->stored_len, raw, d->raw_len);

		free(t);
		return ret ? -1 : 0;
	} else {
		z_stream zs;
		int zr;

		memset(&zs, 0, sizeof(zs));
		if (inflateInit2(&zs, -15) != Z_OK)
			return -1;
		zs.next_in = (Bytef *)src;
		zs.avail_in = (uInt)d->stored_len;
		zs.next_out = raw;
		zs.avail_out = (uInt)d->raw_len;
		zr = inflate(&zs, Z_FINISH);
		inflateEnd(&zs);
		return zr == Z_STREAM_END && !zs.avail_out ? 0 : -1;
	}
}

/*
 * The writer's VANS and ARITH rules: in small chunks a column is stored in
 * VANS when that is shorter than the other forms (ANS, deflate, the
 * column as coded), and otherwise (no shorter VANS form) in ARITH only
 * when ARITH is at least 1/16 shorter than the best other form, since it
 * decodes several times slower.  A column stored in VANS is VANS's form, shorter than its
 * ANS form and than the column; a column stored otherwise (not ARITH) has
 * no shorter VANS form.  Every column of 1000-record chunks of varied traces is
 * re-coded with ARITH here: a column stored in ARITH is that ARITH form
 * and 1/16 shorter than the column as coded and than its ANS form; a
 * column stored otherwise has no ARITH form 1/16 shorter than it.  The
 * traces include columns where ARITH is shorter by less than 1/16 (kept
 * in deflate or ANS now, ARITH before) and columns where it wins by more.
 */
static void test_arith_margin(void)
{
	enum { N = 1000, CH = 1000 };
	const char *path = tmp_path("margin.ist");
	struct ist_record *r = calloc(N * 4, sizeof(*r));
	uint8_t *raw = malloc(FMT_MAX_COL_BYTES(CH) + 64);
	uint8_t *enc = malloc(FMT_MAX_COL_BYTES(CH) * 2 + 64);
	uint8_t *tmp = malloc(FMT_ANS_TMP(FMT_MAX_COL_BYTES(CH)));
	unsigned stored_arith = 0, within = 0, cols = 0, stored_vans = 0;

	rng = 4242;
	for (unsigned kind = 0; kind < 4; kind++) {
		uint64_t t = 0, seq = 0;
		size_t len, p;
		uint8_t *b;

		for (size_t i = 0; i < N * 4; i++) {
			struct ist_record *x = &r[i];
			unsigned e = (unsigned)(rnd() % (kind + 12));

			memset(x, 0, sizeof(*x));
			/* arrivals: 100 ns ticks, magnitudes spread */
			t += 100 * (1 + rnd() % (1ull << e));
			x->t_ns = t;
			x->op = (uint8_t)(rnd() % 3 == 0);
			x->len = 512u << (rnd() % (kind + 2));
			if (kind & 1 && rnd() % 2) {
				x->offset = seq;
				seq += x->len;
			} else {
				x->offset = (rnd() % (1ull << (20 + 4 * kind))) * 512;
			}
			x->lat_ns = kind == 2 ? 0 : 100 * (1 + rnd() % (1ull << (e / 2 + 6)));
		}
		CU_ASSERT_EQUAL_FATAL(write_file(path, r, N * 4, CH), 0);
		b = slurp(path, &len);
		CU_ASSERT_FATAL(b != NULL);
		p = fmt_get32(b + 12);
		while (p + FMT_CHUNK_HDR < len && !memcmp(b + p, FMT_CHUNK_MAGIC, 4)) {
			const uint8_t *q = b + p + FMT_CHUNK_HDR, *end = b + len;
			struct fmt_coldesc d[FMT_NCOLS];
			unsigned ncols = *q++;
			uint32_t n = fmt_get32(b + p + 4);

			CU_ASSERT_FATAL(ncols == FMT_NCOLS);
			for (unsigned c = 0; c < ncols; c++) {
				d[c].coding = q[0];
				d[c].store = q[1];
				q += 2;
				CU_ASSERT_FATAL(!fmt_get_varint(&q, end, &d[c].param) &&
						!fmt_get_varint(&q, end, &d[c].raw_len) &&
						!fmt_get_varint(&q, end, &d[c].stored_len));
			}
			for (unsigned c = 0; c < ncols; c++) {
				size_t pre = d[c].coding == FMT_CODE_HIST ? n : 0;
				size_t a, s, v, best, rl = d[c].raw_len;

				if (rl >= 16) {
					CU_ASSERT_FATAL(column_raw(q, &d[c], raw) == 0);
					v = fmt_vans_encode(raw, rl, pre, enc,
							    FMT_MAX_COL_BYTES(CH) * 2);
					a = fmt_arith_encode(raw, rl, pre, enc,
							     FMT_MAX_COL_BYTES(CH) * 2);
					cols++;
					if (d[c].store == FMT_STORE_VANS) {
						stored_vans++;
						CU_ASSERT_EQUAL(v, d[c].stored_len);
						CU_ASSERT(v < rl);
						s = fmt_ans_encode(raw, rl, pre, enc,
								   rl - rl / 32, tmp);
						CU_ASSERT(!s || v < s);
						within += a && a < v;
					} else if (d[c].store == FMT_STORE_ARITH) {
						stored_arith++;
						CU_ASSERT_EQUAL(a, d[c].stored_len);
						s = fmt_ans_encode(raw, rl, pre, enc,
								   rl - rl / 32, tmp);
						best = s ? s : rl;
						CU_ASSERT(a < best - best / 16);
						CU_ASSERT(!v || v >= best);
					} else {
						best = d[c].stored_len;
						CU_ASSERT(!a || a >= best - best / 16);
						CU_ASSERT(!v || v >= best);
						within += a && a < best;
					}
				}
				q += d[c].stored_len;
			}
			p += FMT_CHUNK_HDR + fmt_get32(b + p + 28);
		}
		free(b);
	}
	CU_ASSERT(cols > 0);
	CU_ASSERT(stored_vans > 0);
	CU_ASSERT(within > 0);
	if (getenv("IST_TEST_VERBOSE"))
		fprintf(stderr, "arith margin: %u columns, %u VANS, %u ARITH, %u within the margin\n",
			cols, stored_vans, stored_arith, within);
	free(r);
	free(raw);
	free(enc);
	free(tmp);
}

static void test_writer_rules(void)
{
	const char *path = tmp_path("rules.ist");
	struct ist_record bad = { .op = IST_OP_COUNT };
	struct ist_record ok = { .t_ns = 5, .op = IST_OP_FLUSH };
	struct ist_writer_opts o = { .chunk_records = FMT_MAX_CHUNK + 1 };
	ist_writer *w;
	struct dirent *e;
	DIR *d;
	int files = 0;

	CU_ASSERT_EQUAL(ist_writer_open(&w, path, NULL, &o), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, path, NULL, NULL), 0);
	/* the target does not exist until close */
	CU_ASSERT(access(path, F_OK) != 0);
	CU_ASSERT_EQUAL(ist_writer_write(w, &bad, 1), IST_ERANGE);
	bad.op = 0;
	bad.flags = 1u << IST_F_COUNT;
	CU_ASSERT_EQUAL(ist_writer_write(w, &bad, 1), IST_ERANGE);
	bad.flags = 0;
	bad.dev = IST_MAX_FOOTER_DEVICES;
	CU_ASSERT_EQUAL(ist_writer_write(w, &bad, 1), IST_EDEVICE);
	/* still usable */
	CU_ASSERT_EQUAL(ist_writer_write(w, &ok, 1), 0);
	CU_ASSERT_EQUAL(ist_writer_totals(w)->records, 1);
	ist_writer_abort(w);
	CU_ASSERT(access(path, F_OK) != 0);
	/* nothing left behind in the directory but earlier tests' files */
	d = opendir(tmpdir);
	while ((e = readdir(d)))
		if (strstr(e->d_name, "rules"))
			files++;
	closedir(d);
	CU_ASSERT_EQUAL(files, 0);
	CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, path, NULL, NULL), 0);
	CU_ASSERT_EQUAL(ist_writer_write(w, &ok, 1), 0);
	CU_ASSERT_EQUAL(ist_writer_close(w), 0);
	CU_ASSERT(access(path, F_OK) == 0);
	/* a directory that does not exist */
	CU_ASSERT_EQUAL(ist_writer_open(&w, "/nonexistent-dir/x.ist", NULL, NULL),
			-ENOENT);
}

/*
 * The running totals against a plain recount: records on five devices
 * (runs of one and changes every record), all ops and an out-of-range
 * one, times out of order, latencies, lengths near 2^32 and ends that
 * saturate, added in batches of random sizes through both entries (the
 * shifted one with its shift): ist_totals_acc_add() keeps its counts in
 * locals and stores them at its end.
 */
static void test_totals_recount(void)
{
	enum { N = 20000 };
	static struct ist_record r[N];
	uint64_t cnt[IST_OP_COUNT] = { 0 }, byt[IST_OP_COUNT] = { 0 };
	uint64_t dmax[5] = { 0 }, first = UINT64_MAX, last = 0, ooo = 0;
	uint64_t wlat = 0, shift = 5000;
	ist_totals_acc *a = ist_totals_acc_new();
	const struct ist_totals *t;
	size_t i, k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	for (i = 0; i < N; i++) {
		uint64_t x = rnd();

		r[i].t_ns = shift + 1000 + i * 10 - (x % 7 == 0 ? x % 300 : 0);
		r[i].dev = (uint32_t)(i / 500 % 2 ? (x >> 8) % 5 : i / 500 % 5);
		r[i].op = (uint8_t)((x >> 16) % IST_OP_COUNT);
		r[i].len = (x >> 24) % 5 == 0 ? UINT32_MAX - 3 : (uint32_t)(x >> 40) % 65536;
		r[i].offset = (x >> 28) % 97 == 0 ? UINT64_MAX - 10 : (x >> 20) % (1ull << 40);
		r[i].lat_ns = (x >> 30) % 3 ? 0 : 100;
	}
	for (i = 0; i < N; i++) {
		uint64_t tn = r[i].t_ns - shift;
		uint64_t end = r[i].offset + r[i].len;

		if (end < r[i].offset)
			end = UINT64_MAX;
		if (i && tn < r[i - 1].t_ns - shift)
			ooo++;
		first = tn < first ? tn : first;
		last = tn > last ? tn : last;
		cnt[r[i].op]++;
		byt[r[i].op] += r[i].len;
		if (end > dmax[r[i].dev])
			dmax[r[i].dev] = end;
		wlat += r[i].lat_ns != 0;
	}
	for (i = 0; i < N; i += k) {
		k = 1 + rnd() % 700;
		if (k > N - i)
			k = N - i;
		if (i / 3000 % 2) {
			CU_ASSERT_EQUAL_FATAL(ist_totals_acc_add_shifted(a, r + i, k, shift), 0);
		} else {
			CU_ASSERT_EQUAL_FATAL(ist_totals_acc_add(a, r + i, k), 0);
		}
	}
	t = ist_totals_acc_get(a);
	/* the unshifted batches' times are shift later */
	CU_ASSERT_EQUAL(t->records, N);
	CU_ASSERT_EQUAL(t->ndev, 5);
	for (unsigned d = 0; d < 5; d++)
		CU_ASSERT_EQUAL(t->dev_max_end[d], dmax[d]);
	for (unsigned o = 0; o < IST_OP_COUNT; o++) {
		CU_ASSERT_EQUAL(t->count[o], cnt[o]);
		CU_ASSERT_EQUAL(t->bytes[o], byt[o]);
	}
	CU_ASSERT_EQUAL(t->with_latency, wlat);
	CU_ASSERT_EQUAL(t->streams, 0);
	ist_totals_acc_free(a);
	/* all shifted: the time bounds and the records out of order */
	a = ist_totals_acc_new();
	for (i = 0; i < N; i += k) {
		k = 1 + rnd() % 700;
		if (k > N - i)
			k = N - i;
		CU_ASSERT_EQUAL_FATAL(ist_totals_acc_add_shifted(a, r + i, k, shift), 0);
	}
	t = ist_totals_acc_get(a);
	CU_ASSERT_EQUAL(t->first_t_ns, first);
	CU_ASSERT_EQUAL(t->last_t_ns, last);
	CU_ASSERT_EQUAL(t->out_of_order, ooo);
	CU_ASSERT_EQUAL(t->records, N);
	ist_totals_acc_free(a);
}

/*
 * ist_totals_acc_add() refuses a device past IST_MAX_FOOTER_DEVICES with
 * IST_EDEVICE (iostorm.h), UINT32_MAX too: as the batch's first record
 * (which equalled the "no device yet" mark of the loop and was counted
 * without its device) and after another device (whose end was read from
 * dev_max_end[UINT32_MAX]: r->dev + 1 wrapped to 0 devices to reserve).
 */
static void test_totals_dev_limit(void)
{
	static const uint32_t bad[] = { UINT32_MAX, IST_MAX_FOOTER_DEVICES,
					UINT32_MAX - 1 };
	struct ist_record r[2];
	const struct ist_totals *t;

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (int first = 0; first < 2; first++) {
			ist_totals_acc *a = ist_totals_acc_new();

			CU_ASSERT_PTR_NOT_NULL_FATAL(a);
			memset(r, 0, sizeof(r));
			r[0].dev = first ? bad[i] : 1;
			r[1].dev = bad[i];
			r[0].offset = r[1].offset = 4096;
			r[0].len = r[1].len = 512;
			CU_ASSERT_EQUAL(ist_totals_acc_add(a, r, 2), IST_EDEVICE);
			CU_ASSERT_EQUAL(ist_totals_acc_add_shifted(a, r + 1, 1, 7),
					IST_EDEVICE);
			t = ist_totals_acc_get(a);
			CU_ASSERT(t->ndev <= IST_MAX_FOOTER_DEVICES);
			ist_totals_acc_free(a);
		}
	}
	/* the last device allowed is taken */
	{
		ist_totals_acc *a = ist_totals_acc_new();

		memset(r, 0, sizeof(r));
		r[0].dev = IST_MAX_FOOTER_DEVICES - 1;
		r[0].offset = 4096;
		r[0].len = 512;
		CU_ASSERT_EQUAL(ist_totals_acc_add(a, r, 1), 0);
		t = ist_totals_acc_get(a);
		CU_ASSERT_EQUAL(t->ndev, IST_MAX_FOOTER_DEVICES);
		CU_ASSERT_EQUAL(t->dev_max_end[IST_MAX_FOOTER_DEVICES - 1], 4608);
		ist_totals_acc_free(a);
	}
}

static void test_distinct_cap(void)
{
	ist_totals_acc *a = ist_totals_acc_new();
	struct ist_record r[1024];
	const struct ist_totals *t;

	memset(r, 0, sizeof(r));
	for (uint64_t base = 0; base < FMT_DISTINCT_CAP + 4096; base += 1024) {
		for (int i = 0; i < 1024; i++) {
			r[i].stream = base + (uint64_t)i + 1;
			r[i].txn = 1;
		}
		CU_ASSERT_EQUAL_FATAL(ist_totals_acc_add(a, r, 1024), 0);
	}
	t = ist_totals_acc_get(a);
	CU_ASSERT_EQUAL(t->streams, FMT_DISTINCT_CAP);
	CU_ASSERT_EQUAL(t->flags_exact & IST_TOTALS_STREAMS_EXACT, 0);
	CU_ASSERT_EQUAL(t->flags_exact & IST_TOTALS_TXNS_EXACT, 0);
	ist_totals_acc_free(a);
	/* exact below the cap, repeats counted once */
	a = ist_totals_acc_new();
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 1024; i++) {
			r[i].stream = (uint64_t)(i % 100);
			r[i].txn = (uint64_t)(i % 7);
		}
		CU_ASSERT_EQUAL(ist_totals_acc_add(a, r, 1024), 0);
	}
	t = ist_totals_acc_get(a);
	CU_ASSERT_EQUAL(t->streams, 99);      /* stream 0 is "unknown" */
	CU_ASSERT_EQUAL(t->txns, 100 * 7 - 100); /* pairs with txn != 0 */
	CU_ASSERT_EQUAL(t->flags_exact,
			IST_TOTALS_STREAMS_EXACT | IST_TOTALS_TXNS_EXACT);
	ist_totals_acc_free(a);
	/* pairs that pack into 8 bytes (stream < 2^16, txn < 2^48) and
	 * pairs that do not are kept apart, counted together */
	a = ist_totals_acc_new();
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 1024; i++) {
			r[i].stream = (i & 1) ? (UINT64_C(1) << 16) + 5 : 5;
			r[i].txn = ((i & 2) ? UINT64_C(1) << 48 : 0) +
				   (uint64_t)((i >> 2) % 8) + 1;
		}
		CU_ASSERT_EQUAL(ist_totals_acc_add(a, r, 1024), 0);
	}
	t = ist_totals_acc_get(a);
	CU_ASSERT_EQUAL(t->streams, 2);
	CU_ASSERT_EQUAL(t->txns, 2 * 2 * 8);
	CU_ASSERT_EQUAL(t->flags_exact,
			IST_TOTALS_STREAMS_EXACT | IST_TOTALS_TXNS_EXACT);
	ist_totals_acc_free(a);
}

/* Millions of random records with extreme values, several chunk sizes. */
/* A closed writer's arena is kept for the next writer (writer.c,
 * arena_take()), when it is large enough.  Two writers open at once,
 * one of 65536-record chunks and one of 16, closed in that order, leave
 * the small arena kept: the next large writer must not take it (a heap
 * overflow), a small one after a large one takes the large arena.  Each
 * file read back exact. */
static void test_arena_reuse(void)
{
	enum { N = 70000 };
	struct ist_writer_opts big = { .chunk_records = 0 };
	struct ist_writer_opts small = { .chunk_records = 16 };
	struct ist_record *r = malloc(N * sizeof(*r));
	uint64_t t = 0, saved = rng; /* the tests after this one: their data */
	unsigned long reused, too_small;
	ist_writer *a, *b;

	CU_ASSERT_FATAL(r != NULL);
	rng = 777;
	for (size_t i = 0; i < N; i++)
		random_record(&r[i], &t);
	CU_ASSERT_EQUAL_FATAL(ist_writer_open(&a, tmp_path("arena-a.ist"), NULL, &big), 0);
	CU_ASSERT_EQUAL_FATAL(ist_writer_open(&b, tmp_path("arena-b.ist"), NULL, &small), 0);
	CU_ASSERT_EQUAL(ist_writer_write(a, r, N), 0);
	CU_ASSERT_EQUAL(ist_writer_write(b, r, 100), 0);
	CU_ASSERT_EQUAL(ist_writer_close(a), 0);
	CU_ASSERT_EQUAL(ist_writer_close(b), 0); /* its arena kept */
	reused = fmt_arena_reused;
	too_small = fmt_arena_too_small;
	write_read_back(tmp_path("arena.ist"), &big, r, N, 4096);
	CU_ASSERT_EQUAL(fmt_arena_too_small, too_small + 1);
	CU_ASSERT_EQUAL(fmt_arena_reused, reused);
	write_read_back(tmp_path("arena.ist"), &small, r, 100, 7);
	CU_ASSERT_EQUAL(fmt_arena_reused, reused + 1);
	write_read_back(tmp_path("arena.ist"), &big, r, N, 4096);
	CU_ASSERT_EQUAL(fmt_arena_reused, reused + 2);
	CU_ASSERT_EQUAL(fmt_arena_too_small, too_small + 1);
	free(r);
	rng = saved;
}

static void test_random_roundtrip(void)
{
	enum { N = 2000000, B = 65536 };
	const char *path = tmp_path("big.ist");
	struct ist_writer_opts o = { .chunk_records = 50000 };
	struct ist_record *b = malloc(B * sizeof(*b));
	uint64_t t = 0, seed_state;
	ist_writer *w;
	ist_reader *rd;
	size_t done = 0, bad = 0;
	ssize_t k;

	rng = 12345;
	CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, path, NULL, &o), 0);
	for (size_t i = 0; i < N; i += B) {
		for (size_t j = 0; j < B; j++)
			random_record(&b[j], &t);
		CU_ASSERT_EQUAL_FATAL(ist_writer_write(w, b, B), 0);
	}
	CU_ASSERT_EQUAL_FATAL(ist_writer_close(w), 0);
	/* regenerate the same sequence and compare */
	rng = 12345;
	t = 0;
	seed_state = 0;
	(void)seed_state;
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, path), 0);
	{
		struct ist_record *got = malloc(B * sizeof(*got));
		size_t have = 0, pos = 0;

		for (size_t i = 0; i < N; i += B) {
			for (size_t j = 0; j < B; j++)
				random_record(&b[j], &t);
			for (size_t j = 0; j < B; j++) {
				if (pos == have) {
					k = ist_reader_read(rd, got, 7777);
					if (k <= 0) {
						CU_FAIL("read ended early");
						goto out;
					}
					have = (size_t)k;
					pos = 0;
				}
				if (!rec_eq(&got[pos++], &b[j]))
					bad++;
				done++;
			}
		}
out:
		free(got);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(done, (N + B - 1) / B * B);
	CU_ASSERT_EQUAL(ist_reader_totals(rd)->records, (N + B - 1) / B * B);
	ist_reader_close(rd);
	free(b);
	unlink(path);
}

/* Calls fn(arg, chunk, column, storage) for each stored column of the
 * file at path, its chunks' directories walked as man/iostorm-trace.5
 * lays them out; returns the number of chunks. */
static size_t walk_stores(const char *path,
			  void (*fn)(void *arg, size_t chunk, unsigned col, uint8_t store),
			  void *arg)
{
	size_t len, p, k = 0;
	uint8_t *b = slurp(path, &len);

	CU_ASSERT_FATAL(b != NULL && len > 16);
	p = fmt_get32(b + 12);
	while (p + FMT_CHUNK_HDR < len && !memcmp(b + p, FMT_CHUNK_MAGIC, 4)) {
		const uint8_t *q = b + p + FMT_CHUNK_HDR, *end = b + len;
		unsigned ncols = *q++;

		for (unsigned c = 0; c < ncols; c++) {
			uint64_t v;

			CU_ASSERT_FATAL(q[1] <= FMT_STORE_VANS);
			fn(arg, k, c, q[1]);
			q += 2;
			for (int j = 0; j < 3; j++) /* param, raw, stored */
				CU_ASSERT_FATAL(fmt_get_varint(&q, end, &v) == 0);
		}
		k++;
		p += FMT_CHUNK_HDR + fmt_get32(b + p + 28);
	}
	free(b);
	return k;
}

static void count_store(void *arg, size_t chunk, unsigned col, uint8_t store)
{
	(void)chunk;
	(void)col;
	((uint64_t *)arg)[store]++;
}

/* Stored columns of the file at path by storage (FMT_STORE_*). */
static void count_stores(const char *path, uint64_t counts[5])
{
	memset(counts, 0, 5 * sizeof(counts[0]));
	walk_stores(path, count_store, counts);
}

/* The payload CRC and the header CRC of the chunk at b + p, after its
 * payload was changed. */
static void rewrite_chunk_crc(uint8_t *b, size_t p)
{
	fmt_put32(b + p + 32, (uint32_t)crc32(0, b + p + FMT_CHUNK_HDR,
					      fmt_get32(b + p + 28)));
	fmt_put32(b + p + 36, (uint32_t)crc32(0, b + p, 36));
}

/* rec_hash() of good-vans-large.ist's records */
#define VANS_LARGE_HASH 0xcdea872ab0325647ull
/* FNV-1a of the records' fields. */
static uint64_t rec_hash(const struct ist_record *r, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < n; i++) {
		uint64_t f[9] = { r[i].t_ns, r[i].offset, r[i].lat_ns, r[i].len,
				  r[i].dev, r[i].op, r[i].flags, r[i].stream,
				  r[i].txn };

		for (int k = 0; k < 9; k++)
			for (int j = 0; j < 8; j++)
				h = (h ^ ((f[k] >> (8 * j)) & 0xff)) * 1099511628211ull;
	}
	return h;
}

/*
 * A chunk of more than 8192 records with a VANS column of values, which
 * the reader decodes into values (the fuzz seed good-vans-large.ist:
 * 8997 records of the synthetic trace, its offsets in VANS, written by
 * branch val15's writer, whose CSV round trip was byte-identical): the
 * same records (their hash, taken then).  The seed's broken variants
 * (flip-vans-large.ist, bad-vans-mode-large.ist: CRCs made good) and a
 * bad mode there refused (IST_ECORRUPT, no record of the chunk); flipped
 * or zeroed bytes refused or read as N records, never a crash.
 */
static void test_vans_large(void)
{
	enum { N = 8997 };
	const char *top = getenv("top_srcdir");
	char path[1024], bp[1024];
	char *bpath = strdup(tmp_path("vans-large-bad.ist")); /* static buffer */
	struct ist_record *got;
	uint64_t cs[5];
	size_t n, len, p, q, vcol = 0;
	uint8_t *b, *orig;
	unsigned ncols;

	snprintf(path, sizeof(path),
		 "%s/tests/fuzz/corpus/ist_reader/good-vans-large.ist",
		 top ? top : ".");
	count_stores(path, cs);
	CU_ASSERT_EQUAL(cs[FMT_STORE_VANS], 1);
	got = read_all(path, &n, 777);
	CU_ASSERT_EQUAL_FATAL(n, N);
	CU_ASSERT_EQUAL(rec_hash(got, n), VANS_LARGE_HASH);
	free(got);
	for (int k = 0; k < 2; k++) {
		struct ist_record one[16];
		ist_reader *rd;

		snprintf(bp, sizeof(bp), "%s/tests/fuzz/corpus/ist_reader/%s",
			 top ? top : ".",
			 k ? "bad-vans-mode-large.ist" : "flip-vans-large.ist");
		CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, bp), 0);
		CU_ASSERT_EQUAL(ist_reader_read(rd, one, 16), IST_ECORRUPT);
		ist_reader_close(rd);
	}

	/* the first VANS column of the chunk */
	orig = slurp(path, &len);
	CU_ASSERT_FATAL(orig != NULL);
	p = fmt_get32(orig + 12);
	CU_ASSERT_FATAL(!memcmp(orig + p, FMT_CHUNK_MAGIC, 4));
	{
		const uint8_t *d = orig + p + FMT_CHUNK_HDR, *end = orig + len;
		uint64_t param = 0, raw = 0, stored = 0, off = 0;
		int found = 0;

		ncols = *d++;
		for (unsigned c = 0; c < ncols; c++) {
			uint8_t store = d[1];

			d += 2;
			CU_ASSERT_FATAL(fmt_get_varint(&d, end, &param) == 0 &&
					fmt_get_varint(&d, end, &raw) == 0 &&
					fmt_get_varint(&d, end, &stored) == 0);
			if (store == FMT_STORE_VANS && !found) {
				vcol = off;
				found = 1;
				CU_ASSERT(stored > 64);
			}
			off += stored;
		}
		CU_ASSERT_FATAL(found);
		q = (size_t)(d - orig) + vcol; /* its first byte */
	}
	b = malloc(len);
	memcpy(b, orig, len);
	b[q] = 0x0f; /* F 15 */
	rewrite_chunk_crc(b, p);
	spit(bpath, b, len);
	{
		struct ist_record one[16];
		ist_reader *rd;

		CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, bpath), 0);
		CU_ASSERT_EQUAL(ist_reader_read(rd, one, 16), IST_ECORRUPT);
		ist_reader_close(rd);
	}
	for (size_t k = 1; k < 400; k += 1 + k / 8) {
		ist_reader *rd;
		ssize_t m, total = 0;

		memcpy(b, orig, len);
		if (k % 2)
			b[q + k] ^= (uint8_t)(1u << (k % 8));
		else
			memset(b + q + k, 0, 8);
		rewrite_chunk_crc(b, p);
		spit(bpath, b, len);
		CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, bpath), 0);
		got = malloc(N * sizeof(*got));
		while ((m = ist_reader_read(rd, got, N)) > 0)
			total += m;
		CU_ASSERT(m == IST_ECORRUPT || (m == 0 && total == N));
		free(got);
		ist_reader_close(rd);
	}
	unlink(bpath);
	free(bpath);
	free(b);
	free(orig);
}

/* A chunk using VANS storage in a file that says minor 3 is corrupt (VANS
 * came with 1.4); the same file at minor 4 reads. */
static void test_minor4_in_minor3(void)
{
	enum { N = 1000 };
	const char *path = tmp_path("m4.ist"), *p3 = tmp_path("m3b.ist");
	struct ist_record *r = calloc(N, sizeof(*r)), got[N];
	uint64_t t = 0, cs[5];
	ist_reader *rd;

	rng = 31337;
	for (size_t i = 0; i < N; i++) {
		t += 100 * (1 + rnd() % 3000);
		r[i].t_ns = t;
		r[i].lat_ns = 100 * (1 + rnd() % 5000);
		r[i].len = 512u * (uint32_t)(1 + rnd() % 64);
		r[i].offset = rnd() % 100000 * 512;
		r[i].op = (uint8_t)(rnd() % 2);
	}
	CU_ASSERT_EQUAL_FATAL(write_file(path, r, N, 0), 0);
	count_stores(path, cs);
	CU_ASSERT(cs[FMT_STORE_VANS] > 0);
	CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, path), 0);
	CU_ASSERT_EQUAL(ist_reader_read(rd, got, N), N);
	for (size_t i = 0; i < N; i++)
		if (!rec_eq(&got[i], &r[i])) {
			CU_FAIL("VANS columns did not round-trip");
			break;
		}
	ist_reader_close(rd);
	refused_as_minor(path, p3, FMT_MINOR_SMALL, FMT_MINOR_ARITH);
	free(r);
}

/*
 * IST_EFFORT_FAST and IST_EFFORT_FASTEST: the same records as the default
 * writer, every field exact (extreme values, columns of every nature),
 * totals alike.  FAST: columns stored plain or ANS only (none of them
 * halves when deflated), where the default writer deflates some and
 * ARITH-codes others (in small chunks).  FASTEST: no ANS or ARITH at all, and
 * a larger file than FAST's.  Bad efforts refused.
 */
static void effort_case(int effort)
{
	enum { N = 60000 };
	static const unsigned chunks[] = { 1000, 8192, 65536 };
	char *pd = strdup(tmp_path("effort-default.ist")); /* tmp_path's */
	char *pf = strdup(tmp_path("effort-fast.ist"));    /* buffer is static */
	struct ist_record *r = calloc(N, sizeof(*r));
	uint64_t t = 0, j = 0, cd[5], cf[5];
	ist_writer *w;

	rng = 777;
	for (size_t i = 0; i < N; i++) {
		struct ist_record *x = &r[i];

		if (i < N / 3) { /* extremes */
			random_record(x, &t);
			continue;
		}
		/* a database-like part: times in us, 8 KiB pages, a log
		 * written sequentially, a few repeating offsets, which
		 * deflate, ANS and ARITH each code best somewhere */
		memset(x, 0, sizeof(*x));
		t += 1000 * (1 + rnd() % 50);
		x->t_ns = t;
		x->dev = (uint32_t)(rnd() % 4 == 0);
		x->op = x->dev ? IST_OP_WRITE : (uint8_t)(rnd() % 3 ? IST_OP_READ : IST_OP_WRITE);
		x->len = x->dev ? 512u << (rnd() % 4) : 8192;
		x->offset = x->dev ? (i * 4096) : (j++ * 7 % 37) * 8192 * 1021;
		x->lat_ns = rnd() % (2u << rnd() % 24);
		x->stream = 100 + rnd() % 8;
		x->txn = i / 7;
		x->flags = x->dev ? IST_F_SYNC : 0;
	}
	for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
		struct ist_writer_opts od = { .chunk_records = chunks[k] };
		struct ist_writer_opts of = { .chunk_records = chunks[k],
					      .effort = effort };
		struct ist_record *a, *b;
		size_t na, nb, bad = 0;
		ist_reader *ra, *rb;
		const struct ist_totals *ta, *tb;

		CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, pd, NULL, &od), 0);
		CU_ASSERT_EQUAL_FATAL(ist_writer_write(w, r, N), 0);
		CU_ASSERT_EQUAL_FATAL(ist_writer_close(w), 0);
		CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, pf, NULL, &of), 0);
		/* in pieces of varied size, as importers hand them over */
		for (size_t i = 0, step = 1; i < N; i += step, step = step * 3 % 5000 + 1)
			CU_ASSERT_EQUAL_FATAL(ist_writer_write(w, r + i,
					      N - i < step ? N - i : step), 0);
		CU_ASSERT_EQUAL_FATAL(ist_writer_close(w), 0);
		a = read_all(pd, &na, 4096);
		b = read_all(pf, &nb, 777);
		CU_ASSERT_EQUAL_FATAL(na, N);
		CU_ASSERT_EQUAL_FATAL(nb, N);
		for (size_t i = 0; i < N; i++)
			bad += !rec_eq(&a[i], &r[i]) || !rec_eq(&b[i], &r[i]);
		CU_ASSERT_EQUAL(bad, 0);
		free(a);
		free(b);
		CU_ASSERT_EQUAL_FATAL(ist_reader_open(&ra, pd), 0);
		CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rb, pf), 0);
		ta = ist_reader_totals(ra);
		tb = ist_reader_totals(rb);
		CU_ASSERT_EQUAL(ta->records, tb->records);
		CU_ASSERT_EQUAL(ta->first_t_ns, tb->first_t_ns);
		CU_ASSERT_EQUAL(ta->last_t_ns, tb->last_t_ns);
		CU_ASSERT(!memcmp(ta->count, tb->count, sizeof(ta->count)));
		CU_ASSERT(!memcmp(ta->bytes, tb->bytes, sizeof(ta->bytes)));
		CU_ASSERT_EQUAL(ta->streams, tb->streams);
		CU_ASSERT_EQUAL(ta->txns, tb->txns);
		CU_ASSERT_EQUAL(ta->out_of_order, tb->out_of_order);
		CU_ASSERT_EQUAL_FATAL(ta->ndev, tb->ndev);
		CU_ASSERT(!memcmp(ta->dev_max_end, tb->dev_max_end,
				  ta->ndev * sizeof(*ta->dev_max_end)));
		ist_reader_close(ra);
		ist_reader_close(rb);
		/* storages: the fast file plain and ANS only, the fastest
		 * no entropy coding */
		count_stores(pd, cd);
		count_stores(pf, cf);
		/* (in the 65536-record chunk no deflate beats ANS by the
		 * 1/8 a column of more than 16 KiB needs: DEFL_GAIN) */
		CU_ASSERT(chunks[k] > 8192 || cd[FMT_STORE_DEFLATE] > 0);
		CU_ASSERT(chunks[k] > 8192 || cd[FMT_STORE_VANS] > 0);
		/* (large chunks: VANS for value columns it codes shorter
		 * than ANS, never ARITH) */
		CU_ASSERT(chunks[k] <= 8192 || cd[FMT_STORE_ARITH] == 0);
		CU_ASSERT_EQUAL(cf[FMT_STORE_ARITH], 0);
		CU_ASSERT_EQUAL(cf[FMT_STORE_VANS], 0);
		if (effort == IST_EFFORT_FAST) {
			CU_ASSERT_EQUAL(cf[FMT_STORE_DEFLATE], 0);
			CU_ASSERT(cf[FMT_STORE_ANS] > 0);
		} else {
			struct stat sd, sf;

			CU_ASSERT_EQUAL(cf[FMT_STORE_ANS], 0);
			CU_ASSERT(cf[FMT_STORE_PLAIN] > 0);
			CU_ASSERT_EQUAL_FATAL(stat(pd, &sd), 0);
			CU_ASSERT_EQUAL_FATAL(stat(pf, &sf), 0);
			CU_ASSERT(sf.st_size > sd.st_size);
		}
		CU_ASSERT_EQUAL(cd[0] + cd[1] + cd[2] + cd[3] + cd[4],
				cf[0] + cf[1] + cf[2] + cf[3] + cf[4]);
	}
	/* only the three efforts; nothing is created for a refused one */
	{
		struct ist_writer_opts o = { .effort = 3 };

		unlink(pf);
		CU_ASSERT_EQUAL(ist_writer_open(&w, pf, NULL, &o), -EINVAL);
		o.effort = -1;
		CU_ASSERT_EQUAL(ist_writer_open(&w, pf, NULL, &o), -EINVAL);
		CU_ASSERT_EQUAL(ist_writer_open_fd(&w, 1, NULL, &o), -EINVAL);
		CU_ASSERT(access(pf, F_OK) != 0);
	}
	free(r);
	unlink(pd);
	free(pd);
	free(pf);
}

static void test_fast_effort(void)
{
	effort_case(IST_EFFORT_FAST);
}

static void test_fastest_effort(void)
{
	effort_case(IST_EFFORT_FASTEST);
}

/*
 * IST_EFFORT_FAST on long repeats (a sample replicated, times shifted,
 * as bench/import.sh makes its inputs): only deflate's matches see them,
 * and the fast writer deflates the columns whose sample shows it; the
 * records stay exact, and ARITH is never used.
 */
static void repeats_case(int effort)
{
	enum { SAMPLE = 1000, COPIES = 70, N = SAMPLE * COPIES };
	char *pf = strdup(tmp_path("effort-repeats.ist"));
	struct ist_record *r = calloc(N, sizeof(*r));
	struct ist_writer_opts of = { .effort = effort };
	uint64_t t = 0, cf[5];

	rng = 4242;
	for (size_t i = 0; i < SAMPLE; i++) {
		random_record(&r[i], &t);
		r[i].t_ns = i * 1000 + rnd() % 1000; /* in order */
	}
	for (size_t k = 1; k < COPIES; k++)
		for (size_t i = 0; i < SAMPLE; i++) {
			r[k * SAMPLE + i] = r[i];
			r[k * SAMPLE + i].t_ns += k * SAMPLE * 1000;
		}
	write_read_back(pf, &of, r, N, 4096);
	count_stores(pf, cf);
	CU_ASSERT(cf[FMT_STORE_DEFLATE] > 0);
	CU_ASSERT_EQUAL(cf[FMT_STORE_ARITH], 0);
	CU_ASSERT_EQUAL(cf[FMT_STORE_VANS], 0);
	if (effort == IST_EFFORT_FASTEST)
		CU_ASSERT_EQUAL(cf[FMT_STORE_ANS], 0);
	free(r);
	unlink(pf);
	free(pf);
}

static void test_fast_effort_repeats(void)
{
	repeats_case(IST_EFFORT_FAST);
}

/* ... and IST_EFFORT_FASTEST, which deflates them too (its sample must
 * shrink to 1/8), without ANS. */
static void test_fastest_effort_repeats(void)
{
	repeats_case(IST_EFFORT_FASTEST);
}

/*
 * ist_writer_write_shifted(): the file is byte for byte the one written
 * from a shifted copy of the records (times, totals, the constant-column
 * test on the shifted values), at every effort, in pieces that cross
 * chunks; the caller's records are left unchanged; a bad record rejects
 * its batch as ist_writer_write() does.
 */
static void test_write_shifted(void)
{
	enum { N = 20000 };
	const uint64_t shift = UINT64_C(1234567890123);
	char *pa = strdup(tmp_path("shifted-a.ist"));
	char *pb = strdup(tmp_path("shifted-b.ist"));
	struct ist_record *r = calloc(N, sizeof(*r));
	struct ist_record *c = calloc(N, sizeof(*c));
	struct ist_record bad = { .t_ns = shift + 5, .op = IST_OP_COUNT, .len = 1 };
	uint64_t t = 0;
	ist_writer *w;

	rng = 99;
	for (size_t i = 0; i < N; i++) {
		random_record(&r[i], &t);
		if (i >= N / 2)
			r[i].t_ns = shift + 1000 * i; /* in order, some equal */
		r[i].t_ns += i < N / 2 ? shift : 0;
		c[i] = r[i];
		c[i].t_ns -= shift;
	}
	for (int effort = IST_EFFORT_DEFAULT; effort <= IST_EFFORT_FASTEST; effort++) {
		struct ist_writer_opts o = { .chunk_records = 4096, .effort = effort };
		size_t la, lb;
		uint8_t *a, *b;

		CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, pa, NULL, &o), 0);
		CU_ASSERT_EQUAL_FATAL(ist_writer_write(w, c, N), 0);
		CU_ASSERT_EQUAL_FATAL(ist_writer_close(w), 0);
		CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, pb, NULL, &o), 0);
		CU_ASSERT_EQUAL(ist_writer_write_shifted(w, &bad, 1, shift), IST_ERANGE);
		for (size_t i = 0, step = 1; i < N; i += step, step = step * 7 % 3000 + 1)
			CU_ASSERT_EQUAL_FATAL(ist_writer_write_shifted(w, r + i,
					      N - i < step ? N - i : step, shift), 0);
		CU_ASSERT_EQUAL_FATAL(ist_writer_close(w), 0);
		a = slurp(pa, &la);
		b = slurp(pb, &lb);
		CU_ASSERT_EQUAL(la, lb);
		CU_ASSERT(a && b && la == lb && !memcmp(a, b, la));
		free(a);
		free(b);
	}
	for (size_t i = 0; i < N; i++)
		if (r[i].t_ns != c[i].t_ns + shift) {
			CU_FAIL("the records given were changed");
			break;
		}
	unlink(pa);
	unlink(pb);
	free(pa);
	free(pb);
	free(r);
	free(c);
}

/*
 * The writer copies the latency, stream and transaction columns lazily
 * while they are constant in a chunk: records whose three fields are 0,
 * then (in the middle of a chunk, of a batch, and at a chunk's start)
 * vary, one field at a time, written in pieces of varied size, come back
 * exact at every effort.
 */
/* The storage (FMT_STORE_*) of column col in each chunk of the file at
 * path, into st[0..max); returns the number of chunks. */
struct col_stores {
	unsigned col;
	uint8_t *st;
	size_t max;
};

static void col_store(void *arg, size_t chunk, unsigned col, uint8_t store)
{
	struct col_stores *cs = arg;

	if (col == cs->col && chunk < cs->max)
		cs->st[chunk] = store;
}

static size_t chunk_stores(const char *path, unsigned col, uint8_t *st,
			   size_t max)
{
	struct col_stores cs = { col, st, max };

	return walk_stores(path, col_store, &cs);
}

/*
 * The default writer's plan skipping (writer.c, PLAN_SKIP): a column
 * that deflate wins by far is deflated in the next chunks without ANS's
 * plan, and when its nature changes (offsets that repeat a short cycle,
 * then random ones that nothing compresses by a quarter) the chunk is
 * planned as always: the random chunks are not deflated, and every
 * record reads back exact.  The repeating offsets are deflated in every
 * chunk, planned or skipped.
 */
static void test_plan_skip(void)
{
	enum { CH = 4096, NCH = 16, N = CH * NCH, REP = 6 };
	char *pf = strdup(tmp_path("plan-skip.ist"));
	struct ist_record *r = calloc(N, sizeof(*r));
	struct ist_writer_opts o = { .chunk_records = CH };
	uint8_t st[NCH + 1];

	rng = 31337;
	for (size_t i = 0; i < N; i++) {
		r[i].t_ns = i * 1000 + rnd() % 1000;
		r[i].op = IST_OP_READ;
		r[i].len = 4096;
		r[i].offset = i < REP * CH ? (i * 11 % 61) * 8192 * 1021 :
			      rnd() >> 16;
	}
	write_read_back(pf, &o, r, N, 1000);
	CU_ASSERT_EQUAL_FATAL(chunk_stores(pf, FMT_COL_OFFSET, st, NCH + 1), NCH);
	for (size_t k = 0; k < NCH; k++) {
		CU_ASSERT_EQUAL(st[k] == FMT_STORE_DEFLATE, k < REP);
	}
	free(r);
	unlink(pf);
	free(pf);
}

/*
 * VANS in large chunks (writer.c, try_vans_large()): a column whose VANS
 * beat ANS is stored in VANS in the next VANS_RUN (7) chunks without
 * ANS's plan (counted by fmt_vans_run_chunks), then planned again.
 * Chunks of 9000 records (more than ARITH_MAX_RECORDS) whose latencies
 * (RAW) are those of the synthetic trace at first (80 us + up to 200 us,
 * uniform: VANS a little under ANS), then from chunk 10 on, by case:
 * 0: the same; 1: 17 random bits above 12 fixed ones (VANS codes those
 * raw, ANS's byte model sees them: ANS wins by far, VANS's size a coded
 * byte about the same), so the run goes on to its end and the planned
 * chunk after it (16) goes back to ANS; 2: 48 random bits above 8 fixed
 * ones (VANS's size a coded byte up by a fifth), so the run ends at
 * chunk 10 (fmt_vans_run_ends), which is planned and stored in ANS.
 * Every record reads back exact.
 */
static uint64_t vans_phase_lat(unsigned ph)
{
	if (ph == 0)
		return 80000 + rnd() % 200000;
	if (ph == 1)
		return 1u << 21 | (rnd() % (1u << 9)) << 12 | 0xa51;
	return (rnd() >> 16 << 8) | 0x5b;
}

static void vans_run_case(unsigned ph, unsigned from, uint8_t *st,
			  unsigned long *runs, unsigned long *ends)
{
	enum { CH = 9000, NCH = 24, N = CH * NCH };
	char *pf = strdup(tmp_path("vans-run.ist"));
	struct ist_record *r = calloc(N, sizeof(*r));
	struct ist_writer_opts o = { .chunk_records = CH };
	unsigned long r0 = fmt_vans_run_chunks, e0 = fmt_vans_run_ends;

	for (size_t i = 0; i < N; i++) {
		r[i].t_ns = i * 1000;
		r[i].op = IST_OP_READ;
		r[i].len = 4096;
		r[i].offset = (uint64_t)i * 4096;
		r[i].lat_ns = vans_phase_lat(i < (size_t)from * CH ? 0 : ph);
	}
	write_read_back(pf, &o, r, N, 1000);
	CU_ASSERT_EQUAL_FATAL(chunk_stores(pf, FMT_COL_LAT, st, NCH + 1), NCH);
	*runs = fmt_vans_run_chunks - r0;
	*ends = fmt_vans_run_ends - e0;
	free(r);
	unlink(pf);
	free(pf);
}

static void test_vans_run(void)
{
	uint8_t st[3][25];
	unsigned long runs[3], ends[3];

	rng = 1601;
	for (unsigned ph = 0; ph < 3; ph++)
		vans_run_case(ph, 10, st[ph], &runs[ph], &ends[ph]);
	for (unsigned k = 0; k < 24; k++) {
		CU_ASSERT_EQUAL(st[0][k], FMT_STORE_VANS);
		CU_ASSERT_EQUAL(st[1][k], k < 16 ? FMT_STORE_VANS : FMT_STORE_ANS);
		CU_ASSERT_EQUAL(st[2][k], k < 10 ? FMT_STORE_VANS : FMT_STORE_ANS);
	}
	/* the latencies' runs: chunks 1-7, 9-15, 17-23 in case 0 (the
	 * other columns' runs, the same in every case, cancel out); 1-7,
	 * 9-15 in case 1; 1-7, 9 in case 2, ended by chunk 10 */
	CU_ASSERT(runs[0] >= 21);
	CU_ASSERT_EQUAL(runs[0] - runs[1], 7);
	CU_ASSERT_EQUAL(runs[0] - runs[2], 13);
	CU_ASSERT_EQUAL(ends[0], 0);
	CU_ASSERT_EQUAL(ends[1], 0);
	CU_ASSERT_EQUAL(ends[2], 1);
}

/*
 * The default writer's deflate of a large column must beat ANS by 1/8
 * (writer.c, DEFL_GAIN).  Lengths of 512 B times 1..63 at random, a
 * fifth of them copies of 16-record runs from up to 2000 records back
 * (which deflate's matches see and ANS does not): deflate comes 6-12 %
 * under ANS, and the writer of before (deflate kept when shorter)
 * deflated them; now the column is stored in ANS, in both chunks.  The
 * premise is checked on the coded column (RAW, varint(len / 512): one
 * byte a record) with the writer's deflate at level 1: libdeflate's when
 * built with it, which finds more of the copies than zlib's (a copy
 * starts at one record in 120: 0.908 of ANS's size; zlib's needs one in
 * 80 for about 0.915).  The same column in
 * chunks of 4096 records (16 KiB or less, ARITH's regime) keeps deflate
 * wherever it is shorter: some of those chunks are deflated.
 */
/* The size of in[0..len) deflated at level 1 as the writer does it
 * (libdeflate's compressor when built with it), or 0. */
static size_t deflate1_size(const uint8_t *in, size_t len, uint8_t *out,
			    size_t room)
{
#ifdef HAVE_LIBDEFLATE
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(1);
	size_t z = c ? libdeflate_deflate_compress(c, in, len, out, room) : 0;

	libdeflate_free_compressor(c);
	return z;
#else
	z_stream zs;
	size_t z = 0;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)room;
	if (deflate(&zs, Z_FINISH) == Z_STREAM_END)
		z = zs.total_out;
	deflateEnd(&zs);
	return z;
#endif
}

#ifdef HAVE_LIBDEFLATE
#define COPY_ONE_IN 120
#else
#define COPY_ONE_IN 80
#endif

static void test_defl_gain(void)
{
	enum { N = 2 * 65536 };
	char *pf = strdup(tmp_path("defl-gain.ist"));
	struct ist_record *r = calloc(N, sizeof(*r));
	struct ist_writer_opts o = { .chunk_records = 65536 };
	struct ist_writer_opts os = { .chunk_records = 4096 };
	uint8_t *col = malloc(65536), *out = malloc(2 * 65536);
	uint8_t *tmp = malloc(FMT_ANS_TMP(65536)), st[40];
	size_t a, nch, ndefl = 0;
	size_t z;

	rng = 4242;
	for (size_t i = 0; i < N;) {
		if (i > 2000 && rnd() % COPY_ONE_IN == 0) {
			size_t from = i - 100 - rnd() % 1900;

			for (size_t k = 0; k < 16 && i < N; k++, i++)
				r[i].len = r[from + k].len;
			continue;
		}
		r[i++].len = 512 * (unsigned)(1 + rnd() % 63);
	}
	for (size_t i = 0; i < N; i++) {
		r[i].t_ns = i * 1000;
		r[i].op = IST_OP_READ;
		r[i].offset = (uint64_t)i << 20;
	}
	/* the premise, on the first chunk's coded column, with the
	 * writer's deflate */
	for (size_t i = 0; i < 65536; i++)
		col[i] = (uint8_t)(r[i].len / 512);
	a = fmt_ans_encode(col, 65536, 0, out, 65536, tmp);
	z = deflate1_size(col, 65536, out, 2 * 65536);
	CU_ASSERT(a > 0 && z > 0 && z < a - a / 16 && z > a - a / 8);

	write_read_back(pf, &o, r, N, 1000);
	nch = chunk_stores(pf, FMT_COL_LEN, st, 40);
	CU_ASSERT_EQUAL(nch, 2);
	/* the entropy-coded form: ANS, or VANS where a symbol a value
	 * comes out shorter (large chunks try it on RAW columns) */
	for (size_t k = 0; k < nch && k < 40; k++)
		CU_ASSERT(st[k] == FMT_STORE_ANS || st[k] == FMT_STORE_VANS);
	write_read_back(pf, &os, r, N, 1000);
	nch = chunk_stores(pf, FMT_COL_LEN, st, 40);
	CU_ASSERT_EQUAL(nch, 32);
	for (size_t k = 0; k < nch && k < 40; k++)
		ndefl += st[k] == FMT_STORE_DEFLATE;
	CU_ASSERT(ndefl > 0);
	unlink(pf);
	free(pf);
	free(r);
	free(col);
	free(out);
	free(tmp);
}

/* The stored columns of the first chunk of file b: store, data offset
 * (from the file's start) and stored length of each; their number. */
static unsigned first_chunk_columns(const uint8_t *b, size_t len,
				    uint8_t *store, size_t *off, size_t *slen)
{
	size_t p = fmt_get32(b + 12), data;
	const uint8_t *q = b + p + FMT_CHUNK_HDR, *end = b + len;
	unsigned ncols = *q++;

	for (unsigned c = 0; c < ncols; c++) {
		uint64_t v[3];

		store[c] = q[1];
		q += 2;
		for (int j = 0; j < 3; j++) /* param, raw, stored */
			CU_ASSERT_FATAL(fmt_get_varint(&q, end, &v[j]) == 0);
		slen[c] = (size_t)v[2];
	}
	data = (size_t)(q - b);
	for (unsigned c = 0; c < ncols; c++) {
		off[c] = data;
		data += slen[c];
	}
	return ncols;
}

/*
 * The reader decodes a chunk's ANS columns after the others, two at a
 * time; when a column is damaged it still reports the error of the first
 * damaged column in column order, as one by one: a damaged ANS column
 * (times) before a damaged deflated one (offsets) is IST_ECORRUPT, the
 * deflated one before a damaged ANS column (latencies) IST_EZLIB.  The
 * CRCs are made good again, so the damage reaches the decoders.
 */
static void test_ans_lanes_errors(void)
{
	enum { N = 12000 }; /* over 8192: no ARITH */
	char *pf = strdup(tmp_path("ans-lanes.ist"));
	struct ist_record *r = calloc(N, sizeof(*r)), *got = calloc(N, sizeof(*got));
	uint8_t store[FMT_NCOLS + 8];
	size_t off[FMT_NCOLS + 8], slen[FMT_NCOLS + 8], len;
	uint8_t *b;

	rng = 777;
	for (size_t i = 0; i < N; i++) {
		r[i].t_ns = i * 1000 + rnd() % 1000;
		r[i].op = IST_OP_READ;
		r[i].len = 4096;
		r[i].offset = (i * 11 % 61) * 8192 * 1021;
		/* the same low 7 bits (VANS would pay them as raw bits,
		 * ANS's context of a varint's first byte not: ANS) */
		r[i].lat_ns = (1 + rnd() % 40) * 128 + 3;
	}
	write_read_back(pf, NULL, r, N, N);
	b = slurp(pf, &len);
	CU_ASSERT_FATAL(b != NULL);
	CU_ASSERT_FATAL(first_chunk_columns(b, len, store, off, slen) >= FMT_NCOLS);
	CU_ASSERT_EQUAL_FATAL(store[FMT_COL_T], FMT_STORE_ANS);
	CU_ASSERT_EQUAL_FATAL(store[FMT_COL_OFFSET], FMT_STORE_DEFLATE);
	CU_ASSERT_EQUAL_FATAL(store[FMT_COL_LAT], FMT_STORE_ANS);
	for (int k = 0; k < 4; k++) {
		/* 0: times; 1: times and offsets; 2: offsets and
		 * latencies; 3: latencies */
		static const int want[4] = { IST_ECORRUPT, IST_ECORRUPT,
					     IST_EZLIB, IST_ECORRUPT };
		uint8_t *c = malloc(len);
		size_t p = fmt_get32(b + 12), plen = fmt_get32(b + p + 28);
		ist_reader *rd;

		memcpy(c, b, len);
		if (k <= 1)
			c[off[FMT_COL_T]] = 7;        /* no such ANS model */
		if (k == 1 || k == 2)
			c[off[FMT_COL_OFFSET]] = 0xff; /* reserved block type */
		if (k >= 2)
			c[off[FMT_COL_LAT]] = 7;
		fmt_put32(c + p + 32, (uint32_t)crc32(0, c + p + FMT_CHUNK_HDR, plen));
		fmt_put32(c + p + 36, (uint32_t)crc32(0, c + p, 36));
		spit(pf, c, len);
		CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, pf), 0);
		CU_ASSERT_EQUAL(ist_reader_read(rd, got, N), want[k]);
		ist_reader_close(rd);
		free(c);
	}
	/* undamaged, the same bytes read back */
	spit(pf, b, len);
	{
		ist_reader *rd;
		size_t bad = 0;

		CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, pf), 0);
		CU_ASSERT_EQUAL(ist_reader_read(rd, got, N), N);
		for (size_t i = 0; i < N; i++)
			bad += !rec_eq(&got[i], &r[i]);
		CU_ASSERT_EQUAL(bad, 0);
		ist_reader_close(rd);
	}
	free(b);
	free(r);
	free(got);
	unlink(pf);
	free(pf);
}

/*
 * CONST columns by the reader's template record (fmt_colcur_const(): one
 * pass copies a chunk's constant fields into every record, before its
 * other columns).  Chunks of constant devices, ops, flags, lengths,
 * latencies, streams and transactions (each chunk its own values)
 * between chunks where they vary: every field of every record as
 * written, reserved 0, in a caller's buffer full of garbage, whatever
 * the reads' sizes; the offsets (HIST, reading each record's device and
 * length) right after constant devices and lengths.  A CONST value the
 * field cannot hold, or CONST bytes, is refused by fmt_colcur_const(),
 * and the reader refuses a chunk whose constant op is out of range.
 */
static void test_const_template(void)
{
	enum { N = 5000, CH = 1200 };
	static const size_t steps[] = { 1, 333, CH, N };
	char *pf = strdup(tmp_path("const-tpl.ist"));
	struct ist_record *r = calloc(N, sizeof(*r));
	struct ist_record *got = malloc((N + 1) * sizeof(*got));
	size_t len;
	uint8_t *b;

	rng = 4711;
	for (size_t i = 0; i < N; i++) {
		size_t ch = i / CH;

		r[i].t_ns = i * 1000 + rnd() % 900;
		r[i].offset = (rnd() % 64) * 4096;
		if (ch % 2 == 0) {
			r[i].dev = (uint32_t)(1 + ch % 2);
			r[i].op = IST_OP_WRITE;
			r[i].flags = (uint16_t)(IST_F_SYNC << ch % 3);
			r[i].len = 4096u << ch;
			r[i].lat_ns = 12345 + ch;
			r[i].stream = (1ull << 40) + ch;
			r[i].txn = UINT64_MAX - ch;
		} else {
			r[i].dev = (uint32_t)(rnd() % 3);
			r[i].op = (uint8_t)(rnd() % 2);
			r[i].flags = (uint16_t)(rnd() & IST_F_ALL);
			r[i].len = 512u << (rnd() % 4);
			r[i].lat_ns = rnd() % 100000;
			r[i].stream = rnd() % 7;
			r[i].txn = rnd() % 1000;
		}
		if (i % 5 == 0 && i)
			r[i].offset = r[i - 1].offset + r[i - 1].len; /* a hit */
	}
	CU_ASSERT_EQUAL_FATAL(write_file(pf, r, N, CH), 0);
	for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		ist_reader *rd;
		size_t n = 0, bad = 0, resv = 0;
		ssize_t m;

		memset(got, 0xa5, (N + 1) * sizeof(*got));
		CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, pf), 0);
		while ((m = ist_reader_read(rd, got + n, steps[k])) > 0)
			n += (size_t)m;
		CU_ASSERT_EQUAL(m, 0);
		CU_ASSERT_EQUAL(n, N);
		for (size_t i = 0; i < n && i < N; i++) {
			bad += !rec_eq(&got[i], &r[i]);
			resv += got[i].reserved != 0;
		}
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_EQUAL(resv, 0);
		ist_reader_close(rd);
	}
	/* the first chunk's CONST op made 127: that chunk is refused */
	b = slurp(pf, &len);
	CU_ASSERT_FATAL(b != NULL);
	{
		size_t p = fmt_get32(b + 12), plen = fmt_get32(b + p + 28);
		const uint8_t *q = b + p + FMT_CHUNK_HDR + 1, *end = b + len;
		ist_reader *rd;

		for (unsigned c = 0; c < FMT_NCOLS; c++) {
			uint64_t v;

			if (c == FMT_COL_OP) {
				CU_ASSERT_EQUAL_FATAL(q[0], FMT_CODE_CONST);
				CU_ASSERT_EQUAL_FATAL(q[2], IST_OP_WRITE);
				b[q + 2 - b] = 0x7f;
				break;
			}
			q += 2;
			for (int j = 0; j < 3; j++)
				CU_ASSERT_FATAL(fmt_get_varint(&q, end, &v) == 0);
		}
		fmt_put32(b + p + 32, (uint32_t)crc32(0, b + p + FMT_CHUNK_HDR, plen));
		fmt_put32(b + p + 36, (uint32_t)crc32(0, b + p, 36));
		spit(pf, b, len);
		CU_ASSERT_EQUAL_FATAL(ist_reader_open(&rd, pf), 0);
		CU_ASSERT_EQUAL(ist_reader_read(rd, got, CH), IST_ECORRUPT);
		/* the next chunk still reads */
		CU_ASSERT_EQUAL(ist_reader_read(rd, got, CH), CH);
		CU_ASSERT(rec_eq(&got[0], &r[CH]));
		ist_reader_close(rd);
	}
	/* fmt_colcur_const(): each field's largest value, one more, bytes */
	{
		static const struct {
			enum fmt_col col;
			uint64_t max;
		} lim[] = {
			{ FMT_COL_T, UINT64_MAX },
			{ FMT_COL_DEV, UINT32_MAX },
			{ FMT_COL_OP, IST_OP_COUNT - 1 },
			{ FMT_COL_FLAGS, UINT16_MAX },
			{ FMT_COL_LEN, UINT32_MAX },
			{ FMT_COL_OFFSET, UINT64_MAX },
			{ FMT_COL_LAT, UINT64_MAX },
			{ FMT_COL_STREAM, UINT64_MAX },
			{ FMT_COL_TXN, UINT64_MAX },
		};
		struct fmt_hist *h = calloc(1, sizeof(*h));
		uint8_t buf[FMT_PAD] = { 0 };

		for (size_t k = 0; k < sizeof(lim) / sizeof(lim[0]); k++) {
			struct fmt_coldesc d = { .coding = FMT_CODE_CONST,
						 .param = lim[k].max };
			struct fmt_colcur c;
			struct ist_record t;

			memset(&t, 0, sizeof(t));
			CU_ASSERT_EQUAL(fmt_colcur_init(&c, h, lim[k].col, &d, buf, 10), 0);
			CU_ASSERT_EQUAL(fmt_colcur_const(&c, &t), 0);
			switch (lim[k].col) {
			case FMT_COL_T: CU_ASSERT_EQUAL(t.t_ns, lim[k].max); break;
			case FMT_COL_DEV: CU_ASSERT_EQUAL(t.dev, lim[k].max); break;
			case FMT_COL_OP: CU_ASSERT_EQUAL(t.op, lim[k].max); break;
			case FMT_COL_FLAGS: CU_ASSERT_EQUAL(t.flags, lim[k].max); break;
			case FMT_COL_LEN: CU_ASSERT_EQUAL(t.len, lim[k].max); break;
			case FMT_COL_OFFSET: CU_ASSERT_EQUAL(t.offset, lim[k].max); break;
			case FMT_COL_LAT: CU_ASSERT_EQUAL(t.lat_ns, lim[k].max); break;
			case FMT_COL_STREAM: CU_ASSERT_EQUAL(t.stream, lim[k].max); break;
			case FMT_COL_TXN: CU_ASSERT_EQUAL(t.txn, lim[k].max); break;
			}
			if (lim[k].max != UINT64_MAX) {
				d.param = lim[k].max + 1;
				CU_ASSERT_EQUAL(fmt_colcur_init(&c, h, lim[k].col, &d, buf, 10), 0);
				CU_ASSERT_EQUAL(fmt_colcur_const(&c, &t), IST_ECORRUPT);
			}
			d.param = 0;
			d.raw_len = 1;
			CU_ASSERT_EQUAL(fmt_colcur_init(&c, h, lim[k].col, &d, buf, 10), 0);
			CU_ASSERT_EQUAL(fmt_colcur_const(&c, &t), IST_ECORRUPT);
			d.coding = FMT_CODE_RAW;
			d.param = 1;
			d.raw_len = 10;
			CU_ASSERT_EQUAL(fmt_colcur_init(&c, h, lim[k].col, &d, buf, 10), 0);
			CU_ASSERT_EQUAL(fmt_colcur_const(&c, &t), IST_ECORRUPT);
		}
		free(h);
	}
	free(b);
	free(r);
	free(got);
	unlink(pf);
	free(pf);
}

static void test_lazy_columns(void)
{
	enum { N = 30000 };
	char *pf = strdup(tmp_path("lazy.ist"));
	struct ist_record *r = calloc(N, sizeof(*r)), *b;
	uint64_t t = 0;
	ist_writer *w;

	rng = 5150;
	for (size_t i = 0; i < N; i++) {
		random_record(&r[i], &t);
		r[i].lat_ns = r[i].stream = r[i].txn = 0;
		if (i >= 3000 && i < 5000)
			r[i].lat_ns = 1000 + i;     /* mid-chunk, mid-batch */
		if (i >= 8192 && i < 9000)
			r[i].stream = 7;            /* a chunk's first */
		if (i >= 20000 && i % 3 == 0)
			r[i].txn = i, r[i].stream = 3; /* then varied */
		if (i == N - 1)
			r[i].lat_ns = 5;            /* the last record alone */
	}
	for (int effort = IST_EFFORT_DEFAULT; effort <= IST_EFFORT_FASTEST; effort++) {
		struct ist_writer_opts o = { .chunk_records = 4096, .effort = effort };
		size_t nb, bad = 0;

		CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, pf, NULL, &o), 0);
		for (size_t i = 0, step = 1; i < N; i += step, step = step * 5 % 2999 + 1)
			CU_ASSERT_EQUAL_FATAL(ist_writer_write(w, r + i,
					      N - i < step ? N - i : step), 0);
		CU_ASSERT_EQUAL_FATAL(ist_writer_close(w), 0);
		b = read_all(pf, &nb, 1000);
		CU_ASSERT_EQUAL_FATAL(nb, N);
		for (size_t i = 0; i < N; i++)
			bad += !rec_eq(&b[i], &r[i]);
		CU_ASSERT_EQUAL(bad, 0);
		free(b);
	}
	unlink(pf);
	free(pf);
	free(r);
}

/* Names in tmpdir starting with prefix. */
static int count_prefix(const char *prefix)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	if (d)
		closedir(d);
	return n;
}

/*
 * The writer's own temporary file is made as every output's is
 * (istint_tmp_create(): PATH.tmp-PID-N, O_EXCL): a link or a file at the
 * first name is passed over, never written through; a signal that ends
 * the process removes it (PATH.tmp-XXXXXX of a clock hash stayed behind).
 */
static void test_writer_tmp(void)
{
	struct ist_record r = { .t_ns = 1, .op = IST_OP_READ, .len = 4096 };
	char path[256], name[300], victim[256];
	ist_writer *w;
	pid_t pid;
	int st, seq = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s", tmp_path("wtmp.ist"));
	snprintf(victim, sizeof(victim), "%s", tmp_path("victim"));
	f = fopen(victim, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("the user's", f);
	fclose(f);
	/* the next names istint_tmp_create() tries: after the one a writer
	 * takes now (N counts up in the process) */
	CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, tmp_path("probe.ist"), NULL, NULL), 0);
	{
		DIR *d = opendir(tmpdir);
		struct dirent *e;
		const char *dash;

		while (d && (e = readdir(d)))
			if (!strncmp(e->d_name, "probe.ist.tmp-", 14) &&
			    (dash = strrchr(e->d_name, '-')))
				seq = atoi(dash + 1) + 1;
		if (d)
			closedir(d);
	}
	ist_writer_abort(w);
	CU_ASSERT_FATAL(seq > 0);
	CU_ASSERT_EQUAL(count_prefix("probe.ist"), 0);
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "%s.tmp-%ld-%d", path, (long)getpid(), seq + i);
		CU_ASSERT_EQUAL(i ? link(victim, name) : symlink(victim, name), 0);
	}
	CU_ASSERT_EQUAL_FATAL(ist_writer_open(&w, path, NULL, NULL), 0);
	CU_ASSERT_EQUAL(ist_writer_write(w, &r, 1), 0);
	CU_ASSERT_EQUAL(ist_writer_close(w), 0);
	CU_ASSERT(access(path, R_OK) == 0);
	f = fopen(victim, "r");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(fgets(name, sizeof(name), f) && !strcmp(name, "the user's"));
	fclose(f);
	/* the link stays a link, the file (a hard link to the victim) stays,
	 * nothing else is left */
	CU_ASSERT_EQUAL(count_prefix("wtmp.ist.tmp-"), 2);
	for (int i = 0; i < 2; i++) {
		struct stat sb;

		snprintf(name, sizeof(name), "%s.tmp-%ld-%d", path, (long)getpid(), seq + i);
		CU_ASSERT(lstat(name, &sb) == 0 && (i ? S_ISREG(sb.st_mode) : S_ISLNK(sb.st_mode)));
		unlink(name);
	}
	unlink(path);

	/* SIGTERM while the writer is open (SIGINT and SIGHUP alike) */
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		if (ist_writer_open(&w, path, NULL, NULL) || ist_writer_write(w, &r, 1))
			_exit(1);
		raise(SIGTERM);
		_exit(2);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	CU_ASSERT_EQUAL(count_prefix("wtmp.ist"), 0);
	unlink(victim);
}

static void cleanup(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			unlink(tmp_path(e->d_name));
	closedir(d);
	rmdir(tmpdir);
}

int main(void)
{
	static const struct cutest tests[] = {
		{ "varint and zigzag", test_varint_zigzag },
		{ "column codecs", test_column_codecs },
		{ "offset varints", test_offset_varints },
		{ "MTF devices in blocks", test_mtf_decode },
		{ "ANS storage", test_ans },
		{ "ANS decoding tables", test_ans_tables },
		{ "ANS columns two at a time", test_ans_jobs },
		{ "ANS lanes run to the end together", test_ans_jobs_together },
		{ "ANS lanes: the first damaged column's error", test_ans_lanes_errors },
		{ "ANS lanes: every model, damaged streams, unused contexts",
		  ans_lanes_cases },
		{ "CONST columns by a template record", test_const_template },
		{ "ARITH storage", test_arith },
		{ "VANS storage", test_vans },
		{ "VANS header and table rules", test_vans_header },
		{ "VANS values at the edges, decoded to values", test_vans_values_edges },
		{ "column decoders reading values", test_colcur_values },
		{ "VANS in a large chunk: values, broken files", test_vans_large },
		{ "VANS in a minor 3 file is corrupt", test_minor4_in_minor3 },
		{ "packed device table (1.3)", test_packed_devices },
		{ "1.3 codings refused in a 1.2 file", test_minor3_in_minor2 },
		{ "VANS where shortest, ARITH only 1/16 shorter", test_arith_margin },
		{ "chunks, footer, seek", test_chunks_and_footer },
		{ "empty file", test_empty_file },
		{ "recovery without footer", test_recovery_without_footer },
		{ "CRC mismatch", test_crc_mismatch },
		{ "chunk changed while read in pieces", test_partial_chunk_changed },
		{ "truncation at every byte", test_truncation_every_byte },
		{ "major and minor versions", test_versions },
		{ "footer metadata (1.2)", test_footer_meta },
		{ "device geometry learned late", test_footer_geometry },
		{ "golden minor-0 file", test_golden_minor0 },
		{ "writer rules and temp file", test_writer_rules },
		{ "writer temp file: new name, removed by a signal", test_writer_tmp },
		{ "distinct streams cap", test_distinct_cap },
		{ "totals: a device past the limit refused", test_totals_dev_limit },
		{ "totals against a recount", test_totals_recount },
		{ "time column bytes against a reference", test_time_column_bytes },
		{ "DICT column bytes against a reference", test_dict_column_bytes },
		{ "offset scan: AVX-512 and SSE2 agree", test_offset_scan_agree },
		{ "offset scan of one device: eight at a time and SSE2 agree",
		  test_offset_scan_one },
		{ "time and offset varints: eight at a time and one by one agree",
		  test_varints_eight },
		{ "random round trip, extreme values", test_random_roundtrip },
		{ "fast effort: same records, no deflate or ARITH", test_fast_effort },
		{ "fast effort: long repeats deflated", test_fast_effort_repeats },
		{ "fastest effort: same records, no ANS or ARITH", test_fastest_effort },
		{ "fastest effort: long repeats deflated", test_fastest_effort_repeats },
		{ "write_shifted: bytes of a shifted copy", test_write_shifted },
		{ "writer arenas of two sizes kept and reused", test_arena_reuse },
		{ "constant columns copied lazily: records exact", test_lazy_columns },
		{ "default effort: deflate kept without ANS's plan", test_plan_skip },
		{ "VANS in large chunks: runs without ANS's plan, and their end", test_vans_run },
		{ "default effort: a large column's deflate beats ANS by 1/8", test_defl_gain },
		{ NULL, NULL },
	};
	int ret = cutest_main("format", tests);

	cleanup();
	return ret;
}
