/* SPDX-License-Identifier: MIT */
/* backend_uring.c - the io_uring back-end: one ring per worker, registered files and buffers. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "replay/internal.h"

#define FIXED_READ_MAX (1u << 20) /* registered part of the read buffer */

struct uring_priv {
	struct io_uring ring;
	int ring_ok;
	unsigned flags;          /* setup flags in use */
	int fixed_files, fixed_bufs;
	unsigned char *rbuf;     /* read scratch: data read is discarded */
	unsigned char **sbuf;    /* stamp mode: per-slot write buffers */
	size_t *sbuf_size;
	/* inline targets: I/Os done in prep, completed at the next reap */
	unsigned *done_idx;
	int *done_res;
	uint64_t *done_t;
	unsigned ndone;
};

/* IOPOLL only works where the block device has poll queues. */
static int target_can_poll(const struct rpl_target *t)
{
	struct stat st;
	char path[128];
	FILE *f;
	int v = 0;

	if (!t->is_blk || !t->direct || fstat(t->fd, &st) < 0)
		return 0;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/io_poll",
		 major(st.st_rdev), minor(st.st_rdev));
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v == 1;
}

static int setup_ring(struct rpl_worker *w, struct uring_priv *u)
{
	struct rpl_run *r = w->run;
	unsigned entries = 8, wanted_poll = 0;
	struct io_uring_params p;
	int ret, first = w->id == 0;
	static const unsigned tries[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};

	while (entries < w->iodepth && entries < 32768)
		entries <<= 1;
	if (r->o.iopoll) {
		int ok = 1;

		for (unsigned k = 0; k < r->ntgt; k++)
			ok &= target_can_poll(&r->tgt[k]);
		if (ok)
			wanted_poll = IORING_SETUP_IOPOLL;
		else if (first)
			rpl_note(r, "--iopoll: a target has no poll queues (queue/io_poll), interrupts used");
	}
	if (r->o.sqpoll) {
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_SQPOLL | wanted_poll;
		p.sq_thread_idle = 200;
		p.cq_entries = entries * 2;
		p.flags |= IORING_SETUP_CQSIZE;
		ret = io_uring_queue_init_params(entries, &u->ring, &p);
		if (!ret) {
			u->flags = p.flags;
			if (first)
				rpl_feature(r, "sqpoll");
			goto done;
		}
		if (first)
			rpl_note(r, "--sqpoll: not available (%s), normal submission used",
				 strerror(-ret));
	}
	for (unsigned i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		memset(&p, 0, sizeof(p));
		p.flags = tries[i] | wanted_poll | IORING_SETUP_CQSIZE;
		p.cq_entries = entries * 2;
		ret = io_uring_queue_init_params(entries, &u->ring, &p);
		if (!ret) {
			u->flags = p.flags;
			if (i && first)
				rpl_note(r, "io_uring: %s not available, fell back",
					 i == 1 ? "DEFER_TASKRUN" : "SINGLE_ISSUER");
			goto done;
		}
		if (ret != -EINVAL)
			break;
	}
	snprintf(w->errmsg, sizeof(w->errmsg), "io_uring_setup: %s", strerror(-ret));
	return ret;
done:
	u->ring_ok = 1;
	if (first) {
		if (u->flags & IORING_SETUP_SINGLE_ISSUER)
			rpl_feature(r, "single_issuer");
		if (u->flags & IORING_SETUP_DEFER_TASKRUN)
			rpl_feature(r, "defer_taskrun");
		if (u->flags & IORING_SETUP_COOP_TASKRUN)
			rpl_feature(r, "coop_taskrun");
		if (u->flags & IORING_SETUP_IOPOLL)
			rpl_feature(r, "iopoll");
	}
	return 0;
}

/*
 * Block devices without REQ_NOWAIT support (zram, other bio-based
 * drivers) and some files make io_uring hand every read and write to its
 * io-wq threads.  The first such I/O would pay for creating those threads
 * (hundreds of microseconds) and the first milliseconds of the replay
 * would run late.  Create them before the epoch instead, with reads that
 * are forced async from an anonymous memory file: no I/O reaches a
 * target, so an observer of the device sees only the trace's I/O.
 */
#define WARM_IOS 8

