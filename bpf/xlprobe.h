/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one contract between the BPF programs and user space: the records
 * (they go from the ring buffer to the trace file unchanged), the counter
 * and statistic lists, and the few map values and program inputs user
 * space exchanges with the programs. Every field is fixed-width, padding is
 * explicit and sizes are asserted, so a trace written on one machine reads
 * on another. XLP_FORMAT_VERSION covers the structs that reach a file;
 * bump it whenever one of their layouts changes.
 *
 * State only the BPF programs keep is in bpf/state.h; the self-test's
 * inputs are in bpf/selftest.h.
 */
#ifndef XLPROBE_H
#define XLPROBE_H

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

/* struct xlp_call_rec.flags */
#define XLP_CALL_INTERACTION (1u << 0) /* the function marks the runs */
#define XLP_CALL_IPC_PEER (1u << 1)    /* ipc_peer_* filled in */
/*
 * Set by the recorder (record --lag), never by the programs: the call that
 * ended a run that did not lag and was not kept as a sample of the others.
 * The call and its counters are the run's; what ran inside it (nested
 * calls, stack samples, scheduling events, task events, its xlp_run_rec)
 * was left out on purpose, counted in struct xlp_lag_rec.
 */
#define XLP_CALL_SUMMARY (1u << 2)
/*
 * A trace-marker async section (S to F, bpf/marker.bpf.c): it may span
 * threads, so its counters are its process's, all threads, over the
 * section; tid is the thread that began it, depth 0, excl == incl.
 */
#define XLP_CALL_ASYNC (1u << 3)

/* One completed invocation of a marked function. */
struct xlp_call_rec {
	struct xlp_hdr h;
	__u32 func_id;
	__u32 pid; /* tgid */
	__u32 tid;
	__u16 depth; /* 0 = outermost marked call on this thread */
	__u16 flags;
	__u64 entry_ns;		/* CLOCK_MONOTONIC (bpf_ktime_get_ns) */
	__u64 incl[XLP_NR_CTR]; /* incl[XLP_C_WALL] is the duration */
	__u64 excl[XLP_NR_CTR]; /* minus nested marked calls, filtered ones too */
	__u32 ipc_peer_pid;	/* process that woke us last for an IPC wait */
	__u32 __pad;
	char ipc_peer_comm[XLP_COMM_LEN];
};

/*
 * One completed invocation of a marked function, as the BPF side writes it:
 * only the counters that moved. A call that did not block moves a few of
 * them at most (bpf/calls.bpf.c, XLP_FAST_CTR_LIST: 48 bytes for one that
 * ran uninterrupted), one that slept a handful more: against 376 bytes for
 * struct xlp_call_rec, which the reader expands every compact record into
 * (user/trace/trace_reader.c), so that nothing after it tells the two apart.
 * Every byte counts twice: the ring buffer copies it and the recorder
 * compresses it (~5 ns a byte here).
 *
 * mask bit c (enum xlp_ctr): incl[c] is stored, else it is 0 (but see
 * XLP_COMPACT_RUN_IS_WALL); bit XLP_NR_CTR + c: excl[c] is stored, else it
 * equals incl[c] (no nested marked call moved counter c). The values follow
 * the fixed part in bit order, 8 bytes each; then, when flags has
 * XLP_CALL_IPC_PEER, struct xlp_ipc_peer. h.size adds them up.
 */
#define XLP_COMPACT_VALUE_BITS (2 * XLP_NR_CTR)
/* mask bit: incl cpu_run equals incl wall, not stored (a call that never
 * left its CPU: both are the time between the probes) */
#define XLP_COMPACT_RUN_IS_WALL (1ull << XLP_COMPACT_VALUE_BITS)

struct xlp_call_compact_rec {
	struct xlp_hdr h;
	__u32 func_id;
	__u32 pid; /* tgid */
	__u32 tid;
	__u16 depth;
	__u16 flags; /* XLP_CALL_* */
	__u64 entry_ns;
	__u64 mask;
	__u64 val[]; /* at most XLP_COMPACT_VALUE_BITS */
};

/* The IPC peer after a compact call record's values (XLP_CALL_IPC_PEER). */
struct xlp_ipc_peer {
	__u32 pid;
	__u32 __pad;
	char comm[XLP_COMM_LEN];
};

#define XLP_COMPACT_MAX                                                                            \
	(sizeof(struct xlp_call_compact_rec) + 8 * XLP_COMPACT_VALUE_BITS +                        \
	 sizeof(struct xlp_ipc_peer))

/*
 * Process-wide counter deltas over one interaction invocation (all threads
 * of the process, for the whole-run baseline of PerfProbe section V-D).
 */
struct xlp_run_rec {
	struct xlp_hdr h;
	__u32 func_id;
	__u32 pid;
	__u32 tid;
	__u32 __pad;
	__u64 entry_ns;
	__u64 proc[XLP_NR_CTR];
};

/* struct xlp_thread_rec.flags */
#define XLP_THREAD_EXITED (1u << 0)  /* emitted by BPF at exit */
#define XLP_THREAD_AT_STOP (1u << 1) /* still alive when recording stopped */
#define XLP_THREAD_PARTIAL (1u << 2) /* existed before attach: state unknown at first */

