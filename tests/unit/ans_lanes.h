/* SPDX-License-Identifier: MIT */
/*
 * ans_lanes.h - the ANS decoders' shared cases, run by test_format
 * (the lanes as built: cmov through inline assembly on x86-64) and by
 * test_ans_portable (ans.c built with FMT_ANS_PORTABLE: the selects in
 * plain C, as on other machines).  Includes cutest.h and format/fmt.h
 * before it.
 *
 * Columns of every model (varints in four contexts, a HIST prefix of
 * even and odd length, model 0, one symbol of frequency 4096) decoded
 * two at a time, in every pair and both lane orders, with the buffer
 * readable past them or not, give fmt_ans_decode()'s bytes, which are
 * the column's.  Refused with IST_ECORRUPT, alone and two at a time in
 * either lane, never read out of bounds (ASan): every column cut short
 * by a word and by a byte, its first state below 2^16 or changed, a
 * byte more or fewer wanted; and a model 1 column whose tables lead
 * into an unused context (contexts 0-2 one continuation byte each, 3
 * empty): its three bytes decode, a fourth is refused, also inside the
 * lanes' unchecked rounds (200 bytes wanted next to a long column).
 */
#ifndef IST_TEST_ANS_LANES_H
#define IST_TEST_ANS_LANES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t ans_lanes_rng = 20261205;

static uint32_t ans_lanes_rnd(void)
{
	ans_lanes_rng ^= ans_lanes_rng << 13;
	ans_lanes_rng ^= ans_lanes_rng >> 7;
	ans_lanes_rng ^= ans_lanes_rng << 17;
	return (uint32_t)(ans_lanes_rng >> 11);
}

enum { ANS_LANES_NC = 7, ANS_LANES_N = 30000, ANS_LANES_PAD = 64 };

/* Column c's bytes at b (ANS_LANES_N of room); returns their count and
 * the prefix in *prefix. */
static size_t ans_lanes_column(unsigned c, uint8_t *b, size_t *prefix)
{
	size_t n = 0;

	*prefix = 0;
	switch (c) {
	case 0: /* varints of skewed magnitudes (model 1) */
		while (n + 10 < ANS_LANES_N)
			n += fmt_put_varint(b + n, ans_lanes_rnd() >>
						   (ans_lanes_rnd() % 32));
		break;
	case 1: /* HIST symbols, then varints (model 2) */
	case 2: /* an odd prefix */
		*prefix = c == 1 ? 3000 : 2999;
		for (; n < *prefix; n++)
			b[n] = (uint8_t)(ans_lanes_rnd() % 3 ? 0 :
					 ans_lanes_rnd() % 17);
		while (n + 10 < ANS_LANES_N - 5000)
			n += fmt_put_varint(b + n, ans_lanes_rnd() % 70000);
		break;
	case 3: /* small bytes (model 0) */
		for (; n < ANS_LANES_N - 7; n++)
			b[n] = (uint8_t)(ans_lanes_rnd() % (1 + ans_lanes_rnd() % 60));
		break;
	case 4: /* one symbol: the states never move, no word */
		memset(b, 0x81, n = 4001);
		break;
	case 5: /* nearly one symbol (tencent's times) */
		for (; n < ANS_LANES_N; n++)
			b[n] = ans_lanes_rnd() % 500 ? 0 : 1;
		break;
	default: /* short varints, odd count */
		while (n + 10 < 777)
			n += fmt_put_varint(b + n, ans_lanes_rnd() % 300);
		n -= !(n & 1);
		break;
	}
	return n;
}

/* The bytes of a column's model and tables (man/iostorm-trace.5), or 0. */
static size_t ans_lanes_tables(const uint8_t *in, size_t len)
{
	const uint8_t *p = in + 1, *end = in + len;
	uint64_t v, nsym;
	unsigned nctx = in[0] == 0 ? 1 : in[0] == 1 ? FMT_ANS_CTX : FMT_ANS_CTX + 1;

	if (in[0] == 2 && fmt_get_varint(&p, end, &v))
		return 0;
	for (unsigned c = 0; c < nctx; c++) {
		if (fmt_get_varint(&p, end, &nsym))
			return 0;
		for (uint64_t k = 0; k < 2 * nsym; k++)
			if (fmt_get_varint(&p, end, &v))
				return 0;
	}
	return (size_t)(p - in);
}

/* Decodes one job alone and two at a time with a long good column, in
 * both lane orders; asserts all three give want (0 or an error). */
static void ans_lanes_expect(struct fmt_ans_dec *const t[2],
			     const struct fmt_ans_job *j,
			     const struct fmt_ans_job *other, int want)
{
	struct fmt_ans_job two[2];

	CU_ASSERT_EQUAL(fmt_ans_decode(t[0], j->in, j->inlen, j->out, j->want),
			want);
	two[0] = *j;
	two[1] = *other;
	CU_ASSERT_EQUAL(fmt_ans_decode_jobs(t, two, 2), want);
	two[0] = *other;
	two[1] = *j;
	CU_ASSERT_EQUAL(fmt_ans_decode_jobs(t, two, 2), want);
}

