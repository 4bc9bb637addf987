# SPDX-License-Identifier: MIT
# tests/local.mk - test infrastructure shared by every module.
#
# Unit tests: each module adds tests/unit/test_<module> to check_PROGRAMS
# and TESTS, with CFLAGS $(TEST_CFLAGS) and LDADD $(TEST_LIBS).
# CLI tests: tests/cli/*.sh added to TESTS; they source tests/cli/lib.sh.
# Fuzz targets: tests/fuzz/fuzz_<name>.c with a seed and broken-file corpus
# in tests/fuzz/corpus/<name>/.  Normally linked with driver.c, which
# replays the corpus as a regression test; with --enable-fuzzing (clang)
# linked with libFuzzer for real fuzzing runs (see .ci/run).
if ENABLE_FUZZING
FUZZ_DRIVER =
FUZZ_CFLAGS = -fsanitize=fuzzer
else
FUZZ_DRIVER = tests/fuzz/driver.c
FUZZ_CFLAGS =
endif

EXTRA_DIST += tests/unit/cutest.h tests/cli/lib.sh tests/cli/html5check.py tests/fuzz/driver.c tests/fuzz/memfile.h \
	tests/fuzz/run-corpora.sh tests/fuzz/corpus tests/data
TESTS += tests/fuzz/run-corpora.sh
# every command's --help, option table and man page agree
TESTS += tests/cli/help_man.sh
EXTRA_DIST += tests/cli/help_man.sh
# and the rest of their docs: iostorm(1)'s and README's command lists,
# README's usage options, short options in the man pages, exit statuses
TESTS += tests/cli/docs_agree.sh
EXTRA_DIST += tests/cli/docs_agree.sh
