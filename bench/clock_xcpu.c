/* SPDX-License-Identifier: MIT */
/*
 * bench/clock_xcpu.c - is a trace clock coherent across CPUs here?  Two
 * threads pinned to two CPUs hand a token back and forth through a shared
 * counter (spinning, no system call but the write); each, on receiving the
 * token, writes its number into trace_marker of a tracefs instance whose
 * trace clock is the one under test.  Causality orders the marks: mark
 * n + 1 was written after mark n, on the other CPU.  The program then reads
 * the instance's trace (merged by timestamp) and reports how many marks
 * come out of causal order (a clock behind on one CPU by more than a
 * hand-off), the smallest step between consecutive marks each way, and
 * from their difference an estimate of the offset between the two CPUs'
 * clocks (an offset larger than a hand-off, about 1.7 us here with the
 * write, puts marks out of order).
 *
 * Usage (root): clock_xcpu CLOCK [ROUNDS [CPU_A CPU_B]]
 * Built by `make check` (bench/clock_xcpu), or: cc -O2 -pthread -o clock_xcpu bench/clock_xcpu.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRACING "/sys/kernel/tracing"

static atomic_long token;
static atomic_int failed; /* a side gave up: the other stops waiting */
static long rounds;
static int marker_fd;

struct side {
	int cpu;
	long parity;
};

static void *side_main(void *arg)
{
	struct side *s = arg;
	cpu_set_t set;
	char buf[32];
	int len;

	CPU_ZERO(&set);
	if (s->cpu >= 0 && s->cpu < CPU_SETSIZE)
		CPU_SET(s->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		goto fail;
	for (long n = s->parity; n < rounds; n += 2) {
		while (atomic_load_explicit(&token, memory_order_acquire) != n)
			if (atomic_load_explicit(&failed, memory_order_relaxed))
				return (void *)1;
		len = snprintf(buf, sizeof(buf), "x %ld\n", n);
		if (write(marker_fd, buf, (size_t)len) != len)
			goto fail;
		atomic_store_explicit(&token, n + 1, memory_order_release);
	}
	return NULL;
fail:
	atomic_store_explicit(&failed, 1, memory_order_relaxed);
	return (void *)1;
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct side a = { 0, 0 }, b = { 1, 1 };
	char inst[256], path[512], line[512];
	pthread_t ta, tb;
	void *ra, *rb;
	double prev = -1, minstep[2] = { 1e18, 1e18 };
	long prevn = -1, back = 0, pairs = 0, seen = 0;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: clock_xcpu CLOCK [ROUNDS [CPU_A CPU_B]]\n");
		return 2;
	}
	rounds = argc > 2 ? atol(argv[2]) : 20000;
	if (argc > 4) {
		a.cpu = atoi(argv[3]);
		b.cpu = atoi(argv[4]);
	}
	snprintf(inst, sizeof(inst), TRACING "/instances/clock-xcpu-%ld", (long)getpid());
	if (mkdir(inst, 0755)) {
		perror(inst);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/trace_clock", inst);
	if (write_file(path, argv[1])) {
		fprintf(stderr, "clock_xcpu: no trace clock %s\n", argv[1]);
		rmdir(inst);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/buffer_size_kb", inst);
	write_file(path, "8192");
	/* raw output: "PID CPU TIMESTAMP ..." with the timestamp in ns
	 * (or the clock's counts), not the text's microseconds */
	snprintf(path, sizeof(path), "%s/options/raw", inst);
	write_file(path, "1");
	snprintf(path, sizeof(path), "%s/trace_marker", inst);
	marker_fd = open(path, O_WRONLY);
	if (marker_fd < 0) {
		perror(path);
		rmdir(inst);
		return 1;
	}
	ra = rb = (void *)1;
	if (!pthread_create(&ta, NULL, side_main, &a)) {
		if (!pthread_create(&tb, NULL, side_main, &b))
			pthread_join(tb, &rb);
		else
			atomic_store(&failed, 1);
		pthread_join(ta, &ra);
	}
	close(marker_fd);
	snprintf(path, sizeof(path), "%s/tracing_on", inst);
	write_file(path, "0");
	if (ra || rb) {
		fprintf(stderr, "clock_xcpu: a thread failed (CPUs %d and %d?)\n", a.cpu, b.cpu);
		rmdir(inst);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/trace", inst);
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		rmdir(inst);
		return 1;
	}
	/* raw: "123 1 1341154953479 # ffffffff814ab9d1 x 17" */
	while (fgets(line, sizeof(line), f)) {
		char *mark = strstr(line, " x ");
		unsigned long long t;
		long pid, n;
		int cpu;
		double ts;

		if (!mark || line[0] == '#' ||
		    sscanf(line, "%ld %d %llu", &pid, &cpu, &t) != 3)
			continue;
		ts = (double)t;
		n = atol(mark + 3);
		seen++;
		/* The trace is merged by timestamp: sort back by n is not
		 * needed to find a backward step, since a clock that goes
		 * backwards shows as n out of order (prevn > n). */
		if (prevn >= 0) {
			pairs++;
			if (n < prevn)
				back++;
			/* [0]: from CPU A's mark to CPU B's, [1]: back */
			if (n == prevn + 1 && ts - prev < minstep[prevn & 1])
				minstep[prevn & 1] = ts - prev;
		}
		prev = ts;
		prevn = n;
	}
	fclose(f);
	rmdir(inst);
	/* An offset d of B's clock over A's adds d to the steps A->B and
	 * takes it from B->A: half their difference estimates it. */
	printf("clock %s: %ld of %ld marks read, %ld out of causal order; smallest step A->B %.0f, B->A %.0f, "
	       "B's offset ~%.0f (ns; x86-tsc: cycles)\n", argv[1], seen, rounds, back,
	       minstep[0], minstep[1], (minstep[0] - minstep[1]) / 2);
	return back ? 3 : 0;
}
