/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * JSON report, schema "xlprobe-report/3" (documented in docs/json.md): the
 * text report's content, plus every tree whole (nodes, feature statistics
 * and pruning decisions). Numbers in ns (or kHz for cpu_freq) are rounded
 * to integers; missing values are null.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "jsonw.h"
#include "report.h"

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

/* Why a feature was left out of a tree, in words. */
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

static void tree_node(struct jsonw *w, const char *key, const struct dtree *t, int i,
		      const char *const *names)
{
	const struct dtree_node *nd = dtree__node(t, (size_t)i);

	jsonw__begin_obj(w, key);
	jsonw__uint(w, "samples", nd->n);
	jsonw__uint(w, "slow", nd->nslow);
	if (nd->feature < 0) {
		jsonw__bool(w, "leaf", true);
	} else {
		jsonw__str(w, "feature", names[nd->feature]);
		jsonw__num(w, "threshold", nd->threshold);
		jsonw__str(w, "slow_op", nd->slow_right ? ">" : "<=");
		jsonw__num(w, "gap", nd->gap);
		tree_node(w, "le", t, nd->left, names);
		tree_node(w, "gt", t, nd->right, names);
	}
	jsonw__end_obj(w);
}

static const struct jsonw_field feat_stats_f[] = {
	JSONW_F(struct dtree_feat_stats, m_slow, "slow_mean"),
	JSONW_F(struct dtree_feat_stats, m_fast, "fast_mean"),
	JSONW_F(struct dtree_feat_stats, p5, "p5"),
	JSONW_F(struct dtree_feat_stats, p95, "p95"),
	JSONW_F(struct dtree_feat_stats, reldiff, "relative_difference"),
};

/* The whole tree: pruning decisions of every feature, then the nodes. */
static void tree(struct jsonw *w, const struct dtree *t, const char *const *names)
{
	if (!t) {
		jsonw__null(w, "tree");
		return;
	}
	jsonw__begin_obj(w, "tree");
	jsonw__begin_arr(w, "features");
	for (size_t f = 0; f < dtree__nfeatures(t); f++) {
		const struct dtree_feat_stats *s = dtree__feat_stats(t, f);

		jsonw__begin_obj(w, NULL);
		jsonw__str(w, "name", names[f]);
		jsonw__str(w, "pruned", s->pruned ? prune_name(s->pruned) : NULL);
		jsonw__fields_of(w, s, feat_stats_f);
		jsonw__end_obj(w);
	}
	jsonw__end_arr(w);
	tree_node(w, "root", t, 0, names);
	jsonw__end_obj(w);
}

static const struct jsonw_field factor_f[] = {
	JSONW_F(struct diagnosis_factor, slow_hits, "slow_hits"),
	JSONW_F(struct diagnosis_factor, fast_hits, "fast_hits"),
	JSONW_F(struct diagnosis_factor, nslow, "slow"),
	JSONW_F(struct diagnosis_factor, nfast, "fast"),
	JSONW_F(struct diagnosis_factor, from_freq_check, "frequency_check"),
	JSONW_F(struct diagnosis_factor, from_beyond, "from_beyond"),
	JSONW_F(struct diagnosis_factor, share, "share"),
};

static void factors(struct jsonw *w, const struct diagnosis_step2 *s)
{
	jsonw__begin_arr(w, "factors");
	for (size_t i = 0; i < s->nfactors; i++) {
		const struct diagnosis_factor *f = &s->factors[i];

		jsonw__begin_obj(w, NULL);
		jsonw__str(w, "factor", diagnosis__feat_name(f->feat));
		jsonw__str(w, "op", f->gt ? ">" : "<=");
		jsonw__round(w, "threshold", f->threshold);
		jsonw__str(w, "unit", f->feat == DIAGNOSIS_CPU_FREQ ? "kHz" : "ns");
		jsonw__round(w, "slow_median", f->slow_median);
		jsonw__round(w, "fast_median", f->fast_median);
		jsonw__uint(w, "separates", f->slow_hits + (f->nfast - f->fast_hits));
		jsonw__fields_of(w, f, factor_f);
		jsonw__end_obj(w);
	}
	jsonw__end_arr(w);
}

