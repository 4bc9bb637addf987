# SPDX-License-Identifier: MIT
# src/format/local.mk - the IST trace format (writer, reader, codecs) and canonical CSV
libiostorm_core_la_SOURCES += \
	src/format/fmt.h \
	src/format/codec.c \
	src/format/ans.c \
	src/format/arith.c \
	src/format/vans.c \
	src/format/totals.c \
	src/format/meta.c \
	src/format/writer.c \
	src/format/reader.c \
	src/format/csv.c

iostorm_SOURCES += \
	src/cli/cmd_convert.c \
	src/cli/cmd_info.c \
	src/cli/cmd_cat.c \
	src/cli/cmd_verify.c

# bench/format.sh and its speed probe (built by make check)
EXTRA_DIST += bench/format.sh
check_PROGRAMS += bench/ist_speed
bench_ist_speed_SOURCES = bench/ist_speed.c
bench_ist_speed_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS)
bench_ist_speed_LDADD = libiostorm-core.la $(DEP_LIBS)

check_PROGRAMS += tests/unit/test_format
TESTS += tests/unit/test_format
tests_unit_test_format_SOURCES = tests/unit/test_format.c
tests_unit_test_format_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_format_LDADD = $(TEST_LIBS)
EXTRA_DIST += tests/unit/ans_lanes.h
# ans.c's lanes with their selects in plain C (FMT_ANS_PORTABLE), as on
# machines without the inline cmov: the same cases as test_format's
check_PROGRAMS += tests/unit/test_ans_portable
TESTS += tests/unit/test_ans_portable
tests_unit_test_ans_portable_SOURCES = tests/unit/test_ans_portable.c
tests_unit_test_ans_portable_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_ans_portable_LDADD = $(CUNIT_LIBS) -lm

TESTS += tests/cli/convert.sh tests/cli/info.sh tests/cli/cat.sh tests/cli/verify.sh \
	tests/cli/trace_errors.sh
EXTRA_DIST += tests/cli/convert.sh tests/cli/info.sh tests/cli/cat.sh tests/cli/verify.sh \
	tests/cli/trace_errors.sh
TESTS += tests/cli/ist_golden.sh
EXTRA_DIST += tests/cli/ist_golden.sh
TESTS += tests/cli/fast.sh
EXTRA_DIST += tests/cli/fast.sh

FUZZ_TARGETS += tests/fuzz/fuzz_ist_reader
check_PROGRAMS += tests/fuzz/fuzz_ist_reader
tests_fuzz_fuzz_ist_reader_SOURCES = tests/fuzz/fuzz_ist_reader.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_ist_reader_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_ist_reader_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_ist_reader_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_csv
check_PROGRAMS += tests/fuzz/fuzz_csv
tests_fuzz_fuzz_csv_SOURCES = tests/fuzz/fuzz_csv.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_csv_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_csv_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_csv_LDADD = $(TEST_LIBS)

dist_man_MANS += man/iostorm-trace.5 man/iostorm-convert.1 man/iostorm-info.1 \
	man/iostorm-cat.1 man/iostorm-verify.1

check_PROGRAMS += tests/unit/test_format_csv
TESTS += tests/unit/test_format_csv
tests_unit_test_format_csv_SOURCES = tests/unit/test_format_csv.c
tests_unit_test_format_csv_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_format_csv_LDADD = $(TEST_LIBS)
