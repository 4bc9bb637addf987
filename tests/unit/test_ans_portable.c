/* SPDX-License-Identifier: MIT */
/*
 * test_ans_portable.c - ans.c built with FMT_ANS_PORTABLE: the lanes'
 * selects and renormalisations in plain C (masks and a comparison)
 * instead of x86-64's inline cmov, as other machines build them; the
 * cases of ans_lanes.h, which test_format runs on the library's build.
 */
#include "config.h"
#define FMT_ANS_PORTABLE 1
#include "../../src/format/ans.c"

#include "cutest.h"
#include "ans_lanes.h"

int main(void)
{
	static const struct cutest tests[] = {
		{ "ANS lanes in plain C: every model, damaged streams, unused contexts",
		  ans_lanes_cases },
		{ NULL, NULL },
	};

	return cutest_main("ans_portable", tests);
}
