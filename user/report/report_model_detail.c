/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The report model's details only the JSON shows in full (docs/json.md):
 * every tree whole (nodes, feature statistics and pruning decisions), the
 * evidence's tests, a growth's path, calls, block requests, CPU work.
 */
#include <math.h>
#include "report.h"
#include "report_model.h"

static const char *prune_name(enum dtree_prune p)
{
	switch (p) {
	case DTREE_KEPT:
		return "kept";
	case DTREE_PRUNED_ALPHA:
		return "relative difference below alpha";
	case DTREE_PRUNED_CONSTANT:
		return "constant";
	case DTREE_PRUNED_DISABLED:
		return "unavailable";
	case DTREE_PRUNED_ONE_CLASS:
		return "one class only";
	}
	return "?";
}

static void tree_node(struct report_model *m, const char *key, const struct dtree *t, int i,
		      const char *const *names)
{
	const struct dtree_node *nd = dtree__node(t, (size_t)i);

	report_model__begin_obj(m, key);
	report_model__uint(m, "samples", nd->n);
	report_model__uint(m, "slow", nd->nslow);
	if (nd->feature < 0) {
		report_model__bool(m, "leaf", true);
	} else {
		report_model__str(m, "feature", names[nd->feature]);
		report_model__num(m, "threshold", nd->threshold);
		report_model__str(m, "slow_op", nd->slow_right ? ">" : "<=");
		report_model__num(m, "gap", nd->gap);
		tree_node(m, "le", t, nd->left, names);
		tree_node(m, "gt", t, nd->right, names);
	}
	report_model__end_obj(m);
}

static const struct jsonw_field feat_stats_f[] = {
	JSONW_F(struct dtree_feat_stats, m_slow, "slow_mean"),
	JSONW_F(struct dtree_feat_stats, m_fast, "fast_mean"),
	JSONW_F(struct dtree_feat_stats, p5, "p5"),
	JSONW_F(struct dtree_feat_stats, p95, "p95"),
	JSONW_F(struct dtree_feat_stats, reldiff, "relative_difference"),
};

/* The whole tree: pruning decisions of every feature, then the nodes. */
void report_model__tree(struct report_model *m, const struct dtree *t, const char *const *names)
{
	if (!t) {
		report_model__null(m, "tree");
		return;
	}
	report_model__begin_obj(m, "tree");
	report_model__begin_arr(m, "features");
	for (size_t f = 0; f < dtree__nfeatures(t); f++) {
		const struct dtree_feat_stats *s = dtree__feat_stats(t, f);

		report_model__begin_obj(m, NULL);
		report_model__str(m, "name", names[f]);
		report_model__str(m, "pruned", s->pruned ? prune_name(s->pruned) : NULL);
		report_model__fields_of(m, s, feat_stats_f);
		report_model__end_obj(m);
	}
	report_model__end_arr(m);
	tree_node(m, "root", t, 0, names);
	report_model__end_obj(m);
}

void report_model__step2_tree(struct report_model *m, const struct diagnosis_step2 *s)
{
	const char *names[DIAGNOSIS_NFEAT];

	for (size_t i = 0; i < s->nused; i++)
		names[i] = diagnosis__feat_name(s->featmap[i]);
	report_model__tree(m, s->tree, names);
}

static const struct jsonw_field ev_mode_f[] = {
	JSONW_F(struct diagnosis_evidence, cpu_mode, "cpu_slower"),
	JSONW_F_ROUND(struct diagnosis_evidence, gap.lo, "gap_lo_ns"),
	JSONW_F_ROUND(struct diagnosis_evidence, gap.hi, "gap_hi_ns"),
	JSONW_F(struct diagnosis_evidence, gap.ratio, "gap_ratio"),
	JSONW_F(struct diagnosis_evidence, gap.p, "p_time"),
	JSONW_F(struct diagnosis_evidence, time_slow_hits, "time_slow_past"),
	JSONW_F(struct diagnosis_evidence, time_fast_hits, "time_fast_past"),
	JSONW_F(struct diagnosis_evidence, time_assoc_p, "p_time_association"),
	JSONW_F_ROUND(struct diagnosis_evidence, res_gap.lo, "factor_gap_lo"),
	JSONW_F_ROUND(struct diagnosis_evidence, res_gap.hi, "factor_gap_hi"),
	JSONW_F(struct diagnosis_evidence, res_gap.ratio, "factor_gap_ratio"),
	JSONW_F(struct diagnosis_evidence, res_gap.p, "p_factor"),
};

