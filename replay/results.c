/* SPDX-License-Identifier: MIT */
/* results.c - per-interval accumulation and the final result of a run. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/internal.h"

int rpl_iacc_init(struct rpl_interval_acc *a)
{
	memset(a, 0, sizeof(*a));
	if (rpl_hist_init(&a->lat) || rpl_hist_init(&a->late)) {
		rpl_iacc_release(a);
		return -ENOMEM;
	}
	return 0;
}

void rpl_iacc_release(struct rpl_interval_acc *a)
{
	rpl_hist_release(&a->lat);
	rpl_hist_release(&a->late);
}

void rpl_iacc_reset(struct rpl_interval_acc *a)
{
	struct rpl_hist lat = a->lat, late = a->late;

	rpl_hist_reset(&lat);
	rpl_hist_reset(&late);
	memset(a, 0, sizeof(*a));
	a->lat = lat;
	a->late = late;
}

static int iacc_add(struct rpl_interval_acc *dst, const struct rpl_interval_acc *src)
{
	for (unsigned k = 0; k < IST_OP_COUNT; k++) {
		dst->ios[k] += src->ios[k];
		dst->bytes[k] += src->bytes[k];
	}
	dst->errors += src->errors;
	dst->txns += src->txns;
	if (rpl_hist_merge(&dst->lat, &src->lat) || rpl_hist_merge(&dst->late, &src->late))
		return -ENOMEM;
	return 0;
}

/* Turns the k oldest pending accumulators into rows (lock held). */
static int finalize_oldest(struct rpl_run *r, size_t k)
{
	struct rpl_result *res = &r->res;
	struct rpl_interval *row;

	if (k > r->niv)
		k = r->niv;
	if (res->nintervals + k > r->rowcap) {
		size_t cap = r->rowcap ? r->rowcap : 16;
		struct rpl_interval *rows;

		while (cap < res->nintervals + k)
			cap *= 2;
		rows = realloc(res->intervals, cap * sizeof(*rows));
		if (!rows)
			return -ENOMEM;
		res->intervals = rows;
		r->rowcap = cap;
	}
	for (size_t i = 0; i < k; i++) {
		struct rpl_interval_acc *a = &r->iv[i];

		row = &res->intervals[res->nintervals++];
		memset(row, 0, sizeof(*row));
		row->start_ns = (uint64_t)(res->nintervals - 1) * r->o.interval_ns;
		row->length_ns = r->o.interval_ns;
		memcpy(row->ios, a->ios, sizeof(row->ios));
		memcpy(row->bytes, a->bytes, sizeof(row->bytes));
		row->errors = a->errors;
		row->txns = a->txns;
		rpl_hist_summary(&a->lat, &row->lat);
		rpl_hist_summary(&a->late, &row->late);
		rpl_iacc_release(a);
	}
	if (k && r->niv > k)
		memmove(r->iv, r->iv + k, (r->niv - k) * sizeof(*r->iv));
	r->niv -= k;
	return 0;
}

static uint64_t min_worker_interval(struct rpl_run *r)
{
	uint64_t m = UINT64_MAX, c;

	for (unsigned i = 0; i < r->nw; i++) {
		if (r->w[i].err)
			continue;
		c = __atomic_load_n(&r->w[i].cur_interval, __ATOMIC_RELAXED);
		if (c < m)
			m = c;
	}
	return m;
}

/* Adds a worker's accumulator for interval idx to the shared table, and
 * finalizes the intervals every worker has left, so that memory holds
 * only the few intervals in progress. */
int rpl_interval_merge(struct rpl_run *r, uint64_t idx,
		       struct rpl_interval_acc *acc)
{
	uint64_t base, minw;
	int ret = 0;

