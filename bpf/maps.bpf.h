/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every map and global of the product's BPF programs, declared once: the
 * configuration user space sets before load (rodata), the state it reads
 * and sets while they run (bss), and the maps. What the programs do with
 * them is in the headers by concern that include this one (xlprobe.bpf.h
 * lists them).
 */
#ifndef XLP_MAPS_BPF_H
#define XLP_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "state.h"
#include "core_fixes.bpf.h"

#define TASK_RUNNING 0
#define TASK_INTERRUPTIBLE 0x1
#define TASK_UNINTERRUPTIBLE 0x2

/*
 * Every map and global is written once, here. state.bpf.c defines
 * XLP_DEFINE_STATE and so holds the one definition (`bpftool gen object`
 * puts it first: libbpf 1.1's linker needs the definition before the first
 * reference); every other file sees the same text as extern declarations.
 */
#ifdef XLP_DEFINE_STATE
#define XLP_MAP(name, ...)                                                                         \
	struct {                                                                                   \
		__VA_ARGS__                                                                        \
	} name SEC(".maps")
#define XLP_GLOBAL(decl, init) decl = init
#else
#define XLP_MAP(name, ...)                                                                         \
	extern struct {                                                                            \
		__VA_ARGS__                                                                        \
	} name SEC(".maps")
#define XLP_GLOBAL(decl, init) extern decl
#endif

/*
 * The map shapes several maps share. A per-CPU slot: a value built off
 * the 512-byte BPF stack, or a per-CPU total. Task-local storage: found
 * through the task pointer, bounded by the tasks (no max_entries). A tid
 * bitmap: one bit per possible tid, an inlined array lookup.
 */
#define XLP_PERCPU_SLOT(name, value_t)                                                             \
	XLP_MAP(name, __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 1);             \
		__type(key, __u32); __type(value, value_t);)
#define XLP_TASK_STORAGE(name, value_t)                                                            \
	XLP_MAP(name, __uint(type, BPF_MAP_TYPE_TASK_STORAGE);                                     \
		__uint(map_flags, BPF_F_NO_PREALLOC); __type(key, int); __type(value, value_t);)
#define XLP_TID_BITMAP(name)                                                                       \
	XLP_MAP(name, __uint(type, BPF_MAP_TYPE_ARRAY);                                            \
		__uint(max_entries, XLP_PID_MAX_LIMIT / 64); __type(key, __u32);                   \
		__type(value, __u64);)

/* ---- configuration, set by user space before load (rodata) ---- */
XLP_GLOBAL(volatile const __u64 cfg_min_dur_ns, 0);
/* record --timeline: send every scheduling event of traced threads */
XLP_GLOBAL(volatile const __u32 cfg_timeline, 0);
/* and an untraced waker's events before its first wakeup of a traced
 * thread (bpf/tlhist.bpf.h); --no-waker-history clears it */
XLP_GLOBAL(volatile const __u32 cfg_tl_history, 0);
/* record's prewake (bpf/prewake.bpf.h); --no-prewake clears it */
XLP_GLOBAL(volatile const __u32 cfg_prewake, 0);
/* wake the reader only once this much is queued (it also polls on a timer) */
XLP_GLOBAL(volatile const __u32 cfg_rb_wakeup_bytes, 256 * 1024);
/*
 * Test build only (XLPROBE_TEST_DROP_SWITCH): every Nth preemption of a
 * traced thread, its switch-out and the switch-in that follows reach no
 * program, as when the kernel delivers no sched_switch; 0 in the product,
 * where the verifier removes the code.
 */
XLP_GLOBAL(volatile const __u32 cfg_test_drop_switch, 0);
/*
 * Test build only (XLPROBE_TEST_NO_CPULOG): no CPU's log of switch-ins and
 * so no thief record (bpf/thief.bpf.h), what make bench section 1 sets
 * against the same binary with them to measure their cost; 0 in the
 * product.
 */
XLP_GLOBAL(volatile const __u32 cfg_test_no_cpulog, 0);