static void ans_lanes_cases(void)
{
	static struct fmt_ans_dec t0, t1;
	struct fmt_ans_dec *const t[2] = { &t0, &t1 };
	uint8_t *src[ANS_LANES_NC], *enc[ANS_LANES_NC], *out[ANS_LANES_NC];
	uint8_t *tmp = malloc(FMT_ANS_TMP(ANS_LANES_N));
	size_t len[ANS_LANES_NC], z[ANS_LANES_NC];
	struct fmt_ans_job job[ANS_LANES_NC];

	for (unsigned c = 0; c < ANS_LANES_NC; c++) {
		size_t prefix;

		src[c] = malloc(ANS_LANES_N);
		enc[c] = malloc(2 * ANS_LANES_N + ANS_LANES_PAD);
		out[c] = malloc(ANS_LANES_N + ANS_LANES_PAD);
		len[c] = ans_lanes_column(c, src[c], &prefix);
		z[c] = fmt_ans_encode(src[c], len[c], prefix, enc[c],
				      2 * ANS_LANES_N, tmp);
		CU_ASSERT_FATAL(z[c] > 0);
		memset(enc[c] + z[c], 0, ANS_LANES_PAD);
		job[c] = (struct fmt_ans_job){ enc[c], z[c], out[c], len[c],
					       enc[c] + z[c] + ANS_LANES_PAD };
		memset(out[c], 0xee, len[c]);
		CU_ASSERT_EQUAL(fmt_ans_decode(&t0, enc[c], z[c], out[c], len[c]), 0);
		CU_ASSERT(memcmp(out[c], src[c], len[c]) == 0);
	}
	/* every pair, both orders, readable past the columns or not */
	for (unsigned a = 0; a < ANS_LANES_NC; a++)
		for (unsigned b = 0; b < ANS_LANES_NC; b++) {
			struct fmt_ans_job two[2] = { job[a], job[b] };

			if (a == b)
				continue;
			for (int lim = 0; lim < 2; lim++) {
				two[0].limit = lim ? job[a].limit : NULL;
				two[1].limit = lim ? job[b].limit : NULL;
				memset(out[a], 0xee, len[a]);
				memset(out[b], 0xee, len[b]);
				CU_ASSERT_EQUAL(fmt_ans_decode_jobs(t, two, 2), 0);
				CU_ASSERT(memcmp(out[a], src[a], len[a]) == 0);
				CU_ASSERT(memcmp(out[b], src[b], len[b]) == 0);
			}
		}
	/* damaged columns, next to column 0 (or 1 for column 0) */
	for (unsigned c = 0; c < ANS_LANES_NC; c++) {
		const struct fmt_ans_job *other = &job[c ? 0 : 1];
		uint8_t *copy = malloc(z[c] + ANS_LANES_PAD);
		size_t hl;
		struct fmt_ans_job j;

		hl = ans_lanes_tables(enc[c], z[c]);
		CU_ASSERT_FATAL(hl > 0 && hl + 8 <= z[c]);
		CU_ASSERT_FATAL(fmt_get32(enc[c] + hl) >= 1u << 16);
		for (int how = 0; how < 7; how++) {
			/* one symbol of frequency 4096: no words to cut, and
			 * any state or count decodes */
			if (c == 4 && (how == 0 || (how >= 3 && how <= 5)))
				continue;
			memcpy(copy, enc[c], z[c] + ANS_LANES_PAD);
			j = job[c];
			j.in = copy;
			j.limit = copy + z[c] + ANS_LANES_PAD;
			switch (how) {
			case 0: /* cut by a word (one symbol: none to cut) */
				j.inlen -= 2;
				break;
			case 1: /* cut by a byte */
				j.inlen -= 1;
				break;
			case 2: /* first state below 2^16 */
				fmt_put32(copy + hl, 0xffff);
				break;
			case 3: /* first state changed, still normalised */
				fmt_put32(copy + hl, fmt_get32(copy + hl) ^ 0x5a5a5);
				if (fmt_get32(copy + hl) < 1u << 16)
					fmt_put32(copy + hl, 0x12345678);
				break;
			case 4: /* a byte more wanted */
				j.want++;
				break;
			case 5: /* a byte fewer */
				j.want--;
				break;
			default: /* the second state, below 2^16 */
				fmt_put32(copy + hl + 4, 0x8000);
				break;
			}
			ans_lanes_expect(t, &j, other, IST_ECORRUPT);
		}
		free(copy);
	}
	/* tables leading into an unused context: contexts 0-2 each one
	 * symbol 0x80 of frequency 4096, context 3 empty; states 2^16 */
	{
		uint8_t col[64] = { 1 }, o[256 + ANS_LANES_PAD];
		size_t n = 1;
		struct fmt_ans_job j;

		for (int c = 0; c < 3; c++) {
			n += fmt_put_varint(col + n, 1);      /* one symbol */
			n += fmt_put_varint(col + n, 0x80);   /* gap */
			n += fmt_put_varint(col + n, 4095);   /* frequency - 1 */
		}
		n += fmt_put_varint(col + n, 0); /* context 3: unused */
		fmt_put32(col + n, 1u << 16);
		fmt_put32(col + n + 4, 1u << 16);
		n += 8;
		memset(o, 0, sizeof(o));
		j = (struct fmt_ans_job){ col, n, o, 3, col + sizeof(col) };
		ans_lanes_expect(t, &j, &job[0], 0);
		CU_ASSERT(o[0] == 0x80 && o[1] == 0x80 && o[2] == 0x80 && o[3] == 0);
		j.want = 4;
		ans_lanes_expect(t, &j, &job[0], IST_ECORRUPT);
		j.want = 200;
		ans_lanes_expect(t, &j, &job[0], IST_ECORRUPT);
		j.limit = NULL;
		ans_lanes_expect(t, &j, &job[0], IST_ECORRUPT);
	}
	for (unsigned c = 0; c < ANS_LANES_NC; c++) {
		free(src[c]);
		free(enc[c]);
		free(out[c]);
	}
	free(tmp);
}

#endif