	pthread_mutex_lock(&r->lock);
	base = r->res.nintervals;
	if (idx < base) {
		/* Already finalized (a worker far behind): fold into the row. */
		struct rpl_interval *row = &r->res.intervals[idx];

		for (unsigned k = 0; k < IST_OP_COUNT; k++) {
			row->ios[k] += acc->ios[k];
			row->bytes[k] += acc->bytes[k];
		}
		row->errors += acc->errors;
		goto out;
	}
	while (r->niv <= idx - base) {
		/* Intervals in progress (usually two); after a stall of the
		 * worker, many empty ones: they own no histogram buckets. */
		if (r->niv == r->ivcap) {
			size_t cap = r->ivcap ? r->ivcap * 2 : 8;
			struct rpl_interval_acc *iv = realloc(r->iv, cap * sizeof(*iv));

			if (!iv) {
				ret = -ENOMEM;
				goto out;
			}
			r->iv = iv;
			r->ivcap = cap;
		}
		memset(&r->iv[r->niv], 0, sizeof(r->iv[r->niv]));
		r->iv[r->niv].lat.min = r->iv[r->niv].late.min = UINT64_MAX;
		r->niv++;
	}
	ret = iacc_add(&r->iv[idx - base], acc);
	minw = min_worker_interval(r);
	if (r->niv > 1 && r->res.nintervals < minw) {
		size_t k = minw - r->res.nintervals;

		ret = finalize_oldest(r, k < r->niv - 1 ? k : r->niv - 1);
	}
out:
	pthread_mutex_unlock(&r->lock);
	return ret;
}

static void op_summary(struct rpl_run *r, unsigned op, struct rpl_hist *tmp,
		       struct rpl_hist *tmp2)
{
	struct rpl_op_result *o = &r->res.op[op];

	rpl_hist_reset(tmp);
	rpl_hist_reset(tmp2);
	for (unsigned i = 0; i < r->nw; i++) {
		o->ios += r->w[i].ios[op];
		o->bytes += r->w[i].bytes[op];
		o->errors += r->w[i].errs[op];
		rpl_hist_merge(tmp, &r->w[i].lat[op]);
		rpl_hist_merge(tmp2, &r->w[i].rec_lat[op]);
	}
	rpl_hist_summary(tmp, &o->lat);
	rpl_hist_summary(tmp2, &o->rec_lat);
}

