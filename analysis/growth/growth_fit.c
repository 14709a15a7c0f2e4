/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The complexity models of growth.h: fit, choice, power law, hold-out.
 * Pure arithmetic on the per-size points; deterministic.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "growth.h"

/*
 * Parsimony (issue 36): without the repeats' spread, a faster-growing
 * model must beat every slower one by this much AICc to be chosen: 10 is
 * where Burnham and Anderson's table gives the slower model "essentially
 * no support" (2 is "substantial support" for both, 4-7 "considerably
 * less"). Five sizes at 10 % noise put n log n 2 or more below n in a
 * quarter of linear series, 6 or more in 6 %, 10 or more in 3 %
 * (tests/unit/test_growth.c measures it); n log n is still found over
 * ten doublings in 98 % of series.
 */
#define GROWTH_PARSIMONY_AICC 10.0

static const char *const names[GROWTH_NMODELS] = {"1",	 "log n", "n",	"n log n",
						  "n^2", "n^3",	  "2^n"};
static const double orders[GROWTH_NMODELS] = {0, 0.5, 1, 1.5, 2, 3, 10};

const char *growth__model_name(enum growth_model m)
{
	return m < GROWTH_NMODELS ? names[m] : "?";
}

double growth__model_order(enum growth_model m)
{
	return m < GROWTH_NMODELS ? orders[m] : NAN;
}

double growth__g(enum growth_model m, double n)
{
	switch (m) {
	case GROWTH_CONST:
		return 1;
	case GROWTH_LOG:
		return log(n);
	case GROWTH_LIN:
		return n;
	case GROWTH_NLOGN:
		return n * log(n);
	case GROWTH_QUAD:
		return n * n;
	case GROWTH_CUBIC:
		return n * n * n;
	case GROWTH_EXP:
		return exp2(n);
	default:
		return NAN;
	}
}

/* g(n) / g(xref): the fit is conditioned at any size (2^16000 is inf). */
static double g_norm(enum growth_model m, double n, double xref)
{
	if (m == GROWTH_EXP)
		return exp2(n - xref);
	return growth__g(m, n) / growth__g(m, xref);
}

int growth__check_sizes(const double *sizes, size_t n, char *why, size_t len)
{
	double lo = INFINITY, hi = 0, *s = malloc(n * sizeof(*s) + 1);
	size_t distinct = 0, m = 0;

	if (!s) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (isfinite(sizes[i]) && sizes[i] > 0)
			s[m++] = sizes[i];
	for (size_t i = 0; i < m; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = s[j] == s[i];
		distinct += !seen;
		lo = fmin(lo, s[i]);
		hi = fmax(hi, s[i]);
	}
	free(s);
	if (distinct < GROWTH_MIN_SIZES) {
		snprintf(why, len,
			 "%zu distinct workload size%s: a model needs %d or more (record more "
			 "sizes: record --sizes, or --size per recording)",
			 distinct, distinct == 1 ? "" : "s", GROWTH_MIN_SIZES);
		return -EDOM;
	}
	if (hi / lo < GROWTH_MIN_SPAN) {
		snprintf(why, len,
			 "the sizes span %.3gx (%.6g to %.6g): a model needs %gx or more (record "
			 "smaller and larger sizes)",
			 hi / lo, lo, hi, GROWTH_MIN_SPAN);
		return -EDOM;
	}
	return 0;
}

struct one {
	double a, bn, rss, t; /* t: the slope over its standard error */
	int informed;	      /* sizes where the term is above 1e-6 of its largest */
};

/*
 * Weighted least squares of y = a + bn * g_norm on relative residuals
 * (weight 1 / y^2; a zero y weighs as a thousandth of the largest), with
 * a >= 0 and bn >= 0: a negative intercept is refitted through the origin,
 * a negative slope leaves the constant.
 */
static struct one fit_one(enum growth_model m, const double *x, const double *y, size_t n)
{
	double ymax = 0, S = 0, Sg = 0, Sgg = 0, Sy = 0, Sgy = 0, det;
	struct one o = {0};

