/* SPDX-License-Identifier: MIT */
/* commands.h - entry points of the iostorm commands, one per file. */
#ifndef IST_CLI_COMMANDS_H
#define IST_CLI_COMMANDS_H

int cmd_replay(int argc, char **argv);

int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_precondition(int argc, char **argv);

#endif
