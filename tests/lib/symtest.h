/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tests/workloads/symtest, the ELF test subject of test_elfsym and
 * test_symbolize: its absolute path, and a REQUIRE that it was built.
 */
#ifndef XLP_TEST_SYMTEST_H
#define XLP_TEST_SYMTEST_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "testlib.h"

static inline const char *symtest(void)
{
	static char path[PATH_MAX];

	if (!path[0]) {
		char rel[PATH_MAX];

		snprintf(rel, sizeof(rel), "%s/.output/tests/workloads/symtest", tl_root());
		if (!realpath(rel, path))
			snprintf(path, sizeof(path), "%s", rel);
	}
	return path;
}

#define REQUIRE_SYMTEST()                                                                          \
	REQUIRE(access(symtest(), X_OK) == 0, "%s missing: make .output/tests/workloads/symtest",  \
		symtest())

#endif
