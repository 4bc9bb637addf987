# SPDX-License-Identifier: MIT
# src/import/local.mk - importers, decompression, external sort, exporters
libiostorm_core_la_SOURCES += \
	src/import/import.h \
	src/import/import.c \
	src/import/imp_stream.h \
	src/import/imp_stream.c \
	src/import/imp_text.h \
	src/import/imp_text.c \
	src/import/imp_sort.h \
	src/import/imp_sort.c \
	src/import/imp_blk.h \
	src/import/imp_blk.c \
	src/import/fmt_fio.c \
	src/import/fmt_blkparse.c \
	src/import/fmt_blktrace.c \
	src/import/fmt_snia.c \
	src/import/fmt_misc.c \
	src/import/fmt_csv.c
libiostorm_core_la_SOURCES += \
	src/import/export.h \
	src/import/export.c
iostorm_SOURCES += src/cli/cmd_import.c src/cli/cmd_export.c
