/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xlprobe export --perfetto: a trace as Perfetto's protobuf trace format
 * (a Trace of TracePackets, track events only), for ui.perfetto.dev and
 * trace_processor. One track per process and per thread; on a thread's
 * track, its marked calls as slices; under it, a "state" track with the
 * thread's states as slices (Running, Runnable, Sleeping by reason, from
 * record --timeline) and its block requests as instants; a flow from each
 * waker (an instant on its own track) to the Runnable slice it began; per
 * process, a "runs" track with one slice per run, the slow ones named so;
 * a counter track per CPU for its frequency where it was measured.
 *
 * Every byte of the trace is untrusted: names are cleaned to valid UTF-8
 * without control characters, events come out sorted whatever order the
 * file had, and events that contradict the state machine (a switch-out of
 * a thread never switched in) only end what was open.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "export.h"
#include "escape.h"
#include "labels.h"
#include "log.h"
#include "outfile.h"
#include "pbw.h"
#include "trace.h"
#include "util.h"

/*
 * Field numbers of Perfetto's public schema (protos/perfetto/trace/ in
 * the Perfetto repository: trace.proto, trace_packet.proto,
 * track_event/track_event.proto, track_descriptor.proto,
 * process_descriptor.proto, thread_descriptor.proto,
 * counter_descriptor.proto, debug_annotation.proto). tests/perfetto/
 * keeps the subset the tests decode with.
 */
enum {
	F_TRACE_PACKET = 1,
	F_PKT_TIMESTAMP = 8,
	F_PKT_SEQ_ID = 10, /* trusted_packet_sequence_id */
	F_PKT_TRACK_EVENT = 11,
	F_PKT_SEQ_FLAGS = 13,
	F_PKT_TRACK_DESC = 60,
	F_TD_UUID = 1,
	F_TD_NAME = 2,
	F_TD_PROCESS = 3,
	F_TD_THREAD = 4,
	F_TD_PARENT = 5,
	F_TD_COUNTER = 8,
	F_PD_PID = 1,
	F_PD_NAME = 6,
	F_THD_PID = 1,
	F_THD_TID = 2,
	F_THD_NAME = 5,
	F_CD_UNIT = 3,
	F_TE_DEBUG = 4,
	F_TE_TYPE = 9,
	F_TE_TRACK = 11,
	F_TE_CATEGORY = 22,
	F_TE_NAME = 23,
	F_TE_COUNTER = 30,
	F_TE_FLOW = 47,
	F_TE_FLOW_END = 48,
	F_DA_BOOL = 2,
	F_DA_UINT = 3,
	F_DA_STRING = 6,
	F_DA_NAME = 10,
};

enum { TE_BEGIN = 1, TE_END = 2, TE_INSTANT = 3, TE_COUNTER = 4 };
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define UNIT_COUNT 2
#define SEQ_ID 1

/* track uuids: a kind in the top byte, a pid, tid or CPU below */
enum { T_PROC = 1, T_THREAD, T_STATE, T_RUNS, T_FREQ };
#define UUID(kind, id) ((uint64_t)(kind) << 56 | (uint32_t)(id))

static const char help[] =
	"Usage: xlprobe export --perfetto [-o FILE] TRACE\n"
	"\n"
	"Writes the trace in Perfetto's protobuf format, to open in\n"
	"https://ui.perfetto.dev (Open trace file) or trace_processor. Per process\n"
	"a track, and a \"runs\" track with one slice per run (the slow ones named\n"
	"\"slow run N\", by the same rule as 'xlprobe report': median + 1 sigma).\n"
	"Per thread a track with its marked calls as slices (their counters as\n"
	"arguments) and, when the trace was recorded with --timeline, a \"state\"\n"
	"track below it: Running, Runnable, Runnable (preempted), Sleeping: REASON\n"
	"(disk, net, ipc, lock, timer, other; (D) when uninterruptible), block\n"
	"requests as instants, and an arrow from the thread that woke it (an\n"
	"instant \"wakes TID\" on the waker's track) to the Runnable slice the wakeup\n"
	"began. CPU frequency, where a cpufreq driver reported it, as one counter\n"
	"track per CPU. Timestamps are the trace's, CLOCK_MONOTONIC nanoseconds.\n"
	"\n"
	"  -o, --output FILE   write here (created 0600); default: standard output,\n"
	"                      unless it is a terminal\n"
	"  -h, --help          this text\n"
	"\n"
	"Example:\n"
	"  xlprobe record --timeline -i ./app:handle_request -p 4242 -d 10\n"
	"  xlprobe export --perfetto xlprobe.xlp -o app.pftrace\n";

