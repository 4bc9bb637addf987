/* SPDX-License-Identifier: MIT */
/* sweep.c - threads x queue depth grids and rate curves, preconditioning
 * to steady state, on the replay engine; their JSON results. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/textenc.h"
#include "core/tmpout.h"
#include "report/sweep.h"

/*
 * One point on a fresh source.  A block device that a previous point has
 * just closed after writing is re-probed by udev, which holds it for a
 * moment: the exclusive open then fails "in use".  That is retried for up
 * to 3 s; a device that stays busy (mounted, held by someone) is refused.
 */
static int run_point(const struct rpl_opts *o, rpt_source_fn open_source, void *arg,
		     const char *name, volatile sig_atomic_t *stop, struct rpt_point *pt,
		     char *err, size_t errsize)
{
	for (int attempt = 0;; attempt++) {
		struct rpl_source *src = NULL;
		int e = open_source(arg, &src);

		if (e < 0) {
			snprintf(err, errsize, "%s: %s", name ? name : "workload", ist_strerror(e));
			rpl_source_close(src); /* a CSV source that failed is kept */
			return e;
		}
		e = rpt_measure(o, src, stop, pt, err, errsize);
		if (e != IST_EUNSAFE || !strstr(err, "in use") || attempt == 30 ||
		    (stop && *stop))
			return e;
		usleep(100000);
	}
}

struct fill_src {
	const struct rpt_pattern *p;
	uint64_t bytes, limit;
};

static int open_fill(void *arg, struct rpl_source **s)
{
	struct fill_src *f = arg;

	return rpt_pattern_source(s, f->p, f->bytes, f->limit, 1);
}

int rpt_sweep_run(const struct rpt_sweep_opts *o, struct rpt_sweep_result *res,
		  char *err, size_t errsize)
{
	struct rpl_opts ro = o->base;
	int e;

	memset(res, 0, sizeof(*res));
	/* a trace is repeated for as long as a point lasts */
	ro.loops = 1000000;
	ro.duration_ns = o->point_ns;
	ro.partition = RPL_PART_STREAM;
	for (unsigned i = 0; i < o->nthreads; i++)
		for (unsigned j = 0; j < o->nqd; j++) {
			struct rpt_point *pt = &res->grid[res->ngrid];

			ro.timing = RPL_TIMING_AFAP;
			ro.workers = o->threads[i];
			ro.iodepth = o->qd[j];
			e = run_point(&ro, o->open_source, o->source_arg, o->source_name, o->stop, pt, err, errsize);
			if (e < 0)
				return e;
			res->ngrid++;
			if (o->point_done)
				o->point_done(o->point_arg, "grid", pt);
			if (pt->iops > res->max_iops) {
				res->max_iops = pt->iops;
				res->max_threads = pt->threads;
				res->max_qd = pt->qd;
			}
			if (e == 1) {
				res->interrupted = 1;
				return 0;
			}
		}
	if (!(res->max_iops > 0) && o->nrates) {
		snprintf(err, errsize, "no I/O completed in the grid: no maximum to scale the rates");
		return -EIO;
	}
	for (unsigned k = 0; k < o->nrates; k++) {
		struct rpt_point *pt = &res->curve[res->ncurve];
		double want = res->max_iops * o->rates[k] / 100;

		ro.timing = RPL_TIMING_RATE;
		ro.rate_iops = want;
		ro.workers = res->max_threads;
		ro.iodepth = res->max_qd;
		e = run_point(&ro, o->open_source, o->source_arg, o->source_name, o->stop, pt, err, errsize);
		if (e < 0)
			return e;
		pt->pct = o->rates[k];
		pt->target_iops = want;
		res->ncurve++;
		if (o->point_done)
			o->point_done(o->point_arg, "curve", pt);
		if (e == 1) {
			res->interrupted = 1;
			return 0;
		}
	}
	return 0;
}

