/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The workload size of each run (struct dataset_run.size), from what the trace
 * says of it: the interaction's argument at the run's entry (record
 * --size-arg: an XLP_TASKEV_SIZE event of the run's thread, sent when the
 * call that starts the run enters) wins; else the size of the launch the
 * run's process belongs to (--sizes: an xlp_size_rec per launch, by pid,
 * also for processes it forked); else the recording's (--size); else NAN.
 * Every value is read as the file has it: a forged one gives a strange
 * size, never a crash (pids and times are only compared).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "dataset_impl.h"
#include "util.h"

/* fork records followed from a process to the launch it came from, at most */
#define MAX_FORK_HOPS 32

static int push(struct dataset_size_ev **a, size_t *n, size_t *cap, const struct dataset_size_ev *e)
{
	if (xlp_grow((void **)a, cap, *n, sizeof(**a)))
		return -ENOMEM;
	(*a)[(*n)++] = *e;
	return 0;
}

int dataset__sizes_take(struct dataset_sizes *z, const struct xlp_hdr *h)
{
	if (h->type == XLP_R_TASKEV && h->size >= sizeof(struct xlp_taskev_rec)) {
		const struct xlp_taskev_rec *k = (const void *)h;

		if (k->kind != XLP_TASKEV_SIZE)
			return 0;
		return push(&z->call, &z->ncall, &z->call_cap,
			    &(struct dataset_size_ev){
				    .t = k->entry_ns, .pid = k->pid, .tid = k->tid, .v = k->key});
	}
	if (h->type == XLP_R_SIZE && h->size >= sizeof(struct xlp_size_rec)) {
		const struct xlp_size_rec *s = (const void *)h;

		/* the recorder writes positive sizes only */
		if (!s->size)
			return 0;
		if (s->flags & XLP_SIZE_LAUNCH)
			return push(&z->launch, &z->nlaunch, &z->launch_cap,
				    &(struct dataset_size_ev){
					    .t = s->time_ns, .pid = s->pid, .v = s->size});
		if ((s->flags & XLP_SIZE_RECORDING) && !z->has_whole) {
			z->has_whole = true;
			z->whole = s->size;
		}
		return 0;
	}
	if (h->type == XLP_R_FORK && h->size >= sizeof(struct xlp_fork_rec)) {
		const struct xlp_fork_rec *f = (const void *)h;

		/* v: the parent */
		return push(
			&z->fork, &z->nfork, &z->fork_cap,
			&(struct dataset_size_ev){.t = f->fork_ns, .pid = f->pid, .v = f->ppid});
	}
	return 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct dataset_size_ev *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->t > y->t) - (x->t < y->t);
}

void dataset__sizes_ready(struct dataset_sizes *z)
{
	xlp_sort(z->call, z->ncall, sizeof(*z->call), cmp_ev);
	xlp_sort(z->launch, z->nlaunch, sizeof(*z->launch), cmp_ev);
	xlp_sort(z->fork, z->nfork, sizeof(*z->fork), cmp_ev);
}

/*
 * In a sorted array: the index of the first event after (pid, tid, t), or
 * with or_equal false, of the first one not before it.
 */
static size_t bound(const struct dataset_size_ev *a, size_t n, uint32_t pid, uint32_t tid,
		    uint64_t t, bool or_equal)
{
	struct dataset_size_ev key = {.t = t, .pid = pid, .tid = tid};
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_ev(&a[mid], &key);

		if (c < 0 || (or_equal && !c))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last event of pid at or before t, or NULL (launch and fork events: tid 0). */
static const struct dataset_size_ev *last_at(const struct dataset_size_ev *a, size_t n,
					     uint32_t pid, uint64_t t)
{
	size_t i = bound(a, n, pid, 0, t, true);

	return i && a[i - 1].pid == pid ? &a[i - 1] : NULL;
}

/*
 * The launch a process belongs to, at time t: its own size record, else
 * its parent's when it forked (a command run by a shell, a worker forked
 * by a server), up to MAX_FORK_HOPS: forged fork records may form a cycle.
 */
static const struct dataset_size_ev *launch_of(const struct dataset_sizes *z, uint32_t pid,
					       uint64_t t)
{
	for (int hop = 0; hop <= MAX_FORK_HOPS; hop++) {
		const struct dataset_size_ev *l = last_at(z->launch, z->nlaunch, pid, t);
		const struct dataset_size_ev *f;

		if (l)
			return l;
		f = last_at(z->fork, z->nfork, pid, t);
		if (!f)
			return NULL;
		pid = (uint32_t)f->v;
		t = f->t;
	}
	return NULL;
}

double dataset__sizes_of(const struct dataset_sizes *z, uint32_t pid, uint32_t tid, uint64_t start,
			 uint64_t queued)
{
	uint64_t entry = start + queued < start ? UINT64_MAX : start + queued;
	const struct dataset_size_ev *l;

	/* the call that started the run entered at start + queued (prewake) */
	if (tid) {
		size_t i = bound(z->call, z->ncall, pid, tid, start, false);

		if (i < z->ncall && z->call[i].pid == pid && z->call[i].tid == tid &&
		    z->call[i].t <= entry)
			return (double)z->call[i].v;
	}
	l = launch_of(z, pid, start);
	if (l)
		return (double)l->v;
	return z->has_whole ? (double)z->whole : NAN;
}

void dataset__sizes_free(struct dataset_sizes *z)
{
	free(z->call);
	free(z->launch);
	free(z->fork);
	memset(z, 0, sizeof(*z));
}
