/* SPDX-License-Identifier: MIT */
/* cmd_annotate.c - `iostorm annotate`: commit markers, transactions,
 * dependencies and streams for closed-loop replay of captured traces. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tmpout.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "core/annotate.h"
#include "import/import.h"

#define BATCH 4096

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iostorm annotate IN.ist -o OUT.ist [options]\n"
		"\n"
		"Infer what closed-loop replay needs from a captured trace: the log\n"
		"device, commit markers, transaction ids, per-stream dependencies and,\n"
		"when the capture has no streams, streams from timing.\n"
		"\n"
		"Options:\n"
		"  -o, --output FILE       annotated trace (required)\n"
		"      --log-dev DEV       the log device (index or name); default: the\n"
		"                          device with mostly small sequential sync writes\n"
		"      --commit RULE       a commit marker rule, repeatable:\n"
		"                          'dev=N|log,op=OP,flags=F1|F2' (at least one field);\n"
		"                          default: flush, FUA or preflush write on the log\n"
		"                          device (on any device when none looks like a log)\n"
		"      --txn-per N         also end a transaction every N I/Os of a stream\n"
		"      --window T          stream inference: an I/O issued within T after\n"
		"                          another completed depends on it (default 2ms)\n"
		"      --infer-streams W   auto (when every stream is 0), yes or no\n"
		"      --flush-owner       a flush issued by a stream that did not write\n"
		"                          the device (a kernel worker) belongs to the\n"
		"                          writer waiting on it\n"
		"      --group-commits G   the capture's transactions per commit (e.g.\n"
		"                          xact_commit / wal_sync): each commit cycle\n"
		"                          is split into G commits on average (1-1000)\n"
		"      --keep              keep transaction ids and flags already present\n"
		"      --fast              write faster, larger IST (ANS or plain columns,\n"
		"                          deflate only where a sample halves them)\n"
		"  -q, --quiet             no report on standard output\n"
		"  -h, --help              this help\n"
		"Exit status: 0 success, 1 bad input or failure (the output not\n"
		"written), 2 usage error.\n");
}

static int resolve_dev(const ist_header *h, const char *s)
{
	uint64_t v;
	int i = ist_header_find_device(h, s);

	if (i >= 0)
		return i;
	/* an index: devices need not be named in the header (a CSV trace
	 * without device lines has none) */
	if (!cli_parse_uint(s, IST_MAX_FOOTER_DEVICES - 1, &v))
		return (int)v;
	return -1;
}

/* First pass: per-device statistics (the array grows to the largest
 * device index seen) and whether any stream is set. */
static int scan(const char *path, unsigned *ndevp, struct ann_devstat **dsp,
		int *has_streams)
{
	struct ist_record *buf = malloc(BATCH * sizeof(*buf));
	ist_reader *r;
	ssize_t n;
	int ret = ist_reader_open(&r, path);

	if (ret < 0 || !buf) {
		free(buf);
		if (ret < 0)
			cli_err_open(path, ret);
		return ret < 0 ? ret : -1;
	}
	while ((n = ist_reader_read(r, buf, BATCH)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i].dev >= *ndevp) {
				unsigned nd = buf[i].dev + 1;
				struct ann_devstat *d = realloc(*dsp, nd * sizeof(*d));

				if (!d) {
					n = -ENOMEM;
					goto out;
				}
				memset(d + *ndevp, 0, (nd - *ndevp) * sizeof(*d));
				*dsp = d;
				*ndevp = nd;
			}
			ann_devstat_add(*dsp, *ndevp, &buf[i]);
			if (buf[i].stream)
				*has_streams = 1;
		}
out:
	if (n < 0) {
		struct ist_position pos;

		ist_reader_position(r, &pos);
		cli_err_ist(path, &pos, (int)n);
	}
	ist_reader_close(r);
	free(buf);
	return n < 0 ? -1 : 0;
}

