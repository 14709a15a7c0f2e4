/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The operating characteristic of the evidence rules (tests/lib/sigsim.h):
 * false accusation rates on natural shapes, detection rates on perturbed
 * ones, by number of runs. Seeded: the same table every time. Prints the
 * table (make bench; docs/analysis.md, "Evidence: its operating characteristic").
 * Usage: bench_significance [TRIALS [NAME]]   (default 1000 trials up to
 * 200 runs; NAME: only the shapes whose name holds it)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sigsim.h"
#include "testlib.h"

static const unsigned sizes[] = {40, 60, 100, 200, 1000, 3000};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* fewer trials for the long traces: each takes longer to write and analyse */
static unsigned trials_at(unsigned base, unsigned n)
{
	unsigned t = n <= 200 ? base : n <= 1000 ? base / 5 : base / 20;

	return t ? t : 1;
}

static const char *only; /* rows whose name holds it (argv[2]), or all */

static int row(const struct sigsim_shape *s, unsigned base)
{
	struct sigsim_count all = {0};

	if (only && !strstr(s->name, only))
		return 0;
	printf("%-52s", s->name);
	for (size_t i = 0; i < NSIZES; i++) {
		unsigned trials = trials_at(base, sizes[i]);
		struct sigsim_count c;
		int err = sigsim__rate(s, sizes[i], trials, 1, &c);

		if (err)
			return err;
		printf(" %6.1f%%", 100.0 * c.hits / trials);
		fflush(stdout);
		all.hits += c.hits;
		all.mode += c.mode;
		all.bursts += c.bursts;
		all.resource += c.resource;
		all.beyond += c.beyond;
	}
	printf("\n");
	/* which rules accused, over every column (several may hold at once) */
	if (all.hits)
		printf("    by rule: mode %u, bursts %u, resource %u, beyond %u of %u\n", all.mode,
		       all.bursts, all.resource, all.beyond, all.hits);
	if (s->alike)
		printf("    NOT TOLD APART: %s\n", s->alike);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned base = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;

	only = argc == 3 ? argv[2] : NULL;
	uint64_t t0 = tl_now_ns();

	/* --write natural|perturbed INDEX RUNS SEED PATH: one trial's trace */
	if (argc == 7 && !strcmp(argv[1], "--write")) {
		bool nat = !strcmp(argv[2], "natural");
		size_t k = (size_t)atoi(argv[3]);

		if (k >= (nat ? sigsim_nnatural : sigsim_nperturbed))
			return 2;
		return sigsim__write(argv[6], nat ? &sigsim_natural[k] : &sigsim_perturbed[k],
				     (unsigned)atoi(argv[4]), strtoull(argv[5], NULL, 10)) != 0;
	}

	printf("%-52s", "runs:");
	for (size_t i = 0; i < NSIZES; i++)
		printf(" %7u", sizes[i]);
	printf("\ntrials: %u per cell up to 200 runs, %u at 1000, %u at 3000\n", base,
	       trials_at(base, 1000), trials_at(base, 3000));
	printf("\nFALSE ACCUSATIONS (natural shapes, no cause; target <= 0.5 %%)\n");
	for (size_t k = 0; k < sigsim_nnatural; k++)
		if (row(&sigsim_natural[k], base))
			return 1;
	printf("\nDETECTION (perturbed shapes: the slowed function accused)\n");
	for (size_t k = 0; k < sigsim_nperturbed; k++)
		if (row(&sigsim_perturbed[k], base))
			return 1;
	printf("\n%.0f s\n", (tl_now_ns() - t0) / 1e9);
	return 0;
}