static void warm_io_wq(struct rpl_worker *w, struct uring_priv *u)
{
	struct io_uring_cqe *cqe;
	int fd[2];
	unsigned n = 0;

	(void)w;
	if (u->flags & IORING_SETUP_IOPOLL)
		return; /* neither file can be polled */
	/* Reads of block devices and other non-regular files run on the
	 * unbound io-wq threads, reads of regular files on the bound ones:
	 * warm both, from /dev/zero and from an anonymous memory file. */
	fd[0] = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	fd[1] = memfd_create("iostorm-warm", MFD_CLOEXEC);
	if (fd[1] >= 0 && ftruncate(fd[1], 4096) < 0) {
		close(fd[1]);
		fd[1] = -1;
	}
	for (unsigned round = 0; round < 4; round++) {
		for (unsigned i = 0; i < 2 * WARM_IOS; i++) {
			struct io_uring_sqe *sqe;
			int f = fd[i % 2];

			if (f < 0 || !(sqe = io_uring_get_sqe(&u->ring)))
				continue;
			io_uring_prep_read(sqe, f, u->rbuf + 512 * i, 512, 0);
			sqe->flags |= IOSQE_ASYNC;
			io_uring_sqe_set_data64(sqe, UINT64_MAX);
			n++;
		}
		if (io_uring_submit(&u->ring) < 0)
			break;
		while (n && io_uring_wait_cqe(&u->ring, &cqe) == 0) {
			io_uring_cqe_seen(&u->ring, cqe);
			n--;
		}
	}
	for (unsigned i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

static int uring_init(struct rpl_worker *w)
{
	struct rpl_run *r = w->run;
	struct uring_priv *u = calloc(1, sizeof(*u));
	struct iovec iov[2];
	int *fds, ret, first = w->id == 0;
	void *mem;

	if (!u)
		return -ENOMEM;
	w->be_priv = u;
	ret = setup_ring(w, u);
	if (ret < 0)
		return ret;
	fds = calloc(r->ntgt, sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	for (unsigned k = 0; k < r->ntgt; k++)
		fds[k] = r->tgt[k].fd;
	ret = io_uring_register_files(&u->ring, fds, r->ntgt);
	free(fds);
	if (!ret) {
		u->fixed_files = 1;
		if (first)
			rpl_feature(r, "fixed_files");
	} else if (first) {
		rpl_note(r, "io_uring: registered files unavailable (%s)", strerror(-ret));
	}
	if (posix_memalign(&mem, 4096, RPL_MAX_IO_LEN))
		return -ENOMEM;
	u->rbuf = mem;
	iov[0].iov_base = u->rbuf;
	iov[0].iov_len = FIXED_READ_MAX;
	iov[1].iov_base = r->pool;
	iov[1].iov_len = r->pool_size;
	ret = io_uring_register_buffers(&u->ring, iov, r->pool ? 2 : 1);
	if (!ret) {
		u->fixed_bufs = 1;
		if (first)
			rpl_feature(r, "fixed_buffers");
	} else if (first) {
		rpl_note(r, "io_uring: registered buffers unavailable (%s)", strerror(-ret));
	}
	if (r->pinned) {
		/* io-wq threads off the workers' CPUs (see plan_cpus) */
		ret = io_uring_register_iowq_aff(&u->ring, sizeof(r->others), &r->others);
		if (ret < 0 && first)
			rpl_note(r, "io_uring: io-wq CPU affinity unavailable (%s)",
				 strerror(-ret));
	}
	warm_io_wq(w, u);
	u->done_idx = calloc(w->iodepth, sizeof(*u->done_idx));
	u->done_res = calloc(w->iodepth, sizeof(*u->done_res));
	u->done_t = calloc(w->iodepth, sizeof(*u->done_t));
	if (!u->done_idx || !u->done_res || !u->done_t)
		return -ENOMEM;
	for (unsigned k = 0; k < r->ntgt; k++)
		if (r->tgt[k].inline_io && first) {
			rpl_feature(r, "inline_io");
			break;
		}
	if (r->o.data == RPL_DATA_STAMP) {
		u->sbuf = calloc(w->iodepth, sizeof(*u->sbuf));
		u->sbuf_size = calloc(w->iodepth, sizeof(*u->sbuf_size));
		if (!u->sbuf || !u->sbuf_size)
			return -ENOMEM;
	}
	return 0;
}

static void uring_fini(struct rpl_worker *w)
{
	struct uring_priv *u = w->be_priv;

	if (!u)
		return;
	if (u->ring_ok) {
		/* The ring is torn down asynchronously after close: release
		 * the registered files now, or the O_EXCL claim on a block
		 * device outlives the run by some milliseconds. */
		if (u->fixed_files)
			io_uring_unregister_files(&u->ring);
		if (u->fixed_bufs)
			io_uring_unregister_buffers(&u->ring);
		io_uring_queue_exit(&u->ring);
	}
	free(u->rbuf);
	if (u->sbuf)
		for (unsigned i = 0; i < w->iodepth; i++)
			free(u->sbuf[i]);
	free(u->sbuf);
	free(u->sbuf_size);
	free(u->done_idx);
	free(u->done_res);
	free(u->done_t);
	free(u);
	w->be_priv = NULL;
}

static unsigned char *stamp_buffer(struct uring_priv *u, struct rpl_slot *s)
{
	uint32_t len = s->io.rec.len;
	void *mem;

	if (u->sbuf_size[s->idx] < len) {
		free(u->sbuf[s->idx]);
		u->sbuf[s->idx] = NULL;
		u->sbuf_size[s->idx] = 0;
		if (posix_memalign(&mem, 4096, len))
			return NULL;
		u->sbuf[s->idx] = mem;
		u->sbuf_size[s->idx] = len;
	}
	rpl_data_stamp(u->sbuf[s->idx], len, s->io.seq, s->io.rec.offset);
	return u->sbuf[s->idx];
}

/* Data of a write: the stamp buffer or the next piece of the pattern pool. */
static unsigned char *write_data(struct rpl_worker *w, struct uring_priv *u,
				 struct rpl_slot *s, uint64_t *pool_off)
{
	*pool_off = UINT64_MAX;
	if (u->sbuf)
		return stamp_buffer(u, s);
	*pool_off = rpl_data_next(w, s->io.rec.len);
	return w->run->pool + *pool_off;
}

/*
 * With --inline auto, an I/O is done inline only when it is on time: one
 * that is already late by more than this (the worker fell behind: a
 * burst, or the host took the CPU) goes through io_uring like the ones
 * of --timing afap, so that io-wq threads on the other CPUs catch up in
 * parallel instead of the worker doing every late read in turn.
 */
#define INLINE_MAX_LATE_NS 50000ull

/*
 * An inline target: the worker does the I/O itself, now, and completes
 * it at the next reap (the engine counts it in flight meanwhile).  The
 * device sees it at the deadline, not after a hand-off to io-wq.
 */
static int inline_io(struct rpl_worker *w, struct uring_priv *u, struct rpl_slot *s)
{
	const struct ist_record *rec = &s->io.rec;
	int fd = w->run->tgt[rec->dev].fd;
	unsigned char *buf;
	uint64_t po;
	ssize_t n;
	int res;

	switch (rec->op) {
	case IST_OP_READ:
		n = pread(fd, u->rbuf, rec->len, (off_t)rec->offset);
		res = n < 0 ? -errno : (int)n;
		break;
	case IST_OP_WRITE:
		buf = write_data(w, u, s, &po);
		if (!buf)
			return -ENOMEM;
		n = pwrite(fd, buf, rec->len, (off_t)rec->offset);
		res = n < 0 ? -errno : (int)n;
		break;
	case IST_OP_FLUSH:
		res = fdatasync(fd) < 0 ? -errno : 0;
		break;
	case IST_OP_DISCARD:
		res = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)rec->offset, (off_t)rec->len) < 0 ? -errno : 0;
		break;
	case IST_OP_WRITE_ZEROES:
		res = fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
				(off_t)rec->offset, (off_t)rec->len) < 0 ? -errno : 0;
		break;
	default:
		res = 0;
		break;
	}
	w->inline_ios++;
	s->io.sync = 1; /* the worker did it: no sleep for its completion */
	u->done_idx[u->ndone] = s->idx;
	u->done_res[u->ndone] = res;
	u->done_t[u->ndone] = rpl_mono_ns();
	u->ndone++;
	return 0;
}

