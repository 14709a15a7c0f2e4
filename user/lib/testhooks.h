/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Test hooks: environment variables XLPROBE_TEST_<name> that let tests
 * simulate what the test machine cannot provide (a kernel without BTF or
 * without a tracepoint, a target that exits during attach). They exist
 * only in the test build of the program, .output/xlprobe-test, compiled
 * with -DXLP_TEST_HOOKS: in the product binary xlp_test_hook() is NULL at
 * compile time, so no code reads them and their names are not even in it.
 */
#ifndef XLP_TESTHOOKS_H
#define XLP_TESTHOOKS_H

#ifdef XLP_TEST_HOOKS
#include <stdlib.h>
#define xlp_test_hook(name) ((const char *)getenv("XLPROBE_TEST_" name))
#else
#define xlp_test_hook(name) ((const char *)NULL)
#endif

#endif
