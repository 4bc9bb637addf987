/* SPDX-License-Identifier: MIT */
/*
 * prof_sysbench.c - sysbench oltp_read_write on MySQL/InnoDB: threads run
 * the 18-statement transaction; rows are drawn with sysbench's key
 * distributions and map to 16 KiB pages; a buffer pool that keeps the
 * most popular pages turns the accesses into reads; each commit writes
 * its redo in 512-byte blocks (the group leader then flushes), optionally
 * a binlog append synced per group; a page cleaner writes dirty pages as
 * doublewrite batches (sequential, fsync) and then to their homes.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "synth/engine.h"

enum { P_TABLES, P_TABLE_SIZE, P_THREADS, P_BUFFER, P_RAND, P_LATENCY, P_CPU,
       P_THINK, P_BINLOG, P_DBLWR, P_CLEANER, P_HOTFLUSH };

static const struct syn_param sb_params[] = {
	{ "tables", SYN_P_INT, "100", "", "tables (sbtest1..N)",
	  "WORKLOADS.md: 100 tables", NULL, 1, 1e5 },
	{ "table-size", SYN_P_INT, "10000000", "rows", "rows per table",
	  "WORKLOADS.md: 10,000,000 rows (read as sysbench --table-size)", NULL, 100, 1e10 },
	{ "threads", SYN_P_INT, "32", "", "client threads, one stream each",
	  "WORKLOADS.md: 32 threads", NULL, 1, 65536 },
	{ "buffer", SYN_P_SIZE, "24G", "B", "InnoDB buffer pool size",
	  "WORKLOADS.md: 24 GB buffer pool", NULL, 1048576, 1e15 },
	{ "rand-type", SYN_P_ENUM, "special", "", "key distribution",
	  "sysbench 1.0 default (special: 75% of keys in the central 1%)",
	  "special|uniform|zipfian|pareto", 0, 0 },
	{ "latency", SYN_P_TIME, "200us", "s",
	  "nominal device latency assumed between dependent I/Os",
	  "assumption: enterprise SSD, QD1 16 KiB read", NULL, 1e-6, 10 },
	{ "cpu", SYN_P_TIME, "250us", "s", "CPU time per page access (23 per transaction)",
	  "calibrated: WORKLOADS.md 10,716 TPS over 4 VMs at 11.95 ms, 32 threads",
	  NULL, 0, 1 },
	{ "think", SYN_P_TIME, "0", "s", "mean think time between transactions",
	  "sysbench runs back to back", NULL, 0, 3600 },
	{ "binlog", SYN_P_ENUM, "off", "", "binary log with sync_binlog=1",
	  "WORKLOADS.md: optional binlog, sync_binlog=1", "off|on", 0, 0 },
	{ "doublewrite", SYN_P_ENUM, "on", "", "InnoDB doublewrite buffer",
	  "InnoDB default", "on|off", 0, 0 },
	{ "cleaner", SYN_P_TIME, "1s", "s", "page cleaner period",
	  "InnoDB page cleaner loop (1 s)", NULL, 0.01, 3600 },
	{ "hot-flush", SYN_P_NUM, "0.02", "",
	  "share of updates to resident (hot) pages written back",
	  "assumption: hot pages absorb many updates per flush", NULL, 0, 1 },
	{ NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0 },
};

enum { R_SPECIAL, R_UNIFORM, R_ZIPFIAN, R_PARETO };
enum { K_THREAD, K_CLEANER };
enum { ST_START, ST_IO, ST_MISS, ST_REDO, ST_REDO_FLUSH, ST_BINLOG,
       ST_BINLOG_FLUSH };

#define PAGE 16384u
#define ROWS_PER_PAGE 60
#define REDO_SIZE (96 * MiB)
#define DBLWR_OFF (96 * MiB)
#define DBLWR_PAGES 128
#define BINLOG_OFF (128 * MiB)
#define BINLOG_SIZE (1 * GiB)
#define DATA_OFF (2 * GiB)
#define RING (1u << 16)

struct sb_priv {
	uint64_t tables, rows, pages_per_table, index_pages, data_pages;
	double resident;        /* buffer / data                         */
	unsigned rand_type;
	struct syn_zipf zipf;
	uint64_t lat, cpu;
	double think;
	int binlog, dblwr;
	uint64_t cleaner_ns;
	double hot_flush;
	uint64_t lsn, binlog_cursor;
	uint64_t redo_flush_until, binlog_flush_until;
	uint64_t ring[RING];    /* dirty non-resident pages, in order  */
	uint32_t ring_head, ring_count;
};

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static uint64_t draw_key(struct sb_priv *p, struct syn_rng *r)
{
	switch (p->rand_type) {
	case R_SPECIAL:
		return syn_special(r, p->rows, 0.75, 0.01);
	case R_ZIPFIAN:
		return syn_zipf_draw(&p->zipf, r);
	case R_PARETO:
		return syn_pareto(r, p->rows, 0.2);
	}
	return syn_rng_below(r, p->rows);
}