int rpt_precond_run(const struct rpt_precond_opts *o, struct rpt_precond_result *res,
		    char *err, size_t errsize)
{
	struct rpl_opts ro = o->base;
	unsigned max_rounds = o->max_rounds ? o->max_rounds : 25;
	double iops[RPT_MAX_ROUNDS];
	int e;

	memset(res, 0, sizeof(*res));
	if (max_rounds > RPT_MAX_ROUNDS)
		max_rounds = RPT_MAX_ROUNDS;
	if (o->passes) {
		struct fill_src fs = { o->fill, o->fill_bytes, o->fill_bytes * o->passes };
		struct rpt_point pt = { 0 };

		/* the whole target, written sequentially passes times, as fast
		 * as the drive takes it */
		ro.timing = RPL_TIMING_AFAP;
		ro.workers = 1;
		ro.iodepth = 32;
		ro.loops = 1;
		ro.duration_ns = 0;
		e = run_point(&ro, open_fill, &fs, "fill", o->stop, &pt, err, errsize);
		if (e < 0)
			return e;
		res->fill_bytes = pt.bytes;
		res->fill_s = pt.elapsed_s;
		res->passes_done = o->fill_bytes ? (unsigned)(pt.bytes / (double)o->fill_bytes) : 0;
		if (o->point_done)
			o->point_done(o->point_arg, "fill", &pt);
		if (e == 1) {
			res->interrupted = 1;
			return 0;
		}
	}
	ro = o->base;
	ro.timing = RPL_TIMING_AFAP;
	ro.partition = RPL_PART_STREAM;
	ro.workers = o->threads ? o->threads : 1;
	ro.iodepth = o->qd ? o->qd : 32;
	ro.loops = 1000000;
	ro.duration_ns = o->round_ns;
	for (unsigned r = 0; r < max_rounds; r++) {
		struct rpt_point *pt = &res->rounds[res->nrounds];

		e = run_point(&ro, o->open_source, o->source_arg, o->source_name, o->stop, pt, err, errsize);
		if (e < 0)
			return e;
		pt->round = r + 1;
		iops[res->nrounds++] = pt->iops;
		if (o->point_done)
			o->point_done(o->point_arg, "round", pt);
		if (e == 1) {
			res->interrupted = 1;
			break;
		}
		if (rpt_steady_check(iops, res->nrounds, o->window ? o->window : RPT_STEADY_WINDOW,
				     o->max_excursion > 0 ? o->max_excursion : RPT_STEADY_MAX_EXCURSION,
				     o->max_slope > 0 ? o->max_slope : RPT_STEADY_MAX_SLOPE,
				     &res->steady))
			break;
	}
	return 0;
}

static json_object *ju64(double v)
{
	return json_object_new_int64(v > 9.2e18 ? INT64_MAX : v < 0 ? 0 : (int64_t)llround(v));
}

static json_object *pcts_json(const struct rpt_pcts *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "count", ju64(p->count));
	json_object_object_add(o, "min", ju64(p->present ? p->min : 0));
	json_object_object_add(o, "mean", json_object_new_double(p->present ? p->mean : 0));
	json_object_object_add(o, "stddev", json_object_new_double(p->present ? p->stddev : 0));
	json_object_object_add(o, "p50", ju64(p->present ? p->p50 : 0));
	json_object_object_add(o, "p90", ju64(p->present ? p->p90 : 0));
	json_object_object_add(o, "p99", ju64(p->present ? p->p99 : 0));
	json_object_object_add(o, "p99_9", ju64(p->present ? p->p999 : 0));
	json_object_object_add(o, "p99_99", ju64(p->present ? p->p9999 : 0));
	json_object_object_add(o, "max", ju64(p->present ? p->max : 0));
	return o;
}

json_object *rpt_point_json(const struct rpt_point *p, const char *phase)
{
	json_object *o = json_object_new_object();

	if (!strcmp(phase, "grid")) {
		json_object_object_add(o, "threads", ju64(p->threads));
		json_object_object_add(o, "qd", ju64(p->qd));
	} else if (!strcmp(phase, "curve")) {
		json_object_object_add(o, "pct", json_object_new_double(p->pct));
		json_object_object_add(o, "target_iops", json_object_new_double(p->target_iops));
		json_object_object_add(o, "threads", ju64(p->threads));
		json_object_object_add(o, "qd", ju64(p->qd));
	} else {
		json_object_object_add(o, "round", ju64(p->round));
	}
	json_object_object_add(o, "elapsed_ns", ju64(p->elapsed_s * 1e9));
	json_object_object_add(o, "ios", ju64(p->ios));
	json_object_object_add(o, "bytes", ju64(p->bytes));
	json_object_object_add(o, "iops", json_object_new_double(p->iops));
	json_object_object_add(o, "mb_per_s", json_object_new_double(p->mbps));
	json_object_object_add(o, "latency_ns", pcts_json(&p->lat));
	json_object_object_add(o, "lateness_ns", pcts_json(&p->late));
	return o;
}

int rpt_json_write(const char *path, json_object *obj)
{
	struct istint_tmpfile tf;
	const char *s;
	int e;

	/* a new temporary name beside path (never a PATH.tmp of the user's) */
	e = istint_tmpfile_open(&tf, path);
	if (e)
		goto out;
	s = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s)
		e = -ENOMEM;
	/* json-c passes a name's bytes through: invalid UTF-8 made
	 * invalid JSON */
	else if (istint_json_put_text(tf.f, s) < 0 || fputc('\n', tf.f) < 0)
		e = -(errno ? errno : EIO);
	e = istint_tmpfile_close(&tf, e);
out:
	json_object_put(obj);
	return e;
}
