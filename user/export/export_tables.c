/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xlprobe export --jsonl / --csv: the records of many traces as flat
 * tables (runs, calls, threads, traces) that a database loads as they
 * are. Each trace is read once and its rows written as its records come,
 * so hundreds of files stream through in little memory; only a --repeat
 * trace's launches wait for the end of their file, where their process
 * totals may come. Every row names its trace (trace_id, host, kernel):
 * the output of many machines concatenates into one table. Every byte of
 * a trace is untrusted: strings go out through the escapers of escape.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include "dataset.h"
#include "issues.h"
#include "export.h"
#include "export_tables_int.h"
#include "log.h"
#include "trace.h"
#include "util.h"
#include "waitchain.h"

enum tt_table {
	TT_RUNS,
	TT_CALLS,
	TT_THREADS,
	TT_WAITS,
	TT_TRACES,
	TT_LAGS,
	TT_ISSUES,
	TT_NTABLES
};

static const char *const table_names[TT_NTABLES] = {"runs",   "calls", "threads", "waits",
						    "traces", "lags",  "issues"};

/* ---- one trace ---- */

struct tt_launch {
	uint32_t pid;
	int32_t exit_code;
	uint64_t start_ns, end_ns;
};

struct tt_proc {
	uint32_t pid;
	size_t seq; /* order in the file: a later record of a pid supersedes */
	__u64 tot[XLP_NR_CTR];
};

struct tt_trace {
	const char *path;
	const struct xlp_trace_meta *m;
	char id[24];
	/* its name (demangled) and symbol; NULL: the runs are launches */
	const char *interaction, *interaction_symbol;
	uint64_t nrec, rows[TT_NTABLES];
	bool have_stats; /* a stats record: the drops of a file without footer */
	struct xlp_stats_rec stats;
	struct tt_launch *launches;
	size_t nlaunches, cap_launches;
	struct tt_proc *procs;
	size_t nprocs, cap_procs;
};

/* How the reading ended (the traces row). */
struct tt_end {
	enum trace_status status;
	const struct xlp_trace_footer *ft; /* NULL: none */
	uint64_t chunks, bad;
	char damage[512];
};

struct tt {
	struct tw w;
	int table;	    /* enum tt_table, or -1: every table (JSONL) */
	int write_err;	    /* errno of the first failed write */
	double lag_ns;	    /* lags and issues: a run lags at or past it */
	struct issues *iss; /* issues: every trace's lags */
	char incl[XLP_NR_CTR][32], excl[XLP_NR_CTR][32];
};

/* lags and issues analyse each trace (analysis/issues/issues.h): asked for by name only */
static bool wants(const struct tt *e, enum tt_table t)
{
	return (e->table < 0 && t != TT_LAGS && t != TT_ISSUES) || e->table == (int)t;
}

/* FNV-1a over bytes (util.h); integers go in little-endian, so every host agrees. */
#define fnv xlp_fnv1a

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return fnv(h, b, sizeof(b));
}

/* length first: ("ab", "c") and ("a", "bc") differ */
static uint64_t fnv_str(uint64_t h, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return fnv(fnv_u64(h, n), s ? s : "", n);
}

/*
 * A hash of everything the header holds: two recordings differ at least in
 * their start, to the ns; a copy of a file keeps its id, so tables built
 * from overlapping sets of files deduplicate on it.
 */
static void trace_id(struct tt_trace *t)
{
	const struct xlp_trace_meta *m = t->m;
	const uint64_t ints[] = {m->format_version,
				 m->ncpus,
				 m->clock_id,
				 m->features,
				 (uint64_t)m->boot_offset_ns,
				 m->start_ns,
				 m->min_dur_ns,
				 m->target_pid,
				 m->repeat,
				 m->nfuncs};
	const char *strs[] = {m->host, m->kernel, m->cmdline, m->notes};
	uint64_t h = XLP_FNV_OFFSET;

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		h = fnv_u64(h, ints[i]);
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		h = fnv_str(h, strs[i]);
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		const struct xlp_func_info *f = &m->funcs[i];

		h = fnv_u64(fnv_u64(fnv_u64(h, f->id), f->flags), f->offset);
		h = fnv_str(fnv_str(fnv_str(h, f->binary), f->symbol), f->build_id);
	}
	h = xlp_mix64(h);
	/* a letter first: a CSV reader never takes it for a number */
	snprintf(t->id, sizeof(t->id), "xlp-%016" PRIx64, h);
}

