/* SPDX-License-Identifier: MIT */
/* sched_rec.c - run-queue waits of the recorded streams (record --sched). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "iostorm.h"
#include "capture/sched_rec.h"
#include "capture/trace_rec.h"

#ifdef HAVE_TRACEFS

#include <traceevent/event-parse.h>
#include <tracefs/tracefs.h>

#include "capture/rb_page.h"

#define SLACK_NS 2000000ull   /* events committed late on a CPU */
#define MAX_PIDS 65536
#define PAGES_PER_ROUND 512

/* In this order at the same time stamp: a waking before its wakeup, a
 * task's runtime before its switch away; an interrupt's entry and exit
 * (hard or soft). */
enum { SE_WAKING, SE_WAKEUP, SE_RUNTIME, SE_SWITCH, SE_IRQ_IN, SE_IRQ_OUT };

struct sched_ev {
	uint64_t ts;
	int32_t pid, next;    /* switch: prev and next; wakeup, waking: pid */
	int32_t waker;        /* waking: the client that woke pid */
	uint64_t runtime;     /* runtime: ns of CPU the kernel charged pid */
	int kind;
	int runnable;         /* switch: prev stays runnable (preempted) */
	int cpu;
};

/* A CPU's latest switches: who ran when (foreign: not a stream, not idle) */
#define HIST 1024
struct sched_hist {
	uint64_t ts[HIST];
	unsigned char foreign[HIST];
	unsigned head, n;
};

struct sched_cpu {
	struct tracefs_cpu *tcpu;
	void *page;
	size_t page_size;
	uint64_t drained_ns;
	struct sched_hist h;
	int32_t cur;          /* the thread on it (its latest switch; -1) */
	unsigned irq_depth;   /* interrupts (hard, soft) entered, not left */
	uint64_t irq_since;   /* the outermost one's entry */
};

struct sched_pid {
	uint32_t pid;         /* 0: free slot */
	int client;           /* a client (--sched-comm), not a stream */
	uint64_t since;       /* runnable since (0: not runnable) */
	uint64_t on_since;    /* on a CPU since (0: not running) */
	uint64_t asleep;      /* stream: asleep since (0: not asleep) */
	uint64_t acc;         /* client: on-CPU time since its last wake-up
				 of a sleeping stream */
	uint64_t rt;          /* stream: runtime charged since on_since */
	uint64_t rt_last;     /* runtime charged up to then (or on_since) */
	uint64_t owed;        /* client: wall time already given to a
				 wake-up, to take off its next runtime */
	uint64_t irq;         /* stream: interrupt time since on_since;
				 client: not yet taken off its runtime */
};

#define MAX_COMMS 8
#define COMM_LEN 16

struct sched_rec {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	int id_switch, id_wakeup, id_waking, id_runtime;
	int id_irq[4];        /* irq_handler_entry, _exit, softirq_entry, _exit */
	int irq_out;          /* interrupt time taken out of the runtime */
	uint64_t sw_cost;     /* the tracing's CPU cost per context switch
				 in the traced threads (measured at open) */
	int off_rt_pid, off_rt_runtime;
	int off_prev_pid, off_prev_state, len_prev_state, off_next_pid, off_pid;
	int off_prev_comm, off_next_comm, off_waking_pid, off_waker;
	/* bytes an event must have for the fields read (from the formats) */
	uint32_t need_switch, need_wakeup, need_waking, need_runtime;
	char comm[MAX_COMMS][COMM_LEN]; /* clients' command names */
	int ncomm;
	struct sched_cpu *cpu;
	int ncpu;
	struct sched_ev *held;
	size_t nheld, held_cap;
	struct sched_pid *pids;
	size_t pid_cap, npids;
	FILE *out;
	uint64_t t0;
	int started;
	struct sched_rec_stats st;
};

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int field(struct tep_event *e, const char *name, int *len)
{
	struct tep_format_field *f = tep_find_field(e, name);

	if (!f)
		return -1;
	if (len)
		*len = f->size;
	return f->offset;
}

static struct tep_event *load_sys_event(struct tep_handle *tep, const char *sys,
				       const char *name)
{
	int size = 0;
	char *fmt = tracefs_event_file_read(NULL, sys, name, "format", &size);

	if (fmt && size > 0)
		tep_parse_event(tep, fmt, (size_t)size, sys);
	free(fmt);
	return tep_find_event_by_name(tep, sys, name);
}

static struct tep_event *load_event(struct tep_handle *tep, const char *name)
{
	return load_sys_event(tep, "sched", name);
}

static int common_field(struct tep_event *e, const char *name, int *len)
{
	struct tep_format_field *f = tep_find_common_field(e, name);

	if (!f)
		return -1;
	if (len)
		*len = f->size;
	return f->offset;
}

/* An event must have off + size bytes for a field read at off. */
static void need(uint32_t *n, int off, int size)
{
	if ((uint32_t)(off + size) > *n)
		*n = (uint32_t)(off + size);
}

/* --sched-comm: sched_waking, in the waker's context (sched_wakeup may be
 * traced on the wakee's CPU), names the client that woke a stream. */
