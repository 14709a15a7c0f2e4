/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "labels.h"
#include "stats.h"

/*
 * Otsu's criterion on one dimension: the split of the sorted values into
 * a low and a high class that maximizes w0 * w1 * (mu0 - mu1)^2. Equal
 * maxima keep the lowest split, so the result never depends on chance.
 */
double labels__otsu(const double *sorted, size_t n)
{
	double total = 0, left = 0, best = -1;
	size_t best_i = 0;

	if (n < 2)
		return n ? sorted[0] : 0;
	for (size_t i = 0; i < n; i++)
		total += sorted[i];
	for (size_t i = 0; i + 1 < n; i++) {
		double n0 = (double)(i + 1), n1 = (double)(n - i - 1), m0, m1, v;

		left += sorted[i];
		if (sorted[i] == sorted[i + 1])
			continue; /* not a boundary between distinct values */
		m0 = left / n0;
		m1 = (total - left) / n1;
		v = n0 * n1 * (m0 - m1) * (m0 - m1);
		if (v > best) {
			best = v;
			best_i = i;
		}
	}
	if (best < 0) /* all values equal */
		return sorted[n - 1];
	return (sorted[best_i] + sorted[best_i + 1]) / 2;
}

/* sorted is ascending, so the slow runs are its tail. */
static void class_medians(const double *sorted, size_t n, struct labels_summary *sum)
{
	size_t nfast = n - sum->nslow;

	sum->fast_median_ns = nfast ? stats__quantile_sorted(sorted, nfast, 0.5) : NAN;
	sum->slow_median_ns =
		sum->nslow ? stats__quantile_sorted(sorted + nfast, sum->nslow, 0.5) : NAN;
}

static double rule_threshold(const double *sorted, size_t n, const struct labels_rule *rule,
			     const struct labels_summary *sum)
{
	switch (rule->kind) {
	case LABELS_FIXED:
		return rule->threshold_ns;
	case LABELS_AUTO:
		return labels__otsu(sorted, n);
	case LABELS_SIGMA:
	default:
		return sum->median_ns + rule->k * sum->sigma_ns;
	}
}

int labels__compute(const double *lat, size_t n, const struct labels_rule *rule, uint8_t *slow,
		    struct labels_summary *sum)
{
	double *sorted;

	if (!n)
		return -EINVAL;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, lat, n * sizeof(*sorted));
	stats__sort(sorted, n);
	memset(sum, 0, sizeof(*sum));
	sum->n = n;
	sum->median_ns = stats__quantile_sorted(sorted, n, 0.5);
	sum->p90_ns = stats__quantile_sorted(sorted, n, 0.9);
	sum->max_ns = sorted[n - 1];
	sum->mean_ns = stats__mean(sorted, n);
	sum->sigma_ns = stats__stddev(sorted, n);
	sum->threshold_ns = rule_threshold(sorted, n, rule, sum);
	for (size_t i = 0; i < n; i++) {
		slow[i] = lat[i] > sum->threshold_ns;
		sum->nslow += slow[i];
	}
	class_medians(sorted, n, sum);
	free(sorted);
	return 0;
}
