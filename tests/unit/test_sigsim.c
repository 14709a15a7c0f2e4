/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The operating characteristic of the evidence rules against issue 21's
 * targets, a fast version of tests/bench/bench_significance (make bench
 * prints the full table; tests/lib/sigsim.h has the shapes). Seeded: the
 * same trials every time, no timing. A natural shape may accuse at most
 * as often as a rate of 0.5 % allows (the binomial bound below); the
 * perturbed shapes of the targets must be detected in 90 % of the trials
 * or more. The shapes the table marks as not told apart are left out: a
 * test does not assert what the rules cannot do.
 */
#include <math.h>
#include "sigsim.h"
#include "testlib.h"

/* Largest count of accusations that 0.5 % per trial reaches with chance above 0.001. */
static unsigned binomial_bound(unsigned trials, double rate)
{
	double tail = 1;

	for (unsigned c = 0; c <= trials; c++) {
		tail -= exp(lgamma(trials + 1.0) - lgamma(c + 1.0) - lgamma(trials - c + 1.0) +
			    c * log(rate) + (trials - c) * log1p(-rate));
		if (tail <= 0.001)
			return c;
	}
	return trials;
}

static void natural_at(unsigned nruns, unsigned trials)
{
	unsigned bound = binomial_bound(trials, 0.005);

	for (size_t k = 0; k < sigsim_nnatural; k++) {
		const struct sigsim_shape *s = &sigsim_natural[k];
		struct sigsim_count c;

		if (s->alike)
			continue;
		REQUIRE(!sigsim__rate(s, nruns, trials, 1, &c), "%s", s->name);
		CHECK(c.hits <= bound, "%s, %u runs: %u false accusations in %u trials (bound %u)",
		      s->name, nruns, c.hits, trials, bound);
	}
}

/* a drift measured by 34 other runs: the runs test under it (significance.c) */
TEST(natural_shapes_accuse_rarely_40_runs)
{
	natural_at(40, 150);
}

TEST(natural_shapes_accuse_rarely_60_runs)
{
	natural_at(60, 150);
}

TEST(natural_shapes_accuse_rarely_200_runs)
{
	natural_at(200, 40);
}

/*
 * A host that slows the function more than the rest of the run (CI's xz:
 * lzma_code 55 % slower, the rest 11 %): once the runs are enough for the
 * rest's 3 % to show, it is the machine's, at the guard's level (5 %,
 * analysis/diagnosis/work.c) at most; before the guard, 28 % of the
 * trials at 200 runs accused the function of more work.
 */
TEST(uneven_slower_cpu_accuses_at_most_the_guards_rate_200_runs)
{
	for (size_t k = 0; k < sigsim_nnatural; k++) {
		const struct sigsim_shape *s = &sigsim_natural[k];
		struct sigsim_count c;

		if (!s->rest_x)
			continue;
		REQUIRE(!sigsim__rate(s, 200, 100, 1, &c), "%s", s->name);
		CHECK(c.hits <= binomial_bound(100, 0.05),
		      "%s, 200 runs: %u false accusations in 100 trials (bound %u)", s->name,
		      c.hits, binomial_bound(100, 0.05));
	}
}

static void detect(const char *name, unsigned nruns, unsigned trials)
{
	for (size_t k = 0; k < sigsim_nperturbed; k++) {
		const struct sigsim_shape *s = &sigsim_perturbed[k];
		struct sigsim_count c;

		if (strcmp(s->name, name))
			continue;
		REQUIRE(!sigsim__rate(s, nruns, trials, 1, &c), "%s", s->name);
		CHECK(c.hits * 10 >= trials * 9, "%s, %u runs: detected in %u of %u trials",
		      s->name, nruns, c.hits, trials);
		return;
	}
	CHECK(0, "no shape %s", name);
}

/* +30 % in a quarter of 60 runs at a 5 % natural spread */
TEST(step_of_thirty_percent_detected)
{
	detect("step +30 % in 25 %, spread 5 %, lock added", 60, 50);
	detect("step +30 % in 25 %, spread 5 %, disk grew", 60, 50);
}

/* 3x in 5 % of 100 runs at a natural spread of 20 % */
TEST(rare_threefold_detected)
{
	detect("3x in 5 %, spread 20 %, lock added", 100, 50);
	detect("3x in 5 %, spread 20 %, disk grew", 100, 50);
}

/*
 * Issue 36, rule 2: 30 % more CPU work in one window of a quarter of 60
 * runs is the function's (its share of the run's CPU grew, the rest did
 * not), not "the CPU ran slower"; the other outcome, every function 30 %
 * slower in such a window, is a natural shape above (never accused).
 */
TEST(window_of_more_cpu_work_detected)
{
	detect("+30 % CPU in a window of 25 %, spread 5 %", 60, 50);
}

TEST_MAIN()
