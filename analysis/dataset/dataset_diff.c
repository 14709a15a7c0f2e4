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
#include "dataset_index.h"
#include "util.h"

#define KBIT 0x80000000u /* the key of a kernel frame */

static uint64_t diff_key(const void *nodes, size_t i)
{
	const struct dataset_diff_node *x = (const struct dataset_diff_node *)nodes + i;

	return (uint64_t)x->parent << 32 | x->frame | (x->kernel ? KBIT : 0);
}

#define DIFF_FRESH(t, parent, key)                                                                 \
	(struct dataset_diff_node)                                                                 \
	{                                                                                          \
		.frame = (key) & ~KBIT, .kernel = (key)&KBIT, .parent = (parent),                  \
		.depth = (t)->n[parent].depth + 1                                                  \
	}

DATASET_TREE(dataset_diff, struct dataset_diff_node, dataset_diff, diff_key, DIFF_FRESH)

static void count(struct dataset_diff_node *x, const struct dataset_smp *s, bool slow)
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
static uint32_t walk(const struct dataset *ds, struct dataset_diff *t, const struct dataset_smp *s,
		     uint32_t root, bool slow)
{
	const struct dataset_sstack *st = s->stack == DATASET_NONE ? NULL : &ds->sst[s->stack];
	const struct dataset_sstack *kt = s->kstack == DATASET_NONE ? NULL : &ds->kst[s->kstack];
	const uint32_t *fr = st ? &ds->sfr[st->off] : NULL;
	size_t a = st ? st->n : 0;
	uint32_t node = 0;

	if (root != DATASET_NO_FUNC) {
		while (a-- > 0 && fr[a] != root)
			;
		if (a == SIZE_MAX)
			return 0; /* not through root */
	}
	count(&t->n[0], s, slow);
	while (a-- > 0) {
		/* a function the launch runs on every sample restates the run */
		if (fr[a] == DATASET_NONE || dataset__func_root(ds, fr[a]))
			continue;
		node = dataset_diff_child(t, node, fr[a]);
		if (node == UINT32_MAX)
			return node;
		count(&t->n[node], s, slow);
	}
	for (size_t k = kt ? kt->n : 0; k-- > 0;) {
		node = dataset_diff_child(t, node, ds->kfr[kt->off + k] | KBIT);
		if (node == UINT32_MAX)
			return node;
		count(&t->n[node], s, slow);
	}
	return 0;
}

int dataset__diff_tree(const struct dataset *ds, uint32_t root, int reason, const uint8_t *slow,
		       struct dataset_diff **out)
{
	struct dataset_diff *t = dataset_diff_new(
		(struct dataset_diff_node){.frame = root, .parent = UINT32_MAX}, out);

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < ds->nsmp; i++) {
		const struct dataset_smp *s = &ds->smp[i];

		if (reason >= 0 && s->reason != (uint32_t)reason)
			continue;
		/* a stack without the interaction frame is not the run's */
		if (s->stack == DATASET_NONE && root != DATASET_NO_FUNC)
			continue;
		if (walk(ds, t, s, root, slow[s->run]) == UINT32_MAX)
			return dataset_diff_done(t, -ENOMEM, false, out);
	}
	return dataset_diff_done(t, 0, t->n[0].nslow + t->n[0].nfast, out);
}

const char *dataset__kframe(const struct dataset *ds, uint32_t k)
{
	return k < ds->nkname ? ds->kname[k] : "[unknown]";
}
