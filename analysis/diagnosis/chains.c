/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * From step 1's picks to the functions a report names. Inclusive times of
 * nested marked functions are all correlated, so the tree (and its
 * surrogates) may pick an outer function whose slowdown happened in a
 * callee. Each pick is followed down through its marked callees while one
 * callee holds most (drill_share) of the pick's added time (mean time in
 * slow runs - in fast runs); the deepest one is named, with the chain.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "diagnosis_impl.h"

/* Mean over slow runs - mean over fast runs of v (per run). */
double diagnosis__added(const double *v, const uint8_t *slow, size_t n)
{
	double sum[2] = {0, 0}, cnt[2] = {0, 0};

	for (size_t i = 0; i < n; i++) {
		sum[!!slow[i]] += v[i];
		cnt[!!slow[i]]++;
	}
	if (!cnt[0] || !cnt[1])
		return 0;
	return sum[1] / cnt[1] - sum[0] / cnt[0];
}

double diagnosis__class_mean(const double *v, const uint8_t *slow, size_t n, int want)
{
	double sum = 0, cnt = 0;

	for (size_t i = 0; i < n; i++)
		if (!!slow[i] == want && !isnan(v[i])) {
			sum += v[i];
			cnt++;
		}
	return cnt ? sum / cnt : NAN;
}

struct diagnosis_proportion diagnosis_proportion(const double *v, const double *w,
						 const uint8_t *slow, size_t n)
{
	double add = diagnosis__class_mean(w, slow, n, 1) - diagnosis__class_mean(w, slow, n, 0);
	double wfast = diagnosis__class_mean(w, slow, n, 0);
	struct diagnosis_proportion p = {
		.share = add > 0 ? (diagnosis__class_mean(v, slow, n, 1) -
				    diagnosis__class_mean(v, slow, n, 0)) /
					   add
				 : NAN,
		.fast_share = wfast > 0	     ? diagnosis__class_mean(v, slow, n, 0) / wfast
			      : isnan(wfast) ? NAN
					     : 0,
	};

	p.excess = p.share - p.fast_share;
	return p;
}

static void func_times(const struct dataset *ds, uint32_t f, double *out)
{
	for (size_t i = 0; i < dataset__nruns(ds); i++)
		out[i] = (double)dataset__time(ds, i, f);
}

/*
 * The function's own split against the run labels (a one-node tree, the
 * same admissibility rules as step 1): what labels its step-2 samples when
 * the drill-down reached it rather than the tree.
 */
int diagnosis__own_split(const struct dataset *ds, const struct diagnosis_opts *o,
			 const struct diagnosis *r, uint32_t f, bool *found, double *thr)
{
	size_t n = dataset__nruns(ds);
	double *x = malloc(n * sizeof(*x) + 1);
	struct dtree_feature feat = {.dir = DTREE_HIGH,
				     .min_slow_mean = o->sig_frac * r->lab.median_ns};
	struct dtree_input in = {
		.nsamples = n, .nfeatures = 1, .x = x, .slow = r->slow, .feat = &feat};
	struct dtree_params p = o->tree;
	struct dtree *t = NULL;
	int err = -ENOMEM;

	*found = false;
	if (!x)
		goto cleanup;
	func_times(ds, f, x);
	p.max_depth = 1;
	err = dtree__fit(&in, &p, &t);
	if (err)
		goto cleanup;
	if (dtree__npaths(t) && dtree__path(t, 0)->conds[0].slow_side &&
	    dtree__path(t, 0)->conds[0].gt) {
		*found = true;
		*thr = dtree__path(t, 0)->conds[0].threshold;
	}
cleanup:
	dtree__free(t);
	free(x);
	return err;
}

/*
 * Managed code's chain ends at the application's frame (issue 34): the
 * deepest JIT frame (JavaScript, Java) on it, when the chain went on into
 * the runtime's own code below it. A Node.js handler's burnTheCpuXlp was
 * named as V8's __ieee754_rem_pio2 (Math.sin's implementation, in node's
 * binary), which no JavaScript developer can act on.
 */
static void jit_end(const struct dataset *ds, struct diagnosis_drill *d)
{
	size_t jit = d->n;

	for (size_t i = 0; i < d->n; i++)
		if (dataset__jit_func(dataset__func(ds, d->chain[i])))
			jit = i;
	if (jit < d->n - 1) {
		d->n = jit + 1;
		d->thr = d->thrs[jit];
	}
}

/* Follows pick k down through its callees (pairs of ancestor slot k). */
static int drill_down(const struct dataset *ds, const struct diagnosis_opts *o,
		      const struct diagnosis *r, const struct nesting *nest, size_t k, double *tmp,
		      struct diagnosis_drill *d)
{
	const struct diagnosis_pick *pk = &r->picks[k];
	size_t nr = dataset__nruns(ds);
	double top;
	int err;

	func_times(ds, pk->func, tmp);
	top = diagnosis__added(tmp, r->slow, nr);
	d->n = 1;
	d->chain[0] = pk->func;
	d->added[0] = top;
	d->thr = d->thrs[0] = pk->threshold_ns;
	while (d->n < DIAGNOSIS_MAX_CHAIN && top > 0) {
		uint32_t x = d->chain[d->n - 1], best = DATASET_NO_FUNC;
		double best_add = -INFINITY, thr = 0;
		bool found = false;

		for (size_t i = 0; i < nesting__npairs(nest, k); i++) {
			const struct dataset_nest_pair *p = nesting__pair(nest, k, i);
			double a;

			if (p->parent != x || p->child == pk->func)
				continue;
			a = diagnosis__added(p->time, r->slow, nr);
			if (a > best_add || (a == best_add && p->child < best)) {
				best_add = a;
				best = p->child;
			}
		}
		if (best == DATASET_NO_FUNC || best_add < o->drill_share * top)
			break;
		err = diagnosis__own_split(ds, o, r, best, &found, &thr);
		if (err)
			return err;
		if (!found)
			break;
		d->chain[d->n] = best;
		d->added[d->n] = best_add;
		d->thr = d->thrs[d->n] = thr;
		d->n++;
	}
	jit_end(ds, d);
	return 0;
}

