/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"
#include "util.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void stats__sort(double *v, size_t n)
{
	if (n > 1)
		xlp_sort(v, n, sizeof(*v), cmp_double);
}

double stats__quantile_sorted(const double *sorted, size_t n, double q)
{
	double pos, frac;
	size_t lo;

	if (!n)
		return 0;
	if (q <= 0)
		return sorted[0];
	if (q >= 1)
		return sorted[n - 1];
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	frac = pos - (double)lo;
	if (lo + 1 >= n)
		return sorted[n - 1];
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

double stats__quantile(const double *v, size_t n, double q)
{
	double *tmp, r;

	if (!n)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return NAN;
	memcpy(tmp, v, n * sizeof(*tmp));
	stats__sort(tmp, n);
	r = stats__quantile_sorted(tmp, n, q);
	free(tmp);
	return r;
}

double stats__median(const double *v, size_t n)
{
	return stats__quantile(v, n, 0.5);
}

double stats__mean(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : 0;
}

double stats__stddev(const double *v, size_t n)
{
	double m = stats__mean(v, n), s = 0;

	for (size_t i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return n ? sqrt(s / (double)n) : 0;
}
