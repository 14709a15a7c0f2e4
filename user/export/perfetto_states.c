/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * export --perfetto: each thread's states from the --timeline scheduling
 * events (Running, Runnable, Runnable (preempted), Sleeping by reason, its
 * block requests, the wakeup flows from its wakers), and who held a CPU
 * while a traced thread waited for it (XLP_R_THIEF), as track events.
 * Events that contradict the state machine (a switch-out of a thread never
 * switched in) only end what was open.
 */
#include <stdio.h>
#include <string.h>
#include "escape.h"
#include "export_perfetto.h"
#include "util.h"

static const char *state_name(struct pf *pf, const struct pf_thread *t)
{
	bool d = t->open == ST_SLEEP_D;
	uint32_t why = t->open_reason;
	char buf[64];

	switch (t->open) {
	case ST_RUNNING:
		return "Running";
	case ST_RUNNABLE:
		return "Runnable";
	case ST_PREEMPTED:
		return "Runnable (preempted)";
	}
	/* a sleep's reason is known at its wakeup; one still open has none */
	if (why < XLP_C_DISK || why > XLP_C_OTHER)
		why = XLP_C_WALL;
	if (!pf->sleep_names[d][why]) {
		if (why == XLP_C_WALL)
			snprintf(buf, sizeof(buf), "Sleeping%s", d ? " (D)" : "");
		else
			snprintf(buf, sizeof(buf), "Sleeping%s: %s", d ? " (D)" : "",
				 xlp_ctr_names[why]);
		pf->sleep_names[d][why] = pf__keep_str(pf, buf);
	}
	return pf->sleep_names[d][why];
}

static void state_close(struct pf *pf, struct pf_thread *t, uint64_t ts)
{
	struct pf_ev *e;

	if (t->open == ST_NONE)
		return;
	e = pf__add_slice(pf, UUID(T_STATE, t->tid), state_name(pf, t), t->open_ts, ts, 0);
	if (e)
		e->flow_in = t->open_flow;
	t->open = ST_NONE;
	t->open_flow = 0;
}

static void state_open(struct pf_thread *t, uint32_t kind, uint64_t ts)
{
	t->open = kind;
	t->open_ts = ts;
	t->open_reason = 0;
}

static void on_wakeup(struct pf *pf, struct pf_thread *t, const struct xlp_sched_rec *s)
{
	struct pf_thread *w = s->arg ? pf__thread(pf, s->arg) : NULL;
	char buf[64];
	struct pf_ev *e;

	if (!w)
		return;
	t = pf__thread(pf, s->tid); /* thread_of may have moved the array */
	if (t->open == ST_SLEEP_S || t->open == ST_SLEEP_D)
		t->open_reason = s->detail;
	state_close(pf, t, s->time_ns);
	state_open(t, ST_RUNNABLE, s->time_ns);
	if (!w || w == t)
		return;
	t->open_flow = ++pf->flows;
	if (!t->wake_label) {
		snprintf(buf, sizeof(buf), "wakes %s %u", t->name, t->tid);
		t->wake_label = pf__keep_str(pf, buf);
	}
	e = pf__add_ev(pf, TE_INSTANT, s->time_ns, UUID(T_THREAD, w->tid), t->wake_label, 3000);
	if (e)
		e->flow_out = t->open_flow;
}

static void on_sched(struct pf *pf, const struct xlp_sched_rec *s)
{
	struct pf_thread *t;
	struct pf_ev *e;

	pf->last_ts = s->time_ns > pf->last_ts ? s->time_ns : pf->last_ts;
	if (s->kind == XLP_SCHED_FREQ) {
		if (s->pid >= 1024)
			return;
		pf->cpu_freq_seen[s->pid / 64] |= 1ull << (s->pid % 64);
		e = pf__add_ev(pf, TE_COUNTER, s->time_ns, UUID(T_FREQ, s->pid), NULL, 3000);
		if (e)
			e->counter = s->arg;
		return;
	}
	t = pf__thread(pf, s->tid);
	if (!t)
		return;
	if (s->pid && !t->named)
		t->pid = s->pid;
	t->timeline = true;
	switch (s->kind) {
	case XLP_SCHED_IN:
		state_close(pf, t, s->time_ns);
		state_open(t, ST_RUNNING, s->time_ns);
		break;
	case XLP_SCHED_OUT:
		state_close(pf, t, s->time_ns);
		state_open(t,
			   s->detail == XLP_SCHED_RUNNABLE  ? ST_PREEMPTED
			   : s->detail == XLP_SCHED_SLEEP_D ? ST_SLEEP_D
							    : ST_SLEEP_S,
			   s->time_ns);
		break;
	case XLP_SCHED_WAKEUP:
		/* a thread on a CPU or a runqueue ends no sleep */
		if (t->open == ST_RUNNING || t->open == ST_RUNNABLE || t->open == ST_PREEMPTED)
			break;
		if (s->arg) {
			on_wakeup(pf, t, s);
			break;
		}
		if (t->open == ST_SLEEP_S || t->open == ST_SLEEP_D)
			t->open_reason = s->detail;
		state_close(pf, t, s->time_ns);
		state_open(t, ST_RUNNABLE, s->time_ns);
		break;
	case XLP_SCHED_BLOCK_ISSUE:
	case XLP_SCHED_BLOCK_DONE:
		e = pf__add_ev(pf, TE_INSTANT, s->time_ns, UUID(T_STATE, t->tid),
			       s->kind == XLP_SCHED_BLOCK_ISSUE ? "block issue" : "block done",
			       3000);
		pf__add_ann(pf, e, "bytes", NULL, s->arg);
		break;
	default:
		pf->malformed++;
	}
}

