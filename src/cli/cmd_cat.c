/* SPDX-License-Identifier: MIT */
/* cmd_cat.c - `iostorm cat FILE`: an IST trace's records as canonical CSV, filtered. */
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
		"Usage: iostorm cat [options] FILE\n"
		"\n"
		"Prints the records of an IST trace as canonical CSV: the header as\n"
		"'# meta:' and '# device:' comment lines, the header row, then one line\n"
		"per record (iostorm convert reads it back).\n"
		"\n"
		"Options:\n"
		"  -f, --from T      only records with t_ns >= T (seeks through the index)\n"
		"  -t, --to T        only records with t_ns < T\n"
		"  -d, --dev N       only records of device N (an index of the\n"
		"                    trace's device table, see iostorm info);\n"
		"                    repeatable: of any of them\n"
		"  -o, --op OP       only records of op OP (read, write, flush, discard,\n"
		"                    write_zeroes); repeatable: of any of them\n"
		"  -n, --no-header   omit the comment lines and the header row\n"
		"  -h, --help        show this help\n"
		"\n"
		"T is a time since the trace start: a number with a unit (100ns, 250us,\n"
		"1.5ms, 2s, 1m, 1h); a bare number is seconds.\n"
		"\n"
		"Exit status: 0 success, 1 bad input or failure, 2 usage error.\n");
}

/*
 * The devices a trace has: its device table, and indexes past it that its
 * records use (the footer counts them; a CSV without '# device:' lines
 * converts to records without a table).  0 when unknown (no footer).
 */
static unsigned trace_devices(ist_reader *r)
{
	const struct ist_totals *tot = ist_reader_totals(r);
	unsigned nd = ist_header_device_count(ist_reader_header(r));

	if (!tot)
		return 0;
	return tot->ndev > nd ? tot->ndev : nd;
}

/* --dev names a device the trace does not have: a usage error listing the
 * ones it has (the first 16 of them). */
static int bad_dev(const char *file, ist_reader *r, uint64_t dev)
{
	unsigned nd = trace_devices(r);
	char list[1024];

	if (nd == 0)
		return cli_usage_error("cat", "--dev %" PRIu64 ": %s has no "
				       "devices", dev, file);
	cli_device_list(ist_reader_header(r), nd, list, sizeof(list));
	return cli_usage_error("cat", "--dev %" PRIu64 ": %s has no such "
			       "device; its devices: %s", dev, file, list);
}

#define CAT_MAX_DEVS 64

static int has_dev(const uint64_t *devs, unsigned n, uint32_t dev)
{
	for (unsigned i = 0; i < n; i++)
		if (devs[i] == dev)
			return 1;
	return 0;
}

int cmd_cat(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "dev", required_argument, NULL, 'd' },
		{ "op", required_argument, NULL, 'o' },
		{ "no-header", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* --dev and --op repeat: the records of any of them (a second one
	 * replaced the first) */
	uint64_t from = 0, to = UINT64_MAX, devs[CAT_MAX_DEVS], v;
	unsigned ndevs = 0, ops = 0;
	int opt, op, want_to = 0, header = 1, ret;
	int status = EXIT_OK;
	const struct ist_totals *tot;
	struct ist_record *recs;
	char line[IST_CSV_LINE_MAX];
	const char *file;
	ist_reader *r;
	ssize_t n;
	int in_order;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "f:t:d:o:nh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (cli_parse_duration_ns(optarg, &from))
				return cli_usage_error("cat", "bad --from '%s'", optarg);
			break;
		case 't':
			if (cli_parse_duration_ns(optarg, &to))
				return cli_usage_error("cat", "bad --to '%s'", optarg);
			want_to = 1;
			break;
		case 'd':
			if (cli_parse_uint(optarg, UINT32_MAX, &v))
				return cli_usage_error("cat", "bad --dev '%s'", optarg);
			if (ndevs == CAT_MAX_DEVS)
				return cli_usage_error("cat", "at most %d --dev", CAT_MAX_DEVS);
			devs[ndevs++] = v;
			break;
		case 'o':
			op = ist_op_parse(optarg, strlen(optarg));
			if (op < 0)
				return cli_usage_error("cat", "unknown --op '%s'", optarg);
			ops |= 1u << op;
			break;
		case 'n':
			header = 0;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("cat", argc, argv);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("cat", "expected one FILE");
	/* an empty window is a mistake (swapped bounds), not an empty trace */
	if (want_to && to <= from)
		return cli_usage_error("cat", "--to must be later than --from");
	file = argv[optind];
	if (cli_check_inputs(&file, 1))
		return EXIT_FAIL;
	ret = ist_reader_open(&r, file);
	if (ret) {
		cli_err_open(file, ret);
		return EXIT_FAIL;
	}
	cli_warn_no_footer(file, r);
	for (unsigned i = 0; i < ndevs; i++)
		if (trace_devices(r) && devs[i] >= trace_devices(r)) {
			/* a device the trace lacks printed nothing, exit 0: as
			 * if it had no I/O */
			status = bad_dev(file, r, devs[i]);
			ist_reader_close(r);
			return status;
		}
	recs = malloc(BATCH * sizeof(*recs));
	if (!recs) {
		cli_err("%s", strerror(ENOMEM));
		ist_reader_close(r);
		return EXIT_FAIL;
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	if (header && ist_csv_write_header(stdout, ist_reader_header(r)))
		goto write_error;
	if (from)
		ist_reader_seek_time(r, from);
	/* in a time-ordered trace the first record past --to ends the scan */
	tot = ist_reader_totals(r);
	in_order = tot && tot->out_of_order == 0;
	while ((n = ist_reader_read(r, recs, BATCH)) != 0) {
		if (n < 0) {
			struct ist_position pos;

			ist_reader_position(r, &pos);
			cli_err_ist(file, &pos, (int)n);
			status = EXIT_FAIL;
			break;
		}
		for (ssize_t i = 0; i < n; i++) {
			const struct ist_record *rec = &recs[i];
			int len;

			if (rec->t_ns < from)
				continue;
			if (want_to && rec->t_ns >= to) {
				if (in_order)
					goto done;
				continue;
			}
			if ((ops && (rec->op >= 32 || !(ops & (1u << rec->op)))) ||
			    (ndevs && !has_dev(devs, ndevs, rec->dev)))
				continue;
			len = ist_csv_format(rec, line, sizeof(line));
			if (len < 0) {
				struct ist_position pos;

				ist_reader_position(r, &pos);
				cli_err_ist(file, &pos, len);
				status = EXIT_FAIL;
				goto done;
			}
			if (fwrite(line, 1, (size_t)len, stdout) != (size_t)len)
				goto write_error;
		}
	}
done:
	free(recs);
	ist_reader_close(r);
	if (cli_close_stdout())
		return EXIT_FAIL;
	return status;
write_error:
	cli_err_stdout(errno);
	free(recs);
	ist_reader_close(r);
	return EXIT_FAIL;
}
