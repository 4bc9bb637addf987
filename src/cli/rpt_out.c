/* SPDX-License-Identifier: MIT */
/* rpt_out.c - complete-or-nothing output files for the report commands. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/rpt_out.h"

int cli_outfile_open(struct cli_outfile *o, const char *path)
{
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if (asprintf(&o->tmp, "%s.tmpXXXXXX", path) < 0) {
		o->tmp = NULL;
		cli_err("%s: %s", path, strerror(ENOMEM));
		return -1;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		cli_err("%s: %s", path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	fchmod(fd, 0644);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		cli_err("%s: %s", path, strerror(errno));
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	return 0;
}

int cli_outfile_close(struct cli_outfile *o, int err)
{
	int rc = 0;

	if (!o->tmp) {
		if (fflush(stdout) != 0 || ferror(stdout)) {
			cli_err("standard output: %s", strerror(errno ? errno : EIO));
			return -1;
		}
		if (err < 0) {
			cli_err("%s", strerror(-err));
			return -1;
		}
		return 0;
	}
	if (fflush(o->f) != 0 || ferror(o->f)) {
		if (!err)
			err = -(errno ? errno : EIO);
	}
	if (fclose(o->f) != 0 && !err)
		err = -(errno ? errno : EIO);
	if (!err && rename(o->tmp, o->path) < 0)
		err = -errno;
	if (err < 0) {
		cli_err("%s: %s", o->path, err < -4096 ? ist_strerror(err) : strerror(-err));
		unlink(o->tmp);
		rc = -1;
	}
	free(o->tmp);
	o->tmp = NULL;
	return rc;
}
