# SPDX-License-Identifier: MIT
# src/capture/local.mk - included by the top Makefile.am
