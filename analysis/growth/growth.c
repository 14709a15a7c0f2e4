/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * report --growth: every function's series against the workload size
 * (temporal inference), then which function takes the run over at the
 * predicted size and through which callee (spatial inference, ΔInfer
 * section 6). See growth.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "growth.h"
#include "trace.h"
#include "util.h"

/* the resources fitted for the leading functions (XLP_C_*) */
static const int res_fitted[] = {XLP_C_CPU_RUN, XLP_C_CPU_WAIT, XLP_C_DISK,
				 XLP_C_NET,	XLP_C_IPC,	XLP_C_LOCK,
				 XLP_C_TIMER,	XLP_C_OTHER,	XLP_C_CPU_STEAL};

struct ctx {
	const struct growth_input *in;
	struct growth_result *r;
	struct growth_groups *g;
	double *scratch, *vals;
};

/* Medians per size of v, fitted when GROWTH_MIN_SIZES sizes have one. */
static int series_of(struct ctx *c, const double *v, uint32_t func, int metric,
		     struct growth_series *s)
{
	struct growth_result *r = c->r;
	double *x = c->vals, *y = c->vals + r->nsizes, *var = c->vals + 2 * r->nsizes;
	double *vk = c->vals + 3 * r->nsizes;
	size_t m = 0;

	memset(s, 0, sizeof(*s));
	s->func = func;
	s->metric = metric;
	s->med = malloc(r->nsizes * sizeof(*s->med));
	if (!s->med)
		return -ENOMEM;
	growth_groups__medians(c->g, v, c->scratch, s->med);
	growth_groups__median_var(c->g, v, vk);
	for (size_t k = 0; k < r->nsizes; k++)
		if (!isnan(s->med[k])) {
			x[m] = r->sizes[k];
			var[m] = vk[k];
			y[m++] = s->med[k];
		}
	s->now = s->med[r->nsizes - 1];
	if (m < GROWTH_MIN_SIZES || growth__fit_var(x, y, var, m, &s->fit)) {
		s->fit.model = GROWTH_NMODELS;
		s->predicted = NAN;
		return 0;
	}
	s->predicted = growth__predict(&s->fit, r->predict_size);
	return 0;
}

static int32_t add_series(struct ctx *c, const double *v, uint32_t func, int metric)
{
	struct growth_result *r = c->r;
	size_t cap = r->nseries;
	struct growth_series *n;

	/* grown one at a time: the count is small (functions times a few) */
	n = realloc(r->series, (cap + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	r->series = n;
	if (series_of(c, v, func, metric, &r->series[r->nseries]))
		return -ENOMEM;
	return (int32_t)r->nseries++;
}

static bool all_zero(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] != 0 && !isnan(v[i]))
			return false;
	return true;
}

/* A function's time without its marked callees' (the pairs under it). */
static void self_time(const struct growth_input *in, size_t f, double *out)
{
	memcpy(out, in->time + f * in->nruns, in->nruns * sizeof(*out));
	for (size_t p = 0; p < in->npairs; p++)
		if (in->pairs[p].parent == f)
			for (size_t i = 0; i < in->nruns; i++)
				out[i] = fmax(0, out[i] - in->pairs[p].time[i]);
}

static bool has_callees(const struct growth_input *in, size_t f)
{
	for (size_t p = 0; p < in->npairs; p++)
		if (in->pairs[p].parent == f)
			return true;
	return false;
}

