/* SPDX-License-Identifier: MIT */
/*
 * ist_speed.c - IST encode/decode speed on one core (bench/format.sh).
 *   ist_speed [--fast|--fastest] FILE.ist [RUNS [BATCH]]
 *                                  median encode and decode records/s,
 *                                  decode reading BATCH records a call
 *                                  (65536: cat, convert; replay reads 512),
 *                                  encode with IST_EFFORT_FAST if --fast,
 *                                  IST_EFFORT_FASTEST if --fastest
 *   ist_speed --synth N OUT.ist    writes a synthetic database-like trace
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iostorm.h"

static double now(void)
{
	struct timespec ts;

	/* CPU time of this thread: the machine may be shared */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* An OLTP-like mix: 16 sessions; random 8 KiB data-file reads and
 * writes, sequential log writes with commits, checkpoint bursts;
 * microsecond-granular arrivals and log-normal-ish latencies. */
static int synth(uint64_t n, const char *path)
{
	ist_header *h = ist_header_new();
	ist_writer *w;
	struct ist_record *b = calloc(4096, sizeof(*b));
	uint64_t t = 0, log_off = 0, txn[16] = { 0 };
	int ret;

	ist_header_set(h, "source", "ist_speed --synth (OLTP-like)");
	ist_header_add_device(h, "data", 1ull << 40, 4096);
	ist_header_add_device(h, "log", 1ull << 34, 4096);
	ret = ist_writer_open(&w, path, h, NULL);
	if (ret)
		return ret;
	for (uint64_t i = 0; i < n;) {
		size_t k = 0;

		for (; k < 4096 && i < n; k++, i++) {
			struct ist_record *r = &b[k];
			uint64_t x = rnd();
			unsigned s = (unsigned)(x % 16);

			memset(r, 0, sizeof(*r));
			t += 1000 * (1 + (x >> 8) % 40);
			r->t_ns = t;
			r->stream = 1000 + s;
			if (!txn[s] || (x >> 20) % 8 == 0)
				txn[s] = (i << 4) | s;
			r->txn = txn[s];
			if ((x >> 24) % 10 < 2) {
				r->dev = 1;
				r->op = IST_OP_WRITE;
				r->offset = log_off;
				r->len = 4096 * (1 + (unsigned)((x >> 32) % 4));
				log_off += r->len;
				r->flags = IST_F_SYNC | ((x >> 40) % 3 == 0 ? IST_F_COMMIT | IST_F_FUA : 0);
				r->lat_ns = 20000 + (x >> 44) % 30000;
			} else {
				r->dev = 0;
				r->op = (x >> 28) % 10 < 7 ? IST_OP_READ : IST_OP_WRITE;
				r->offset = ((x >> 33) % (1u << 28)) * 8192;
				r->len = 8192;
				r->lat_ns = 80000 + (rnd() % 200000);
			}
		}
		ret = ist_writer_write(w, b, k);
		if (ret)
			return ret;
	}
	free(b);
	ist_header_free(h);
	return ist_writer_close(w);
}

int main(int argc, char **argv)
{
	struct ist_record *all = NULL;
	size_t n = 0, cap = 0;
	ist_reader *r;
	ssize_t k;
	int runs = 5, ret;
	size_t passes, batch = 65536;
	double enc[32], dec[32];
	struct ist_writer_opts wo = { 0 };

	if (argc == 4 && !strcmp(argv[1], "--synth")) {
		ret = synth(strtoull(argv[2], NULL, 10), argv[3]);
		if (ret)
			fprintf(stderr, "ist_speed: %s\n", ist_strerror(ret));
		return ret ? 1 : 0;
	}
	if (argc > 1 && (!strcmp(argv[1], "--fast") ||
			 !strcmp(argv[1], "--fastest"))) {
		wo.effort = !strcmp(argv[1], "--fast") ? IST_EFFORT_FAST :
							 IST_EFFORT_FASTEST;
		argc--;
		argv++;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: ist_speed [--fast|--fastest] FILE.ist [RUNS [BATCH]] | --synth N OUT.ist\n");
		return 2;
	}
	if (argc > 2)
		runs = atoi(argv[2]);
	if (runs < 1 || runs > 32)
		runs = 5;
	if (argc > 3)
		batch = strtoull(argv[3], NULL, 10);
	if (batch < 1 || batch > (1u << 20))
		batch = 65536;
	ret = ist_reader_open(&r, argv[1]);
	if (ret) {
		fprintf(stderr, "ist_speed: %s: %s\n", argv[1], ist_strerror(ret));
		return 1;
	}
	for (;;) {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			all = realloc(all, cap * sizeof(*all));
		}
		k = ist_reader_read(r, all + n, 65536);
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	/* Small traces are passed over several times per run (at least
	 * 2 M records), so that the figures are steady-state rates and not
	 * the fixed cost of opening a file and allocating its buffers. */
	passes = n ? (2000000 + n - 1) / n : 1;
	for (int i = 0; i < runs; i++) {
		struct ist_record *buf = malloc(batch * sizeof(*buf));
		ist_reader *rr;
		ist_writer *w;
		int fd = open("/dev/null", O_WRONLY);
		double t0;
		size_t got = 0;

		/* decode: the whole file, page-cached */
		ist_reader_open(&rr, argv[1]);
		ist_reader_read(rr, buf, batch); /* warm the buffers up */
		t0 = now();
		for (size_t p = 0; p < passes; p++) {
			ist_reader_seek_chunk(rr, 0);
			while ((k = ist_reader_read(rr, buf, batch)) > 0)
				got += (size_t)k;
		}
		dec[i] = got / (now() - t0);
		ist_reader_close(rr);
		free(buf);

		/* encode: the same records, to /dev/null */
		t0 = now();
		ist_writer_open_fd(&w, fd, ist_reader_header(r), &wo);
		for (size_t p = 0; p < passes; p++)
			for (size_t j = 0; j < n; j += 65536)
				ist_writer_write(w, all + j, n - j < 65536 ? n - j : 65536);
		ist_writer_close(w);
		enc[i] = (double)n * passes / (now() - t0);
		close(fd);
	}
	qsort(enc, (size_t)runs, sizeof(double), cmp_double);
	qsort(dec, (size_t)runs, sizeof(double), cmp_double);
	printf("records %zu encode_rps %.0f decode_rps %.0f\n", n, enc[runs / 2],
	       dec[runs / 2]);
	ist_reader_close(r);
	free(all);
	return 0;
}
