# SPDX-License-Identifier: MIT
# src/report/local.mk - included by the top Makefile.am
