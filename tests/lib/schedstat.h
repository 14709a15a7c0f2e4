/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recorder's per-thread totals against the kernel's own accounting
 * (/proc/PID/task/TID/schedstat and status), on the host (tests/root) and
 * on the guest kernels (tests/guest): one check, two machines.
 */
#ifndef XLP_SCHEDSTAT_H
#define XLP_SCHEDSTAT_H

#include <stdbool.h>

struct xt_schedstat_run {
	const char *workload; /* sched_mix, relative to .output (xt_out) */
	int ready_ms;	      /* how long it may take to say READY */
	int exit_ms;	      /* how long xlprobe may take to write the trace */
	int settle_us;	      /* after READY, before the counts are read */
	bool show;	      /* print the counts and the scheduler stats */
};

/*
 * Records sched_mix for 2 s and checks every thread's on-CPU and runqueue
 * time (within 2 %, or 1 ms) and switch counts against the kernel's. With
 * old_switch, through xlprobe-test and XLPROBE_TEST_OLD_SWITCH: the
 * sched_switch program of kernels before 5.18, forced.
 */
void xt_schedstat_agreement(const struct xt_schedstat_run *o, bool old_switch);

#endif