static int func_series(struct ctx *c, size_t f, double *tmp)
{
	const struct growth_input *in = c->in;
	struct growth_result *r = c->r;
	struct growth_func *sf = &r->funcs[r->nfuncs];
	const double *t = in->time + f * in->nruns;
	int32_t i;

	if (all_zero(t, in->nruns))
		return 0; /* never ran in a run with a size */
	*sf = (struct growth_func){.func = (uint32_t)f,
				   .time = -1,
				   .calls = -1,
				   .self = -1,
				   .callee = -1,
				   .callee_calls = -1};
	i = add_series(c, t, (uint32_t)f, GROWTH_M_TIME);
	if (i < 0)
		return i;
	r->funcs[r->nfuncs].time = i;
	if (in->calls && !isnan(in->calls[f * in->nruns])) {
		i = add_series(c, in->calls + f * in->nruns, (uint32_t)f, GROWTH_M_CALLS);
		if (i < 0)
			return i;
		r->funcs[r->nfuncs].calls = i;
	}
	if (has_callees(in, f)) {
		self_time(in, f, tmp);
		i = add_series(c, tmp, (uint32_t)f, GROWTH_M_SELF);
		if (i < 0)
			return i;
		r->funcs[r->nfuncs].self = i;
	}
	r->nfuncs++;
	return 0;
}

static int32_t func_index(const struct growth_result *r, uint32_t f)
{
	for (size_t i = 0; i < r->nfuncs; i++)
		if (r->funcs[i].func == f)
			return (int32_t)i;
	return -1;
}

/*
 * A function with marked callees is predicted as the sum of its parts:
 * its self time's model and each callee's under it. One model for the
 * whole would bend a mixture (n log n of its own, n^2 from a callee) into
 * whichever term dominates the sizes measured.
 */
static int spatial(struct ctx *c, struct growth_func *sf)
{
	const struct growth_input *in = c->in;
	struct growth_result *r = c->r;
	const struct growth_series *t = &r->series[sf->time];
	double parts = 0, growth, best = 0, *d;
	int32_t *who;
	size_t n = 0;
	bool ok = sf->self >= 0 && !isnan(r->series[sf->self].predicted);

	sf->predicted = t->predicted;
	if (sf->self < 0)
		return 0;
	d = malloc(in->npairs * sizeof(*d) + 1);
	who = malloc(in->npairs * sizeof(*who) + 1);
	if (!d || !who) {
		free(d);
		free(who);
		return -ENOMEM;
	}
	if (ok)
		parts = r->series[sf->self].predicted;
	for (size_t p = 0; p < in->npairs; p++) {
		struct growth_series s;

		if (in->pairs[p].parent != sf->func)
			continue;
		if (series_of(c, in->pairs[p].time, in->pairs[p].child, GROWTH_M_TIME, &s)) {
			free(d);
			free(who);
			return -ENOMEM;
		}
		ok = ok && !isnan(s.predicted);
		parts += s.predicted;
		/* the callee's growth under this function, now to predicted */
		d[n] = s.predicted - s.now;
		who[n++] = func_index(r, in->pairs[p].child);
		free(s.med);
	}
	if (ok) {
		sf->predicted = parts;
		sf->from_parts = true;
	}
	growth = sf->predicted - t->now;
	for (size_t i = 0; i < n && growth > 0; i++)
		if (who[i] >= 0 && d[i] / growth > best) {
			best = d[i] / growth;
			sf->callee = who[i];
		}
	free(d);
	free(who);
	sf->callee_share = best;
	/* named when it holds at least half of the growth */
	if (sf->callee_share < 0.5)
		sf->callee = -1;
	if (sf->callee >= 0) {
		const struct growth_func *cf = &r->funcs[sf->callee];

		sf->callee_calls = cf->calls;
		if (cf->calls >= 0 && sf->calls >= 0 &&
		    r->series[cf->calls].fit.model < GROWTH_NMODELS &&
		    r->series[sf->calls].fit.model < GROWTH_NMODELS)
			sf->transition = growth__model_order(r->series[cf->calls].fit.model) >=
					 growth__model_order(r->series[sf->calls].fit.model) + 1;
	}
	return 0;
}

static bool is_callee(const struct growth_input *in, uint32_t f)
{
	for (size_t p = 0; p < in->npairs; p++)
		if (in->pairs[p].child == f)
			return true;
	return false;
}

/*
 * The run's latency predicted from its parts, as a function's: the
 * outermost marked functions (counted calls, no marked caller) predicted
 * each, and the rest of the run (start-up, unmarked code) with a model of
 * its own. One model for the whole bends like one for a mixture.
 */
