/* SPDX-License-Identifier: MIT */
/* cmd_replay.c - `iostorm replay`: options, progress line, signals and the human summary. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/rpt_out.h"
#include "core/tmpout.h"
#include "replay/replay.h"

#define CMD "replay"
/* --serial-commits forms group commits on the target when told on: it
 * over-predicts a slower target's TPS as much as the model without under-
 * predicts it (bench/README.md, "Closed loop") */
#define COMMIT_GROUPS_DEFAULT 0

static const char usage_text[] =
	"Usage: iostorm replay TRACE --target [DEV=]PATH ... [options]\n"
	"       iostorm replay TRACE --null [options]\n"
	"\n"
	"Replays an IST trace (or canonical CSV) against files or block devices\n"
	"on io_uring and reports IOPS, MB/s, latency percentiles and lateness.\n"
	"\n"
	"Targets:\n"
	"  -t, --target [DEV=]PATH  trace device DEV (all devices without DEV) to PATH\n"
	"      --null               null back-end: no device, engine cost alone\n"
	"      --null-latency T     null back-end completes after T (default 0)\n"
	"      --null-latency-from FILE  null back-end: each device's and op's\n"
	"                           latencies taken in turn from FILE (a --lat-log\n"
	"                           of a replay on a real target); those not in\n"
	"                           FILE: --null-latency\n"
	"      --virtual-time       null back-end on a simulated clock: no waiting,\n"
	"                           exact schedules (what-if with --null-latency)\n"
	"      --remap MODE         offsets beyond a target: strict (refuse, default),\n"
	"                           wrap, scale\n"
	"      --buffered           page cache I/O (default O_DIRECT)\n"
	"      --create             create or extend file targets to fit the trace\n"
	"      --size SIZE          with --create: at least SIZE bytes\n"
	"      --allow-write        permit writes to block devices\n"
	"      --force              write even to a device with a filesystem or\n"
	"                           partition-table signature\n"
	"      --read-only          replay reads only (writes skipped and counted)\n"
	"      --data PATTERN       write data: random (default), zero, compress:RATIO\n"
	"                           (1-1000, to 0.01), dedupe:PCT (0-100, to 0.01),\n"
	"                           stamp (verification)\n"
	"      --seed N             seed of the write data (default 0)\n"
	"Timing:\n"
	"      --timing MODE        original (default), afap, closed\n"
	"      --speed F            original (and closed) timing F times faster\n"
	"                           (1e-6 to 1e6)\n"
	"                           (default 1)\n"
	"      --rate IOPS          fixed arrival rate, I/O i at i / IOPS (with the\n"
	"                           original timing only)\n"
	"                           (1e-6 to 1e12)\n"
	"  -q, --iodepth N          in-flight cap per worker (1-65536, default 64)\n"
	"      --think-scale F      closed: think times times F, 0 to 1e6 (default 1)\n"
	"      --txn-per N          a transaction is every N I/Os of a stream\n"
	"      --serial-commits     closed: one stream at a time writes and flushes\n"
	"                           the commit device (a database's log lock)\n"
	"      --commit-groups on|off  with --serial-commits: a commit ready while\n"
	"                           the lock is held completes with the next\n"
	"                           holder's flush, without I/O (group commit\n"
	"                           formed on the target; default off; with\n"
	"                           --think-sched, recommended when the target\n"
	"                           may be slower than the recording's)\n"
	"      --holder-waits on|off  with --commit-groups on and --think-sched: a\n"
	"                           commit whose stream slept, in the recording,\n"
	"                           until another stream ended its commit (a row\n"
	"                           lock held through it) waits for that commit's\n"
	"                           replayed completion, then its own CPU time\n"
	"                           after the wake-up (default off)\n"
	"      --lock-handover on|off  with --commit-groups on and --think-sched: a\n"
	"                           commit that waited for the lock takes it the\n"
	"                           recording's median handover after the release\n"
	"                           (from another's release to a woken waiter's\n"
	"                           first write, less its CPU time, measured in\n"
	"                           the recording; the commits ready meanwhile\n"
	"                           ride on its flush; default off)\n"
	"      --think-sched FILE   closed: take the streams' run-queue waits in FILE\n"
	"                           (record --sched) out of their think times\n"
	"      --cpus N             closed, with --think-sched: serve the streams'\n"
	"                           on-CPU think time (the kernel's runtime when\n"
	"                           recorded) on N shared CPUs, 1-4096 (default:\n"
	"                           unlimited, each stream at its recorded pace)\n"
	"      --cpu-queue burst|gap  with --cpus: each on-CPU interval and each\n"
	"                           client's CPU for a round trip queues for the\n"
	"                           CPUs on its own, when the one before it is\n"
	"                           served (burst, default), or a gap's CPU time\n"
	"                           at once when its stream drains (gap)\n"
	"      --cpu-scale F        with --cpus: that CPU time times F (the target's\n"
	"                           CPU cost per unit of work against the\n"
	"                           recording's; above 0, at most 1000, default 1)\n"
	"      --wake-cost T|auto   with --cpus: take T of CPU time off a gap for\n"
	"                           each recorded wake-up the replay does not cause\n"
	"                           (I/O completions where the target completes the\n"
	"                           I/O in the caller, lock waits not redone); auto:\n"
	"                           T from the sidecar's bursts (default: none)\n"
	"      --txn-latency FROM   a transaction's latency from its first I/O\n"
	"                           (first, default) or from the end of its stream's\n"
	"                           previous transaction (cycle, as clients see it)\n"
	"      --from T, --to T     replay the trace window [T, T')\n"
	"      --loop N             replay N times (1-1000000)\n"
	"      --duration T         stop after T\n"
	"Engine:\n"
	"  -w, --workers N          worker threads, each with its own ring (1-64,\n"
	"                           default 1)\n"
	"      --partition BY       device (default) or stream\n"
	"      --sqpoll             kernel submission thread\n"
	"      --iopoll             polled completions (block devices with poll queues)\n"
	"      --spin T|auto        spin the last T before a deadline (default 40us;\n"
	"                           closed timing: auto); auto: at least 40us, more\n"
	"                           when sleeps overshoot\n"
	"      --realtime           workers at SCHED_FIFO priority (fewer preemptions)\n"
	"      --inline MODE        I/O issued by the worker itself: auto (zram, brd,\n"
	"                           pmem: RAM devices io_uring defers), never, always\n"
	"      --no-pin             do not give each worker a CPU of its own\n"
	"      --pin                give each worker a CPU of its own also with\n"
	"                           closed timing on a loop device (not by default)\n"
	"Report:\n"
	"      --interval T         per-interval rows (default 1s, at least 1ms;\n"
	"                           0: none)\n"
	"      --json FILE          JSON report (schema in iostorm-replay(1))\n"
	"      --csv-intervals FILE per-interval rows as CSV\n"
	"      --lat-log FILE       one CSV line per completed I/O: seq, op, stream,\n"
	"                           deadline, issue, completion, latency, result,\n"
	"                           trace device, offset, length\n"
	"      --late-warn T        warn when p99 lateness exceeds T (default 1ms)\n"
	"      --no-progress        no live progress line (default: on a terminal)\n"
	"      --quiet              no summary on stdout\n"
	"  -h, --help               this help\n"
	"\n"
	"Durations: 1.5s, 250ms, 10us, 100ns (bare numbers are seconds).\n"
	"Exit status: 0 success (also when interrupted), 1 failure or refusal,\n"
	"2 usage error.\n";

