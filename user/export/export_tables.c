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
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include "dataset.h"
#include "escape.h"
#include "issues.h"
#include "export.h"
#include "jsonw.h"
#include "log.h"
#include "outfile.h"
#include "trace.h"
#include "util.h"
#include "waitchain.h"

const char export_tables_help[] =
	"Usage: xlprobe export --jsonl [--table TABLE] [-o FILE] TRACE...\n"
	"       xlprobe export --csv --table TABLE [-o FILE] TRACE...\n"
	"\n"
	"Writes the records of one or more traces as flat tables, for a database\n"
	"holding the data of many machines (DuckDB's read_json_auto and\n"
	"read_csv_auto load them as they are: docs/fleet-tables.md). Each trace is\n"
	"read once and streamed, so any number of files from any number of hosts\n"
	"append into one output. Every row begins with trace_id, host and kernel;\n"
	"trace_id is \"xlp-\" and 16 hex digits, a hash of the whole trace header\n"
	"(host, kernel, start to the ns, command line, functions): the same for\n"
	"every copy of a file, different for any two recordings.\n"
	"\n"
	"Tables (README.md, \"Fleet tables\", describes every column):\n"
	"  runs     one row per run: the run record of an interaction call, with\n"
	"           the process's counters over the run; in a trace recorded with\n"
	"           --repeat and no --interaction, one launch of the command,\n"
	"           with its process's totals\n"
	"  calls    one row per recorded call of a marked function: function,\n"
	"           binary, pid, tid, depth, entry_ns, every counter inclusive\n"
	"           (incl_wall ...) and exclusive (excl_wall ...)\n"
	"  threads  one row per thread record: pid, tid, comm, first_ns, last_ns,\n"
	"           the thread's total of every counter\n"
	"  waits    one row per piece of a wait of a run's thread, from the wait\n"
	"           chains of a trace recorded with --timeline (README, \"Wait\n"
	"           chains\"): run, the waiting thread, the wait, the piece's\n"
	"           start and ns, depth, the blocker's state (ran, cpu_wait,\n"
	"           device, asleep, untraced, cycle, depth_limit), reason,\n"
	"           blocker and first hop (pid, tid, name) and function\n"
	"  traces   one row per trace, after its other rows: file, status\n"
	"           (complete, truncated, damaged), what is damaged, records\n"
	"           read, its rows in each table, and what was lost while\n"
	"           recording: lost_by_reader and every BPF-side statistic\n"
	"           (rb_full, stack_overflow ...)\n"
	"Counters keep the names dump shows (wall, cpu_run, cpu_wait, ...): times\n"
	"in integer ns, the others counts (freq_khz_ns: kHz x ns). Timestamps\n"
	"(start_ns, entry_ns, first_ns, last_ns, end_ns) are the recording host's\n"
	"CLOCK_MONOTONIC in ns; start_unix_ns is ns since 1970-01-01 UTC.\n"
	"\n"
	"  --jsonl            one JSON object per line, \"table\" first; valid UTF-8\n"
	"                     (U+FFFD for bytes that are not), numbers as numbers,\n"
	"                     null for a value the trace lacks. Every table,\n"
	"                     unless --table names one\n"
	"  --csv              RFC 4180: a header row, then a row per line (LF);\n"
	"                     strings always quoted, '\"' doubled, control\n"
	"                     characters and bytes that are not UTF-8 written as\n"
	"                     \\xNN (\\n for a line break); an empty field is null.\n"
	"                     One table: needs --table\n"
	"      --table TABLE  runs, calls, threads, waits or traces\n"
	"  -o, --output FILE  write here (created 0600, put in place once complete;\n"
	"                     default: standard output)\n"
	"  -h, --help         this text\n"
	"\n"
	"A truncated or damaged trace is exported as far as it could be read,\n"
	"with a warning; its traces row says so (status, damage). Export the\n"
	"traces table too, and keep the traces whose status is complete where\n"
	"partial data would mislead.\n"
	"\n"
	"Exit status: 0 written (truncated or damaged traces included); 1 a trace\n"
	"cannot be opened (then nothing is written), or reading or writing\n"
	"failed; 2 usage error.\n"
	"\n"
	"Examples:\n"
	"  xlprobe export --csv --table calls -o calls.csv fleet/*.xlp\n"
	"  xlprobe export --jsonl --table runs fleet/*.xlp > runs.jsonl\n"
	"  duckdb :memory: \"SELECT host, median(latency_ns)\n"
	"                   FROM read_json_auto('runs.jsonl') GROUP BY host\"\n";

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

