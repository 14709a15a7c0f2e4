/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Formatting shared by the text, JSON and HTML reports. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "demangle.h"
#include "report.h"
#include "stats.h"
#include "util.h"

const char *report__dur(double ns, char *buf, size_t len)
{
	if (isnan(ns))
		snprintf(buf, len, "n/a");
	else
		xlp_fmt_ns(ns < 0 ? 0 : (uint64_t)llround(ns), buf, len);
	return buf;
}

const char *report__value(enum diagnosis_feat f, double v, char *buf, size_t len)
{
	if (f != DIAGNOSIS_CPU_FREQ)
		return report__dur(v, buf, len);
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (v >= 1e6)
		snprintf(buf, len, "%.2f GHz", v / 1e6);
	else
		snprintf(buf, len, "%.0f MHz", v / 1e3);
	return buf;
}

size_t report__drops(const struct dataset *ds, struct report_drop *out, size_t max)
{
	const struct dataset_drops *d = dataset__drops(ds);
	const struct report_drop all[] = {
		{xlp_stat_names[XLP_S_RB_FULL], "records lost: ring buffer full",
		 d->stat[XLP_S_RB_FULL]},
		{xlp_stat_names[XLP_S_STACK_OVERFLOW],
		 "calls deeper than the shadow stack, not recorded", d->stat[XLP_S_STACK_OVERFLOW]},
		{xlp_stat_names[XLP_S_STACK_MISMATCH],
		 "calls whose entry or return was not seen (probes being set, longjmp): not "
		 "recorded",
		 d->stat[XLP_S_STACK_MISMATCH]},
		{xlp_stat_names[XLP_S_THREADS_FULL], "threads not traced: thread table full",
		 d->stat[XLP_S_THREADS_FULL]},
		{xlp_stat_names[XLP_S_PROCS_FULL], "processes not traced: process table full",
		 d->stat[XLP_S_PROCS_FULL]},
		{xlp_stat_names[XLP_S_UNFINISHED], "calls still open when their thread exited",
		 d->stat[XLP_S_UNFINISHED]},
		{xlp_stat_names[XLP_S_SCHED_MISSED],
		 "scheduler events the kernel did not deliver (times recovered from its counters)",
		 d->stat[XLP_S_SCHED_MISSED]},
		{xlp_stat_names[XLP_S_LAUNCH_UNTIMED],
		 "launches timed by xlprobe, not the kernel (exec or exit event missing): their "
		 "latency is less exact",
		 d->stat[XLP_S_LAUNCH_UNTIMED]},
		{"lost_by_reader", "records the recorder could not store", d->lost_by_reader},
		{"bad_chunks", "damaged chunks skipped while reading", d->bad_chunks},
		{"missing_chunks",
		 "chunks missing from the file (cut out, or lost to damage): their records are "
		 "not analysed",
		 d->missing_chunks},
		{"duplicate_chunks",
		 "chunks present twice: the copies were skipped, not counted twice",
		 d->duplicate_chunks},
		{"reordered_chunks", "chunks out of order: skipped", d->reordered_chunks},
		{"extra_chunks",
		 "chunks past the footer's count (a version 1 file cannot say which: a duplicate "
		 "is analysed twice)",
		 d->extra_chunks},
		{"missing_records", "records the footers count that were not read",
		 d->missing_records},
		{"extra_records", "records read beyond the footers' count", d->extra_records},
		{"forks_probed_late",
		 "processes forked while recording, whose marked functions were probed only once "
		 "xlprobe saw the fork: their calls that began before are missing (--probe-forks "
		 "probes from the fork on)",
		 d->forks_late},
		{"fork_window_max_ns", "the longest of those waits, in ns (each: xlprobe dump)",
		 d->forks_late ? d->fork_window_max_ns : 0},
		{"forks_unprobed",
		 "processes forked while recording that exited before their uprobes could be set, "
		 "or could not get them: none of their marked calls is recorded",
		 d->forks_unprobed},
		{"runs_unmatched_begins",
		 "calls of the interaction whose key no --until call closed (still open at the "
		 "end, or a record lost): not runs",
		 d->unmatched_begins},
		{"runs_unmatched_ends",
		 "calls of the --until function with no open run of their key (begun before the "
		 "recording, or a record lost)",
		 d->unmatched_ends},
		{"lag_runs_summarized",
		 "runs that did not lag, written by record --lag as their interaction call "
		 "alone (count and latency) and left out of the analysis, which compares what "
		 "ran in the runs",
		 d->lag_summarized, true},
		{"lag_records_left_out",
		 "records of what ran inside those runs (nested calls, stack samples, "
		 "scheduling events) not written",
		 d->lag_left_out, true},
		{"lag_bytes_left_out", "their bytes, before compression", d->lag_left_out_bytes,
		 true},
		{"lag_runs_written_through",
		 "runs that did not lag written whole with no choice made (a thread's first "
		 "run, or its held records past the buffer's cap): not a sample of one in K",
		 d->lag_written_through, true},
		{"marker_lines_malformed",
		 "lines the app wrote to trace_marker that are no atrace section (no '|', "
		 "another type, no pid, name or number, longer than 128 bytes, unreadable): "
		 "skipped",
		 d->marker_skip[XLP_MSKIP_NO_BAR] + d->marker_skip[XLP_MSKIP_TYPE] +
			 d->marker_skip[XLP_MSKIP_PID] + d->marker_skip[XLP_MSKIP_NAME] +
			 d->marker_skip[XLP_MSKIP_LONG] + d->marker_skip[XLP_MSKIP_NUMBER] +
			 d->marker_skip[XLP_MSKIP_UNREAD]},
		{"marker_ends_without_begin",
		 "trace-marker E lines with no section open on their thread (begun before the "
		 "recording): skipped",
		 d->marker_skip[XLP_MSKIP_E_NO_B]},
		{"marker_finishes_without_start",
		 "trace-marker F lines with no open S of their name and cookie (begun before the "
		 "recording): skipped",
		 d->marker_skip[XLP_MSKIP_F_NO_S]},
		{"marker_sections_untimed",
		 "trace-marker sections nested deeper than 32 on a thread, or async ones past "
		 "1024 open at once: not recorded",
		 d->marker_skip[XLP_MSKIP_DEPTH] + d->marker_skip[XLP_MSKIP_ASYNC_FULL]},
		{"samples_malformed",
		 "stack samples, names or stacks skipped: ids out of order or frames past their "
		 "record (a damaged or forged trace)",
		 dataset__samples(ds)->malformed},
		{"samples_unplaced",
		 "stack samples in a run whose stack does not reach the interaction function (cut "
		 "by code without frame pointers, or deeper than 64 frames): their time names no "
		 "function",
		 dataset__samples(ds)->unplaced},
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i].count && n < max)
			out[n++] = all[i];
	return n;
}