enum {
	O_NULL = 256, O_NULL_LAT, O_REMAP, O_BUFFERED, O_CREATE, O_SIZE,
	O_ALLOW_WRITE, O_FORCE, O_READ_ONLY, O_DATA, O_SEED, O_TIMING, O_SPEED,
	O_RATE, O_THINK, O_TXN_PER, O_FROM, O_TO, O_LOOP, O_DURATION,
	O_PARTITION, O_SQPOLL, O_IOPOLL, O_SPIN, O_INTERVAL, O_JSON, O_CSV,
	O_LATE_WARN, O_NO_PROGRESS, O_QUIET, O_REALTIME, O_VIRTUAL, O_INLINE, O_NO_PIN, O_PIN,
	O_SERIAL_COMMITS, O_COMMIT_GROUPS, O_HOLDER_WAITS, O_LOCK_HANDOVER, O_TXN_LATENCY,
	O_THINK_SCHED, O_CPUS, O_CPU_QUEUE, O_CPU_SCALE, O_WAKE_COST, O_LAT_LOG, O_NULL_LAT_FROM,
};

static const struct option longopts[] = {
	{ "target", required_argument, NULL, 't' },
	{ "null", no_argument, NULL, O_NULL },
	{ "null-latency", required_argument, NULL, O_NULL_LAT },
	{ "null-latency-from", required_argument, NULL, O_NULL_LAT_FROM },
	{ "lat-log", required_argument, NULL, O_LAT_LOG },
	{ "virtual-time", no_argument, NULL, O_VIRTUAL },
	{ "remap", required_argument, NULL, O_REMAP },
	{ "buffered", no_argument, NULL, O_BUFFERED },
	{ "create", no_argument, NULL, O_CREATE },
	{ "size", required_argument, NULL, O_SIZE },
	{ "allow-write", no_argument, NULL, O_ALLOW_WRITE },
	{ "force", no_argument, NULL, O_FORCE },
	{ "read-only", no_argument, NULL, O_READ_ONLY },
	{ "data", required_argument, NULL, O_DATA },
	{ "seed", required_argument, NULL, O_SEED },
	{ "timing", required_argument, NULL, O_TIMING },
	{ "speed", required_argument, NULL, O_SPEED },
	{ "rate", required_argument, NULL, O_RATE },
	{ "iodepth", required_argument, NULL, 'q' },
	{ "think-scale", required_argument, NULL, O_THINK },
	{ "txn-per", required_argument, NULL, O_TXN_PER },
	{ "serial-commits", no_argument, NULL, O_SERIAL_COMMITS },
	{ "commit-groups", required_argument, NULL, O_COMMIT_GROUPS },
	{ "holder-waits", required_argument, NULL, O_HOLDER_WAITS },
	{ "lock-handover", required_argument, NULL, O_LOCK_HANDOVER },
	{ "think-sched", required_argument, NULL, O_THINK_SCHED },
	{ "cpus", required_argument, NULL, O_CPUS },
	{ "cpu-queue", required_argument, NULL, O_CPU_QUEUE },
	{ "cpu-scale", required_argument, NULL, O_CPU_SCALE },
	{ "wake-cost", required_argument, NULL, O_WAKE_COST },
	{ "txn-latency", required_argument, NULL, O_TXN_LATENCY },
	{ "from", required_argument, NULL, O_FROM },
	{ "to", required_argument, NULL, O_TO },
	{ "loop", required_argument, NULL, O_LOOP },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "workers", required_argument, NULL, 'w' },
	{ "partition", required_argument, NULL, O_PARTITION },
	{ "sqpoll", no_argument, NULL, O_SQPOLL },
	{ "iopoll", no_argument, NULL, O_IOPOLL },
	{ "spin", required_argument, NULL, O_SPIN },
	{ "realtime", no_argument, NULL, O_REALTIME },
	{ "inline", required_argument, NULL, O_INLINE },
	{ "no-pin", no_argument, NULL, O_NO_PIN },
	{ "pin", no_argument, NULL, O_PIN },
	{ "interval", required_argument, NULL, O_INTERVAL },
	{ "json", required_argument, NULL, O_JSON },
	{ "csv-intervals", required_argument, NULL, O_CSV },
	{ "late-warn", required_argument, NULL, O_LATE_WARN },
	{ "no-progress", no_argument, NULL, O_NO_PROGRESS },
	{ "quiet", no_argument, NULL, O_QUIET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The run being replayed, for the signal handler (CLI only). */
static rpl_run *volatile current_run;

static void on_signal(int sig)
{
	(void)sig;
	if (current_run)
		rpl_run_stop(current_run);
}

/* Writes v in decimal at p: the end. */
static char *put_u64(char *p, uint64_t v)
{
	char t[20];
	unsigned n = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = t[--n];
	return p;
}

/* An op (of a device, when the log has the dev column) that the log
 * has no latency of took --null-latency (0 unless given): a model on a
 * real device's latencies with its writes free of cost, or a data
 * device's I/Os given no cost, is not to pass without a word. */
static void warn_unlisted(const char *lat_from, const struct rpl_lat_lists *lf,
			  const struct rpl_result *res, uint64_t null_latency_ns)
{
	for (unsigned k = 0; k < IST_OP_COUNT; k++) {
		uint64_t all = 0;

		for (unsigned d = 0; d < res->null_unlisted_ndev; d++) {
			uint64_t nu = res->null_unlisted[(size_t)d * IST_OP_COUNT + k];

			all += nu;
			if (nu && lf->ndev)
				cli_err("warning: --null-latency-from %s has no %s latency of device "
					"%u%s: its %" PRIu64 " %s I/Os completed after --null-latency "
					"(%" PRIu64 " ns)", lat_from, ist_op_name(k), d,
					d + 1 == res->null_unlisted_ndev ? " (or beyond)" : "", nu,
					ist_op_name(k), null_latency_ns);
		}
		if (all && !lf->ndev)
			cli_err("warning: --null-latency-from %s has no %s latency: the %" PRIu64
				" %s I/Os completed after --null-latency (%" PRIu64 " ns)", lat_from,
				ist_op_name(k), all, ist_op_name(k), null_latency_ns);
	}
}

/* --lat-log: one line per completed I/O, from the worker threads, made
 * in a buffer and written with one fwrite (stdio locks the stream: lines
 * of several workers do not mix).  fprintf took 0.38 us of the worker's
 * CPU per I/O, more than the whole engine's 0.25 on the null back-end. */
static void lat_log_event(void *arg, const struct rpl_io_event *ev)
{
	char line[11 * 21 + 32], *p = line;
	const char *op = ist_op_name(ev->rec->op);
	size_t ol = strlen(op);

	p = put_u64(p, ev->seq);
	*p++ = ',';
	if (ol > 20)
		ol = 20;
	memcpy(p, op, ol);
	p += ol;
	*p++ = ',';
	p = put_u64(p, ev->rec->stream);
	*p++ = ',';
	p = put_u64(p, ev->deadline_ns);
	*p++ = ',';
	p = put_u64(p, ev->issue_ns);
	*p++ = ',';
	p = put_u64(p, ev->done_ns);
	*p++ = ',';
	p = put_u64(p, ev->done_ns > ev->issue_ns ? ev->done_ns - ev->issue_ns : 0);
	*p++ = ',';
	if (ev->res < 0) {
		*p++ = '-';
		p = put_u64(p, (uint64_t)-(int64_t)ev->res);
	} else {
		p = put_u64(p, (uint64_t)ev->res);
	}
	*p++ = ',';
	p = put_u64(p, ev->dev);
	*p++ = ',';
	p = put_u64(p, ev->rec->offset);
	*p++ = ',';
	p = put_u64(p, ev->rec->len);
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), (FILE *)arg);
}

