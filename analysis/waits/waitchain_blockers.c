/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The pieces of every run summed per blocker (waitchain.h, struct
 * waitchain_blocker): one thread's, and the groups of threads that differ only
 * by their tids; a cpu_wait blocker with who ran instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "waitchain_impl.h"

/* the blocker's key, but the threads: their names, and how first hop and blocker relate */
static bool same_group(const struct waitchain_blocker *b, const struct waitchain_piece *p)
{
	return b->state == p->state && b->reason == p->reason && b->self == !p->depth &&
	       b->func == p->func && !b->waker_tid == !p->waker_tid &&
	       (b->waker_tid == b->blocker_tid) == (p->waker_tid == p->blocker_tid) &&
	       !strncmp(b->comm, p->comm, XLP_COMM_LEN) &&
	       !strncmp(b->waker_comm, p->waker_comm, XLP_COMM_LEN);
}

static bool same_blocker(const struct waitchain_blocker *b, const struct waitchain_piece *p)
{
	return b->waker_tid == p->waker_tid && b->blocker_tid == p->blocker_tid &&
	       b->blocker_pid == p->blocker_pid && same_group(b, p);
}

bool waitchain__member_of(const struct waitchain_blocker *b, const struct waitchain_blocker *g)
{
	struct waitchain_piece p = {.waker_tid = b->waker_tid,
				    .blocker_tid = b->blocker_tid,
				    .state = b->state,
				    .reason = b->reason,
				    .depth = !b->self,
				    .func = b->func};

	memcpy(p.comm, b->comm, XLP_COMM_LEN);
	memcpy(p.waker_comm, b->waker_comm, XLP_COMM_LEN);
	return g->threads > 1 && b->threads == 1 && same_group(g, &p);
}

bool waitchain__piece_of(const struct waitchain_piece *p, const struct waitchain_blocker *b)
{
	return b->threads > 1 ? same_group(b, p) : same_blocker(b, p);
}

static int blocker_cmp(const void *a, const void *b)
{
	const struct waitchain_blocker *x = a, *y = b;

	if (x->slow_ns != y->slow_ns)
		return x->slow_ns > y->slow_ns ? -1 : 1;
	if (x->fast_ns != y->fast_ns)
		return x->fast_ns > y->fast_ns ? -1 : 1;
	return x->blocker_tid < y->blocker_tid ? -1 : x->blocker_tid > y->blocker_tid;
}

/*
 * Linear search per piece: the distinct blockers of a recording are few
 * (a handful of threads, states and devices), the pieces many.
 */
/* blocker b (of n) that piece p adds to, made when missing; SIZE_MAX: out of memory */
static size_t blocker_add(struct waitchain_blocker **b, size_t *n, size_t *cap, size_t **seen,
			  size_t *seen_cap, const struct waitchain_piece *p, bool group, bool *made)
{
	struct waitchain_blocker *q;
	size_t k, *sr;

	for (k = 0; k < *n && !(group ? same_group(&(*b)[k], p) : same_blocker(&(*b)[k], p)); k++)
		;
	*made = k == *n;
	if (k < *n)
		return k;
	q = waitchain__grow(*b, cap, *n + 1, sizeof(**b));
	if (!q)
		return SIZE_MAX;
	*b = q;
	sr = waitchain__grow(*seen, seen_cap, *n + 1, sizeof(**seen));
	if (!sr)
		return SIZE_MAX;
	*seen = sr;
	q[k] = (struct waitchain_blocker){.waker_tid = p->waker_tid,
					  .blocker_pid = p->blocker_pid,
					  .blocker_tid = p->blocker_tid,
					  .threads = group ? 0 : 1,
					  .state = p->state,
					  .reason = p->reason,
					  .self = !p->depth,
					  .func = p->func};
	memcpy(q[k].comm, p->comm, XLP_COMM_LEN);
	memcpy(q[k].waker_comm, p->waker_comm, XLP_COMM_LEN);
	sr[k] = SIZE_MAX;
	(*n)++;
	return k;
}

