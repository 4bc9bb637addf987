/* SPDX-License-Identifier: MIT */
/* engine.c - the replay run: decoder thread, bounded queues, worker loops and timing. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/satmath.h"
#include "replay/internal.h"

#define QUEUE_SIZE 65536u    /* records per worker queue (power of two) */
#define DECODE_BATCH 512u
#define MAX_SLEEP_NS 2000000ull /* wake at least every 2 ms (stop, intervals) */
#define FIRST_MARGIN_NS 1000000ull /* spin before the very first deadline */
#define WAKE_GUARD_NS 10000ull   /* added to an observed oversleep          */
#define WAKE_MARGIN_CAP 500000ull /* oversleeps beyond: preemption, not learned */

/* ------------------------------------------------------------ options */

void rpl_opts_init(struct rpl_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timing = RPL_TIMING_ORIGINAL;
	o->speed = 1.0;
	o->iodepth = 64;
	o->workers = 1;
	o->loops = 1;
	o->think_scale = 1.0;
	o->cpu_scale = 1.0;
}

static const char *const timing_names[] = { "original", "afap", "rate", "closed" };
static const char *const remap_names[] = { "strict", "wrap", "scale" };

const char *rpl_timing_name(enum rpl_timing t)
{
	return (unsigned)t < 4 ? timing_names[t] : NULL;
}

int rpl_timing_parse(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, timing_names[i]))
			return i;
	return -EINVAL;
}

const char *rpl_remap_name(enum rpl_remap r)
{
	return (unsigned)r < 3 ? remap_names[r] : NULL;
}

int rpl_remap_parse(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, remap_names[i]))
			return i;
	return -EINVAL;
}

void rpl_note(struct rpl_run *r, const char *fmt, ...)
{
	size_t n = strlen(r->notes);
	va_list ap;

	if (n + 2 >= sizeof(r->notes))
		return;
	pthread_mutex_lock(&r->lock);
	n = strlen(r->notes);
	va_start(ap, fmt);
	vsnprintf(r->notes + n, sizeof(r->notes) - n - 1, fmt, ap);
	va_end(ap);
	n = strlen(r->notes);
	if (n + 1 < sizeof(r->notes)) {
		r->notes[n] = '\n';
		r->notes[n + 1] = 0;
	}
	pthread_mutex_unlock(&r->lock);
}

void rpl_feature(struct rpl_run *r, const char *name)
{
	size_t n;

	pthread_mutex_lock(&r->lock);
	if (!strstr(r->features, name)) {
		n = strlen(r->features);
		snprintf(r->features + n, sizeof(r->features) - n, "%s%s",
			 n ? " " : "", name);
	}
	pthread_mutex_unlock(&r->lock);
}