	for (size_t i = 0; i < n; i++)
		ymax = fmax(ymax, y[i]);
	for (size_t i = 0; i < n; i++) {
		double w = 1 / pow(fmax(y[i], ymax > 0 ? 1e-3 * ymax : 1), 2);
		double g = m == GROWTH_CONST ? 0 : g_norm(m, x[i], x[n - 1]);

		o.informed += g >= 1e-6;
		S += w;
		Sg += w * g;
		Sgg += w * g * g;
		Sy += w * y[i];
		Sgy += w * g * y[i];
	}
	det = S * Sgg - Sg * Sg;
	if (m != GROWTH_CONST && det > 1e-12 * S * Sgg) {
		o.bn = (S * Sgy - Sg * Sy) / det;
		o.a = (Sy - o.bn * Sg) / S;
	}
	if (m == GROWTH_CONST || o.bn <= 0 || !(det > 1e-12 * S * Sgg)) {
		o.bn = 0;
		o.a = Sy / S;
	} else if (o.a < 0) {
		o.a = 0;
		o.bn = Sgg > 0 ? Sgy / Sgg : 0;
	}
	for (size_t i = 0; i < n; i++) {
		double w = 1 / pow(fmax(y[i], ymax > 0 ? 1e-3 * ymax : 1), 2);
		double g = m == GROWTH_CONST ? 0 : g_norm(m, x[i], x[n - 1]);
		double r = y[i] - o.a - o.bn * g;

		o.rss += w * r * r;
	}
	if (m != GROWTH_CONST && o.bn > 0 && n > 2 && det > 0) {
		double s2 = o.rss / (double)(n - 2);

		o.t = s2 > 0 ? o.bn / sqrt(s2 * S / det) : INFINITY;
	}
	return o;
}

static double aicc(double rss, size_t n, int k)
{
	double v = fmax(rss / (double)n, 1e-12);
	double corr = (int)n - k - 1 > 0 ? 2.0 * k * (k + 1) / (double)((int)n - k - 1) : 1e9;

	return (double)n * log(v) + 2.0 * k + corr;
}

/* Two-sided 95 % quantile of Student's t with dof degrees of freedom. */
static double t975(size_t dof)
{
	static const double t[] = {0,	  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
				   2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
				   2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
				   2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};

	return dof < sizeof(t) / sizeof(t[0]) ? t[dof] : 1.96 + 2.4 / (double)dof;
}

/*
 * The model of least AICc (ties: the lower order); *close the runner-up
 * within 2. A growing model must grow beyond the noise: its slope's t
 * statistic significant at 5 % (two-sided), or AICc alone would read
 * growth into a constant's noise in 7 % of series (log n, n, even 2^n:
 * tests/unit/test_growth.c measures it). And the term must be more than
 * a step at the last size: above 1e-6 of its largest at 3 sizes or more
 * (2^n over 1 000 .. 512 000 is 0 but at the end, and fits anything that
 * turns up there).
 */
/* Sum over the points of (the relative residual of model o)^2 / var. */
static double chi2(enum growth_model m, const struct one *o, const double *x, const double *y,
		   const double *var, size_t n)
{
	double c = 0;

	for (size_t i = 0; i < n; i++) {
		double g = m == GROWTH_CONST ? 0 : g_norm(m, x[i], x[n - 1]);
		double r = y[i] > 0 ? (y[i] - o->a - o->bn * g) / y[i] : 0;

		c += r * r / var[i];
	}
	return c;
}

/*
 * With the repeats' spread known (var), the residuals are not the only
 * measure of chance: a model of lower order whose misfit exceeds the
 * chosen one's by less than chi^2(1)'s 95 % point (3.84, in units of the
 * medians' variance) is not rejected by the data, as a growth whose slope
 * is not significant at 5 % is not claimed (choose). The lowest such
 * order is named close: size by size, a machine whose speed changed 1.6x
 * between launches made linear xz read as n log n with no model within 2
 * in AICc, its repeats 2x apart at one size.
 */
static enum growth_model close_by_spread(enum growth_model b, const struct one *o, const double *ic,
					 const double *x, const double *y, const double *var,
					 size_t n)
{
	double cb;

	for (size_t i = 0; i < n; i++)
		if (!(var[i] > 0))
			return GROWTH_NMODELS;
	cb = chi2(b, &o[b], x, y, var, n);
	for (int m = 0; m < (int)b; m++)
		if (isfinite(ic[m]) && m != GROWTH_CONST &&
		    chi2((enum growth_model)m, &o[m], x, y, var, n) - cb < 3.84)
			return (enum growth_model)m;
	return GROWTH_NMODELS;
}

/* Whether every point's spread is known (the repeats' variance): then only it may reject. */
static bool known_spread(const double *var, size_t n)
{
	if (!var)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(var[i] > 0))
			return false;
	return true;
}

