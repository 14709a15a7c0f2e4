/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The report model (report_model.h) built from the analysis result: the
 * traces, the runs, the preconditions, the functions, what was lost, the
 * verdict; report_model_crit.c and report_model_detail.c add the rest.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "report.h"
#include "report_model.h"

static const char *status_name(enum diagnosis_status s)
{
	switch (s) {
	case DIAGNOSIS_OK:
		return "ok";
	case DIAGNOSIS_FEW_RUNS:
		return "few_runs";
	case DIAGNOSIS_NONE_SLOW:
		return "none_slow";
	case DIAGNOSIS_ALL_SLOW:
		return "all_slow";
	case DIAGNOSIS_NO_PRECOND:
		return "no_precondition";
	}
	return "?";
}

static const struct jsonw_field label_f[] = {
	JSONW_F_ROUND(struct labels_summary, threshold_ns, "threshold_ns"),
	JSONW_F_ROUND(struct labels_summary, median_ns, "median_ns"),
	JSONW_F_ROUND(struct labels_summary, p90_ns, "p90_ns"),
	JSONW_F_ROUND(struct labels_summary, max_ns, "max_ns"),
	JSONW_F_ROUND(struct labels_summary, slow_median_ns, "slow_median_ns"),
	JSONW_F_ROUND(struct labels_summary, fast_median_ns, "fast_median_ns"),
};

static void runs(struct report_model *m, const struct dataset *ds, const struct diagnosis *r)
{
	struct report_queued q;
	struct report_summary sum;
	char rule[64], who[400];

	report__summary(ds, &sum);
	report_model__begin_obj(m, "runs");
	report_model__uint(m, "count", r->lab.n);
	/* record --lag: counted and timed, not analysed (not in count) */
	report_model__uint(m, "summarized", sum.runs);
	report_model__round(m, "summarized_median_ns", sum.median_ns);
	report_model__uint(m, "lag_ns", sum.lag_ns);
	report_model__uint(m, "lag_keep", sum.keep);
	report_model__uint(m, "slow", r->lab.nslow);
	report_model__uint(m, "fast", r->lab.n - r->lab.nslow);
	report_model__str(m, "rule", report__rule(r, rule, sizeof(rule)));
	report_model__fields_of(m, &r->lab, label_f);
	report_model__bool(m, "significant", !r->insignificant);
	report__queued(ds, r, &q);
	report_model__uint(m, "queued_runs", q.runs);
	report_model__round(m, "queued_slow_median_ns", q.slow_median);
	report_model__round(m, "queued_fast_median_ns", q.fast_median);
	report_model__num(m, "queued_share", q.runs ? q.share : NAN);
	report_model__thieves(m, "queued_cpu_thieves", &r->queued_thieves);
	report_model__shown_only(m, true);
	report_model__round(m, "summarized_max_ns", sum.max_ns);
	report_model__str(m, "queued_cpu_thieves_text",
			  report__thieves(&r->queued_thieves, who, sizeof(who)));
	report_model__shown_only(m, false);
	report_model__end_obj(m);
}

void report_model__func_id(struct report_model *m, const struct dataset *ds, uint32_t f)
{
	report_model__str(m, "function", dataset__func(ds, f)->name);
	report_model__str(m, "symbol", dataset__func(ds, f)->symbol);
	report_model__str(m, "binary", dataset__func(ds, f)->binary);
	report_model__bool(m, "sampled", dataset__func(ds, f)->sampled);
}

