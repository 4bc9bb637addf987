/* SPDX-License-Identifier: MIT */
/* measure.c - built-in access patterns as record sources, target sizes,
 * and one measurement point on the replay engine. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/measure.h"

const struct rpt_pattern rpt_patterns[] = {
	{ "4k-randread", "4 KiB random reads", 4096, 100, 0 },
	{ "4k-randwrite", "4 KiB random writes (SNIA PTS IOPS, preconditioning)", 4096, 0, 0 },
	{ "4k-randrw", "4 KiB random, 70% reads", 4096, 70, 0 },
	{ "8k-7030", "8 KiB random, 70% reads (OLTP)", 8192, 70, 0 },
	{ "64k-seqread", "64 KiB sequential reads", 65536, 100, 1 },
	{ "64k-seqwrite", "64 KiB sequential writes", 65536, 0, 1 },
	{ "128k-seqwrite", "128 KiB sequential writes (the fill)", 131072, 0, 1 },
	{ NULL, NULL, 0, 0, 0 },
};

const struct rpt_pattern *rpt_pattern_find(const char *name)
{
	for (const struct rpt_pattern *p = rpt_patterns; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

struct pat_src {
	const struct rpt_pattern *p;
	uint64_t region, limit, seed;
	uint64_t rng;      /* xorshift64* state */
	uint64_t seq;      /* records produced  */
	uint64_t next_off; /* sequential        */
	uint64_t done_bytes;
};

static uint64_t next_rand(struct pat_src *ps)
{
	uint64_t x = ps->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	ps->rng = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static void pat_reset(struct pat_src *ps)
{
	ps->rng = ps->seed ? ps->seed : 0x9E3779B97F4A7C15ull;
	ps->seq = 0;
	ps->next_off = 0;
	ps->done_bytes = 0;
}

static ssize_t pat_read(struct rpl_source *s, struct ist_record *recs, size_t max)
{
	struct pat_src *ps = s->priv;
	const struct rpt_pattern *p = ps->p;
	uint64_t blocks = ps->region / p->bs;
	size_t n = 0;

	for (; n < max; n++) {
		struct ist_record *r = &recs[n];

		if (ps->limit && ps->done_bytes >= ps->limit)
			break;
		memset(r, 0, sizeof(*r));
		/* nominally 1M IOPS; afap and rate timing ignore it */
		r->t_ns = ps->seq * 1000;
		r->len = p->bs;
		if (p->sequential) {
			if (ps->next_off + p->bs > ps->region)
				ps->next_off = 0;
			r->offset = ps->next_off;
			ps->next_off += p->bs;
		} else {
			r->offset = next_rand(ps) % blocks * p->bs;
		}
		r->op = p->read_pct >= 100 ? IST_OP_READ : p->read_pct == 0 ? IST_OP_WRITE :
			next_rand(ps) % 100 < p->read_pct ? IST_OP_READ : IST_OP_WRITE;
		r->stream = 1 + ps->seq % 256;
		ps->seq++;
		ps->done_bytes += p->bs;
	}
	return (ssize_t)n;
}

static int pat_rewind(struct rpl_source *s)
{
	pat_reset(s->priv);
	return 0;
}

/* Only a read pattern declares totals (no writes: a block device needs no
 * --allow-write); a write pattern's are unknown, so the engine assumes
 * writes and applies its safety rules. */
static int pat_totals(struct rpl_source *s, struct ist_totals *t)
{
	struct pat_src *ps = s->priv;

	if (ps->p->read_pct < 100)
		return -ENOENT;
	memset(t, 0, sizeof(*t));
	t->dev_max_end = calloc(1, sizeof(uint64_t));
	if (!t->dev_max_end)
		return -ENOMEM;
	t->ndev = 1;
	t->dev_max_end[0] = ps->region;
	return 0;
}

static void pat_where(struct rpl_source *s, char *buf, size_t size)
{
	struct pat_src *ps = s->priv;

	snprintf(buf, size, "record %llu", (unsigned long long)ps->seq);
}

static void pat_close(struct rpl_source *s)
{
	free(s->priv);
	s->priv = NULL;
}

static const struct rpl_source_ops pattern_ops = {
	.name = "pattern",
	.read = pat_read,
	.rewind = pat_rewind,
	.totals = pat_totals,
	.where = pat_where,
	.close = pat_close,
};

int rpt_pattern_source(struct rpl_source **sp, const struct rpt_pattern *p,
		       uint64_t region, uint64_t limit_bytes, uint64_t seed)
{
	struct rpl_source *s;
	struct pat_src *ps;
	ist_header *h;

	*sp = NULL;
	region -= region % 4096;
	if (region < p->bs)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	ps = calloc(1, sizeof(*ps));
	h = ist_header_new();
	if (!s || !ps || !h || ist_header_add_device(h, "target", region, 512) < 0 ||
	    ist_header_set(h, "source", "pattern") < 0 ||
	    ist_header_set(h, "profile", p->name) < 0) {
		free(s);
		free(ps);
		ist_header_free(h);
		return -ENOMEM;
	}
	ps->p = p;
	ps->region = region;
	ps->limit = limit_bytes;
	ps->seed = seed;
	pat_reset(ps);
	s->ops = &pattern_ops;
	s->header = h;
	s->path = p->name;
	s->format = "pattern";
	s->priv = ps;
	*sp = s;
	return 0;
}

int rpt_target_size(const char *path, uint64_t *size)
{
	struct stat st;
	int fd, e = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		e = -errno;
	} else if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, size) < 0)
			e = -errno;
	} else if (S_ISREG(st.st_mode)) {
		*size = (uint64_t)st.st_size;
	} else {
		e = -EINVAL;
	}
	close(fd);
	return e;
}

