/* SPDX-License-Identifier: MIT */
/* report.c - the replay's JSON report (schema iostorm-replay/1) and CSV interval rows. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/textenc.h"
#include "core/tmpout.h"
#include "import/import.h"
#include "replay/internal.h"

#define SCHEMA "iostorm-replay/1"

static json_object *ju64(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static void add(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static json_object *pcts(const struct rpl_pcts *p)
{
	json_object *o = json_object_new_object();

	add(o, "count", ju64(p->count));
	add(o, "min", ju64(p->count ? p->min : 0));
	add(o, "mean", json_object_new_double(p->mean));
	add(o, "stddev", json_object_new_double(p->stddev));
	add(o, "p50", ju64(p->p50));
	add(o, "p90", ju64(p->p90));
	add(o, "p99", ju64(p->p99));
	add(o, "p99_9", ju64(p->p999));
	add(o, "p99_99", ju64(p->p9999));
	add(o, "max", ju64(p->max));
	return o;
}

static double per_s(uint64_t v, uint64_t ns)
{
	return ns ? (double)v * 1e9 / (double)ns : 0;
}

static json_object *trace_obj(const struct rpl_report_info *in)
{
	json_object *o = json_object_new_object(), *devs, *meta, *tot;
	unsigned n = in->header ? ist_header_device_count(in->header) : 0;

	add(o, "path", json_object_new_string(in->trace_path ? in->trace_path : ""));
	add(o, "format", json_object_new_string(in->trace_format ? in->trace_format : ""));
	devs = json_object_new_array();
	for (unsigned i = 0; i < n; i++) {
		const struct ist_device *d = ist_header_device(in->header, i);
		json_object *dv = json_object_new_object();

		add(dv, "index", ju64(i));
		add(dv, "name", json_object_new_string(d->name ? d->name : ""));
		add(dv, "size", ju64(d->size));
		add(dv, "block_size", ju64(d->block_size));
		json_object_array_add(devs, dv);
	}
	add(o, "devices", devs);
	meta = json_object_new_object();
	for (unsigned i = 0; in->header && i < ist_header_meta_count(in->header); i++) {
		const char *k, *v;

		if (!ist_header_meta_at(in->header, i, &k, &v))
			add(meta, k, json_object_new_string(v));
	}
	add(o, "metadata", meta);
	if (in->totals) {
		const struct ist_totals *t = in->totals;

		tot = json_object_new_object();
		add(tot, "records", ju64(t->records));
		add(tot, "first_t_ns", ju64(t->first_t_ns));
		add(tot, "last_t_ns", ju64(t->last_t_ns));
		add(tot, "duration_ns", ju64(t->last_t_ns - t->first_t_ns));
		for (unsigned op = 0; op < IST_OP_COUNT; op++) {
			json_object *x = json_object_new_object();

			add(x, "count", ju64(t->count[op]));
			add(x, "bytes", ju64(t->bytes[op]));
			add(tot, ist_op_name(op), x);
		}
		add(tot, "with_latency", ju64(t->with_latency));
		add(tot, "streams", ju64(t->streams));
		add(tot, "txns", ju64(t->txns));
		add(o, "totals", tot);
	} else {
		add(o, "totals", NULL);
	}
	return o;
}

static json_object *settings_obj(const struct rpl_report_info *in,
				 const struct rpl_result *res)
{
	const struct rpl_opts *op = in->opts;
	json_object *o = json_object_new_object(), *tg;
	char buf[32];

	add(o, "timing", json_object_new_string(rpl_timing_name(op->timing)));
	add(o, "speed", json_object_new_double(op->speed));
	add(o, "rate_iops", json_object_new_double(op->timing == RPL_TIMING_RATE ? op->rate_iops : 0));
	add(o, "iodepth", ju64(op->iodepth));
	add(o, "workers", ju64(op->workers));
	add(o, "partition", json_object_new_string(op->partition == RPL_PART_STREAM ? "stream" : "device"));
	add(o, "from_ns", ju64(op->from_ns));
	add(o, "to_ns", ju64(op->to_ns));
	add(o, "loops", ju64(op->loops));
	add(o, "duration_ns", ju64(op->duration_ns));
	add(o, "backend", json_object_new_string(op->backend == RPL_BACKEND_NULL ? "null" : "io_uring"));
	add(o, "direct", json_object_new_boolean(!op->buffered));
	add(o, "remap", json_object_new_string(rpl_remap_name(op->remap)));
	add(o, "data", json_object_new_string(rpl_data_format(op->data, op->data_param, buf, sizeof(buf))));
	add(o, "read_only", json_object_new_boolean(op->read_only));
	add(o, "allow_write", json_object_new_boolean(op->allow_write));
	add(o, "force", json_object_new_boolean(op->force));
	add(o, "sqpoll", json_object_new_boolean(op->sqpoll));
	add(o, "iopoll", json_object_new_boolean(op->iopoll));
	add(o, "realtime", json_object_new_boolean(op->realtime));
	add(o, "inline", json_object_new_string(op->inline_io == RPL_INLINE_NEVER ? "never" :
						op->inline_io == RPL_INLINE_ALWAYS ? "always" : "auto"));
	/* the option (--pin, --no-pin or neither) and what the run did */
	add(o, "pin", json_object_new_string(op->no_pin ? "off" : op->pin ? "on" : "auto"));
	add(o, "pin_cpus", json_object_new_boolean(res->pinned));
	add(o, "virtual_time", json_object_new_boolean(op->virtual_clock));
	add(o, "null_latency_ns", ju64(op->null_latency_ns));
	add(o, "interval_ns", ju64(op->interval_ns));
	add(o, "spin_ns", ju64(op->spin_ns));
	add(o, "spin_adaptive", json_object_new_boolean(op->spin_auto));
	add(o, "think_scale", json_object_new_double(op->think_scale));
	add(o, "txn_per", ju64(op->txn_per));
	add(o, "serial_commits", json_object_new_boolean(op->serial_commits));
	add(o, "commit_groups", json_object_new_boolean(op->commit_groups));
	add(o, "holder_waits", json_object_new_boolean(op->holder_waits));
	add(o, "lock_handover", json_object_new_boolean(op->lock_handover));
	add(o, "txn_latency", json_object_new_string(op->txn_latency_cycle ? "cycle" : "first"));
	add(o, "think_sched", op->think_sched ? json_object_new_string(op->think_sched) : NULL);
	add(o, "cpus", op->cpus ? json_object_new_int64(op->cpus) : NULL);
	add(o, "cpu_queue", op->cpus ? json_object_new_string(op->cpu_bursts ? "burst" : "gap") :
	    NULL);
	add(o, "cpu_scale", json_object_new_double(op->cpu_scale));
	add(o, "wake_cost_ns", op->wake_cost_auto || op->wake_cost_ns ?
	    ju64(res->wake_cost_ns) : NULL);
	tg = json_object_new_array();
	for (unsigned i = 0; i < res->ntargets; i++) {
		json_object *t = json_object_new_object();

		add(t, "dev", json_object_new_int(res->targets[i].dev));
		add(t, "path", json_object_new_string(res->targets[i].path));
		add(t, "kind", json_object_new_string(res->targets[i].kind));
		add(t, "size", ju64(res->targets[i].size));
		add(t, "logical_block_size", ju64(res->targets[i].lbs));
		json_object_array_add(tg, t);
	}
	add(o, "targets", tg);
	return o;
}

