/* SPDX-License-Identifier: MIT */
/*
 * hostgap.c - how much of a CPU the host takes away from a spinning thread.
 *
 * Usage: hostgap CPU[,CPU2] SECONDS [THRESHOLD_US]
 *
 * Pins a thread to CPU, reads CLOCK_MONOTONIC in a loop for SECONDS and
 * counts every gap between two consecutive reads longer than THRESHOLD_US
 * (default 5): time the thread did not run although it never blocked --
 * interrupts, other threads of the guest, or vCPU steal by the hypervisor.
 * Prints one line:
 *
 *   lost=PCT% gaps=N gaps_1ms=N max_us=F
 *
 * The replay benchmarks run it on the replay worker's CPU just before each
 * run, so that every timing figure comes with the noise of its moment.
 *
 * With two CPUs, a thread spins on each at the same time and every gap is
 * kept, to tell whether the host takes the CPUs away together (the whole
 * VM descheduled) or one at a time.  One line per CPU as above, then
 *
 *   both=PCT% independent=PCT% late1=PCT% late2=PCT% late_either=PCT%
 *
 * both: share of the time in a gap on the two CPUs at once; independent:
 * what it would be if the gaps were independent (product of the two
 * shares); lateN: share of the time at which a deadline falling due would
 * be missed by more than THRESHOLD_US by a thread on CPU N alone (the rest
 * of its gap is longer); late_either: the same for a deadline that either
 * thread could serve -- the floor of the timing error's tail, from inside
 * the guest, for one issuing thread or for two.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct gap {
	uint64_t from, to;
};

struct spinner {
	int cpu;
	int keep;             /* keep every gap (pair mode) */
	uint64_t start, stop; /* spin from start to stop */
	uint64_t thr;
	uint64_t lost, max, gaps, big;
	struct gap *g;        /* pair mode: the gaps, in time order */
	size_t n, cap;
	int err;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? errno : 0;
}

static void *spin(void *arg)
{
	struct spinner *s = arg;
	uint64_t prev;

	s->err = pin(s->cpu);
	if (s->err)
		return NULL;
	while (now_ns() < s->start)
		;
	prev = now_ns();
	for (;;) {
		uint64_t t = now_ns(), d = t - prev;

		if (d > s->thr) {
			s->lost += d;
			s->gaps++;
			if (d >= 1000000)
				s->big++;
			if (d > s->max)
				s->max = d;
			if (s->keep && s->n < s->cap) {
				s->g[s->n].from = prev;
				s->g[s->n].to = t;
				s->n++;
			}
		}
		prev = t;
		if (t >= s->stop)
			break;
	}
	s->stop = prev;
	return NULL;
}

static void report(const struct spinner *s)
{
	printf("lost=%.2f%% gaps=%" PRIu64 " gaps_1ms=%" PRIu64 " max_us=%.1f\n",
	       100.0 * (double)s->lost / (double)(s->stop - s->start), s->gaps,
	       s->big, (double)s->max / 1000.0);
}

/* Time covered by both lists of intervals [from + lead_in, to - tail]. */
static uint64_t overlap(const struct spinner *a, const struct spinner *b,
			uint64_t tail)
{
	uint64_t sum = 0;
	size_t i = 0, j = 0;

	while (i < a->n && j < b->n) {
		const struct gap *x = &a->g[i], *y = &b->g[j];
		uint64_t xe = x->to - x->from > tail ? x->to - tail : x->from;
		uint64_t ye = y->to - y->from > tail ? y->to - tail : y->from;
		uint64_t lo = x->from > y->from ? x->from : y->from;
		uint64_t hi = xe < ye ? xe : ye;

		if (hi > lo)
			sum += hi - lo;
		if (xe < ye)
			i++;
		else
			j++;
	}
	return sum;
}

static uint64_t late_time(const struct spinner *s, uint64_t tail)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->g[i].to - s->g[i].from > tail)
			sum += s->g[i].to - s->g[i].from - tail;
	return sum;
}

int main(int argc, char **argv)
{
	struct spinner sp[2];
	pthread_t tid[2];
	char *end;
	long cpu[2];
	int ncpu = 1;
	double secs, thr_us = 5.0, span;
	uint64_t start, stop;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: hostgap CPU[,CPU2] SECONDS [THRESHOLD_US]\n");
		return 1;
	}
	cpu[0] = strtol(argv[1], &end, 10);
	if (*end == ',') {
		cpu[1] = strtol(end + 1, &end, 10);
		ncpu = 2;
	}
	if (*end || end == argv[1] || cpu[0] < 0 || cpu[0] >= CPU_SETSIZE ||
	    (ncpu == 2 && (cpu[1] < 0 || cpu[1] >= CPU_SETSIZE || cpu[1] == cpu[0]))) {
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
		if (*end || !(thr_us > 0 && thr_us < 1e6)) {
			fprintf(stderr, "hostgap: bad threshold '%s'\n", argv[3]);
			return 1;
		}
	}
	/* both threads start spinning at the same instant, once created */
	start = now_ns() + (ncpu == 2 ? 50000000u : 0);
	stop = start + (uint64_t)(secs * 1e9);
	for (int i = 0; i < ncpu; i++) {
		memset(&sp[i], 0, sizeof(sp[i]));
		sp[i].cpu = (int)cpu[i];
		sp[i].start = start;
		sp[i].stop = stop;
		sp[i].thr = (uint64_t)(thr_us * 1000.0);
		if (ncpu == 2) {
			/* a gap is at least THRESHOLD long: bounded count */
			sp[i].cap = (size_t)(secs * 1e9 / (double)sp[i].thr) + 1;
			if (sp[i].cap > 50000000)
				sp[i].cap = 50000000;
			sp[i].g = malloc(sp[i].cap * sizeof(*sp[i].g));
			if (!sp[i].g) {
				fprintf(stderr, "hostgap: out of memory\n");
				return 1;
			}
			sp[i].keep = 1;
		}
	}
	if (ncpu == 1) {
		spin(&sp[0]);
	} else {
		for (int i = 0; i < 2; i++) {
			int e = pthread_create(&tid[i], NULL, spin, &sp[i]);

			if (e) {
				fprintf(stderr, "hostgap: thread: %s\n", strerror(e));
				return 1;
			}
		}
		for (int i = 0; i < 2; i++)
			pthread_join(tid[i], NULL);
	}
	for (int i = 0; i < ncpu; i++) {
		if (sp[i].err) {
			fprintf(stderr, "hostgap: CPU %ld: %s\n", cpu[i],
				strerror(sp[i].err));
			return 1;
		}
		report(&sp[i]);
	}
	if (ncpu == 2) {
		uint64_t thr = sp[0].thr;

		span = (double)((sp[0].stop > sp[1].stop ? sp[0].stop : sp[1].stop) - start);
		printf("both=%.3f%% independent=%.3f%% late1=%.3f%% late2=%.3f%% late_either=%.3f%%\n",
		       100.0 * (double)overlap(&sp[0], &sp[1], 0) / span,
		       100.0 * ((double)sp[0].lost / span) * ((double)sp[1].lost / span),
		       100.0 * (double)late_time(&sp[0], thr) / span,
		       100.0 * (double)late_time(&sp[1], thr) / span,
		       100.0 * (double)overlap(&sp[0], &sp[1], thr) / span);
		free(sp[0].g);
		free(sp[1].g);
	}
	return 0;
}
