/* SPDX-License-Identifier: MIT */
/* tmpout.h - temporary output files: a new name beside the target, renamed into place when complete (internal). */
#ifndef IST_CORE_TMPOUT_H
#define IST_CORE_TMPOUT_H

#include <stddef.h>
#include <stdio.h>

/*
 * Every file iostorm writes for a user (an import, export, conversion,
 * annotation, synthesis; the IST writer's own; replay, sweep and
 * precondition results; report pages) is written to a temporary file
 * beside it and renamed over it only when complete, so that a failed or
 * interrupted command leaves the target as it was and no partial output.
 * This is the one way such a file is made:
 *  - its name is new: OUT.TAG-PID-N, the first N for which no file exists
 *    (O_EXCL), so a user's file of a predictable name, or a symbolic link
 *    there, is never written through;
 *  - mode 0666 less the umask, as a plain open() would make the target;
 *  - SIGINT, SIGTERM and SIGHUP are held while it is made and guarded:
 *    until istint_tmp_release(), the signal (where it has its default
 *    action; an ignored signal or a caller's handler is left alone)
 *    removes it before ending the process.  Several may be guarded at once
 *    (a command's output while the IST writer has its own).
 */

/* Creates OUT.TAG-PID-N into buf and guards it.  Returns its descriptor
 * (O_WRONLY, close-on-exec) or -errno (-ENAMETOOLONG when it does not fit
 * buf; -EMFILE when too many are guarded already). */
int istint_tmp_create(char *buf, size_t size, const char *out, const char *tag);
/* Ends the guard of tmp (after it was renamed into place or removed). */
void istint_tmp_release(const char *tmp);
/* Flushes path's data to the disk before it is renamed into place:
 * 0 or -errno. */
int istint_tmp_sync(const char *path);

/* A temporary file as a stdio stream: istint_tmpfile_open() makes
 * PATH.tmp-PID-N; istint_tmpfile_close() renames it over path when err is
 * 0 and every write succeeded, removes it otherwise, and ends its guard.
 * Both return 0 or -errno (close: err when it was not 0). */
struct istint_tmpfile {
	FILE *f;
	const char *path;
	char *tmp;
};
int istint_tmpfile_open(struct istint_tmpfile *t, const char *path);
int istint_tmpfile_close(struct istint_tmpfile *t, int err);

#endif
