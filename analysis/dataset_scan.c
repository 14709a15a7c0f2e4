/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Passes over the call records of a file, attributing each invocation of a
 * tracked function to the runs it belongs to.
 *
 * Recursion: records of one thread arrive in return order (post-order), so
 * when an invocation I arrives, the earlier records of its thread that
 * entered at or after I's entry are exactly those nested in I. Among them,
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
	uint32_t func, pid;
	int32_t slot;
	uint64_t entry;
	uint64_t vals[XLP_NR_CTR];
};

struct thr {
	uint32_t tid;
	bool used;
	size_t n, cap;
	struct open_call *c;
};

struct thr_tab {
	struct thr *t;
	size_t cap, n;
};

static uint32_t hash_tid(uint32_t tid)
{
	return tid * 2654435761u;
}

static int tab_grow(struct thr_tab *tab)
{
	size_t cap = tab->cap ? 2 * tab->cap : 256;
	struct thr *nt = calloc(cap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (size_t i = 0; i < tab->cap; i++) {
		size_t j = hash_tid(tab->t[i].tid) & (cap - 1);

		if (!tab->t[i].used)
			continue;
		while (nt[j].used)
			j = (j + 1) & (cap - 1);
		nt[j] = tab->t[i];
	}
	free(tab->t);
	tab->t = nt;
	tab->cap = cap;
	return 0;
}

static struct thr *tab_get(struct thr_tab *tab, uint32_t tid)
{
	size_t j;

	if (2 * (tab->n + 1) > tab->cap && tab_grow(tab))
		return NULL;
	j = hash_tid(tid) & (tab->cap - 1);
	while (tab->t[j].used && tab->t[j].tid != tid)
		j = (j + 1) & (tab->cap - 1);
	if (!tab->t[j].used) {
		tab->t[j].used = true;
		tab->t[j].tid = tid;
		tab->n++;
	}
	return &tab->t[j];
}

static void tab_free(struct thr_tab *tab)
{
	for (size_t i = 0; i < tab->cap; i++)
		free(tab->t[i].c);
	free(tab->t);
}

void ds_runs_at(const struct dataset *ds, size_t fi, uint32_t pid, uint64_t t,
		void (*fn)(void *ctx, size_t run), void *ctx)
{
	const struct ds_file *f = &ds->files[fi];
	size_t lo = f->run_off, hi = f->run_off + f->nruns;

	while (lo < hi) { /* first run with (pid, win_lo) > (pid, t) */
		size_t mid = lo + (hi - lo) / 2;
		const struct ds_run *r = &ds->runs[mid];

		if (r->pid < pid || (r->pid == pid && ds->win_lo[mid] <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t j = lo; j-- > f->run_off;) {
		if (ds->runs[j].pid != pid || ds->max_hi[j] <= t)
			break;
		if (ds->win_lo[j] <= t && t < ds->win_hi[j])
			fn(ctx, j);
	}
}

struct add_ctx {
	const struct ds_scan *s;
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

/* Takes back the invocations of func nested in one entering at entry. */
static void take_back_nested(const struct ds_scan *s, struct thr *t, uint32_t func, uint64_t entry)
{
	size_t j = t->n, keep;

	while (j > 0 && t->c[j - 1].entry >= entry)
		j--;
	keep = j;
	for (size_t k = j; k < t->n; k++) {
		struct open_call *oc = &t->c[k];
		struct add_ctx a = {.s = s, .slot = oc->slot, .vals = oc->vals, .sign = -1};

		if (oc->func != func) {
			t->c[keep++] = *oc; /* still needed by its own function's callers */
			continue;
		}
		ds_runs_at(s->ds, s->file, oc->pid, oc->entry, add_one, &a);
	}
	t->n = keep;
}

static int push_open(struct thr *t, uint32_t func, int32_t slot, const struct xlp_call_rec *c,
		     const uint64_t *vals)
{
	struct open_call *oc;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;
		struct open_call *nc = realloc(t->c, cap * sizeof(*nc));

		if (!nc)
			return -ENOMEM;
		t->c = nc;
		t->cap = cap;
	}
	oc = &t->c[t->n++];
	oc->func = func;
	oc->pid = c->pid;
	oc->slot = slot;
	oc->entry = c->entry_ns;
	memcpy(oc->vals, vals, sizeof(oc->vals));
	return 0;
}

static int on_call(const struct ds_scan *s, struct thr_tab *tab, const struct xlp_call_rec *c)
{
	const struct ds_file *f = &s->ds->files[s->file];
	uint32_t g = c->func_id < f->nlocal ? f->fmap[c->func_id] : DS_NONE;
	int32_t slot = g == DS_NONE ? -1 : s->slot[g];
	bool excl = s->ds->opts.exclusive;
	uint64_t vals[XLP_NR_CTR];
	struct add_ctx a = {.s = s, .slot = slot, .vals = vals, .rec = c, .sign = 1};
	struct thr *t = NULL;

	memcpy(vals, excl ? c->excl : c->incl, sizeof(vals));
	/* exclusive times never count a nested call twice: no bookkeeping */
	if (!excl) {
		t = tab_get(tab, c->tid);
		if (!t)
			return -ENOMEM;
		if (slot >= 0)
			take_back_nested(s, t, g, c->entry_ns);
	}
	if (slot >= 0) {
		ds_runs_at(s->ds, s->file, c->pid, c->entry_ns, add_one, &a);
		if (t && c->depth > 0 && push_open(t, g, slot, c, vals))
			return -ENOMEM;
	}
	if (t && c->depth == 0)
		t->n = 0;
	return 0;
}

int ds_scan_file(const struct ds_scan *s, char *err, size_t errlen)
{
	const char *path = s->ds->files[s->file].path;
	struct trace_reader *r = NULL;
	struct thr_tab tab = {0};
	const struct xlp_hdr *h;
	char why[256] = "";
	int ret;

	ret = trace_reader__open(path, &r, why, sizeof(why));
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, why[0] ? why : strerror(-ret));
		return ret;
	}
	while ((ret = trace_reader__next(r, &h)) > 0) {
		if (h->type != XLP_R_CALL || h->size < sizeof(struct xlp_call_rec))
			continue;
		ret = on_call(s, &tab, (const struct xlp_call_rec *)h);
		if (ret)
			break;
	}
	if (ret < 0)
		snprintf(err, errlen, "%s: %s: check the file", path,
			 ret == -ENOMEM ? "out of memory" : strerror(-ret));
	tab_free(&tab);
	trace_reader__close(r);
	return ret < 0 ? ret : 0;
}