static void breakdown(struct jsonw *w, const struct diagnosis_step2 *s, const char *time_key)
{
	jsonw__begin_obj(w, "breakdown");
	jsonw__begin_obj(w, time_key);
	jsonw__round(w, "slow_median", s->time_slow_median);
	jsonw__round(w, "fast_median", s->time_fast_median);
	jsonw__end_obj(w);
	for (int k = 0; k < DIAGNOSIS_NFEAT; k++) {
		if (!s->avail[k]) {
			jsonw__str(w, diagnosis__feat_name(k), "unavailable");
			continue;
		}
		jsonw__begin_obj(w, diagnosis__feat_name(k));
		jsonw__round(w, "slow_median", s->slow_median[k]);
		jsonw__round(w, "fast_median", s->fast_median[k]);
		jsonw__bool(w, "tree_feature", s->used[k]);
		jsonw__end_obj(w);
	}
	jsonw__end_obj(w);
}

static void step2_tree(struct jsonw *w, const struct diagnosis_step2 *s)
{
	const char *names[DIAGNOSIS_NFEAT];

	for (size_t i = 0; i < s->nused; i++)
		names[i] = diagnosis__feat_name(s->featmap[i]);
	tree(w, s->tree, names);
}

static const struct jsonw_field label_f[] = {
	JSONW_F_ROUND(struct labels_summary, threshold_ns, "threshold_ns"),
	JSONW_F_ROUND(struct labels_summary, median_ns, "median_ns"),
	JSONW_F_ROUND(struct labels_summary, p90_ns, "p90_ns"),
	JSONW_F_ROUND(struct labels_summary, max_ns, "max_ns"),
	JSONW_F_ROUND(struct labels_summary, slow_median_ns, "slow_median_ns"),
	JSONW_F_ROUND(struct labels_summary, fast_median_ns, "fast_median_ns"),
};

static void runs(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r)
{
	struct report_queued q;
	char rule[64];

	struct report_summary sum;

	report__summary(ds, &sum);
	jsonw__begin_obj(w, "runs");
	jsonw__uint(w, "count", r->lab.n);
	/* record --lag: counted and timed, not analysed (not in count) */
	jsonw__uint(w, "summarized", sum.runs);
	jsonw__round(w, "summarized_median_ns", sum.median_ns);
	jsonw__uint(w, "lag_ns", sum.lag_ns);
	jsonw__uint(w, "lag_keep", sum.keep);
	jsonw__uint(w, "slow", r->lab.nslow);
	jsonw__uint(w, "fast", r->lab.n - r->lab.nslow);
	jsonw__str(w, "rule", report__rule(r, rule, sizeof(rule)));
	jsonw__fields_of(w, &r->lab, label_f);
	jsonw__bool(w, "significant", !r->insignificant);
	report__queued(ds, r, &q);
	jsonw__uint(w, "queued_runs", q.runs);
	jsonw__round(w, "queued_slow_median_ns", q.slow_median);
	jsonw__round(w, "queued_fast_median_ns", q.fast_median);
	jsonw__num(w, "queued_share", q.runs ? q.share : NAN);
	report__thieves_json(w, "queued_cpu_thieves", &r->queued_thieves);
	jsonw__end_obj(w);
}

static void func_id(struct jsonw *w, const struct dataset *ds, uint32_t f)
{
	jsonw__str(w, "function", dataset__func(ds, f)->name);
	jsonw__str(w, "symbol", dataset__func(ds, f)->symbol);
	jsonw__str(w, "binary", dataset__func(ds, f)->binary);
	jsonw__bool(w, "sampled", dataset__func(ds, f)->sampled);
}

