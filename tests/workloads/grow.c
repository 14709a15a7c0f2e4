/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A program whose bottleneck changes with its input (report --growth,
 * tests/root/test_growth.c):
 *
 *   grow N            one job of size N, then exit (record --sizes ... {})
 *   grow --jobs N...  one job per size given, in one process (--size-arg 0
 *                     on job)
 *
 * job(n) = parse(n) then dedupe(n):
 *   parse   a merge sort of n records whose comparison parses a field
 *           (a fixed busy loop): n log n comparisons, costly ones. It
 *           takes most of the job at the sizes a test can afford.
 *   dedupe  compares every 32nd record with every 32nd one, through
 *           same_key: (n / 32)^2 = n^2 / 1024 calls of a cheap function.
 *           Gentle now, it takes the job over some ten times further.
 */
#include "wl.h"

static volatile uint64_t sink;

/* the "field parsing" behind each comparison: a fixed amount of work */
static int cmp_field(uint32_t a, uint32_t b)
{
	uint64_t h = a ^ b;

	for (int i = 0; i < 2000; i++)
		h = h * 6364136223846793005ull + 1442695040888963407ull;
	sink += h;
	return a < b ? -1 : a > b;
}

static void msort(uint32_t *v, uint32_t *tmp, size_t n)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	msort(v, tmp, h);
	msort(v + h, tmp, n - h);
	while (i < h && j < n)
		tmp[k++] = cmp_field(v[i], v[j]) <= 0 ? v[i++] : v[j++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

MARKED int parse(uint32_t *v, uint32_t *tmp, size_t n)
{
	msort(v, tmp, n);
	return (int)v[0];
}

MARKED int same_key(uint32_t a, uint32_t b)
{
	return (a & 0xffff) == (b & 0xffff);
}

MARKED size_t dedupe(const uint32_t *v, size_t n)
{
	size_t dups = 0;

	for (size_t i = 0; i < n; i += 32)
		for (size_t j = 0; j < n; j += 32)
			dups += (size_t)same_key(v[i], v[j]);
	return dups;
}

MARKED size_t job(size_t n)
{
	uint32_t *v = malloc(n * sizeof(*v) + 1), *tmp = malloc(n * sizeof(*tmp) + 1);
	uint64_t x = 88172645463325252ull;
	size_t d;

	if (!v || !tmp)
		wl_die("malloc");
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i] = (uint32_t)x;
	}
	parse(v, tmp, n);
	d = dedupe(v, n);
	free(v);
	free(tmp);
	return d;
}

static size_t size_arg(const char *s)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);

	if (*end || !n || n > 100000000) {
		fprintf(stderr, "grow: bad size '%s'\n", s);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "--jobs")) {
		for (int i = 2; i < argc; i++)
			sink += job(size_arg(argv[i]));
		printf("DONE %d\n", argc - 2);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: grow N | grow --jobs N...\n");
		return 2;
	}
	sink += job(size_arg(argv[1]));
	printf("DONE 1\n");
	return 0;
}
