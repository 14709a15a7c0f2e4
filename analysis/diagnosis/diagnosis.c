/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The diagnosis pipeline: labels, step 1, one pass over the traces for the
 * resource usage of the functions we report on, step 2 per critical
 * function, the whole-run baseline (PerfProbe section V-D), the table.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diagnosis_impl.h"

/* One pass over the traces for the critical functions and the table's. */
static int resource_steps(const struct dataset *ds, const struct diagnosis_opts *o,
			  struct diagnosis *r, char *err, size_t errlen)
{
	size_t nf = r->ncrit + r->nrows;
	uint32_t *funcs = malloc(nf * sizeof(*funcs) + 1);
	struct resources *res = NULL;
	int ret = -ENOMEM;

	if (!funcs)
		goto cleanup;
	for (size_t i = 0; i < r->ncrit; i++)
		funcs[i] = r->crit[i].func;
	for (size_t i = 0; i < r->nrows; i++)
		funcs[r->ncrit + i] = r->rows[i].func;
	ret = dataset__resources(ds, funcs, nf, &res, err, errlen);
	if (ret)
		goto cleanup;
	for (size_t k = 0; k < r->ncrit && !ret; k++)
		ret = diagnosis__critical_step2(ds, o, r, res, k);
	for (size_t k = 0; k < r->ncrit && !ret; k++)
		ret = diagnosis_evidence(ds, o, r, &r->crit[k]);
	for (size_t k = 0; k < r->ncrit && !ret; k++)
		ret = diagnosis__why_step(ds, o, r, res, k);
	/* from the outermost function of the chain down to the one named */
	for (size_t k = 0; k < r->ncrit && !ret; k++)
		ret = dataset__context_tree(ds, r->crit[k].chain[0], r->slow, &r->crit[k].cct);
	for (size_t i = 0; i < r->nrows && !ret; i++)
		ret = diagnosis__fill_row(ds, res, r->ncrit + i, &r->rows[i]);
cleanup:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory: analyse fewer or smaller traces");
	resources__free(res);
	free(funcs);
	return ret;
}

/* The runs' wait chains, when the traces hold their scheduling events. */
static int wait_chains(const struct dataset *ds, struct diagnosis *r, char *err, size_t errlen)
{
	int ret;

	if (!(dataset__features(ds) & XLP_FEAT_TIMELINE))
		return 0;
	ret = waitchain__build(ds, NULL, &r->waits, err, errlen);
	if (!ret)
		ret = waitchain__blockers(r->waits, r->slow, &r->blockers, &r->nblockers);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory: analyse fewer or smaller traces");
	return ret;
}

/* A factor that is a sleep another thread (or a device) ends. */
static bool waiting_factor(enum diagnosis_feat f)
{
	return f == DIAGNOSIS_SLEEP_S || f == DIAGNOSIS_SLEEP_D || f == DIAGNOSIS_DISK ||
	       f == DIAGNOSIS_NET || f == DIAGNOSIS_IPC || f == DIAGNOSIS_LOCK ||
	       f == DIAGNOSIS_TIMER || f == DIAGNOSIS_OTHER;
}

/*
 * Follow the wait (issue 22): a function slow because it waited names the
 * blocker that added the most to its slow runs' waits. The chains cover
 * the run's window, not the function's calls alone, hence the bar: the
 * blocker must add at least factor_share of the function's added time.
 */
static bool in_chain(const struct diagnosis_critical *c, uint32_t func)
{
	for (size_t i = 0; i < c->nchain; i++)
		if (c->chain[i] == func)
			return true;
	return false;
}

