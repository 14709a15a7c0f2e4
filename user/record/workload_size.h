/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record --size, --sizes: the workload sizes runs are given, as the user
 * writes them, and the command line of a launch with its size in place of
 * every "{}".
 */
#ifndef XLP_WORKLOAD_SIZE_H
#define XLP_WORKLOAD_SIZE_H

#include <stdbool.h>
#include <stdint.h>

/* Sizes are analysed as doubles: past 2^53 they would not stay exact. */
#define WSIZE_MAX (1ull << 53)

/* A positive integer, at most WSIZE_MAX: 0 or -EINVAL. */
int wsize__parse(const char *s, uint64_t *v);
/* Positive integers separated by commas, at most max of them: 0 or -EINVAL. */
int wsize__parse_list(const char *s, uint64_t *out, unsigned max, unsigned *n);
/* Some argument of argv (NULL-terminated) holds "{}". */
bool wsize__has_slot(char *const *argv);
/* A copy of argv with every "{}" replaced by size (malloc'd; NULL on ENOMEM). */
char **wsize__argv(char *const *argv, uint64_t size);
void wsize__free_argv(char **argv); /* accepts NULL */

#endif