/* The buffer pool keeps the most popular pages: for special the central
 * 1% first, for zipfian/pareto the low keys; otherwise an arbitrary but
 * fixed share of pages (by hash). */
static int resident(const struct sb_priv *p, uint64_t table, uint64_t page)
{
	double f = p->resident;

	if (f >= 1.0)
		return 1;
	switch (p->rand_type) {
	case R_SPECIAL: {
		uint64_t w = p->pages_per_table / 100, lo = (p->pages_per_table - w) / 2;

		if (page >= lo && page <= lo + w)
			return f >= 0.01;
		f = (f - 0.01) / 0.99;
		break;
	}
	case R_ZIPFIAN:
	case R_PARETO:
		return page < (uint64_t)(f * (double)p->pages_per_table);
	}
	return (double)(hash64(table * 0x100000001b3ull + page) >> 11) * 0x1.0p-53 < f;
}

static uint64_t page_off(const struct sb_priv *p, uint64_t table, uint64_t page)
{
	return DATA_OFF + (table * (p->pages_per_table + p->index_pages) + page) *
			  PAGE;
}

static void dirty(struct sb_priv *p, struct syn_rng *r, uint64_t table,
		  uint64_t page, int res)
{
	if (res && !syn_rng_chance(r, p->hot_flush))
		return;
	p->ring[(p->ring_head + p->ring_count) % RING] = page_off(p, table, page);
	if (p->ring_count < RING)
		p->ring_count++;
	else
		p->ring_head = (p->ring_head + 1) % RING;
}

static int sb_setup(struct syn_gen *g, void *priv)
{
	struct sb_priv *p = priv;
	uint64_t threads = syn_pu(g, P_THREADS);
	struct syn_stream *s;
	int rc;

	p->tables = syn_pu(g, P_TABLES);
	p->rows = syn_pu(g, P_TABLE_SIZE);
	p->pages_per_table = (p->rows + ROWS_PER_PAGE - 1) / ROWS_PER_PAGE;
	p->index_pages = p->pages_per_table / 4 + 1; /* secondary index on k */
	p->data_pages = p->tables * (p->pages_per_table + p->index_pages);
	p->resident = (double)syn_pu(g, P_BUFFER) / ((double)p->data_pages * PAGE);
	p->rand_type = (unsigned)syn_p(g, P_RAND);
	if (p->rand_type == R_ZIPFIAN)
		syn_zipf_init(&p->zipf, p->rows, 0.8); /* sysbench --rand-zipfian-exp */
	p->lat = syn_pns(g, P_LATENCY);
	p->cpu = syn_pns(g, P_CPU);
	p->think = (double)syn_pns(g, P_THINK);
	p->binlog = syn_p(g, P_BINLOG) != 0;
	p->dblwr = syn_p(g, P_DBLWR) == 0;
	p->cleaner_ns = syn_pns(g, P_CLEANER);
	p->hot_flush = syn_p(g, P_HOTFLUSH);
	g->nominal_lat_ns = p->lat;
	rc = syn_add_device(g, "mysql", DATA_OFF + p->data_pages * PAGE, 512);
	if (rc < 0)
		return rc;
	for (uint64_t i = 0; i < threads; i++) {
		s = syn_add_stream(g, 0);
		if (!s)
			return -ENOMEM;
		s->kind = K_THREAD;
		s->t = syn_rng_below(&s->rng, p->lat * 4 + 1);
	}
	s = syn_add_stream(g, p->cleaner_ns);
	if (!s)
		return -ENOMEM;
	s->kind = K_CLEANER;
	return 0;
}

