/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* report --growth: a dataset's runs as the series growth.c fits. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dataset.h"
#include "growth.h"
#include "trace.h"

struct dsin {
	const struct dataset *ds;
	struct growth_input in;
	uint32_t *ids; /* compact index -> dataset function */
	double *size, *lat, *calls, *time;
	struct growth_pair *pairs;
	struct nesting *nest;
	struct resources *res; /* of every marked function */
	uint32_t *res_ids;     /* its index -> dataset function */
	int32_t *res_of;       /* compact index -> index into res, -1: sampled */
	size_t nres_ids;
	double *pair_work; /* the pairs' times less their interference */
};

static bool counted(const struct dataset_func *f)
{
	/* a runqueue wait before the interaction is not the program's work,
	 * nor is a sampled root or runtime frame anything to grow */
	return !f->queued && !f->root && !f->runtime;
}

static int pick_funcs(struct dsin *d, size_t nr)
{
	const struct dataset *ds = d->ds;
	size_t nf = dataset__nfuncs(ds);

	d->ids = malloc(nf * sizeof(*d->ids) + 1);
	if (!d->ids)
		return -ENOMEM;
	for (size_t f = 0; f < nf; f++) {
		bool ran = false;

		if (!counted(dataset__func(ds, f)))
			continue;
		for (size_t r = 0; r < nr && !ran; r++)
			ran = !isnan(d->size[r]) && dataset__time(ds, r, f) > 0;
		if (ran)
			d->ids[d->in.nfuncs++] = (uint32_t)f;
	}
	return 0;
}

/* The marked functions' resources, per run, in one pass over the files. */
static int marked_resources(struct dsin *d, char *err, size_t errlen)
{
	d->res_ids = malloc(d->in.nfuncs * sizeof(*d->res_ids) + 1);
	d->res_of = malloc(d->in.nfuncs * sizeof(*d->res_of) + 1);
	if (!d->res_ids || !d->res_of)
		return -ENOMEM;
	for (size_t k = 0; k < d->in.nfuncs; k++) {
		d->res_of[k] = -1;
		if (!dataset__func(d->ds, d->ids[k])->sampled) {
			d->res_of[k] = (int32_t)d->nres_ids;
			d->res_ids[d->nres_ids++] = d->ids[k];
		}
	}
	return d->nres_ids
		       ? dataset__resources(d->ds, d->res_ids, d->nres_ids, &d->res, err, errlen)
		       : 0;
}

/* What other processes and the host took: the runqueue wait, the steal. */
static double interference(const uint64_t *ctr)
{
	return (double)ctr[XLP_C_CPU_WAIT] + (double)ctr[XLP_C_CPU_STEAL];
}

/*
 * A marked function's time is its work: its wall time less the time it
 * waited for a CPU (cpu_wait) or lost to the host (cpu_steal). Those
 * depend on what else ran on the machine, not on the input (a build on
 * the other CPU made xz's 128 KiB runs slower than its 256 KiB ones); they
 * are fitted apart, as resources.
 */
static int fill(struct dsin *d, size_t nr)
{
	const struct dataset *ds = d->ds;
	size_t nf = d->in.nfuncs;

	d->calls = malloc(nf * nr * sizeof(*d->calls) + 1);
	d->time = malloc(nf * nr * sizeof(*d->time) + 1);
	if (!d->calls || !d->time)
		return -ENOMEM;
	for (size_t k = 0; k < nf; k++) {
		bool sampled = dataset__func(ds, d->ids[k])->sampled;

		for (size_t r = 0; r < nr; r++) {
			double t = (double)dataset__time(ds, r, d->ids[k]);

			if (d->res && d->res_of[k] >= 0)
				t = fmax(0, t - interference(resources__get(d->res,
									    (size_t)d->res_of[k], r)
								     ->ctr));
			d->time[k * nr + r] = t;
			d->calls[k * nr + r] =
				sampled ? NAN : (double)dataset__ncalls(ds, r, d->ids[k]);
		}
	}
	return 0;
}

static int32_t compact(const struct dsin *d, uint32_t f)
{
	for (size_t k = 0; k < d->in.nfuncs; k++)
		if (d->ids[k] == f)
			return (int32_t)k;
	return -1;
}

/*
 * A callee's time under its caller, as work: its wall time there scaled by
 * the callee's work over its wall time in the run (exact when it is called
 * from that caller only). Into d->pair_work, one row per pair.
 */
static const double *pair_work(struct dsin *d, size_t child, const double *wall, size_t cap)
{
	size_t nr = d->in.nruns;
	double *w;

	if (!d->pair_work)
		d->pair_work = malloc(cap * nr * sizeof(*d->pair_work) + 1);
	if (!d->pair_work)
		return wall;
	w = d->pair_work + d->in.npairs * nr;
	for (size_t r = 0; r < nr; r++) {
		double all = (double)dataset__time(d->ds, r, d->ids[child]);

		w[r] = all > 0 ? wall[r] * d->time[child * nr + r] / all : 0;
	}
	return w;
}

