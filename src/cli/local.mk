# SPDX-License-Identifier: MIT
# src/cli/local.mk - the iostorm command-line tool
iostorm_SOURCES += \
	src/cli/cli.h \
	src/cli/commands.h \
	src/cli/main.c \
	src/cli/commands.c \
	src/cli/util.c \
	src/cli/cmd_convert.c \
	src/cli/cmd_info.c \
	src/cli/cmd_cat.c \
	src/cli/cmd_verify.c
