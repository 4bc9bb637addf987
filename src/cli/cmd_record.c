/* SPDX-License-Identifier: MIT */
/* cmd_record.c - `iostorm record`: live block I/O (tracefs) or packet captures. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "capture/pcap_import.h"
#include "capture/trace_rec.h"
#include "capture/sched_rec.h"

#define EXIT_LOSSY 3 /* recorded, but events were lost */
#define BATCH 4096
#define FLUSH_NS 1000000000ull
#define POLL_NS 50000000 /* between reads of the trace buffers */

static volatile sig_atomic_t stop_flag;
static volatile int pcap_stop;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
	pcap_stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iostorm record -d DEV [-d DEV...] -o OUT.ist [options]\n"
		"       iostorm record --pcap IFACE -o OUT.ist [--filter BPF] [options]\n"
		"       iostorm record --from-pcap FILE -o OUT.ist [--filter BPF] [options]\n"
		"       iostorm record --recover SPOOL -o OUT.ist [options]\n"
		"\n"
		"Records block I/O: from the kernel's block tracepoints (as root, on a\n"
		"private tracefs instance), or iSCSI and NBD commands from a network\n"
		"interface or a pcap/pcapng file.  OUT ending in .csv is written as\n"
		"canonical CSV instead of IST.\n"
		"\n"
		"Options:\n"
		"  -d, --device DEV       block device to record (repeatable)\n"
		"  -o, --output OUT       output trace (.ist, or .csv)\n"
		"  -t, --duration S       stop after S (\"10\", \"500ms\", \"2m\")\n"
		"  -n, --max-ios N        stop after N I/Os\n"
		"      --allow-loss       exit 0 even when events were lost\n"
		"      --buffer-size SIZE trace ring buffer per CPU, 4k-4G (default 16M)\n"
		"      --compact          IST output: the smallest file (the writer's\n"
		"                         deflate, VANS and ARITH trials: more CPU\n"
		"                         while recording); by default columns are stored\n"
		"                         plain or ANS-coded, as convert --fast does\n"
		"      --sched FILE       also write to FILE when the streams waited for a\n"
		"                         CPU behind threads that are not streams (from\n"
		"                         the scheduler's tracepoints; replay --think-sched),\n"
		"                         and their time on a CPU with the runtime the\n"
		"                         kernel charged (steal out; interrupts out too\n"
		"                         when the kernel charges them to the thread;\n"
		"                         the tracing's measured cost per switch out)\n"
		"      --sched-comm NAME  with --sched: follow the threads named NAME too\n"
		"                         (the clients, e.g. pgbench; repeatable, up to 8):\n"
		"                         the streams' sleeps they end, with their CPU\n"
		"                         time (for replay --think-sched --cpus)\n"
		"      --trace-clock CLOCK\n"
		"                         the kernel's clock for the block events: mono\n"
		"                         (CLOCK_MONOTONIC), local (sched_clock: cheaper\n"
		"                         for the traced workload; only where the kernel\n"
		"                         holds it stable, as debugfs's sched/debug says;\n"
		"                         the times are still written in CLOCK_MONOTONIC)\n"
		"                         or auto (the default: local if so, else mono);\n"
		"                         not local with --spool (auto: mono); the\n"
		"                         metadata's record.trace_clock says which\n"
		"      --spool            do not decode while recording: move the trace\n"
		"                         buffers' pages whole (splice) to a directory\n"
		"                         beside OUT (OUT.spool-PID-N) and decode them\n"
		"                         with CPU time nobody else wants (SCHED_IDLE),\n"
		"                         catching up at the stop; removed once OUT is\n"
		"                         written, kept (and named) when it fails\n"
		"      --recover SPOOL    decode the spool a killed or failed --spool\n"
		"                         recording left into OUT (reads only its\n"
		"                         files: no tracefs)\n"
		"      --pcap IFACE       capture iSCSI/NBD on a network interface\n"
		"      --from-pcap FILE   decode a pcap/pcapng file\n"
		"      --filter BPF       libpcap filter for --pcap/--from-pcap\n"
		"      --iscsi-port P     iSCSI TCP port (default 3260)\n"
		"      --nbd-port P       NBD TCP port (default 10809)\n"
		"  -q, --quiet            no summary on stderr\n"
		"  -h, --help             this help\n"
		"\n"
		"Exit status: 0 complete, 1 failure, 2 usage error, 3 recorded but\n"
		"events were lost (0 with --allow-loss).\n");
}

/* Where records go: an IST writer opened lazily (so the header carries
 * the process names seen by then; what is learned later goes to the
 * footer) or a CSV file. */
struct sink {
	const char *path;
	ist_header *h;        /* grows during the recording */
	ist_header *written;  /* h as the IST header was written */
	ist_writer *w;
	FILE *csv;
	int is_csv;
	struct ist_record buf[BATCH];
	size_t n;
	uint64_t written_ios;
	uint64_t max_ios;
	uint64_t last_flush_ns;
	int err;
	int compact;            /* --compact: the writer's default effort */
	const char *sched_path; /* --sched */
	const char *sched_comm[8]; /* --sched-comm */
	unsigned nsched_comm;
	sched_rec *sr;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void chown_to_sudo_user(const char *path)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	uint64_t uid, gid;

