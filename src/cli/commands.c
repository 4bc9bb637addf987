/* SPDX-License-Identifier: MIT */
/* commands.c - the table of iostorm commands (one line each). */
#include "config.h"

#include "cli/cli.h"
#include "cli/commands.h"

const struct cli_command cli_commands[] = {
	{ "replay", "replay a trace against files or block devices (io_uring)", cmd_replay },
	{ "report", "draw run results as an HTML page of charts", cmd_report },
	{ "compare", "compare two runs: regression gate with noise-aware thresholds", cmd_compare },
	{ "sweep", "threads x queue depth grid and rate curve: latency against IOPS", cmd_sweep },
	{ "precondition", "fill a drive, then run a workload until steady state (SNIA PTS)", cmd_precondition },
	{ NULL, NULL, NULL },
};