struct xlp_thread_rec {
	struct xlp_hdr h;
	__u32 pid;
	__u32 tid;
	__u32 flags;
	__u32 __pad;
	__u64 first_ns; /* first event seen (or creation) */
	__u64 last_ns;
	char comm[XLP_COMM_LEN];
	__u64 tot[XLP_NR_CTR];
};

struct xlp_proc_rec {
	struct xlp_hdr h;
	__u32 pid;
	__u32 flags; /* XLP_THREAD_EXITED / XLP_THREAD_AT_STOP */
	__u64 first_ns;
	__u64 last_ns;
	char comm[XLP_COMM_LEN];
	__u64 tot[XLP_NR_CTR];
};

/*
 * struct xlp_launch_rec.flags: which end the kernel timed. A clear bit
 * means the recorder's clock stood in (event missing), as in every launch
 * recorded before these flags existed (the field was padding, always 0).
 */
#define XLP_LAUNCH_EXEC_TIME (1u << 0) /* start_ns: sched_process_exec */
#define XLP_LAUNCH_EXIT_TIME (1u << 1) /* end_ns: exit of its last thread */

/* One launch of the command (record --repeat N): one run. */
struct xlp_launch_rec {
	struct xlp_hdr h;
	__u32 run; /* 0-based launch index */
	__u32 pid;
	__s32 exit_code; /* wait status decoded: >= 0 exit code, < 0 -signal */
	__u32 flags;	 /* XLP_LAUNCH_* */
	/* CLOCK_MONOTONIC. From the kernel: the command's first exec and the
	 * exit of its last thread (bpf/sched.bpf.c). Without the flag: when
	 * xlprobe released it / when it noticed the exit. */
	__u64 start_ns;
	__u64 end_ns;
};

/*
 * struct xlp_fork_rec.flags. Without XLP_FORK_PROBED (and without
 * XLP_FORK_PROBED_ALREADY) none of the process's marked calls is in the
 * trace; with it, those that began before probed_ns are not.
 */
#define XLP_FORK_PROBED (1u << 0)	  /* its own uprobes were set at probed_ns */
#define XLP_FORK_PROBED_ALREADY (1u << 1) /* --probe-forks: probed since fork */
#define XLP_FORK_GONE (1u << 2)		  /* exited before its uprobes could be set */
#define XLP_FORK_PROBE_FAILED (1u << 3)	  /* setting them failed otherwise */

/*
 * A process forked by a traced one: followed from its fork on by the
 * scheduler accounting (the kernel's fork tracepoint), and by the marked
 * functions' uprobes from probed_ns, once the recorder has set them in it
 * (pid-scoped uprobes cannot follow a fork by themselves).
 */
struct xlp_fork_rec {
	struct xlp_hdr h;
	__u32 pid;	 /* the new process (tgid) */
	__u32 ppid;	 /* the traced process that forked it */
	__u64 fork_ns;	 /* CLOCK_MONOTONIC: sched_process_fork */
	__u64 probed_ns; /* set by the recorder; 0 unless XLP_FORK_PROBED */
	__u32 flags;	 /* XLP_FORK_*, set by the recorder */
	__u32 __pad;
};

/*
 * ustack_err of an off-CPU sample whose user side was deferred to the
 * thread's return to user space (cfg_offcpu_lazy) and could not be taken
 * then: Linux errno values (BPF has no <errno.h>; user space checks them).
 */
#define XLP_ERR_SRCH                                                                               \
	3		  /* ESRCH: the thread exited, recording stopped, or it left the           \
			     CPU again from another user context first */
#define XLP_ERR_NOSPC 28  /* ENOSPC: more waits crossed a tick than XLP_OFF_PEND before it */
#define XLP_ERR_STALE 116 /* ESTALE: its user registers moved before the return */

/*
 * Stack sampling (record --sample, bpf/sample.bpf.c). The programs send a
 * sample with the kernel's stack-map ids; the recorder names the frames at
 * once (user/symbols/symbolize.h) and writes, before the first sample that needs
 * them, one xlp_sym_rec per distinct name and one xlp_stack_rec per
 * distinct stack, and in the sample the trace's stack ids instead.
 */
#define XLP_STACK_DEPTH 64 /* frames kept per stack (user and kernel each) */

enum xlp_sample_kind {
	XLP_SAMPLE_ON_CPU = 0, /* a timer tick (cpu-clock) found the thread on a CPU */
	/*
	 * Time off the CPU: a wait (runqueue or sleep, its reason in
	 * xlp_sample_rec.reason) that crossed weight_ns / period ticks of a
	 * virtual clock with the sampling period, charged as it ended with
	 * the stacks the thread had when it left the CPU. Off-CPU time is so
	 * sampled on the same grid as on-CPU time: a wait of d ns stands for
	 * d ns on average, and no more records come than ticks.
	 */
	XLP_SAMPLE_OFF_CPU = 1,
};

