/* SPDX-License-Identifier: MIT */
/* target.c - replay targets: opening, safety checks, offset mapping and alignment. */
#include "config.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "replay/internal.h"

static int failf(struct rpl_run *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int failf(struct rpl_run *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

static int trace_has_writes(const struct rpl_run *r)
{
	if (r->o.read_only)
		return 0;
	if (!r->have_totals)
		return 1; /* unknown: assume the worst */
	return r->totals.count[IST_OP_WRITE] || r->totals.count[IST_OP_DISCARD] ||
	       r->totals.count[IST_OP_WRITE_ZEROES];
}

static uint64_t write_count(const struct rpl_run *r)
{
	if (!r->have_totals)
		return 0;
	return r->totals.count[IST_OP_WRITE] + r->totals.count[IST_OP_DISCARD] +
	       r->totals.count[IST_OP_WRITE_ZEROES];
}

/* A filesystem, RAID member or partition table on the device: its type,
 * or NULL when blank. */
static int probe_signature(const char *path, char *type, size_t size)
{
	blkid_probe pr = blkid_new_probe_from_filename(path);
	const char *v = NULL;
	int rc;

	if (!pr)
		return -errno ? -errno : -EIO;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	rc = blkid_do_safeprobe(pr);
	if (rc == 0) {
		if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) &&
		    blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL))
			v = "unknown";
		snprintf(type, size, "%s", v);
	} else if (rc == -2) {
		snprintf(type, size, "ambivalent (several)");
		rc = 0;
	}
	blkid_free_probe(pr);
	return rc == 0 ? 1 : 0;
}

static unsigned file_dio_align(int fd)
{
#ifdef STATX_DIOALIGN
	struct statx stx;

	if (!statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
	    (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align)
		return stx.stx_dio_offset_align;
#endif
	(void)fd;
	return 512;
}

/* Is the block device rdev one of the kinds named (its sysfs name is
 * the kind's name and a number)? */
static int blk_kind(dev_t rdev, const char *const *names, unsigned nnames)
{
	char path[96], link[256];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(rdev), minor(rdev));
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	for (unsigned i = 0; i < nnames; i++) {
		size_t l = strlen(names[i]);

		if (!strncmp(base, names[i], l) && base[l] >= '0' && base[l] <= '9')
			return 1;
	}
	return 0;
}

/* RAM-backed block devices that complete every I/O in the submitting
 * context and do not support REQ_NOWAIT: zram, brd (ramN), pmem. */
static int sync_ram_device(dev_t rdev)
{
	static const char *const names[] = { "zram", "ram", "pmem" };

	return blk_kind(rdev, names, 3);
}

/* Block devices whose I/O a kernel thread does (a loop device's worker
 * reads and writes its backing file): see plan_cpus in engine.c. */
static int kthread_device(dev_t rdev)
{
	static const char *const names[] = { "loop" };

	return blk_kind(rdev, names, 1);
}

static void choose_inline(struct rpl_run *r, struct rpl_target *t, const struct stat *st)
{
	/* a file on a filesystem on a loop device (or a partition of one:
	 * loopNpM) has its I/O done by the loop device's thread as well; it
	 * was pinned.  Not seen through a device mapper or md device. */
	t->kthread_io = kthread_device(t->is_blk ? st->st_rdev : st->st_dev);
	if (r->o.inline_io == RPL_INLINE_ALWAYS)
		t->inline_io = 1;
	else if (r->o.inline_io == RPL_INLINE_AUTO)
		t->inline_io = t->is_blk && t->direct && sync_ram_device(st->st_rdev);
	if (t->inline_io && r->o.inline_io == RPL_INLINE_AUTO)
		rpl_note(r, "%s: RAM-backed device without REQ_NOWAIT: I/O due on time issued "
			 "inline by the worker (io_uring would defer it to a helper thread); "
			 "--inline never to change", t->path);
}

