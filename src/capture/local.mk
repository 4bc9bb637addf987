# SPDX-License-Identifier: MIT
# src/capture/local.mk - live recording (tracefs) and packet capture decoding
libiostorm_core_la_SOURCES += \
	src/capture/rec_match.c \
	src/capture/rec_match.h \
	src/capture/rb_page.c \
	src/capture/rb_page.h \
	src/capture/trace_rec.c \
	src/capture/trace_rec.h \
	src/capture/trace_rec_int.h \
	src/capture/rec_spool.c \
	src/capture/sched_rec.c \
	src/capture/sched_rec.h \
	src/capture/framer.c \
	src/capture/framer.h \
	src/capture/tcp_reasm.c \
	src/capture/tcp_reasm.h \
	src/capture/proto.h \
	src/capture/iscsi.c \
	src/capture/nbd.c \
	src/capture/pcap_import.c \
	src/capture/pcap_import.h

iostorm_SOURCES += src/cli/cmd_record.c

TESTS += tests/cli/pcap_import.sh
EXTRA_DIST += tests/cli/pcap_import.sh

# Live recording: a helper issuing a known O_DIRECT sequence.
check_PROGRAMS += tests/cli/dio_seq
tests_cli_dio_seq_SOURCES = tests/cli/dio_seq.c
TESTS += tests/cli/record_live.sh
EXTRA_DIST += tests/cli/record_live.sh
TESTS += tests/cli/record_late.sh
EXTRA_DIST += tests/cli/record_late.sh tests/cli/record_lib.sh
# Not beside record_live.sh: a recorder starting removes the tracefs instance
# of a killed one, which record_live.sh checks is left behind until then.
# (Through a variable: a plain rule for the .log would replace automake's.)
record_after_live = tests/cli/record_late.sh.log
$(record_after_live): tests/cli/record_live.sh.log
TESTS += tests/cli/record_spool.sh
EXTRA_DIST += tests/cli/record_spool.sh
record_spool_after_live = tests/cli/record_spool.sh.log
$(record_spool_after_live): tests/cli/record_live.sh.log
TESTS += tests/cli/record_stop.sh
EXTRA_DIST += tests/cli/record_stop.sh
record_stop_after_live = tests/cli/record_stop.sh.log
$(record_stop_after_live): tests/cli/record_live.sh.log
TESTS += tests/cli/record_sched.sh
EXTRA_DIST += tests/cli/record_sched.sh
record_sched_after_live = tests/cli/record_sched.sh.log
$(record_sched_after_live): tests/cli/record_live.sh.log
TESTS += tests/cli/record_clock.sh
EXTRA_DIST += tests/cli/record_clock.sh
record_clock_after_live = tests/cli/record_clock.sh.log
$(record_clock_after_live): tests/cli/record_live.sh.log

check_PROGRAMS += tests/unit/test_capture
TESTS += tests/unit/test_capture
tests_unit_test_capture_SOURCES = tests/unit/test_capture.c
tests_unit_test_capture_CFLAGS = $(TEST_CFLAGS) -DTOP_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_capture_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_pcap
check_PROGRAMS += tests/fuzz/fuzz_pcap
tests_fuzz_fuzz_pcap_SOURCES = tests/fuzz/fuzz_pcap.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_pcap_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_pcap_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_pcap_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_rb_page
check_PROGRAMS += tests/fuzz/fuzz_rb_page
tests_fuzz_fuzz_rb_page_SOURCES = tests/fuzz/fuzz_rb_page.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_rb_page_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_rb_page_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_rb_page_LDADD = $(TEST_LIBS)

# The recorder's user-space CPU on a fixed input (it includes the
# recorder's sources for their internals): bench/record-replay.sh.
check_PROGRAMS += bench/record_replay
bench_record_replay_SOURCES = bench/record_replay.c
bench_record_replay_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS)
bench_record_replay_LDADD = libiostorm-core.la $(DEP_LIBS)
EXTRA_DIST += bench/record-replay.sh

dist_man_MANS += man/iostorm-record.1
dist_noinst_SCRIPTS += bench/record.sh
TESTS += tests/cli/pcap_live.sh
EXTRA_DIST += tests/cli/pcap_live.sh
