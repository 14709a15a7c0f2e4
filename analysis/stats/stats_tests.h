/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The statistical tests of the stats module (stats__*, as stats.h): the
 * evidence that slow runs are a slowdown with a cause rather than the
 * ordinary tail of a workload. Every test returns a p-value under an
 * explicit null hypothesis, so a report can print why it accused or did
 * not. Pure functions of their input: deterministic, no allocation beyond
 * scratch space. The diagnosis applies them in significance.c.
 */
#ifndef XLP_STATS_TESTS_H
#define XLP_STATS_TESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* P(Z <= z) for a standard normal Z. */
double stats__norm_cdf(double z);

/*
 * Wald-Wolfowitz runs test on a 0/1 sequence in time order: are the 1s
 * (slow runs) clustered? H0: the order is random. Returns the one-sided
 * p-value of "this few streaks or fewer" (exact: hypergeometric); *streaks
 * is the number of maximal streaks of 1s (bursts), *expected what a random
 * order gives on average, n1 (n0 + 1) / n. 1.0 when there is nothing to
 * test (no 1 or no 0).
 */
double stats__runs_test(const uint8_t *seq, size_t n, uint32_t *streaks, double *expected);

/*
 * The runs test when the whole sequence drifts: H0 is a stationary
 * two-state Markov chain whose lag-1 correlation is lambda (0: the test
 * above; clamped to [0, 0.9]), with the observed share of 1s. Returns the
 * exact P(this few streaks of 1s or fewer | their number); *streaks as
 * above.
 */
double stats__runs_test_markov(const uint8_t *seq, size_t n, double lambda, uint32_t *streaks);

/*
 * Mann-Whitney U test: are the values of the slow samples larger than
 * those of the fast ones? H0: both come from one distribution. One-sided
 * p-value, normal approximation with the tie correction, never below the
 * exact test's smallest, 1 / C(n, nslow). 1.0 when a class is empty.
 */
double stats__mann_whitney(const double *v, const uint8_t *slow, size_t n);

/*
 * Fisher's exact test, one-sided: of n samples, k lie past a split and
 * nslow are slow; are hits or more of the slow ones past it by chance?
 * H0: the split is independent of slowness (hypergeometric). Exact, by
 * log-Gamma terms; 1.0 when there is nothing to test.
 */
double stats__fisher(uint32_t hits, uint32_t nslow, uint32_t k, uint32_t n);

/*
 * Runs ranked by a share (q[i]: a resource's part of run i's time; NAN:
 * not ranked), largest first: of the top w, how many are slow? Fisher's
 * exact test, one-sided, at the best w of a grid fixed before the labels
 * are seen (1, 2, ... 6, 8, 10, 13, 17... growing by a third, each moved to
 * the end of its ties, plus the number of runs with a share above 0), up
 * to n / 2, where slow runs are at least half the top w. H0: the shares
 * are independent of the labels. p is uncorrected: windows says how many
 * places the grid had, for a correction over every share tried.
 */
struct stats_top {
	double p;	    /* Fisher's p at the best w; 1 when no window qualifies */
	uint32_t w, hits;   /* the best window, and its slow runs */
	uint32_t nslow, n;  /* slow runs ranked, runs ranked */
	uint32_t windows;   /* places on the grid */
	double cut;	    /* the smallest share among the top w; NAN without one */
	double fast_median; /* the fast runs' median share */
};

int stats__top_share(const double *q, const uint8_t *slow, size_t n, struct stats_top *out);

/*
 * Gap between the fast and the slow side of a split against the spacings
 * on its minority side (up to n / 2 of them), on log values. H0: one smooth unimodal
 * density. Spacings of an ordered sample behave locally like independent
 * exponentials whose mean grows where the density falls, and the minority
 * side of a split is the tail, where it falls: so the gap over the median
 * M of c such spacings (the k-th smallest, k = ceil(c/2); one stray run
 * cannot move it) exceeds r with probability at most
 * prod_{j<=k} (c - j + 1) / (c - j + 1 + r), exact for equal means. A distinct mode, a tight group
 * of slow runs far from the rest, leaves a gap many times its own spacings; a natural tail thins
 * out and does not. Sidak-corrected for the n / 2 places the split could have been.
 */
struct stats_gap {
	double lo, hi;	 /* largest value at or below the threshold, smallest above */
	double ratio;	 /* gap / median spacing on the minority side */
	double p;	 /* chance of a gap this large among the spacings tested */
	uint32_t nabove; /* values above the threshold */
};

/*
 * v: n values > 0 (times), threshold: the split, res: how finely the
 * values are known (0: exactly; a sampled time is a multiple of the
 * sampling period, so values closer than res are not told apart and a
 * spacing counts as at least res: ties of quantized values are not a
 * zero spread). Returns 0 or -ENOMEM.
 */
int stats__gap_test(const double *v, size_t n, double threshold, double res, struct stats_gap *out);

#endif