/* ---- the row writer: one column list per table, for both formats and the header ---- */

struct tw {
	FILE *f;
	bool csv;
	bool names; /* CSV header: each column's name instead of its value */
	bool first; /* no column of this row written yet */
	struct jsonw jw;
};

/* CSV: the separator, or the name in a header; whether the value follows. */
static bool csv_col(struct tw *w, const char *name)
{
	if (!w->first)
		fputc(',', w->f);
	w->first = false;
	if (w->names)
		fputs(name, w->f);
	return !w->names;
}

/* fprintf's work on the format was a third of a CSV's time */
static void put_u64(FILE *f, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), f);
}

static void col_u64(struct tw *w, const char *name, uint64_t v)
{
	if (!w->csv)
		jsonw__uint(&w->jw, name, v);
	else if (csv_col(w, name))
		put_u64(w->f, v);
}

static void col_s64(struct tw *w, const char *name, int64_t v)
{
	if (!w->csv)
		jsonw__int(&w->jw, name, v);
	else if (csv_col(w, name))
		fprintf(w->f, "%" PRId64, v);
}

static void col_bool(struct tw *w, const char *name, bool v)
{
	if (!w->csv)
		jsonw__bool(&w->jw, name, v);
	else if (csv_col(w, name))
		fputs(v ? "true" : "false", w->f);
}

static void col_null(struct tw *w, const char *name)
{
	if (!w->csv)
		jsonw__null(&w->jw, name);
	else
		csv_col(w, name); /* an empty field */
}

/* n bytes from the trace; NULL: null */
static void col_strn(struct tw *w, const char *name, const char *s, size_t n)
{
	if (!s)
		col_null(w, name);
	else if (!w->csv)
		jsonw__strn(&w->jw, name, s, n);
	else if (csv_col(w, name))
		xlp_fput_csv(w->f, s, n);
}

static void col_str(struct tw *w, const char *name, const char *s)
{
	col_strn(w, name, s, s ? strlen(s) : 0);
}

static void col_u64_or_null(struct tw *w, const char *name, uint64_t v, bool have)
{
	if (have)
		col_u64(w, name, v);
	else
		col_null(w, name);
}

static void row_begin(struct tw *w, enum tt_table t)
{
	w->first = true;
	if (w->csv)
		return;
	jsonw__begin_obj(&w->jw, NULL);
	jsonw__str(&w->jw, "table", table_names[t]);
}

static void row_end(struct tw *w)
{
	if (w->csv)
		fputc('\n', w->f);
	else
		jsonw__end_obj(&w->jw); /* '}' and the line's end */
}

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
	/* FNV's last bytes barely reach the high bits: mix them (splitmix64) */
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	h ^= h >> 31;
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
	col_str(w, "trace_id", t->id);
	col_str(w, "host", t->m->host);
	col_str(w, "kernel", t->m->kernel);
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
			col_u64_or_null(w, name, c ? c[i] : 0, c);
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

	row_begin(w, TT_RUNS);
	cols_trace(w, t);
	col_str(w, "run_kind", r->launch ? "launch" : "interaction");
	col_str(w, "func", fi ? fi->name : NULL);
	col_str(w, "symbol", fi ? fi->symbol : NULL);
	col_str(w, "binary", fi ? fi->binary : NULL);
	col_u64(w, "pid", r->pid);
	col_u64_or_null(w, "tid", r->tid, !r->launch);
	col_u64(w, "start_ns", r->start_ns);
	col_s64(w, "start_unix_ns", unix_ns(t->m, r->start_ns));
	col_u64_or_null(w, "latency_ns", r->latency_ns, r->have_latency);
	if (r->launch)
		col_s64(w, "exit_code", r->exit_code);
	else
		col_null(w, "exit_code");
	cols_ctrs(w, NULL, r->ctr);
	row_end(w);
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

	row_begin(w, TT_CALLS);
	cols_trace(w, t);
	col_str(w, "func", fi ? fi->name : NULL);
	col_str(w, "symbol", fi ? fi->symbol : NULL);
	col_str(w, "binary", fi ? fi->binary : NULL);
	/* "" in the header: the ELF has none */
	col_str(w, "build_id", fi && fi->build_id && fi->build_id[0] ? fi->build_id : NULL);
	col_u64(w, "pid", c->pid);
	col_u64(w, "tid", c->tid);
	col_u64(w, "depth", c->depth);
	col_u64(w, "entry_ns", c->entry_ns);
	/* as report decides it: by the function's flag in the header */
	col_bool(w, "interaction", fi && (fi->flags & XLP_FUNC_INTERACTION));
	col_u64_or_null(w, "ipc_peer_pid", c->ipc_peer_pid, peer);
	col_strn(w, "ipc_peer_comm", peer ? c->ipc_peer_comm : NULL,
		 strnlen(c->ipc_peer_comm, XLP_COMM_LEN));
	cols_ctrs(w, e->incl, c->incl);
	cols_ctrs(w, e->excl, c->excl);
	row_end(w);
}

