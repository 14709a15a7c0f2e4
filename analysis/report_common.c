/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Formatting shared by the text, JSON and HTML reports. */
#include <math.h>
#include <stdio.h>
#include "report.h"
#include "util.h"

const char *report__dur(double ns, char *buf, size_t len)
{
	if (isnan(ns))
		snprintf(buf, len, "n/a");
	else
		xlp_fmt_ns(ns < 0 ? 0 : (uint64_t)llround(ns), buf, len);
	return buf;
}

const char *report__value(enum xa_feat f, double v, char *buf, size_t len)
{
	if (f != XA_CPU_FREQ)
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
	const struct ds_drops *d = dataset__drops(ds);
	const struct report_drop all[] = {
		{"rb_full", "records lost: ring buffer full", d->stat[XLP_S_RB_FULL]},
		{"stack_overflow", "calls deeper than the shadow stack, not recorded",
		 d->stat[XLP_S_STACK_OVERFLOW]},
		{"stack_mismatch", "returns without a matching entry",
		 d->stat[XLP_S_STACK_MISMATCH]},
		{"threads_full", "threads not traced: thread table full",
		 d->stat[XLP_S_THREADS_FULL]},
		{"procs_full", "processes not traced: process table full",
		 d->stat[XLP_S_PROCS_FULL]},
		{"unfinished", "calls still open when their thread exited",
		 d->stat[XLP_S_UNFINISHED]},
		{"sched_missed",
		 "scheduler events the kernel did not deliver (times recovered from its counters)",
		 d->stat[XLP_S_SCHED_MISSED]},
		{"launch_untimed",
		 "launches timed by xlprobe, not the kernel (exec or exit event missing): their "
		 "latency is less exact",
		 d->stat[XLP_S_LAUNCH_UNTIMED]},
		{"lost_by_reader", "records the recorder could not store", d->lost_by_reader},
		{"bad_chunks", "damaged chunks skipped while reading", d->bad_chunks},
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i].count && n < max)
			out[n++] = all[i];
	return n;
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

const char *report__rule(const struct xa_result *r, char *buf, size_t len)
{
	return labels__describe(&r->rule, buf, len);
}