/* The direct callees of every marked function, with their time under it. */
static int pairs(struct dsin *d, char *err, size_t errlen)
{
	uint32_t *anc = malloc(d->in.nfuncs * sizeof(*anc) + 1);
	size_t nanc = 0, total = 0;
	int ret;

	if (!anc)
		return -ENOMEM;
	for (size_t k = 0; k < d->in.nfuncs; k++)
		if (!dataset__func(d->ds, d->ids[k])->sampled)
			anc[nanc++] = d->ids[k];
	ret = nanc ? dataset__nesting(d->ds, anc, nanc, &d->nest, err, errlen) : 0;
	for (size_t a = 0; !ret && d->nest && a < nanc; a++)
		total += nesting__npairs(d->nest, a);
	d->pairs = malloc(total * sizeof(*d->pairs) + 1);
	if (!ret && !d->pairs)
		ret = -ENOMEM;
	for (size_t a = 0; !ret && d->nest && a < nanc; a++)
		for (size_t i = 0; i < nesting__npairs(d->nest, a); i++) {
			const struct dataset_nest_pair *p = nesting__pair(d->nest, a, i);
			int32_t parent = compact(d, anc[a]), child = compact(d, p->child);

			if (p->parent != anc[a] || parent < 0 || child < 0)
				continue; /* not a direct callee */
			d->pairs[d->in.npairs] = (struct growth_pair){
				.parent = (uint32_t)parent,
				.child = (uint32_t)child,
				.time = pair_work(d, (size_t)child, p->time, total)};
			d->in.npairs++;
		}
	free(anc);
	return ret;
}

static int res_get(void *ctx, size_t func, int c, double *v)
{
	struct dsin *d = ctx;
	size_t nr = d->in.nruns;

	for (size_t r = 0; r < nr; r++)
		v[r] = d->res && d->res_of[func] >= 0
			       ? (double)resources__get(d->res, (size_t)d->res_of[func], r)->ctr[c]
			       : 0;
	return 0;
}

int growth__from_dataset(const struct dataset *ds, double predict_size, struct growth_result **out,
			 char *err, size_t errlen)
{
	size_t nr = dataset__nruns(ds), sized = 0;
	struct dsin d = {.ds = ds};
	int ret;

	*out = NULL;
	d.size = malloc(nr * sizeof(*d.size) + 1);
	d.lat = malloc(nr * sizeof(*d.lat) + 1);
	if (!d.size || !d.lat) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (size_t r = 0; r < nr; r++) {
		const struct dataset_run *x = dataset__run(ds, r);

		d.size[r] = x->size;
		/* the run's work, as its functions' (fill) */
		d.lat[r] = x->latency_ns;
		/* a process's counters are its threads' summed: they are one
		 * thread's, and can be taken off its wall time, when they fit in it */
		if (x->has_own ||
		    (x->has_base &&
		     (double)(x->base[XLP_C_CPU_RUN] + x->base[XLP_C_CPU_WAIT]) <= x->latency_ns))
			d.lat[r] = fmax(0, d.lat[r] - interference(x->has_own ? x->own : x->base));
		sized += !isnan(d.size[r]);
	}
	if (!sized) {
		snprintf(err, errlen,
			 "no run has a workload size: record with --size N, --sizes A,B,... or "
			 "--size-arg K");
		ret = -EDOM;
		goto cleanup;
	}
	ret = pick_funcs(&d, nr);
	d.in.nruns = nr;
	if (!ret)
		ret = marked_resources(&d, err, errlen);
	if (!ret)
		ret = fill(&d, nr);
	if (!ret)
		ret = pairs(&d, err, errlen);
	if (ret)
		goto cleanup;
	d.in.nruns = nr;
	d.in.size = d.size;
	d.in.latency = d.lat;
	d.in.calls = d.calls;
	d.in.time = d.time;
	d.in.pairs = d.pairs;
	d.in.res = res_get;
	d.in.res_ctx = &d;
	d.in.nres = XLP_NR_CTR;
	ret = growth__analyse(&d.in, predict_size, out);
	if (!ret) {
		(*out)->func_ids = d.ids;
		d.ids = NULL;
	}
cleanup:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory: analyse fewer or smaller traces");
	nesting__free(d.nest);
	resources__free(d.res);
	free(d.ids);
	free(d.size);
	free(d.lat);
	free(d.calls);
	free(d.time);
	free(d.pairs);
	free(d.pair_work);
	free(d.res_ids);
	free(d.res_of);
	return ret;
}
