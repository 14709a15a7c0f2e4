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
#include "diagnosis_impl.h"
#include "util.h"
#include "stats.h"

uint32_t diagnosis__min_cover(const struct diagnosis_opts *o, uint32_t nslow)
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
int diagnosis__candidates(const struct dataset *ds, unsigned K, struct diagnosis *r)
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

static int fit_tree(const struct dataset *ds, const struct diagnosis_opts *o, struct diagnosis *r)
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

/*
 * A path may test one function twice ("ExecutorRun > 292.7 us AND
 * ExecutorRun > 341.3 us"): its tests are one interval lo < t <= hi.
 */
static void merge_cond(struct diagnosis_cond *c, const struct dtree_cond *d)
{
	if (d->gt && (!c->has_lo || d->threshold > c->lo_ns)) {
		c->has_lo = true;
		c->lo_ns = d->threshold;
	} else if (!d->gt && (!c->has_hi || d->threshold < c->hi_ns)) {
		c->has_hi = true;
		c->hi_ns = d->threshold;
	}
	c->slow_side |= d->slow_side;
}

static int add_precond(struct diagnosis *r, const struct dtree_path *p)
{
	struct diagnosis_precond *pc = &r->pre[r->npre];

	pc->conds = calloc(p->ncond, sizeof(*pc->conds));
	if (!pc->conds)
		return -ENOMEM;
	for (size_t k = 0; k < p->ncond; k++) {
		uint32_t f = r->cand[p->conds[k].feature];
		size_t j = 0;

		while (j < pc->ncond && pc->conds[j].func != f)
			j++;
		if (j == pc->ncond)
			pc->conds[pc->ncond++].func = f;
		merge_cond(&pc->conds[j], &p->conds[k]);
	}
	pc->slow_runs = p->nslow;
	pc->runs = p->n;
	r->npre++;
	return 0;
}

static bool picked(const struct diagnosis *r, uint32_t f)
{
	for (size_t j = 0; j < r->npicks; j++)
		if (r->picks[j].func == f)
			return true;
	return false;
}

/*
 * Nodes on a kept path where the path takes the node's slow side pick
 * their function; the first occurrence (nearest the root of the first
 * path) gives the threshold that labels step 2.
 */
static void tree_picks(struct diagnosis *r, const struct dtree_path *p)
{
	for (size_t k = 0; k < p->ncond; k++) {
		const struct dtree_cond *c = &p->conds[k];
		uint32_t f = r->cand[c->feature];

		if (!c->slow_side || picked(r, f))
			continue;
		r->picks[r->npicks++] = (struct diagnosis_pick){
			.func = f, .gt = c->gt, .threshold_ns = c->threshold};
	}
}

/* Runs that reach the node of test k on path p (every earlier test holds). */
static size_t node_runs(const struct dataset *ds, const struct diagnosis *r,
			const struct dtree_path *p, size_t k, uint32_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < dataset__nruns(ds); i++) {
		bool in = true;

		for (size_t j = 0; j < k && in; j++) {
			double t = (double)dataset__time(ds, i, r->cand[p->conds[j].feature]);

			in = p->conds[j].gt ? t > p->conds[j].threshold
					    : t <= p->conds[j].threshold;
		}
		if (in)
			out[n++] = (uint32_t)i;
	}
	return n;
}

struct sur_item {
	double v;
	uint8_t side;
};

static int cmp_sur(const void *a, const void *b)
{
	const struct sur_item *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (int)x->side - (int)y->side;
}

/*
 * The best "time > t" split of function f predicting side[] (1: the
 * primary split's slow side) over the node's runs; returns the adjusted
 * association (agreement beyond the majority rule, CART's surrogate
 * measure) and its threshold.
 */