struct xlp_sample_rec {
	struct xlp_hdr h;
	__u32 pid; /* tgid */
	__u32 tid;
	__u64 time_ns;	 /* CLOCK_MONOTONIC */
	__u64 weight_ns; /* the time it stands for: the sampling period */
	/* In the trace, a stack id + 1 (0: no stack); from the programs, the
	 * kernel's stack-map id + 1. */
	__u32 ustack;
	__u32 kstack;
	/* 0, or why there is no stack: the negative errno of bpf_get_stackid
	 * (-EFAULT: no user stack, a kernel thread; -EEXIST: its hash bucket
	 * held another stack; -ENOMEM), or of reading it back, or for an
	 * off-CPU user stack to be taken late, why it was not (XLP_ERR_*) */
	__s32 ustack_err;
	__s32 kstack_err;
	__u32 kind;   /* enum xlp_sample_kind */
	__u32 reason; /* off-CPU: enum xlp_ctr of the wait (CPU_WAIT, DISK .. OTHER); on-CPU:
			 CPU_RUN */
};

/*
 * A sample as the programs send it (ring buffer only, h.size = 64): with
 * the return address a frame-pointer walk skipped (leaf_caller in
 * bpf/xlprobe.bpf.h), or 0. The recorder puts it into the user stack it
 * writes (XLP_FRAME_RECOVERED) and writes the xlp_sample_rec alone.
 */
struct xlp_sample_ev {
	struct xlp_sample_rec r;
	__u64 ucaller;
	__u64 useq; /* the xlp_ucopy_rec of its user stack (its seq), or 0 */
};

/*
 * The user stack as a sample found it, for unwinding with the binaries'
 * own CFI (.eh_frame, .debug_frame) at record time (user/symbols/stack_unwind.h): the
 * thread's user registers (those the kernel saved at its entry, x86-64
 * struct pt_regs order) and the stack's top len bytes from regs' sp. Ring
 * buffer only: sent just before its on-CPU sample, or at the switch-out
 * whose off-CPU sample (at the wait's end) names it by seq. A thread's
 * copies and samples arrive in order, so the recorder keeps its last one.
 */
#define XLP_UCOPY_MAX 16384 /* bytes: the copy size the recorder may choose */
#define XLP_UCOPY_NREGS 21  /* x86-64 struct pt_regs */
enum xlp_ucopy_reg {	    /* indices into xlp_ucopy_rec.regs */
		     XLP_UREG_R15 = 0,
		     XLP_UREG_R14,
		     XLP_UREG_R13,
		     XLP_UREG_R12,
		     XLP_UREG_BP,
		     XLP_UREG_BX,
		     XLP_UREG_R11,
		     XLP_UREG_R10,
		     XLP_UREG_R9,
		     XLP_UREG_R8,
		     XLP_UREG_AX,
		     XLP_UREG_CX,
		     XLP_UREG_DX,
		     XLP_UREG_SI,
		     XLP_UREG_DI,
		     XLP_UREG_ORIG_AX,
		     XLP_UREG_IP,
		     XLP_UREG_CS,
		     XLP_UREG_FLAGS,
		     XLP_UREG_SP,
		     XLP_UREG_SS,
};

/* xlp_sample_ev.useq when no copy was sent because the ring buffer was a
 * quarter full: the copies, the largest records, must not crowd out the
 * others (seqs of copies are at least 4096) */
#define XLP_UCOPY_SKIPPED 1

/* struct xlp_ucopy_rec.flags */
/* the copy stopped at the size asked (the stack may go on above it); else
 * at the first unreadable page: the stack's end, or a page not in memory */
#define XLP_UCOPY_CUT (1u << 0)

/*
 * A marked call's pending uretprobe: the return address it took (ret, put
 * back into the copy) and the function's entry (func). A function entered
 * by a tail call has no frame of its own, but its uretprobe is pending:
 * the unwinder puts it back between its caller and the code it jumped to.
 */
#define XLP_UCOPY_URET_MAX 8
struct xlp_ucopy_uret {
	__u64 ret;
	__u64 func;
};

struct xlp_ucopy_rec {
	struct xlp_hdr h; /* h.size: the header and len bytes */
	__u32 pid;
	__u32 tid;
	__u64 seq; /* != 0; unique in the recording */
	__u64 regs[XLP_UCOPY_NREGS];
	__u32 len;   /* bytes of the stack copied, from regs[XLP_UREG_SP] up */
	__u32 flags; /* XLP_UCOPY_* */
	__u32 nuret; /* uret[] entries, newest first */
	__u32 __pad;
	struct xlp_ucopy_uret uret[XLP_UCOPY_URET_MAX];
	/* then len bytes */
};

/*
 * The sampler's measured cost over one window of the recording and the
 * period it chose for the next (PerfProbe, section III-B): written by the
 * recorder at every change of period and at the end, so a reader knows
 * what every sample stood for and what sampling cost the traced threads.
 */
