/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Step 2, relevant resource factors (PerfProbe ICDCS'19 section IV-C): for
 * a critical function, one sample per run where it ran, its resource usage
 * summed over its invocations as features, labelled slow when its time is
 * on the slow side of its step-1 threshold; the same pruning and tree.
 * Also used for the whole-run baseline (section V-D).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "diagnosis_impl.h"
#include "stats.h"

/* Median of v over the samples whose label is want. */
static double class_median(const double *v, const uint8_t *slow, size_t n, int want, double *tmp)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (slow[i] == want && !isnan(v[i]))
			tmp[k++] = v[i];
	stats__sort(tmp, k);
	return k ? stats__quantile_sorted(tmp, k, 0.5) : NAN;
}

/* A sample without CPU time has no frequency: it gets the mean of the others. */
static bool impute_freq(double *v, size_t n)
{
	double sum = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i])) {
			sum += v[i];
			k++;
		}
	for (size_t i = 0; i < n; i++)
		if (isnan(v[i]))
			v[i] = k ? sum / (double)k : 0;
	return k > 0;
}

static void evidence(const double *v, const uint8_t *slow, size_t n, struct diagnosis_factor *f)
{
	f->slow_hits = f->fast_hits = f->nslow = f->nfast = 0;
	for (size_t i = 0; i < n; i++) {
		bool side = f->gt ? v[i] > f->threshold : v[i] <= f->threshold;

		if (slow[i]) {
			f->nslow++;
			f->slow_hits += side;
		} else {
			f->nfast++;
			f->fast_hits += side;
		}
	}
}

/* One-feature tree: the feature's best admissible split, if any. */
static int single_split(const double *v, const uint8_t *slow, size_t n, enum dtree_dir dir,
			const struct diagnosis_opts *o, bool *pruned, struct dtree_cond *out)
{
	struct dtree_feature feat = {.dir = dir};
	struct dtree_input in = {
		.nsamples = n, .nfeatures = 1, .x = v, .slow = slow, .feat = &feat};
	struct dtree_params p = o->tree;
	struct dtree *t = NULL;
	int err;

	p.max_depth = 1;
	err = dtree__fit(&in, &p, &t);
	if (err)
		return err;
	*pruned = dtree__feat_stats(t, 0)->pruned != DTREE_KEPT;
	out->node = UINT32_MAX;
	if (dtree__npaths(t) && dtree__path(t, 0)->conds[0].slow_side)
		*out = dtree__path(t, 0)->conds[0];
	dtree__free(t);
	return 0;
}

/*
 * cpu_run grows in two ways: more work, or the same work at a lower clock.
 * The work is FREQ_KHZ_NS (kHz x ns on CPU, proportional to cycles): when it
 * does not differ between slow and fast samples (pruned by the alpha rule)
 * and the frequency separates them, the frequency is the factor.
 */
static int freq_check(const struct diagnosis_s2_input *in, const struct diagnosis_opts *o,
		      struct diagnosis_factor *f)
{
	struct dtree_cond c;
	bool work_same, freq_pruned;
	const double *freq = in->x + DIAGNOSIS_CPU_FREQ * in->n;
	int err;

	err = single_split(in->cycles, in->slow, in->n, DTREE_HIGH, o, &work_same, &c);
	if (err || !work_same)
		return err;
	err = single_split(freq, in->slow, in->n, DTREE_LOW, o, &freq_pruned, &c);
	if (err || freq_pruned || c.node == UINT32_MAX)
		return err;
	f->feat = DIAGNOSIS_CPU_FREQ;
	f->gt = c.gt;
	f->threshold = c.threshold;
	f->from_freq_check = true;
	return 0;
}

static int add_factor(struct diagnosis_step2 *s, const struct diagnosis_s2_input *in,
		      const struct diagnosis_opts *o, const struct dtree_cond *c)
{
	struct diagnosis_factor f = {
		.feat = s->featmap[c->feature], .gt = c->gt, .threshold = c->threshold};
	int err;

	if (f.feat == DIAGNOSIS_CPU_RUN && f.gt && s->used[DIAGNOSIS_CPU_FREQ] && in->cycles) {
		err = freq_check(in, o, &f);
		if (err)
			return err;
	}
	for (size_t i = 0; i < s->nfactors; i++)
		if (s->factors[i].feat == f.feat)
			return 0;
	f.slow_median = s->slow_median[f.feat];
	f.fast_median = s->fast_median[f.feat];
	evidence(in->x + f.feat * in->n, in->slow, in->n, &f);
	s->factors[s->nfactors++] = f;
	return 0;
}

/* Factors: slow-side nodes of the paths that hold enough slow samples. */
static int factors(struct diagnosis_step2 *s, const struct diagnosis_s2_input *in,
		   const struct diagnosis_opts *o)
{
	uint32_t need = diagnosis__min_cover(o, s->nslow);
	size_t cap = 0, np = dtree__npaths(s->tree);
	int err = 0;

	for (size_t i = 0; i < np; i++)
		cap += dtree__path(s->tree, i)->ncond;
	s->factors = calloc(cap + 1, sizeof(*s->factors));
	if (!s->factors)
		return -ENOMEM;
	for (size_t i = 0; i < np && !err; i++) {
		const struct dtree_path *p = dtree__path(s->tree, i);

		if (p->nslow < need)
			continue;
		for (size_t k = 0; k < p->ncond && !err; k++)
			if (p->conds[k].slow_side)
				err = add_factor(s, in, o, &p->conds[k]);
	}
	return err;
}