static enum growth_model choose(const double *x, const double *y, const double *var, size_t n,
				struct one *best, double *best_aicc, enum growth_model *close,
				bool *by_spread)
{
	double ic[GROWTH_NMODELS];
	struct one o[GROWTH_NMODELS];
	enum growth_model b = GROWTH_CONST;

	for (int m = 0; m < GROWTH_NMODELS; m++) {
		o[m] = fit_one((enum growth_model)m, x, y, n);
		/* a slope clamped to 0 is the constant with a parameter more */
		ic[m] = m != GROWTH_CONST &&
					(o[m].bn == 0 || o[m].t < t975(n - 2) || o[m].informed < 3)
				? INFINITY
				: aicc(o[m].rss, n, m == GROWTH_CONST ? 1 : 2);
		if (ic[m] < ic[b] - 1e-9)
			b = (enum growth_model)m;
	}
	*close = var ? close_by_spread(b, o, ic, x, y, var, n) : GROWTH_NMODELS;
	*by_spread = *close != GROWTH_NMODELS;
	for (int m = 0; m < GROWTH_NMODELS && !*by_spread; m++)
		if (m != (int)b && ic[m] - ic[b] < 2 &&
		    (*close == GROWTH_NMODELS || ic[m] < ic[*close]))
			*close = (enum growth_model)m;
	/*
	 * Parsimony (issue 36): a model with a faster-growing term wins only
	 * when the data reject the simpler one. When a lower order is close
	 * (AICc within 2, or not rejected by the repeats' spread), it is the
	 * answer and the better-fitting one is reported beside it as close:
	 * a linear parse over 1 000 - 16 000 read as n log n (exponent 0.92,
	 * interval 0.43 - 1.41) with n within 2.
	 */
	if (!known_spread(var, n))
		for (int m = GROWTH_LOG; m < (int)b; m++)
			if (isfinite(ic[m]) && ic[m] - ic[b] < GROWTH_PARSIMONY_AICC) {
				*close = (enum growth_model)m;
				break;
			}
	if (*close < b && (*by_spread || !known_spread(var, n))) {
		enum growth_model lower = *close;

		*close = b;
		b = lower;
	}
	*best = o[b];
	*best_aicc = ic[b];
	return b;
}

static void power_law(const double *x, const double *y, size_t n, struct growth_fit *f)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, res = 0, k, c;
	size_t m = 0;

	f->exponent = f->exponent_lo = f->exponent_hi = NAN;
	for (size_t i = 0; i < n; i++)
		if (y[i] > 0) {
			mx += log(x[i]);
			my += log(y[i]);
			m++;
		}
	if (m < 3)
		return;
	mx /= (double)m;
	my /= (double)m;
	for (size_t i = 0; i < n; i++)
		if (y[i] > 0) {
			sxx += (log(x[i]) - mx) * (log(x[i]) - mx);
			sxy += (log(x[i]) - mx) * (log(y[i]) - my);
		}
	if (sxx <= 0)
		return;
	k = sxy / sxx;
	c = my - k * mx;
	for (size_t i = 0; i < n; i++)
		if (y[i] > 0)
			res += pow(log(y[i]) - c - k * log(x[i]), 2);
	f->exponent = k;
	f->exponent_lo = k - t975(m - 2) * sqrt(res / (double)(m - 2) / sxx);
	f->exponent_hi = 2 * k - f->exponent_lo;
}

int growth__fit(const double *x, const double *y, size_t n, struct growth_fit *out)
{
	return growth__fit_var(x, y, NULL, n, out);
}

int growth__fit_var(const double *x, const double *y, const double *var, size_t n,
		    struct growth_fit *out)
{
	struct one o;
	enum growth_model close;
	bool by_spread;
	double ic;

	memset(out, 0, sizeof(*out));
	out->exponent = out->exponent_lo = out->exponent_hi = NAN;
	out->holdout_pred = out->holdout_err = NAN;
	out->holdout_model = out->close = GROWTH_NMODELS;
	if (n < 2)
		return -EINVAL;
	power_law(x, y, n, out);
	out->model = choose(x, y, var, n, &o, &ic, &close, &by_spread);
	out->close = close;
	out->close_by_spread = by_spread;
	out->a = o.a;
	out->bn = o.bn;
	out->xref = x[n - 1];
	out->b = out->model == GROWTH_CONST ? 0
		 : out->model == GROWTH_EXP ? o.bn * exp2(-out->xref)
					    : o.bn / growth__g(out->model, out->xref);
	out->rms = sqrt(o.rss / (double)n);
	out->aicc = ic;
	if (n >= GROWTH_MIN_SIZES) {
		struct growth_fit h;

		growth__fit_var(x, y, var, n - 1, &h);
		out->holdout_model = h.model;
		out->holdout_pred = growth__predict(&h, x[n - 1]);
		out->holdout_err =
			y[n - 1] > 0 ? fabs(out->holdout_pred - y[n - 1]) / y[n - 1] : NAN;
	}
	return 0;
}

