# SPDX-License-Identifier: MIT
# src/format/local.mk - the IST trace format (writer, reader, codecs) and canonical CSV
libiostorm_core_la_SOURCES += \
	src/format/fmt.h \
	src/format/codec.c \
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

# bench/format.sh's speed probe (built by make check)
check_PROGRAMS += bench/ist_speed
bench_ist_speed_SOURCES = bench/ist_speed.c
bench_ist_speed_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS)
bench_ist_speed_LDADD = libiostorm-core.la $(DEP_LIBS)

check_PROGRAMS += tests/unit/test_format
TESTS += tests/unit/test_format
tests_unit_test_format_SOURCES = tests/unit/test_format.c
tests_unit_test_format_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_format_LDADD = $(TEST_LIBS)

TESTS += tests/cli/convert.sh tests/cli/info.sh tests/cli/cat.sh tests/cli/verify.sh
EXTRA_DIST += tests/cli/convert.sh tests/cli/info.sh tests/cli/cat.sh tests/cli/verify.sh