struct xlp_sampling_rec {
	struct xlp_hdr h;
	__u64 start_ns, end_ns; /* the window, CLOCK_MONOTONIC */
	__u64 period_ns;	/* the period during the window */
	__u64 next_period_ns;	/* the period chosen for what follows */
	__u64 cost_ns;		/* time the sampling programs took on traced threads */
	__u64 on_samples;	/* on-CPU samples taken */
	__u64 off_captures;	/* stacks taken as traced threads left a CPU */
	__u64 off_samples;	/* off-CPU samples sent */
	__u64 cpu_ns;		/* the traced threads' CPU time the bound is a share of */
	__u32 bound_ppm;	/* the overhead bound T, parts per million */
	__u32 flags;		/* XLP_SAMPLING_* */
	__u32 off_every;	/* a switch-out's stacks were taken with chance 1 / this */
	__u32 next_off_every;	/* and will be */
};

/* struct xlp_sampling_rec.flags */
#define XLP_SAMPLING_LAST (1u << 0) /* the recording's last window */
/* the bound could not be met: the off-CPU stacks cost more at the lowest rate */
#define XLP_SAMPLING_OVER (1u << 1)

/*
 * record --timeline: the raw scheduling events of the traced threads, and
 * of the threads that woke them from their first such wakeup on, 32
 * bytes each (a timeline is for minutes at most; the per-call and
 * per-thread totals never need it). The thread states between them are
 * those of the accounting (bpf/sched.bpf.c): running from a switch-in,
 * runnable from a preempting switch-out or a wakeup, asleep from a
 * sleeping switch-out until its wakeup, which says why it slept.
 */
enum xlp_sched_kind {
	XLP_SCHED_OUT = 1,	   /* tid left CPU h.cpu; detail: enum xlp_tstate it is in */
	XLP_SCHED_IN = 2,	   /* tid got CPU h.cpu */
	XLP_SCHED_WAKEUP = 3,	   /* tid woken: arg the waker's tid (0: interrupt or unknown),
				    * detail the sleep's reason (enum xlp_ctr; 0: unknown, the
				    * wakeup of an untraced waker) */
	XLP_SCHED_BLOCK_ISSUE = 4, /* a block request of tid's went to the device: arg bytes */
	XLP_SCHED_BLOCK_DONE = 5,  /* and completed: arg bytes */
	XLP_SCHED_FREQ = 6,	   /* CPU pid (tid 0) runs at arg kHz */
	XLP_SCHED_KIND_MAX = XLP_SCHED_FREQ,
};

/* xlp_sched_rec.detail of XLP_SCHED_OUT (bpf/state.h's enum xlp_tstate) */
enum xlp_sched_state {
	XLP_SCHED_RUNNABLE = 2, /* preempted: still on a runqueue */
	XLP_SCHED_SLEEP_S = 3,	/* interruptible sleep */
	XLP_SCHED_SLEEP_D = 4,	/* uninterruptible sleep */
};

struct xlp_sched_rec {
	struct xlp_hdr h;
	__u64 time_ns; /* CLOCK_MONOTONIC */
	__u32 pid;     /* tgid of tid (XLP_SCHED_FREQ: the CPU) */
	__u32 tid;
	__u32 arg;
	__u16 kind;   /* enum xlp_sched_kind */
	__u16 detail; /* see the kinds */
};

/*
 * A thread outside the traced ones that woke one (a peer process, a
 * kworker): its name, sent before the first wakeup naming it, so that a
 * timeline can show who woke whom.
 */
struct xlp_task_rec {
	struct xlp_hdr h;
	__u32 pid;
	__u32 tid;
	char comm[XLP_COMM_LEN];
};

/*
 * record --task-post / --task-run (PersisDroid's asynchronous tasks): a
 * marked function that hands a task off, or starts running one, with the
 * task's identity, the value of one of its arguments (a pointer). Sent at
 * the call's entry; entry_ns equals its call record's.
 */
enum xlp_taskev_kind {
	XLP_TASKEV_POST = 1,
	XLP_TASKEV_RUN = 2,
	/* record --interaction BEGIN --until END --key argN: a run that spans
	 * threads, from BEGIN's call to END's with the same key */
	XLP_TASKEV_BEGIN = 3,
	XLP_TASKEV_END = 4,
	/* record --size-arg N: the interaction's argument N at the entry of a
	 * call that starts a run, the run's workload size; entry_ns is the
	 * handler's entry (the call record's entry_ns + queued) */
	XLP_TASKEV_SIZE = 5,
};

struct xlp_taskev_rec {
	struct xlp_hdr h;
	__u32 pid;
	__u32 tid;
	__u64 entry_ns;
	__u64 key;     /* the argument's value */
	__u32 func_id; /* the marked function */
	__u16 kind;    /* enum xlp_taskev_kind */
	__u16 arg;     /* which argument: 0 the first */
};

/*
 * The workload size runs were given, as the recorder was told it (struct
 * xlp_size_rec.flags says which runs): record --size N labels the whole
 * recording, --sizes one launch each, written before the launch is
 * released. Per-call sizes (--size-arg) come from the programs, as
 * XLP_TASKEV_SIZE events.
 */
#define XLP_SIZE_RECORDING (1u << 0) /* every run of the recording */
#define XLP_SIZE_LAUNCH (1u << 1)    /* the runs of launch pid (and of what it forks) */

