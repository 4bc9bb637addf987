/* SPDX-License-Identifier: MIT */
/*
 * prof_tpcc.c - TPC-C-like OLTP (SQL Server as in the drive reviews): one
 * stream per virtual user running the TPC-C mix with keying and think
 * times; page accesses drawn with NURand skew go through a buffer-pool
 * model (miss ratio power law of Hsu, Smith & Young) into 8 KiB data
 * reads; each commit appends to the log (FUA for the group leader, so one
 * flush covers the commits that arrive while it is in flight); a
 * checkpoint stream writes the dirtied pages back in periodic bursts.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "synth/engine.h"

enum { P_WAREHOUSES, P_USERS, P_BUFFER, P_DBSIZE, P_THINK, P_LATENCY, P_CPU,
       P_CKPT, P_LOGSIZE, P_MISS_REF, P_WB_REF };

static const struct syn_param tpcc_params[] = {
	{ "warehouses", SYN_P_INT, "1500", "", "TPC-C scale (warehouses)",
	  "WORKLOADS.md: scale 1,500 (333 GB) per VM", NULL, 1, 1e6 },
	{ "users", SYN_P_INT, "15000", "", "virtual users, one stream each",
	  "WORKLOADS.md: 15,000 virtual users", NULL, 1, 1e6 },
	{ "buffer", SYN_P_SIZE, "48G", "B", "buffer pool size",
	  "WORKLOADS.md: 48 GB buffer", NULL, 1048576, 1e15 },
	{ "db-size", SYN_P_SIZE, "0", "B",
	  "database size; 0 = 222 MiB per warehouse",
	  "WORKLOADS.md: 333 GB at scale 1,500", NULL, 0, 1e16 },
	{ "think", SYN_P_NUM, "1", "x",
	  "scale of the TPC-C keying and think times (0 = none)",
	  "TPC-C clause 5.2.5 (keying 18/3/2/2/2 s, think 12/12/10/5/5 s)",
	  NULL, 0, 100 },
	{ "latency", SYN_P_TIME, "200us", "s",
	  "nominal device latency assumed between dependent I/Os",
	  "assumption: enterprise SSD, QD1 8 KiB read", NULL, 1e-6, 10 },
	{ "cpu", SYN_P_TIME, "20us", "s", "CPU time per logical page access",
	  "assumption", NULL, 0, 1 },
	{ "checkpoint", SYN_P_TIME, "30s", "s",
	  "checkpoint interval (the first comes after half of it)",
	  "assumption: SQL Server automatic checkpoints under load (recovery interval ~1 min)",
	  NULL, 1, 86400 },
	{ "log-size", SYN_P_SIZE, "32G", "B", "log device size",
	  "assumption", NULL, 1048576, 1e15 },
	{ "miss", SYN_P_NUM, "0.35", "",
	  "read miss ratio at buffer/data = 0.144 (scaled as (buffer/data)^-1/2)",
	  "calibrated to read:write 1.9:1 (Chen et al. 2011); law: Hsu, Smith & Young 2001",
	  NULL, 0, 1 },
	{ "writeback", SYN_P_NUM, "0.45", "",
	  "page write-backs per page update at buffer/data = 0.144 (scaled ^-1/4)",
	  "calibrated to read:write 1.9:1; law: Hsu, Smith & Young 2001", NULL, 0, 1 },
	{ NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0 },
};

enum { T_NEW_ORDER, T_PAYMENT, T_ORDER_STATUS, T_DELIVERY, T_STOCK_LEVEL };
enum { ST_START, ST_IO, ST_COMMIT };
enum { K_USER, K_CKPT };

#define PAGE 8192u
#define STOCK_ROWS_PER_PAGE 26
#define CUST_ROWS_PER_PAGE 12
#define C_LAST 123
#define C_ID 259
#define C_OL_I_ID 7911

struct tpcc_priv {
	uint64_t wh, wh_region, stock_pages, cust_off, cust_pages, ol_off,
		ol_pages;
	double miss, wb;
	uint64_t lat, cpu;
	double think;
	uint64_t ckpt_ns, log_size;
	uint64_t log_cursor;
	uint64_t flush_until;   /* the leader's log write completes then  */
	double pending_wb;      /* dirtied pages owed to the checkpoint   */
};

/* keying + think times (s), TPC-C clause 5.2.5.4/5.2.5.7 */
static const double keying_s[] = { 18, 3, 2, 2, 2 };
static const double think_s[] = { 12, 12, 10, 5, 5 };

static unsigned pick_txn(struct syn_rng *r)
{
	uint64_t x = syn_rng_below(r, 100);

	return x < 45 ? T_NEW_ORDER : x < 88 ? T_PAYMENT :
	       x < 92 ? T_ORDER_STATUS : x < 96 ? T_DELIVERY : T_STOCK_LEVEL;
}

static uint64_t stock_page(const struct tpcc_priv *p, uint64_t w,
			   struct syn_rng *r)
{
	uint64_t item = syn_nurand(r, 8191, C_OL_I_ID, 1, 100000) - 1;

