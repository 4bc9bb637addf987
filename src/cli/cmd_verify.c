/* SPDX-License-Identifier: MIT */
/* cmd_verify.c - placeholder. */
#include "config.h"
#include "cli/cli.h"
#include "cli/commands.h"
int cmd_verify(int argc, char **argv) { (void)argc; (void)argv; return 1; }