struct pf_thread {
	uint32_t pid, tid;
	char name[3 * XLP_COMM_LEN + 1]; /* cleaned */
	bool named, timeline, desc;
	/* the state slice open since open_ts (enum st_kind, 0: none) */
	uint32_t open;
	uint32_t open_reason; /* sleep: enum xlp_ctr, known at its wakeup */
	uint64_t open_ts, open_flow;
	const char *wake_label; /* "wakes NAME TID", made once */
};

enum st_kind { ST_NONE = 0, ST_RUNNING, ST_RUNNABLE, ST_PREEMPTED, ST_SLEEP_S, ST_SLEEP_D };

struct pf_ann {
	const char *name;
	const char *str; /* NULL: v is the value */
	uint64_t v;
};

struct pf_ev {
	uint64_t ts, track, flow_out, flow_in;
	uint64_t counter;
	const char *name;
	uint32_t type, rank;
	uint32_t ann, nann; /* in pf.anns */
	uint64_t seq;	    /* file order: ties keep it */
};

struct pf_run {
	uint32_t pid, tid;
	uint64_t start, dur;
};

struct pf {
	const struct xlp_trace_meta *meta;
	struct pf_thread *threads;
	size_t nthreads, cap_threads;
	struct {
		uint32_t pid;
		char name[3 * XLP_COMM_LEN + 1];
	} * procs;
	size_t nprocs, cap_procs;
	struct xlp_sched_rec *sched;
	size_t nsched, cap_sched;
	struct pf_ev *evs;
	size_t nevs, cap_evs;
	struct pf_ann *anns;
	size_t nanns, cap_anns;
	struct pf_run *runs;
	size_t nruns, cap_runs;
	/* launches are the runs when no function marks them (as in report) */
	struct pf_run *launches;
	size_t nlaunches, cap_launches;
	char **strs; /* names made here, freed at the end */
	size_t nstrs, cap_strs;
	char **fnames;				/* meta's function names, cleaned */
	const char *sleep_names[2][XLP_NR_CTR]; /* [uninterruptible][reason], made once */
	uint64_t cpu_freq_seen[1024 / 64];
	uint64_t ncalls, flows, malformed, last_ts;
	int err;
};

static void *grow(struct pf *pf, void **arr, size_t *n, size_t *cap, size_t elem)
{
	int err;

	if (pf->err)
		return NULL;
	err = xlp_grow(arr, cap, *n + 1, elem);
	if (err) {
		pf->err = err;
		return NULL;
	}
	return (char *)*arr + (*n)++ * elem;
}

static const char *keep_str(struct pf *pf, const char *s)
{
	char **slot, *dup = strdup(s);

	if (!dup) {
		pf->err = -ENOMEM;
		return "";
	}
	slot = grow(pf, (void **)&pf->strs, &pf->nstrs, &pf->cap_strs, sizeof(*slot));
	if (!slot) {
		free(dup);
		return "";
	}
	*slot = dup;
	return dup;
}

static struct pf_thread *thread_of(struct pf *pf, uint32_t tid)
{
	struct pf_thread *t;

	/* recent threads come back most: search from the end */
	for (size_t i = pf->nthreads; i-- > 0;)
		if (pf->threads[i].tid == tid)
			return &pf->threads[i];
	t = grow(pf, (void **)&pf->threads, &pf->nthreads, &pf->cap_threads, sizeof(*t));
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = tid;
	snprintf(t->name, sizeof(t->name), "%u", tid);
	return t;
}

static void name_thread(struct pf *pf, uint32_t pid, uint32_t tid, const char *comm)
{
	struct pf_thread *t = thread_of(pf, tid);

	if (!t)
		return;
	t->pid = pid;
	xlp_clean_utf8(t->name, sizeof(t->name), comm, strnlen(comm, XLP_COMM_LEN));
	t->named = true;
}

