/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Significance tests behind "this is a slowdown with a cause" (see evidence.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "evidence.h"
#include "util.h"
#include "stats.h"

double ev__norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

double ev__runs_test(const uint8_t *seq, size_t n, uint32_t *streaks, double *expected)
{
	double n1 = 0, n2, runs = 0, mu, var;

	*streaks = 0;
	*expected = 0;
	for (size_t i = 0; i < n; i++) {
		n1 += !!seq[i];
		if (i == 0 || !!seq[i] != !!seq[i - 1]) {
			runs++;
			*streaks += !!seq[i];
		}
	}
	n2 = (double)n - n1;
	if (n1 < 1 || n2 < 1 || n < 3)
		return 1.0;
	*expected = n1 * (n2 + 1) / (double)n;
	mu = 1 + 2 * n1 * n2 / (double)n;
	var = 2 * n1 * n2 * (2 * n1 * n2 - (double)n) / ((double)n * n * ((double)n - 1));
	if (var <= 0)
		return 1.0;
	/* continuity correction: runs is an integer */
	return ev__norm_cdf((runs - mu + 0.5) / sqrt(var));
}

struct ranked {
	double v;
	uint8_t slow;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (int)x->slow - (int)y->slow;
}

double ev__mann_whitney(const double *v, const uint8_t *slow, size_t n)
{
	struct ranked *r = malloc(n * sizeof(*r) + 1);
	double n1 = 0, n2, rank_sum = 0, ties = 0, u, mu, var, p = 1.0;

	if (!r)
		return 1.0;
	for (size_t i = 0; i < n; i++) {
		r[i].v = v[i];
		r[i].slow = !!slow[i];
		n1 += r[i].slow;
	}
	n2 = (double)n - n1;
	if (n1 < 1 || n2 < 1)
		goto out;
	xlp_sort(r, n, sizeof(*r), cmp_ranked);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double avg, t;

		while (j < n && r[j].v == r[i].v)
			j++;
		avg = ((double)i + 1 + (double)j) / 2; /* ranks i+1 .. j */
		for (size_t k = i; k < j; k++)
			rank_sum += r[k].slow ? avg : 0;
		t = (double)(j - i);
		ties += t * t * t - t;
		i = j;
	}
	u = rank_sum - n1 * (n1 + 1) / 2;
	mu = n1 * n2 / 2;
	var = n1 * n2 / 12 * (((double)n + 1) - ties / ((double)n * ((double)n - 1)));
	if (var > 0)
		p = 1 - ev__norm_cdf((u - mu - 0.5) / sqrt(var));
	else
		p = 1.0; /* every value equal: nothing differs */
out:
	free(r);
	return p;
}

int ev__gap_test(const double *v, size_t n, double threshold, struct ev_gap *out)
{
	double *y = malloc(n * sizeof(*y) + 1);
	double lt = log(threshold > 1 ? threshold : 1), gap, med, c, p1, *sp = NULL;
	size_t k = 0, split, w, lo, hi, kk;
	int err = 0;

	*out = (struct ev_gap){.p = 1.0, .lo = NAN, .hi = NAN};
	if (!y) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* log scale: a multiplicative spread (a power-law tail) has even spacings */
	for (size_t i = 0; i < n; i++) {
		y[i] = log(v[i] > 1 ? v[i] : 1);
		k += y[i] <= lt;
	}
	stats__sort(y, n);
	out->nabove = (uint32_t)(n - k);
	if (k < 2 || n - k < 2)
		goto cleanup;
	split = k - 1; /* the spacing y[k-1] .. y[k] */
	/* values of 1 ns or less were taken as 1 ns: show them as they were, 0 */
	out->lo = y[split] > 0 ? exp(y[split]) : 0;
	out->hi = y[k] > 0 ? exp(y[k]) : 0;
	gap = y[k] - y[split];
	/*
	 * Reference: the spacings on the minority side of the gap. Under a
	 * unimodal H0 that side is the tail, where the density falls away from
	 * the split and spacings are at least as wide as at the split, and
	 * wider further out: the comparison is conservative, and every spacing
	 * of that side adds power against a tight group of slow runs.
	 */
	w = n / 2;
	if (n - k <= k) {
		lo = k;
		hi = k + w < n - 1 ? k + w : n - 1;
	} else {
		hi = split;
		lo = split > w ? split - w : 0;
	}
	c = (double)(hi - lo);
	if (c < 1 || gap <= 0)
		goto cleanup;
	sp = malloc((hi - lo) * sizeof(*sp));
	if (!sp) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = lo; i < hi; i++)
		sp[i - lo] = y[i + 1] - y[i];
	stats__sort(sp, hi - lo);
	/*
	 * Against the median spacing M (the k-th smallest of c, k = ceil(c/2)),
	 * so that one stray run on the minority side (a VM doubling one run's
	 * CPU time) cannot hide a gap. For i.i.d. exponential spacings,
	 * M = sum_{j<=k} E_j / (c - j + 1) (Renyi), and for an independent gap
	 * P(gap > r M) = E[exp(-r M)] = prod_{j<=k} (c - j + 1) / (c - j + 1 + r).
	 */
	kk = (hi - lo + 1) / 2;
	med = sp[kk - 1];
	if (!(med > 0)) {
		out->ratio = INFINITY; /* half the spacings are zero: ties */
		out->p = 0;
		goto cleanup;
	}
	out->ratio = gap / med;
	p1 = 1;
	for (size_t j = 1; j <= kk; j++)
		p1 *= (c - (double)j + 1) / (c - (double)j + 1 + out->ratio);
	/*
	 * A split with a minority side lies on one side of the median: Sidak's
	 * correction for those n / 2 places (tools/gap-test-sim.py: with splits
	 * placed as the tree places them, smooth samples of 40-300 runs reach
	 * p <= 0.001 at most 0.07 % of the time; without it, up to 0.3 %).
	 */
	out->p = -expm1((double)((n + 1) / 2) * log1p(-p1));
cleanup:
	free(sp);
	free(y);
	return err;
}
