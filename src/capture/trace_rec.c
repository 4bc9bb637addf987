/* SPDX-License-Identifier: MIT */
/* trace_rec.c - live block I/O recorder on a private tracefs instance. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/trace_rec.h"

static int read_sys(const char *dir, const char *file, char *buf, size_t size)
{
	char path[PATH_MAX + 64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int read_sys_u64(const char *dir, const char *file, uint64_t *v)
{
	char buf[64], *end;
	int ret = read_sys(dir, file, buf, sizeof(buf));

	if (ret < 0)
		return ret;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return (errno || end == buf) ? -EINVAL : 0;
}

int cap_dev_probe(const char *path, struct cap_devinfo *di, char *err,
		  size_t errlen)
{
	char sys[PATH_MAX + 32], real[PATH_MAX], disk[PATH_MAX], buf[64];
	struct stat st;
	const char *base;
	uint64_t v;
	unsigned maj, min;

	memset(di, 0, sizeof(*di));
	if (stat(path, &st) < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "%s: not a block device", path);
		return -ENOTBLK;
	}
	di->rdev = st.st_rdev;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	if (!realpath(sys, real)) {
		int e = errno;

		snprintf(err, errlen, "%s: no sysfs entry %s: %s", path, sys,
			 strerror(e));
		return -e;
	}
	base = strrchr(real, '/');
	snprintf(di->name, sizeof(di->name), "%.63s", base ? base + 1 : real);
	snprintf(disk, sizeof(disk), "%s", real);
	if (read_sys(real, "partition", buf, sizeof(buf)) == 0) {
		/* A partition: events carry the disk and absolute sectors. */
		char *slash = strrchr(disk, '/');

		if (slash)
			*slash = '\0';
		if (read_sys_u64(real, "start", &di->start) < 0) {
			snprintf(err, errlen, "%s: cannot read partition start", path);
			return -EIO;
		}
	}
	if (read_sys(disk, "dev", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%u:%u", &maj, &min) != 2) {
		snprintf(err, errlen, "%s: cannot read %s/dev", path, disk);
		return -EIO;
	}
	/* The tracepoints print dev_t in the kernel's 12:20 layout. */
	di->trace_dev = (uint32_t)(maj << 20 | (min & 0xfffff));
	if (read_sys_u64(real, "size", &v) == 0)
		di->size = v * 512;
	snprintf(sys, sizeof(sys), "%s/queue", disk);
	if (read_sys_u64(sys, "logical_block_size", &v) == 0)
		di->block_size = (uint32_t)v;
	/* blk-mq devices (SCSI, NVMe, virtio, loop) have an mq directory and
	 * emit request events; bio-based ones (zram, dm, md) do not. */
	snprintf(sys, sizeof(sys), "%s/mq", disk);
	di->bio_based = access(sys, F_OK) != 0;
	return 0;
}

#ifdef HAVE_TRACEFS

#include <traceevent/event-parse.h>
#include <tracefs/tracefs.h>

#include "capture/rb_page.h"
#include "capture/trace_rec_int.h"

const char *const cap_ev_names[EV_COUNT] = {
	"block_rq_issue", "block_rq_complete", "block_bio_queue",
	"block_bio_complete",
};

static int field_off(struct tep_event *e, const char *name, int *len)
{
	struct tep_format_field *f = tep_find_field(e, name);

	if (!f)
		return -1;
	if (len)
		*len = f->size;
	return f->offset;
}

static int load_layouts(cap_rec *r, char *err, size_t errlen)
{
	/* Only the formats of the events used: tracefs_local_events_system()
	 * would also parse /proc/kallsyms and every printk format, which
	 * takes seconds (20 s in a sanitizer build on a busy machine). */
	r->tep = tep_alloc();
	if (!r->tep) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < EV_COUNT; i++) {
		struct tep_event *e = NULL;
		struct ev_layout *l = &r->ev[i];
		int size = 0;
		char *fmt = tracefs_event_file_read(NULL, "block", cap_ev_names[i],
						    "format", &size);

		if (fmt && size > 0)
			tep_parse_event(r->tep, fmt, (size_t)size, "block");
		free(fmt);
		e = tep_find_event_by_name(r->tep, "block", cap_ev_names[i]);
		if (!e) {
			snprintf(err, errlen, "tracefs has no block/%s event",
				 cap_ev_names[i]);
			return -ENOENT;
		}
		l->id = e->id;
		l->off_dev = field_off(e, "dev", NULL);
		l->off_sector = field_off(e, "sector", NULL);
		l->off_nr = field_off(e, "nr_sector", NULL);
		l->off_rwbs = field_off(e, "rwbs", &l->len_rwbs);
		l->off_comm = field_off(e, "comm", NULL);
		if (l->off_dev < 0 || l->off_sector < 0 || l->off_nr < 0 ||
		    l->off_rwbs < 0) {
			snprintf(err, errlen, "block/%s has an unexpected format",
				 cap_ev_names[i]);
			return -EPROTO;
		}
		l->min_len = l->off_rwbs + l->len_rwbs;
		if (l->off_comm >= 0 && l->off_comm + 16 > l->min_len)
			l->min_len = l->off_comm + 16;
		if (l->off_sector + 8 > l->min_len)
			l->min_len = l->off_sector + 8;
	}
	return 0;
}