static int client_layouts(sched_rec *s, struct tep_event *sw, char *err, size_t errlen)
{
	struct tep_event *wg = load_event(s->tep, "sched_waking");
	int lp = 0, ln = 0, lw = 0;

	s->id_waking = -1;
	if (!s->ncomm)
		return 0;
	if (!wg) {
		snprintf(err, errlen, "tracefs has no sched/sched_waking event (for --sched-comm)");
		return -ENOENT;
	}
	s->id_waking = wg->id;
	s->off_prev_comm = field(sw, "prev_comm", &lp);
	s->off_next_comm = field(sw, "next_comm", &ln);
	s->off_waking_pid = field(wg, "pid", NULL);
	s->off_waker = common_field(wg, "common_pid", &lw);
	if (s->off_prev_comm < 0 || s->off_next_comm < 0 || s->off_waking_pid < 0 ||
	    s->off_waker < 0 || lp != COMM_LEN || ln != COMM_LEN || lw != 4) {
		snprintf(err, errlen, "sched/sched_switch or sched_waking has an unexpected format");
		return -EPROTO;
	}
	need(&s->need_switch, s->off_prev_comm, COMM_LEN);
	need(&s->need_switch, s->off_next_comm, COMM_LEN);
	need(&s->need_waking, s->off_waking_pid, 4);
	need(&s->need_waking, s->off_waker, 4);
	return 0;
}

static int layouts(sched_rec *s, char *err, size_t errlen)
{
	struct tep_event *sw, *wk;

	s->tep = tep_alloc();
	if (!s->tep)
		return -ENOMEM;
	sw = load_event(s->tep, "sched_switch");
	wk = load_event(s->tep, "sched_wakeup");
	if (!sw || !wk) {
		snprintf(err, errlen, "tracefs has no sched/sched_switch or sched/sched_wakeup event");
		return -ENOENT;
	}
	s->id_switch = sw->id;
	s->id_wakeup = wk->id;
	s->off_prev_pid = field(sw, "prev_pid", NULL);
	s->off_prev_state = field(sw, "prev_state", &s->len_prev_state);
	s->off_next_pid = field(sw, "next_pid", NULL);
	s->off_pid = field(wk, "pid", NULL);
	if (s->off_prev_pid < 0 || s->off_prev_state < 0 || s->off_next_pid < 0 ||
	    s->off_pid < 0 || s->len_prev_state < 1 || s->len_prev_state > 8) {
		snprintf(err, errlen, "sched/sched_switch or sched_wakeup has an unexpected format");
		return -EPROTO;
	}
	need(&s->need_switch, 0, 2);
	need(&s->need_switch, s->off_prev_pid, 4);
	need(&s->need_switch, s->off_next_pid, 4);
	need(&s->need_switch, s->off_prev_state, s->len_prev_state);
	need(&s->need_wakeup, 0, 2);
	need(&s->need_wakeup, s->off_pid, 4);
	need(&s->need_waking, 0, 2);
	return client_layouts(s, sw, err, errlen);
}

/*
 * sched_stat_runtime: the CPU time the kernel charges a task at each
 * update of its runtime (ticks, its switches, wake-ups on its CPU), from
 * the run queue's task clock, which leaves out the time the hypervisor
 * stole from the CPU (CONFIG_PARAVIRT_TIME_ACCOUNTING) and IRQ time
 * (CONFIG_IRQ_TIME_ACCOUNTING): the task's own demand, where the
 * switches' time stamps give wall time.  Without the event (or with an
 * unexpected format) the sidecar has wall time only (-1: not traced).
 */
static void runtime_layout(sched_rec *s)
{
	struct tep_event *rt = load_event(s->tep, "sched_stat_runtime");
	int lp = 0, lr = 0;

	s->id_runtime = -1;
	if (!rt)
		return;
	s->off_rt_pid = field(rt, "pid", &lp);
	s->off_rt_runtime = field(rt, "runtime", &lr);
	if (s->off_rt_pid < 0 || s->off_rt_runtime < 0 || lp != 4 || lr != 8)
		return;
	s->id_runtime = rt->id;
	need(&s->need_runtime, 0, 2);
	need(&s->need_runtime, s->off_rt_pid, 4);
	need(&s->need_runtime, s->off_rt_runtime, 8);
}

/* Does the running kernel leave IRQ time out of a task's runtime
 * (CONFIG_IRQ_TIME_ACCOUNTING=y, from /proc/config.gz or /boot)?  1 yes,
 * 0 no or not known. */
static int kernel_irqtime(void)
{
	static const char key[] = "CONFIG_IRQ_TIME_ACCOUNTING=y";
	char line[256], path[128];
	struct utsname u;
	gzFile f = gzopen("/proc/config.gz", "rb");
	int yes = 0;

	if (!f && uname(&u) == 0) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		f = gzopen(path, "rb"); /* reads plain text too */
	}
	if (!f)
		return 0;
	while (!yes && gzgets(f, line, sizeof(line)))
		yes = !strncmp(line, key, sizeof(key) - 1);
	gzclose(f);
	return yes;
}

