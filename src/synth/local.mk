# SPDX-License-Identifier: MIT
# src/synth/local.mk - included by the top Makefile.am
