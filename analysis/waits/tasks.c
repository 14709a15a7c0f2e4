/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Asynchronous tasks from record --task-post / --task-run (tasks.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dataset.h"
#include "tasks.h"
#include "util.h"

/* tasks looked back at for what held one in its queue (a bound, not a rule) */
#define HOLDER_SCAN 4096
/* runs looked back at for the one that posted a task */
#define RUN_SCAN 256

struct tev {
	uint64_t t, key;
	uint32_t pid, tid, func; /* func: global */
	uint16_t kind;
	uint32_t seq;
};

struct kcall {
	uint64_t entry, end;
	uint32_t tid, func; /* func: global, DATASET_NONE for an interaction */
	uint16_t depth;
	uint64_t incl[XLP_NR_CTR];
};

struct tasks {
	struct tasks_info info;
	struct tasks_task *t;
	size_t n, cap;
	size_t *by_start; /* indices by start_ns */
};

static int tev_cmp(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	/* at one instant a post comes before the start it feeds */
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int kcall_cmp(const void *a, const void *b)
{
	const struct kcall *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end; /* the enclosing one first */
}

struct file_pass {
	const struct dataset *ds;
	size_t fi;
	const char *path;
	struct tev *ev;
	size_t nev, evcap;
	uint32_t *tids; /* threads that start tasks, sorted */
	size_t ntids;
	struct kcall *calls;
	size_t ncalls, callcap;
};

static bool has_tid(const struct file_pass *fp, uint32_t tid)
{
	size_t lo = 0, hi = fp->ntids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fp->tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fp->ntids && fp->tids[lo] == tid;
}

static int keep_call(void *ctx, const struct xlp_call_rec *c)
{
	struct file_pass *fp = ctx;
	struct kcall *k;

	if (!has_tid(fp, c->tid))
		return 0;
	if (xlp_grow((void **)&fp->calls, &fp->callcap, fp->ncalls, sizeof(*fp->calls)))
		return -ENOMEM;
	k = &fp->calls[fp->ncalls++];
	k->entry = c->entry_ns;
	k->end = c->entry_ns + c->incl[XLP_C_WALL];
	k->tid = c->tid;
	k->func = dataset__file_func(fp->ds, fp->fi, c->func_id);
	k->depth = c->depth;
	memcpy(k->incl, c->incl, sizeof(k->incl));
	return 0;
}

static int read_events(struct file_pass *fp, struct tasks_info *info, char *err, size_t errlen)
{
	struct trace_reader *r = NULL;
	const struct xlp_hdr *h;
	char why[256] = "";
	uint32_t seq = 0;
	int ret = trace_reader__open(fp->path, &r, why, sizeof(why));

	if (ret) {
		snprintf(err, errlen, "%s: %s", fp->path, why[0] ? why : strerror(-ret));
		return ret;
	}
	while ((ret = trace_reader__next(r, &h)) > 0) {
		const struct xlp_taskev_rec *k = (const void *)h;

		if (h->type != XLP_R_TASKEV || h->size < sizeof(*k))
			continue;
		if (k->kind != XLP_TASKEV_POST && k->kind != XLP_TASKEV_RUN)
			continue;
		if (xlp_grow((void **)&fp->ev, &fp->evcap, fp->nev, sizeof(*fp->ev))) {
			ret = -ENOMEM;
			break;
		}
		fp->ev[fp->nev++] =
			(struct tev){.t = k->entry_ns,
				     .key = k->key,
				     .pid = k->pid,
				     .tid = k->tid,
				     .func = dataset__file_func(fp->ds, fp->fi, k->func_id),
				     .kind = k->kind,
				     .seq = seq++};
		if (k->kind == XLP_TASKEV_POST)
			info->posts++;
		else
			info->starts++;
	}
	if (ret < 0)
		snprintf(err, errlen, "%s: %s: check the file", fp->path,
			 ret == -ENOMEM ? "out of memory" : strerror(-ret));
	trace_reader__close(r);
	return ret < 0 ? ret : 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* the run call of a start: same thread, same entry (the probes share the instant) */
static const struct kcall *call_of(const struct file_pass *fp, const struct tev *e)
{
	size_t lo = 0, hi = fp->ncalls;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct kcall *c = &fp->calls[mid];

		if (c->tid < e->tid || (c->tid == e->tid && c->entry < e->t))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < fp->ncalls && fp->calls[lo].tid == e->tid && fp->calls[lo].entry == e->t; lo++)
		if (fp->calls[lo].func == e->func)
			return &fp->calls[lo];
	return NULL;
}

/* the task's function: the first marked call directly inside its run call */
static uint32_t task_func(const struct file_pass *fp, const struct kcall *c)
{
	for (const struct kcall *k = c + 1;
	     k < fp->calls + fp->ncalls && k->tid == c->tid && k->entry < c->end; k++)
		if (k->depth == c->depth + 1 && k->end <= c->end && k->func != DATASET_NONE)
			return k->func;
	return c->func;
}

static int task_add(struct tasks *tk, const struct file_pass *fp, const struct tev *post,
		    const struct tev *start)
{
	const struct kcall *c = call_of(fp, start);
	struct tasks_task *t;

	if (xlp_grow((void **)&tk->t, &tk->cap, tk->n, sizeof(*tk->t)))
		return -ENOMEM;
	t = &tk->t[tk->n++];
	memset(t, 0, sizeof(*t));
	t->key = post->key;
	t->post_ns = post->t;
	t->start_ns = start->t;
	t->end_ns = c ? c->end : start->t;
	t->run = TASKS_NO_RUN;
	t->pid = post->pid;
	t->post_tid = post->tid;
	t->run_tid = start->tid;
	t->func = c ? task_func(fp, c) : DATASET_NO_FUNC;
	if (c)
		memcpy(t->ctr, c->incl, sizeof(t->ctr));
	else
		tk->info.no_call++;
	return 0;
}

static int file_tasks(const struct dataset *ds, size_t fi, struct tasks *tk, char *err,
		      size_t errlen)
{
	struct file_pass fp = {.ds = ds, .fi = fi, .path = dataset__file(ds, fi)->path};
	const struct tev *pending = NULL;
	int ret = read_events(&fp, &tk->info, err, errlen);

	if (ret || !fp.nev)
		goto cleanup;
	ret = -ENOMEM;
	fp.tids = malloc(fp.nev * sizeof(*fp.tids));
	if (!fp.tids)
		goto cleanup;
	for (size_t i = 0; i < fp.nev; i++)
		if (fp.ev[i].kind == XLP_TASKEV_RUN)
			fp.tids[fp.ntids++] = fp.ev[i].tid;
	if (fp.ntids)
		qsort(fp.tids, fp.ntids, sizeof(*fp.tids), u32_cmp);
	ret = dataset__each_call(ds, fi, keep_call, &fp, err, errlen);
	if (ret)
		goto cleanup;
	if (fp.ncalls)
		qsort(fp.calls, fp.ncalls, sizeof(*fp.calls), kcall_cmp);
	qsort(fp.ev, fp.nev, sizeof(*fp.ev), tev_cmp);
	/* per key, in time order: a start takes the post before it */
	for (size_t i = 0; i < fp.nev && !ret; i++) {
		const struct tev *e = &fp.ev[i];

		if (i && (e->pid != e[-1].pid || e->key != e[-1].key)) {
			tk->info.unstarted += pending != NULL;
			pending = NULL;
		}
		if (e->kind == XLP_TASKEV_POST) {
			tk->info.unstarted += pending != NULL; /* posted again, never started */
			pending = e;
		} else if (!pending) {
			tk->info.unposted++;
		} else {
			ret = task_add(tk, &fp, pending, e);
			pending = NULL;
		}
	}
	tk->info.unstarted += pending != NULL;
cleanup:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "async tasks: out of memory: fewer or shorter traces");
	free(fp.ev);
	free(fp.tids);
	free(fp.calls);
	return ret;
}

static int run_cmp(const void *a, const void *b, void *ds)
{
	const struct dataset_run *x = dataset__run(ds, *(const size_t *)a),
				 *y = dataset__run(ds, *(const size_t *)b);

	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

static int start_cmp(const void *a, const void *b, void *tasks)
{
	const struct tasks *tk = tasks;
	const struct tasks_task *x = &tk->t[*(const size_t *)a], *y = &tk->t[*(const size_t *)b];

	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

static int post_cmp(const void *a, const void *b)
{
	const struct tasks_task *x = a, *y = b;

	return x->post_ns < y->post_ns ? -1 : x->post_ns > y->post_ns;
}

/* the run of the task's process whose window holds its post; the posting thread's first */
static void run_of(const struct dataset *ds, const size_t *runs, size_t n, struct tasks_task *t)
{
	size_t lo = 0, hi = n, seen = 0;

	while (lo < hi) { /* first run starting after the post */
		size_t mid = lo + (hi - lo) / 2;

		if (dataset__run(ds, runs[mid])->start_ns <= t->post_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k-- > 0 && seen++ < RUN_SCAN;) {
		const struct dataset_run *r = dataset__run(ds, runs[k]);

		if (r->pid != t->pid || r->end_ns < t->post_ns)
			continue;
		if (t->run == TASKS_NO_RUN || r->tid == t->post_tid)
			t->run = (uint32_t)runs[k];
		if (r->tid == t->post_tid)
			break;
	}
}

void tasks__holders(const struct tasks *tk, size_t i,
		    void (*fn)(void *ctx, const struct tasks_task *by, double ns), void *ctx)
{
	const struct tasks_task *t = &tk->t[i];
	size_t lo = 0, hi = tk->n, seen = 0;

	if (t->start_ns <= t->post_ns)
		return;
	while (lo < hi) { /* first task starting at or after t */
		size_t mid = lo + (hi - lo) / 2;

		if (tk->t[tk->by_start[mid]].start_ns < t->start_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k-- > 0 && seen++ < HOLDER_SCAN;) {
		const struct tasks_task *u = &tk->t[tk->by_start[k]];
		uint64_t a = u->start_ns > t->post_ns ? u->start_ns : t->post_ns;
		uint64_t b = u->end_ns < t->start_ns ? u->end_ns : t->start_ns;

		if (u != t && u->pid == t->pid && b > a)
			fn(ctx, u, (double)(b - a));
	}
}

int tasks__build(const struct dataset *ds, struct tasks **out, char *err, size_t errlen)
{
	struct tasks *tk = calloc(1, sizeof(*tk));
	size_t nruns = dataset__nruns(ds), *runs = NULL;
	int ret = -ENOMEM;

	*out = NULL;
	if (!tk)
		goto cleanup;
	ret = 0;
	for (size_t fi = 0; fi < dataset__nfiles(ds) && !ret; fi++)
		ret = file_tasks(ds, fi, tk, err, errlen);
	if (ret)
		goto cleanup;
	if (!tk->info.posts && !tk->info.starts) {
		tasks__free(tk);
		return 0;
	}
	ret = -ENOMEM;
	runs = malloc((nruns + 1) * sizeof(*runs));
	tk->by_start = malloc((tk->n + 1) * sizeof(*tk->by_start));
	if (!runs || !tk->by_start)
		goto cleanup;
	if (tk->n)
		qsort(tk->t, tk->n, sizeof(*tk->t), post_cmp);
	for (size_t i = 0; i < nruns; i++)
		runs[i] = i;
	if (nruns)
		qsort_r(runs, nruns, sizeof(*runs), run_cmp, (void *)ds);
	for (size_t i = 0; i < tk->n; i++) {
		run_of(ds, runs, nruns, &tk->t[i]);
		tk->by_start[i] = i;
	}
	if (tk->n)
		qsort_r(tk->by_start, tk->n, sizeof(*tk->by_start), start_cmp, tk);
	tk->info.tasks = tk->n;
	*out = tk;
	tk = NULL;
	ret = 0;
cleanup:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "async tasks: out of memory: fewer or shorter traces");
	free(runs);
	tasks__free(tk);
	return ret;
}

void tasks__free(struct tasks *tk)
{
	if (!tk)
		return;
	free(tk->t);
	free(tk->by_start);
	free(tk);
}

const struct tasks_info *tasks__info(const struct tasks *tk)
{
	return &tk->info;
}

size_t tasks__n(const struct tasks *tk)
{
	return tk->n;
}

const struct tasks_task *tasks__task(const struct tasks *tk, size_t i)
{
	return &tk->t[i];
}