static const struct jsonw_field ev_bursts_f[] = {
	JSONW_F(struct diagnosis_evidence, cpu_bursts, "cpu_slower"),
	JSONW_F(struct diagnosis_evidence, nslow_side, "runs_past_threshold"),
	JSONW_F(struct diagnosis_evidence, bursts, "bursts"),
	JSONW_F(struct diagnosis_evidence, bursts_expected, "bursts_by_chance"),
	JSONW_F(struct diagnosis_evidence, bulk_streaks, "other_runs_streak_ratio"),
	JSONW_F(struct diagnosis_evidence, persistence, "persistence"),
	JSONW_F(struct diagnosis_evidence, runs_p, "p"),
};

static const struct jsonw_field ev_resource_f[] = {
	JSONW_F(struct diagnosis_evidence, res_share, "share_of_added"),
	JSONW_F(struct diagnosis_evidence, res_fast_share, "share_of_fast"),
	JSONW_F(struct diagnosis_evidence, res_excess, "excess"),
	JSONW_F(struct diagnosis_evidence, res_p, "p"),
	JSONW_F(struct diagnosis_evidence, res_itself, "wait_itself"),
};

static const struct jsonw_field ev_beyond_f[] = {
	JSONW_F(struct diagnosis_evidence, beyond_top, "top_runs"),
	JSONW_F(struct diagnosis_evidence, beyond_slow, "top_slow"),
	JSONW_F(struct diagnosis_evidence, beyond_nslow, "slow_runs"),
	JSONW_F(struct diagnosis_evidence, beyond_n, "runs"),
	JSONW_F(struct diagnosis_evidence, beyond_cut, "share_cut"),
	JSONW_F(struct diagnosis_evidence, beyond_fast_median, "fast_median_share"),
	JSONW_F(struct diagnosis_evidence, beyond_added_share, "share_of_added"),
	JSONW_F(struct diagnosis_evidence, beyond_tests, "tests"),
	JSONW_F(struct diagnosis_evidence, beyond_p, "p"),
};

/* evidence 3b: more work in the function or a slower CPU */
static const struct jsonw_field ev_work_f[] = {
	JSONW_F(struct diagnosis_evidence, work_tested, "tested"),
	JSONW_F(struct diagnosis_evidence, work_sampled, "sampled"),
	JSONW_F(struct diagnosis_evidence, slower_cpu, "slower_cpu"),
	JSONW_F(struct diagnosis_evidence, more_work, "more_work"),
	JSONW_F(struct diagnosis_evidence, cpu_dismissed, "dismissed"),
	JSONW_F(struct diagnosis_evidence, work_nslow, "slow_runs"),
	JSONW_F(struct diagnosis_evidence, work_nfast, "fast_runs"),
	JSONW_F(struct diagnosis_evidence, work_slow_share, "slow_share"),
	JSONW_F(struct diagnosis_evidence, work_fast_share, "fast_share"),
	JSONW_F(struct diagnosis_evidence, work_share_p, "p_share"),
	JSONW_F(struct diagnosis_evidence, work_share_growth, "share_growth"),
	JSONW_F_ROUND(struct diagnosis_evidence, rest_slow_ns, "rest_slow_ns"),
	JSONW_F_ROUND(struct diagnosis_evidence, rest_fast_ns, "rest_fast_ns"),
	JSONW_F(struct diagnosis_evidence, rest_p, "p_rest"),
};

void report_model__evidence(struct report_model *m, const struct diagnosis_evidence *e)
{
	report_model__begin_obj(m, "evidence");
	report_model__bool(m, "significant", e->significant);
	report_model__bool(m, "small", e->small);
	report_model__round(m, "latency_gap_ns", e->latency_gap);
	report_model__num(m, "share", e->share);
	report_model__begin_obj(m, "mode");
	report_model__bool(m, "holds", e->mode && !e->cpu_mode);
	report_model__fields_of(m, e, ev_mode_f);
	report_model__str(m, "gap_factor",
			  isnan(e->res_gap.lo) ? NULL : diagnosis__feat_name(e->gap_feat));
	report_model__uint(m, "factor_slow_past", e->gap_slow_hits);
	report_model__uint(m, "factor_fast_past", e->gap_fast_hits);
	report_model__num(m, "p_association", isnan(e->res_gap.lo) ? NAN : e->gap_assoc_p);
	report_model__num(m, "p", e->mode_p);
	report_model__end_obj(m);
	report_model__begin_obj(m, "bursts");
	report_model__bool(m, "holds", e->bursty && !e->cpu_bursts);
	report_model__fields_of(m, e, ev_bursts_f);
	report_model__end_obj(m);
	report_model__begin_obj(m, "resource");
	report_model__bool(m, "holds", e->resource);
	report_model__str(m, "factor", isnan(e->res_p) ? NULL : diagnosis__feat_name(e->res_feat));
	report_model__fields_of(m, e, ev_resource_f);
	report_model__end_obj(m);
	report_model__begin_obj(m, "work");
	report_model__fields_of(m, e, ev_work_f);
	report_model__end_obj(m);
	report_model__begin_obj(m, "beyond");
	report_model__bool(m, "holds", e->beyond);
	report_model__str(m, "factor", e->beyond_n ? diagnosis__feat_name(e->beyond_feat) : NULL);
	report_model__fields_of(m, e, ev_beyond_f);
	report_model__end_obj(m);
	report_model__end_obj(m);
}