static void preconditions(struct report_model *m, const struct dataset *ds,
			  const struct diagnosis *r)
{
	char t[1024];

	report_model__begin_arr(m, "preconditions");
	for (size_t i = 0; i < r->npre; i++) {
		const struct diagnosis_precond *p = &r->pre[i];

		report_model__begin_obj(m, NULL);
		report_model__begin_arr(m, "functions");
		for (size_t k = 0; k < p->ncond; k++) {
			const struct diagnosis_cond *c = &p->conds[k];
			bool both = c->has_lo && c->has_hi;

			report_model__begin_obj(m, NULL);
			report_model__func_id(m, ds, c->func);
			report_model__str(m, "op", both ? "in" : c->has_lo ? ">" : "<=");
			report_model__round(m, "threshold_ns",
					    both	? NAN
					    : c->has_lo ? c->lo_ns
							: c->hi_ns);
			report_model__round(m, "lo_ns", c->has_lo ? c->lo_ns : NAN);
			report_model__round(m, "hi_ns", c->has_hi ? c->hi_ns : NAN);
			report_model__bool(m, "critical", c->slow_side);
			report_model__shown_only(m, true);
			report_model__str(m, "text", report__cond(ds, c, t, sizeof(t)));
			report_model__shown_only(m, false);
			report_model__end_obj(m);
		}
		report_model__end_arr(m);
		report_model__uint(m, "slow_runs", p->slow_runs);
		report_model__uint(m, "runs", p->runs);
		report_model__end_obj(m);
	}
	report_model__end_arr(m);
}

/* evidence 1's gap tests: the function's time, then its factor's values */

static void step1_tree(struct report_model *m, const struct dataset *ds, const struct diagnosis *r)
{
	const char **names = calloc(r->ncand + 1, sizeof(*names));

	if (!names || !r->tree) {
		report_model__null(m, "tree");
		free(names);
		return;
	}
	for (size_t i = 0; i < r->ncand; i++)
		names[i] = dataset__func(ds, r->cand[i])->name;
	report_model__tree(m, r->tree, names);
	free(names);
}

static const struct jsonw_field func_row_f[] = {
	JSONW_F(struct diagnosis_func_row, runs, "runs"),
	JSONW_F_ROUND(struct diagnosis_func_row, time_median, "time_median_ns"),
	JSONW_F_ROUND(struct diagnosis_func_row, time_slow_median, "time_slow_median_ns"),
	JSONW_F_ROUND(struct diagnosis_func_row, time_fast_median, "time_fast_median_ns"),
};

static void functions(struct report_model *m, const struct dataset *ds, const struct diagnosis *r)
{
	report_model__begin_arr(m, "functions");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct diagnosis_func_row *row = &r->rows[i];

		report_model__begin_obj(m, NULL);
		report_model__func_id(m, ds, row->func);
		report_model__fields_of(m, row, func_row_f);
		report_model__begin_obj(m, "median");
		for (int k = 0; k < DIAGNOSIS_NFEAT; k++) {
			if (k == DIAGNOSIS_CPU_FREQ && !(r->features & XLP_FEAT_CPUFREQ))
				report_model__str(m, diagnosis__feat_name(k), "unavailable");
			else
				report_model__round(m, diagnosis__feat_name(k), row->median[k]);
		}
		report_model__end_obj(m);
		report_model__end_obj(m);
	}
	report_model__end_arr(m);
}

static const struct jsonw_field file_head_f[] = {
	JSONW_F_STR(struct dataset_file_info, path, "path"),
	JSONW_F_STR(struct dataset_file_info, interaction_name, "interaction"),
	JSONW_F_STR(struct dataset_file_info, interaction, "interaction_symbol"),
	JSONW_F(struct dataset_file_info, nruns, "runs"),
	JSONW_F(struct dataset_file_info, nsummary, "summarized"),
};

static const struct jsonw_field file_tail_f[] = {
	JSONW_F(struct dataset_file_info, nrecords, "records"),
	JSONW_F(struct dataset_file_info, truncated, "truncated"),
	JSONW_F_STR(struct dataset_file_info, damage, "damage"),
	JSONW_F(struct dataset_file_info, features, "features"),
};

static void traces(struct report_model *m, const struct dataset *ds)
{
	report_model__begin_arr(m, "traces");
	for (size_t i = 0; i < dataset__nfiles(ds); i++) {
		const struct dataset_file_info *fi = dataset__file(ds, i);

		report_model__begin_obj(m, NULL);
		report_model__fields_of(m, fi, file_head_f);
		report_model__strs(m, "landmarks", fi->landmark_names, fi->nlandmarks);
		report_model__strs(m, "landmark_symbols", fi->landmarks, fi->nlandmarks);
		report_model__fields_of(m, fi, file_tail_f);
		report_model__end_obj(m);
	}
	report_model__end_arr(m);
}