/* CLOCK_REALTIME of a timestamp; unsigned sum: garbage must not overflow */
static int64_t unix_ns(const struct xlp_trace_meta *m, uint64_t mono_ns)
{
	return (int64_t)((uint64_t)m->boot_offset_ns + mono_ns);
}

static const struct xlp_func_info *find_interaction(const struct xlp_trace_meta *m)
{
	for (uint32_t i = 0; i < m->nfuncs; i++)
		if (m->funcs[i].flags & XLP_FUNC_INTERACTION)
			return &m->funcs[i];
	return NULL;
}

static void cols_trace(struct tw *w, const struct tt_trace *t)
{
	tw__str(w, "trace_id", t->id);
	tw__str(w, "host", t->m->host);
	tw__str(w, "kernel", t->m->kernel);
}

static const struct xlp_func_info *func_of(const struct tt_trace *t, uint32_t id)
{
	return id < t->m->nfuncs ? &t->m->funcs[id] : NULL;
}

/* Every named counter; names: the column of each; c NULL: all null. */
static void cols_ctrs(struct tw *w, const char (*names)[32], const __u64 *c)
{
	for (int i = 0; i < XLP_NR_CTR; i++) {
		const char *name = names ? names[i] : xlp_ctr_names[i];

		if (xlp_ctr_names[i])
			tw__u64_or_null(w, name, c ? c[i] : 0, c);
	}
}

/* A run, whichever record it comes from: one column list for both. */
struct tt_run {
	bool launch;
	uint32_t func, pid, tid;
	int32_t exit_code;
	uint64_t start_ns, latency_ns;
	bool have_latency;
	const __u64 *ctr; /* NULL: not in the trace */
};

static void row_run(struct tt *e, const struct tt_trace *t, const struct tt_run *r)
{
	const struct xlp_func_info *fi = r->launch ? NULL : func_of(t, r->func);
	struct tw *w = &e->w;

	tw__row_begin(w, table_names[TT_RUNS]);
	cols_trace(w, t);
	tw__str(w, "run_kind", r->launch ? "launch" : "interaction");
	tw__str(w, "func", fi ? fi->name : NULL);
	tw__str(w, "symbol", fi ? fi->symbol : NULL);
	tw__str(w, "binary", fi ? fi->binary : NULL);
	tw__u64(w, "pid", r->pid);
	tw__u64_or_null(w, "tid", r->tid, !r->launch);
	tw__u64(w, "start_ns", r->start_ns);
	tw__s64(w, "start_unix_ns", unix_ns(t->m, r->start_ns));
	tw__u64_or_null(w, "latency_ns", r->latency_ns, r->have_latency);
	if (r->launch)
		tw__s64(w, "exit_code", r->exit_code);
	else
		tw__null(w, "exit_code");
	cols_ctrs(w, NULL, r->ctr);
	tw__row_end(w);
}

/* The process-wide counters over the run; proc[wall] is its length. */
static void take_run(struct tt *e, struct tt_trace *t, const struct xlp_run_rec *r)
{
	struct tt_run run = {
		.func = r->func_id,
		.pid = r->pid,
		.tid = r->tid,
		.start_ns = r->entry_ns,
		.latency_ns = r->proc[XLP_C_WALL],
		.have_latency = true,
		.ctr = r->proc,
	};

	if (!t->interaction)
		return;
	t->rows[TT_RUNS]++;
	if (wants(e, TT_RUNS))
		row_run(e, t, &run);
}

