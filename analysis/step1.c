/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Step 1, critical functions (PerfProbe ICDCS'19 section IV-B): one sample
 * per run, one feature per candidate function (its time in the run), the
 * run's label; every root-to-leaf path of the tree ending in a majority-slow
 * leaf is a slowdown precondition.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analysis_impl.h"
#include "stats.h"

uint32_t xa_min_cover(const struct analysis_opts *o, uint32_t nslow)
{
	double need = ceil(o->min_cover * (double)nslow);

	return need < 2 ? 2 : (uint32_t)need;
}

/* Inserts (t, f) in best[0..k) sorted by time descending; equal times keep the first. */
static void top_insert(uint64_t *bt, uint32_t *bf, size_t *k, size_t cap, uint64_t t, uint32_t f)
{
	size_t i = *k;

	if (*k == cap && t <= bt[cap - 1])
		return;
	if (*k < cap)
		(*k)++;
	else
		i = cap - 1;
	while (i > 0 && bt[i - 1] < t) {
		bt[i] = bt[i - 1];
		bf[i] = bf[i - 1];
		i--;
	}
	bt[i] = t;
	bf[i] = f;
}

/* Candidates: union of every run's top-K functions by time (first requirement). */
int xa_candidates(const struct dataset *ds, unsigned K, struct xa_result *r)
{
	size_t nf = dataset__nfuncs(ds), nr = dataset__nruns(ds), k;
	uint8_t *mark = calloc(nf + 1, 1);
	uint64_t *bt = malloc((K + 1) * sizeof(*bt));
	uint32_t *bf = malloc((K + 1) * sizeof(*bf));
	int err = -ENOMEM;

	r->cand = malloc((nf + 1) * sizeof(*r->cand));
	if (!mark || !bt || !bf || !r->cand || !K)
		goto cleanup;
	for (size_t run = 0; run < nr; run++) {
		k = 0;
		for (uint32_t f = 0; f < nf; f++) {
			uint64_t t = dataset__time(ds, run, f);

			if (t)
				top_insert(bt, bf, &k, K, t, f);
		}
		for (size_t i = 0; i < k; i++)
			mark[bf[i]] = 1;
	}
	for (uint32_t f = 0; f < nf; f++)
		if (mark[f])
			r->cand[r->ncand++] = f;
	err = 0;
cleanup:
	free(mark);
	free(bt);
	free(bf);
	return err;
}

static int fit_tree(const struct dataset *ds, const struct analysis_opts *o, struct xa_result *r)
{
	size_t n = dataset__nruns(ds), m = r->ncand;
	double *x = malloc(m * n * sizeof(*x) + 1);
	struct dtree_feature *feat = calloc(m + 1, sizeof(*feat));
	struct dtree_input in = {
		.nsamples = n, .nfeatures = m, .x = x, .slow = r->slow, .feat = feat};
	int err = -ENOMEM;

	if (!x || !feat)
		goto cleanup;
	for (size_t j = 0; j < m; j++) {
		/* third stop rule: a function taking < sig_frac of a run is not significant */
		feat[j].dir = DTREE_HIGH;
		feat[j].min_slow_mean = o->sig_frac * r->lab.median_ns;
		for (size_t i = 0; i < n; i++)
			x[j * n + i] = (double)dataset__time(ds, i, r->cand[j]);
	}
	err = dtree__fit(&in, &o->tree, &r->tree);
cleanup:
	free(x);
	free(feat);
	return err;
}

static int add_precond(struct xa_result *r, const struct dtree_path *p)
{
	struct xa_precond *pc = &r->pre[r->npre];

	pc->conds = calloc(p->ncond, sizeof(*pc->conds));
	if (!pc->conds)
		return -ENOMEM;
	for (size_t k = 0; k < p->ncond; k++) {
		pc->conds[k].func = r->cand[p->conds[k].feature];
		pc->conds[k].gt = p->conds[k].gt;
		pc->conds[k].slow_side = p->conds[k].slow_side;
		pc->conds[k].threshold_ns = p->conds[k].threshold;
	}
	pc->ncond = p->ncond;
	pc->slow_runs = p->nslow;
	pc->runs = p->n;
	r->npre++;
	return 0;
}

/*
 * Nodes on a precondition's path where the path takes the node's slow
 * side are critical functions; the first occurrence (nearest the root of
 * the first path) gives the threshold that labels step 2.
 */
static int criticals(struct xa_result *r)
{
	size_t cap = 0;

	for (size_t i = 0; i < r->npre; i++)
		cap += r->pre[i].ncond;
	r->crit = calloc(cap + 1, sizeof(*r->crit));
	if (!r->crit)
		return -ENOMEM;
	for (size_t i = 0; i < r->npre; i++) {
		for (size_t k = 0; k < r->pre[i].ncond; k++) {
			const struct xa_cond *c = &r->pre[i].conds[k];
			bool seen = false;

			for (size_t j = 0; j < r->ncrit; j++)
				seen |= r->crit[j].func == c->func;
			if (seen || !c->slow_side)
				continue;
			r->crit[r->ncrit].func = c->func;
			r->crit[r->ncrit].gt = c->gt;
			r->crit[r->ncrit].threshold_ns = c->threshold_ns;
			r->ncrit++;
		}
	}
	return 0;
}

int xa_step1(const struct dataset *ds, const struct analysis_opts *o, struct xa_result *r)
{
	uint32_t need = xa_min_cover(o, (uint32_t)r->lab.nslow);
	size_t np;
	int err;

	err = fit_tree(ds, o, r);
	if (err)
		return err;
	np = dtree__npaths(r->tree);
	r->pre = calloc(np + 1, sizeof(*r->pre));
	if (!r->pre)
		return -ENOMEM;
	for (size_t i = 0; i < np; i++) {
		const struct dtree_path *p = dtree__path(r->tree, i);

		/* a leaf holding a handful of the slow runs is noise, not a precondition */
		if (p->nslow < need) {
			r->npre_dropped++;
			continue;
		}
		err = add_precond(r, p);
		if (err)
			return err;
	}
	return criticals(r);
}
