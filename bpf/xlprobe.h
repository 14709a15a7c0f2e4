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
 *
 * The format's base (version, limits, counter and statistic lists,
 * record types, the record header) is in bpf/xlprobe_format.h, the stack
 * sampling records in bpf/xlprobe_stack.h; this header includes both, so
 * its users see the whole contract.
 */
#ifndef XLPROBE_H
#define XLPROBE_H

#include "xlprobe_format.h"
#include "xlprobe_stack.h"

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