/* "(dev == A && sector >= s && sector < e) || dev == B ..." */
static int build_filter(cap_rec *r, int bio, char *buf, size_t size)
{
	size_t n = 0;
	int any = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < r->ndev; i++) {
		const struct cap_devinfo *d = &r->dev[i];
		int w;

		if (d->bio_based != bio)
			continue;
		if (d->start)
			w = snprintf(buf + n, size - n,
				     "%s(dev == %u && ((sector >= %llu && sector < %llu) || nr_sector == 0))",
				     any ? " || " : "", d->trace_dev,
				     (unsigned long long)d->start,
				     (unsigned long long)(d->start + d->size / 512));
		else
			w = snprintf(buf + n, size - n, "%sdev == %u",
				     any ? " || " : "", d->trace_dev);
		if (w < 0 || (size_t)w >= size - n)
			return -ENAMETOOLONG;
		n += (size_t)w;
		any = 1;
	}
	return any;
}

static int setup_events(cap_rec *r, char *err, size_t errlen)
{
	char filter[4096];

	for (int bio = 0; bio <= 1; bio++) {
		int any = build_filter(r, bio, filter, sizeof(filter));

		if (any < 0) {
			snprintf(err, errlen, "too many devices for one filter");
			return any;
		}
		if (!any)
			continue;
		for (int k = 0; k < 2; k++) {
			int i = bio ? EV_BIO_QUEUE + k : EV_RQ_ISSUE + k;

			if (tracefs_event_file_write(r->inst, "block", cap_ev_names[i],
						     "filter", filter) < 0) {
				snprintf(err, errlen, "cannot set the filter of block/%s: %s",
					 cap_ev_names[i], strerror(errno));
				return -EIO;
			}
			if (tracefs_event_enable(r->inst, "block", cap_ev_names[i]) < 0) {
				snprintf(err, errlen, "cannot enable block/%s: %s",
					 cap_ev_names[i], strerror(errno));
				return -EIO;
			}
			r->ev[i].used = 1;
			r->used_id[r->nused] = r->ev[i].id;
			r->used_k[r->nused++] = i;
		}
	}
	return 0;
}

/* Asks for larger sub-buffers where the kernel has them; returns the
 * sub-buffer size in bytes. */
static size_t set_subbuf_size(cap_rec *r)
{
	char *v;
	long kb = 0;

	if (tracefs_file_exists(r->inst, "buffer_subbuf_size_kb")) {
		char val[16];

		snprintf(val, sizeof(val), "%d", SUBBUF_KB);
		tracefs_instance_file_write(r->inst, "buffer_subbuf_size_kb", val);
		v = tracefs_instance_file_read(r->inst, "buffer_subbuf_size_kb", NULL);
		if (v)
			kb = strtol(v, NULL, 10);
		free(v);
	}
	if (kb > 0)
		return (size_t)kb * 1024;
	kb = sysconf(_SC_PAGESIZE);
	return kb > 0 ? (size_t)kb : 4096;
}

