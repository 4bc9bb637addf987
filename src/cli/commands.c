/* SPDX-License-Identifier: MIT */
/* commands.c - the table of iostorm commands (one line each). */
#include "config.h"

#include "cli/cli.h"
#include "cli/commands.h"

const struct cli_command cli_commands[] = {
	{ "convert", "convert between IST and canonical CSV", cmd_convert },
	{ "info", "show a trace's header, devices and totals", cmd_info },
	{ "cat", "print records as canonical CSV", cmd_cat },
	{ "verify", "check every chunk of a trace", cmd_verify },
	{ NULL, NULL, NULL },
};