static void breakdown(struct diagnosis_step2 *s, const struct diagnosis_s2_input *in, double *tmp)
{
	for (int f = 0; f < DIAGNOSIS_NFEAT; f++) {
		s->slow_median[f] =
			s->avail[f] ? class_median(in->x + f * in->n, in->slow, in->n, 1, tmp)
				    : NAN;
		s->fast_median[f] =
			s->avail[f] ? class_median(in->x + f * in->n, in->slow, in->n, 0, tmp)
				    : NAN;
	}
	s->time_slow_median = class_median(in->time, in->slow, in->n, 1, tmp);
	s->time_fast_median = class_median(in->time, in->slow, in->n, 0, tmp);
}

/* How much longer the function (or run) took in slow samples, on average. */
static double added_time(const struct diagnosis_s2_input *in)
{
	double sum[2] = {0, 0};
	size_t cnt[2] = {0, 0};

	for (size_t i = 0; i < in->n; i++) {
		sum[!!in->slow[i]] += in->time[i];
		cnt[!!in->slow[i]]++;
	}
	if (!cnt[0] || !cnt[1])
		return 0;
	return sum[1] / cnt[1] - sum[0] / cnt[0];
}

static int fit_tree(struct diagnosis_step2 *s, const struct diagnosis_s2_input *in,
		    const struct diagnosis_opts *o)
{
	double share = o->factor_share * added_time(in), ref = o->sig_frac * in->time_ref;
	size_t n = in->n;
	double *x = malloc(DIAGNOSIS_NFEAT * n * sizeof(*x) + 1);
	struct dtree_feature feat[DIAGNOSIS_NFEAT] = {0};
	struct dtree_input din = {.nsamples = n, .x = x, .slow = in->slow, .feat = feat};
	int err = -ENOMEM;

	if (!x)
		goto cleanup;
	for (int f = 0; f < DIAGNOSIS_NFEAT; f++) {
		size_t j = s->nused;

		if (!s->used[f])
			continue;
		s->featmap[s->nused++] = (enum diagnosis_feat)f;
		memcpy(x + j * n, in->x + f * n, n * sizeof(*x));
		/* a lower clock slows a function down; times slow it when they grow */
		feat[j].dir = f == DIAGNOSIS_CPU_FREQ ? DTREE_LOW : DTREE_HIGH;
		feat[j].min_slow_mean =
			diagnosis__feat_is_time(f) ? (share > ref ? share : ref) : 0;
	}
	din.nfeatures = s->nused;
	err = dtree__fit(&din, &o->tree, &s->tree);
cleanup:
	free(x);
	return err;
}

int diagnosis__step2_fit(const struct diagnosis_s2_input *in, const struct diagnosis_opts *o,
			 struct diagnosis_step2 *s)
{
	double *tmp = malloc(in->n * sizeof(*tmp) + 1);
	int err = -ENOMEM;

	memset(s, 0, sizeof(*s));
	if (!tmp)
		goto cleanup;
	diagnosis__feature_sets(in->features, s->avail, s->used);
	if (s->avail[DIAGNOSIS_CPU_FREQ] && !impute_freq(in->x + DIAGNOSIS_CPU_FREQ * in->n, in->n))
		s->used[DIAGNOSIS_CPU_FREQ] = false; /* no sample ran on a CPU */
	s->samples = (uint32_t)in->n;
	for (size_t i = 0; i < in->n; i++)
		s->nslow += in->slow[i];
	s->nfast = s->samples - s->nslow;
	breakdown(s, in, tmp);
	err = fit_tree(s, in, o);
	if (!err)
		err = factors(s, in, o);
cleanup:
	free(tmp);
	return err;
}

/*
 * The tree names no factor, yet the evidence showed one resource beyond the
 * bulk (step2_input.c, test 4): that resource is the factor, at its best
 * one-feature split, without the tree's gap rule. Sampled times are
 * multiples of a period stretched by off-CPU thinning (nginx under a cold
 * disk: a 164 ms resolution), and the narrowest slow-fast gap of a
 * resource that tracks the function's time then falls under gap_frac of
 * its range; the beyond test, with its p printed, stands in for it.
 */
int diagnosis__step2_factor_of(const struct diagnosis_s2_input *in, const struct diagnosis_opts *o,
			       struct diagnosis_step2 *s, enum diagnosis_feat f)
{
	struct diagnosis_opts o2 = *o;
	struct dtree_cond c;
	bool pruned;
	int err;

	if (s->nfactors || !s->avail[f])
		return 0;
	o2.tree.gap_frac = 0;
	err = single_split(in->x + f * in->n, in->slow, in->n, DTREE_HIGH, &o2, &pruned, &c);
	if (err || c.node == UINT32_MAX)
		return err;
	free(s->factors);
	s->factors = calloc(1, sizeof(*s->factors));
	if (!s->factors)
		return -ENOMEM;
	s->factors[0] = (struct diagnosis_factor){.feat = f,
						  .gt = c.gt,
						  .threshold = c.threshold,
						  .slow_median = s->slow_median[f],
						  .fast_median = s->fast_median[f],
						  .from_beyond = true};
	evidence(in->x + f * in->n, in->slow, in->n, &s->factors[0]);
	s->nfactors = 1;
	return 0;
}

void diagnosis__step2_release(struct diagnosis_step2 *s)
{
	dtree__free(s->tree);
	free(s->factors);
	s->tree = NULL;
	s->factors = NULL;
}
