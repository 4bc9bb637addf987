/* SPDX-License-Identifier: MIT */
/* uring_probe.c - exits 0 when this process may set up an io_uring, 77
 * (automake's SKIP) with the reason when it may not: a kernel without it
 * (ENOSYS), or io_uring_disabled / a seccomp filter (EPERM).  The shell
 * tests that replay on files or devices ask it first (lib.sh need_uring),
 * with the raw system call: not through iostorm, whose own failure must
 * fail a test, never skip it. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	struct io_uring_params p;
	long fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(__NR_io_uring_setup, 4, &p);
	if (fd < 0) {
		printf("io_uring_setup: %s\n", strerror(errno));
		return errno == ENOSYS || errno == EPERM || errno == EACCES ? 77 : 1;
	}
	close((int)fd);
	return 0;
}
