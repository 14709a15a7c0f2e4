/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * report --growth's cost (issue 23, make bench section 3): the models of
 * 500 functions (calls and time each) over 10 sizes of 1 000 runs, with a
 * caller-callee pair per ten functions, fitted by growth__analyse (the
 * per-size medians, seven models each, the power law, the hold-out, the
 * spatial inference). Under a second on the project's VM (printed, not
 * judged: the time follows the machine). Prints one line.
 * Usage: bench_growth [FUNCS [SIZES [RUNS_PER_SIZE]]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "growth.h"

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t nf = argc > 1 ? strtoul(argv[1], NULL, 10) : 500;
	size_t ns = argc > 2 ? strtoul(argv[2], NULL, 10) : 10;
	size_t per = argc > 3 ? strtoul(argv[3], NULL, 10) : 1000;
	size_t nr = ns * per, np = nf / 10;
	double *size = malloc(nr * sizeof(*size)), *lat = malloc(nr * sizeof(*lat));
	double *calls = malloc(nf * nr * sizeof(*calls)), *time = malloc(nf * nr * sizeof(*time));
	struct growth_pair *pairs = calloc(np + 1, sizeof(*pairs));
	struct growth_input in = {.nruns = nr,
				  .nfuncs = nf,
				  .size = size,
				  .latency = lat,
				  .calls = calls,
				  .time = time,
				  .pairs = pairs,
				  .npairs = np};
	uint64_t s = 1;
	struct growth_result *r;
	double t0, t1;

	if (!size || !lat || !calls || !time || !pairs || !nf || ns < 4 || !per)
		return 2;
	for (size_t i = 0; i < nr; i++) {
		size[i] = 1000 * pow(2, (double)(i / per));
		lat[i] = 0;
	}
	for (size_t f = 0; f < nf; f++)
		for (size_t i = 0; i < nr; i++) {
			double n = size[i], e;

			s = s * 6364136223846793005ull + 1442695040888963407ull;
			e = 1 + 0.05 * ((double)(s >> 11) / (double)(1ull << 53) - 0.5);
			calls[f * nr + i] = f % 3 ? 1 : floor(n / 64);
			time[f * nr + i] = (1e4 + (f % 3 == 2 ? n * n / 1e3 : n * log(n))) * e;
			lat[i] += time[f * nr + i];
		}
	for (size_t p = 0; p < np; p++)
		pairs[p] = (struct growth_pair){.parent = (uint32_t)(10 * p),
						.child = (uint32_t)(10 * p + 1),
						.time = time + (10 * p + 1) * nr};
	t0 = now_s();
	if (growth__analyse(&in, 0, &r))
		return 1;
	t1 = now_s();
	/* an absolute time follows the machine: printed, not judged */
	printf("  report --growth: %zu functions x %zu sizes x %zu runs: %.3f s to fit (under a "
	       "second on the project's 2-vCPU VM); bottleneck at %g: function %d\n",
	       nf, ns, per, t1 - t0, r->predict_size,
	       r->bottleneck >= 0 ? (int)r->funcs[r->bottleneck].func : -1);
	growth__free(r);
	return 0;
}