static void preconditions(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r)
{
	jsonw__begin_arr(w, "preconditions");
	for (size_t i = 0; i < r->npre; i++) {
		const struct diagnosis_precond *p = &r->pre[i];

		jsonw__begin_obj(w, NULL);
		jsonw__begin_arr(w, "functions");
		for (size_t k = 0; k < p->ncond; k++) {
			const struct diagnosis_cond *c = &p->conds[k];
			bool both = c->has_lo && c->has_hi;

			jsonw__begin_obj(w, NULL);
			func_id(w, ds, c->func);
			jsonw__str(w, "op", both ? "in" : c->has_lo ? ">" : "<=");
			jsonw__round(w, "threshold_ns",
				     both	 ? NAN
				     : c->has_lo ? c->lo_ns
						 : c->hi_ns);
			jsonw__round(w, "lo_ns", c->has_lo ? c->lo_ns : NAN);
			jsonw__round(w, "hi_ns", c->has_hi ? c->hi_ns : NAN);
			jsonw__bool(w, "critical", c->slow_side);
			jsonw__end_obj(w);
		}
		jsonw__end_arr(w);
		jsonw__uint(w, "slow_runs", p->slow_runs);
		jsonw__uint(w, "runs", p->runs);
		jsonw__end_obj(w);
	}
	jsonw__end_arr(w);
}

/* evidence 1's gap tests: the function's time, then its factor's values */
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
	JSONW_F(struct diagnosis_evidence, slower_cpu, "slower_cpu"),
	JSONW_F(struct diagnosis_evidence, more_work, "more_work"),
	JSONW_F(struct diagnosis_evidence, cpu_dismissed, "dismissed"),
	JSONW_F(struct diagnosis_evidence, work_nslow, "slow_runs"),
	JSONW_F(struct diagnosis_evidence, work_nfast, "fast_runs"),
	JSONW_F(struct diagnosis_evidence, work_slow_share, "slow_share"),
	JSONW_F(struct diagnosis_evidence, work_fast_share, "fast_share"),
	JSONW_F(struct diagnosis_evidence, work_share_p, "p_share"),
	JSONW_F_ROUND(struct diagnosis_evidence, rest_slow_ns, "rest_slow_ns"),
	JSONW_F_ROUND(struct diagnosis_evidence, rest_fast_ns, "rest_fast_ns"),
	JSONW_F(struct diagnosis_evidence, rest_p, "p_rest"),
};

static void evidence(struct jsonw *w, const struct diagnosis_evidence *e)
{
	jsonw__begin_obj(w, "evidence");
	jsonw__bool(w, "significant", e->significant);
	jsonw__bool(w, "small", e->small);
	jsonw__round(w, "latency_gap_ns", e->latency_gap);
	jsonw__num(w, "share", e->share);
	jsonw__begin_obj(w, "mode");
	jsonw__bool(w, "holds", e->mode && !e->cpu_mode);
	jsonw__fields_of(w, e, ev_mode_f);
	jsonw__str(w, "gap_factor",
		   isnan(e->res_gap.lo) ? NULL : diagnosis__feat_name(e->gap_feat));
	jsonw__uint(w, "factor_slow_past", e->gap_slow_hits);
	jsonw__uint(w, "factor_fast_past", e->gap_fast_hits);
	jsonw__num(w, "p_association", isnan(e->res_gap.lo) ? NAN : e->gap_assoc_p);
	jsonw__num(w, "p", e->mode_p);
	jsonw__end_obj(w);
	jsonw__begin_obj(w, "bursts");
	jsonw__bool(w, "holds", e->bursty && !e->cpu_bursts);
	jsonw__fields_of(w, e, ev_bursts_f);
	jsonw__end_obj(w);
	jsonw__begin_obj(w, "resource");
	jsonw__bool(w, "holds", e->resource);
	jsonw__str(w, "factor", isnan(e->res_p) ? NULL : diagnosis__feat_name(e->res_feat));
	jsonw__fields_of(w, e, ev_resource_f);
	jsonw__end_obj(w);
	jsonw__begin_obj(w, "work");
	jsonw__fields_of(w, e, ev_work_f);
	jsonw__end_obj(w);
	jsonw__begin_obj(w, "beyond");
	jsonw__bool(w, "holds", e->beyond);
	jsonw__str(w, "factor", e->beyond_n ? diagnosis__feat_name(e->beyond_feat) : NULL);
	jsonw__fields_of(w, e, ev_beyond_f);
	jsonw__end_obj(w);
	jsonw__end_obj(w);
}