	if (geteuid() != 0 || !u || !g)
		return;
	if (cli_parse_uint(u, UINT32_MAX, &uid) || cli_parse_uint(g, UINT32_MAX, &gid))
		return;
	if (chown(path, (uid_t)uid, (gid_t)gid) < 0)
		cli_err("%s: cannot give the file to SUDO_UID %s: %s", path, u,
			strerror(errno));
}

static int sink_open(struct sink *s)
{
	/* The fast effort unless --compact: a recorder takes its CPU from
	 * the workload it records, and the deflate and ARITH trials were a
	 * quarter of its CPU at 230,000 I/Os a second, for files 0-8% smaller
	 * (bench/README.md, "Record"); `iostorm convert` compacts later. */
	struct ist_writer_opts wo = {
		.direct = 1,
		.effort = s->compact ? IST_EFFORT_DEFAULT : IST_EFFORT_FAST,
	};
	int ret;

	if (s->w || s->csv)
		return 0;
	if (s->is_csv) {
		s->csv = fopen(s->path, "we");
		if (!s->csv)
			return -errno;
		/* the metadata and device table known now, as '# meta:' and
		 * '# device:' lines before the header row, as convert and
		 * export write them (import and convert read them back) */
		if (ist_csv_write_header(s->csv, s->h) < 0)
			return -EIO;
	} else {
		s->written = ist_header_dup(s->h);
		if (!s->written)
			return -ENOMEM;
		ret = ist_writer_open(&s->w, s->path, s->h, &wo);
		if (ret < 0) {
			s->w = NULL;
			return ret;
		}
	}
	chown_to_sudo_user(s->path);
	return 0;
}

static int sink_write_batch(struct sink *s)
{
	int ret;

	if (!s->n)
		return 0;
	ret = sink_open(s);
	if (ret < 0)
		return ret;
	if (s->csv) {
		char line[IST_CSV_LINE_MAX];

		for (size_t i = 0; i < s->n; i++) {
			int l = ist_csv_format(&s->buf[i], line, sizeof(line));

			if (l < 0)
				return l;
			if (fwrite(line, 1, (size_t)l, s->csv) != (size_t)l)
				return -EIO;
		}
	} else {
		ret = ist_writer_write(s->w, s->buf, s->n);
		if (ret < 0)
			return ret;
	}
	s->n = 0;
	return 0;
}

/* Every second: the records so far reach the disk as a chunk. */
static int sink_tick(struct sink *s, int force)
{
	uint64_t now = mono_ns();
	int ret;

	if (!force && now - s->last_flush_ns < FLUSH_NS)
		return 0;
	s->last_flush_ns = now;
	if (!s->n && !s->w && !s->csv)
		return 0;
	ret = sink_write_batch(s);
	if (ret < 0)
		return ret;
	if (s->w)
		return ist_writer_flush(s->w);
	if (s->csv && fflush(s->csv))
		return -errno;
	return 0;
}

static int pcap_tick(void *ctx)
{
	return sink_tick(ctx, 0);
}

static int sink_emit(void *ctx, const struct ist_record *rec)
{
	struct sink *s = ctx;

	if (s->max_ios && s->written_ios >= s->max_ios) {
		stop_flag = 1;
		pcap_stop = 1;
		return 0;
	}
	s->buf[s->n++] = *rec;
	s->written_ios++;
	if (s->n == BATCH) {
		int ret = sink_write_batch(s);

		if (ret < 0)
			return ret;
	}
	if (s->max_ios && s->written_ios >= s->max_ios) {
		stop_flag = 1;
		pcap_stop = 1;
	}
	return 0;
}

static int name_stream(void *ctx, uint64_t stream, const char *comm)
{
	struct sink *s = ctx;
	char key[48];

	snprintf(key, sizeof(key), "stream.%llu", (unsigned long long)stream);
	if (s->sr && sched_rec_add_pid(s->sr, stream) < 0)
		return -ENOMEM;
	return ist_header_set(s->h, key, comm);
}

/* What was learned after the header was written (process names, session
 * descriptions, devices first seen later) goes to the footer: records
 * already use the new devices' indexes, which follow the header's. */
