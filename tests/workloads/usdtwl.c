/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * USDT probes for tests/root/test_usdt.c, from <sys/sdt.h> (Debian's
 * systemtap-sdt-dev), every one guarded by a semaphore (.probes):
 *   usdtwl --calls N   N calls of work(): probe xlpwl:work__start, 2 ms of
 *                      CPU, xlpwl:work__done; then xlpwl:step with a string
 *                      argument ("alpha", "beta" in turn) and, when its
 *                      semaphore says a tracer listens, xlpwl:tick
 *   usdtwl --spin      the same calls without end, 1 ms apart
 * Prints "SEMA <address of tick's semaphore>", then READY <pid> and waits
 * for SIGUSR1; with --calls prints "CALLS n TICKS t BETA b" and DONE <pid>
 * at the end and waits again.
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#define SEMA(p) __extension__ unsigned short p __attribute__((unused, section(".probes")))
SEMA(xlpwl_work__start_semaphore);
SEMA(xlpwl_work__done_semaphore);
SEMA(xlpwl_step_semaphore);
SEMA(xlpwl_tick_semaphore);

static unsigned long ticks, betas;

MARKED static void work(unsigned long i)
{
	STAP_PROBE1(xlpwl, work__start, i);
	wl_burn_cpu_ns(2 * NS_PER_MS);
	STAP_PROBE1(xlpwl, work__done, i);
}

static void one(unsigned long i)
{
	const char *name = i % 2 ? "beta" : "alpha";

	work(i);
	STAP_PROBE2(xlpwl, step, name, i);
	betas += i % 2;
	if (__builtin_expect(xlpwl_tick_semaphore, 0)) {
		STAP_PROBE(xlpwl, tick);
		ticks++;
	}
}

int main(int argc, char **argv)
{
	unsigned long n = 0;
	bool spin = argc > 1 && !strcmp(argv[1], "--spin");

	if (!spin &&
	    (argc < 3 || strcmp(argv[1], "--calls") || !(n = strtoul(argv[2], NULL, 10)))) {
		fprintf(stderr, "usage: usdtwl --calls N | --spin\n");
		return 2;
	}
	wl_block_usr1();
	printf("SEMA %p\n", (void *)&xlpwl_tick_semaphore);
	wl_announce_wait("READY");
	for (unsigned long i = 0; spin || i < n; i++) {
		one(i);
		if (spin)
			wl_sleep_ns(NS_PER_MS);
	}
	printf("CALLS %lu TICKS %lu BETA %lu\n", n, ticks, betas);
	wl_announce_wait("DONE");
	return 0;
}
