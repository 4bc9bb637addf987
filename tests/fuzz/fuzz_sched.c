/* SPDX-License-Identifier: MIT */
/* fuzz_sched.c - the record --sched sidecar check that replay --think-sched
 * runs before a replay, and --wake-cost auto's classification of its
 * bursts, on arbitrary bytes: no crash, no leak, and a refusal always
 * explains itself in one line. */
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
	char path[64], err[512] = "";
	int ret;

	fd = fuzz_file("sched", data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	ret = rpl_sched_check(path, err, sizeof(err));
	if (ret < 0 && (!err[0] || strchr(err, '\n') || strncmp(err, path, strlen(path))))
		abort(); /* a refusal names the file, on one line */
	if (ret > (RPL_SCHED_HAS_CPU | RPL_SCHED_HAS_CLIENT | RPL_SCHED_HAS_RUNTIME))
		abort(); /* the kinds of lines it has */
	/* --wake-cost auto's pass over an accepted sidecar: what each time
	 * on a CPU followed, the 10th percentile of the bursts after
	 * wake-ups (at most the histogram's top, 1 ms) */
	if (ret >= 0 && rpl_sched_wake_cost(path) > 1000050)
		abort();
	close(fd);
	return 0;
}
