/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Is a critical function's slowdown a slowdown with a cause, or the
 * ordinary spread of the workload? Median + 1 sigma marks ~16 % of any
 * sample slow, and in a CPU-bound function the longest runs are those that
 * ran longest: the tree always finds something. A latency ratio cannot
 * tell the two apart (an unperturbed PostgreSQL backend has a +60 % tail;
 * a disk stall may add 30 %). What can be shown instead, each with a
 * p-value under a stated null hypothesis (stats_tests.h):
 *   1. a distinct mode: the runs past the function's threshold are
 *      separated from the rest by a gap no smooth density would leave, in
 *      its resource factor's values (or its time when it has no factor);
 *   2. bursts: those runs cluster in time, as external interference does
 *      (a random tail is spread over the recording);
 *   3. a resource that grew beyond proportion: most of the added time is
 *      in a resource that held a small part of the fast runs' time
 *      (computed with the step-2 samples, step2_input.c);
 *   4. a resource beyond the bulk: ranked by a resource's share of the
 *      function's time, the top runs are the slow ones, beyond what a mix
 *      of resources independent of the label gives (step2_input.c).
 * Any one of them at p <= alpha_evidence accuses; none, and the report
 * says that the slow runs look like the workload's natural tail.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "diagnosis_impl.h"
#include "util.h"
#include "stats.h"

int diagnosis__order_cmp(const void *a, const void *b)
{
	const struct diagnosis_order *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/*
 * The runs not past the threshold (seq 0), in time order: their streaks
 * above their median against what a random order gives (the runs test's
 * expectation); NAN with fewer than 4 of them.
 */
static double bulk_streak_ratio(const double *t, const struct diagnosis_order *ord,
				const uint8_t *seq, size_t n)
{
	double *v = malloc(n * sizeof(*v) + 1), med, expected, ratio = NAN;
	uint8_t *above = malloc(n + 1);
	size_t m = 0;
	uint32_t streaks;

	if (!v || !above)
		goto cleanup;
	for (size_t i = 0; i < n; i++)
		if (!seq[i])
			v[m++] = t[ord[i].i];
	if (m < 4)
		goto cleanup;
	med = stats__median(v, m);
	m = 0;
	for (size_t i = 0; i < n; i++)
		if (!seq[i])
			above[m++] = t[ord[i].i] > med;
	stats__runs_test(above, m, &streaks, &expected);
	if (expected > 0)
		ratio = streaks / expected;
cleanup:
	free(v);
	free(above);
	return ratio;
}

/*
 * Evidence 2 over any per-run values t: the runs past the threshold, in
 * time order (ord sorted by diagnosis__order_cmp), clustered in streaks.
 */
int diagnosis_bursts(const double *t, const struct diagnosis_order *ord, size_t n, double threshold,
		     bool gt, const struct diagnosis_opts *o, struct diagnosis_bursts *b)
{
	uint8_t *seq = calloc(n + 1, 1);

	if (!seq)
		return -ENOMEM;
	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < n; i++) {
		double v = t[ord[i].i];

		seq[i] = gt ? v > threshold : v <= threshold;
		b->nslow_side += seq[i];
	}
	b->runs_p = stats__runs_test(seq, n, &b->bursts, &b->bursts_expected);
	/*
	 * Significance alone is not a burst: over hundreds of runs the test
	 * sees the mild autocorrelation of a VM whose speed drifts (an idle
	 * PostgreSQL backend: 86 slow runs in 51 streaks where chance gives 78).
	 * Interference that comes and goes leaves streaks twice as long at least.
	 */
	/*
	 * Nor are the slow stretches of a workload that drifts as a whole (an
	 * AR(1) speed: tests/lib/sigsim.c's natural shapes accused 3 % of the
	 * time at 40 runs): its other runs come in streaks too. The streaks of
	 * those runs above their own median, against chance, measure the
	 * drift (1: none); interference that comes and goes must leave the
	 * slow runs twice as clustered as that.
	 */
	b->bulk_streaks = bulk_streak_ratio(t, ord, seq, n);
	/*
	 * And the runs test itself is taken under that drift: a two-state
	 * chain whose persistence is the other runs' (lag-1 correlation of
	 * "above their median" = 1 - their streak ratio, for a chain at
	 * q = 1/2). A Gaussian drift's slow runs are less persistent than its
	 * median's (AR(1) 0.5: 0.19 at median + 1 sigma against 0.33), so the
	 * null errs on the side of a drift: at 40 runs, 34 other runs measure
	 * it loosely, and the plain test with the half-streaks rule alone
	 * accused an AR(1) 0.5 drift in 1.2 % of the trials.
	 */
	b->persistence = !isnan(b->bulk_streaks) && b->bulk_streaks < 1 ? 1 - b->bulk_streaks : 0;
	if (b->persistence > 0) {
		uint32_t r;

		b->runs_p = fmax(b->runs_p, stats__runs_test_markov(seq, n, b->persistence, &r));
	}
	b->bursty = b->runs_p <= o->alpha_evidence &&
		    b->bursts <= b->bursts_expected * fmin(1, b->bulk_streaks) / 2;
	free(seq);
	return 0;
}

