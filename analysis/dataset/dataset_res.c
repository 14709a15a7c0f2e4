/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Pass 3: resource usage of a few chosen functions per run (PerfProbe
 * section IV-C: counters summed over the function's execution intervals),
 * and who woke them up for IPC waits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dataset_impl.h"

struct peers {
	struct dataset_peer *p;
	size_t n, cap;
};

struct resources {
	size_t nfuncs, nruns;
	struct dataset_res *res; /* nfuncs x nruns */
	struct peers *peers;	 /* nfuncs */
};

static void add_res(void *ctx, size_t run, int32_t slot, const uint64_t *vals, int sign)
{
	struct resources *r = ctx;
	struct dataset_res *x = &r->res[(size_t)slot * r->nruns + run];

	for (int c = 0; c < XLP_NR_CTR; c++)
		x->ctr[c] += sign > 0 ? vals[c] : -vals[c];
	x->ncalls += sign > 0 ? 1 : -1;
}

/* Counts one IPC wake-up; entries of one run are mostly adjacent. */
static void add_peer(void *ctx, size_t run, int32_t slot, const struct xlp_call_rec *rec)
{
	struct resources *r = ctx;
	struct peers *ps = &r->peers[slot];
	struct dataset_peer *p;

	if (!(rec->flags & XLP_CALL_IPC_PEER) || !rec->ipc_peer_pid)
		return;
	for (size_t i = ps->n; i-- > 0 && ps->p[i].run == run;) {
		if (ps->p[i].pid == rec->ipc_peer_pid) {
			ps->p[i].count++;
			return;
		}
	}
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 16;
		struct dataset_peer *np = realloc(ps->p, cap * sizeof(*np));

		if (!np)
			return; /* a missing peer name is not worth failing the report */
		ps->p = np;
		ps->cap = cap;
	}
	p = &ps->p[ps->n++];
	p->run = (uint32_t)run;
	p->pid = rec->ipc_peer_pid;
	p->count = 1;
	memcpy(p->comm, rec->ipc_peer_comm, sizeof(p->comm));
	p->comm[sizeof(p->comm) - 1] = 0;
}

/* A sampled function's usage: the weights of its samples, by their reasons. */
static void add_sampled_res(void *ctx, const struct dataset_smp *s, int32_t slot)
{
	struct resources *r = ctx;
	struct dataset_res *x = &r->res[(size_t)slot * r->nruns + s->run];

	x->ncalls++;
	x->ctr[XLP_C_WALL] += s->weight;
	x->ctr[s->reason] += s->weight;
}

int dataset__resources(const struct dataset *ds, const uint32_t *funcs, size_t nfuncs,
		       struct resources **out, char *err, size_t errlen)
{
	struct resources *r = calloc(1, sizeof(*r));
	int32_t *slot = malloc(ds->nfuncs * sizeof(*slot) + 1);
	struct dataset_scan s = {.ds = (struct dataset *)ds,
				 .slot = slot,
				 .add = add_res,
				 .call = add_peer,
				 .ctx = r};
	int ret = -ENOMEM;

	*out = NULL;
	if (!r || !slot)
		goto cleanup;
	r->nfuncs = nfuncs;
	r->nruns = ds->nruns;
	r->res = calloc(nfuncs * ds->nruns + 1, sizeof(*r->res));
	r->peers = calloc(nfuncs + 1, sizeof(*r->peers));
	if (!r->res || !r->peers)
		goto cleanup;
	for (size_t g = 0; g < ds->nfuncs; g++)
		slot[g] = -1;
	for (size_t k = 0; k < nfuncs; k++)
		if (slot[funcs[k]] < 0) /* a function listed twice is counted once */
			slot[funcs[k]] = (int32_t)k;
	ret = 0;
	for (size_t fi = 0; fi < ds->nfiles && !ret; fi++) {
		s.file = fi;
		ret = dataset__scan_file(&s, err, errlen);
	}
	if (!ret)
		ret = dataset__each_sampled(ds, slot, add_sampled_res, r);
	if (ret)
		goto cleanup;
	for (size_t k = 0; k < nfuncs; k++) /* duplicates share the first one's sums */
		if (slot[funcs[k]] != (int32_t)k)
			memcpy(&r->res[k * r->nruns], &r->res[(size_t)slot[funcs[k]] * r->nruns],
			       r->nruns * sizeof(*r->res));
	*out = r;
	r = NULL;
cleanup:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory: analyse fewer or smaller traces");
	free(slot);
	resources__free(r);
	return ret;
}

void resources__free(struct resources *r)
{
	if (!r)
		return;
	for (size_t k = 0; r->peers && k < r->nfuncs; k++)
		free(r->peers[k].p);
	free(r->peers);
	free(r->res);
	free(r);
}

const struct dataset_res *resources__get(const struct resources *r, size_t k, size_t run)
{
	return &r->res[k * r->nruns + run];
}

size_t resources__npeers(const struct resources *r, size_t k)
{
	return r->peers[k].n;
}

const struct dataset_peer *resources__peer(const struct resources *r, size_t k, size_t i)
{
	return &r->peers[k].p[i];
}
