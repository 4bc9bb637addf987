/* SPDX-License-Identifier: MIT */
/* test_synth_ini.c - the INI profile language: good and broken files with
 * their exact error lines, and the mix engine's arrival processes. */
#include "config.h"

#include <dirent.h>
#include <unistd.h>

#include "synth/mix.h"
#include "synth_util.h"

static int parse(const char *text, struct syn_mix_spec *m, unsigned *line,
		 char *err, size_t size)
{
	syn_mix_defaults(m);
	err[0] = '\0';
	return syn_mix_parse(text, strlen(text), m, line, err, size);
}

static void test_good(void)
{
	struct syn_mix_spec m;
	unsigned line;
	char err[160];
	const char *text =
		"# a comment\r\n"
		"[workload]   \r\n"
		"  threads = 12 ; trailing comment\n"
		"rate = 5000\n"
		"arrival = hyperexp\n"
		"cv = 3\n"
		"read = 65%\n"
		"seq = 10\n"
		"read-size = 4k:1,64k:3\n"
		"write-size = 8KiB\n"
		"skew = hotspot:80:20\n"
		"latency = 150us\n"
		"txn-ios = 4\n"
		"\n"
		"[device data]\n"
		"size = 10G\n"
		"weight = 3\n"
		"[device log]\n"
		"size = 1G";

	CU_ASSERT_EQUAL_FATAL(parse(text, &m, &line, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(m.streams, 12);
	CU_ASSERT_DOUBLE_EQUAL(m.rate, 5000, 0);
	CU_ASSERT_EQUAL(m.arrival, SYN_ARR_HYPEREXP);
	CU_ASSERT_DOUBLE_EQUAL(m.cv, 3, 0);
	CU_ASSERT_DOUBLE_EQUAL(m.read, 0.65, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(m.seq, 0.10, 1e-12);
	CU_ASSERT_EQUAL(m.rsize.n, 2);
	CU_ASSERT_EQUAL(m.rsize.size[1], 65536);
	CU_ASSERT_DOUBLE_EQUAL(m.rsize.weight[0], 0.25, 1e-12);
	CU_ASSERT_EQUAL(m.wsize.size[0], 8192);
	CU_ASSERT_EQUAL(m.skew, SYN_SKEW_HOTSPOT);
	CU_ASSERT_DOUBLE_EQUAL(m.hot_io, 0.8, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(m.hot_space, 0.2, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(m.latency_s, 150e-6, 1e-15);
	CU_ASSERT_EQUAL(m.txn_ios, 4);
	CU_ASSERT_EQUAL(m.ndev, 2);
	CU_ASSERT_STRING_EQUAL(m.dev_name[1], "log");
	CU_ASSERT_EQUAL(m.dev_size[0], 10ull << 30);
	CU_ASSERT_DOUBLE_EQUAL(m.dev_weight[0], 3, 0);
}

/* Each broken text, the line the error names and its exact reason. */
static const struct {
	const char *text;
	unsigned line;
	const char *reason;
} broken[] = {
	{ "threads = 4\n", 1, "key 'threads' outside a section" },
	{ "[workload\n", 1, "bad section header" },
	{ "[workload]]\n", 1, "bad section header" },
	{ "[disk x]\n", 1, "unknown section [disk x]" },
	{ "[device]\n", 1, "unknown section [device]" },
	{ "[device a b]\n", 1, "bad device name (1-31 of [A-Za-z0-9_-./])" },
	{ "[workload]\nfoo = 1\n", 2, "unknown key 'foo' in [workload]" },
	{ "[workload]\nthreads = 0\n", 2, "threads must be 1 to 65536" },
	{ "[workload]\nthreads = 2.5\n", 2, "threads must be 1 to 65536" },
	{ "[workload]\n\n\nread = 101\n", 4, "read must be a percentage 0 to 100" },
	{ "[workload]\nsize = 8k:x\n", 2, "bad weight 'x'" },
	{ "[workload]\nsize = 1000\n", 2,
	  "bad size '1000' (512 B to 64 MiB, multiple of 512)" },
	{ "[workload]\nsize = 4k,,8k\n", 2, "bad size list" },
	{ "[workload]\nskew = hotspot:90\n", 2,
	  "skew must be none, hotspot:IO:SPACE or zipf:THETA" },
	{ "[workload]\nskew = hotspot:90:100\n", 2,
	  "hotspot needs IO%:SPACE% percentages" },
	{ "[workload]\nskew = zipf:0\n", 2, "zipf exponent must be 0.01 to 10" },
	{ "[workload]\narrival = sometimes\n", 2,
	  "arrival must be closed, constant, poisson, hyperexp or onoff" },
	{ "[workload]\nlatency = 0\n", 2, "latency must be > 0" },
	{ "[workload]\nthink = 5 parsecs\n", 2, "bad duration '5 parsecs'" },
	{ "[workload]\n = 3\n", 2, "missing key before '='" },
	{ "[workload]\nread =\n", 2, "missing value for 'read'" },
	{ "[workload]\nread 70\n", 2, "expected key = value" },
	{ "[device a]\nsize = 1G\n[device a]\n", 3, "duplicate device 'a'" },
	{ "[device a]\nsize = 100\n", 2, "device size must be 1M or more" },
	{ "[device a]\ncolour = red\n", 2, "unknown key 'colour' in [device]" },
	{ "[workload]\nread = 70\n", 2, "no [device NAME] section" },
	{ "[device d]\n", 1, "device 'd' has no size" },
	{ "[device d]\nsize = 1G\nweight = 0\n", 3, "every device has weight 0" },
	{ "[workload]\narrival = poisson\n[device d]\nsize = 1G\n", 4,
	  "arrival poisson needs a rate > 0" },
	{ "[workload]\nsize = 64M\n[device d]\nsize = 100M\n", 4,
	  "device 'd' is too small for its I/O sizes" },
	{ "", 1, "no [device NAME] section" },
};

static void test_broken(void)
{
	struct syn_mix_spec m;
	char err[160];

	for (unsigned i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		unsigned line = 0;
		int rc = parse(broken[i].text, &m, &line, err, sizeof(err));

		if (rc != IST_EPARSE || line != broken[i].line ||
		    strcmp(err, broken[i].reason))
			fprintf(stderr, "\n  case %u: rc %d line %u '%s'\n", i, rc,
				line, err);
		CU_ASSERT_EQUAL(rc, IST_EPARSE);
		CU_ASSERT_EQUAL(line, broken[i].line);
		CU_ASSERT_STRING_EQUAL(err, broken[i].reason);
	}
}

static void test_binary_garbage(void)
{
	struct syn_mix_spec m;
	unsigned line;
	char err[160], big[1100];
	static const char nul[] = "[workload]\nread = 7\0\n";

	syn_mix_defaults(&m);
	CU_ASSERT_EQUAL(syn_mix_parse(nul, sizeof(nul) - 1, &m, &line, err,
				      sizeof(err)), IST_EPARSE);
	CU_ASSERT_EQUAL(line, 2);
	CU_ASSERT_STRING_EQUAL(err, "NUL byte in text");
	memset(big, 'x', sizeof(big));
	CU_ASSERT_EQUAL(syn_mix_parse(big, sizeof(big), &m, &line, err,
				      sizeof(err)), IST_EPARSE);
	CU_ASSERT_EQUAL(line, 1);
	CU_ASSERT_STRING_EQUAL(err, "line longer than 1024 bytes");
}

/* Every profile in traces/profiles/ parses and generates. */
static void test_bundled_profiles(void)
{
	const char *top = getenv("top_srcdir");
	char dir[4096], path[8192];
	struct dirent *e;
	unsigned n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/traces/profiles", top ? top : ".");
	d = opendir(dir);
	CU_ASSERT_FATAL(d != NULL);
	while ((e = readdir(d))) {
		struct syn_gen *g;
		struct ist_record buf[256];
		size_t len = strlen(e->d_name);

		if (len < 5 || strcmp(e->d_name + len - 4, ".ini"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		CU_ASSERT_FATAL(syn_gen_new(&g, syn_profile_find("mix")) == 0);
		CU_ASSERT_EQUAL(syn_gen_set(g, "file", path), 0);
		syn_gen_set_duration(g, 100000000ull);
		if (syn_gen_start(g)) {
			unsigned line;

			fprintf(stderr, "%s: %s\n", path, syn_gen_error(g, &line));
			CU_FAIL("bundled profile fails");
		} else {
			CU_ASSERT(syn_gen_read(g, buf, 256) > 0);
		}
		syn_gen_free(g);
		n++;
	}
	closedir(d);
	CU_ASSERT(n >= 5);
}

/* Writes text to a temporary profile and runs it. */
static struct rpt_stats *run_text(const char *text, double dur, struct scan *sc,
				  uint64_t interval_ns)
{
	char path[] = "/tmp/iostorm-ini-XXXXXX";
	int fd = mkstemp(path);
	char set[64];
	const char *sets[] = { set, NULL };
	struct rpt_stats *st;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	snprintf(set, sizeof(set), "file=%s", path);
	st = run_profile("mix", dur, 1, sets, sc, interval_ns);
	unlink(path);
	return st;
}

static void test_arrivals(void)
{
	struct scan sc = { 0 };
	struct rpt_stats *st;
	const struct rpt_summary *s;

	/* one stream: the inter-arrival CV is the process's */
	st = run_text("[workload]\nrate = 10000\narrival = constant\n"
		      "[device d]\nsize = 1G\n", 2, &sc, 0);
	s = rpt_stats_summary(st);
	NEAR(s->ia_cv, 0, 0.01, "constant CV");
	NEAR_REL(s->iops, 10000, 0.01, "constant IOPS");
	rpt_stats_free(st);
	st = run_text("[workload]\nrate = 10000\narrival = poisson\n"
		      "[device d]\nsize = 1G\n", 5, &sc, 0);
	s = rpt_stats_summary(st);
	NEAR(s->ia_cv, 1, 0.05, "Poisson CV");
	NEAR_REL(s->iops, 10000, 0.03, "Poisson IOPS");
	rpt_stats_free(st);
	st = run_text("[workload]\nrate = 10000\narrival = hyperexp\ncv = 4\n"
		      "[device d]\nsize = 1G\n", 20, &sc, 0);
	s = rpt_stats_summary(st);
	NEAR(s->ia_cv, 4, 0.4, "hyperexponential CV");
	NEAR_REL(s->iops, 10000, 0.05, "hyperexponential IOPS");
	CU_ASSERT(s->burstiness > 0.5);
	rpt_stats_free(st);
	/* on/off: 2 s on at 5x the average, 8 s off */
	st = run_text("[workload]\nrate = 1000\narrival = onoff\non = 2s\noff = 8s\n"
		      "[device d]\nsize = 1G\n", 20, &sc, 1000000000ull);
	s = rpt_stats_summary(st);
	NEAR_REL(rpt_stats_interval(st, 0)->iops, 5000, 0.1, "on IOPS");
	NEAR(rpt_stats_interval(st, 5)->iops, 0, 0, "off IOPS");
	NEAR_REL(rpt_stats_interval(st, 11)->iops, 5000, 0.1, "on again IOPS");
	rpt_stats_free(st);
}

static void test_mix_shapes(void)
{
	struct scan sc = { 0 };
	struct rpt_stats *st;
	const struct rpt_summary *s;

	/* transactions of 4 I/Os, closed loop, FUA writes */
	st = run_text("[workload]\nthreads = 4\nread = 50\ntxn-ios = 4\nfua = 100\n"
		      "[device d]\nsize = 1G\n", 0.5, &sc, 0);
	s = rpt_stats_summary(st);
	NEAR(s->ios_per_txn, 4, 0.01, "I/Os per transaction");
	CU_ASSERT_EQUAL(s->fua, s->count[IST_OP_WRITE]);
	CU_ASSERT_EQUAL(s->dependent, s->records - 4);
	rpt_stats_free(st);
	/* zipf: heavy head; sequential share; device weights */
	st = run_text("[workload]\nrate = 20000\nskew = zipf:1.2\nseq = 30\n"
		      "[device a]\nsize = 10G\nweight = 3\n[device b]\nsize = 10G\n",
		      2, &sc, 0);
	s = rpt_stats_summary(st);
	CU_ASSERT(s->skew.top1 > 0.5);
	NEAR(s->stream_seq_share, 0.3, 0.02, "sequential share");
	NEAR((double)rpt_stats_device(st, 0)->count[0] / s->count[0], 0.75, 0.05,
	     "device weight share");
	rpt_stats_free(st);
}

/* Records a profile's text generates in dur_s; -1 if one is out of time
 * order or not inside the duration. */
static long count_text(const char *text, double dur_s)
{
	char path[] = "/tmp/iostorm-ini-XXXXXX";
	int fd = mkstemp(path);
	struct ist_record buf[256];
	struct syn_gen *g;
	uint64_t prev = 0;
	long count = 0;
	int bad = 0;
	ssize_t n;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	CU_ASSERT_FATAL(syn_gen_new(&g, syn_profile_find("mix")) == 0);
	CU_ASSERT_FATAL(syn_gen_set(g, "file", path) == 0);
	syn_gen_set_duration(g, (uint64_t)(dur_s * 1e9));
	CU_ASSERT_FATAL(syn_gen_start(g) == 0);
	while ((n = syn_gen_read(g, buf, 256)) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i].t_ns < prev || buf[i].t_ns >= dur_s * 1e9)
				bad = 1;
			prev = buf[i].t_ns;
		}
		count += n;
	}
	CU_ASSERT_EQUAL(n, 0);
	syn_gen_free(g);
	unlink(path);
	return bad ? -1 : count;
}

/*
 * Rates so low that a stream's gap does not fit in 64-bit nanoseconds
 * (1e-9 IOPS over 32 streams: 3.2e19 ns): the streams end, no record,
 * where the conversion was undefined (UBSan, found by fuzz_profile).
 */
static void test_tiny_rates(void)
{
	long n;

	CU_ASSERT_EQUAL(count_text("[workload]\nthreads = 32\nrate = 1e-9\n"
		"arrival = poisson\n[device d]\nsize = 1G\n", 1), 0);
	CU_ASSERT_EQUAL(count_text("[workload]\nthreads = 32\nrate = 1e-9\n"
		"arrival = constant\n[device d]\nsize = 1G\n", 1), 0);
	CU_ASSERT_EQUAL(count_text("[workload]\nthreads = 65536\nrate = 1e-9\n"
		"arrival = hyperexp\ncv = 100\n[device d]\nsize = 1G\n", 1), 0);
	CU_ASSERT_EQUAL(count_text("[workload]\nthreads = 32\nrate = 1e-9\n"
		"arrival = onoff\non = 1ns\noff = 2ns\nskew = zipf:10\n"
		"[device d]\nsize = 1M\n", 1), 0);
	/* one I/O a second, cv 100: its long phase is 10^4 times the mean;
	 * a few records in 10 s, in time order, inside the duration */
	n = count_text("[workload]\nrate = 1\narrival = hyperexp\ncv = 100\n"
		       "[device d]\nsize = 1G\n", 10);
	CU_ASSERT(n >= 0 && n < 100);
	/* a sane rate still gives its records */
	n = count_text("[workload]\nrate = 1000\narrival = poisson\n"
		       "[device d]\nsize = 1G\n", 1);
	CU_ASSERT(n > 900 && n < 1100);
}

static const struct cutest tests[] = {
	{ "good profile", test_good },
	{ "broken profiles: exact line and reason", test_broken },
	{ "NUL bytes and long lines", test_binary_garbage },
	{ "bundled profiles", test_bundled_profiles },
	{ "arrival processes", test_arrivals },
	{ "mix shapes", test_mix_shapes },
	{ "rates too low for 64-bit gaps", test_tiny_rates },
	{ NULL, NULL },
};

int main(void)
{
	return cutest_main("synth_ini", tests);
}
