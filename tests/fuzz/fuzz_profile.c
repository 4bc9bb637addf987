/* SPDX-License-Identifier: MIT */
/*
 * fuzz_profile.c - the INI profile parser on arbitrary bytes; what parses
 * is then run through the mix generator for a few hundred records, which
 * must come out in time order and inside their devices.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "synth/mix.h"
#include "synth/synth.h"
#include "memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run_generator(const uint8_t *data, size_t size)
{
	struct ist_record recs[256];
	struct syn_gen *g;
	char path[64];
	uint64_t prev = 0;
	ssize_t n;
	int fd;

	fd = fuzz_file("profile", data, size, path, sizeof(path));
	if (fd < 0)
		return;
	if (syn_gen_new(&g, syn_profile_find("mix")) == 0) {
		syn_gen_set(g, "file", path);
		syn_gen_set_duration(g, 10000000ull);
		if (syn_gen_start(g) == 0) {
			const ist_header *h = syn_gen_header(g);

			n = syn_gen_read(g, recs, 256);
			for (ssize_t i = 0; i < n; i++) {
				const struct ist_device *d =
					ist_header_device(h, recs[i].dev);

				if (recs[i].t_ns < prev || !d ||
				    recs[i].offset + recs[i].len > d->size)
					abort();
				prev = recs[i].t_ns;
			}
		}
		syn_gen_free(g);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct syn_mix_spec m;
	unsigned line = 0;
	char err[160];

	if (size > 65536)
		return 0;
	syn_mix_defaults(&m);
	if (syn_mix_parse((const char *)data, size, &m, &line, err,
			  sizeof(err)) == 0) {
		/* keep generation cheap: few streams */
		if (m.streams <= 256)
			run_generator(data, size);
	} else if (!line || !err[0] || strlen(err) >= sizeof(err)) {
		abort(); /* every error names a line and a reason */
	}
	return 0;
}
