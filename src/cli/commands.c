/* SPDX-License-Identifier: MIT */
/* commands.c - the table of iostorm commands (one line each). */
#include "config.h"

#include "cli/cli.h"
#include "cli/commands.h"

const struct cli_command cli_commands[] = {
	{ "import", "convert fio, blktrace, SNIA, vscsi or CSV traces to IST", cmd_import },
	{ "export", "write an IST trace as CSV, fio iolog v3 or blkparse text", cmd_export },
	{ NULL, NULL, NULL },
};