int cmd_annotate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "log-dev", required_argument, NULL, 'L' },
		{ "commit", required_argument, NULL, 'c' },
		{ "txn-per", required_argument, NULL, 'n' },
		{ "window", required_argument, NULL, 'w' },
		{ "infer-streams", required_argument, NULL, 'i' },
		{ "keep", no_argument, NULL, 'k' },
		{ "flush-owner", no_argument, NULL, 'F' },
		{ "group-commits", required_argument, NULL, 'G' },
		{ "fast", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ann_opts o = { .log_dev = -1, .infer_streams = -1 };
	const char *out = NULL, *in, *log_name = NULL;
	struct ann_devstat *ds = NULL;
	struct ann_report rep;
	struct ist_record *buf = NULL;
	ist_reader *r = NULL;
	ist_writer *w = NULL;
	struct ist_writer_opts wo = { .direct = 1 };
	char otmp[4200] = "";
	ist_header *h = NULL;
	ann_state *a = NULL;
	int c, ret, quiet = 0, has_streams = 0, log_dev = -1, infer;
	double conf = 0;
	unsigned ndev, ndev_seen;
	ssize_t n;
	uint64_t v;
	char tmp[64];

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'L':
			log_name = optarg;
			break;
		case 'c':
			if (o.nrules == ANN_MAX_RULES)
				return cli_usage_error("annotate", "at most %d --commit rules",
						       ANN_MAX_RULES);
			if (ann_rule_parse(optarg, &o.rules[o.nrules]))
				return cli_usage_error("annotate", "bad --commit rule '%s'", optarg);
			o.nrules++;
			break;
		case 'n':
			if (cli_parse_uint(optarg, UINT32_MAX, &v) || !v)
				return cli_usage_error("annotate", "bad --txn-per '%s'", optarg);
			o.txn_per = v;
			break;
		case 'w':
			if (cli_parse_duration_ns(optarg, &o.dep_window_ns) || !o.dep_window_ns)
				return cli_usage_error("annotate", "bad --window '%s'", optarg);
			break;
		case 'i':
			if (!strcmp(optarg, "auto"))
				o.infer_streams = -1;
			else if (!strcmp(optarg, "yes"))
				o.infer_streams = 1;
			else if (!strcmp(optarg, "no"))
				o.infer_streams = 0;
			else
				return cli_usage_error("annotate", "--infer-streams takes auto, yes or no");
			break;
		case 'k':
			o.keep_existing = 1;
			break;
		case 'F':
			o.flush_owner = 1;
			break;
		case 'G':
			if (cli_parse_double(optarg, &o.group_commits) || o.group_commits < 1 ||
			    o.group_commits > 1000)
				return cli_usage_error("annotate", "bad --group-commits '%s' (1 to 1000)",
						       optarg);
			break;
		case 'f':
			wo.effort = IST_EFFORT_FAST;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("annotate", argc, argv);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("annotate", "expected one input trace");
	if (!out)
		return cli_usage_error("annotate", "no output file (-o)");
	in = argv[optind];
	if (cli_check_inputs(&in, 1) || cli_check_output(out, &in, 1))
		return EXIT_FAIL;

	ret = ist_reader_open(&r, in);
	if (ret < 0) {
		cli_err_open(in, ret);
		return EXIT_FAIL;
	}
	cli_warn_no_footer(in, r);
	h = ist_header_dup(ist_reader_header(r));
	ist_reader_close(r);
	r = NULL;
	if (!h) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	ndev = ist_header_device_count(h);
	if (log_name) {
		log_dev = resolve_dev(h, log_name);
		if (log_dev < 0) {
			char list[1024];

			cli_device_list(h, ndev, list, sizeof(list));
			ist_header_free(h);
			return cli_usage_error("annotate", "--log-dev: no device '%s' in %s; "
					       "its devices: %s", log_name, in,
					       ndev ? list : "none named (give an index)");
		}
		o.log_dev = log_dev;
		conf = 1;
	}
	ds = calloc(ndev ? ndev : 1, sizeof(*ds));
	ndev_seen = ndev;
	buf = malloc(BATCH * sizeof(*buf));
	if (!ds || !buf) {
		cli_err("out of memory");
		goto fail;
	}
	if (scan(in, &ndev_seen, &ds, &has_streams))
		goto fail;
	if (log_name && (unsigned)log_dev >= ndev_seen) {
		char list[1024];

		cli_device_list(h, ndev_seen, list, sizeof(list));
		cli_usage_error("annotate", "--log-dev: no device %d in %s; its devices: %s",
				log_dev, in, ndev_seen ? list : "none");
		ist_header_free(h);
		free(ds);
		free(buf);
		return EXIT_USAGE;
	}
	/* a rule for a device the trace lacks matched nothing, silently
	 * (no commits, TPS-eq 0), as --log-dev would have */
	for (unsigned i = 0; i < o.nrules; i++) {
		char list[1024];

		if (o.rules[i].dev < 0 || (unsigned)o.rules[i].dev < ndev_seen)
			continue;
		cli_device_list(h, ndev_seen, list, sizeof(list));
		cli_usage_error("annotate", "--commit: no device %d in %s; its devices: %s",
				o.rules[i].dev, in, ndev_seen ? list : "none");
		ist_header_free(h);
		free(ds);
		free(buf);
		return EXIT_USAGE;
	}
	if (log_dev < 0)
		log_dev = ann_detect_log_dev(ds, ndev_seen, &conf);
	infer = o.infer_streams < 0 ? !has_streams : o.infer_streams;

	ret = ann_new(&a, &o, log_dev, conf, infer);
	if (!ret)
		ret = ist_reader_open(&r, in);
	if (ret < 0) {
		cli_err_open(in, ret);
		goto fail;
	}
	ist_header_set(h, "annotated", "yes");
	snprintf(tmp, sizeof(tmp), "%d", log_dev);
	ist_header_set(h, "annotate.log_dev", log_dev >= 0 ? tmp : "none");
	snprintf(tmp, sizeof(tmp), "%.2f", conf);
	ist_header_set(h, "annotate.log_confidence", tmp);
	ist_header_set(h, "annotate.streams", infer ? "inferred from timing" : "recorded");
	/* written to a new OUT.annotating-PID-N (istint_tmp_create(): O_EXCL,
	 * guarded against the signals), renamed at the end; it was
	 * OUT.annotating-PID opened with O_TRUNC, which wrote through a file
	 * or a symbolic link of that name */
	ret = istint_tmp_create(otmp, sizeof(otmp), out, "annotating");
	if (ret < 0) {
		otmp[0] = '\0';
		cli_err("%s: %s", out, strerror(-ret));
		goto fail;
	}
	close(ret);
	ret = ist_writer_open(&w, otmp, h, &wo);
	if (ret < 0) {
		w = NULL;
		cli_err("%s: %s", out, ist_strerror(ret));
		goto fail;
	}
	while ((n = ist_reader_read(r, buf, BATCH)) > 0) {
		const struct ist_record *o_recs;
		size_t o_n;

		ret = ann_process_split(a, buf, (size_t)n, &o_recs, &o_n);
		if (!ret)
			ret = ist_writer_write(w, o_recs, o_n);
		if (ret < 0) {
			cli_err("%s: %s", out, ist_strerror(ret));
			goto fail;
		}
	}
	if (n < 0) {
		struct ist_position pos;

		ist_reader_position(r, &pos);
		cli_err_ist(in, &pos, (int)n);
		goto fail;
	}
	ret = ist_writer_close(w);
	w = NULL;
	if (!ret)
		ret = istint_tmp_sync(otmp);
	if (!ret && rename(otmp, out))
		ret = -errno;
	if (ret < 0) {
		cli_err("%s: %s", out, ret > -IST_E_BASE ? strerror(-ret) :
			ist_strerror(ret));
		goto fail;
	}
	istint_tmp_release(otmp);
	ann_finish(a, &rep);
	a = NULL;
	if (!quiet) {
		printf("annotated %" PRIu64 " records of %s into %s\n", rep.records, in, out);
		if (rep.log_dev >= 0) {
			const struct ist_device *d = ist_header_device(h, (unsigned)rep.log_dev);

			printf("log device:    %d (%s), %s, confidence %.2f\n", rep.log_dev,
			       d ? d->name : "unnamed",
			       rep.log_dev_given ? "given" : "detected", rep.log_confidence);
		}
		else
			printf("log device:    none looks like a log; markers on any device\n");
		printf("commit markers: %" PRIu64 "\n", rep.markers);
		printf("transactions:  %" PRIu64 "\n", rep.txns);
		if (o.flush_owner)
			printf("flush owners:  %" PRIu64 " flushes given to their writer\n",
			       rep.flushes_moved);
		if (rep.dep_past_moved)
			printf("               %" PRIu64 " I/Os issued while one was in flight"
			       " depend on their stream's own I/Os\n", rep.dep_past_moved);
		if (o.group_commits > 1)
			printf("group commits: %" PRIu64 " commits inserted (%.2f per cycle)\n",
			       rep.split_added, o.group_commits);
		printf("streams:       %" PRIu64 " (%s)\n", rep.streams,
		       rep.streams_inferred ? "inferred from timing" : "as recorded");
		printf("dependent I/O: %" PRIu64 " (%.1f%%)\n", rep.dependent,
		       rep.records ? 100.0 * (double)rep.dependent /
				     (double)(rep.records + 2 * rep.split_added) : 0);
		if (rep.without_latency)
			printf("warning:       %" PRIu64 " records without recorded latency: "
			       "their dependencies cannot be inferred\n", rep.without_latency);
		if (!rep.txns)
			printf("warning:       no transaction found: TPS-eq will be 0; "
			       "try --commit or --txn-per\n");
	}
	ist_reader_close(r);
	ist_header_free(h);
	free(ds);
	free(buf);
	return EXIT_OK;
fail:
	if (a)
		ann_finish(a, &rep);
	if (w)
		ist_writer_abort(w);
	if (otmp[0]) {
		unlink(otmp);
		istint_tmp_release(otmp);
	}
	ist_reader_close(r);
	ist_header_free(h);
	free(ds);
	free(buf);
	return EXIT_FAIL;
}
