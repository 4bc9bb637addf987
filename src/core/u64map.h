/* SPDX-License-Identifier: MIT */
/* u64map.h - open-addressing hash map from non-zero-able u64 keys to a
 * fixed-size value, for per-stream state (internal). */
#ifndef IST_CORE_U64MAP_H
#define IST_CORE_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;
	unsigned char *used;
	void *vals;
	size_t val_size;
	size_t cap;   /* power of two */
	size_t count;
};

int u64map_init(struct u64map *m, size_t val_size, size_t initial);
void u64map_free(struct u64map *m);
/* Pointer to the value of key, or NULL. */
void *u64map_get(const struct u64map *m, uint64_t key);
/* Pointer to the value of key, inserted zeroed if absent (*created set);
 * NULL on allocation failure.  Pointers stay valid until the next insert. */
void *u64map_upsert(struct u64map *m, uint64_t key, int *created);

#endif
