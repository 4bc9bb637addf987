/* SPDX-License-Identifier: MIT */
/* error.c - names for libiostorm's error codes (negative errno or IST_E*). */
#include "config.h"

#include <string.h>

#include "iostorm.h"

static const char *const format_errors[] = {
	[0] = "unknown error",
	[1] = "not an IST trace file (bad magic)",
	[2] = "unsupported IST major version",
	[3] = "checksum mismatch",
	[4] = "truncated",
	[5] = "corrupt structure",
	[6] = "compressed data damaged",
	[7] = "no footer (writer did not finish)",
	[8] = "parse error",
	[9] = "value out of range",
	[10] = "unknown device",
	[11] = "not supported",
	[12] = "records out of time order",
	[13] = "refused: would destroy data",
};

const char *ist_strerror(int err)
{
	if (err >= 0)
		return "success";
	if (err <= -IST_E_BASE) {
		unsigned i = (unsigned)(-err - IST_E_BASE);

		if (i < sizeof(format_errors) / sizeof(format_errors[0]))
			return format_errors[i];
		return format_errors[0];
	}
	/* strerror() is not thread-safe in general but glibc's returns a
	 * static table entry for known errno values. */
	return strerror(-err);
}