static void row_thread(struct tt *e, const struct tt_trace *t, const struct xlp_thread_rec *r)
{
	struct tw *w = &e->w;

	row_begin(w, TT_THREADS);
	cols_trace(w, t);
	col_u64(w, "pid", r->pid);
	col_u64(w, "tid", r->tid);
	col_strn(w, "comm", r->comm, strnlen(r->comm, XLP_COMM_LEN));
	col_u64(w, "first_ns", r->first_ns);
	col_u64(w, "last_ns", r->last_ns);
	col_bool(w, "exited", r->flags & XLP_THREAD_EXITED);
	col_bool(w, "at_stop", r->flags & XLP_THREAD_AT_STOP);
	col_bool(w, "partial", r->flags & XLP_THREAD_PARTIAL);
	cols_ctrs(w, NULL, r->tot);
	row_end(w);
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
	col_u64_or_null(w, "lost_by_reader", lost, stat);
	for (int i = 0; i < XLP_NR_STAT; i++)
		if (xlp_stat_names[i])
			col_u64_or_null(w, xlp_stat_names[i], stat ? stat[i] : 0, stat);
}

static void row_trace(struct tt *e, const struct tt_trace *t, const struct tt_end *end)
{
	const struct xlp_trace_meta *m = t->m;
	const struct xlp_trace_footer *ft = end->ft;
	struct tw *w = &e->w;

	row_begin(w, TT_TRACES);
	cols_trace(w, t);
	col_str(w, "file", t->path);
	col_str(w, "cmdline", m->cmdline);
	col_u64(w, "target_pid", m->target_pid);
	col_u64(w, "ncpus", m->ncpus);
	col_u64(w, "format_version", m->format_version);
	col_str(w, "interaction", t->interaction);
	col_str(w, "interaction_symbol", t->interaction_symbol);
	col_u64(w, "start_ns", m->start_ns);
	col_s64(w, "start_unix_ns", unix_ns(m, m->start_ns));
	col_s64(w, "boot_offset_ns", m->boot_offset_ns);
	col_u64_or_null(w, "end_ns", ft ? ft->end_ns : 0, ft);
	col_str(w, "stop_reason", ft ? trace_stop_name(ft->stop_reason) : NULL);
	col_str(w, "status", trace_status_name(end->status));
	col_str(w, "damage", end->damage[0] ? end->damage : NULL);
	col_u64(w, "records", t->nrec);
	col_u64_or_null(w, "footer_records", ft ? ft->nrecords : 0, ft);
	col_u64(w, "chunks", end->chunks);
	col_u64(w, "bad_chunks", end->bad);
	col_u64(w, "run_rows", t->rows[TT_RUNS]);
	col_u64(w, "call_rows", t->rows[TT_CALLS]);
	col_u64(w, "thread_rows", t->rows[TT_THREADS]);
	col_u64(w, "wait_rows", t->rows[TT_WAITS]);
	cols_drops(w, t, end);
	row_end(w);
}

