/* SPDX-License-Identifier: MIT */
/* cmd_synth.c - `iostorm synth`: emulated workloads written as traces. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/tmpout.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "import/import.h"
#include "replay/replay.h"
#include "synth/synth.h"

#define MAX_SETS 256
#define BATCH 4096

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iostorm synth PROFILE [--set KEY=VALUE]... [--duration T]\n"
		"                     [--seed N] -o OUT.ist\n"
		"       iostorm synth FILE.ini [options] -o OUT.ist\n"
		"       iostorm synth --list\n"
		"       iostorm synth PROFILE --describe\n"
		"\n"
		"Generates an emulated workload (databases, VDI storms, vdbench-style\n"
		"profiles, or a user INI profile) as a trace.  The same profile,\n"
		"parameters, seed and duration give the same records, and the same\n"
		"build the same file, bit for bit (a build with or without libdeflate\n"
		"deflates some columns differently).\n"
		"\n"
		"Options:\n"
		"  -s, --set KEY=VALUE   set a profile parameter (see --describe)\n"
		"  -d, --duration T      trace length (default 60s; e.g. 500ms, 2m)\n"
		"  -S, --seed N          random seed (default 1)\n"
		"  -o, --output FILE     output trace (.ist; .csv for canonical CSV)\n"
		"      --fast            write IST faster, larger (ANS or plain columns,\n"
		"                        deflate only where a sample halves them)\n"
		"      --discard         generate, write nothing, print the speed\n"
		"  -l, --list            list the profiles\n"
		"  -D, --describe        list PROFILE's parameters, defaults and sources\n"
		"  -h, --help            this help\n"
		"\n"
		"A PROFILE argument containing '/' or ending in .ini runs the mix\n"
		"profile on that file (same as: mix --set file=FILE).\n"
		"Exit status: 0 success, 1 bad input (a profile file) or failure,\n"
		"2 usage error (unknown profile or parameter, bad value).\n");
}

static void list_profiles(void)
{
	for (unsigned i = 0; syn_profiles[i]; i++)
		printf("%-18s %s\n", syn_profiles[i]->name, syn_profiles[i]->summary);
}

static void describe(const struct syn_profile *p)
{
	printf("%s: %s\n\n", p->name, p->summary);
	printf("%-18s %-10s %-6s %s\n", "PARAMETER", "DEFAULT", "UNIT",
	       "MEANING [SOURCE]");
	for (unsigned i = 0; p->params[i].name; i++) {
		const struct syn_param *d = &p->params[i];

		printf("%-18s %-10s %-6s %s%s%s [%s]\n", d->name,
		       *d->def ? d->def : "-", *d->unit ? d->unit : "-", d->meaning,
		       d->choices ? "; one of " : "", d->choices ? d->choices : "",
		       d->source);
	}
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Output: an IST writer, or canonical CSV for names ending in .csv. */
struct out {
	ist_writer *w;
	FILE *csv;
	char *tmp;
	const char *path;
};

/*
 * The output goes to a new PATH.tmp-PID-N (istint_tmpfile_open(): O_EXCL,
 * so never a file already there; PATH.synth-PID was written through, a
 * file or link of that name overwritten), renamed into place at the end
 * and removed if SIGINT, SIGTERM or SIGHUP ends the run.  The IST writer
 * writes that file itself (.direct: no temporary file of its own).
 */
static int out_open(struct out *o, const char *path, const ist_header *h,
		    int effort)
{
	struct ist_writer_opts wo = { .direct = 1, .effort = effort };
	struct istint_tmpfile tf;
	int ret;

	memset(o, 0, sizeof(*o));
	o->path = path;
	ret = istint_tmpfile_open(&tf, path);
	if (ret)
		return ret;
	o->tmp = tf.tmp; /* guarded; out_close() removes it and frees it */
	if (ends_with(path, ".csv")) {
		o->csv = tf.f;
		fputs(IST_CSV_HEADER "\n", o->csv);
		return 0;
	}
	if (fclose(tf.f))
		return -errno;
	ret = ist_writer_open(&o->w, o->tmp, h, &wo);
	if (ret)
		o->w = NULL;
	return ret;
}

