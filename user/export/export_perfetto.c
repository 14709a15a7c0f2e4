/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xlprobe export --perfetto: a trace as Perfetto's protobuf trace format
 * (a Trace of TracePackets), for ui.perfetto.dev and trace_processor.
 * Track events, here: one track per process and per thread; on a thread's
 * track, its marked calls as slices; under it, a "state" track with the
 * thread's states as slices (Running, Runnable, Sleeping by reason, from
 * record --timeline) and its block requests as instants; a flow from each
 * waker (an instant on its own track) to the Runnable slice it began; per
 * process, a "runs" track with one slice per run, the slow ones named so;
 * a counter track per CPU for its frequency where it was measured; per
 * thread that waited for a CPU inside a marked call, a "CPU held by" track
 * with a slice per wait naming who ran meanwhile (XLP_R_THIEF). Beside
 * them, the ftrace events of every switch of the traced threads' CPUs
 * (user/export/perfetto_ftrace.c), from which Perfetto builds its own CPU
 * tracks and thread states.
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
#include "perfetto_ftrace.h"
#include "perfetto_proto.h"
#include "export_perfetto.h"
#include "trace.h"
#include "util.h"

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
	"track per CPU. Per thread that waited for a CPU inside a marked call, a\n"
	"\"CPU held by\" track: a slice per wait naming who ran on that CPU\n"
	"meanwhile, every share as an argument.\n"
	"\n"
	"A --timeline trace also holds every switch, wakeup and new task on the\n"
	"CPUs the traced threads ran on: they go out as Perfetto's own ftrace events\n"
	"(sched_switch, sched_waking, task_newtask, cpu_frequency; one bundle per\n"
	"CPU) with a process tree, so that Perfetto shows its CPU tracks (what ran\n"
	"on each CPU), its thread states and their critical path (the thread_state\n"
	"table and the sched tables of trace_processor). Timestamps are the\n"
	"trace's, CLOCK_MONOTONIC nanoseconds, which Perfetto takes as its default\n"
	"(boot) clock.\n"
	"\n"
	"  -o, --output FILE   write here (created 0600); default: standard output,\n"
	"                      unless it is a terminal\n"
	"  -h, --help          this text\n"
	"\n"
	"Example:\n"
	"  xlprobe record --timeline -i ./app:handle_request -p 4242 -d 10\n"
	"  xlprobe export --perfetto xlprobe.xlp -o app.pftrace\n";

void *pf__grow(struct pf *pf, void **arr, size_t *n, size_t *cap, size_t elem)
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

const char *pf__keep_str(struct pf *pf, const char *s)
{
	char **slot, *dup = strdup(s);

	if (!dup) {
		pf->err = -ENOMEM;
		return "";
	}
	slot = pf__grow(pf, (void **)&pf->strs, &pf->nstrs, &pf->cap_strs, sizeof(*slot));
	if (!slot) {
		free(dup);
		return "";
	}
	*slot = dup;
	return dup;
}

struct pf_thread *pf__thread(struct pf *pf, uint32_t tid)
{
	struct pf_thread *t;

	/* recent threads come back most: search from the end */
	for (size_t i = pf->nthreads; i-- > 0;)
		if (pf->threads[i].tid == tid)
			return &pf->threads[i];
	t = pf__grow(pf, (void **)&pf->threads, &pf->nthreads, &pf->cap_threads, sizeof(*t));
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
	struct pf_thread *t = pf__thread(pf, tid);

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
	if (!pf__grow(pf, (void **)&pf->procs, &pf->nprocs, &pf->cap_procs, sizeof(*pf->procs)))
		return;
	pf->procs[pf->nprocs - 1].pid = pid;
	xlp_clean_utf8(pf->procs[pf->nprocs - 1].name, sizeof(pf->procs[0].name), comm,
		       strnlen(comm, XLP_COMM_LEN));
}

