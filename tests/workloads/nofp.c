// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * nofp: known call chains in code built WITHOUT frame pointers (-O2
 * -fomit-frame-pointer, the Makefile's own rule), as Debian builds glibc,
 * nginx and redis-server: for the CFI unwinding test
 * (tests/root/test_unwind.c).
 *
 *   main -> spin_a -> spin_b -> spin_c           --spin-ms N: N ms of CPU in
 *                                                spin_c, a frameless leaf
 *   main -> nap_a -> nap_b -> nanosleep          --sleep-ms N: asleep N ms in
 *                                                10 ms nanosleeps
 *   main -> wait_a -> wait_b -> wait_c -> read   --fifo PATH: prints
 *                                                "BLOCKED <pid>" and blocks
 *                                                reading one byte of the FIFO
 *                                                (opened read-write: no EOF),
 *                                                then exits
 *
 *   main -> tail_a => spin_c                     --tail-ms N: N ms of CPU in
 *                                                spin_c, which tail_a enters
 *                                                by a jump (a tail call): no
 *                                                frame of tail_a on the stack
 *
 * Each other function does some work after its call, so no call is a tail
 * call and every frame stays on the stack. Prints "DONE <n>".
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <fcntl.h>

#define CHAIN __attribute__((noinline, noipa, used))

static volatile uint64_t sink;

/* the loop is here: a leaf that sets up no frame, all in registers */
CHAIN uint64_t spin_c(uint64_t ns)
{
	uint64_t start = wl_cpu_ns(), x = 1, n = 0;

	do {
		for (int i = 0; i < 65536; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		n += 65536;
	} while (wl_cpu_ns() - start < ns);
	sink = x;
	return n;
}

CHAIN uint64_t spin_b(uint64_t ns)
{
	return spin_c(ns) + (sink & 1);
}

CHAIN uint64_t spin_a(uint64_t ns)
{
	return spin_b(ns) + (sink & 1);
}

/*
 * A jump, as -O2 makes it in Debian's builds (the Makefile turns sibling
 * calls off for the other chains): tail_a's frame is spin_c's
 */
CHAIN __attribute__((optimize("optimize-sibling-calls"))) uint64_t tail_a(uint64_t ns)
{
	return spin_c(ns);
}

CHAIN uint64_t nap_b(uint64_t ms)
{
	struct timespec ts = {0, 10 * 1000 * 1000};
	uint64_t n = 0;

	for (uint64_t i = 0; i < ms / 10; i++)
		n += nanosleep(&ts, NULL) == 0;
	return n;
}

CHAIN uint64_t nap_a(uint64_t ms)
{
	return nap_b(ms) + (sink & 1);
}

/* libc's read, itself built without frame pointers, called from here */
CHAIN uint64_t wait_c(int fd)
{
	char c;

	return (uint64_t)read(fd, &c, 1) + (sink & 1);
}

CHAIN uint64_t wait_b(int fd)
{
	return wait_c(fd) + (sink & 1);
}

CHAIN uint64_t wait_a(int fd)
{
	return wait_b(fd) + (sink & 1);
}

int main(int argc, char **argv)
{
	uint64_t n = 0;

	for (int i = 1; i + 1 < argc; i += 2) {
		uint64_t v = strtoull(argv[i + 1], NULL, 10);

		if (!strcmp(argv[i], "--spin-ms")) {
			n += spin_a(v * NS_PER_MS);
		} else if (!strcmp(argv[i], "--tail-ms")) {
			n += tail_a(v * NS_PER_MS);
		} else if (!strcmp(argv[i], "--sleep-ms")) {
			n += nap_a(v);
		} else if (!strcmp(argv[i], "--fifo")) {
			int fd = open(argv[i + 1], O_RDWR);

			if (fd < 0)
				wl_die(argv[i + 1]);
			printf("BLOCKED %d\n", getpid());
			fflush(stdout);
			n += wait_a(fd);
			close(fd);
		} else {
			fprintf(stderr, "usage: nofp [--spin-ms N] [--tail-ms N] [--sleep-ms N] "
					"[--fifo PATH]\n");
			return 2;
		}
	}
	printf("DONE %llu\n", (unsigned long long)n);
	return 0;
}