static void name_proc(struct pf *pf, uint32_t pid, const char *comm)
{
	for (size_t i = 0; i < pf->nprocs; i++)
		if (pf->procs[i].pid == pid)
			return;
	if (!grow(pf, (void **)&pf->procs, &pf->nprocs, &pf->cap_procs, sizeof(*pf->procs)))
		return;
	pf->procs[pf->nprocs - 1].pid = pid;
	xlp_clean_utf8(pf->procs[pf->nprocs - 1].name, sizeof(pf->procs[0].name), comm,
		       strnlen(comm, XLP_COMM_LEN));
}

static struct pf_ev *add_ev(struct pf *pf, uint32_t type, uint64_t ts, uint64_t track,
			    const char *name, uint32_t rank)
{
	struct pf_ev *e = grow(pf, (void **)&pf->evs, &pf->nevs, &pf->cap_evs, sizeof(*e));

	if (!e)
		return NULL;
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->ts = ts;
	e->track = track;
	e->name = name;
	e->rank = rank;
	e->seq = pf->nevs;
	e->ann = (uint32_t)pf->nanns;
	return e;
}

static void add_ann(struct pf *pf, struct pf_ev *e, const char *name, const char *str, uint64_t v)
{
	struct pf_ann *a = grow(pf, (void **)&pf->anns, &pf->nanns, &pf->cap_anns, sizeof(*a));

	if (!a || !e)
		return;
	a->name = name;
	a->str = str;
	a->v = v;
	e->nann++;
}

/*
 * A slice [b, e) on track at nesting depth: its END sorts before any BEGIN
 * at the same instant, deeper ENDs first and shallower BEGINs first, so
 * that slices that touch stay siblings and nested ones stay nested.
 */
static struct pf_ev *add_slice(struct pf *pf, uint64_t track, const char *name, uint64_t b,
			       uint64_t e, uint32_t depth)
{
	struct pf_ev *begin = add_ev(pf, TE_BEGIN, b, track, name, 2000 + depth);

	if (add_ev(pf, TE_END, e > b ? e : b, track, NULL, 1000 - (depth < 999 ? depth : 999)) &&
	    begin)
		return &pf->evs[pf->nevs - 2];
	return NULL;
}

static void on_call(struct pf *pf, const struct xlp_call_rec *c)
{
	const char *name = c->func_id < pf->meta->nfuncs ? pf->fnames[c->func_id] : "?";
	struct pf_ev *e;
	struct pf_run *run;

	if (!thread_of(pf, c->tid))
		return;
	thread_of(pf, c->tid)->pid = c->pid;
	e = add_slice(pf, UUID(T_THREAD, c->tid), name, c->entry_ns,
		      c->entry_ns + c->incl[XLP_C_WALL], c->depth + 1u);
	for (int k = XLP_C_CPU_RUN; k < XLP_NR_CTR && e; k++)
		if (xlp_ctr_names[k] && c->incl[k])
			add_ann(pf, e, xlp_ctr_names[k], NULL, c->incl[k]);
	pf->ncalls++;
	/* the runs are the interaction function's calls, as in the analysis */
	if (c->func_id >= pf->meta->nfuncs ||
	    !(pf->meta->funcs[c->func_id].flags & XLP_FUNC_INTERACTION))
		return;
	run = grow(pf, (void **)&pf->runs, &pf->nruns, &pf->cap_runs, sizeof(*run));
	if (run)
		*run = (struct pf_run){c->pid, c->tid, c->entry_ns, c->incl[XLP_C_WALL]};
}

static void on_launch(struct pf *pf, const struct xlp_launch_rec *l)
{
	struct pf_run *run;

	if (l->end_ns < l->start_ns)
		return;
	run = grow(pf, (void **)&pf->launches, &pf->nlaunches, &pf->cap_launches, sizeof(*run));
	if (run)
		*run = (struct pf_run){l->pid, l->pid, l->start_ns, l->end_ns - l->start_ns};
}

