/* SPDX-License-Identifier: MIT */
/* tmpout.c - temporary output files: a new name beside the target, renamed into place when complete. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tmpout.h"

/*
 * The guarded names.  The signal handler reads them: a slot's path is
 * written before it is armed, and slots change only with the signals
 * held.  A fixed table (the library has no other global state of this
 * kind): a process has a handful of outputs under way at most.
 */
#define SLOTS 8
#define SLOT_PATH 4200

static char slot_path[SLOTS][SLOT_PATH];
static volatile sig_atomic_t slot_armed[SLOTS];
static unsigned nguarded;
static const int sig_list[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction sig_old[3];
static int sig_installed[3];

static void on_signal(int sig)
{
	for (unsigned i = 0; i < SLOTS; i++)
		if (slot_armed[i])
			unlink(slot_path[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void hold_signals(sigset_t *old)
{
	sigset_t block;

	sigemptyset(&block);
	for (unsigned i = 0; i < 3; i++)
		sigaddset(&block, sig_list[i]);
	sigprocmask(SIG_BLOCK, &block, old);
}

/* With the signals held. */
static int guard(const char *path)
{
	struct sigaction sa;
	unsigned i;

	if (strlen(path) >= SLOT_PATH)
		return -ENAMETOOLONG;
	for (i = 0; i < SLOTS && slot_armed[i]; i++)
		;
	if (i == SLOTS)
		return -EMFILE;
	memcpy(slot_path[i], path, strlen(path) + 1);
	slot_armed[i] = 1;
	if (nguarded++)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (unsigned k = 0; k < 3; k++) {
		sig_installed[k] = 0;
		/* an ignored signal stays ignored; a caller's handler stays */
		if (sigaction(sig_list[k], NULL, &sig_old[k]) ||
		    sig_old[k].sa_handler != SIG_DFL)
			continue;
		sig_installed[k] = !sigaction(sig_list[k], &sa, NULL);
	}
	return 0;
}

void istint_tmp_release(const char *tmp)
{
	sigset_t old;

	if (!tmp)
		return;
	hold_signals(&old);
	for (unsigned i = 0; i < SLOTS; i++) {
		if (!slot_armed[i] || strcmp(slot_path[i], tmp))
			continue;
		slot_armed[i] = 0;
		if (--nguarded == 0)
			for (unsigned k = 0; k < 3; k++)
				if (sig_installed[k]) {
					sigaction(sig_list[k], &sig_old[k], NULL);
					sig_installed[k] = 0;
				}
		break;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int istint_tmp_create(char *buf, size_t size, const char *out, const char *tag)
{
	static unsigned seq;
	sigset_t old;
	int fd = -EEXIST;

	hold_signals(&old);
	for (unsigned attempt = 0; attempt < 1000 && fd == -EEXIST; attempt++) {
		if ((size_t)snprintf(buf, size, "%s.%s-%ld-%u", out, tag,
				     (long)getpid(), seq++) >= size) {
			fd = -ENAMETOOLONG;
			break;
		}
		fd = open(buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0)
			fd = -errno;
	}
	if (fd >= 0) {
		int e = guard(buf);

		if (e) {
			close(fd);
			unlink(buf);
			fd = e;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return fd;
}

int istint_tmp_sync(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (fdatasync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

int istint_tmpfile_open(struct istint_tmpfile *t, const char *path)
{
	size_t n = strlen(path) + 48;
	int fd, e;

	memset(t, 0, sizeof(*t));
	t->path = path;
	t->tmp = malloc(n);
	if (!t->tmp)
		return -ENOMEM;
	fd = istint_tmp_create(t->tmp, n, path, "tmp");
	if (fd >= 0) {
		t->f = fdopen(fd, "w");
		if (t->f)
			return 0;
		e = -errno;
		close(fd);
		unlink(t->tmp);
		istint_tmp_release(t->tmp);
	} else {
		e = fd;
	}
	free(t->tmp);
	t->tmp = NULL;
	return e;
}

int istint_tmpfile_close(struct istint_tmpfile *t, int err)
{
	if (!t->f)
		return err ? err : -EBADF;
	if ((fflush(t->f) != 0 || ferror(t->f)) && !err)
		err = -(errno ? errno : EIO);
	if (fclose(t->f) != 0 && !err)
		err = -errno;
	t->f = NULL;
	if (!err && rename(t->tmp, t->path) < 0)
		err = -errno;
	if (err)
		unlink(t->tmp);
	istint_tmp_release(t->tmp);
	free(t->tmp);
	t->tmp = NULL;
	return err;
}
