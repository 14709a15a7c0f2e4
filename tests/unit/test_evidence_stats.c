/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The statistics behind the evidence rules (analysis/stats/stats_tests.c) against
 * values computed by hand: the runs test (with and without a Markov
 * chain), Mann-Whitney, the gap test, Fisher's exact test. The rules on
 * synthetic traces are in test_significance.c.
 */
#include <math.h>
#include <stdint.h>
#include "testds.h"
#include "testlib.h"
#include "stats_tests.h"

/* ---------- the statistics ---------- */

TEST(runs_test_counts_bursts)
{
	uint8_t alt[40], burst[40];
	uint32_t streaks;
	double p, expected;

	for (int i = 0; i < 40; i++) {
		alt[i] = i % 4 == 0;	      /* 10 ones, spread out */
		burst[i] = i >= 10 && i < 20; /* 10 ones in one burst */
	}
	p = stats__runs_test(alt, 40, &streaks, &expected);
	CHECK(streaks == 10 && p > 0.5, "spread: %u streaks, p %g", streaks, p);
	CHECK(fabs(expected - 10.0 * 31 / 40) < 1e-12, "expected %g", expected);
	p = stats__runs_test(burst, 40, &streaks, &expected);
	/* R = 3, mu = 16, var = 2*300*560/(1600*39) = 5.385: z = (3 - 16 + 0.5) / 2.32 */
	CHECK(streaks == 1, "%u", streaks);
	CHECK(fabs(p - stats__norm_cdf(-12.5 / sqrt(5.384615))) < 1e-9, "p %g", p);
	CHECK(stats__runs_test(burst, 0, &streaks, &expected) == 1.0, "empty");
}

/*
 * The runs test under a drift: lambda = 0 is the exact test; for lambda
 * = 0.5 the formula agrees with 200 000 simulated chains of 40 runs,
 * conditioned on their number of 1s; the more persistent the chain, the
 * likelier few streaks are.
 */
TEST(runs_test_markov_exact_and_simulated)
{
	uint8_t seq[40], burst[40];
	uint32_t r, streaks;
	double expected, p0, p5, p8;
	uint64_t st = 77;
	unsigned hit = 0, cond = 0;

	for (int i = 0; i < 40; i++)
		burst[i] = (i >= 10 && i < 14) || (i >= 30 && i < 34); /* 8 ones, 2 streaks */
	p0 = stats__runs_test_markov(burst, 40, 0, &r);
	CHECK(r == 2 && fabs(p0 - stats__runs_test(burst, 40, &streaks, &expected)) < 1e-12,
	      "lambda 0: %g vs %g", p0, stats__runs_test(burst, 40, &streaks, &expected));
	p5 = stats__runs_test_markov(burst, 40, 0.5, &r);
	p8 = stats__runs_test_markov(burst, 40, 0.8, &r);
	CHECK(p0 < p5 && p5 < p8 && p8 <= 1, "p %g %g %g", p0, p5, p8);
	/* simulated: q = 8/40, lambda 0.5 */
	for (int k = 0; k < 200000; k++) {
		double q = 0.2, lam = 0.5;
		unsigned n1 = 0;

		st = st * 6364136223846793005ULL + 1442695040888963407ULL;
		seq[0] = (double)(st >> 11) / 9007199254740992.0 < q;
		for (int i = 1; i < 40; i++) {
			double u, p1 = seq[i - 1] ? 1 - (1 - q) * (1 - lam) : q * (1 - lam);

			st = st * 6364136223846793005ULL + 1442695040888963407ULL;
			u = (double)(st >> 11) / 9007199254740992.0;
			seq[i] = u < p1;
		}
		for (int i = 0; i < 40; i++)
			n1 += seq[i];
		if (n1 != 8)
			continue;
		cond++;
		stats__runs_test_markov(seq, 40, 0, &r);
		hit += r <= 2;
	}
	double emp = (double)hit / cond, se = sqrt(p5 * (1 - p5) / cond);

	CHECK(cond > 5000 && fabs(emp - p5) < 4 * se + 1e-4,
	      "simulated P(<= 2 streaks | 8 of 40) %.5f (%u of %u), formula %.5f", emp, hit, cond,
	      p5);
}

