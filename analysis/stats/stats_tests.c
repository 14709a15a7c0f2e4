/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Significance tests behind "this is a slowdown with a cause" (see stats_tests.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "stats_tests.h"
#include "util.h"
#include "stats.h"

double stats__norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

static double lchoose(double n, double k);

double stats__runs_test(const uint8_t *seq, size_t n, uint32_t *streaks, double *expected)
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
	/*
	 * Exact: under H0 every placement of the n1 slow runs is equally
	 * likely, and C(n1 - 1, r - 1) C(n2 + 1, r) of the C(n, n1) make r
	 * streaks (the n1 split into r non-empty streaks, put into r of the
	 * n2 + 1 gaps between fast runs). The normal approximation of the
	 * total number of runs it replaces is far too small for a few slow
	 * runs: 3 adjacent ones of 40 gave p = 8e-05 where the exact chance
	 * is 38 / 9880 = 0.004 (an unperturbed e2e scenario accused on it).
	 */
	if (*streaks <= n1) {
		double p = 0;

		for (uint32_t r = 1; r <= *streaks; r++)
			p += exp(lchoose(n1 - 1, r - 1) + lchoose(n2 + 1, r) -
				 lchoose((double)n, n1));
		return p < 1 ? p : 1.0;
	}
	mu = 1 + 2 * n1 * n2 / (double)n;
	var = 2 * n1 * n2 * (2 * n1 * n2 - (double)n) / ((double)n * n * ((double)n - 1));
	if (var <= 0)
		return 1.0;
	/* continuity correction: runs is an integer */
	return stats__norm_cdf((runs - mu + 0.5) / sqrt(var));
}

