/* SPDX-License-Identifier: MIT */
/* cmd_info.c - `iostorm info FILE`: header, devices and totals of an IST trace. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/textenc.h"
#include "cli/cli.h"
#include "cli/commands.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iostorm info [options] FILE\n"
		"\n"
		"Shows an IST trace's format version, metadata, devices and totals\n"
		"(records, duration, average IOPS, op mix, streams, transactions,\n"
		"bytes per record on disk).  The totals come from the footer alone;\n"
		"a file without a usable footer is said so and scanned instead.\n"
		"\n"
		"Options:\n"
		"  -j, --json   print one JSON object instead of text\n"
		"  -h, --help   show this help\n"
		"\n"
		"Exit status: 0 success, 1 bad input or failure, 2 usage error.\n");
}

/* Totals by reading every record (no footer); 0 or an error printed. */
static int scan_totals(const char *file, ist_reader *r, ist_totals_acc *acc,
		       uint64_t *bad_chunks)
{
	struct ist_record *recs = malloc(65536 * sizeof(*recs));
	ssize_t n;
	int ret = 0;

	if (!recs || !acc) {
		cli_err("%s: %s", file, strerror(ENOMEM));
		free(recs);
		return -1;
	}
	while ((n = ist_reader_read(r, recs, 65536)) != 0) {
		if (n < 0) {
			(*bad_chunks)++;
			continue;
		}
		if ((ret = ist_totals_acc_add(acc, recs, (size_t)n))) {
			cli_err("%s: %s", file, ist_strerror(ret));
			free(recs);
			return -1;
		}
	}
	free(recs);
	return 0;
}

static void print_json(const char *file, ist_reader *r, const struct ist_totals *t,
		       uint64_t bad_chunks)
{
	const ist_header *h = ist_reader_header(r);
	unsigned major, minor;
	uint64_t dur = t->records ? t->last_t_ns - t->first_t_ns : 0;

	ist_reader_version(r, &major, &minor);
	printf("{\"file\":");
	istint_json_put_str(stdout, file);
	printf(",\"version\":\"%u.%u\",\"file_size\":%" PRIu64 ",\"footer\":%s",
	       major, minor, ist_reader_file_size(r),
	       ist_reader_has_footer(r) ? "true" : "false");
	if (!ist_reader_has_footer(r)) {
		printf(",\"footer_error\":");
		istint_json_put_str(stdout, ist_strerror(ist_reader_footer_error(r)));
		printf(",\"damaged_chunks\":%" PRIu64, bad_chunks);
	}
	printf(",\"metadata\":{");
	for (unsigned i = 0; i < ist_header_meta_count(h); i++) {
		const char *k, *v;

		ist_header_meta_at(h, i, &k, &v);
		printf("%s", i ? "," : "");
		istint_json_put_str(stdout, k);
		putchar(':');
		istint_json_put_str(stdout, v);
	}
	printf("},\"devices\":[");
	for (unsigned i = 0; i < ist_header_device_count(h); i++) {
		const struct ist_device *d = ist_header_device(h, i);

		printf("%s{\"index\":%u,\"name\":", i ? "," : "", i);
		istint_json_put_str(stdout, d->name);
		printf(",\"size\":%" PRIu64 ",\"block_size\":%" PRIu32
		       ",\"max_end\":%" PRIu64 "}", d->size, d->block_size,
		       i < t->ndev ? t->dev_max_end[i] : 0);
	}
	printf("],\"chunks\":%" PRIu64 ",\"records\":%" PRIu64
	       ",\"first_t_ns\":%" PRIu64 ",\"last_t_ns\":%" PRIu64
	       ",\"duration_ns\":%" PRIu64 ",\"avg_iops\":%.3f,\"ops\":{",
	       ist_reader_chunk_count(r), t->records, t->first_t_ns, t->last_t_ns,
	       dur, dur ? t->records / (dur / 1e9) : 0.0);
	for (unsigned op = 0; op < IST_OP_COUNT; op++)
		printf("%s\"%s\":{\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
		       op ? "," : "", ist_op_name(op), t->count[op], t->bytes[op]);
	printf("},\"streams\":%" PRIu64 ",\"streams_exact\":%s,\"txns\":%" PRIu64
	       ",\"txns_exact\":%s,\"with_latency\":%" PRIu64
	       ",\"out_of_order\":%" PRIu64 ",\"bytes_per_record\":%.3f}\n",
	       t->streams, t->flags_exact & IST_TOTALS_STREAMS_EXACT ? "true" : "false",
	       t->txns, t->flags_exact & IST_TOTALS_TXNS_EXACT ? "true" : "false",
	       t->with_latency, t->out_of_order,
	       t->records ? (double)ist_reader_file_size(r) / t->records : 0.0);
}

