/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Work whose amount is its size, for tests/root/test_sizes.c (record
 * --sizes, --size-arg):
 *   sizes N...
 * calls work(i, N) for the i-th N given (0: the first), in order, and
 * prints "WORK i=I n=N" after each. The size is work's second argument,
 * so a tracer that read the wrong one would see 0, 1, 2... instead.
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */

MARKED long work(int i, long n)
{
	volatile long sink = 0;

	for (long k = 0; k < n * 1000; k++)
		sink += k ^ i;
	return sink;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: sizes N...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		char *end;
		long n = strtol(argv[i], &end, 10);

		if (*end || end == argv[i] || n <= 0) {
			fprintf(stderr, "sizes: bad size '%s'\n", argv[i]);
			return 2;
		}
		work(i - 1, n);
		printf("WORK i=%d n=%ld\n", i - 1, n);
	}
	return 0;
}
