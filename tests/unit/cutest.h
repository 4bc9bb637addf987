/* SPDX-License-Identifier: MIT */
/*
 * cutest.h - the common main() of the CUnit suites.  A suite file defines
 * its tests in a {name, fn} table and calls cutest_main(); the process
 * exits non-zero when any assertion failed (CU_get_number_of_failures(),
 * not only CU_get_error(), which reports framework errors alone), and 77
 * (automake's SKIP) when the suite asks for it through cutest_skip().
 */
#ifndef IST_CUTEST_H
#define IST_CUTEST_H

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>

struct cutest {
	const char *name;
	void (*fn)(void);
};

static inline int cutest_main(const char *suite, const struct cutest *tests)
{
	CU_pSuite s;
	unsigned failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 99;
	s = CU_add_suite(suite, NULL, NULL);
	if (!s)
		return 99;
	for (const struct cutest *t = tests; t->name; t++)
		if (!CU_add_test(s, t->name, t->fn))
			return 99;
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	if (CU_get_error() != CUE_SUCCESS) {
		CU_cleanup_registry();
		return 99;
	}
	if (CU_get_number_of_tests_run() == 0) {
		fprintf(stderr, "%s: no test ran\n", suite);
		CU_cleanup_registry();
		return 99;
	}
	CU_cleanup_registry();
	return failures ? 1 : 0;
}

/* A suite that cannot run here (no io_uring, not root, ...) exits 77. */
static inline void cutest_skip(const char *why)
{
	fprintf(stderr, "SKIP: %s\n", why);
	exit(77);
}

#endif
