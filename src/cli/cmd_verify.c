/* SPDX-License-Identifier: MIT */
/* cmd_verify.c - `iostorm verify FILE`: checks every chunk and the footer of an IST trace. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"

#define BATCH 65536

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iostorm verify [options] FILE\n"
		"\n"
		"Checks an IST trace: the header, every chunk (header, CRC32, inflation,\n"
		"column decoding), and the footer (present, intact, and its index and\n"
		"totals equal to what the chunks hold).  Each damaged chunk is named on\n"
		"stderr with its index, byte offset and reason; a summary on stdout says\n"
		"how many records remain readable.\n"
		"\n"
		"Options:\n"
		"  -q, --quiet  no summary on stdout\n"
		"  -h, --help   show this help\n"
		"\n"
		"Exit status: 0 the file is intact, 1 damaged, missing footer or\n"
		"unreadable, 2 usage error.\n");
}

/* Compares the footer totals with the recomputed ones; names the first
 * difference in *what, returns 0 when equal. */
static int totals_differ(const struct ist_totals *f, const struct ist_totals *d,
			 const char **what, uint64_t *fv, uint64_t *dv)
{
#define CMP(field, name)                                                       \
	do {                                                                   \
		if (f->field != d->field) {                                    \
			*what = name;                                          \
			*fv = f->field;                                        \
			*dv = d->field;                                        \
			return 1;                                              \
		}                                                              \
	} while (0)
	CMP(records, "records");
	if (d->records) {
		CMP(first_t_ns, "first t_ns");
		CMP(last_t_ns, "last t_ns");
	}
	for (unsigned op = 0; op < IST_OP_COUNT; op++) {
		CMP(count[op], ist_op_name(op));
		CMP(bytes[op], "bytes");
	}
	CMP(with_latency, "records with latency");
	CMP(out_of_order, "records out of order");
	if ((f->flags_exact & d->flags_exact & IST_TOTALS_STREAMS_EXACT))
		CMP(streams, "streams");
	if ((f->flags_exact & d->flags_exact & IST_TOTALS_TXNS_EXACT))
		CMP(txns, "transactions");
	for (uint32_t i = 0; i < f->ndev || i < d->ndev; i++) {
		uint64_t a = i < f->ndev ? f->dev_max_end[i] : 0;
		uint64_t b = i < d->ndev ? d->dev_max_end[i] : 0;

		if (a != b) {
			*what = "device max end";
			*fv = a;
			*dv = b;
			return 1;
		}
	}
	return 0;
#undef CMP
}

int cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t bad = 0, good_recs = 0, lost_recs = 0, nchunks;
	const struct ist_totals *ft;
	struct ist_record *recs;
	ist_totals_acc *acc;
	const char *file;
	int opt, quiet = 0, ret, damaged = 0;
	ist_reader *r;
	ssize_t n;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("verify", argc, argv);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("verify", "expected one FILE");
	file = argv[optind];
	if (cli_check_inputs(&file, 1))
		return EXIT_FAIL;
	ret = ist_reader_open(&r, file);
	if (ret) {
		cli_err_open(file, ret);
		return EXIT_FAIL;
	}
	recs = malloc(BATCH * sizeof(*recs));
	acc = ist_totals_acc_new();
	if (!recs || !acc) {
		cli_err("%s", strerror(ENOMEM));
		free(recs);
		ist_totals_acc_free(acc);
		ist_reader_close(r);
		return EXIT_FAIL;
	}
	nchunks = ist_reader_chunk_count(r);
	if (!ist_reader_has_footer(r)) {
		cli_err("%s: byte offset %" PRIu64 ": footer: %s", file,
			ist_reader_file_size(r), ist_strerror(ist_reader_footer_error(r)));
		damaged = 1;
	}
	while ((n = ist_reader_read(r, recs, BATCH)) != 0) {
		if (n < 0) {
			struct ist_position pos;
			struct ist_chunk_info ci;

			ist_reader_position(r, &pos);
			cli_err_ist(file, &pos, (int)n);
			if (ist_reader_chunk_info(r, pos.chunk, &ci) == 0)
				lost_recs += ci.count;
			bad++;
			damaged = 1;
			continue;
		}
		good_recs += (uint64_t)n;
		ret = ist_totals_acc_add(acc, recs, (size_t)n);
		if (ret) {
			cli_err("%s: %s", file, ist_strerror(ret));
			damaged = 1;
			break;
		}
	}
	ft = ist_reader_totals(r);
	if (ft && !bad) {
		const char *what;
		uint64_t fv, dv;

		if (totals_differ(ft, ist_totals_acc_get(acc), &what, &fv, &dv)) {
			cli_err("%s: footer: totals disagree with the chunks (%s: "
				"footer %" PRIu64 ", chunks %" PRIu64 ")",
				file, what, fv, dv);
			damaged = 1;
		}
	}
	if (!quiet) {
		if (!damaged)
			printf("%s: OK: %" PRIu64 " chunks, %" PRIu64 " records\n",
			       file, nchunks, good_recs);
		else
			printf("%s: DAMAGED: %" PRIu64 " of %" PRIu64
			       " chunks damaged (%" PRIu64 " records lost), footer %s; %"
			       PRIu64 " records readable\n", file, bad, nchunks, lost_recs,
			       ft ? "present" : "missing or damaged", good_recs);
	}
	free(recs);
	ist_totals_acc_free(acc);
	ist_reader_close(r);
	return damaged ? EXIT_FAIL : EXIT_OK;
}