	if (p->wh > 1 && syn_rng_chance(r, 0.01)) /* remote supply warehouse */
		w = syn_rng_below(r, p->wh);
	return w * p->wh_region + item / STOCK_ROWS_PER_PAGE * PAGE;
}

static uint64_t cust_page(const struct tpcc_priv *p, uint64_t w,
			  struct syn_rng *r)
{
	uint64_t d = syn_rng_below(r, 10);
	uint64_t c = syn_nurand(r, 1023, C_ID, 1, 3000) - 1;

	return w * p->wh_region + p->cust_off +
	       (d * 3000 + c) / CUST_ROWS_PER_PAGE * PAGE;
}

static uint64_t ol_page(const struct tpcc_priv *p, uint64_t w,
			struct syn_rng *r)
{
	return w * p->wh_region + p->ol_off + syn_rng_below(r, p->ol_pages) * PAGE;
}

static int tpcc_setup(struct syn_gen *g, void *priv)
{
	struct tpcc_priv *p = priv;
	uint64_t db = syn_pu(g, P_DBSIZE), users = syn_pu(g, P_USERS);
	double ratio;
	struct syn_stream *s;
	int rc;

	p->wh = syn_pu(g, P_WAREHOUSES);
	if (!db)
		db = p->wh * 222 * MiB;
	p->wh_region = db / p->wh / PAGE * PAGE;
	p->stock_pages = (100000 + STOCK_ROWS_PER_PAGE - 1) / STOCK_ROWS_PER_PAGE;
	p->cust_off = p->stock_pages * PAGE;
	p->cust_pages = 30000 / CUST_ROWS_PER_PAGE;
	p->ol_off = p->cust_off + p->cust_pages * PAGE;
	if (p->wh_region < p->ol_off + 64 * PAGE)
		return syn_set_error(g, IST_ERANGE, 0,
				     "db-size too small: at least %llu MiB per warehouse",
				     (unsigned long long)((p->ol_off + 64 * PAGE) / MiB + 1));
	p->ol_pages = (p->wh_region - p->ol_off) / PAGE;
	ratio = (double)syn_pu(g, P_BUFFER) / (double)db;
	p->miss = fmin(1.0, syn_p(g, P_MISS_REF) * pow(ratio / 0.144, -0.5));
	p->wb = fmin(1.0, syn_p(g, P_WB_REF) * pow(ratio / 0.144, -0.25));
	p->lat = syn_pns(g, P_LATENCY);
	p->cpu = syn_pns(g, P_CPU);
	p->think = syn_p(g, P_THINK);
	p->ckpt_ns = syn_pns(g, P_CKPT);
	p->log_size = syn_pu(g, P_LOGSIZE) / 512 * 512;
	g->nominal_lat_ns = p->lat;
	rc = syn_add_device(g, "data", p->wh_region * p->wh, 512);
	if (rc < 0)
		return rc;
	rc = syn_add_device(g, "log", p->log_size, 512);
	if (rc < 0)
		return rc;
	for (uint64_t i = 0; i < users; i++) {
		s = syn_add_stream(g, 0);
		if (!s)
			return -ENOMEM;
		s->kind = K_USER;
		s->u0 = i % p->wh; /* home warehouse */
		/* users start spread over one mean cycle, not all at once */
		s->t = (uint64_t)(syn_rng_unit(&s->rng) * 1e9 *
				  (p->think > 0 ? 21.0 * p->think : 0.01));
	}
	s = syn_add_stream(g, p->ckpt_ns / 2);
	if (!s)
		return -ENOMEM;
	s->kind = K_CKPT;
	return 0;
}

/* Draws a txn's logical accesses; returns the data-page misses, adds the
 * updates it dirties to the checkpoint debt. */
static uint32_t plan_txn(struct tpcc_priv *p, struct syn_stream *s,
			 uint32_t *accesses)
{
	struct syn_rng *r = &s->rng;
	uint32_t n = 0, upd = 0, miss = 0;

	switch (s->kind >> 8) {
	case T_NEW_ORDER: {
		uint32_t ol = (uint32_t)syn_rng_range(r, 5, 15);

		n = 1 + ol;
		upd = ol;
		p->pending_wb += 0.2 * p->wb; /* order/order-line page fills */
		break;
	}
	case T_PAYMENT:
		n = syn_rng_chance(r, 0.6) ? 3 : 1; /* by last name: a scan */
		upd = 1;
		break;
	case T_ORDER_STATUS:
		n = (syn_rng_chance(r, 0.6) ? 3 : 1) + 2;
		break;
	case T_DELIVERY:
		n = 20;
		upd = 30;
		break;
	default: /* stock level: ~200 order lines' items */
		n = 200;
		break;
	}
	for (uint32_t i = 0; i < n; i++)
		miss += syn_rng_chance(r, p->miss);
	p->pending_wb += upd * p->wb;
	*accesses = n;
	return miss;
}

