/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Text report, for a reader with five minutes: the runs, each slowdown
 * precondition in one line, each critical function with its resource
 * factor and the evidence, the baseline's answer, what was not measured
 * or lost, and the verdict.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "escape.h"
#include "report.h"

/*
 * Every string that comes from a trace (symbols, binaries, comm) or the
 * command line (paths) is printed through xlp_text() / xlp_fputs_text():
 * control characters are escaped, so a forged symbol cannot drive the
 * terminal or forge a line of the report.
 */
#define NAME_MAX_TEXT 1024

/* Compact duration for table cells: "12.3ms". */
static const char *cell(enum diagnosis_feat f, double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (f == DIAGNOSIS_CPU_FREQ)
		snprintf(buf, len, "%.2fGHz", v / 1e6);
	else if (v < 1e3)
		snprintf(buf, len, "%.0fns", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.0fus", v / 1e3);
	else if (v < 1e9)
		snprintf(buf, len, "%.1fms", v / 1e6);
	else
		snprintf(buf, len, "%.2fs", v / 1e9);
	return buf;
}

/* The runs' wait before their handler (record's prewake), when any has one. */
static void queued(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	struct report_queued q;
	char a[32], b[32], who[400];

	report__queued(ds, r, &q);
	if (!q.runs)
		return;
	fprintf(f,
		"  queued before the handler: %zu of %zu runs waited for a CPU between their "
		"thread's wakeup and the handler; median %s in slow runs, %s in fast",
		q.runs, r->lab.n, report__dur(q.slow_median, a, sizeof(a)),
		report__dur(q.fast_median, b, sizeof(b)));
	/* only a share it holds: a difference of zeros says nothing */
	if (!isnan(q.share) && q.share >= 0.005)
		fprintf(f, ", %.0f %% of the added latency", 100 * q.share);
	fputs(" (in their latency and cpu_wait; record --no-prewake leaves it out)\n", f);
	if (report__thieves(&r->queued_thieves, who, sizeof(who))[0]) {
		fputs("  in the slow runs, ", f);
		xlp_fputs_text(f, who);
		fputs("\n", f);
	}
}

/* record --lag: the runs counted and timed, but not analysed */
static void summarized(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	struct report_summary s;
	char d1[32], d2[32], d3[32];

	report__summary(ds, &s);
	if (!s.runs)
		return;
	fprintf(f,
		"  %zu more runs summarized by record --lag %s: %zu runs in all. Counted and "
		"timed only (median %s, max %s), so left out of the analysis, which compares "
		"what ran in the runs: the runs above are those that lagged and one in %u of "
		"the others, each of which stands for %u\n",
		s.runs, report__dur((double)s.lag_ns, d1, sizeof(d1)), r->lab.n + s.runs,
		report__dur(s.median_ns, d2, sizeof(d2)), report__dur(s.max_ns, d3, sizeof(d3)),
		s.keep, s.keep);
}

static void header(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	size_t nf = dataset__nfiles(ds);
	const struct dataset_file_info *fi = dataset__file(ds, 0);
	char d1[32], d2[32], d3[32], d4[32], rule[64], p[NAME_MAX_TEXT], s[NAME_MAX_TEXT];
	char cav[256];
	uint64_t lost, sent;

	if (nf == 1 && fi->nlandmarks > 1)
		fprintf(f, "xlprobe report: %s: %zu runs of %s and %zu other landmark%s\n",
			xlp_text(fi->path, p, sizeof(p)), r->lab.n,
			xlp_text(fi->interaction_name, s, sizeof(s)), fi->nlandmarks - 1,
			fi->nlandmarks > 2 ? "s" : "");
	else if (nf == 1 && fi->interaction)
		fprintf(f, "xlprobe report: %s: %zu runs of %s\n", xlp_text(fi->path, p, sizeof(p)),
			r->lab.n, xlp_text(fi->interaction_name, s, sizeof(s)));
	else if (nf == 1)
		fprintf(f, "xlprobe report: %s: %zu launch%s\n", xlp_text(fi->path, p, sizeof(p)),
			r->lab.n, r->lab.n == 1 ? "" : "es");
	else
		fprintf(f, "xlprobe report: %zu traces, %zu runs\n", nf, r->lab.n);
	for (size_t i = 0; i < nf; i++) {
		fi = dataset__file(ds, i);
		if (fi->truncated)
			fprintf(f,
				"warning: %s is truncated (no valid footer): analysed what was "
				"read\n",
				xlp_text(fi->path, p, sizeof(p)));
		if (fi->damage)
			fprintf(f, "warning: %s is damaged: %s: analysed what was read\n",
				xlp_text(fi->path, p, sizeof(p)), fi->damage);
	}
	if (report__caveat(ds, &lost, &sent, cav, sizeof(cav))[0])
		fprintf(f,
			"warning: %.1f %% of the records were lost while recording: the verdict "
			"rests on a partial, likely biased sample (see Lost)\n",
			100.0 * (double)lost / (double)sent);
	fprintf(f, "\nRuns\n  %zu run%s: median %s, p90 %s, max %s\n", r->lab.n,
		r->lab.n == 1 ? "" : "s", report__dur(r->lab.median_ns, d1, sizeof(d1)),
		report__dur(r->lab.p90_ns, d2, sizeof(d2)),
		report__dur(r->lab.max_ns, d3, sizeof(d3)));
	fprintf(f, "  %zu slow: latency > %s (%s)\n", r->lab.nslow,
		report__dur(r->lab.threshold_ns, d4, sizeof(d4)),
		report__rule(r, rule, sizeof(rule)));
	summarized(f, ds, r);
	if (dataset__samples(ds)->sampler_removed_ns)
		fprintf(f,
			"  latencies without the sampler's own cost: %s per stack it took, %s "
			"in all taken off the runs it sampled\n",
			report__dur((double)dataset__samples(ds)->sampler_cost_ns, d1, sizeof(d1)),
			report__dur((double)dataset__samples(ds)->sampler_removed_ns, d2,
				    sizeof(d2)));
	if (dataset__samples(ds)->calibrated)
		fprintf(f,
			"  %llu stack samples stood for more than their run measured of their "
			"resource: scaled down to it\n",
			(unsigned long long)dataset__samples(ds)->calibrated);
	queued(f, ds, r);
}

static void preconditions(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	char t[NAME_MAX_TEXT];

	fprintf(f, "\nSlowdown preconditions (step 1, PerfProbe IV-B)\n");
	for (size_t i = 0; i < r->npre; i++) {
		const struct diagnosis_precond *p = &r->pre[i];
		uint32_t fast = p->runs - p->slow_runs;

		fprintf(f, "  %zu. runs are slow when ", i + 1);
		for (size_t k = 0; k < p->ncond; k++) {
			fputs(k ? " AND " : "", f);
			xlp_fputs_text(f, report__cond(ds, &p->conds[k], t, sizeof(t)));
		}
		fprintf(f, " (%u of %zu slow runs", p->slow_runs, r->lab.nslow);
		if (fast)
			fprintf(f, "; %u fast run%s too", fast, fast == 1 ? "" : "s");
		fprintf(f, ")\n");
	}
	if (r->npre_dropped)
		fprintf(f, "  (%zu leaf/leaves with too few slow runs ignored)\n", r->npre_dropped);
}

static void factor_line(FILE *f, const struct diagnosis_factor *x, const char *what)
{
	char t[32], s[32], q[32];

	fprintf(f,
		"  %s: %s %s %s: median %s in slow %s vs %s in fast; holds for %u of %u slow, "
		"%u of %u fast\n",
		what, diagnosis__feat_name(x->feat),
		x->gt ? ">" : "<=", report__value(x->feat, x->threshold, t, sizeof(t)),
		report__value(x->feat, x->slow_median, s, sizeof(s)), "runs",
		report__value(x->feat, x->fast_median, q, sizeof(q)), x->slow_hits, x->nslow,
		x->fast_hits, x->nfast);
	if (x->from_freq_check)
		fprintf(f, "    (cpu_run grew, but not the work done: the CPU ran at a lower "
			   "frequency)\n");
	if (x->from_beyond)
		fprintf(f, "    (no split of the tree: the resource beyond the bulk, at its best "
			   "split)\n");
}

static void breakdown(FILE *f, const struct diagnosis_step2 *s, const char *time_label)
{
	char a[32], b[32];

	fprintf(f, "    %-14s %12s %12s\n", "median", "slow", "fast");
	fprintf(f, "    %-14s %12s %12s\n", time_label, report__dur(s->time_slow_median, a, 32),
		report__dur(s->time_fast_median, b, 32));
	for (int k = 0; k < DIAGNOSIS_NFEAT; k++) {
		if (!s->avail[k]) {
			fprintf(f, "    %-14s %12s %12s\n", diagnosis__feat_name(k), "unavailable",
				"unavailable");
			continue;
		}
		fprintf(f, "    %-14s %12s %12s%s\n", diagnosis__feat_name(k),
			report__value(k, s->slow_median[k], a, sizeof(a)),
			report__value(k, s->fast_median[k], b, sizeof(b)),
			s->used[k] ? "" : "   (not a tree feature)");
	}
}

/* Lines of s, the first after head, the others indented. */
static void lines(FILE *f, const char *head, const char *s)
{
	fputs(head, f);
	while (*s) {
		size_t w = strcspn(s, "\n");

		fwrite(s, 1, w, f);
		fputc('\n', f);
		s += w;
		if (*s == '\n' && *++s)
			fputs("    ", f);
	}
}

/* Lines of s escaped for a terminal (names from the trace), the first after head. */
static void text_lines(FILE *f, const char *head, const char *s)
{
	fputs(head, f);
	while (*s) {
		size_t w = strcspn(s, "\n");

		xlp_fput_text(f, s, w, false);
		fputc('\n', f);
		s += w;
		if (*s == '\n' && *++s)
			fputs("    ", f);
	}
}

/* The largest counter of a node in slow runs (time on a CPU or a wait). */
static int cct_top(const struct dataset_cct_node *x)
{
	int best = XLP_C_CPU_RUN;

	for (int c = XLP_C_CPU_RUN; c <= XLP_C_OTHER; c++)
		if (c != XLP_C_SLEEP_S && c != XLP_C_SLEEP_D && x->slow[c] > x->slow[best])
			best = c;
	return best;
}

static void context_tree(FILE *f, const struct dataset *ds, const struct diagnosis *r,
			 const struct diagnosis_critical *c)
{
	uint32_t order[64];
	size_t n = report__cct_order(c->cct, r, order, 64);
	char a[32], b[32], d[32], e[32], name[NAME_MAX_TEXT], bin[NAME_MAX_TEXT];
	char line[2 * NAME_MAX_TEXT + 80];

	if (!n) {
		fprintf(f, "  no calling-context tree: no stack sample passes through it (record "
			   "with sampling: the default without --func, or --sample)\n");
		return;
	}
	fprintf(f, "  calling context (stack samples; per run, slow | fast runs; the largest "
		   "part in slow runs):\n");
	for (size_t i = 0; i < n; i++) {
		const struct dataset_cct_node *x = dataset_cct__node(c->cct, order[i]);
		const struct dataset_func *fn = dataset__func(ds, x->func);
		int top = cct_top(x);

		xlp_text(fn->name, name, sizeof(name));
		xlp_text(fn->binary, bin, sizeof(bin));
		snprintf(line, sizeof(line), "%*s%s%s%s%s", (int)(2 * (x->depth % 32)), "", name,
			 fn->runtime ? " (" : "", fn->runtime ? bin : "", fn->runtime ? ")" : "");
		fprintf(f, "    %-46.46s %9s | %-9s %s %s | %s\n", line,
			report__dur(report__cct_mean(x, r, true, XLP_C_WALL), a, sizeof(a)),
			report__dur(report__cct_mean(x, r, false, XLP_C_WALL), b, sizeof(b)),
			xlp_ctr_names[top],
			report__dur(report__cct_mean(x, r, true, top), d, sizeof(d)),
			report__dur(report__cct_mean(x, r, false, top), e, sizeof(e)));
	}
}

static void critical(FILE *f, const struct dataset *ds, const struct diagnosis *r,
		     const struct diagnosis_critical *c, size_t rank)
{
	const struct dataset_func *fn = dataset__func(ds, c->func);
	char t[32], chain[8192], ev[4096], sym[NAME_MAX_TEXT], bin[NAME_MAX_TEXT];
	char why[8192];

	xlp_text(fn->name, sym, sizeof(sym));
	xlp_text(fn->binary, bin, sizeof(bin));
	if (rank)
		fprintf(f,
			"\nCritical function #%zu %s (%s%s): slow when %s %s; %u runs ran it, %u "
			"slow (step 2, PerfProbe IV-C)\n",
			rank, sym, bin, fn->sampled ? "; sampled, never marked" : "",
			c->gt ? ">" : "<=", report__dur(c->threshold_ns, t, sizeof(t)), c->ran,
			c->s2.nslow);
	else
		fprintf(f, "\nNot accused: %s (%s%s) > %s\n", sym, bin,
			fn->sampled ? "; sampled" : "", report__dur(c->threshold_ns, t, sizeof(t)));
	if (fn->sampled && c->res_ns <= 0)
		fprintf(f, "  times estimated from stack samples (no sampling window in the trace "
			   "gives their resolution)\n");
	else if (fn->sampled)
		fprintf(f,
			"  times estimated from stack samples, known to %s (the longest sampling "
			"period times the off-CPU thinning)\n",
			report__dur(c->res_ns, t, sizeof(t)));
	if (c->nchain > 1) {
		fputs("  chain: ", f);
		xlp_fputs_text(f, report__chain(ds, c, chain, sizeof(chain)));
		fputc('\n', f);
		for (size_t k = 0; k + 1 < c->nchain; k++)
			fprintf(f, "    %s: %s added\n",
				xlp_text(dataset__func(ds, c->chain[k])->name, sym, sizeof(sym)),
				report__dur(c->chain_added[k], t, sizeof(t)));
	}
	lines(f, "  evidence: ", report__evidence(r, c, ev, sizeof(ev)));
	if (!rank)
		return;
	for (size_t k = 0; k < c->s2.nfactors; k++)
		factor_line(f, &c->s2.factors[k], "factor");
	if (!c->s2.nfactors)
		fprintf(f, "  no resource factor found\n");
	if (c->peer.found)
		fprintf(f, "  ipc_wait: waiting for pid %u (%s) in slow runs\n", c->peer.pid,
			xlp_text(c->peer.comm, sym, sizeof(sym)));
	text_lines(f, "  why it grew: ", report__why(ds, r, c, why, sizeof(why)));
	breakdown(f, &c->s2, "time");
	context_tree(f, ds, r, c);
}

static void criticals(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	char args[4096];

	for (size_t i = 0; i < r->ncrit; i++)
		critical(f, ds, r, &r->crit[i], i + 1);
	if (report__func_args(ds, r, args, sizeof(args))[0]) {
		fputs("\nMeasure the sampled functions exactly in a next recording:\n  xlprobe "
		      "record ",
		      f);
		xlp_fputs_text(f, args);
		fputs(" ...\n", f);
	}
}

static void rejected(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	for (size_t i = 0; i < r->nrejected; i++)
		critical(f, ds, r, &r->crit[r->ncrit + i], 0);
}

/* No function accused: the whole run's resource, tested, and where its samples go. */
static void fallback(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	const struct diagnosis_fallback *fb = &r->fallback;
	char line[2048], path[8192];

	if (!fb->tested)
		return;
	fprintf(f, "  whole run%s: %s: %s\n", fb->own ? " of their thread" : "",
		fb->holds ? "EXPLAINS the slow runs" : "no answer",
		report__fallback(r, line, sizeof(line)));
	fprintf(f,
		"    => %s (the slow runs past the threshold, Fisher at p <= %g, and the resource "
		"either %.0f %% more of the added latency than of the fast runs' or a distinct "
		"mode)\n",
		fb->disk_cpu.holds ? "the slow runs' added CPU time came with their block requests"
		: fb->holds	   ? "the whole run's resource explains the slow runs"
				   : "no resource of the whole run explains the slow runs",
		r->alpha_evidence, 100 * r->excess_share);
	if (fb->holds)
		text_lines(f, "  where: ",
			   report__why_path(ds, r, &fb->why, false, path, sizeof(path)));
}

static void baseline(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	if (!r->has_base || (r->status != DIAGNOSIS_OK && r->status != DIAGNOSIS_NO_PRECOND))
		return;
	fprintf(f, "\nBaseline: whole-run resource usage (PerfProbe V-D), %u runs\n",
		r->base.samples);
	for (size_t k = 0; k < r->base.nfactors; k++)
		factor_line(f, &r->base.factors[k], "baseline factor");
	if (!r->base.nfactors)
		fprintf(f, "  no factor found\n");
	if (r->ncrit && r->base.nfactors)
		fprintf(f, "  %s\n",
			r->agrees ? "agrees with the function-level answer"
				  : "DIFFERS from the function-level answer: the "
				    "whole run mixes in what other code did");
	if (r->status == DIAGNOSIS_NO_PRECOND)
		fallback(f, ds, r);
}

static void table(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	bool reasons = r->features & XLP_FEAT_SYSCALLS;
	int cols[DIAGNOSIS_NFEAT], nc = 0;
	char c[32], sym[NAME_MAX_TEXT];

	for (int k = 0; k < DIAGNOSIS_NFEAT; k++)
		if (k == DIAGNOSIS_CPU_RUN || k == DIAGNOSIS_CPU_WAIT || k == DIAGNOSIS_CPU_FREQ ||
		    k == DIAGNOSIS_CPU_STEAL ||
		    (reasons ? k >= DIAGNOSIS_DISK && k <= DIAGNOSIS_OTHER
			     : (k == DIAGNOSIS_SLEEP_S || k == DIAGNOSIS_SLEEP_D)))
			cols[nc++] = k;
	/* column headers: the counters' names, shorter than the factors' */
	fprintf(f, "\nFunctions (median over the runs where each ran)\n  %-20s %5s %8s", "function",
		"runs", "time");
	for (int k = 0; k < nc; k++)
		fprintf(f, " %8s", diagnosis__feat_ctr_name(cols[k]));
	fputc('\n', f);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct diagnosis_func_row *row = &r->rows[i];

		fprintf(f, "  %-20.20s %5u %8s",
			xlp_text(dataset__func(ds, row->func)->name, sym, sizeof(sym)), row->runs,
			cell(DIAGNOSIS_CPU_RUN, row->time_median, c, sizeof(c)));
		for (int k = 0; k < nc; k++)
			fprintf(f, " %8s",
				cols[k] == DIAGNOSIS_CPU_FREQ && !(r->features & XLP_FEAT_CPUFREQ)
					? "unavail"
					: cell(cols[k], row->median[cols[k]], c, sizeof(c)));
		fputc('\n', f);
	}
}

