/* SPDX-License-Identifier: MIT */
/* header.c - trace header: ordered metadata and the device table. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iostorm.h"

struct meta_pair {
	char *key;
	char *value;
};

struct ist_header {
	struct meta_pair *meta;
	unsigned nmeta, meta_cap;
	/* Index of the keys once there are many (a capture's stream.N per
	 * connection, tens of thousands): open addressing, slot = meta
	 * index + 1, 0 empty; mcap a power of two above 2 * nmeta. */
	unsigned *midx, mcap;
	struct ist_device *dev;
	unsigned ndev, dev_cap;
};

ist_header *ist_header_new(void)
{
	return calloc(1, sizeof(struct ist_header));
}

void ist_header_free(ist_header *h)
{
	if (!h)
		return;
	for (unsigned i = 0; i < h->nmeta; i++) {
		free(h->meta[i].key);
		free(h->meta[i].value);
	}
	for (unsigned i = 0; i < h->ndev; i++)
		free((char *)h->dev[i].name);
	free(h->meta);
	free(h->midx);
	free(h->dev);
	free(h);
}

#define MIDX_MIN 32 /* pairs below which a scan is as fast */

static unsigned key_hash(const char *key)
{
	uint32_t x = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		x = (x ^ *p) * 16777619u;
	return x;
}

/* Puts meta[i] in the index (which has room). */
static void midx_put(ist_header *h, unsigned i)
{
	unsigned s = key_hash(h->meta[i].key) & (h->mcap - 1);

	while (h->midx[s])
		s = (s + 1) & (h->mcap - 1);
	h->midx[s] = i + 1;
}

/* Makes the index hold n pairs: 0, or -ENOMEM (the scan still works). */
static int midx_reserve(ist_header *h, unsigned n)
{
	unsigned cap = h->mcap ? h->mcap : 64, *m;

	if (n < MIDX_MIN || (h->midx && 2 * n < h->mcap))
		return 0;
	while (2 * n >= cap)
		cap *= 2;
	m = calloc(cap, sizeof(*m));
	if (!m)
		return -ENOMEM;
	free(h->midx);
	h->midx = m;
	h->mcap = cap;
	for (unsigned i = 0; i < h->nmeta; i++)
		midx_put(h, i);
	return 0;
}

/* The index of key's pair, or -1. */
static int meta_find(const ist_header *h, const char *key)
{
	if (h->midx) {
		for (unsigned s = key_hash(key) & (h->mcap - 1); h->midx[s];
		     s = (s + 1) & (h->mcap - 1))
			if (!strcmp(h->meta[h->midx[s] - 1].key, key))
				return (int)h->midx[s] - 1;
		return -1;
	}
	for (unsigned i = 0; i < h->nmeta; i++)
		if (!strcmp(h->meta[i].key, key))
			return (int)i;
	return -1;
}

ist_header *ist_header_dup(const ist_header *h)
{
	ist_header *d = ist_header_new();

	if (!d)
		return NULL;
	for (unsigned i = 0; i < h->nmeta; i++)
		if (ist_header_set(d, h->meta[i].key, h->meta[i].value) < 0)
			goto fail;
	for (unsigned i = 0; i < h->ndev; i++)
		if (ist_header_add_device(d, h->dev[i].name, h->dev[i].size,
					  h->dev[i].block_size) < 0)
			goto fail;
	return d;
fail:
	ist_header_free(d);
	return NULL;
}

int ist_header_set(ist_header *h, const char *key, const char *value)
{
	char *v;
	int i;

	if (!key || !*key || !value)
		return -EINVAL;
	v = strdup(value);
	if (!v)
		return -ENOMEM;
	i = meta_find(h, key);
	if (i >= 0) {
		free(h->meta[i].value);
		h->meta[i].value = v;
		return 0;
	}
	if (midx_reserve(h, h->nmeta + 1)) {
		free(v);
		return -ENOMEM;
	}
	if (h->nmeta == h->meta_cap) {
		unsigned cap = h->meta_cap ? h->meta_cap * 2 : 8;
		struct meta_pair *m = realloc(h->meta, cap * sizeof(*m));

		if (!m) {
			free(v);
			return -ENOMEM;
		}
		h->meta = m;
		h->meta_cap = cap;
	}
	h->meta[h->nmeta].key = strdup(key);
	if (!h->meta[h->nmeta].key) {
		free(v);
		return -ENOMEM;
	}
	h->meta[h->nmeta].value = v;
	if (h->midx)
		midx_put(h, h->nmeta);
	h->nmeta++;
	return 0;
}

const char *ist_header_get(const ist_header *h, const char *key)
{
	int i = meta_find(h, key);

	if (i >= 0)
		return h->meta[i].value;
	return NULL;
}

unsigned ist_header_meta_count(const ist_header *h)
{
	return h->nmeta;
}

int ist_header_meta_at(const ist_header *h, unsigned i, const char **key,
		       const char **value)
{
	if (i >= h->nmeta)
		return IST_ERANGE;
	*key = h->meta[i].key;
	*value = h->meta[i].value;
	return 0;
}

int ist_header_add_device(ist_header *h, const char *name, uint64_t size,
			  uint32_t block_size)
{
	char *n;

	if (!name)
		return -EINVAL;
	if (h->ndev >= IST_MAX_FOOTER_DEVICES)
		return IST_ERANGE;
	n = strdup(name);
	if (!n)
		return -ENOMEM;
	if (h->ndev == h->dev_cap) {
		unsigned cap = h->dev_cap ? h->dev_cap * 2 : 4;
		struct ist_device *d = realloc(h->dev, cap * sizeof(*d));

		if (!d) {
			free(n);
			return -ENOMEM;
		}
		h->dev = d;
		h->dev_cap = cap;
	}
	h->dev[h->ndev].name = n;
	h->dev[h->ndev].size = size;
	h->dev[h->ndev].block_size = block_size;
	return (int)h->ndev++;
}

int ist_header_find_device(const ist_header *h, const char *name)
{
	for (unsigned i = 0; i < h->ndev; i++)
		if (!strcmp(h->dev[i].name, name))
			return (int)i;
	return IST_EDEVICE;
}

unsigned ist_header_device_count(const ist_header *h)
{
	return h->ndev;
}

const struct ist_device *ist_header_device(const ist_header *h, unsigned i)
{
	return i < h->ndev ? &h->dev[i] : NULL;
}

int ist_header_set_device_size(ist_header *h, unsigned i, uint64_t size)
{
	if (i >= h->ndev)
		return IST_EDEVICE;
	h->dev[i].size = size;
	return 0;
}

int ist_header_set_device_block_size(ist_header *h, unsigned i, uint32_t block_size)
{
	if (i >= h->ndev)
		return IST_EDEVICE;
	h->dev[i].block_size = block_size;
	return 0;
}

void ist_totals_release(struct ist_totals *t)
{
	free(t->dev_max_end);
	t->dev_max_end = NULL;
	t->ndev = 0;
}
