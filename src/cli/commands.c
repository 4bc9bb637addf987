/* SPDX-License-Identifier: MIT */
/* commands.c - the table of iostorm commands (one line each). */
#include "config.h"

#include "cli/cli.h"
#include "cli/commands.h"

const struct cli_command cli_commands[] = {
	{ "record", "record block I/O (tracefs) or iSCSI/NBD packet captures", cmd_record },
	{ NULL, NULL, NULL },
};
