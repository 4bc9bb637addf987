/* SPDX-License-Identifier: MIT */
/* source_ist_stub.c - stands in for source_ist.c until the IST reader is merged. */
#include "config.h"

#include "replay/internal.h"

int rpl_source_ist(struct rpl_source **sp, const char *path)
{
	(void)path;
	*sp = NULL;
	return IST_EUNSUPPORTED;
}