static json_object *lines_array(const char *s)
{
	json_object *a = json_object_new_array();
	const char *e;

	while (s && *s) {
		e = strchr(s, '\n');
		if (!e)
			e = s + strlen(s);
		if (e > s)
			json_object_array_add(a, json_object_new_string_len(s, (int)(e - s)));
		s = *e ? e + 1 : e;
	}
	return a;
}

static json_object *words_array(const char *s)
{
	json_object *a = json_object_new_array();
	const char *e;

	while (s && *s) {
		while (*s == ' ')
			s++;
		e = strchr(s, ' ');
		if (!e)
			e = s + strlen(s);
		if (e > s)
			json_object_array_add(a, json_object_new_string_len(s, (int)(e - s)));
		s = e;
	}
	return a;
}

int rpl_report_json(const char *path, const struct rpl_report_info *in,
		    const struct rpl_result *res)
{
	json_object *root = json_object_new_object(), *o, *ops, *iv, *tx;
	uint64_t el = res->elapsed_ns;
	struct istint_tmpfile tf;
	char tmp[4096];
	int ret = 0;

	add(root, "schema", json_object_new_string(SCHEMA));
	o = json_object_new_object();
	add(o, "name", json_object_new_string("iostorm"));
	add(o, "version", json_object_new_string(PACKAGE_VERSION));
	add(root, "tool", o);
	add(root, "command", in->command ? json_object_new_string(in->command) : NULL);
	add(root, "started", in->started ? json_object_new_string(in->started) : NULL);
	add(root, "interrupted", json_object_new_boolean(res->interrupted));
	add(root, "complete", json_object_new_boolean(res->complete));
	add(root, "trace", trace_obj(in));
	add(root, "settings", settings_obj(in, res));
	add(root, "features", words_array(res->features));
	add(root, "notes", lines_array(res->notes));

	o = json_object_new_object();
	add(o, "elapsed_ns", ju64(el));
	add(o, "schedule_ns", ju64(res->schedule_ns));
	add(o, "cpu_user_ns", ju64(res->cpu_user_ns));
	add(o, "cpu_sys_ns", ju64(res->cpu_sys_ns));
	add(o, "cpu_ns_per_io", json_object_new_double(res->ios ?
		(double)(res->cpu_user_ns + res->cpu_sys_ns) / (double)res->ios : 0));
	add(o, "max_inflight", ju64(res->max_inflight));
	add(o, "decoder_starved", ju64(res->decoder_starved));
	add(o, "inline_ios", ju64(res->inline_ios));
	add(o, "wake_margin_max_ns", ju64(res->wake_margin_max_ns));
	add(o, "oversleep_max_ns", ju64(res->oversleep_max_ns));
	add(root, "run", o);

	o = json_object_new_object();
	add(o, "records", ju64(res->records_read));
	add(o, "ios", ju64(res->ios));
	add(o, "bytes", ju64(res->bytes));
	add(o, "iops", json_object_new_double(per_s(res->ios, el)));
	add(o, "mb_per_s", json_object_new_double(per_s(res->bytes, el) / 1e6));
	add(o, "errors", ju64(res->errors));
	add(o, "first_error", res->first_error ?
		json_object_new_string(ist_strerror(res->first_error)) : NULL);
	add(o, "skipped_read_only", ju64(res->skipped_read_only));
	add(o, "skipped_beyond_end", ju64(res->skipped_beyond_end));
	add(o, "skipped_too_large", ju64(res->skipped_too_large));
	add(o, "realigned", ju64(res->realigned));
	add(o, "wrapped", ju64(res->wrapped));
	add(o, "scaled", ju64(res->scaled));
	add(o, "latency_ns", pcts(&res->lat));
	add(root, "totals", o);

	ops = json_object_new_object();
	for (unsigned op = 0; op < IST_OP_COUNT; op++) {
		const struct rpl_op_result *r = &res->op[op];

		o = json_object_new_object();
		add(o, "ios", ju64(r->ios));
		add(o, "bytes", ju64(r->bytes));
		add(o, "errors", ju64(r->errors));
		add(o, "iops", json_object_new_double(per_s(r->ios, el)));
		add(o, "mb_per_s", json_object_new_double(per_s(r->bytes, el) / 1e6));
		add(o, "latency_ns", pcts(&r->lat));
		add(o, "recorded_latency_ns", r->rec_lat.count ? pcts(&r->rec_lat) : NULL);
		add(ops, ist_op_name(op), o);
	}
	add(root, "ops", ops);

	o = pcts(&res->late);
	add(o, "warn_threshold_ns", ju64(res->late_warn_ns));
	add(o, "warning", json_object_new_boolean(res->late_warning));
	add(root, "lateness_ns", o);

	tx = json_object_new_object();
	add(tx, "count", ju64(res->txns));
	add(tx, "tps", json_object_new_double(per_s(res->txns, el)));
	add(tx, "tps_streams", json_object_new_double(res->tps_streams));
	if (in->opts->cpus) {
		json_object *cq = json_object_new_object();

		add(cq, "wait_ns", ju64(res->cpu_wait_ns));
		add(cq, "wait_per_txn_ns", ju64(res->txns ? res->cpu_wait_ns / res->txns : 0));
		if (in->opts->cpu_bursts)
			add(cq, "bursts", ju64(res->cpu_bursts));
		add(tx, "cpu_queue", cq);
	}
	if (in->opts->wake_cost_auto || in->opts->wake_cost_ns) {
		json_object *wk = json_object_new_object();

		add(wk, "cost_ns", ju64(res->wake_cost_ns));
		add(wk, "dropped", ju64(res->wakes_dropped));
		add(wk, "kept", ju64(res->wakes_kept));
		add(wk, "cpu_dropped_ns", ju64(res->wake_cpu_dropped_ns));
		add(tx, "wakeups", wk);
	}
	if (in->opts->commit_groups) {
		json_object *cg = json_object_new_object();

		add(cg, "joined", ju64(res->commits_joined));
		add(cg, "groups", ju64(res->commit_groups));
		if (in->opts->think_sched)
			add(cg, "after_release", ju64(res->commits_after_release));
		if (in->opts->lock_handover) {
			add(cg, "handover_samples", ju64(res->handover_samples));
			add(cg, "handovers", ju64(res->handovers));
			add(cg, "handover_ns", ju64(res->handover_ns));
		}
		if (in->opts->holder_waits) {
			add(cg, "holder_marked", ju64(res->holder_marked));
			add(cg, "holder_waited", ju64(res->holder_waited));
		}
		add(tx, "commit_groups", cg);
	}
	add(tx, "latency_ns", pcts(&res->txn_lat));
	add(tx, "latency_streams_ns", res->txn_lat_streams.count ? pcts(&res->txn_lat_streams) :
	    NULL);
	add(tx, "recorded_latency_ns", res->rec_txn_lat.count ? pcts(&res->rec_txn_lat) : NULL);
	add(root, "transactions", tx);

	iv = json_object_new_array();
	for (size_t i = 0; i < res->nintervals; i++) {
		const struct rpl_interval *r = &res->intervals[i];
		uint64_t ios = 0, bytes = 0;

		for (unsigned op = 0; op < IST_OP_COUNT; op++) {
			ios += r->ios[op];
			bytes += r->bytes[op];
		}
		o = json_object_new_object();
		add(o, "start_ns", ju64(r->start_ns));
		add(o, "length_ns", ju64(r->length_ns));
		add(o, "ios", ju64(ios));
		for (unsigned op = 0; op < IST_OP_COUNT; op++) {
			snprintf(tmp, sizeof(tmp), "%s_ios", ist_op_name(op));
			add(o, tmp, ju64(r->ios[op]));
		}
		add(o, "bytes", ju64(bytes));
		add(o, "iops", json_object_new_double(per_s(ios, r->length_ns)));
		add(o, "mb_per_s", json_object_new_double(per_s(bytes, r->length_ns) / 1e6));
		add(o, "errors", ju64(r->errors));
		add(o, "txns", ju64(r->txns));
		add(o, "tps", json_object_new_double(per_s(r->txns, r->length_ns)));
		add(o, "latency_ns", pcts(&r->lat));
		add(o, "lateness_ns", pcts(&r->late));
		json_object_array_add(iv, o);
	}
	add(root, "intervals", iv);

	/* Written beside the destination, renamed when complete. */
	ret = istint_tmpfile_open(&tf, path);
	if (ret)
		goto out;
	/* device names and paths are bytes, not always UTF-8: json-c
	 * would pass invalid sequences through */
	if (istint_json_put_text(tf.f, json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
					JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0 ||
	    fputc('\n', tf.f) < 0)
		ret = -(errno ? errno : EIO);
	ret = istint_tmpfile_close(&tf, ret);
out:
	json_object_put(root);
	return ret;
}

int rpl_report_csv_intervals(const char *path, const struct rpl_result *res)
{
	struct istint_tmpfile tf;
	FILE *f;
	int ret;

	ret = istint_tmpfile_open(&tf, path);
	if (ret)
		return ret;
	f = tf.f;
	fprintf(f, "start_ns,length_ns,ios,read_ios,write_ios,flush_ios,discard_ios,"
		   "write_zeroes_ios,bytes,iops,mb_per_s,errors,txns,tps,"
		   "lat_min_ns,lat_mean_ns,lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_p99_9_ns,lat_max_ns,"
		   "late_p50_ns,late_p99_ns,late_max_ns\n");
	for (size_t i = 0; i < res->nintervals; i++) {
		const struct rpl_interval *r = &res->intervals[i];
		uint64_t ios = 0, bytes = 0;

		for (unsigned op = 0; op < IST_OP_COUNT; op++) {
			ios += r->ios[op];
			bytes += r->bytes[op];
		}
		fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64, r->start_ns, r->length_ns, ios);
		for (unsigned op = 0; op < IST_OP_COUNT; op++)
			fprintf(f, ",%" PRIu64, r->ios[op]);
		fprintf(f, ",%" PRIu64 ",%.1f,%.3f,%" PRIu64 ",%" PRIu64 ",%.1f", bytes,
			per_s(ios, r->length_ns), per_s(bytes, r->length_ns) / 1e6,
			r->errors, r->txns, per_s(r->txns, r->length_ns));
		fprintf(f, ",%" PRIu64 ",%.0f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
			r->lat.count ? r->lat.min : 0, r->lat.mean, r->lat.p50, r->lat.p90,
			r->lat.p99, r->lat.p999, r->lat.max);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", r->late.p50, r->late.p99,
			r->late.max);
	}
	return istint_tmpfile_close(&tf, 0);
}