static void row_call(struct tt *e, const struct tt_trace *t, const struct xlp_call_rec *c)
{
	const struct xlp_func_info *fi = func_of(t, c->func_id);
	bool peer = c->flags & XLP_CALL_IPC_PEER;
	struct tw *w = &e->w;

	tw__row_begin(w, table_names[TT_CALLS]);
	cols_trace(w, t);
	tw__str(w, "func", fi ? fi->name : NULL);
	tw__str(w, "symbol", fi ? fi->symbol : NULL);
	tw__str(w, "binary", fi ? fi->binary : NULL);
	/* "" in the header: the ELF has none */
	tw__str(w, "build_id", fi && fi->build_id && fi->build_id[0] ? fi->build_id : NULL);
	tw__u64(w, "pid", c->pid);
	tw__u64(w, "tid", c->tid);
	tw__u64(w, "depth", c->depth);
	tw__u64(w, "entry_ns", c->entry_ns);
	/* as report decides it: by the function's flag in the header */
	tw__bool(w, "interaction", fi && (fi->flags & XLP_FUNC_INTERACTION));
	tw__u64_or_null(w, "ipc_peer_pid", c->ipc_peer_pid, peer);
	tw__strn(w, "ipc_peer_comm", peer ? c->ipc_peer_comm : NULL,
		 strnlen(c->ipc_peer_comm, XLP_COMM_LEN));
	cols_ctrs(w, e->incl, c->incl);
	cols_ctrs(w, e->excl, c->excl);
	tw__row_end(w);
}

static void row_thread(struct tt *e, const struct tt_trace *t, const struct xlp_thread_rec *r)
{
	struct tw *w = &e->w;

	tw__row_begin(w, table_names[TT_THREADS]);
	cols_trace(w, t);
	tw__u64(w, "pid", r->pid);
	tw__u64(w, "tid", r->tid);
	tw__strn(w, "comm", r->comm, strnlen(r->comm, XLP_COMM_LEN));
	tw__u64(w, "first_ns", r->first_ns);
	tw__u64(w, "last_ns", r->last_ns);
	tw__bool(w, "exited", r->flags & XLP_THREAD_EXITED);
	tw__bool(w, "at_stop", r->flags & XLP_THREAD_AT_STOP);
	tw__bool(w, "partial", r->flags & XLP_THREAD_PARTIAL);
	cols_ctrs(w, NULL, r->tot);
	tw__row_end(w);
}

static int take_launch(struct tt_trace *t, const struct xlp_launch_rec *l)
{
	if (xlp_grow((void **)&t->launches, &t->cap_launches, t->nlaunches, sizeof(*t->launches)))
		return -ENOMEM;
	t->launches[t->nlaunches++] = (struct tt_launch){.pid = l->pid,
							 .exit_code = l->exit_code,
							 .start_ns = l->start_ns,
							 .end_ns = l->end_ns};
	return 0;
}

static int take_proc(struct tt_trace *t, const struct xlp_proc_rec *p)
{
	struct tt_proc *q;

	if (xlp_grow((void **)&t->procs, &t->cap_procs, t->nprocs, sizeof(*t->procs)))
		return -ENOMEM;
	q = &t->procs[t->nprocs];
	q->pid = p->pid;
	q->seq = t->nprocs++;
	memcpy(q->tot, p->tot, sizeof(q->tot));
	return 0;
}

/*
 * A record's row is counted whether written or not: the traces row tells
 * what each table holds of the trace. True when the table is written.
 */
static bool count_row(const struct tt *e, struct tt_trace *t, enum tt_table tab)
{
	t->rows[tab]++;
	return wants(e, tab);
}

/* One record; the reader guarantees each known type's fixed part. */
static int take_record(struct tt *e, struct tt_trace *t, const struct xlp_hdr *h)
{
	/* launches are runs only where no function marks them (as in report) */
	bool launches = !t->interaction && wants(e, TT_RUNS);

	switch (h->type) {
	case XLP_R_CALL:
		if (count_row(e, t, TT_CALLS))
			row_call(e, t, (const void *)h);
		return 0;
	case XLP_R_RUN:
		take_run(e, t, (const void *)h);
		return 0;
	case XLP_R_THREAD:
		if (count_row(e, t, TT_THREADS))
			row_thread(e, t, (const void *)h);
		return 0;
	case XLP_R_LAUNCH:
		t->rows[TT_RUNS] += !t->interaction;
		return launches ? take_launch(t, (const void *)h) : 0;
	case XLP_R_PROC:
		return launches ? take_proc(t, (const void *)h) : 0;
	case XLP_R_STATS:
		memcpy(&t->stats, h, sizeof(t->stats));
		t->have_stats = true;
		return 0;
	default:
		return 0;
	}
}