static int sink_footer_meta(struct sink *s)
{
	unsigned ndev = ist_header_device_count(s->h);

	for (unsigned i = 0; i < ist_header_meta_count(s->h); i++) {
		const char *k, *v, *old;
		int ret;

		ist_header_meta_at(s->h, i, &k, &v);
		old = ist_header_get(s->written, k);
		if (old && !strcmp(old, v))
			continue;
		ret = ist_writer_set_meta(s->w, k, v);
		if (ret < 0)
			return ret;
	}
	/* sizes and block sizes of header devices learned since (a later
	 * READ CAPACITY): device.N.size and device.N.block_size keys */
	for (unsigned i = 0; i < ist_header_device_count(s->written) && i < ndev; i++) {
		const struct ist_device *d = ist_header_device(s->h, i);
		const struct ist_device *o = ist_header_device(s->written, i);
		char key[40], val[24];
		int ret = 0;

		if (d->size != o->size) {
			snprintf(key, sizeof(key), "device.%u.size", i);
			snprintf(val, sizeof(val), "%llu", (unsigned long long)d->size);
			ret = ist_writer_set_meta(s->w, key, val);
		}
		if (ret == 0 && d->block_size != o->block_size) {
			snprintf(key, sizeof(key), "device.%u.block_size", i);
			snprintf(val, sizeof(val), "%u", d->block_size);
			ret = ist_writer_set_meta(s->w, key, val);
		}
		if (ret < 0)
			return ret;
	}
	for (unsigned i = ist_header_device_count(s->written); i < ndev; i++) {
		const struct ist_device *d = ist_header_device(s->h, i);
		int ret = ist_writer_add_device(s->w, d->name, d->size,
						d->block_size);

		if (ret < 0)
			return ret;
	}
	return 0;
}

static int sink_close(struct sink *s)
{
	int ret = sink_write_batch(s);

	if (ret == 0 && !s->w && !s->csv)
		ret = sink_open(s); /* an empty trace is still a trace */
	if (s->csv) {
		if (fclose(s->csv) && ret == 0)
			ret = -errno;
		s->csv = NULL;
	}
	if (s->w) {
		if (ret == 0)
			ret = sink_footer_meta(s);
		if (ret < 0) {
			ist_writer_abort(s->w);
		} else {
			ret = ist_writer_close(s->w);
		}
		s->w = NULL;
	}
	if (ret == 0)
		chown_to_sudo_user(s->path);
	return ret;
}

