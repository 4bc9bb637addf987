/* SPDX-License-Identifier: MIT */
/* bigmem.h - large buffers in transparent huge pages (internal). */
#ifndef IST_CORE_BIGMEM_H
#define IST_CORE_BIGMEM_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

/*
 * A buffer of IST_BIG_MIN bytes or more is rounded up to whole 2 MiB
 * pages, aligned to them and offered to the kernel for transparent huge
 * pages (madvise: the systems that keep THP to madvise, Debian's
 * default, give them only on request); a smaller one is malloc()'s.
 * Either is released with free().  A first touch of each 4 KiB page is a
 * page fault, and on the bench VM (paravirtualised, shadow page tables)
 * one costs about 20 us: 8 MiB touched took 40-54 ms in 4 KiB pages
 * against 0.7-1.1 ms in huge ones (a scratch program, first touch a
 * page, then memset).  An import's 1,464 faults, most of them the IST
 * writer's chunk buffers and the input stream's, were ~10 % of it.
 * What it costs: the memory of a huge page once any of it is touched.
 */
#define IST_BIG_PAGE (2u << 20)
#define IST_BIG_MIN (1u << 20)

static inline void *ist_big_alloc(size_t size)
{
	void *p;

	if (size < IST_BIG_MIN)
		return malloc(size ? size : 1);
	if (size > SIZE_MAX - IST_BIG_PAGE)
		return NULL;
	size = (size + IST_BIG_PAGE - 1) & ~(size_t)(IST_BIG_PAGE - 1);
	if (posix_memalign(&p, IST_BIG_PAGE, size))
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, size, MADV_HUGEPAGE);
#endif
	return p;
}

#endif