static int open_target(struct rpl_run *r, struct rpl_target *t, int writes)
{
	int direct = !r->o.buffered ? O_DIRECT : 0;
	int acc = writes || r->o.create ? O_RDWR : O_RDONLY;
	struct stat st;
	char sig[64];

	if (stat(t->path, &st) == 0 && S_ISBLK(st.st_mode)) {
		t->is_blk = 1;
		if (writes && !r->o.allow_write && !r->have_totals)
			/* a source without totals (a write pattern, a synth
			 * profile): said "the trace has 0 writes" */
			return failf(r, IST_EUNSAFE,
				     "%s: refused: the workload writes; writing to a "
				     "block device needs --allow-write", t->path);
		if (writes && !r->o.allow_write)
			return failf(r, IST_EUNSAFE,
				     "%s: refused: the trace has %" PRIu64
				     " writes; writing to a block device needs --allow-write",
				     t->path, write_count(r));
		/* O_EXCL on a block device fails when it is mounted or held. */
		t->fd = open(t->path, acc | direct | O_EXCL | O_CLOEXEC);
		if (t->fd < 0 && errno == EBUSY)
			return failf(r, IST_EUNSAFE,
				     "%s: refused: device is in use (mounted or held open exclusively)",
				     t->path);
		if (t->fd < 0)
			return failf(r, -errno, "%s: %s", t->path, strerror(errno));
		if (writes && !r->o.force && probe_signature(t->path, sig, sizeof(sig)) > 0)
			return failf(r, IST_EUNSAFE,
				     "%s: refused: device carries a %s signature; --force to overwrite it",
				     t->path, sig);
		if (ioctl(t->fd, BLKGETSIZE64, &t->size) < 0 ||
		    ioctl(t->fd, BLKSSZGET, &t->lbs) < 0)
			return failf(r, -errno, "%s: %s", t->path, strerror(errno));
		t->direct = !!direct;
		t->writable = acc == O_RDWR;
		choose_inline(r, t, &st);
		return 0;
	}
	if (stat(t->path, &st) == 0 && !S_ISREG(st.st_mode))
		return failf(r, -EINVAL, "%s: not a regular file or block device", t->path);
	if ((writes || r->o.create) && r->src && r->src->path &&
	    stat(t->path, &st) == 0) {
		struct stat ss;

		/* the replay's writes (or --create's extension) went into the
		 * trace it was reading: the trace was destroyed */
		if (stat(r->src->path, &ss) == 0 && ss.st_dev == st.st_dev &&
		    ss.st_ino == st.st_ino)
			return failf(r, IST_EUNSAFE, "%s: refused: the target is the trace "
				     "being replayed (its writes would overwrite it)", t->path);
	}
	if (stat(t->path, &st) < 0 && !r->o.create)
		return failf(r, -errno, "%s: %s (--create makes it)", t->path, strerror(errno));
	t->fd = open(t->path, acc | direct | O_CLOEXEC | (r->o.create ? O_CREAT : 0), 0644);
	if (t->fd < 0 && direct && errno == EINVAL) {
		/* tmpfs and a few others refuse O_DIRECT. */
		rpl_note(r, "%s: O_DIRECT not supported by the filesystem, buffered I/O used",
			 t->path);
		direct = 0;
		t->fd = open(t->path, acc | O_CLOEXEC | (r->o.create ? O_CREAT : 0), 0644);
	}
	if (t->fd < 0)
		return failf(r, -errno, "%s: %s", t->path, strerror(errno));
	if (fstat(t->fd, &st) < 0)
		return failf(r, -errno, "%s: %s", t->path, strerror(errno));
	t->size = (uint64_t)st.st_size;
	t->direct = !!direct;
	t->lbs = direct ? file_dio_align(t->fd) : 512;
	t->writable = acc == O_RDWR;
	choose_inline(r, t, &st);
	return 0;
}

static int grow_file(struct rpl_run *r, struct rpl_target *t, uint64_t size)
{
	if (ftruncate(t->fd, (off_t)size) < 0)
		return failf(r, -errno, "%s: cannot extend to %" PRIu64 " bytes: %s",
			     t->path, size, strerror(errno));
	t->size = size;
	return 0;
}

