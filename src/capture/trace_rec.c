/* SPDX-License-Identifier: MIT */
/* trace_rec.c - live block I/O recorder on a private tracefs instance. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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

enum { EV_RQ_ISSUE, EV_RQ_COMPLETE, EV_BIO_QUEUE, EV_BIO_COMPLETE, EV_COUNT };

static const char *const ev_names[EV_COUNT] = {
	"block_rq_issue", "block_rq_complete", "block_bio_queue",
	"block_bio_complete",
};

struct ev_layout {
	int id;
	int used;
	int off_dev, off_sector, off_nr, off_rwbs, len_rwbs, off_comm;
	int min_len; /* an event shorter than this is malformed */
};

/* Small: a poll holds tens of thousands (the process name is passed on
 * when the event is decoded, the first time its pid is seen). */
struct held_event {
	struct cap_event ev;
};

/* One CPU's trace_pipe_raw and the events read from it, in time order
 * (a CPU's ring buffer is: its time deltas are unsigned), waiting to be
 * merged with the other CPUs' up to the watermark. */
struct cpu_reader {
	int fd;
	uint8_t *page;
	size_t page_size;
	uint64_t drained_ns; /* everything before this time has been read */
	int32_t named_pid;   /* the last pid seen named on this CPU */
	struct held_event *q;
	size_t qhead, qn, qcap;
};

struct cap_rec {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct ev_layout ev[EV_COUNT];
	int nused;            /* the events enabled, for decode_event() */
	int used_id[EV_COUNT], used_k[EV_COUNT];
	struct cap_devinfo *dev;
	unsigned ndev;
	struct cpu_reader *cpu;
	int ncpu;
	cap_match *match;
	size_t nheld; /* events in the CPUs' queues */
	uint32_t *pids; /* open-addressed set of named pids (+1), bounded */
	size_t pid_cap, npids;
	uint64_t t0_ns, stop_ns;
	int started, stopping;
	int behind; /* the last poll left data in a buffer */
	cap_name_fn name; /* during a poll */
	void *name_ctx;
	uint64_t drain_ns;
	size_t max_pending;
	struct cap_rwbs_cache rwbs;
	struct cap_rec_stats st;
};

#define HELD_MAX ((size_t)1 << 21) /* events held for time ordering */
#define BYTES_PER_ROUND (2u << 20)  /* per CPU, so one busy CPU cannot starve */
/* Sub-buffer size asked (kernels since 6.8; older ones keep one page).
 * A read returns one sub-buffer: a full one is swapped out of the ring
 * whole and copied once, but the one a writer is still filling is copied
 * event by event with interrupts off, which costs several times as much
 * per event; each poll ends on such a partly filled sub-buffer per CPU.
 * 16 KiB keeps that part small at a few thousand reads a second (bench/
 * README.md: 256-512 KiB tripled the recorder's CPU per I/O, 16 KiB used
 * 4-17% less than 64 KiB). */
#define SUBBUF_KB 16
#define ORDER_SLACK_NS 2000000ull   /* events committed late on a CPU */
#define MAX_NAMED_PIDS 65536

