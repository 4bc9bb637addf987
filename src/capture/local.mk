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
