/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Wait chains from a trace's timeline (waitchain.h tells the rules).
 *
 * Per file: every thread's scheduling events, sorted by time, become a
 * gapless list of state segments (running, runnable, asleep until a wakeup
 * naming its waker and its reason, unknown), from time 0 to the end of
 * time. A window of a thread is then walked segment by segment, and an
 * asleep segment is walked again in its waker's segments, clipped to it:
 * the pieces tile the window, so a wait's pieces add up to it exactly.
 */
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "waitchain_impl.h"

const char *waitchain__state_name(enum waitchain_state s)
{
	static const char *const names[WAITCHAIN_NSTATES] = {
		[WAITCHAIN_RAN] = "ran",	   [WAITCHAIN_CPU_WAIT] = "cpu_wait",
		[WAITCHAIN_DEVICE] = "device",	   [WAITCHAIN_ASLEEP] = "asleep",
		[WAITCHAIN_UNTRACED] = "untraced", [WAITCHAIN_CYCLE] = "cycle",
		[WAITCHAIN_DEPTH] = "depth_limit",
	};

	return (unsigned)s < WAITCHAIN_NSTATES ? names[s] : "?";
}

void *waitchain__grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	q = realloc(p, c * size);
	if (q)
		*cap = c;
	return q;
}

void *waitchain__push(void **arr, size_t *n, size_t *cap, size_t size)
{
	void *q = waitchain__grow(*arr, cap, *n + 1, size);

	if (!q)
		return NULL;
	*arr = q;
	return (char *)q + (*n)++ * size;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The element of tid in array a, sorted by tid (n elements of elem bytes,
 * the tid at off in each), or NULL: a server's threads can be thousands.
 */
static void *tid_find(const void *a, size_t n, size_t elem, size_t off, uint32_t tid)
{
	size_t lo = 0, hi = n;
	uint32_t t = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(&t, (const char *)a + mid * elem + off, sizeof(t));
		if (t < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n)
		memcpy(&t, (const char *)a + lo * elem + off, sizeof(t));
	return lo < n && t == tid ? (char *)a + lo * elem : NULL;
}

#define TID_FIND(a, n, tid) tid_find(a, n, sizeof(*(a)), offsetof(__typeof__(*(a)), tid), tid)

/* Sorted by tid once read (names_sort). */
static struct name *name_find(const struct tl *tl, uint32_t tid)
{
	return TID_FIND(tl->names, tl->nnames, tid);
}

/* Appended in file order (seq); names_sort keeps the last of each tid. */
static int name_add(struct tl *tl, uint32_t pid, uint32_t tid, const char *comm, uint32_t seq)
{
	struct name *nm = PUSH(tl->names, tl->nnames, tl->namecap);

	if (!nm)
		return -ENOMEM;
	nm->pid = pid;
	nm->tid = tid;
	nm->seq = seq;
	/* the kernel's comm may fill all 16 bytes, unterminated */
	memcpy(nm->comm, comm, XLP_COMM_LEN);
	nm->comm[XLP_COMM_LEN - 1] = 0;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	const struct name *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void names_sort(struct tl *tl)
{
	size_t n = 0;

	if (!tl->nnames)
		return;
	qsort(tl->names, tl->nnames, sizeof(*tl->names), name_cmp);
	for (size_t i = 0; i < tl->nnames; i++) {
		if (n && tl->names[n - 1].tid == tl->names[i].tid)
			n--; /* a later name of the same thread (a rename) */
		tl->names[n++] = tl->names[i];
	}
	tl->nnames = n;
}

static int seg_add(struct tl *tl, uint64_t start, uint64_t end, const struct seg *proto)
{
	struct seg *s;

	if (end <= start)
		return 0;
	s = PUSH(tl->segs, tl->nsegs, tl->segcap);
	if (!s)
		return -ENOMEM;
	*s = *proto;
	s->start = start;
	s->end = end;
	return 0;
}

/*
 * The thread's events [i, j) (sorted) -> its segments. A switch-in ends
 * a sleep whose wakeup was lost: asleep, not woken (no waker to follow).
 */
static int thread_segments(struct tl *tl, size_t i, size_t j)
{
	struct seg cur = {.state = SEG_UNKNOWN};
	uint64_t from = 0;
	int err;

	for (; i < j; i++) {
		const struct ev *e = &tl->ev[i];
		struct seg done = cur;
		uint16_t next = cur.state;

		switch (e->kind) {
		case XLP_SCHED_OUT:
			next = e->detail == XLP_SCHED_RUNNABLE ? SEG_RUNNABLE
			       : e->detail == XLP_SCHED_SLEEP_S || e->detail == XLP_SCHED_SLEEP_D
				       ? SEG_SLEEP
				       : SEG_UNKNOWN;
			/* a switch-out while not running: the events between were lost */
			if (cur.state != SEG_RUN)
				done.state = SEG_UNKNOWN;
			break;
		case XLP_SCHED_IN:
			next = SEG_RUN;
			break;
		case XLP_SCHED_WAKEUP:
			/* a wakeup of a running or runnable thread ends no sleep */
			if (cur.state == SEG_RUN || cur.state == SEG_RUNNABLE)
				continue;
			if (cur.state == SEG_SLEEP) {
				done.woken = true;
				done.waker = e->arg;
				done.reason = e->detail;
			}
			next = SEG_RUNNABLE;
			break;
		default:
			continue;
		}
		err = seg_add(tl, from, e->t, &done);
		if (err)
			return err;
		from = e->t;
		cur = (struct seg){.state = next};
	}
	return seg_add(tl, from, UINT64_MAX, &cur);
}

/* One pass over a file's records into its timeline. */
struct tl_pass {
	struct tl *tl;
	struct waitchain_info *info;
	uint32_t seq;
};

static int tl_record(void *ctx, const struct xlp_hdr *h)
{
	struct tl_pass *p = ctx;
	struct tl *tl = p->tl;

	if (h->type == XLP_R_THIEF || h->type == XLP_R_FORK)
		return waitchain_thief__record(tl, h);
	if (h->type == XLP_R_TASK && h->size >= sizeof(struct xlp_task_rec)) {
		const struct xlp_task_rec *k = (const void *)h;

		return name_add(tl, k->pid, k->tid, k->comm, p->seq++);
	} else if (h->type == XLP_R_THREAD && h->size >= sizeof(struct xlp_thread_rec)) {
		const struct xlp_thread_rec *k = (const void *)h;

		return name_add(tl, k->pid, k->tid, k->comm, p->seq++);
	} else if (h->type == XLP_R_SCHED && h->size >= sizeof(struct xlp_sched_rec)) {
		const struct xlp_sched_rec *k = (const void *)h;
		struct ev *e;

		p->info->events++;
		if (k->kind != XLP_SCHED_OUT && k->kind != XLP_SCHED_IN &&
		    k->kind != XLP_SCHED_WAKEUP) {
			/* block and frequency events are not states; others unknown */
			p->info->skipped += k->kind == 0 || k->kind > XLP_SCHED_KIND_MAX;
			return 0;
		}
		e = PUSH(tl->ev, tl->nev, tl->evcap);
		if (!e)
			return -ENOMEM;
		*e = (struct ev){.t = k->time_ns,
				 .tid = k->tid,
				 .pid = k->pid,
				 .arg = k->arg,
				 .seq = p->seq++,
				 .kind = k->kind,
				 .detail = k->detail};
	}
	return 0;
}

static int tl_read(const char *path, struct tl *tl, struct waitchain_info *info, char *err,
		   size_t errlen)
{
	struct tl_pass p = {tl, info, 0};

	return dataset__each_record(path, tl_record, &p, err, errlen);
}

static int tl_build(struct tl *tl, struct waitchain_info *info)
{
	size_t nthr = 0;
	int err;

	names_sort(tl);
	waitchain_thief__sort(tl);
	if (tl->nev) /* qsort's base must not be NULL, even for no items */
		qsort(tl->ev, tl->nev, sizeof(*tl->ev), ev_cmp);
	for (size_t i = 0; i < tl->nev; i++)
		nthr += !i || tl->ev[i].tid != tl->ev[i - 1].tid;
	tl->thr = calloc(nthr + 1, sizeof(*tl->thr));
	if (!tl->thr)
		return -ENOMEM;
	for (size_t i = 0, j; i < tl->nev; i = j) {
		struct thr *t = &tl->thr[tl->nthr++];

		for (j = i; j < tl->nev && tl->ev[j].tid == tl->ev[i].tid; j++)
			;
		t->tid = tl->ev[i].tid;
		t->pid = tl->ev[i].pid;
		t->off = tl->nsegs;
		err = thread_segments(tl, i, j);
		if (err)
			return err;
		t->n = tl->nsegs - t->off;
	}
	info->threads += tl->nthr;
	return 0;
}

static void tl_free(struct tl *tl)
{
	waitchain_thief__free(tl);
	free(tl->calls);
	free(tl->ev);
	free(tl->segs);
	free(tl->thr);
	free(tl->names);
	memset(tl, 0, sizeof(*tl));
}

static struct thr *thr_find(const struct tl *tl, uint32_t tid)
{
	return TID_FIND(tl->thr, tl->nthr, tid);
}

static int call_cmp(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end; /* the enclosing one first */
}

static int keep_call(void *ctx, const struct xlp_call_rec *c)
{
	struct tl *tl = ctx;
	uint32_t g = dataset__file_func(tl->ds, tl->fi, c->func_id);
	struct call *k;

	/* interactions (DATASET_NONE) are the runs, not a function to name */
	if (g == DATASET_NONE || !thr_find(tl, c->tid))
		return 0;
	k = PUSH(tl->calls, tl->ncalls, tl->callcap);
	if (!k)
		return -ENOMEM;
	*k = (struct call){.entry = c->entry_ns,
			   .end = c->entry_ns + c->incl[XLP_C_WALL],
			   .tid = c->tid,
			   .func = g,
			   .parent = DATASET_NONE};
	return 0;
}

/*
 * The marked calls of the threads on the timeline, each with the call
 * enclosing it (a stack over the thread's calls by entry: a call that
 * ended before the next one's entry, or does not enclose it in a forged
 * trace, is no parent of it).
 */
static int tl_calls(const struct dataset *ds, size_t fi, struct tl *tl, char *err, size_t errlen)
{
	uint32_t *stack = NULL;
	size_t cap = 0, n = 0;
	int ret;

	tl->ds = ds;
	tl->fi = fi;
	if (!tl->nthr)
		return 0;
	ret = dataset__each_call(ds, fi, keep_call, tl, err, errlen);
	if (ret || !tl->ncalls)
		return ret;
	qsort(tl->calls, tl->ncalls, sizeof(*tl->calls), call_cmp);
	for (size_t i = 0; i < tl->ncalls; i++) {
		struct call *c = &tl->calls[i];
		uint32_t *q;

		if (!i || c->tid != c[-1].tid) {
			thr_find(tl, c->tid)->coff = i;
			n = 0;
		}
		thr_find(tl, c->tid)->nc++;
		while (n && (tl->calls[stack[n - 1]].end <= c->entry ||
			     tl->calls[stack[n - 1]].end < c->end))
			n--;
		c->parent = n ? stack[n - 1] : DATASET_NONE;
		q = waitchain__grow(stack, &cap, n + 1, sizeof(*stack));
		if (!q) {
			free(stack);
			snprintf(err, errlen,
				 "wait chains: out of memory: fewer or shorter traces");
			return -ENOMEM;
		}
		stack = q;
		stack[n++] = (uint32_t)i;
	}
	free(stack);
	return 0;
}

/* The deepest marked call of t enclosing all of [x, y): its function, DATASET_NO_FUNC: none. */
static uint32_t ran_in(const struct tl *tl, const struct thr *t, uint64_t x, uint64_t y)
{
	size_t lo = t->coff, hi = t->coff + t->nc;
	uint32_t c, hops = 0;

	while (lo < hi) { /* first call entering after x */
		size_t mid = lo + (hi - lo) / 2;

		if (tl->calls[mid].entry <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->coff)
		return DATASET_NO_FUNC;
	/*
	 * The last call entering at or before x, or one of its ancestors: no
	 * more than the marked calls a thread can have open (a forged trace's
	 * deeper nesting would make every piece walk it)
	 */
	for (c = (uint32_t)(lo - 1);
	     c != DATASET_NONE && tl->calls[c].end < y && hops <= XLP_MAX_DEPTH;
	     c = tl->calls[c].parent)
		hops++;
	return c == DATASET_NONE || hops > XLP_MAX_DEPTH ? DATASET_NO_FUNC : tl->calls[c].func;
}

/* Index of the thread's first segment ending after t. */
static size_t seg_at(const struct tl *tl, const struct thr *t, uint64_t at)
{
	size_t lo = t->off, hi = t->off + t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->segs[mid].end <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Appends a piece, merged with the last one of the run when it continues it. */
static int piece_in(struct walk *w, uint64_t x, uint64_t y, uint32_t pid, uint32_t tid,
		    enum waitchain_state st, uint16_t reason, uint16_t depth, uint32_t func)
{
	const struct name *nm = tid ? name_find(w->tl, tid) : NULL;
	struct waitchain *wc = w->wc;
	struct waitchain_piece *p;

	if (y <= x)
		return 0;
	if (!pid && nm) /* a waker with no events: its task record's */
		pid = nm->pid;
	if (wc->npieces > w->run_first) {
		p = &wc->pieces[wc->npieces - 1];
		if (p->start_ns + p->ns == x && p->blocker_tid == tid && p->state == st &&
		    p->reason == reason && p->depth == depth && p->waker_tid == w->waker &&
		    p->blocker_pid == pid && p->func == func) {
			p->ns += y - x;
			return 0;
		}
	}
	p = PUSH(wc->pieces, wc->npieces, wc->pcap);
	if (!p)
		return -ENOMEM;
	*p = (struct waitchain_piece){.start_ns = x,
				      .ns = y - x,
				      .tid = w->tid,
				      .waker_tid = w->waker,
				      .blocker_pid = pid,
				      .blocker_tid = tid,
				      .state = (uint16_t)st,
				      .reason = reason,
				      .depth = depth,
				      .func = func};
	if (nm)
		memcpy(p->comm, nm->comm, XLP_COMM_LEN);
	nm = w->waker ? name_find(w->tl, w->waker) : NULL;
	if (nm)
		memcpy(p->waker_comm, nm->comm, XLP_COMM_LEN);
	wc->info.cycles += st == WAITCHAIN_CYCLE;
	wc->info.depth_cuts += st == WAITCHAIN_DEPTH;
	return 0;
}

static int piece(struct walk *w, uint64_t x, uint64_t y, uint32_t pid, uint32_t tid,
		 enum waitchain_state st, uint16_t reason, uint16_t depth)
{
	return piece_in(w, x, y, pid, tid, st, reason, depth, DATASET_NO_FUNC);
}

static bool on_chain(const struct walk *w, uint32_t tid)
{
	for (size_t i = 0; i < w->nchain; i++)
		if (w->chain[i] == tid)
			return true;
	return false;
}

static int charge(struct walk *w, uint64_t s, uint64_t e, uint32_t tid, uint16_t depth);

/*
 * The part [x, y) of a sleep of thread t (depth hops from the run's
 * thread) that segment g ended: to what woke it.
 */
static int charge_sleep(struct walk *w, const struct thr *t, const struct seg *g, uint64_t x,
			uint64_t y, uint16_t depth)
{
	const struct thr *k;

	if (!g->woken || (!g->waker && !g->reason))
		return piece(w, x, y, t->pid, t->tid, WAITCHAIN_ASLEEP, 0, depth);
	if (!g->waker) /* interrupt context: the device or timer, not the interrupted task */
		return piece(w, x, y, 0, 0, WAITCHAIN_DEVICE, g->reason, depth + 1);
	if (on_chain(w, g->waker)) {
		k = thr_find(w->tl, g->waker);
		return piece(w, x, y, k ? k->pid : 0, g->waker, WAITCHAIN_CYCLE, 0, depth + 1);
	}
	if (depth + 1u > w->max_depth)
		return piece(w, x, y, t->pid, t->tid, WAITCHAIN_DEPTH, g->reason, depth);
	return charge(w, x, y, g->waker, depth + 1);
}

/* [s, e) to thread tid's states over it (depth >= 1: tid is a waker). */
static int charge(struct walk *w, uint64_t s, uint64_t e, uint32_t tid, uint16_t depth)
{
	const struct thr *t = thr_find(w->tl, tid);
	int err = 0;

	if (e <= s)
		return 0;
	if (!t)
		return piece(w, s, e, 0, tid, WAITCHAIN_UNTRACED, 0, depth);
	w->chain[w->nchain++] = tid;
	for (size_t i = seg_at(w->tl, t, s); i < t->off + t->n && w->tl->segs[i].start < e; i++) {
		const struct seg *g = &w->tl->segs[i];
		uint64_t x = g->start > s ? g->start : s, y = g->end < e ? g->end : e;

		switch (g->state) {
		case SEG_RUN:
			err = piece_in(w, x, y, t->pid, tid, WAITCHAIN_RAN, 0, depth,
				       ran_in(w->tl, t, x, y));
			break;
		case SEG_RUNNABLE:
			err = piece(w, x, y, t->pid, tid, WAITCHAIN_CPU_WAIT, 0, depth);
			break;
		case SEG_SLEEP:
			err = charge_sleep(w, t, g, x, y, depth);
			break;
		default:
			err = piece(w, x, y, t->pid, tid, WAITCHAIN_UNTRACED, 0, depth);
			break;
		}
		if (err)
			break;
	}
	w->nchain--;
	return err;
}

/* A wait from start to end, or the last one of the run made longer when it ends at start. */
static int wait_open(struct waitchain *wc, size_t wfirst, uint64_t start, uint64_t end)
{
	struct waitchain_wait *v;

	if (wc->nwaits > wfirst) {
		v = &wc->waits[wc->nwaits - 1];
		if (v->end_ns == start) {
			v->end_ns = end; /* a sleep, then the runqueue: one wait */
			return 0;
		}
	}
	v = PUSH(wc->waits, wc->nwaits, wc->wcap);
	if (!v)
		return -ENOMEM;
	/* first: absolute until the run is done */
	*v = (struct waitchain_wait){
		.start_ns = start, .end_ns = end, .first = (uint32_t)wc->npieces};
	return 0;
}

/* The run's thread off the CPU in [run start, run end): waits and their pieces. */
static int walk_run(struct waitchain *wc, const struct tl *tl, unsigned max_depth,
		    const struct dataset_run *r, size_t run)
{
	struct walk w = {.wc = wc, .tl = tl, .max_depth = max_depth, .tid = r->tid};
	size_t wfirst = wc->nwaits;
	const struct thr *t;
	int err = 0;

	w.run_first = wc->npieces;
	wc->poff[run] = wc->npieces;
	wc->woff[run] = wc->nwaits;
	t = r->tid ? thr_find(tl, r->tid) : NULL;
	for (size_t i = t ? seg_at(tl, t, r->start_ns) : 0;
	     t && i < t->off + t->n && tl->segs[i].start < r->end_ns; i++) {
		const struct seg *g = &tl->segs[i];
		uint64_t x = g->start > r->start_ns ? g->start : r->start_ns;
		uint64_t y = g->end < r->end_ns ? g->end : r->end_ns;
		size_t before = wc->npieces;

		if (g->state == SEG_RUN || y <= x) /* y <= x: a forged window that ends first */
			continue;
		if (g->state == SEG_UNKNOWN) {
			/* not known to be off the CPU: no wait (lost events, or before the first)
			 */
			wc->info.unknown_ns += y - x;
			continue;
		}
		err = wait_open(wc, wfirst, x, y);
		if (err)
			break;
		w.nchain = 1;
		w.chain[0] = r->tid;
		w.waker = 0;
		if (g->state == SEG_RUNNABLE) {
			err = piece(&w, x, y, t->pid, t->tid, WAITCHAIN_CPU_WAIT, 0, 0);
		} else {
			w.waker = g->woken ? g->waker : 0;
			err = charge_sleep(&w, t, g, x, y, 0);
		}
		if (err)
			break;
		wc->waits[wc->nwaits - 1].n += (uint32_t)(wc->npieces - before);
	}
	for (size_t k = wfirst; k < wc->nwaits; k++)
		wc->waits[k].first -= (uint32_t)w.run_first;
	wc->info.waits += wc->nwaits - wfirst;
	return err;
}

int waitchain__build(const struct dataset *ds, const struct waitchain_opts *o,
		     struct waitchain **out, char *err, size_t errlen)
{
	unsigned depth = o && o->max_depth ? o->max_depth : WAITCHAIN_MAX_DEPTH;
	struct waitchain *wc = NULL;
	struct tl tl = {0};
	int ret = -ENOMEM;

	*out = NULL;
	if (!(dataset__features(ds) & XLP_FEAT_TIMELINE)) {
		snprintf(err, errlen,
			 "no scheduling events: record with --timeline to follow the waits");
		return -ENODATA;
	}
	if (depth > WAITCHAIN_MAX_DEPTH)
		depth = WAITCHAIN_MAX_DEPTH;
	wc = calloc(1, sizeof(*wc));
	if (!wc)
		goto nomem;
	wc->nruns = dataset__nruns(ds);
	wc->poff = calloc(wc->nruns + 1, sizeof(*wc->poff));
	wc->woff = calloc(wc->nruns + 1, sizeof(*wc->woff));
	if (!wc->poff || !wc->woff)
		goto nomem;
	for (size_t fi = 0; fi < dataset__nfiles(ds); fi++) {
		size_t first, n = dataset__file_runs(ds, fi, &first);

		ret = tl_read(dataset__file(ds, fi)->path, &tl, &wc->info, err, errlen);
		if (ret)
			goto cleanup;
		ret = tl_build(&tl, &wc->info);
		if (ret)
			goto nomem;
		ret = tl_calls(ds, fi, &tl, err, errlen);
		if (ret)
			goto cleanup;
		for (size_t k = first; k < first + n; k++) {
			ret = walk_run(wc, &tl, depth, dataset__run(ds, k), k);
			if (ret)
				goto nomem;
		}
		ret = waitchain_thief__pieces(wc, &tl, n ? wc->poff[first] : wc->npieces);
		if (ret)
			goto nomem;
		tl_free(&tl);
	}
	/* the files' runs are consecutive ranges, in order: every run was walked */
	wc->poff[wc->nruns] = wc->npieces;
	wc->woff[wc->nruns] = wc->nwaits;
	wc->info.pieces = wc->npieces;
	*out = wc;
	wc = NULL;
	ret = 0;
	goto cleanup;
nomem:
	ret = -ENOMEM;
	snprintf(err, errlen, "wait chains: out of memory: fewer or shorter traces");
cleanup:
	tl_free(&tl);
	waitchain__free(wc);
	return ret;
}

void waitchain__free(struct waitchain *wc)
{
	if (!wc)
		return;
	free(wc->poff);
	free(wc->woff);
	free(wc->pieces);
	free(wc->waits);
	free(wc->thieves);
	free(wc);
}

const struct waitchain_info *waitchain__info(const struct waitchain *wc)
{
	return &wc->info;
}

const struct dataset_thief *waitchain__thief(const struct waitchain *wc,
					     const struct waitchain_piece *p, size_t i)
{
	return i < p->nthieves && p->thief_first + i < wc->nthieves
		       ? &wc->thieves[p->thief_first + i]
		       : NULL;
}

size_t waitchain__nwaits(const struct waitchain *wc, size_t run)
{
	return run < wc->nruns ? wc->woff[run + 1] - wc->woff[run] : 0;
}

const struct waitchain_wait *waitchain__wait(const struct waitchain *wc, size_t run, size_t i)
{
	return i < waitchain__nwaits(wc, run) ? &wc->waits[wc->woff[run] + i] : NULL;
}

size_t waitchain__npieces(const struct waitchain *wc, size_t run)
{
	return run < wc->nruns ? wc->poff[run + 1] - wc->poff[run] : 0;
}

const struct waitchain_piece *waitchain__piece(const struct waitchain *wc, size_t run, size_t i)
{
	return i < waitchain__npieces(wc, run) ? &wc->pieces[wc->poff[run] + i] : NULL;
}
