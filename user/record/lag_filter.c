/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* record --lag: which runs keep their detail (lag_filter.h says how). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "htab.h"
#include "lag_filter.h"
#include "trace.h"
#include "util.h"

struct lag_thr {
	uint32_t tid;
	bool held;    /* it ended a run: its records are held from then on */
	uint8_t *buf; /* held records, back to back */
	size_t len, cap;
	/* the latest time among its records written by a spill since its
	 * last run ended (0: none): a run that began before it lost its choice */
	uint64_t spilled_to;
	/* the last run that ended there, whose call record is still to come */
	uint64_t run_entry;
	uint32_t run_func;
	bool run_open; /* its call record has not come yet */
	bool run_summary;
};

struct lag_filter {
	uint64_t threshold_ns;
	unsigned keep;
	uint64_t normal; /* runs under the threshold whose detail was a choice */
	lag_write_fn write;
	void *ctx;
	struct lag_thr *t; /* in the order first seen */
	size_t cap, n;
	struct htab *by_tid; /* a tid -> its index in t + 1 */
	size_t held;	     /* bytes in all */
	struct xlp_lag_rec st;
	union {
		struct xlp_hdr h;
		uint8_t b[1 << 16];
	} scratch; /* a call record being flagged */
};

struct tid_want {
	const struct lag_filter *lf;
	uint32_t tid;
};

static bool tid_eq(const void *ctx, uint32_t i)
{
	const struct tid_want *w = ctx;

	return w->lf->t[i - 1].tid == w->tid;
}

/* Thread tid's state, made when add; NULL when absent (or on ENOMEM). */
static struct lag_thr *thread_find(struct lag_filter *lf, uint32_t tid, bool add)
{
	uint64_t h = htab__hash(lf->by_tid, &tid, sizeof(tid));
	uint32_t i = htab__find(lf->by_tid, h, tid_eq, &(struct tid_want){lf, tid});

	if (i)
		return &lf->t[i - 1];
	if (!add || xlp_grow((void **)&lf->t, &lf->cap, lf->n, sizeof(*lf->t)) ||
	    htab__put(lf->by_tid, h, (uint32_t)lf->n + 1, NULL, NULL))
		return NULL;
	lf->t[lf->n] = (struct lag_thr){.tid = tid};
	return &lf->t[lf->n++];
}

/* A record of one thread's that a run's detail may hold: its thread and time. */
static bool thread_rec(const struct xlp_hdr *h, uint32_t *tid, uint64_t *t)
{
	switch (h->type) {
	case XLP_R_CALL:
	case XLP_R_CALL_COMPACT: {
		const struct xlp_call_compact_rec *c = (const void *)h;

		*tid = c->tid;
		*t = c->entry_ns;
		return true;
	}
	case XLP_R_SAMPLE: {
		const struct xlp_sample_rec *s = (const void *)h;

		*tid = s->tid;
		*t = s->time_ns;
		return true;
	}
	case XLP_R_SCHED: {
		const struct xlp_sched_rec *s = (const void *)h;

		*tid = s->tid;
		*t = s->time_ns;
		/* a CPU's frequency belongs to no thread */
		return s->kind != XLP_SCHED_FREQ && s->tid;
	}
	case XLP_R_TASKEV: {
		const struct xlp_taskev_rec *k = (const void *)h;

		*tid = k->tid;
		*t = k->entry_ns;
		return true;
	}
	case XLP_R_THIEF: {
		const struct xlp_thief_rec *w = (const void *)h;

		*tid = w->tid;
		*t = w->end_ns;
		return true;
	}
	default:
		return false;
	}
}

static void drop_held(struct lag_filter *lf, struct lag_thr *t)
{
	lf->held -= t->len;
	t->len = 0;
}

/* Writes the held records of t, but those in [lo, hi] (left out, counted). */
static int write_held(struct lag_filter *lf, struct lag_thr *t, uint64_t lo, uint64_t hi)
{
	int err = 0, ret;

	for (size_t off = 0; off < t->len;) {
		const struct xlp_hdr *h = (const void *)(t->buf + off);
		uint64_t at = 0;
		uint32_t tid;

		off += h->size;
		thread_rec(h, &tid, &at);
		if (at >= lo && at <= hi) {
			lf->st.records_left_out++;
			lf->st.bytes_left_out += h->size;
			continue;
		}
		ret = lf->write(lf->ctx, h);
		err = err ? err : ret;
	}
	drop_held(lf, t);
	return err;
}

/* Past a cap: the thread's records go out as they are, the choice is lost. */
static int spill(struct lag_filter *lf, struct lag_thr *t)
{
	for (size_t off = 0; off < t->len;) {
		const struct xlp_hdr *h = (const void *)(t->buf + off);
		uint64_t at = 0;
		uint32_t tid;

		off += h->size;
		if (thread_rec(h, &tid, &at) && at > t->spilled_to)
			t->spilled_to = at;
	}
	lf->st.spills++;
	return write_held(lf, t, 1, 0);
}

static int hold(struct lag_filter *lf, struct lag_thr *t, const struct xlp_hdr *h, uint64_t at)
{
	int err;

	if (t->len + h->size > LAG_HOLD_THREAD || lf->held + h->size > LAG_HOLD_TOTAL) {
		err = spill(lf, t);
		if (at > t->spilled_to)
			t->spilled_to = at;
		return err ? err : lf->write(lf->ctx, h);
	}
	if (t->len + h->size > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 4096;
		uint8_t *b;

		while (cap < t->len + h->size)
			cap *= 2;
		b = realloc(t->buf, cap);
		if (!b)
			return -ENOMEM;
		t->buf = b;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, h, h->size);
	t->len += h->size;
	lf->held += h->size;
	return 0;
}

