/* SPDX-License-Identifier: MIT */
/* commands.h - entry points of the iostorm commands, one per file. */
#ifndef IST_CLI_COMMANDS_H
#define IST_CLI_COMMANDS_H

int cmd_convert(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_replay(int argc, char **argv);

int cmd_synth(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_precondition(int argc, char **argv);

#endif
