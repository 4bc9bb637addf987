/* SPDX-License-Identifier: MIT */
/* rpt_out.c - complete-or-nothing output files for the report commands. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/tmpout.h"
#include "cli/cli.h"
#include "cli/rpt_out.h"
#include "report/measure.h"

/*
 * The output goes to a new PATH.tmp-PID-N (istint_tmpfile_open(): O_EXCL,
 * mode 0666 less the umask, removed by SIGINT, SIGTERM or SIGHUP), as
 * every other output; it was a PATH.tmpXXXXXX of mkstemp(), chmod 0644
 * whatever the umask, and left behind by a signal.
 */
int cli_outfile_open(struct cli_outfile *o, const char *path)
{
	struct istint_tmpfile t;
	int e;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	e = istint_tmpfile_open(&t, path);
	if (e < 0) {
		cli_err("%s: %s", path, strerror(-e));
		return -1;
	}
	o->f = t.f;
	o->tmp = t.tmp;
	return 0;
}

int cli_outfile_close(struct cli_outfile *o, int err)
{
	struct istint_tmpfile t = { o->f, o->path, o->tmp };

	if (!o->tmp) {
		if (cli_close_stdout())
			return -1;
		if (err < 0) {
			cli_err("%s", strerror(-err));
			return -1;
		}
		return 0;
	}
	o->f = NULL;
	o->tmp = NULL;
	err = istint_tmpfile_close(&t, err);
	if (err < 0) {
		cli_err("%s: %s", o->path, err < -4096 ? ist_strerror(err) : strerror(-err));
		return -1;
	}
	return 0;
}

int cli_parse_list(const char *s, double min, double max, double *v, unsigned maxn)
{
	char *copy = strdup(s), *tok, *save = NULL;
	unsigned n = 0;
	int ellipsis = 0;

	if (!copy)
		return -1;
	/* strtok_r() skips empty items: "1,,2" was taken as "1,2" */
	if (s[0] == ',' || strstr(s, ",,") || (*s && s[strlen(s) - 1] == ','))
		goto bad;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		double x;

		if (!strcmp(tok, "...")) {
			if (n < 2 || ellipsis)
				goto bad;
			ellipsis = 1;
			continue;
		}
		if (cli_parse_double(tok, &x) < 0 || x < min || x > max)
			goto bad;
		if (ellipsis) {
			double step = v[1] - v[0], y = v[n - 1] + step;

			if (!(step > 0) || x < v[n - 1])
				goto bad;
			for (; y < x - step * 1e-9; y += step) {
				if (n == maxn)
					goto bad;
				v[n++] = y;
			}
			ellipsis = 0;
		}
		if (n == maxn)
			goto bad;
		v[n++] = x;
	}
	if (ellipsis || n == 0)
		goto bad;
	free(copy);
	return (int)n;
bad:
	free(copy);
	return -1;
}

static volatile sig_atomic_t stop_flag;

volatile sig_atomic_t *cli_stop_flag(void)
{
	return &stop_flag;
}

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

void cli_catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void cli_release_stop(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

char *cli_command_line(int argc, char **argv, const char *cmd)
{
	size_t len = strlen("iostorm ") + strlen(cmd) + 1;
	char *s;

	for (int i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	strcpy(s, "iostorm ");
	strcat(s, cmd);
	for (int i = 1; i < argc; i++) {
		strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

void cli_now_iso(char *buf, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

const char *cli_data_hint(const char *arg)
{
	if (!strncmp(arg, "dedupe:", 7))
		return " (PCT from 0 to 100, in steps of 0.01)";
	if (!strncmp(arg, "compress:", 9))
		return " (RATIO from 1 to 1000, in steps of 0.01)";
	return "";
}

int cli_target_option(const char *cmd, int opt, const char *arg, struct rpl_opts *o,
		      uint64_t *size)
{
	switch (opt) {
	case CLI_O_NULL:
		o->backend = RPL_BACKEND_NULL;
		break;
	case CLI_O_CREATE:
		o->create = 1;
		break;
	case CLI_O_SIZE:
		if (cli_parse_size(arg, size) < 0 || *size < 4096)
			return cli_usage_error(cmd, "--size: bad size '%s'", arg);
		break;
	case CLI_O_BUFFERED:
		o->buffered = 1;
		break;
	case CLI_O_ALLOW:
		o->allow_write = 1;
		break;
	case CLI_O_FORCE:
		o->force = 1;
		break;
	case CLI_O_DATA:
		if (rpl_data_parse(arg, &o->data, &o->data_param) < 0)
			return cli_usage_error(cmd, "--data: bad pattern '%s'%s", arg,
					       cli_data_hint(arg));
		break;
	}
	return 0;
}

int cli_target_set(const char *cmd, const char *what, const char *target, struct rpl_opts *o,
		   uint64_t size)
{
	if (o->backend == RPL_BACKEND_NULL) {
		if (target)
			return cli_usage_error(cmd, "--null and %s exclude each other", what);
		return 0;
	}
	if (!target)
		return cli_usage_error(cmd, "no %s given", what);
	o->targets[0].dev = -1;
	o->targets[0].path = target;
	o->ntargets = 1;
	o->create_size = size;
	return 0;
}

int cli_target_bytes(const char *target, const struct rpl_opts *o, uint64_t size,
		     uint64_t region, uint64_t *bytes)
{
	uint64_t v;
	int e;

	if (o->backend == RPL_BACKEND_NULL) {
		v = size ? size : 1ull << 30;
	} else if ((e = rpt_target_size(target, &v)) < 0) {
		/* a file --create makes */
		if (!(e == -ENOENT && o->create && size)) {
			cli_err("%s: %s", target, strerror(-e));
			return -1;
		}
		v = size;
	}
	if (o->create && size > v)
		v = size;
	if (region && region < v)
		v = region;
	*bytes = v;
	return 0;
}

json_object *cli_json_result(const char *schema, const char *cmdline, const char *started,
			     int interrupted)
{
	json_object *root = json_object_new_object(), *tool = json_object_new_object();

	json_object_object_add(root, "schema", json_object_new_string(schema));
	json_object_object_add(tool, "name", json_object_new_string(PACKAGE_NAME));
	json_object_object_add(tool, "version", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(root, "tool", tool);
	json_object_object_add(root, "command", cmdline ? json_object_new_string(cmdline) : NULL);
	json_object_object_add(root, "started", json_object_new_string(started));
	json_object_object_add(root, "interrupted", json_object_new_boolean(interrupted));
	return root;
}
