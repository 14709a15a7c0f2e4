// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * lag: an interactive program's events at a steady rate, some of which a
 * person would perceive (LagHunter's 100 ms), for tests/root/test_lag.c
 * and docs/recording.md's record --lag sizes.
 *
 *   lag [--calls N] [--slow-every K] [--key] [--seconds S]
 *
 * Calls on_event(i) N times (default 100): each calls inner() (1 ms of
 * CPU), then sleeps 150 ms when i % K == 0 (default K 10; 0: never) and
 * 5 ms otherwise. --key: the odd calls go to on_key(i) instead, which
 * does the same (a second landmark). --seconds S: as many calls as fit in
 * S seconds instead of N. Prints at the end
 *   CALLS on_event=E on_key=Y slow=S
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */

static long slow_every = 10;

MARKED void inner(void)
{
	wl_burn_cpu_ns(NS_PER_MS);
}

static void work(long i)
{
	inner();
	wl_sleep_ns(slow_every && i % slow_every == 0 ? 150 * NS_PER_MS : 5 * NS_PER_MS);
}

MARKED void on_event(long i)
{
	work(i);
}

MARKED void on_key(long i)
{
	work(i);
}

int main(int argc, char **argv)
{
	long calls = 100, nev = 0, nkey = 0, nslow = 0;
	uint64_t until = 0;
	bool key = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			calls = atol(argv[++i]);
		else if (!strcmp(argv[i], "--slow-every") && i + 1 < argc)
			slow_every = atol(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			until = wl_now_ns() + (uint64_t)atol(argv[++i]) * NS_PER_S;
		else if (!strcmp(argv[i], "--key"))
			key = true;
		else {
			fprintf(stderr, "usage: lag [--calls N] [--slow-every K] [--key] "
					"[--seconds S]\n");
			return 2;
		}
	}
	for (long i = 0; until ? wl_now_ns() < until : i < calls; i++) {
		if (key && i % 2)
			on_key(i), nkey++;
		else
			on_event(i), nev++;
		nslow += slow_every && i % slow_every == 0;
	}
	printf("CALLS on_event=%ld on_key=%ld slow=%ld\n", nev, nkey, nslow);
	return 0;
}