static const char *cause_name(enum diagnosis_cause c)
{
	switch (c) {
	case DIAGNOSIS_CAUSE_FAULT:
		return "page_faults";
	case DIAGNOSIS_CAUSE_LOCK:
		return "spinlock";
	case DIAGNOSIS_CAUSE_SYSCALL:
		return "syscall";
	case DIAGNOSIS_CAUSE_KERNEL:
		return "kernel";
	case DIAGNOSIS_CAUSE_USER:
		return "function";
	case DIAGNOSIS_CAUSE_NONE:
		break;
	}
	return NULL;
}

void report_model__diff_frame(struct report_model *m, const struct dataset *ds,
			      const struct dataset_diff_node *x)
{
	if (x->kernel) {
		report_model__str(m, "function", dataset__kframe(ds, x->frame));
		report_model__str(m, "symbol", dataset__kframe(ds, x->frame));
		report_model__str(m, "binary", "[kernel]");
		report_model__bool(m, "kernel", true);
	} else if (x->frame == DATASET_NO_FUNC) {
		report_model__null(m, "function");
		report_model__null(m, "symbol");
		report_model__null(m, "binary");
		report_model__bool(m, "kernel", false);
	} else {
		report_model__str(m, "function", dataset__func(ds, x->frame)->name);
		report_model__str(m, "symbol", dataset__func(ds, x->frame)->symbol);
		report_model__str(m, "binary", dataset__func(ds, x->frame)->binary);
		report_model__bool(m, "kernel", false);
	}
}

void report_model__growth(struct report_model *m, const char *key, const struct dataset *ds,
			  const struct diagnosis_why *g)
{
	const struct dataset_diff_node *x0;
	uint32_t order[REPORT_MAX_DIFF];
	char why[600];

	if (!g->diff) {
		report_model__null(m, key);
		return;
	}
	x0 = dataset_diff__node(g->diff, 0);
	report_model__begin_obj(m, key);
	report_model__str(m, "samples_of", g->reason >= 0 ? xlp_ctr_names[g->reason] : "all");
	report_model__uint(m, "slow_runs", g->nslow_runs);
	report_model__uint(m, "fast_runs", g->nfast_runs);
	report_model__begin_arr(m, "path");
	for (size_t i = 0; i < g->npath; i++) {
		const struct dataset_diff_node *x = dataset_diff__node(g->diff, g->path[i]);

		report_model__begin_obj(m, NULL);
		report_model__diff_frame(m, ds, x);
		report_model__uint(m, "slow_samples", x->nslow);
		report_model__uint(m, "fast_samples", x->nfast);
		report_model__round(m, "slow_per_run_ns",
				    g->nslow_runs ? x->wslow / g->nslow_runs : NAN);
		report_model__round(m, "fast_per_run_ns",
				    g->nfast_runs ? x->wfast / g->nfast_runs : NAN);
		report_model__round(m, "added_per_run_ns", diagnosis__why_added(g, x));
		report_model__num(m, "p",
				  i ? stats__fisher(x->nslow, x0->nslow, x->nslow + x->nfast,
						    x0->nslow + x0->nfast)
				    : NAN);
		report_model__end_obj(m);
	}
	report_model__end_arr(m);
	if (g->clear)
		report_model__uint(m, "named", g->named);
	else
		report_model__null(m, "named");
	report_model__uint(m, "deepest", g->deepest);
	/* the application's frame and the library's below it (0: none) */
	report_model__uint(m, "app", g->app);
	report_model__uint(m, "library", g->lib);
	report_model__bool(m, "clear", g->clear);
	report_model__num(m, "p", g->clear ? g->p : NAN);
	report_model__str(m, "cause", g->clear ? cause_name(g->cause) : NULL);
	report__because(ds, g, why, sizeof(why));
	report_model__str(m, "because", why[0] ? why : NULL);
	report_model__uint(m, "flame_frames", report__diff_order(g, order, REPORT_MAX_DIFF));
	report_model__end_obj(m);
}

