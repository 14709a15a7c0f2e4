/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one contract between the BPF programs and user space, and the
 * record layout of the trace file (records go from the ring buffer to the
 * file unchanged). Every field is fixed-width, padding is explicit and
 * sizes are asserted, so a trace written on one machine reads on another.
 * Bump XLP_FORMAT_VERSION whenever a layout below changes.
 */
#ifndef XLPROBE_H
#define XLPROBE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define XLP_FORMAT_VERSION 1

#define XLP_MAX_FUNCS 512		    /* marked functions per session */
#define XLP_MAX_DEPTH 16		    /* shadow stack depth per thread */
#define XLP_MAX_THREADS 16384		    /* traced threads alive at once */
#define XLP_MAX_PROCS 1024		    /* traced processes per session (slots) */
#define XLP_PID_MAX_LIMIT (4 * 1024 * 1024) /* kernel PID_MAX_LIMIT on 64-bit */
#define XLP_COMM_LEN 16

/*
 * Per-thread cumulative counters. A function invocation record carries
 * deltas of all of them, so new ones are added at the end (before
 * XLP_NR_CTR) and old readers still find theirs. Time counters are ns.
 *
 * Invariants kept by bpf/sched.bpf.c (tested in tests/root):
 *   SLEEP_S + SLEEP_D == DISK + NET + IPC + LOCK + TIMER + OTHER
 * FREQ_KHZ_NS is sum(kHz of the CPU x ns run on it): the average frequency
 * over an interval is delta(FREQ_KHZ_NS) / delta(CPU_RUN) kHz. It wraps
 * after ~6000 s on-CPU at 3 GHz; deltas are taken modulo 2^64, so they
 * stay exact for any single invocation shorter than that.
 */
enum xlp_ctr {
	XLP_C_WALL = 0, /* wall-clock ns (duration when taken as a delta) */
	XLP_C_CPU_RUN,	/* on a CPU */
	XLP_C_CPU_WAIT, /* runnable, waiting on a runqueue */
	XLP_C_SLEEP_S,	/* interruptible sleep (TASK_INTERRUPTIBLE) */
	XLP_C_SLEEP_D,	/* uninterruptible sleep (TASK_UNINTERRUPTIBLE) */
	XLP_C_DISK,	/* sleep reasons: they add up to SLEEP_S + SLEEP_D */
	XLP_C_NET,
	XLP_C_IPC,
	XLP_C_LOCK,
	XLP_C_TIMER,
	XLP_C_OTHER,
	XLP_C_FREQ_KHZ_NS,
	XLP_C_NVCSW,  /* voluntary switches, as /proc/PID/status counts them */
	XLP_C_NIVCSW, /* involuntary switches */
	XLP_C_MIGRATIONS,
	XLP_C_DISK_RQ, /* block requests issued on behalf of the thread */
	XLP_C_DISK_BYTES,
	XLP_C_BINDER_TXN, /* binder transactions sent */
	XLP_C_RESERVED1,
	XLP_C_RESERVED2,
	XLP_NR_CTR,
};

/* Counters that hold time (ns); the others are counts or kHz*ns. */
#define XLP_CTR_IS_TIME(c) ((c) <= XLP_C_OTHER)

/* Per-CPU statistics the recorder writes into the trace footer. */
enum xlp_stat {
	XLP_S_RB_FULL = 0,    /* ring-buffer reservation failed: record lost */
	XLP_S_STACK_OVERFLOW, /* call deeper than XLP_MAX_DEPTH: not recorded */
	XLP_S_STACK_MISMATCH, /* return without a matching entry */
	XLP_S_MIN_DUR,	      /* invocation shorter than --min-dur: filtered */
	XLP_S_THREADS_FULL,   /* thread table full: thread not traced */
	XLP_S_PROCS_FULL,     /* process slots exhausted */
	XLP_S_SCHED_EVENTS,   /* scheduler events seen for traced threads */
	XLP_S_CALLS,	      /* invocations completed (recorded or filtered) */
	XLP_S_UNKNOWN_STATE,  /* switch-in of a thread whose prior state was unknown */
	XLP_S_UNFINISHED,     /* calls still open when their thread exited */
	XLP_S_SCHED_MISSED,   /* scheduler events the programs did not see: recovered */
	/* launches whose exec or exit the kernel did not time (counted by the
	 * recorder, not BPF): their start or end is xlprobe's own, less exact */
	XLP_S_LAUNCH_UNTIMED,
	XLP_NR_STAT,
};