static uint64_t now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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
		char *fmt = tracefs_event_file_read(NULL, "block", ev_names[i],
						    "format", &size);

		if (fmt && size > 0)
			tep_parse_event(r->tep, fmt, (size_t)size, "block");
		free(fmt);
		e = tep_find_event_by_name(r->tep, "block", ev_names[i]);
		if (!e) {
			snprintf(err, errlen, "tracefs has no block/%s event",
				 ev_names[i]);
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
				 ev_names[i]);
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

			if (tracefs_event_file_write(r->inst, "block", ev_names[i],
						     "filter", filter) < 0) {
				snprintf(err, errlen, "cannot set the filter of block/%s: %s",
					 ev_names[i], strerror(errno));
				return -EIO;
			}
			if (tracefs_event_enable(r->inst, "block", ev_names[i]) < 0) {
				snprintf(err, errlen, "cannot enable block/%s: %s",
					 ev_names[i], strerror(errno));
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
	for (int c = 0; c < r->ncpu; c++)
		r->cpu[c].fd = -1;
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

int cap_rec_open(cap_rec **rp, const struct cap_rec_opts *o, ist_header *h,
		 char *err, size_t errlen)
{
	cap_rec *r;
	char name[128], val[64];
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
	if (tracefs_instance_file_write(r->inst, "trace_clock", "mono") < 0) {
		snprintf(err, errlen, "cannot set the trace clock to mono");
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
	ist_header_set(h, "source", "tracefs");
	ist_header_set(h, "trace_clock", "mono");
	for (unsigned i = 0; i < r->ndev; i++) {
		ret = ist_header_add_device(h, r->dev[i].name, r->dev[i].size,
					    r->dev[i].block_size);
		if (ret < 0) {
			snprintf(err, errlen, "cannot add device %s", r->dev[i].name);
			goto fail;
		}
		snprintf(name, sizeof(name), "dev.%s.event", r->dev[i].name);
		ist_header_set(h, name, r->dev[i].bio_based ? "bio" : "rq");
	}
	snprintf(val, sizeof(val), "%d", r->ncpu);
	ist_header_set(h, "record.cpus", val);
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
	if (tracefs_trace_on(r->inst) < 0)
		return -errno ? -errno : -EIO;
	r->started = 1;
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
	if (op == IST_OP_COUNT) {
		if (!nr) { /* a driver-private request: no data */
			r->st.ignored++;
			return 0;
		}
		op = IST_OP_WRITE_ZEROES;
	}
	if (op == IST_OP_WRITE && !nr) {
		/* An empty write is a flush carrier (REQ_PREFLUSH). */
		if (!(flags & IST_F_PREFLUSH)) {
			r->st.ignored++;
			return 0;
		}
		op = IST_OP_FLUSH;
		flags &= (uint16_t)~IST_F_PREFLUSH;
	}
	complete = (k == EV_RQ_COMPLETE || k == EV_BIO_COMPLETE);
	sector = !nr ? 0 : sector >= r->dev[d].start ? sector - r->dev[d].start
						     : sector;
	if (complete && cr->qn && !r->stopping) {
		/* The same-CPU shortcut: a completion that follows its issue
		 * on the same CPU with no event between them (a synchronous
		 * driver such as zram completes in the issuing task; so
		 * does a blk-mq request completed where it was issued)
		 * is paired with it here.  It never enters the queue, the
		 * merge or the matcher's hash; the matcher queues the issue
		 * done.  Not while stopping: a late issue's completion stays
		 * counted as one without issue. */
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

/* Reads cr's sub-buffers until the kernel has no more (or a round's
 * share is done) and queues their events. */
static int read_cpu(cap_rec *r, struct cpu_reader *cr, int *events)
{
	/* Every event stamped before this is read when a read finds the
	 * buffer empty (but for those committed late: ORDER_SLACK_NS). */
	uint64_t before = now_mono();

	for (size_t bytes = 0; bytes < BYTES_PER_ROUND;) {
		struct rb_page_iter it;
		const uint8_t *data;
		uint64_t ts;
		int64_t missed;
		uint32_t len;
		ssize_t n;

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
		if (rb_page_open(&it, cr->page, (size_t)n, &missed) < 0)
			return -EIO;
		if (missed > 0)
			r->st.missed += (uint64_t)missed;
		else if (missed < 0)
			r->st.missed++; /* an unknown number: at least one */
		while ((data = rb_page_next_fast(&it, &len, &ts))) {
			int ret = decode_event(r, cr, data, len, ts);

			if (ret < 0)
				return ret;
			(*events)++;
		}
	}
	r->behind = 1;
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
	int events = 0, ret;

	if (!r->started)
		return -EINVAL;
	r->behind = 0;
	r->name = name;
	r->name_ctx = ctx;
	for (int c = 0; c < r->ncpu; c++) {
		struct cpu_reader *cr = &r->cpu[c];

		if (cr->fd < 0)
			continue;
		ret = read_cpu(r, cr, &events);
		if (ret < 0)
			return ret;
		if (cr->drained_ns < wm)
			wm = cr->drained_ns;
	}
	wm = wm > ORDER_SLACK_NS ? wm - ORDER_SLACK_NS : 0;
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

int cap_rec_finish(cap_rec *r, cap_emit_fn emit, cap_name_fn name, void *ctx)
{
	uint64_t deadline;
	int ret;

	if (!r->started)
		return -EINVAL;
	r->stopping = 1;
	r->stop_ns = now_mono();
	deadline = r->stop_ns + r->drain_ns;
	/* In-flight requests complete after the stop: wait for them. */
	for (;;) {
		ret = cap_rec_poll(r, emit, name, ctx);
		if (ret < 0)
			return ret;
		if (cap_match_pending(r->match) == 0 && r->nheld == 0)
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
	if (r->cpu) {
		for (int c = 0; c < r->ncpu; c++) {
			if (r->cpu[c].fd >= 0)
				close(r->cpu[c].fd);
			free(r->cpu[c].page);
			free(r->cpu[c].q);
		}
		free(r->cpu);
	}
	if (r->inst) {
		tracefs_trace_off(r->inst);
		tracefs_instance_destroy(r->inst);
		tracefs_instance_free(r->inst);
	}
	if (r->tep)
		tep_free(r->tep);
	cap_match_free(r->match);
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
