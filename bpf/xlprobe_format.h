/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The base of bpf/xlprobe.h, the contract between the BPF programs and
 * user space: the format version and limits, the counter and statistic
 * lists, the record types and the header every record starts with. Its
 * own header so that the record groups in other headers
 * (bpf/xlprobe_stack.h) build on it without including each other.
 */
#ifndef XLPROBE_FORMAT_H
#define XLPROBE_FORMAT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define XLP_FORMAT_VERSION 2

#define XLP_MAX_FUNCS 512 /* marked functions per session */
#define XLP_MAX_DEPTH 16  /* shadow stack depth per thread: call records' depth < it */
#define XLP_COMM_LEN 16

/*
 * Per-thread cumulative counters. A function invocation record carries
 * deltas of all of them, so new ones are added at the end (before the
 * reserved ones) and old readers still find theirs. Time counters are ns.
 *
 * Invariants kept by bpf/sched.bpf.c (tested in tests/root):
 *   SLEEP_S + SLEEP_D == DISK + NET + IPC + LOCK + TIMER + OTHER
 * On a CPU is CPU_RUN + CPU_STEAL: steal is the part of it the hypervisor
 * ran something else on the virtual CPU (the kernel's paravirt steal
 * clock; 0 on bare metal). CPU_RUN excludes it, as the kernel's own
 * sum_exec_runtime does. CPU_STEAL took the first reserved slot: traces
 * of format 2 without it read as 0 (no steal measured).
 * QUEUED took the second (and last) reserved slot: the runqueue wait
 * between a thread's wakeup and the entry of the run it was woken for
 * (record's prewake, bpf/prewake.bpf.h), which that run's call and run
 * records also hold in their WALL and CPU_WAIT; a thread's or process's
 * total is the sum over its runs. Traces without it, or recorded with
 * --no-prewake, read as 0.
 * FREQ_KHZ_NS is sum(kHz of the CPU x ns run on it): the average frequency
 * over an interval is delta(FREQ_KHZ_NS) / delta(CPU_RUN) kHz. It wraps
 * after ~6000 s on-CPU at 3 GHz; deltas are taken modulo 2^64, so they
 * stay exact for any single invocation shorter than that.
 *
 * X(id, name): the enum is XLP_C_<id>; name is the one spelling every tool
 * shows and every JSON key uses (user/trace/trace_names.c); NULL for the reserved
 * slots, shown as ctrN.
 */
/* clang-format off */
#define XLP_CTR_LIST(X)								\
	X(WALL, "wall")		/* wall-clock ns (duration when taken as a delta) */ \
	X(CPU_RUN, "cpu_run")	/* on a CPU */					\
	X(CPU_WAIT, "cpu_wait")	/* runnable, waiting on a runqueue */		\
	X(SLEEP_S, "sleep_s")	/* interruptible sleep (TASK_INTERRUPTIBLE) */	\
	X(SLEEP_D, "sleep_d")	/* uninterruptible sleep (TASK_UNINTERRUPTIBLE) */ \
	X(DISK, "disk")		/* sleep reasons: they add up to SLEEP_S + SLEEP_D */ \
	X(NET, "net")								\
	X(IPC, "ipc")								\
	X(LOCK, "lock")								\
	X(TIMER, "timer")							\
	X(OTHER, "other")							\
	X(FREQ_KHZ_NS, "freq_khz_ns")						\
	X(NVCSW, "nvcsw")	/* voluntary switches, as /proc/PID/status counts them */ \
	X(NIVCSW, "nivcsw")	/* involuntary switches */			\
	X(MIGRATIONS, "migrations")						\
	X(DISK_RQ, "disk_rq")	/* block requests issued on behalf of the thread */ \
	X(DISK_BYTES, "disk_bytes")						\
	X(BINDER_TXN, "binder_txn") /* binder transactions sent */		\
	X(CPU_STEAL, "cpu_steal") /* on a CPU the hypervisor gave to another guest */ \
	X(QUEUED, "queued")	/* runqueue wait before a run's handler (prewake), in CPU_WAIT */
/* clang-format on */

#define XLP_CTR_ENUM(id, name) XLP_C_##id,
enum xlp_ctr { XLP_CTR_LIST(XLP_CTR_ENUM) XLP_NR_CTR };
#undef XLP_CTR_ENUM

/* Counters that hold time (ns); the others are counts or kHz*ns. */
#define XLP_CTR_IS_TIME(c) ((c) <= XLP_C_OTHER || (c) == XLP_C_CPU_STEAL || (c) == XLP_C_QUEUED)

/*
 * Per-CPU statistics the recorder writes into the trace footer (summed),
 * in this order. X(id, name) as for the counters.
 */
