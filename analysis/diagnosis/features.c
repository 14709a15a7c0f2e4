/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Resource features of PerfProbe Table I, from xlprobe's counters. */
#include <math.h>
#include "analysis_impl.h"

/* The report's factor names (JSON keys); xa_feat_ctr_name() gives the counter's. */
static const char *const names[XA_NFEAT] = {
	[XA_CPU_RUN] = "cpu_run",   [XA_CPU_WAIT] = "cpu_wait", [XA_CPU_FREQ] = "cpu_freq",
	[XA_SLEEP_S] = "sleep_s",   [XA_SLEEP_D] = "sleep_d",	[XA_DISK] = "disk_block",
	[XA_NET] = "net_block",	    [XA_IPC] = "ipc_wait",	[XA_LOCK] = "lock_wait",
	[XA_TIMER] = "timer_sleep", [XA_OTHER] = "other_sleep", [XA_CPU_STEAL] = "cpu_steal",
};

static const enum xlp_ctr ctr_of[XA_NFEAT] = {
	[XA_CPU_RUN] = XLP_C_CPU_RUN,  [XA_CPU_WAIT] = XLP_C_CPU_WAIT,
	[XA_CPU_FREQ] = XLP_C_CPU_RUN, [XA_SLEEP_S] = XLP_C_SLEEP_S,
	[XA_SLEEP_D] = XLP_C_SLEEP_D,  [XA_DISK] = XLP_C_DISK,
	[XA_NET] = XLP_C_NET,	       [XA_IPC] = XLP_C_IPC,
	[XA_LOCK] = XLP_C_LOCK,	       [XA_TIMER] = XLP_C_TIMER,
	[XA_OTHER] = XLP_C_OTHER,      [XA_CPU_STEAL] = XLP_C_CPU_STEAL,
};

const char *xa_feat_name(enum xa_feat f)
{
	return f < XA_NFEAT ? names[f] : "?";
}

const char *xa_feat_ctr_name(enum xa_feat f)
{
	if (f >= XA_NFEAT)
		return "?";
	return f == XA_CPU_FREQ ? "cpu_freq" : xlp_ctr_names[ctr_of[f]];
}

bool xa_feat_is_time(enum xa_feat f)
{
	return f != XA_CPU_FREQ;
}

void xa_ctr_features(const uint64_t *ctr, double *out)
{
	for (int f = 0; f < XA_NFEAT; f++)
		out[f] = (double)ctr[ctr_of[f]];
	/* average frequency = delta(FREQ_KHZ_NS) / delta(CPU_RUN) (bpf/xlprobe.h) */
	out[XA_CPU_FREQ] = ctr[XLP_C_CPU_RUN]
				   ? (double)ctr[XLP_C_FREQ_KHZ_NS] / (double)ctr[XLP_C_CPU_RUN]
				   : NAN;
}

void xa_feature_sets(uint32_t features, bool *avail, bool *used)
{
	bool reasons = features & XLP_FEAT_SYSCALLS;

	for (int f = 0; f < XA_NFEAT; f++) {
		avail[f] = true;
		used[f] = true;
	}
	avail[XA_CPU_FREQ] = used[XA_CPU_FREQ] = features & XLP_FEAT_CPUFREQ;
	used[XA_SLEEP_S] = used[XA_SLEEP_D] = !reasons;
	for (int f = XA_DISK; f <= XA_OTHER; f++)
		used[f] = reasons;
}