/* Record types: ring buffer and trace file share them. */
enum xlp_rec_type {
	XLP_R_CALL = 1,	  /* struct xlp_call_rec */
	XLP_R_RUN = 2,	  /* struct xlp_run_rec: process-wide deltas of one run */
	XLP_R_THREAD = 3, /* struct xlp_thread_rec: a thread's totals */
	XLP_R_PROC = 4,	  /* struct xlp_proc_rec: a process's totals */
	XLP_R_LAUNCH = 5, /* struct xlp_launch_rec: one --repeat launch */
	XLP_R_STATS = 6,  /* struct xlp_stats_rec: drop counters so far */
};

struct xlp_hdr {
	__u16 type; /* enum xlp_rec_type */
	__u16 size; /* whole record, header included */
	__u32 cpu;
};

/* struct xlp_call_rec.flags */
#define XLP_CALL_INTERACTION (1u << 0) /* the function marks the runs */
#define XLP_CALL_IPC_PEER (1u << 1)    /* ipc_peer_* filled in */

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
#define XLP_THREAD_AT_STOP (1u << 1) /* read by user space when recording stopped */
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
 * Value of the "launch_times" map, keyed by the launched pid (user space
 * adds the key before releasing the command, reads and deletes it after
 * reaping). 0 = not seen.
 */
struct xlp_launch_time {
	__u64 exec_ns;
	__u64 exit_ns;
};

struct xlp_stats_rec {
	struct xlp_hdr h;
	__u64 stat[XLP_NR_STAT]; /* summed over CPUs */
	__u64 lost_by_reader;	 /* records the writer could not store */
};

/*
 * Per-thread state kept by the BPF side (value of the "threads" map).
 * User space reads it at stop for threads still alive.
 */
enum xlp_tstate {
	XLP_T_UNKNOWN = 0, /* existed before attach, not seen yet */
	XLP_T_RUNNING,	   /* on a CPU since ts */
	XLP_T_RUNNABLE,	   /* on a runqueue since ts */
	XLP_T_SLEEP_S,	   /* interruptible sleep since ts */
	XLP_T_SLEEP_D,	   /* uninterruptible sleep since ts */
};

struct xlp_frame {
	__u32 func_id;
	__u32 flags;
	__u64 snap[XLP_NR_CTR];	 /* counters at entry */
	__u64 child[XLP_NR_CTR]; /* inclusive deltas of nested marked calls */
};

struct xlp_thread {
	__u32 pid;
	__u32 tid;
	__u32 state;	 /* enum xlp_tstate */
	__u32 proc_slot; /* index into the procs array */
	__u64 ts;	 /* when state was entered */
	__u64 first_ns;
	__u64 exec_at_in; /* task's se.sum_exec_runtime at switch-in */
	__u64 delay_seen; /* kernel's run_delay (+ pending) last accounted; 0 = unknown */
	__u64 freq_at_in; /* CPU's kHz*ns integral at switch-in */
	/* the syscall in progress: its sleeps get a reason at sys_exit */
	__u32 sys_nr1;	    /* syscall number + 1; 0 outside syscalls */
	__u32 sys_class;    /* enum xlp_sysclass, resolved at the first block */
	__u32 sys_flags;    /* XLP_SYS_* */
	__u32 blk_inflight; /* block requests issued and not completed */
	__u64 sys_arg0;
	__u64 sys_arg1;
	__u64 pending; /* sleep ns in this syscall, reason not decided yet */
	__u64 fd_file; /* struct file * last classified, and its class */
	__u32 fd_class;
	__u32 __pad2;
	__u64 run_exposed; /* on-CPU ns of the open slice already in a snapshot */
	/* who woke the thread last (sched_waking), the second witness */
	__u32 waker_kind; /* enum xlp_waker */
	__u32 waker_pid;  /* tgid */
	char waker_comm[XLP_COMM_LEN];
	__u32 binder_wait; /* a binder transaction awaits its reply */
	__u32 binder_peer; /* pid of the process it went to */
	__u32 last_cpu;
	__u32 wait_reason; /* enum xlp_ctr reason guessed at block time */
	__u32 flags;	   /* XLP_THREAD_PARTIAL */
	__u32 ipc_peer_pid;
	char ipc_peer_comm[XLP_COMM_LEN];
	__u64 c[XLP_NR_CTR];
	__u32 depth;
	__u32 run_depth;		 /* 1 + depth of the open interaction frame, 0 if none */
	__u64 run_proc_snap[XLP_NR_CTR]; /* process counters at interaction entry */
	struct xlp_frame stack[XLP_MAX_DEPTH];
};

