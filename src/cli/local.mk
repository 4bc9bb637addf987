# SPDX-License-Identifier: MIT
# src/cli/local.mk - the iostorm command-line tool (each module adds its
# own cmd_*.c to iostorm_SOURCES in its local.mk)
iostorm_SOURCES += \
	src/cli/cli.h \
	src/cli/commands.h \
	src/cli/main.c \
	src/cli/commands.c \
	src/cli/util.c
iostorm_SOURCES += src/cli/cmd_demo.c
dist_man_MANS += man/iostorm-demo.1
TESTS += tests/cli/demo.sh
EXTRA_DIST += tests/cli/demo.sh
# an empty output file name is refused before any work
TESTS += tests/cli/empty_output_name.sh
EXTRA_DIST += tests/cli/empty_output_name.sh
# an empty input file name is refused in one line naming it ('')
TESTS += tests/cli/empty_input_name.sh
EXTRA_DIST += tests/cli/empty_input_name.sh
# tables end their lines with their last figure
TESTS += tests/cli/trailing_blanks.sh
EXTRA_DIST += tests/cli/trailing_blanks.sh