/*
 * A mode of the function's own time speaks for the slow runs only when
 * they are the ones in it, as a factor's mode must (above): a machine that
 * ran at two speeds in two stretches of the recording splits a CPU-bound
 * function's time into two modes of about half the runs each, and the few
 * slow runs fall in the upper one by chance (e2e "none", 2026-11-28:
 * compute_checksum's CPU time 10.2-10.9 ms in 20 runs, 11.7-12.4 ms in
 * the other 20, a gap 63x the spacing around it, p = 9e-07, accused with
 * no factor; 3 of its 3 slow runs past the gap, Fisher p = 0.12). Fisher's
 * exact test of the slow runs among those past the gap;
 * 1 when there is no gap.
 */
static void time_association(const double *t, const uint8_t *slow, size_t n,
			     struct diagnosis_evidence *e)
{
	/* the gap's ends went through log and exp: cut at its middle */
	double cut = (e->gap.lo + e->gap.hi) / 2;
	uint32_t hits = 0, past = 0, nslow = 0;

	e->time_slow_hits = e->time_fast_hits = e->time_nslow = e->time_nfast = 0;
	e->time_assoc_p = 1;
	if (isnan(cut))
		return;
	for (size_t i = 0; i < n; i++) {
		bool in = t[i] > cut;

		nslow += slow[i] != 0;
		past += in;
		hits += in && slow[i];
	}
	e->time_slow_hits = hits;
	e->time_fast_hits = past - hits;
	e->time_nslow = nslow;
	e->time_nfast = (uint32_t)n - nslow;
	e->time_assoc_p = stats__fisher(hits, nslow, past, (uint32_t)n);
}

int diagnosis_evidence(const struct dataset *ds, const struct diagnosis_opts *o,
		       struct diagnosis *r, struct diagnosis_critical *c)
{
	size_t n = dataset__nruns(ds);
	double *t = malloc(n * sizeof(*t) + 1);
	double *lat = malloc(n * sizeof(*lat) + 1);
	struct diagnosis_order *ord = malloc(n * sizeof(*ord) + 1);
	struct diagnosis_evidence *e = &c->ev;
	struct diagnosis_bursts b;
	int err = -ENOMEM;