static void blocker_count(struct waitchain_blocker *b, size_t *seen,
			  const struct waitchain_piece *p, size_t run, bool slow)
{
	if (slow)
		b->slow_ns += (double)p->ns;
	else
		b->fast_ns += (double)p->ns;
	if (*seen != run) {
		*seen = run;
		b->slow_runs += slow;
		b->fast_runs += !slow;
	}
}

/*
 * Who ran instead while cpu_wait blocker b waited, over the slow runs'
 * pieces: their thieves summed by name and kind, the WAITCHAIN_THIEVES largest.
 */
static int blocker_thieves(const struct waitchain *wc, const uint8_t *slow,
			   struct waitchain_blocker *b)
{
	struct dataset_thief *t = NULL;
	size_t n = 0, cap = 0;

	for (size_t r = 0; r < wc->nruns; r++)
		for (size_t i = wc->poff[r]; slow[r] && i < wc->poff[r + 1]; i++) {
			const struct waitchain_piece *p = &wc->pieces[i];

			if (!waitchain__piece_of(p, b))
				continue;
			b->thief_known_ns += (double)p->known_ns;
			for (size_t k = 0; k < p->nthieves; k++) {
				const struct dataset_thief *x = &wc->thieves[p->thief_first + k];
				size_t j;

				for (j = 0; j < n && !dataset_thief__same(&t[j], x); j++)
					;
				if (j < n) {
					t[j].ns += x->ns;
					continue;
				}
				if (!PUSH(t, n, cap)) {
					free(t);
					return -ENOMEM;
				}
				t[n - 1] = *x;
			}
		}
	for (uint32_t k = 0; k < WAITCHAIN_THIEVES && k < n; k++) { /* the largest, in order */
		size_t best = k;

		for (size_t j = k + 1; j < n; j++)
			if (t[j].ns > t[best].ns)
				best = j;
		b->thieves[k] = t[best];
		t[best] = t[k];
		b->nthieves = k + 1;
	}
	free(t);
	return 0;
}

int waitchain__blockers(const struct waitchain *wc, const uint8_t *slow,
			struct waitchain_blocker **out, size_t *n)
{
	struct waitchain_blocker *b = NULL, *g = NULL, *q;
	size_t nb = 0, cap = 0, ng = 0, gcap = 0, *seen = NULL, seen_cap = 0, *gseen = NULL,
	       gseen_cap = 0, keep = 0;
	bool made, gmade;

	*out = NULL;
	*n = 0;
	for (size_t r = 0; r < wc->nruns; r++) {
		for (size_t i = wc->poff[r]; i < wc->poff[r + 1]; i++) {
			const struct waitchain_piece *p = &wc->pieces[i];
			size_t k = blocker_add(&b, &nb, &cap, &seen, &seen_cap, p, false, &made);
			size_t j = k == SIZE_MAX ? SIZE_MAX
						 : blocker_add(&g, &ng, &gcap, &gseen, &gseen_cap,
							       p, true, &gmade);

			if (j == SIZE_MAX)
				goto nomem;
			g[j].threads += made;
			blocker_count(&b[k], &seen[k], p, r, !!slow[r]);
			blocker_count(&g[j], &gseen[j], p, r, !!slow[r]);
		}
	}
	for (size_t j = 0; j < ng; j++)
		keep += g[j].threads > 1;
	if (keep) {
		q = waitchain__grow(b, &cap, nb + keep, sizeof(*b));
		if (!q)
			goto nomem;
		b = q;
		for (size_t j = 0; j < ng; j++)
			if (g[j].threads > 1)
				b[nb++] = g[j];
	}
	free(seen);
	free(gseen);
	free(g);
	if (nb)
		qsort(b, nb, sizeof(*b), blocker_cmp);
	for (size_t k = 0; k < nb; k++)
		if (b[k].state == WAITCHAIN_CPU_WAIT && blocker_thieves(wc, slow, &b[k]))
			goto nomem_b;
	*out = b;
	*n = nb;
	return 0;
nomem_b:
	free(b);
	return -ENOMEM;
nomem:
	free(seen);
	free(gseen);
	free(g);
	free(b);
	return -ENOMEM;
}