static void limits(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	const char *un[8];
	struct report_drop d[REPORT_MAX_DROPS];
	size_t nu = report__unavailable(r->features, un, 8),
	       nd = report__drops(ds, d, REPORT_MAX_DROPS);
	size_t nlost = 0;

	fprintf(f, "\nNot measured\n");
	for (size_t i = 0; i < nu; i++)
		fprintf(f, "  %s\n", un[i]);
	if (!nu)
		fprintf(f, "  nothing: every counter was available\n");
	fprintf(f, "Lost\n");
	for (size_t i = 0; i < nd; i++)
		if (!d[i].chosen && ++nlost)
			fprintf(f, "  %s %llu: %s\n", d[i].name, (unsigned long long)d[i].count,
				d[i].what);
	if (!nlost)
		fprintf(f, "  no events lost\n");
	/* a summary is no loss, but what it left out is said as plainly */
	for (size_t i = 0, n = 0; i < nd; i++)
		if (d[i].chosen)
			fprintf(f, "%s  %s %llu: %s\n",
				n++ ? "" : "Left out on purpose (record --lag)\n", d[i].name,
				(unsigned long long)d[i].count, d[i].what);
}

int report__text(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	struct report_verdict v;
	uint64_t lost, sent;
	char cav[256];

	report__verdict(ds, r, &v);
	header(f, ds, r);
	if (r->status == DIAGNOSIS_OK) {
		preconditions(f, ds, r);
		criticals(f, ds, r);
		rejected(f, ds, r);
	} else if (r->status == DIAGNOSIS_NO_PRECOND) {
		if (r->npre)
			preconditions(f, ds, r);
		rejected(f, ds, r);
		fputc('\n', f);
		xlp_fputs_text(f, v.text);
		fputc('\n', f);
		if (v.note[0]) {
			fputs("  (", f);
			xlp_fputs_text(f, v.note);
			fputs(")\n", f);
		}
		if (r->npre_dropped)
			fprintf(f, "  (%zu leaf/leaves with too few slow runs ignored)\n",
				r->npre_dropped);
	}
	baseline(f, ds, r);
	if (r->status != DIAGNOSIS_OK)
		table(f, ds, r);
	report__waits_text(f, ds, r);
	report__tasks_text(f, ds, r);
	limits(f, ds, r);
	fputs("\nVerdict: ", f);
	/* first: what it rests on, when that is a partial sample */
	if (report__caveat(ds, &lost, &sent, cav, sizeof(cav))[0]) {
		fputs(cav, f);
		fputs(": ", f);
	}
	xlp_fputs_text(f, v.text);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