struct pf_ev *pf__add_ev(struct pf *pf, uint32_t type, uint64_t ts, uint64_t track,
			 const char *name, uint32_t rank)
{
	struct pf_ev *e = pf__grow(pf, (void **)&pf->evs, &pf->nevs, &pf->cap_evs, sizeof(*e));

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

void pf__add_ann(struct pf *pf, struct pf_ev *e, const char *name, const char *str, uint64_t v)
{
	struct pf_ann *a = pf__grow(pf, (void **)&pf->anns, &pf->nanns, &pf->cap_anns, sizeof(*a));

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
struct pf_ev *pf__add_slice(struct pf *pf, uint64_t track, const char *name, uint64_t b, uint64_t e,
			    uint32_t depth)
{
	struct pf_ev *begin = pf__add_ev(pf, TE_BEGIN, b, track, name, 2000 + depth);

	if (pf__add_ev(pf, TE_END, e > b ? e : b, track, NULL,
		       1000 - (depth < 999 ? depth : 999)) &&
	    begin)
		return &pf->evs[pf->nevs - 2];
	return NULL;
}

static void on_call(struct pf *pf, const struct xlp_call_rec *c)
{
	const char *name = c->func_id < pf->meta->nfuncs ? pf->fnames[c->func_id] : "?";
	struct pf_ev *e;
	struct pf_run *run;

	if (!pf__thread(pf, c->tid))
		return;
	pf__thread(pf, c->tid)->pid = c->pid;
	e = pf__add_slice(pf, UUID(T_THREAD, c->tid), name, c->entry_ns,
			  c->entry_ns + c->incl[XLP_C_WALL], c->depth + 1u);
	for (int k = XLP_C_CPU_RUN; k < XLP_NR_CTR && e; k++)
		if (xlp_ctr_names[k] && c->incl[k])
			pf__add_ann(pf, e, xlp_ctr_names[k], NULL, c->incl[k]);
	pf->ncalls++;
	/* the runs are the interaction function's calls, as in the analysis */
	if (c->func_id >= pf->meta->nfuncs ||
	    !(pf->meta->funcs[c->func_id].flags & XLP_FUNC_INTERACTION))
		return;
	run = pf__grow(pf, (void **)&pf->runs, &pf->nruns, &pf->cap_runs, sizeof(*run));
	if (run)
		*run = (struct pf_run){c->pid, c->tid, c->entry_ns, c->incl[XLP_C_WALL]};
}

static void on_launch(struct pf *pf, const struct xlp_launch_rec *l)
{
	struct pf_run *run;

	if (l->end_ns < l->start_ns)
		return;
	run = pf__grow(pf, (void **)&pf->launches, &pf->nlaunches, &pf->cap_launches, sizeof(*run));
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
			struct pf_thread *th = pf__thread(pf, t->tid);

			if (th && !th->named)
				name_thread(pf, t->pid, t->tid, t->comm);
			break;
		}
		case XLP_R_SCHED: {
			struct xlp_sched_rec *s = pf__grow(pf, (void **)&pf->sched, &pf->nsched,
							   &pf->cap_sched, sizeof(*s));

			if (s)
				memcpy(s, h, sizeof(*s));
			break;
		}
		case XLP_R_THIEF: {
			const struct xlp_thief_rec *x = (const void *)h;
			struct pf_thief *w = pf__grow(pf, (void **)&pf->thieves, &pf->nthieves,
						      &pf->cap_thieves, sizeof(*w));

			if (!w)
				break;
			*w = (struct pf_thief){
				x->pid,	   x->tid,	x->h.cpu,    xlp_thief_count(x),
				x->end_ns, x->wait_ns,	x->here_ns,  x->idle_ns,
				x->irq_ns, x->steal_ns, x->other_ns, x->unlogged_ns};
			memcpy(w->t, x->thieves, w->n * sizeof(w->t[0]));
			w->seq = pf->nthieves;
			break;
		}
		}
		/* the CPUs' scheduling events and frequencies: Perfetto's own ftrace */
		if (!pf->err)
			pf->err = perfetto_ftrace__add(pf->ft, h);
	}
	return ret < 0 ? ret : pf->err;
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
		struct pf_thread *t = pf__thread(pf, r->tid);
		struct pf_ev *e;

		if (t && !t->named)
			t->pid = r->pid;

		snprintf(buf, sizeof(buf), "%srun %zu", labeled && slow[i] ? "slow " : "", i + 1);
		e = pf__add_slice(pf, UUID(T_RUNS, r->pid), pf__keep_str(pf, buf), r->start,
				  r->start + r->dur, 0);
		pf__add_ann(pf, e, "latency_ns", NULL, r->dur);
		pf__add_ann(pf, e, "tid", NULL, r->tid);
		if (labeled)
			pf__add_ann(pf, e, "slow", slow[i] ? "yes" : "no", 0);
	}
out:
	free(lat);
	free(slow);
}

/* ---- output ---- */

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

	pf_pkt_begin(w, &pkt, 0, SEQ_TRACK_EVENTS, first);
	td = pbw__begin(w, F_PKT_TRACK_DESC);
	pbw__varint(w, F_TD_UUID, uuid);
	if (parent)
		pbw__varint(w, F_TD_PARENT, parent);
	if (name)
		pbw__str(w, F_TD_NAME, name);
	if (body)
		body(w, arg);
	pbw__end(w, td);
	return pf_pkt_end(w, pkt, f);
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
		if (!err && t->thief_track)
			err = write_desc(w, f, UUID(T_THIEF, t->tid), UUID(T_THREAD, t->tid),
					 "CPU held by", false, NULL, NULL);
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

		pf_pkt_begin(w, &pkt, e->ts, SEQ_TRACK_EVENTS, false);
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
		err = pf_pkt_end(w, pkt, f);
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
	free(pf->thieves);
	perfetto_ftrace__free(pf->ft);
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
	if (!err)
		err = perfetto_ftrace__write(pf->ft, pf->meta->kernel, pf->meta->ncpus, &w, f);
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
	if (pf->meta->features & XLP_FEAT_TIMELINE && !perfetto_ftrace__switches(pf->ft))
		xlp_warn("%s holds no switches of its CPUs (recorded with --no-cpu-sched, or by "
			 "an xlprobe before them): Perfetto's CPU tracks and thread states stay "
			 "empty; the \"state\" tracks hold the traced threads' states",
			 path);
	if (pf->malformed + perfetto_ftrace__malformed(pf->ft))
		xlp_warn("%s: %" PRIu64 " scheduling events of unknown kind skipped", path,
			 pf->malformed + perfetto_ftrace__malformed(pf->ft));
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
	pf.ft = perfetto_ftrace__new();
	err = pf.ft ? pf__names(&pf) : -ENOMEM;
	if (!err)
		err = pf__read(&pf, r);
	if (err) {
		xlp_err("%s: %s: check the disk and the memory", path, strerror(-err));
		goto cleanup;
	}
	ft = trace_reader__footer(r);
	pf__states(&pf, ft ? ft->end_ns : 0);
	pf__runs(&pf);
	pf__thieves(&pf);
	if (pf.err) {
		xlp_err("%s: %s: check the memory", path, strerror(-pf.err));
		goto cleanup;
	}
	if (!pf.nevs && !perfetto_ftrace__count(pf.ft)) {
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
