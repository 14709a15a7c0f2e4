/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The diagnosis pipeline: labels, step 1, one pass over the traces for the
 * resource usage of the functions we report on, step 2 per critical
 * function, the whole-run baseline (PerfProbe section V-D), the table.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis_impl.h"
#include "stats.h"

struct s2_buf {
	struct xa_s2_input in;
	double *x, *cycles, *time;
	uint8_t *slow;
	uint32_t *run; /* sample -> run */
};

static int s2_alloc(struct s2_buf *b, size_t n)
{
	memset(b, 0, sizeof(*b));
	b->x = malloc(XA_NFEAT * n * sizeof(double) + 1);
	b->cycles = malloc(n * sizeof(double) + 1);
	b->time = malloc(n * sizeof(double) + 1);
	b->slow = malloc(n + 1);
	b->run = malloc(n * sizeof(uint32_t) + 1);
	return b->x && b->cycles && b->time && b->slow && b->run ? 0 : -ENOMEM;
}

static void s2_free(struct s2_buf *b)
{
	free(b->x);
	free(b->cycles);
	free(b->time);
	free(b->slow);
	free(b->run);
}

/* Sample k of n: features from counter deltas, work, time and label. */
static void s2_set(struct s2_buf *b, size_t n, size_t k, const uint64_t *ctr, double time,
		   bool slow, size_t run)
{
	double v[XA_NFEAT];

	xa_ctr_features(ctr, v);
	for (int f = 0; f < XA_NFEAT; f++)
		b->x[f * n + k] = v[f];
	b->cycles[k] = (double)ctr[XLP_C_FREQ_KHZ_NS];
	b->time[k] = time;
	b->slow[k] = slow;
	b->run[k] = (uint32_t)run;
}

static double median_of(const double *v, size_t n)
{
	return stats__median(v, n);
}

/* The IPC peer that woke the function most often in its slow samples. */
static void pick_peer(const struct resources *res, size_t k, const struct s2_buf *b, size_t n,
		      size_t nruns, struct xa_peer *peer)
{
	uint8_t *slow_run = calloc(nruns + 1, 1);

	if (!slow_run)
		return;
	for (size_t i = 0; i < n; i++)
		slow_run[b->run[i]] = b->slow[i];
	for (size_t i = 0; i < resources__npeers(res, k); i++) {
		const struct ds_peer *p = resources__peer(res, k, i);
		uint32_t total = 0;

		if (!slow_run[p->run])
			continue;
		for (size_t j = 0; j < resources__npeers(res, k); j++) {
			const struct ds_peer *q = resources__peer(res, k, j);

			if (q->pid == p->pid && slow_run[q->run])
				total += q->count;
		}
		if (!peer->found || total > peer->count ||
		    (total == peer->count && p->pid < peer->pid)) {
			peer->found = true;
			peer->pid = p->pid;
			peer->count = total;
			memcpy(peer->comm, p->comm, sizeof(peer->comm));
		}
	}
	free(slow_run);
}

static int critical_step2(const struct dataset *ds, const struct analysis_opts *o,
			  struct xa_result *r, const struct resources *res, size_t k)
{
	struct xa_critical *c = &r->crit[k];
	size_t nr = dataset__nruns(ds), n = 0;
	struct s2_buf b;
	int err;

	err = s2_alloc(&b, nr);
	if (err)
		goto cleanup;
	for (size_t run = 0; run < nr; run++)
		n += resources__get(res, k, run)->ncalls > 0;
	for (size_t run = 0, i = 0; run < nr; run++) {
		const struct ds_res *x = resources__get(res, k, run);
		double t = (double)dataset__time(ds, run, c->func);

		if (x->ncalls)
			s2_set(&b, n, i++, x->ctr, t, c->gt ? t > c->threshold_ns
							    : t <= c->threshold_ns, run);
	}
	b.in = (struct xa_s2_input){ .n = n, .x = b.x, .cycles = b.cycles, .time = b.time,
				     .slow = b.slow, .features = r->features,
				     .time_ref = median_of(b.time, n) };
	err = xa_step2_fit(&b.in, o, &c->s2);
	for (size_t i = 0; !err && i < c->s2.nfactors; i++)
		if (c->s2.factors[i].feat == XA_IPC)
			pick_peer(res, k, &b, n, nr, &c->peer);
cleanup:
	s2_free(&b);
	return err;
}

static int baseline(const struct dataset *ds, const struct analysis_opts *o, struct xa_result *r)
{
	size_t nr = dataset__nruns(ds), n = 0;
	struct s2_buf b;
	int err;

	err = s2_alloc(&b, nr);
	if (err)
		goto cleanup;
	for (size_t run = 0; run < nr; run++)
		n += dataset__run(ds, run)->has_base;
	for (size_t run = 0, i = 0; run < nr; run++) {
		const struct ds_run *x = dataset__run(ds, run);

		if (x->has_base)
			s2_set(&b, n, i++, x->base, x->latency_ns, r->slow[run], run);
	}
	r->has_base = n > 0;
	if (!n)
		goto cleanup;
	b.in = (struct xa_s2_input){ .n = n, .x = b.x, .cycles = b.cycles, .time = b.time,
				     .slow = b.slow, .features = r->features,
				     .time_ref = r->lab.median_ns };
	err = xa_step2_fit(&b.in, o, &r->base);
	for (size_t i = 0; !err && r->base.nfactors && i < r->ncrit; i++)
		for (size_t j = 0; j < r->crit[i].s2.nfactors; j++)
			r->agrees |= r->crit[i].s2.factors[j].feat == r->base.factors[0].feat;
cleanup:
	s2_free(&b);
	return err;
}

struct rank {
	uint32_t func;
	double median;
};