/* ---- state (bss) ---- */
XLP_GLOBAL(__u32 next_proc_slot, 0);
XLP_GLOBAL(__u32 nr_threads, 0); /* traced threads alive: at most XLP_MAX_THREADS */
/* untraced threads put on the timeline as wakers: at most XLP_TL_MAX_NAMED */
XLP_GLOBAL(__u32 tl_nnamed, 0);
/* inputs of the iterators of bpf/control.bpf.c, set by user space: the
 * process whose threads to register, the instant to close intervals at */
XLP_GLOBAL(__u32 add_pid, 0);
XLP_GLOBAL(__u64 flush_ns, 0);
/*
 * record --sample: the perf events' period, the time an on-CPU sample
 * stands for and the tick of the off-CPU samples' virtual clock; 0 when not
 * sampling. The recorder changes it as it adapts the period to the cost
 * it measures (user/record/sampler.c), together with the perf events' own.
 */
XLP_GLOBAL(__u64 sample_period_ns, 0);
/*
 * A switch-out takes the stacks with chance 1 / offcpu_every, and a wait
 * whose stacks were taken weighs offcpu_every times its ticks: unbiased,
 * and the recorder raises it when the stack walks at every switch would
 * cost more than the bound allows (user/record/sampler.c).
 */
XLP_GLOBAL(__u32 offcpu_every, 1);
/*
 * Off-CPU user stacks taken late (user/record/session.c sets it when the
 * kernel has the rseq_update tracepoint): a switch-out takes the kernel
 * stack alone, and the user stack, its copy and the leaf's caller wait for
 * the thread's return to user space, which glibc's rseq registration makes
 * the kernel announce after every switch (xlp_rseq_update). Only the waits
 * that crossed a tick need them: a server thread that sleeps 30 us between
 * requests needs 1 in 30 at 999 Hz, and paid all of them before.
 */
XLP_GLOBAL(volatile const __u32 cfg_offcpu_lazy, 0);

/*
 * Stacks of traced threads: on-CPU ones from the sampling program,
 * off-CPU ones as a thread leaves a CPU. No BPF_F_REUSE_STACKID: a stack
 * id, once given, keeps its frames until the end, so the recorder can read
 * it whenever its record arrives; a stack whose bucket another holds is
 * lost (-EEXIST in the record, never silent). User stacks as build-id +
 * offset, nameable after the process exits. User space shrinks both to one
 * entry when it does not sample.
 */
XLP_MAP(ustacks, __uint(type, BPF_MAP_TYPE_STACK_TRACE); __uint(max_entries, 8192);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, XLP_STACK_DEPTH * sizeof(struct bpf_stack_build_id));
	__uint(map_flags, BPF_F_STACK_BUILD_ID););

XLP_MAP(kstacks, __uint(type, BPF_MAP_TYPE_STACK_TRACE); __uint(max_entries, 8192);
	__uint(key_size, sizeof(__u32)); __uint(value_size, XLP_STACK_DEPTH * sizeof(__u64)););

XLP_PERCPU_SLOT(sample_cost, struct xlp_sample_cost);

/*
 * The top of a user stack, copied for leaf_caller(). 16 words (128 bytes)
 * hold a syscall wrapper's frame and its caller's spills (FileRead's are
 * 64 bytes). The verifier walks the scan once per word: at 64 words it
 * took ~0.7 s more to load the programs (measured: a 20-launch --repeat
 * went from 0.5 s to 1.6 s), at 32 ~0.15 s, at 16 nothing measurable.
 */
#define XLP_SCAN_WORDS 16
struct xlp_scan {
	__u64 w[XLP_SCAN_WORDS];
};
XLP_PERCPU_SLOT(scan_buf, struct xlp_scan);

/*
 * struct xlp_thread of every traced thread, in task-local storage: found
 * through the task pointer every program has at hand (tp_btf arguments,
 * bpf_get_current_task_btf()), ~8 ns here against ~22 ns for a hash keyed
 * by tid (bench section 4). Memory is bounded by nr_threads, since task
 * storage has no max_entries; user space cannot iterate it, so the state
 * at stop comes from a task iterator (bpf/control.bpf.c).
 */
XLP_TASK_STORAGE(threads, struct xlp_thread);

