/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The seeded, bounded hash table (htab.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "htab.h"
#include "util.h"

struct htab_slot {
	uint64_t hash; /* kept: growing never reads the keys again */
	uint32_t id;   /* 0: free */
};

struct htab {
	struct htab_slot *slot;
	size_t cap, n; /* cap a power of two, at least twice n */
	uint32_t max;
	uint64_t seed;
};

struct htab *htab__new(uint32_t max)
{
	struct htab *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->max = max < UINT32_MAX ? max : UINT32_MAX - 1;
	if (getrandom(&h->seed, sizeof(h->seed), GRND_NONBLOCK) != sizeof(h->seed))
		h->seed = (uintptr_t)h ^ xlp_now_ns() ^ 0x9e3779b97f4a7c15ull;
	return h;
}

void htab__free(struct htab *h)
{
	if (!h)
		return;
	free(h->slot);
	free(h);
}

void htab__clear(struct htab *h)
{
	if (h->slot)
		memset(h->slot, 0, h->cap * sizeof(*h->slot));
	h->n = 0;
}

size_t htab__len(const struct htab *h)
{
	return h->n;
}

uint64_t htab__hash(const struct htab *h, const void *key, size_t n)
{
	return xlp_mix64(xlp_fnv1a(h->seed, key, n));
}

static size_t first(uint64_t hash, size_t cap)
{
	return (size_t)hash & (cap - 1);
}

uint32_t htab__find(const struct htab *h, uint64_t hash, htab_eq_fn eq, const void *ctx)
{
	if (!h->cap)
		return 0;
	for (size_t j = first(hash, h->cap); h->slot[j].id; j = (j + 1) & (h->cap - 1))
		if (h->slot[j].hash == hash && eq(ctx, h->slot[j].id))
			return h->slot[j].id;
	return 0;
}

/* Twice the room, at most half full after: probes stay short. */
static int grow(struct htab *h)
{
	size_t cap = h->cap ? 2 * h->cap : 64;
	struct htab_slot *s;

	if (cap > SIZE_MAX / sizeof(*s))
		return -ENOMEM;
	s = calloc(cap, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < h->cap; i++) {
		size_t j;

		if (!h->slot[i].id)
			continue;
		for (j = first(h->slot[i].hash, cap); s[j].id; j = (j + 1) & (cap - 1))
			;
		s[j] = h->slot[i];
	}
	free(h->slot);
	h->slot = s;
	h->cap = cap;
	return 0;
}

int htab__put(struct htab *h, uint64_t hash, uint32_t id, htab_eq_fn eq, const void *ctx)
{
	size_t j;

	if (!id)
		return -EINVAL;
	if (2 * (h->n + 1) > h->cap && h->n < h->max && grow(h))
		return -ENOMEM;
	if (!h->cap)
		return -E2BIG; /* max 0 */
	for (j = first(hash, h->cap); h->slot[j].id; j = (j + 1) & (h->cap - 1)) {
		if (h->slot[j].hash == hash && eq && eq(ctx, h->slot[j].id)) {
			h->slot[j].id = id;
			return 0;
		}
	}
	if (h->n >= h->max)
		return -E2BIG;
	h->slot[j] = (struct htab_slot){hash, id};
	h->n++;
	return 0;
}
