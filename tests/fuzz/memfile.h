/* SPDX-License-Identifier: MIT */
/* memfile.h - the fuzz input as a file, for the parsers that take a path. */
#ifndef IST_FUZZ_MEMFILE_H
#define IST_FUZZ_MEMFILE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

/* A memory file holding data, named by /proc/self/fd/N in path: its
 * descriptor (the caller closes it), or -1 (the input is then skipped). */
static inline int fuzz_file(const char *name, const uint8_t *data, size_t size,
			    char *path, size_t pathsize)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, pathsize, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
