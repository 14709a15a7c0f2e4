/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "workload_size.h"

#define SLOT "{}"

/* Digits only, no sign: strtoull would take "-1" as 2^64 - 1. */
static int parse_n(const char *s, size_t len, uint64_t *v)
{
	uint64_t x = 0;

	if (!len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		x = x * 10 + (uint64_t)(s[i] - '0');
		if (x > WSIZE_MAX)
			return -EINVAL;
	}
	if (!x)
		return -EINVAL;
	*v = x;
	return 0;
}

int wsize__parse(const char *s, uint64_t *v)
{
	return parse_n(s, strlen(s), v);
}

int wsize__parse_list(const char *s, uint64_t *out, unsigned max, unsigned *n)
{
	unsigned k = 0;

	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (k >= max || parse_n(s, len, &out[k]))
			return -EINVAL;
		k++;
		if (!comma)
			break;
		s = comma + 1;
	}
	*n = k;
	return 0;
}

bool wsize__has_slot(char *const *argv)
{
	for (int i = 0; argv[i]; i++)
		if (strstr(argv[i], SLOT))
			return true;
	return false;
}

/* a with every SLOT replaced by num */
static char *subst(const char *a, const char *num)
{
	size_t n = 0, len = strlen(a), nl = strlen(num);
	const char *p;
	char *out, *o;

	for (p = a; (p = strstr(p, SLOT)); p += 2)
		n++;
	out = malloc(len + n * nl + 1);
	if (!out)
		return NULL;
	for (o = out; (p = strstr(a, SLOT)); a = p + 2) {
		memcpy(o, a, (size_t)(p - a));
		o += p - a;
		memcpy(o, num, nl);
		o += nl;
	}
	strcpy(o, a);
	return out;
}

char **wsize__argv(char *const *argv, uint64_t size)
{
	char num[24], **out;
	int n = 0;

	while (argv[n])
		n++;
	out = calloc((size_t)n + 1, sizeof(*out));
	if (!out)
		return NULL;
	snprintf(num, sizeof(num), "%" PRIu64, size);
	for (int i = 0; i < n; i++) {
		out[i] = subst(argv[i], num);
		if (!out[i]) {
			wsize__free_argv(out);
			return NULL;
		}
	}
	return out;
}

void wsize__free_argv(char **argv)
{
	if (!argv)
		return;
	for (int i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}