static int pf__read(struct pf *pf, struct trace_reader *r)
{
	const struct xlp_hdr *h;
	int ret;

	while ((ret = trace_reader__next(r, &h)) > 0 && !pf->err) {
		switch (h->type) {
		case XLP_R_CALL:
			if (h->size >= sizeof(struct xlp_call_rec))
				on_call(pf, (const void *)h);
			break;
		case XLP_R_LAUNCH:
			on_launch(pf, (const void *)h);
			break;
		case XLP_R_THREAD: {
			const struct xlp_thread_rec *t = (const void *)h;

			name_thread(pf, t->pid, t->tid, t->comm);
			break;
		}
		case XLP_R_PROC: {
			const struct xlp_proc_rec *p = (const void *)h;

			name_proc(pf, p->pid, p->comm);
			break;
		}
		case XLP_R_TASK: {
			const struct xlp_task_rec *t = (const void *)h;
			struct pf_thread *th = thread_of(pf, t->tid);

			if (th && !th->named)
				name_thread(pf, t->pid, t->tid, t->comm);
			break;
		}
		case XLP_R_SCHED: {
			struct xlp_sched_rec *s = grow(pf, (void **)&pf->sched, &pf->nsched,
						       &pf->cap_sched, sizeof(*s));

			if (s)
				memcpy(s, h, sizeof(*s));
			break;
		}
		}
	}
	return ret < 0 ? ret : pf->err;
}

/* ---- thread states from the scheduling events ---- */

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
		pf->sleep_names[d][why] = keep_str(pf, buf);
	}
	return pf->sleep_names[d][why];
}

static void state_close(struct pf *pf, struct pf_thread *t, uint64_t ts)
{
	struct pf_ev *e;

	if (t->open == ST_NONE)
		return;
	e = add_slice(pf, UUID(T_STATE, t->tid), state_name(pf, t), t->open_ts, ts, 0);
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
	struct pf_thread *w = s->arg ? thread_of(pf, s->arg) : NULL;
	char buf[64];
	struct pf_ev *e;

	if (!w)
		return;
	t = thread_of(pf, s->tid); /* thread_of may have moved the array */
	if (t->open == ST_SLEEP_S || t->open == ST_SLEEP_D)
		t->open_reason = s->detail;
	state_close(pf, t, s->time_ns);
	state_open(t, ST_RUNNABLE, s->time_ns);
	if (!w || w == t)
		return;
	t->open_flow = ++pf->flows;
	if (!t->wake_label) {
		snprintf(buf, sizeof(buf), "wakes %s %u", t->name, t->tid);
		t->wake_label = keep_str(pf, buf);
	}
	e = add_ev(pf, TE_INSTANT, s->time_ns, UUID(T_THREAD, w->tid), t->wake_label, 3000);
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
		e = add_ev(pf, TE_COUNTER, s->time_ns, UUID(T_FREQ, s->pid), NULL, 3000);
		if (e)
			e->counter = s->arg;
		return;
	}
	t = thread_of(pf, s->tid);
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
		e = add_ev(pf, TE_INSTANT, s->time_ns, UUID(T_STATE, t->tid),
			   s->kind == XLP_SCHED_BLOCK_ISSUE ? "block issue" : "block done", 3000);
		add_ann(pf, e, "bytes", NULL, s->arg);
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

static void pf__states(struct pf *pf, uint64_t end_ns)
{
	xlp_sort(pf->sched, pf->nsched, sizeof(*pf->sched), cmp_sched);
	for (size_t i = 0; i < pf->nsched && !pf->err; i++)
		on_sched(pf, &pf->sched[i]);
	if (end_ns < pf->last_ts)
		end_ns = pf->last_ts;
	for (size_t i = 0; i < pf->nthreads && !pf->err; i++)
		state_close(pf, &pf->threads[i], end_ns);
}

/* ---- runs: the slow ones by report's default rule ---- */

