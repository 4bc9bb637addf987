/* SPDX-License-Identifier: MIT */
/* rec_spool.c - record --spool: the splicer thread that moves the trace
 * buffers' sub-buffers to the spool, the spool's meta file, and
 * --recover's recorder over a spool. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/trace_rec.h"

#ifdef HAVE_TRACEFS

#include "capture/trace_rec_int.h"

/*
 * --spool, the splicer's side.  One round: each CPU's full sub-buffers go
 * from trace_pipe_raw to its spool file by splice() (the ring's pages are
 * handed to a pipe, then copied once into the page cache: no copy to user
 * space and no decoding); when there was none (or while stopping), the
 * partly filled one is read() as the live reader does, so that the
 * decoder learns that the CPU's ring was empty at the round's start.
 * A round is published (bytes per CPU, and the round's time when every
 * CPU's ring was read empty) under sp_lock.
 */
static int spool_cpu(cap_rec *r, struct cpu_reader *cr, int partial,
		     int *behind, uint64_t *drained, uint64_t *moved)
{
	uint64_t before = now_mono();
	size_t bytes = 0;
	int spliced = 0;

	*drained = 0;
	while (bytes < BYTES_PER_ROUND) {
		loff_t off = (loff_t)cr->wr_off;
		ssize_t n = splice(cr->fd, NULL, cr->pipe[1], NULL,
				   SPLICE_SLOTS * r->page_size,
				   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		spliced = 1;
		while (n > 0) {
			ssize_t w = splice(cr->pipe[0], NULL, cr->sfd, &off,
					   (size_t)n, SPLICE_F_MOVE);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return w < 0 ? -errno : -EIO;
			n -= w;
			bytes += (size_t)w;
		}
		cr->wr_off = (uint64_t)off;
	}
	if (bytes >= BYTES_PER_ROUND) {
		*behind = 1;
	} else if (!spliced || partial) {
		for (;;) {
			ssize_t n = read(cr->fd, cr->spage, r->page_size);
			size_t w = 0;

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno != EAGAIN)
				return -errno;
			if (n <= 0) {
				*drained = before;
				break;
			}
			/* one slot per sub-buffer, whatever the read gave */
			memset(cr->spage + n, 0, r->page_size - (size_t)n);
			while (w < r->page_size) {
				ssize_t k = pwrite(cr->sfd, cr->spage + w,
						   r->page_size - w,
						   (off_t)(cr->wr_off + w));

				if (k < 0 && errno == EINTR)
					continue;
				if (k <= 0)
					return k < 0 ? -errno : -EIO;
				w += (size_t)k;
			}
			cr->wr_off += r->page_size;
			bytes += r->page_size;
			if (bytes >= BYTES_PER_ROUND) {
				*behind = 1;
				break;
			}
		}
	}
	if (cr->wr_off % r->page_size)
		return -EIO; /* a sub-buffer not moved whole */
	*moved += bytes;
	return 0;
}

static int spool_round(cap_rec *r, int partial, int *behind, uint64_t *moved)
{
	uint64_t drained[CAP_SPOOL_CPUS_MAX], round = now_mono();
	int all = 1;

	*behind = 0;
	for (int c = 0; c < r->ncpu; c++) {
		struct cpu_reader *cr = &r->cpu[c];
		int ret;

		drained[c] = 1;
		if (cr->fd < 0)
			continue;
		ret = spool_cpu(r, cr, partial, behind, &drained[c], moved);
		if (ret < 0)
			return ret;
		if (!drained[c])
			all = 0;
	}
	pthread_mutex_lock(&r->sp_lock);
	for (int c = 0; c < r->ncpu; c++) {
		r->cpu[c].pub_bytes = r->cpu[c].wr_off;
		r->cpu[c].pub_drained = drained[c];
	}
	if (all)
		r->pub_round_ns = round;
	pthread_mutex_unlock(&r->sp_lock);
	return 0;
}

