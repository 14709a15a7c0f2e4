/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Resource features of PerfProbe Table I, from xlprobe's counters. */
#include <math.h>
#include "diagnosis_impl.h"

/* The report's factor names (JSON keys); diagnosis__feat_ctr_name() gives the counter's. */
static const char *const names[DIAGNOSIS_NFEAT] = {
	[DIAGNOSIS_CPU_RUN] = "cpu_run",   [DIAGNOSIS_CPU_WAIT] = "cpu_wait",
	[DIAGNOSIS_CPU_FREQ] = "cpu_freq", [DIAGNOSIS_SLEEP_S] = "sleep_s",
	[DIAGNOSIS_SLEEP_D] = "sleep_d",   [DIAGNOSIS_DISK] = "disk_block",
	[DIAGNOSIS_NET] = "net_block",	   [DIAGNOSIS_IPC] = "ipc_wait",
	[DIAGNOSIS_LOCK] = "lock_wait",	   [DIAGNOSIS_TIMER] = "timer_sleep",
	[DIAGNOSIS_OTHER] = "other_sleep", [DIAGNOSIS_CPU_STEAL] = "cpu_steal",
};

static const enum xlp_ctr ctr_of[DIAGNOSIS_NFEAT] = {
	[DIAGNOSIS_CPU_RUN] = XLP_C_CPU_RUN,  [DIAGNOSIS_CPU_WAIT] = XLP_C_CPU_WAIT,
	[DIAGNOSIS_CPU_FREQ] = XLP_C_CPU_RUN, [DIAGNOSIS_SLEEP_S] = XLP_C_SLEEP_S,
	[DIAGNOSIS_SLEEP_D] = XLP_C_SLEEP_D,  [DIAGNOSIS_DISK] = XLP_C_DISK,
	[DIAGNOSIS_NET] = XLP_C_NET,	      [DIAGNOSIS_IPC] = XLP_C_IPC,
	[DIAGNOSIS_LOCK] = XLP_C_LOCK,	      [DIAGNOSIS_TIMER] = XLP_C_TIMER,
	[DIAGNOSIS_OTHER] = XLP_C_OTHER,      [DIAGNOSIS_CPU_STEAL] = XLP_C_CPU_STEAL,
};

const char *diagnosis__feat_name(enum diagnosis_feat f)
{
	return f < DIAGNOSIS_NFEAT ? names[f] : "?";
}

const char *diagnosis__feat_ctr_name(enum diagnosis_feat f)
{
	if (f >= DIAGNOSIS_NFEAT)
		return "?";
	return f == DIAGNOSIS_CPU_FREQ ? "cpu_freq" : xlp_ctr_names[ctr_of[f]];
}

bool diagnosis__feat_is_time(enum diagnosis_feat f)
{
	return f != DIAGNOSIS_CPU_FREQ;
}

void diagnosis__ctr_features(const uint64_t *ctr, double *out)
{
	for (int f = 0; f < DIAGNOSIS_NFEAT; f++)
		out[f] = (double)ctr[ctr_of[f]];
	/* average frequency = delta(FREQ_KHZ_NS) / delta(CPU_RUN) (bpf/xlprobe.h) */
	out[DIAGNOSIS_CPU_FREQ] =
		ctr[XLP_C_CPU_RUN] ? (double)ctr[XLP_C_FREQ_KHZ_NS] / (double)ctr[XLP_C_CPU_RUN]
				   : NAN;
}

void diagnosis__feature_sets(uint32_t features, bool *avail, bool *used)
{
	bool reasons = features & XLP_FEAT_SYSCALLS;

	for (int f = 0; f < DIAGNOSIS_NFEAT; f++) {
		avail[f] = true;
		used[f] = true;
	}
	avail[DIAGNOSIS_CPU_FREQ] = used[DIAGNOSIS_CPU_FREQ] = features & XLP_FEAT_CPUFREQ;
	used[DIAGNOSIS_SLEEP_S] = used[DIAGNOSIS_SLEEP_D] = !reasons;
	for (int f = DIAGNOSIS_DISK; f <= DIAGNOSIS_OTHER; f++)
		used[f] = reasons;
}
