/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * State the BPF programs keep for themselves: per thread, per process, per
 * CPU. Not part of the contract with user space (bpf/xlprobe.h): the
 * product's user space never sees these layouts, so they change freely;
 * only the tests that drive the accounting through bpf/selftest.bpf.c read
 * them. Plain types, so that those tests can include it.
 */
#ifndef XLP_STATE_H
#define XLP_STATE_H

#include "xlprobe.h"

#define XLP_MAX_THREADS 16384		    /* traced threads alive at once */
#define XLP_MAX_PROCS 1024		    /* traced processes per session (slots) */
#define XLP_PID_MAX_LIMIT (4 * 1024 * 1024) /* kernel PID_MAX_LIMIT on 64-bit */
#define XLP_BATCH_BYTES 1024		    /* compact call records sent at once */

enum xlp_tstate {
	XLP_T_UNKNOWN = 0, /* existed before attach, not seen yet */
	XLP_T_RUNNING,	   /* on a CPU since ts */
	XLP_T_RUNNABLE,	   /* on a runqueue since ts */
	XLP_T_SLEEP_S,	   /* interruptible sleep since ts */
	XLP_T_SLEEP_D,	   /* uninterruptible sleep since ts */
};

/* the timeline's states are these (bpf/xlprobe.h) */
_Static_assert((int)XLP_T_RUNNABLE == (int)XLP_SCHED_RUNNABLE &&
		       (int)XLP_T_SLEEP_S == (int)XLP_SCHED_SLEEP_S &&
		       (int)XLP_T_SLEEP_D == (int)XLP_SCHED_SLEEP_D,
	       "enum xlp_sched_state");

struct xlp_frame {
	__u32 func_id;
	__u32 flags;
	__u64 snap[XLP_NR_CTR];	 /* counters at entry */
	__u64 child[XLP_NR_CTR]; /* inclusive deltas of nested marked calls */
};

/*
 * An off-CPU sample whose wait crossed a tick while its user stack was
 * still to take (offcpu_charge, lazy captures): sent with it as the
 * thread returns to user space (xlp_rseq_update).
 */
#define XLP_OFF_PEND 4
struct xlp_off_pend {
	__u64 time_ns;
	__u64 weight_ns;
	__u32 reason;
	__u32 kstack; /* kernel stack id + 1, or 0 and kerr */
	__s32 kerr;
	__u32 __pad;
};

/*
 * A traced thread's state, by concern. Each sub-structure is written by
 * the programs of its concern (the header or file named) and read by the
 * others through it.
 */

/* the accounting (bpf/account.bpf.h): its state, its counters */
struct xlp_thread_acct {
	__u32 state; /* enum xlp_tstate */
	__u32 last_cpu;
	__u64 ts;	   /* when state was entered */
	__u64 exec_at_in;  /* task's se.sum_exec_runtime at switch-in */
	__u64 delay_seen;  /* kernel's run_delay (+ pending) last accounted; 0 = unknown */
	__u64 freq_at_in;  /* CPU's kHz*ns integral at switch-in */
	__u32 wait_reason; /* enum xlp_ctr: the sleep's reason (a guess until its wakeup) */
	__u32 ksw_valid;   /* k_nvcsw, k_nivcsw known */
	/* of the open on-CPU slice, what snapshots already showed as run and
	 * as steal: later ones never show less of either (open_split) */
	__u64 run_exposed;
	__u64 steal_exposed;
	__u64 steal_at_in; /* steal clock + 1 of its CPU at switch-in; 0: none */
	/*
	 * The kernel's own switch counts of the task (nvcsw, nivcsw) as of the
	 * last event the programs saw. A switch no sched_switch reached the
	 * programs for shows as a difference (ksw_unseen()).
	 */
	__u64 k_nvcsw;
	__u64 k_nivcsw;
	__u64 c[XLP_NR_CTR];
};

/* the syscall the thread sleeps in, read from its registers at the block;
 * the sleep's reason is decided at its wakeup (bpf/reasons.bpf.h) */
struct xlp_thread_sys {
	__u32 nr1;   /* syscall number + 1; 0: not in a syscall */
	__u32 class; /* enum xlp_sysclass */
	__u32 flags; /* XLP_SYS_* */
	__u32 fd_class;
	__u64 fd_file; /* struct file * last classified, and its class */
};

