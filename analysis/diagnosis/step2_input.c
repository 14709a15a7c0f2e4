/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Step 2's input, its samples: for each critical function the runs where it ran, with
 * its resource usage (PerfProbe section IV-C); for the baseline every run
 * with its whole-run usage (section V-D).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "diagnosis_impl.h"
#include "stats.h"

struct s2_buf {
	struct diagnosis_s2_input in;
	double *x, *cycles, *time;
	uint8_t *slow;
	uint32_t *run; /* sample -> run */
};

static int s2_alloc(struct s2_buf *b, size_t n)
{
	memset(b, 0, sizeof(*b));
	b->x = malloc(DIAGNOSIS_NFEAT * n * sizeof(double) + 1);
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
	double v[DIAGNOSIS_NFEAT];

	diagnosis__ctr_features(ctr, v);
	for (int f = 0; f < DIAGNOSIS_NFEAT; f++)
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
/* The step-2 input of the n samples in b, with its features and time reference. */
static void s2_input(struct s2_buf *b, size_t n, uint32_t features, double time_ref)
{
	b->in = (struct diagnosis_s2_input){.n = n,
					    .x = b->x,
					    .cycles = b->cycles,
					    .time = b->time,
					    .slow = b->slow,
					    .features = features,
					    .time_ref = time_ref};
}

static void pick_peer(const struct resources *res, size_t k, const struct s2_buf *b, size_t n,
		      size_t nruns, struct diagnosis_peer *peer)
{
	uint8_t *slow_run = calloc(nruns + 1, 1);

	if (!slow_run)
		return;
	for (size_t i = 0; i < n; i++)
		slow_run[b->run[i]] = b->slow[i];
	for (size_t i = 0; i < resources__npeers(res, k); i++) {
		const struct dataset_peer *p = resources__peer(res, k, i);
		uint32_t total = 0;

		if (!slow_run[p->run])
			continue;
		for (size_t j = 0; j < resources__npeers(res, k); j++) {
			const struct dataset_peer *q = resources__peer(res, k, j);

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

/*
 * Evidence 3 (significance.c): a factor whose growth is out of proportion.
 * If slow samples only did more of the same, every resource would keep its
 * share of the time, and a resource's part of the added time would equal
 * its part of the fast samples' time. The excess of the first over the
 * second is the part of the slowdown that changed its nature; it must hold
 * excess_share of the added time, and the resource must be larger in slow
 * samples by a Mann-Whitney test. A lower clock (the frequency check) is
 * evidence by itself when the frequency is lower by the same test.
 */
/* The largest part of the added time first; a lower clock (it replaced cpu_run) leads. */
static int cmp_factor(const void *a, const void *b)
{
	const struct diagnosis_factor *x = a, *y = b;
	double sx = x->feat == DIAGNOSIS_CPU_FREQ ? INFINITY
		    : isnan(x->share)		  ? -INFINITY
						  : x->share;
	double sy = y->feat == DIAGNOSIS_CPU_FREQ ? INFINITY
		    : isnan(y->share)		  ? -INFINITY
						  : y->share;

	if (sx != sy)
		return sx > sy ? -1 : 1;
	return (int)x->feat - (int)y->feat;
}

/*
 * Each factor's part of the function's added time; a time factor whose
 * growth holds less than factor_share of it does not explain the slowdown
 * (the tree's check saw its level, and cpu_run's level is high whether or
 * not it grew); the rest ordered by their part.
 */
static void rank_factors(const struct s2_buf *b, size_t n, struct diagnosis_step2 *s,
			 const struct diagnosis_opts *o, bool reorder)
{
	size_t kept = 0;

	for (size_t k = 0; k < s->nfactors; k++) {
		struct diagnosis_factor *f = &s->factors[k];

		f->share = diagnosis__feat_is_time(f->feat)
				   ? diagnosis_proportion(b->x + f->feat * n, b->time, b->slow, n)
					     .share
				   : NAN;
	}
	if (!reorder)
		return;
	for (size_t k = 0; k < s->nfactors; k++)
		if (isnan(s->factors[k].share) || s->factors[k].share >= o->factor_share)
			s->factors[kept++] = s->factors[k];
	s->nfactors = kept;
	qsort(s->factors, s->nfactors, sizeof(*s->factors), cmp_factor);
}

/*
 * The runqueue wait before an interaction (itself) is all cpu_wait, so
 * always "in proportion" to itself: only a distinct mode or bursts accuse
 * it. Judging it against the runs' latency instead was tried (2026-11-28)
 * and accused the natural runqueue waits of unperturbed nginx and
 * redis-server. Nor is a fast side that never queued a proportion of 0:
 * an unperturbed redis-server in CI queued 2 ms before 4 of 872 requests
 * and never before the others, and "100 % of the added time, 0 % of the
 * fast runs' time" accused it.
 */
static void resource_evidence(const struct s2_buf *b, size_t n, const struct diagnosis_step2 *s,
			      const struct diagnosis_opts *o, double res, bool itself,
			      struct diagnosis_evidence *e)
{
	double add = diagnosis__class_mean(b->time, b->slow, n, 1) -
		     diagnosis__class_mean(b->time, b->slow, n, 0);
	bool have = false;

	e->resource = false;
	e->res_itself = itself;
	e->res_gap = (struct stats_gap){.p = 1, .lo = NAN, .hi = NAN};
	e->gap_assoc_p = 1;
	for (size_t k = 0; k < s->nfactors; k++) {
		const struct diagnosis_factor *f = &s->factors[k];
		const double *v = b->x + f->feat * n;
		double share = NAN, fshare = NAN, excess = NAN, p;
		bool ok, within = false;

		if (f->feat == DIAGNOSIS_CPU_FREQ) {
			double *neg = malloc(n * sizeof(*neg) + 1);

			if (!neg)
				continue;
			for (size_t i = 0; i < n; i++)
				neg[i] = -v[i];
			p = stats__mann_whitney(neg, b->slow, n);
			free(neg);
			ok = f->from_freq_check && p <= o->alpha_evidence;
		} else if (diagnosis__feat_is_time(f->feat) && add > 0) {
			struct diagnosis_proportion pr =
				diagnosis_proportion(v, b->time, b->slow, n);

			share = pr.share;
			fshare = pr.fast_share;
			excess = pr.excess;
			p = stats__mann_whitney(v, b->slow, n);
			/*
			 * A sampled function's resource must add more than one
			 * sample's weight (res): its slow side is the runs its
			 * samples made longest, and a resource present in them
			 * and absent in the others by less than that is where
			 * a sample fell (an unperturbed pipe read: ipc_wait
			 * 0.4 ms per slow-side run, 0 in the others, at 1 ms)
			 */
			ok = !itself && excess >= o->excess_share && p <= o->alpha_evidence &&
			     !(res > 0 && !(diagnosis__class_mean(v, b->slow, n, 1) -
						    diagnosis__class_mean(v, b->slow, n, 0) >
					    res));
			if (!e->res_gap.nabove && f->gt) {
				if (stats__gap_test(v, n, f->threshold, res, &e->res_gap))
					e->res_gap =
						(struct stats_gap){.p = 1, .lo = NAN, .hi = NAN};
				e->gap_feat = f->feat;
				e->gap_slow_hits = f->slow_hits;
				e->gap_fast_hits = f->fast_hits;
				e->gap_nslow = f->nslow;
				e->gap_nfast = f->nfast;
				e->gap_assoc_p = stats__fisher(f->slow_hits, f->nslow,
							       f->slow_hits + f->fast_hits,
							       f->nslow + f->nfast);
			}
		} else {
			continue;
		}
		/* the first factor that passes, else the first one, is shown */
		if (have && (e->resource || !ok))
			continue;
		have = true;
		e->resource = ok;
		e->res_feat = f->feat;
		e->res_share = share;
		e->res_fast_share = fshare;
		e->res_excess = excess;
		e->res_p = p;
		e->res_within = within;
	}
	if (!have)
		e->res_share = e->res_fast_share = e->res_excess = e->res_p = NAN;
}

/*
 * Evidence 4 (significance.c): a resource beyond the bulk. Each run where
 * the function ran has the resource's share of the function's time; if
 * every resource grows in proportion (the natural tail of a workload,
 * however heavy), that share does not depend on whether the run is slow,
 * and under this H0 the labels of the runs ranked by it are a random
 * permutation. Of the w runs with the largest share, x are slow: Fisher's
 * test, exact under H0 for a fixed w. w is taken where the test is
 * strongest, among places on a grid up to n / 2 where the slow runs are
 * at least half the top w, and the p-value corrected (Sidak) for every w
 * of the grid, of every resource tried. The
 * runs' labels are the report's (median + k sigma of the latency), so a
 * cause present in half the slow runs, or absent from some, still counts.
 * cpu_run is not tried: a function doing more of its work has more CPU
 * time in its share, slowdown or not (that growth is evidence 3's and the
 * mode's). Nor cpu_steal: the host running another guest on the CPU is
 * the machine running slower for a while, which the CPU-bursts rule
 * judges, not a resource the function used (Debian's redis-server,
 * unperturbed: host steal in 4 of its 16 slow runs and 1 of 836 fast,
 * 23 % of the added time, accused addListRangeReply/cpu_run). It must
 * also matter: the resource holds factor_share of the
 * function's added time, and the top w hold min_cover of its slow runs.
 */
static void beyond_evidence(const struct s2_buf *b, size_t n, const uint8_t *slow,
			    const struct diagnosis_step2 *s, const struct diagnosis_opts *o,
			    struct diagnosis_evidence *e)
{
	double *q = malloc(n * sizeof(*q) + 1), tm[2] = {0, 0}, cnt[2] = {0, 0}, best = 2;
	struct stats_top top[DIAGNOSIS_NFEAT];
	bool tried[DIAGNOSIS_NFEAT] = {0};
	uint32_t tests = 0;

	e->beyond = e->beyond_large = false;
	e->beyond_p = 1;
	e->beyond_tests = 0;
	e->beyond_top = e->beyond_slow = e->beyond_nslow = e->beyond_n = 0;
	e->beyond_cut = e->beyond_fast_median = e->beyond_added_share = NAN;
	if (!q)
		return;
	for (size_t i = 0; i < n; i++) {
		tm[!!slow[i]] += b->time[i];
		cnt[!!slow[i]]++;
	}
	/* the windows first: the correction counts every one, whatever it shows */
	for (int f = 0; f < DIAGNOSIS_NFEAT; f++) {
		const double *v = b->x + f * n;

		if (!s->used[f] || !diagnosis__feat_is_time(f) || f == DIAGNOSIS_CPU_RUN ||
		    f == DIAGNOSIS_CPU_STEAL)
			continue;
		for (size_t i = 0; i < n; i++)
			q[i] = !(b->time[i] > 0) ? NAN : v[i] > 0 ? v[i] / b->time[i] : 0;
		if (stats__top_share(q, slow, n, &top[f]))
			continue;
		tried[f] = true;
		tests += top[f].windows;
	}
	for (int f = 0; f < DIAGNOSIS_NFEAT; f++) {
		const double *v = b->x + f * n;
		double vm[2] = {0, 0}, added, share, p;
		bool ok, large;

		if (!tried[f])
			continue;
		for (size_t i = 0; i < n; i++)
			vm[!!slow[i]] += v[i];
		added = cnt[0] && cnt[1] ? tm[1] / cnt[1] - tm[0] / cnt[0] : 0;
		share = added > 0 ? (vm[1] / cnt[1] - vm[0] / cnt[0]) / added : NAN;
		p = top[f].w ? -expm1((double)tests * log1p(-top[f].p)) : 1;
		large = share >= o->factor_share &&
			top[f].hits >= diagnosis__min_cover(o, top[f].nslow);
		ok = p <= o->alpha_evidence && large;
		/* the smallest p that passes the bars, else the smallest p */
		if (e->beyond ? !(ok && p < best) : !(ok || p < best))
			continue;
		best = p;
		e->beyond = ok;
		e->beyond_large = large;
		e->beyond_feat = (enum diagnosis_feat)f;
		e->beyond_top = top[f].w;
		e->beyond_slow = top[f].hits;
		e->beyond_nslow = top[f].nslow;
		e->beyond_n = top[f].n;
		e->beyond_p = p;
		e->beyond_added_share = share;
		e->beyond_cut = top[f].cut;
		e->beyond_fast_median = top[f].fast_median;
	}
	e->beyond_tests = tests;
	free(q);
}

/* Median of v[i] over the rows whose slow[i] is want. */
static double class_median(const double *v, const uint8_t *slow, size_t n, int want, double *tmp)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (slow[i] == want)
			tmp[m++] = v[i];
	return m ? stats__median(tmp, m) : NAN;
}

/*
 * Evidence 3b (diagnosis.h, struct diagnosis_evidence): more work or a slower CPU.
 * Per run where the function ran on the run's own thread (its CPU time no
 * more than the thread's, 2 % of slack for the counters' different
 * edges; for a launch, which has no thread of its own, its process's),
 * the rest of the run's computation (the thread's CPU time less the
 * function's) and the function's share of the thread's CPU time,
 * slow runs (the function's slow side) against fast ones. A function
 * called on another thread (a pool's worker) is left untested.
 */
static int work_evidence(const struct dataset *ds, const struct resources *res, size_t k,
			 const struct s2_buf *b, size_t nr, const struct diagnosis_opts *o,
			 struct diagnosis_evidence *e)
{
	double *share = malloc(nr * sizeof(*share) + 1), *rest = malloc(nr * sizeof(*rest) + 1);
	double *tmp = malloc(nr * sizeof(*tmp) + 1);
	uint8_t *slow = malloc(nr + 1);
	size_t m = 0, ns = 0;
	int err = -ENOMEM;

	e->work_tested = e->slower_cpu = e->more_work = false;
	e->work_nslow = e->work_nfast = 0;
	e->work_slow_share = e->work_fast_share = e->rest_slow_ns = e->rest_fast_ns = NAN;
	e->work_share_p = e->rest_p = NAN;
	if (!share || !rest || !tmp || !slow)
		goto cleanup;
	for (size_t run = 0; run < nr; run++) {
		const struct dataset_run *x = dataset__run(ds, run);
		const struct dataset_res *f = resources__get(res, k, run);
		double own, fc;

		/* the run's own thread; a launch has none: its process's CPU time */
		if (!f->ncalls || !(x->has_own || x->has_base))
			continue;
		own = (double)(x->has_own ? x->own : x->base)[XLP_C_CPU_RUN];
		fc = (double)f->ctr[XLP_C_CPU_RUN];
		if (!(own > 0) || fc > own * 1.02)
			continue;
		share[m] = fmin(1, fc / own);
		rest[m] = fmax(0, own - fc);
		slow[m] = b->slow[run];
		ns += slow[m];
		m++;
	}
	err = 0;
	/* two runs a side at least, as the other rank tests here ask */
	if (ns < 2 || m - ns < 2)
		goto cleanup;
	e->work_tested = true;
	e->work_nslow = (uint32_t)ns;
	e->work_nfast = (uint32_t)(m - ns);
	e->work_slow_share = class_median(share, slow, m, 1, tmp);
	e->work_fast_share = class_median(share, slow, m, 0, tmp);
	e->rest_slow_ns = class_median(rest, slow, m, 1, tmp);
	e->rest_fast_ns = class_median(rest, slow, m, 0, tmp);
	e->work_share_p = stats__mann_whitney(share, slow, m);
	e->rest_p = stats__mann_whitney(rest, slow, m);
	e->slower_cpu = e->rest_p <= o->alpha_evidence && !(e->work_share_p <= o->alpha_evidence);
	e->more_work = e->work_share_p <= o->alpha_evidence && !(e->rest_p <= o->alpha_evidence);
cleanup:
	free(share);
	free(rest);
	free(tmp);
	free(slow);
	return err;
}

int diagnosis__critical_step2(const struct dataset *ds, const struct diagnosis_opts *o,
			      struct diagnosis *r, const struct resources *res, size_t k)
{
	struct diagnosis_critical *c = &r->crit[k];
	size_t nr = dataset__nruns(ds), n = 0;
	struct s2_buf b;
	bool itself;
	int err;

	err = s2_alloc(&b, nr);
	if (err)
		goto cleanup;
	/*
	 * Every run is a sample: one where the function did not run used 0 ns
	 * of everything, as in step 1 (a lock wait's ProcSleep runs only in
	 * the slow runs; its fast samples are those zeros).
	 */
	n = nr;
	c->ran = 0;
	c->sampled = dataset__func(ds, c->func)->sampled;
	itself = dataset__func(ds, c->func)->queued;
	c->res_ns = c->sampled ? (double)dataset__samples(ds)->resolution_ns : 0;
	for (size_t run = 0; run < nr; run++) {
		const struct dataset_res *x = resources__get(res, k, run);
		double t = (double)dataset__time(ds, run, c->func);

		c->ran += x->ncalls > 0;
		s2_set(&b, n, run, x->ctr, t, c->gt ? t > c->threshold_ns : t <= c->threshold_ns,
		       run);
	}
	/* samples carry no frequency */
	s2_input(&b, n, c->sampled ? r->features & ~XLP_FEAT_CPUFREQ : r->features,
		 median_of(b.time, n));
	err = diagnosis__step2_fit(&b.in, o, &c->s2);
	if (!err) {
		rank_factors(&b, n, &c->s2, o, true);
		resource_evidence(&b, n, &c->s2, o, c->res_ns, itself, &c->ev);
		beyond_evidence(&b, n, r->slow, &c->s2, o, &c->ev);
		err = work_evidence(ds, res, k, &b, nr, o, &c->ev);
		if (!c->s2.nfactors && c->ev.beyond) {
			err = diagnosis__step2_factor_of(&b.in, o, &c->s2, c->ev.beyond_feat);
			if (!err && c->s2.nfactors) {
				rank_factors(&b, n, &c->s2, o, false);
				resource_evidence(&b, n, &c->s2, o, c->res_ns, itself, &c->ev);
			}
		}
	}
	for (size_t i = 0; !err && i < c->s2.nfactors; i++)
		if (c->s2.factors[i].feat == DIAGNOSIS_IPC)
			pick_peer(res, k, &b, n, nr, &c->peer);
cleanup:
	s2_free(&b);
	return err;
}

/*
 * A tree over whole runs (step 2's, as the baseline of PerfProbe V-D):
 * over the process's counters (dataset_run.base, the runs that have them), or
 * over the runs' own thread (dataset_run.own, only when every run has it: not
 * launches), what the whole-run fallback tests. *has tells whether it was
 * fitted.
 */
static int fit_runs(const struct dataset *ds, const struct diagnosis_opts *o,
		    const struct diagnosis *r, bool own, struct diagnosis_step2 *out, bool *has)
{
	size_t nr = dataset__nruns(ds), n = 0;
	struct s2_buf b;
	int err;

	*has = false;
	for (size_t run = 0; run < nr; run++)
		n += own ? dataset__run(ds, run)->has_own : dataset__run(ds, run)->has_base;
	if (!n || (own && n < nr))
		return 0;
	err = s2_alloc(&b, nr);
	if (err)
		goto cleanup;
	for (size_t run = 0, i = 0; run < nr; run++) {
		const struct dataset_run *x = dataset__run(ds, run);

		if (own ? x->has_own : x->has_base)
			s2_set(&b, n, i++, own ? x->own : x->base, x->latency_ns, r->slow[run],
			       run);
	}
	s2_input(&b, n, r->features, r->lab.median_ns);
	err = diagnosis__step2_fit(&b.in, o, out);
	/* the baseline shows the tree's answer as PerfProbe V-D computes it */
	if (!err) {
		rank_factors(&b, n, out, o, false);
		*has = true;
	}
cleanup:
	s2_free(&b);
	return err;
}

int diagnosis__baseline(const struct dataset *ds, const struct diagnosis_opts *o,
			struct diagnosis *r)
{
	int err = fit_runs(ds, o, r, true, &r->own, &r->has_own);

	if (!err)
		err = fit_runs(ds, o, r, false, &r->base, &r->has_base);
	for (size_t i = 0; !err && r->has_base && r->base.nfactors && i < r->ncrit; i++)
		for (size_t j = 0; j < r->crit[i].s2.nfactors; j++)
			r->agrees |= r->crit[i].s2.factors[j].feat == r->base.factors[0].feat;
	return err;
}
