/* SPDX-License-Identifier: MIT */
/* ist_write_cpu.c - CPU time of the IST writer alone on the records of an IST file (for bench/import.sh). */
/*
 * Reads every record of IN into memory, then writes them RUNS times to OUT
 * (same header, default writer options, opts.direct as `iostorm import`
 * does, 64 Ki records per ist_writer_write() call) and prints the median
 * CPU seconds (user + system) of ist_writer_open/write/close: what an
 * import of the same records cannot go below.
 *
 *   cc -O2 -Isrc bench/ist_write_cpu.c -L.libs -liostorm \
 *      -Wl,-rpath,$PWD/.libs -o ist_write_cpu
 *   ist_write_cpu IN.ist OUT.ist [RUNS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "iostorm.h"

#define BATCH 65536

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct ist_record *recs = NULL;
	size_t n = 0, cap = 0;
	double times[99];
	int runs = argc > 3 ? atoi(argv[3]) : 3;
	ist_reader *r;
	ssize_t k;

	if (argc < 3 || runs < 1 || runs > 99) {
		fprintf(stderr, "usage: ist_write_cpu IN.ist OUT.ist [RUNS]\n");
		return 2;
	}
	if (ist_reader_open(&r, argv[1])) {
		fprintf(stderr, "%s: cannot read\n", argv[1]);
		return 1;
	}
	do {
		if (n + BATCH > cap) {
			cap = cap ? cap * 2 : 1u << 20;
			recs = realloc(recs, cap * sizeof(*recs));
			if (!recs)
				return 1;
		}
		k = ist_reader_read(r, recs + n, BATCH);
		if (k > 0)
			n += k;
	} while (k > 0);
	if (k < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], ist_strerror((int)k));
		return 1;
	}
	for (int i = 0; i < runs; i++) {
		struct ist_writer_opts o = { .direct = 1 };
		double t0 = cpu_seconds();
		ist_writer *w;

		if (ist_writer_open(&w, argv[2], ist_reader_header(r), &o))
			return 1;
		for (size_t j = 0; j < n; j += BATCH)
			if (ist_writer_write(w, recs + j,
					     n - j < BATCH ? n - j : BATCH))
				return 1;
		if (ist_writer_close(w))
			return 1;
		times[i] = cpu_seconds() - t0;
	}
	qsort(times, runs, sizeof(times[0]), cmp_double);
	printf("%zu %.3f\n", n, times[(runs - 1) / 2]);
	ist_reader_close(r);
	free(recs);
	return 0;
}