/* who woke the thread last (bpf/waker.bpf.c, sched_waking) */
struct xlp_thread_waker {
	__u32 tid;  /* in task context; 0: other */
	__u32 kind; /* enum xlp_waker */
	__u32 pid;  /* tgid */
	char comm[XLP_COMM_LEN];
};

/* the peer of its inter-process calls (bpf/binder.bpf.c, bpf/reasons.bpf.h) */
struct xlp_thread_ipc {
	__u32 binder_wait;		/* a binder transaction awaits its reply */
	__u32 binder_peer;		/* pid of the process it went to */
	char binder_comm[XLP_COMM_LEN]; /* and its command name */
	__u32 peer_pid;
	char peer_comm[XLP_COMM_LEN];
};

/* its block I/O as folded (bpf/blkfold.bpf.h) */
struct xlp_thread_blk {
	__u64 rq_seen; /* the thread's entry in the blk map already in c[] */
	__u64 bytes_seen;
	/* its block requests completed when it last blocked (xlp_blk.done):
	 * one completed since, or one in flight, makes its sleep disk */
	__u64 done_at_block;
};

/* the off-CPU capture (bpf/offcpu.bpf.h): the stacks it last left a CPU with */
struct xlp_thread_off {
	/* kernel ids + 1, or 0 and why not */
	__u32 ustack;
	__u32 kstack;
	__s32 uerr;
	__s32 kerr;
	__u32 valid;	/* 0: none; else the 1 / chance they were taken with */
	__u32 sampled;	/* its first stack sample went out (bpf/sample.bpf.c) */
	__u64 cpu_told; /* acct.c[XLP_C_CPU_RUN] already added to sample_cost.cpu_ns */
	__u64 ucaller;	/* the caller its user stack's walk skipped (leaf_caller), or 0 */
	__u64 useq;	/* the seq of its user stack's copy (bpf/ucopy.bpf.h), or 0 */
	/* lazy captures (cfg_offcpu_lazy): the switch-out took the kernel
	 * stack; the user side waits for the return to user space, where
	 * the registers are those it left with unless a signal moved them */
	__u32 lazy;  /* the user side is still to take */
	__u32 npend; /* off-CPU samples waiting for it, in pend */
	__u64 sp, ip;
	struct xlp_off_pend pend[XLP_OFF_PEND];
};

/* its open marked calls (bpf/calls.bpf.c) */
struct xlp_thread_calls {
	__u32 depth;
	__u32 run_depth;		 /* 1 + depth of the open interaction frame, 0 if none */
	__u64 run_proc_snap[XLP_NR_CTR]; /* process counters at interaction entry */
	struct xlp_frame stack[XLP_MAX_DEPTH];
};

/* the prewake (bpf/prewake.bpf.h): armed at a wakeup from a sleep, with the
 * thread's runqueue wait and sleep totals then; disarmed by the next marked
 * call's entry */
struct xlp_thread_prewake {
	__u32 armed;
	__u32 __pad;
	__u64 at; /* the wakeup */
	__u64 wait;
	__u64 slept;
};

/* compact call records not sent yet (bpf/calls.bpf.c), back to back: they
 * go out before the batch could overflow XLP_BATCH_BYTES, and before any
 * other record of the thread (bpf/emit.bpf.h). The slack is the
 * verifier's (rec_begin). */
struct xlp_thread_batch {
	__u32 len;  /* bytes */
	__u32 recs; /* records */
	__u8 buf[XLP_BATCH_BYTES + 256];
};

struct xlp_thread {
	__u32 pid;
	__u32 tid;
	__u32 proc_slot; /* index into the procs array */
	__u32 flags;	 /* XLP_THREAD_PARTIAL */
	__u64 first_ns;
	__u32 stopped; /* reported at stop (bpf/control.bpf.c): it emits nothing more */
	__u32 __pad;
	struct xlp_thread_acct acct;
	struct xlp_thread_sys sys;
	struct xlp_thread_waker waker;
	struct xlp_thread_ipc ipc;
	struct xlp_thread_blk blk;
	struct xlp_thread_off off;
	struct xlp_thread_calls calls;
	struct xlp_thread_prewake pw;
	struct xlp_thread_batch batch;
};

/*
 * Test build only (XLPROBE_TEST_DROP_SWITCH, bpf/sched.bpf.c): a thread's
 * preemptions counted, and whether this one's switch-in is to be ignored
 * too. Kept in a map of its own, not in struct xlp_thread.
 */
struct xlp_test_drop {
	__u32 drops;
	__u32 dropped;
};

