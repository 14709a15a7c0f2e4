/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Passes over the call records of a file, attributing each invocation of a
 * tracked function to the runs it belongs to.
 *
 * Recursion: records of one thread arrive in return order (post-order), so
 * when an invocation I arrives, the earlier records of its thread that
 * entered at or after I's entry are exactly those nested in I (its subtree:
 * the tail of the thread's pending list, see dataset_impl.h). Among them,
 * those of I's own function were counted already and are taken back. A
 * record at depth 0 closes everything its thread had open, so the per-thread
 * list stays as small as one call tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dataset_impl.h"

struct open_call {
	struct dataset_pend h; /* entry, func, depth */
	uint32_t pid;
	int32_t slot;
	uint64_t vals[XLP_NR_CTR];
};

struct stab {
	const struct dataset *ds;
	size_t lo, hi; /* the runs of the pid that start at or before t */
	uint64_t t;
	void (*fn)(void *ctx, size_t run);
	void *ctx;
};

/* The runs of node's range within [lo, hi) that end after t, highest first. */
static void stab_visit(const struct stab *s, size_t node, size_t nlo, size_t nhi)
{
	size_t mid = nlo + (nhi - nlo) / 2;

	if (nhi <= s->lo || nlo >= s->hi || s->ds->seg[node] <= s->t)
		return;
	if (nhi - nlo == 1) {
		s->fn(s->ctx, nlo);
		return;
	}
	stab_visit(s, 2 * node + 1, mid, nhi);
	stab_visit(s, 2 * node, nlo, mid);
}

/*
 * O((k + 1) log n) for the k runs holding t: the runs of a file are sorted
 * by (pid, window start), so those of pid starting at or before t are one
 * range, and the max tree over the window ends skips the parts of it that
 * ended before t (a long run early on no longer makes every later call
 * walk over every run after it).
 */
