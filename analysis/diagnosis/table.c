/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The per-function table: medians over the runs where each function ran. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "diagnosis_impl.h"
#include "util.h"
#include "stats.h"

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
int diagnosis__pick_rows(const struct dataset *ds, const struct diagnosis_opts *o,
			 struct diagnosis *r)
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
	xlp_sort(rk, r->ncand, sizeof(*rk), cmp_rank);
	for (size_t i = 0; i < cap; i++) {
		struct diagnosis_func_row *row = &r->rows[r->nrows++];

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

int diagnosis__fill_row(const struct dataset *ds, const struct resources *res, size_t k,
			struct diagnosis_func_row *row)
{
	size_t nr = dataset__nruns(ds), n = 0;
	double *col = malloc(DIAGNOSIS_NFEAT * nr * sizeof(*col) + 1), v[DIAGNOSIS_NFEAT];

	if (!col)
		return -ENOMEM;
	for (size_t run = 0; run < nr; run++) {
		const struct dataset_res *x = resources__get(res, k, run);

		if (!x->ncalls)
			continue;
		diagnosis__ctr_features(x->ctr, v);
		for (int f = 0; f < DIAGNOSIS_NFEAT; f++)
			col[f * nr + n] = v[f];
		n++;
	}
	row->runs = (uint32_t)n;
	for (int f = 0; f < DIAGNOSIS_NFEAT; f++) {
		size_t m = 0;

		for (size_t i = 0; i < n; i++) /* NAN: no CPU time, no frequency */
			if (!isnan(col[f * nr + i]))
				col[f * nr + m++] = col[f * nr + i];
		row->median[f] = m ? stats__median(col + f * nr, m) : NAN;
	}
	free(col);
	return 0;
}