/* How a syscall's sleep is classified (struct xlp_thread.sys_class). */
enum xlp_sysclass {
	/* XLP_C_DISK .. XLP_C_TIMER: the syscall itself says it */
	XLP_SC_FUTEX = 64, /* lock if a thread of our process wakes us */
	XLP_SC_WAKER = 65, /* nothing known: the waker decides */
};

#define XLP_SYS_POLL (1u << 0)	 /* poll-like: an expiring timer's wakeup is its timeout */
#define XLP_SYS_IOWAIT (1u << 1) /* the kernel called the sleep an I/O wait (in_iowait) */

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

/*
 * record --timeline: an untraced thread's last scheduling events, kept
 * until it wakes a thread on the timeline (bpf/tlhist.bpf.h); BPF only.
 */
#define XLP_TL_HIST 32
#define XLP_TL_MAX_NAMED 4096 /* threads put on the timeline as wakers, at most */
struct xlp_tl_ev {
	__u64 t;
	__u32 arg;    /* as struct xlp_sched_rec's */
	__u16 kind;   /* enum xlp_sched_kind */
	__u16 detail; /* as struct xlp_sched_rec's */
};
struct xlp_tl_hist {
	struct xlp_tl_ev ev[XLP_TL_HIST]; /* a ring: event k at k % XLP_TL_HIST */
	__u32 n;			  /* events kept since the last dump */
	__u32 waker;			  /* its last waker's tid (sched_waking); 0: an interrupt */
	__u32 waker_kind;		  /* enum xlp_waker of that wakeup */
	__u16 state;			  /* enum xlp_sched_state it left its CPU in last */
	__u16 named;			  /* on the timeline: its events go out live */
};

/*
 * The last XLP_CPULOG tasks a CPU switched in (bpf/thief.bpf.h): value of
 * the per-CPU "cpulog" map, written at every switch of the machine, read
 * when a traced thread's runqueue wait ends. Times are the runqueue's
 * clock (rq->clock), the one sched_info.last_queued and run_delay use.
 */
#define XLP_CPULOG 64 /* a power of two: a 20 ms wait on a busy CPU saw more than 16 */
struct xlp_cpulog_ent {
	__u64 t;	/* rq clock at its switch-in */
	__u64 steal;	/* the rq's steal clock + 1 then (0: none) */
	__u64 exec_in;	/* its se.sum_exec_runtime then */
	__u64 exec_out; /* and at its switch-out; 0 while on the CPU */
	__u64 task;	/* its struct task_struct *, to name it if charged */
	__u32 tid, tgid;
	__u32 flags; /* XLP_THIEF_KTHREAD */
	__u32 __pad;
};
struct xlp_cpulog {
	struct xlp_cpulog_ent e[XLP_CPULOG];
	__u32 n; /* switch-ins logged: the newest is e[(n - 1) % XLP_CPULOG] */
	__u32 __pad;
	/* the wait being charged (xlp_thief_charge's inputs: BPF-to-BPF
	 * calls take five arguments) */
	__u64 q0, clk, steal, wait, now;
	/* and its thieves so far (a map value, not the stack: the verifier
	 * would track every index into a stack array exactly) */
	__u32 acc_tid[XLP_THIEF_MAX];
	__u32 acc_slot[XLP_THIEF_MAX]; /* its newest log slot, for its name */
	__u64 acc_ns[XLP_THIEF_MAX];
	/* the walk back (thief_step), from the newest slot */
	__u64 w_end, w_send, w_idle, w_irq, w_steal, w_other;
	__u32 w_tid; /* the waiting thread */
	__u32 __w_pad;
};
_Static_assert(sizeof(struct xlp_thief_rec) + XLP_THIEF_MAX * sizeof(struct xlp_thief) <
		       XLP_BATCH_BYTES,
	       "a thief record fits a thread's batch");

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

/*
 * Block I/O of a thread, counted by whichever task issues or completes its
 * requests (a kworker, an interrupt): value of the "blk" map, keyed by tid.
 * The thread folds rq and bytes into its counters itself.
 */
struct xlp_blk {
	__s64 inflight; /* requests issued and not completed */
	__u64 rq;
	__u64 bytes;
	__u64 done; /* requests completed */
};

/* Value of the "bio_owner" map: who submitted a bio. */
struct xlp_bio_owner {
	__u32 tid;
	__u32 slot; /* its process slot */
};

struct xlp_proc {
	__u32 pid;
	__u32 flags;
	__u64 first_ns;
	__u64 c[XLP_NR_CTR];
};

#endif