void dataset__runs_at(const struct dataset *ds, size_t fi, uint32_t pid, uint64_t t,
		      void (*fn)(void *ctx, size_t run), void *ctx)
{
	const struct dataset_file *f = &ds->files[fi];
	struct stab s = {.ds = ds, .t = t, .fn = fn, .ctx = ctx};
	size_t lo = f->run_off, hi = f->run_off + f->nruns;

	while (lo < hi) { /* first run with (pid, win_lo) > (pid, t) */
		size_t mid = lo + (hi - lo) / 2;
		const struct dataset_run *r = &ds->runs[mid];

		if (r->pid < pid || (r->pid == pid && ds->win_lo[mid] <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	s.hi = lo;
	for (lo = f->run_off, hi = s.hi; lo < hi;) { /* first run of pid */
		size_t mid = lo + (hi - lo) / 2;

		if (ds->runs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	s.lo = lo;
	if (s.lo < s.hi)
		stab_visit(&s, 1, 0, ds->seg_size);
}

struct add_ctx {
	const struct dataset_scan *s;
	int32_t slot;
	const uint64_t *vals;
	const struct xlp_call_rec *rec;
	int sign;
};

static void add_one(void *ctx, size_t run)
{
	struct add_ctx *a = ctx;

	a->s->add(a->s->ctx, run, a->slot, a->vals, a->sign);
	if (a->rec && a->s->call)
		a->s->call(a->s->ctx, run, a->slot, a->rec);
}

/* Takes back the invocations of func in the subtree of call c (linear: see dataset_impl.h). */
static void take_back_nested(const struct dataset_scan *s, struct dataset_pending *pd,
			     struct dataset_pend_thr *t, uint32_t func,
			     const struct xlp_call_rec *c)
{
	size_t keep = dataset__pending_subtree(pd, t, c->entry_ns, c->depth);

	for (size_t k = keep; k < t->n; k++) {
		struct open_call *oc = (struct open_call *)dataset__pend_at(pd, t, k);
		struct add_ctx a = {.s = s, .slot = oc->slot, .vals = oc->vals, .sign = -1};

		if (oc->h.func != func) {
			/* still needed by its own function's callers */
			memmove(dataset__pend_at(pd, t, keep++), oc, pd->item_size);
			continue;
		}
		dataset__runs_at(s->ds, s->file, oc->pid, oc->h.entry, add_one, &a);
	}
	t->n = keep;
}

/*
 * An interaction's runqueue wait before its entry (prewake): the run's
 * first segment, a leaf of no other call, all of it cpu_wait.
 */
static void on_queued(const struct dataset_scan *s, const struct dataset_file *f,
		      const struct xlp_call_rec *c)
{
	uint32_t g = c->func_id < f->nlocal ? f->qmap[c->func_id] : DATASET_NONE;
	uint64_t vals[XLP_NR_CTR] = {0};
	struct add_ctx a = {.s = s, .vals = vals, .sign = 1};

	/* record --lag: a run written as its call alone is in no run's table */
	if (g == DATASET_NONE || s->slot[g] < 0 || !c->incl[XLP_C_QUEUED] ||
	    (c->flags & XLP_CALL_SUMMARY))
		return;
	a.slot = s->slot[g];
	vals[XLP_C_WALL] = vals[XLP_C_CPU_WAIT] = vals[XLP_C_QUEUED] = c->incl[XLP_C_QUEUED];
	/* the run starts at the wakeup: entry_ns is already moved back to it */
	dataset__runs_at(s->ds, s->file, c->pid, c->entry_ns, add_one, &a);
}

static int on_call(const struct dataset_scan *s, struct dataset_pending *pd,
		   const struct xlp_call_rec *c)
{
	const struct dataset_file *f = &s->ds->files[s->file];
	uint32_t g = c->func_id < f->nlocal ? f->fmap[c->func_id] : DATASET_NONE;
	int32_t slot = g == DATASET_NONE ? -1 : s->slot[g];
	bool excl = s->ds->opts.exclusive;
	uint64_t vals[XLP_NR_CTR];
	struct add_ctx a = {.s = s, .slot = slot, .vals = vals, .rec = c, .sign = 1};
	struct dataset_pend_thr *t = NULL;
	struct open_call *oc;

	on_queued(s, f, c);
	memcpy(vals, excl ? c->excl : c->incl, sizeof(vals));
	/* exclusive times never count a nested call twice: no bookkeeping */
	if (!excl) {
		t = dataset__pending_thread(pd, c->tid);
		if (!t)
			return -ENOMEM;
		if (slot >= 0)
			take_back_nested(s, pd, t, g, c);
	}
	if (slot >= 0) {
		dataset__runs_at(s->ds, s->file, c->pid, c->entry_ns, add_one, &a);
		if (t && dataset__pend_nestable(c->depth)) {
			oc = dataset__pending_push(pd, t, c->entry_ns, g, c->depth);
			if (!oc)
				return -ENOMEM;
			oc->pid = c->pid;
			oc->slot = slot;
			memcpy(oc->vals, vals, sizeof(oc->vals));
		}
	}
	if (t && c->depth == 0)
		t->n = 0;
	return 0;
}

int dataset__each_record(const char *path, int (*fn)(void *ctx, const struct xlp_hdr *h), void *ctx,
			 char *err, size_t errlen)
{
	struct trace_reader *r = NULL;
	const struct xlp_hdr *h;
	char why[256] = "";
	int ret;

	ret = trace_reader__open(path, &r, why, sizeof(why));
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, why[0] ? why : strerror(-ret));
		return ret;
	}
	while ((ret = trace_reader__next(r, &h)) > 0) {
		ret = fn(ctx, h);
		if (ret)
			break;
	}
	if (ret < 0)
		snprintf(err, errlen, "%s: %s: check the file", path,
			 ret == -ENOMEM ? "out of memory" : strerror(-ret));
	trace_reader__close(r);
	return ret < 0 ? ret : 0;
}

struct each_call {
	int (*fn)(void *ctx, const struct xlp_call_rec *c);
	void *ctx;
};

static int call_only(void *ctx, const struct xlp_hdr *h)
{
	const struct each_call *e = ctx;

	if (h->type != XLP_R_CALL || h->size < sizeof(struct xlp_call_rec))
		return 0;
	return e->fn(e->ctx, (const struct xlp_call_rec *)h);
}

int dataset__each_call(const struct dataset *ds, size_t fi,
		       int (*fn)(void *ctx, const struct xlp_call_rec *c), void *ctx, char *err,
		       size_t errlen)
{
	struct each_call e = {fn, ctx};

	return dataset__each_record(ds->files[fi].path, call_only, &e, err, errlen);
}

struct scan_pass {
	const struct dataset_scan *s;
	struct dataset_pending pd;
};

static int scan_call(void *ctx, const struct xlp_call_rec *c)
{
	struct scan_pass *p = ctx;

	return on_call(p->s, &p->pd, c);
}

int dataset__scan_file(const struct dataset_scan *s, char *err, size_t errlen)
{
	struct scan_pass p = {.s = s};
	int ret;

	dataset__pending_init(&p.pd, sizeof(struct open_call));
	ret = dataset__each_call(s->ds, s->file, scan_call, &p, err, errlen);
	dataset__pending_free(&p.pd);
	return ret;
}
