# SPDX-License-Identifier: MIT
# bench/local.mk - included by the top Makefile.am

# hostgap: host noise probe run beside the replay timing benchmarks
check_PROGRAMS += bench/hostgap
bench_hostgap_SOURCES = bench/hostgap.c
