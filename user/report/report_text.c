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
#include "report_model.h"

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

/* The measure at path below n in words: "41.2 ms", "1.20 GHz". */
static const char *val(const struct report_node *n, const char *path, char *buf, size_t len)
{
	return report_node__fmt_at(n, path, buf, len);
}

/* The runs' wait before their handler (record's prewake), when any has one. */
static void queued(FILE *f, const struct report_node *runs)
{
	const char *who = report_node__str_at(runs, "queued_cpu_thieves_text");
	double share = report_node__num_at(runs, "queued_share");

	if (!report_node__uint_at(runs, "queued_runs"))
		return;
	report_node__print(
		f, runs,
		"  queued before the handler: {#queued_runs} of {#count} runs waited for a "
		"CPU between their thread's wakeup and the handler; median "
		"{queued_slow_median_ns} in slow runs, {queued_fast_median_ns} in fast");
	/* only a share it holds: a difference of zeros says nothing */
	if (!isnan(share) && share >= 0.005)
		fprintf(f, ", %.0f %% of the added latency", 100 * share);
	fputs(" (in their latency and cpu_wait; record --no-prewake leaves it out)\n", f);
	if (who && who[0]) {
		fputs("  in the slow runs, ", f);
		xlp_fputs_text(f, who);
		fputs("\n", f);
	}
}

/* record --lag: the runs counted and timed, but not analysed */
static void summarized(FILE *f, const struct report_node *runs)
{
	uint64_t n = report_node__uint_at(runs, "summarized");
	unsigned keep = (unsigned)report_node__uint_at(runs, "lag_keep");
	char d1[32], d2[32], d3[32];

	if (!n)
		return;
	fprintf(f,
		"  %llu more runs summarized by record --lag %s: %llu runs in all. Counted and "
		"timed only (median %s, max %s), so left out of the analysis, which compares "
		"what ran in the runs: the runs above are those that lagged and one in %u of "
		"the others, each of which stands for %u\n",
		(unsigned long long)n, report__dur(report_node__num_at(runs, "lag_ns"), d1, 32),
		(unsigned long long)(report_node__uint_at(runs, "count") + n),
		val(runs, "summarized_median_ns", d2, sizeof(d2)),
		val(runs, "summarized_max_ns", d3, sizeof(d3)), keep, keep);
}

static void header(FILE *f, const struct report_node *m)
{
	const struct report_node *tr = report_node__get(m, "traces"), *runs;
	const struct report_node *fi = report_node__at(tr, 0), *smp;
	size_t nf = report_node__len(tr), nl = report_node__len(report_node__get(fi, "landmarks"));
	uint64_t n = report_node__uint_at(m, "runs.count");
	char d1[32], d2[32], d3[32], d4[32], p[NAME_MAX_TEXT], s[NAME_MAX_TEXT];

	xlp_text(report_node__str_at(fi, "path"), p, sizeof(p));
	xlp_text(report_node__str_at(fi, "interaction"), s, sizeof(s));
	if (nf == 1 && nl > 1)
		fprintf(f, "xlprobe report: %s: %llu runs of %s and %zu other landmark%s\n", p,
			(unsigned long long)n, s, nl - 1, nl > 2 ? "s" : "");
	else if (nf == 1 && report_node__str_at(fi, "interaction_symbol"))
		fprintf(f, "xlprobe report: %s: %llu runs of %s\n", p, (unsigned long long)n, s);
	else if (nf == 1)
		fprintf(f, "xlprobe report: %s: %llu launch%s\n", p, (unsigned long long)n,
			n == 1 ? "" : "es");
	else
		fprintf(f, "xlprobe report: %zu traces, %llu runs\n", nf, (unsigned long long)n);
	for (size_t i = 0; i < nf; i++) {
		fi = report_node__at(tr, i);
		xlp_text(report_node__str_at(fi, "path"), p, sizeof(p));
		if (report_node__bool_at(fi, "truncated"))
			fprintf(f,
				"warning: %s is truncated (no valid footer): analysed what was "
				"read\n",
				p);
		if (report_node__str_at(fi, "damage"))
			fprintf(f, "warning: %s is damaged: %s: analysed what was read\n", p,
				report_node__str_at(fi, "damage"));
	}
	if (report_node__str_at(m, "caveat"))
		fprintf(f,
			"warning: %.1f %% of the records were lost while recording: the verdict "
			"rests on a partial, likely biased sample (see Lost)\n",
			100.0 * report_node__num_at(m, "loss.records_lost") /
				report_node__num_at(m, "loss.records_sent"));
	runs = report_node__get(m, "runs");
	fprintf(f, "\nRuns\n  %llu run%s: median %s, p90 %s, max %s\n", (unsigned long long)n,
		n == 1 ? "" : "s", val(runs, "median_ns", d1, sizeof(d1)),
		val(runs, "p90_ns", d2, sizeof(d2)), val(runs, "max_ns", d3, sizeof(d3)));
	fprintf(f, "  %llu slow: latency > %s (%s)\n",
		(unsigned long long)report_node__uint_at(runs, "slow"),
		val(runs, "threshold_ns", d4, sizeof(d4)), report_node__str_at(runs, "rule"));
	summarized(f, runs);
	smp = report_node__get(m, "sampling");
	if (report_node__uint_at(smp, "sampler_removed_ns"))
		fprintf(f,
			"  latencies without the sampler's own cost: %s per stack it took, %s "
			"in all taken off the runs it sampled\n",
			report__dur(report_node__num_at(smp, "sampler_cost_ns"), d1, sizeof(d1)),
			report__dur(report_node__num_at(smp, "sampler_removed_ns"), d2,
				    sizeof(d2)));
	if (report_node__uint_at(smp, "calibrated"))
		fprintf(f,
			"  %llu stack samples stood for more than their run measured of their "
			"resource: scaled down to it\n",
			(unsigned long long)report_node__uint_at(smp, "calibrated"));
	queued(f, runs);
}