static int fail(struct rpl_run *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct rpl_run *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

const char *rpl_run_errmsg(const rpl_run *r)
{
	return r && r->errmsg[0] ? r->errmsg : "replay failed";
}

/* ------------------------------------------------------------ queue */

static int queue_init(struct rpl_queue *q, unsigned size)
{
	q->ring = calloc(size, sizeof(*q->ring));
	if (!q->ring)
		return -ENOMEM;
	q->mask = size - 1;
	atomic_init(&q->head, 0);
	atomic_init(&q->tail, 0);
	return 0;
}

static int queue_push(struct rpl_queue *q, const struct rpl_io *io)
{
	unsigned t = atomic_load_explicit(&q->tail, memory_order_relaxed);
	unsigned h = atomic_load_explicit(&q->head, memory_order_acquire);

	if (t - h > q->mask)
		return 0;
	q->ring[t & q->mask] = *io;
	atomic_store_explicit(&q->tail, t + 1, memory_order_release);
	return 1;
}

static struct rpl_io *queue_peek(struct rpl_queue *q)
{
	unsigned h = atomic_load_explicit(&q->head, memory_order_relaxed);
	unsigned t = atomic_load_explicit(&q->tail, memory_order_acquire);

	return h == t ? NULL : &q->ring[h & q->mask];
}

static void queue_pop(struct rpl_queue *q)
{
	unsigned h = atomic_load_explicit(&q->head, memory_order_relaxed);

	atomic_store_explicit(&q->head, h + 1, memory_order_release);
}

/* ------------------------------------------------------------ run setup */

/* null back-end latency lists given (per op or per device) */
static int has_lat_lists(const struct rpl_opts *o)
{
	for (unsigned k = 0; k < IST_OP_COUNT; k++)
		if (o->null_lat_count[k])
			return 1;
	for (size_t i = 0; i < (size_t)o->null_lat_ndev * IST_OP_COUNT; i++)
		if (o->null_lat_dev_count && o->null_lat_dev_count[i])
			return 1;
	return 0;
}

static int count_devices(struct rpl_run *r)
{
	unsigned n = ist_header_device_count(r->src->header);

	if (r->have_totals && r->totals.ndev > n)
		n = r->totals.ndev;
	return (int)n;
}

int rpl_run_new(rpl_run **rp, const struct rpl_opts *o, struct rpl_source *src)
{
	struct rpl_run *r = calloc(1, sizeof(*r));
	const struct ist_device *d;
	int ret;

	*rp = r;
	if (!r) {
		rpl_source_close(src);
		return -ENOMEM;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->o = *o;
	r->src = src;
	if (r->o.speed <= 0)
		r->o.speed = 1.0;
	if (!r->o.iodepth)
		r->o.iodepth = 64;
	if (!r->o.workers)
		r->o.workers = 1;
	if (!r->o.loops)
		r->o.loops = 1;
	if (r->o.think_scale < 0)
		return fail(r, -EINVAL, "--think-scale must not be negative");
	if (!r->o.think_scale && r->o.timing != RPL_TIMING_CLOSED)
		r->o.think_scale = 1.0;
	if (!r->o.spin_ns) {
		/*
		 * Closed timing without a --spin T: the spin window is
		 * learned from the oversleeps (as --spin auto).  Each think
		 * time ends in a timed wait, and on a virtual machine the
		 * wake-up of an idle vCPU overslept the fixed 40 us by 25 us
		 * in one wait of ten; every microsecond late is added to
		 * the stream's cycle.  Replays on a tmpfs loop device ran
		 * 2.3-6.2% (median 4%) below the closed-loop model on their
		 * own measured latencies with 40 us, 1.0-2.6% (median 1.5%)
		 * with the learned window (bench/README.md, "Closed loop").
		 */
		if (r->o.timing == RPL_TIMING_CLOSED)
			r->o.spin_auto = 1;
		r->o.spin_ns = 40000;
	}
	if (!r->o.late_warn_ns)
		r->o.late_warn_ns = 1000000;
	if (r->o.workers > RPL_MAX_WORKERS)
		return fail(r, -EINVAL, "at most %d workers", RPL_MAX_WORKERS);
	if (r->o.iodepth > 65536)
		return fail(r, -EINVAL, "--iodepth at most 65536");
	if (r->o.timing == RPL_TIMING_RATE && !(r->o.rate_iops > 0))
		return fail(r, -EINVAL, "--rate needs a positive number of IOPS");
	if (r->o.to_ns && r->o.to_ns <= r->o.from_ns)
		return fail(r, -EINVAL, "--to must be after --from");
	if (r->o.virtual_clock && r->o.backend != RPL_BACKEND_NULL)
		return fail(r, -EINVAL, "a virtual clock needs the null back-end");
	if (has_lat_lists(&r->o) && r->o.backend != RPL_BACKEND_NULL)
		return fail(r, -EINVAL, "latency lists need the null back-end");
	if (r->o.null_lat_ndev && (!r->o.null_lat_dev_list || !r->o.null_lat_dev_count))
		return fail(r, -EINVAL, "latency lists per device without their arrays");
	if (r->o.iopoll && r->o.buffered)
		return fail(r, -EINVAL, "--iopoll needs O_DIRECT (not --buffered)");
	if (r->o.backend == RPL_BACKEND_URING && !r->o.ntargets)
		return fail(r, -EINVAL, "no --target given");
	if (r->o.think_sched && r->o.timing != RPL_TIMING_CLOSED)
		return fail(r, -EINVAL, "--think-sched needs --timing closed");
	if (r->o.think_sched) {
		char why[256];

		ret = rpl_sched_check(r->o.think_sched, why, sizeof(why));
		if (ret < 0)
			return fail(r, ret, "%s", why);
		if (r->o.cpus && !(ret & RPL_SCHED_HAS_CPU))
			return fail(r, IST_EPARSE, "%s: no on-CPU intervals ('c' lines) for --cpus: "
				    "recorded before iostorm recorded them", r->o.think_sched);
	}
	if (r->o.cpus && !r->o.think_sched)
		return fail(r, -EINVAL, "--cpus needs --think-sched");
	if (!(r->o.cpu_scale >= 0))
		return fail(r, -EINVAL, "--cpu-scale must not be negative");
	if (!r->o.cpu_scale)
		r->o.cpu_scale = 1.0;
	if (r->o.cpu_scale != 1.0 && !r->o.cpus)
		return fail(r, -EINVAL, "--cpu-scale needs --cpus");
	if ((r->o.wake_cost_ns || r->o.wake_cost_auto) && !r->o.cpus)
		return fail(r, -EINVAL, "--wake-cost needs --cpus");
	if (r->o.cpu_bursts && !r->o.cpus)
		return fail(r, -EINVAL, "--cpu-queue burst needs --cpus");
	if (r->o.wake_cost_auto) {
		r->o.wake_cost_ns = rpl_sched_wake_cost(r->o.think_sched);
		if (r->o.wake_cost_ns)
			rpl_note(r, "wake-up cost %.1f us (the sidecar's bursts after wake-ups "
				 "that were not a client's: their 10th percentile)",
				 (double)r->o.wake_cost_ns / 1e3);
		else
			rpl_note(r, "wake-up cost: the sidecar has no bursts after wake-ups "
				 "(not a client's) to tell it; none taken off");
	}

	ret = src->ops->totals ? src->ops->totals(src, &r->totals) : -ENOENT;
	if (ret == 0)
		r->have_totals = 1;
	else if (ret != -ENOENT)
		return fail(r, ret, "%s: %s", src->path ? src->path : "trace",
			    ist_strerror(ret));
	if (r->have_totals)
		r->expected = r->totals.records * r->o.loops;
	{
		const char *nl = ist_header_get(src->header, "nominal_latency_ns");

		if (nl)
			r->nominal_lat_ns = strtoull(nl, NULL, 10);
	}
	r->ndev = (unsigned)count_devices(r);
	r->dev_size = calloc(r->ndev + 1, sizeof(*r->dev_size));
	r->dev_map = calloc(r->ndev + 1, sizeof(*r->dev_map));
	if (!r->dev_size || !r->dev_map)
		return -ENOMEM;
	if (has_lat_lists(&r->o)) {
		r->null_unlisted = calloc((size_t)(r->ndev + 1) * IST_OP_COUNT,
					  sizeof(*r->null_unlisted));
		if (!r->null_unlisted)
			return -ENOMEM;
	}
	for (unsigned i = 0; i < r->ndev; i++) {
		d = ist_header_device(src->header, i);
		if (d && d->size)
			r->dev_size[i] = d->size;
		if (r->have_totals && i < r->totals.ndev &&
		    r->totals.dev_max_end[i] > r->dev_size[i])
			r->dev_size[i] = r->totals.dev_max_end[i];
	}
	ret = rpl_targets_open(r);
	if (ret < 0)
		return ret;
	ret = rpl_data_pool(r);
	if (ret < 0)
		return fail(r, ret, "write data pool: %s", ist_strerror(ret));
	return 0;
}

/* ------------------------------------------------------------ statistics */

static void interval_roll(struct rpl_worker *w, uint64_t now)
{
	struct rpl_run *r = w->run;
	uint64_t idx;

	if (!r->o.interval_ns || now < r->epoch)
		return;
	idx = (now - r->epoch) / r->o.interval_ns;
	if (idx == w->cur_interval)
		return;
	rpl_interval_merge(r, w->cur_interval, &w->iacc);
	rpl_iacc_reset(&w->iacc);
	__atomic_store_n(&w->cur_interval, idx, __ATOMIC_RELAXED);
}

void rpl_complete(struct rpl_worker *w, struct rpl_slot *s, int res,
		  uint64_t now)
{
	struct rpl_run *r = w->run;
	struct ist_record *rec = &s->io.rec;
	unsigned op = rec->op < IST_OP_COUNT ? rec->op : 0;
	uint64_t lat = now > s->issue ? now - s->issue : 0;

	if (r->o.interval_ns)
		interval_roll(w, now);
	if (res < 0) {
		w->errs[op]++;
		if (!w->first_error)
			w->first_error = res;
		w->iacc.errors++;
	} else {
		w->ios[op]++;
		w->bytes[op] += op == IST_OP_FLUSH ? 0 : rec->len;
		rpl_hist_add(&w->lat[op], lat);
		if (rec->lat_ns)
			rpl_hist_add(&w->rec_lat[op], rec->lat_ns);
		if (r->o.interval_ns) {
			w->iacc.ios[op]++;
			w->iacc.bytes[op] += op == IST_OP_FLUSH ? 0 : rec->len;
			rpl_hist_add(&w->iacc.lat, lat);
		}
	}
	if (now > w->last_done)
		w->last_done = now;
	if (w->closed)
		rpl_closed_done(w, &s->io, now);
	if (w->txtab)
		rpl_txn_done(w, &s->io, now);
	if (r->o.io_cb) {
		struct rpl_io_event ev = {
			.seq = s->io.seq,
			.rec = rec,
			.dev = s->io.dev,
			.deadline_ns = s->deadline ? s->deadline - r->epoch : 0,
			.issue_ns = s->issue - r->epoch,
			.done_ns = now - r->epoch,
			.res = res,
		};
		r->o.io_cb(r->o.io_cb_arg, &ev);
	}
	w->free_slots[w->nfree++] = s->idx;
	w->inflight--;
	atomic_fetch_add_explicit(&w->completed, 1, memory_order_relaxed);
}

/* ------------------------------------------------------------ worker */

static int worker_submit(struct rpl_worker *w, uint64_t issue)
{
	int ret;

	if (!w->prepared)
		return 0;
	(void)issue;
	ret = w->be->submit(w);
	if (ret < 0)
		return ret;
	w->prepared = 0;
	return 0;
}

/* Issues one I/O into a free slot (prepared, submitted by the caller). */
static int worker_prep(struct rpl_worker *w, const struct rpl_io *io,
		       uint64_t deadline, uint64_t now)
{
	struct rpl_run *r = w->run;
	struct rpl_slot *s = &w->slots[w->free_slots[--w->nfree]];
	uint64_t late = deadline && now > deadline ? now - deadline : 0;
	int ret;

	s->io = *io;
	s->io.sync = 0; /* the back-end sets it when it did the I/O inline */
	s->deadline = deadline;
	s->issue = now;
	ret = w->be->prep(w, s);
	if (ret < 0) {
		w->free_slots[w->nfree++] = s->idx;
		return ret;
	}
	if (!ret)
		w->prepared++; /* 1: done inline, nothing to submit */
	w->inflight++;
	if (w->inflight > w->max_inflight)
		w->max_inflight = w->inflight;
	if (r->o.timing != RPL_TIMING_AFAP) {
		rpl_hist_add(&w->late, late);
		if (r->o.interval_ns) {
			interval_roll(w, now);
			rpl_hist_add(&w->iacc.late, late);
		}
	}
	if (w->closed)
		rpl_closed_issued(w, io, now);
	if (w->txtab)
		s->io.txn_ent = rpl_txn_issue(w, io, now);
	atomic_fetch_add_explicit(&w->issued, 1, memory_order_relaxed);
	return 0;
}

/*
 * A timed wait that ended at "now" although asked to end at "until": the
 * thread overslept by now - until (timer, scheduler, or on a VM the host
 * waking an idle vCPU -- tens to hundreds of microseconds).  The spin
 * window before a deadline must cover that, or the deadline is missed.
 * The margin moves a quarter of the way towards a larger oversleep (plus a
 * guard) and decays by 1/64 of the excess per wait that overslept less,
 * down to --spin's 40 us.  An oversleep beyond WAKE_MARGIN_CAP is the
 * thread losing its CPU, which no spinning prevents: counted, not learned.
 */
static void wake_learn(struct rpl_worker *w, uint64_t until, uint64_t now)
{
	uint64_t floor = w->run->o.spin_ns, over, want;

	if (now < until)
		return; /* woken early by a completion: says nothing */
	over = now - until;
	if (over > w->oversleep_max)
		w->oversleep_max = over;
	if (!w->run->o.spin_auto || over > WAKE_MARGIN_CAP)
		return;
	want = over + WAKE_GUARD_NS;
	if (want < floor)
		want = floor;
	if (want > WAKE_MARGIN_CAP)
		want = WAKE_MARGIN_CAP;
	if (want > w->wake_margin)
		w->wake_margin += (want - w->wake_margin + 3) / 4;
	else
		w->wake_margin -= (w->wake_margin - want) / 64;
	if (w->wake_margin > w->wake_margin_max)
		w->wake_margin_max = w->wake_margin;
}

/* Before the epoch: a few short timed sleeps, so that the first deadlines
 * are met with a margin measured on this machine rather than guessed. */
static void wake_calibrate(struct rpl_worker *w)
{
	w->wake_margin = w->wake_margin_max = w->run->o.spin_ns;
	if (!w->run->o.spin_auto || w->run->o.virtual_clock || w->run->o.timing == RPL_TIMING_AFAP)
		return;
	for (int i = 0; i < 32; i++) {
		uint64_t until = rpl_mono_ns() + 100000;
		struct timespec ts = { 0, 100000 };

		nanosleep(&ts, NULL);
		wake_learn(w, until, rpl_mono_ns());
	}
}

/* Waits for a completion or until the absolute time until, submitting
 * what is prepared first. */
static int worker_wait(struct rpl_worker *w, uint64_t until)
{
	uint64_t now = rpl_now(w);
	int ret;

	ret = worker_submit(w, now);
	if (ret < 0)
		return ret;
	if (until > now + MAX_SLEEP_NS && !w->run->o.virtual_clock)
		until = now + MAX_SLEEP_NS;
	if (!w->inflight) {
		if (w->run->o.virtual_clock) {
			if (until > w->vclock && until != UINT64_MAX)
				w->vclock = until;
			return 0;
		}
		if (until <= now)
			return 0;
		{
			uint64_t d = until - now;
			struct timespec ts = { (time_t)(d / 1000000000ull),
					       (long)(d % 1000000000ull) };

			nanosleep(&ts, NULL);
			wake_learn(w, until, rpl_mono_ns());
		}
		return 0;
	}
	ret = w->be->reap(w, until);
	if (!ret && until != UINT64_MAX && !w->run->o.virtual_clock)
		wake_learn(w, until, rpl_mono_ns());
	return ret;
}

/* Spins on the clock for the last microseconds before a deadline. */
static uint64_t spin_until(struct rpl_worker *w, uint64_t deadline)
{
	uint64_t now;

	if (w->run->o.virtual_clock) {
		if (w->vclock < deadline)
			w->vclock = deadline;
		return w->vclock;
	}
	do {
		now = rpl_mono_ns();
	} while (now < deadline);
	return now;
}

/* The next I/O to issue and its absolute deadline: 1, or 0 when none is
 * available yet, 2 when none is before *deadline (closed: a CPU burst is
 * due then), -1 at the end.  As fast as possible, the deadline is the
 * epoch: the epoch lies a few ms after the workers start, and an I/O
 * issued before it would fall outside the elapsed time (a short replay
 * ended before its epoch: elapsed 0, IOPS 0). */
static int worker_next(struct rpl_worker *w, struct rpl_io *io,
		       uint64_t *deadline)
{
	struct rpl_run *r = w->run;
	struct rpl_io *q;
	int done, next;

	if (w->closed) {
		/* Keep the per-stream state fed, bounded by the queue size. */
		while (rpl_closed_pending(w) < QUEUE_SIZE &&
		       (q = queue_peek(&w->q))) {
			if (rpl_closed_add(w, q) < 0)
				return -2;
			queue_pop(&w->q);
		}
		next = rpl_closed_next(w, io, deadline, rpl_now(w));
		if (next)
			return next;
		done = atomic_load(&r->decoder_done) && !queue_peek(&w->q);
		return done && !rpl_closed_pending(w) ? -1 : 0;
	}
	q = queue_peek(&w->q);
	if (!q) {
		if (atomic_load(&r->decoder_done) && !queue_peek(&w->q))
			return -1;
		return 0;
	}
	*io = *q;
	queue_pop(&w->q);
	*deadline = r->epoch + (r->o.timing == RPL_TIMING_AFAP ? 0 : io->sched_ns);
	return 1;
}

static int worker_loop(struct rpl_worker *w)
{
	struct rpl_run *r = w->run;
	struct rpl_io io;
	uint64_t deadline = 0, now, stop_at = 0;
	int have = 0, ret, next;

	if (r->o.duration_ns)
		stop_at = r->epoch + r->o.duration_ns;
	for (;;) {
		if (atomic_load_explicit(&r->stop, memory_order_relaxed))
			break;
		if (r->o.interval_ns)
			interval_roll(w, rpl_now(w));
		if (!have) {
			next = worker_next(w, &io, &deadline);
			if (next == -2)
				return -ENOMEM;
			if (next < 0)
				break;
			if (next == 2) {
				/* a CPU burst due then (--cpu-queue burst) */
				if (stop_at && !r->o.virtual_clock && rpl_now(w) >= stop_at)
					break;
				ret = worker_wait(w, deadline);
				if (ret < 0)
					return ret;
				continue;
			}
			if (!next) {
				/* Nothing issuable: reap, or wait for the decoder.
				 * A worker that the trace gives nothing (a device
				 * or stream of another worker only) ends at the
				 * duration too: it waited for the decoder, which
				 * waited for the others' queues, which had
				 * stopped (a looped replay never ended). */
				if (stop_at && !r->o.virtual_clock && rpl_now(w) >= stop_at)
					break;
				if (r->o.virtual_clock) {
					/* Simulated time only moves for I/O. */
					if (!atomic_load(&r->decoder_done) || !w->inflight) {
						usleep(20);
						continue;
					}
					ret = worker_wait(w, UINT64_MAX);
				} else if (w->inflight) {
					ret = worker_wait(w, rpl_now(w) + (w->closed ? MAX_SLEEP_NS : 50000));
				} else {
					if (!w->closed)
						w->starved++;
					ret = worker_wait(w, rpl_now(w) + 50000);
				}
				if (ret < 0)
					return ret;
				continue;
			}
			have = 1;
		}
		now = rpl_now(w);
		if (stop_at && (now >= stop_at || (deadline && deadline >= stop_at)))
			break;
		if (!w->nfree) {
			/* In-flight cap: the device is slower than the trace;
			 * lateness grows and is measured. */
			ret = worker_wait(w, UINT64_MAX);
			if (ret < 0)
				return ret;
			if (w->closed)
				have = 0; /* completions may have readied others */
			continue;
		}
		if (deadline > now) {
			/* The first deadline follows a long idle wait (the
			 * vCPU may be halted): spin from 1 ms before it. */
			uint64_t margin = atomic_load_explicit(&w->issued, memory_order_relaxed) ?
					  w->wake_margin : FIRST_MARGIN_NS;

			if (deadline - now > margin) {
				ret = worker_wait(w, deadline - margin);
				if (ret < 0)
					return ret;
				if (w->closed)
					have = 0;
				continue;
			}
			ret = worker_submit(w, now);
			if (ret < 0)
				return ret;
			now = spin_until(w, deadline);
		}
		ret = worker_prep(w, &io, deadline, now);
		if (ret < 0)
			return ret;
		have = 0;
		/* Batch what is due now; submit as soon as the next I/O is
		 * not due (or the batch is full). */
		if (w->prepared >= 32) {
			ret = worker_submit(w, now);
			if (ret < 0)
				return ret;
		} else if (r->o.timing != RPL_TIMING_AFAP || !w->nfree) {
			struct rpl_io *q = w->closed ? NULL : queue_peek(&w->q);

			if (!q || w->closed || r->epoch + q->sched_ns > now) {
				ret = worker_submit(w, now);
				if (ret < 0)
					return ret;
			}
		} else if (!queue_peek(&w->q)) {
			ret = worker_submit(w, now);
			if (ret < 0)
				return ret;
		}
		/* Reap without waiting to keep slots free. */
		if (w->inflight && (w->inflight >= w->iodepth / 2 || r->o.timing != RPL_TIMING_AFAP)) {
			ret = w->be->reap(w, 0);
			if (ret < 0)
				return ret;
		}
	}
	/* Stop issuing; drain what is in flight. */
	ret = worker_submit(w, rpl_now(w));
	if (ret < 0)
		return ret;
	while (w->inflight) {
		ret = w->be->reap(w, UINT64_MAX);
		if (ret < 0)
			return ret;
	}
	if (!atomic_load(&r->stop))
		rpl_txn_finish_all(w);
	return 0;
}

static void *worker_main(void *arg)
{
	struct rpl_worker *w = arg;
	struct rpl_run *r = w->run;
	int ret;

	/* Timers of this thread fire on time, not up to 50 us late. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (w->cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(w->cpu, &one);
		pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	}
	if (r->o.realtime) {
		struct sched_param sp = { .sched_priority = 10 };

		ret = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
		if (ret && w->id == 0)
			rpl_note(r, "--realtime: SCHED_FIFO refused (%s), normal scheduling",
				 strerror(ret));
		else if (!ret && w->id == 0)
			rpl_feature(r, "sched_fifo");
	}
	ret = w->be->init(w);
	if (ret < 0 && !w->errmsg[0])
		snprintf(w->errmsg, sizeof(w->errmsg), "%s back-end: %s",
			 w->be->name, ist_strerror(ret));
	w->err = ret;
	wake_calibrate(w);
	pthread_mutex_lock(&r->lock);
	atomic_fetch_add(&r->ready, 1);
	pthread_cond_broadcast(&r->cond);
	while (!r->epoch && !atomic_load(&r->stop))
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
	if (!ret && !atomic_load(&r->stop)) {
		w->vclock = r->epoch;
		w->cur_interval = 0;
		ret = worker_loop(w);
		if (ret < 0) {
			w->err = ret;
			snprintf(w->errmsg, sizeof(w->errmsg), "worker %u: %s",
				 w->id, ist_strerror(ret));
			atomic_fetch_or(&r->stop, 2);
		}
	}
	if (r->o.interval_ns)
		rpl_interval_merge(r, w->cur_interval, &w->iacc);
	w->be->fini(w);
	pthread_mutex_lock(&r->lock);
	atomic_fetch_add(&r->finished, 1);
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* ------------------------------------------------------------ decoder */

static unsigned pick_worker(struct rpl_run *r, const struct ist_record *rec,
			    unsigned orig_dev)
{
	if (r->nw == 1)
		return 0;
	if (r->o.partition == RPL_PART_STREAM)
		return (unsigned)(rec->stream % r->nw);
	return orig_dev % r->nw;
}

static int decoder_push(struct rpl_run *r, unsigned wi, const struct rpl_io *io)
{
	struct rpl_queue *q = &r->w[wi].q;
	struct timespec ts = { 0, 1000000 };

	while (!queue_push(q, io)) {
		if (atomic_load_explicit(&r->stop, memory_order_relaxed))
			return 1;
		if (r->w[wi].err)
			return 1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

static void *decoder_main(void *arg)
{
	struct rpl_run *r = arg;
	struct rpl_source *s = r->src;
	struct ist_record *buf = malloc(DECODE_BATCH * sizeof(*buf));
	uint64_t seq = 0, span = 0, last_rel = 0, loop_base = 0, n_in_loop;
	double speed = r->o.speed;
	struct rpl_io io;
	ssize_t n;
	int ret = 0, stop = 0;

	if (r->pinned)
		pthread_setaffinity_np(pthread_self(), sizeof(r->others), &r->others);
	if (!buf) {
		r->src_err = -ENOMEM;
		goto out;
	}
	for (unsigned loop = 0; loop < r->o.loops && !stop; loop++) {
		if (loop) {
			/* the run stopped (duration, interrupt): not another
			 * pass (a short looped source, read to fill a queue
			 * nobody empties, rewound thousands of times) */
			if (atomic_load_explicit(&r->stop, memory_order_relaxed))
				break;
			ret = s->ops->rewind(s);
			if (ret < 0) {
				r->src_err = ret;
				break;
			}
			/* The next pass starts one mean gap after the last. */
			span = last_rel + (n_in_loop > 1 ? last_rel / (n_in_loop - 1) : 1);
			loop_base += span;
		}
		n_in_loop = 0;
		if (r->o.from_ns && s->ops->seek_time)
			s->ops->seek_time(s, r->o.from_ns);
		while (!stop && !atomic_load_explicit(&r->stop, memory_order_relaxed) &&
		       (n = s->ops->read(s, buf, DECODE_BATCH)) != 0) {
			if (n < 0) {
				r->src_err = (int)n;
				if (s->ops->where)
					s->ops->where(s, r->src_where, sizeof(r->src_where));
				stop = 1;
				break;
			}
			for (ssize_t i = 0; i < n && !stop; i++) {
				struct ist_record *rec = &buf[i];
				unsigned orig_dev = rec->dev;
				uint64_t rel;

				if (rec->t_ns < r->o.from_ns)
					continue;
				if (r->o.to_ns && rec->t_ns >= r->o.to_ns)
					goto next_loop;
				rel = rec->t_ns - r->o.from_ns;
				if (rel > last_rel)
					last_rel = rel;
				n_in_loop++;
				r->records_read++;
				io.rec = *rec;
				io.rec.t_ns = loop_base + rel;
				switch (r->o.timing) {
				case RPL_TIMING_ORIGINAL:
					io.sched_ns = ist_ns_sat((double)io.rec.t_ns / speed);
					break;
				case RPL_TIMING_RATE:
					io.sched_ns = ist_ns_sat((double)seq * 1e9 / r->o.rate_iops);
					break;
				default:
					io.sched_ns = 0;
					break;
				}
				if (r->o.duration_ns && io.sched_ns >= r->o.duration_ns &&
				    (r->o.timing == RPL_TIMING_ORIGINAL ||
				     r->o.timing == RPL_TIMING_RATE)) {
					stop = 1;
					break;
				}
				if (io.sched_ns > r->schedule_ns)
					r->schedule_ns = io.sched_ns;
				if (r->o.read_only &&
				    (rec->op == IST_OP_WRITE || rec->op == IST_OP_DISCARD ||
				     rec->op == IST_OP_WRITE_ZEROES)) {
					r->skipped_ro++;
					continue;
				}
				if (rpl_map_io(r, &io.rec))
					continue;
				io.seq = seq++;
				io.dev = orig_dev;
				if (decoder_push(r, pick_worker(r, &io.rec, orig_dev), &io))
					stop = 1;
			}
		}
next_loop:
		;
	}
out:
	free(buf);
	atomic_store(&r->decoder_done, 1);
	return NULL;
}

/* ------------------------------------------------------------ start/stop */

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ull + (uint64_t)tv->tv_usec * 1000ull;
}

/*
 * CPU placement.  A worker spins on the clock in the last microseconds
 * before each deadline; a thread that has to share its CPU (io_uring's
 * async io-wq threads, which execute every I/O on devices without
 * REQ_NOWAIT support such as zram; the decoder) waits for a scheduler
 * slice, and the I/O leaves up to a millisecond late.  When there are more
 * CPUs than workers, each worker gets a CPU of its own (the highest ones
 * of the allowed set) and everything else the remaining CPUs.
 */
static void plan_cpus(struct rpl_run *r)
{
	cpu_set_t allowed;
	int cpus[CPU_SETSIZE], n = 0;

	for (unsigned i = 0; i < r->nw; i++)
		r->w[i].cpu = -1;
	if (r->o.no_pin || r->o.backend == RPL_BACKEND_NULL || r->o.virtual_clock)
		return;
	/*
	 * A closed loop on a target whose I/O a kernel thread does (a loop
	 * device's worker): every I/O waits for that thread, and the next
	 * one of its stream for the completion.  A worker alone on its CPU
	 * (and the io-wq threads that do its flushes held on the others)
	 * made whole replays run at a third to half of the rate of the
	 * same replay unpinned, in 2 of 3 runs (tmpfs loop device, 2 vCPUs;
	 * bench/README.md, "Closed loop"): not pinned, unless --pin (on an
	 * otherwise idle machine pinning was 5-10% faster).
	 */
	if (r->o.timing == RPL_TIMING_CLOSED && !r->o.pin)
		for (unsigned k = 0; k < r->ntgt; k++)
			if (r->tgt[k].kthread_io) {
				rpl_note(r, "workers not pinned: %s: a kernel thread does its I/O "
					 "(a loop device, or a file on one), closed timing waits "
					 "for it; --pin to pin them", r->tgt[k].path);
				return;
			}
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		return;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[n++] = c;
	if (n < 2 || r->nw >= (unsigned)n) {
		rpl_note(r, "workers not pinned: %d CPUs for %u workers", n, r->nw);
		return;
	}
	r->others = allowed;
	for (unsigned i = 0; i < r->nw; i++) {
		r->w[i].cpu = cpus[n - 1 - (int)i];
		CPU_CLR(r->w[i].cpu, &r->others);
	}
	r->pinned = 1;
	rpl_feature(r, "cpu_pinning");
}

int rpl_run_start(rpl_run *r)
{
	struct rusage ru;
	unsigned nw = r->o.workers;
	int ret;

	r->w = calloc(nw, sizeof(*r->w));
	if (!r->w)
		return -ENOMEM;
	r->nw = nw;
	if (r->o.interval_ns) {
		r->niv = 0;
		r->iv = NULL;
	}
	for (unsigned i = 0; i < nw; i++) {
		struct rpl_worker *w = &r->w[i];

		w->run = r;
		w->id = i;
		w->iodepth = r->o.iodepth;
		w->be = r->o.backend == RPL_BACKEND_NULL ? &rpl_backend_null
							  : &rpl_backend_uring;
		ret = queue_init(&w->q, QUEUE_SIZE);
		if (ret < 0)
			return ret;
		w->slots = calloc(w->iodepth, sizeof(*w->slots));
		w->free_slots = calloc(w->iodepth, sizeof(*w->free_slots));
		if (!w->slots || !w->free_slots)
			return -ENOMEM;
		for (unsigned k = 0; k < w->iodepth; k++) {
			w->slots[k].idx = k;
			w->free_slots[k] = w->iodepth - 1 - k;
		}
		w->nfree = w->iodepth;
		for (unsigned k = 0; k < IST_OP_COUNT; k++)
			if (rpl_hist_init(&w->lat[k]) || rpl_hist_init(&w->rec_lat[k]))
				return -ENOMEM;
		if (rpl_hist_init(&w->late) || rpl_hist_init(&w->txn_lat) ||
		    rpl_hist_init(&w->txn_lat_streams) ||
		    rpl_hist_init(&w->rec_txn_lat) || rpl_iacc_init(&w->iacc))
			return -ENOMEM;
		if (r->o.timing == RPL_TIMING_CLOSED && rpl_closed_init(w) < 0)
			return -ENOMEM;
		if (rpl_txn_init(w) < 0)
			return -ENOMEM;
	}
	plan_cpus(r);
	getrusage(RUSAGE_SELF, &ru);
	r->cpu0_user = tv_ns(&ru.ru_utime);
	r->cpu0_sys = tv_ns(&ru.ru_stime);
	for (unsigned i = 0; i < nw; i++) {
		ret = pthread_create(&r->w[i].thread, NULL, worker_main, &r->w[i]);
		if (ret) {
			atomic_store(&r->stop, 1);
			return -ret;
		}
		r->w[i].started = 1;
	}
	/* Wait for the workers' rings, then let the decoder fill the queues
	 * a little before the epoch so that the first deadlines are met. */
	pthread_mutex_lock(&r->lock);
	while ((unsigned)atomic_load(&r->ready) < nw)
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
	for (unsigned i = 0; i < nw; i++)
		if (r->w[i].err) {
			snprintf(r->errmsg, sizeof(r->errmsg), "%s", r->w[i].errmsg);
			atomic_store(&r->stop, 1);
			pthread_mutex_lock(&r->lock);
			r->epoch = 1;
			pthread_cond_broadcast(&r->cond);
			pthread_mutex_unlock(&r->lock);
			return r->w[i].err;
		}
	ret = pthread_create(&r->decoder, NULL, decoder_main, r);
	if (ret) {
		atomic_store(&r->stop, 1);
		return -ret;
	}
	r->decoder_started = 1;
	for (int i = 0; i < 200 && !atomic_load(&r->decoder_done); i++) {
		unsigned filled = 0;

		for (unsigned k = 0; k < nw; k++)
			if (atomic_load(&r->w[k].q.tail) >= QUEUE_SIZE / 2)
				filled++;
		if (filled == nw)
			break;
		usleep(500);
	}
	pthread_mutex_lock(&r->lock);
	/* In the future by more than a thread wake-up on a busy machine:
	 * the first deadlines are met like the others. */
	r->epoch = rpl_mono_ns() + 5000000;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

void rpl_run_stop(rpl_run *r)
{
	atomic_fetch_or(&r->stop, 1);
}

int rpl_run_wait(rpl_run *r, unsigned timeout_ms)
{
	struct timespec ts;
	int done;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&r->lock);
	while ((unsigned)atomic_load(&r->finished) < r->nw) {
		if (pthread_cond_timedwait(&r->cond, &r->lock, &ts))
			break;
	}
	done = (unsigned)atomic_load(&r->finished) >= r->nw;
	pthread_mutex_unlock(&r->lock);
	if (!done)
		return 0;
	if (r->decoder_started) {
		/* Workers stopped early (duration, error): let the decoder go. */
		if (!atomic_load(&r->decoder_done))
			atomic_fetch_or(&r->stop, 2);
		pthread_join(r->decoder, NULL);
		r->decoder_started = 0;
	}
	return 1;
}

void rpl_run_progress(rpl_run *r, struct rpl_progress *p)
{
	uint64_t now = rpl_mono_ns();

	memset(p, 0, sizeof(*p));
	p->elapsed_ns = r->epoch && now > r->epoch ? now - r->epoch : 0;
	p->expected = r->expected;
	for (unsigned i = 0; i < r->nw; i++) {
		p->issued += atomic_load_explicit(&r->w[i].issued, memory_order_relaxed);
		p->completed += atomic_load_explicit(&r->w[i].completed, memory_order_relaxed);
	}
	pthread_mutex_lock(&r->lock);
	if (r->res.nintervals) {
		const struct rpl_interval *row = &r->res.intervals[r->res.nintervals - 1];
		uint64_t ios = 0;

		for (unsigned k = 0; k < IST_OP_COUNT; k++)
			ios += row->ios[k];
		p->last_iops = (uint64_t)((double)ios * 1e9 / (double)row->length_ns);
		p->last_p99_ns = row->lat.p99;
		p->last_late_p99_ns = row->late.p99;
	}
	pthread_mutex_unlock(&r->lock);
}

const struct rpl_result *rpl_run_result(rpl_run *r, int *err)
{
	struct rusage ru;
	int ret;

	*err = 0;
	if (r->have_result)
		return &r->res;
	getrusage(RUSAGE_SELF, &ru);
	r->res.cpu_user_ns = tv_ns(&ru.ru_utime) - r->cpu0_user;
	r->res.cpu_sys_ns = tv_ns(&ru.ru_stime) - r->cpu0_sys;
	for (unsigned i = 0; i < r->nw; i++)
		if (r->w[i].err) {
			snprintf(r->errmsg, sizeof(r->errmsg), "%s", r->w[i].errmsg);
			*err = r->w[i].err;
			return NULL;
		}
	if (r->src_err) {
		snprintf(r->errmsg, sizeof(r->errmsg), "%s: %s%s%s",
			 r->src->path ? r->src->path : "trace",
			 r->src_where[0] ? r->src_where : "",
			 r->src_where[0] ? ": " : "", ist_strerror(r->src_err));
		*err = r->src_err;
		return NULL;
	}
	ret = rpl_results_build(r);
	if (ret < 0) {
		*err = ret;
		return NULL;
	}
	r->have_result = 1;
	return &r->res;
}

void rpl_run_free(rpl_run *r)
{
	if (!r)
		return;
	if (r->w) {
		atomic_store(&r->stop, 1);
		pthread_mutex_lock(&r->lock);
		if (!r->epoch)
			r->epoch = 1;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
		for (unsigned i = 0; i < r->nw; i++)
			if (r->w[i].started)
				pthread_join(r->w[i].thread, NULL);
		if (r->decoder_started)
			pthread_join(r->decoder, NULL);
		for (unsigned i = 0; i < r->nw; i++) {
			struct rpl_worker *w = &r->w[i];

			free(w->q.ring);
			free(w->slots);
			free(w->free_slots);
			for (unsigned k = 0; k < IST_OP_COUNT; k++) {
				rpl_hist_release(&w->lat[k]);
				rpl_hist_release(&w->rec_lat[k]);
			}
			rpl_hist_release(&w->late);
			rpl_hist_release(&w->txn_lat);
			rpl_hist_release(&w->txn_lat_streams);
			rpl_hist_release(&w->rec_txn_lat);
			rpl_iacc_release(&w->iacc);
			rpl_closed_free(w);
			rpl_txn_free(w);
		}
		free(r->w);
	}
	for (size_t i = 0; i < r->niv; i++)
		rpl_iacc_release(&r->iv[i]);
	free(r->iv);
	rpl_results_free(&r->res);
	rpl_targets_close(r);
	free(r->pool);
	free(r->dev_map);
	free(r->dev_size);
	free(r->null_unlisted);
	ist_totals_release(&r->totals);
	rpl_source_close(r->src);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	free(r);
}

void rpl_run_report_info(rpl_run *r, struct rpl_report_info *info)
{
	memset(info, 0, sizeof(*info));
	info->trace_path = r->src->path;
	info->trace_format = r->src->format;
	info->header = r->src->header;
	info->totals = r->have_totals ? &r->totals : NULL;
	info->opts = &r->o;
}
