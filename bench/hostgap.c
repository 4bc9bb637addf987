/* SPDX-License-Identifier: MIT */
/*
 * hostgap.c - how much of a CPU the host takes away from a spinning thread.
 *
 * Usage: hostgap CPU SECONDS [THRESHOLD_US]
 *
 * Pins itself to CPU, reads CLOCK_MONOTONIC in a loop for SECONDS and
 * counts every gap between two consecutive reads longer than THRESHOLD_US
 * (default 5): time the thread did not run although it never blocked --
 * interrupts, other threads of the guest, or vCPU steal by the hypervisor.
 * Prints one line:
 *
 *   lost=PCT% gaps=N gaps_1ms=N max_us=F
 *
 * The replay benchmarks run it on the replay worker's CPU just before each
 * run, so that every timing figure comes with the noise of its moment.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	cpu_set_t set;
	char *end;
	long cpu;
	double secs, thr_us = 5.0;
	uint64_t start, prev, stop, thr, lost = 0, max = 0, gaps = 0, big = 0;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: hostgap CPU SECONDS [THRESHOLD_US]\n");
		return 1;
	}
	cpu = strtol(argv[1], &end, 10);
	if (*end || cpu < 0 || cpu >= CPU_SETSIZE) {
		fprintf(stderr, "hostgap: bad CPU '%s'\n", argv[1]);
		return 1;
	}
	secs = strtod(argv[2], &end);
	if (*end || !(secs > 0 && secs < 3600)) {
		fprintf(stderr, "hostgap: bad duration '%s'\n", argv[2]);
		return 1;
	}
	if (argc == 4) {
		thr_us = strtod(argv[3], &end);
		if (*end || !(thr_us > 0)) {
			fprintf(stderr, "hostgap: bad threshold '%s'\n", argv[3]);
			return 1;
		}
	}
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "hostgap: CPU %ld: %s\n", cpu, strerror(errno));
		return 1;
	}
	thr = (uint64_t)(thr_us * 1000.0);
	start = prev = now_ns();
	stop = start + (uint64_t)(secs * 1e9);
	for (;;) {
		uint64_t t = now_ns(), d = t - prev;

		if (d > thr) {
			lost += d;
			gaps++;
			if (d >= 1000000)
				big++;
			if (d > max)
				max = d;
		}
		prev = t;
		if (t >= stop)
			break;
	}
	printf("lost=%.2f%% gaps=%" PRIu64 " gaps_1ms=%" PRIu64 " max_us=%.1f\n",
	       100.0 * (double)lost / (double)(prev - start), gaps, big,
	       (double)max / 1000.0);
	return 0;
}
