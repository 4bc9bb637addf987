# SPDX-License-Identifier: MIT
# bench/local.mk - included by the top Makefile.am

# hostgap: host noise probe run beside the replay timing benchmarks
check_PROGRAMS += bench/hostgap
bench_hostgap_SOURCES = bench/hostgap.c
bench_hostgap_LDADD = $(PTHREAD_LIBS)
# clock_xcpu: whether a trace clock is coherent across two CPUs
check_PROGRAMS += bench/clock_xcpu
bench_clock_xcpu_SOURCES = bench/clock_xcpu.c
bench_clock_xcpu_LDADD = $(PTHREAD_LIBS)
TESTS += tests/cli/clock_xcpu.sh
EXTRA_DIST += tests/cli/clock_xcpu.sh

# the replay and closed-loop benchmarks (scripts, raw logs) go in the tarball
EXTRA_DIST += bench/replay-lib.sh bench/replay-afap.sh bench/replay-fidelity.sh \
	bench/replay-rss.sh bench/pgbench-validate.sh bench/pgbench-sleeps.py bench/pgbench-handover.py bench/closed-engine.sh \
	bench/replay-results-2026-12-02.txt bench/replay-results-2026-12-03.txt
# the recording cost benchmarks
EXTRA_DIST += bench/record.sh bench/record-kernel.sh bench/record-cpu.sh bench/zram-lib.sh \
	bench/record-pool.sh bench/record-profile.sh
