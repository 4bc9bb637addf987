/* SPDX-License-Identifier: MIT */
/* cmd_cat.c - placeholder. */
#include "config.h"
#include "cli/cli.h"
#include "cli/commands.h"
int cmd_cat(int argc, char **argv) { (void)argc; (void)argv; return 1; }