static uint32_t log_bytes(unsigned type, struct syn_rng *r)
{
	switch (type) {
	case T_NEW_ORDER:
		return (uint32_t)syn_rng_range(r, 4, 12) * 512;
	case T_PAYMENT:
		return (uint32_t)syn_rng_range(r, 2, 3) * 512;
	case T_DELIVERY:
		return (uint32_t)syn_rng_range(r, 16, 24) * 512;
	}
	return 0;
}

static int user_step(struct tpcc_priv *p, struct syn_stream *s,
		     struct ist_record *rec)
{
	struct syn_rng *r = &s->rng;
	unsigned type = s->kind >> 8;
	unsigned dep = s->u2 ? IST_F_DEPENDENT : 0;

	if (s->state == ST_START) {
		uint32_t acc;

		type = pick_txn(r);
		s->kind = K_USER | type << 8;
		s->u1++;
		s->txn = s->u1;
		s->left = plan_txn(p, s, &acc);
		/* the CPU time of all accesses, spread between the misses */
		s->u3 = (uint64_t)acc * p->cpu / (s->left + 1);
		s->state = s->left ? ST_IO : ST_COMMIT;
		s->t += s->u3;
		return 0;
	}
	if (s->state == ST_IO) {
		uint64_t w = s->u0, off;
		unsigned flags = dep | IST_F_SYNC;

		switch (type) {
		case T_NEW_ORDER:
			off = s->left == 1 && syn_rng_chance(r, 0.1) ?
			      cust_page(p, w, r) : stock_page(p, w, r);
			break;
		case T_PAYMENT:
			if (p->wh > 1 && syn_rng_chance(r, 0.15))
				w = syn_rng_below(r, p->wh);
			off = cust_page(p, w, r);
			break;
		case T_ORDER_STATUS:
			off = s->left <= 2 ? ol_page(p, w, r) : cust_page(p, w, r);
			break;
		case T_DELIVERY:
			off = s->left & 1 ? cust_page(p, w, r) : ol_page(p, w, r);
			break;
		default:
			off = stock_page(p, w, r);
			break;
		}
		s->left--;
		if (!s->left && !log_bytes(type, r))
			flags |= IST_F_COMMIT; /* read-only: ends with its last read */
		syn_rec(rec, s, 0, IST_OP_READ, off, PAGE, flags);
		s->u2 = 1;
		s->t += p->lat + s->u3;
		if (!s->left)
			s->state = ST_COMMIT;
		return 1;
	}
	/* commit: a synchronous log append; the first commit after the last
	 * flush completed leads a group and carries FUA */
	{
		uint32_t len = log_bytes(type, r);
		int emitted = 0;

		if (len) {
			unsigned flags = dep | IST_F_SYNC | IST_F_COMMIT;

			if (syn_group_lead(&p->flush_until, s->t, p->lat))
				flags |= IST_F_FUA;
			syn_rec(rec, s, 1, IST_OP_WRITE,
				syn_log_append(&p->log_cursor, p->log_size, len),
				len, flags);
			s->u2 = 1;
			s->t += p->lat;
			emitted = 1;
		}
		s->state = ST_START;
		s->t += (uint64_t)(1e9 * p->think *
				   (keying_s[type] + syn_rng_exp(r, think_s[type])));
		return emitted;
	}
}

/* The checkpoint: every interval, writes the pages dirtied since the last
 * one as a burst of 8 KiB-1 MiB random writes, 32 in flight. */
static int ckpt_step(struct tpcc_priv *p, struct syn_stream *s,
		     struct ist_record *rec)
{
	struct syn_rng *r = &s->rng;
	uint32_t pages = 1;
	uint64_t w, off;

	if (s->state == 0) {
		s->left = (uint32_t)fmin(p->pending_wb, 4e9);
		p->pending_wb -= s->left;
		s->state = 1;
		if (!s->left) {
			s->state = 0;
			s->t += p->ckpt_ns;
			return 0;
		}
	}
	w = syn_rng_below(r, p->wh);
	if (syn_rng_chance(r, 0.12))
		pages = (uint32_t)syn_rng_range(r, 2, 8);
	if (pages > s->left)
		pages = s->left;
	off = syn_rng_chance(r, 0.7) ? stock_page(p, w, r) : cust_page(p, w, r);
	syn_rec(rec, s, 0, IST_OP_WRITE, off, pages * PAGE, 0);
	s->left -= pages;
	s->t += p->lat / 32 + 1;
	if (!s->left) {
		s->state = 0;
		s->t += p->ckpt_ns;
	}
	return 1;
}

static int tpcc_step(struct syn_gen *g, void *priv, struct syn_stream *s,
		     struct ist_record *rec)
{
	if ((s->kind & 0xff) == K_CKPT)
		return ckpt_step(priv, s, rec);
	return user_step(priv, s, rec);
}

const struct syn_profile syn_prof_tpcc = {
	.name = "tpcc",
	.summary = "TPC-C-like OLTP on SQL Server: users, NURand, buffer pool, log, checkpoints",
	.params = tpcc_params,
	.priv_size = sizeof(struct tpcc_priv),
	.setup = tpcc_setup,
	.step = tpcc_step,
};
