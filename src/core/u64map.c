/* SPDX-License-Identifier: MIT */
/* u64map.c - open-addressing (linear probing) u64 hash map. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/u64map.h"

static size_t hash64(uint64_t k)
{
	/* splitmix64 finaliser: spreads sequential ids over the table */
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebull;
	k ^= k >> 31;
	return (size_t)k;
}

int u64map_init(struct u64map *m, size_t val_size, size_t initial)
{
	size_t cap = 16;

	while (cap < initial * 2)
		cap *= 2;
	memset(m, 0, sizeof(*m));
	m->keys = calloc(cap, sizeof(*m->keys));
	m->used = calloc(cap, 1);
	m->vals = calloc(cap, val_size ? val_size : 1);
	if (!m->keys || !m->used || !m->vals) {
		u64map_free(m);
		return -1;
	}
	m->cap = cap;
	m->val_size = val_size;
	return 0;
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->used);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static size_t slot_of(const struct u64map *m, uint64_t key, int *found)
{
	size_t mask = m->cap - 1, i = hash64(key) & mask;

	while (m->used[i]) {
		if (m->keys[i] == key) {
			*found = 1;
			return i;
		}
		i = (i + 1) & mask;
	}
	*found = 0;
	return i;
}

void *u64map_get(const struct u64map *m, uint64_t key)
{
	int found;
	size_t i;

	if (!m->cap)
		return NULL;
	i = slot_of(m, key, &found);
	return found ? (char *)m->vals + i * m->val_size : NULL;
}

static int grow(struct u64map *m)
{
	struct u64map n;

	if (u64map_init(&n, m->val_size, m->cap))
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		int found;
		size_t j;

		if (!m->used[i])
			continue;
		j = slot_of(&n, m->keys[i], &found);
		n.used[j] = 1;
		n.keys[j] = m->keys[i];
		memcpy((char *)n.vals + j * n.val_size,
		       (char *)m->vals + i * m->val_size, m->val_size);
		n.count++;
	}
	u64map_free(m);
	*m = n;
	return 0;
}

void *u64map_upsert(struct u64map *m, uint64_t key, int *created)
{
	int found;
	size_t i;

	if ((m->count + 1) * 4 > m->cap * 3 && grow(m))
		return NULL;
	i = slot_of(m, key, &found);
	if (!found) {
		m->used[i] = 1;
		m->keys[i] = key;
		memset((char *)m->vals + i * m->val_size, 0, m->val_size);
		m->count++;
	}
	if (created)
		*created = !found;
	return (char *)m->vals + i * m->val_size;
}
