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
	src/import/fmt_csv.c \
	src/import/fmt_pcap.c
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
	tests/cli/import_empty.sh \
	tests/cli/import_zero_len.sh \
	tests/cli/import_vscsi_batch.sh \
	tests/cli/export_roundtrip.sh \
	tests/cli/import_ist_csv.sh \
	tests/cli/import_pcap.sh \
	tests/cli/output_safety.sh \
	tests/cli/import_interrupt.sh \
	tests/cli/no_footer.sh \
	tests/cli/usage_errors.sh
TESTS += $(IMPORT_CLI_TESTS)
EXTRA_DIST += $(IMPORT_CLI_TESTS)

check_PROGRAMS += tests/unit/test_import
TESTS += tests/unit/test_import
tests_unit_test_import_SOURCES = tests/unit/test_import.c
tests_unit_test_import_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_import_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_import_fio
check_PROGRAMS += tests/fuzz/fuzz_import_fio
tests_fuzz_fuzz_import_fio_SOURCES = tests/fuzz/fuzz_import_fio.c tests/fuzz/import_fuzz.h $(FUZZ_DRIVER)
tests_fuzz_fuzz_import_fio_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_fio_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_fio_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_import_blkparse
check_PROGRAMS += tests/fuzz/fuzz_import_blkparse
tests_fuzz_fuzz_import_blkparse_SOURCES = tests/fuzz/fuzz_import_blkparse.c tests/fuzz/import_fuzz.h $(FUZZ_DRIVER)
tests_fuzz_fuzz_import_blkparse_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_blkparse_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_blkparse_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_import_blktrace
check_PROGRAMS += tests/fuzz/fuzz_import_blktrace
tests_fuzz_fuzz_import_blktrace_SOURCES = tests/fuzz/fuzz_import_blktrace.c tests/fuzz/import_fuzz.h $(FUZZ_DRIVER)
tests_fuzz_fuzz_import_blktrace_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_blktrace_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_blktrace_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_import_msr
check_PROGRAMS += tests/fuzz/fuzz_import_msr
tests_fuzz_fuzz_import_msr_SOURCES = tests/fuzz/fuzz_import_msr.c tests/fuzz/import_fuzz.h $(FUZZ_DRIVER)
tests_fuzz_fuzz_import_msr_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_msr_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_msr_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_import_systor
check_PROGRAMS += tests/fuzz/fuzz_import_systor
tests_fuzz_fuzz_import_systor_SOURCES = tests/fuzz/fuzz_import_systor.c tests/fuzz/import_fuzz.h $(FUZZ_DRIVER)
tests_fuzz_fuzz_import_systor_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_systor_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_systor_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_import_spc
check_PROGRAMS += tests/fuzz/fuzz_import_spc
tests_fuzz_fuzz_import_spc_SOURCES = tests/fuzz/fuzz_import_spc.c tests/fuzz/import_fuzz.h $(FUZZ_DRIVER)
tests_fuzz_fuzz_import_spc_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_spc_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_spc_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_import_alibaba
check_PROGRAMS += tests/fuzz/fuzz_import_alibaba
tests_fuzz_fuzz_import_alibaba_SOURCES = tests/fuzz/fuzz_import_alibaba.c tests/fuzz/import_fuzz.h $(FUZZ_DRIVER)
tests_fuzz_fuzz_import_alibaba_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_alibaba_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_alibaba_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_import_tencent
check_PROGRAMS += tests/fuzz/fuzz_import_tencent
tests_fuzz_fuzz_import_tencent_SOURCES = tests/fuzz/fuzz_import_tencent.c tests/fuzz/import_fuzz.h $(FUZZ_DRIVER)
tests_fuzz_fuzz_import_tencent_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_tencent_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_tencent_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_import_disksim
check_PROGRAMS += tests/fuzz/fuzz_import_disksim
tests_fuzz_fuzz_import_disksim_SOURCES = tests/fuzz/fuzz_import_disksim.c tests/fuzz/import_fuzz.h $(FUZZ_DRIVER)
tests_fuzz_fuzz_import_disksim_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_disksim_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_disksim_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_import_mqsim
check_PROGRAMS += tests/fuzz/fuzz_import_mqsim
tests_fuzz_fuzz_import_mqsim_SOURCES = tests/fuzz/fuzz_import_mqsim.c tests/fuzz/import_fuzz.h $(FUZZ_DRIVER)
tests_fuzz_fuzz_import_mqsim_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_mqsim_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_mqsim_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_import_vscsi
check_PROGRAMS += tests/fuzz/fuzz_import_vscsi
tests_fuzz_fuzz_import_vscsi_SOURCES = tests/fuzz/fuzz_import_vscsi.c tests/fuzz/import_fuzz.h $(FUZZ_DRIVER)
tests_fuzz_fuzz_import_vscsi_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_vscsi_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_vscsi_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_import_vscsi_csv
check_PROGRAMS += tests/fuzz/fuzz_import_vscsi_csv
tests_fuzz_fuzz_import_vscsi_csv_SOURCES = tests/fuzz/fuzz_import_vscsi_csv.c tests/fuzz/import_fuzz.h $(FUZZ_DRIVER)
tests_fuzz_fuzz_import_vscsi_csv_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_vscsi_csv_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_vscsi_csv_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_import_csv
check_PROGRAMS += tests/fuzz/fuzz_import_csv
tests_fuzz_fuzz_import_csv_SOURCES = tests/fuzz/fuzz_import_csv.c tests/fuzz/import_fuzz.h $(FUZZ_DRIVER)
tests_fuzz_fuzz_import_csv_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_csv_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_csv_LDADD = $(TEST_LIBS)

FUZZ_TARGETS += tests/fuzz/fuzz_import_ist_csv
check_PROGRAMS += tests/fuzz/fuzz_import_ist_csv
tests_fuzz_fuzz_import_ist_csv_SOURCES = tests/fuzz/fuzz_import_ist_csv.c tests/fuzz/import_fuzz.h $(FUZZ_DRIVER)
tests_fuzz_fuzz_import_ist_csv_CFLAGS = $(TEST_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_ist_csv_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_import_ist_csv_LDADD = $(TEST_LIBS)

dist_man_MANS += man/iostorm-import.1 man/iostorm-export.1
EXTRA_DIST += bench/import.sh
