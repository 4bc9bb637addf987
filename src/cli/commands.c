/* SPDX-License-Identifier: MIT */
/* commands.c - the table of iostorm commands (one line each). */
#include "config.h"

#include "cli/cli.h"
#include "cli/commands.h"

const struct cli_command cli_commands[] = {
	{ "synth", "generate an emulated workload (TPC-C, sysbench, VDI, vdbench...)", cmd_synth },
	{ "stats", "characterize a trace: op mix, sizes, skew, arrivals, streams", cmd_stats },
	{ NULL, NULL, NULL },
};