static void blocker_of(const struct diagnosis_opts *o, const struct diagnosis *r,
		       enum diagnosis_feat f, double added, const struct diagnosis_critical *c,
		       size_t *blocker, double *blocker_added)
{
	double ns = (double)r->lab.nslow, nf = (double)(r->lab.n - r->lab.nslow), best = 0;

	*blocker = SIZE_MAX;
	*blocker_added = NAN;
	/*
	 * A wait, or for the whole run (c NULL) its thread's wait for a CPU
	 * too: a thread that waits for its CPU and for a worker sharing it
	 * (both behind the same hog) is held up by both, and the chains say
	 * which worker
	 */
	if (!r->blockers || !(waiting_factor(f) || (!c && f == DIAGNOSIS_CPU_WAIT)) || !(ns > 0) ||
	    !(nf > 0) || !(added > 0))
		return;
	for (size_t i = 0; i < r->nblockers; i++) {
		const struct waitchain_blocker *b = &r->blockers[i];
		double add = b->slow_ns / ns - b->fast_ns / nf;

		if (b->self || add <= best)
			continue;
		best = add;
		*blocker = i;
	}
	if (*blocker != SIZE_MAX && best >= o->factor_share * added)
		*blocker_added = best;
	else
		*blocker = SIZE_MAX;
	/*
	 * A function of the run that ran on the blocker's thread (a pool's
	 * task, marked: the run's functions are its process's calls in its
	 * window, any thread) is not held up by that thread: it is that
	 * thread's work, and its own factor is the answer. Its threads are
	 * those seen running it on the chains.
	 */
	if (c && *blocker != SIZE_MAX) {
		const struct waitchain_blocker *top = &r->blockers[*blocker];

		for (size_t i = 0; i < r->nblockers && *blocker != SIZE_MAX; i++) {
			const struct waitchain_blocker *b = &r->blockers[i];

			if (b->state != WAITCHAIN_RAN || !in_chain(c, b->func))
				continue;
			/* a group's threads are known by their name */
			if (top->threads > 1
				    ? !strncmp(b->comm, top->comm, XLP_COMM_LEN) ||
					      (top->waker_tid &&
					       !strncmp(b->comm, top->waker_comm, XLP_COMM_LEN))
				    : b->blocker_tid == top->blocker_tid ||
					      (top->waker_tid && b->blocker_tid == top->waker_tid))
				*blocker = SIZE_MAX;
		}
	}
	if (*blocker == SIZE_MAX)
		*blocker_added = NAN;
}

static void blocked_by(const struct dataset *ds, const struct diagnosis_opts *o,
		       struct diagnosis *r)
{
	struct diagnosis_fallback *fb = &r->fallback;
	double sum[2] = {0, 0}, cnt[2] = {0, 0};

	for (size_t k = 0; k < r->ncrit + r->nrejected; k++) {
		struct diagnosis_critical *c = &r->crit[k];

		c->blocker = SIZE_MAX;
		c->blocker_added = NAN;
		if (c->s2.nfactors)
			blocker_of(o, r, c->s2.factors[0].feat, c->ev.added, c, &c->blocker,
				   &c->blocker_added);
	}
	fb->blocker = SIZE_MAX;
	fb->blocker_added = NAN;
	if (!fb->holds || !r->slow)
		return;
	for (size_t i = 0; i < dataset__nruns(ds); i++) {
		sum[!!r->slow[i]] += dataset__run(ds, i)->latency_ns;
		cnt[!!r->slow[i]]++;
	}
	if (cnt[0] && cnt[1])
		blocker_of(o, r, fb->feat, fb->share * (sum[1] / cnt[1] - sum[0] / cnt[0]), NULL,
			   &fb->blocker, &fb->blocker_added);
}

/*
 * The whole run's answer, a wait of the run's thread, when other threads
 * spent its added time on a CPU: their CPU work, judged as such
 * (cpu_work.c); dismissed, the answer no longer holds.
 */
static int fallback_cpu_work(const struct dataset *ds, const struct diagnosis_opts *o,
			     struct diagnosis *r)
{
	struct diagnosis_fallback *fb = &r->fallback;
	size_t n = dataset__nruns(ds);
	double *lat;
	int err;

	if (!fb->holds || !waiting_factor(fb->feat) || !r->waits || !r->slow)
		return 0;
	lat = malloc(n * sizeof(*lat) + 1);
	if (!lat)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		lat[i] = dataset__run(ds, i)->latency_ns;
	err = diagnosis_cpu_work(ds, o, r, fmin(fb->share, 1) * diagnosis__added(lat, r->slow, n),
				 false, &fb->cpu_work);
	if (!err && fb->cpu_work.tested && fb->cpu_work.dismissed)
		fb->holds = false;
	free(lat);
	return err;
}

#define WAIT_ANSWER_TRIES 16 /* blockers tried, the largest in slow runs first */

/*
 * No function and no resource of the whole run explains the slow runs, but
 * the run's thread waited the whole time (a condition variable's
 * lock_wait, in proportion to the latency): follow the wait. Each blocker
 * of the chains has its part of each run's latency; ranked by it, are the
 * top runs the slow ones? Evidence 4's test (stats__top_share), corrected
 * over every window of every blocker tried, and the blocker must hold
 * factor_share of the added latency and its top runs min_cover of the slow
 * runs. A thread pool reading a cold file in a quarter of the runs: the
 * disk through pool-1, 0.8 ms per slow run against 34 us per fast one, in
 * runs whose wait on the condition variable tracked their latency.
 */