static int cmp_rank(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;

	if (x->median != y->median)
		return x->median < y->median ? 1 : -1;
	return (x->func > y->func) - (x->func < y->func);
}

/* Median of the function's time over the runs where it ran. */
static double func_median(const struct dataset *ds, uint32_t f, const uint8_t *slow, int want,
			  double *tmp)
{
	size_t k = 0;

	for (size_t run = 0; run < dataset__nruns(ds); run++)
		if (dataset__ncalls(ds, run, f) && (want < 0 || slow[run] == want))
			tmp[k++] = (double)dataset__time(ds, run, f);
	stats__sort(tmp, k);
	return k ? stats__quantile_sorted(tmp, k, 0.5) : NAN;
}

/* The table's functions: the candidates, longest median time first. */
static int pick_rows(const struct dataset *ds, const struct analysis_opts *o, struct xa_result *r)
{
	size_t nr = dataset__nruns(ds), cap = o->top_k < r->ncand ? o->top_k : r->ncand;
	struct rank *rk = calloc(r->ncand + 1, sizeof(*rk));
	double *tmp = malloc(nr * sizeof(*tmp) + 1);
	int err = -ENOMEM;

	r->rows = calloc(cap + 1, sizeof(*r->rows));
	if (!rk || !tmp || !r->rows)
		goto cleanup;
	for (size_t i = 0; i < r->ncand; i++) {
		rk[i].func = r->cand[i];
		rk[i].median = func_median(ds, r->cand[i], r->slow, -1, tmp);
	}
	qsort(rk, r->ncand, sizeof(*rk), cmp_rank);
	for (size_t i = 0; i < cap; i++) {
		struct xa_func_row *row = &r->rows[r->nrows++];

		row->func = rk[i].func;
		row->time_median = rk[i].median;
		row->time_slow_median = func_median(ds, row->func, r->slow, 1, tmp);
		row->time_fast_median = func_median(ds, row->func, r->slow, 0, tmp);
	}
	err = 0;
cleanup:
	free(rk);
	free(tmp);
	return err;
}

static int fill_row(const struct dataset *ds, const struct resources *res, size_t k,
		    struct xa_func_row *row)
{
	size_t nr = dataset__nruns(ds), n = 0;
	double *col = malloc(XA_NFEAT * nr * sizeof(*col) + 1), v[XA_NFEAT];

	if (!col)
		return -ENOMEM;
	for (size_t run = 0; run < nr; run++) {
		const struct ds_res *x = resources__get(res, k, run);

		if (!x->ncalls)
			continue;
		xa_ctr_features(x->ctr, v);
		for (int f = 0; f < XA_NFEAT; f++)
			col[f * nr + n] = v[f];
		n++;
	}
	row->runs = (uint32_t)n;
	for (int f = 0; f < XA_NFEAT; f++) {
		size_t m = 0;

		for (size_t i = 0; i < n; i++) /* NAN: no CPU time, no frequency */
			if (!isnan(col[f * nr + i]))
				col[f * nr + m++] = col[f * nr + i];
		row->median[f] = m ? stats__median(col + f * nr, m) : NAN;
	}
	free(col);
	return 0;
}

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
		ret = critical_step2(ds, o, r, res, k);
	for (size_t i = 0; i < r->nrows && !ret; i++)
		ret = fill_row(ds, res, r->ncrit + i, &r->rows[i]);
cleanup:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory: analyse fewer or smaller traces");
	resources__free(res);
	free(funcs);
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
	else if (o->rule.kind != LABEL_FIXED &&
		 r->lab.slow_median_ns < (1 + o->min_slowdown) * r->lab.fast_median_ns) {
		r->status = XA_NO_PRECOND;
		r->insignificant = true;
	}
cleanup:
	free(lat);
	return err;
}

int analysis__run(const struct dataset *ds, const struct analysis_opts *o,
		  struct xa_result **out, char *err, size_t errlen)
{
	struct xa_result *r = calloc(1, sizeof(*r));
	int ret = -ENOMEM;

	*out = NULL;
	if (!r)
		goto nomem;
	if (!dataset__nruns(ds)) {
		ret = -EINVAL;
		goto nomem;
	}
	r->rule = o->rule;
	r->min_slowdown = o->min_slowdown;
	r->features = dataset__features(ds);
	ret = label_runs(ds, o, r);
	ret = ret ? ret : xa_candidates(ds, o->top_k, r);
	if (!ret && r->status == XA_OK) {
		ret = xa_step1(ds, o, r);
		if (!ret && !r->npre)
			r->status = XA_NO_PRECOND;
	}
	ret = ret ? ret : pick_rows(ds, o, r);
	if (ret)
		goto nomem;
	ret = resource_steps(ds, o, r, err, errlen);
	if (ret)
		goto cleanup;
	if (r->status == XA_OK || (r->status == XA_NO_PRECOND && !r->insignificant))
		ret = baseline(ds, o, r);
	if (ret)
		goto nomem;
	xa_verdict(ds, r);
	*out = r;
	r = NULL;
	goto cleanup;
nomem:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory: analyse fewer or smaller traces");
	else
		snprintf(err, errlen, "analysis failed (%s): please report this bug with the trace",
			 strerror(-ret));
cleanup:
	analysis__free(r);
	return ret;
}

void analysis__free(struct xa_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->npre; i++)
		free(r->pre[i].conds);
	for (size_t i = 0; i < r->ncrit; i++)
		xa_step2_release(&r->crit[i].s2);
	xa_step2_release(&r->base);
	dtree__free(r->tree);
	free(r->pre);
	free(r->crit);
	free(r->cand);
	free(r->rows);
	free(r->slow);
	free(r);
}