/* An on|off option's value: 1, 0, or -1 for anything else. */
static int on_off(const char *arg)
{
	return !strcmp(arg, "on") ? 1 : !strcmp(arg, "off") ? 0 : -1;
}

static int parse_target(struct rpl_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct rpl_target_spec *t;
	uint64_t dev;

	if (o->ntargets >= RPL_MAX_TARGETS)
		return -1;
	t = &o->targets[o->ntargets];
	t->dev = -1;
	t->path = arg;
	if (eq && eq > arg) {
		char num[16];
		size_t n = (size_t)(eq - arg);

		if (n < sizeof(num)) {
			memcpy(num, arg, n);
			num[n] = 0;
			if (!cli_parse_uint(num, IST_MAX_FOOTER_DEVICES - 1, &dev)) {
				t->dev = (int)dev;
				t->path = eq + 1;
			}
		}
	}
	if (!*t->path)
		return -1;
	/* one target per device: the later one made the run fail after
	 * the targets were opened (files created), with "target is empty" */
	for (unsigned i = 0; i < o->ntargets; i++)
		if (o->targets[i].dev == t->dev) {
			if (t->dev < 0)
				cli_usage_error(CMD, "--target '%s': the devices without DEV= have "
						"a target already ('%s')", arg, o->targets[i].path);
			else
				cli_usage_error(CMD, "--target '%s': device %d has a target already "
						"('%s')", arg, t->dev, o->targets[i].path);
			return -2;
		}
	o->ntargets++;
	return 0;
}

static void print_pcts_row(const char *name, const struct rpl_pcts *p)
{
	char b[9][24];

	if (!p->count) {
		printf("  %-10s %s\n", name, "-");
		return;
	}
	printf("  %-10s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", name,
	       cli_fmt_ns((double)p->min, b[0], 24), cli_fmt_ns(p->mean, b[1], 24),
	       cli_fmt_ns((double)p->p50, b[2], 24), cli_fmt_ns((double)p->p90, b[3], 24),
	       cli_fmt_ns((double)p->p99, b[4], 24), cli_fmt_ns((double)p->p999, b[5], 24),
	       cli_fmt_ns((double)p->p9999, b[6], 24), cli_fmt_ns((double)p->max, b[7], 24),
	       cli_fmt_ns(p->stddev, b[8], 24));
}

static double rate(uint64_t v, uint64_t ns)
{
	return ns ? (double)v * 1e9 / (double)ns : 0;
}

/* eo: the options as the engine resolved them (closed timing's default
 * learned spin window) */
