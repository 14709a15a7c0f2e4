/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Small descriptive statistics on arrays of doubles. Everything here is
 * deterministic: sorting uses a total order, sums run in array order.
 */
#ifndef XLP_STATS_H
#define XLP_STATS_H

#include <stddef.h>

/* Sorts ascending in place (NaN never occurs in our data). */
void stats__sort(double *v, size_t n);
/* Linear interpolation between closest ranks (Hyndman-Fan type 7). */
double stats__quantile_sorted(const double *sorted, size_t n, double q);
/* Quantile of unsorted data: copies and sorts. 0 when n == 0, NAN on ENOMEM. */
double stats__quantile(const double *v, size_t n, double q);
double stats__median(const double *v, size_t n);
double stats__mean(const double *v, size_t n);
/* Population standard deviation (divides by n). */
double stats__stddev(const double *v, size_t n);

#endif
