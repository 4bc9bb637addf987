# SPDX-License-Identifier: MIT
# src/core/local.mk - errors, the record, the header
libiostorm_core_la_SOURCES += \
	src/core/error.c \
	src/core/record.c \
	src/core/header.c \
	src/core/numfmt.h
