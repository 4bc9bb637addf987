# SPDX-License-Identifier: MIT
# src/synth/local.mk - workload emulators (iostorm synth)
libiostorm_core_la_SOURCES += \
	src/synth/synth.h \
	src/synth/engine.h \
	src/synth/rng.h \
	src/synth/rng.c \
	src/synth/gen.c \
	src/synth/mix.h \
	src/synth/ini.c \
	src/synth/prof_mix.c \
	src/synth/prof_tpcc.c \
	src/synth/prof_sysbench.c \
	src/synth/prof_marklogic.c \
	src/synth/prof_vdi.c
iostorm_SOURCES += src/cli/cmd_synth.c src/cli/cmd_stats.c

check_PROGRAMS += tests/unit/test_synth
TESTS += tests/unit/test_synth
tests_unit_test_synth_SOURCES = tests/unit/test_synth.c tests/unit/synth_util.h
tests_unit_test_synth_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_synth_LDADD = $(TEST_LIBS)

check_PROGRAMS += tests/unit/test_stats
TESTS += tests/unit/test_stats
tests_unit_test_stats_SOURCES = tests/unit/test_stats.c
tests_unit_test_stats_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_stats_LDADD = $(TEST_LIBS)

check_PROGRAMS += tests/unit/test_synth_ini
TESTS += tests/unit/test_synth_ini
tests_unit_test_synth_ini_SOURCES = tests/unit/test_synth_ini.c tests/unit/synth_util.h
tests_unit_test_synth_ini_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_synth_ini_LDADD = $(TEST_LIBS)

TESTS += tests/cli/synth.sh tests/cli/stats.sh
EXTRA_DIST += tests/cli/synth.sh tests/cli/stats.sh
TESTS += tests/cli/synth_vdi_closed.sh
EXTRA_DIST += tests/cli/synth_vdi_closed.sh

# The INI parser's fuzz target is in traces/local.mk: FUZZ_TARGETS is
# first set in tests/local.mk, which is included after src/*/local.mk.

dist_man_MANS += man/iostorm-synth.1 man/iostorm-stats.1 man/iostorm-workloads.7
EXTRA_DIST += traces/gen-workloads-man.sh
EXTRA_DIST += bench/synth.sh