void report__summary(const struct dataset *ds, struct report_summary *s)
{
	const double *lat;

	*s = (struct report_summary){.median_ns = NAN, .max_ns = NAN};
	s->runs = dataset__summary_runs(ds, &lat);
	for (size_t i = 0; i < dataset__nfiles(ds) && !s->lag_ns; i++) {
		s->lag_ns = dataset__file(ds, i)->lag_ns;
		s->keep = dataset__file(ds, i)->lag_keep;
	}
	if (!s->runs)
		return;
	s->median_ns = stats__median(lat, s->runs);
	s->max_ns = stats__quantile(lat, s->runs, 1.0);
}

size_t report__unavailable(uint32_t features, const char **out, size_t max)
{
	size_t n = 0;

	if (!(features & XLP_FEAT_CPUFREQ) && n < max)
		out[n++] = "CPU frequency: unavailable (no cpufreq driver)";
	if (!(features & XLP_FEAT_BINDER) && n < max)
		out[n++] = "binder IPC: unavailable (no binder tracepoints)";
	if (!(features & XLP_FEAT_SYSCALLS) && n < max)
		out[n++] = "wait reasons: unavailable (raw_syscalls not attached): sleep_s and "
			   "sleep_d used instead";
	if (!(features & XLP_FEAT_BLOCK) && n < max)
		out[n++] = "block I/O requests: unavailable (block_rq tracepoints not attached)";
	if (!(features & XLP_FEAT_SCHED) && n < max)
		out[n++] = "scheduler states: unavailable (sched tracepoints not attached)";
	return n;
}

const char *report__label_rule(const struct labels_rule *rule, char *buf, size_t len)
{
	char d[32];

	switch (rule->kind) {
	case LABELS_FIXED:
		snprintf(buf, len, "--slow %s",
			 xlp_fmt_ns((uint64_t)rule->threshold_ns, d, sizeof(d)));
		break;
	case LABELS_AUTO:
		snprintf(buf, len, "automatic 2-class split (Otsu)");
		break;
	case LABELS_SIGMA:
	default:
		snprintf(buf, len, "median + %gσ", rule->k);
		break;
	}
	return buf;
}

