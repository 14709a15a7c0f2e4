/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Pass over the call records for the drill-down: which marked calls run
 * nested in the calls of a few ancestor functions, under which direct
 * parent, and for how long in each run.
 *
 * Records of one thread arrive in return order (post-order), so when a
 * call C arrives, the records of its thread that entered at or after C's
 * entry are exactly C's subtree, and they sit contiguously at the end of
 * the thread's pending list (dataset_impl.h: walking back over it is
 * linear in the number of records, forged files included). A depth-0
 * record closes its thread's tree and empties the list.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dataset_impl.h"

struct pend {
	struct dataset_pend h; /* entry, func (DATASET_NO_FUNC when none), depth */
	uint32_t parent;       /* dataset function, DATASET_NO_FUNC when none */
	uint64_t wall;
};

struct anc_pairs {
	struct dataset_nest_pair *pair;
	size_t n, cap;
	uint32_t *index; /* open addressing over (parent, child): pair index + 1 */
	size_t icap;
};

struct nesting {
	size_t nanc, nruns;
	struct anc_pairs *a;
};

struct nest_pass {
	const struct dataset *ds;
	size_t file;
	struct nesting *nest;
	const int32_t *slot; /* per dataset function: ancestor index, or -1 */
	struct dataset_pending pd;
	int err;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static int index_grow(struct anc_pairs *a)
{
	size_t cap = a->icap ? 2 * a->icap : 64;
	uint32_t *ni = calloc(cap, sizeof(*ni));

	if (!ni)
		return -ENOMEM;
	for (size_t i = 0; i < a->n; i++) {
		uint64_t key = (uint64_t)a->pair[i].parent << 32 | a->pair[i].child;
		size_t j = mix(key) & (cap - 1);

		while (ni[j])
			j = (j + 1) & (cap - 1);
		ni[j] = (uint32_t)i + 1;
	}
	free(a->index);
	a->index = ni;
	a->icap = cap;
	return 0;
}

/* The pair (parent, child) of an ancestor, added when new; NULL on ENOMEM. */
static struct dataset_nest_pair *get_pair(struct anc_pairs *a, size_t nruns, uint32_t parent,
					  uint32_t child)
{
	uint64_t key = (uint64_t)parent << 32 | child;
	struct dataset_nest_pair *p;
	size_t j;

	if (2 * (a->n + 1) > a->icap && index_grow(a))
		return NULL;
	for (j = mix(key) & (a->icap - 1); a->index[j]; j = (j + 1) & (a->icap - 1)) {
		p = &a->pair[a->index[j] - 1];
		if (p->parent == parent && p->child == child)
			return p;
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		struct dataset_nest_pair *np = realloc(a->pair, cap * sizeof(*np));

		if (!np)
			return NULL;
		a->pair = np;
		a->cap = cap;
	}
	p = &a->pair[a->n];
	p->parent = parent;
	p->child = child;
	p->time = calloc(nruns + 1, sizeof(*p->time));
	if (!p->time)
		return NULL;
	a->index[j] = (uint32_t)++a->n;
	return p;
}

struct credit {
	struct nest_pass *s;
	const struct dataset_pend_thr *t;
	size_t lo;
	uint32_t func;
	int32_t k;
};

/* Adds the subtree t->p[lo..n) of a call of ancestor k to run `run`. */
static void credit_run(void *ctx, size_t run)
{
	struct credit *c = ctx;
	struct anc_pairs *a = &c->s->nest->a[c->k];
	uint64_t skip_from = UINT64_MAX;

	for (size_t i = c->t->n; i-- > c->lo;) {
		const struct pend *d = (const struct pend *)dataset__pend_at(&c->s->pd, c->t, i);
		struct dataset_nest_pair *p;

		/* a nested call of the ancestor counted its own subtree already */
		if (d->h.func == c->func) {
			skip_from = d->h.entry;
			continue;
		}
		if (d->h.entry >= skip_from || d->h.func == DATASET_NO_FUNC)
			continue;
		p = get_pair(a, c->s->nest->nruns, d->parent, d->h.func);
		if (!p) {
			c->s->err = -ENOMEM;
			return;
		}
		p->time[run] += (double)d->wall;
	}
}

static int on_call(void *ctx, const struct xlp_call_rec *c)
{
	struct nest_pass *s = ctx;
	const struct dataset_file *f = &s->ds->files[s->file];
	uint32_t g = c->func_id < f->nlocal ? f->fmap[c->func_id] : DATASET_NONE;
	struct dataset_pend_thr *t = dataset__pending_thread(&s->pd, c->tid);
	struct pend *p;
	size_t lo;

	if (!t)
		return -ENOMEM;
	if (g == DATASET_NONE)
		g = DATASET_NO_FUNC;
	lo = dataset__pending_subtree(&s->pd, t, c->entry_ns, c->depth);
	for (size_t i = lo; i < t->n; i++) {
		p = (struct pend *)dataset__pend_at(&s->pd, t, i);
		if (p->h.depth == (uint32_t)c->depth + 1)
			p->parent = g;
	}
	if (g != DATASET_NO_FUNC && s->slot[g] >= 0 && lo < t->n) {
		struct credit cr = {.s = s, .t = t, .lo = lo, .func = g, .k = s->slot[g]};

		dataset__runs_at(s->ds, s->file, c->pid, c->entry_ns, credit_run, &cr);
		if (s->err)
			return s->err;
	}
	if (c->depth == 0) {
		t->n = 0;
		return 0;
	}
	if (!dataset__pend_nestable(c->depth))
		return 0;
	p = dataset__pending_push(&s->pd, t, c->entry_ns, g, c->depth);
	if (!p)
		return -ENOMEM;
	p->parent = DATASET_NO_FUNC;
	p->wall = c->incl[XLP_C_WALL];
	return 0;
}

/* A sampled callee under ancestor k, from a stack sample. */
static int add_sampled_pair(void *ctx, int32_t k, uint32_t parent, uint32_t child, size_t run,
			    double w)
{
	struct nesting *n = ctx;
	struct dataset_nest_pair *p = get_pair(&n->a[k], n->nruns, parent, child);

	if (!p)
		return -ENOMEM;
	p->time[run] += w;
	return 0;
}

int dataset__nesting(const struct dataset *ds, const uint32_t *anc, size_t nanc,
		     struct nesting **out, char *err, size_t errlen)
{
	struct nesting *n = calloc(1, sizeof(*n));
	int32_t *slot = malloc(ds->nfuncs * sizeof(*slot) + 1);
	struct nest_pass s = {.ds = ds, .nest = n, .slot = slot};
	int ret = -ENOMEM;

