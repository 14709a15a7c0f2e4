/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The end of a recording: the live threads' totals, the last launch, the
 * statistics and the footer written and the file committed, what was lost
 * and what would lose less said (record_detach.c removes the probes).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "minidebug.h"
#include "outfile.h"
#include "recorder.h"
#include "stack_unwind.h"
#include "util.h"

/* A power of two of bytes as --buffer-size takes it: 512K, 64M, 1G. */
static const char *size_arg(uint64_t b, char *buf, size_t len)
{
	if (b >= (1ull << 30))
		snprintf(buf, len, "%lluG", (unsigned long long)(b >> 30));
	else if (b >= (1ull << 20))
		snprintf(buf, len, "%lluM", (unsigned long long)(b >> 20));
	else
		snprintf(buf, len, "%lluK", (unsigned long long)(b >> 10));
	return buf;
}

/* The smallest --buffer-size (a power of two, in bytes) that holds need. */
static uint64_t buffer_for(uint64_t need)
{
	uint64_t b = 4096;

	while (b < need && b < XLP_RINGBUF_MAX)
		b <<= 1;
	return b;
}

/*
 * More than XLP_LOSS_CAVEAT of the records lost: the report will call its
 * sample partial; say what would lose less, from what was measured.
 */
/* MiniDebugInfo sections refused while naming --func targets or frames: counted, said. */
static void minidebug_advice(void)
{
	struct minidebug_counts c;
	char why[256];
	uint64_t n = 0;
	size_t used = 0;

	minidebug__counts(&c);
	why[0] = 0;
	for (int i = 0; i < MINIDEBUG_NREFUSALS; i++) {
		if (!c.refused[i])
			continue;
		n += c.refused[i];
		used += (size_t)snprintf(why + used, sizeof(why) - used, "%s%llu %s",
					 used ? ", " : "", (unsigned long long)c.refused[i],
					 minidebug__refusal_str(i));
		if (used >= sizeof(why))
			break;
	}
	if (n)
		xlp_warn("MiniDebugInfo (.gnu_debugdata) refused on reading: %s: those binaries' "
			 "local functions are unnamed; install their debug symbols",
			 why);
}

/*
 * What the JIT runtimes' perf maps and jitdumps gave (user/symbols/jitproc.h);
 * a file refused or corrupt is a warning: its frames stay
 * "[unknown]".
 */
static void jit_summary(const struct jit_counts *j, uint64_t jvm_maps, bool quiet)
{
	if (!quiet && jvm_maps)
		fprintf(stderr, "xlprobe: JVMs wrote their perf maps %llu times when asked\n",
			(unsigned long long)jvm_maps);
	if (!quiet && (j->files || j->skipped || j->cut || j->tail))
		fprintf(stderr,
			"xlprobe: JIT code: %llu frames named from %llu perf maps and jitdumps "
			"(%llu names read); %llu malformed lines or records skipped, %llu files "
			"cut off at their bound, %llu jitdump bytes unread at the end (a record "
			"still being written, cut short or lying about its size)\n",
			(unsigned long long)j->named, (unsigned long long)j->files,
			(unsigned long long)j->entries, (unsigned long long)j->skipped,
			(unsigned long long)j->cut, (unsigned long long)j->tail);
	if (j->refused || j->corrupt)
		xlp_warn("%llu JIT symbol files refused and %llu read no further; the first: %s "
			 "(the runtime's own file, of the process's user, is read: see "
			 "docs/runtimes.md)",
			 (unsigned long long)j->refused, (unsigned long long)j->corrupt, j->why);
}