static void context_tree(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r,
			 const struct diagnosis_critical *c)
{
	uint32_t order[64];
	size_t n = report__cct_order(c->cct, r, order, 64);

	jsonw__begin_arr(w, "context_tree");
	for (size_t i = 0; i < n; i++) {
		const struct dataset_cct_node *x = dataset_cct__node(c->cct, order[i]);

		jsonw__begin_obj(w, NULL);
		func_id(w, ds, x->func);
		jsonw__bool(w, "runtime", dataset__func(ds, x->func)->runtime);
		jsonw__uint(w, "depth", x->depth);
		for (int s = 1; s >= 0; s--) {
			jsonw__begin_obj(w, s ? "slow_per_run_ns" : "fast_per_run_ns");
			for (int k = XLP_C_WALL; k <= XLP_C_OTHER; k++)
				if (k != XLP_C_SLEEP_S && k != XLP_C_SLEEP_D)
					jsonw__round(w, xlp_ctr_names[k],
						     report__cct_mean(x, r, s, k));
			jsonw__end_obj(w);
		}
		jsonw__end_obj(w);
	}
	jsonw__end_arr(w);
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

static void diff_frame(struct jsonw *w, const struct dataset *ds, const struct dataset_diff_node *x)
{
	if (x->kernel) {
		jsonw__str(w, "function", dataset__kframe(ds, x->frame));
		jsonw__str(w, "symbol", dataset__kframe(ds, x->frame));
		jsonw__str(w, "binary", "[kernel]");
		jsonw__bool(w, "kernel", true);
	} else if (x->frame == DATASET_NO_FUNC) {
		jsonw__null(w, "function");
		jsonw__null(w, "symbol");
		jsonw__null(w, "binary");
		jsonw__bool(w, "kernel", false);
	} else {
		jsonw__str(w, "function", dataset__func(ds, x->frame)->name);
		jsonw__str(w, "symbol", dataset__func(ds, x->frame)->symbol);
		jsonw__str(w, "binary", dataset__func(ds, x->frame)->binary);
		jsonw__bool(w, "kernel", false);
	}
}

static void growth(struct jsonw *w, const char *key, const struct dataset *ds,
		   const struct diagnosis_why *g)
{
	const struct dataset_diff_node *x0;
	uint32_t order[REPORT_MAX_DIFF];
	char why[600];

	if (!g->diff) {
		jsonw__null(w, key);
		return;
	}
	x0 = dataset_diff__node(g->diff, 0);
	jsonw__begin_obj(w, key);
	jsonw__str(w, "samples_of", g->reason >= 0 ? xlp_ctr_names[g->reason] : "all");
	jsonw__uint(w, "slow_runs", g->nslow_runs);
	jsonw__uint(w, "fast_runs", g->nfast_runs);
	jsonw__begin_arr(w, "path");
	for (size_t i = 0; i < g->npath; i++) {
		const struct dataset_diff_node *x = dataset_diff__node(g->diff, g->path[i]);

		jsonw__begin_obj(w, NULL);
		diff_frame(w, ds, x);
		jsonw__uint(w, "slow_samples", x->nslow);
		jsonw__uint(w, "fast_samples", x->nfast);
		jsonw__round(w, "slow_per_run_ns", g->nslow_runs ? x->wslow / g->nslow_runs : NAN);
		jsonw__round(w, "fast_per_run_ns", g->nfast_runs ? x->wfast / g->nfast_runs : NAN);
		jsonw__round(w, "added_per_run_ns", diagnosis__why_added(g, x));
		jsonw__num(w, "p",
			   i ? stats__fisher(x->nslow, x0->nslow, x->nslow + x->nfast,
					     x0->nslow + x0->nfast)
			     : NAN);
		jsonw__end_obj(w);
	}
	jsonw__end_arr(w);
	if (g->clear)
		jsonw__uint(w, "named", g->named);
	else
		jsonw__null(w, "named");
	jsonw__uint(w, "deepest", g->deepest);
	/* the application's frame and the library's below it (0: none) */
	jsonw__uint(w, "app", g->app);
	jsonw__uint(w, "library", g->lib);
	jsonw__bool(w, "clear", g->clear);
	jsonw__num(w, "p", g->clear ? g->p : NAN);
	jsonw__str(w, "cause", g->clear ? cause_name(g->cause) : NULL);
	report__because(ds, g, why, sizeof(why));
	jsonw__str(w, "because", why[0] ? why : NULL);
	jsonw__uint(w, "flame_frames", report__diff_order(g, order, REPORT_MAX_DIFF));
	jsonw__end_obj(w);
}

static const struct jsonw_field calls_f[] = {
	JSONW_F(struct diagnosis_calls, calls_slow, "slow_per_run"),
	JSONW_F(struct diagnosis_calls, calls_fast, "fast_per_run"),
	JSONW_F_ROUND(struct diagnosis_calls, per_call_slow, "slow_per_call_ns"),
	JSONW_F_ROUND(struct diagnosis_calls, per_call_fast, "fast_per_call_ns"),
	JSONW_F_ROUND(struct diagnosis_calls, from_calls, "from_calls_ns"),
	JSONW_F_ROUND(struct diagnosis_calls, from_per_call, "from_per_call_ns"),
};

static void calls(struct jsonw *w, const struct diagnosis_calls *k)
{
	if (!k->exact) {
		jsonw__null(w, "calls");
		return;
	}
	jsonw__begin_obj(w, "calls");
	jsonw__fields_of(w, k, calls_f);
	jsonw__end_obj(w);
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

static void disk_on_cpu(struct jsonw *w, const struct diagnosis_disk_cpu *d)
{
	if (!d->tested) {
		jsonw__null(w, "disk_on_cpu");
		return;
	}
	jsonw__begin_obj(w, "disk_on_cpu");
	jsonw__fields_of(w, d, disk_cpu_f);
	jsonw__end_obj(w);
}

/* who held the runs up: an entry of wait_chains.blockers (index, text, ns added) */
static void blocked_by(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r,
		       size_t blocker, double added)
{
	char b[256];

	if (blocker >= r->nblockers) {
		jsonw__null(w, "blocked_by");
		return;
	}
	jsonw__begin_obj(w, "blocked_by");
	jsonw__uint(w, "blocker", blocker);
	jsonw__str(w, "text", report__blocker(ds, &r->blockers[blocker], b, sizeof(b)));
	jsonw__round(w, "added_ns_per_slow_run", added);
	jsonw__end_obj(w);
}

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
static void cpu_work(struct jsonw *w, const struct diagnosis_cpu_work *c)
{
	if (!c->tested) {
		jsonw__null(w, "cpu_work");
		return;
	}
	jsonw__begin_obj(w, "cpu_work");
	jsonw__fields_of(w, c, cpu_work_f);
	jsonw__end_obj(w);
}

static const struct jsonw_field wait_answer_f[] = {
	JSONW_F_ROUND(struct diagnosis_wait_answer, slow_ns, "slow_ns_per_run"),
	JSONW_F_ROUND(struct diagnosis_wait_answer, fast_ns, "fast_ns_per_run"),
	JSONW_F(struct diagnosis_wait_answer, share, "share_of_added"),
	JSONW_F(struct diagnosis_wait_answer, top.w, "top_runs"),
	JSONW_F(struct diagnosis_wait_answer, top.hits, "top_slow"),
	JSONW_F(struct diagnosis_wait_answer, top.nslow, "slow_runs"),
	JSONW_F(struct diagnosis_wait_answer, top.n, "runs"),
	JSONW_F(struct diagnosis_wait_answer, tests, "tests"),
	JSONW_F(struct diagnosis_wait_answer, tried, "blockers_tried"),
	JSONW_F(struct diagnosis_wait_answer, p, "p"),
};

/* the waits followed, when nothing else answered (diagnosis.c, wait_answer) */
static void wait_answer(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r)
{
	const struct diagnosis_wait_answer *a = &r->wait_answer;
	char b[256];

	if (!a->tested || a->blocker >= r->nblockers) {
		jsonw__null(w, "wait_answer");
		return;
	}
	jsonw__begin_obj(w, "wait_answer");
	jsonw__bool(w, "holds", a->holds);
	jsonw__uint(w, "blocker", a->blocker);
	jsonw__str(w, "text", report__blocker(ds, &r->blockers[a->blocker], b, sizeof(b)));
	jsonw__fields_of(w, a, wait_answer_f);
	cpu_work(w, &a->cpu_work);
	jsonw__end_obj(w);
}

static const struct jsonw_field fallback_f[] = {
	JSONW_F_ROUND(struct diagnosis_fallback, threshold, "threshold"),
	JSONW_F(struct diagnosis_fallback, slow_hits, "slow_hits"),
	JSONW_F(struct diagnosis_fallback, nslow, "slow"),
	JSONW_F(struct diagnosis_fallback, fast_hits, "fast_hits"),
	JSONW_F(struct diagnosis_fallback, nfast, "fast"),
	JSONW_F(struct diagnosis_fallback, p, "p"),
	JSONW_F(struct diagnosis_fallback, share, "share_of_added"),
	JSONW_F(struct diagnosis_fallback, fast_share, "share_of_fast"),
	JSONW_F(struct diagnosis_fallback, excess, "excess"),
	JSONW_F(struct diagnosis_fallback, p_mw, "p_mann_whitney"),
	JSONW_F(struct diagnosis_fallback, out_of_proportion, "out_of_proportion"),
};

static const struct jsonw_field fallback_gap_f[] = {
	JSONW_F_ROUND(struct diagnosis_fallback, gap.lo, "gap_lo"),
	JSONW_F_ROUND(struct diagnosis_fallback, gap.hi, "gap_hi"),
	JSONW_F(struct diagnosis_fallback, gap.ratio, "gap_ratio"),
	JSONW_F(struct diagnosis_fallback, gap.p, "p"),
};

static const struct jsonw_field fallback_bursts_f[] = {
	JSONW_F(struct diagnosis_fallback, bursts, "bursts"),
	JSONW_F(struct diagnosis_fallback, bursts_expected, "bursts_by_chance"),
	JSONW_F(struct diagnosis_fallback, runs_p, "p"),
};

static void whole_run(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r)
{
	const struct diagnosis_fallback *fb = &r->fallback;
	const struct diagnosis_why *g = &fb->why;

	if (!fb->tested) {
		jsonw__null(w, "whole_run");
		return;
	}
	jsonw__begin_obj(w, "whole_run");
	jsonw__bool(w, "holds", fb->holds);
	jsonw__bool(w, "run_thread", fb->own);
	jsonw__str(w, "factor", diagnosis__feat_name(fb->feat));
	jsonw__fields_of(w, fb, fallback_f);
	cpu_work(w, &fb->cpu_work);
	jsonw__begin_obj(w, "mode");
	jsonw__bool(w, "holds", fb->mode);
	jsonw__bool(w, "cpu_slower", fb->cpu_bursts && fb->gap.p <= r->alpha_evidence);
	jsonw__fields_of(w, fb, fallback_gap_f);
	jsonw__end_obj(w);
	jsonw__begin_obj(w, "bursts");
	jsonw__fields_of(w, fb, fallback_bursts_f);
	jsonw__end_obj(w);
	if (g->diff && g->deepest) {
		jsonw__begin_obj(w, "deepest_frame");
		diff_frame(w, ds, dataset_diff__node(g->diff, g->path[g->deepest]));
		jsonw__end_obj(w);
	} else {
		jsonw__null(w, "deepest_frame");
	}
	/* the application's frame on that path, and the library's below it */
	if (g->diff && g->app) {
		jsonw__begin_obj(w, "app_frame");
		diff_frame(w, ds, dataset_diff__node(g->diff, g->path[g->app]));
		jsonw__end_obj(w);
	} else {
		jsonw__null(w, "app_frame");
	}
	if (g->diff && g->lib) {
		jsonw__begin_obj(w, "library_frame");
		diff_frame(w, ds, dataset_diff__node(g->diff, g->path[g->lib]));
		jsonw__end_obj(w);
	} else {
		jsonw__null(w, "library_frame");
	}
	disk_on_cpu(w, &fb->disk_cpu);
	growth(w, "growth", ds, g);
	blocked_by(w, ds, r, fb->blocker, fb->blocker_added);
	report__thieves_json(w, "cpu_thieves", &fb->thieves);
	jsonw__end_obj(w);
}

static const struct jsonw_field critical_f[] = {
	JSONW_F_ROUND(struct diagnosis_critical, threshold_ns, "threshold_ns"),
	JSONW_F_ROUND(struct diagnosis_critical, ev.added, "added_ns"),
	JSONW_F(struct diagnosis_critical, ev.share, "share"),
	JSONW_F(struct diagnosis_critical, surrogate, "surrogate"),
	JSONW_F_ROUND(struct diagnosis_critical, res_ns, "resolution_ns"),
};

static void critical(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r,
		     const struct diagnosis_critical *c, size_t rank)
{
	jsonw__begin_obj(w, NULL);
	func_id(w, ds, c->func);
	if (rank)
		jsonw__uint(w, "rank", rank);
	jsonw__str(w, "op", c->gt ? ">" : "<=");
	jsonw__fields_of(w, c, critical_f);
	jsonw__begin_arr(w, "chain");
	for (size_t k = 0; k < c->nchain; k++) {
		jsonw__begin_obj(w, NULL);
		func_id(w, ds, c->chain[k]);
		jsonw__round(w, "added_ns", c->chain_added[k]);
		jsonw__end_obj(w);
	}
	jsonw__end_arr(w);
	evidence(w, &c->ev);
	jsonw__uint(w, "samples", c->ran);
	jsonw__uint(w, "slow_samples", c->s2.nslow);
	factors(w, &c->s2);
	if (c->peer.found) {
		jsonw__begin_obj(w, "peer");
		jsonw__uint(w, "pid", c->peer.pid);
		jsonw__str(w, "comm", c->peer.comm);
		jsonw__end_obj(w);
	} else {
		jsonw__null(w, "peer");
	}
	blocked_by(w, ds, r, c->blocker, c->blocker_added);
	report__thieves_json(w, "cpu_thieves", &c->thieves);
	calls(w, &c->calls);
	disk_on_cpu(w, &c->disk_cpu);
	growth(w, "growth", ds, &c->why);
	breakdown(w, &c->s2, "time");
	step2_tree(w, &c->s2);
	context_tree(w, ds, r, c);
	jsonw__end_obj(w);
}

static void criticals(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r)
{
	jsonw__begin_arr(w, "critical_functions");
	for (size_t i = 0; i < r->ncrit; i++)
		critical(w, ds, r, &r->crit[i], i + 1);
	jsonw__end_arr(w);
	jsonw__begin_arr(w, "rejected_functions");
	for (size_t i = 0; i < r->nrejected; i++)
		critical(w, ds, r, &r->crit[r->ncrit + i], 0);
	jsonw__end_arr(w);
	jsonw__num(w, "evidence_alpha", r->alpha_evidence);
}

static void baseline(struct jsonw *w, const struct diagnosis *r)
{
	if (!r->has_base) {
		jsonw__null(w, "baseline");
		return;
	}
	jsonw__begin_obj(w, "baseline");
	jsonw__uint(w, "samples", r->base.samples);
	factors(w, &r->base);
	breakdown(w, &r->base, "latency");
	step2_tree(w, &r->base);
	jsonw__bool(w, "agrees", r->agrees);
	jsonw__end_obj(w);
}

static void step1_tree(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r)
{
	const char **names = calloc(r->ncand + 1, sizeof(*names));

	if (!names || !r->tree) {
		jsonw__null(w, "tree");
		free(names);
		return;
	}
	for (size_t i = 0; i < r->ncand; i++)
		names[i] = dataset__func(ds, r->cand[i])->name;
	tree(w, r->tree, names);
	free(names);
}

static const struct jsonw_field func_row_f[] = {
	JSONW_F(struct diagnosis_func_row, runs, "runs"),
	JSONW_F_ROUND(struct diagnosis_func_row, time_median, "time_median_ns"),
	JSONW_F_ROUND(struct diagnosis_func_row, time_slow_median, "time_slow_median_ns"),
	JSONW_F_ROUND(struct diagnosis_func_row, time_fast_median, "time_fast_median_ns"),
};

static void functions(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r)
{
	jsonw__begin_arr(w, "functions");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct diagnosis_func_row *row = &r->rows[i];

		jsonw__begin_obj(w, NULL);
		func_id(w, ds, row->func);
		jsonw__fields_of(w, row, func_row_f);
		jsonw__begin_obj(w, "median");
		for (int k = 0; k < DIAGNOSIS_NFEAT; k++) {
			if (k == DIAGNOSIS_CPU_FREQ && !(r->features & XLP_FEAT_CPUFREQ))
				jsonw__str(w, diagnosis__feat_name(k), "unavailable");
			else
				jsonw__round(w, diagnosis__feat_name(k), row->median[k]);
		}
		jsonw__end_obj(w);
		jsonw__end_obj(w);
	}
	jsonw__end_arr(w);
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

static void traces(struct jsonw *w, const struct dataset *ds)
{
	jsonw__begin_arr(w, "traces");
	for (size_t i = 0; i < dataset__nfiles(ds); i++) {
		const struct dataset_file_info *fi = dataset__file(ds, i);

		jsonw__begin_obj(w, NULL);
		jsonw__fields_of(w, fi, file_head_f);
		jsonw__begin_arr(w, "landmarks");
		for (size_t k = 0; k < fi->nlandmarks; k++)
			jsonw__str(w, NULL, fi->landmark_names[k]);
		jsonw__end_arr(w);
		jsonw__begin_arr(w, "landmark_symbols");
		for (size_t k = 0; k < fi->nlandmarks; k++)
			jsonw__str(w, NULL, fi->landmarks[k]);
		jsonw__end_arr(w);
		jsonw__fields_of(w, fi, file_tail_f);
		jsonw__end_obj(w);
	}
	jsonw__end_arr(w);
}

static void limits(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r)
{
	bool damaged = false;
	const char *un[8];
	struct report_drop d[REPORT_MAX_DROPS];
	size_t nu = report__unavailable(r->features, un, 8),
	       nd = report__drops(ds, d, REPORT_MAX_DROPS);

	jsonw__begin_arr(w, "unavailable");
	for (size_t i = 0; i < nu; i++)
		jsonw__str(w, NULL, un[i]);
	jsonw__end_arr(w);
	jsonw__begin_obj(w, "drops");
	for (size_t i = 0; i < nd; i++)
		jsonw__uint(w, d[i].name, d[i].count);
	jsonw__end_obj(w);
	jsonw__bool(w, "truncated", dataset__drops(ds)->ntruncated > 0);
	for (size_t i = 0; i < dataset__nfiles(ds); i++)
		damaged = damaged || dataset__file(ds, i)->damage;
	jsonw__bool(w, "damaged", damaged);
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

static void sampling(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r)
{
	const struct dataset_sample_info *s = dataset__samples(ds);
	char args[4096];

	jsonw__begin_obj(w, "sampling");
	jsonw__fields_of(w, s, sample_info_f);
	report__func_args(ds, r, args, sizeof(args));
	jsonw__str(w, "func_args", args[0] ? args : NULL);
	jsonw__end_obj(w);
}

int report__json(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	struct report_verdict v;
	uint64_t lost, sent;
	char cav[256];
	struct jsonw w;

	jsonw__init(&w, f);
	jsonw__begin_obj(&w, NULL);
	jsonw__str(&w, "schema", "xlprobe-report/3");
	traces(&w, ds);
	runs(&w, ds, r);
	jsonw__str(&w, "status", status_name(r->status));
	preconditions(&w, ds, r);
	jsonw__uint(&w, "preconditions_ignored", r->npre_dropped);
	criticals(&w, ds, r);
	baseline(&w, r);
	whole_run(&w, ds, r);
	wait_answer(&w, ds, r);
	step1_tree(&w, ds, r);
	functions(&w, ds, r);
	limits(&w, ds, r);
	sampling(&w, ds, r);
	report__waits_json(&w, ds, r);
	report__tasks_json(&w, ds, r);
	report__verdict(ds, r, &v);
	report__caveat(ds, &lost, &sent, cav, sizeof(cav));
	jsonw__begin_obj(&w, "loss");
	jsonw__uint(&w, "records_sent", sent);
	jsonw__uint(&w, "records_lost", lost);
	jsonw__num(&w, "share", sent ? (double)lost / (double)sent : 0.0);
	jsonw__num(&w, "caveat_above", XLP_LOSS_CAVEAT);
	jsonw__end_obj(&w);
	jsonw__str(&w, "caveat", cav[0] ? cav : NULL);
	jsonw__str(&w, "verdict", v.text);
	jsonw__str(&w, "note", v.note[0] ? v.note : NULL);
	jsonw__end_obj(&w);
	return ferror(f) ? -EIO : 0;
}