static int cmp_proc(const void *a, const void *b)
{
	const struct tt_proc *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The last process record of pid (procs sorted by cmp_proc), or NULL. */
static const struct tt_proc *find_proc(const struct tt_trace *t, uint32_t pid)
{
	size_t lo = 0, hi = t->nprocs;

	while (lo < hi) { /* first record of a larger pid */
		size_t mid = lo + (hi - lo) / 2;

		if (t->procs[mid].pid <= pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && t->procs[lo - 1].pid == pid ? &t->procs[lo - 1] : NULL;
}

/* The launches, in file order, with their processes' totals. */
static void rows_launches(struct tt *e, struct tt_trace *t)
{
	xlp_sort(t->procs, t->nprocs, sizeof(*t->procs), cmp_proc);
	for (size_t i = 0; i < t->nlaunches; i++) {
		const struct tt_launch *l = &t->launches[i];
		const struct tt_proc *p = find_proc(t, l->pid);
		struct tt_run run = {
			.launch = true,
			.pid = l->pid,
			.exit_code = l->exit_code,
			.start_ns = l->start_ns,
			.latency_ns = l->end_ns - l->start_ns,
			.have_latency = l->end_ns >= l->start_ns,
			.ctr = p ? p->tot : NULL,
		};

		row_run(e, t, &run);
	}
}

/* The drops: the footer's, else the last stats record's (a truncated file), else none. */
static void cols_drops(struct tw *w, const struct tt_trace *t, const struct tt_end *end)
{
	const uint64_t *stat = NULL;
	uint64_t st[XLP_NR_STAT], lost = 0;

	if (end->ft) {
		stat = end->ft->stat;
		lost = end->ft->lost_by_reader;
	} else if (t->have_stats) {
		for (int i = 0; i < XLP_NR_STAT; i++)
			st[i] = t->stats.stat[i];
		stat = st;
		lost = t->stats.lost_by_reader;
	}
	tw__u64_or_null(w, "lost_by_reader", lost, stat);
	for (int i = 0; i < XLP_NR_STAT; i++)
		if (xlp_stat_names[i])
			tw__u64_or_null(w, xlp_stat_names[i], stat ? stat[i] : 0, stat);
}

static void row_trace(struct tt *e, const struct tt_trace *t, const struct tt_end *end)
{
	const struct xlp_trace_meta *m = t->m;
	const struct xlp_trace_footer *ft = end->ft;
	struct tw *w = &e->w;

	tw__row_begin(w, table_names[TT_TRACES]);
	cols_trace(w, t);
	tw__str(w, "file", t->path);
	tw__str(w, "cmdline", m->cmdline);
	tw__u64(w, "target_pid", m->target_pid);
	tw__u64(w, "ncpus", m->ncpus);
	tw__u64(w, "format_version", m->format_version);
	tw__str(w, "interaction", t->interaction);
	tw__str(w, "interaction_symbol", t->interaction_symbol);
	tw__u64(w, "start_ns", m->start_ns);
	tw__s64(w, "start_unix_ns", unix_ns(m, m->start_ns));
	tw__s64(w, "boot_offset_ns", m->boot_offset_ns);
	tw__u64_or_null(w, "end_ns", ft ? ft->end_ns : 0, ft);
	tw__str(w, "stop_reason", ft ? trace_stop_name(ft->stop_reason) : NULL);
	tw__str(w, "status", trace_status_name(end->status));
	tw__str(w, "damage", end->damage[0] ? end->damage : NULL);
	tw__u64(w, "records", t->nrec);
	tw__u64_or_null(w, "footer_records", ft ? ft->nrecords : 0, ft);
	tw__u64(w, "chunks", end->chunks);
	tw__u64(w, "bad_chunks", end->bad);
	tw__u64(w, "run_rows", t->rows[TT_RUNS]);
	tw__u64(w, "call_rows", t->rows[TT_CALLS]);
	tw__u64(w, "thread_rows", t->rows[TT_THREADS]);
	tw__u64(w, "wait_rows", t->rows[TT_WAITS]);
	cols_drops(w, t, end);
	tw__row_end(w);
}

/* One piece of a wait of run `run` (its index in the trace, from 1). */
static void row_wait(struct tt *e, const struct tt_trace *t, const struct dataset *ds, size_t run,
		     const struct dataset_run *r, const struct waitchain_wait *wt,
		     const struct waitchain_piece *p)
{
	bool fn = p->func != DATASET_NO_FUNC && ds && p->func < dataset__nfuncs(ds);
	struct tw *w = &e->w;

	tw__row_begin(w, table_names[TT_WAITS]);
	cols_trace(w, t);
	tw__u64(w, "run", run);
	tw__u64(w, "pid", r->pid);
	tw__u64(w, "tid", r->tid);
	tw__u64(w, "run_start_ns", r->start_ns);
	tw__u64(w, "wait_start_ns", wt->start_ns);
	tw__u64(w, "wait_ns", wt->end_ns - wt->start_ns);
	tw__u64(w, "start_ns", p->start_ns);
	tw__u64(w, "ns", p->ns);
	tw__u64(w, "depth", p->depth);
	tw__str(w, "state", waitchain__state_name(p->state));
	tw__str(w, "reason", p->reason && p->reason < XLP_NR_CTR ? xlp_ctr_names[p->reason] : NULL);
	tw__u64(w, "blocker_pid", p->blocker_pid);
	tw__u64(w, "blocker_tid", p->blocker_tid);
	tw__strn(w, "blocker", p->comm[0] ? p->comm : NULL, strnlen(p->comm, XLP_COMM_LEN));
	tw__u64(w, "via_tid", p->waker_tid);
	tw__strn(w, "via", p->waker_comm[0] ? p->waker_comm : NULL,
		 strnlen(p->waker_comm, XLP_COMM_LEN));
	tw__str(w, "function", fn ? dataset__func(ds, p->func)->name : NULL);
	tw__str(w, "symbol", fn ? dataset__func(ds, p->func)->symbol : NULL);
	tw__row_end(w);
}

/*
 * The waits table of one trace: its wait chains (the analysis layer's),
 * from the file read once more. Nothing for a trace without a timeline.
 */
static int rows_waits(struct tt *e, struct tt_trace *t)
{
	const char *paths[] = {t->path};
	struct dataset_opts o = {0};
	struct dataset *ds = NULL;
	struct waitchain *wc = NULL;
	char err[PATH_MAX + 512];
	int ret;

	if (!(t->m->features & XLP_FEAT_TIMELINE))
		return 0;
	ret = dataset__load(paths, 1, &o, &ds, err, sizeof(err));
	if (!ret)
		ret = waitchain__build(ds, NULL, &wc, err, sizeof(err));
	if (ret == -ENODATA) {
		ret = 0; /* no runs with a thread: no waits */
	} else if (ret) {
		xlp_err("%s: waits: %s", t->path, err);
	} else {
		for (size_t run = 0; run < dataset__nruns(ds); run++)
			for (size_t i = 0; i < waitchain__nwaits(wc, run); i++) {
				const struct waitchain_wait *wt = waitchain__wait(wc, run, i);

				for (size_t k = wt->first; k < wt->first + wt->n; k++) {
					row_wait(e, t, ds, run + 1, dataset__run(ds, run), wt,
						 waitchain__piece(wc, run, k));
					t->rows[TT_WAITS]++;
				}
			}
	}
	waitchain__free(wc);
	dataset__free(ds);
	return ret;
}

/* One run of a trace, lagging or not, with its issue's fingerprint (issues.h). */
static void row_lag(struct tt *e, const struct tt_trace *t, const struct issues *s,
		    const struct issues_run *x)
{
	const struct issues_issue *i = s && x->issue >= 0 ? issues__get(s, (size_t)x->issue) : NULL;
	const struct issues_session *ss = s && issues__nsessions(s) ? issues__session(s, 0) : NULL;
	struct tw *w = &e->w;

	tw__row_begin(w, table_names[TT_LAGS]);
	cols_trace(w, t);
	tw__u64(w, "run", x->run);
	tw__str(w, "landmark", i ? i->landmark : t->interaction ? t->interaction : "[launch]");
	tw__str(w, "build_id", ss ? ss->build_id : NULL);
	tw__s64(w, "start_unix_ns", x->wall_ns);
	tw__u64(w, "latency_ns", (uint64_t)x->latency_ns);
	tw__bool(w, "lag", i != NULL);
	tw__str(w, "fingerprint", i ? i->fingerprint : NULL);
	tw__str(w, "function", i ? i->function : NULL);
	tw__str(w, "binary", i ? i->binary : NULL);
	tw__str(w, "factor", i ? i->factor : NULL);
	tw__row_end(w);
}

static void row_issue(struct tt *e, const struct issues_issue *i)
{
	struct tw *w = &e->w;

	tw__row_begin(w, table_names[TT_ISSUES]);
	tw__str(w, "fingerprint", i->fingerprint);
	tw__str(w, "landmark", i->landmark);
	tw__str(w, "landmark_binary", i->landmark_binary);
	tw__str(w, "function", i->function);
	tw__str(w, "binary", i->binary);
	tw__str(w, "factor", i->factor);
	tw__u64(w, "sessions", i->sessions);
	tw__u64(w, "hosts", i->hosts);
	tw__u64(w, "builds", i->builds);
	tw__u64(w, "runs", i->runs);
	tw__u64(w, "lag_p50_ns", (uint64_t)i->p50_ns);
	tw__u64(w, "lag_p95_ns", (uint64_t)i->p95_ns);
	tw__u64(w, "lag_max_ns", (uint64_t)i->max_ns);
	tw__u64(w, "impact_ns", (uint64_t)i->impact_ns);
	tw__s64(w, "first_seen_unix_ns", i->first_ns);
	tw__s64(w, "last_seen_unix_ns", i->last_ns);
	tw__row_end(w);
}

/* The lags table of one trace, and its lags into the issues of all. */
static int rows_lags(struct tt *e, struct tt_trace *t)
{
	char err[PATH_MAX + 512];
	struct issues *s = NULL;
	int ret;

	if (e->table == TT_ISSUES) {
		ret = issues__add(e->iss, t->path, err, sizeof(err));
		if (ret)
			xlp_err("%s: issues: %s", t->path, err);
		return ret;
	}
	ret = issues__new(e->lag_ns, &s);
	ret = ret ? ret : issues__add(s, t->path, err, sizeof(err));
	if (ret == -ENOMEM)
		snprintf(err, sizeof(err), "out of memory");
	ret = ret ? ret : issues__finish(s);
	if (ret)
		xlp_err("%s: lags: %s", t->path, err);
	for (size_t k = 0; !ret && k < issues__nruns(s); k++) {
		row_lag(e, t, s, issues__run(s, k));
		t->rows[TT_LAGS]++;
	}
	issues__free(s);
	return ret;
}

/* The CSV header: a table's row function, writing names, on an empty record. */
static void csv_header(struct tt *e)
{
	static const struct xlp_trace_meta m;
	struct tt_trace t = {.m = &m};
	struct tt_end end = {0};

	e->w.names = true;
	if (e->table == TT_RUNS)
		row_run(e, &t, &(struct tt_run){0});
	else if (e->table == TT_CALLS)
		row_call(e, &t, &(struct xlp_call_rec){0});
	else if (e->table == TT_THREADS)
		row_thread(e, &t, &(struct xlp_thread_rec){0});
	else if (e->table == TT_WAITS)
		row_wait(e, &t, NULL, 0, &(struct dataset_run){0}, &(struct waitchain_wait){0},
			 &(struct waitchain_piece){0});
	else if (e->table == TT_LAGS)
		row_lag(e, &t, e->iss, &(struct issues_run){.issue = -1});
	else if (e->table == TT_ISSUES)
		row_issue(e, &(struct issues_issue){.fingerprint = ""});
	else
		row_trace(e, &t, &end);
	e->w.names = false;
}

static void end_of(struct tt_end *end, struct trace_reader *r)
{
	end->status = trace_reader__status(r);
	end->ft = trace_reader__footer(r);
	end->chunks = trace_reader__good_chunks(r);
	end->bad = trace_reader__bad_chunks(r);
	trace_reader__describe(r, end->damage, sizeof(end->damage));
}

/* What was exported of a trace that is not whole, on stderr. */
static void warn_partial(const struct tt_trace *t, const struct tt_end *end)
{
	if (end->status == TRACE_TRUNCATED)
		xlp_warn("%s is truncated (recording did not finish): exported the %" PRIu64
			 " records read; its traces row says status truncated",
			 t->path, t->nrec);
	else if (end->status != TRACE_COMPLETE)
		xlp_warn("%s is damaged (%s): exported the %" PRIu64
			 " records read; its traces row says status damaged",
			 t->path, end->damage, t->nrec);
}

static int read_trace(struct tt *e, struct tt_trace *t, struct trace_reader *r)
{
	const struct xlp_hdr *h;
	int err;

	while ((err = trace_reader__next(r, &h)) > 0) {
		t->nrec++;
		err = take_record(e, t, h);
		if (err)
			return err;
		if (ferror(e->w.f)) {
			e->write_err = errno ? errno : EIO;
			return -EIO;
		}
	}
	return err;
}

/* One trace, streamed to the output. -1 after an error message, or a
 * failed write (e->write_err) the caller reports. */
static int export_trace(struct tt *e, const char *path)
{
	struct tt_trace t = {.path = path};
	struct trace_reader *r = NULL;
	struct tt_end end = {0};
	char why[PATH_MAX + 256];
	const struct xlp_func_info *fi;
	int err, ret = -1;

	err = trace_reader__open(path, &r, why, sizeof(why));
	if (err) {
		xlp_err("%s: %s", path, why);
		return -1;
	}
	t.m = trace_reader__meta(r);
	fi = find_interaction(t.m);
	if (fi) {
		t.interaction = fi->name ? fi->name : fi->symbol ? fi->symbol : "";
		t.interaction_symbol = fi->symbol ? fi->symbol : "";
	}
	trace_id(&t);
	err = read_trace(e, &t, r);
	if (e->write_err)
		goto cleanup;
	if (err < 0) {
		xlp_err("%s: %s after %" PRIu64 " records: check the disk and the memory", path,
			strerror(-err), t.nrec);
		goto cleanup;
	}
	if (wants(e, TT_RUNS))
		rows_launches(e, &t);
	if (wants(e, TT_WAITS) && rows_waits(e, &t))
		goto cleanup;
	if ((e->table == TT_LAGS || e->table == TT_ISSUES) && rows_lags(e, &t))
		goto cleanup;
	end_of(&end, r);
	warn_partial(&t, &end);
	if (wants(e, TT_TRACES))
		row_trace(e, &t, &end);
	ret = 0;
cleanup:
	trace_reader__close(r);
	free(t.launches);
	free(t.procs);
	return ret;
}

/* ---- every trace ---- */

int export_tables__table(const char *s)
{
	for (int i = 0; i < TT_NTABLES; i++)
		if (!strcmp(s, table_names[i]))
			return i;
	return -1;
}

static void tt_init(struct tt *e, const struct tt_args *a, FILE *f)
{
	e->lag_ns = (double)a->lag_ns;
	/* one thread writes: stdio's lock per call was most of the time */
	__fsetlocking(f, FSETLOCKING_BYCALLER);
	e->table = a->table;
	e->w.f = f;
	e->w.csv = a->csv;
	jsonw__init_compact(&e->w.jw, f, 0); /* an object a line */
	for (int i = 0; i < XLP_NR_CTR; i++) {
		snprintf(e->incl[i], sizeof(e->incl[i]), "incl_%s",
			 xlp_ctr_names[i] ? xlp_ctr_names[i] : "");
		snprintf(e->excl[i], sizeof(e->excl[i]), "excl_%s",
			 xlp_ctr_names[i] ? xlp_ctr_names[i] : "");
	}
}

int export_tables__write(const struct tt_args *a, FILE *f)
{
	struct tt e = {0};
	int err = 0;

	tt_init(&e, a, f);
	if (e.table == TT_ISSUES && issues__new(e.lag_ns, &e.iss)) {
		xlp_err("export: out of memory");
		return -1;
	}
	if (a->csv)
		csv_header(&e);
	for (int i = 0; i < a->npaths && !err; i++)
		err = export_trace(&e, a->paths[i]);
	if (!err && e.iss) {
		err = issues__finish(e.iss) ? -1 : 0;
		for (size_t k = 0; !err && k < issues__n(e.iss); k++)
			row_issue(&e, issues__get(e.iss, k));
	}
	issues__free(e.iss);
	if (!e.write_err && ferror(f))
		e.write_err = errno ? errno : EIO;
	if (e.write_err)
		xlp_err("cannot write %s: %s: check the free space", a->out ? a->out : "the output",
			strerror(e.write_err));
	return err || e.write_err ? -1 : 0;
}
