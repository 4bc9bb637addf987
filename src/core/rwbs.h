/* SPDX-License-Identifier: MIT */
/* rwbs.h - the zone-command letters of the kernel's rwbs strings, read the
 * same way by the block importers (imp_blk_rwbs) and the recorder
 * (cap_rwbs_parse). */
#ifndef IOSTORM_CORE_RWBS_H
#define IOSTORM_CORE_RWBS_H

#include <stddef.h>

enum rwbs_zone {
	RWBS_ZONE_BAD = -1,   /* no zone command iostorm knows           */
	RWBS_ZONE_APPEND = 0, /* "ZA": a write of its length             */
	RWBS_ZONE_MGMT = 1,   /* "ZR", "ZRA", "ZO", "ZC", "ZF": no data  */
};

/*
 * blk_fill_rwbs() names zone commands since 2025: 'Z' and a letter, "ZRA"
 * resetting all zones.  s[*i] is the letter after the 'Z'; *i is moved
 * past the command's letters.  An append is a write of its length (where
 * the zone's write pointer was); reset, open, close and finish move no
 * data a replay could redo.
 */
static inline enum rwbs_zone rwbs_zone(const char *s, size_t len, size_t *i)
{
	if (*i >= len)
		return RWBS_ZONE_BAD;
	switch (s[(*i)++]) {
	case 'A':
		return RWBS_ZONE_APPEND;
	case 'R':
		if (*i < len && s[*i] == 'A')
			(*i)++;
		return RWBS_ZONE_MGMT;
	case 'O':
	case 'C':
	case 'F':
		return RWBS_ZONE_MGMT;
	default:
		return RWBS_ZONE_BAD;
	}
}

#endif