/* After a log write or flush: its latency, then the think time when the
 * transaction is over. */
static void log_io_done(const struct sb_priv *p, struct syn_stream *s)
{
	s->t += p->lat;
	if (s->state == ST_START)
		s->t += syn_think(&s->rng, p->think);
}

/*
 * A transaction's page accesses: 10 point selects, 4 ranges of 100 rows
 * (2 leaf pages each), index update (row + index page), non-index update,
 * delete + insert (row + index page).  Each access is one slot of
 * s->left; misses are reads, hits cost CPU only.
 */
#define TXN_ACCESSES 23

/*
 * Runs the page accesses of the transaction (starting one in ST_START) at
 * their CPU time each, up to the next buffer miss (ST_MISS, the page in
 * u0, s->t its issue time) or the end of the accesses (ST_REDO), so that
 * the stream's next event is an I/O: called right after each I/O rather
 * than as a step of its own, it halves the queue's work.  Other states
 * are left as they are.
 */
static void plan_next(struct sb_priv *p, struct syn_stream *s)
{
	struct syn_rng *r = &s->rng;

	if (s->state == ST_START) {
		s->u1++;
		s->txn = s->u1;
		s->left = TXN_ACCESSES;
		s->state = ST_IO;
	}
	if (s->state != ST_IO)
		return;
	while (s->left) {
		unsigned i = TXN_ACCESSES - s->left--;
		uint64_t table = syn_rng_below(r, p->tables), page;
		int res, modify = i >= 18;

		if (i >= 10 && i < 18 && (i & 1)) {
			/* second leaf page of a range scan */
			table = s->u3 >> 40;
			page = (s->u3 & ((1ull << 40) - 1)) + 1;
			if (page >= p->pages_per_table)
				page = 0;
		} else if (modify && (i == 19 || i == 22)) {
			/* the secondary index page of that row */
			page = p->pages_per_table +
			       syn_rng_below(r, p->index_pages);
		} else {
			page = draw_key(p, r) / ROWS_PER_PAGE;
		}
		s->u3 = table << 40 | page;
		res = page >= p->pages_per_table ?
		      syn_rng_chance(r, fmin(1.0, p->resident * 4)) :
		      resident(p, table, page);
		if (modify)
			dirty(p, r, table, page, res);
		if (!res) {
			/* the read goes out after this access's CPU
			 * time: the stream's next event */
			s->u0 = page_off(p, table, page);
			s->state = ST_MISS;
			s->t += p->cpu;
			return;
		}
		s->t += p->cpu;
	}
	s->state = ST_REDO;
}

static int thread_step(struct sb_priv *p, struct syn_stream *s,
		       struct ist_record *rec)
{
	struct syn_rng *r = &s->rng;
	unsigned dep = s->u2 ? IST_F_DEPENDENT : 0;