static void limits(struct report_model *m, const struct dataset *ds, const struct diagnosis *r)
{
	bool damaged = false;
	const char *un[8];
	struct report_drop d[REPORT_MAX_DROPS];
	size_t nu = report__unavailable(r->features, un, 8),
	       nd = report__drops(ds, d, REPORT_MAX_DROPS);

	report_model__strs(m, "unavailable", un, nu);
	report_model__begin_obj(m, "drops");
	for (size_t i = 0; i < nd; i++)
		report_model__uint(m, d[i].name, d[i].count);
	report_model__end_obj(m);
	report_model__bool(m, "truncated", dataset__drops(ds)->ntruncated > 0);
	for (size_t i = 0; i < dataset__nfiles(ds); i++)
		damaged = damaged || dataset__file(ds, i)->damage;
	report_model__bool(m, "damaged", damaged);
	/* each loss in words, and whether it was chosen (record --lag) */
	report_model__shown_only(m, true);
	report_model__uint(m, "features", r->features);
	report_model__begin_arr(m, "lost");
	for (size_t i = 0; i < nd; i++) {
		report_model__begin_obj(m, NULL);
		report_model__str(m, "name", d[i].name);
		report_model__uint(m, "count", d[i].count);
		report_model__str(m, "what", d[i].what);
		report_model__bool(m, "chosen", d[i].chosen);
		report_model__end_obj(m);
	}
	report_model__end_arr(m);
	report_model__shown_only(m, false);
}

static const struct jsonw_field sample_info_f[] = {
	JSONW_F(struct dataset_sample_info, samples, "samples"),
	JSONW_F(struct dataset_sample_info, in_runs, "in_runs"),
	JSONW_F(struct dataset_sample_info, unplaced, "unplaced"),
	JSONW_F(struct dataset_sample_info, malformed, "malformed"),
	JSONW_F(struct dataset_sample_info, weight_in_runs, "weight_in_runs_ns"),
	JSONW_F(struct dataset_sample_info, resolution_ns, "resolution_ns"),
	JSONW_F(struct dataset_sample_info, sampler_cost_ns, "sampler_cost_ns"),
	JSONW_F(struct dataset_sample_info, sampler_removed_ns, "sampler_removed_ns"),
	JSONW_F(struct dataset_sample_info, calibrated, "calibrated"),
	JSONW_F(struct dataset_sample_info, roots, "root_functions"),
};

static void sampling(struct report_model *m, const struct dataset *ds, const struct diagnosis *r)
{
	const struct dataset_sample_info *s = dataset__samples(ds);
	char args[4096];

	report_model__begin_obj(m, "sampling");
	report_model__fields_of(m, s, sample_info_f);
	report__func_args(ds, r, args, sizeof(args));
	report_model__str(m, "func_args", args[0] ? args : NULL);
	report_model__end_obj(m);
}

struct report_model *report_model__build(const struct dataset *ds, const struct diagnosis *r)
{
	struct report_model *m = report_node__new_model();

	if (!m)
		return NULL;
	report_model__begin_obj(m, NULL);
	report_model__str(m, "schema", "xlprobe-report/3");
	traces(m, ds);
	runs(m, ds, r);
	report_model__str(m, "status", status_name(r->status));
	preconditions(m, ds, r);
	report_model__uint(m, "preconditions_ignored", r->npre_dropped);
	report_model__criticals(m, ds, r);
	report_model__baseline(m, ds, r);
	report_model__whole_run(m, ds, r);
	report_model__wait_answer(m, ds, r);
	step1_tree(m, ds, r);
	functions(m, ds, r);
	limits(m, ds, r);
	sampling(m, ds, r);
	report_model__waits(m, ds, r);
	report_model__tasks(m, ds, r);
	report_model__verdict(m, ds, r);
	report_model__end_obj(m);
	if (report_node__failed(m)) {
		report_model__free(m);
		return NULL;
	}
	return m;
}

int report__json(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	struct report_model *m = report_model__build(ds, r);
	int err = m ? report_model__json(m, f) : -ENOMEM;

	report_model__free(m);
	return err;
}
