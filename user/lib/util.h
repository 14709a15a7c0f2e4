/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef XLP_UTIL_H
#define XLP_UTIL_H

#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>

/* qsort() that accepts (NULL, 0): qsort's pointer must be valid even then. */
static inline void xlp_sort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* CLOCK_MONOTONIC in ns: the clock of bpf_ktime_get_ns() and of traces. */
uint64_t xlp_now_ns(void);

/*
 * FNV-1a 64, the one hash of the tree (tables keyed by names, stacks and
 * file contents, issue fingerprints): over n bytes, continuing from h
 * (XLP_FNV_OFFSET to start); _str over a C string (NULL as "") and then a
 * byte no string holds (0xff), so that ("ab", "c") is not ("a", "bc").
 */
#define XLP_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t xlp_fnv1a(uint64_t h, const void *p, size_t n);
uint64_t xlp_fnv1a_str(uint64_t h, const char *s);
/*
 * FNV's last bytes barely reach the high bits: its hash mixed (splitmix64's
 * finaliser) before its low bits pick a slot or its whole value names
 * something (the fleet tables' trace ids: their values must not change).
 */
uint64_t xlp_mix64(uint64_t h);

/*
 * The one growable array of the tree. xlp_grow: room for element n of the
 * array *p of *cap elements of elem bytes, doubling it (from 64) until n
 * fits. 0, or -ENOMEM (also when the size would overflow); *p and *cap are
 * unchanged on failure. xlp_push: a copy of *v appended as element *n,
 * which then grows by one.
 */
int xlp_grow(void **p, size_t *cap, size_t n, size_t elem);
int xlp_push(void **arr, size_t *n, size_t *cap, size_t elem, const void *v);
/* "250ms", "1.5s", "100us", "2000ns", "3" (seconds when unit-less and
 * default_unit_ns is 1e9). Negative errno on a malformed value. */
int xlp_parse_duration(const char *s, uint64_t default_unit_ns, uint64_t *ns);
/* Human form of a duration: "41.2 ms", "1.03 s", "870 us". */
const char *xlp_fmt_ns(uint64_t ns, char *buf, size_t len);
/*
 * Appends printf-style text at buf + *used (len bytes in all), *used
 * growing by what it takes (past len when cut): sentences built a clause
 * at a time. Nothing once buf is full.
 */
void xlp_put(char *buf, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
