/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Input of bpf/selftest.bpf.c, the SEC("syscall") program the tests run
 * with bpf_prog_test_run_opts to feed the accounting synthetic events.
 * Test-only: it is built into .output/xlprobe_test.skel.h, never into the
 * product.
 */
#ifndef XLP_SELFTEST_H
#define XLP_SELFTEST_H

#include "state.h"

enum xlp_selftest_op {
	XLP_ST_FREQ_SET = 1,  /* cpu, khz at now */
	XLP_ST_FREQ_INTEGRAL, /* cpu at now -> out */
	XLP_ST_SWITCH_OUT,    /* tid running -> sleeping (state arg) at now; arg3: the
			       * kernel's on-CPU figure of the slice + 1, 0: by the clock */
	XLP_ST_SWITCH_IN,     /* tid -> running on cpu at now */
	XLP_ST_WAKE,	      /* tid woken at now, waker kind arg, waker pid arg2 */
	XLP_ST_SYS_ENTER,     /* tid is in syscall arg (class arg2) at its next block */
	XLP_ST_SYS_EXIT,      /* tid has left its syscall */
	XLP_ST_BINDER_TXN,    /* tid sends a transaction: reply arg, flags arg2, to pid arg3 */
	XLP_ST_BINDER_RECV,   /* tid receives a transaction */
	XLP_ST_BINDER_RETURN, /* tid's binder read returns command arg (BR_*) */
	XLP_ST_STEAL_SET,     /* cpu's steal clock is arg ns */
	XLP_ST_SNAPSHOT,      /* a uprobe's snapshot of tid at now -> out cpu_run, out2 cpu_steal */
	XLP_ST_UPROBE_SYNC,   /* tid's own uprobe at now (its missed events recovered): the
			       * kernel's on-CPU ns since the last switch seen arg, its
			       * runqueue ns arg2, on-CPU since its switch-in arg3 */
};

struct xlp_selftest {
	__u32 op;
	__u32 tid;
	__u32 cpu;
	__u32 __pad;
	__u64 now;
	__s64 arg;
	__u64 arg2;
	__u64 arg3;
	__u64 out;
	__u64 out2;
};

#endif
