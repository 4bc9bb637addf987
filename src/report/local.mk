# SPDX-License-Identifier: MIT
# src/report/local.mk - workload statistics, charts, reports and
# comparisons of run results
libiostorm_core_la_SOURCES += \
	src/report/stats.h \
	src/report/stats.c \
	src/report/svg.c \
	src/report/svg.h \
	src/report/run.c \
	src/report/run.h \
	src/report/jscan.c \
	src/report/jscan.h \
	src/report/html.c \
	src/report/report.h \
	src/report/noise.c \
	src/report/noise.h \
	src/report/compare.c \
	src/report/compare.h \
	src/report/steady.c \
	src/report/steady.h \
	src/report/measure.c \
	src/report/measure.h \
	src/report/sweep.c \
	src/report/sweep.h \
	src/report/synthsrc.c \
	src/report/synthsrc.h

iostorm_SOURCES += \
	src/cli/rpt_out.c \
	src/cli/rpt_out.h \
	src/cli/cmd_report.c \
	src/cli/cmd_compare.c \
	src/cli/cmd_sweep.c \
	src/cli/cmd_precondition.c

check_PROGRAMS += tests/unit/test_report
TESTS += tests/unit/test_report
tests_unit_test_report_SOURCES = tests/unit/test_report.c
tests_unit_test_report_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_report_LDADD = $(TEST_LIBS)

TESTS += tests/cli/report.sh tests/cli/compare.sh
EXTRA_DIST += tests/cli/report.sh tests/cli/compare.sh
TESTS += tests/cli/sweep.sh tests/cli/precondition.sh
EXTRA_DIST += tests/cli/sweep.sh tests/cli/precondition.sh
TESTS += tests/cli/sweep-zram.sh
EXTRA_DIST += tests/cli/sweep-zram.sh

FUZZ_TARGETS += tests/fuzz/fuzz_runjson
check_PROGRAMS += tests/fuzz/fuzz_runjson
tests_fuzz_fuzz_runjson_SOURCES = tests/fuzz/fuzz_runjson.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_runjson_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_runjson_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_runjson_LDADD = $(TEST_LIBS)

dist_man_MANS += man/iostorm-report.1 man/iostorm-compare.1 man/iostorm-sweep.1 \
	man/iostorm-precondition.1

TESTS += tests/cli/report-screenshot.sh
EXTRA_DIST += tests/cli/report-screenshot.sh tests/cli/pngstat.py

dist_noinst_SCRIPTS += bench/report-screenshot.sh
EXTRA_DIST += bench/README.md