static const struct jsonw_field calls_f[] = {
	JSONW_F(struct diagnosis_calls, calls_slow, "slow_per_run"),
	JSONW_F(struct diagnosis_calls, calls_fast, "fast_per_run"),
	JSONW_F_ROUND(struct diagnosis_calls, per_call_slow, "slow_per_call_ns"),
	JSONW_F_ROUND(struct diagnosis_calls, per_call_fast, "fast_per_call_ns"),
	JSONW_F_ROUND(struct diagnosis_calls, from_calls, "from_calls_ns"),
	JSONW_F_ROUND(struct diagnosis_calls, from_per_call, "from_per_call_ns"),
};

void report_model__calls(struct report_model *m, const struct diagnosis_calls *k)
{
	if (!k->exact) {
		report_model__null(m, "calls");
		return;
	}
	report_model__begin_obj(m, "calls");
	report_model__fields_of(m, k, calls_f);
	report_model__end_obj(m);
}

static const struct jsonw_field disk_cpu_f[] = {
	JSONW_F(struct diagnosis_disk_cpu, holds, "holds"),
	JSONW_F(struct diagnosis_disk_cpu, slow_with, "slow_with_requests"),
	JSONW_F(struct diagnosis_disk_cpu, nslow, "slow"),
	JSONW_F(struct diagnosis_disk_cpu, fast_with, "fast_with_requests"),
	JSONW_F(struct diagnosis_disk_cpu, nfast, "fast"),
	JSONW_F(struct diagnosis_disk_cpu, rq_slow, "slow_requests_per_run"),
	JSONW_F(struct diagnosis_disk_cpu, rq_fast, "fast_requests_per_run"),
	JSONW_F_ROUND(struct diagnosis_disk_cpu, bytes_slow, "slow_bytes_per_run"),
	JSONW_F_ROUND(struct diagnosis_disk_cpu, bytes_fast, "fast_bytes_per_run"),
	JSONW_F(struct diagnosis_disk_cpu, p, "p"),
};

void report_model__disk_on_cpu(struct report_model *m, const struct diagnosis_disk_cpu *d)
{
	if (!d->tested) {
		report_model__null(m, "disk_on_cpu");
		return;
	}
	report_model__begin_obj(m, "disk_on_cpu");
	report_model__fields_of(m, d, disk_cpu_f);
	report_model__end_obj(m);
}

/* who held the runs up: an entry of wait_chains.blockers (index, text, ns added) */

static const struct jsonw_field cpu_work_f[] = {
	JSONW_F(struct diagnosis_cpu_work, dismissed, "dismissed"),
	JSONW_F(struct diagnosis_cpu_work, proxy, "proxy"),
	JSONW_F(struct diagnosis_cpu_work, share, "share_of_added"),
	JSONW_F(struct diagnosis_cpu_work, fast_share, "share_of_fast"),
	JSONW_F(struct diagnosis_cpu_work, excess, "excess"),
	JSONW_F(struct diagnosis_cpu_work, p_mw, "p_mann_whitney"),
	JSONW_F(struct diagnosis_cpu_work, out_of_proportion, "out_of_proportion"),
	JSONW_F_ROUND(struct diagnosis_cpu_work, threshold, "threshold"),
	JSONW_F(struct diagnosis_cpu_work, mode, "mode"),
	JSONW_F_ROUND(struct diagnosis_cpu_work, gap.lo, "gap_lo"),
	JSONW_F_ROUND(struct diagnosis_cpu_work, gap.hi, "gap_hi"),
	JSONW_F(struct diagnosis_cpu_work, gap.ratio, "gap_ratio"),
	JSONW_F(struct diagnosis_cpu_work, gap.p, "gap_p"),
	JSONW_F(struct diagnosis_cpu_work, bursts, "bursts"),
	JSONW_F(struct diagnosis_cpu_work, bursts_expected, "bursts_by_chance"),
	JSONW_F(struct diagnosis_cpu_work, runs_p, "runs_p"),
	JSONW_F(struct diagnosis_cpu_work, bursty, "bursty"),
};

/* an answer that rested on other threads' CPU work, judged (cpu_work.c) */
void report_model__cpu_work(struct report_model *m, const struct diagnosis_cpu_work *c)
{
	if (!c->tested) {
		report_model__null(m, "cpu_work");
		return;
	}
	report_model__begin_obj(m, "cpu_work");
	report_model__fields_of(m, c, cpu_work_f);
	report_model__end_obj(m);
}