/* One piece of a wait of run `run` (its index in the trace, from 1). */
static void row_wait(struct tt *e, const struct tt_trace *t, const struct dataset *ds, size_t run,
		     const struct dataset_run *r, const struct waitchain_wait *wt,
		     const struct waitchain_piece *p)
{
	bool fn = p->func != DATASET_NO_FUNC && ds && p->func < dataset__nfuncs(ds);
	struct tw *w = &e->w;

	row_begin(w, TT_WAITS);
	cols_trace(w, t);
	col_u64(w, "run", run);
	col_u64(w, "pid", r->pid);
	col_u64(w, "tid", r->tid);
	col_u64(w, "run_start_ns", r->start_ns);
	col_u64(w, "wait_start_ns", wt->start_ns);
	col_u64(w, "wait_ns", wt->end_ns - wt->start_ns);
	col_u64(w, "start_ns", p->start_ns);
	col_u64(w, "ns", p->ns);
	col_u64(w, "depth", p->depth);
	col_str(w, "state", waitchain__state_name(p->state));
	col_str(w, "reason", p->reason && p->reason < XLP_NR_CTR ? xlp_ctr_names[p->reason] : NULL);
	col_u64(w, "blocker_pid", p->blocker_pid);
	col_u64(w, "blocker_tid", p->blocker_tid);
	col_strn(w, "blocker", p->comm[0] ? p->comm : NULL, strnlen(p->comm, XLP_COMM_LEN));
	col_u64(w, "via_tid", p->waker_tid);
	col_strn(w, "via", p->waker_comm[0] ? p->waker_comm : NULL,
		 strnlen(p->waker_comm, XLP_COMM_LEN));
	col_str(w, "function", fn ? dataset__func(ds, p->func)->name : NULL);
	col_str(w, "symbol", fn ? dataset__func(ds, p->func)->symbol : NULL);
	row_end(w);
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

	row_begin(w, TT_LAGS);
	cols_trace(w, t);
	col_u64(w, "run", x->run);
	col_str(w, "landmark", i ? i->landmark : t->interaction ? t->interaction : "[launch]");
	col_str(w, "build_id", ss ? ss->build_id : NULL);
	col_s64(w, "start_unix_ns", x->wall_ns);
	col_u64(w, "latency_ns", (uint64_t)x->latency_ns);
	col_bool(w, "lag", i != NULL);
	col_str(w, "fingerprint", i ? i->fingerprint : NULL);
	col_str(w, "function", i ? i->function : NULL);
	col_str(w, "binary", i ? i->binary : NULL);
	col_str(w, "factor", i ? i->factor : NULL);
	row_end(w);
}

static void row_issue(struct tt *e, const struct issues_issue *i)
{
	struct tw *w = &e->w;

	row_begin(w, TT_ISSUES);
	col_str(w, "fingerprint", i->fingerprint);
	col_str(w, "landmark", i->landmark);
	col_str(w, "landmark_binary", i->landmark_binary);
	col_str(w, "function", i->function);
	col_str(w, "binary", i->binary);
	col_str(w, "factor", i->factor);
	col_u64(w, "sessions", i->sessions);
	col_u64(w, "hosts", i->hosts);
	col_u64(w, "builds", i->builds);
	col_u64(w, "runs", i->runs);
	col_u64(w, "lag_p50_ns", (uint64_t)i->p50_ns);
	col_u64(w, "lag_p95_ns", (uint64_t)i->p95_ns);
	col_u64(w, "lag_max_ns", (uint64_t)i->max_ns);
	col_u64(w, "impact_ns", (uint64_t)i->impact_ns);
	col_s64(w, "first_seen_unix_ns", i->first_ns);
	col_s64(w, "last_seen_unix_ns", i->last_ns);
	row_end(w);
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

/* ---- the command ---- */

bool export_tables__wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--jsonl") || !strcmp(argv[i], "--csv"))
			return true;
	return false;
}

struct tt_args {
	bool jsonl, csv;
	int table;
	uint64_t lag_ns;
	const char *out;
	char **paths;
	int npaths;
};

static int parse_table(const char *s)
{
	for (int i = 0; i < TT_NTABLES; i++)
		if (!strcmp(s, table_names[i]))
			return i;
	return -1;
}