static void loss_advice(struct recorder *r, const struct xlp_trace_footer *f)
{
	const struct reader_load *l = &r->load;
	uint64_t lost = f->stat[XLP_S_RB_FULL] + f->lost_by_reader, sent = r->nprog + lost;
	uint64_t want = buffer_for(2 * l->need_bytes);
	char cur[32], sug[32];

	if (!sent || (double)lost / sent <= XLP_LOSS_CAVEAT)
		return;
	size_arg(r->o.ringbuf_bytes, cur, sizeof(cur));
	size_arg(want, sug, sizeof(sug));
	xlp_warn("%.1f %% of the records were lost (%llu of %llu): the report will say its "
		 "sample is partial and likely biased (losses fall where the load is). The "
		 "programs sent up to %.1f MB between two drains, %.0f ms apart at most; to "
		 "lose less:",
		 100.0 * lost / sent, (unsigned long long)lost, (unsigned long long)sent,
		 l->need_bytes / 1e6, l->max_gap_ns / 1e6);
	if (want > r->o.ringbuf_bytes && 2 * l->need_bytes <= XLP_RINGBUF_MAX)
		fprintf(stderr, "  --buffer-size %s (now %s): twice what one drain had to take\n",
			sug, cur);
	else if (want > r->o.ringbuf_bytes)
		fprintf(stderr,
			"  --buffer-size 1G (now %s) helps only in part: the rate is beyond "
			"what a buffer can absorb\n",
			cur);
	if (r->o.realtime == XLP_RT_OFF)
		fprintf(stderr, "  drop --realtime off: the recorder then takes SCHED_FIFO 1 as "
				"soon as it falls behind\n");
	else if (l->rt_since_ns)
		fprintf(stderr,
			"  --realtime %d: the recorder ran at SCHED_FIFO %d only from %.1f s on, "
			"once "
			"behind; a higher priority from the start (as perf record -r)\n",
			l->rt_prio < 50 ? 50 : l->rt_prio, l->rt_prio,
			(l->rt_since_ns - r->meta.start_ns) / 1e9);
	else if (l->rt_failed)
		fprintf(stderr,
			"  run with CAP_SYS_NICE, so that the recorder can take SCHED_FIFO\n");
	fprintf(stderr, "  fewer --func, or --min-dur DUR: fewer calls to record (a call shorter "
			"than DUR is counted, not sent)\n");
	if (r->o.sample_hz)
		fprintf(stderr, "  a lower -F or --sample-overhead, or --no-sample\n");
	if (r->o.timeline)
		fprintf(stderr, "  no --timeline: every scheduling event is a record\n");
}

/* What the trace-marker programs made of the app's lines: into the trace, and said. */
static void marker_finish(struct recorder *r)
{
	struct xlp_marker_rec mr;
	uint64_t skipped = 0;

	if (session__marker_counts(r->sess, &mr))
		return;
	recorder__write(r, &mr.h);
	for (int i = 0; i < XLP_MARKER_NR_SKIP; i++)
		skipped += mr.skip[i];
	if (skipped)
		xlp_warn("%llu of %llu trace-marker lines skipped (malformed, or an end without "
			 "its begin): xlprobe dump shows them by reason",
			 (unsigned long long)skipped, (unsigned long long)mr.lines);
}