/* How a syscall's sleeps are classified (struct xlp_thread.sys_class). */
enum xlp_sysclass {
	XLP_SC_UNRESOLVED = 0, /* not looked at yet */
	/* XLP_C_DISK .. XLP_C_TIMER: the syscall itself says it */
	XLP_SC_FUTEX = 64, /* lock if a thread of our process wakes us */
	XLP_SC_WAKER = 65, /* nothing known: the waker decides */
};

#define XLP_SYS_POLL (1u << 0) /* poll-like: a 0 return means it timed out */

enum xlp_waker {
	XLP_W_NONE = 0,
	XLP_W_SAME_PROC,  /* a thread of our own process */
	XLP_W_OTHER_PROC, /* a thread of another process, in process context */
	XLP_W_KTHREAD,	  /* a kernel thread (kworker, ksoftirqd, ...) */
	XLP_W_HARDIRQ,	  /* an interrupt handler */
	XLP_W_TIMER,	  /* an expiring hrtimer (nanosleep, timeouts) */
	XLP_W_NET,	  /* NET_RX / NET_TX softirq */
	XLP_W_BLOCK,	  /* BLOCK softirq: I/O completion */
	XLP_W_SOFTIRQ,	  /* another softirq */
};

/* what the CPU is doing besides running a task (bpf/waker.bpf.c); BPF only */
struct xlp_irqctx {
	__u32 hardirq; /* nesting depth of interrupt handlers */
	__u32 hrtimer; /* nesting depth of expiring hrtimers */
	__u32 softirq; /* vector + 1 of the running softirq, 0 if none */
	__u32 __pad;
};

/* Per-CPU frequency integral (value of the "cpu_freq" map). */
struct xlp_cpufreq {
	__u64 khz;	/* current frequency; 0 = unknown */
	__u64 since;	/* ns when khz took effect */
	__u64 integral; /* sum(kHz x ns) up to since */
};

/* Input of the SEC("syscall") self-test program (tests only). */
enum xlp_selftest_op {
	XLP_ST_FREQ_SET = 1,  /* cpu, khz at now */
	XLP_ST_FREQ_INTEGRAL, /* cpu at now -> out */
	XLP_ST_SWITCH_OUT,    /* tid running -> sleeping (state arg) at now */
	XLP_ST_SWITCH_IN,     /* tid -> running on cpu at now */
	XLP_ST_WAKE,	      /* tid woken at now, waker kind arg, waker pid arg2 */
	XLP_ST_SYS_ENTER,     /* tid enters syscall arg (class arg2) */
	XLP_ST_SYS_EXIT,      /* tid leaves its syscall, return value arg */
	XLP_ST_BINDER_TXN,    /* tid sends a transaction: reply arg, flags arg2, to pid arg3 */
	XLP_ST_BINDER_RECV,   /* tid receives a transaction */
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
};

struct xlp_proc {
	__u32 pid;
	__u32 flags;
	__u64 first_ns;
	__u64 c[XLP_NR_CTR];
};

/* Function table entry pushed by user space (value of the "funcs" map). */
struct xlp_func {
	__u32 flags; /* XLP_CALL_INTERACTION */
	__u32 __pad;
};

#ifndef __cplusplus
_Static_assert(sizeof(struct xlp_hdr) == 8, "xlp_hdr layout");
_Static_assert(sizeof(struct xlp_call_rec) == 8 + 24 + 2 * 8 * XLP_NR_CTR + 8 + XLP_COMM_LEN,
	       "xlp_call_rec layout");
_Static_assert(sizeof(struct xlp_run_rec) == 8 + 24 + 8 * XLP_NR_CTR, "xlp_run_rec layout");
_Static_assert(sizeof(struct xlp_thread_rec) == 8 + 32 + XLP_COMM_LEN + 8 * XLP_NR_CTR,
	       "xlp_thread_rec layout");
_Static_assert(sizeof(struct xlp_proc_rec) == 8 + 24 + XLP_COMM_LEN + 8 * XLP_NR_CTR,
	       "xlp_proc_rec layout");
_Static_assert(sizeof(struct xlp_launch_rec) == 40, "xlp_launch_rec layout");
_Static_assert(sizeof(struct xlp_stats_rec) == 8 + 8 * XLP_NR_STAT + 8, "xlp_stats_rec layout");
_Static_assert(sizeof(struct xlp_call_rec) < 65536, "record size must fit xlp_hdr.size");
#endif

#endif /* XLPROBE_H */