/* The option getopt refused, for the message. */
static void bad_option(int c, char **argv)
{
	const char *opt = argv[optind - 1];

	if (c == ':')
		xlp_err("export: %s needs a value: see xlprobe export --help", opt);
	else if (optopt)
		xlp_err("export: unknown option '-%c': see xlprobe export --help", optopt);
	else
		xlp_err("export: unknown option '%s': see xlprobe export --help", opt);
}

/* The exit code when the command is done (help, usage error), else -1. */
static int parse_args(int argc, char **argv, struct tt_args *a)
{
	static const struct option longopts[] = {
		{"jsonl", no_argument, NULL, 'J'},
		{"csv", no_argument, NULL, 'C'},
		{"table", required_argument, NULL, 'T'},
		{"output", required_argument, NULL, 'o'},
		{"lag", required_argument, NULL, 'L'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	int c, opterr_was = opterr, ret = -1;

	/* lag 0: each trace's own --lag, else 100 ms (analysis/issues/issues.h) */
	*a = (struct tt_args){.table = -1, .lag_ns = 0};
	optind = 1;
	opterr = 0; /* one line of ours, not getopt's too */
	while (ret < 0 && (c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		if (c == 'J' || c == 'C') {
			*(c == 'J' ? &a->jsonl : &a->csv) = true;
		} else if (c == 'T') {
			a->table = parse_table(optarg);
			if (a->table < 0) {
				xlp_err("export: unknown table '%s': choose runs, calls, "
					"threads, waits, traces, lags or issues",
					optarg);
				ret = 2;
			}
		} else if (c == 'o') {
			a->out = optarg;
		} else if (c == 'L') {
			if (xlp_parse_duration(optarg, 0, &a->lag_ns) || !a->lag_ns) {
				xlp_err("export: bad --lag '%s': give a duration with a unit, e.g. "
					"100ms",
					optarg);
				ret = 2;
			}
		} else if (c == 'h') {
			fputs(export_tables_help, stdout);
			ret = 0;
		} else {
			bad_option(c, argv);
			ret = 2;
		}
	}
	opterr = opterr_was;
	if (ret >= 0)
		return ret;
	a->paths = argv + optind;
	a->npaths = argc - optind;
	if (a->jsonl && a->csv) {
		xlp_err("export: --jsonl and --csv exclude each other: run once per format");
		return 2;
	}
	if (a->csv && a->table < 0) {
		xlp_err("export: --csv writes one table: add --table runs, calls, threads, "
			"waits, traces, lags or issues");
		return 2;
	}
	if (!a->npaths) {
		xlp_err("export: no trace file given: run 'xlprobe export --%s ... TRACE...' (see "
			"--help)",
			a->csv ? "csv" : "jsonl");
		return 2;
	}
	return -1;
}

/* Every trace opens (its header is sound) before a row is written. */
static int check_traces(char **paths, int n)
{
	char why[PATH_MAX + 256];

	for (int i = 0; i < n; i++) {
		struct trace_reader *r;

		if (trace_reader__open(paths[i], &r, why, sizeof(why))) {
			xlp_err("%s: %s: nothing exported", paths[i], why);
			return -1;
		}
		trace_reader__close(r);
	}
	return 0;
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

/* The rows of every trace; 0, or -1 after an error message. */
static int write_tables(const struct tt_args *a, FILE *f)
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

int export_tables__main(int argc, char **argv)
{
	struct outfile *of = NULL;
	char why[PATH_MAX + 256];
	struct tt_args a;
	FILE *f = stdout;
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret >= 0)
		return ret;
	if (check_traces(a.paths, a.npaths))
		return 1;
	if (a.out) {
		if (outfile__open(a.out, 0, &of, why, sizeof(why))) {
			xlp_err("%s with -o", why);
			return 1;
		}
		f = outfile__stream(of);
		if (!f) {
			xlp_err("cannot write %s: %s: check the free space", a.out,
				strerror(errno));
			outfile__abort(of);
			return 1;
		}
	}
	if (write_tables(&a, f)) {
		outfile__abort(of);
		return 1;
	}
	if (of && outfile__commit(of, why, sizeof(why))) {
		xlp_err("%s", why);
		return 1;
	}
	if (!of && fflush(stdout)) {
		xlp_err("cannot write the output: %s: check the free space or the pipe",
			strerror(errno));
		return 1;
	}
	return 0;
}