int recorder__finish(struct recorder *r, enum xlp_stop_reason why)
{
	struct xlp_trace_footer f = {.stop_reason = why};
	struct xlp_stats_rec sr = {.h = {XLP_R_STATS, sizeof(sr), 0}};
	char msg[PATH_MAX + 256];
	int code, err;

	/* the recording ends now: totals of live threads first, then the
	 * launched command (if any) is stopped; what its exit produces is not
	 * part of the recording */
	session__poll(r->sess, -1, 0);
	/* what reading cost, set-up and loading apart (make bench, row 5) */
	if (r->nprog)
		xlp_dbg("the recorder used %.1f ms of CPU draining %llu records from the programs: "
			"%.0f ns each",
			(recorder__cpu_ns() - r->cpu_at_run_ns) / 1e6, (unsigned long long)r->nprog,
			(double)(recorder__cpu_ns() - r->cpu_at_run_ns) / (double)r->nprog);
	session__emit_live(r->sess, xlp_now_ns());
	if (r->sampler)
		sampler__adapt(r->sampler, xlp_now_ns(), true);
	session__stats(r->sess, f.stat);
	r->ended = true;
	if (r->child) {
		launch__kill(r->child);
		if (launch__reap(r->child, 1, &code) == 1)
			recorder__finish_launch(r, code);
	}
	/* the recorder's count in the BPF statistics' slot for it */
	f.stat[XLP_S_LAUNCH_UNTIMED] += r->untimed;
	if (r->untimed)
		xlp_warn("%u of %u launch(es) lack the kernel's exec or exit time: their latency "
			 "was taken by xlprobe (release to reap) and is less exact; flagged in the "
			 "trace",
			 r->untimed, r->launches);
	if (r->lag) {
		/* what is still held belongs to runs that never ended: written */
		struct xlp_lag_rec lr;

		lag_filter__flush(r->lag);
		lag_filter__stats(r->lag, &lr);
		recorder__write(r, &lr.h);
		if (!r->o.quiet)
			fprintf(stderr,
				"%sxlprobe: --lag: %llu runs: %llu lagged, %llu kept as samples, "
				"%llu written whole unchosen, %llu summarized (%llu records, %.1f "
				"MB "
				"left out)\n",
				isatty(STDERR_FILENO) ? "\r\033[K" : "",
				(unsigned long long)lr.runs, (unsigned long long)lr.lagging,
				(unsigned long long)lr.sampled,
				(unsigned long long)lr.written_through,
				(unsigned long long)lr.summarized,
				(unsigned long long)lr.records_left_out, lr.bytes_left_out / 1e6);
	}
	if (r->nmarkers)
		marker_finish(r);
	memcpy(sr.stat, f.stat, sizeof(sr.stat));
	sr.lost_by_reader = r->lost;
	recorder__on_record(r, &sr.h);
	f.lost_by_reader = r->lost;
	f.end_ns = xlp_now_ns();
	if (r->write_err) {
		/* what is written reads as a valid truncated trace: keep it */
		trace_writer__abort(r->w);
		r->w = NULL;
		err = outfile__commit(r->of, msg, sizeof(msg));
		r->of = NULL;
		if (err)
			xlp_err("%s", msg);
		else
			xlp_err("writing %s failed: %s: recording stopped; the file holds what was "
				"written before (it reads as truncated); free space and record "
				"again",
				r->o.output, strerror(-r->write_err));
		return 1;
	}
	err = trace_writer__close(r->w, &f);
	r->w = NULL;
	if (err) {
		outfile__commit(r->of, NULL, 0);
		r->of = NULL;
		xlp_err("finishing %s failed: %s: the file reads as truncated", r->o.output,
			strerror(-err));
		return 1;
	}
	err = outfile__commit(r->of, msg, sizeof(msg));
	r->of = NULL;
	if (err) {
		xlp_err("%s", msg);
		return 1;
	}
	/* the one way scoped probes miss calls: say it when that may be why */
	if (r->o.cmd && !r->o.probe_forks && r->meta.nfuncs && !r->ncalls)
		xlp_warn("no marked call was recorded: if the command runs them in short-lived "
			 "processes it forks, they may have ended before xlprobe set their "
			 "uprobes: record with --probe-forks");
	if (!r->o.quiet)
		fprintf(stderr, "%sxlprobe: wrote %s: %llu runs, %llu calls, %llu dropped\n",
			isatty(STDERR_FILENO) ? "\r\033[K" : "", r->o.output,
			(unsigned long long)r->nruns, (unsigned long long)r->ncalls,
			(unsigned long long)recorder__drops(f.stat, r->lost));
	/* a warning, not a status: also under -q */
	loss_advice(r, &f);
	minidebug_advice();
	if (!r->o.quiet && r->sampler) {
		struct sampler_counts c;

		sampler__counts(r->sampler, &c);
		fprintf(stderr,
			"xlprobe: %llu stack samples, %llu without their user stack; %llu distinct "
			"stacks, %llu of %llu frames named (%llu callers of frameless functions "
			"recovered)\n",
			(unsigned long long)c.samples, (unsigned long long)c.stack_lost,
			(unsigned long long)c.stacks, (unsigned long long)c.frames_named,
			(unsigned long long)c.frames, (unsigned long long)c.recovered);
		jit_summary(&c.jit, c.jvm_maps, r->o.quiet);
		if (r->o.stack_copy && unwinder__has_cfi())
			fprintf(stderr,
				"xlprobe: user stacks unwound: %llu with CFI, %llu CFI then frame "
				"pointers, %llu frame pointers only (%llu whose stack copy was "
				"skipped, the ring buffer busy, or lost); %llu cut short by the "
				"%u-byte stack copy (--stack-copy); "
				"%llu copies of %.0f bytes on average; the recorder unwound each "
				"in %.1f us\n",
				(unsigned long long)c.unwound[XLP_UNWIND_CFI],
				(unsigned long long)c.unwound[XLP_UNWIND_MIXED],
				(unsigned long long)c.unwound[XLP_UNWIND_FP],
				(unsigned long long)c.copy_missing, (unsigned long long)c.copy_cut,
				r->o.stack_copy, (unsigned long long)c.copies,
				c.copies ? (double)c.copy_bytes / (double)c.copies : 0.0,
				c.unwinds ? (double)c.unwind_ns / (double)c.unwinds / 1e3 : 0.0);
		fprintf(stderr,
			"xlprobe: sampling took %.3f ms of the traced threads' %.3f ms of CPU "
			"(bound %.2f %%); longest period %.3f ms, off-CPU stacks at 1 switch in "
			"%u at least (%llu switches, %llu off-CPU samples, %llu user stacks "
			"taken as the thread returned to user space)%s\n",
			c.cost_ns / 1e6, c.cpu_ns / 1e6, r->o.sample_bound_ppm / 1e4,
			c.max_period / 1e6, c.max_every ? c.max_every : 1,
			(unsigned long long)c.off_captures, (unsigned long long)c.off_samples,
			(unsigned long long)c.off_deferred,
			c.over_windows ? " (the overhead bound could not be met in some windows; "
					 "see dump)"
				       : "");
		/* unbiased, but a slowdown made of one long wait per run then
		 * shows in about 1 run in k: say how to keep every one */
		if (c.max_every > 1)
			fprintf(stderr,
				"xlprobe: a wait that happens once per run is sampled in about 1 "
				"run "
				"in %u: raise --sample-overhead (now %.2f %%) to keep every "
				"switch-out's stacks\n",
				c.max_every, r->o.sample_bound_ppm / 1e4);
	}
	return r->launch_failed ? 1 : 0;
}
