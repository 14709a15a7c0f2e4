/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How each function grows with the workload (report --growth): ΔInfer
 * (ISSTA'13) fits complexity models to a program location's iteration
 * counts over runs at several workload sizes (temporal inference) and
 * compares a caller's order with its callees' to find the loops that
 * drive the whole (spatial inference, section 6); SUNCAT (ISSTA'14)
 * summarizes a small run as repetition patterns and shows how each grows.
 *
 * Here a series is one number per run (a function's call count, its time,
 * one of its resources) against the run's size (struct dataset_run.size);
 * the per-size median stands for each size (single runs are noisy), and
 * the models y = a + b * g(n), a >= 0 and b >= 0 (a fixed cost must not
 * bend the fit), g one of 1, log n, n, n log n, n^2, n^3, 2^n, are fitted
 * by least squares on relative residuals (times span orders of magnitude:
 * an absolute fit would follow the largest size alone) and chosen by the
 * corrected Akaike criterion (AICc, for so few points). A power law
 * y = c * n^k fitted on log-log gives the exponent with a 95 % interval.
 * The chosen model is checked by fitting the sizes but the largest and
 * predicting it.
 */
#ifndef XLP_GROWTH_H
#define XLP_GROWTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum growth_model {
	GROWTH_CONST,
	GROWTH_LOG,
	GROWTH_LIN,
	GROWTH_NLOGN,
	GROWTH_QUAD,
	GROWTH_CUBIC,
	GROWTH_EXP,
	GROWTH_NMODELS,
};

/* "1", "log n", "n", "n log n", "n^2", "n^3", "2^n" */
const char *growth__model_name(enum growth_model m);
/* The order ΔInfer abstracts (section 6.1): 0, 0.5, 1, 1.5, 2, 3, 10. */
double growth__model_order(enum growth_model m);
/* g(n) of the model (2^n overflows to inf past n = 1023). */
double growth__g(enum growth_model m, double n);

/* The refusal rule: at least this many distinct sizes spanning this much. */
#define GROWTH_MIN_SIZES 4
#define GROWTH_MIN_SPAN 8.0

/*
 * 0 when the sizes (any order, repeats allowed) can be fitted; else
 * -EDOM with why ("3 distinct sizes: ...") in a one-line message.
 */
int growth__check_sizes(const double *sizes, size_t n, char *why, size_t len);

struct growth_fit {
	enum growth_model model;
	double a, b;	 /* y = a + b * g(n), both >= 0 (b may underflow for 2^n) */
	double bn, xref; /* b * g(xref): what predictions use */
	double rms;	 /* RMS of the relative residuals (y - fit) / y */
	double aicc;
	/* the next best model when its AICc is within 2 of the chosen one,
	 * or, with the repeats' spread known, a lower order whose misfit
	 * that spread explains as well (close_by_spread): the data do not
	 * tell them apart (GROWTH_NMODELS when none) */
	enum growth_model close;
	bool close_by_spread;
	/* power law y = c * n^k on log-log (points with y > 0) */
	double exponent, exponent_lo, exponent_hi; /* NAN when < 3 such points */
	/* the check: the model chosen on the sizes but the largest, and its
	 * prediction of the largest (relative error: |pred - y| / y) */
	enum growth_model holdout_model;
	double holdout_pred, holdout_err; /* NAN when fewer than 4 sizes */
};

/*
 * Fits the points (x[i], y[i]), x distinct and ascending, y >= 0. Returns
 * 0, or -EINVAL when n < 2.
 */
int growth__fit(const double *x, const double *y, size_t n, struct growth_fit *out);
/*
 * The same, knowing how far each y[i] may be off by chance: var[i], the
 * variance of its relative error (growth_groups__median_var), or NAN.
 */
int growth__fit_var(const double *x, const double *y, const double *var, size_t n,
		    struct growth_fit *out);
/* The fit's value at size n. */
double growth__predict(const struct growth_fit *f, double n);

/*
 * Runs grouped by size, for per-size medians of many series: built once
 * from the runs' sizes (NAN: the run has none and is left out).
 */
struct growth_groups;

int growth__groups(const double *run_size, size_t nruns, struct growth_groups **out);
void growth_groups__free(struct growth_groups *g);		     /* accepts NULL */
size_t growth_groups__n(const struct growth_groups *g);		     /* distinct sizes */
const double *growth_groups__sizes(const struct growth_groups *g);   /* ascending */
size_t growth_groups__runs(const struct growth_groups *g, size_t k); /* runs of size k */
/*
 * Per-size medians of one series (one value per run, indexed as the runs
 * given to growth__groups) into med[growth_groups__n(g)]; scratch must hold
 * nruns doubles. Runs whose value is NAN are left out (a size with none
 * gets NAN).
 */
void growth_groups__medians(const struct growth_groups *g, const double *v, double *scratch,
			    double *med);
/*
 * How far each size's median may be off by chance, from the spread of the
 * repeats: the variance of log v about each size's mean, pooled over the
 * sizes, times pi / (2 r) for a median of r runs (its large-sample
 * variance). var[k] is NAN for every size when fewer than 2 degrees of
 * freedom pool (single runs), or a value is 0 or NAN.
 */
void growth_groups__median_var(const struct growth_groups *g, const double *v, double *var);

/* ---- the analysis: series of every function, spatial inference ---- */

/* metrics: a function's calls per run, its time (inclusive), its self
 * time (without its marked callees), then XLP_C_* resources */
enum growth_metric { GROWTH_M_CALLS, GROWTH_M_TIME, GROWTH_M_SELF, GROWTH_M_RES0 };

/* A caller-callee pair: the callee's time under the caller, per run. */
struct growth_pair {
	uint32_t parent, child; /* indices into growth_input's functions */
	const double *time;	/* nruns */
};

/*
 * What the analysis reads: per run its size and latency, per function
 * and run its calls (NAN: not counted, a sampled function), its time, and
 * the marked callers and callees. Resources are asked for only for the
 * functions the ranking puts first (res(): fills v[nruns], XLP_C_* c).
 */
struct growth_input {
	size_t nruns, nfuncs;
	const double *size, *latency; /* nruns */
	const double *calls, *time;   /* nfuncs * nruns, function-major */
	const char *const *names;     /* nfuncs, for messages */
	const struct growth_pair *pairs;
	size_t npairs;
	int (*res_prepare)(void *ctx, const uint32_t *funcs, size_t n); /* may be NULL */
	int (*res)(void *ctx, size_t func, int c, double *v);
	void *res_ctx;
	int nres; /* resources res() knows (XLP_C_* 0 .. nres - 1) */
};

struct growth_series {
	uint32_t func;
	int metric;  /* enum growth_metric, or GROWTH_M_RES0 + XLP_C_* */
	double *med; /* per size (growth_result.nsizes), NAN where no run had it */
	struct growth_fit fit;
	double now;	  /* the median at the largest size measured */
	double predicted; /* at growth_result.predict_size */
};

struct growth_func {
	uint32_t func;
	int32_t time, calls, self; /* indices into series, -1 when none */
	double now_share;	   /* of the run's latency at the largest size */
	double predicted;	   /* its time at the predicted size */
	double predicted_share;	   /* of the predicted latency */
	bool from_parts;	   /* predicted as its self time plus its callees' */
	/* where its growth is: the callee holding most of it (-1: none holds
	 * half), its share, and the callee's calls per run */
	int32_t callee;
	double callee_share;
	int32_t callee_calls; /* series index, -1 */
	/* ΔInfer's complexity transition (6.2): the callee's calls grow at
	 * least an order faster than this function's own */
	bool transition;
};

struct growth_result {
	bool refused;
	char why[256];
	size_t nsizes;
	double *sizes;
	size_t *runs; /* per size */
	double predict_size;
	struct growth_series latency; /* the run's latency (func unused) */
	/* latency.predicted is the outermost marked functions' predictions
	 * plus the rest of the run's model */
	bool latency_from_parts;
	size_t nseries;
	struct growth_series *series;
	size_t nfuncs;
	struct growth_func *funcs;   /* by predicted share, largest first */
	int32_t bottleneck, now_top; /* indices into funcs, -1 */
	size_t fitted_runs;	     /* runs with a size */
	/* growth__from_dataset: growth_func.func -> dataset function */
	uint32_t *func_ids;
};

/* Resources are fitted for the first few functions of the ranking. */
#define GROWTH_RES_FUNCS 10

/*
 * predict_size <= 0: ten times the largest size measured. A refusal (too
 * few sizes, too narrow a span) is a result with refused and why set.
 */
int growth__analyse(const struct growth_input *in, double predict_size, struct growth_result **out);
void growth__free(struct growth_result *r); /* accepts NULL */
const struct growth_series *growth__series(const struct growth_result *r, int32_t i);

struct dataset;

/*
 * From a dataset: every function that ran in a run with a size (marked:
 * calls, time, self, resources; sampled: time), the marked callees under
 * each marked function. No run with a size is a refusal too.
 */
int growth__from_dataset(const struct dataset *ds, double predict_size, struct growth_result **out,
			 char *err, size_t errlen);

#endif