const char *report__rule(const struct diagnosis *r, char *buf, size_t len)
{
	return report__label_rule(&r->rule, buf, len);
}

const char *report__cond(const struct dataset *ds, const struct diagnosis_cond *c, char *buf,
			 size_t len)
{
	const char *f = dataset__func(ds, c->func)->name;
	char lo[32], hi[32];

	report__dur(c->lo_ns, lo, sizeof(lo));
	report__dur(c->hi_ns, hi, sizeof(hi));
	if (c->has_lo && c->has_hi)
		snprintf(buf, len, "%s < %s <= %s", lo, f, hi);
	else if (c->has_lo)
		snprintf(buf, len, "%s > %s", f, lo);
	else
		snprintf(buf, len, "%s <= %s", f, hi);
	return buf;
}

const char *report__chain(const struct dataset *ds, const struct diagnosis_critical *c, char *buf,
			  size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < c->nchain && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? " \u2192 " : "",
				 dataset__func(ds, c->chain[i])->name);

		used += n > 0 ? (size_t)n : 0;
	}
	return buf;
}

/* s with a '\\' before each of fnmatch's special characters; false if cut. */
static bool glob_escape(const char *s, char *out, size_t len)
{
	size_t o = 0;

	for (; *s && o + 2 < len; s++) {
		if (strchr("*?[\\", *s))
			out[o++] = '\\';
		out[o++] = *s;
	}
	out[o] = 0;
	return !*s;
}

/*
 * The --func arguments that would measure the sampled functions of the
 * critical chains exactly in a next recording ("" when none): BINARY is
 * the basename, which -p resolves against the process's mappings.
 */
const char *report__func_args(const struct dataset *ds, const struct diagnosis *r, char *buf,
			      size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < r->ncrit; i++) {
		const struct diagnosis_critical *c = &r->crit[i];

		for (size_t k = 0; k < c->nchain && used < len; k++) {
			const struct dataset_func *f = dataset__func(ds, c->chain[k]);
			char arg[2 * DEMANGLE_MAX_OUT + 600], name[DEMANGLE_MAX_OUT];
			char esc[2 * DEMANGLE_MAX_OUT];
			int n;

			if (!f->sampled)
				continue;
			/* a C++ name as users write it, its glob characters
			 * escaped for fnmatch, quoted for the shell */
			if (demangle__exact(f->symbol, name, sizeof(name)) && !strchr(name, '\'') &&
			    glob_escape(name, esc, sizeof(esc)))
				snprintf(arg, sizeof(arg), "--func '%s:%s'", f->binary, esc);
			else
				snprintf(arg, sizeof(arg), "--func %s:%s", f->binary, f->symbol);
			if (strstr(buf, arg))
				continue;
			n = snprintf(buf + used, len - used, "%s%s", used ? " " : "", arg);
			used += n > 0 ? (size_t)n : 0;
		}
	}
	return buf;
}

struct cct_walk {
	const struct dataset_cct *t;
	double nslow, nfast, min;
	uint32_t *out;
	size_t n, max;
};

static double cct_mean(const struct cct_walk *w, const struct dataset_cct_node *x, bool slow)
{
	double n = slow ? w->nslow : w->nfast;

	return n > 0 ? (slow ? x->slow : x->fast)[XLP_C_WALL] / n : 0;
}

/* Depth first, each node's children by their time in slow runs. */
static void cct_visit(struct cct_walk *w, uint32_t node)
{
	size_t nk = 0, total = dataset_cct__n(w->t);
	uint32_t *kids;

	if (w->n >= w->max)
		return;
	w->out[w->n++] = node;
	kids = malloc(total * sizeof(*kids) + 1);
	if (!kids)
		return;
	for (size_t i = node + 1; i < total; i++) {
		const struct dataset_cct_node *x = dataset_cct__node(w->t, i);

		if (x->parent == node &&
		    (cct_mean(w, x, true) >= w->min || cct_mean(w, x, false) >= w->min))
			kids[nk++] = (uint32_t)i;
	}
	/* insertion sort: a node has few children worth showing */
	for (size_t i = 1; i < nk; i++)
		for (size_t j = i;
		     j > 0 && cct_mean(w, dataset_cct__node(w->t, kids[j]), true) >
				      cct_mean(w, dataset_cct__node(w->t, kids[j - 1]), true);
		     j--) {
			uint32_t k = kids[j];

			kids[j] = kids[j - 1];
			kids[j - 1] = k;
		}
	for (size_t i = 0; i < nk; i++)
		cct_visit(w, kids[i]);
	free(kids);
}