void rpt_pcts_from(struct rpt_pcts *d, const struct rpl_pcts *s)
{
	d->present = s->count > 0;
	d->count = (double)s->count;
	d->min = (double)s->min;
	d->max = (double)s->max;
	d->mean = s->mean;
	d->stddev = s->stddev;
	d->p50 = (double)s->p50;
	d->p90 = (double)s->p90;
	d->p99 = (double)s->p99;
	d->p999 = (double)s->p999;
	d->p9999 = (double)s->p9999;
}

int rpt_measure(const struct rpl_opts *o, struct rpl_source *src,
		volatile sig_atomic_t *stop, struct rpt_point *pt, char *err,
		size_t errsize)
{
	const struct rpl_result *res;
	rpl_run *r = NULL;
	int e, stopped = 0;

	e = rpl_run_new(&r, o, src);
	if (e < 0) {
		snprintf(err, errsize, "%s", r && rpl_run_errmsg(r) && *rpl_run_errmsg(r) ?
			 rpl_run_errmsg(r) : ist_strerror(e));
		rpl_run_free(r);
		return e;
	}
	e = rpl_run_start(r);
	if (e < 0) {
		snprintf(err, errsize, "%s", rpl_run_errmsg(r) && *rpl_run_errmsg(r) ?
			 rpl_run_errmsg(r) : ist_strerror(e));
		rpl_run_free(r);
		return e;
	}
	while (!rpl_run_wait(r, 50))
		if (stop && *stop && !stopped) {
			rpl_run_stop(r);
			stopped = 1;
		}
	res = rpl_run_result(r, &e);
	if (!res) {
		snprintf(err, errsize, "%s", rpl_run_errmsg(r) && *rpl_run_errmsg(r) ?
			 rpl_run_errmsg(r) : ist_strerror(e));
		rpl_run_free(r);
		return e < 0 ? e : -EIO;
	}
	if (res->errors && res->errors == res->ios) {
		snprintf(err, errsize, "every I/O failed: %s", ist_strerror(res->first_error));
		rpl_run_free(r);
		return res->first_error < 0 ? res->first_error : -EIO;
	}
	pt->threads = o->workers ? o->workers : 1;
	pt->qd = o->iodepth;
	pt->elapsed_s = (double)res->elapsed_ns / 1e9;
	pt->ios = (double)res->ios;
	pt->bytes = (double)res->bytes;
	pt->iops = pt->elapsed_s > 0 ? pt->ios / pt->elapsed_s : 0;
	pt->mbps = pt->elapsed_s > 0 ? pt->bytes / pt->elapsed_s / 1e6 : 0;
	rpt_pcts_from(&pt->lat, &res->lat);
	rpt_pcts_from(&pt->late, &res->late);
	stopped |= res->interrupted;
	rpl_run_free(r);
	return stopped ? 1 : 0;
}