/*
 * Of the picks that reach the function pick k reaches, the one whose chain
 * names it: among the chains that hold most (drill_share) of the most any
 * of them holds of its added time (as a callee is followed), the longest
 * (outermost), then the one that holds more, then the first. A longer
 * chain through a minor caller must not name it: one CI run, 2026-11-28,
 * named crunch (73.8 ms added per slow run, 71.7 ms of it under
 * compute_checksum) as update_cache -> burn_cpu_ns -> crunch, a path that
 * held 2.1 ms, because a surrogate pick reached it by the longest chain.
 */
size_t diagnosis__chain_of(const struct diagnosis_drill *d, size_t np, size_t k, double share)
{
	uint32_t f = d[k].chain[d[k].n - 1];
	double most = 0;
	size_t best = np;

	for (size_t j = 0; j < np; j++)
		if (d[j].chain[d[j].n - 1] == f && d[j].added[d[j].n - 1] > most)
			most = d[j].added[d[j].n - 1];
	for (size_t j = 0; j < np; j++) {
		double a = d[j].added[d[j].n - 1];

		if (d[j].chain[d[j].n - 1] != f || (a < share * most && most > 0))
			continue;
		if (best == np || d[j].n > d[best].n ||
		    (d[j].n == d[best].n && a > d[best].added[d[best].n - 1]))
			best = j;
	}
	return best == np ? k : best;
}

/* Added time of named function m nested under ancestor slot k (any parent). */
static double added_under(const struct nesting *nest, size_t k, uint32_t m, const uint8_t *slow,
			  size_t nr, double *tmp)
{
	bool any = false;

	memset(tmp, 0, nr * sizeof(*tmp));
	for (size_t i = 0; i < nesting__npairs(nest, k); i++) {
		const struct dataset_nest_pair *p = nesting__pair(nest, k, i);

		if (p->child != m)
			continue;
		any = true;
		for (size_t j = 0; j < nr; j++)
			tmp[j] += p->time[j];
	}
	return any ? diagnosis__added(tmp, slow, nr) : 0;
}

static void set_crit(struct diagnosis_critical *c, const struct diagnosis_drill *d,
		     const struct diagnosis_pick *pk)
{
	memset(c, 0, sizeof(*c));
	c->func = d->chain[d->n - 1];
	c->gt = d->n > 1 ? true : pk->gt;
	c->threshold_ns = d->thr;
	c->nchain = d->n;
	memcpy(c->chain, d->chain, d->n * sizeof(*d->chain));
	memcpy(c->chain_added, d->added, d->n * sizeof(*d->added));
	c->surrogate = pk->surrogate;
}

int diagnosis__chains(const struct dataset *ds, const struct diagnosis_opts *o, struct diagnosis *r,
		      char *err, size_t errlen)
{
	size_t nr = dataset__nruns(ds), np = r->npicks;
	uint32_t *anc = malloc(np * sizeof(*anc) + 1);
	struct diagnosis_drill *d = calloc(np + 1, sizeof(*d));
	uint8_t *drop = calloc(np + 1, 1);
	double *tmp = malloc(nr * sizeof(*tmp) + 1);
	struct nesting *nest = NULL;
	int ret = -ENOMEM;

	r->crit = calloc(np + 1, sizeof(*r->crit));
	if (!anc || !d || !drop || !tmp || !r->crit)
		goto cleanup;
	for (size_t k = 0; k < np; k++)
		anc[k] = r->picks[k].func;
	ret = dataset__nesting(ds, anc, np, &nest, err, errlen);
	for (size_t k = 0; k < np && !ret; k++)
		ret = drill_down(ds, o, r, nest, k, tmp, &d[k]);
	if (ret)
		goto cleanup;
	for (size_t k = 0; k < np; k++)
		drop[k] = diagnosis__chain_of(d, np, k, o->drill_share) != k;
	/*
	 * A named function whose named callees hold most of its added time
	 * says less than they do: each callee explains its part precisely.
	 */
	for (size_t k = 0; k < np; k++) {
		uint32_t last = d[k].chain[d[k].n - 1];
		double inside = 0;
		size_t slot = np;

		if (drop[k])
			continue;
		for (size_t j = 0; j < np; j++)
			if (r->picks[j].func == last)
				slot = j;
		if (slot == np)
			continue; /* not tracked as an ancestor: no callee data */
		for (size_t j = 0; j < np; j++)
			if (j != k && !drop[j])
				inside += added_under(nest, slot, d[j].chain[d[j].n - 1], r->slow,
						      nr, tmp);
		if (inside >= o->drill_share * d[k].added[d[k].n - 1] && inside > 0)
			drop[k] = 1;
	}
	for (size_t k = 0; k < np; k++)
		if (!drop[k])
			set_crit(&r->crit[r->ncrit++], &d[k], &r->picks[k]);
	ret = 0;
cleanup:
	nesting__free(nest);
	free(anc);
	free(d);
	free(drop);
	free(tmp);
	return ret;
}
