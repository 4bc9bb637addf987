# SPDX-License-Identifier: MIT
# src/format/local.mk - included by the top Makefile.am
