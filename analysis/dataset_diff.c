/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The differential tree of the stack samples (dataset.h): which frames the
 * slow runs' samples went through more often than the fast runs' did.
 * User frames come from the samples' user stacks (named dataset functions,
 * the C runtime's included: a pread or a memcpy says how the time was
 * spent), kernel frames from their kernel stacks: a page fault, a system
 * call, a spinlock are kernel frames under the function that caused them.
 */
#include <errno.h>
#include <stdlib.h>
#include "dataset_impl.h"
#include "util.h"

#define KBIT 0x80000000u /* the key of a kernel frame */

struct ds_diff {
	struct ds_diff_node *n;
	size_t len, cap;
	uint32_t *index; /* open addressing over (parent, key): node + 1 */
	size_t icap;
};

static uint32_t key_of(const struct ds_diff_node *x)
{
	return x->frame | (x->kernel ? KBIT : 0);
}

static size_t slot_hash(uint32_t parent, uint32_t key, size_t cap)
{
	uint64_t h = ((uint64_t)parent << 32 | key) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 24) & (cap - 1);
}

static uint32_t *find_slot(struct ds_diff *t, uint32_t parent, uint32_t key)
{
	size_t j = slot_hash(parent, key, t->icap);

	while (t->index[j]) {
		const struct ds_diff_node *x = &t->n[t->index[j] - 1];

		if (x->parent == parent && key_of(x) == key)
			break;
		j = (j + 1) & (t->icap - 1);
	}
	return &t->index[j];
}

/* The child of node parent for key, added when new; UINT32_MAX on ENOMEM. */
static uint32_t child(struct ds_diff *t, uint32_t parent, uint32_t key)
{
	uint32_t *slot;

	if (2 * (t->len + 1) > t->icap) {
		size_t cap = t->icap ? 2 * t->icap : 64;
		uint32_t *old = t->index;

		t->index = calloc(cap, sizeof(*t->index));
		if (!t->index) {
			t->index = old;
			return UINT32_MAX;
		}
		t->icap = cap;
		for (size_t i = 1; i < t->len; i++)
			*find_slot(t, t->n[i].parent, key_of(&t->n[i])) = (uint32_t)i + 1;
		free(old);
	}
	slot = find_slot(t, parent, key);
	if (*slot)
		return *slot - 1;
	if (xlp_grow((void **)&t->n, &t->cap, t->len, sizeof(*t->n)))
		return UINT32_MAX;
	t->n[t->len] = (struct ds_diff_node){.frame = key & ~KBIT,
					     .kernel = key & KBIT,
					     .parent = parent,
					     .depth = t->n[parent].depth + 1};
	*slot = (uint32_t)t->len + 1;
	return (uint32_t)t->len++;
}

static void count(struct ds_diff_node *x, const struct ds_smp *s, bool slow)
{
	if (slow) {
		x->nslow++;
		x->wslow += (double)s->weight;
	} else {
		x->nfast++;
		x->wfast += (double)s->weight;
	}
}

/* The sample's path below root: node indices appended, or UINT32_MAX. */
static uint32_t walk(const struct dataset *ds, struct ds_diff *t, const struct ds_smp *s,
		     uint32_t root, bool slow)
{
	const struct ds_sstack *st = s->stack == DS_NONE ? NULL : &ds->sst[s->stack];
	const struct ds_sstack *kt = s->kstack == DS_NONE ? NULL : &ds->kst[s->kstack];
	const uint32_t *fr = st ? &ds->sfr[st->off] : NULL;
	size_t a = st ? st->n : 0;
	uint32_t node = 0;

	if (root != DS_NO_FUNC) {
		while (a-- > 0 && fr[a] != root)
			;
		if (a == SIZE_MAX)
			return 0; /* not through root */
	}
	count(&t->n[0], s, slow);
	while (a-- > 0) {
		/* a function the launch runs on every sample restates the run */
		if (fr[a] == DS_NONE || ds_func_root(ds, fr[a]))
			continue;
		node = child(t, node, fr[a]);
		if (node == UINT32_MAX)
			return node;
		count(&t->n[node], s, slow);
	}
	for (size_t k = kt ? kt->n : 0; k-- > 0;) {
		node = child(t, node, ds->kfr[kt->off + k] | KBIT);
		if (node == UINT32_MAX)
			return node;
		count(&t->n[node], s, slow);
	}
	return 0;
}

int dataset__diff_tree(const struct dataset *ds, uint32_t root, int reason, const uint8_t *slow,
		       struct ds_diff **out)
{
	struct ds_diff *t = calloc(1, sizeof(*t));
	int ret = -ENOMEM;

	*out = NULL;
	if (!t || xlp_grow((void **)&t->n, &t->cap, 0, sizeof(*t->n)))
		goto cleanup;
	t->n[0] = (struct ds_diff_node){.frame = root, .parent = UINT32_MAX};
	t->len = 1;
	for (size_t i = 0; i < ds->nsmp; i++) {
		const struct ds_smp *s = &ds->smp[i];

		if (reason >= 0 && s->reason != (uint32_t)reason)
			continue;
		/* a stack without the interaction frame is not the run's */
		if (s->stack == DS_NONE && root != DS_NO_FUNC)
			continue;
		if (walk(ds, t, s, root, slow[s->run]) == UINT32_MAX)
			goto cleanup;
	}
	ret = 0;
	if (t->n[0].nslow + t->n[0].nfast) {
		*out = t;
		t = NULL;
	}
cleanup:
	diff__free(t);
	return ret;
}

void diff__free(struct ds_diff *t)
{
	if (!t)
		return;
	free(t->n);
	free(t->index);
	free(t);
}

size_t diff__n(const struct ds_diff *t)
{
	return t ? t->len : 0;
}

const struct ds_diff_node *diff__node(const struct ds_diff *t, size_t i)
{
	return &t->n[i];
}

const char *dataset__kframe(const struct dataset *ds, uint32_t k)
{
	return k < ds->nkname ? ds->kname[k] : "[unknown]";
}