size_t report__cct_order(const struct dataset_cct *t, const struct diagnosis *r, uint32_t *out,
			 size_t max)
{
	struct cct_walk w = {.t = t,
			     .nslow = (double)r->lab.nslow,
			     .nfast = (double)(r->lab.n - r->lab.nslow),
			     .out = out,
			     .max = max};
	const struct dataset_cct_node *root;

	if (!t || !max)
		return 0;
	root = dataset_cct__node(t, 0);
	w.min = REPORT_CCT_SHARE * fmax(cct_mean(&w, root, true), cct_mean(&w, root, false));
	cct_visit(&w, 0);
	return w.n;
}

double report__cct_mean(const struct dataset_cct_node *x, const struct diagnosis *r, bool slow,
			int c)
{
	double n = slow ? (double)r->lab.nslow : (double)(r->lab.n - r->lab.nslow);

	return n > 0 ? (slow ? x->slow : x->fast)[c] / n : 0;
}

const char *report__p(double p, char *buf, size_t len)
{
	if (isnan(p))
		snprintf(buf, len, "p n/a");
	else if (p < 1e-15)
		snprintf(buf, len, "p < 1e-15");
	else if (p < 0.001)
		snprintf(buf, len, "p = %.0e", p);
	else
		snprintf(buf, len, "p = %.3f", p);
	return buf;
}

bool report__thin(const struct diagnosis *r, const struct diagnosis_evidence *e)
{
	return !e->significant &&
	       (e->mode_p <= 0.05 || e->runs_p <= 0.05 ||
		(!isnan(e->res_excess) && e->res_excess >= r->excess_share && e->res_p <= 0.05) ||
		(e->beyond_large && e->beyond_p <= 0.05));
}

