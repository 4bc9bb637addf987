/* SPDX-License-Identifier: MIT */
/* dio_seq.c - issues a known sequence of O_DIRECT reads and writes on a
 * device for the live recording tests: dio_seq DEV w:OFF:LEN r:OFF:LEN ...
 * (bytes; multiples of 4096) and prints its pid first. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	void *buf;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: dio_seq DEV w:OFF:LEN|r:OFF:LEN...\n");
		return 2;
	}
	printf("%ld\n", (long)getpid());
	fflush(stdout);
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "dio_seq: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (posix_memalign(&buf, 4096, 1 << 20))
		return 1;
	memset(buf, 0xa5, 1 << 20);
	for (int i = 2; i < argc; i++) {
		char op;
		unsigned long long off, len;
		ssize_t n;

		if (sscanf(argv[i], "%c:%llu:%llu", &op, &off, &len) != 3 ||
		    len > (1 << 20) || (op != 'w' && op != 'r')) {
			fprintf(stderr, "dio_seq: bad op '%s'\n", argv[i]);
			return 2;
		}
		n = op == 'w' ? pwrite(fd, buf, len, (off_t)off)
			      : pread(fd, buf, len, (off_t)off);
		if (n != (ssize_t)len) {
			fprintf(stderr, "dio_seq: %s: %s\n", argv[i],
				n < 0 ? strerror(errno) : "short");
			return 1;
		}
	}
	close(fd);
	free(buf);
	return 0;
}
