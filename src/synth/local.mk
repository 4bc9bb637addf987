# SPDX-License-Identifier: MIT
# src/synth/local.mk - workload emulators (iostorm synth)
libiostorm_core_la_SOURCES += \
	src/synth/synth.h \
	src/synth/engine.h \
	src/synth/rng.h \
	src/synth/rng.c \
	src/synth/gen.c \
	src/synth/mix.h \
	src/synth/ini.c \
	src/synth/prof_mix.c \
	src/synth/prof_tpcc.c \
	src/synth/prof_sysbench.c \
	src/synth/prof_marklogic.c \
	src/synth/prof_vdi.c \
	src/synth/ist_pending.c
iostorm_SOURCES += src/cli/cmd_synth.c src/cli/cmd_stats.c