TEST(mann_whitney_by_hand)
{
	double v[6] = {1, 2, 3, 4, 5, 6};
	uint8_t hi[6] = {0, 0, 0, 1, 1, 1}, lo[6] = {1, 1, 1, 0, 0, 0}, same[6] = {0};
	double eq[6] = {7, 7, 7, 7, 7, 7};
	/* U = 9, mu = 4.5, var = 9 * 7 / 12 = 5.25: the normal approximation */
	double normal = 1 - stats__norm_cdf((9 - 4.5 - 0.5) / sqrt(5.25));
	double w40[40] = {0}, x[6] = {1, 2, 4, 3, 5, 6};
	uint8_t s40[40] = {0};

	/* U = 9 is the most extreme of C(6, 3) = 20 equally likely rankings:
	 * exactly 1/20, where the approximation says 0.040 */
	CHECK(normal < 0.045, "%g", normal);
	CHECK(fabs(stats__mann_whitney(v, hi, 6) - 1.0 / 20) < 1e-12, "%g",
	      stats__mann_whitney(v, hi, 6));
	/* not at the extreme: the approximation stands (U = 8) */
	CHECK(fabs(stats__mann_whitney(x, hi, 6) -
		   (1 - stats__norm_cdf((8 - 4.5 - 0.5) / sqrt(5.25)))) < 1e-12,
	      "%g", stats__mann_whitney(x, hi, 6));
	/* 2 slow runs with a few ms of a resource, 38 fast at zero: the
	 * approximation gives 4e-10; no outcome is rarer than 1/C(40,2) */
	w40[0] = 2e6;
	w40[1] = 3e6;
	s40[0] = s40[1] = 1;
	CHECK(fabs(stats__mann_whitney(w40, s40, 40) - 1.0 / 780) < 1e-12, "%g",
	      stats__mann_whitney(w40, s40, 40));
	CHECK(stats__mann_whitney(v, lo, 6) > 0.9, "lower is not larger");
	CHECK(stats__mann_whitney(eq, hi, 6) == 1.0, "ties everywhere: no evidence");
	CHECK(stats__mann_whitney(v, same, 6) == 1.0, "one class");
}

TEST(gap_test_two_modes_vs_smooth_tails)
{
	double v[100];
	struct stats_gap g;

	/* 75 runs around 10 ms, 25 around 13 ms (+30 %), each with 1 % spread */
	for (int i = 0; i < 100; i++)
		v[i] = (i < 75 ? 10e6 : 13e6) * (1 + 0.01 * tds_qnorm((i % 25 + 0.5) / 25));
	CHECK(!stats__gap_test(v, 100, 11.5e6, 0, &g), "-");
	CHECK(g.nabove == 25 && g.p < 1e-6, "two modes: p %g ratio %g", g.p, g.ratio);
	CHECK(g.lo < 10.3e6 && g.hi > 12.6e6, "gap %g..%g", g.lo, g.hi);
	/* smooth distributions, sample = their quantiles; split at the 84th percentile */
	for (int kind = 0; kind < 3; kind++) {
		for (int i = 0; i < 100; i++) {
			double q = (i + 0.5) / 100;

			v[i] = kind == 0   ? 10e6 * exp(0.5 * tds_qnorm(q)) /* lognormal */
			       : kind == 1 ? 10e6 * pow(1 - q, -1 / 1.5)    /* Pareto, alpha 1.5 */
					   : 10e6 * (1 - log(1 - q));	    /* exponential */
		}
		CHECK(!stats__gap_test(v, 100, (v[83] + v[84]) / 2, 0, &g), "-");
		CHECK(g.p > 0.5, "smooth tail %d: p %g ratio %g", kind, g.p, g.ratio);
	}
}

/*
 * bg_disk_cpu as recorded: 90 fast calls, 30 four times slower; four of
 * those ran in requests whose latency stayed under the slow cut, so the
 * tree put the threshold inside the slow mode. The gap that separates the
 * mode is below the threshold, and it is the one the test must find.
 */
