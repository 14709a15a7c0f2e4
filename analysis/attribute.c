/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The diagnosis pipeline: labels, step 1, one pass over the traces for the
 * resource usage of the functions we report on, step 2 per critical
 * function, the whole-run baseline (PerfProbe section V-D), the table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis_impl.h"

/* One pass over the traces for the critical functions and the table's. */
static int resource_steps(const struct dataset *ds, const struct analysis_opts *o,
			  struct xa_result *r, char *err, size_t errlen)
{
	size_t nf = r->ncrit + r->nrows;
	uint32_t *funcs = malloc(nf * sizeof(*funcs) + 1);
	struct resources *res = NULL;
	int ret = -ENOMEM;

	if (!funcs)
		goto cleanup;
	for (size_t i = 0; i < r->ncrit; i++)
		funcs[i] = r->crit[i].func;
	for (size_t i = 0; i < r->nrows; i++)
		funcs[r->ncrit + i] = r->rows[i].func;
	ret = dataset__resources(ds, funcs, nf, &res, err, errlen);
	if (ret)
		goto cleanup;
	for (size_t k = 0; k < r->ncrit && !ret; k++)
		ret = xa_critical_step2(ds, o, r, res, k);
	for (size_t k = 0; k < r->ncrit && !ret; k++)
		ret = xa_evidence(ds, o, r, &r->crit[k]);
	for (size_t k = 0; k < r->ncrit && !ret; k++)
		ret = xa_growth_step(ds, o, r, res, k);
	/* from the outermost function of the chain down to the one named */
	for (size_t k = 0; k < r->ncrit && !ret; k++)
		ret = dataset__context_tree(ds, r->crit[k].chain[0], r->slow, &r->crit[k].cct);
	for (size_t i = 0; i < r->nrows && !ret; i++)
		ret = xa_fill_row(ds, res, r->ncrit + i, &r->rows[i]);
cleanup:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory: analyse fewer or smaller traces");
	resources__free(res);
	free(funcs);
	return ret;
}

/* The runs' wait chains, when the traces hold their scheduling events. */
static int wait_chains(const struct dataset *ds, struct xa_result *r, char *err, size_t errlen)
{
	int ret;

	if (!(dataset__features(ds) & XLP_FEAT_TIMELINE))
		return 0;
	ret = waitchain__build(ds, NULL, &r->waits, err, errlen);
	if (!ret)
		ret = waitchain__blockers(r->waits, r->slow, &r->blockers, &r->nblockers);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory: analyse fewer or smaller traces");
	return ret;
}

static int label_runs(const struct dataset *ds, const struct analysis_opts *o, struct xa_result *r)
{
	size_t n = dataset__nruns(ds);
	double *lat = malloc(n * sizeof(*lat) + 1);
	int err = -ENOMEM;

	r->slow = calloc(n + 1, 1);
	if (!lat || !r->slow)
		goto cleanup;
	for (size_t i = 0; i < n; i++)
		lat[i] = dataset__run(ds, i)->latency_ns;
	err = labels__compute(lat, n, &o->rule, r->slow, &r->lab);
	if (err)
		goto cleanup;
	if (n < o->min_runs)
		r->status = XA_FEW_RUNS;
	else if (!r->lab.nslow)
		r->status = XA_NONE_SLOW;
	else if (r->lab.nslow == n)
		r->status = XA_ALL_SLOW;
	else if (o->rule.kind != LABEL_FIXED && o->min_slowdown > 0 &&
		 r->lab.slow_median_ns < (1 + o->min_slowdown) * r->lab.fast_median_ns) {
		r->status = XA_NO_PRECOND;
		r->insignificant = true;
	}
cleanup:
	free(lat);
	return err;
}

/* err for a failure of ours (not of the input): memory, or a bug. */
static void internal_error(int ret, char *err, size_t errlen)
{
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory: analyse fewer or smaller traces");
	else
		snprintf(err, errlen, "analysis failed (%s): please report this bug with the trace",
			 strerror(-ret));
}

int analysis__run(const struct dataset *ds, const struct analysis_opts *o, struct xa_result **out,
		  char *err, size_t errlen)
{
	struct xa_result *r = calloc(1, sizeof(*r));
	int ret = r ? 0 : -ENOMEM;
	bool told = false; /* err already says why */

	*out = NULL;
	if (!ret && !dataset__nruns(ds))
		ret = -EINVAL;
	if (ret)
		goto cleanup;
	r->rule = o->rule;
	r->min_slowdown = o->min_slowdown;
	r->alpha_evidence = o->alpha_evidence;
	r->excess_share = o->excess_share;
	r->features = dataset__features(ds);
	ret = label_runs(ds, o, r);
	ret = ret ? ret : xa_candidates(ds, o->top_k, r);
	if (!ret && r->status == XA_OK) {
		ret = xa_step1(ds, o, r);
		if (!ret && !r->npre)
			r->status = XA_NO_PRECOND;
	}
	ret = ret ? ret : xa_pick_rows(ds, o, r);
	if (ret)
		goto cleanup;
	/* these read the traces again: their own messages */
	if (r->status == XA_OK) {
		ret = xa_chains(ds, o, r, err, errlen);
		told = ret != 0;
		if (ret)
			goto cleanup;
	}
	ret = resource_steps(ds, o, r, err, errlen);
	told = ret != 0;
	if (ret)
		goto cleanup;
	xa_rank(r);
	if (r->status == XA_OK && !r->ncrit) {
		r->status = XA_NO_PRECOND;
		r->insignificant = r->nrejected > 0;
	}
	if (r->status == XA_OK || r->status == XA_NO_PRECOND)
		ret = xa_baseline(ds, o, r);
	/* no function accused: does the whole run explain the slow runs? */
	if (!ret && r->status == XA_NO_PRECOND)
		ret = xa_fallback(ds, o, r);
	if (ret)
		goto cleanup;
	ret = wait_chains(ds, r, err, errlen);
	told = ret != 0;
	if (ret)
		goto cleanup;
	*out = r;
	r = NULL;
cleanup:
	if (ret && !told)
		internal_error(ret, err, errlen);
	analysis__free(r);
	return ret;
}

void analysis__free(struct xa_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->npre; i++)
		free(r->pre[i].conds);
	for (size_t i = 0; i < r->ncrit + r->nrejected; i++) {
		xa_step2_release(&r->crit[i].s2);
		cct__free(r->crit[i].cct);
		xa_growth_release(&r->crit[i].growth);
	}
	xa_growth_release(&r->fallback.growth);
	xa_step2_release(&r->base);
	xa_step2_release(&r->own);
	dtree__free(r->tree);
	free(r->pre);
	free(r->crit);
	free(r->picks);
	free(r->cand);
	free(r->rows);
	free(r->slow);
	waitchain__free(r->waits);
	free(r->blockers);
	free(r);
}
