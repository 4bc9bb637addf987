# SPDX-License-Identifier: MIT
# traces/local.mk - included by the top Makefile.am