/*
 * One bit per tid: the fast "is this thread traced?" test on every
 * scheduler event of the machine. An array lookup is inlined by the
 * verifier, cheaper still than a task storage miss (a helper call).
 */
XLP_TID_BITMAP(tracked);

/* tgid -> proc slot, for processes whose threads and children we trace */
XLP_MAP(targets, __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, XLP_MAX_PROCS);
	__type(key, __u32); __type(value, __u32););

XLP_MAP(procs, __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, XLP_MAX_PROCS);
	__type(key, __u32); __type(value, struct xlp_proc););

/* frequency of each CPU and its kHz*ns integral (bpf/freq.bpf.c) */
XLP_MAP(cpu_freq, __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 1024); __type(key, __u32);
	__type(value, struct xlp_cpufreq););

XLP_MAP(stats, __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, XLP_NR_STAT);
	__type(key, __u32); __type(value, __u64););

/* run records are built here, not on the 512-byte BPF stack */
XLP_PERCPU_SLOT(run_scratch, struct xlp_run_rec);

XLP_MAP(rb, __uint(type, BPF_MAP_TYPE_RINGBUF); __uint(max_entries, 8 << 20););

/* record --timeline --no-waker-history: wakers whose name went out (xlp_task_rec) */
XLP_MAP(tl_named, __uint(type, BPF_MAP_TYPE_LRU_HASH); __uint(max_entries, 4096);
	__type(key, __u32); __type(value, __u32););

/* record --timeline: untraced threads' last events (bpf/tlhist.bpf.h) */
XLP_TASK_STORAGE(tl_hist, struct xlp_tl_hist);

XLP_PERCPU_SLOT(irqctx, struct xlp_irqctx);

/* the last tasks each CPU ran (bpf/thief.bpf.h) */
XLP_PERCPU_SLOT(cpulog, struct xlp_cpulog);

/*
 * Block I/O submitted by traced threads: bio -> its submitter, request ->
 * tid, and per tid what its requests add up to. Other tasks issue and
 * complete them (kworkers, interrupts), which cannot reach the thread's
 * task storage without a tid-to-task lookup (a kfunc that kernels before
 * 6.2 lack): they count in blk and flag the tid in blk_pending, and the
 * thread folds the counts into its own at its next snapshot or record.
 */
XLP_MAP(bio_owner, __uint(type, BPF_MAP_TYPE_LRU_HASH); __uint(max_entries, 16384);
	__type(key, __u64); __type(value, struct xlp_bio_owner););

XLP_MAP(blk, __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, XLP_MAX_THREADS);
	__type(key, __u32); __type(value, struct xlp_blk););

XLP_TID_BITMAP(blk_pending);

XLP_MAP(rq_owner, __uint(type, BPF_MAP_TYPE_LRU_HASH); __uint(max_entries, 16384);
	__type(key, __u64); __type(value, __u32););

/* launched pid -> its exec and exit times (record --repeat; bpf/sched.bpf.c) */
XLP_MAP(launch_times, __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 64); __type(key, __u32);
	__type(value, struct xlp_launch_time););

/* bytes of user stack to copy per sample, 0: frame pointers alone (rodata:
 * the verifier drops the copy when it is 0) */
XLP_GLOBAL(volatile const __u32 cfg_ucopy_bytes, 0);

#define XLP_PAGE 4096

/* the record is built here: 16 KiB do not fit the 512-byte BPF stack */
struct xlp_ucopy_buf {
	struct xlp_ucopy_rec r;
	/* a page more than the largest copy: the last chunk's bound, for the verifier */
	__u8 data[XLP_UCOPY_MAX + XLP_PAGE];
	__u64 next_seq;
};
XLP_PERCPU_SLOT(ucopy_buf, struct xlp_ucopy_buf);

/*
 * Test build only (cfg_test_drop_switch): the preemptions of each thread
 * counted, and whether this one's switch-in is to be ignored too. Apart
 * from struct xlp_thread: no product thread carries them, and the map
 * holds nothing while the option is 0 (no preallocation).
 */
XLP_TASK_STORAGE(test_drops, struct xlp_test_drop);

#endif