/*
 * The interrupts (irq_handler_entry/exit, softirq_entry/exit): without
 * CONFIG_IRQ_TIME_ACCOUNTING the kernel charges the time a CPU spends in
 * them to the thread they interrupted, so a stream's runtime holds the
 * completions of the recorded device's I/O (a loop device's block
 * softirqs, a disk's interrupts: the source's I/O stack, not the
 * workload's demand).  Traced, that time is taken out of the runtime.  Not
 * traced when the kernel leaves it out itself, or without the events.
 */
static void irq_layout(sched_rec *s)
{
	static const char *const names[4][2] = {
		{ "irq", "irq_handler_entry" }, { "irq", "irq_handler_exit" },
		{ "irq", "softirq_entry" }, { "irq", "softirq_exit" },
	};

	s->irq_out = 0;
	for (int i = 0; i < 4; i++)
		s->id_irq[i] = -1;
	if (s->id_runtime < 0 || kernel_irqtime())
		return;
	for (int i = 0; i < 4; i++) {
		struct tep_event *e = load_sys_event(s->tep, names[i][0], names[i][1]);

		if (!e)
			return;
		s->id_irq[i] = e->id;
	}
	s->irq_out = 1;
}

static int enable_irq(sched_rec *s)
{
	static const char *const names[4] = {
		"irq_handler_entry", "irq_handler_exit", "softirq_entry", "softirq_exit",
	};

	if (!s->irq_out)
		return 0;
	for (int i = 0; i < 4; i++)
		if (tracefs_event_enable(s->inst, "irq", names[i]) < 0) {
			for (int k = 0; k < 4; k++)
				s->id_irq[k] = -1;
			s->irq_out = 0; /* the runtime as charged */
			tracefs_event_disable(s->inst, "irq", NULL);
			return 0;
		}
	return 0;
}

/* ------------------------------------------------------------ tracing cost */

#define PP_ROUNDS 10000
#define PP_PAIRS 7

struct pp_arg {
	int in, out;
	cpu_set_t cpu;
	uint64_t cpu_ns;   /* the thread's CPU time for the rounds */
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *pp_echo(void *p)
{
	struct pp_arg *a = p;
	uint64_t t0;
	char c;

	pthread_setaffinity_np(pthread_self(), sizeof(a->cpu), &a->cpu);
	t0 = thread_cpu_ns();
	for (int i = 0; i < PP_ROUNDS; i++)
		if (read(a->in, &c, 1) != 1 || write(a->out, &c, 1) != 1)
			break;
	a->cpu_ns = thread_cpu_ns() - t0;
	close(a->out); /* its end: the other thread then sees EOF, not a hang */
	return NULL;
}

/* CPU time (both threads) of PP_ROUNDS round trips over two pipes between
 * two threads on one CPU: two context switches each; 0 on failure.  Each
 * thread closes the write end it uses when it stops, so that a failure of
 * either ends the other's read. */
static uint64_t pingpong(const cpu_set_t *cpu)
{
	int a[2], b[2];
	struct pp_arg arg;
	pthread_t th;
	uint64_t t0, mine = 0;
	char c = 'x';
	int ok = 1;

	if (pipe(a) < 0)
		return 0;
	if (pipe(b) < 0) {
		close(a[0]);
		close(a[1]);
		return 0;
	}
	arg = (struct pp_arg){ .in = a[0], .out = b[1], .cpu = *cpu };
	if (pthread_create(&th, NULL, pp_echo, &arg) != 0) {
		close(b[1]);
		ok = 0;
	} else {
		t0 = thread_cpu_ns();
		for (int i = 0; i < PP_ROUNDS && ok; i++)
			ok = write(a[1], &c, 1) == 1 && read(b[0], &c, 1) == 1;
		mine = thread_cpu_ns() - t0;
		close(a[1]);
		a[1] = -1;
		pthread_join(th, NULL); /* it closed b[1] */
	}
	close(a[0]);
	if (a[1] >= 0)
		close(a[1]);
	close(b[0]);
	return ok ? mine + arg.cpu_ns : 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The tracing's own cost in the traced threads: every event is written to
 * the ring buffer by the thread (or the interrupt) that fires it, and
 * charged to that thread's runtime.  Measured once, before the recording:
 * a pipe ping-pong between two threads pinned to this thread's CPU, with
 * the instance's events off and on, alternately (PP_PAIRS pairs, the
 * median of the pairs' differences); per context switch (half a round trip: each
 * switch's sched_switch, sched_stat_runtime and wake-up events, as around
 * a stream's time on a CPU).  The ping-pong's events are cleared after.
 */
static void measure_switch_cost(sched_rec *s)
{
	int64_t d[PP_PAIRS];
	cpu_set_t old, one;
	int cpu = sched_getcpu();

	s->sw_cost = 0;
	if (cpu < 0 || pthread_getaffinity_np(pthread_self(), sizeof(old), &old) != 0)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) != 0)
		return;
	for (int i = 0; i < PP_PAIRS; i++) {
		uint64_t off, on;

		tracefs_trace_off(s->inst);
		off = pingpong(&one);
		tracefs_trace_on(s->inst);
		on = pingpong(&one);
		d[i] = off && on ? (int64_t)(on - off) : INT64_MIN;
	}
	tracefs_trace_off(s->inst);
	tracefs_instance_file_clear(s->inst, "trace");
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	qsort(d, PP_PAIRS, sizeof(d[0]), cmp_i64);
	if (d[0] != INT64_MIN && d[PP_PAIRS / 2] > 0)
		s->sw_cost = (uint64_t)d[PP_PAIRS / 2] / (2ull * PP_ROUNDS);
}