static void print_text(const char *file, ist_reader *r, const struct ist_totals *t,
		       uint64_t bad_chunks)
{
	const ist_header *h = ist_reader_header(r);
	const ist_header *fm = ist_reader_footer_meta(r);
	unsigned major, minor, hdr_ndev = ist_header_device_count(h);
	uint64_t dur = t->records ? t->last_t_ns - t->first_t_ns : 0;
	uint64_t bytes = 0;
	char b1[32], b2[32];

	ist_reader_version(r, &major, &minor);
	printf("file:          %s (%s, IST %u.%u)\n", file,
	       cli_fmt_bytes((double)ist_reader_file_size(r), b1, sizeof(b1)),
	       major, minor);
	if (ist_reader_has_footer(r))
		printf("footer:        yes\n");
	else
		printf("footer:        NONE (%s): totals below come from a scan of "
		       "every chunk%s\n", ist_strerror(ist_reader_footer_error(r)),
		       bad_chunks ? "; some chunks are damaged (see iostorm verify)" : "");
	if (ist_header_meta_count(h))
		printf("metadata:\n");
	for (unsigned i = 0; i < ist_header_meta_count(h); i++) {
		const char *k, *v;

		ist_header_meta_at(h, i, &k, &v);
		/* learned after the header was written (IST 1.2) */
		printf("  %s = %s%s\n", k, v,
		       fm && ist_header_get(fm, k) ? "  (footer)" : "");
	}
	if (fm)
		hdr_ndev -= ist_header_device_count(fm);
	if (ist_header_device_count(h))
		printf("devices:\n");
	for (unsigned i = 0; i < ist_header_device_count(h); i++) {
		const struct ist_device *d = ist_header_device(h, i);

		char bs[16];

		/* 0 is unknown (iostorm-trace(5)), as for the size */
		snprintf(bs, sizeof(bs), "%" PRIu32, d->block_size);
		printf("  %u: %s  size %s  block size %s  highest offset used %s%s\n",
		       i, d->name, d->size ? cli_fmt_bytes((double)d->size, b1, sizeof(b1))
					   : "unknown",
		       d->block_size ? bs : "unknown",
		       cli_fmt_bytes(i < t->ndev ? (double)t->dev_max_end[i] : 0, b2,
				     sizeof(b2)),
		       i >= hdr_ndev ? "  (footer)" : "");
	}
	printf("records:       %" PRIu64 " in %" PRIu64 " chunks\n", t->records,
	       ist_reader_chunk_count(r));
	printf("time:          first %" PRIu64 " ns, last %" PRIu64 " ns\n",
	       t->first_t_ns, t->last_t_ns);
	printf("duration:      %s\n", cli_fmt_ns((double)dur, b1, sizeof(b1)));
	if (dur)
		printf("average IOPS:  %.1f\n", t->records / (dur / 1e9));
	else
		printf("average IOPS:  n/a (zero duration)\n");
	printf("op mix:\n");
	for (unsigned op = 0; op < IST_OP_COUNT; op++) {
		bytes += t->bytes[op];
		if (!t->count[op])
			continue;
		printf("  %-13s %12" PRIu64 " (%5.1f%%)  %s\n", ist_op_name(op),
		       t->count[op], 100.0 * t->count[op] / t->records,
		       cli_fmt_bytes((double)t->bytes[op], b1, sizeof(b1)));
	}
	printf("bytes moved:   %s\n", cli_fmt_bytes((double)bytes, b1, sizeof(b1)));
	printf("streams:       %s%" PRIu64 "\n",
	       t->flags_exact & IST_TOTALS_STREAMS_EXACT ? "" : "at least ", t->streams);
	printf("transactions:  %s%" PRIu64 "\n",
	       t->flags_exact & IST_TOTALS_TXNS_EXACT ? "" : "at least ", t->txns);
	printf("with latency:  %" PRIu64 "\n", t->with_latency);
	printf("out of order:  %" PRIu64 "\n", t->out_of_order);
	if (t->records)
		printf("on disk:       %.2f bytes per record\n",
		       (double)ist_reader_file_size(r) / t->records);
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct ist_totals *t;
	ist_totals_acc *acc = NULL;
	uint64_t bad = 0;
	ist_reader *r;
	int opt, json = 0, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "jh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("info", argc, argv);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("info", "expected one FILE");
	if (cli_check_inputs((const char *const *)&argv[optind], 1))
		return EXIT_FAIL;
	ret = ist_reader_open(&r, argv[optind]);
	if (ret) {
		cli_err_open(argv[optind], ret);
		return EXIT_FAIL;
	}
	t = ist_reader_totals(r);
	if (!t) {
		acc = ist_totals_acc_new();
		if (scan_totals(argv[optind], r, acc, &bad)) {
			ist_totals_acc_free(acc);
			ist_reader_close(r);
			return EXIT_FAIL;
		}
		t = ist_totals_acc_get(acc);
	}
	if (json)
		print_json(argv[optind], r, t, bad);
	else
		print_text(argv[optind], r, t, bad);
	ist_totals_acc_free(acc);
	ist_reader_close(r);
	if (cli_close_stdout())
		return EXIT_FAIL;
	return EXIT_OK;
}
