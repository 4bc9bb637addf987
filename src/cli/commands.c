/* SPDX-License-Identifier: MIT */
/* commands.c - the table of iostorm commands (one line each). */
#include "config.h"

#include "cli/cli.h"
#include "cli/commands.h"

const struct cli_command cli_commands[] = {
	{ "replay", "replay a trace against files or block devices (io_uring)", cmd_replay },
	{ NULL, NULL, NULL },
};