static int wait_answer(const struct dataset *ds, const struct diagnosis_opts *o,
		       struct diagnosis *r)
{
	struct diagnosis_wait_answer *a = &r->wait_answer;
	size_t n = dataset__nruns(ds), k = 0, idx[WAIT_ANSWER_TRIES];
	double *v = calloc(WAIT_ANSWER_TRIES * n + 1, sizeof(*v)), *q = malloc(n * sizeof(*q) + 1);
	double lat[2] = {0, 0}, cnt[2] = {0, 0}, best = 2;
	struct stats_top top[WAIT_ANSWER_TRIES];
	struct diagnosis_cpu_work cw;
	bool any_ran = false;
	int err = -ENOMEM;

	memset(a, 0, sizeof(*a));
	a->blocker = SIZE_MAX;
	if (!v || !q)
		goto cleanup;
	err = 0;
	if (r->status != DIAGNOSIS_NO_PRECOND || r->fallback.holds || !r->waits || !r->slow)
		goto cleanup;
	for (size_t i = 0; i < r->nblockers && k < WAIT_ANSWER_TRIES; i++)
		if (!r->blockers[i].self && r->blockers[i].slow_ns > 0)
			idx[k++] = i;
	for (size_t run = 0; run < n; run++) {
		lat[!!r->slow[run]] += dataset__run(ds, run)->latency_ns;
		cnt[!!r->slow[run]]++;
		for (size_t i = 0; i < waitchain__npieces(r->waits, run); i++) {
			const struct waitchain_piece *p = waitchain__piece(r->waits, run, i);

			for (size_t j = 0; j < k; j++)
				if (waitchain__piece_of(p, &r->blockers[idx[j]]))
					v[j * n + run] += (double)p->ns;
		}
	}
	if (!k || !cnt[0] || !cnt[1] || !(lat[1] / cnt[1] > lat[0] / cnt[0]))
		goto cleanup;
	a->tested = true;
	a->tried = (uint32_t)k;
	/* a blocker on a CPU stands for the run's CPU work: judged as such, once */
	for (size_t j = 0; j < k; j++)
		any_ran |= r->blockers[idx[j]].state == WAITCHAIN_RAN;
	memset(&cw, 0, sizeof(cw));
	if (any_ran) {
		err = diagnosis_cpu_work(ds, o, r, 1, true, &cw);
		if (err)
			goto cleanup;
	}
	for (size_t j = 0; j < k; j++) {
		for (size_t run = 0; run < n; run++) {
			double l = dataset__run(ds, run)->latency_ns;

			q[run] = l > 0 ? v[j * n + run] / l : NAN;
		}
		err = stats__top_share(q, r->slow, n, &top[j]);
		if (err)
			goto cleanup;
		a->tests += top[j].windows;
	}
	for (size_t j = 0; j < k; j++) {
		const struct waitchain_blocker *b = &r->blockers[idx[j]];
		double s = b->slow_ns / cnt[1], f = b->fast_ns / cnt[0];
		double share = (s - f) / (lat[1] / cnt[1] - lat[0] / cnt[0]);
		double p = top[j].w ? -expm1((double)a->tests * log1p(-top[j].p)) : 1;
		bool ran = b->state == WAITCHAIN_RAN;
		bool ok = p <= o->alpha_evidence && share >= o->factor_share &&
			  top[j].hits >= diagnosis__min_cover(o, top[j].nslow) &&
			  !(ran && cw.tested && cw.dismissed);

		/* the smallest p that passes the bars, else the smallest p */
		if (a->holds ? !(ok && p < best) : !(ok || p < best))
			continue;
		best = p;
		a->holds = ok;
		a->blocker = idx[j];
		a->slow_ns = s;
		a->fast_ns = f;
		a->share = share;
		a->top = top[j];
		a->p = p;
		memset(&a->cpu_work, 0, sizeof(a->cpu_work));
		if (ran)
			a->cpu_work = cw;
	}
cleanup:
	free(v);
	free(q);
	return err;
}

static int label_runs(const struct dataset *ds, const struct diagnosis_opts *o, struct diagnosis *r)
{
	size_t n = dataset__nruns(ds);
	double *lat = malloc(n * sizeof(*lat) + 1);
	int err = -ENOMEM;

	r->slow = calloc(n + 1, 1);
	if (!lat || !r->slow)
		goto cleanup;
	for (size_t i = 0; i < n; i++)
		lat[i] = dataset__run(ds, i)->latency_ns;
	err = labels__compute(lat, n, &o->rule, r->slow, &r->lab);
	if (err)
		goto cleanup;
	if (n < o->min_runs)
		r->status = DIAGNOSIS_FEW_RUNS;
	else if (!r->lab.nslow)
		r->status = DIAGNOSIS_NONE_SLOW;
	else if (r->lab.nslow == n)
		r->status = DIAGNOSIS_ALL_SLOW;
	else if (o->rule.kind != LABELS_FIXED && o->min_slowdown > 0 &&
		 r->lab.slow_median_ns < (1 + o->min_slowdown) * r->lab.fast_median_ns) {
		r->status = DIAGNOSIS_NO_PRECOND;
		r->insignificant = true;
	}
cleanup:
	free(lat);
	return err;
}

