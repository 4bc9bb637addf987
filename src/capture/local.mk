# SPDX-License-Identifier: MIT
# src/capture/local.mk - live recording (tracefs) and packet capture decoding
libiostorm_core_la_SOURCES += \
	src/capture/rec_match.c \
	src/capture/rec_match.h \
	src/capture/trace_rec.c \
	src/capture/trace_rec.h \
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