static void preconditions(FILE *f, const struct report_node *m)
{
	const struct report_node *pre = report_node__get(m, "preconditions");
	uint64_t ignored = report_node__uint_at(m, "preconditions_ignored");

	fprintf(f, "\nSlowdown preconditions (step 1, PerfProbe IV-B)\n");
	for (size_t i = 0; i < report_node__len(pre); i++) {
		const struct report_node *p = report_node__at(pre, i);
		const struct report_node *fns = report_node__get(p, "functions");
		uint64_t slow = report_node__uint_at(p, "slow_runs");
		uint64_t fast = report_node__uint_at(p, "runs") - slow;

		fprintf(f, "  %zu. runs are slow when ", i + 1);
		for (size_t k = 0; k < report_node__len(fns); k++) {
			fputs(k ? " AND " : "", f);
			xlp_fputs_text(f, report_node__str_at(report_node__at(fns, k), "text"));
		}
		fprintf(f, " (%llu of %llu slow runs", (unsigned long long)slow,
			(unsigned long long)report_node__uint_at(m, "runs.slow"));
		if (fast)
			fprintf(f, "; %llu fast run%s too", (unsigned long long)fast,
				fast == 1 ? "" : "s");
		fprintf(f, ")\n");
	}
	if (ignored)
		fprintf(f, "  (%llu leaf/leaves with too few slow runs ignored)\n",
			(unsigned long long)ignored);
}

static void factor_line(FILE *f, const struct report_node *x, const char *what)
{
	char t[32], s[32], q[32];

	fprintf(f,
		"  %s: %s %s %s: median %s in slow %s vs %s in fast; holds for %llu of %llu "
		"slow, %llu of %llu fast\n",
		what, report_node__str_at(x, "factor"), report_node__str_at(x, "op"),
		val(x, "threshold", t, sizeof(t)), val(x, "slow_median", s, sizeof(s)), "runs",
		val(x, "fast_median", q, sizeof(q)),
		(unsigned long long)report_node__uint_at(x, "slow_hits"),
		(unsigned long long)report_node__uint_at(x, "slow"),
		(unsigned long long)report_node__uint_at(x, "fast_hits"),
		(unsigned long long)report_node__uint_at(x, "fast"));
	if (report_node__bool_at(x, "frequency_check"))
		fprintf(f, "    (cpu_run grew, but not the work done: the CPU ran at a lower "
			   "frequency)\n");
	if (report_node__bool_at(x, "from_beyond"))
		fprintf(f, "    (no split of the tree: the resource beyond the bulk, at its best "
			   "split)\n");
}

