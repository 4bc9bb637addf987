/* SPDX-License-Identifier: MIT */
/* cmd_stats.c - `iostorm stats`: workload characterization of a trace. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textenc.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "report/stats.h"

#define BATCH 4096

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iostorm stats [--json] [--interval T] [--top N] TRACE\n"
		"\n"
		"Characterizes a trace (.ist, or canonical CSV when the name ends in\n"
		".csv): op mix, request sizes, sequential share, inter-arrival times,\n"
		"IOPS and MB/s over time, spatial skew, working set, queue depth\n"
		"(when latencies are known), transactions, per device and per stream.\n"
		"\n"
		"Options:\n"
		"  -j, --json            print JSON instead of a table\n"
		"  -i, --interval T      interval of the time series (default 1s)\n"
		"  -n, --top N           streams listed, 0-100000 (default 10)\n"
		"  -h, --help            this help\n"
		"\n"
		"Exit status: 0 success, 1 bad input or failure, 2 usage error.\n");
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* A record of a device the statistics do not keep (it was a silent
 * failure): where it is, and the limit. */
static void too_many_devices(const char *path, const char *what, uint64_t where,
			     uint32_t dev)
{
	cli_err("%s: %s %" PRIu64 ": device %" PRIu32 ": stats covers devices 0 to %u",
		path, what, where, dev, RPT_MAX_DEVICES - 1);
}

/* A canonical CSV through the library's reader, as convert and replay
 * read it: its comment lines' header (device names), the header row, a
 * bad line named with its field. */
static int feed_csv(const char *path, struct rpt_stats **st,
		    const struct rpt_stats_opts *o, ist_header **hdr)
{
	FILE *f = fopen(path, "r");
	ist_csv_reader *rd = NULL;
	struct ist_record *buf = NULL;
	ssize_t n = 0;
	int rc;

	if (!f) {
		cli_err("%s: %s", path, strerror(errno));
		return EXIT_FAIL;
	}
	if (getc(f) == EOF) {
		/* as every command says it (an IST file: no magic) */
		cli_err("%s: %s", path, ferror(f) ? strerror(EIO) : "empty file");
		fclose(f);
		return EXIT_FAIL;
	}
	rewind(f);
	rd = ist_csv_reader_new(f);
	buf = malloc(BATCH * sizeof(*buf));
	if (!rd || !buf) {
		rc = -ENOMEM;
		goto out;
	}
	rc = ist_csv_reader_begin(rd);
	if (rc < 0)
		goto bad;
	*hdr = ist_header_dup(ist_csv_reader_header(rd));
	rc = *hdr ? rpt_stats_new(st, *hdr, o) : -ENOMEM;
	if (rc < 0)
		goto out;
	/* one record a call: a record of a device that stats does not keep
	 * is named by its line (comment lines may come between records) */
	for (;;) {
		size_t k = 0;

		while (k < BATCH && (n = ist_csv_reader_read(rd, &buf[k], 1)) > 0) {
			if (buf[k].dev >= RPT_MAX_DEVICES) {
				too_many_devices(path, "line", ist_csv_reader_line(rd), buf[k].dev);
				rc = IST_ERANGE;
				goto out_quiet;
			}
			k++;
		}
		if (k && (rc = rpt_stats_add(*st, buf, k)) < 0)
			goto out;
		if (n <= 0)
			break;
	}
	rc = (int)n;
	if (rc < 0)
		goto bad;
	goto out;
bad:
	if (rc == -EIO)
		cli_err("%s: %s", path, strerror(EIO));
	else
		cli_err("%s: line %" PRIu64 ": %s", path, ist_csv_reader_line(rd),
			ist_csv_reader_detail(rd) && *ist_csv_reader_detail(rd) ?
			ist_csv_reader_detail(rd) : ist_strerror(rc));
	goto out_quiet;
out:
	if (rc < 0)
		cli_err("%s", ist_strerror(rc));
out_quiet:
	ist_csv_reader_free(rd);
	free(buf);
	fclose(f);
	return rc < 0 ? EXIT_FAIL : EXIT_OK;
}