static void print_summary(const char *trace, const struct rpl_opts *o,
			  const struct rpl_opts *eo, const struct rpl_result *res)
{
	char b1[32], b2[32], b3[32];
	double cpu = (double)(res->cpu_user_ns + res->cpu_sys_ns);

	printf("iostorm replay: %s%s\n", trace, res->interrupted ? "  [INTERRUPTED]" : "");
	printf("timing %s", rpl_timing_name(o->timing));
	if (o->timing == RPL_TIMING_ORIGINAL && o->speed != 1.0)
		printf(" x%.3g", o->speed);
	if (o->timing == RPL_TIMING_RATE)
		printf(" %.0f IOPS", o->rate_iops);
	printf(", iodepth %u, %u worker%s, %s\n", o->iodepth, o->workers,
	       o->workers == 1 ? "" : "s", o->backend == RPL_BACKEND_NULL ? "null back-end" : "io_uring");
	for (unsigned i = 0; i < res->ntargets && o->backend != RPL_BACKEND_NULL; i++) {
		const struct rpl_target_info *t = &res->targets[i];

		printf("target %s (%s, %s, logical block %u)\n", t->path, t->kind,
		       cli_fmt_bytes((double)t->size, b1, sizeof(b1)), t->lbs);
	}
	printf("elapsed %s, %" PRIu64 " I/Os, %.0f IOPS, %.2f MB/s, %" PRIu64 " errors\n",
	       cli_fmt_ns((double)res->elapsed_ns, b1, sizeof(b1)), res->ios,
	       rate(res->ios, res->elapsed_ns), rate(res->bytes, res->elapsed_ns) / 1e6,
	       res->errors);
	if (res->schedule_ns && o->timing != RPL_TIMING_AFAP && o->timing != RPL_TIMING_CLOSED)
		printf("schedule %s (last deadline), run %+.3f%% of it\n",
		       cli_fmt_ns((double)res->schedule_ns, b2, sizeof(b2)),
		       100.0 * ((double)res->elapsed_ns - (double)res->schedule_ns) /
			       (double)res->schedule_ns);
	printf("\n  %-10s %9s %9s %9s %9s %9s\n", "op", "I/Os", "IOPS", "MB/s", "bytes",
	       "errors");
	for (unsigned op = 0; op < IST_OP_COUNT; op++) {
		const struct rpl_op_result *r = &res->op[op];

		if (!r->ios && !r->errors)
			continue;
		printf("  %-10s %9" PRIu64 " %9.0f %9.2f %9s %9" PRIu64 "\n", ist_op_name(op),
		       r->ios, rate(r->ios, res->elapsed_ns), rate(r->bytes, res->elapsed_ns) / 1e6,
		       cli_fmt_bytes((double)r->bytes, b3, sizeof(b3)), r->errors);
	}
	printf("\n  %-10s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "latency", "min", "mean",
	       "p50", "p90", "p99", "p99.9", "p99.99", "max", "stddev");
	for (unsigned op = 0; op < IST_OP_COUNT; op++) {
		const struct rpl_op_result *r = &res->op[op];

		if (!r->ios)
			continue;
		print_pcts_row(ist_op_name(op), &r->lat);
		if (r->rec_lat.count) {
			snprintf(b1, sizeof(b1), " recorded");
			print_pcts_row(b1, &r->rec_lat);
		}
	}
	print_pcts_row("all", &res->lat);
	if (o->timing != RPL_TIMING_AFAP) {
		printf("\n  %-10s (actual issue - deadline)\n", "lateness");
		print_pcts_row("issue", &res->late);
	}
	if (res->txns) {
		printf("\ntransactions %" PRIu64 ", TPS-eq %.1f, streams' sum %.1f\n", res->txns,
		       rate(res->txns, res->elapsed_ns), res->tps_streams);
		print_pcts_row("txn", &res->txn_lat);
		if (res->txn_lat_streams.count && res->txn_lat_streams.count < res->txn_lat.count)
			print_pcts_row(" streams", &res->txn_lat_streams);
		if (o->cpus)
			printf("  cpu queue  %.1f us a transaction for the %u virtual CPU%s (%s)\n",
			       (double)res->cpu_wait_ns / 1e3 / (double)res->txns, o->cpus,
			       o->cpus > 1 ? "s" : "", o->cpu_bursts ? "each burst" : "each gap");
		if (o->wake_cost_auto || o->wake_cost_ns)
			printf("  wake-ups   %" PRIu64 " of the recorded not caused by the replay, "
			       "%.1f ms of CPU off at %.1f us each; %" PRIu64 " kept\n",
			       res->wakes_dropped, (double)res->wake_cpu_dropped_ns / 1e6,
			       (double)res->wake_cost_ns / 1e3, res->wakes_kept);
		if (o->commit_groups)
			printf("  commits    %" PRIu64 " carried by another stream's flush, in %"
			       PRIu64 " group commits\n", res->commits_joined, res->commit_groups);
		if (o->commit_groups && o->think_sched)
			printf("  commits    %" PRIu64 " woken by another's commit, ready after its "
			       "release\n", res->commits_after_release);
		if (o->lock_handover)
			printf("  handover   %" PRIu64 " recorded; %" PRIu64 " lock takes after a wait "
			       "delayed, %.1f us each on average\n", res->handover_samples,
			       res->handovers, res->handovers ? (double)res->handover_ns / 1e3 /
			       (double)res->handovers : 0.0);
		if (o->holder_waits)
			printf("  commits    %" PRIu64 " slept on another's commit in the recording, "
			       "%" PRIu64 " waited for it in the replay\n", res->holder_marked,
			       res->holder_waited);
		if (res->rec_txn_lat.count)
			print_pcts_row(" recorded", &res->rec_txn_lat);
	}
	printf("\ncpu %.3f s user, %.3f s system, %.2f us per I/O\n", res->cpu_user_ns / 1e9,
	       res->cpu_sys_ns / 1e9, res->ios ? cpu / (double)res->ios / 1e3 : 0.0);
	/* the window that spinning covered before deadlines: closed timing
	 * learns it by default, and a replay below the model because of
	 * oversleeps showed nowhere but in the JSON */
	if (o->timing != RPL_TIMING_AFAP && !eo->virtual_clock) {
		if (eo->spin_ns <= 1)
			printf("spin window: none (--spin 0)\n");
		else if (eo->spin_auto)
			printf("spin window: learned, %s to %s (largest oversleep %s)\n",
			       cli_fmt_ns((double)eo->spin_ns, b1, sizeof(b1)),
			       cli_fmt_ns((double)res->wake_margin_max_ns, b2, sizeof(b2)),
			       cli_fmt_ns((double)res->oversleep_max_ns, b3, sizeof(b3)));
		else
			printf("spin window: %s, fixed (largest oversleep %s)\n",
			       cli_fmt_ns((double)eo->spin_ns, b1, sizeof(b1)),
			       cli_fmt_ns((double)res->oversleep_max_ns, b3, sizeof(b3)));
	}
	if (res->skipped_read_only || res->skipped_beyond_end || res->skipped_too_large ||
	    res->realigned || res->wrapped || res->scaled)
		printf("skipped: %" PRIu64 " writes (--read-only), %" PRIu64
		       " beyond a target, %" PRIu64 " too large; realigned %" PRIu64
		       ", wrapped %" PRIu64 ", scaled %" PRIu64 "\n",
		       res->skipped_read_only, res->skipped_beyond_end, res->skipped_too_large,
		       res->realigned, res->wrapped, res->scaled);
	if (res->features[0])
		printf("features: %s\n", res->features);
	if (res->notes[0])
		printf("notes:\n%s", res->notes);
	if (res->errors && res->first_error)
		printf("first error: %s\n", ist_strerror(res->first_error));
	if (res->late_warning)
		printf("WARNING: p99 lateness %s exceeds %s: the target (or this machine) "
		       "could not keep up with the trace\n",
		       cli_fmt_ns((double)res->late.p99, b1, sizeof(b1)),
		       cli_fmt_ns((double)res->late_warn_ns, b2, sizeof(b2)));
}