struct xlp_size_rec {
	struct xlp_hdr h;
	__u32 pid;     /* XLP_SIZE_LAUNCH: the launch's pid; else 0 */
	__u32 tid;     /* 0: any thread of pid */
	__u64 time_ns; /* CLOCK_MONOTONIC: when it was written */
	__u64 size;    /* > 0 */
	__u32 flags;   /* XLP_SIZE_* */
	__u32 run;     /* XLP_SIZE_LAUNCH: the launch's index (xlp_launch_rec.run) */
};

/*
 * The CPU's other tenants (bpf/thief.bpf.h): as a traced thread inside a
 * marked call (or woken for the next run: prewake) gets its CPU after a
 * runqueue wait, the tasks that held that CPU meanwhile, from the last
 * XLP_CPULOG switch-ins the CPU logged (bpf/state.h). Each task is charged
 * its own on-CPU time in the wait (se.sum_exec_runtime, what
 * /proc/PID/task/TID/schedstat counts), so a thief never gets more than it
 * ran; the rest of a span it held the CPU is the hypervisor's (steal) or
 * interrupts'. Sent in the thread's batch, in its order with its calls.
 *
 *   wait_ns = elsewhere + here_ns: the part before it was moved to this
 *   CPU's runqueue (a migration: another CPU's tasks, not known here)
 *   here_ns = idle_ns + irq_ns + steal_ns + other_ns + unlogged_ns
 *	       + the thieves' ns
 */
#define XLP_THIEF_MAX 4		       /* thieves named per wait, the largest */
#define XLP_THIEF_KTHREAD (1u << 0)    /* a kernel thread (PF_KTHREAD) */
#define XLP_THIEF_NAME_STALE (1u << 1) /* exited before it was named: comm empty */

struct xlp_thief {
	__u32 tid;
	__u32 pid; /* tgid */
	__u64 ns;  /* its own on-CPU time during the wait */
	char comm[XLP_COMM_LEN];
	__u32 flags; /* XLP_THIEF_* */
	__u32 __pad;
};

struct xlp_thief_rec {
	struct xlp_hdr h; /* h.cpu: the CPU it waited for; h.size covers nthieves */
	__u32 pid;	  /* the waiting thread (tgid) */
	__u32 tid;
	__u64 end_ns;	   /* CLOCK_MONOTONIC: its switch-in, the wait's end */
	__u64 wait_ns;	   /* the wait, as its cpu_wait counts it */
	__u64 here_ns;	   /* of it, on this CPU's runqueue */
	__u64 idle_ns;	   /* of here: the idle task (a wakeup's latency) */
	__u64 irq_ns;	   /* of here: no task's and not steal: interrupts */
	__u64 steal_ns;	   /* of here: the hypervisor ran another guest */
	__u64 other_ns;	   /* of here: tasks past the XLP_THIEF_MAX largest */
	__u64 unlogged_ns; /* of here: older than the CPU's log */
	__u32 nthieves;	   /* <= XLP_THIEF_MAX, largest first */
	__u32 __pad;
	struct xlp_thief thieves[];
};

/*
 * record --timeline: every context switch, wakeup and new task on the CPUs
 * the traced threads ran on, whatever the task (bpf/cpusched.bpf.c), with
 * the fields of the kernel's own sched_switch, sched_waking and
 * task_newtask trace events, so that the Perfetto export can write them as
 * the ftrace events Perfetto's CPU tracks, thread_state table and critical
 * path read. A CPU's events start at the first switch on it that involves
 * a traced thread.
 */
enum xlp_cpusched_kind {
	/* a leaves CPU h.cpu, b takes it; arg: a's state as the sched_switch
	 * event reports it (the kernel's TASK_REPORT bits: 0 runnable, 1 S,
	 * 2 D, ..., 0x80 idle; 0x100 preempted) */
	XLP_CPUS_SWITCH = 1,
	/* a (the task on CPU h.cpu: the waker, or whom an interrupt came
	 * upon) wakes b; arg: the CPU b last ran on (target_cpu) */
	XLP_CPUS_WAKING = 2,
	/* a (on CPU h.cpu) created task b; arg: the clone flags' low 32 bits */
	XLP_CPUS_NEWTASK = 3,
};

struct xlp_cpusched_task {
	__u32 tid;
	__u32 pid;  /* tgid */
	__s32 prio; /* the kernel's task prio (0-139; 120 is nice 0) */
	char comm[XLP_COMM_LEN];
};

struct xlp_cpusched_rec {
	struct xlp_hdr h; /* h.cpu: the CPU it happened on */
	__u64 time_ns;	  /* CLOCK_MONOTONIC */
	__u32 kind;	  /* enum xlp_cpusched_kind */
	__u32 arg;
	struct xlp_cpusched_task a, b;
};

/* struct xlp_stack_rec.flags */
#define XLP_STACK_KERNEL (1u << 0) /* kernel frames, else user frames */
/* the stack filled all XLP_STACK_DEPTH frames: outer frames may be cut */
#define XLP_STACK_FULL (1u << 1)
/*
 * How a user stack was unwound (bits 2-3; 0 in traces that predate it:
 * frame pointers) and where its unwinding stopped (bits 4-7; 0: not said).
 * user/symbols/stack_unwind.h tells the rules.
 */