/* clang-format off */
#define XLP_STAT_LIST(X)							\
	X(RB_FULL, "rb_full")		  /* ring-buffer reservation failed: record lost */ \
	X(STACK_OVERFLOW, "stack_overflow") /* call deeper than XLP_MAX_DEPTH: not recorded */ \
	X(STACK_MISMATCH, "stack_mismatch") /* entry or return not seen */ \
	X(MIN_DUR, "min_dur")		  /* invocation shorter than --min-dur: filtered */ \
	X(THREADS_FULL, "threads_full")	  /* thread table full: thread not traced */ \
	X(PROCS_FULL, "procs_full")	  /* process slots exhausted */		\
	X(SCHED_EVENTS, "sched_events")	  /* scheduler events seen for traced threads */ \
	X(CALLS, "calls")		  /* invocations completed (recorded or filtered) */ \
	X(UNKNOWN_STATE, "unknown_state") /* switch-in of a thread whose prior state was unknown */ \
	X(UNFINISHED, "unfinished")	  /* calls still open when their thread exited */ \
	X(SCHED_MISSED, "sched_missed")	  /* scheduler events the programs did not see: recovered */ \
	/* launches whose exec or exit the kernel did not time (counted by the \
	 * recorder, not BPF): their start or end is xlprobe's own, less exact */ \
	X(LAUNCH_UNTIMED, "launch_untimed")
/* clang-format on */

#define XLP_STAT_ENUM(id, name) XLP_S_##id,
enum xlp_stat { XLP_STAT_LIST(XLP_STAT_ENUM) XLP_NR_STAT };
#undef XLP_STAT_ENUM

/* Record types: ring buffer and trace file share them. */
enum xlp_rec_type {
	XLP_R_CALL = 1,	  /* struct xlp_call_rec */
	XLP_R_RUN = 2,	  /* struct xlp_run_rec: process-wide deltas of one run */
	XLP_R_THREAD = 3, /* struct xlp_thread_rec: a thread's totals */
	XLP_R_PROC = 4,	  /* struct xlp_proc_rec: a process's totals */
	XLP_R_LAUNCH = 5, /* struct xlp_launch_rec: one --repeat launch */
	XLP_R_STATS = 6,  /* struct xlp_stats_rec: drop counters so far */
	/* struct xlp_call_compact_rec: a call, its counters that moved (format 2) */
	XLP_R_CALL_COMPACT = 7,
	/* struct xlp_fork_rec: a process the traced ones forked (readers that
	 * predate it skip it and lose only what it says) */
	XLP_R_FORK = 8,
	/* record --sample (readers that predate them skip them): */
	XLP_R_SAMPLE = 9,    /* struct xlp_sample_rec: a stack sample of a traced thread */
	XLP_R_STACK = 10,    /* struct xlp_stack_rec: a stack's frames, before its samples */
	XLP_R_SYM = 11,	     /* struct xlp_sym_rec: a frame's name, before its stacks */
	XLP_R_SAMPLING = 12, /* struct xlp_sampling_rec: the sampler's cost and period */
	/* record --timeline (readers that predate them skip them): */
	XLP_R_SCHED = 13,  /* struct xlp_sched_rec: one scheduling event */
	XLP_R_TASK = 14,   /* struct xlp_task_rec: a waker's name, before its first wakeup */
	XLP_R_TASKEV = 15, /* struct xlp_taskev_rec: an async task posted or started */
	/* struct xlp_size_rec: a workload size (record --size, --sizes; the
	 * recorder's, readers that predate it skip it) */
	XLP_R_SIZE = 16,
	/* struct xlp_lag_rec: what record --lag wrote and left out (the
	 * recorder's, readers that predate it skip it) */
	XLP_R_LAG = 17,
	/* struct xlp_thief_rec: who held the CPU while a traced thread waited
	 * for it (readers that predate it skip it) */
	XLP_R_THIEF = 18,
	/* struct xlp_marker_rec: the trace-marker lines seen and skipped
	 * (the recorder's, at the end; readers that predate it skip it) */
	XLP_R_MARKER = 19,
	/* struct xlp_cpusched_rec: a scheduling event of any task on a CPU a
	 * traced thread ran on (record --timeline; readers that predate it
	 * skip it) */
	XLP_R_CPUSCHED = 20,
	/* ring buffer only, never in a trace (a high number, clear of the trace's): */
	XLP_R_UCOPY = 64, /* struct xlp_ucopy_rec: a user stack's registers and top bytes */
};

struct xlp_hdr {
	__u16 type; /* enum xlp_rec_type */
	__u16 size; /* whole record, header included */
	__u32 cpu;
};

#ifndef __cplusplus
_Static_assert((XLP_MAX_DEPTH & (XLP_MAX_DEPTH - 1)) == 0,
	       "bpf/calls.bpf.c masks depths: a power of two");
_Static_assert(sizeof(struct xlp_hdr) == 8, "xlp_hdr layout");
#endif

#endif /* XLPROBE_FORMAT_H */
