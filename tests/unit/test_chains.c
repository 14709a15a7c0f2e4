/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which of the picks that reach one function names it (analysis/diagnosis/chains.c,
 * diagnosis__chain_of), on hand-made drill-downs: the chain that holds its added
 * time, not the longest one through a minor caller.
 */
#include <stdint.h>
#include "testlib.h"
#include "diagnosis_impl.h"

enum { HANDLE, COMPUTE, UPDATE, BURN, CRUNCH, OTHER };

/* A drill of n links (function ids), each link holding added[i] ms. */
static struct diagnosis_drill drill(size_t n, const uint32_t *chain, const double *added)
{
	struct diagnosis_drill d = {.n = n};

	for (size_t i = 0; i < n; i++) {
		d.chain[i] = chain[i];
		d.added[i] = added[i] * 1e6;
	}
	return d;
}

/* The winner must be the same whichever drill asks, and never dropped. */
static size_t winner(const struct diagnosis_drill *d, size_t np, uint32_t f)
{
	size_t w = np;

	for (size_t k = 0; k < np; k++) {
		size_t c;

		if (d[k].chain[d[k].n - 1] != f)
			continue;
		c = diagnosis__chain_of(d, np, k, 0.5);
		CHECK(c < np && d[c].chain[d[c].n - 1] == f, "drill %zu named by %zu", k, c);
		CHECK(w == np || w == c, "drill %zu named by %zu, another by %zu", k, c, w);
		w = c;
	}
	CHECK(w == np || diagnosis__chain_of(d, np, w, 0.5) == w, "the winner %zu is dropped", w);
	return w;
}

/*
 * The CI run of 2026-11-28: crunch picked itself (73.8 ms added),
 * compute_checksum -> crunch (71.7 ms of it), burn_cpu_ns -> crunch and
 * update_cache -> burn_cpu_ns -> crunch (2.1 ms). The longest chain used
 * to name it; the one under compute_checksum must.
 */
TEST(chain_through_a_minor_caller_does_not_name_the_function)
{
	struct diagnosis_drill d[4] = {
		drill(1, (uint32_t[]){CRUNCH}, (double[]){73.8}),
		drill(3, (uint32_t[]){UPDATE, BURN, CRUNCH}, (double[]){2.1, 2.1, 2.1}),
		drill(2, (uint32_t[]){BURN, CRUNCH}, (double[]){2.1, 2.1}),
		drill(2, (uint32_t[]){COMPUTE, CRUNCH}, (double[]){71.7, 71.7}),
	};

	CHECK(winner(d, 4, CRUNCH) == 3, "named by drill %zu", winner(d, 4, CRUNCH));
}

/* Chains that all hold most of it: the longest (outermost) names it, as before. */
TEST(longest_chain_among_those_that_hold_it)
{
	struct diagnosis_drill d[3] = {
		drill(1, (uint32_t[]){CRUNCH}, (double[]){10}),
		drill(3, (uint32_t[]){HANDLE, COMPUTE, CRUNCH}, (double[]){12, 10, 9}),
		drill(2, (uint32_t[]){COMPUTE, CRUNCH}, (double[]){10, 9.5}),
	};

	CHECK(winner(d, 3, CRUNCH) == 1, "named by drill %zu", winner(d, 3, CRUNCH));
}

/*
 * Pairwise, "longer and holding half as much" is not transitive (3 links
 * holding 6, 2 holding 10, 1 holding 13): every chain lost to another and
 * the function went unnamed. Measured against the most any chain holds,
 * one of them names it.
 */
TEST(one_chain_names_it_when_pairwise_preferences_cycle)
{
	struct diagnosis_drill d[4] = {
		drill(3, (uint32_t[]){HANDLE, UPDATE, CRUNCH}, (double[]){7, 6, 6}),
		drill(2, (uint32_t[]){COMPUTE, CRUNCH}, (double[]){10, 10}),
		drill(1, (uint32_t[]){CRUNCH}, (double[]){13}),
		drill(1, (uint32_t[]){OTHER}, (double[]){5}),
	};

	CHECK(winner(d, 4, CRUNCH) == 1, "named by drill %zu", winner(d, 4, CRUNCH));
	/* another function's pick is its own */
	CHECK(diagnosis__chain_of(d, 4, 3, 0.5) == 3, "-");
}

TEST_MAIN()
