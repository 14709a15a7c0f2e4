/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one hash table of the tree, for everything keyed by what a file or a
 * traced process wrote (names, addresses, stacks): an open-addressing
 * index from a key's hash to the caller's entry ids (1, 2, ...; 0 is
 * "none"); the entries and their keys stay in the caller's array.
 *
 * Seeded: htab__hash() starts FNV-1a (util.h) from a random value and
 * mixes the result, so a forged file cannot choose keys that all land in
 * one slot and make every lookup walk the table. Bounded: at most the max
 * given to htab__new(); past it htab__put() says -E2BIG, for the caller to
 * count. The seed only spreads the table: no result depends on it.
 */
#ifndef XLP_HTAB_H
#define XLP_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct htab;

/* Whether the caller's entry id holds the key being looked up (in ctx). */
typedef bool (*htab_eq_fn)(const void *ctx, uint32_t id);

/* A table of at most max ids (max < UINT32_MAX); NULL on ENOMEM. */
struct htab *htab__new(uint32_t max);
void htab__free(struct htab *h); /* NULL is fine */
/* Empties it, keeping its memory and its seed. */
void htab__clear(struct htab *h);
size_t htab__len(const struct htab *h);

/* The hash of n bytes of key, under this table's seed. */
uint64_t htab__hash(const struct htab *h, const void *key, size_t n);

/* The id stored under hash for which eq(ctx, id) holds; 0 when none. */
uint32_t htab__find(const struct htab *h, uint64_t hash, htab_eq_fn eq, const void *ctx);

/*
 * Stores id under hash: in place of the id for which eq(ctx, id) holds when
 * there is one (the key's newest entry wins), else as one more. 0, -E2BIG
 * (max ids stored already), -EINVAL (id 0), -ENOMEM.
 */
int htab__put(struct htab *h, uint64_t hash, uint32_t id, htab_eq_fn eq, const void *ctx);

#endif