TEST(gap_test_finds_the_gap_below_a_threshold_inside_the_slow_mode)
{
	double v[120];
	struct stats_gap g;

	for (int i = 0; i < 120; i++)
		v[i] = i < 90 ? 5e6 + 8e6 * (i + 0.5) / 90 : 40e6 * exp(0.6 * (i - 89.5) / 30);
	CHECK(!stats__gap_test(v, 120, (v[94] + v[95]) / 2, 0, &g), "-");
	CHECK(g.nabove == 25, "above %u", g.nabove);
	CHECK(g.p < 1e-6, "p %g ratio %g gap %g..%g", g.p, g.ratio, g.lo, g.hi);
	CHECK(g.lo < 13.1e6 && g.hi > 40e6, "gap %g..%g", g.lo, g.hi);
}

/*
 * Most runs never wait (zero), the rest wait a smooth spread of times: the
 * jump from zero to the first wait is no mode unless the tree split there.
 */
TEST(gap_test_zero_atom_is_no_mode_away_from_the_threshold)
{
	double v[100];
	struct stats_gap g;

	for (int i = 0; i < 100; i++)
		v[i] = i < 60 ? 0 : 1e6 * exp(0.8 * tds_qnorm((i - 59.5) / 40));
	CHECK(!stats__gap_test(v, 100, (v[89] + v[90]) / 2, 0, &g), "-");
	CHECK(g.p > 0.01, "p %g ratio %g gap %g..%g", g.p, g.ratio, g.lo, g.hi);
	/* split at the atom's edge by the tree: the runs that waited at all */
	CHECK(!stats__gap_test(v, 100, 1, 0, &g), "-");
	CHECK(g.p < 1e-6, "p %g", g.p);
}

/* Fisher's one-sided exact test against the hypergeometric by hand. */
TEST(fisher_by_hand)
{
	/* 2 or 3 of the 3 slow among the 3 past a split of 48: (3*45 + 1) / C(48,3) */
	CHECK(fabs(stats__fisher(2, 3, 3, 48) - 136.0 / 17296) < 1e-12, "%g",
	      stats__fisher(2, 3, 3, 48));
	CHECK(fabs(stats__fisher(3, 3, 3, 48) - 1.0 / 17296) < 1e-12, "-");
	CHECK(stats__fisher(0, 3, 3, 48) == 1.0, "none or more is certain");
	/* 12 slow of 48, all 12 past a split that holds 12: 1 / C(48,12) */
	CHECK(fabs(stats__fisher(12, 12, 12, 48) / exp(-lgamma(49) + lgamma(13) + lgamma(37)) - 1) <
		      1e-9,
	      "%g", stats__fisher(12, 12, 12, 48));
	CHECK(stats__fisher(4, 3, 5, 48) == 1.0 && stats__fisher(1, 3, 5, 0) == 1.0,
	      "nothing to test");
}

/*
 * Ties at a positive value are no gap: two runs past the threshold with
 * the same time leave a zero spacing, and the ratio of the gap to it is
 * infinite whatever the gap. Below a threshold at zero they are the atom.
 */
TEST(gap_test_ties_measure_nothing_but_the_zero_atom)
{
	double v[40];
	struct stats_gap g;

	for (int i = 0; i < 40; i++)
		v[i] = i < 38 ? 1e6 * (1 + 0.01 * i) : 3e6;
	CHECK(!stats__gap_test(v, 40, 2e6, 0, &g), "-");
	CHECK(g.nabove == 2 && g.p > 0.5, "p %g ratio %g", g.p, g.ratio);
	for (int i = 0; i < 40; i++)
		v[i] = i < 15 ? 0 : 1e6 * (1 + 0.01 * i);
	CHECK(!stats__gap_test(v, 40, 1, 0, &g), "-");
	CHECK(g.p < 1e-6, "runs that waited against runs that never did: p %g", g.p);
}

TEST_MAIN()
