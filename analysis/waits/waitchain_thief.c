/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who ran while a blocker waited for a CPU (issue 36: "a blocker waiting
 * for a CPU names its thief too"). A wait chain's WAITCHAIN_CPU_WAIT piece is a
 * part of a thread's runqueue wait: the run's own thread after its wakeup,
 * or a thread it waited for (a pool's worker preempted by a build). The
 * thief records of that thread (bpf/thief.bpf.h: one per wait inside a
 * marked call or before a run's handler) say who ran on its CPU over each
 * of its waits; a piece takes, from every record whose wait overlaps it,
 * that part of each thief's time (the overlap over the wait: a record
 * sums a thief's time over the wait, it does not say when in it).
 * Records, like every byte of the file, are untrusted: a count past the
 * record's size is cut to it (xlp_thief_count), a wait longer than its end
 * clipped to time 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "waitchain_impl.h"

int waitchain_thief__record(struct tl *tl, const struct xlp_hdr *h)
{
	if (h->type == XLP_R_FORK && h->size >= sizeof(struct xlp_fork_rec)) {
		const struct xlp_fork_rec *k = (const void *)h;
		uint32_t *p = PUSH(tl->forked, tl->nforked, tl->forkcap);

		if (!p)
			return -ENOMEM;
		*p = k->pid;
	} else if (h->type == XLP_R_THIEF && h->size >= sizeof(struct xlp_thief_rec)) {
		const struct xlp_thief_rec *w = (const void *)h;
		struct waitchain_thief_rec *r = PUSH(tl->trecs, tl->ntrecs, tl->trecap);

		if (!r)
			return -ENOMEM;
		r->tid = w->tid;
		r->pid = w->pid;
		r->end = w->end_ns;
		r->start = w->wait_ns < w->end_ns ? w->end_ns - w->wait_ns : 0;
		r->n = xlp_thief_count(w);
		memcpy(r->t, w->thieves, r->n * sizeof(r->t[0]));
	}
	return 0;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct waitchain_thief_rec *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

void waitchain_thief__sort(struct tl *tl)
{
	if (tl->ntrecs)
		qsort(tl->trecs, tl->ntrecs, sizeof(*tl->trecs), rec_cmp);
}

void waitchain_thief__free(struct tl *tl)
{
	free(tl->trecs);
	free(tl->forked);
	tl->trecs = NULL;
	tl->forked = NULL;
	tl->ntrecs = tl->trecap = tl->nforked = tl->forkcap = 0;
}

/* The first record of tid ending after t (its index, ntrecs if none). */
static size_t rec_at(const struct tl *tl, uint32_t tid, uint64_t t)
{
	size_t lo = 0, hi = tl->ntrecs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct waitchain_thief_rec *r = &tl->trecs[mid];

		if (r->tid < tid || (r->tid == tid && r->end <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool forked(const struct tl *tl, uint32_t pid)
{
	for (size_t i = 0; i < tl->nforked; i++)
		if (tl->forked[i] == pid)
			return true;
	return false;
}

/* Thief x of record r, f of its time, into piece p's list (the last ones of wc). */
static int add(struct waitchain *wc, const struct tl *tl, struct waitchain_piece *p,
	       const struct waitchain_thief_rec *r, const struct xlp_thief *x, double f)
{
	struct dataset_thief t = {
		.pid = x->pid, .tid = x->tid, .flags = x->flags, .ns = f * (double)x->ns};
	struct dataset_thief *q;

	memcpy(t.comm, x->comm, XLP_COMM_LEN);
	t.comm[XLP_COMM_LEN - 1] = 0;
	t.own_process = x->pid == r->pid;
	t.child = !t.own_process && forked(tl, x->pid);
	for (size_t i = 0; i < p->nthieves; i++) {
		q = &wc->thieves[p->thief_first + i];
		if (dataset_thief__same(q, &t)) {
			q->ns += t.ns;
			return 0;
		}
	}
	if (p->nthieves == UINT16_MAX)
		return 0;
	q = PUSH(wc->thieves, wc->nthieves, wc->tcap);
	if (!q)
		return -ENOMEM;
	*q = t;
	p->nthieves++;
	return 0;
}

int waitchain_thief__pieces(struct waitchain *wc, const struct tl *tl, size_t first)
{
	for (size_t i = first; i < wc->npieces; i++) {
		struct waitchain_piece *p = &wc->pieces[i];
		uint64_t x = p->start_ns, y = p->start_ns + p->ns;

		p->thief_first = (uint32_t)wc->nthieves;
		p->nthieves = 0;
		p->known_ns = 0;
		if (p->state != WAITCHAIN_CPU_WAIT || !p->blocker_tid)
			continue;
		for (size_t k = rec_at(tl, p->blocker_tid, x);
		     k < tl->ntrecs && tl->trecs[k].tid == p->blocker_tid && tl->trecs[k].start < y;
		     k++) {
			const struct waitchain_thief_rec *r = &tl->trecs[k];
			uint64_t a = r->start > x ? r->start : x, b = r->end < y ? r->end : y;
			double f;

			if (b <= a || r->end <= r->start)
				continue;
			f = (double)(b - a) / (double)(r->end - r->start);
			p->known_ns += b - a;
			for (uint32_t j = 0; j < r->n; j++) {
				int err = add(wc, tl, p, r, &r->t[j], f);

				if (err)
					return err;
			}
		}
		if (p->nthieves > 1)
			qsort(&wc->thieves[p->thief_first], p->nthieves, sizeof(*wc->thieves),
			      dataset_thief__cmp_ns);
	}
	return 0;
}