static int open_cpus(cap_rec *r, size_t page_size, char *err, size_t errlen)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	r->ncpu = n > 0 ? (int)n : 1;
	r->cpu = calloc((size_t)r->ncpu, sizeof(*r->cpu));
	if (!r->cpu)
		return -ENOMEM;
	for (int c = 0; c < r->ncpu; c++) {
		r->cpu[c].fd = -1;
		r->cpu[c].sfd = -1;
		r->cpu[c].pipe[0] = r->cpu[c].pipe[1] = -1;
	}
	r->page_size = page_size;
	for (int c = 0; c < r->ncpu; c++) {
		struct cpu_reader *cr = &r->cpu[c];
		char file[64], *path;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", c);
		path = tracefs_instance_get_file(r->inst, file);
		if (!path)
			return -ENOMEM;
		cr->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		tracefs_put_tracing_file(path);
		if (cr->fd < 0)
			continue; /* offline CPU */
		cr->page_size = page_size;
		cr->page = malloc(page_size);
		cr->qcap = 4096;
		cr->q = malloc(cr->qcap * sizeof(*cr->q));
		if (!cr->page || !cr->q) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

/* Removes the tracefs instances named PREFIX + PID whose process is gone
 * (a recorder killed by SIGKILL leaves its instance tracing into a
 * buffer nobody reads). */
void cap_remove_stale_instances(const char *prefix)
{
	const char *dir = tracefs_tracing_dir();
	size_t plen = strlen(prefix);
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/instances", dir);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, prefix, plen))
			continue;
		pid = strtol(de->d_name + plen, &end, 10);
		if (*end || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/instances/%s", dir, de->d_name);
		rmdir(path);
	}
	closedir(d);
}

/* The scheduler's debug file (debugfs), opened for sched_clock_probe()
 * ($IOSTORM_TEST_SCHED_DEBUG names another file for the tests).  Where
 * debugfs is not mounted, a child mounts it in a mount namespace of its
 * own (nothing changes in anyone else's; the namespace goes with the
 * child), opens the file there and hands the descriptor back over a
 * socket: the file stays readable through it.  Returns the descriptor or
 * -errno. */
static int sched_debug_private(const char *path)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg = { 0 };
	struct cmsghdr *cm;
	struct iovec iov;
	int sv[2], fd = -1, st;
	char one = 1;
	pid_t pid;

	/* one byte and the descriptor: the same message both sides */
	iov.iov_base = &one;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof(ctl.buf);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		st = -errno;
		close(sv[0]);
		close(sv[1]);
		return st;
	}
	if (!pid) {
		close(sv[0]);
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("debugfs", "/sys/kernel/debug", "debugfs",
			  MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			_exit(1);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			_exit(1);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		_exit(sendmsg(sv[1], &msg, 0) == 1 ? 0 : 1);
	}
	close(sv[1]);
	if (recvmsg(sv[0], &msg, MSG_CMSG_CLOEXEC) == 1) {
		cm = CMSG_FIRSTHDR(&msg);
		if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	}
	close(sv[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return fd >= 0 ? fd : -ENOENT;
}

#define SCHED_DEBUG "/sys/kernel/debug/sched/debug"

/* The file sched_debug_open() reads (also for messages). */
static const char *sched_debug_path(void)
{
	const char *path = getenv("IOSTORM_TEST_SCHED_DEBUG");

	return path && *path ? path : SCHED_DEBUG;
}

static int sched_debug_open(void)
{
	const char *path = sched_debug_path();
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	/* debugfs not mounted: privately (not for a test's file) */
	if (errno != ENOENT || strcmp(path, SCHED_DEBUG))
		return -errno;
	return sched_debug_private(path);
}

/* sched_clock()'s offset from CLOCK_MONOTONIC (*off_ns) and whether the
 * kernel holds sched_clock() stable, from the header of the scheduler's
 * debug file (fd, read from its start again at each call): "ktime" and
 * "sched_clk" are read there one right after the other, in ms with six
 * decimals; "sched_clock_stable()" is 1 when the kernel found
 * sched_clock() coherent across CPUs (it then uses it as is for
 * local_clock()).  Returns 1 stable, 0 not (or not said), -EBADMSG when
 * the file lacks the two times in that form, another negative errno when
 * it cannot be read. */
static int sched_clock_probe(int fd, int64_t *off_ns)
{
	char buf[1024], *line, *save = NULL;
	uint64_t ktime = 0, sclk = 0;
	int stable = 0, have = 0;
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *dot, *end;
		unsigned long long ms, frac;
		uint64_t *dst = NULL;

		if (!colon)
			continue;
		if (!strncmp(line, "sched_clock_stable()", 20)) {
			stable = atoi(colon + 1) == 1;
			continue;
		}
		if (!strncmp(line, "ktime ", 6))
			dst = &ktime;
		else if (!strncmp(line, "sched_clk ", 10))
			dst = &sclk;
		else
			continue;
		/* "2914636.109638": ms, then exactly six digits of ns */
		ms = strtoull(colon + 1, &dot, 10);
		if (*dot != '.')
			return -EBADMSG;
		frac = strtoull(dot + 1, &end, 10);
		if (end - dot != 7)
			return -EBADMSG;
		*dst = (uint64_t)ms * 1000000ull + frac;
		have |= dst == &ktime ? 1 : 2;
	}
	if (have != 3)
		return -EBADMSG;
	*off_ns = (int64_t)(sclk - ktime);
	return stable;
}

/* --trace-clock local: the offset read again every second (sched_clock()
 * and CLOCK_MONOTONIC may drift apart: NTP slews the latter), and the
 * kernel's word on sched_clock's stability with it: one that the kernel
 * stopped trusting (its TSC watchdog) is counted, and record says so. */
static void clock_refresh(cap_rec *r, uint64_t now)
{
	int64_t off;
	int ret;

	if (!r->clock_local || now < r->clock_next_ns)
		return;
	r->clock_next_ns = now + 1000000000ull;
	ret = sched_clock_probe(r->clock_fd, &off);
	if (ret >= 0)
		r->clock_off = off;
	if (ret == 0)
		r->st.clock_unstable++;
}

/* The recording's header: source, clock, the device table with each
 * device's event kind, the CPU count (a live recording's and a recovered
 * spool's alike). */
int cap_rec_fill_header(const cap_rec *r, ist_header *h, char *err, size_t errlen)
{
	char key[300], val[32];
	int ret;

	ist_header_set(h, "source", "tracefs");
	ist_header_set(h, "trace_clock", "mono");
	ist_header_set(h, "record.trace_clock", r->clock_local ? "local" : "mono");
	for (unsigned i = 0; i < r->ndev; i++) {
		ret = ist_header_add_device(h, r->dev[i].name, r->dev[i].size,
					    r->dev[i].block_size);
		if (ret < 0) {
			snprintf(err, errlen, "cannot add device %s", r->dev[i].name);
			return ret;
		}
		snprintf(key, sizeof(key), "dev.%s.event", r->dev[i].name);
		ist_header_set(h, key, r->dev[i].bio_based ? "bio" : "rq");
	}
	snprintf(val, sizeof(val), "%d", r->ncpu);
	ist_header_set(h, "record.cpus", val);
	return 0;
}

int cap_rec_open(cap_rec **rp, const struct cap_rec_opts *o, ist_header *h,
		 char *err, size_t errlen)
{
	cap_rec *r;
	char name[128];
	size_t page_size;
	int ret;

	*rp = NULL;
	if (!o->ndev) {
		snprintf(err, errlen, "no device to record");
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->dev = calloc(o->ndev, sizeof(*r->dev));
	if (!r->dev) {
		free(r);
		return -ENOMEM;
	}
	r->ndev = o->ndev;
	r->clock_fd = -1;
	r->drain_ns = o->drain_ns ? o->drain_ns : 1000000000ull;
	r->max_pending = o->max_pending;
	for (unsigned i = 0; i < o->ndev; i++) {
		ret = cap_dev_probe(o->devs[i], &r->dev[i], err, errlen);
		if (ret < 0)
			goto fail;
		for (unsigned j = 0; j < i; j++)
			if (r->dev[j].rdev == r->dev[i].rdev) {
				snprintf(err, errlen, "%s: device given twice", o->devs[i]);
				ret = -EINVAL;
				goto fail;
			}
	}
	if (!tracefs_tracing_dir()) {
		snprintf(err, errlen, "tracefs is not mounted (/sys/kernel/tracing) and could not be mounted");
		ret = -ENOENT;
		goto fail;
	}
	cap_remove_stale_instances("iostorm-record-");
	ret = load_layouts(r, err, errlen);
	if (ret < 0)
		goto fail;
	snprintf(name, sizeof(name), "iostorm-record-%ld", (long)getpid());
	r->inst = tracefs_instance_create(name);
	if (!r->inst) {
		ret = -errno ? -errno : -EIO;
		snprintf(err, errlen, "cannot create tracefs instance %s: %s", name,
			 strerror(-ret));
		goto fail;
	}
	tracefs_trace_off(r->inst);
	page_size = set_subbuf_size(r);
	if (o->trace_clock == CAP_CLOCK_LOCAL || o->trace_clock == CAP_CLOCK_AUTO) {
		ret = r->clock_fd = sched_debug_open();
		if (ret >= 0)
			ret = sched_clock_probe(r->clock_fd, &r->clock_off);
		if (ret == 1) {
			r->clock_local = 1;
			r->clock_next_ns = now_mono() + 1000000000ull;
		} else if (o->trace_clock == CAP_CLOCK_LOCAL) {
			if (ret == -EBADMSG)
				snprintf(err, errlen, "--trace-clock local: %s: no \"ktime\" and "
					 "\"sched_clk\" times (ms, six decimals) in its header",
					 sched_debug_path());
			else if (ret < 0)
				snprintf(err, errlen, "--trace-clock local: cannot read sched_clock's state "
					 "(%s, debugfs): %s", sched_debug_path(),
					 strerror(-ret));
			else
				snprintf(err, errlen, "--trace-clock local: the kernel does not hold "
					 "sched_clock stable (coherent across CPUs) here; use mono");
			ret = -EINVAL;
			goto fail;
		}
		if (!r->clock_local) { /* auto, on mono: not read again */
			if (r->clock_fd >= 0)
				close(r->clock_fd);
			r->clock_fd = -1;
		}
	}
	if (tracefs_instance_file_write(r->inst, "trace_clock",
					r->clock_local ? "local" : "mono") < 0) {
		snprintf(err, errlen, "cannot set the trace clock to %s",
			 r->clock_local ? "local" : "mono");
		ret = -EIO;
		goto fail;
	}
	if (tracefs_instance_set_buffer_size(r->inst,
					     o->buffer_kb ? o->buffer_kb : 16384,
					     -1) < 0) {
		snprintf(err, errlen, "cannot size the trace buffer: %s",
			 strerror(errno));
		ret = -EIO;
		goto fail;
	}
	ret = setup_events(r, err, errlen);
	if (ret < 0)
		goto fail;
	ret = open_cpus(r, page_size, err, errlen);
	if (ret < 0)
		goto fail;
	r->pid_cap = 1024;
	r->pids = calloc(r->pid_cap, sizeof(*r->pids));
	if (!r->pids) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = cap_rec_fill_header(r, h, err, errlen);
	if (ret < 0)
		goto fail;
	*rp = r;
	return 0;
fail:
	cap_rec_close(r);
	return ret;
}

int cap_rec_start(cap_rec *r)
{
	int ret;

	r->t0_ns = now_mono();
	ret = cap_match_new(&r->match, r->max_pending, 0, r->t0_ns);
	if (ret < 0)
		return ret;
	for (int c = 0; c < r->ncpu; c++)
		r->cpu[c].drained_ns = r->t0_ns;
	if (r->spool) {
		ret = cap_spool_write_meta(r);
		if (ret < 0)
			return ret;
	}
	if (tracefs_trace_on(r->inst) < 0)
		return -errno ? -errno : -EIO;
	r->started = 1;
	if (r->spool) {
		/* The splicer keeps the caller's priority and no signal of
		 * the caller's (its handlers interrupt the caller's sleep);
		 * the caller, the decoder, only takes idle CPU time from
		 * here to the stop (SCHED_IDLE: the thread, on Linux). */
		struct sched_param sp = { 0 };
		sigset_t all, stop;

		/* SIGINT and SIGTERM go to the splicer, which runs when the
		 * decoder does not get a CPU: their handler runs at once and
		 * the splicer gives the decoder its priority back on the stop
		 * (cap_rec_spool_stop_watch()). */
		sigfillset(&all);
		sigdelset(&all, SIGINT);
		sigdelset(&all, SIGTERM);
		sigemptyset(&stop);
		sigaddset(&stop, SIGINT);
		sigaddset(&stop, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &all, &r->old_mask);
		ret = pthread_create(&r->splicer, NULL, cap_spool_splicer_main, r);
		pthread_sigmask(SIG_SETMASK, &r->old_mask, NULL);
		if (ret) {
			tracefs_trace_off(r->inst);
			r->started = 0;
			return -ret;
		}
		r->splicer_on = 1;
		pthread_sigmask(SIG_BLOCK, &stop, NULL);
		r->decoder_tid = (pid_t)syscall(SYS_gettid);
		sched_setscheduler(0, SCHED_IDLE, &sp);
	}
	return 0;
}

/* Names pid's stream the first time it is seen; comm is the event's
 * 16-byte comm field or NULL. */
static int note_pid(cap_rec *r, int32_t pid, const uint8_t *comm)
{
	char name[16] = "";
	size_t mask, i;

	if (pid <= 0 || !r->name)
		return 0;
	if (2 * (r->npids + 1) > r->pid_cap) {
		uint32_t *np;
		size_t ncap = r->pid_cap * 2;

		if (r->npids >= MAX_NAMED_PIDS)
			return 0;
		np = calloc(ncap, sizeof(*np));
		if (!np)
			return 0;
		for (size_t k = 0; k < r->pid_cap; k++) {
			uint32_t p = r->pids[k];

			if (!p)
				continue;
			for (i = (p * 2654435761u) & (ncap - 1); np[i];
			     i = (i + 1) & (ncap - 1))
				;
			np[i] = p;
		}
		free(r->pids);
		r->pids = np;
		r->pid_cap = ncap;
	}
	mask = r->pid_cap - 1;
	for (i = ((uint32_t)pid * 2654435761u) & mask; r->pids[i];
	     i = (i + 1) & mask)
		if (r->pids[i] == (uint32_t)pid)
			return 0;
	r->pids[i] = (uint32_t)pid;
	r->npids++;
	if (comm)
		memcpy(name, comm, sizeof(name) - 1);
	return r->name(r->name_ctx, (uint64_t)pid, name);
}

/* Room for one more event at the tail of cr's queue. */
static struct held_event *queue_push(struct cpu_reader *cr)
{
	if (cr->qhead + cr->qn == cr->qcap) {
		if (cr->qhead >= cr->qcap / 2) {
			memmove(cr->q, cr->q + cr->qhead, cr->qn * sizeof(*cr->q));
			cr->qhead = 0;
		} else {
			size_t ncap = cr->qcap * 2;
			struct held_event *nq = realloc(cr->q, ncap * sizeof(*nq));

			if (!nq)
				return NULL;
			cr->q = nq;
			cr->qcap = ncap;
		}
	}
	return &cr->q[cr->qhead + cr->qn];
}

/* Decodes one raw event into cr's queue (or ignores it).  Once per event
 * of the recording: the held event is written field by field (nothing
 * cleared first), the rwbs string found in the cache inline, and a pid
 * named on this CPU just before is not looked up again. */
static int decode_event(cap_rec *r, struct cpu_reader *cr, const uint8_t *data,
			uint32_t len, uint64_t ts)
{
	uint16_t type;
	int k = -1;
	const struct ev_layout *l;
	struct held_event *he;
	uint32_t dev;
	uint64_t sector;
	uint32_t nr;
	int32_t pid;
	uint16_t flags;
	uint8_t op, complete;
	unsigned d;

	if (len < 8)
		return 0;
	memcpy(&type, data, 2);
	for (int i = 0; i < r->nused; i++)
		if (r->used_id[i] == type) {
			k = r->used_k[i];
			break;
		}
	if (k < 0)
		return 0;
	l = &r->ev[k];
	if ((uint32_t)l->min_len > len)
		return 0;
	r->st.events++;
	memcpy(&dev, data + l->off_dev, 4);
	memcpy(&sector, data + l->off_sector, 8);
	memcpy(&nr, data + l->off_nr, 4);
	for (d = 0; d < r->ndev; d++) {
		const struct cap_devinfo *di = &r->dev[d];

		if (di->trace_dev != dev || di->bio_based != (k >= EV_BIO_QUEUE))
			continue;
		if (!di->start && !di->size)
			break;
		if (nr == 0 || (sector >= di->start &&
				sector < di->start + di->size / 512) ||
		    !di->start)
			break;
	}
	if (d == r->ndev) {
		r->st.ignored++;
		return 0;
	}
	if (cap_rwbs_lookup(&r->rwbs, data + l->off_rwbs, (size_t)l->len_rwbs,
			    &op, &flags) < 0) {
		r->st.ignored++;
		return 0;
	}
	complete = (k == EV_RQ_COMPLETE || k == EV_BIO_COMPLETE);
	if (op == CAP_OP_ZONE) { /* issue and completion both skipped here */
		r->st.zone_cmds += !complete;
		r->st.ignored++;
		return 0;
	}
	if (op == IST_OP_COUNT) {
		if (!nr) { /* a driver-private request: no data */
			r->st.driver_cmds += !complete;
			r->st.ignored++;
			return 0;
		}
		op = IST_OP_WRITE_ZEROES;
	}
	if (op == IST_OP_WRITE && !nr) {
		/* An empty write is a flush carrier (REQ_PREFLUSH); without
		 * one, a zone reset or close as kernels before 2025 show
		 * them (the block importers read them so too). */
		if (!(flags & IST_F_PREFLUSH)) {
			r->st.zone_cmds += !complete;
			r->st.ignored++;
			return 0;
		}
		op = IST_OP_FLUSH;
		flags &= (uint16_t)~IST_F_PREFLUSH;
	}
	sector = !nr ? 0 : sector >= r->dev[d].start ? sector - r->dev[d].start
						     : sector;
	if (complete && cr->qn && !(r->stopping && ts > r->stop_ns)) {
		/* The same-CPU shortcut: a completion that follows its issue
		 * on the same CPU with no event between them (a synchronous
		 * driver such as zram completes in the issuing task; so
		 * does a blk-mq request completed where it was issued)
		 * is paired with it here.  It never enters the queue, the
		 * merge or the matcher's hash; the matcher queues the issue
		 * done.  Not for a completion after the stop: a late issue
		 * is not recorded and its completion is counted as after
		 * the stop (one before the stop has its issue before it
		 * too: with --spool the decoder reads those after the
		 * stop). */
		struct held_event *prev = &cr->q[cr->qhead + cr->qn - 1];

		if (!prev->ev.complete && !prev->ev.lat_ns &&
		    prev->ev.sector == sector && prev->ev.dev == d &&
		    prev->ev.op == op) {
			prev->ev.lat_ns = ts > prev->ev.ts_ns ? ts - prev->ev.ts_ns : 1;
			r->st.paired++;
			return 0;
		}
	}
	memcpy(&pid, data + 4, 4);
	if (!complete && pid != cr->named_pid &&
	    !(r->stopping && ts > r->stop_ns)) {
		int ret = note_pid(r, pid, l->off_comm >= 0 ?
					   data + l->off_comm : NULL);

		if (ret < 0)
			return ret;
		cr->named_pid = pid;
	}
	he = queue_push(cr);
	if (!he)
		return -ENOMEM;
	he->ev.ts_ns = ts;
	he->ev.sector = sector;
	he->ev.nr_sector = nr;
	he->ev.dev = d;
	he->ev.pid = pid;
	he->ev.complete = complete;
	he->ev.op = op;
	he->ev.flags = flags;
	he->ev.lat_ns = 0;
	cr->qn++;
	r->nheld++;
	return 0;
}

/* Queues the events of the sub-buffer of n bytes in cr->page. */
static int decode_page(cap_rec *r, struct cpu_reader *cr, size_t n,
		       int *events)
{
	struct rb_page_iter it;
	const uint8_t *data;
	uint64_t ts = 0;
	int64_t missed;
	uint32_t len;
	int got = 0;

	if (rb_page_open(&it, cr->page, n, &missed) < 0)
		return -EIO;
	if (missed > 0)
		r->st.missed += (uint64_t)missed;
	else if (missed < 0)
		r->st.missed++; /* an unknown number: at least one */
	while ((data = rb_page_next_fast(&it, &len, &ts))) {
		/* local: moved to CLOCK_MONOTONIC (mono: off 0) */
		int ret = decode_event(r, cr, data, len, ts - (uint64_t)r->clock_off);

		if (ret < 0)
			return ret;
		(*events)++;
		got = 1;
	}
	/* Only an event's time moves last_ts: a page without one leaves ts
	 * 0, which less a clock offset would wrap to the far future. */
	if (got) {
		ts -= (uint64_t)r->clock_off;
		if (ts > cr->last_ts)
			cr->last_ts = ts;
	}
	return 0;
}

/* Reads cr's sub-buffers until the kernel has no more (or a round's
 * share is done) and queues their events. */
static int read_cpu(cap_rec *r, struct cpu_reader *cr, int *events)
{
	/* Every event stamped before this is read when a read finds the
	 * buffer empty (but for those committed late: ORDER_SLACK_NS). */
	uint64_t before = now_mono();

	for (size_t bytes = 0; bytes < BYTES_PER_ROUND;) {
		ssize_t n;
		int ret;

		n = read(cr->fd, cr->page, cr->page_size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return -errno;
		if (n <= 0) {
			cr->drained_ns = before;
			return 0;
		}
		bytes += (size_t)n;
		ret = decode_page(r, cr, (size_t)n, events);
		if (ret < 0)
			return ret;
	}
	r->behind = 1;
	return 0;
}

/* --spool, the decoder's side: reads cr's spool file up to what the
 * splicer published (at most a round's share) and queues its events.
 * Everything before the time the splicer last found the ring empty has
 * been read when the file is read to that point; short of it, the last
 * event read says as much (a CPU's events come in time order). */
static int read_cpu_spool(cap_rec *r, struct cpu_reader *cr, int *events,
			  uint64_t pub, uint64_t pub_drained)
{
	size_t bytes = 0;

	while (cr->rd_off + cr->page_size <= pub) {
		ssize_t n;
		int ret;

		if (bytes >= BYTES_PER_ROUND) {
			r->behind = 1;
			break;
		}
		n = pread(cr->sfd, cr->page, cr->page_size, (off_t)cr->rd_off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if ((size_t)n != cr->page_size)
			return -EIO; /* published but not there */
		cr->rd_off += (uint64_t)n;
		bytes += (size_t)n;
		ret = decode_page(r, cr, (size_t)n, events);
		if (ret < 0)
			return ret;
	}
	if (cr->rd_off + cr->page_size > pub && pub_drained > cr->drained_ns)
		cr->drained_ns = pub_drained;
	else if (cr->last_ts > cr->drained_ns)
		cr->drained_ns = cr->last_ts;
	return 0;
}

/* Same time: an issue before a completion. */
static int held_before(const struct held_event *x, const struct held_event *y)
{
	if (x->ev.ts_ns != y->ev.ts_ns)
		return x->ev.ts_ns < y->ev.ts_ns;
	return x->ev.complete < y->ev.complete;
}

/* The CPU whose next event comes first (ties: the lowest CPU), or NULL
 * when none is held; *next gets the CPU whose next event follows it. */
static struct cpu_reader *first_cpu(cap_rec *r, struct cpu_reader **next)
{
	struct cpu_reader *best = NULL, *second = NULL;

	for (int c = 0; c < r->ncpu; c++) {
		struct cpu_reader *cr = &r->cpu[c];

		if (!cr->qn)
			continue;
		if (!best || held_before(&cr->q[cr->qhead], &best->q[best->qhead])) {
			second = best;
			best = cr;
		} else if (!second || held_before(&cr->q[cr->qhead],
						  &second->q[second->qhead])) {
			second = cr;
		}
	}
	*next = second;
	return best;
}

/* Whether cr's next event still comes before next's (the CPU that
 * first_cpu() found second), or is equal and cr the lower CPU. */
static int still_first(const struct cpu_reader *cr, const struct cpu_reader *next)
{
	const struct held_event *a = &cr->q[cr->qhead], *b;

	if (!next)
		return 1;
	b = &next->q[next->qhead];
	return held_before(a, b) || (!held_before(b, a) && cr < next);
}

/* Feeds held events up to watermark into the matcher, in time order:
 * merges the CPUs' queues, taking from the first CPU as long as its
 * events come before the second's (a run; a scan of every CPU per
 * event otherwise).  The matcher emits straight to emit and counts. */
static int process_held(cap_rec *r, uint64_t watermark, cap_emit_fn emit,
			void *ctx)
{
	struct cpu_reader *cr, *next;
	int ret;

	while ((cr = first_cpu(r, &next))) {
		do {
			struct held_event *he = &cr->q[cr->qhead];

			if (he->ev.ts_ns > watermark && r->nheld < HELD_MAX)
				goto done;
			cr->qhead++;
			cr->qn--;
			r->nheld--;
			if (!he->ev.complete && r->stopping &&
			    he->ev.ts_ns > r->stop_ns) {
				r->st.late_issues++;
				continue;
			}
			ret = cap_match_event(r->match, &he->ev, emit, ctx);
			if (ret < 0)
				return ret;
		} while (cr->qn && still_first(cr, next));
	}
done:
	/* What is left (past the watermark: a few ms) moves to the front,
	 * so that the queues are reused from their start. */
	for (int c = 0; c < r->ncpu; c++) {
		cr = &r->cpu[c];
		if (cr->qhead && cr->qn)
			memmove(cr->q, cr->q + cr->qhead, cr->qn * sizeof(*cr->q));
		cr->qhead = 0;
	}
	return cap_match_advance(r->match, watermark, emit, ctx);
}

int cap_rec_poll(cap_rec *r, cap_emit_fn emit, cap_name_fn name, void *ctx)
{
	uint64_t wm = UINT64_MAX;
	uint64_t pub[CAP_SPOOL_CPUS_MAX], pubd[CAP_SPOOL_CPUS_MAX];
	uint64_t lag = UINT64_MAX;
	int events = 0, ret;

	if (!r->started)
		return -EINVAL;
	if (r->clock_local)
		clock_refresh(r, now_mono());
	r->behind = 0;
	r->name = name;
	r->name_ctx = ctx;
	if (r->spool) {
		ret = __atomic_load_n(&r->sp_err, __ATOMIC_ACQUIRE);
		if (ret < 0)
			return ret;
		pthread_mutex_lock(&r->sp_lock);
		for (int c = 0; c < r->ncpu; c++) {
			pub[c] = r->cpu[c].pub_bytes;
			pubd[c] = r->cpu[c].pub_drained;
		}
		r->seen_round_ns = r->pub_round_ns;
		pthread_mutex_unlock(&r->sp_lock);
		/* Catching up, a CPU whose spool is read further in time
		 * than another's with data left waits for it: its events
		 * past the watermark would be held (up to HELD_MAX, then
		 * merged out of order). */
		for (int c = 0; c < r->ncpu; c++) {
			const struct cpu_reader *cr = &r->cpu[c];

			if (cr->sfd >= 0 && cr->rd_off + cr->page_size <= pub[c] &&
			    cr->drained_ns < lag)
				lag = cr->drained_ns;
		}
	}
	for (int c = 0; c < r->ncpu; c++) {
		struct cpu_reader *cr = &r->cpu[c];

		if (r->spool) {
			if (cr->sfd < 0)
				continue;
			if (lag != UINT64_MAX && cr->drained_ns > lag + SPOOL_SKEW_NS &&
			    cr->rd_off + cr->page_size <= pub[c]) {
				r->behind = 1;
				ret = 0;
			} else {
				ret = read_cpu_spool(r, cr, &events, pub[c], pubd[c]);
			}
		} else {
			if (cr->fd < 0)
				continue;
			ret = read_cpu(r, cr, &events);
		}
		if (ret < 0)
			return ret;
		if (cr->drained_ns < wm)
			wm = cr->drained_ns;
	}
	wm = wm > ORDER_SLACK_NS ? wm - ORDER_SLACK_NS : 0;
	r->wm_ns = wm;
	ret = process_held(r, wm, emit, ctx);
	return ret < 0 ? ret : events;
}

static void read_overruns(cap_rec *r)
{
	for (int c = 0; c < r->ncpu; c++) {
		char file[64], *s, *p;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", c);
		s = tracefs_instance_file_read(r->inst, file, NULL);
		if (!s)
			continue;
		if ((p = strstr(s, "overrun:")))
			r->st.overruns += strtoull(p + 8, NULL, 10);
		if ((p = strstr(s, "dropped events:")))
			r->st.overruns += strtoull(p + 15, NULL, 10);
		free(s);
	}
}

/* The splicer's end: final = 1 turns tracing off and empties the rings
 * into the spool, 2 quits at once. */
static int stop_splicer(cap_rec *r, int final)
{
	if (!r->splicer_on)
		return 0;
	__atomic_store_n(&r->sp_final, final, __ATOMIC_RELEASE);
	pthread_join(r->splicer, NULL);
	r->splicer_on = 0;
	/* the caller's mask back: a signal that came since is delivered */
	pthread_sigmask(SIG_SETMASK, &r->old_mask, NULL);
	return __atomic_load_n(&r->sp_err, __ATOMIC_ACQUIRE);
}

/* Reads the spool to its end as published, then emits everything. */
static int spool_drain(cap_rec *r, cap_emit_fn emit, cap_name_fn name,
		       void *ctx)
{
	int ret;

	do {
		ret = cap_rec_poll(r, emit, name, ctx);
		if (ret < 0)
			return ret;
	} while (ret > 0 || r->behind);
	ret = process_held(r, UINT64_MAX, emit, ctx);
	if (ret < 0)
		return ret;
	return cap_match_drain(r->match, emit, ctx);
}

/* The stop's drain is done: no request is in flight and every event up
 * to the stop has been matched.  Events still held are after the stop
 * (the watermark passed it): they would only be counted as such, and
 * under a running workload they never run out, so waiting for them kept
 * the stop for its whole drain_ns. */
static int drained(const cap_rec *r)
{
	return cap_match_pending(r->match) == 0 &&
	       (r->nheld == 0 || r->wm_ns > r->stop_ns);
}

/* --spool: the stop.  The decoder (the caller) gets its priority back
 * and catches up; the stop's drain (in-flight requests' completions)
 * starts once it has read a round of the splicer's begun after the
 * stop, partly filled sub-buffers included, as the live reader's does. */
static int finish_spool(cap_rec *r, cap_emit_fn emit, cap_name_fn name,
			void *ctx)
{
	struct sched_param sp = { 0 };
	uint64_t deadline = 0;
	int ret;

	r->stopping = 1;
	r->stop_ns = now_mono();
	/* The boundary, in the trace clock (mono: CLOCK_MONOTONIC), that
	 * every event is judged by, whenever its CPU's buffer is read:
	 * issues after it are not recorded (process_held()), completions
	 * after it without a pending issue are theirs, not losses. */
	cap_match_set_stop(r->match, r->stop_ns);
	__atomic_store_n(&r->sp_stopping, 1, __ATOMIC_RELEASE);
	sched_setscheduler(0, SCHED_OTHER, &sp);
	for (;;) {
		int caught;
		uint64_t now;

		ret = cap_rec_poll(r, emit, name, ctx);
		if (ret < 0)
			return ret;
		caught = !r->behind && r->seen_round_ns > r->stop_ns;
		if (caught && drained(r))
			break;
		now = now_mono();
		if (caught && !deadline)
			deadline = now + r->drain_ns;
		if (deadline && now > deadline)
			break;
		if (ret == 0 && !r->behind) {
			struct timespec ts = { 0, 2000000 };

			nanosleep(&ts, NULL);
		}
	}
	ret = stop_splicer(r, 1);
	if (ret < 0)
		return ret;
	ret = spool_drain(r, emit, name, ctx);
	if (ret < 0)
		return ret;
	read_overruns(r);
	r->started = 0;
	return 0;
}

int cap_rec_finish(cap_rec *r, cap_emit_fn emit, cap_name_fn name, void *ctx)
{
	uint64_t deadline;
	int ret;

	if (!r->started)
		return -EINVAL;
	if (r->spool == 1)
		return finish_spool(r, emit, name, ctx);
	if (r->spool == 2) {
		ret = spool_drain(r, emit, name, ctx);
		r->started = 0;
		return ret;
	}
	r->stopping = 1;
	r->stop_ns = now_mono();
	/* The boundary, in the trace clock (mono: CLOCK_MONOTONIC), that
	 * every event is judged by, whenever its CPU's buffer is read:
	 * issues after it are not recorded (process_held()), completions
	 * after it without a pending issue are theirs, not losses. */
	cap_match_set_stop(r->match, r->stop_ns);
	deadline = r->stop_ns + r->drain_ns;
	/* In-flight requests complete after the stop: wait for them. */
	for (;;) {
		ret = cap_rec_poll(r, emit, name, ctx);
		if (ret < 0)
			return ret;
		if (drained(r))
			break;
		if (now_mono() > deadline)
			break;
		if (ret == 0) {
			struct timespec ts = { 0, 2000000 };

			nanosleep(&ts, NULL);
		}
	}
	tracefs_trace_off(r->inst);
	do {
		ret = cap_rec_poll(r, emit, name, ctx);
		if (ret < 0)
			return ret;
	} while (ret > 0);
	ret = process_held(r, UINT64_MAX, emit, ctx);
	if (ret < 0)
		return ret;
	ret = cap_match_drain(r->match, emit, ctx);
	if (ret < 0)
		return ret;
	read_overruns(r);
	r->started = 0;
	return 0;
}

int cap_rec_behind(const cap_rec *r)
{
	return r->behind;
}

uint64_t cap_rec_t0(const cap_rec *r)
{
	return r->t0_ns;
}

void cap_rec_get_stats(const cap_rec *r, struct cap_rec_stats *st)
{
	*st = r->st;
	if (r->match) {
		cap_match_get_stats(r->match, &st->match);
		st->records = st->match.emitted;
	}
}

void cap_rec_close(cap_rec *r)
{
	if (!r)
		return;
	stop_splicer(r, 2);
	if (r->cpu) {
		for (int c = 0; c < r->ncpu; c++) {
			struct cpu_reader *cr = &r->cpu[c];

			if (cr->fd >= 0)
				close(cr->fd);
			if (cr->sfd >= 0)
				close(cr->sfd);
			if (cr->pipe[0] >= 0)
				close(cr->pipe[0]);
			if (cr->pipe[1] >= 0)
				close(cr->pipe[1]);
			free(cr->spage);
			free(cr->page);
			free(cr->q);
		}
		free(r->cpu);
	}
	if (r->spool)
		pthread_mutex_destroy(&r->sp_lock);
	free(r->spool_dir);
	if (r->inst) {
		tracefs_trace_off(r->inst);
		tracefs_instance_destroy(r->inst);
		tracefs_instance_free(r->inst);
	}
	if (r->tep)
		tep_free(r->tep);
	cap_match_free(r->match);
	if (r->clock_fd >= 0)
		close(r->clock_fd);
	free(r->pids);
	free(r->dev);
	free(r);
}

#else /* !HAVE_TRACEFS */

struct cap_rec {
	int unused;
};

int cap_rec_open(cap_rec **r, const struct cap_rec_opts *o, ist_header *h,
		 char *err, size_t errlen)
{
	(void)o;
	(void)h;
	*r = NULL;
	snprintf(err, errlen, "built without libtracefs: live recording is not available");
	return IST_EUNSUPPORTED;
}

int cap_rec_start(cap_rec *r) { (void)r; return IST_EUNSUPPORTED; }
int cap_rec_poll(cap_rec *r, cap_emit_fn e, cap_name_fn n, void *c)
{
	(void)r; (void)e; (void)n; (void)c;
	return IST_EUNSUPPORTED;
}
int cap_rec_finish(cap_rec *r, cap_emit_fn e, cap_name_fn n, void *c)
{
	(void)r; (void)e; (void)n; (void)c;
	return IST_EUNSUPPORTED;
}
int cap_rec_behind(const cap_rec *r) { (void)r; return 0; }
void cap_rec_get_stats(const cap_rec *r, struct cap_rec_stats *st)
{
	(void)r;
	memset(st, 0, sizeof(*st));
}
uint64_t cap_rec_t0(const cap_rec *r) { (void)r; return 0; }
void cap_rec_close(cap_rec *r) { (void)r; }
#endif
