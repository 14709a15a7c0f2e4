/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * USDT probes for tests/root/test_usdt.c, from <sys/sdt.h> (Debian's
 * systemtap-sdt-dev), every one guarded by a semaphore (.probes):
 *   usdtwl --calls N   N calls of work(): probe xlpwl:work__start, 2 ms of
 *                      CPU, xlpwl:work__done; then xlpwl:step with a string
 *                      argument ("alpha", "beta" in turn) and, when its
 *                      semaphore says a tracer listens, xlpwl:tick
 *   usdtwl --spin      the same calls without end, 1 ms apart
 *   usdtwl --bench N   (make bench) N calls of an empty cheap() between
 *                      probes xlpwl:cheap__start and xlpwl:cheap__done, timed:
 *                      READY <pid>, SIGUSR1, then BENCH <N> <elapsed_ns> <ns_per_call>
 *                      <cpu_ns_per_call>
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
SEMA(xlpwl_cheap__start_semaphore);
SEMA(xlpwl_cheap__done_semaphore);

static unsigned long ticks, betas;

MARKED static void work(unsigned long i)
{
	STAP_PROBE1(xlpwl, work__start, i);
	wl_burn_cpu_ns(2 * NS_PER_MS);
	STAP_PROBE1(xlpwl, work__done, i);
}

MARKED static void cheap(unsigned long i)
{
	STAP_PROBE1(xlpwl, cheap__start, i);
	__asm__ volatile("" ::: "memory");
	STAP_PROBE1(xlpwl, cheap__done, i);
}

/* make bench: the cost of a probed call, as funcs --bench times cheap() */
static int bench(unsigned long n)
{
	uint64_t t0, c0;

	wl_block_usr1();
	wl_announce_wait("READY");
	t0 = wl_now_ns();
	c0 = wl_cpu_ns();
	for (unsigned long i = 0; i < n; i++)
		cheap(i);
	t0 = wl_now_ns() - t0;
	c0 = wl_cpu_ns() - c0;
	/* and the thread's CPU time per call, as funcs --bench */
	printf("BENCH %lu %llu %.1f %.1f\n", n, (unsigned long long)t0, n ? (double)t0 / n : 0.0,
	       n ? (double)c0 / n : 0.0);
	return 0;
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

	if (argc == 3 && !strcmp(argv[1], "--bench"))
		return bench(strtoul(argv[2], NULL, 10));

	if (!spin &&
	    (argc < 3 || strcmp(argv[1], "--calls") || !(n = strtoul(argv[2], NULL, 10)))) {
		fprintf(stderr, "usage: usdtwl --calls N | --spin | --bench N\n");
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
