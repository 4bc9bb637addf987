/* SPDX-License-Identifier: MIT */
/* commands.h - entry points of the iostorm commands, one per file. */
#ifndef IST_CLI_COMMANDS_H
#define IST_CLI_COMMANDS_H

int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);

#endif
