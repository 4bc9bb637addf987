# SPDX-License-Identifier: MIT
# traces/local.mk - included by the top Makefile.am

# Fuzz target of the INI profile parser (src/synth/ini.c); listed here
# because FUZZ_TARGETS is first set in tests/local.mk, included before this.
FUZZ_TARGETS += tests/fuzz/fuzz_profile
check_PROGRAMS += tests/fuzz/fuzz_profile
tests_fuzz_fuzz_profile_SOURCES = tests/fuzz/fuzz_profile.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_profile_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_profile_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_profile_LDADD = $(TEST_LIBS)