static unsigned drain_inline(struct rpl_worker *w, struct uring_priv *u)
{
	unsigned n = u->ndone;

	u->ndone = 0;
	for (unsigned i = 0; i < n; i++) {
		struct rpl_slot *s = &w->slots[u->done_idx[i]];
		int res = u->done_res[i];

		if (res >= 0 && (s->io.rec.op == IST_OP_READ || s->io.rec.op == IST_OP_WRITE) &&
		    (unsigned)res != s->io.rec.len)
			res = -EIO;
		rpl_complete(w, s, res, u->done_t[i]);
	}
	return n;
}

static int uring_prep(struct rpl_worker *w, struct rpl_slot *s)
{
	struct uring_priv *u = w->be_priv;
	const struct ist_record *rec = &s->io.rec;
	struct rpl_run *r = w->run;
	struct io_uring_sqe *sqe;
	int fd = u->fixed_files ? (int)rec->dev : r->tgt[rec->dev].fd;
	unsigned char *buf;
	uint64_t po;

	if (r->tgt[rec->dev].inline_io &&
	    (r->o.inline_io == RPL_INLINE_ALWAYS ||
	     (r->o.timing != RPL_TIMING_AFAP && s->deadline &&
	      s->issue <= s->deadline + INLINE_MAX_LATE_NS))) {
		int ret = inline_io(w, u, s);

		return ret < 0 ? ret : 1;
	}
	sqe = io_uring_get_sqe(&u->ring);
	if (!sqe) {
		/* The SQ ring is full of prepared I/Os: push them first. */
		int ret = io_uring_submit(&u->ring);

		if (ret < 0)
			return ret;
		w->prepared = 0;
		sqe = io_uring_get_sqe(&u->ring);
		if (!sqe)
			return -EBUSY;
	}
	switch (rec->op) {
	case IST_OP_READ:
		if (u->fixed_bufs && rec->len <= FIXED_READ_MAX)
			io_uring_prep_read_fixed(sqe, fd, u->rbuf, rec->len, rec->offset, 0);
		else
			io_uring_prep_read(sqe, fd, u->rbuf, rec->len, rec->offset);
		break;
	case IST_OP_WRITE:
		if (u->sbuf) {
			buf = stamp_buffer(u, s);
			if (!buf)
				return -ENOMEM;
			io_uring_prep_write(sqe, fd, buf, rec->len, rec->offset);
			break;
		}
		po = rpl_data_next(w, rec->len);
		if (u->fixed_bufs)
			io_uring_prep_write_fixed(sqe, fd, r->pool + po, rec->len,
						  rec->offset, 1);
		else
			io_uring_prep_write(sqe, fd, r->pool + po, rec->len, rec->offset);
		break;
	case IST_OP_FLUSH:
		/* fdatasync, as the inline path: a device's cache flush makes
		 * the data written durable; a full fsync would also write a
		 * file target's timestamps through its journal, I/O the trace
		 * never did (same on a block device) */
		io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
		break;
	case IST_OP_DISCARD:
		io_uring_prep_fallocate(sqe, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					rec->offset, rec->len);
		break;
	case IST_OP_WRITE_ZEROES:
		io_uring_prep_fallocate(sqe, fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
					rec->offset, rec->len);
		break;
	default:
		io_uring_prep_nop(sqe);
		break;
	}
	if (u->fixed_files)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, s->idx);
	return 0;
}