static void breakdown(FILE *f, const struct report_node *b, const char *time_key,
		      const char *time_label)
{
	const struct report_node *t = report_node__get(b, time_key);
	char a[32], c[32];

	fprintf(f, "    %-14s %12s %12s\n", "median", "slow", "fast");
	fprintf(f, "    %-14s %12s %12s\n", time_label, val(t, "slow_median", a, sizeof(a)),
		val(t, "fast_median", c, sizeof(c)));
	/* the time first, then one row per resource */
	for (size_t k = 1; k < report_node__len(b); k++) {
		const struct report_node *x = report_node__at(b, k);
		const char *name = diagnosis__feat_name((int)k - 1);

		if (report_node__kind(x) == REPORT_STR) {
			fprintf(f, "    %-14s %12s %12s\n", name, "unavailable", "unavailable");
			continue;
		}
		fprintf(f, "    %-14s %12s %12s%s\n", name, val(x, "slow_median", a, sizeof(a)),
			val(x, "fast_median", c, sizeof(c)),
			report_node__bool_at(x, "tree_feature") ? "" : "   (not a tree feature)");
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

static void context_tree(FILE *f, const struct report_node *c)
{
	const struct report_node *t = report_node__get(c, "context_tree");
	size_t n = report_node__len(t);
	char a[32], b[32], d[32], e[32], name[NAME_MAX_TEXT], bin[NAME_MAX_TEXT];
	char line[2 * NAME_MAX_TEXT + 80], sk[64], fk[64];

	if (!n) {
		fprintf(f, "  no calling-context tree: no stack sample passes through it (record "
			   "with sampling: the default without --func, or --sample)\n");
		return;
	}
	fprintf(f, "  calling context (stack samples; per run, slow | fast runs; the largest "
		   "part in slow runs):\n");
	for (size_t i = 0; i < n; i++) {
		const struct report_node *x = report_node__at(t, i);
		const char *top = report_node__str_at(x, "largest");
		bool runtime = report_node__bool_at(x, "runtime");

		xlp_text(report_node__str_at(x, "function"), name, sizeof(name));
		xlp_text(report_node__str_at(x, "binary"), bin, sizeof(bin));
		snprintf(line, sizeof(line), "%*s%s%s%s%s",
			 (int)(2 * (report_node__uint_at(x, "depth") % 32)), "", name,
			 runtime ? " (" : "", runtime ? bin : "", runtime ? ")" : "");
		snprintf(sk, sizeof(sk), "slow_per_run_ns.%s", top);
		snprintf(fk, sizeof(fk), "fast_per_run_ns.%s", top);
		fprintf(f, "    %-46.46s %9s | %-9s %s %s | %s\n", line,
			val(x, "slow_per_run_ns.wall", a, sizeof(a)),
			val(x, "fast_per_run_ns.wall", b, sizeof(b)), top, val(x, sk, d, sizeof(d)),
			val(x, fk, e, sizeof(e)));
	}
}

static void critical(FILE *f, const struct report_node *c)
{
	const struct report_node *chain = report_node__get(c, "chain"), *fs, *peer;
	uint64_t rank = report_node__uint_at(c, "rank");
	bool sampled = report_node__bool_at(c, "sampled");
	double res = report_node__num_at(c, "resolution_ns");
	char t[32], sym[NAME_MAX_TEXT], bin[NAME_MAX_TEXT];

	xlp_text(report_node__str_at(c, "function"), sym, sizeof(sym));
	xlp_text(report_node__str_at(c, "binary"), bin, sizeof(bin));
	if (rank)
		fprintf(f,
			"\nCritical function #%llu %s (%s%s): slow when %s %s; %llu runs ran it, "
			"%llu slow (step 2, PerfProbe IV-C)\n",
			(unsigned long long)rank, sym, bin,
			sampled ? "; sampled, never marked" : "", report_node__str_at(c, "op"),
			val(c, "threshold_ns", t, sizeof(t)),
			(unsigned long long)report_node__uint_at(c, "samples"),
			(unsigned long long)report_node__uint_at(c, "slow_samples"));
	else
		fprintf(f, "\nNot accused: %s (%s%s) > %s\n", sym, bin, sampled ? "; sampled" : "",
			val(c, "threshold_ns", t, sizeof(t)));
	if (sampled && !(res > 0))
		fprintf(f, "  times estimated from stack samples (no sampling window in the trace "
			   "gives their resolution)\n");
	else if (sampled)
		fprintf(f,
			"  times estimated from stack samples, known to %s (the longest sampling "
			"period times the off-CPU thinning)\n",
			val(c, "resolution_ns", t, sizeof(t)));
	if (report_node__len(chain) > 1) {
		fputs("  chain: ", f);
		xlp_fputs_text(f, report_node__str_at(c, "chain_text"));
		fputc('\n', f);
		for (size_t k = 0; k + 1 < report_node__len(chain); k++) {
			const struct report_node *x = report_node__at(chain, k);

			fprintf(f, "    %s: %s added\n",
				xlp_text(report_node__str_at(x, "function"), sym, sizeof(sym)),
				val(x, "added_ns", t, sizeof(t)));
		}
	}
	if (!report_node__is_null(report_node__get(c, "sampled_end")))
		fprintf(f,
			"  judged here, not at its sampled callee %s: that one's times are counts "
			"of samples, too coarse for evidence (diagnosis.h, sampled_end)\n",
			xlp_text(report_node__str_at(c, "sampled_end.function"), sym, sizeof(sym)));
	lines(f, "  evidence: ", report_node__str_at(c, "evidence_text"));
	if (!rank)
		return;
	fs = report_node__get(c, "factors");
	for (size_t k = 0; k < report_node__len(fs); k++)
		factor_line(f, report_node__at(fs, k), "factor");
	if (!report_node__len(fs))
		fprintf(f, "  no resource factor found\n");
	peer = report_node__get(c, "peer");
	if (!report_node__is_null(peer))
		fprintf(f, "  ipc_wait: waiting for pid %llu (%s) in slow runs\n",
			(unsigned long long)report_node__uint_at(peer, "pid"),
			xlp_text(report_node__str_at(peer, "comm"), sym, sizeof(sym)));
	text_lines(f, "  why it grew: ", report_node__str_at(c, "growth_text"));
	breakdown(f, report_node__get(c, "breakdown"), "time", "time");
	context_tree(f, c);
}

static void criticals(FILE *f, const struct report_node *m, const char *key)
{
	const struct report_node *cs = report_node__get(m, key);

	for (size_t i = 0; i < report_node__len(cs); i++)
		critical(f, report_node__at(cs, i));
}

static void func_args(FILE *f, const struct report_node *m)
{
	const char *args = report_node__str_at(m, "sampling.func_args");

	if (!args)
		return;
	fputs("\nMeasure the sampled functions exactly in a next recording:\n  xlprobe "
	      "record ",
	      f);
	xlp_fputs_text(f, args);
	fputs(" ...\n", f);
}

/* No function accused: the whole run's resource, tested, and where its samples go. */
static void fallback(FILE *f, const struct report_node *m)
{
	const struct report_node *fb = report_node__get(m, "whole_run");
	bool holds = report_node__bool_at(fb, "holds");

	if (report_node__is_null(fb))
		return;
	fprintf(f, "  whole run%s: %s: %s\n",
		report_node__bool_at(fb, "run_thread") ? " of their thread" : "",
		holds ? "EXPLAINS the slow runs" : "no answer", report_node__str_at(fb, "text"));
	fprintf(f,
		"    => %s (the slow runs past the threshold, Fisher at p <= %g, and the resource "
		"either %.0f %% more of the added latency than of the fast runs' (a wait: or grown "
		"twice as much as the rest of the run, each against the fast runs') or a distinct "
		"mode)\n",
		report_node__bool_at(fb, "disk_on_cpu.holds")
			? "the slow runs' added CPU time came with their block requests"
		: holds ? "the whole run's resource explains the slow runs"
			: "no resource of the whole run explains the slow runs",
		report_node__num_at(m, "evidence_alpha"),
		100 * report_node__num_at(fb, "excess_above"));
	if (holds)
		text_lines(f, "  where: ", report_node__str_at(fb, "where_text"));
}

static void baseline(FILE *f, const struct report_node *m)
{
	const struct report_node *b = report_node__get(m, "baseline");
	const struct report_node *fs = report_node__get(b, "factors");
	const char *status = report_node__str_at(m, "status");
	bool none = !strcmp(status, "no_precondition");

	if (report_node__is_null(b) || (strcmp(status, "ok") && !none))
		return;
	fprintf(f, "\nBaseline: whole-run resource usage (PerfProbe V-D), %llu runs\n",
		(unsigned long long)report_node__uint_at(b, "samples"));
	for (size_t k = 0; k < report_node__len(fs); k++)
		factor_line(f, report_node__at(fs, k), "baseline factor");
	if (!report_node__len(fs))
		fprintf(f, "  no factor found\n");
	if (report_node__len(report_node__get(m, "critical_functions")) && report_node__len(fs))
		fprintf(f, "  %s\n",
			report_node__bool_at(b, "agrees")
				? "agrees with the function-level answer"
				: "DIFFERS from the function-level answer: the "
				  "whole run mixes in what other code did");
	if (none)
		fallback(f, m);
}

static void table(FILE *f, const struct report_node *m)
{
	uint64_t features = report_node__uint_at(m, "features");
	const struct report_node *rows = report_node__get(m, "functions");
	bool reasons = features & XLP_FEAT_SYSCALLS;
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
	for (size_t i = 0; i < report_node__len(rows); i++) {
		const struct report_node *row = report_node__at(rows, i);
		const struct report_node *med = report_node__get(row, "median");

		fprintf(f, "  %-20.20s %5llu %8s",
			xlp_text(report_node__str_at(row, "function"), sym, sizeof(sym)),
			(unsigned long long)report_node__uint_at(row, "runs"),
			cell(DIAGNOSIS_CPU_RUN, report_node__num_at(row, "time_median_ns"), c,
			     sizeof(c)));
		for (int k = 0; k < nc; k++)
			fprintf(f, " %8s",
				cols[k] == DIAGNOSIS_CPU_FREQ && !(features & XLP_FEAT_CPUFREQ)
					? "unavail"
					: cell(cols[k],
					       report_node__num_at(med,
								   diagnosis__feat_name(cols[k])),
					       c, sizeof(c)));
		fputc('\n', f);
	}
}

static void limits(FILE *f, const struct report_node *m)
{
	const struct report_node *un = report_node__get(m, "unavailable");
	const struct report_node *d = report_node__get(m, "lost");
	size_t nlost = 0, nd = report_node__len(d);

	fprintf(f, "\nNot measured\n");
	for (size_t i = 0; i < report_node__len(un); i++)
		fprintf(f, "  %s\n", report_node__str(report_node__at(un, i)));
	if (!report_node__len(un))
		fprintf(f, "  nothing: every counter was available\n");
	fprintf(f, "Lost\n");
	for (size_t i = 0; i < nd; i++) {
		const struct report_node *x = report_node__at(d, i);

		if (!report_node__bool_at(x, "chosen") && ++nlost)
			fprintf(f, "  %s %llu: %s\n", report_node__str_at(x, "name"),
				(unsigned long long)report_node__uint_at(x, "count"),
				report_node__str_at(x, "what"));
	}
	if (!nlost)
		fprintf(f, "  no events lost\n");
	/* a summary is no loss, but what it left out is said as plainly */
	for (size_t i = 0, n = 0; i < nd; i++) {
		const struct report_node *x = report_node__at(d, i);

		if (report_node__bool_at(x, "chosen"))
			fprintf(f, "%s  %s %llu: %s\n",
				n++ ? "" : "Left out on purpose (record --lag)\n",
				report_node__str_at(x, "name"),
				(unsigned long long)report_node__uint_at(x, "count"),
				report_node__str_at(x, "what"));
	}
}

/* The verdict where the report has no function to show (before the baseline). */
static void no_precondition(FILE *f, const struct report_node *m)
{
	const char *note = report_node__str_at(m, "note");
	uint64_t ignored = report_node__uint_at(m, "preconditions_ignored");

	if (report_node__len(report_node__get(m, "preconditions")))
		preconditions(f, m);
	criticals(f, m, "rejected_functions");
	fputc('\n', f);
	xlp_fputs_text(f, report_node__str_at(m, "verdict"));
	fputc('\n', f);
	if (note) {
		fputs("  (", f);
		xlp_fputs_text(f, note);
		fputs(")\n", f);
	}
	if (ignored)
		fprintf(f, "  (%llu leaf/leaves with too few slow runs ignored)\n",
			(unsigned long long)ignored);
}

int report__text(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	struct report_model *model = report_model__build(ds, r);
	const struct report_node *m = report_model__root(model);
	const char *status, *cav;

	if (!model)
		return -ENOMEM;
	status = report_node__str_at(m, "status");
	header(f, m);
	if (!strcmp(status, "ok")) {
		preconditions(f, m);
		criticals(f, m, "critical_functions");
		func_args(f, m);
		criticals(f, m, "rejected_functions");
	} else if (!strcmp(status, "no_precondition")) {
		no_precondition(f, m);
	}
	baseline(f, m);
	if (strcmp(status, "ok"))
		table(f, m);
	report__waits_text(f, m);
	report__tasks_text(f, m);
	limits(f, m);
	fputs("\nVerdict: ", f);
	/* first: what it rests on, when that is a partial sample */
	cav = report_node__str_at(m, "caveat");
	if (cav) {
		fputs(cav, f);
		fputs(": ", f);
	}
	xlp_fputs_text(f, report_node__str_at(m, "verdict"));
	fputc('\n', f);
	report_model__free(model);
	return ferror(f) ? -EIO : 0;
}
