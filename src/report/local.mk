# SPDX-License-Identifier: MIT
# src/report/local.mk - charts, reports and comparisons of run results
libiostorm_core_la_SOURCES += \
	src/report/svg.c \
	src/report/svg.h
