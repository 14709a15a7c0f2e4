/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The report model's functions: each critical function (factors,
 * breakdown, chain, calling context), the rejected ones, the baseline,
 * the whole run's answer and the wait answer.
 */
#include <math.h>
#include "report.h"
#include "report_model.h"

static const struct jsonw_field factor_f[] = {
	JSONW_F(struct diagnosis_factor, slow_hits, "slow_hits"),
	JSONW_F(struct diagnosis_factor, fast_hits, "fast_hits"),
	JSONW_F(struct diagnosis_factor, nslow, "slow"),
	JSONW_F(struct diagnosis_factor, nfast, "fast"),
	JSONW_F(struct diagnosis_factor, from_freq_check, "frequency_check"),
	JSONW_F(struct diagnosis_factor, from_beyond, "from_beyond"),
	JSONW_F(struct diagnosis_factor, share, "share"),
};

static void factors(struct report_model *m, const struct diagnosis_step2 *s)
{
	report_model__begin_arr(m, "factors");
	for (size_t i = 0; i < s->nfactors; i++) {
		const struct diagnosis_factor *f = &s->factors[i];

		report_model__begin_obj(m, NULL);
		report_model__str(m, "factor", diagnosis__feat_name(f->feat));
		report_model__str(m, "op", f->gt ? ">" : "<=");
		report_model__feat_value(m, "threshold", f->feat, f->threshold);
		report_model__str(m, "unit", f->feat == DIAGNOSIS_CPU_FREQ ? "kHz" : "ns");
		report_model__feat_value(m, "slow_median", f->feat, f->slow_median);
		report_model__feat_value(m, "fast_median", f->feat, f->fast_median);
		report_model__uint(m, "separates", f->slow_hits + (f->nfast - f->fast_hits));
		report_model__fields_of(m, f, factor_f);
		report_model__end_obj(m);
	}
	report_model__end_arr(m);
}

static void breakdown(struct report_model *m, const struct diagnosis_step2 *s, const char *time_key)
{
	report_model__begin_obj(m, "breakdown");
	report_model__begin_obj(m, time_key);
	report_model__measure(m, "slow_median", s->time_slow_median, REPORT_UNIT_NS);
	report_model__measure(m, "fast_median", s->time_fast_median, REPORT_UNIT_NS);
	report_model__end_obj(m);
	for (int k = 0; k < DIAGNOSIS_NFEAT; k++) {
		if (!s->avail[k]) {
			report_model__str(m, diagnosis__feat_name(k), "unavailable");
			continue;
		}
		report_model__begin_obj(m, diagnosis__feat_name(k));
		report_model__feat_value(m, "slow_median", k, s->slow_median[k]);
		report_model__feat_value(m, "fast_median", k, s->fast_median[k]);
		report_model__bool(m, "tree_feature", s->used[k]);
		report_model__end_obj(m);
	}
	report_model__end_obj(m);
}

/* The largest counter of a node in slow runs (time on a CPU or a wait). */
static int cct_top(const struct dataset_cct_node *x)
{
	int best = XLP_C_CPU_RUN;

	for (int c = XLP_C_CPU_RUN; c <= XLP_C_OTHER; c++)
		if (c != XLP_C_SLEEP_S && c != XLP_C_SLEEP_D && x->slow[c] > x->slow[best])
			best = c;
	return best;
}

static void context_tree(struct report_model *m, const struct dataset *ds,
			 const struct diagnosis *r, const struct diagnosis_critical *c)
{
	uint32_t order[64];
	size_t n = report__cct_order(c->cct, r, order, 64);

	report_model__begin_arr(m, "context_tree");
	for (size_t i = 0; i < n; i++) {
		const struct dataset_cct_node *x = dataset_cct__node(c->cct, order[i]);

		report_model__begin_obj(m, NULL);
		report_model__func_id(m, ds, x->func);
		report_model__bool(m, "runtime", dataset__func(ds, x->func)->runtime);
		report_model__uint(m, "depth", x->depth);
		for (int s = 1; s >= 0; s--) {
			report_model__begin_obj(m, s ? "slow_per_run_ns" : "fast_per_run_ns");
			for (int k = XLP_C_WALL; k <= XLP_C_OTHER; k++)
				if (k != XLP_C_SLEEP_S && k != XLP_C_SLEEP_D)
					report_model__measure(m, xlp_ctr_names[k],
							      report__cct_mean(x, r, s, k),
							      REPORT_UNIT_NS);
			report_model__end_obj(m);
		}
		/* the counter the text report shows beside the wall time */
		report_model__shown_only(m, true);
		report_model__str(m, "largest", xlp_ctr_names[cct_top(x)]);
		report_model__shown_only(m, false);
		report_model__end_obj(m);
	}
	report_model__end_arr(m);
}

