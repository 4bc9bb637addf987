# SPDX-License-Identifier: MIT
# replay/local.mk - the replay engine (library), its command, tests, man pages
libiostorm_core_la_SOURCES += \
	replay/replay.h \
	replay/internal.h \
	replay/hist.c \
	replay/source.c \
	replay/source_ist.c \
	replay/engine.c \
	replay/results.c \
	replay/target.c \
	replay/data.c \
	replay/closed.c \
	replay/backend_uring.c \
	replay/backend_null.c \
	replay/latlog.c \
	replay/report.c


iostorm_SOURCES += src/cli/cmd_replay.c

check_PROGRAMS += tests/unit/test_replay
TESTS += tests/unit/test_replay
tests_unit_test_replay_SOURCES = tests/unit/test_replay.c
tests_unit_test_replay_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_replay_LDADD = $(TEST_LIBS)
# whether io_uring can be set up here (the tests on files skip without)
check_PROGRAMS += tests/cli/uring_probe
tests_cli_uring_probe_SOURCES = tests/cli/uring_probe.c

dist_man_MANS += man/iostorm-replay.1 man/iostorm-timing.7

TESTS += tests/cli/replay-file.sh tests/cli/replay-safety.sh tests/cli/replay-interrupt.sh \
	tests/cli/replay-closed.sh tests/cli/replay-latlog.sh tests/cli/replay-loop-pin.sh \
	tests/cli/replay-flush-sync.sh
EXTRA_DIST += tests/cli/replay-file.sh tests/cli/replay-safety.sh tests/cli/replay-interrupt.sh \
	tests/cli/replay-closed.sh tests/cli/replay-latlog.sh tests/cli/replay-loop-pin.sh \
	tests/cli/replay-flush-sync.sh
# options a mode would ignore; convert's CSV
TESTS += tests/cli/replay-options.sh tests/cli/replay-csv.sh tests/cli/result_tmp.sh
EXTRA_DIST += tests/cli/replay-options.sh tests/cli/replay-csv.sh tests/cli/result_tmp.sh
# afap: nothing issued before the epoch
TESTS += tests/cli/replay-afap-epoch.sh
EXTRA_DIST += tests/cli/replay-afap-epoch.sh
EXTRA_DIST += bench/replay-lib.sh bench/replay-afap.sh bench/replay-fidelity.sh bench/replay-rss.sh

FUZZ_TARGETS += tests/fuzz/fuzz_sched
check_PROGRAMS += tests/fuzz/fuzz_sched
tests_fuzz_fuzz_sched_SOURCES = tests/fuzz/fuzz_sched.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_sched_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_sched_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_sched_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_latlog
check_PROGRAMS += tests/fuzz/fuzz_latlog
tests_fuzz_fuzz_latlog_SOURCES = tests/fuzz/fuzz_latlog.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_latlog_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_latlog_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_latlog_LDADD = $(TEST_LIBS)
