/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Per-thread lists of pending calls (see dataset_impl.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "dataset_impl.h"

/*
 * A seeded mix: with a fixed hash, a forged file could pick tids that all
 * land in one slot and make every lookup walk the whole table.
 */
static size_t tid_slot(const struct dataset_pending *p, uint32_t tid, size_t cap)
{
	uint64_t x = tid ^ p->seed;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x & (cap - 1);
}

void dataset__pending_init(struct dataset_pending *p, size_t item_size)
{
	memset(p, 0, sizeof(*p));
	p->item_size = item_size;
	/* the seed only spreads the table: the results do not depend on it */
	if (getrandom(&p->seed, sizeof(p->seed), GRND_NONBLOCK) != sizeof(p->seed))
		p->seed = (uintptr_t)p ^ 0x9e3779b97f4a7c15ull;
}

void dataset__pending_free(struct dataset_pending *p)
{
	for (size_t i = 0; i < p->cap; i++)
		free(p->t[i].items);
	free(p->t);
	p->t = NULL;
	p->cap = p->n = 0;
}

static int grow_table(struct dataset_pending *p)
{
	size_t cap = p->cap ? 2 * p->cap : 64;
	struct dataset_pend_thr *nt = calloc(cap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (size_t i = 0; i < p->cap; i++) {
		size_t j;

		if (!p->t[i].used)
			continue;
		j = tid_slot(p, p->t[i].tid, cap);
		while (nt[j].used)
			j = (j + 1) & (cap - 1);
		nt[j] = p->t[i];
	}
	free(p->t);
	p->t = nt;
	p->cap = cap;
	return 0;
}

struct dataset_pend_thr *dataset__pending_thread(struct dataset_pending *p, uint32_t tid)
{
	size_t j;

	if (2 * (p->n + 1) > p->cap && grow_table(p))
		return NULL;
	j = tid_slot(p, tid, p->cap);
	while (p->t[j].used && p->t[j].tid != tid)
		j = (j + 1) & (p->cap - 1);
	if (!p->t[j].used) {
		p->t[j].used = true;
		p->t[j].tid = tid;
		p->n++;
	}
	return &p->t[j];
}

size_t dataset__pending_subtree(const struct dataset_pending *p, const struct dataset_pend_thr *t,
				uint64_t entry, uint16_t depth)
{
	size_t lo = t->n;

	if (depth >= XLP_MAX_DEPTH)
		return lo;
	while (lo > 0) {
		const struct dataset_pend *d = dataset__pend_at(p, t, lo - 1);

		if (d->entry < entry || d->depth <= depth)
			break;
		lo--;
	}
	return lo;
}

void *dataset__pending_push(struct dataset_pending *p, struct dataset_pend_thr *t, uint64_t entry,
			    uint32_t func, uint16_t depth)
{
	struct dataset_pend *d;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		uint8_t *ni = realloc(t->items, cap * p->item_size);

		if (!ni)
			return NULL;
		t->items = ni;
		t->cap = cap;
	}
	d = dataset__pend_at(p, t, t->n++);
	memset(d, 0, p->item_size);
	d->entry = entry;
	d->func = func;
	d->depth = depth;
	return d;
}