static void progress_line(rpl_run *r, uint64_t *prev_done, uint64_t *prev_t)
{
	struct rpl_progress p;
	char b1[24], b2[24], b3[24];
	uint64_t iops;

	rpl_run_progress(r, &p);
	iops = p.elapsed_ns > *prev_t ?
		(p.completed - *prev_done) * 1000000000ull / (p.elapsed_ns - *prev_t) : 0;
	*prev_done = p.completed;
	*prev_t = p.elapsed_ns;
	fprintf(stderr, "\r%s  ", cli_fmt_ns((double)p.elapsed_ns, b1, sizeof(b1)));
	if (p.expected)
		fprintf(stderr, "%5.1f%%  ", 100.0 * (double)p.issued / (double)p.expected);
	fprintf(stderr, "%" PRIu64 " IOPS  p99 %s  late p99 %s   ", iops,
		cli_fmt_ns((double)p.last_p99_ns, b2, sizeof(b2)),
		cli_fmt_ns((double)p.last_late_p99_ns, b3, sizeof(b3)));
	fflush(stderr);
}

static char *join_args(int argc, char **argv)
{
	size_t n = 16;
	char *s;

	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	s = malloc(n);
	if (!s)
		return NULL;
	strcpy(s, "iostorm");
	for (int i = 0; i < argc; i++) {
		strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

int cmd_replay(int argc, char **argv)
{
	struct rpl_opts o;
	const char *json = NULL, *csv = NULL, *trace, *lat_log = NULL, *lat_from = NULL;
	struct rpl_lat_lists lf;
	/* --lat-log: written to a new LOG.tmp-PID-N during the run, renamed
	 * into place when the run succeeded (istint_tmpfile_open()); it was
	 * LOG itself, opened with "w": a run that failed truncated, then
	 * removed, a file of that name, and SIGHUP left half a log there */
	struct istint_tmpfile lat_t = { NULL, NULL, NULL };
	struct sigaction sa_int, sa_term;
	int c, quiet = 0, progress = -1, ret, err, timing_set = 0;
	/* given, for the options that only some modes use */
	int speed_set = 0, think_set = 0, null_lat_set = 0, size_set = 0, to_set = 0;
	int commit_groups = -1; /* --commit-groups: -1 not given */
	int holder_waits = -1;  /* --holder-waits: -1 not given */
	int lock_handover = -1; /* --lock-handover: -1 not given */
	int cpu_queue = -1;     /* --cpu-queue: -1 not given, 1 burst, 0 gap */
	struct rpl_source *src = NULL;
	const struct rpl_result *res;
	struct rpl_report_info info;
	struct sigaction sa;
	uint64_t v;
	double d;
	rpl_run *r = NULL;
	char started[32], *cmdline;
	time_t now;

	rpl_opts_init(&o);
	o.interval_ns = 1000000000ull;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "t:q:w:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if ((ret = parse_target(&o, optarg)) == -2)
				return EXIT_USAGE;
			if (ret)
				return cli_usage_error(CMD, "bad --target '%s'", optarg);
			break;
		case O_NULL:
			o.backend = RPL_BACKEND_NULL;
			break;
		case O_LAT_LOG:
			lat_log = optarg;
			break;
		case O_NULL_LAT_FROM:
			lat_from = optarg;
			break;
		case O_NULL_LAT:
			if (cli_parse_duration_ns(optarg, &o.null_latency_ns))
				return cli_usage_error(CMD, "bad --null-latency '%s'", optarg);
			null_lat_set = 1;
			break;
		case O_REMAP:
			if ((ret = rpl_remap_parse(optarg)) < 0)
				return cli_usage_error(CMD, "bad --remap '%s' (strict, wrap, scale)", optarg);
			o.remap = (enum rpl_remap)ret;
			break;
		case O_BUFFERED:
			o.buffered = 1;
			break;
		case O_CREATE:
			o.create = 1;
			break;
		case O_SIZE:
			if (cli_parse_size(optarg, &o.create_size))
				return cli_usage_error(CMD, "bad --size '%s'", optarg);
			size_set = 1;
			break;
		case O_ALLOW_WRITE:
			o.allow_write = 1;
			break;
		case O_FORCE:
			o.force = 1;
			break;
		case O_READ_ONLY:
			o.read_only = 1;
			break;
		case O_DATA:
			if (rpl_data_parse(optarg, &o.data, &o.data_param))
				return cli_usage_error(CMD, "bad --data '%s'%s", optarg,
						       cli_data_hint(optarg));
			break;
		case O_SEED:
			if (cli_parse_uint(optarg, UINT64_MAX, &o.seed))
				return cli_usage_error(CMD, "bad --seed '%s'", optarg);
			break;
		case O_TIMING:
			if ((ret = rpl_timing_parse(optarg)) < 0 || ret == RPL_TIMING_RATE)
				return cli_usage_error(CMD, "bad --timing '%s' (original, afap, closed)",
						       optarg);
			/* after --rate: it was kept, the mode dropped */
			if (o.timing == RPL_TIMING_RATE && ret != RPL_TIMING_ORIGINAL)
				return cli_usage_error(CMD, "--rate and --timing %s exclude each other",
						       rpl_timing_name((enum rpl_timing)ret));
			if (o.timing != RPL_TIMING_RATE)
				o.timing = (enum rpl_timing)ret;
			timing_set = 1;
			break;
		case O_SPEED:
			if (cli_parse_double(optarg, &o.speed) || !(o.speed >= 1e-6 && o.speed <= 1e6))
				return cli_usage_error(CMD, "bad --speed '%s'", optarg);
			speed_set = 1;
			break;
		case O_RATE:
			if (cli_parse_double(optarg, &o.rate_iops) || !(o.rate_iops >= 1e-6 && o.rate_iops <= 1e12))
				return cli_usage_error(CMD, "bad --rate '%s'", optarg);
			if (timing_set && o.timing != RPL_TIMING_ORIGINAL)
				return cli_usage_error(CMD, "--rate and --timing %s exclude each other",
						       rpl_timing_name(o.timing));
			o.timing = RPL_TIMING_RATE;
			break;
		case 'q':
			if (cli_parse_uint(optarg, 65536, &v) || !v)
				return cli_usage_error(CMD, "bad --iodepth '%s'", optarg);
			o.iodepth = (unsigned)v;
			break;
		case O_THINK:
			if (cli_parse_double(optarg, &d) || !(d >= 0 && d <= 1e6))
				return cli_usage_error(CMD, "bad --think-scale '%s'", optarg);
			o.think_scale = d;
			think_set = 1;
			break;
		case O_TXN_PER:
			if (cli_parse_uint(optarg, UINT32_MAX, &v) || !v)
				return cli_usage_error(CMD, "bad --txn-per '%s'", optarg);
			o.txn_per = (unsigned)v;
			break;
		case O_SERIAL_COMMITS:
			o.serial_commits = 1;
			break;
		case O_COMMIT_GROUPS:
			commit_groups = on_off(optarg);
			if (commit_groups < 0)
				return cli_usage_error(CMD, "bad --commit-groups '%s' (on or off)",
						       optarg);
			break;
		case O_HOLDER_WAITS:
			holder_waits = on_off(optarg);
			if (holder_waits < 0)
				return cli_usage_error(CMD, "bad --holder-waits '%s' (on or off)",
						       optarg);
			break;
		case O_LOCK_HANDOVER:
			lock_handover = on_off(optarg);
			if (lock_handover < 0)
				return cli_usage_error(CMD, "bad --lock-handover '%s' (on or off)",
						       optarg);
			break;
		case O_THINK_SCHED:
			o.think_sched = optarg;
			break;
		case O_CPUS:
			if (cli_parse_uint(optarg, 4096, &v) || !v)
				return cli_usage_error(CMD, "bad --cpus '%s' (1..4096)", optarg);
			o.cpus = (unsigned)v;
			break;
		case O_CPU_QUEUE:
			if (!strcmp(optarg, "burst"))
				cpu_queue = 1;
			else if (!strcmp(optarg, "gap"))
				cpu_queue = 0;
			else
				return cli_usage_error(CMD, "bad --cpu-queue '%s' (gap or burst)",
						       optarg);
			break;
		case O_CPU_SCALE:
			if (cli_parse_double(optarg, &d) || !(d > 0) || d > 1000)
				return cli_usage_error(CMD, "bad --cpu-scale '%s' (above 0, at most 1000)",
						       optarg);
			o.cpu_scale = d;
			break;
		case O_WAKE_COST:
			o.wake_cost_auto = !strcmp(optarg, "auto");
			o.wake_cost_ns = 0;
			if (!o.wake_cost_auto &&
			    (cli_parse_duration_ns(optarg, &o.wake_cost_ns) ||
			     o.wake_cost_ns > 1000000000ull))
				return cli_usage_error(CMD, "bad --wake-cost '%s' (auto, or a time "
						       "up to 1s)", optarg);
			break;
		case O_TXN_LATENCY:
			if (!strcmp(optarg, "first"))
				o.txn_latency_cycle = 0;
			else if (!strcmp(optarg, "cycle"))
				o.txn_latency_cycle = 1;
			else
				return cli_usage_error(CMD, "--txn-latency takes first or cycle");
			break;
		case O_FROM:
			if (cli_parse_duration_ns(optarg, &o.from_ns))
				return cli_usage_error(CMD, "bad --from '%s'", optarg);
			break;
		case O_TO:
			if (cli_parse_duration_ns(optarg, &o.to_ns))
				return cli_usage_error(CMD, "bad --to '%s'", optarg);
			to_set = 1;
			break;
		case O_LOOP:
			if (cli_parse_uint(optarg, 1000000, &v) || !v)
				return cli_usage_error(CMD, "bad --loop '%s'", optarg);
			o.loops = (unsigned)v;
			break;
		case O_DURATION:
			if (cli_parse_duration_ns(optarg, &o.duration_ns) || !o.duration_ns)
				return cli_usage_error(CMD, "bad --duration '%s'", optarg);
			break;
		case 'w':
			if (cli_parse_uint(optarg, RPL_MAX_WORKERS, &v) || !v)
				return cli_usage_error(CMD, "bad --workers '%s' (1..%d)", optarg,
						       RPL_MAX_WORKERS);
			o.workers = (unsigned)v;
			break;
		case O_PARTITION:
			if (!strcmp(optarg, "device"))
				o.partition = RPL_PART_DEVICE;
			else if (!strcmp(optarg, "stream"))
				o.partition = RPL_PART_STREAM;
			else
				return cli_usage_error(CMD, "bad --partition '%s' (device, stream)", optarg);
			break;
		case O_SQPOLL:
			o.sqpoll = 1;
			break;
		case O_IOPOLL:
			o.iopoll = 1;
			break;
		case O_REALTIME:
			o.realtime = 1;
			break;
		case O_INLINE:
			if (!strcmp(optarg, "auto"))
				o.inline_io = RPL_INLINE_AUTO;
			else if (!strcmp(optarg, "never"))
				o.inline_io = RPL_INLINE_NEVER;
			else if (!strcmp(optarg, "always"))
				o.inline_io = RPL_INLINE_ALWAYS;
			else
				return cli_usage_error(CMD, "bad --inline '%s' (auto, never, always)", optarg);
			break;
		case O_NO_PIN:
			o.no_pin = 1;
			break;
		case O_PIN:
			o.pin = 1;
			break;
		case O_VIRTUAL:
			o.virtual_clock = 1;
			break;
		case O_SPIN:
			if (!strcmp(optarg, "auto")) {
				o.spin_auto = 1;
				break;
			}
			if (cli_parse_duration_ns(optarg, &o.spin_ns))
				return cli_usage_error(CMD, "bad --spin '%s'", optarg);
			if (!o.spin_ns)
				o.spin_ns = 1;
			break;
		case O_INTERVAL:
			if (cli_parse_duration_ns(optarg, &o.interval_ns) ||
			    (o.interval_ns && o.interval_ns < 1000000))
				return cli_usage_error(CMD, "bad --interval '%s' (at least 1ms)", optarg);
			break;
		case O_JSON:
			json = optarg;
			break;
		case O_CSV:
			csv = optarg;
			break;
		case O_LATE_WARN:
			if (cli_parse_duration_ns(optarg, &o.late_warn_ns) || !o.late_warn_ns)
				return cli_usage_error(CMD, "bad --late-warn '%s'", optarg);
			break;
		case O_NO_PROGRESS:
			progress = 0;
			break;
		case O_QUIET:
			quiet = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option(CMD, argc, argv);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error(CMD, optind == argc ? "no trace given" : "one trace only");
	trace = argv[optind];
	if (o.virtual_clock && o.backend != RPL_BACKEND_NULL)
		return cli_usage_error(CMD, "--virtual-time needs --null");
	/* options that the mode would ignore, silently */
	if (null_lat_set && o.backend != RPL_BACKEND_NULL)
		return cli_usage_error(CMD, "--null-latency needs --null");
	if (lat_from && o.backend != RPL_BACKEND_NULL)
		return cli_usage_error(CMD, "--null-latency-from needs --null");
	if (size_set && !o.create)
		return cli_usage_error(CMD, "--size needs --create");
	if (speed_set && (o.timing == RPL_TIMING_AFAP || o.timing == RPL_TIMING_RATE))
		return cli_usage_error(CMD, "--speed and --%s exclude each other (it scales "
				       "the recorded times of original and closed timing)",
				       o.timing == RPL_TIMING_AFAP ? "timing afap" : "rate");
	if (think_set && o.timing != RPL_TIMING_CLOSED)
		return cli_usage_error(CMD, "--think-scale needs --timing closed");
	if (o.backend != RPL_BACKEND_NULL && !o.ntargets)
		return cli_usage_error(CMD, "no --target (or --null) given");
	/* the null back-end has no targets: they were dropped (as sweep and
	 * precondition refuse them) */
	if (o.backend == RPL_BACKEND_NULL && o.ntargets)
		return cli_usage_error(CMD, "--null and --target exclude each other");
	/* --to 0 is an empty window, not "to the end" (to_ns 0 in the
	 * options): it replayed the whole trace */
	if (to_set && o.to_ns <= o.from_ns)
		return cli_usage_error(CMD, "--to must be after --from");
	if (o.serial_commits && o.timing != RPL_TIMING_CLOSED)
		return cli_usage_error(CMD, "--serial-commits needs --timing closed");
	if (commit_groups >= 0 && !o.serial_commits)
		return cli_usage_error(CMD, "--commit-groups needs --serial-commits");
	o.commit_groups = o.serial_commits && (commit_groups < 0 ? COMMIT_GROUPS_DEFAULT :
					       commit_groups);
	if (o.think_sched && o.timing != RPL_TIMING_CLOSED)
		return cli_usage_error(CMD, "--think-sched needs --timing closed");
	if (holder_waits > 0 && (!o.commit_groups || !o.think_sched))
		return cli_usage_error(CMD, "--holder-waits on needs --commit-groups on and "
				       "--think-sched (the sleeps and who ended them)");
	o.holder_waits = holder_waits > 0;
	if (lock_handover > 0 && (!o.commit_groups || !o.think_sched))
		return cli_usage_error(CMD, "--lock-handover on needs --commit-groups on and "
				       "--think-sched (who was asleep at a release)");
	o.lock_handover = lock_handover > 0;
	if (o.cpus && !o.think_sched)
		return cli_usage_error(CMD, "--cpus needs --think-sched (its on-CPU times)");
	if (o.cpu_scale != 1.0 && !o.cpus)
		return cli_usage_error(CMD, "--cpu-scale needs --cpus");
	if (cpu_queue >= 0 && !o.cpus)
		return cli_usage_error(CMD, "--cpu-queue needs --cpus");
	o.cpu_bursts = o.cpus && cpu_queue != 0; /* burst unless gap is asked for */
	if ((o.wake_cost_auto || o.wake_cost_ns) && !o.cpus)
		return cli_usage_error(CMD, "--wake-cost needs --cpus");
	if (o.serial_commits && o.workers > 1)
		return cli_usage_error(CMD, "--serial-commits needs one worker");
	if (o.timing == RPL_TIMING_CLOSED && o.workers > 1)
		o.partition = RPL_PART_STREAM; /* a stream's I/Os stay together */
	if (o.pin && o.no_pin)
		return cli_usage_error(CMD, "--pin and --no-pin exclude each other");
	if (o.pin && o.backend == RPL_BACKEND_NULL)
		return cli_usage_error(CMD, "--pin needs a --target (the null back-end is not pinned)");
	if (o.iopoll && o.buffered)
		return cli_usage_error(CMD, "--iopoll needs O_DIRECT (drop --buffered)");
	if (progress < 0)
		progress = isatty(STDERR_FILENO);
	{
		/* the results are written when the run ends: over the trace
		 * or a target (--json t.ist replaced the trace), or into a
		 * missing directory, is refused before any I/O */
		const char *in[RPL_MAX_TARGETS + 4];
		size_t n = 0;

		/* --think-sched '' was a usage error, unlike every other name */
		in[0] = trace;
		in[1] = o.think_sched;
		if (cli_check_inputs(in, 2))
			return EXIT_FAIL;
		in[n++] = trace;
		for (unsigned i = 0; i < o.ntargets; i++)
			in[n++] = o.targets[i].path;
		/* the other inputs: a result of the same name would replace them */
		if (o.think_sched)
			in[n++] = o.think_sched;
		if (lat_from)
			in[n++] = lat_from;
		if (cli_check_result(json, in, n))
			return EXIT_FAIL;
		if (json && csv && !strcmp(json, csv))
			return cli_usage_error(CMD, "--json and --csv-intervals name the same file");
		if (cli_check_result(csv, in, n))
			return EXIT_FAIL;
		if (lat_log && ((json && !strcmp(json, lat_log)) || (csv && !strcmp(csv, lat_log)) ||
				(lat_from && !strcmp(lat_from, lat_log))))
			return cli_usage_error(CMD, "--lat-log names a file another option names");
		if (cli_check_result(lat_log, in, n))
			return EXIT_FAIL;
	}
	memset(&lf, 0, sizeof(lf));
	if (lat_from) {
		char why[640];

		/* the file, the line and the reason in one line */
		if (rpl_lat_log_read(&lf, lat_from, why, sizeof(why)) < 0) {
			cli_err("--null-latency-from %s", why);
			return EXIT_FAIL;
		}
		for (unsigned k = 0; k < IST_OP_COUNT; k++) {
			o.null_lat_list[k] = lf.lat[k];
			o.null_lat_count[k] = lf.n[k];
		}
		o.null_lat_dev_list = (const uint64_t *const *)lf.dlat;
		o.null_lat_dev_count = lf.dn;
		o.null_lat_ndev = lf.ndev;
	}
	if (lat_log) {
		err = istint_tmpfile_open(&lat_t, lat_log);
		if (err < 0) {
			cli_err("%s: %s", lat_log, strerror(-err));
			rpl_lat_lists_free(&lf);
			return EXIT_FAIL;
		}
		fputs(RPL_LAT_LOG_HEADER "\n", lat_t.f);
		o.io_cb = lat_log_event;
		o.io_cb_arg = lat_t.f;
	}

	ret = rpl_source_open(&src, trace);
	if (ret < 0) {
		cli_err_source(trace, src, ret);
		rpl_source_close(src);
		ret = EXIT_FAIL;
		goto out;
	}
	/* a cut trace replayed what it had without a word */
	cli_warn_source_no_footer(trace, src);
	ret = rpl_run_new(&r, &o, src);
	if (ret < 0) {
		cli_err("%s", rpl_run_errmsg(r));
		ret = EXIT_FAIL;
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	current_run = r;
	/* the handlers before (the guard of the --lat-log's temporary file)
	 * come back after the run */
	sigaction(SIGINT, &sa, &sa_int);
	sigaction(SIGTERM, &sa, &sa_term);
	now = time(NULL);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	ret = rpl_run_start(r);
	if (ret < 0) {
		cli_err("%s", rpl_run_errmsg(r));
		sigaction(SIGINT, &sa_int, NULL);
		sigaction(SIGTERM, &sa_term, NULL);
		current_run = NULL;
		ret = EXIT_FAIL;
		goto out;
	}
	{
		uint64_t pd = 0, pt = 0;

		while (!rpl_run_wait(r, progress ? 1000 : 200))
			if (progress)
				progress_line(r, &pd, &pt);
		if (progress)
			fputs("\r\033[K", stderr);
	}
	sigaction(SIGINT, &sa_int, NULL);
	sigaction(SIGTERM, &sa_term, NULL);
	current_run = NULL;
	res = rpl_run_result(r, &err);
	if (!res) {
		cli_err("%s", rpl_run_errmsg(r));
		ret = EXIT_FAIL;
		goto out;
	}
	rpl_run_report_info(r, &info);
	cmdline = join_args(argc, argv);
	info.command = cmdline;
	info.started = started;
	ret = EXIT_OK;
	if (json && (err = rpl_report_json(json, &info, res)) < 0) {
		cli_err("%s: %s", json, ist_strerror(err));
		ret = EXIT_FAIL;
	}
	if (csv && (err = rpl_report_csv_intervals(csv, res)) < 0) {
		cli_err("%s: %s", csv, ist_strerror(err));
		ret = EXIT_FAIL;
	}
	if (!quiet)
		print_summary(trace, &o, info.opts, res);
	if (res->interrupted)
		cli_err("interrupted: stopped issuing, drained; report marked interrupted");
	if (lat_from)
		warn_unlisted(lat_from, &lf, res, o.null_latency_ns);
	free(cmdline);
out:
	rpl_run_free(r);
	rpl_lat_lists_free(&lf);
	/* no log of a run that failed; a write that failed (a full file
	 * system) fails the run.  An interrupted run (SIGINT, SIGTERM) keeps
	 * the log of what it completed, as its report does */
	if (lat_t.f && (err = istint_tmpfile_close(&lat_t, ret != EXIT_OK ? -ECANCELED : 0)) < 0) {
		if (ret == EXIT_OK)
			cli_err("%s: %s", lat_log, strerror(-err));
		ret = EXIT_FAIL;
	}
	return ret;
}
