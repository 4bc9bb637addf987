/* SPDX-License-Identifier: MIT */
/* main.c - `iostorm <command>` dispatch, --version and help. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

const char *cli_progname = "iostorm";

static void print_help(FILE *f)
{
	fprintf(f,
		"Usage: iostorm <command> [options] [args]\n"
		"       iostorm -V|--version | -h|--help | help [command]\n"
		"\n"
		"Record, store, synthesize and replay block I/O traces.\n"
		"\n"
		"Commands:\n");
	for (const struct cli_command *c = cli_commands; c->name; c++)
		fprintf(f, "  %-12s %s\n", c->name, c->summary);
	fprintf(f,
		"\n"
		"'iostorm <command> --help' describes a command; the manual\n"
		"pages iostorm(1) and iostorm-<command>(1) describe them in full.\n"
		"Exit status: 0 success, 1 bad input or failure, 2 usage error; compare\n"
		"and record also 3, precondition 4 (see their --help).\n");
}

static const struct cli_command *find_command(const char *name)
{
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* A command's exit status, made a failure when what it printed on standard
 * output could not be written (iostorm cat >/dev/full): exit 0 promises
 * the output is complete, and so do compare's 3, record's 3 and
 * precondition's 4 (a result, not a failure: precondition >/dev/full
 * exited 4 without a word).  Said once (cli_err_stdout()) whatever the
 * status: a failure (1) or usage error (2) keeps its status. */
static int finish(int rc)
{
	if (cli_close_stdout() && rc != EXIT_USAGE)
		return EXIT_FAIL;
	return rc;
}

int main(int argc, char **argv)
{
	const struct cli_command *c;

	if (argc < 2) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		/* what follows was ignored, as help's extra words were */
		if (argc > 2)
			return cli_list_no_operand(NULL, argv[1], argc, argv, 2);
		printf("iostorm %s\n", PACKAGE_VERSION);
		return finish(EXIT_OK);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		if (argc > 2)
			return cli_list_no_operand(NULL, argv[1], argc, argv, 2);
		print_help(stdout);
		return finish(EXIT_OK);
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			print_help(stdout);
			return finish(EXIT_OK);
		}
		c = find_command(argv[2]);
		if (!c)
			return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
		/* help shows one command's help: the others were ignored */
		if (argc > 3)
			return cli_usage_error(NULL, "help takes one command, not '%s'", argv[3]);
		{
			char *sub[] = { argv[2], (char *)"--help", NULL };

			return finish(c->run(2, sub));
		}
	}
	c = find_command(argv[1]);
	if (!c && argv[1][0] == '-' && argv[1][1])
		return cli_usage_error(NULL, "unknown option '%s'", argv[1]);
	if (!c)
		return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
	return finish(c->run(argc - 1, argv + 1));
}
