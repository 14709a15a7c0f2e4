/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Does the queue of the runs' async tasks explain the slow runs (issue 22,
 * PersisDroid's queue time)? A task posted by a run and started late has
 * no wakeup linking it to its delay when the workers were busy with other
 * tasks: the wait chains show the workers on a CPU, not why the run's task
 * had to wait. Per run, the queue time of the tasks it posted; ranked by
 * its part of the latency, are the top runs the slow ones (evidence 4's
 * test, stats__top_share, corrected over its windows)? It answers when
 * p <= alpha_evidence, the queue adds at least factor_share of the added
 * latency and the top runs hold min_cover of the slow runs; then what held
 * the queue is the task function whose executions overlapped the queued
 * time the most, per slow run over per fast run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diagnosis_impl.h"

struct held {
	const struct dataset *ds;
	double *by;    /* per function, summed over the slow runs' tasks minus the fast ones' */
	double w;      /* this task's weight: 1 / slow runs, or -1 / fast runs */
	uint32_t *tid; /* per function: a worker that ran it */
};

static void on_held(void *ctx, const struct tasks_task *by, double ns)
{
	struct held *h = ctx;

	if (by->func == DATASET_NO_FUNC || by->func >= dataset__nfuncs(h->ds))
		return;
	h->by[by->func] += h->w * ns;
	if (h->w > 0)
		h->tid[by->func] = by->run_tid;
}

int diagnosis_task_answer(const struct dataset *ds, const struct diagnosis_opts *o,
			  struct diagnosis *r, char *err, size_t errlen)
{
	struct diagnosis_task_answer *a = &r->task_answer;
	size_t n = dataset__nruns(ds), nf = dataset__nfuncs(ds);
	double *q = NULL, *own = NULL, lat[2] = {0, 0}, cnt[2] = {0, 0}, best = 0;
	struct held h = {.ds = ds};
	int ret;

	memset(a, 0, sizeof(*a));
	a->func = a->own_func = DATASET_NO_FUNC;
	ret = tasks__build(ds, &r->tasks, err, errlen);
	if (ret || !r->tasks || !r->slow || !tasks__n(r->tasks))
		return ret;
	ret = -ENOMEM;
	q = calloc(n + 1, sizeof(*q));
	own = calloc(nf + 1, sizeof(*own));
	h.by = calloc(nf + 1, sizeof(*h.by));
	h.tid = calloc(nf + 1, sizeof(*h.tid));
	if (!q || !own || !h.by || !h.tid)
		goto cleanup;
	ret = 0;
	for (size_t run = 0; run < n; run++) {
		lat[!!r->slow[run]] += dataset__run(ds, run)->latency_ns;
		cnt[!!r->slow[run]]++;
	}
	if (!cnt[0] || !cnt[1] || !(lat[1] / cnt[1] > lat[0] / cnt[0]))
		goto cleanup;
	for (size_t i = 0; i < tasks__n(r->tasks); i++) {
		const struct tasks_task *t = tasks__task(r->tasks, i);
		double queue = (double)(t->start_ns - t->post_ns),
		       exec = (double)(t->end_ns - t->start_ns);
		bool slow;

		if (t->run == TASKS_NO_RUN)
			continue;
		slow = r->slow[t->run];
		q[t->run] += queue;
		if (slow) {
			a->slow_tasks++;
			a->slow_queue_ns += queue / cnt[1];
			a->slow_exec_ns += exec / cnt[1];
			if (t->func < nf)
				own[t->func] += queue;
		} else {
			a->fast_tasks++;
			a->fast_queue_ns += queue / cnt[0];
			a->fast_exec_ns += exec / cnt[0];
		}
		h.w = slow ? 1 / cnt[1] : -1 / cnt[0];
		tasks__holders(r->tasks, i, on_held, &h);
	}
	for (size_t run = 0; run < n; run++) {
		double l = dataset__run(ds, run)->latency_ns;

		q[run] = l > 0 ? q[run] / l : NAN;
	}
	ret = stats__top_share(q, r->slow, n, &a->top);
	if (ret)
		goto cleanup;
	a->tested = true;
	a->p = a->top.w ? -expm1((double)a->top.windows * log1p(-a->top.p)) : 1;
	a->share = (a->slow_queue_ns - a->fast_queue_ns) / (lat[1] / cnt[1] - lat[0] / cnt[0]);
	a->holds = a->p <= o->alpha_evidence && a->share >= o->factor_share &&
		   a->top.hits >= diagnosis__min_cover(o, a->top.nslow);
	for (size_t f = 0; f < nf; f++) {
		if (h.by[f] > best) {
			best = h.by[f];
			a->func = (uint32_t)f;
			a->held_ns = h.by[f];
			a->run_tid = h.tid[f];
		}
		if (own[f] > 0 && (a->own_func == DATASET_NO_FUNC || own[f] > own[a->own_func]))
			a->own_func = (uint32_t)f;
	}
cleanup:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "async tasks: out of memory: fewer or shorter traces");
	free(q);
	free(own);
	free(h.by);
	free(h.tid);
	return ret;
}