/* err for a failure of ours (not of the input): memory, or a bug. */
static void internal_error(int ret, char *err, size_t errlen)
{
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory: analyse fewer or smaller traces");
	else
		snprintf(err, errlen, "analysis failed (%s): please report this bug with the trace",
			 strerror(-ret));
}

int diagnosis__run(const struct dataset *ds, const struct diagnosis_opts *o, struct diagnosis **out,
		   char *err, size_t errlen)
{
	struct diagnosis *r = calloc(1, sizeof(*r));
	int ret = r ? 0 : -ENOMEM;
	bool told = false; /* err already says why */

	*out = NULL;
	if (!ret && !dataset__nruns(ds))
		ret = -EINVAL;
	if (ret)
		goto cleanup;
	r->rule = o->rule;
	r->min_slowdown = o->min_slowdown;
	r->alpha_evidence = o->alpha_evidence;
	r->excess_share = o->excess_share;
	r->features = dataset__features(ds);
	ret = label_runs(ds, o, r);
	ret = ret ? ret : diagnosis__candidates(ds, o->top_k, r);
	if (!ret && r->status == DIAGNOSIS_OK) {
		ret = diagnosis__step1(ds, o, r);
		if (!ret && !r->npre)
			r->status = DIAGNOSIS_NO_PRECOND;
	}
	ret = ret ? ret : diagnosis__pick_rows(ds, o, r);
	if (ret)
		goto cleanup;
	/* these read the traces again: their own messages */
	if (r->status == DIAGNOSIS_OK) {
		ret = diagnosis__chains(ds, o, r, err, errlen);
		told = ret != 0;
		if (ret)
			goto cleanup;
	}
	ret = resource_steps(ds, o, r, err, errlen);
	told = ret != 0;
	if (ret)
		goto cleanup;
	diagnosis__rank(r);
	if (r->status == DIAGNOSIS_OK && !r->ncrit) {
		r->status = DIAGNOSIS_NO_PRECOND;
		r->insignificant = r->nrejected > 0;
	}
	if (r->status == DIAGNOSIS_OK || r->status == DIAGNOSIS_NO_PRECOND)
		ret = diagnosis__baseline(ds, o, r);
	/* no function accused: does the whole run explain the slow runs? */
	if (!ret && r->status == DIAGNOSIS_NO_PRECOND)
		ret = diagnosis_fallback(ds, o, r);
	if (ret)
		goto cleanup;
	ret = wait_chains(ds, r, err, errlen);
	told = ret != 0;
	ret = ret ? ret : fallback_cpu_work(ds, o, r);
	if (ret)
		goto cleanup;
	blocked_by(ds, o, r);
	ret = wait_answer(ds, o, r);
	if (ret)
		goto cleanup;
	ret = diagnosis_task_answer(ds, o, r, err, errlen);
	told = ret != 0;
	if (ret)
		goto cleanup;
	ret = diagnosis_thieves(ds, r, err, errlen);
	told = ret != 0;
	if (ret)
		goto cleanup;
	*out = r;
	r = NULL;
cleanup:
	if (ret && !told)
		internal_error(ret, err, errlen);
	diagnosis__free(r);
	return ret;
}

void diagnosis__free(struct diagnosis *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->npre; i++)
		free(r->pre[i].conds);
	for (size_t i = 0; i < r->ncrit + r->nrejected; i++) {
		diagnosis__step2_release(&r->crit[i].s2);
		dataset_cct__free(r->crit[i].cct);
		diagnosis__why_release(&r->crit[i].why);
	}
	diagnosis__why_release(&r->fallback.why);
	diagnosis__step2_release(&r->base);
	diagnosis__step2_release(&r->own);
	dtree__free(r->tree);
	free(r->pre);
	free(r->crit);
	free(r->picks);
	free(r->cand);
	free(r->rows);
	free(r->slow);
	waitchain__free(r->waits);
	free(r->blockers);
	tasks__free(r->tasks);
	free(r);
}
