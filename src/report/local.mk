# SPDX-License-Identifier: MIT
# src/report/local.mk - workload statistics, charts, reports and
# comparisons of run results
libiostorm_core_la_SOURCES += \
	src/report/stats.h \
	src/report/stats.c \
	src/report/svg.c \
	src/report/svg.h