/*
 * A run of t ended: [entry, entry + wall]. Its detail is the held records
 * in that window; kept or left out, then everything held goes.
 */
static int run_ended(struct lag_filter *lf, struct lag_thr *t, uint64_t entry, uint64_t wall,
		     uint32_t func, bool *summary)
{
	bool first = !t->held, spilled = t->spilled_to >= entry;

	lf->st.runs++;
	*summary = false;
	if (wall >= lf->threshold_ns)
		lf->st.lagging++;
	else if (first || spilled)
		lf->st.written_through++;
	else if (lf->normal++ % lf->keep == 0)
		lf->st.sampled++;
	else
		*summary = true;
	lf->st.summarized += *summary;
	t->held = true;
	t->spilled_to = 0;
	t->run_entry = entry;
	t->run_func = func;
	t->run_open = true;
	t->run_summary = *summary;
	return *summary ? write_held(lf, t, entry, entry + wall) : write_held(lf, t, 1, 0);
}

/* The call record that ended a run, flagged when its detail was left out. */
static int write_call(struct lag_filter *lf, const struct xlp_hdr *h, bool summary)
{
	struct xlp_call_compact_rec *c = (void *)lf->scratch.b;

	if (!summary)
		return lf->write(lf->ctx, h);
	memcpy(lf->scratch.b, h, h->size);
	c->flags |= XLP_CALL_SUMMARY;
	return lf->write(lf->ctx, &lf->scratch.h);
}

static int on_call(struct lag_filter *lf, struct lag_thr *t, const struct xlp_hdr *h, uint64_t at)
{
	const struct xlp_call_compact_rec *c = (const void *)h;
	bool summary;
	int err;

	if (!(c->flags & XLP_CALL_INTERACTION))
		return hold(lf, t, h, at);
	if (t->run_open && c->entry_ns == t->run_entry && c->func_id == t->run_func) {
		t->run_open = false;
		return write_call(lf, h, t->run_summary);
	}
	/* nested in a run (part of its detail), or not known to be a run */
	if (c->depth || h->type != XLP_R_CALL_COMPACT)
		return hold(lf, t, h, at);
	/* an outermost one whose xlp_run_rec was lost: it ends its run too */
	err = run_ended(lf, t, c->entry_ns, c->mask & 1 ? c->val[0] : 0, c->func_id, &summary);
	t->run_open = false;
	return err ? err : write_call(lf, h, summary);
}

int lag_filter__record(struct lag_filter *lf, const struct xlp_hdr *h)
{
	struct lag_thr *t;
	uint64_t at;
	uint32_t tid;

	if (h->type == XLP_R_RUN && h->size >= sizeof(struct xlp_run_rec)) {
		const struct xlp_run_rec *r = (const void *)h;
		bool summary;
		int err;

		t = thread_find(lf, r->tid, true);
		if (!t)
			return -ENOMEM;
		err = run_ended(lf, t, r->entry_ns, r->proc[XLP_C_WALL], r->func_id, &summary);
		if (summary) {
			lf->st.records_left_out++;
			lf->st.bytes_left_out += h->size;
		}
		return err ? err : summary ? 0 : lf->write(lf->ctx, h);
	}
	if (h->type == XLP_R_THREAD && h->size >= sizeof(struct xlp_thread_rec)) {
		const struct xlp_thread_rec *r = (const void *)h;

		/* it exited: a run still open there never ends, and is written */
		t = (r->flags & XLP_THREAD_EXITED) ? thread_find(lf, r->tid, false) : NULL;
		if (t && t->len) {
			int err = write_held(lf, t, 1, 0);

			if (err)
				return err;
		}
		if (t)
			t->held = t->run_open = false;
		return lf->write(lf->ctx, h);
	}
	if (!thread_rec(h, &tid, &at) || !(t = thread_find(lf, tid, false)) || !t->held)
		return lf->write(lf->ctx, h);
	if (h->type == XLP_R_CALL_COMPACT || h->type == XLP_R_CALL)
		return on_call(lf, t, h, at);
	return hold(lf, t, h, at);
}

int lag_filter__flush(struct lag_filter *lf)
{
	int err = 0, ret;

	for (size_t i = 0; i < lf->n; i++) {
		if (!lf->t[i].len)
			continue;
		ret = write_held(lf, &lf->t[i], 1, 0);
		err = err ? err : ret;
	}
	return err;
}

void lag_filter__stats(const struct lag_filter *lf, struct xlp_lag_rec *out)
{
	*out = lf->st;
	out->h = (struct xlp_hdr){.type = XLP_R_LAG, .size = sizeof(*out)};
}

int lag_filter__new(uint64_t threshold_ns, unsigned keep, lag_write_fn write, void *ctx,
		    struct lag_filter **out)
{
	struct lag_filter *lf = calloc(1, sizeof(*lf));

	*out = NULL;
	/* tids come from the kernel, but the table is the one of the tree */
	if (!lf || !(lf->by_tid = htab__new(UINT32_MAX - 1))) {
		free(lf);
		return -ENOMEM;
	}
	lf->threshold_ns = threshold_ns;
	lf->keep = keep ? keep : 1;
	lf->write = write;
	lf->ctx = ctx;
	lf->st.threshold_ns = threshold_ns;
	lf->st.keep = lf->keep;
	*out = lf;
	return 0;
}

void lag_filter__free(struct lag_filter *lf)
{
	if (!lf)
		return;
	for (size_t i = 0; i < lf->n; i++)
		free(lf->t[i].buf);
	free(lf->t);
	htab__free(lf->by_tid);
	free(lf);
}