/* log(exp(a) + exp(b)) */
static double log_add(double a, double b)
{
	if (isinf(a) && a < 0)
		return b;
	if (isinf(b) && b < 0)
		return a;
	return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

double stats__runs_test_markov(const uint8_t *seq, size_t n, double lambda, uint32_t *streaks)
{
	double n1 = 0, n0, q, l11, l00, l10, l01, lp1, lp0, all = -INFINITY, tail = -INFINITY;
	uint32_t r = 0;

	for (size_t i = 0; i < n; i++) {
		n1 += !!seq[i];
		r += seq[i] && (i == 0 || !seq[i - 1]);
	}
	*streaks = r;
	n0 = (double)n - n1;
	if (n1 < 1 || n0 < 1 || n < 3)
		return 1.0;
	lambda = lambda > 0 ? (lambda < 0.9 ? lambda : 0.9) : 0;
	/*
	 * A stationary two-state chain with P(1) = q and lag-1 correlation
	 * lambda: P(1 | 0) = q (1 - lambda), P(0 | 1) = (1 - q) (1 - lambda).
	 * A sequence's chance depends only on its start and its counts of
	 * each transition; those follow from (r1, r0) streaks of 1s and 0s
	 * and which state it starts and ends in, and C(n1 - 1, r1 - 1)
	 * C(n0 - 1, r0 - 1) sequences share them. So P(r1 | n1) is exact, a
	 * sum of at most 4 min(n1, n0 + 1) terms; lambda = 0 gives the
	 * hypergeometric test above.
	 */
	q = n1 / (double)n;
	l01 = log(q * (1 - lambda));
	l10 = log((1 - q) * (1 - lambda));
	l11 = log1p(-(1 - q) * (1 - lambda));
	l00 = log1p(-q * (1 - lambda));
	lp1 = log(q);
	lp0 = log1p(-q);
	for (double r1 = 1; r1 <= n1 && r1 <= n0 + 1; r1++) {
		/* (start, end): 11: r0 = r1 - 1; 10, 01: r0 = r1; 00: r0 = r1 + 1 */
		const double r0s[4] = {r1 - 1, r1, r1, r1 + 1};
		const double st[4] = {lp1, lp1, lp0, lp0};
		const double t10[4] = {r1 - 1, r1, r1 - 1, r1};
		double term = -INFINITY;

		for (int c = 0; c < 4; c++) {
			/* transitions 0 -> 1: one per streak of 0s not at the end */
			double r0 = r0s[c], t01 = r0 - (c == 1 || c == 3), x;

			if (r0 < 1 || r0 > n0)
				continue;
			x = st[c] + (n1 - r1) * l11 + (n0 - r0) * l00 + t10[c] * l10 + t01 * l01 +
			    lchoose(n1 - 1, r1 - 1) + lchoose(n0 - 1, r0 - 1);
			term = log_add(term, x);
		}
		all = log_add(all, term);
		if (r1 <= r)
			tail = log_add(tail, term);
	}
	if (isinf(all))
		return 1.0;
	return fmin(1.0, exp(tail - all));
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

double stats__mann_whitney(const double *v, const uint8_t *slow, size_t n)
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
		p = 1 - stats__norm_cdf((u - mu - 0.5) / sqrt(var));
	else
		p = 1.0; /* every value equal: nothing differs */
	/*
	 * Under H0 every choice of n1 ranks for the slow samples is equally
	 * likely, so no outcome has a p-value below 1 / C(n, n1), the chance
	 * of the most extreme one. The normal approximation goes far below
	 * it when a class is tiny and the other mostly tied (2 slow runs
	 * with a few ms of cpu_wait against 38 zeros: 4e-10, exactly 1/780).
	 */
	p = fmax(p, exp(-lchoose((double)n, n1)));
out:
	free(r);
	return p;
}

static double lchoose(double n, double k)
{
	return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

double stats__fisher(uint32_t hits, uint32_t nslow, uint32_t k, uint32_t n)
{
	uint32_t top = nslow < k ? nslow : k, x = hits;
	double p = 0, term;

	if (!n || k > n || nslow > n || hits > top)
		return 1.0;
	if (k > n - nslow && x < k - (n - nslow))
		x = k - (n - nslow); /* fewer hits cannot happen */
	/*
	 * The first term by log-Gamma, the next ones by the ratio of
	 * consecutive hypergeometric terms; past the mode they fall at least
	 * geometrically, so the sum stops once they no longer count (a scan
	 * over thousands of windows calls this for each).
	 */
	term = exp(lchoose(nslow, x) + lchoose(n - nslow, k - x) - lchoose(n, k));
	for (;;) {
		p += term;
		if (x >= top || (term < p * 1e-17 && (double)x > (double)nslow * k / n))
			break;
		term *= (double)(nslow - x) * (double)(k - x) /
			((double)(x + 1) * ((double)(n - nslow) - (double)(k - x) + 1));
		x++;
	}
	return p < 1 ? p : 1.0;
}

struct share_item {
	double q;
	uint8_t slow;
};

/* Largest share first; ties slow last (the p-value is then never too small). */
static int cmp_share(const void *a, const void *b)
{
	const struct share_item *x = a, *y = b;

	if (x->q != y->q)
		return x->q > y->q ? -1 : 1;
	return (int)x->slow - (int)y->slow;
}

int stats__top_share(const double *q, const uint8_t *slow, size_t n, struct stats_top *out)
{
	struct share_item *it = malloc(n * sizeof(*it) + 1);
	size_t m = 0, hits = 0, npos = 0;

	*out = (struct stats_top){.p = 1, .cut = NAN};
	if (!it)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (isnan(q[i]))
			continue;
		it[m].q = q[i];
		it[m].slow = !!slow[i];
		out->nslow += it[m].slow;
		m++;
	}
	out->n = (uint32_t)m;
	xlp_sort(it, m, sizeof(*it), cmp_share);
	while (npos < m && it[npos].q > 0)
		npos++;
	for (size_t i = 0, next = 1; i < m; i++) {
		double p;

		hits += it[i].slow;
		/* among the top half, above 0 */
		if (i + 1 > m / 2 || !(it[i].q > 0))
			break;
		/*
		 * On a grid of w growing by a third (1, 2, ... 6, 8, 10, 13,
		 * 17...), each moved to the end of its ties, and every run where
		 * the resource was used at all (a resource the fast runs never
		 * use): places chosen before the labels are seen, few enough that
		 * correcting for them costs little, close enough that one of them
		 * is near the best w.
		 */
		if ((i + 1 < next && i + 1 != npos) || (i + 1 < m && it[i + 1].q == it[i].q))
			continue;
		next = i + 1 + ((i + 1) / 3 > 1 ? (i + 1) / 3 : 1);
		out->windows++;
		/*
		 * Only where the slow runs are most of the top w: a resource that
		 * marks the slow runs, not one a little more common in them (on a
		 * busy machine, preemptions in 35 of 49 slow runs of an unperturbed
		 * PostgreSQL sort and in 93 of 359 fast ones, p = 2e-08). Fewer
		 * windows than the correction counts: conservative.
		 */
		if (2 * hits < i + 1 || (double)hits * (double)m <= (double)(i + 1) * out->nslow)
			continue;
		p = stats__fisher((uint32_t)hits, out->nslow, (uint32_t)(i + 1), (uint32_t)m);
		if (p < out->p || !out->w) {
			out->p = p;
			out->w = (uint32_t)(i + 1);
			out->hits = (uint32_t)hits;
		}
	}
	out->cut = out->w ? it[out->w - 1].q : NAN;
	/* the fast runs' median share (shown), over a copy of their shares */
	{
		double *fq = malloc((out->n - out->nslow) * sizeof(*fq) + 1);

		m = 0;
		for (size_t i = 0; fq && i < out->n; i++)
			if (!it[i].slow)
				fq[m++] = it[i].q;
		out->fast_median = fq && m ? stats__median(fq, m) : NAN;
		free(fq);
	}
	free(it);
	return 0;
}

/* Two heaps keeping the k-th smallest (k = ceil(c/2)) of a growing set. */
struct median {
	double *lo, *hi; /* max-heap of the ceil(c/2) smallest, min-heap of the rest */
	size_t nlo, nhi;
};

static void heap_push(double *h, size_t *n, double x, int sign)
{
	size_t i = (*n)++;

	while (i && sign * (x - h[(i - 1) / 2]) > 0) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = x;
}

static double heap_pop(double *h, size_t *n, int sign)
{
	double top = h[0], x = h[--*n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < *n) {
		if (c + 1 < *n && sign * (h[c + 1] - h[c]) > 0)
			c++;
		if (sign * (h[c] - x) <= 0)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = x;
	return top;
}

static void median_add(struct median *m, double x)
{
	if (!m->nlo || x <= m->lo[0])
		heap_push(m->lo, &m->nlo, x, 1);
	else
		heap_push(m->hi, &m->nhi, x, -1);
	/* keep nlo = ceil((nlo + nhi) / 2) */
	if (m->nlo > m->nhi + 1)
		heap_push(m->hi, &m->nhi, heap_pop(m->lo, &m->nlo, 1), -1);
	else if (m->nhi > m->nlo)
		heap_push(m->lo, &m->nlo, heap_pop(m->hi, &m->nhi, -1), 1);
}

/*
 * P(gap > r M) for M the k-th smallest of c i.i.d. exponential spacings:
 * prod_{j<=k} (c - j + 1) / (c - j + 1 + r), as Gamma ratios so that a
 * split costs O(1) whatever c is.
 */
static double gap_p1(double c, double k, double r)
{
	return exp(lgamma(c + 1) - lgamma(c - k + 1) - lgamma(c + 1 + r) + lgamma(c - k + 1 + r));
}

/*
 * The split y[s] .. y[s + 1] against the c spacings y[lo..hi] on its
 * minority side, whose k-th smallest (k = ceil(c/2)) the heaps of m hold.
 */
static void gap_at(const double *y, size_t n, size_t s, const struct median *m, bool below,
		   bool first, double res, struct stats_gap *out)
{
	double gap = y[s + 1] - y[s], c = (double)(m->nlo + m->nhi), ratio, p1, p;

	if (c < 1 || gap <= 0)
		return;
	/*
	 * Values known to res are not told apart closer than that: a sampled
	 * wait of 0 in some runs and one sample's weight in others is where a
	 * sample fell, not two modes (an unperturbed e2e run's pipe read:
	 * ipc_wait 0 or 545 us at a 1 ms resolution, "a gap inf x")
	 */
	if (res > 0 && exp(y[s + 1]) - (y[s] > 0 ? exp(y[s]) : 0) <= res)
		return;
	/*
	 * Against the median spacing M, so that one stray run on the minority
	 * side (a VM doubling one run's CPU time) cannot hide a gap. For
	 * i.i.d. exponential spacings, M = sum_{j<=k} E_j / (c - j + 1)
	 * (Renyi), and for an independent gap P(gap > r M) = E[exp(-r M)]
	 * (gap_p1).
	 */
	/*
	 * Half the spacings zero: ties. Below a split at zero they are an
	 * atom (runs that never waited) and the split is a distinct mode;
	 * ties at a positive value (two runs with the same time) measure
	 * nothing.
	 */
	if (m->lo[0] <= 0 && (!below || y[s] > 0))
		return;
	ratio = m->lo[0] > 0 ? gap / m->lo[0] : INFINITY;
	p1 = isinf(ratio) ? 1 : gap_p1(c, (double)m->nlo, ratio);
	/*
	 * The split is one of the n / 2 places on one side of the median:
	 * Sidak's correction for them (tools/gap-test-sim.py: with thresholds
	 * placed as the tree places them, smooth samples of 40-300 runs reach
	 * p <= 0.001 at most 0.2 % of the time, uniform ones; the others
	 * at most 0.05 %).
	 */
	p = isinf(ratio) ? 0 : -expm1((double)((n + 1) / 2) * log1p(-p1));
	if (first || p < out->p)
		*out = (struct stats_gap){.lo = y[s] > 0 ? exp(y[s]) : 0, /* 1 ns or less: was 0 */
					  .hi = y[s + 1] > 0 ? exp(y[s + 1]) : 0,
					  .ratio = ratio,
					  .p = p,
					  .nabove = out->nabove};
}

/* The spacing y[i] .. y[i + 1] on log values known to res (see stats_tests.h). */
static double spacing(const double *y, size_t i, double res)
{
	double d = y[i + 1] - y[i], floor;

	if (res <= 0 || y[i] <= 0)
		return d;
	floor = log1p(res / exp(y[i]));
	return d > floor ? d : floor;
}

int stats__gap_test(const double *v, size_t n, double threshold, double res, struct stats_gap *out)
{
	double *y = malloc(3 * n * sizeof(*y) + 1);
	double lt = log(threshold > 1 ? threshold : 1);
	struct median m = {0};
	size_t k = 0, z = 0, s, last;

	*out = (struct stats_gap){.p = 1.0, .lo = NAN, .hi = NAN};
	if (!y)
		return -ENOMEM;
	/* log scale: a multiplicative spread (a power-law tail) has even spacings */
	for (size_t i = 0; i < n; i++) {
		y[i] = log(v[i] > 1 ? v[i] : 1);
		k += y[i] <= lt;
		z += y[i] <= 0;
	}
	stats__sort(y, n);
	out->nabove = (uint32_t)(n - k);
	if (k < 2 || n - k < 2)
		goto cleanup;
	m.lo = y + n;
	m.hi = y + 2 * n;
	s = k - 1;
	/* the threshold's split, shown even when no spacing can measure it */
	out->lo = y[s] > 0 ? exp(y[s]) : 0;
	out->hi = y[s + 1] > 0 ? exp(y[s + 1]) : 0;
	/*
	 * The minority side of the split is the tail, where under a unimodal
	 * H0 the density falls away from the split and spacings are at least
	 * as wide as at the split, and wider further out: comparing the gap
	 * with all of that side's spacings (at most n / 2) is conservative,
	 * and every one adds power against a tight group of slow runs.
	 */
	if (n - k > k) {
		/* the runs past the threshold are the majority: that split only */
		for (size_t i = 0; i < s; i++)
			median_add(&m, spacing(y, i, res));
		gap_at(y, n, s, &m, true, true, res, out);
		goto cleanup;
	}
	/*
	 * The runs past the threshold are the minority. They form a distinct
	 * mode when a gap separates them from the bulk: at the threshold, or
	 * nearer the bulk when runs of the same mode fell short of it (a 4x
	 * slower call in a request whose latency stayed under the slow cut
	 * moves the tree's threshold into the slow mode). So every split from
	 * the threshold down to the median is tested, each step moving one
	 * spacing onto the minority side. Zero is an atom, not part of a
	 * smooth density (most runs never wait on a lock): below the
	 * threshold, the median is that of the runs above zero, so that the
	 * walk stays in a tail and never tests the edge of the zeros.
	 */
	last = (n - 1) / 2;
	if (z < n && z + (n - z - 1) / 2 > last)
		last = z + (n - z - 1) / 2;
	for (size_t i = s + 1; i + 1 < n; i++)
		median_add(&m, spacing(y, i, res));
	for (;;) {
		gap_at(y, n, s, &m, false, s == k - 1, res, out);
		if (s <= last)
			break;
		median_add(&m, spacing(y, s, res));
		s--;
	}
cleanup:
	free(y);
	return 0;
}
