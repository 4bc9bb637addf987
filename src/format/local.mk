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