static void pf__runs(struct pf *pf)
{
	struct labels_rule rule = {.kind = LABELS_SIGMA, .k = 1};
	struct labels_summary sum;
	uint8_t *slow = NULL;
	double *lat = NULL;
	char buf[64];
	bool labeled = false;

	if (!pf->nruns) {
		/* the array moves: nothing else points into it */
		free(pf->runs);
		pf->runs = pf->launches;
		pf->nruns = pf->nlaunches;
		pf->launches = NULL;
		pf->nlaunches = 0;
	}
	if (!pf->nruns)
		return;
	lat = calloc(pf->nruns, sizeof(*lat));
	slow = calloc(pf->nruns, 1);
	if (!lat || !slow) {
		pf->err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < pf->nruns; i++)
		lat[i] = (double)pf->runs[i].dur;
	labeled = pf->nruns >= 2 && !labels__compute(lat, pf->nruns, &rule, slow, &sum);
	for (size_t i = 0; i < pf->nruns && !pf->err; i++) {
		struct pf_run *r = &pf->runs[i];
		struct pf_thread *t = thread_of(pf, r->tid);
		struct pf_ev *e;

		if (t && !t->named)
			t->pid = r->pid;

		snprintf(buf, sizeof(buf), "%srun %zu", labeled && slow[i] ? "slow " : "", i + 1);
		e = add_slice(pf, UUID(T_RUNS, r->pid), keep_str(pf, buf), r->start,
			      r->start + r->dur, 0);
		add_ann(pf, e, "latency_ns", NULL, r->dur);
		add_ann(pf, e, "tid", NULL, r->tid);
		if (labeled)
			add_ann(pf, e, "slow", slow[i] ? "yes" : "no", 0);
	}
out:
	free(lat);
	free(slow);
}

/* ---- output ---- */