static double surrogate(const struct dataset *ds, const uint32_t *runs, const uint8_t *side,
			size_t n, uint32_t f, struct sur_item *it, double *thr, double *slow_mean)
{
	size_t n1 = 0, best_err = SIZE_MAX, err, below_side = 0, below = 0;
	double minority, sum1 = 0, best_sum = 0;

	for (size_t i = 0; i < n; i++) {
		it[i].v = (double)dataset__time(ds, runs[i], f);
		it[i].side = side[i];
		n1 += side[i];
	}
	if (!n1 || n1 == n)
		return 0;
	xlp_sort(it, n, sizeof(*it), cmp_sur);
	minority = (double)(n1 < n - n1 ? n1 : n - n1);
	for (size_t i = 0; i < n; i++)
		sum1 += it[i].v;
	/* threshold between it[i-1] and it[i]: below predicts 0, above 1 */
	for (size_t i = 1; i < n; i++) {
		below++;
		below_side += it[i - 1].side;
		sum1 -= it[i - 1].v;
		if (!(it[i - 1].v < it[i].v))
			continue;
		err = below_side + ((n - below) - (n1 - below_side));
		if (err < best_err) {
			best_err = err;
			*thr = it[i - 1].v + (it[i].v - it[i - 1].v) / 2;
			best_sum = sum1 / (double)(n - below);
		}
	}
	if (best_err == SIZE_MAX)
		return 0;
	*slow_mean = best_sum;
	return (minority - (double)best_err) / minority;
}

/* Co-critical functions: surrogates of each tree pick at its node. */
static int surrogates(const struct dataset *ds, const struct diagnosis_opts *o, struct diagnosis *r,
		      const struct dtree_path *p)
{
	size_t nr = dataset__nruns(ds);
	uint32_t *runs = malloc(nr * sizeof(*runs) + 1);
	uint8_t *side = malloc(nr + 1);
	struct sur_item *it = malloc(nr * sizeof(*it) + 1);
	int err = -ENOMEM;

	if (!runs || !side || !it)
		goto cleanup;
	for (size_t k = 0; k < p->ncond; k++) {
		const struct dtree_cond *c = &p->conds[k];
		uint32_t pf = r->cand[c->feature];
		size_t n;
		double padd = 0, pmean[2] = {0, 0}, cnt[2] = {0, 0};

		if (!c->slow_side)
			continue;
		n = node_runs(ds, r, p, k, runs);
		for (size_t i = 0; i < n; i++) {
			double t = (double)dataset__time(ds, runs[i], pf);

			side[i] = c->gt ? t > c->threshold : t <= c->threshold;
			pmean[side[i]] += t;
			cnt[side[i]]++;
		}
		if (cnt[0] && cnt[1])
			padd = pmean[1] / cnt[1] - pmean[0] / cnt[0];
		for (size_t j = 0; j < r->ncand; j++) {
			uint32_t f = r->cand[j];
			double thr = 0, smean = 0, a, fadd, fm[2] = {0, 0};

			if (f == pf || picked(r, f))
				continue;
			a = surrogate(ds, runs, side, n, f, it, &thr, &smean);
			if (a < o->surrogate_assoc || smean < o->sig_frac * r->lab.median_ns)
				continue;
			for (size_t i = 0; i < n; i++)
				fm[side[i]] += (double)dataset__time(ds, runs[i], f);
			fadd = fm[1] / cnt[1] - fm[0] / cnt[0];
			if (!(fadd >= o->co_share * padd))
				continue;
			r->picks[r->npicks++] = (struct diagnosis_pick){
				.func = f, .gt = true, .threshold_ns = thr, .surrogate = true};
		}
	}
	err = 0;
cleanup:
	free(runs);
	free(side);
	free(it);
	return err;
}

int diagnosis__step1(const struct dataset *ds, const struct diagnosis_opts *o, struct diagnosis *r)
{
	uint32_t need = diagnosis__min_cover(o, (uint32_t)r->lab.nslow);
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
	r->picks = calloc(r->ncand + 1, sizeof(*r->picks));
	if (!r->picks)
		return -ENOMEM;
	for (size_t i = 0; i < np; i++)
		if (dtree__path(r->tree, i)->nslow >= need)
			tree_picks(r, dtree__path(r->tree, i));
	for (size_t i = 0; i < np && !err; i++)
		if (dtree__path(r->tree, i)->nslow >= need)
			err = surrogates(ds, o, r, dtree__path(r->tree, i));
	return err;
}