	if (!t || !lat || !ord)
		goto cleanup;
	for (size_t i = 0; i < n; i++) {
		const struct dataset_run *run = dataset__run(ds, i);

		t[i] = (double)dataset__time(ds, i, c->func);
		lat[i] = run->latency_ns;
		ord[i] =
			(struct diagnosis_order){.file = run->file, .start = run->start_ns, .i = i};
	}
	e->latency_gap = diagnosis__added(lat, r->slow, n);
	e->added = diagnosis__added(t, r->slow, n);
	e->share = e->latency_gap > 0 ? e->added / e->latency_gap : NAN;
	/*
	 * 1. distinct mode, over every run: a function that runs only in the
	 * slow runs (a lock wait's ProcSleep) has its fast mode at zero
	 */
	err = stats__gap_test(t, n, c->threshold_ns, c->res_ns, &e->gap);
	if (err)
		goto cleanup;
	/*
	 * One variable, chosen before looking: the factor's values when step 2
	 * found a time factor (runqueue noise blurs the time, not the factor),
	 * else the function's time. A factor's mode speaks for the function
	 * only when its slow samples are the ones in it: a few preemptions by
	 * another task are a mode of cpu_wait on any busy machine, and fall
	 * now and then in the slowest scans of a CPU-bound function (one CI
	 * run: 2 of 3 slow samples and 1 of 45 fast, Fisher p = 0.008). Both
	 * must hold, so the larger p of the two is the test's (an
	 * intersection-union test).
	 */
	time_association(t, r->slow, n, e);
	e->mode_p = !isnan(e->res_gap.lo) ? fmax(e->res_gap.p, e->gap_assoc_p)
		    : c->gt		  ? fmax(e->gap.p, e->time_assoc_p)
					  : 1;
	e->mode = e->mode_p <= o->alpha_evidence;
	/* 2. bursts, over every run in time order */
	xlp_sort(ord, n, sizeof(*ord), diagnosis__order_cmp);
	err = diagnosis_bursts(t, ord, n, c->threshold_ns, c->gt, o, &b);
	if (err)
		goto cleanup;
	e->nslow_side = b.nslow_side;
	e->runs_p = b.runs_p;
	e->bursts = b.bursts;
	e->bursts_expected = b.bursts_expected;
	e->bulk_streaks = b.bulk_streaks;
	e->persistence = b.persistence;
	e->bursty = b.bursty;
	/*
	 * 3. was filled in by step 2. Bursts in which only CPU time grew, in
	 * proportion, say the CPU itself ran slower at times (a busy host, a
	 * lower clock: not measurable without cpufreq or a PMU), not that the
	 * function did something else: an idle PostgreSQL backend's sort took
	 * 35 % more CPU time in 23 bursts on this VM.
	 */
	e->cpu_bursts = e->bursty && !e->resource && !e->beyond && !isnan(e->res_p) &&
			e->res_feat == DIAGNOSIS_CPU_RUN;
	/*
	 * Unless the rest of the run says otherwise (evidence 3b): bursts in
	 * which the function's share of its run's CPU time grew while the
	 * rest of the run's computation did not are more work in the
	 * function (a feature switched on for a while, a batch of heavy
	 * requests), which a slower CPU cannot do: it stretches the whole
	 * run alike. On a Node.js server whose handler ran a costly
	 * JavaScript function only in one window, those bursts were
	 * dismissed as "the CPU ran slower".
	 */
	if (e->more_work)
		e->cpu_bursts = false;
	/*
	 * A distinct mode of such runs is those same bursts: the CPU ran
	 * slower for a while, and the runs of that while form the mode (an
	 * unperturbed PostgreSQL backend in CI: 191 of 820 runs past a gap of
	 * 0.1 ms in its sort's CPU time, p = 5e-05, in 35 bursts where chance
	 * gives 147, only cpu_run grown, in proportion). A mode of runs spread
	 * over the recording (a code path taken now and then) still accuses.
	 */
	e->cpu_mode = e->mode && e->cpu_bursts;
	/*
	 * A function that adds a sliver of the added latency explains nothing
	 * of it, whatever its own slow side shows: a 0.1 ms render beside a
	 * 50 ms checksum, "slow" by its own tree's threshold in 117 of 120 runs
	 * of a loaded machine (its runqueue waits beyond the bulk), was accused
	 * beside the checksum. The co-critical bar (co_share) applies.
	 */
	e->small = !(e->share >= o->co_share) && !isnan(e->share);
	/*
	 * And the other way round: evidence that is CPU time alone (the
	 * factor shown is cpu_run, any resource beyond the bulk a CPU one),
	 * in runs whose rest of the computation grew as well while the
	 * function's share of it did not, is the CPU's slowness, whatever
	 * rule it passed: an unperturbed redis-server's LRANGE reply was
	 * accused of cpu_run in CI.
	 */
	e->cpu_dismissed =
		e->slower_cpu && !isnan(e->res_p) &&
		(e->res_feat == DIAGNOSIS_CPU_RUN || e->res_feat == DIAGNOSIS_CPU_STEAL) &&
		(!e->beyond || e->beyond_feat == DIAGNOSIS_CPU_RUN ||
		 e->beyond_feat == DIAGNOSIS_CPU_STEAL);
	e->significant = ((e->mode && !e->cpu_mode) || (e->bursty && !e->cpu_bursts) ||
			  e->resource || e->beyond) &&
			 e->added > 0 && !e->small && !e->cpu_dismissed;
	err = 0;
cleanup:
	free(t);
	free(lat);
	free(ord);
	return err;
}

/* Accepted first, then by added time (largest first), then function index. */
static int cmp_crit(const void *a, const void *b)
{
	const struct diagnosis_critical *x = a, *y = b;

	if (x->ev.significant != y->ev.significant)
		return x->ev.significant ? -1 : 1;
	if (x->ev.added != y->ev.added)
		return x->ev.added > y->ev.added ? -1 : 1;
	return (x->func > y->func) - (x->func < y->func);
}

void diagnosis__rank(struct diagnosis *r)
{
	size_t total = r->ncrit + r->nrejected, acc = 0;

	xlp_sort(r->crit, total, sizeof(*r->crit), cmp_crit);
	for (size_t i = 0; i < total; i++)
		acc += r->crit[i].ev.significant;
	r->ncrit = acc;
	r->nrejected = total - acc;
}