static void pkt_begin(struct pbw *w, size_t *mark, uint64_t ts, bool first)
{
	pbw__reset(w);
	*mark = pbw__begin(w, F_TRACE_PACKET);
	if (ts)
		pbw__varint(w, F_PKT_TIMESTAMP, ts);
	pbw__varint(w, F_PKT_SEQ_ID, SEQ_ID);
	if (first)
		pbw__varint(w, F_PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
}

static int pkt_end(struct pbw *w, size_t mark, FILE *f)
{
	pbw__end(w, mark);
	if (pbw__err(w))
		return pbw__err(w);
	if (fwrite(w->buf, 1, w->len, f) != w->len)
		return -EIO;
	return 0;
}

static const char *proc_name(const struct pf *pf, uint32_t pid)
{
	for (size_t i = 0; i < pf->nprocs; i++)
		if (pf->procs[i].pid == pid)
			return pf->procs[i].name;
	for (size_t i = 0; i < pf->nthreads; i++)
		if (pf->threads[i].tid == pid)
			return pf->threads[i].name;
	return NULL;
}

static int write_desc(struct pbw *w, FILE *f, uint64_t uuid, uint64_t parent, const char *name,
		      bool first, void (*body)(struct pbw *, const void *), const void *arg)
{
	size_t pkt, td;

	pkt_begin(w, &pkt, 0, first);
	td = pbw__begin(w, F_PKT_TRACK_DESC);
	pbw__varint(w, F_TD_UUID, uuid);
	if (parent)
		pbw__varint(w, F_TD_PARENT, parent);
	if (name)
		pbw__str(w, F_TD_NAME, name);
	if (body)
		body(w, arg);
	pbw__end(w, td);
	return pkt_end(w, pkt, f);
}

struct proc_arg {
	uint32_t pid;
	const char *name;
};

static void proc_body(struct pbw *w, const void *arg)
{
	const struct proc_arg *p = arg;
	size_t m = pbw__begin(w, F_TD_PROCESS);

	pbw__varint(w, F_PD_PID, p->pid);
	if (p->name)
		pbw__str(w, F_PD_NAME, p->name);
	pbw__end(w, m);
}

static void thread_body(struct pbw *w, const void *arg)
{
	const struct pf_thread *t = arg;
	size_t m = pbw__begin(w, F_TD_THREAD);

	pbw__varint(w, F_THD_PID, t->pid);
	pbw__varint(w, F_THD_TID, t->tid);
	pbw__str(w, F_THD_NAME, t->name);
	pbw__end(w, m);
}

static void counter_body(struct pbw *w, const void *arg)
{
	size_t m = pbw__begin(w, F_TD_COUNTER);

	(void)arg;
	pbw__varint(w, F_CD_UNIT, UNIT_COUNT);
	pbw__end(w, m);
}

static bool has_runs(const struct pf *pf, uint32_t pid)
{
	for (size_t i = 0; i < pf->nevs; i++)
		if (pf->evs[i].track == UUID(T_RUNS, pid))
			return true;
	return false;
}

static int write_tracks(struct pf *pf, struct pbw *w, FILE *f)
{
	bool first = true;
	char name[48];
	int err = 0;

	for (size_t i = 0; i < pf->nthreads && !err; i++) {
		struct pf_thread *t = &pf->threads[i];
		struct proc_arg pa = {t->pid, proc_name(pf, t->pid)};
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = pf->threads[j].pid == t->pid;
		if (!seen) {
			err = write_desc(w, f, UUID(T_PROC, t->pid), 0, NULL, first, proc_body,
					 &pa);
			first = false;
			if (!err && has_runs(pf, t->pid))
				err = write_desc(w, f, UUID(T_RUNS, t->pid), UUID(T_PROC, t->pid),
						 "runs", false, NULL, NULL);
		}
		if (!err)
			err = write_desc(w, f, UUID(T_THREAD, t->tid), UUID(T_PROC, t->pid), NULL,
					 first, thread_body, t);
		first = false;
		if (!err && t->timeline)
			err = write_desc(w, f, UUID(T_STATE, t->tid), UUID(T_THREAD, t->tid),
					 "state", false, NULL, NULL);
	}
	for (uint32_t cpu = 0; cpu < 1024 && !err; cpu++) {
		if (!(pf->cpu_freq_seen[cpu / 64] & (1ull << (cpu % 64))))
			continue;
		snprintf(name, sizeof(name), "cpu%u frequency (kHz)", cpu);
		err = write_desc(w, f, UUID(T_FREQ, cpu), 0, name, first, counter_body, NULL);
		first = false;
	}
	return err;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct pf_ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int write_events(struct pf *pf, struct pbw *w, FILE *f)
{
	int err = 0;

	xlp_sort(pf->evs, pf->nevs, sizeof(*pf->evs), cmp_ev);
	for (size_t i = 0; i < pf->nevs && !err; i++) {
		const struct pf_ev *e = &pf->evs[i];
		size_t pkt, te;

		pkt_begin(w, &pkt, e->ts, false);
		te = pbw__begin(w, F_PKT_TRACK_EVENT);
		pbw__varint(w, F_TE_TYPE, e->type);
		pbw__varint(w, F_TE_TRACK, e->track);
		if (e->type == TE_COUNTER) {
			pbw__sint(w, F_TE_COUNTER, (int64_t)e->counter);
		} else if (e->type != TE_END) {
			pbw__str(w, F_TE_CATEGORY, "xlprobe");
			pbw__str(w, F_TE_NAME, e->name ? e->name : "");
		}
		if (e->flow_out)
			pbw__fixed64(w, F_TE_FLOW, e->flow_out);
		if (e->flow_in)
			pbw__fixed64(w, F_TE_FLOW_END, e->flow_in);
		for (uint32_t k = 0; k < e->nann; k++) {
			const struct pf_ann *a = &pf->anns[e->ann + k];
			size_t da = pbw__begin(w, F_TE_DEBUG);

			pbw__str(w, F_DA_NAME, a->name);
			if (a->str)
				pbw__str(w, F_DA_STRING, a->str);
			else
				pbw__varint(w, F_DA_UINT, a->v);
			pbw__end(w, da);
		}
		pbw__end(w, te);
		err = pkt_end(w, pkt, f);
	}
	return err;
}

static void pf__free(struct pf *pf)
{
	for (size_t i = 0; i < pf->nstrs; i++)
		free(pf->strs[i]);
	if (pf->fnames)
		for (uint32_t i = 0; i < pf->meta->nfuncs; i++)
			free(pf->fnames[i]);
	free(pf->fnames);
	free(pf->strs);
	free(pf->threads);
	free(pf->procs);
	free(pf->sched);
	free(pf->evs);
	free(pf->anns);
	free(pf->runs);
	free(pf->launches);
}

static int pf__names(struct pf *pf)
{
	pf->fnames = calloc(pf->meta->nfuncs ? pf->meta->nfuncs : 1, sizeof(*pf->fnames));
	if (!pf->fnames)
		return -ENOMEM;
	for (uint32_t i = 0; i < pf->meta->nfuncs; i++) {
		const struct xlp_func_info *fi = &pf->meta->funcs[i];
		const char *s = fi->name ? fi->name : fi->symbol ? fi->symbol : "?";
		size_t n = strlen(s), cap = 3 * n + 5;

		pf->fnames[i] = malloc(cap);
		if (!pf->fnames[i])
			return -ENOMEM;
		xlp_clean_utf8(pf->fnames[i], cap, s, n);
	}
	return 0;
}

static int pf__write(struct pf *pf, FILE *f);

static int pf_to(FILE *f, const void *pf)
{
	return pf__write((struct pf *)pf, f);
}

static int pf__write(struct pf *pf, FILE *f)
{
	struct pbw w = {0};
	int err;

	err = write_tracks(pf, &w, f);
	if (!err)
		err = write_events(pf, &w, f);
	pbw__free(&w);
	if (!err && fflush(f))
		err = -errno;
	return err;
}

static int warn_status(struct trace_reader *r, const char *path)
{
	char why[512];

	if (trace_reader__status(r) == TRACE_TRUNCATED)
		xlp_warn("%s is truncated (recording did not finish): exporting what was read",
			 path);
	else if (trace_reader__status(r) != TRACE_COMPLETE)
		xlp_warn("%s is damaged (%s): exporting what was read", path,
			 trace_reader__describe(r, why, sizeof(why)));
	return 0;
}

static void warn_losses(struct trace_reader *r, const struct pf *pf, const char *path)
{
	const struct xlp_trace_footer *ft = trace_reader__footer(r);

	if (!(pf->meta->features & XLP_FEAT_TIMELINE))
		xlp_warn("%s was recorded without --timeline: no thread states, wakeups or block "
			 "requests (record with --timeline for them)",
			 path);
	if (ft && (ft->stat[XLP_S_RB_FULL] || ft->lost_by_reader))
		xlp_warn("%s: %" PRIu64 " records were lost while recording (rb_full %" PRIu64
			 ", lost_by_reader %" PRIu64 "): the timeline has gaps; record with a "
			 "larger --buffer-size",
			 path, ft->stat[XLP_S_RB_FULL] + ft->lost_by_reader,
			 ft->stat[XLP_S_RB_FULL], ft->lost_by_reader);
	if (pf->malformed)
		xlp_warn("%s: %" PRIu64 " scheduling events of unknown kind skipped", path,
			 pf->malformed);
}

int cmd_export_perfetto(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"perfetto", no_argument, NULL, 'P'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	struct trace_reader *r = NULL;
	const struct xlp_trace_footer *ft;
	char why[PATH_MAX + 256];
	const char *out = NULL, *path;
	struct pf pf = {0};
	int c, err, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		if (c == 'P')
			continue;
		if (c == 'o') {
			out = optarg;
			continue;
		}
		if (c == 'h') {
			fputs(help, stdout);
			return 0;
		}
		xlp_err("export --perfetto: bad usage: see xlprobe export --perfetto --help");
		return 2;
	}
	if (optind != argc - 1) {
		xlp_err("export --perfetto: one trace file expected: xlprobe export --perfetto "
			"TRACE -o OUT.pftrace");
		return 2;
	}
	path = argv[optind];
	if (!out && isatty(STDOUT_FILENO)) {
		xlp_err("export --perfetto: the output is binary and standard output is a "
			"terminal: give -o FILE.pftrace");
		return 2;
	}
	err = trace_reader__open(path, &r, why, sizeof(why));
	if (err) {
		xlp_err("%s: %s", path, why);
		return 1;
	}
	pf.meta = trace_reader__meta(r);
	err = pf__names(&pf);
	if (!err)
		err = pf__read(&pf, r);
	if (err) {
		xlp_err("%s: %s: check the disk and the memory", path, strerror(-err));
		goto cleanup;
	}
	ft = trace_reader__footer(r);
	pf__states(&pf, ft ? ft->end_ns : 0);
	pf__runs(&pf);
	if (pf.err) {
		xlp_err("%s: %s: check the memory", path, strerror(-pf.err));
		goto cleanup;
	}
	if (!pf.nevs) {
		xlp_err("%s holds no calls, runs or scheduling events to show: record with "
			"--timeline or --func",
			path);
		goto cleanup;
	}
	warn_status(r, path);
	warn_losses(r, &pf, path);
	if (!outfile__write_with(out, "-o", pf_to, &pf))
		ret = 0;
cleanup:
	pf__free(&pf);
	trace_reader__close(r);
	return ret;
}