	dataset__pending_init(&s.pd, sizeof(struct pend));
	*out = NULL;
	if (!n || !slot || !(n->a = calloc(nanc + 1, sizeof(*n->a))))
		goto cleanup;
	n->nanc = nanc;
	n->nruns = ds->nruns;
	for (size_t g = 0; g < ds->nfuncs; g++)
		slot[g] = -1;
	for (size_t k = 0; k < nanc; k++)
		if (anc[k] < ds->nfuncs && slot[anc[k]] < 0)
			slot[anc[k]] = (int32_t)k;
	ret = 0;
	for (size_t fi = 0; fi < ds->nfiles && !ret; fi++) {
		s.file = fi;
		ret = dataset__each_call(ds, fi, on_call, &s, err, errlen);
		dataset__pending_free(&s.pd); /* each file's threads on their own */
	}
	if (!ret)
		ret = dataset__sample_nesting(ds, slot, add_sampled_pair, n);
	if (ret)
		goto cleanup;
	*out = n;
	n = NULL;
cleanup:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory: analyse fewer or smaller traces");
	free(slot);
	nesting__free(n);
	return ret;
}

void nesting__free(struct nesting *n)
{
	if (!n)
		return;
	for (size_t k = 0; n->a && k < n->nanc; k++) {
		for (size_t i = 0; i < n->a[k].n; i++)
			free(n->a[k].pair[i].time);
		free(n->a[k].pair);
		free(n->a[k].index);
	}
	free(n->a);
	free(n);
}

size_t nesting__npairs(const struct nesting *n, size_t k)
{
	return k < n->nanc ? n->a[k].n : 0;
}

const struct dataset_nest_pair *nesting__pair(const struct nesting *n, size_t k, size_t i)
{
	return &n->a[k].pair[i];
}