void *cap_spool_splicer_main(void *arg)
{
	cap_rec *r = arg;
	int off = 0;

	for (;;) {
		int final = __atomic_load_n(&r->sp_final, __ATOMIC_ACQUIRE);
		int stopping = __atomic_load_n(&r->sp_stopping, __ATOMIC_ACQUIRE);
		uint64_t moved = 0;
		int behind, ret;

		if (final == 2)
			break;
		if (!r->boosted && ((r->stop_req && *r->stop_req) ||
				    (r->stop_at_ns && now_mono() >= r->stop_at_ns))) {
			struct sched_param sp = { 0 };

			sched_setscheduler(r->decoder_tid, SCHED_OTHER, &sp);
			r->boosted = 1;
		}
		if (final && !off) {
			tracefs_trace_off(r->inst);
			off = 1;
		}
		ret = spool_round(r, final || stopping, &behind, &moved);
		if (ret < 0) {
			__atomic_store_n(&r->sp_err, ret, __ATOMIC_RELEASE);
			break;
		}
		if (final && !moved && !behind)
			break;
		if (!behind && !final) {
			/* as the live reader: the rings hold seconds */
			struct timespec ts = { 0, stopping ? 2000000 : POLL_NS_SPOOL };

			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The spool's "meta": what decoding needs besides the sub-buffers, so
 * that a spool left by a killed recorder can be decoded alone. */
int cap_spool_write_meta(cap_rec *r)
{
	char path[PATH_MAX], *buf;
	size_t cap = 4096 + (size_t)r->ndev * 256, n = 0;
	int fd, ret;

	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	n += (size_t)snprintf(buf + n, cap - n, "%s\nsubbuf %zu\ncpus %d\nt0 %llu\ninstance %s\n",
			      SPOOL_MAGIC, r->page_size, r->ncpu,
			      (unsigned long long)r->t0_ns,
			      tracefs_instance_get_name(r->inst));
	for (int i = 0; i < EV_COUNT; i++) {
		const struct ev_layout *l = &r->ev[i];

		n += (size_t)snprintf(buf + n, cap - n, "event %s %d %d %d %d %d %d %d %d %d\n",
				      cap_ev_names[i], l->id, l->used, l->off_dev,
				      l->off_sector, l->off_nr, l->off_rwbs,
				      l->len_rwbs, l->off_comm, l->min_len);
	}
	for (unsigned i = 0; i < r->ndev; i++) {
		const struct cap_devinfo *d = &r->dev[i];

		n += (size_t)snprintf(buf + n, cap - n, "device %s %u %llu %llu %u %d\n",
				      d->name, d->trace_dev,
				      (unsigned long long)d->start,
				      (unsigned long long)d->size, d->block_size,
				      d->bio_based);
	}
	n += (size_t)snprintf(buf + n, cap - n, "end\n");
	snprintf(path, sizeof(path), "%s/meta", r->spool_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		ret = -errno;
	} else {
		ret = n < cap ? write_all(fd, buf, n) : -ENAMETOOLONG;
		if (close(fd) < 0 && ret == 0)
			ret = -errno;
	}
	free(buf);
	return ret;
}

int cap_rec_spool(cap_rec *r, const char *dir, char *err, size_t errlen)
{
	if (r->started || r->spool) {
		snprintf(err, errlen, "spool: set before the start");
		return -EINVAL;
	}
	if (r->ncpu > CAP_SPOOL_CPUS_MAX) {
		snprintf(err, errlen, "spool: more than %d CPUs", CAP_SPOOL_CPUS_MAX);
		return -E2BIG;
	}
	if (r->clock_local) {
		/* the spool's times (meta, the splicer's rounds) are mono */
		snprintf(err, errlen, "spool: not with the local trace clock");
		return -EINVAL;
	}
	r->spool_dir = strdup(dir);
	if (!r->spool_dir)
		return -ENOMEM;
	pthread_mutex_init(&r->sp_lock, NULL);
	r->spool = 1;
	for (int c = 0; c < r->ncpu; c++) {
		struct cpu_reader *cr = &r->cpu[c];
		char path[PATH_MAX];
		int e;

		if (cr->fd < 0)
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d", dir, c);
		cr->sfd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (cr->sfd < 0 || pipe2(cr->pipe, O_CLOEXEC) < 0) {
			e = errno;
			snprintf(err, errlen, "%s: %s", path, strerror(e));
			return -e;
		}
		/* room for a splice's sub-buffers (one slot each); a smaller
		 * pipe only means more calls */
		fcntl(cr->pipe[1], F_SETPIPE_SZ, SPLICE_SLOTS * 4096);
		cr->spage = malloc(r->page_size);
		if (!cr->spage) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

/* Unlinks the spool's files and its directory (what is not there is
 * fine: a recording that failed early made only some of them). */
int cap_rec_spool_remove(const char *dir, int ncpu)
{
	char path[PATH_MAX];
	int ret = 0;

	for (int c = 0; c < ncpu; c++) {
		snprintf(path, sizeof(path), "%s/cpu%d", dir, c);
		if (unlink(path) < 0 && errno != ENOENT)
			ret = -errno;
	}
	snprintf(path, sizeof(path), "%s/meta", dir);
	if (unlink(path) < 0 && errno != ENOENT)
		ret = -errno;
	if (rmdir(dir) < 0 && ret == 0)
		ret = -errno;
	return ret;
}

void cap_rec_spool_stop_watch(cap_rec *r, const volatile sig_atomic_t *flag,
			      uint64_t at_ns)
{
	r->stop_req = flag;
	r->stop_at_ns = at_ns;
}

int cap_rec_ncpu(const cap_rec *r)
{
	return r->ncpu;
}

uint64_t cap_rec_spooled(const cap_rec *r)
{
	uint64_t n = 0;

	for (int c = 0; c < r->ncpu; c++)
		n += r->spool == 2 ? r->cpu[c].pub_bytes : r->cpu[c].wr_off;
	return n;
}

/* One "event" or "device" line of the meta file. */
static int parse_meta_line(cap_rec *r, char *line, unsigned *ndev)
{
	char name[64];
	int v[9];

	if (sscanf(line, "event %63s %d %d %d %d %d %d %d %d %d", name, &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) == 10) {
		for (int i = 0; i < EV_COUNT; i++) {
			struct ev_layout *l = &r->ev[i];

			if (strcmp(name, cap_ev_names[i]))
				continue;
			if (v[2] < 0 || v[3] < 0 || v[4] < 0 || v[5] < 0 ||
			    v[6] <= 0 || v[8] > 4096 || v[2] + 4 > v[8] ||
			    v[3] + 8 > v[8] || v[4] + 4 > v[8] ||
			    v[5] + v[6] > v[8] || (v[7] >= 0 && v[7] + 16 > v[8]))
				return -EINVAL;
			l->id = v[0];
			l->used = v[1] != 0;
			l->off_dev = v[2];
			l->off_sector = v[3];
			l->off_nr = v[4];
			l->off_rwbs = v[5];
			l->len_rwbs = v[6];
			l->off_comm = v[7];
			l->min_len = v[8];
			return 0;
		}
		return -EINVAL;
	}
	if (!strncmp(line, "device ", 7)) {
		struct cap_devinfo *d;
		unsigned long long start, size;
		unsigned tdev, bs;
		int bio;

		if (*ndev >= r->ndev ||
		    sscanf(line, "device %63s %u %llu %llu %u %d", name, &tdev,
			   &start, &size, &bs, &bio) != 6)
			return -EINVAL;
		d = &r->dev[(*ndev)++];
		memcpy(d->name, name, sizeof(d->name));
		d->trace_dev = tdev;
		d->start = start;
		d->size = size;
		d->block_size = bs;
		d->bio_based = bio != 0;
		return 0;
	}
	return -EINVAL;
}

int cap_rec_recover(cap_rec **rp, const char *dir, ist_header *h, char *err,
		    size_t errlen)
{
	char path[PATH_MAX], *buf = NULL, *line, *save = NULL;
	unsigned long long t0 = 0;
	unsigned ndev = 0, lines = 0;
	size_t sub = 0;
	int ncpu = 0, ret, fd;
	ssize_t n;
	cap_rec *r;

	*rp = NULL;
	snprintf(path, sizeof(path), "%s/meta", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s (not a spool, or its recorder was killed before it traced)",
			 path, strerror(-ret));
		return ret;
	}
	buf = malloc(65536);
	n = buf ? read(fd, buf, 65535) : -1;
	close(fd);
	if (n <= 0) {
		free(buf);
		snprintf(err, errlen, "%s: cannot read it", path);
		return -EIO;
	}
	buf[n] = '\0';
	r = calloc(1, sizeof(*r));
	if (!r) {
		free(buf);
		return -ENOMEM;
	}
	r->spool = 2;
	r->clock_fd = -1;
	pthread_mutex_init(&r->sp_lock, NULL);
	ret = -EINVAL;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lines++;
		if (lines == 1) {
			if (strcmp(line, SPOOL_MAGIC))
				goto bad;
		} else if (!strcmp(line, "end")) {
			ret = 0;
			break;
		} else if (sscanf(line, "subbuf %zu", &sub) == 1 ||
			   sscanf(line, "cpus %d", &ncpu) == 1 ||
			   sscanf(line, "t0 %llu", &t0) == 1 ||
			   !strncmp(line, "instance ", 9)) {
			continue;
		}
		if (!strncmp(line, "device ", 7) || !strncmp(line, "event ", 6)) {
			if (!r->dev) {
				r->ndev = 64; /* record's limit */
				r->dev = calloc(r->ndev, sizeof(*r->dev));
				if (!r->dev) {
					ret = -ENOMEM;
					goto fail;
				}
			}
			if (parse_meta_line(r, line, &ndev) < 0)
				goto bad;
		}
	}
	if (ret < 0 || sub < 64 || sub > (1u << 24) || ncpu <= 0 ||
	    ncpu > CAP_SPOOL_CPUS_MAX || !ndev)
		goto bad;
	r->ndev = ndev;
	r->page_size = sub;
	r->ncpu = ncpu;
	r->t0_ns = t0;
	for (int i = 0; i < EV_COUNT; i++)
		if (r->ev[i].used) {
			r->used_id[r->nused] = r->ev[i].id;
			r->used_k[r->nused++] = i;
		}
	r->cpu = calloc((size_t)ncpu, sizeof(*r->cpu));
	r->pid_cap = 1024;
	r->pids = calloc(r->pid_cap, sizeof(*r->pids));
	if (!r->cpu || !r->pids) {
		ret = -ENOMEM;
		goto fail;
	}
	for (int c = 0; c < ncpu; c++) {
		struct cpu_reader *cr = &r->cpu[c];
		struct stat st;

		cr->fd = -1;
		cr->pipe[0] = cr->pipe[1] = -1;
		snprintf(path, sizeof(path), "%s/cpu%d", dir, c);
		cr->sfd = open(path, O_RDONLY | O_CLOEXEC);
		if (cr->sfd < 0 && errno == ENOENT)
			continue; /* an offline CPU */
		if (cr->sfd < 0 || fstat(cr->sfd, &st) < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
			goto fail;
		}
		/* a slot the killed splicer had not finished is not read */
		cr->pub_bytes = (uint64_t)st.st_size - (uint64_t)st.st_size % sub;
		r->tail_bytes += (uint64_t)st.st_size % sub;
		cr->page_size = sub;
		cr->page = malloc(sub);
		cr->qcap = 4096;
		cr->q = malloc(cr->qcap * sizeof(*cr->q));
		if (!cr->page || !cr->q) {
			ret = -ENOMEM;
			goto fail;
		}
		cr->drained_ns = t0;
	}
	ret = cap_match_new(&r->match, 0, 0, t0);
	if (ret < 0)
		goto fail;
	r->drain_ns = 1;
	r->started = 1;
	ret = cap_rec_fill_header(r, h, err, errlen);
	if (ret < 0)
		goto fail;
	ist_header_set(h, "record.recovered", "spool");
	free(buf);
	*rp = r;
	return 0;
bad:
	snprintf(err, errlen, "%s/meta: not a spool's meta file (line %u)", dir, lines);
	ret = -EINVAL;
fail:
	free(buf);
	cap_rec_close(r);
	return ret;
}

uint64_t cap_rec_spool_tail(const cap_rec *r)
{
	return r->tail_bytes;
}

#else /* !HAVE_TRACEFS */

int cap_rec_spool(cap_rec *r, const char *dir, char *err, size_t errlen)
{
	(void)r;
	(void)dir;
	snprintf(err, errlen, "built without libtracefs");
	return IST_EUNSUPPORTED;
}

int cap_rec_recover(cap_rec **r, const char *dir, ist_header *h, char *err,
		    size_t errlen)
{
	(void)dir;
	(void)h;
	*r = NULL;
	snprintf(err, errlen, "built without libtracefs: spools cannot be decoded");
	return IST_EUNSUPPORTED;
}

uint64_t cap_rec_spool_tail(const cap_rec *r) { (void)r; return 0; }
uint64_t cap_rec_spooled(const cap_rec *r) { (void)r; return 0; }
int cap_rec_ncpu(const cap_rec *r) { (void)r; return 0; }

void cap_rec_spool_stop_watch(cap_rec *r, const volatile sig_atomic_t *flag,
			      uint64_t at_ns)
{
	(void)r;
	(void)flag;
	(void)at_ns;
}

int cap_rec_spool_remove(const char *dir, int ncpu)
{
	(void)dir;
	(void)ncpu;
	return IST_EUNSUPPORTED;
}

#endif
