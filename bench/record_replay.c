/* SPDX-License-Identifier: MIT */
/*
 * record_replay.c - the recorder's user-space CPU per I/O on a fixed input:
 * "dump" records the raw tracefs sub-buffers of a live recording (as the
 * recorder reads them, poll by poll, with each poll's watermark), "replay"
 * runs them through the recorder's own decoding, merging, matching and IST
 * writing, as often as asked, and prints the CPU time per I/O of the whole
 * and of the writer (ist_writer_write/flush/close) alone.  The same input
 * every round: A/B comparisons of recorder code without the live
 * benchmark's noise (bench/README.md, "Record", session 7).  Not measured:
 * the kernel's read path (its copy of each sub-buffer is emulated by a
 * memcpy whose time is left out) and the wake-ups.
 *
 * It includes the recorder's sources (trace_rec.c, rec_match.c, rb_page.c)
 * to reach their internals; the dump holds raw structures of this build,
 * so dump and replay must come from the same build.
 *
 * Usage: record_replay dump DEV OUT SECONDS   (root; start the I/O meanwhile)
 *        record_replay replay DUMP [ROUNDS] [--compact] [--out FILE]
 */
#include "../src/capture/trace_rec.c"
#include "../src/capture/rec_match.c"
#include "../src/capture/rb_page.c"

#define DUMP_MAGIC 0x52504d44u  /* "DMPR" */
#define POLL_MARK 0x4c4c4f50u   /* "POLL" */
#define END_MARK 0x00444e45u    /* "END"  */
#define BATCH 4096              /* as cmd_record.c */
#define POLL_NS_DUMP 50000000   /* cmd_record.c's POLL_NS */
#define POLLS_PER_FLUSH 20      /* a flush a second at 50 ms polls */

#ifdef HAVE_TRACEFS

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile sig_atomic_t stop_dump;

static void on_signal(int sig)
{
	(void)sig;
	stop_dump = 1;
}

static int put(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -1;
}

/* Polls like the recorder (every 50 ms, each CPU read empty) and writes
 * each poll's sub-buffers, zero-padded to the sub-buffer size, and its
 * watermark. */
static int dump(const char *dev, const char *out, double secs)
{
	struct cap_rec_opts o = { .devs = &dev, .ndev = 1 };
	ist_header *h = ist_header_new();
	char err[512];
	cap_rec *r;
	FILE *f;
	uint32_t u;
	uint64_t end;
	int ret, bad = 0;

	if (!h)
		return 1;
	ret = cap_rec_open(&r, &o, h, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "record_replay: %s\n", err);
		return 1;
	}
	f = fopen(out, "wb");
	if (!f || cap_rec_start(r) < 0) {
		fprintf(stderr, "record_replay: cannot start (%s)\n", out);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	u = DUMP_MAGIC;
	bad |= put(f, &u, 4);
	u = (uint32_t)r->ncpu;
	bad |= put(f, &u, 4);
	u = (uint32_t)r->cpu[0].page_size;
	bad |= put(f, &u, 4);
	bad |= put(f, &r->t0_ns, 8);
	bad |= put(f, r->ev, sizeof(r->ev));
	bad |= put(f, r->dev, sizeof(*r->dev));
	fprintf(stderr, "record_replay: tracing\n");
	end = now_mono() + (uint64_t)(secs * 1e9);
	while (!stop_dump && now_mono() < end && !bad) {
		uint64_t wm = UINT64_MAX;
		struct timespec ts = { 0, POLL_NS_DUMP };

		u = POLL_MARK;
		bad |= put(f, &u, 4);
		for (int c = 0; c < r->ncpu; c++) {
			struct cpu_reader *cr = &r->cpu[c];
			uint64_t before = now_mono();
			long pos = ftell(f);
			uint32_t np = 0;
			ssize_t n;

			bad |= put(f, &np, 4);
			if (cr->fd >= 0) {
				while ((n = read(cr->fd, cr->page, cr->page_size)) > 0) {
					memset(cr->page + n, 0, cr->page_size - (size_t)n);
					bad |= put(f, cr->page, cr->page_size);
					np++;
				}
			}
			bad |= fseek(f, pos, SEEK_SET) | put(f, &np, 4) |
			       fseek(f, 0, SEEK_END);
			if (before < wm)
				wm = before;
		}
		wm = wm > ORDER_SLACK_NS ? wm - ORDER_SLACK_NS : 0;
		bad |= put(f, &wm, 8);
		nanosleep(&ts, NULL);
	}
	u = END_MARK;
	bad |= put(f, &u, 4);
	if (fclose(f) || bad) {
		fprintf(stderr, "record_replay: cannot write %s\n", out);
		return 1;
	}
	cap_rec_close(r);
	ist_header_free(h);
	return 0;
}