static int out_write(struct out *o, const struct ist_record *r, size_t n)
{
	char line[IST_CSV_LINE_MAX];

	if (o->w)
		return ist_writer_write(o->w, r, n);
	for (size_t i = 0; i < n; i++) {
		int len = ist_csv_format(&r[i], line, sizeof(line));

		if (len < 0)
			return len;
		if (fwrite(line, 1, (size_t)len, o->csv) != (size_t)len)
			return -EIO;
	}
	return 0;
}

static int out_close(struct out *o, int ok)
{
	int rc = 0;

	if (o->w) {
		if (ok) {
			rc = ist_writer_close(o->w);
		} else {
			ist_writer_abort(o->w);
		}
	} else if (o->csv) {
		if (fclose(o->csv) != 0)
			rc = -errno;
	}
	if (o->tmp) {
		if (ok && !rc && o->w)
			rc = istint_tmp_sync(o->tmp);
		if (ok && !rc && rename(o->tmp, o->path) != 0)
			rc = -errno;
		if (!ok || rc)
			unlink(o->tmp);
	}
	istint_tmp_release(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	return rc;
}

static int start_error(const char *profile, const char *file, struct syn_gen *g,
		       int rc)
{
	unsigned line;
	const char *why = syn_gen_error(g, &line);

	if (why && line)
		cli_err("%s: line %u: %s", file ? file : profile, line, why);
	else if (why && file)
		cli_err("%s: %s", file, why);
	else if (why)
		cli_err("%s: %s", profile, why);
	else if (file)
		cli_err("%s: %s", file, rc < 0 && rc > -IST_E_BASE ?
			strerror(-rc) : ist_strerror(rc));
	else
		cli_err("%s: %s", profile, ist_strerror(rc));
	return EXIT_FAIL;
}

int cmd_synth(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 'S' },
		{ "output", required_argument, NULL, 'o' },
		{ "list", no_argument, NULL, 'l' },
		{ "describe", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "discard", no_argument, NULL, 'X' },
		{ "fast", no_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sets[MAX_SETS], *out_path = NULL, *name, *file = NULL;
	unsigned nsets = 0;
	int do_list = 0, do_describe = 0, discard = 0, c, rc, ok = 0;
	int effort = IST_EFFORT_DEFAULT;
	struct timespec t0, t1, c0, c1;
	uint64_t duration = 60ull * 1000000000, seed = 1;
	const struct syn_profile *p;
	struct syn_gen *g = NULL;
	struct ist_record *buf;
	struct out o;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "s:d:S:o:lDh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (nsets == MAX_SETS)
				return cli_usage_error("synth", "too many --set");
			sets[nsets++] = optarg;
			break;
		case 'd':
			if (cli_parse_duration_ns(optarg, &duration) < 0 || !duration)
				return cli_usage_error("synth", "bad duration '%s'", optarg);
			break;
		case 'S':
			if (cli_parse_uint(optarg, UINT64_MAX, &seed) < 0)
				return cli_usage_error("synth", "bad seed '%s'", optarg);
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'l':
			do_list = 1;
			break;
		case 'D':
			do_describe = 1;
			break;
		case 'X':
			discard = 1;
			break;
		case 'F':
			effort = IST_EFFORT_FAST;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("synth", argc, argv);
		}
	}
	if (do_list) {
		rc = cli_list_no_operand("synth", "--list", argc, argv, optind);
		if (!rc)
			list_profiles();
		return rc;
	}
	if (optind != argc - 1)
		return cli_usage_error("synth", optind >= argc ? "no PROFILE given" :
				       "one PROFILE only");
	name = argv[optind];
	if (strchr(name, '/') || ends_with(name, ".ini")) {
		file = name;
		p = syn_profile_find("mix");
	} else {
		p = syn_profile_find(name);
	}
	if (!p)
		return cli_usage_error("synth", "unknown profile '%s' (see --list)",
				       name);
	if (do_describe) {
		/* it lists, it writes no trace: an output asked for is a mistake */
		if (out_path || discard || effort)
			return cli_usage_error("synth", "--describe writes no trace: no %s",
					       out_path ? "-o" : discard ?
					       "--discard" : "--fast");
		describe(p);
		return EXIT_OK;
	}
	if (!out_path && !discard)
		return cli_usage_error("synth", "no output: -o OUT.ist");
	if (out_path && discard)
		return cli_usage_error("synth", "--discard and -o exclude each other");
	if (effort && discard)
		return cli_usage_error("synth", "--discard writes nothing: no --fast");
	/* as convert and record refuse an IST option for a CSV output */
	if (effort && ends_with(out_path, ".csv"))
		return cli_usage_error("synth", "--fast applies to an IST output (OUT is CSV)");
	if (cli_check_output(out_path, &file, file ? 1 : 0))
		return EXIT_FAIL;
	rc = syn_gen_new(&g, p);
	if (rc < 0) {
		cli_err("%s: %s", p->name, ist_strerror(rc));
		return EXIT_FAIL;
	}
	if (file)
		syn_gen_set(g, "file", file);
	for (unsigned i = 0; i < nsets; i++) {
		rc = syn_gen_set_kv(g, sets[i]);
		if (rc == -ENOENT) {
			syn_gen_free(g);
			return cli_usage_error("synth", "%s has no parameter '%.*s'",
					       p->name, (int)strcspn(sets[i], "="),
					       sets[i]);
		}
		if (rc < 0) {
			syn_gen_free(g);
			return cli_usage_error("synth", "bad value in '%s'%s", sets[i],
					       rc == IST_ERANGE ? " (out of range)" : "");
		}
		if (!file && !strncmp(sets[i], "file=", 5))
			file = sets[i] + 5;
	}
	syn_gen_set_seed(g, seed);
	syn_gen_set_duration(g, duration);
	rc = syn_gen_start(g);
	if (rc < 0) {
		rc = start_error(p->name, file, g, rc);
		syn_gen_free(g);
		return rc;
	}
	buf = malloc(BATCH * sizeof(*buf));
	if (!buf) {
		syn_gen_free(g);
		cli_err("%s", strerror(ENOMEM));
		return EXIT_FAIL;
	}
	if (discard) {
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
		while ((n = syn_gen_read(g, buf, BATCH)) > 0)
			;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (n == 0) {
			double s = (double)(t1.tv_sec - t0.tv_sec) +
				   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
			double cpu = (double)(c1.tv_sec - c0.tv_sec) +
				     (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;

			/* CPU time too: on a shared machine it is the fair one */
			printf("%s: %" PRIu64 " records in %.3f s (%.3f s CPU): "
			       "%.0f records/s, %.0f records/CPU-s\n",
			       p->name, syn_gen_count(g), s, cpu,
			       s > 0 ? (double)syn_gen_count(g) / s : 0.0,
			       cpu > 0 ? (double)syn_gen_count(g) / cpu : 0.0);
		} else {
			cli_err("%s: %s", p->name, ist_strerror((int)n));
		}
		free(buf);
		syn_gen_free(g);
		return n == 0 ? EXIT_OK : EXIT_FAIL;
	}
	rc = out_open(&o, out_path, syn_gen_header(g), effort);
	if (rc < 0) {
		cli_err("%s: %s", out_path, rc > -IST_E_BASE ? strerror(-rc) :
			ist_strerror(rc));
		out_close(&o, 0);
		free(buf);
		syn_gen_free(g);
		return EXIT_FAIL;
	}
	for (;;) {
		ssize_t n = syn_gen_read(g, buf, BATCH);

		if (n < 0) {
			rc = (int)n;
			cli_err("%s: %s", p->name, ist_strerror(rc));
			break;
		}
		if (n == 0) {
			ok = 1;
			break;
		}
		rc = out_write(&o, buf, (size_t)n);
		if (rc < 0) {
			cli_err("%s: %s", out_path, rc > -IST_E_BASE ?
				strerror(-rc) : ist_strerror(rc));
			break;
		}
	}
	rc = out_close(&o, ok);
	if (ok && rc < 0) {
		cli_err("%s: %s", out_path, rc > -IST_E_BASE ? strerror(-rc) :
			ist_strerror(rc));
		ok = 0;
	}
	if (ok)
		printf("%s: %" PRIu64 " records, %s, seed %" PRIu64 "\n", out_path,
		       syn_gen_count(g), p->name, seed);
	free(buf);
	syn_gen_free(g);
	return ok ? EXIT_OK : EXIT_FAIL;
}