static uint64_t round_up(uint64_t v, unsigned a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

int rpl_targets_open(struct rpl_run *r)
{
	int writes = trace_has_writes(r), ret, dflt = -1;
	unsigned ndev = r->ndev;

	if (r->o.backend == RPL_BACKEND_NULL) {
		/* The null back-end maps every device onto itself. */
		r->tgt = calloc(ndev ? ndev : 1, sizeof(*r->tgt));
		if (!r->tgt)
			return -ENOMEM;
		r->ntgt = ndev ? ndev : 1;
		for (unsigned d = 0; d < r->ntgt; d++) {
			r->tgt[d].fd = -1;
			r->tgt[d].is_null = 1;
			r->tgt[d].size = d < ndev && r->dev_size[d] ? r->dev_size[d]
								  : UINT64_MAX / 2;
			r->tgt[d].lbs = 512;
			r->tgt[d].path = strdup("null");
			if (!r->tgt[d].path)
				return -ENOMEM;
			if (d < ndev)
				r->dev_map[d] = d;
		}
		r->dev_map[ndev] = 0;
		return 0;
	}
	r->tgt = calloc(r->o.ntargets, sizeof(*r->tgt));
	if (!r->tgt)
		return -ENOMEM;
	/* The mapping first, then the targets: a refused mapping left files
	 * that --create had made. */
	for (unsigned i = 0; i < r->o.ntargets; i++) {
		const struct rpl_target_spec *sp = &r->o.targets[i];

		if (sp->dev >= 0 && (unsigned)sp->dev >= ndev)
			return failf(r, -EINVAL, "--target %d=%s: the trace has %u device%s",
				     sp->dev, sp->path, ndev, ndev == 1 ? "" : "s");
		for (unsigned j = 0; j < i; j++)
			if (r->o.targets[j].dev == sp->dev)
				return failf(r, -EINVAL, sp->dev < 0 ?
					     "more than one --target without a device number" :
					     "more than one --target for device %d", sp->dev);
		if (sp->dev < 0)
			dflt = 0;
	}
	for (unsigned d = 0; d < ndev && dflt < 0; d++) {
		unsigned i;

		for (i = 0; i < r->o.ntargets && r->o.targets[i].dev != (int)d; i++)
			;
		if (i == r->o.ntargets) {
			const struct ist_device *dv = ist_header_device(r->src->header, d);

			return failf(r, -EINVAL, "trace device %u (%s) has no --target", d,
				     dv && dv->name ? dv->name : "?");
		}
	}
	dflt = -1;
	for (unsigned i = 0; i < r->o.ntargets; i++) {
		const struct rpl_target_spec *sp = &r->o.targets[i];
		unsigned k;

		for (k = 0; k < r->ntgt; k++)
			if (!strcmp(r->tgt[k].path, sp->path))
				break;
		if (k == r->ntgt) {
			struct rpl_target *t = &r->tgt[r->ntgt++];

			t->fd = -1;
			t->path = strdup(sp->path);
			if (!t->path)
				return -ENOMEM;
			ret = open_target(r, t, writes);
			if (ret < 0)
				return ret;
		}
		if (sp->dev < 0)
			dflt = (int)k;
	}
	for (unsigned d = 0; d <= ndev; d++) {
		int k = dflt;

		for (unsigned i = 0; i < r->o.ntargets && d < ndev; i++)
			if (r->o.targets[i].dev == (int)d)
				for (unsigned j = 0; j < r->ntgt; j++)
					if (!strcmp(r->tgt[j].path, r->o.targets[i].path))
						k = (int)j;
		if (k < 0 && d < ndev) {
			const struct ist_device *dv = ist_header_device(r->src->header, d);

			return failf(r, -EINVAL, "trace device %u (%s) has no --target", d,
				     dv && dv->name ? dv->name : "?");
		}
		r->dev_map[d] = k < 0 ? UINT32_MAX : (unsigned)k;
	}
	/* Sizes: --create grows files; strict refuses what does not fit. */
	for (unsigned k = 0; k < r->ntgt; k++) {
		struct rpl_target *t = &r->tgt[k];
		uint64_t need = 0;
		unsigned need_dev = 0;

		for (unsigned d = 0; d < ndev; d++)
			if (r->dev_map[d] == k && r->have_totals && d < r->totals.ndev &&
			    round_up(r->totals.dev_max_end[d], t->lbs) > need) {
				need = round_up(r->totals.dev_max_end[d], t->lbs);
				need_dev = d;
			}
		if (!t->is_blk && r->o.create) {
			uint64_t want = r->o.create_size ? r->o.create_size : need;

			if (want > t->size) {
				ret = grow_file(r, t, round_up(want, t->lbs));
				if (ret < 0)
					return ret;
			}
		}
		if (!t->size)
			return failf(r, -EINVAL, "%s: target is empty (--create sizes files)",
				     t->path);
		if (r->o.remap == RPL_REMAP_STRICT && need > t->size) {
			const struct ist_device *dv = ist_header_device(r->src->header, need_dev);

			/* --create grows files only: a block device has its size */
			return failf(r, IST_ERANGE,
				     "%s: refused: trace device %u (%s) reaches byte %" PRIu64
				     ", beyond the target's %" PRIu64
				     " bytes; use --remap wrap|scale or a larger target%s",
				     t->path, need_dev, dv && dv->name ? dv->name : "?",
				     need, t->size, t->is_blk ? "" : " (--create makes it)");
		}
		if (r->o.remap == RPL_REMAP_STRICT && !r->have_totals)
			rpl_note(r, "%s: the trace has no totals: offsets are checked per I/O",
				 t->path);
	}
	return 0;
}

void rpl_targets_close(struct rpl_run *r)
{
	for (unsigned k = 0; k < r->ntgt; k++) {
		if (r->tgt[k].fd >= 0)
			close(r->tgt[k].fd);
		free(r->tgt[k].path);
	}
	free(r->tgt);
	r->tgt = NULL;
	r->ntgt = 0;
}

int rpl_map_io(struct rpl_run *r, struct ist_record *rec)
{
	unsigned dev = rec->dev < r->ndev ? rec->dev : r->ndev;
	unsigned k = r->dev_map[dev];
	const struct rpl_target *t;
	uint64_t off, len, size, align;

	if (k == UINT32_MAX) {
		r->skipped_end++;
		return 1;
	}
	t = &r->tgt[k];
	rec->dev = k;
	if (rec->op == IST_OP_FLUSH) {
		rec->offset = 0;
		rec->len = 0;
		return 0;
	}
	if (rec->len > RPL_MAX_IO_LEN) {
		r->skipped_big++;
		return 1;
	}
	size = t->size;
	align = t->direct || t->is_blk ? t->lbs : 1;
	off = rec->offset;
	len = rec->len ? rec->len : align;
	if (align > 1 && (off % align || len % align)) {
		uint64_t end = round_up(off + len, (unsigned)align);

		off -= off % align;
		len = end - off;
		r->realigned++;
	}
	if (len > size || len > RPL_MAX_IO_LEN) {
		r->skipped_end++;
		return 1;
	}
	switch (r->o.remap) {
	case RPL_REMAP_WRAP:
		if (off + len > size) {
			off %= size - len + 1;
			off -= off % align;
			r->wrapped++;
		}
		break;
	case RPL_REMAP_SCALE: {
		uint64_t dsize = dev < r->ndev ? r->dev_size[dev] : 0;

		if (dsize && dsize != size) {
			off = (uint64_t)((unsigned __int128)off * size / dsize);
			off -= off % align;
			if (off + len > size)
				off = (size - len) - (size - len) % align;
			r->scaled++;
		}
		break;
	}
	default:
		break;
	}
	/* Never an I/O past a target's end, whatever the mode. */
	if (off + len > size) {
		r->skipped_end++;
		return 1;
	}
	rec->offset = off;
	rec->len = (uint32_t)len;
	return 0;
}
