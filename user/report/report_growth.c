/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * report --growth, text and JSON: each function's models against the
 * workload size, the one that takes the run over at the predicted size and
 * through which callee (analysis/growth/growth.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "escape.h"
#include "jsonw.h"
#include "report.h"
#include "growth.h"

static const char *const res_names[XLP_NR_CTR] = {
	[XLP_C_CPU_RUN] = "cpu_run",	 [XLP_C_CPU_WAIT] = "cpu_wait",
	[XLP_C_DISK] = "disk_block",	 [XLP_C_NET] = "net_block",
	[XLP_C_IPC] = "ipc_wait",	 [XLP_C_LOCK] = "lock_wait",
	[XLP_C_TIMER] = "timer_sleep",	 [XLP_C_OTHER] = "other_sleep",
	[XLP_C_CPU_STEAL] = "cpu_steal",
};

const char *report__growth_metric(int metric)
{
	switch (metric) {
	case GROWTH_M_CALLS:
		return "calls";
	case GROWTH_M_TIME:
		return "time";
	case GROWTH_M_SELF:
		return "self";
	default:
		if (metric - GROWTH_M_RES0 >= 0 && metric - GROWTH_M_RES0 < XLP_NR_CTR &&
		    res_names[metric - GROWTH_M_RES0])
			return res_names[metric - GROWTH_M_RES0];
		return "?";
	}
}

static const char *fname(const struct dataset *ds, const struct growth_result *r, uint32_t func,
			 char *buf, size_t len)
{
	return xlp_text(dataset__func(ds, r->func_ids[func])->name, buf, len);
}

/* "n^2/128", "3.2 n log n", "2.1 ns x n^2": the model's term with its coefficient. */
const char *report__growth_term(const struct growth_series *s, char *buf, size_t len)
{
	const char *g = growth__model_name(s->fit.model);
	bool t = s->metric != GROWTH_M_CALLS;

	if (s->fit.model >= GROWTH_NMODELS)
		snprintf(buf, len, "-");
	else if (s->fit.model == GROWTH_CONST)
		snprintf(buf, len, "%.3g%s", s->fit.a, t ? " ns" : "");
	else if (!t && s->fit.b > 0 && s->fit.b < 1)
		snprintf(buf, len, "%s/%.4g", g, 1 / s->fit.b);
	else
		snprintf(buf, len, "%.3g%s %s", s->fit.b, t ? " ns x" : "", g);
	return buf;
}

static const char *value(const struct growth_series *s, double v, char *buf, size_t len)
{
	if (isnan(v))
		return "-";
	if (s->metric == GROWTH_M_CALLS) {
		snprintf(buf, len, "%.4g", v);
		return buf;
	}
	return report__dur(v, buf, len);
}

static void series_line(FILE *f, const struct growth_result *r, const struct growth_series *s,
			const char *name, double share_now, double share)
{
	char term[64], now[32], pred[32], ci[48] = "-", sn[16] = "", sp[16] = "";

	if (!isnan(s->fit.exponent))
		snprintf(ci, sizeof(ci), "%.2f [%.2f, %.2f]", s->fit.exponent, s->fit.exponent_lo,
			 s->fit.exponent_hi);
	if (!isnan(share_now))
		snprintf(sn, sizeof(sn), "%3.0f %%", 100 * share_now);
	if (!isnan(share))
		snprintf(sp, sizeof(sp), "%3.0f %%", 100 * share);
	fprintf(f, "  %-24.24s %-11s %-8s %-22s %-19s %5.1f %% %10s %5s %10s %5s\n", name,
		report__growth_metric(s->metric), growth__model_name(s->fit.model),
		report__growth_term(s, term, sizeof(term)), ci, 100 * s->fit.rms,
		value(s, s->now, now, sizeof(now)), sn, value(s, s->predicted, pred, sizeof(pred)),
		sp);
}

/* "dedupe: 97 % of its growth is in same_key, called n^2/128 times" */
static const char *callee_line(const struct dataset *ds, const struct growth_result *r,
			       const struct growth_func *f, char *buf, size_t len)
{
	char a[160], b[160], term[64];
	const struct growth_series *cc = growth__series(r, f->callee_calls);
	const struct growth_series *own = growth__series(r, f->calls);
	int n;

	n = snprintf(buf, len, "%s: %.0f %% of its growth is in %s",
		     fname(ds, r, f->func, a, sizeof(a)), 100 * f->callee_share,
		     fname(ds, r, r->funcs[f->callee].func, b, sizeof(b)));
	if (cc && cc->fit.model < GROWTH_NMODELS && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", called %s times per run",
			      report__growth_term(cc, term, sizeof(term)));
	if (f->transition && own && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n,
			 " (a loop: its calls grow %s where %s's grow %s; ΔInfer's complexity "
			 "transition)",
			 growth__model_name(cc->fit.model), a, growth__model_name(own->fit.model));
	return buf;
}

/* "n log n", or "n log n; n fits as well, within the repeats' spread" */
static const char *model_text(const struct growth_series *s, char *buf, size_t len)
{
	if (s->fit.close_by_spread)
		snprintf(buf, len, "%s; %s fits as well, within the repeats' spread",
			 growth__model_name(s->fit.model), growth__model_name(s->fit.close));
	else
		snprintf(buf, len, "%s", growth__model_name(s->fit.model));
	return buf;
}

void report__growth_verdict(const struct dataset *ds, const struct growth_result *r, char *buf,
			    size_t len)
{
	char a[160], b[160], d[32], m[96];
	const struct growth_func *bf, *nf;
	const struct growth_series *t;

	if (r->refused) {
		snprintf(buf, len, "no prediction: %s", r->why);
		return;
	}
	if (r->bottleneck < 0) {
		snprintf(buf, len,
			 "no prediction: no function has a model (each needs a value at "
			 "%d sizes)",
			 GROWTH_MIN_SIZES);
		return;
	}
	bf = &r->funcs[r->bottleneck];
	nf = r->now_top >= 0 ? &r->funcs[r->now_top] : bf;
	t = &r->series[bf->time];
	fname(ds, r, bf->func, a, sizeof(a));
	fname(ds, r, nf->func, b, sizeof(b));
	model_text(t, m, sizeof(m));
	if (bf == nf)
		snprintf(buf, len,
			 "%s takes the most of the run now (%.0f %% at %.6g) and at %.6g (%.0f %%, "
			 "%s, predicted %s)",
			 a, 100 * nf->now_share, r->sizes[r->nsizes - 1], r->predict_size,
			 100 * bf->predicted_share, m, report__dur(bf->predicted, d, sizeof(d)));
	else
		snprintf(buf, len,
			 "at %.6g, %s will take %.0f %% of the run (%s, predicted %s), where %s "
			 "takes the most now (%.0f %% at %.6g)",
			 r->predict_size, a, 100 * bf->predicted_share, m,
			 report__dur(bf->predicted, d, sizeof(d)), b, 100 * nf->now_share,
			 r->sizes[r->nsizes - 1]);
}

static void sizes_text(FILE *f, const struct growth_result *r)
{
	char d[32];

	fprintf(f, "\nSizes (the median of each size's runs stands for it)\n  %12s %8s %12s\n",
		"size", "runs", "latency");
	for (size_t k = 0; k < r->nsizes; k++)
		fprintf(f, "  %12.6g %8zu %12s\n", r->sizes[k], r->runs[k],
			r->latency.med ? report__dur(r->latency.med[k], d, sizeof(d)) : "-");
}

static void holdout_text(FILE *f, const struct growth_result *r, const struct growth_series *s,
			 const char *name)
{
	char p[32], m[32];

	if (isnan(s->fit.holdout_pred))
		return;
	fprintf(f,
		"  check: %s's %s at %.6g predicted from the smaller sizes: %s (%s) vs %s "
		"measured, %.0f %% off%s\n",
		name, report__growth_metric(s->metric), r->sizes[r->nsizes - 1],
		value(s, s->fit.holdout_pred, p, sizeof(p)),
		growth__model_name(s->fit.holdout_model), value(s, s->now, m, sizeof(m)),
		100 * s->fit.holdout_err,
		s->fit.holdout_model != s->fit.model ? "; the model changes with the largest size"
						     : "");
}

int report__growth_text(FILE *f, const struct dataset *ds, const struct growth_result *r)
{
	char v[1024], name[160], line[768];

	fprintf(f, "xlprobe report --growth: %zu run%s with a workload size, %zu size%s\n",
		r->fitted_runs, r->fitted_runs == 1 ? "" : "s", r->nsizes,
		r->nsizes == 1 ? "" : "s");
	sizes_text(f, r);
	if (r->refused) {
		report__growth_verdict(ds, r, v, sizeof(v));
		fprintf(f, "\nVerdict: %s\n", v);
		return ferror(f) ? -EIO : 0;
	}
	fprintf(f, "\nModels (a + b g(n), chosen by AICc; exponent: power law on log-log, 95 %% "
		   "interval; rms: relative)\n");
	fprintf(f, "  %-24s %-11s %-8s %-22s %-19s %7s %10s %5s %10s %5s\n", "function", "metric",
		"model", "b g(n)", "exponent", "rms", "now", "share", "predicted", "share");
	series_line(f, r, &r->latency, "[the run's latency]", NAN, NAN);
	for (size_t i = 0; i < r->nfuncs; i++) {
		const struct growth_func *fn = &r->funcs[i];

		fname(ds, r, fn->func, name, sizeof(name));
		series_line(f, r, &r->series[fn->time], name, fn->now_share, fn->predicted_share);
		if (fn->self >= 0)
			series_line(f, r, &r->series[fn->self], "", NAN, NAN);
		if (fn->calls >= 0)
			series_line(f, r, &r->series[fn->calls], "", NAN, NAN);
		for (size_t k = 0; k < r->nseries; k++)
			if (r->series[k].func == fn->func && r->series[k].metric >= GROWTH_M_RES0)
				series_line(f, r, &r->series[k], "", NAN, NAN);
	}
	fprintf(f,
		"  (now: at %.6g; predicted: at %.6g; share: of the run's latency; a function with "
		"marked callees is predicted as its self time plus theirs%s)\n",
		r->sizes[r->nsizes - 1], r->predict_size,
		r->latency_from_parts
			? "; the run's latency as its outermost marked functions plus "
			  "the rest of the run"
			: "");
	fputs("\nGrowth\n", f);
	for (size_t i = 0; i < r->nfuncs && i < 5; i++)
		if (r->funcs[i].callee >= 0)
			fprintf(f, "  %s\n", callee_line(ds, r, &r->funcs[i], line, sizeof(line)));
	holdout_text(f, r, &r->latency, "the run");
	if (r->bottleneck >= 0)
		holdout_text(f, r, &r->series[r->funcs[r->bottleneck].time],
			     fname(ds, r, r->funcs[r->bottleneck].func, name, sizeof(name)));
	report__growth_verdict(ds, r, v, sizeof(v));
	fprintf(f, "\nVerdict: %s\n", v);
	return ferror(f) ? -EIO : 0;
}

/* ---- JSON ---- */

static void fit_json(struct jsonw *w, const struct growth_series *s)
{
	char term[64];

	jsonw__str(w, "model",
		   s->fit.model < GROWTH_NMODELS ? growth__model_name(s->fit.model) : NULL);
	jsonw__num(w, "a", s->fit.model < GROWTH_NMODELS ? s->fit.a : NAN);
	jsonw__num(w, "b", s->fit.model < GROWTH_NMODELS ? s->fit.b : NAN);
	jsonw__str(w, "term", report__growth_term(s, term, sizeof(term)));
	jsonw__num(w, "exponent", s->fit.exponent);
	jsonw__begin_arr(w, "exponent_ci");
	jsonw__num(w, NULL, s->fit.exponent_lo);
	jsonw__num(w, NULL, s->fit.exponent_hi);
	jsonw__end_arr(w);
	jsonw__num(w, "rms", s->fit.model < GROWTH_NMODELS ? s->fit.rms : NAN);
	jsonw__str(w, "close_model",
		   s->fit.close < GROWTH_NMODELS ? growth__model_name(s->fit.close) : NULL);
	jsonw__bool(w, "close_by_spread", s->fit.close_by_spread);
	jsonw__begin_obj(w, "holdout");
	jsonw__str(w, "model",
		   s->fit.holdout_model < GROWTH_NMODELS ? growth__model_name(s->fit.holdout_model)
							 : NULL);
	jsonw__num(w, "predicted", s->fit.holdout_pred);
	jsonw__num(w, "error", s->fit.holdout_err);
	jsonw__end_obj(w);
}

static void series_json(struct jsonw *w, const struct dataset *ds, const struct growth_result *r,
			const struct growth_series *s, const struct growth_func *fn)
{
	bool ns = s->metric != GROWTH_M_CALLS;

	jsonw__begin_obj(w, NULL);
	if (fn) {
		jsonw__str(w, "function", dataset__func(ds, r->func_ids[fn->func])->name);
		jsonw__str(w, "symbol", dataset__func(ds, r->func_ids[fn->func])->symbol);
		jsonw__str(w, "binary", dataset__func(ds, r->func_ids[fn->func])->binary);
	}
	jsonw__str(w, "metric", report__growth_metric(s->metric));
	fit_json(w, s);
	jsonw__begin_arr(w, "medians");
	for (size_t k = 0; k < r->nsizes; k++)
		jsonw__num(w, NULL, s->med[k]);
	jsonw__end_arr(w);
	jsonw__num(w, ns ? "now_ns" : "now", s->now);
	if (fn && s->metric == GROWTH_M_TIME) {
		/* from its parts when it has marked callees, else its model's */
		jsonw__num(w, "predicted_ns", fn->predicted);
		jsonw__num(w, "model_predicted_ns", s->predicted);
		jsonw__bool(w, "predicted_from_parts", fn->from_parts);
		jsonw__num(w, "now_share", fn->now_share);
		jsonw__num(w, "predicted_share", fn->predicted_share);
	} else {
		jsonw__num(w, ns ? "predicted_ns" : "predicted", s->predicted);
		jsonw__null(w, "predicted_share");
	}
	jsonw__end_obj(w);
}

static void func_json(struct jsonw *w, const struct dataset *ds, const struct growth_result *r,
		      const char *key, int32_t i)
{
	const struct growth_func *fn;

	if (i < 0) {
		jsonw__null(w, key);
		return;
	}
	fn = &r->funcs[i];
	jsonw__begin_obj(w, key);
	jsonw__str(w, "function", dataset__func(ds, r->func_ids[fn->func])->name);
	jsonw__str(w, "symbol", dataset__func(ds, r->func_ids[fn->func])->symbol);
	jsonw__str(w, "model", growth__model_name(r->series[fn->time].fit.model));
	jsonw__num(w, "now_share", fn->now_share);
	jsonw__num(w, "predicted_ns", fn->predicted);
	jsonw__num(w, "predicted_share", fn->predicted_share);
	if (fn->callee >= 0) {
		const struct growth_series *cc = growth__series(r, fn->callee_calls);
		char term[64];

		jsonw__begin_obj(w, "callee");
		jsonw__str(w, "function",
			   dataset__func(ds, r->func_ids[r->funcs[fn->callee].func])->name);
		jsonw__str(w, "symbol",
			   dataset__func(ds, r->func_ids[r->funcs[fn->callee].func])->symbol);
		jsonw__num(w, "growth_share", fn->callee_share);
		jsonw__str(w, "calls_model",
			   cc && cc->fit.model < GROWTH_NMODELS ? growth__model_name(cc->fit.model)
								: NULL);
		jsonw__str(w, "calls", cc ? report__growth_term(cc, term, sizeof(term)) : NULL);
		jsonw__bool(w, "transition", fn->transition);
		jsonw__end_obj(w);
	} else {
		jsonw__null(w, "callee");
	}
	jsonw__end_obj(w);
}

void report__growth_json_obj(struct jsonw *w, const struct dataset *ds,
			     const struct growth_result *r)
{
	char v[1024];

	jsonw__begin_obj(w, "growth");
	jsonw__bool(w, "refused", r->refused);
	jsonw__str(w, "why", r->refused ? r->why : NULL);
	jsonw__begin_arr(w, "sizes");
	for (size_t k = 0; k < r->nsizes; k++)
		jsonw__num(w, NULL, r->sizes[k]);
	jsonw__end_arr(w);
	jsonw__begin_arr(w, "runs_per_size");
	for (size_t k = 0; k < r->nsizes; k++)
		jsonw__uint(w, NULL, r->runs[k]);
	jsonw__end_arr(w);
	jsonw__num(w, "predict_size", r->predict_size);
	if (!r->refused) {
		jsonw__begin_obj(w, "latency");
		fit_json(w, &r->latency);
		jsonw__num(w, "now_ns", r->latency.now);
		jsonw__num(w, "predicted_ns", r->latency.predicted);
		jsonw__bool(w, "predicted_from_parts", r->latency_from_parts);
		jsonw__end_obj(w);
	}
	jsonw__begin_arr(w, "functions");
	for (size_t i = 0; !r->refused && i < r->nfuncs; i++) {
		const struct growth_func *fn = &r->funcs[i];

		series_json(w, ds, r, &r->series[fn->time], fn);
		if (fn->self >= 0)
			series_json(w, ds, r, &r->series[fn->self], fn);
		if (fn->calls >= 0)
			series_json(w, ds, r, &r->series[fn->calls], fn);
		for (size_t k = 0; k < r->nseries; k++)
			if (r->series[k].func == fn->func && r->series[k].metric >= GROWTH_M_RES0)
				series_json(w, ds, r, &r->series[k], fn);
	}
	jsonw__end_arr(w);
	func_json(w, ds, r, "bottleneck", r->refused ? -1 : r->bottleneck);
	func_json(w, ds, r, "dominant_now", r->refused ? -1 : r->now_top);
	report__growth_verdict(ds, r, v, sizeof(v));
	jsonw__str(w, "verdict", v);
	jsonw__end_obj(w);
}

int report__growth_json(FILE *f, const struct dataset *ds, const struct growth_result *r)
{
	struct jsonw w;

	jsonw__init(&w, f);
	jsonw__begin_obj(&w, NULL);
	jsonw__str(&w, "schema", "xlprobe-report/3");
	report__growth_json_obj(&w, ds, r);
	jsonw__end_obj(&w);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