/* cmd_record.c's sink, timing the writer. */
struct sink {
	ist_writer *w;
	ist_header *h;
	struct ist_record buf[BATCH];
	size_t n;
	uint64_t records, writer_ns, copy_ns;
	int err;
};

static void write_batch(struct sink *s)
{
	uint64_t t = cpu_ns();

	if (s->n && ist_writer_write(s->w, s->buf, s->n) < 0)
		s->err = 1;
	s->writer_ns += cpu_ns() - t;
	s->n = 0;
}

static int sink_emit(void *ctx, const struct ist_record *rec)
{
	struct sink *s = ctx;

	s->buf[s->n++] = *rec;
	s->records++;
	if (s->n == BATCH)
		write_batch(s);
	return 0;
}

static int sink_name(void *ctx, uint64_t stream, const char *comm)
{
	struct sink *s = ctx;
	char key[48];

	snprintf(key, sizeof(key), "stream.%llu", (unsigned long long)stream);
	return ist_header_set(s->h, key, comm);
}

struct dump_in {
	uint8_t *data;
	size_t size;
	uint32_t ncpu, page_size;
	uint64_t t0;
	struct ev_layout ev[EV_COUNT];
	struct cap_devinfo dev;
};

static int load(const char *path, struct dump_in *d)
{
	FILE *f = fopen(path, "rb");
	uint32_t magic = 0;
	long start, end;
	int ok;

	if (!f)
		return -1;
	ok = fread(&magic, 4, 1, f) == 1 && magic == DUMP_MAGIC &&
	     fread(&d->ncpu, 4, 1, f) == 1 && fread(&d->page_size, 4, 1, f) == 1 &&
	     fread(&d->t0, 8, 1, f) == 1 && fread(d->ev, sizeof(d->ev), 1, f) == 1 &&
	     fread(&d->dev, sizeof(d->dev), 1, f) == 1 && d->ncpu && d->ncpu < 4096 &&
	     d->page_size >= 64 && d->page_size <= (1u << 20);
	start = ftell(f);
	ok = ok && fseek(f, 0, SEEK_END) == 0;
	end = ftell(f);
	ok = ok && start > 0 && end >= start && fseek(f, start, SEEK_SET) == 0;
	if (ok) {
		d->size = (size_t)(end - start);
		d->data = malloc(d->size ? d->size : 1);
		ok = d->data && fread(d->data, 1, d->size, f) == d->size;
	}
	fclose(f);
	return ok ? 0 : -1;
}

