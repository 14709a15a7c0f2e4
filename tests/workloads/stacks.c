// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * stacks: a known call chain that burns CPU where a sampler must find it,
 * for the stack-sampling tests (tests/root/test_sample.c).
 *
 *   main -> outer -> middle -> inner_loop   pure arithmetic, no calls, for
 *                                           the time given (checked every
 *                                           2^16 iterations)
 *   main -> outer -> side                   a tenth of that time, the same way
 *
 *   stacks [--ms N]      (default 400 ms in inner_loop)
 *
 * Built with frame pointers (WL_CFLAGS): the chain is what a frame-pointer
 * unwinder sees from any instruction of inner_loop's loop. Prints
 * "DONE <iterations>" (so the loop cannot be optimised away).
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */

static volatile uint64_t sink;

/*
 * Iterations of arithmetic until ns of thread CPU time went by. Inlined,
 * so that the samples land in the function that calls it.
 */
static inline __attribute__((always_inline)) uint64_t spin_for(uint64_t ns, uint64_t x)
{
	uint64_t start = wl_cpu_ns(), n = 0;

	for (;;) {
		for (int i = 0; i < 65536; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		n += 65536;
		if (wl_cpu_ns() - start >= ns)
			break;
	}
	sink = x;
	return n;
}

static MARKED uint64_t burn(uint64_t ns, uint64_t seed)
{
	return spin_for(ns, seed);
}

/* the loop is here, not in burn(): samples land in inner_loop itself */
MARKED uint64_t inner_loop(uint64_t ns)
{
	return spin_for(ns, 1);
}

MARKED uint64_t middle(uint64_t ns)
{
	return inner_loop(ns) + (sink & 1);
}

MARKED uint64_t side(uint64_t ns)
{
	return burn(ns, 7) + (sink & 1);
}

MARKED uint64_t outer(uint64_t ns)
{
	return middle(ns) + side(ns / 10);
}

int main(int argc, char **argv)
{
	uint64_t ms = 400;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ms") && i + 1 < argc)
			ms = strtoull(argv[++i], NULL, 10);
		else
			wl_die("usage: stacks [--ms N]");
	}
	printf("DONE %llu\n", (unsigned long long)outer(ms * NS_PER_MS));
	return 0;
}
