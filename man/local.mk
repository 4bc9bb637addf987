# SPDX-License-Identifier: MIT
# man/local.mk - included by the top Makefile.am