/* One pass over the dump; returns 0 or -1 (a malformed dump). */
static int replay_once(const struct dump_in *d, const char *out, int compact,
		       int round)
{
	struct ist_writer_opts wo = {
		.direct = 1,
		.effort = compact ? IST_EFFORT_DEFAULT : IST_EFFORT_FAST,
	};
	const uint8_t *p = d->data, *end = d->data + d->size;
	cap_rec *r = calloc(1, sizeof(*r));
	struct sink *s = calloc(1, sizeof(*s));
	uint64_t c0, c1, polls = 0;
	int ret = -1;

	if (!r || !s)
		return -1;
	s->h = ist_header_new();
	if (!s->h || ist_header_add_device(s->h, d->dev.name, d->dev.size,
					   d->dev.block_size) < 0 ||
	    ist_writer_open(&s->w, out, s->h, &wo) < 0)
		return -1;
	/* The recorder after cap_rec_open() and cap_rec_start(). */
	memcpy(r->ev, d->ev, sizeof(r->ev));
	for (int i = 0; i < EV_COUNT; i++)
		if (r->ev[i].used) {
			r->used_id[r->nused] = r->ev[i].id;
			r->used_k[r->nused++] = i;
		}
	r->dev = (struct cap_devinfo *)&d->dev;
	r->ndev = 1;
	r->ncpu = (int)d->ncpu;
	r->cpu = calloc(d->ncpu, sizeof(*r->cpu));
	r->pid_cap = 1024;
	r->pids = calloc(r->pid_cap, sizeof(*r->pids));
	if (!r->cpu || !r->pids)
		return -1;
	for (uint32_t c = 0; c < d->ncpu; c++) {
		r->cpu[c].fd = -1;
		r->cpu[c].page_size = d->page_size;
		r->cpu[c].page = malloc(d->page_size);
		r->cpu[c].qcap = 4096;
		r->cpu[c].q = malloc(r->cpu[c].qcap * sizeof(*r->cpu[c].q));
		if (!r->cpu[c].page || !r->cpu[c].q)
			return -1;
	}
	r->t0_ns = d->t0;
	if (cap_match_new(&r->match, 0, 0, d->t0) < 0)
		return -1;
	r->started = 1;
	r->name = sink_name;
	r->name_ctx = s;
	c0 = cpu_ns();
	for (;;) {
		uint32_t mark;
		uint64_t wm;

		if (end - p < 4)
			goto out;
		memcpy(&mark, p, 4);
		p += 4;
		if (mark != POLL_MARK)
			break;
		polls++;
		for (uint32_t c = 0; c < d->ncpu; c++) {
			struct cpu_reader *cr = &r->cpu[c];
			uint32_t np;

			if (end - p < 4)
				goto out;
			memcpy(&np, p, 4);
			p += 4;
			if ((size_t)(end - p) / d->page_size < np)
				goto out;
			for (uint32_t k = 0; k < np; k++, p += d->page_size) {
				struct rb_page_iter it;
				const uint8_t *ev;
				uint32_t len;
				uint64_t ts, t = cpu_ns();
				int64_t missed;

				/* the kernel's copy to the reader, not counted */
				memcpy(cr->page, p, d->page_size);
				s->copy_ns += cpu_ns() - t;
				if (rb_page_open(&it, cr->page, d->page_size, &missed) < 0)
					goto out;
				while ((ev = rb_page_next_fast(&it, &len, &ts)))
					if (decode_event(r, cr, ev, len, ts) < 0)
						goto out;
			}
		}
		if (end - p < 8)
			goto out;
		memcpy(&wm, p, 8);
		p += 8;
		if (process_held(r, wm, sink_emit, s) < 0)
			goto out;
		if (polls % POLLS_PER_FLUSH == 0) {
			uint64_t t;

			write_batch(s);
			t = cpu_ns();
			if (ist_writer_flush(s->w) < 0)
				s->err = 1;
			s->writer_ns += cpu_ns() - t;
		}
	}
	if (process_held(r, UINT64_MAX, sink_emit, s) < 0 ||
	    cap_match_drain(r->match, sink_emit, s) < 0)
		goto out;
	write_batch(s);
	{
		uint64_t t = cpu_ns();

		if (ist_writer_close(s->w) < 0)
			s->err = 1;
		s->w = NULL;
		s->writer_ns += cpu_ns() - t;
	}
	c1 = cpu_ns() - s->copy_ns;
	if (s->err || !s->records)
		goto out;
	printf("round %d: %llu records, %llu events: %.1f ns per I/O, of which the writer %.1f\n",
	       round, (unsigned long long)s->records, (unsigned long long)r->st.events,
	       (double)(c1 - c0) / (double)s->records,
	       (double)s->writer_ns / (double)s->records);
	ret = 0;
out:
	if (s->w)
		ist_writer_abort(s->w);
	cap_match_free(r->match);
	for (uint32_t c = 0; r->cpu && c < d->ncpu; c++) {
		free(r->cpu[c].page);
		free(r->cpu[c].q);
	}
	free(r->cpu);
	free(r->pids);
	free(r);
	ist_header_free(s->h);
	free(s);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "dump"))
		return dump(argv[2], argv[3], atof(argv[4]));
	if (argc >= 3 && !strcmp(argv[1], "replay")) {
		struct dump_in d;
		const char *out = "/dev/null";
		int rounds = 5, compact = 0;

		for (int i = 3; i < argc; i++) {
			if (!strcmp(argv[i], "--compact"))
				compact = 1;
			else if (!strcmp(argv[i], "--out") && i + 1 < argc)
				out = argv[++i];
			else
				rounds = atoi(argv[i]);
		}
		memset(&d, 0, sizeof(d));
		if (load(argv[2], &d) < 0) {
			fprintf(stderr, "record_replay: %s: not a dump of this build\n", argv[2]);
			return 1;
		}
		for (int i = 1; i <= rounds; i++)
			if (replay_once(&d, out, compact, i) < 0) {
				fprintf(stderr, "record_replay: %s: malformed dump\n", argv[2]);
				return 1;
			}
		free(d.data);
		return 0;
	}
	fprintf(stderr, "usage: record_replay dump DEV OUT SECONDS\n"
		"       record_replay replay DUMP [ROUNDS] [--compact] [--out FILE]\n");
	return 2;
}

#else

int main(void)
{
	fprintf(stderr, "record_replay: built without libtracefs\n");
	return 77;
}

#endif