static int uring_submit(struct rpl_worker *w)
{
	struct uring_priv *u = w->be_priv;
	int ret;

	/* With DEFER_TASKRUN completions are only posted when we ask: do it
	 * in the same system call as the submission. */
	if (u->flags & IORING_SETUP_DEFER_TASKRUN)
		ret = io_uring_submit_and_get_events(&u->ring);
	else
		ret = io_uring_submit(&u->ring);
	return ret < 0 && ret != -EINTR ? ret : 0;
}

static unsigned drain_cq(struct rpl_worker *w, struct uring_priv *u)
{
	struct io_uring_cqe *cqes[64];
	unsigned n, total = 0;
	uint64_t now;

	while ((n = io_uring_peek_batch_cqe(&u->ring, cqes, 64)) > 0) {
		now = rpl_mono_ns();
		for (unsigned i = 0; i < n; i++) {
			struct rpl_slot *s = &w->slots[cqes[i]->user_data];
			int res = cqes[i]->res;

			/* A short transfer is an error for a replay: the device
			 * did not do what the trace asked. */
			if (res >= 0 && (s->io.rec.op == IST_OP_READ ||
					 s->io.rec.op == IST_OP_WRITE) &&
			    (unsigned)res != s->io.rec.len)
				res = -EIO;
			rpl_complete(w, s, res, now);
		}
		io_uring_cq_advance(&u->ring, n);
		total += n;
	}
	return total;
}

static int uring_reap(struct rpl_worker *w, uint64_t until)
{
	struct uring_priv *u = w->be_priv;
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts;
	uint64_t now;
	int ret;

	if (u->ndone && drain_inline(w, u) && until)
		return 0;
	if (!until) {
		if ((u->flags & IORING_SETUP_DEFER_TASKRUN) && !io_uring_cq_ready(&u->ring)) {
			if (u->flags & IORING_SETUP_IOPOLL)
				io_uring_get_events(&u->ring);
		}
		drain_cq(w, u);
		return 0;
	}
	if (drain_cq(w, u))
		return 0;
	if (until == UINT64_MAX) {
		ret = io_uring_wait_cqe(&u->ring, &cqe);
	} else {
		now = rpl_mono_ns();
		if (until <= now)
			return 0;
		ts.tv_sec = (long long)((until - now) / 1000000000ull);
		ts.tv_nsec = (long long)((until - now) % 1000000000ull);
		ret = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);
	}
	if (ret < 0 && ret != -ETIME && ret != -EINTR && ret != -EAGAIN)
		return ret;
	drain_cq(w, u);
	return 0;
}

const struct rpl_backend_ops rpl_backend_uring = {
	.name = "io_uring",
	.init = uring_init,
	.fini = uring_fini,
	.prep = uring_prep,
	.submit = uring_submit,
	.reap = uring_reap,
};