static int feed_ist(const char *path, struct rpt_stats **st,
		    const struct rpt_stats_opts *o, ist_header **hdr)
{
	ist_reader *r;
	struct ist_record *buf;
	ssize_t n;
	int rc = ist_reader_open(&r, path);

	if (rc < 0) {
		cli_err_open(path, rc);
		return EXIT_FAIL;
	}
	cli_warn_no_footer(path, r);
	rc = rpt_stats_new(st, ist_reader_header(r), o);
	buf = malloc(BATCH * sizeof(*buf));
	*hdr = ist_header_dup(ist_reader_header(r));
	if (rc < 0 || !buf || !*hdr) {
		cli_err("%s", strerror(ENOMEM));
		free(buf);
		ist_reader_close(r);
		return EXIT_FAIL;
	}
	while ((n = ist_reader_read(r, buf, BATCH)) > 0) {
		rc = rpt_stats_add(*st, buf, (size_t)n);
		if (rc == IST_ERANGE) {
			struct ist_position pos;
			ssize_t i = 0;

			ist_reader_position(r, &pos);
			while (i < n - 1 && buf[i].dev < RPT_MAX_DEVICES)
				i++;
			too_many_devices(path, "record", pos.record - (uint64_t)n +
					 (uint64_t)i + 1, buf[i].dev);
			break;
		}
		if (rc < 0) {
			cli_err("%s", ist_strerror(rc));
			break;
		}
	}
	if (n < 0) {
		struct ist_position pos;

		ist_reader_position(r, &pos);
		cli_err_ist(path, &pos, (int)n);
		rc = (int)n;
	}
	free(buf);
	ist_reader_close(r);
	return rc < 0 ? EXIT_FAIL : EXIT_OK;
}