int rpl_results_build(struct rpl_run *r)
{
	struct rpl_result *res = &r->res;
	struct rpl_hist all, a, b, st;
	uint64_t last = 0;
	int ret, st_ok = 1;

	if (rpl_hist_init(&all) || rpl_hist_init(&a) || rpl_hist_init(&b) ||
	    rpl_hist_init(&st)) {
		rpl_hist_release(&all);
		rpl_hist_release(&a);
		rpl_hist_release(&b);
		return -ENOMEM;
	}
	pthread_mutex_lock(&r->lock);
	ret = finalize_oldest(r, r->niv);
	if (ret < 0) {
		pthread_mutex_unlock(&r->lock);
		goto out;
	}
	pthread_mutex_unlock(&r->lock);
	res->interrupted = atomic_load(&r->stop) & 1;
	for (unsigned op = 0; op < IST_OP_COUNT; op++) {
		op_summary(r, op, &a, &b);
		res->ios += res->op[op].ios;
		res->bytes += res->op[op].bytes;
		res->errors += res->op[op].errors;
		for (unsigned i = 0; i < r->nw; i++)
			rpl_hist_merge(&all, &r->w[i].lat[op]);
	}
	rpl_hist_summary(&all, &res->lat);
	rpl_hist_reset(&a);
	rpl_hist_reset(&b);
	rpl_hist_reset(&all);
	for (unsigned i = 0; i < r->nw; i++) {
		struct rpl_worker *w = &r->w[i];

		rpl_hist_merge(&a, &w->late);
		rpl_hist_merge(&b, &w->txn_lat);
		rpl_hist_merge(&all, &w->rec_txn_lat);
		rpl_hist_merge(&st, &w->txn_lat_streams);
		if (w->txns && !w->txn_lat_streams_ok)
			st_ok = 0;
		res->txns += w->txns;
		res->tps_streams += w->tps_streams;
		res->decoder_starved += w->starved;
		res->inline_ios += w->inline_ios;
		res->wakes_dropped += w->wakes_dropped;
		res->wakes_kept += w->wakes_kept;
		res->wake_cpu_dropped_ns += w->wake_cpu_dropped;
		res->commits_joined += w->commits_joined;
		res->commit_groups += w->commit_groups;
		res->commits_after_release += w->commits_after_release;
		res->holder_marked += w->holder_marked;
		res->holder_waited += w->holder_waited;
		res->handover_samples += w->handover_samples;
		res->handovers += w->handovers;
		res->handover_ns += w->handover_ns;
		res->cpu_wait_ns += w->cpu_wait;
		res->cpu_bursts += w->cpu_bursts;
		if (w->max_inflight > res->max_inflight)
			res->max_inflight = w->max_inflight;
		if (w->wake_margin_max > res->wake_margin_max_ns)
			res->wake_margin_max_ns = w->wake_margin_max;
		if (w->oversleep_max > res->oversleep_max_ns)
			res->oversleep_max_ns = w->oversleep_max;
		if (w->last_done > last)
			last = w->last_done;
		if (!res->first_error && w->first_error)
			res->first_error = w->first_error;
	}
	rpl_hist_summary(&a, &res->late);
	rpl_hist_summary(&b, &res->txn_lat);
	rpl_hist_summary(&all, &res->rec_txn_lat);
	if (st_ok)
		rpl_hist_summary(&st, &res->txn_lat_streams);
	else
		memset(&res->txn_lat_streams, 0, sizeof(res->txn_lat_streams));
	res->elapsed_ns = last > r->epoch ? last - r->epoch : 0;
	res->schedule_ns = r->schedule_ns;
	res->records_read = r->records_read;
	res->skipped_read_only = r->skipped_ro;
	res->skipped_beyond_end = r->skipped_end;
	res->skipped_too_large = r->skipped_big;
	res->realigned = r->realigned;
	res->wrapped = r->wrapped;
	res->scaled = r->scaled;
	res->late_warn_ns = r->o.late_warn_ns;
	res->late_warning = r->o.timing != RPL_TIMING_AFAP &&
			    res->late.count && res->late.p99 > r->o.late_warn_ns;
	{
		uint64_t issued = 0;

		for (unsigned i = 0; i < r->nw; i++)
			issued += atomic_load(&r->w[i].issued);
		res->complete = !res->interrupted &&
				issued + r->skipped_ro + r->skipped_end + r->skipped_big ==
				r->records_read;
	}
	res->wake_cost_ns = r->o.wake_cost_ns;
	res->pinned = r->pinned;
	if (r->null_unlisted) {
		size_t n = (size_t)(r->ndev + 1) * IST_OP_COUNT;

		res->null_unlisted = malloc(n * sizeof(*res->null_unlisted));
		if (!res->null_unlisted) {
			ret = -ENOMEM;
			goto out;
		}
		memcpy(res->null_unlisted, r->null_unlisted, n * sizeof(*res->null_unlisted));
		res->null_unlisted_ndev = r->ndev + 1;
	}
	res->ntargets = r->ntgt;
	res->targets = calloc(r->ntgt ? r->ntgt : 1, sizeof(*res->targets));
	if (!res->targets) {
		ret = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < r->ntgt; i++) {
		res->targets[i].dev = -1;
		for (unsigned d = 0; d < r->ndev; d++)
			if (r->dev_map[d] == i) {
				res->targets[i].dev = (int)d;
				break;
			}
		res->targets[i].path = r->tgt[i].path;
		res->targets[i].kind = r->tgt[i].is_null ? "null" :
				       r->tgt[i].is_blk ? "block" : "file";
		res->targets[i].size = r->tgt[i].size;
		res->targets[i].lbs = r->tgt[i].lbs;
	}
	snprintf(res->features, sizeof(res->features), "%s", r->features);
	snprintf(res->notes, sizeof(res->notes), "%s", r->notes);
	ret = 0;
out:
	rpl_hist_release(&all);
	rpl_hist_release(&a);
	rpl_hist_release(&b);
	rpl_hist_release(&st);
	return ret;
}

void rpl_results_free(struct rpl_result *res)
{
	free(res->intervals);
	free(res->targets);
	free(res->null_unlisted);
	res->intervals = NULL;
	res->targets = NULL;
	res->null_unlisted = NULL;
	res->null_unlisted_ndev = 0;
}