	switch (s->state) {
	case ST_START:
	case ST_IO: /* the stream's first step */
		plan_next(p, s);
		return 0;
	case ST_MISS:
		syn_rec(rec, s, 0, IST_OP_READ, s->u0, PAGE, dep | IST_F_SYNC);
		s->u2 = 1;
		s->t += p->lat;
		s->state = s->left ? ST_IO : ST_REDO;
		return 1;
	case ST_REDO: {
		/* redo in 512-byte blocks: the write starts at the block that
		 * holds the current LSN (rewriting a partial block) */
		uint64_t bytes = syn_rng_range(r, 1200, 3000);
		uint64_t start = p->lsn / 512 * 512, end;
		unsigned flags = dep | IST_F_SYNC;

		if (start % REDO_SIZE + bytes + 512 > REDO_SIZE) {
			/* the circular log wraps to its start */
			p->lsn = (p->lsn / REDO_SIZE + 1) * REDO_SIZE;
			start = p->lsn;
		}
		p->lsn += bytes;
		end = (p->lsn + 511) / 512 * 512;
		if (syn_group_lead(&p->redo_flush_until, s->t, 2 * p->lat)) {
			s->state = ST_REDO_FLUSH; /* leader: fsync follows */
		} else {
			s->state = p->binlog ? ST_BINLOG : ST_START;
			if (!p->binlog)
				flags |= IST_F_COMMIT;
		}
		syn_rec(rec, s, 0, IST_OP_WRITE, start % REDO_SIZE,
			(uint32_t)(end - start), flags);
		s->u2 = 1;
		log_io_done(p, s);
		return 1;
	}
	case ST_REDO_FLUSH:
		syn_rec(rec, s, 0, IST_OP_FLUSH, 0, 0,
			dep | IST_F_SYNC | (p->binlog ? 0 : IST_F_COMMIT));
		s->state = p->binlog ? ST_BINLOG : ST_START;
		log_io_done(p, s);
		return 1;
	case ST_BINLOG: {
		uint32_t len = (uint32_t)syn_rng_range(r, 700, 1400);
		uint64_t off = syn_log_append(&p->binlog_cursor, BINLOG_SIZE, len);
		unsigned flags = dep | IST_F_SYNC;

		if (syn_group_lead(&p->binlog_flush_until, s->t, 2 * p->lat)) {
			s->state = ST_BINLOG_FLUSH;
		} else {
			s->state = ST_START;
			flags |= IST_F_COMMIT;
		}
		syn_rec(rec, s, 0, IST_OP_WRITE, BINLOG_OFF + off, len, flags);
		log_io_done(p, s);
		return 1;
	}
	case ST_BINLOG_FLUSH:
	default:
		syn_rec(rec, s, 0, IST_OP_FLUSH, 0, 0,
			dep | IST_F_SYNC | IST_F_COMMIT);
		s->state = ST_START;
		log_io_done(p, s);
		return 1;
	}
}

/*
 * The page cleaner, every period: the dirty pages in batches of up to 128:
 * the batch written sequentially to the doublewrite area in 1 MiB writes,
 * an fsync, each page to its home (32 in flight), an fsync.
 * state: 0 idle, 1 doublewrite, 2 fsync, 3 homes, 4 fsync.
 */
static int cleaner_step(struct sb_priv *p, struct syn_stream *s,
			struct ist_record *rec)
{
	switch (s->state) {
	case 0:
		s->sub = p->ring_count < DBLWR_PAGES ? p->ring_count : DBLWR_PAGES;
		if (!s->sub) {
			s->t += p->cleaner_ns;
			return 0;
		}
		s->left = s->sub;
		s->state = p->dblwr ? 1 : 3;
		return 0;
	case 1: {
		uint32_t n = s->left > 64 ? 64 : s->left;
		uint64_t done = s->sub - s->left;

		syn_rec(rec, s, 0, IST_OP_WRITE, DBLWR_OFF + done * PAGE, n * PAGE,
			IST_F_SYNC | (done ? IST_F_DEPENDENT : 0));
		s->left -= n;
		s->t += p->lat * 2;
		if (!s->left)
			s->state = 2;
		return 1;
	}
	case 2:
	case 4:
		syn_rec(rec, s, 0, IST_OP_FLUSH, 0, 0, IST_F_SYNC | IST_F_DEPENDENT);
		s->t += p->lat;
		if (s->state == 2) {
			s->state = 3;
			s->left = s->sub;
		} else {
			s->state = 0;
			if (p->ring_count < DBLWR_PAGES)
				s->t += p->cleaner_ns;
		}
		return 1;
	default:
		syn_rec(rec, s, 0, IST_OP_WRITE, p->ring[p->ring_head], PAGE, 0);
		p->ring_head = (p->ring_head + 1) % RING;
		p->ring_count--;
		s->t += p->lat / 32 + 1;
		if (!--s->left)
			s->state = 4;
		return 1;
	}
}

static int sb_step(struct syn_gen *g, void *priv, struct syn_stream *s,
		   struct ist_record *rec)
{
	int rc;

	if (s->kind == K_CLEANER)
		return cleaner_step(priv, s, rec);
	rc = thread_step(priv, s, rec);
	if (rc == 1)
		plan_next(priv, s);
	return rc;
}

const struct syn_profile syn_prof_sysbench = {
	.name = "sysbench-oltp",
	.summary = "sysbench oltp_read_write on InnoDB: redo, group commit, doublewrite, binlog",
	.params = sb_params,
	.priv_size = sizeof(struct sb_priv),
	.setup = sb_setup,
	.step = sb_step,
};