static void print_json(const char *path, const struct rpt_stats *st, unsigned top,
		       const ist_header *h)
{
	const struct rpt_summary *s = rpt_stats_summary(st);

	printf("{\n  \"trace\": ");
	istint_json_put_str(stdout, path);
	printf(",\n  \"metadata\": {");
	for (unsigned i = 0; h && i < ist_header_meta_count(h); i++) {
		const char *k, *v;

		if (ist_header_meta_at(h, i, &k, &v) < 0)
			break;
		printf("%s", i ? ", " : "");
		istint_json_put_str(stdout, k);
		printf(": ");
		istint_json_put_str(stdout, v);
	}
	printf("},\n");
	printf("  \"records\": %" PRIu64 ",\n  \"duration_s\": %.9g,\n",
	       s->records, s->duration_s);
	printf("  \"ops\": {");
	for (unsigned op = 0; op < IST_OP_COUNT; op++)
		printf("%s\"%s\": {\"count\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
		       op ? ", " : "", ist_op_name(op), s->count[op], s->bytes[op]);
	printf("},\n");
	printf("  \"read_share\": %.6f,\n  \"read_bytes_share\": %.6f,\n",
	       s->read_share, s->read_bytes_share);
	printf("  \"size\": {\"mean\": %.1f, \"mean_read\": %.1f, \"mean_write\": %.1f, "
	       "\"mode\": %u, \"mode_share\": %.6f, \"log2_histogram\": [",
	       s->mean_size, s->mean_read_size, s->mean_write_size, s->mode_size,
	       s->mode_share);
	for (unsigned k = 0; k < RPT_SIZE_LOG2; k++)
		printf("%s%" PRIu64, k ? ", " : "", rpt_stats_size_hist(st, k));
	printf("]},\n");
	printf("  \"sequential_share\": %.6f,\n  \"stream_sequential_share\": %.6f,\n",
	       s->seq_share, s->stream_seq_share);
	printf("  \"interarrival\": {\"mean_ns\": %.1f, \"cv\": %.4f, \"burstiness\": %.4f, "
	       "\"log2_histogram_ns\": [", s->ia_mean_ns, s->ia_cv, s->burstiness);
	for (unsigned k = 0; k < RPT_IA_LOG2; k++)
		printf("%s%" PRIu64, k ? ", " : "", rpt_stats_ia_hist(st, k));
	printf("]},\n");
	printf("  \"iops\": %.3f,\n  \"mbps\": %.3f,\n  \"peak_iops\": %.3f,\n",
	       s->iops, s->mbps, s->peak_iops);
	printf("  \"skew\": {\"top1\": %.6f, \"top10\": %.6f, \"top20\": %.6f},\n",
	       s->skew.top1, s->skew.top10, s->skew.top20);
	printf("  \"working_set_bytes\": %" PRIu64 ",\n", s->working_set);
	printf("  \"transactions\": {\"commits\": %" PRIu64 ", \"ios\": %" PRIu64
	       ", \"flushes\": %" PRIu64 ", \"ios_per_txn\": %.4f, "
	       "\"flushes_per_commit\": %.4f},\n", s->commits, s->txn_ios,
	       s->txn_flushes, s->ios_per_txn, s->flushes_per_commit);
	printf("  \"flags\": {\"sync\": %" PRIu64 ", \"fua\": %" PRIu64
	       ", \"dependent\": %" PRIu64 ", \"flushes\": %" PRIu64 "},\n",
	       s->sync, s->fua, s->dependent, s->flushes);
	printf("  \"latency\": {\"known\": %s, \"mean_ns\": %.1f, \"qd_mean\": %.3f, "
	       "\"qd_max\": %.0f},\n", s->have_latency ? "true" : "false",
	       s->lat_mean_ns, s->qd_mean, s->qd_max);
	printf("  \"out_of_order\": %" PRIu64 ",\n", s->out_of_order);
	printf("  \"devices\": [");
	for (unsigned i = 0; i < rpt_stats_device_count(st); i++) {
		const struct rpt_device *d = rpt_stats_device(st, i);

		/* a device name may hold any character but NUL */
		printf("%s\n    {\"name\": ", i ? "," : "");
		istint_json_put_str(stdout, d->name);
		printf(", \"size\": %" PRIu64
		       ", \"reads\": %" PRIu64 ", \"writes\": %" PRIu64
		       ", \"read_bytes\": %" PRIu64 ", \"write_bytes\": %" PRIu64
		       ", \"read_share\": %.6f, \"mean_size\": %.1f, "
		       "\"sequential_share\": %.6f, \"skew\": {\"top1\": %.6f, "
		       "\"top10\": %.6f, \"top20\": %.6f}}",
		       d->size, d->count[0], d->count[1], d->bytes[0], d->bytes[1],
		       d->read_share, d->mean_size, d->seq_share, d->skew.top1,
		       d->skew.top10, d->skew.top20);
	}
	printf("\n  ],\n  \"streams\": {\"count\": %" PRIu64 ", \"exact\": %s, "
	       "\"iops_mean\": %.4f, \"iops_median\": %.4f, \"top\": [",
	       s->streams, s->streams_exact ? "true" : "false",
	       s->stream_iops_mean, s->stream_iops_median);
	for (unsigned i = 0; i < top && i < rpt_stats_stream_count(st); i++) {
		const struct rpt_stream *x = rpt_stats_stream(st, i);

		printf("%s\n    {\"id\": %" PRIu64 ", \"ios\": %" PRIu64
		       ", \"reads\": %" PRIu64 ", \"bytes\": %" PRIu64
		       ", \"commits\": %" PRIu64 ", \"iops\": %.4f}", i ? "," : "",
		       x->id, x->count, x->reads, x->bytes, x->commits, x->iops);
	}
	printf("\n  ]},\n  \"interval_ns\": %" PRIu64 ",\n  \"intervals\": [",
	       rpt_stats_interval_ns(st));
	for (unsigned i = 0; i < rpt_stats_interval_count(st); i++) {
		const struct rpt_interval *v = rpt_stats_interval(st, i);

		printf("%s\n    {\"t_s\": %.3f, \"iops\": %.3f, \"mbps\": %.3f, "
		       "\"read_share\": %.4f, \"qd_mean\": %.3f, \"qd_max\": %" PRIu64 "}",
		       i ? "," : "", (double)v->start_ns / 1e9, v->iops, v->mbps,
		       v->count ? (double)v->reads / (double)v->count : 0.0,
		       v->qd_mean, v->qd_max);
	}
	printf("\n  ]\n}\n");
}

