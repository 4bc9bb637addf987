# SPDX-License-Identifier: MIT
# src/import/local.mk - included by the top Makefile.am
