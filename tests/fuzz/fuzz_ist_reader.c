/* SPDX-License-Identifier: MIT */
/* fuzz_ist_reader.c - libFuzzer target: the IST reader on arbitrary bytes. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "iostorm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads everything the reader offers: records in odd batch sizes (the
 * partial-chunk path), every chunk check, a seek, the totals. */
static void exercise(const char *path)
{
	static struct ist_record recs[1000];
	struct ist_position pos;
	ist_reader *r;
	ssize_t n;
	uint64_t total = 0;

	if (ist_reader_open(&r, path))
		return;
	for (int calls = 0; calls < 100000; calls++) {
		n = ist_reader_read(r, recs, calls % 2 ? 1000 : 7);
		if (n == 0)
			break;
		ist_reader_position(r, &pos);
		if (n > 0) {
			for (ssize_t i = 0; i < n; i++) {
				char line[IST_CSV_LINE_MAX];

				if (recs[i].op >= IST_OP_COUNT)
					abort(); /* the reader must reject it */
				if (ist_csv_format(&recs[i], line, sizeof(line)) < 0 &&
				    !(recs[i].flags & ~IST_F_ALL))
					abort();
			}
			total += (uint64_t)n;
		}
	}
	for (uint64_t i = 0; i < ist_reader_chunk_count(r) && i < 1000; i++)
		ist_reader_check_chunk(r, i);
	if (ist_reader_totals(r))
		(void)ist_reader_totals(r)->records;
	ist_reader_seek_time(r, total * 1000);
	ist_reader_read(r, recs, 1000);
	ist_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfd_create("fuzz_ist", 0);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		exercise(path);
	}
	close(fd);
	return 0;
}