static void print_table(const char *path, const struct rpt_stats *st,
			unsigned top, const ist_header *h)
{
	const struct rpt_summary *s = rpt_stats_summary(st);
	char a[32], b[32], c[32];

	printf("trace            %s\n", path);
	for (unsigned i = 0; h && i < ist_header_meta_count(h); i++) {
		const char *k, *v;

		if (ist_header_meta_at(h, i, &k, &v) < 0)
			break;
		printf("  %-14s %s\n", k, v);
	}
	printf("records          %" PRIu64 " over %s (%.1f IOPS, %.2f MB/s, peak %.0f IOPS/interval)\n",
	       s->records, cli_fmt_ns(s->duration_s * 1e9, a, sizeof(a)), s->iops,
	       s->mbps, s->peak_iops);
	printf("op mix          ");
	for (unsigned op = 0, n = 0; op < IST_OP_COUNT; op++)
		if (s->count[op])
			printf("%s%s %" PRIu64 " (%s)", n++ ? "  " : " ", ist_op_name(op),
			       s->count[op], cli_fmt_bytes((double)s->bytes[op], a, sizeof(a)));
	printf("\nread share       %.1f%% of I/Os, %.1f%% of bytes\n",
	       100 * s->read_share, 100 * s->read_bytes_share);
	printf("size             mean %s (reads %s, writes %s), mode %u B (%.1f%%)\n",
	       cli_fmt_bytes(s->mean_size, a, sizeof(a)),
	       cli_fmt_bytes(s->mean_read_size, b, sizeof(b)),
	       cli_fmt_bytes(s->mean_write_size, c, sizeof(c)), s->mode_size,
	       100 * s->mode_share);
	printf("size histogram  ");
	for (unsigned k = 0; k < RPT_SIZE_LOG2; k++)
		if (rpt_stats_size_hist(st, k))
			printf(" [%s+]:%" PRIu64,
			       cli_fmt_bytes((double)(1ull << k), a, sizeof(a)),
			       rpt_stats_size_hist(st, k));
	printf("\nsequential       %.2f%% (device), %.2f%% (within stream)\n",
	       100 * s->seq_share, 100 * s->stream_seq_share);
	printf("inter-arrival    mean %s, CV %.2f, burstiness %.3f\n",
	       cli_fmt_ns(s->ia_mean_ns, a, sizeof(a)), s->ia_cv, s->burstiness);
	printf("skew             hottest 1%%: %.1f%%, 10%%: %.1f%%, 20%%: %.1f%% of I/Os\n",
	       100 * s->skew.top1, 100 * s->skew.top10, 100 * s->skew.top20);
	printf("working set      %s\n", cli_fmt_bytes((double)s->working_set, a, sizeof(a)));
	printf("transactions     %" PRIu64 " commits, %.2f I/Os per txn, %.3f flushes per commit\n",
	       s->commits, s->ios_per_txn, s->flushes_per_commit);
	printf("flags            sync %" PRIu64 ", fua %" PRIu64 ", dependent %" PRIu64
	       ", flushes %" PRIu64 "\n", s->sync, s->fua, s->dependent, s->flushes);
	if (s->have_latency)
		printf("latency          mean %s, queue depth mean %.2f max %.0f\n",
		       cli_fmt_ns(s->lat_mean_ns, a, sizeof(a)), s->qd_mean, s->qd_max);
	else
		printf("latency          unknown (no queue depth)\n");
	if (s->out_of_order)
		printf("out of order     %" PRIu64 " records\n", s->out_of_order);
	printf("\n%-16s %12s %12s %8s %10s %8s %8s %8s\n", "DEVICE", "READS",
	       "WRITES", "READ%", "MEAN", "SEQ%", "TOP10%", "TOP20%");
	for (unsigned i = 0; i < rpt_stats_device_count(st); i++) {
		const struct rpt_device *d = rpt_stats_device(st, i);

		printf("%-16s %12" PRIu64 " %12" PRIu64 " %8.1f %10s %8.2f %8.1f %8.1f\n",
		       d->name, d->count[0], d->count[1], 100 * d->read_share,
		       cli_fmt_bytes(d->mean_size, a, sizeof(a)), 100 * d->seq_share,
		       100 * d->skew.top10, 100 * d->skew.top20);
	}
	printf("\nstreams          %" PRIu64 "%s, per-stream IOPS mean %.2f median %.2f\n",
	       s->streams, s->streams_exact ? "" : "+ (table full)",
	       s->stream_iops_mean, s->stream_iops_median);
	if (top && rpt_stats_stream_count(st)) {
		printf("%-12s %12s %8s %12s %10s %10s\n", "STREAM", "IOS", "READ%",
		       "BYTES", "COMMITS", "IOPS");
		for (unsigned i = 0; i < top && i < rpt_stats_stream_count(st); i++) {
			const struct rpt_stream *x = rpt_stats_stream(st, i);

			printf("%-12" PRIu64 " %12" PRIu64 " %8.1f %12s %10" PRIu64 " %10.2f\n",
			       x->id, x->count,
			       x->count ? 100.0 * (double)x->reads / (double)x->count : 0.0,
			       cli_fmt_bytes((double)x->bytes, a, sizeof(a)), x->commits,
			       x->iops);
		}
	}
	printf("\n%-10s %12s %10s %8s %8s\n", "TIME", "IOPS", "MB/s", "READ%", "QD");
	for (unsigned i = 0; i < rpt_stats_interval_count(st); i++) {
		const struct rpt_interval *v = rpt_stats_interval(st, i);

		printf("%-10s %12.1f %10.2f %8.1f %8.2f\n",
		       cli_fmt_ns((double)v->start_ns, a, sizeof(a)), v->iops, v->mbps,
		       v->count ? 100.0 * (double)v->reads / (double)v->count : 0.0,
		       v->qd_mean);
	}
}