const char *report__evidence(const struct diagnosis *r, const struct diagnosis_critical *c,
			     char *buf, size_t len)
{
	const struct diagnosis_evidence *e = &c->ev;
	/* no factor's gap: the time's own mode is the test, with its association */
	bool by_time = isnan(e->res_gap.lo) && c->gt;
	char a[32], b[32], p[32];
	size_t used = 0;

	buf[0] = 0;
	xlp_put(buf, len, &used, "%s more in slow runs than in fast ones",
		report__dur(e->added, a, sizeof(a)));
	if (!isnan(e->share)) {
		char sh[256];

		xlp_put(buf, len, &used, ", %s (%s)", report__share(e->share, sh, sizeof(sh)),
			report__dur(e->latency_gap, b, sizeof(b)));
	}
	if (e->gap.nabove && !isnan(e->gap.lo) && c->res_ns > 0 && !(e->gap.ratio > 0))
		xlp_put(buf, len, &used,
			"\nmode: not distinct: time: nothing between %s and %s, within the "
			"sampling "
			"resolution",
			report__dur(e->gap.lo, a, 32), report__dur(e->gap.hi, b, 32));
	else if (e->gap.nabove && !isnan(e->gap.lo))
		xlp_put(buf, len, &used,
			"\nmode: %s: time: no run between %s and %s, a gap %.1fx the spacing of "
			"the "
			"runs around it (%s)",
			e->cpu_mode
				? "DISTINCT, but its runs are the bursts below: the same slower CPU"
			: e->mode ? "DISTINCT"
			: e->gap.p <= r->alpha_evidence && by_time
				? "DISTINCT, but not the slow runs' mode"
				: "not distinct",
			report__dur(e->gap.lo, a, 32), report__dur(e->gap.hi, b, 32), e->gap.ratio,
			report__p(e->gap.p, p, 32));
	if (e->gap.nabove && !isnan(e->gap.lo) && by_time)
		xlp_put(buf, len, &used,
			", past it %u of %u slow runs and %u of %u fast (Fisher %s)",
			e->time_slow_hits, e->time_nslow, e->time_fast_hits, e->time_nfast,
			report__p(e->time_assoc_p, p, 32));
	else if (!(e->gap.nabove && !isnan(e->gap.lo)))
		xlp_put(buf, len, &used, "\nmode: %s: time: fewer than 2 runs on a side",
			e->mode ? "DISTINCT" : "not distinct");
	if (!isnan(e->res_gap.lo)) {
		if (e->res_gap.ratio > 0 || !(c->res_ns > 0))
			xlp_put(buf, len, &used,
				"; %s: no sample between %s and %s, a gap %.1fx (%s)",
				diagnosis__feat_name(e->gap_feat),
				report__dur(e->res_gap.lo, a, 32),
				report__dur(e->res_gap.hi, b, 32), e->res_gap.ratio,
				report__p(e->res_gap.p, p, 32));
		else
			xlp_put(buf, len, &used,
				"; %s: nothing between %s and %s, within the sampling resolution",
				diagnosis__feat_name(e->gap_feat),
				report__dur(e->res_gap.lo, a, 32),
				report__dur(e->res_gap.hi, b, 32));
		xlp_put(buf, len, &used,
			", past it %u of %u slow samples and %u of %u fast (Fisher %s)",
			e->gap_slow_hits, e->gap_nslow, e->gap_fast_hits, e->gap_nfast,
			report__p(e->gap_assoc_p, p, 32));
	}
	xlp_put(buf, len, &used,
		"\nbursts: %s: %u run%s past the threshold in %u burst%s, %.0f by chance (runs "
		"test "
		"%s)",
		e->cpu_bursts
			? "CLUSTERED, but only CPU time grew, in proportion: the CPU ran slower at "
			  "times (a busy host or a lower clock), not a cause in the function"
		: e->bursty			 ? "CLUSTERED"
		: e->runs_p <= r->alpha_evidence ? "autocorrelated, not in bursts"
						 : "spread out",
		e->nslow_side, e->nslow_side == 1 ? "" : "s", e->bursts, e->bursts == 1 ? "" : "s",
		e->bursts_expected, report__p(e->runs_p, p, sizeof(p)));
	if (!isnan(e->bulk_streaks) && e->bulk_streaks < 1)
		xlp_put(buf, len, &used,
			"; the other runs drift: %.0f %% of the streaks chance gives them, so "
			"bursts "
			"need %.0f %% or fewer, and the test takes runs that persist as much "
			"(lag-1 "
			"correlation %.2f)",
			100 * e->bulk_streaks, 50 * e->bulk_streaks, e->persistence);
	if (isnan(e->res_p))
		xlp_put(buf, len, &used, "\nresource: no factor to test");
	else if (e->res_feat == DIAGNOSIS_CPU_FREQ)
		xlp_put(buf, len, &used,
			"\nresource: %s: the CPU ran at a lower clock in slow runs (%s)",
			e->resource ? "OUT OF PROPORTION" : "in proportion",
			report__p(e->res_p, p, sizeof(p)));
	else
		xlp_put(buf, len, &used,
			"\nresource: %s: %s holds %.0f %% of the added time, %.0f %% of the fast "
			"runs' time (%s)",
			e->resource	? "OUT OF PROPORTION"
			: e->res_itself ? "not tested: the time is the wait itself"
			: e->res_within ? "within one sample's weight (the sampling resolution): "
					  "where samples fell, not evidence"
					: "in proportion",
			diagnosis__feat_name(e->res_feat), 100 * e->res_share,
			100 * e->res_fast_share, report__p(e->res_p, p, sizeof(p)));
	if (e->beyond_n && !e->beyond_top)
		xlp_put(buf, len, &used,
			"\nbeyond the bulk: no: slow runs are not the most of the runs where a "
			"resource "
			"but cpu_run and cpu_steal takes its largest shares (%u tries)",
			e->beyond_tests);
	else if (e->beyond_n)
		xlp_put(buf, len, &used,
			"\nbeyond the bulk: %s: the %u runs where %s takes the largest share of "
			"the "
			"time (%.1f %% or more; %.1f %% in the median fast run) hold %u of the %u "
			"slow "
			"runs (Fisher %s, for %u tries); it holds %.0f %% of the added time",
			e->beyond ? "YES" : "no", e->beyond_top,
			diagnosis__feat_name(e->beyond_feat), 100 * e->beyond_cut,
			100 * e->beyond_fast_median, e->beyond_slow, e->beyond_nslow,
			report__p(e->beyond_p, p, sizeof(p)), e->beyond_tests,
			100 * e->beyond_added_share);
	else
		xlp_put(buf, len, &used, "\nbeyond the bulk: no resource but CPU time to test");
	/* told apart only for CPU time: a wait's time is not the CPU's speed */
	if (e->work_tested && !isnan(e->res_p) &&
	    (e->res_feat == DIAGNOSIS_CPU_RUN || e->res_feat == DIAGNOSIS_CPU_STEAL)) {
		char rs[32], rf[32], p2[32];

		xlp_put(buf, len, &used,
			"\nmore work or a slower CPU: %s: %s %.0f %% in slow runs, %.0f %% in fast "
			"(%s; its CPU time grew %.2gx as much as the rest's); the rest of the "
			"run's "
			"CPU time %s against %s (%s); %u slow and %u fast runs on the run's thread",
			e->slower_cpu ? "A SLOWER CPU: the rest of the run grew as well, the "
					"function's CPU time not twice as much"
			: e->more_work
				? "MORE WORK: its share grew, twice as much as the rest of the "
				  "run or alone"
				: "not told apart",
			/* a sampled function: its frames' part of the samples (work.c) */
			e->work_sampled ? "its frames' part of the runs' CPU samples"
					: "its share of its run's CPU time",
			100 * e->work_slow_share, 100 * e->work_fast_share,
			report__p(e->work_share_p, p, sizeof(p)), e->work_share_growth,
			report__dur(e->rest_slow_ns, rs, sizeof(rs)),
			report__dur(e->rest_fast_ns, rf, sizeof(rf)),
			report__p(e->rest_p, p2, sizeof(p2)), e->work_nslow, e->work_nfast);
	}
	xlp_put(buf, len, &used, "\n=> %s (a test counts at p <= %g)",
		e->cpu_dismissed
			? "the CPU ran slower in the slow runs (a busy host, a lower clock, the "
			  "hypervisor): its CPU time grew with the rest of the run's, not a cause "
			  "in the function"
		: e->significant ? "a slowdown with a cause"
		: e->small	 ? "too small a part of the added latency to explain the slow runs "
				   "(under 20 %)"
		: report__thin(r, e)
			? "evidence too thin to accuse (a test at p <= 0.05): record more runs"
			: "no evidence of a cause: the natural tail of the workload",
		r->alpha_evidence);
	return buf;
}