static int latency_parts(struct ctx *c, double *rest)
{
	const struct growth_input *in = c->in;
	struct growth_result *r = c->r;
	struct growth_series s;
	double parts = 0;
	bool any = false;

	memcpy(rest, in->latency, in->nruns * sizeof(*rest));
	for (size_t i = 0; i < r->nfuncs; i++) {
		const struct growth_func *f = &r->funcs[i];

		if (f->calls < 0 || is_callee(in, f->func))
			continue;
		if (isnan(f->predicted))
			return 0;
		any = true;
		parts += f->predicted;
		for (size_t k = 0; k < in->nruns; k++)
			rest[k] -= in->time[f->func * in->nruns + k];
	}
	if (!any)
		return 0;
	for (size_t k = 0; k < in->nruns; k++)
		rest[k] = fmax(0, rest[k]);
	if (series_of(c, rest, 0, GROWTH_M_TIME, &s))
		return -ENOMEM;
	if (!isnan(s.predicted)) {
		r->latency.predicted = parts + s.predicted;
		r->latency_from_parts = true;
	}
	free(s.med);
	return 0;
}

static int cmp_share(const void *a, const void *b)
{
	const struct growth_func *x = a, *y = b;
	double p = isnan(x->predicted_share) ? -1 : x->predicted_share;
	double q = isnan(y->predicted_share) ? -1 : y->predicted_share;

	if (p != q)
		return p > q ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static void shares(struct growth_result *r)
{
	double whole = r->latency.predicted, now = r->latency.now, best = -1;

	/* a function's time is part of the run: the latency's own model, if
	 * it predicts less than a part, is the one that is short */
	for (size_t i = 0; i < r->nfuncs; i++)
		if (!isnan(r->funcs[i].predicted) && !(r->funcs[i].predicted <= whole))
			whole = r->funcs[i].predicted;
	for (size_t i = 0; i < r->nfuncs; i++) {
		struct growth_func *f = &r->funcs[i];

		f->predicted_share = whole > 0 ? f->predicted / whole : NAN;
		f->now_share = now > 0 ? r->series[f->time].now / now : NAN;
	}
	/* callee indices point into funcs: sort a copy of the order, remap */
	{
		uint32_t *old = malloc(r->nfuncs * sizeof(*old) + 1);
		int32_t *to = malloc(r->nfuncs * sizeof(*to) + 1);

		if (old && to) {
			for (size_t i = 0; i < r->nfuncs; i++)
				old[i] = r->funcs[i].func;
			qsort(r->funcs, r->nfuncs, sizeof(*r->funcs), cmp_share);
			for (size_t i = 0; i < r->nfuncs; i++)
				for (size_t j = 0; j < r->nfuncs; j++)
					if (r->funcs[j].func == old[i])
						to[i] = (int32_t)j;
			for (size_t i = 0; i < r->nfuncs; i++)
				if (r->funcs[i].callee >= 0)
					r->funcs[i].callee = to[r->funcs[i].callee];
		}
		free(old);
		free(to);
	}
	r->bottleneck = r->nfuncs && !isnan(r->funcs[0].predicted_share) ? 0 : -1;
	r->now_top = -1;
	for (size_t i = 0; i < r->nfuncs; i++)
		if (!isnan(r->funcs[i].now_share) && r->funcs[i].now_share > best) {
			best = r->funcs[i].now_share;
			r->now_top = (int32_t)i;
		}
}

static int resources(struct ctx *c, double *tmp)
{
	const struct growth_input *in = c->in;
	struct growth_result *r = c->r;
	size_t n = r->nfuncs < GROWTH_RES_FUNCS ? r->nfuncs : GROWTH_RES_FUNCS;

	if (!in->res)
		return 0;
	if (in->res_prepare) {
		uint32_t ids[GROWTH_RES_FUNCS];
		int err;

		for (size_t i = 0; i < n; i++)
			ids[i] = r->funcs[i].func;
		err = in->res_prepare(in->res_ctx, ids, n);
		if (err)
			return err;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sizeof(res_fitted) / sizeof(res_fitted[0]); k++) {
			int err;

			if (res_fitted[k] >= in->nres)
				continue;
			err = in->res(in->res_ctx, r->funcs[i].func, res_fitted[k], tmp);
			if (err)
				return err;
			if (all_zero(tmp, in->nruns))
				continue;
			err = add_series(c, tmp, r->funcs[i].func, GROWTH_M_RES0 + res_fitted[k]);
			if (err < 0)
				return err;
			/* a resource whose median is 0 at every size has no growth to show */
			if (all_zero(r->series[err].med, r->nsizes)) {
				free(r->series[err].med);
				r->nseries--;
			}
		}
	return 0;
}

static int analyse(struct ctx *c, double predict_size)
{
	const struct growth_input *in = c->in;
	struct growth_result *r = c->r;
	double *tmp = malloc(in->nruns * sizeof(*tmp) + 1);
	int err = 0;

	if (!tmp)
		return -ENOMEM;
	r->predict_size = predict_size > 0 ? predict_size : 10 * r->sizes[r->nsizes - 1];
	err = series_of(c, in->latency, 0, GROWTH_M_TIME, &r->latency);
	r->funcs = calloc(in->nfuncs + 1, sizeof(*r->funcs));
	if (!err && !r->funcs)
		err = -ENOMEM;
	for (size_t f = 0; !err && f < in->nfuncs; f++)
		err = func_series(c, f, tmp);
	for (size_t i = 0; !err && i < r->nfuncs; i++)
		err = spatial(c, &r->funcs[i]);
	if (!err)
		err = latency_parts(c, tmp);
	if (!err)
		shares(r);
	if (!err)
		err = resources(c, tmp);
	free(tmp);
	return err;
}

int growth__analyse(const struct growth_input *in, double predict_size, struct growth_result **out)
{
	struct growth_result *r = calloc(1, sizeof(*r));
	struct ctx c = {.in = in, .r = r};
	int err;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->bottleneck = r->now_top = -1;
	err = growth__groups(in->size, in->nruns, &c.g);
	if (err)
		goto cleanup;
	r->nsizes = growth_groups__n(c.g);
	r->sizes = malloc(r->nsizes * sizeof(*r->sizes) + 1);
	r->runs = malloc(r->nsizes * sizeof(*r->runs) + 1);
	c.scratch = malloc(in->nruns * sizeof(*c.scratch) + 1);
	c.vals = malloc(4 * r->nsizes * sizeof(*c.vals) + 1);
	err = r->sizes && r->runs && c.scratch && c.vals ? 0 : -ENOMEM;
	if (err)
		goto cleanup;
	memcpy(r->sizes, growth_groups__sizes(c.g), r->nsizes * sizeof(*r->sizes));
	for (size_t k = 0; k < r->nsizes; k++) {
		r->runs[k] = growth_groups__runs(c.g, k);
		r->fitted_runs += r->runs[k];
	}
	if (growth__check_sizes(r->sizes, r->nsizes, r->why, sizeof(r->why))) {
		r->refused = true;
		r->predict_size = predict_size;
		goto cleanup;
	}
	err = analyse(&c, predict_size);
cleanup:
	growth_groups__free(c.g);
	free(c.scratch);
	free(c.vals);
	if (err)
		growth__free(r);
	else
		*out = r;
	return err;
}

void growth__free(struct growth_result *r)
{
	if (!r)
		return;
	free(r->latency.med);
	for (size_t i = 0; i < r->nseries; i++)
		free(r->series[i].med);
	free(r->series);
	free(r->funcs);
	free(r->sizes);
	free(r->runs);
	free(r->func_ids);
	free(r);
}

const struct growth_series *growth__series(const struct growth_result *r, int32_t i)
{
	return i >= 0 && (size_t)i < r->nseries ? &r->series[i] : NULL;
}
