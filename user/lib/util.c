/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util.h"

uint64_t xlp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int xlp_parse_duration(const char *s, uint64_t default_unit_ns, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}};
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0 || !isfinite(v))
		return -EINVAL;
	if (!*end) {
		*ns = (uint64_t)llround(v * (double)default_unit_ns);
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].suffix)) {
			*ns = (uint64_t)llround(v * units[i].mult);
			return 0;
		}
	}
	return -EINVAL;
}

const char *xlp_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 10000000000ull)
		snprintf(buf, len, "%.1f s", ns / 1e9);
	else if (ns >= 1000000000ull)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else if (ns >= 1000ull)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	return buf;
}

int xlp_grow(void **p, size_t *cap, size_t n, size_t elem)
{
	size_t c = 64;
	void *np;

	if (n < *cap)
		return 0;
	if (!elem || *cap > SIZE_MAX / 2)
		return -ENOMEM;
	if (*cap)
		c = 2 * *cap;
	/* doubling until n fits: one call makes room however far n jumps */
	while (c <= n) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (c > SIZE_MAX / elem)
		return -ENOMEM;
	np = realloc(*p, c * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = c;
	return 0;
}

int xlp_push(void **arr, size_t *n, size_t *cap, size_t elem, const void *v)
{
	int err = xlp_grow(arr, cap, *n, elem);

	if (err)
		return err;
	memcpy((unsigned char *)*arr + *n * elem, v, elem);
	(*n)++;
	return 0;
}

void xlp_put(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	*used += n > 0 ? (size_t)n : 0;
}

uint64_t xlp_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}

uint64_t xlp_fnv1a_str(uint64_t h, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull;
}

uint64_t xlp_mix64(uint64_t h)
{
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}