const char *report__caveat(const struct dataset *ds, uint64_t *lost, uint64_t *sent, char *buf,
			   size_t len)
{
	const struct dataset_drops *d = dataset__drops(ds);

	*lost = d->stat[XLP_S_RB_FULL] + d->lost_by_reader;
	*sent = d->program_records + *lost;
	buf[0] = 0;
	if (*sent && (double)*lost / (double)*sent > XLP_LOSS_CAVEAT)
		snprintf(
			buf, len,
			"on a partial, likely biased sample (%.1f %% of the records, %llu of %llu, "
			"were lost while recording: a full ring buffer drops them in the busiest "
			"periods, where slow runs are)",
			100.0 * (double)*lost / (double)*sent, (unsigned long long)*lost,
			(unsigned long long)*sent);
	return buf;
}

void report__queued(const struct dataset *ds, const struct diagnosis *r, struct report_queued *q)
{
	size_t n = dataset__nruns(ds), ns = 0, nf = 0;
	double *slow = calloc(n ? n : 1, sizeof(double)), *fast = calloc(n ? n : 1, sizeof(double));
	double qs = 0, qf = 0, ls = 0, lf = 0;

	memset(q, 0, sizeof(*q));
	q->slow_median = q->fast_median = q->share = NAN;
	for (size_t i = 0; i < n && slow && fast; i++) {
		const struct dataset_run *run = dataset__run(ds, i);
		bool s = r->slow && r->slow[i];

		q->runs += run->queued_ns > 0;
		if (s) {
			slow[ns++] = (double)run->queued_ns;
			qs += (double)run->queued_ns;
			ls += run->latency_ns;
		} else {
			fast[nf++] = (double)run->queued_ns;
			qf += (double)run->queued_ns;
			lf += run->latency_ns;
		}
	}
	if (ns)
		q->slow_median = stats__median(slow, ns);
	if (nf)
		q->fast_median = stats__median(fast, nf);
	if (ns && nf && ls / ns > lf / nf)
		q->share = (qs / ns - qf / nf) / (ls / ns - lf / nf);
	free(slow);
	free(fast);
}
