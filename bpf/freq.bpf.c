/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CPU frequency changes. raw_tp rather than tp_btf: a raw_tp program with
 * scalar arguments can be run by bpf_prog_test_run_opts, so the tests feed
 * it synthetic changes on machines without a cpufreq driver.
 */
#include "xlprobe.bpf.h"

SEC("raw_tp/cpu_frequency")
int BPF_PROG(xlp_cpu_frequency, unsigned int state, unsigned int cpu_id)
{
	__u64 now = bpf_ktime_get_ns();

	freq_set(cpu_id, state, now);
	tl_emit(XLP_SCHED_FREQ, cpu_id, 0, state, 0, now);
	return 0;
}