double growth__predict(const struct growth_fit *f, double n)
{
	if (f->model == GROWTH_CONST || f->bn == 0)
		return f->a;
	return f->a + f->bn * g_norm(f->model, n, f->xref);
}

/* ---- runs grouped by size ---- */

struct growth_groups {
	size_t n;
	double *size;
	size_t *off, *cnt;
	size_t *idx; /* run indices, by size */
};

static int cmp_by_size(const void *a, const void *b, void *ctx)
{
	const double *s = ctx;
	double x = s[*(const size_t *)a], y = s[*(const size_t *)b];

	if (x != y)
		return x < y ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

int growth__groups(const double *run_size, size_t nruns, struct growth_groups **out)
{
	struct growth_groups *g = calloc(1, sizeof(*g));
	size_t m = 0;

	*out = NULL;
	if (!g)
		return -ENOMEM;
	g->idx = malloc(nruns * sizeof(*g->idx) + 1);
	g->size = malloc(nruns * sizeof(*g->size) + 1);
	g->off = malloc(nruns * sizeof(*g->off) + 1);
	g->cnt = malloc(nruns * sizeof(*g->cnt) + 1);
	if (!g->idx || !g->size || !g->off || !g->cnt) {
		growth_groups__free(g);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nruns; i++)
		if (isfinite(run_size[i]))
			g->idx[m++] = i;
	qsort_r(g->idx, m, sizeof(*g->idx), cmp_by_size, (void *)run_size);
	for (size_t i = 0; i < m; i++) {
		if (!g->n || g->size[g->n - 1] != run_size[g->idx[i]]) {
			g->size[g->n] = run_size[g->idx[i]];
			g->off[g->n] = i;
			g->cnt[g->n++] = 0;
		}
		g->cnt[g->n - 1]++;
	}
	*out = g;
	return 0;
}

void growth_groups__free(struct growth_groups *g)
{
	if (!g)
		return;
	free(g->idx);
	free(g->size);
	free(g->off);
	free(g->cnt);
	free(g);
}

size_t growth_groups__n(const struct growth_groups *g)
{
	return g->n;
}

const double *growth_groups__sizes(const struct growth_groups *g)
{
	return g->size;
}

size_t growth_groups__runs(const struct growth_groups *g, size_t k)
{
	return g->cnt[k];
}

/* The k-th smallest of v[0..n) (Hoare's selection; v is reordered). */
static double select_k(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double p = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < p)
				i++;
			while (v[j] > p)
				j--;
			if (i <= j) {
				double t = v[i];

				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

void growth_groups__medians(const struct growth_groups *g, const double *v, double *scratch,
			    double *med)
{
	for (size_t k = 0; k < g->n; k++) {
		size_t m = 0;

		for (size_t i = 0; i < g->cnt[k]; i++) {
			double x = v[g->idx[g->off[k] + i]];

			if (!isnan(x))
				scratch[m++] = x;
		}
		if (!m) {
			med[k] = NAN;
			continue;
		}
		med[k] = select_k(scratch, m, m / 2);
		if (m % 2 == 0) {
			double lo = scratch[0];

			/* the lower middle: the largest of what selection left below */
			for (size_t i = 1; i < m / 2; i++)
				lo = fmax(lo, scratch[i]);
			med[k] = (med[k] + lo) / 2;
		}
	}
}

void growth_groups__median_var(const struct growth_groups *g, const double *v, double *var)
{
	double ss = 0;
	size_t dof = 0;

	for (size_t k = 0; k < g->n; k++) {
		double mean = 0;
		size_t m = 0;

		for (size_t i = 0; i < g->cnt[k]; i++) {
			double x = v[g->idx[g->off[k] + i]];

			if (!(x > 0))
				goto none;
			mean += log(x);
			m++;
		}
		if (m < 2)
			continue;
		mean /= (double)m;
		for (size_t i = 0; i < m; i++)
			ss += pow(log(v[g->idx[g->off[k] + i]]) - mean, 2);
		dof += m - 1;
	}
	if (dof < 2)
		goto none;
	for (size_t k = 0; k < g->n; k++)
		var[k] = g->cnt[k] ? M_PI / 2 * ss / (double)dof / (double)g->cnt[k] : NAN;
	return;
none:
	for (size_t k = 0; k < g->n; k++)
		var[k] = NAN;
}