static int open_cpus(sched_rec *s)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	s->ncpu = n > 0 ? (int)n : 1;
	s->cpu = calloc((size_t)s->ncpu, sizeof(*s->cpu));
	if (!s->cpu)
		return -ENOMEM;
	for (int c = 0; c < s->ncpu; c++) {
		struct sched_cpu *sc = &s->cpu[c];
		int size;

		sc->cur = -1;
		sc->tcpu = tracefs_cpu_open(s->inst, c, true);
		if (!sc->tcpu)
			continue; /* offline CPU */
		size = tracefs_cpu_read_size(sc->tcpu);
		sc->page_size = (size_t)(size > 0 ? size : 4096);
		sc->page = malloc(sc->page_size);
		if (!sc->page)
			return -ENOMEM;
	}
	return 0;
}

int sched_rec_open(sched_rec **sp, const char *path, size_t buffer_kb,
		   const char *const *comms, unsigned ncomm, char *err, size_t errlen)
{
	sched_rec *s = calloc(1, sizeof(*s));
	char name[64];
	int ret;

	*sp = NULL;
	if (!s)
		return -ENOMEM;
	if (ncomm > MAX_COMMS) {
		snprintf(err, errlen, "at most %d client command names", MAX_COMMS);
		free(s);
		return -EINVAL;
	}
	/* the kernel keeps a command name's first 15 bytes */
	for (unsigned i = 0; i < ncomm; i++)
		strncpy(s->comm[i], comms[i], COMM_LEN - 1);
	s->ncomm = (int)ncomm;
	cap_remove_stale_instances("iostorm-sched-");
	ret = layouts(s, err, errlen);
	if (ret < 0)
		goto fail;
	runtime_layout(s);
	irq_layout(s);
	snprintf(name, sizeof(name), "iostorm-sched-%ld", (long)getpid());
	s->inst = tracefs_instance_create(name);
	if (!s->inst) {
		ret = -EIO;
		snprintf(err, errlen, "cannot create tracefs instance %s", name);
		goto fail;
	}
	tracefs_trace_off(s->inst);
	if (tracefs_instance_file_write(s->inst, "trace_clock", "mono") < 0 ||
	    tracefs_instance_set_buffer_size(s->inst, buffer_kb ? buffer_kb : 16384, -1) < 0 ||
	    tracefs_event_enable(s->inst, "sched", "sched_switch") < 0 ||
	    tracefs_event_enable(s->inst, "sched", "sched_wakeup") < 0 ||
	    (s->ncomm && tracefs_event_enable(s->inst, "sched", "sched_waking") < 0)) {
		ret = -EIO;
		snprintf(err, errlen, "cannot set up tracefs instance %s for the scheduler events",
			 name);
		goto fail;
	}
	if (s->id_runtime >= 0 &&
	    tracefs_event_enable(s->inst, "sched", "sched_stat_runtime") < 0)
		s->id_runtime = -1; /* wall time only */
	if (s->id_runtime < 0)
		s->irq_out = 0;
	enable_irq(s);
	ret = open_cpus(s);
	if (ret < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	s->held_cap = 65536;
	s->held = malloc(s->held_cap * sizeof(*s->held));
	s->pid_cap = 256;
	s->pids = calloc(s->pid_cap, sizeof(*s->pids));
	if (!s->held || !s->pids) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (s->id_runtime >= 0)
		measure_switch_cost(s);
	s->out = fopen(path, "we");
	if (!s->out) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (s->id_runtime >= 0)
		fprintf(s->out, "# iostorm-sched 3 runq cpu%s runtime%s%s\n",
			s->ncomm ? " client" : "", s->irq_out ? " irq" : "",
			s->sw_cost ? " switch" : "");
	else
		fputs(s->ncomm ? "# iostorm-sched 2 runq cpu client\n" :
		      "# iostorm-sched 1 runq cpu\n", s->out);
	fputs("# stream start_ns end_ns: runnable, while its CPU ran a thread that is\n"
	      "# not a stream (ns since the trace's start; by the end of the wait)\n"
	      "# c stream start_ns end_ns: on a CPU; r ...: runnable (all its waits)\n",
	      s->out);
	if (s->id_runtime >= 0)
		fputs(s->irq_out ? "# c ... runtime_ns: the CPU time the kernel charged it (steal out),\n"
		      "# less the interrupts it took (irq)\n" :
		      "# c ... runtime_ns: the CPU time the kernel charged it (steal out)\n",
		      s->out);
	if (s->sw_cost)
		fprintf(s->out, "# switch-cost-ns %llu: the tracing's CPU cost per context switch\n"
			"# (measured), taken off each c line's and each client switch's runtime\n",
			(unsigned long long)s->sw_cost);
	if (s->ncomm) {
		fputs("# w stream start_ns end_ns cpu_ns: asleep until a client woke it;\n"
		      "# cpu_ns: the client's time on a CPU since its previous such wake-up\n",
		      s->out);
		if (s->id_runtime >= 0)
			fputs("# (the CPU time the kernel charged it)\n", s->out);
		fputs("# clients:", s->out);
		for (int i = 0; i < s->ncomm; i++)
			fprintf(s->out, " %s", s->comm[i]);
		fputc('\n', s->out);
	}
	*sp = s;
	return 0;
fail:
	sched_rec_close(s);
	return ret;
}

int sched_rec_start(sched_rec *s, uint64_t t0_ns)
{
	s->t0 = t0_ns;
	for (int c = 0; c < s->ncpu; c++)
		s->cpu[c].drained_ns = t0_ns;
	if (tracefs_trace_on(s->inst) < 0)
		return -EIO;
	s->started = 1;
	return 0;
}

static struct sched_pid *pid_slot(sched_rec *s, uint32_t pid)
{
	size_t mask = s->pid_cap - 1, i;

	for (i = (pid * 2654435761u) & mask; s->pids[i].pid; i = (i + 1) & mask)
		if (s->pids[i].pid == pid)
			return &s->pids[i];
	return &s->pids[i]; /* free */
}

/* Follows pid as a stream, or as a client (not a stream). */
static int add_pid(sched_rec *s, uint64_t pid, int client)
{
	struct sched_pid *p;

	if (!pid || pid > UINT32_MAX)
		return 0;
	if (2 * (s->npids + 1) > s->pid_cap) {
		struct sched_pid *old = s->pids;
		size_t ocap = s->pid_cap;

		if (s->npids >= MAX_PIDS) {
			s->st.untracked++;
			return 0;
		}
		s->pids = calloc(2 * ocap, sizeof(*s->pids));
		if (!s->pids) {
			s->pids = old;
			return -ENOMEM;
		}
		s->pid_cap = 2 * ocap;
		for (size_t k = 0; k < ocap; k++)
			if (old[k].pid)
				*pid_slot(s, old[k].pid) = old[k];
		free(old);
	}
	p = pid_slot(s, (uint32_t)pid);
	if (!p->pid) {
		memset(p, 0, sizeof(*p));
		p->pid = (uint32_t)pid;
		p->client = client;
		s->npids++;
	} else if (!client) {
		p->client = 0; /* a client that issues I/O is a stream */
	}
	return 0;
}

/* Followed pid (stream or client), or NULL. */
static struct sched_pid *followed(sched_rec *s, int32_t pid)
{
	struct sched_pid *p;

	if (pid <= 0)
		return NULL;
	p = pid_slot(s, (uint32_t)pid);
	return p->pid ? p : NULL;
}

static struct sched_pid *tracked(sched_rec *s, int32_t pid)
{
	struct sched_pid *p = followed(s, pid);

	return p && !p->client ? p : NULL;
}

static struct sched_pid *client(sched_rec *s, int32_t pid)
{
	struct sched_pid *p = followed(s, pid);

	return p && p->client ? p : NULL;
}

/* A kernel thread (PF_KTHREAD in /proc/PID/stat's flags, the 9th field)? */
static int is_kthread(uint64_t pid)
{
	char path[64], buf[512], *p;
	unsigned long long flags;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%llu/stat", (unsigned long long)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %llu", &flags) != 1)
		return 0;
	return (flags & 0x00200000ull) != 0;
}

