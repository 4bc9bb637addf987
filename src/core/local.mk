# SPDX-License-Identifier: MIT
# src/core/local.mk - errors, the record, the header
libiostorm_core_la_SOURCES += \
	src/core/error.c \
	src/core/record.c \
	src/core/header.c \
	src/core/numfmt.h \
	src/core/rwbs.h \
	src/core/bigmem.h \
	src/core/satmath.h \
	src/core/textenc.c \
	src/core/textenc.h \
	src/core/tmpout.c \
	src/core/tmpout.h

check_PROGRAMS += tests/unit/test_core
TESTS += tests/unit/test_core
tests_unit_test_core_SOURCES = tests/unit/test_core.c
tests_unit_test_core_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_core_LDADD = $(TEST_LIBS)
libiostorm_core_la_SOURCES += \
	src/core/u64map.c \
	src/core/u64map.h \
	src/core/annotate.c \
	src/core/annotate.h

check_PROGRAMS += tests/unit/test_annotate
TESTS += tests/unit/test_annotate
tests_unit_test_annotate_SOURCES = tests/unit/test_annotate.c
tests_unit_test_annotate_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_annotate_LDADD = $(TEST_LIBS)
iostorm_SOURCES += src/cli/cmd_annotate.c
TESTS += tests/cli/annotate.sh
EXTRA_DIST += tests/cli/annotate.sh
# every JSON and XML writer: names that are not UTF-8
TESTS += tests/cli/json_utf8.sh
EXTRA_DIST += tests/cli/json_utf8.sh