static int cmp_sched(const void *a, const void *b)
{
	const struct xlp_sched_rec *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	/* the ring buffer keeps one CPU's order: a wakeup before its switch-in */
	return x->kind == XLP_SCHED_WAKEUP ? -(y->kind != XLP_SCHED_WAKEUP)
					   : (y->kind == XLP_SCHED_WAKEUP);
}

void pf__states(struct pf *pf, uint64_t end_ns)
{
	xlp_sort(pf->sched, pf->nsched, sizeof(*pf->sched), cmp_sched);
	for (size_t i = 0; i < pf->nsched && !pf->err; i++)
		on_sched(pf, &pf->sched[i]);
	if (end_ns < pf->last_ts)
		end_ns = pf->last_ts;
	for (size_t i = 0; i < pf->nthreads && !pf->err; i++)
		state_close(pf, &pf->threads[i], end_ns);
}

/* ---- who held the CPU while a traced thread waited for it ---- */

static int cmp_thief(const void *a, const void *b)
{
	const struct pf_thief *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* "COMM TID" of a thief, cleaned; what the kernel let us know of it */
static const char *thief_label(struct pf *pf, const struct xlp_thief *t)
{
	char comm[3 * XLP_COMM_LEN + 1], buf[128];

	xlp_clean_utf8(comm, sizeof(comm), t->comm, strnlen(t->comm, XLP_COMM_LEN));
	snprintf(buf, sizeof(buf), "%s %u%s", t->flags & XLP_THIEF_NAME_STALE ? "(exited)" : comm,
		 t->tid, t->flags & XLP_THIEF_KTHREAD ? " (kernel thread)" : "");
	return pf__keep_str(pf, buf);
}

/* The slice's name: the largest share of the wait, by whom or what. */
static const char *thief_name(struct pf *pf, const struct pf_thief *w)
{
	uint64_t elsewhere = w->wait > w->here ? w->wait - w->here : 0;
	const uint64_t part[] = {w->n ? w->t[0].ns : 0, w->idle,  w->irq, w->steal, w->other,
				 w->unlogged,		elsewhere};
	static const char *const what[] = {
		NULL,
		"CPU idle (wakeup latency)",
		"CPU in interrupts",
		"CPU stolen by the hypervisor",
		"CPU held by other tasks",
		"CPU held (before its log)",
		"waited on another CPU",
	};
	char buf[160];
	size_t k = 0;

	for (size_t i = 1; i < sizeof(part) / sizeof(part[0]); i++)
		if (part[i] > part[k])
			k = i;
	if (k)
		return what[k];
	snprintf(buf, sizeof(buf), "CPU held by %s", thief_label(pf, &w->t[0]));
	return pf__keep_str(pf, buf);
}

/*
 * A slice per wait on the waiting thread's "CPU held by" track, over the
 * wait as its cpu_wait counts it, with every share as an argument (the
 * thieves largest first). The track is the thread's own, beside its
 * calls and states, so that the wait's slice nests in neither.
 */
void pf__thieves(struct pf *pf)
{
	static const char *const who[XLP_THIEF_MAX] = {"thief1", "thief2", "thief3", "thief4"};
	static const char *const ns[XLP_THIEF_MAX] = {"thief1_ns", "thief2_ns", "thief3_ns",
						      "thief4_ns"};

	xlp_sort(pf->thieves, pf->nthieves, sizeof(*pf->thieves), cmp_thief);
	for (size_t i = 0; i < pf->nthieves && !pf->err; i++) {
		const struct pf_thief *w = &pf->thieves[i];
		uint64_t end = w->end, start = end > w->wait ? end - w->wait : 0;
		struct pf_thread *t = pf__thread(pf, w->tid);
		struct pf_ev *e;

		if (!t)
			return;
		if (!t->named && w->pid)
			t->pid = w->pid;
		/* waits of one thread never overlap; a file that says so is cut */
		if (t->thief_track && start < t->thief_end)
			start = t->thief_end < end ? t->thief_end : end;
		t->thief_track = true;
		t->thief_end = end;
		e = pf__add_slice(pf, UUID(T_THIEF, w->tid), thief_name(pf, w), start, end, 0);
		pf__add_ann(pf, e, "cpu", NULL, w->cpu);
		pf__add_ann(pf, e, "wait_ns", NULL, w->wait);
		pf__add_ann(pf, e, "here_ns", NULL, w->here);
		for (uint32_t k = 0; k < w->n; k++) {
			pf__add_ann(pf, e, who[k], thief_label(pf, &w->t[k]), 0);
			pf__add_ann(pf, e, ns[k], NULL, w->t[k].ns);
		}
		pf__add_ann(pf, e, "idle_ns", NULL, w->idle);
		pf__add_ann(pf, e, "irq_ns", NULL, w->irq);
		pf__add_ann(pf, e, "steal_ns", NULL, w->steal);
		pf__add_ann(pf, e, "other_ns", NULL, w->other);
		pf__add_ann(pf, e, "unlogged_ns", NULL, w->unlogged);
	}
}
