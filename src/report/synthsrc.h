/* SPDX-License-Identifier: MIT */
/* synthsrc.h - a synth profile (workload emulator) as a replay source for
 * sweeps and preconditioning: generated on the fly, never stored
 * (internal, rpt_ prefix). */
#ifndef IST_REPORT_SYNTHSRC_H
#define IST_REPORT_SYNTHSRC_H

#include <stddef.h>
#include <stdint.h>

#include "replay/replay.h"

#define RPT_SYNTH_MAX_SETS 64

struct rpt_synth_spec {
	const char *profile;  /* a synth profile name, or a .ini mix file */
	const char *sets[RPT_SYNTH_MAX_SETS]; /* "name=value"           */
	unsigned nsets;
	uint64_t seed;        /* 0 = 1                                   */
	uint64_t duration_ns; /* of the generated trace (then rewound)   */
};

/*
 * A source of the profile's records (rewind starts the same records
 * again).  Returns 0, or a negative error with err saying what: -ENOENT
 * for an unknown profile or parameter, IST_EPARSE / IST_ERANGE for a bad
 * value, the profile's own error (an INI file's line) from its start.
 */
int rpt_synth_source(struct rpl_source **s, const struct rpt_synth_spec *spec,
		     char *err, size_t errsize);

#endif
