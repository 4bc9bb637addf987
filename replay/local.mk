# SPDX-License-Identifier: MIT
# replay/local.mk - included by the top Makefile.am