static void blocked_by(struct report_model *m, const struct dataset *ds, const struct diagnosis *r,
		       size_t blocker, double added)
{
	char b[512];

	if (blocker >= r->nblockers) {
		report_model__null(m, "blocked_by");
		return;
	}
	report_model__begin_obj(m, "blocked_by");
	report_model__uint(m, "blocker", blocker);
	report_model__str(m, "text", report__blocker(ds, &r->blockers[blocker], b, sizeof(b)));
	report_model__round(m, "added_ns_per_slow_run", added);
	report_model__end_obj(m);
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
void report_model__wait_answer(struct report_model *m, const struct dataset *ds,
			       const struct diagnosis *r)
{
	const struct diagnosis_wait_answer *a = &r->wait_answer;
	char b[512];

	if (!a->tested || a->blocker >= r->nblockers) {
		report_model__null(m, "wait_answer");
		return;
	}
	report_model__begin_obj(m, "wait_answer");
	report_model__bool(m, "holds", a->holds);
	report_model__uint(m, "blocker", a->blocker);
	report_model__str(m, "text", report__blocker(ds, &r->blockers[a->blocker], b, sizeof(b)));
	report_model__fields_of(m, a, wait_answer_f);
	report_model__cpu_work(m, &a->cpu_work);
	report_model__end_obj(m);
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

void report_model__whole_run(struct report_model *m, const struct dataset *ds,
			     const struct diagnosis *r)
{
	const struct diagnosis_fallback *fb = &r->fallback;
	const struct diagnosis_why *g = &fb->why;
	char text[8192];

	if (!fb->tested) {
		report_model__null(m, "whole_run");
		return;
	}
	report_model__begin_obj(m, "whole_run");
	report_model__bool(m, "holds", fb->holds);
	report_model__bool(m, "run_thread", fb->own);
	report_model__str(m, "factor", diagnosis__feat_name(fb->feat));
	report_model__fields_of(m, fb, fallback_f);
	report_model__cpu_work(m, &fb->cpu_work);
	report_model__begin_obj(m, "mode");
	report_model__bool(m, "holds", fb->mode);
	report_model__bool(m, "cpu_slower", fb->cpu_bursts && fb->gap.p <= r->alpha_evidence);
	report_model__fields_of(m, fb, fallback_gap_f);
	report_model__end_obj(m);
	report_model__begin_obj(m, "bursts");
	report_model__fields_of(m, fb, fallback_bursts_f);
	report_model__end_obj(m);
	if (g->diff && g->deepest) {
		report_model__begin_obj(m, "deepest_frame");
		report_model__diff_frame(m, ds, dataset_diff__node(g->diff, g->path[g->deepest]));
		report_model__end_obj(m);
	} else {
		report_model__null(m, "deepest_frame");
	}
	/* the application's frame on that path, and the library's below it */
	if (g->diff && g->app) {
		report_model__begin_obj(m, "app_frame");
		report_model__diff_frame(m, ds, dataset_diff__node(g->diff, g->path[g->app]));
		report_model__end_obj(m);
	} else {
		report_model__null(m, "app_frame");
	}
	if (g->diff && g->lib) {
		report_model__begin_obj(m, "library_frame");
		report_model__diff_frame(m, ds, dataset_diff__node(g->diff, g->path[g->lib]));
		report_model__end_obj(m);
	} else {
		report_model__null(m, "library_frame");
	}
	report_model__disk_on_cpu(m, &fb->disk_cpu);
	report_model__growth(m, "growth", ds, g);
	blocked_by(m, ds, r, fb->blocker, fb->blocker_added);
	report_model__thieves(m, "cpu_thieves", &fb->thieves);
	/* the test in words, and where the samples of its resource went */
	report_model__shown_only(m, true);
	report_model__str(m, "text", report__fallback(r, text, sizeof(text)));
	report_model__num(m, "excess_above", r->excess_share);
	if (fb->holds)
		report_model__str(m, "where_text",
				  report__why_path(ds, r, g, false, text, sizeof(text)));
	report_model__shown_only(m, false);
	report_model__end_obj(m);
}

static const struct jsonw_field critical_f[] = {
	JSONW_F_ROUND(struct diagnosis_critical, threshold_ns, "threshold_ns"),
	JSONW_F_ROUND(struct diagnosis_critical, ev.added, "added_ns"),
	JSONW_F(struct diagnosis_critical, ev.share, "share"),
	JSONW_F(struct diagnosis_critical, surrogate, "surrogate"),
	JSONW_F_ROUND(struct diagnosis_critical, res_ns, "resolution_ns"),
};

/* What the text and HTML reports say of a function in sentences. */
static void critical_text(struct report_model *m, const struct dataset *ds,
			  const struct diagnosis *r, const struct diagnosis_critical *c,
			  size_t rank)
{
	char buf[8192];

	report_model__shown_only(m, true);
	report_model__str(m, "chain_text", report__chain(ds, c, buf, sizeof(buf)));
	report_model__str(m, "evidence_text", report__evidence(r, c, buf, 4096));
	if (rank)
		report_model__str(m, "growth_text", report__why(ds, r, c, buf, sizeof(buf)));
	report_model__shown_only(m, false);
}

static void critical(struct report_model *m, const struct dataset *ds, const struct diagnosis *r,
		     const struct diagnosis_critical *c, size_t rank)
{
	report_model__begin_obj(m, NULL);
	report_model__func_id(m, ds, c->func);
	if (rank)
		report_model__uint(m, "rank", rank);
	report_model__str(m, "op", c->gt ? ">" : "<=");
	report_model__fields_of(m, c, critical_f);
	report_model__begin_arr(m, "chain");
	for (size_t k = 0; k < c->nchain; k++) {
		report_model__begin_obj(m, NULL);
		report_model__func_id(m, ds, c->chain[k]);
		report_model__round(m, "added_ns", c->chain_added[k]);
		report_model__end_obj(m);
	}
	report_model__end_arr(m);
	/* judged at a marked caller: its sampled callee's evidence was too coarse */
	if (c->sampled_end != DATASET_NO_FUNC) {
		report_model__begin_obj(m, "sampled_end");
		report_model__func_id(m, ds, c->sampled_end);
		report_model__end_obj(m);
	} else {
		report_model__null(m, "sampled_end");
	}
	report_model__evidence(m, &c->ev);
	report_model__uint(m, "samples", c->ran);
	report_model__uint(m, "slow_samples", c->s2.nslow);
	factors(m, &c->s2);
	if (c->peer.found) {
		report_model__begin_obj(m, "peer");
		report_model__uint(m, "pid", c->peer.pid);
		report_model__str(m, "comm", c->peer.comm);
		report_model__end_obj(m);
	} else {
		report_model__null(m, "peer");
	}
	blocked_by(m, ds, r, c->blocker, c->blocker_added);
	report_model__thieves(m, "cpu_thieves", &c->thieves);
	report_model__calls(m, &c->calls);
	report_model__disk_on_cpu(m, &c->disk_cpu);
	report_model__growth(m, "growth", ds, &c->why);
	breakdown(m, &c->s2, "time");
	report_model__step2_tree(m, &c->s2);
	context_tree(m, ds, r, c);
	critical_text(m, ds, r, c, rank);
	report_model__end_obj(m);
}

void report_model__criticals(struct report_model *m, const struct dataset *ds,
			     const struct diagnosis *r)
{
	report_model__begin_arr(m, "critical_functions");
	for (size_t i = 0; i < r->ncrit; i++)
		critical(m, ds, r, &r->crit[i], i + 1);
	report_model__end_arr(m);
	report_model__begin_arr(m, "rejected_functions");
	for (size_t i = 0; i < r->nrejected; i++)
		critical(m, ds, r, &r->crit[r->ncrit + i], 0);
	report_model__end_arr(m);
	report_model__num(m, "evidence_alpha", r->alpha_evidence);
}

void report_model__baseline(struct report_model *m, const struct dataset *ds,
			    const struct diagnosis *r)
{
	if (!r->has_base) {
		report_model__null(m, "baseline");
		return;
	}
	report_model__begin_obj(m, "baseline");
	report_model__uint(m, "samples", r->base.samples);
	factors(m, &r->base);
	breakdown(m, &r->base, "latency");
	report_model__step2_tree(m, &r->base);
	report_model__bool(m, "agrees", r->agrees);
	report_model__end_obj(m);
}