static void sink_abort(struct sink *s)
{
	if (s->csv) {
		fclose(s->csv);
		unlink(s->path);
	}
	if (s->w)
		ist_writer_abort(s->w);
	s->csv = NULL;
	s->w = NULL;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static const char *err_reason(int err)
{
	return err > -IST_E_BASE ? strerror(-err) : ist_strerror(err);
}

/* --sched: the scheduler's recorder beside the block one. */
static int sched_begin(struct sink *s, size_t buffer_kb)
{
	char err[512];
	int ret;

	if (!s->sched_path)
		return 0;
	ret = sched_rec_open(&s->sr, s->sched_path, buffer_kb, s->sched_comm,
			     s->nsched_comm, err, sizeof(err));
	if (ret < 0) {
		cli_err("%s", err);
		return ret;
	}
	ist_header_set(s->h, "record.sched", s->sched_path);
	return 0;
}

static const char *sched_note(const struct sched_rec_stats *st, int clients)
{
	static char b[256];
	int n = 0;

	b[0] = 0;
	if (clients)
		n = snprintf(b, sizeof(b), ", %llu sleeps ended by a client",
			     (unsigned long long)st->client_waits);
	if (st->kthreads)
		n += snprintf(b + n, sizeof(b) - (size_t)n, ", %llu kernel thread%s not followed",
			      (unsigned long long)st->kthreads, st->kthreads > 1 ? "s" : "");
	if (st->switch_cost_ns)
		n += snprintf(b + n, sizeof(b) - (size_t)n, ", tracing cost %.2f us a switch out",
			      (double)st->switch_cost_ns / 1e3);
	if (st->irq_out)
		n += snprintf(b + n, sizeof(b) - (size_t)n, ", %.3f s of interrupts out of the CPU time",
			      (double)st->irq_ns / 1e9);
	if (st->malformed)
		snprintf(b + n, sizeof(b) - (size_t)n, ", %llu malformed events skipped",
			 (unsigned long long)st->malformed);
	return b;
}

/* The trace of a failed recording is removed (sink_abort): its sidecar
 * stayed, a valid-looking header with part of the waits.  Only a regular
 * file (a sidecar sent to /dev/null or a FIFO is no file of ours). */
static void drop_sidecar(struct sink *s)
{
	struct stat st;

	if (s->sched_path && stat(s->sched_path, &st) == 0 && S_ISREG(st.st_mode))
		unlink(s->sched_path);
}

/* Stops the scheduler's recorder (ret: the block recorder's outcome). */
static int sched_end(struct sink *s, int ret, int quiet)
{
	struct sched_rec_stats st;
	int r2;

	if (!s->sr)
		return ret;
	r2 = ret >= 0 ? sched_rec_finish(s->sr) : 0;
	sched_rec_get_stats(s->sr, &st);
	sched_rec_close(s->sr);
	s->sr = NULL;
	if (ret < 0 || r2 < 0)
		drop_sidecar(s);
	if (r2 < 0)
		cli_err("%s: %s", s->sched_path, err_reason(r2));
	else if (!quiet && ret >= 0)
		fprintf(stderr, "iostorm: %s: %llu run-queue waits%s from %llu scheduler events, "
			"%llu overrun\n", s->sched_path, (unsigned long long)st.intervals,
			sched_note(&st, s->nsched_comm != 0),
			(unsigned long long)st.events, (unsigned long long)st.overruns);
	return ret < 0 ? ret : r2;
}

/* --spool: a new directory beside the output, OUT.spool-PID-N. */
static int spool_mkdir(const char *out, char *dir, size_t size)
{
	for (unsigned n = 0; n < 1000; n++) {
		int l = snprintf(dir, size, "%s.spool-%ld-%u", out, (long)getpid(), n);

		if (l < 0 || (size_t)l >= size)
			return -ENAMETOOLONG;
		if (mkdir(dir, 0700) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Through sudo, the spool belongs to the invoking user as the output
 * does: a kept one can be decoded without root. */
static void spool_chown(const char *dir, int ncpu)
{
	char path[4200];

	chown_to_sudo_user(dir);
	snprintf(path, sizeof(path), "%s/meta", dir);
	chown_to_sudo_user(path);
	for (int c = 0; c < ncpu; c++) {
		snprintf(path, sizeof(path), "%s/cpu%d", dir, c);
		if (access(path, F_OK) == 0)
			chown_to_sudo_user(path);
	}
}

/* The spool's end: removed once the trace is written; kept (and its
 * decoding command named) when the recording failed with something in
 * it, since it then holds what the trace does not. */
static void spool_end(const char *dir, int ncpu, uint64_t spooled, int failed,
		      const char *out)
{
	int ret;

	if (!dir[0])
		return;
	if (failed && spooled) {
		cli_err("spool kept: %s (iostorm record --recover %s -o %s decodes it)",
			dir, dir, out);
		return;
	}
	ret = cap_rec_spool_remove(dir, ncpu);
	if (ret < 0)
		cli_err("%s: cannot remove the spool: %s", dir, strerror(-ret));
}

/* The summary's words on the requests that move no data (not lost, not
 * recorded): said when there were any, so that none goes uncounted. */
static void skipped_text(const struct cap_rec_stats *st, char *buf, size_t size)
{
	buf[0] = '\0';
	if (st->zone_cmds || st->driver_cmds)
		snprintf(buf, size, ", %llu zone commands and %llu driver-private "
			 "requests without data (not recorded)",
			 (unsigned long long)st->zone_cmds,
			 (unsigned long long)st->driver_cmds);
}

/* A block recording's exit: EXIT_LOSSY when events were lost or left
 * unmatched and --allow-loss was not given. */
static int lossy_exit(const struct sink *s, uint64_t lost, int allow_loss)
{
	if (lost && !allow_loss) {
		cli_err("%s: capture incomplete: %llu events lost or unmatched (--allow-loss accepts it)",
			s->path, (unsigned long long)lost);
		return EXIT_LOSSY;
	}
	return EXIT_OK;
}

static int record_tracefs(struct sink *s, const char **devs, unsigned ndev,
			  uint64_t duration_ns, uint64_t buffer_bytes,
			  int allow_loss, int quiet, int spool, int trace_clock)
{
	struct cap_rec_opts o = { .devs = devs, .ndev = ndev, .trace_clock = trace_clock };
	struct cap_rec_stats st;
	char err[512], b1[32], dir[4096] = "";
	cap_rec *r;
	uint64_t start, lost, spooled = 0;
	int ret, lossy, ncpu = 0;


	if (geteuid() != 0) {
		cli_err("record: recording block events needs root (CAP_SYS_ADMIN to use tracefs); try sudo");
		return EXIT_FAIL;
	}
	o.buffer_kb = buffer_bytes / 1024;
	install_signals();
	ret = cap_rec_open(&r, &o, s->h, err, sizeof(err));
	if (ret < 0) {
		cli_err("%s", err);
		return EXIT_FAIL;
	}
	ist_header_set(s->h, "command", "iostorm record");
	if (sched_begin(s, o.buffer_kb) < 0) {
		cap_rec_close(r);
		return EXIT_FAIL;
	}
	ncpu = cap_rec_ncpu(r);
	if (spool) {
		ret = spool_mkdir(s->path, dir, sizeof(dir));
		if (ret < 0) {
			cli_err("%s: cannot make a spool directory beside it: %s",
				s->path, strerror(-ret));
			cap_rec_close(r);
			return EXIT_FAIL;
		}
		ret = cap_rec_spool(r, dir, err, sizeof(err));
		if (ret < 0) {
			cli_err("%s", err);
			cap_rec_close(r);
			spool_end(dir, ncpu, 0, 1, s->path);
			return EXIT_FAIL;
		}
	}
	ret = cap_rec_start(r);
	if (ret >= 0 && s->sr)
		ret = sched_rec_start(s->sr, cap_rec_t0(r));
	if (ret < 0) {
		cli_err("record: cannot start tracing: %s", err_reason(ret));
		sched_end(s, ret, quiet);
		cap_rec_close(r);
		spool_end(dir, ncpu, 0, 1, s->path);
		return EXIT_FAIL;
	}
	start = mono_ns();
	s->last_flush_ns = start;
	if (spool) {
		cap_rec_spool_stop_watch(r, &stop_flag, duration_ns ? start + duration_ns : 0);
		spool_chown(dir, ncpu);
	}
	ret = 0;
	while (!stop_flag) {
		int n = cap_rec_poll(r, sink_emit, name_stream, s);

		if (n >= 0 && s->sr) {
			int m = sched_rec_poll(s->sr);

			n = m < 0 ? m : n + m;
		}
		if (n < 0) {
			ret = n;
			break;
		}
		if (duration_ns && mono_ns() - start >= duration_ns)
			break;
		ret = sink_tick(s, 0);
		if (ret < 0)
			break;
		if (!cap_rec_behind(r)) {
			/* The ring buffers absorb seconds of events: waking
			 * up rarely keeps the recorder off the CPUs it
			 * measures; each wake-up reads every buffer empty
			 * (in rounds of a few MB), so the interval bounds
			 * the latency, not the rate it keeps up with. */
			struct timespec ts = { 0, POLL_NS };

			nanosleep(&ts, NULL);
		}
	}
	if (ret >= 0)
		ret = cap_rec_finish(r, sink_emit, name_stream, s);
	ret = sched_end(s, ret, quiet);
	cap_rec_get_stats(r, &st);
	if (spool)
		spooled = cap_rec_spooled(r);
	cap_rec_close(r);
	if (ret < 0) {
		cli_err("%s: recording failed: %s", s->path, err_reason(ret));
		sink_abort(s);
		spool_end(dir, ncpu, spooled, 1, s->path);
		return EXIT_FAIL;
	}
	ret = sink_close(s);
	spool_end(dir, ncpu, spooled, ret < 0, s->path);
	if (ret < 0) {
		cli_err("%s: %s", s->path, err_reason(ret));
		drop_sidecar(s);
		return EXIT_FAIL;
	}
	if (st.clock_unstable)
		cli_err("%s: warning: the kernel found sched_clock unstable in %llu of "
			"the once-a-second checks of the local trace clock: times of "
			"events on different CPUs may disagree (--trace-clock mono "
			"does not depend on it)", s->path,
			(unsigned long long)st.clock_unstable);
	lost = st.overruns + st.missed + st.match.evicted +
	       st.match.no_completion;
	lossy = lost != 0;
	if (!quiet) {
		char skipped[128];

		skipped_text(&st, skipped, sizeof(skipped));
		fprintf(stderr,
			"iostorm: recorded %llu I/Os in %s (%llu events): "
			"%llu overrun, %llu missed, %llu without completion, "
			"%llu evicted, %llu completions without issue, "
			"%llu issues and %llu completions after the stop "
			"(not recorded)%s%s\n",
			(unsigned long long)s->written_ios,
			cli_fmt_ns((double)(mono_ns() - start), b1, sizeof(b1)),
			(unsigned long long)st.events,
			(unsigned long long)(st.overruns),
			(unsigned long long)st.missed,
			(unsigned long long)st.match.no_completion,
			(unsigned long long)st.match.evicted,
			(unsigned long long)st.match.orphan_completions,
			(unsigned long long)st.late_issues,
			(unsigned long long)st.match.after_stop, skipped,
			lossy ? "; INCOMPLETE" : "; complete");
	}
	return lossy_exit(s, lost, allow_loss);
}

/* --recover SPOOL: the spool of a killed or failed --spool recording
 * decoded into the sink (the spool is left as it is). */
static int record_recover(struct sink *s, const char *dir, int allow_loss,
			  int quiet)
{
	struct cap_rec_stats st;
	char err[512];
	cap_rec *r;
	uint64_t lost, tail, spooled;
	int ret, lossy;

	/* No handlers: SIGINT ends a long decoding as it ends any command
	 * (the spool stays; the output is what was written, no footer). */
	ret = cap_rec_recover(&r, dir, s->h, err, sizeof(err));
	if (ret < 0) {
		cli_err("%s", err);
		return EXIT_FAIL;
	}
	ist_header_set(s->h, "command", "iostorm record");
	s->last_flush_ns = mono_ns();
	ret = cap_rec_finish(r, sink_emit, name_stream, s);
	cap_rec_get_stats(r, &st);
	tail = cap_rec_spool_tail(r);
	spooled = cap_rec_spooled(r);
	cap_rec_close(r);
	if (ret < 0) {
		cli_err("%s: decoding %s failed: %s", s->path, dir, err_reason(ret));
		sink_abort(s);
		return EXIT_FAIL;
	}
	ret = sink_close(s);
	if (ret < 0) {
		cli_err("%s: %s", s->path, err_reason(ret));
		return EXIT_FAIL;
	}
	/* The kernel's overrun counters went with the recorder; an overrun
	 * shows as missed events in the next sub-buffer, counted here. */
	lost = st.missed + st.match.evicted + st.match.no_completion +
	       (tail != 0);
	lossy = lost != 0;
	if (!quiet) {
		char skipped[128];

		skipped_text(&st, skipped, sizeof(skipped));
		fprintf(stderr,
			"iostorm: recovered %llu I/Os from %s (%llu events in %llu bytes): "
			"%llu missed, %llu without completion, %llu evicted, "
			"%llu completions without issue, %llu bytes of an unfinished "
			"sub-buffer ignored%s%s\n",
			(unsigned long long)s->written_ios, dir,
			(unsigned long long)st.events, (unsigned long long)spooled,
			(unsigned long long)st.missed,
			(unsigned long long)st.match.no_completion,
			(unsigned long long)st.match.evicted,
			(unsigned long long)st.match.orphan_completions,
			(unsigned long long)tail, skipped,
			lossy ? "; INCOMPLETE" : "; complete");
	}
	return lossy_exit(s, lost, allow_loss);
}

static int record_pcap(struct sink *s, const char *iface, const char *file,
		       struct cap_pcap_opts *po, int allow_loss, int quiet)
{
	struct cap_pcap_stats st;
	char err[512];
	int ret, lossy;
	uint64_t lost;

	memset(&st, 0, sizeof(st));
	po->stop = &pcap_stop;
	if (iface) {
		po->tick = pcap_tick;
		po->tick_ctx = s;
	}
	install_signals();
	s->last_flush_ns = mono_ns();
	if (file)
		ret = cap_pcap_import(file, po, s->h, sink_emit, s, &st, err,
				      sizeof(err));
	else
		ret = cap_pcap_live(iface, po, s->h, sink_emit, s, &st, err,
				    sizeof(err));
	if (ret < 0) {
		cli_err("%s", err);
		sink_abort(s);
		return EXIT_FAIL;
	}
	ret = sink_close(s);
	if (ret < 0) {
		cli_err("%s: %s", s->path, err_reason(ret));
		return EXIT_FAIL;
	}
	lost = st.gaps + st.kernel_drops + st.unmatched_commands;
	lossy = lost != 0;
	if (!quiet)
		fprintf(stderr,
			"iostorm: %llu I/Os from %llu packets (%llu connections): "
			"%llu iSCSI PDUs, %llu NBD messages, %llu truncated packets "
			"(%llu bytes missing), %llu gaps, %llu resyncs, %llu bytes "
			"undecoded, %llu without response, %llu responses without "
			"command, %llu other commands%s\n",
			(unsigned long long)s->written_ios,
			(unsigned long long)st.packets,
			(unsigned long long)st.connections,
			(unsigned long long)st.iscsi_pdus,
			(unsigned long long)st.nbd_messages,
			(unsigned long long)st.truncated,
			(unsigned long long)st.missing_bytes,
			(unsigned long long)st.gaps,
			(unsigned long long)st.resyncs,
			(unsigned long long)st.undecoded_bytes,
			(unsigned long long)st.unmatched_commands,
			(unsigned long long)st.unmatched_responses,
			(unsigned long long)st.other_commands,
			lossy ? "; INCOMPLETE" : "; complete");
	/* an empty trace said "complete" and nothing else: the ports
	 * (a target on 3261) or the filter are the usual reason */
	if (!s->written_ios)
		cli_err("%s: warning: no iSCSI or NBD I/O on TCP ports %u and %u in %llu packets "
			"(see --iscsi-port, --nbd-port, --filter)", file ? file : iface,
			po->iscsi_port ? po->iscsi_port : 3260, po->nbd_port ? po->nbd_port : 10809,
			(unsigned long long)st.packets);
	if (lossy && !allow_loss) {
		cli_err("%s: capture incomplete: %llu gaps, drops or unanswered commands (--allow-loss accepts it)",
			s->path, (unsigned long long)lost);
		return EXIT_LOSSY;
	}
	return EXIT_OK;
}

/*
 * What record writes (the trace, the --sched sidecar) is written in place,
 * as it is recorded: a block device there was overwritten with the trace
 * (no consent asked, whatever it held), and an input (--from-pcap FILE, the
 * trace for the sidecar) was truncated and replaced.  Refused (one line,
 * -1); FIFOs and character devices stay allowed (nothing is destroyed).
 */
/* path with its directory resolved (the file itself need not exist). */
static void canonical(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	char dir[4096], *r;

	if (!slash) {
		r = realpath(".", NULL);
		snprintf(buf, size, "%s/%s", r ? r : ".", path);
	} else {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		r = realpath(slash == path ? "/" : dir, NULL);
		snprintf(buf, size, "%s/%s", r ? r : dir, slash + 1);
	}
	free(r);
}

static int check_written(const char *path, const char *const *inputs, size_t n)
{
	char a[8192], b[8192];
	struct stat so, si;

	canonical(path, a, sizeof(a));
	for (size_t i = 0; i < n; i++) {
		if (inputs[i])
			canonical(inputs[i], b, sizeof(b));
		if (inputs[i] && !strcmp(a, b)) {
			cli_err("%s: is also an input (it would be replaced)", path);
			return -1;
		}
	}
	if (stat(path, &so) < 0)
		return 0;
	if (S_ISBLK(so.st_mode)) {
		cli_err("%s: refused: a block device (record writes a file; the "
			"device's data would be overwritten)", path);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (inputs[i] && stat(inputs[i], &si) == 0 &&
		    si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
			cli_err("%s: is also an input (it would be replaced)", path);
			return -1;
		}
	return 0;
}

enum {
	OPT_ALLOW_LOSS = 256, OPT_BUFFER, OPT_PCAP, OPT_FROM_PCAP, OPT_FILTER,
	OPT_ISCSI_PORT, OPT_NBD_PORT, OPT_SCHED, OPT_SCHED_COMM, OPT_COMPACT,
	OPT_SPOOL, OPT_RECOVER, OPT_TRACE_CLOCK,
};

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 't' },
		{ "max-ios", required_argument, NULL, 'n' },
		{ "allow-loss", no_argument, NULL, OPT_ALLOW_LOSS },
		{ "buffer-size", required_argument, NULL, OPT_BUFFER },
		{ "compact", no_argument, NULL, OPT_COMPACT },
		{ "pcap", required_argument, NULL, OPT_PCAP },
		{ "from-pcap", required_argument, NULL, OPT_FROM_PCAP },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "iscsi-port", required_argument, NULL, OPT_ISCSI_PORT },
		{ "nbd-port", required_argument, NULL, OPT_NBD_PORT },
		{ "sched", required_argument, NULL, OPT_SCHED },
		{ "sched-comm", required_argument, NULL, OPT_SCHED_COMM },
		{ "spool", no_argument, NULL, OPT_SPOOL },
		{ "trace-clock", required_argument, NULL, OPT_TRACE_CLOCK },
		{ "recover", required_argument, NULL, OPT_RECOVER },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *devs[64];
	unsigned ndev = 0;
	const char *out = NULL, *iface = NULL, *file = NULL, *sched = NULL;
	const char *recover = NULL;
	const char *comms[8];
	unsigned ncomm = 0;
	uint64_t duration = 0, max_ios = 0, buffer = 16ull << 20, v;
	struct cap_pcap_opts po;
	int allow_loss = 0, quiet = 0, compact = 0, spool = 0, c, ret;
	int trace_clock = -1; /* CAP_CLOCK_*, -1: not given (auto) */
	struct sink *s;
	size_t ol;

	memset(&po, 0, sizeof(po));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:o:t:n:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (ndev == 64)
				return cli_usage_error("record", "at most 64 devices");
			devs[ndev++] = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 't':
			if (cli_parse_duration_ns(optarg, &duration) || !duration)
				return cli_usage_error("record", "bad --duration '%s'", optarg);
			break;
		case 'n':
			if (cli_parse_uint(optarg, UINT64_MAX, &max_ios) || !max_ios)
				return cli_usage_error("record", "bad --max-ios '%s'", optarg);
			break;
		case OPT_ALLOW_LOSS:
			allow_loss = 1;
			break;
		case OPT_COMPACT:
			compact = 1;
			break;
		case OPT_SPOOL:
			spool = 1;
			break;
		case OPT_TRACE_CLOCK:
			if (!strcmp(optarg, "mono"))
				trace_clock = CAP_CLOCK_MONO;
			else if (!strcmp(optarg, "local"))
				trace_clock = CAP_CLOCK_LOCAL;
			else if (!strcmp(optarg, "auto"))
				trace_clock = CAP_CLOCK_AUTO;
			else
				return cli_usage_error("record", "bad --trace-clock '%s' (mono, local or auto)",
						       optarg);
			break;
		case OPT_RECOVER:
			recover = optarg;
			break;
		case OPT_BUFFER:
			if (cli_parse_size(optarg, &buffer) || buffer < 4096 ||
			    buffer > (4ull << 30))
				return cli_usage_error("record", "bad --buffer-size '%s' (4k to 4G)", optarg);
			break;
		case OPT_PCAP:
			iface = optarg;
			break;
		case OPT_FROM_PCAP:
			file = optarg;
			break;
		case OPT_FILTER:
			po.filter = optarg;
			break;
		case OPT_SCHED:
			sched = optarg;
			break;
		case OPT_SCHED_COMM:
			if (!*optarg || strlen(optarg) > 15)
				return cli_usage_error("record", "bad --sched-comm '%s' (a command "
						       "name of 1 to 15 bytes)", optarg);
			if (ncomm == 8)
				return cli_usage_error("record", "at most 8 --sched-comm names");
			comms[ncomm++] = optarg;
			break;
		case OPT_ISCSI_PORT:
		case OPT_NBD_PORT:
			if (cli_parse_uint(optarg, 65535, &v) || !v)
				return cli_usage_error("record", "bad port '%s'", optarg);
			if (c == OPT_ISCSI_PORT)
				po.iscsi_port = (uint16_t)v;
			else
				po.nbd_port = (uint16_t)v;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case ':':
			return cli_usage_error("record", "option '%s' needs a value",
					       argv[optind - 1]);
		default:
			return cli_usage_error("record", "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("record", "unexpected argument '%s'", argv[optind]);
	if (!out)
		return cli_usage_error("record", "no output: -o OUT.ist");
	/* '-' is standard output for the other commands: record wrote a
	 * file named '-' in the current directory */
	if (!strcmp(out, "-"))
		return cli_usage_error("record", "-o -: record writes a file (its chunks reach "
				       "the disk as it records), not standard output");
	if ((ndev != 0) + (iface != NULL) + (file != NULL) + (recover != NULL) != 1)
		return cli_usage_error("record", "give devices (-d), --pcap IFACE, --from-pcap FILE or --recover SPOOL (one of them)");
	if (spool && !ndev)
		return cli_usage_error("record", "--spool is for live block recording (-d)");
	if (trace_clock >= 0 && !ndev)
		return cli_usage_error("record", "--trace-clock is for live block recording (-d)");
	if (spool && trace_clock == CAP_CLOCK_LOCAL)
		return cli_usage_error("record", "--trace-clock local and --spool do not go together (the spool's times are mono; auto picks mono with --spool)");
	if (spool && trace_clock == CAP_CLOCK_AUTO)
		trace_clock = CAP_CLOCK_MONO;
	if (trace_clock < 0)
		trace_clock = spool ? CAP_CLOCK_MONO : CAP_CLOCK_AUTO;
	if (spool && sched)
		return cli_usage_error("record", "--spool and --sched do not go together (the scheduler's events are decoded while recording)");
	if (recover && (duration || sched))
		return cli_usage_error("record", "--recover takes no --duration or --sched");
	if (file && duration)
		return cli_usage_error("record", "--duration is for live recording");
	if (po.filter && ndev)
		return cli_usage_error("record", "--filter is for --pcap/--from-pcap");
	if (sched && !ndev)
		return cli_usage_error("record", "--sched is for live block recording (-d)");
	if (ncomm && !sched)
		return cli_usage_error("record", "--sched-comm needs --sched FILE");
	if (sched) {
		/* by any name (./x.ist): both wrote one file */
		char a[8192], b[8192];

		canonical(sched, a, sizeof(a));
		canonical(out, b, sizeof(b));
		if (!strcmp(a, b))
			return cli_usage_error("record", "--sched FILE must not be the output");
	}
	ol = strlen(out);
	/* as convert --fast: an option that would do nothing is refused */
	if (compact && ol > 4 && !strcmp(out + ol - 4, ".csv"))
		return cli_usage_error("record", "--compact applies to an IST output (OUT is CSV)");
	/* an empty name ('' from an unset shell variable) in the words of
	 * every command, before any work: -o '' was ": Invalid argument",
	 * --from-pcap '' ": : No such file or directory", --recover '' and
	 * --sched '' usage errors unlike every other command's */
	{
		const char *in[] = { file, recover };

		if (cli_check_inputs(in, 2))
			return EXIT_FAIL;
		if (!*out || (sched && !*sched)) {
			cli_err("'': an empty output file name");
			return EXIT_FAIL;
		}
		for (unsigned i = 0; i < ndev; i++)
			if (!*devs[i]) {
				cli_err("'': an empty device name");
				return EXIT_FAIL;
			}
		if (iface && !*iface) {
			cli_err("'': an empty interface name");
			return EXIT_FAIL;
		}
	}
	{
		const char *in = file ? file : recover;

		if (check_written(out, &in, 1) || (sched && check_written(sched, &in, 1)))
			return EXIT_FAIL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return EXIT_FAIL;
	s->path = out;
	s->max_ios = max_ios;
	s->compact = compact;
	s->sched_path = sched;
	memcpy(s->sched_comm, comms, ncomm * sizeof(*comms));
	s->nsched_comm = ncomm;
	s->is_csv = ol > 4 && !strcmp(out + ol - 4, ".csv");
	s->h = ist_header_new();
	if (!s->h) {
		free(s);
		return EXIT_FAIL;
	}
	if (ndev) {
		ret = record_tracefs(s, devs, ndev, duration, buffer, allow_loss,
				     quiet, spool, trace_clock);
	} else if (recover) {
		ret = record_recover(s, recover, allow_loss, quiet);
	} else {
		po.duration_ns = duration;
		po.max_ios = max_ios;
		ret = record_pcap(s, iface, file, &po, allow_loss, quiet);
	}
	ist_header_free(s->h);
	ist_header_free(s->written);
	free(s);
	return ret;
}