#define XLP_STACK_METHOD_SHIFT 2
#define XLP_STACK_METHOD_MASK (3u << XLP_STACK_METHOD_SHIFT)
#define XLP_STACK_STOP_SHIFT 4
#define XLP_STACK_STOP_MASK (15u << XLP_STACK_STOP_SHIFT)
enum xlp_stack_method {
	XLP_UNWIND_FP = 0,    /* the kernel's frame-pointer walk */
	XLP_UNWIND_CFI = 1,   /* the binaries' CFI over the copied stack, to its last frame */
	XLP_UNWIND_MIXED = 2, /* CFI to the copy's end, then the frame-pointer walk */
};
enum xlp_stack_stop {
	XLP_STOP_UNSAID = 0,
	XLP_STOP_END = 1,    /* the outermost frame: its return address is undefined */
	XLP_STOP_COPY = 2,   /* the next frame lies above the copied bytes */
	XLP_STOP_NO_CFI = 3, /* a frame's code has no CFI, or is in no known file */
	XLP_STOP_BAD = 4,    /* a frame's CFI led nowhere (an unreadable or absurd address) */
	XLP_STOP_DEPTH = 5,  /* XLP_STACK_DEPTH frames */
	XLP_STOP_FP = 6,     /* the frame-pointer walk ended (a null or unreadable frame) */
	XLP_STOP_NR,
};

/* struct xlp_stack_frame.flags */
/* not from the frame-pointer walk: the return address it skipped, found on
 * the stack just above a frameless function's (leaf_caller) */
#define XLP_FRAME_RECOVERED (1u << 0)

struct xlp_stack_frame {
	__u32 sym;    /* xlp_sym_rec id */
	__u32 flags;  /* XLP_FRAME_* (0 in traces that predate them) */
	__u64 offset; /* from the symbol's start (or in the file, see xlp_sym_rec.kind) */
};

/* A distinct stack, innermost frame first. h.size covers nframes frames. */
struct xlp_stack_rec {
	struct xlp_hdr h;
	__u32 id;
	__u16 nframes;
	__u16 flags; /* XLP_STACK_* */
	struct xlp_stack_frame frames[];
};

/* struct xlp_sym_rec.kind (user/symbols/symbolize.h's enum xsym_kind) */
#define XLP_SYM_FUNCTION 0 /* a function; frames' offsets from its start */
#define XLP_SYM_FILE 1	   /* a file without a symbol there: "[base+0xOFF]" */
#define XLP_SYM_UNKNOWN 2  /* nothing known: "[unknown]" */

/*
 * struct xlp_sym_rec.source: what named the frame (user/symbols/private/elfsym_int.h
 * says where each is looked for). 0 in traces that predate the field, and
 * for frames nothing named (XLP_SYM_FILE, XLP_SYM_UNKNOWN).
 */
#define XLP_SYM_SRC_UNSAID 0
#define XLP_SYM_SRC_SYMTAB 1	    /* the file's own .symtab */
#define XLP_SYM_SRC_DYNSYM 2	    /* the file's .dynsym (exported functions only) */
#define XLP_SYM_SRC_BUILD_ID 3	    /* /usr/lib/debug/.build-id/xx/yyyy.debug */
#define XLP_SYM_SRC_DEBUGLINK 4	    /* the file .gnu_debuglink names */
#define XLP_SYM_SRC_DEBUGINFOD 5    /* the debuginfod client's cache */
#define XLP_SYM_SRC_MINIDEBUGINFO 6 /* .gnu_debugdata: the xz-compressed ELF inside the file */
#define XLP_SYM_SRC_KALLSYMS 7	    /* /proc/kallsyms (kernel frames) */
#define XLP_SYM_SRC_JITDUMP 8	    /* a JIT runtime's jitdump (jit-PID.dump) */
#define XLP_SYM_SRC_PERFMAP 9	    /* a JIT runtime's perf map (/tmp/perf-PID.map) */

/*
 * A frame's name: text holds module_len bytes of the module (a file's
 * basename, or "[kernel]" / a kernel module's name), then name_len bytes
 * of the name, neither NUL-terminated; h.size covers them, padded to 8.
 */
struct xlp_sym_rec {
	struct xlp_hdr h;
	__u32 id;
	__u16 kind;
	__u16 module_len;
	__u16 name_len;
	__u16 source; /* XLP_SYM_SRC_* */
	__u16 __pad[2];
	char text[];
};

/*
 * record --lag DUR --lag-keep K (LagHunter's perceptible runs): every run
 * is counted and timed by its interaction's call record, but the records
 * of what ran inside it are written only for the runs that lag (latency
 * >= DUR) and one in K of the others. Written by the recorder at the end
 * of the recording; the counts since its start. runs = lagging + sampled
 * + summarized + written_through.
 */
struct xlp_lag_rec {
	struct xlp_hdr h;
	__u64 threshold_ns; /* --lag */
	__u32 keep;	    /* --lag-keep: one normal run in keep keeps its detail */
	__u32 flags;	    /* 0 */
	__u64 runs;	    /* runs that ended (their call records: all written) */
	__u64 lagging;	    /* latency >= threshold_ns: detail written */
	__u64 sampled;	    /* the others kept as the one in keep: detail written */
	__u64 summarized;   /* the others: detail left out, the call has XLP_CALL_SUMMARY */
	/* the others whose detail was written with no choice made: a thread's
	 * first run (its records were not held yet), or a run whose records
	 * reached the per-thread buffer's cap and were written as they came */
	__u64 written_through;
	__u64 records_left_out; /* records of summarized runs not written */
	__u64 bytes_left_out;	/* their size, before compression */
	__u64 spills;		/* times a thread's held records reached the cap */
};

