# SPDX-License-Identifier: MIT
# src/report/local.mk - included by the top Makefile.am
libiostorm_core_la_SOURCES += \
	src/report/stats.h \
	src/report/stats.c
