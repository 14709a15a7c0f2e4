/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who held the CPU (issue 36): for every answer whose factor is cpu_wait
 * (a critical function's, the whole run's) and for the runqueue wait
 * before the handler, the tasks that ran on the CPU its threads waited
 * for, over the slow runs. One more pass over the traces, only when an
 * answer needs it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diagnosis_impl.h"

static bool has_cpu_wait(const struct diagnosis_critical *c)
{
	for (size_t k = 0; k < c->s2.nfactors; k++)
		if (c->s2.factors[k].feat == DIAGNOSIS_CPU_WAIT)
			return true;
	return false;
}

/* Scope k over the slow runs into x. */
static int fill(const struct thieves *th, size_t k, const uint8_t *slow, uint32_t nslow,
		struct diagnosis_thieves *x)
{
	struct dataset_thief_sum s;
	double n = nslow ? nslow : 1;
	int err = thieves__sum(th, k, slow, &s);

	memset(x, 0, sizeof(*x));
	if (err)
		return err;
	x->known = s.waits > 0;
	x->waits = s.waits;
	x->wait_ns = s.wait_ns / n;
	x->idle_ns = s.idle_ns / n;
	x->irq_ns = s.irq_ns / n;
	x->steal_ns = s.steal_ns / n;
	x->unknown_ns = s.unknown_ns / n;
	for (size_t i = 0; i < s.n && x->n < DIAGNOSIS_MAX_THIEVES; i++) {
		struct diagnosis_thief *t = &x->t[x->n++];

		t->pid = s.t[i].pid;
		t->tid = s.t[i].tid;
		memcpy(t->comm, s.t[i].comm, sizeof(t->comm));
		t->own_process = s.t[i].own_process;
		t->child = s.t[i].child;
		t->kernel_thread = s.t[i].flags & XLP_THIEF_KTHREAD;
		t->ns = s.t[i].ns / n;
		t->share = s.wait_ns > 0 ? s.t[i].ns / s.wait_ns : 0;
	}
	dataset_thief_sum__release(&s);
	return 0;
}

int diagnosis_thieves(const struct dataset *ds, struct diagnosis *r, char *err, size_t errlen)
{
	size_t nc = r->ncrit + r->nrejected, nf = 0, q = SIZE_MAX;
	uint32_t *funcs = malloc((nc + 1) * sizeof(*funcs));
	bool any = false;
	struct thieves *th = NULL;
	int ret = -ENOMEM;

	if (!funcs)
		goto cleanup;
	for (size_t i = 0; i < nc; i++) {
		funcs[nf++] = r->crit[i].func;
		any |= has_cpu_wait(&r->crit[i]);
	}
	any |= r->fallback.holds && r->fallback.feat == DIAGNOSIS_CPU_WAIT;
	/* the queue before the handler: the first landmark's */
	for (size_t g = 0; g < dataset__nfuncs(ds) && q == SIZE_MAX; g++)
		if (dataset__func(ds, g)->queued) {
			q = nf;
			funcs[nf++] = (uint32_t)g;
		}
	any |= q != SIZE_MAX;
	ret = 0;
	if (!any || !r->slow || !(dataset__features(ds) & XLP_FEAT_SCHED))
		goto cleanup;
	ret = dataset__thieves(ds, funcs, nf, &th, err, errlen);
	if (ret || !thieves__recorded(th))
		goto cleanup;
	for (size_t i = 0; i < nc && !ret; i++)
		if (has_cpu_wait(&r->crit[i]))
			ret = fill(th, i, r->slow, r->lab.nslow, &r->crit[i].thieves);
	if (!ret && r->fallback.holds && r->fallback.feat == DIAGNOSIS_CPU_WAIT)
		ret = fill(th, nf, r->slow, r->lab.nslow, &r->fallback.thieves);
	if (!ret && q != SIZE_MAX)
		ret = fill(th, q, r->slow, r->lab.nslow, &r->queued_thieves);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory: analyse fewer or smaller traces");
cleanup:
	if (ret == -ENOMEM && !funcs)
		snprintf(err, errlen, "out of memory: analyse fewer or smaller traces");
	thieves__free(th);
	free(funcs);
	return ret;
}