/*
 * record with marker: specs: what the programs made of the lines the
 * traced threads wrote to trace_marker (bpf/marker.h), written by the
 * recorder at the end. lines = those parsed or skipped; skip[] by enum
 * xlp_marker_skip (bpf/marker.h's list, its names in the outputs).
 */
#define XLP_MARKER_REC_SKIPS 16
struct xlp_marker_rec {
	struct xlp_hdr h;
	__u64 lines;	/* written by traced threads to trace_marker */
	__u64 sections; /* of them, B or S lines a spec matched */
	__u64 skip[XLP_MARKER_REC_SKIPS];
};

struct xlp_stats_rec {
	struct xlp_hdr h;
	__u64 stat[XLP_NR_STAT]; /* summed over CPUs */
	__u64 lost_by_reader;	 /* records the writer could not store */
};

/* ---- not in files: what user space and the programs exchange at run time ---- */

/*
 * Value of the "launch_times" map, keyed by the launched pid (user space
 * adds the key before releasing the command, reads and deletes it after
 * reaping). 0 = not seen.
 */
struct xlp_launch_time {
	__u64 exec_ns;
	__u64 exit_ns;
};

/*
 * Value of the per-CPU "sample_cost" map: what the sampling programs cost
 * the traced threads, summed from the start (bpf/sample.bpf.c,
 * bpf/sched.bpf.c); the recorder takes the deltas of each window.
 */
struct xlp_sample_cost {
	__u64 cost_ns;	    /* in the programs, from their first to their last clock reading */
	__u64 on_samples;   /* on-CPU samples of traced threads */
	__u64 off_captures; /* stacks taken at a traced thread's switch-out */
	__u64 off_samples;  /* off-CPU samples sent */
	__u64 cpu_ns;	    /* on-CPU time of traced threads, at their switch-outs */
	__u64 off_cost_ns;  /* the part of cost_ns spent on off-CPU stacks */
	/* off-CPU user stacks taken late, as the thread returned to user
	 * space (xlp_rseq_update), for the captures that gave a sample */
	__u64 off_deferred;
};

/*
 * The attach cookie of a marked function's uprobe and uretprobe: its id in
 * the low 32 bits, its XLP_CALL_INTERACTION flag in the high ones (no map
 * lookup per call).
 */
#define XLP_COOKIE(id, flags) ((__u64)(flags) << 32 | (__u32)(id))
/* more cookie flags: the function posts or runs async tasks, keyed by argument N */
#define XLP_COOKIE_TASK_POST (1u << 8)
#define XLP_COOKIE_TASK_RUN (1u << 9)
#define XLP_COOKIE_RUN_BEGIN (1u << 10) /* --interaction with --until: a keyed run begins */
#define XLP_COOKIE_RUN_END (1u << 11)	/* --until: a keyed run ends */
#define XLP_COOKIE_KEYED                                                                           \
	(XLP_COOKIE_TASK_POST | XLP_COOKIE_TASK_RUN | XLP_COOKIE_RUN_BEGIN | XLP_COOKIE_RUN_END)
#define XLP_COOKIE_TASK_ARG(n) ((__u32)(n) << 12) /* n in 0..4 */
#define XLP_COOKIE_TASK_ARG_OF(flags) (((flags) >> 12) & 7)
/* --size-arg N on the interaction: a run's size is its argument N (apart
 * from the key's, which --until may give the same function) */
#define XLP_COOKIE_SIZE (1u << 15)
#define XLP_COOKIE_SIZE_ARG(n) ((__u32)(n) << 16) /* n in 0..4 */
#define XLP_COOKIE_SIZE_ARG_OF(flags) (((flags) >> 16) & 7)
/* a USDT probe's calls are selected by a string argument (struct xlp_usdt_filter) */
#define XLP_COOKIE_USDT_FILTER (1u << 19)

/*
 * record --func 'usdt:BIN:PROV:NAME:argN=STRING': a probe counts only when
 * its argument arg points to a string equal to s (len bytes, NUL-ended),
 * compared on its first XLP_USDT_STR_MAX - 1 bytes. Indexed by function id
 * in bpf/usdt.bpf.c's usdt_filters.
 */
#define XLP_USDT_STR_MAX 64
struct xlp_usdt_filter {
	__u32 arg;
	__u32 len;
	char s[XLP_USDT_STR_MAX];
};

/*
 * Input and output of the SEC("syscall") programs of bpf/control.bpf.c, run
 * by user space with bpf_prog_test_run_opts: the BPF side registers
 * processes and seeds frequencies itself, with the code its tracepoints
 * use, so user space never writes the programs' state.
 */