int sched_rec_add_pid(sched_rec *s, uint64_t pid)
{
	/* A kernel thread that issues I/O (a kworker's flush, the journal)
	 * works for the recorded device's I/O stack: its CPU time is the
	 * device's cost, not the workload's, and is not followed. */
	if (pid && pid <= UINT32_MAX && !followed(s, (int32_t)pid) && is_kthread(pid)) {
		s->st.kthreads++;
		return 0;
	}
	return add_pid(s, pid, 0);
}

/* A switch from or to a thread of a client's name: follow it. */
static int client_comm(sched_rec *s, const uint8_t *comm, int32_t pid)
{
	for (int i = 0; i < s->ncomm; i++)
		if (!strncmp((const char *)comm, s->comm[i], COMM_LEN - 1))
			return followed(s, pid) ? 0 : add_pid(s, (uint64_t)pid, 1);
	return 0;
}

/* One event of len bytes; one shorter than its fields is skipped. */
static int decode(sched_rec *s, const uint8_t *data, uint32_t len, uint64_t ts)
{
	struct sched_ev ev = { .ts = ts, .next = -1, .waker = -1 };
	uint16_t type;

	if (len < 2)
		return 0;
	memcpy(&type, data, 2);
	if ((type == s->id_switch && len < s->need_switch) ||
	    (type == s->id_wakeup && len < s->need_wakeup) ||
	    ((int)type == s->id_waking && len < s->need_waking) ||
	    ((int)type == s->id_runtime && len < s->need_runtime)) {
		s->st.malformed++;
		return 0;
	}
	if (type == s->id_switch) {
		uint64_t state = 0;

		ev.kind = SE_SWITCH;
		memcpy(&ev.pid, data + s->off_prev_pid, 4);
		memcpy(&ev.next, data + s->off_next_pid, 4);
		memcpy(&state, data + s->off_prev_state, (size_t)s->len_prev_state);
		/* TASK_RUNNING (0), or only the preemption bit above the
		 * reported states (TASK_REPORT_MAX, "R+") */
		ev.runnable = (state & 0xff) == 0;
		if (s->ncomm && (client_comm(s, data + s->off_prev_comm, ev.pid) < 0 ||
				 client_comm(s, data + s->off_next_comm, ev.next) < 0))
			return -ENOMEM;
	} else if (type == s->id_wakeup) {
		ev.kind = SE_WAKEUP;
		memcpy(&ev.pid, data + s->off_pid, 4);
		if (!tracked(s, ev.pid))
			return 0;
	} else if ((int)type == s->id_waking) {
		ev.kind = SE_WAKING;
		memcpy(&ev.pid, data + s->off_waking_pid, 4);
		memcpy(&ev.waker, data + s->off_waker, 4);
		if (!tracked(s, ev.pid) || !client(s, ev.waker))
			return 0;
	} else if (s->irq_out && ((int)type == s->id_irq[0] || (int)type == s->id_irq[2])) {
		ev.kind = SE_IRQ_IN;
	} else if (s->irq_out && ((int)type == s->id_irq[1] || (int)type == s->id_irq[3])) {
		ev.kind = SE_IRQ_OUT;
	} else if ((int)type == s->id_runtime) {
		ev.kind = SE_RUNTIME;
		memcpy(&ev.pid, data + s->off_rt_pid, 4);
		memcpy(&ev.runtime, data + s->off_rt_runtime, 8);
		/* kept, as the switches: a stream may be followed only once
		 * its first I/O is seen, after its first runtime events */
	} else {
		return 0;
	}
	s->st.events++; /* switches are all kept: who runs on each CPU */
	if (s->nheld == s->held_cap) {
		struct sched_ev *n = realloc(s->held, 2 * s->held_cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->held = n;
		s->held_cap *= 2;
	}
	s->held[s->nheld++] = ev;
	return 0;
}

static int read_cpu(sched_rec *s, struct sched_cpu *sc, int cpu, int *events)
{
	for (int pages = 0; pages < PAGES_PER_ROUND; pages++) {
		uint64_t before = mono();
		struct rb_page_iter it;
		const uint8_t *data;
		int64_t missed;
		uint64_t ts;
		uint32_t len;
		int n = tracefs_cpu_read(sc->tcpu, sc->page, true);

		if (n <= 0) {
			sc->drained_ns = before;
			return 0;
		}
		/* the project's decoder, as the block recorder's (lost events
		 * are counted from the instance's stats: overruns) */
		if (rb_page_open(&it, sc->page, (size_t)n < sc->page_size ? (size_t)n :
				 sc->page_size, &missed) < 0)
			return -EIO;
		while ((data = rb_page_next(&it, &len, &ts))) {
			size_t before_n = s->nheld;
			int ret = decode(s, data, len, ts);

			if (ret < 0)
				return ret;
			if (s->nheld > before_n)
				s->held[before_n].cpu = cpu;
			(*events)++;
		}
	}
	return 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct sched_ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

/* An interval of pid: kind 0 a wait behind a foreign thread, 'c' on a
 * CPU (with the runtime the kernel charged in it, when traced: at most the
 * interval, whose ends are the switches' time stamps), 'r' runnable. */
static int emit_kind(sched_rec *s, int kind, uint32_t pid, uint64_t a, uint64_t b,
		     uint64_t rt)
{
	a = a > s->t0 ? a - s->t0 : 0;
	b = b > s->t0 ? b - s->t0 : 0;
	if (b <= a)
		return 0;
	if (!kind)
		s->st.intervals++;
	if (kind == 'c' && s->id_runtime >= 0)
		return fprintf(s->out, "c %u %llu %llu %llu\n", pid, (unsigned long long)a,
			       (unsigned long long)b,
			       (unsigned long long)(rt < b - a ? rt : b - a)) < 0 ? -EIO : 0;
	return fprintf(s->out, "%s%s%u %llu %llu\n", kind ? (kind == 'c' ? "c" : "r") : "",
		       kind ? " " : "", pid, (unsigned long long)a,
		       (unsigned long long)b) < 0 ? -EIO : 0;
}

static int emit(sched_rec *s, uint32_t pid, uint64_t a, uint64_t b)
{
	return emit_kind(s, 0, pid, a, b, 0);
}

/* A sleep [a, b) of stream pid that client c ended: with c's time on a
 * CPU since its previous wake-up of a sleeping stream (every moment of the
 * client's CPU goes to one wake-up, the next one). */
static int emit_client(sched_rec *s, struct sched_pid *p, struct sched_pid *c, uint64_t b)
{
	uint64_t a = p->asleep, cpu = c->acc;

	if (s->id_runtime >= 0) {
		/* the runtime charged so far, and the wall time since (it is
		 * charged later, in one piece with what follows) */
		uint64_t from = c->rt_last > c->on_since ? c->rt_last : c->on_since;

		if (c->on_since && b > from) {
			uint64_t q = c->irq < b - from ? c->irq : b - from;

			cpu += b - from - q;
			c->owed += b - from;
			c->irq -= q;
			c->rt_last = b;
		}
	} else if (c->on_since && b > c->on_since) {
		cpu += b - c->on_since;
		c->on_since = b;
	}
	c->acc = 0;
	p->asleep = 0;
	a = a > s->t0 ? a - s->t0 : 0;
	b = b > s->t0 ? b - s->t0 : 0;
	if (b < a)
		return 0;
	s->st.client_waits++;
	return fprintf(s->out, "w %u %llu %llu %llu\n", p->pid, (unsigned long long)a,
		       (unsigned long long)b, (unsigned long long)cpu) < 0 ? -EIO : 0;
}

static void hist_push(struct sched_hist *h, uint64_t ts, int foreign)
{
	h->ts[h->head] = ts;
	h->foreign[h->head] = (unsigned char)foreign;
	h->head = (h->head + 1) % HIST;
	if (h->n < HIST)
		h->n++;
}

/*
 * A wait [a, b) of pid that ended with a switch to it on cpu: the parts
 * in which that CPU ran a thread that is not a stream (the history's
 * entries before b, the latest first; its oldest covers the rest).
 */
static int emit_foreign(sched_rec *s, const struct sched_hist *h, uint32_t pid,
			uint64_t a, uint64_t b)
{
	uint64_t end = b;
	unsigned k = 1;

	for (; k <= h->n && end > a; k++) {
		unsigned i = (h->head + HIST - k) % HIST;
		uint64_t from = h->ts[i] > a ? h->ts[i] : a;

		if (h->ts[i] >= b)
			continue;
		if (h->foreign[i]) {
			int ret = emit(s, pid, from, end);

			if (ret < 0)
				return ret;
		}
		end = from;
	}
	return 0;
}

/* Runnable from a wake-up or a preemption to the next switch to it; the
 * parts of it behind threads that are not streams are written. */
static int process(sched_rec *s, uint64_t watermark)
{
	size_t i;

	qsort(s->held, s->nheld, sizeof(*s->held), cmp_ev);
	for (i = 0; i < s->nheld; i++) {
		const struct sched_ev *ev = &s->held[i];
		struct sched_pid *p;

		if (ev->ts > watermark)
			break;
		if (ev->kind == SE_WAKING) { /* by a client */
			struct sched_pid *c = client(s, ev->waker);

			p = tracked(s, ev->pid);
			if (p && c && p->asleep && emit_client(s, p, c, ev->ts) < 0)
				return -EIO;
			continue;
		}
		if (ev->kind == SE_IRQ_IN || ev->kind == SE_IRQ_OUT) {
			struct sched_cpu *sc = &s->cpu[ev->cpu];

			if (ev->kind == SE_IRQ_IN) {
				if (!sc->irq_depth++)
					sc->irq_since = ev->ts;
				continue;
			}
			/* an exit without its entry (traced before the
			 * start, or lost) is not counted */
			if (!sc->irq_depth || --sc->irq_depth)
				continue;
			p = followed(s, sc->cur);
			if (p && p->on_since && ev->ts > sc->irq_since) {
				p->irq += ev->ts - sc->irq_since;
				s->st.irq_ns += ev->ts - sc->irq_since;
			}
			continue;
		}
		if (ev->kind == SE_RUNTIME) {
			p = followed(s, ev->pid);
			if (!p || !p->on_since)
				continue;
			if (p->client) {
				uint64_t d = ev->runtime, o = p->owed < d ? p->owed : d, q;

				q = p->irq < d - o ? p->irq : d - o; /* its interrupts */
				p->acc += d - o - q;
				p->owed -= o;
				p->irq -= q;
			} else {
				p->rt += ev->runtime;
			}
			p->rt_last = ev->ts;
			continue;
		}
		if (ev->kind == SE_WAKEUP) {
			p = tracked(s, ev->pid);
			if (p && !p->since)
				p->since = ev->ts;
			if (p)
				p->asleep = 0;
			continue;
		}
		p = followed(s, ev->pid);
		if (p && p->client) {
			/* with runtime events, charged before the switch */
			if (s->id_runtime < 0 && p->on_since && ev->ts > p->on_since)
				p->acc += ev->ts - p->on_since;
			p->on_since = 0;
		} else if (p) {
			uint64_t out = p->irq + s->sw_cost;

			if (p->on_since && emit_kind(s, 'c', p->pid, p->on_since, ev->ts,
						     p->rt > out ? p->rt - out : 0) < 0)
				return -EIO;
			p->on_since = 0;
			p->since = ev->runnable ? ev->ts : 0;
			p->asleep = ev->runnable ? 0 : ev->ts;
		}
		p = followed(s, ev->next);
		if (p && p->client) {
			p->on_since = p->rt_last = ev->ts;
			p->owed = 0;
			p->irq += s->sw_cost; /* the tracing's cost, to take off */
			p = NULL; /* not a stream: a foreign thread */
		}
		if (p && p->since) {
			int ret = emit_kind(s, 'r', p->pid, p->since, ev->ts, 0);

			if (ret == 0)
				ret = emit_foreign(s, &s->cpu[ev->cpu].h, p->pid,
						   p->since, ev->ts);
			p->since = 0;
			if (ret < 0)
				return ret;
		}
		if (p) {
			p->on_since = p->rt_last = ev->ts;
			p->rt = 0;
			p->irq = 0;
			p->asleep = 0;
		}
		s->cpu[ev->cpu].cur = ev->next;
		hist_push(&s->cpu[ev->cpu].h, ev->ts, ev->next > 0 && !p);
	}
	memmove(s->held, s->held + i, (s->nheld - i) * sizeof(*s->held));
	s->nheld -= i;
	return 0;
}

int sched_rec_poll(sched_rec *s)
{
	uint64_t wm = UINT64_MAX;
	int events = 0, ret;

	if (!s->started)
		return -EINVAL;
	for (int c = 0; c < s->ncpu; c++) {
		struct sched_cpu *sc = &s->cpu[c];

		if (!sc->tcpu)
			continue;
		ret = read_cpu(s, sc, c, &events);
		if (ret < 0)
			return ret;
		if (sc->drained_ns < wm)
			wm = sc->drained_ns;
	}
	wm = wm > SLACK_NS ? wm - SLACK_NS : 0;
	ret = process(s, wm);
	return ret < 0 ? ret : events;
}

static void overruns(sched_rec *s)
{
	for (int c = 0; c < s->ncpu; c++) {
		char file[64], *t, *p;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", c);
		t = tracefs_instance_file_read(s->inst, file, NULL);
		if (!t)
			continue;
		if ((p = strstr(t, "overrun:")))
			s->st.overruns += strtoull(p + 8, NULL, 10);
		free(t);
	}
}

int sched_rec_finish(sched_rec *s)
{
	int ret;

	if (!s->started)
		return -EINVAL;
	tracefs_trace_off(s->inst);
	do {
		ret = sched_rec_poll(s);
	} while (ret > 0);
	if (ret == 0)
		ret = process(s, UINT64_MAX);
	overruns(s);
	s->started = 0;
	if (fclose(s->out) && ret == 0)
		ret = -errno;
	s->out = NULL;
	return ret;
}

void sched_rec_get_stats(const sched_rec *s, struct sched_rec_stats *st)
{
	*st = s->st;
	st->irq_out = s->irq_out;
	st->switch_cost_ns = s->sw_cost;
}

void sched_rec_close(sched_rec *s)
{
	if (!s)
		return;
	if (s->cpu) {
		for (int c = 0; c < s->ncpu; c++) {
			if (s->cpu[c].tcpu)
				tracefs_cpu_close(s->cpu[c].tcpu);
			free(s->cpu[c].page);
		}
		free(s->cpu);
	}
	if (s->inst) {
		tracefs_trace_off(s->inst);
		tracefs_instance_destroy(s->inst);
		tracefs_instance_free(s->inst);
	}
	if (s->tep)
		tep_free(s->tep);
	if (s->out)
		fclose(s->out);
	free(s->held);
	free(s->pids);
	free(s);
}

#else /* !HAVE_TRACEFS */

struct sched_rec {
	int unused;
};

int sched_rec_open(sched_rec **s, const char *path, size_t buffer_kb,
		   const char *const *comms, unsigned ncomm, char *err, size_t errlen)
{
	(void)path;
	(void)buffer_kb;
	(void)comms;
	(void)ncomm;
	*s = NULL;
	snprintf(err, errlen, "built without libtracefs: no live recording");
	return IST_EUNSUPPORTED;
}

int sched_rec_start(sched_rec *s, uint64_t t0_ns) { (void)s; (void)t0_ns; return IST_EUNSUPPORTED; }
int sched_rec_add_pid(sched_rec *s, uint64_t pid) { (void)s; (void)pid; return 0; }
int sched_rec_poll(sched_rec *s) { (void)s; return IST_EUNSUPPORTED; }
int sched_rec_finish(sched_rec *s) { (void)s; return IST_EUNSUPPORTED; }
void sched_rec_get_stats(const sched_rec *s, struct sched_rec_stats *st)
{
	(void)s;
	memset(st, 0, sizeof(*st));
}
void sched_rec_close(sched_rec *s) { (void)s; }

#endif
