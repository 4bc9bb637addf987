/* SPDX-License-Identifier: MIT */
/* fuzz_runjson.c - the run result loader (replay, sweep, precondition
 * JSON) on arbitrary bytes, then the report and the comparison of what
 * loaded: no crash, no leak, no hang. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report/compare.h"
#include "report/report.h"
#include "memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd;
	struct rpt_run *r = NULL;
	char path[64], err[256];
	FILE *f;

	fd = fuzz_file("runjson", data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	if (rpt_run_load(&r, path, err, sizeof(err)) == 0) {
		struct rpt_comparison c;
		struct rpt_compare_opts o = { .confidence = 0.95 };

		f = fopen("/dev/null", "w");
		if (f) {
			rpt_write_html(f, &r, 1, NULL);
			rpt_write_svg(f, &r, 1, NULL);
			fclose(f);
		}
		o.th[0].m = rpt_metric_find("iops");
		o.th[0].pct = 5;
		o.nth = 1;
		if (rpt_compare(r, r, &o, &c) == 0)
			rpt_comparison_release(&c);
		rpt_run_free(r);
	} else if (!err[0] || strpbrk(err, "\r\n")) {
		abort(); /* a refusal explains itself, on one line */
	}
	close(fd);
	return 0;
}
