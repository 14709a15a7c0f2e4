/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Datasets in tests: a trace loaded the way the report loads it, and a
 * function found by its symbol. Failures are failed checks (testlib.h).
 */
#ifndef XLP_TESTDS_H
#define XLP_TESTDS_H

#include <stdbool.h>
#include <stddef.h>
#include "dataset.h"

/* The traces at paths as one dataset (exclusive: --exclusive); NULL on error. */
struct dataset *tds_load_paths(const char *const *paths, size_t n, bool exclusive);
/* One trace, default options. */
struct dataset *tds_load(const char *path);
/* The index of the function named sym, -1 if none. */
int tds_func(const struct dataset *ds, const char *sym);
/* The inverse of the standard normal CDF (bisection): quantiles for synthetic samples. */
double tds_qnorm(double p);

#endif
