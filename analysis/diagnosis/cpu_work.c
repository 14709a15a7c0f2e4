/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A wait for another thread's CPU work (issue 22's chains; PersisDroid's
 * "follow the wait"). When the whole run's answer, or the waits followed,
 * rest on a blocker that was on a CPU, the run was CPU work all along, its
 * own thread's or its blocker's: the wait only says whose, and which of
 * the two threads the scheduler ran first decides whether that work shows
 * as the run's lock_wait / ipc_wait or as its runqueue wait. A wait's
 * share of the latency then moves with a race, not with a cause: an
 * unperturbed thread pool on one CPU, whose worker's task took 40 % more
 * CPU in a few stretches of the recording (the VM's slower CPU), had its
 * added time all in the condition variable's lock_wait (55 % of the fast
 * runs' latency, the rest their runqueue wait behind the same worker): out
 * of proportion by the wait alone, and accused in CI.
 *
 * So such an answer is judged as the CPU time it is, by significance.c's
 * rule for a function's CPU time: the run's CPU work, per run (its latency
 * less every piece of its waits that was not a thread on a CPU, or its own
 * runqueue wait), must grow out of proportion to the latency, or form a
 * distinct mode whose runs do not come in bursts (bursts of CPU work that
 * grew in proportion: the CPU itself ran slower at times). Otherwise the
 * answer is dismissed, and the report says why. A worker that reads a
 * cold file every fourth run (on-CPU I/O on these VMs) keeps its answer: a
 * distinct mode, spread over the recording.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "diagnosis_impl.h"
#include "stats.h"
#include "util.h"

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Is the piece the run's CPU work: a thread on a CPU, or its own runqueue wait? */
static bool cpu_work_piece(const struct waitchain_piece *p)
{
	return p->state == WAITCHAIN_RAN || (p->depth == 0 && p->state == WAITCHAIN_CPU_WAIT);
}

/* Per run: the CPU work, and the part of it that other threads did (their pieces on a CPU). */
static void per_run(const struct dataset *ds, const struct diagnosis *r, double *work, double *ran)
{
	for (size_t run = 0; run < dataset__nruns(ds); run++) {
		double other = 0;

		ran[run] = 0;
		for (size_t i = 0; i < waitchain__npieces(r->waits, run); i++) {
			const struct waitchain_piece *p = waitchain__piece(r->waits, run, i);

			if (!cpu_work_piece(p))
				other += (double)p->ns;
			else if (p->state == WAITCHAIN_RAN)
				ran[run] += (double)p->ns;
		}
		work[run] = fmax(0, dataset__run(ds, run)->latency_ns - other);
	}
}

/* The tests on the runs' CPU work (what the answer's wait stood for). */
static int judge(const struct dataset *ds, const struct diagnosis_opts *o,
		 const struct diagnosis *r, const double *work, struct diagnosis_cpu_work *w)
{
	size_t n = dataset__nruns(ds), nslow = 0;
	double *lat = malloc(n * sizeof(*lat) + 1), *sorted = malloc(n * sizeof(*sorted) + 1);
	struct diagnosis_order *ord = malloc(n * sizeof(*ord) + 1);
	struct diagnosis_proportion pr;
	struct diagnosis_bursts b;
	int err = -ENOMEM;

	if (!lat || !sorted || !ord)
		goto cleanup;
	for (size_t i = 0; i < n; i++) {
		const struct dataset_run *x = dataset__run(ds, i);

		lat[i] = x->latency_ns;
		sorted[i] = work[i];
		ord[i] = (struct diagnosis_order){.file = x->file, .start = x->start_ns, .i = i};
		nslow += !!r->slow[i];
	}
	/* 3. out of proportion, as the whole run's resources are judged (why.c) */
	pr = diagnosis_proportion(work, lat, r->slow, n);
	w->share = pr.share;
	w->fast_share = pr.fast_share;
	w->excess = pr.excess;
	w->p_mw = stats__mann_whitney(work, r->slow, n);
	w->out_of_proportion = w->excess >= o->excess_share && w->p_mw <= o->alpha_evidence;
	/*
	 * 1. a distinct mode: split where as many runs lie above as are slow
	 * (the gap test is corrected for every place the split could be)
	 */
	qsort(sorted, n, sizeof(*sorted), dbl_cmp);
	w->threshold = sorted[n - nslow - 1];
	err = stats__gap_test(work, n, w->threshold, 0, &w->gap);
	if (err)
		goto cleanup;
	w->mode = w->gap.p <= o->alpha_evidence;
	/* 2. bursts of those runs: the CPU ran slower at times */
	xlp_sort(ord, n, sizeof(*ord), diagnosis__order_cmp);
	err = diagnosis_bursts(work, ord, n, w->threshold, true, o, &b);
	if (err)
		goto cleanup;
	w->runs_p = b.runs_p;
	w->bursts = b.bursts;
	w->bursts_expected = b.bursts_expected;
	w->bursty = b.bursty;
	w->dismissed = !w->out_of_proportion && !(w->mode && !w->bursty);
cleanup:
	free(lat);
	free(sorted);
	free(ord);
	return err;
}

int diagnosis_cpu_work(const struct dataset *ds, const struct diagnosis_opts *o,
		       struct diagnosis *r, double answer_added, bool all_ran,
		       struct diagnosis_cpu_work *w)
{
	size_t n = dataset__nruns(ds), nslow = 0;
	double *work = malloc(n * sizeof(*work) + 1), *ran = malloc(n * sizeof(*ran) + 1);
	int err = -ENOMEM;

	memset(w, 0, sizeof(*w));
	w->proxy = w->share = w->fast_share = w->excess = w->threshold = NAN;
	w->p_mw = w->runs_p = 1;
	w->gap = (struct stats_gap){.p = 1, .lo = NAN, .hi = NAN};
	if (!work || !ran)
		goto cleanup;
	err = 0;
	if (!r->waits || !r->slow || !(answer_added > 0))
		goto cleanup;
	for (size_t i = 0; i < n; i++)
		nslow += !!r->slow[i];
	if (!nslow || nslow >= n)
		goto cleanup;
	per_run(ds, r, work, ran);
	/*
	 * The answer's added time that other threads spent on a CPU: the
	 * whole run's wait is made of every blocker's pieces; a blocker on a
	 * CPU (the waits followed) is all of it
	 */
	w->proxy = all_ran ? 1 : diagnosis__added(ran, r->slow, n) / answer_added;
	if (!(w->proxy >= 0.5))
		goto cleanup;
	w->tested = true;
	err = judge(ds, o, r, work, w);
cleanup:
	free(work);
	free(ran);
	return err;
}