int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "interval", required_argument, NULL, 'i' },
		{ "top", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rpt_stats_opts o = { 0, 0 };
	struct rpt_stats *st = NULL;
	ist_header *hdr = NULL;
	int json = 0, c, rc;
	uint64_t top = 10;
	const char *path;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ji:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'i':
			if (cli_parse_duration_ns(optarg, &o.interval_ns) < 0 ||
			    !o.interval_ns)
				return cli_usage_error("stats", "bad --interval '%s'", optarg);
			break;
		case 'n':
			if (cli_parse_uint(optarg, 100000, &top) < 0)
				return cli_usage_error("stats", "bad --top '%s'", optarg);
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("stats", argc, argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("stats", optind >= argc ? "no TRACE given" :
				       "one TRACE only");
	path = argv[optind];
	if (cli_check_inputs(&path, 1))
		return EXIT_FAIL;
	rc = ends_with(path, ".csv") ? feed_csv(path, &st, &o, &hdr) :
					 feed_ist(path, &st, &o, &hdr);
	if (rc == EXIT_OK && rpt_stats_finish(st) < 0) {
		cli_err("%s", strerror(ENOMEM));
		rc = EXIT_FAIL;
	}
	if (rc == EXIT_OK) {
		if (json)
			print_json(path, st, (unsigned)top, hdr);
		else
			print_table(path, st, (unsigned)top, hdr);
	}
	rpt_stats_free(st);
	ist_header_free(hdr);
	return rc;
}
