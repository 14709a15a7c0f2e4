/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A pass over the thief records (bpf/thief.bpf.h): who held the CPU while
 * a traced thread waited for it, per run and per chosen function. A wait
 * belongs to the calls of its thread that were open when it ended (its
 * switch-in), to the runs those calls belong to, and to the run of its own
 * thread whose window holds that moment; a wait before a run's handler
 * (prewake) lies in the run's window before the handler's entry.
 *
 * The calls of a thread nest (their intervals are laminar), so a sweep over
 * each thread's calls and waits in time order, with the open calls on a
 * stack, finds the calls around every wait: linear after sorting.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dataset_impl.h"

struct th_ent { /* one thief's time in one wait, for scope k and run */
	uint32_t k, run;
	struct dataset_thief who;
};

struct th_part { /* one wait's breakdown, for scope k and run */
	uint32_t k, run;
	double wait, idle, irq, steal, unknown, named;
};

struct thieves {
	size_t nscopes, nruns;
	struct th_ent *e;
	size_t ne, ecap;
	struct th_part *p;
	size_t np, pcap;
	uint64_t records;
};

/* What one file holds, before the sweep. */
struct th_ev {
	uint32_t tid, pid;
	uint64_t t;   /* call: entry; wait: end */
	uint64_t end; /* call: its end */
	int32_t k;    /* call: its scope; wait: -1 */
	uint32_t rec; /* wait: index into the file's records */
};

