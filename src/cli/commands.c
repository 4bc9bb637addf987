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
	{ "synth", "generate an emulated workload (TPC-C, sysbench, VDI, vdbench...)", cmd_synth },
	{ "stats", "characterize a trace: op mix, sizes, skew, arrivals, streams", cmd_stats },
	{ "demo", "synthesize an OLTP workload and replay it against a temporary file", cmd_demo },
	{ "import", "convert fio, blktrace, SNIA, vscsi or CSV traces to IST", cmd_import },
	{ "export", "write an IST trace as CSV, fio iolog v3 or blkparse text", cmd_export },
	{ "record", "record block I/O (tracefs) or iSCSI/NBD packet captures", cmd_record },
	{ "report", "draw run results as an HTML page of charts", cmd_report },
	{ "compare", "compare two runs: regression gate with noise-aware thresholds", cmd_compare },
	{ "sweep", "threads x queue depth grid and rate curve: latency against IOPS", cmd_sweep },
	{ "precondition", "fill a drive, then run a workload until steady state (SNIA PTS)", cmd_precondition },
	{ NULL, NULL, NULL },
};
