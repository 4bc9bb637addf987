/* SPDX-License-Identifier: MIT */
/* commands.c - the table of iostorm commands (one line each). */
#include "config.h"

#include "cli/cli.h"
#include "cli/commands.h"

const struct cli_command cli_commands[] = {
	{ "convert", "convert a trace between IST and canonical CSV", cmd_convert },
	{ "info", "show an IST trace's header, devices and totals", cmd_info },
	{ "cat", "print an IST trace's records as canonical CSV", cmd_cat },
	{ "verify", "check every chunk of an IST trace", cmd_verify },
	{ "annotate", "infer commits, transactions and dependencies for closed-loop replay", cmd_annotate },
	{ "replay", "replay a trace against files or block devices (io_uring)", cmd_replay },
	{ NULL, NULL, NULL },
};
