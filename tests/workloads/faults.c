// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * faults: a function whose time grows through page faults in some runs,
 * for the root test of "why a function's time grew" (tests/root/test_why.c).
 *
 *   main -> handle (the interaction) -> touch   writes a byte to each page
 *                                               of an anonymous buffer, then
 *                                               computes for --work-us on a CPU
 *
 * Every --every-th run (default 4), before handle is called, the buffer's
 * pages are given back (MADV_DONTNEED): touch then takes a minor fault on
 * each page (a zeroed page to allocate and clear), and its time grows in
 * the kernel's fault path while its call count and its own work stay the
 * same. Huge pages are refused (MADV_NOHUGEPAGE), so each 4 KiB page faults.
 *
 *   faults [--runs N] [--every K] [--mb M] [--work-us U]
 *
 * Prints "DONE <faulted runs>". Built with frame pointers (WL_CFLAGS).
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <sys/mman.h>

static volatile uint64_t sink;

MARKED void touch(volatile char *buf, size_t len, uint64_t work_ns)
{
	uint64_t start = wl_cpu_ns(), x = 1;

	for (size_t off = 0; off < len; off += 4096)
		buf[off]++;
	/* the same work in every run: the fast runs' samples in touch */
	while (wl_cpu_ns() - start < work_ns)
		for (int i = 0; i < 4096; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

MARKED void handle(volatile char *buf, size_t len, uint64_t work_ns)
{
	touch(buf, len, work_ns);
}

int main(int argc, char **argv)
{
	unsigned runs = 80, every = 4, faulted = 0;
	size_t len = 8u << 20;
	uint64_t work_ns = 2 * NS_PER_MS;
	char *buf;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--runs"))
			runs = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--every"))
			every = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--mb"))
			len = strtoul(argv[i + 1], NULL, 10) << 20;
		else if (!strcmp(argv[i], "--work-us"))
			work_ns = strtoull(argv[i + 1], NULL, 10) * 1000;
	}
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		wl_die("mmap");
	madvise(buf, len, MADV_NOHUGEPAGE); /* 4 KiB faults; a kernel without THP says EINVAL */
	memset(buf, 1, len);
	for (unsigned r = 0; r < runs; r++) {
		/* outside the interaction: only touch's faults are in the run */
		if (every && r % every == every - 1) {
			if (madvise(buf, len, MADV_DONTNEED))
				wl_die("madvise");
			faulted++;
		}
		handle(buf, len, work_ns);
		wl_sleep_ns(NS_PER_MS);
	}
	printf("DONE %u\n", faulted);
	return 0;
}
