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

dist_noinst_DATA += \
	traces/sysbench-oltp.ist \
	traces/tpcc.ist \
	traces/vdi-login.ist \
	traces/oracle-90-10.ist \
	traces/marklogic.ist \
	traces/bursty-web.ist \
	traces/profiles/oltp-70-30.ini \
	traces/profiles/rdbms-hotspot.ini \
	traces/profiles/bursty-web.ini \
	traces/profiles/backup-onoff.ini \
	traces/profiles/txn-commit.ini
dist_noinst_SCRIPTS += traces/regen.sh
TESTS += tests/cli/synth_samples.sh
EXTRA_DIST += tests/cli/synth_samples.sh
