# SPDX-License-Identifier: MIT
# bench/local.mk - included by the top Makefile.am
