/* SPDX-License-Identifier: MIT */
/* fuzz_ist_reader.c - libFuzzer target: the IST reader on arbitrary bytes. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "iostorm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads everything the reader offers: records in odd batch sizes (the
 * partial-chunk path), chunk checks in the middle of a chunk read in
 * pieces (which must leave the rest of it as it was) and after, a seek,
 * the totals. */
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
		if (calls % 5 == 4)
			ist_reader_check_chunk(r, (uint64_t)calls %
					       (ist_reader_chunk_count(r) + 1));
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

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * Rewrites every CRC the structure points at, so that mutations reach the
 * decoders behind the checksums (used for inputs whose last byte is odd;
 * the others keep testing the checks themselves).
 */
static void fix_crcs(uint8_t *b, size_t size)
{
	size_t off;

	if (size < 16 || memcmp(b, "\x89IST", 4))
		return;
	off = get32(b + 12);
	if (off < 20 || off > size)
		return;
	put32(b + off - 4, (uint32_t)crc32(0, b, (uInt)(off - 4)));
	while (off + 40 <= size && !memcmp(b + off, "ISTC", 4)) {
		size_t plen = get32(b + off + 28);

		if (plen > size - off - 40)
			plen = size - off - 40;
		put32(b + off + 32, (uint32_t)crc32(0, b + off + 40, (uInt)plen));
		put32(b + off + 36, (uint32_t)crc32(0, b + off, 36));
		off += 40 + plen;
	}
	if (size >= 24 && !memcmp(b + size - 8, "ISTEND\r\n", 8)) {
		uint8_t *t = b + size - 24;
		uint64_t foff = get32(t) | (uint64_t)get32(t + 4) << 32;
		uint32_t flen = get32(t + 8);

		put32(t + 12, (uint32_t)crc32(0, t, 12));
		if (flen >= 4 && foff < size && flen <= size - 24 - foff)
			put32(b + foff + flen - 4,
			      (uint32_t)crc32(0, b + foff, (uInt)(flen - 4)));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfd_create("fuzz_ist", 0);
	uint8_t *copy;

	if (fd < 0)
		return 0;
	copy = malloc(size ? size : 1);
	if (!copy) {
		close(fd);
		return 0;
	}
	memcpy(copy, data, size);
	if (size && (copy[size - 1] & 1))
		fix_crcs(copy, size);
	if (write(fd, copy, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		exercise(path);
	}
	free(copy);
	close(fd);
	return 0;
}
