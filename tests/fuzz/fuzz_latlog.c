/* SPDX-License-Identifier: MIT */
/* fuzz_latlog.c - replay --null-latency-from's reader of a --lat-log on
 * arbitrary bytes: no crash, no leak, a refusal names the file on one
 * line, and what it accepts is lists of latencies of at most an hour. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replay/internal.h"
#include "memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd;
	char path[64], err[640] = "";
	struct rpl_lat_lists ll;
	size_t total = 0;
	int ret;

	fd = fuzz_file("latlog", data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	ret = rpl_lat_log_read(&ll, path, err, sizeof(err));
	if (ret < 0) {
		if (!err[0] || strchr(err, '\n') || strncmp(err, path, strlen(path)))
			abort(); /* a refusal names the file, on one line */
		for (unsigned k = 0; k < IST_OP_COUNT; k++)
			if (ll.lat[k] || ll.n[k])
				abort(); /* nothing kept */
		if (ll.dlat || ll.dn || ll.ndev)
			abort();
	} else {
		for (unsigned k = 0; k < IST_OP_COUNT; k++) {
			if (!ll.lat[k] != !ll.n[k])
				abort();
			for (size_t i = 0; i < ll.n[k]; i++)
				if (ll.lat[k][i] > 3600000000000ull)
					abort(); /* an hour at most */
			total += ll.n[k];
		}
		/* per device (a log with the dev column) or per op, not both */
		if (ll.ndev && (total || !ll.dlat || !ll.dn || ll.ndev > 65536))
			abort();
		for (size_t i = 0; i < (size_t)ll.ndev * IST_OP_COUNT; i++) {
			if (!ll.dlat[i] != !ll.dn[i])
				abort();
			for (size_t j = 0; j < ll.dn[i]; j++)
				if (ll.dlat[i][j] > 3600000000000ull)
					abort();
			total += ll.dn[i];
		}
		if (!total)
			abort(); /* an accepted log has a completed I/O */
	}
	rpl_lat_lists_free(&ll);
	close(fd);
	return 0;
}