struct xlp_ctl {
	__u32 pid;  /* xlp_add_proc: the process (tgid) */
	__u32 slot; /* xlp_add_proc: out */
	__u32 cpu;  /* xlp_set_freq */
	__s32 err;  /* out: 0 or a negative errno */
	__u64 khz;  /* xlp_set_freq, at now (CLOCK_MONOTONIC) */
	__u64 now;
};

#ifndef __cplusplus
_Static_assert((XLP_MAX_DEPTH & (XLP_MAX_DEPTH - 1)) == 0,
	       "bpf/calls.bpf.c masks depths: a power of two");
_Static_assert(sizeof(struct xlp_hdr) == 8, "xlp_hdr layout");
_Static_assert(sizeof(struct xlp_call_rec) == 8 + 24 + 2 * 8 * XLP_NR_CTR + 8 + XLP_COMM_LEN,
	       "xlp_call_rec layout");
_Static_assert(sizeof(struct xlp_call_compact_rec) == 8 + 32, "xlp_call_compact_rec layout");
_Static_assert(sizeof(struct xlp_ipc_peer) == 8 + XLP_COMM_LEN, "xlp_ipc_peer layout");
_Static_assert(XLP_COMPACT_VALUE_BITS < 64, "a compact record's mask holds every counter twice");
_Static_assert(__builtin_offsetof(struct xlp_call_compact_rec, entry_ns) ==
			       __builtin_offsetof(struct xlp_call_rec, entry_ns) &&
		       __builtin_offsetof(struct xlp_call_compact_rec, flags) ==
			       __builtin_offsetof(struct xlp_call_rec, flags),
	       "both call records share their first 32 bytes");
_Static_assert(sizeof(struct xlp_run_rec) == 8 + 24 + 8 * XLP_NR_CTR, "xlp_run_rec layout");
_Static_assert(sizeof(struct xlp_thread_rec) == 8 + 32 + XLP_COMM_LEN + 8 * XLP_NR_CTR,
	       "xlp_thread_rec layout");
_Static_assert(sizeof(struct xlp_proc_rec) == 8 + 24 + XLP_COMM_LEN + 8 * XLP_NR_CTR,
	       "xlp_proc_rec layout");
_Static_assert(sizeof(struct xlp_launch_rec) == 40, "xlp_launch_rec layout");
_Static_assert(sizeof(struct xlp_fork_rec) == 40, "xlp_fork_rec layout");
_Static_assert(sizeof(struct xlp_stats_rec) == 8 + 8 * XLP_NR_STAT + 8, "xlp_stats_rec layout");
_Static_assert(sizeof(struct xlp_sample_rec) == 56, "xlp_sample_rec layout");
_Static_assert(sizeof(struct xlp_sample_ev) == 72, "xlp_sample_ev layout");
_Static_assert(sizeof(struct xlp_ucopy_rec) ==
		       8 + 16 + 8 * XLP_UCOPY_NREGS + 16 + 16 * XLP_UCOPY_URET_MAX,
	       "xlp_ucopy_rec layout");
_Static_assert(sizeof(struct xlp_ucopy_rec) + XLP_UCOPY_MAX < 65536, "a copy fits xlp_hdr.size");
_Static_assert(sizeof(struct xlp_sampling_rec) == 96, "xlp_sampling_rec layout");
_Static_assert(sizeof(struct xlp_stack_frame) == 16, "xlp_stack_frame layout");
_Static_assert(sizeof(struct xlp_stack_rec) == 16, "xlp_stack_rec layout");
_Static_assert(sizeof(struct xlp_sym_rec) == 24, "xlp_sym_rec layout");
_Static_assert(__builtin_offsetof(struct xlp_sym_rec, source) == 18,
	       "xlp_sym_rec.source: the first reserved u16 of older files");
_Static_assert(sizeof(struct xlp_stack_rec) + 2 * XLP_STACK_DEPTH * sizeof(struct xlp_stack_frame) <
		       65536,
	       "a stack record fits xlp_hdr.size");
_Static_assert(sizeof(struct xlp_call_rec) < 65536, "record size must fit xlp_hdr.size");
_Static_assert(sizeof(struct xlp_ctl) == 32, "xlp_ctl layout");
_Static_assert(sizeof(struct xlp_sched_rec) == 32, "xlp_sched_rec layout");
_Static_assert(sizeof(struct xlp_task_rec) == 32, "xlp_task_rec layout");
_Static_assert(sizeof(struct xlp_taskev_rec) == 40, "xlp_taskev_rec layout");
_Static_assert(sizeof(struct xlp_size_rec) == 40, "xlp_size_rec layout");
_Static_assert(sizeof(struct xlp_lag_rec) == 88, "xlp_lag_rec layout");
_Static_assert(sizeof(struct xlp_thief) == 40, "xlp_thief layout");
_Static_assert(sizeof(struct xlp_thief_rec) == 88, "xlp_thief_rec layout");
_Static_assert(sizeof(struct xlp_cpusched_rec) == 80, "xlp_cpusched_rec layout");
_Static_assert(sizeof(struct xlp_marker_rec) == 8 + 16 + 8 * XLP_MARKER_REC_SKIPS,
	       "xlp_marker_rec layout");
#endif

#endif /* XLPROBE_H */
