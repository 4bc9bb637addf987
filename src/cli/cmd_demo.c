/* SPDX-License-Identifier: MIT */
/* cmd_demo.c - `iostorm demo`: the main job on a built-in default: a
 * synthesized OLTP workload replayed against a temporary file. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "synth/synth.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iostorm demo [options]\n"
		"\n"
		"Synthesize a short Sysbench OLTP workload on InnoDB (iostorm synth\n"
		"sysbench-oltp) and replay it with its original timing against a\n"
		"temporary file (iostorm replay), printing the report.  The trace and\n"
		"the target are removed afterwards unless --keep is given.\n"
		"\n"
		"Options:\n"
		"      --profile P     synth profile (default sysbench-oltp)\n"
		"      --duration T    trace length (default 5s)\n"
		"      --set K=V       profile parameter, repeatable; each changes only\n"
		"                      its key: the others keep their defaults, the\n"
		"                      demo's threads=8 for sysbench-oltp and the\n"
		"                      profile's own (iostorm synth P --describe)\n"
		"      --timing MODE   original (default), afap or closed\n"
		"      --dir DIR       where to put the trace and the target (default $TMPDIR\n"
		"                      or /tmp)\n"
		"      --json FILE     also write the replay's JSON result\n"
		"      --keep          keep the trace and the target file\n"
		"  -h, --help          this help\n"
		"\n"
		"Exit status: that of the synth or replay step that ended it: 0 success,\n"
		"1 bad input or failure, 2 usage error.\n");
}

/* Runs a command function with a NULL-terminated argument list. */
static int run(int (*fn)(int, char **), char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	optind = 1;
	return fn(argc, argv);
}

int cmd_demo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "set", required_argument, NULL, 's' },
		{ "timing", required_argument, NULL, 't' },
		{ "dir", required_argument, NULL, 'D' },
		{ "json", required_argument, NULL, 'j' },
		{ "keep", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *profile = "sysbench-oltp", *duration = "5s", *timing = "original";
	const char *dir = getenv("TMPDIR"), *json = NULL;
	char *sets[16];
	unsigned nsets = 0;
	char work[4096], trace[4200], target[4200];
	char *sargv[48], *rargv[16];
	const char *base;
	size_t blen;
	int c, ret, keep = 0, n;
	uint64_t ns;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			profile = optarg;
			break;
		case 'd':
			if (cli_parse_duration_ns(optarg, &ns) || !ns)
				return cli_usage_error("demo", "bad --duration '%s'", optarg);
			duration = optarg;
			break;
		case 's':
			if (nsets == 16)
				return cli_usage_error("demo", "at most 16 --set");
			sets[nsets++] = optarg;
			break;
		case 't':
			if (strcmp(optarg, "original") && strcmp(optarg, "afap") &&
			    strcmp(optarg, "closed"))
				return cli_usage_error("demo", "--timing takes original, afap or closed");
			timing = optarg;
			break;
		case 'D':
			/* an unset variable, not "the default" ($TMPDIR's
			 * empty value is) */
			if (!*optarg)
				return cli_usage_error("demo", "--dir: empty");
			dir = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		case 'k':
			keep = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("demo", argc, argv);
		}
	}
	if (optind != argc)
		return cli_usage_error("demo", "no arguments expected");
	/* a profile synth does not know is the demo's usage error, found
	 * before its directory is made and its first step announced (it
	 * came from synth, pointing to 'iostorm synth --help') */
	if (!strchr(profile, '/') && !(strlen(profile) > 4 &&
	    !strcmp(profile + strlen(profile) - 4, ".ini")) && !syn_profile_find(profile))
		return cli_usage_error("demo", "unknown profile '%s' (see iostorm synth --list)",
				       profile);
	/* the result is written after the synth and the replay: refused
	 * now if it cannot be */
	if (cli_check_result(json, NULL, 0))
		return EXIT_FAIL;
	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(work, sizeof(work), "%s/iostorm-demo.XXXXXX", dir);
	if (!mkdtemp(work)) {
		cli_err("%s: cannot create a directory: %s", dir, strerror(errno));
		return EXIT_FAIL;
	}
	/* the trace is named after the profile; an INI profile's path gives
	 * its file name (the whole path made a name in directories that do
	 * not exist, and synth failed) */
	base = strrchr(profile, '/');
	base = base ? base + 1 : profile;
	blen = strlen(base);
	if (blen > 4 && !strcmp(base + blen - 4, ".ini"))
		blen -= 4;
	snprintf(trace, sizeof(trace), "%s/%.*s.ist", work, (int)(blen < 200 ? blen : 200), base);
	snprintf(target, sizeof(target), "%s/target.img", work);

	n = 0;
	sargv[n++] = (char *)"synth";
	sargv[n++] = (char *)profile;
	sargv[n++] = (char *)"--duration";
	sargv[n++] = (char *)duration;
	sargv[n++] = (char *)"--seed";
	sargv[n++] = (char *)"1";
	/* the demo's own default, threads=8, unless a --set names threads:
	 * any --set dropped it (--set tables=4 ran 32 threads, synth's) */
	if (!strcmp(profile, "sysbench-oltp")) {
		unsigned i;

		for (i = 0; i < nsets && strncmp(sets[i], "threads=", 8); i++)
			;
		if (i == nsets) {
			sargv[n++] = (char *)"--set";
			sargv[n++] = (char *)"threads=8";
		}
	}
	for (unsigned i = 0; i < nsets; i++) {
		sargv[n++] = (char *)"--set";
		sargv[n++] = sets[i];
	}
	sargv[n++] = (char *)"-o";
	sargv[n++] = trace;
	sargv[n] = NULL;
	printf("== iostorm synth %s (seed 1, %s) -> %s\n", profile, duration, trace);
	cli_flush_stdout();
	ret = run(cmd_synth, sargv);
	if (ret == EXIT_OK) {
		n = 0;
		rargv[n++] = (char *)"replay";
		rargv[n++] = trace;
		rargv[n++] = (char *)"--target";
		rargv[n++] = target;
		rargv[n++] = (char *)"--create";
		rargv[n++] = (char *)"--timing";
		rargv[n++] = (char *)timing;
		if (json) {
			rargv[n++] = (char *)"--json";
			rargv[n++] = (char *)json;
		}
		rargv[n] = NULL;
		printf("\n== iostorm replay %s --target %s --create --timing %s\n\n",
		       trace, target, timing);
		cli_flush_stdout();
		ret = run(cmd_replay, rargv);
	}
	if (keep) {
		printf("\nkept %s and %s\n", trace, target);
	} else {
		unlink(trace);
		unlink(target);
		rmdir(work);
	}
	return ret;
}
