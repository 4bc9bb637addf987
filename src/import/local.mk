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

IMPORT_CLI_TESTS = \
	tests/cli/import_fixtures.sh \
	tests/cli/import_real_msr.sh \
	tests/cli/import_real_systor.sh \
	tests/cli/import_real_tencent.sh \
	tests/cli/import_real_mqsim.sh \
	tests/cli/import_real_blkparse.sh \
	tests/cli/import_real_blktrace.sh \
	tests/cli/import_real_vscsi.sh \
	tests/cli/import_real_fio.sh \
	tests/cli/import_compressed.sh \
	tests/cli/export_roundtrip.sh
TESTS += $(IMPORT_CLI_TESTS)
EXTRA_DIST += $(IMPORT_CLI_TESTS)
