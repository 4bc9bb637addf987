/* SPDX-License-Identifier: MIT */
/* cmd_info.c - placeholder. */
#include "config.h"
#include "cli/cli.h"
#include "cli/commands.h"
int cmd_info(int argc, char **argv) { (void)argc; (void)argv; return 1; }