struct th_file {
	const struct dataset *ds;
	struct thieves *th;
	size_t fi;
	const int32_t *slot; /* global function -> scope, -1 */
	const uint32_t
		*queued; /* per scope: its function if queued before a handler, else DATASET_NONE */
	struct th_ev *ev;
	size_t nev, evcap;
	struct xlp_thief_rec *recs; /* the waits, each with XLP_THIEF_MAX slots */
	size_t nrecs, reccap;
	uint32_t *forked; /* pids the traced processes forked */
	size_t nforked, fcap;
	/* for the runs_at callbacks */
	const struct xlp_thief_rec *cur;
	uint32_t cur_k, cur_tid;
	int err;
};

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : 64;
	q = realloc(*p, c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

static int take(void *ctx, const struct xlp_hdr *h)
{
	struct th_file *f = ctx;
	const struct dataset_file *df = &f->ds->files[f->fi];

	switch (h->type) {
	case XLP_R_CALL: {
		const struct xlp_call_rec *c = (const void *)h;
		uint32_t g;

		if (c->func_id >= df->nlocal || (g = df->fmap[c->func_id]) == DATASET_NONE ||
		    f->slot[g] < 0)
			return 0;
		if (grow((void **)&f->ev, &f->evcap, f->nev, sizeof(*f->ev)))
			return -ENOMEM;
		f->ev[f->nev++] = (struct th_ev){.tid = c->tid,
						 .pid = c->pid,
						 .t = c->entry_ns,
						 .end = c->entry_ns + c->incl[XLP_C_WALL],
						 .k = f->slot[g]};
		return 0;
	}
	case XLP_R_THIEF: {
		const struct xlp_thief_rec *w = (const void *)h;
		uint32_t n = xlp_thief_count(w);

		if (grow((void **)&f->recs, &f->reccap, f->nrecs,
			 sizeof(*f->recs) + XLP_THIEF_MAX * sizeof(struct xlp_thief)) ||
		    grow((void **)&f->ev, &f->evcap, f->nev, sizeof(*f->ev)))
			return -ENOMEM;
		/* fixed-size slots: the record's thieves copied into its own */
		memcpy((char *)f->recs +
			       f->nrecs * (sizeof(*w) + XLP_THIEF_MAX * sizeof(struct xlp_thief)),
		       w, sizeof(*w) + n * sizeof(struct xlp_thief));
		((struct xlp_thief_rec *)((char *)f->recs +
					  f->nrecs * (sizeof(*w) +
						      XLP_THIEF_MAX * sizeof(struct xlp_thief))))
			->nthieves = n;
		f->ev[f->nev++] = (struct th_ev){.tid = w->tid,
						 .pid = w->pid,
						 .t = w->end_ns,
						 .k = -1,
						 .rec = (uint32_t)f->nrecs};
		f->nrecs++;
		f->th->records++;
		return 0;
	}
	case XLP_R_FORK: {
		const struct xlp_fork_rec *k = (const void *)h;

		if (grow((void **)&f->forked, &f->fcap, f->nforked, sizeof(*f->forked)))
			return -ENOMEM;
		f->forked[f->nforked++] = k->pid;
		return 0;
	}
	default:
		return 0;
	}
}

static const struct xlp_thief_rec *rec_at(const struct th_file *f, uint32_t i)
{
	return (const void *)((const char *)f->recs +
			      i * (sizeof(struct xlp_thief_rec) +
				   XLP_THIEF_MAX * sizeof(struct xlp_thief)));
}

/* By thread, then time; at one time a call's entry before a wait's end. */
static int ev_cmp(const void *a, const void *b)
{
	const struct th_ev *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if ((x->k < 0) != (y->k < 0))
		return x->k < 0 ? 1 : -1;
	/* the longer (outer) call first */
	return x->end > y->end ? -1 : x->end < y->end;
}

static bool forked(const struct th_file *f, uint32_t pid)
{
	for (size_t i = 0; i < f->nforked; i++)
		if (f->forked[i] == pid)
			return true;
	return false;
}

/* Adds wait w to scope k of run. */
static void charge(struct th_file *f, const struct xlp_thief_rec *w, uint32_t k, size_t run)
{
	struct thieves *th = f->th;
	struct th_part *p;
	double named = 0;

	for (uint32_t i = 0; i < w->nthieves && !f->err; i++) {
		const struct xlp_thief *x = &w->thieves[i];
		struct th_ent *e;

		if (grow((void **)&th->e, &th->ecap, th->ne, sizeof(*th->e))) {
			f->err = -ENOMEM;
			return;
		}
		e = &th->e[th->ne++];
		memset(e, 0, sizeof(*e));
		e->k = k;
		e->run = (uint32_t)run;
		e->who.pid = x->pid;
		e->who.tid = x->tid;
		memcpy(e->who.comm, x->comm, sizeof(e->who.comm));
		e->who.comm[sizeof(e->who.comm) - 1] = 0;
		e->who.flags = x->flags;
		e->who.own_process = x->pid == w->pid;
		e->who.child = !e->who.own_process && forked(f, x->pid);
		e->who.ns = (double)x->ns;
		named += (double)x->ns;
	}
	if (f->err || grow((void **)&th->p, &th->pcap, th->np, sizeof(*th->p))) {
		f->err = -ENOMEM;
		return;
	}
	p = &th->p[th->np++];
	p->k = k;
	p->run = (uint32_t)run;
	p->wait = (double)w->wait_ns;
	p->idle = (double)w->idle_ns;
	p->irq = (double)w->irq_ns;
	p->steal = (double)w->steal_ns;
	p->named = named;
	/* the rest of the wait, whatever the record's parts add up to */
	p->unknown = p->wait - p->idle - p->irq - p->steal - named;
	if (p->unknown < 0)
		p->unknown = 0;
}

static void at_call_run(void *ctx, size_t run)
{
	struct th_file *f = ctx;

	charge(f, f->cur, f->cur_k, run);
}

/* The runs whose window holds the wait's end: its own thread's (or a launch's), and their queue. */
static void at_wait_run(void *ctx, size_t run)
{
	struct th_file *f = ctx;
	const struct dataset_run *r = &f->ds->runs[run];
	const struct xlp_thief_rec *w = f->cur;

	if (r->summary || (r->tid && r->tid != w->tid))
		return;
	charge(f, w, (uint32_t)f->th->nscopes - 1, run);
	if (!r->tid || !r->queued_ns || w->end_ns > r->start_ns + r->queued_ns)
		return;
	for (uint32_t k = 0; k + 1 < f->th->nscopes; k++)
		if (f->queued[k] != DATASET_NONE && f->queued[k] < f->ds->ntimed &&
		    dataset__time(f->ds, run, f->queued[k]))
			charge(f, w, k, run);
}

/* The sweep over one thread's events [i, j). */
static void sweep(struct th_file *f, size_t i, size_t j)
{
	struct th_ev *stack[XLP_MAX_DEPTH * 4];
	size_t depth = 0;

	for (; i < j && !f->err; i++) {
		struct th_ev *e = &f->ev[i];

		while (depth && stack[depth - 1]->end < e->t)
			depth--;
		if (e->k >= 0) {
			if (depth < sizeof(stack) / sizeof(stack[0]))
				stack[depth++] = e;
			continue;
		}
		f->cur = rec_at(f, e->rec);
		dataset__runs_at(f->ds, f->fi, e->pid, e->t, at_wait_run, f);
		/* each scope once, by its outermost call open now */
		for (size_t d = 0; d < depth; d++) {
			bool seen = false;

			for (size_t o = 0; o < d && !seen; o++)
				seen = stack[o]->k == stack[d]->k;
			if (seen || f->queued[stack[d]->k] != DATASET_NONE)
				continue;
			f->cur_k = (uint32_t)stack[d]->k;
			dataset__runs_at(f->ds, f->fi, stack[d]->pid, stack[d]->t, at_call_run, f);
		}
	}
}

static int one_file(struct th_file *f, char *err, size_t errlen)
{
	int ret = dataset__each_record(f->ds->files[f->fi].path, take, f, err, errlen);

	if (ret)
		return ret;
	if (!f->nrecs)
		return 0;
	qsort(f->ev, f->nev, sizeof(*f->ev), ev_cmp);
	for (size_t i = 0, j; i < f->nev && !f->err; i = j) {
		for (j = i; j < f->nev && f->ev[j].tid == f->ev[i].tid; j++)
			;
		sweep(f, i, j);
	}
	return f->err;
}

int dataset__thieves(const struct dataset *ds, const uint32_t *funcs, size_t nfuncs,
		     struct thieves **out, char *err, size_t errlen)
{
	struct thieves *th = calloc(1, sizeof(*th));
	int32_t *slot = malloc(ds->nfuncs * sizeof(*slot) + 1);
	uint32_t *queued = malloc((nfuncs + 1) * sizeof(*queued));
	struct th_file f = {.ds = ds, .th = th, .slot = slot, .queued = queued};
	int ret = -ENOMEM;

	*out = NULL;
	if (!th || !slot || !queued)
		goto cleanup;
	th->nscopes = nfuncs + 1;
	th->nruns = ds->nruns;
	for (size_t g = 0; g < ds->nfuncs; g++)
		slot[g] = -1;
	for (size_t k = 0; k < nfuncs; k++) {
		if (funcs[k] < ds->nfuncs && slot[funcs[k]] < 0)
			slot[funcs[k]] = (int32_t)k;
		queued[k] = funcs[k] < ds->nfuncs && ds->funcs[funcs[k]].queued ? funcs[k]
										: DATASET_NONE;
	}
	ret = 0;
	for (size_t fi = 0; fi < ds->nfiles && !ret; fi++) {
		f.fi = fi;
		f.nev = f.nrecs = f.nforked = 0;
		ret = one_file(&f, err, errlen);
	}
	if (ret)
		goto cleanup;
	/* a function listed twice: its later scopes share the first's */
	for (size_t k = 0; k < nfuncs; k++) {
		size_t first = funcs[k] < ds->nfuncs ? (size_t)slot[funcs[k]] : k;
		size_t ne = th->ne, np = th->np;

		if (first == k)
			continue;
		for (size_t i = 0; i < ne && !ret; i++) {
			if (th->e[i].k != first)
				continue;
			ret = grow((void **)&th->e, &th->ecap, th->ne, sizeof(*th->e));
			if (!ret) {
				th->e[th->ne] = th->e[i];
				th->e[th->ne++].k = (uint32_t)k;
			}
		}
		for (size_t i = 0; i < np && !ret; i++) {
			if (th->p[i].k != first)
				continue;
			ret = grow((void **)&th->p, &th->pcap, th->np, sizeof(*th->p));
			if (!ret) {
				th->p[th->np] = th->p[i];
				th->p[th->np++].k = (uint32_t)k;
			}
		}
	}
	if (ret)
		goto cleanup;
	*out = th;
	th = NULL;
cleanup:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory: analyse fewer or smaller traces");
	free(f.ev);
	free(f.recs);
	free(f.forked);
	free(slot);
	free(queued);
	thieves__free(th);
	return ret;
}

void thieves__free(struct thieves *th)
{
	if (!th)
		return;
	free(th->e);
	free(th->p);
	free(th);
}

bool thieves__recorded(const struct thieves *th)
{
	return th && th->records;
}

/*
 * The same thief as a user names it: by name and kind, not by pid, so that
 * the child a server forks for each snapshot (redis's BGSAVE), or a pool of
 * runtime threads of one name, adds up to one; the pid and tid shown are
 * the first met. Tasks that exited unnamed stay apart by pid.
 */
bool dataset_thief__same(const struct dataset_thief *a, const struct dataset_thief *b)
{
	if (!a->comm[0] || !b->comm[0])
		return a->pid == b->pid && a->tid == b->tid && !a->comm[0] && !b->comm[0];
	return !strncmp(a->comm, b->comm, XLP_COMM_LEN) && a->own_process == b->own_process &&
	       a->child == b->child &&
	       (a->flags & XLP_THIEF_KTHREAD) == (b->flags & XLP_THIEF_KTHREAD);
}

int dataset_thief__cmp_ns(const void *a, const void *b)
{
	const struct dataset_thief *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int thieves__sum(const struct thieves *th, size_t k, const uint8_t *runs,
		 struct dataset_thief_sum *out)
{
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	if (!th || k >= th->nscopes)
		return 0;
	for (size_t i = 0; i < th->np; i++) {
		const struct th_part *p = &th->p[i];

		if (p->k != k || p->run >= th->nruns || !runs[p->run])
			continue;
		out->waits++;
		out->wait_ns += p->wait;
		out->idle_ns += p->idle;
		out->irq_ns += p->irq;
		out->steal_ns += p->steal;
		out->unknown_ns += p->unknown;
	}
	for (size_t i = 0; i < th->ne; i++) {
		const struct th_ent *e = &th->e[i];
		size_t j;

		if (e->k != k || e->run >= th->nruns || !runs[e->run])
			continue;
		/* most of a run's waits have the same few thieves: the last
		 * ones found come first */
		for (j = out->n; j-- > 0;)
			if (dataset_thief__same(&out->t[j], &e->who))
				break;
		if (j != (size_t)-1) {
			out->t[j].ns += e->who.ns;
			continue;
		}
		if (grow((void **)&out->t, &cap, out->n, sizeof(*out->t))) {
			dataset_thief_sum__release(out);
			return -ENOMEM;
		}
		out->t[out->n++] = e->who;
	}
	if (out->n)
		qsort(out->t, out->n, sizeof(*out->t), dataset_thief__cmp_ns);
	return 0;
}

void dataset_thief_sum__release(struct dataset_thief_sum *s)
{
	free(s->t);
	s->t = NULL;
	s->n = 0;
}
