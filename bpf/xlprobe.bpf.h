/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shared by every BPF source file: the maps and configuration, and the
 * per-thread accounting used by the scheduler, block, binder, uprobe and
 * control programs alike.
 */
#ifndef XLP_BPF_H
#define XLP_BPF_H

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

XLP_MAP(sample_cost, __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 1);
	__type(key, __u32); __type(value, struct xlp_sample_cost););

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
XLP_MAP(scan_buf, __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 1);
	__type(key, __u32); __type(value, struct xlp_scan););

/*
 * struct xlp_thread of every traced thread, in task-local storage: found
 * through the task pointer every program has at hand (tp_btf arguments,
 * bpf_get_current_task_btf()), ~8 ns here against ~22 ns for a hash keyed
 * by tid (bench section 4). Memory is bounded by nr_threads, since task
 * storage has no max_entries; user space cannot iterate it, so the state
 * at stop comes from a task iterator (bpf/control.bpf.c).
 */
XLP_MAP(threads, __uint(type, BPF_MAP_TYPE_TASK_STORAGE); __uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int); __type(value, struct xlp_thread););

/*
 * One bit per tid: the fast "is this thread traced?" test on every
 * scheduler event of the machine. An array lookup is inlined by the
 * verifier, cheaper still than a task storage miss (a helper call).
 */
XLP_MAP(tracked, __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, XLP_PID_MAX_LIMIT / 64);
	__type(key, __u32); __type(value, __u64););

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
XLP_MAP(run_scratch, __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 1);
	__type(key, __u32); __type(value, struct xlp_run_rec););

XLP_MAP(rb, __uint(type, BPF_MAP_TYPE_RINGBUF); __uint(max_entries, 8 << 20););

/* record --timeline --no-waker-history: wakers whose name went out (xlp_task_rec) */
XLP_MAP(tl_named, __uint(type, BPF_MAP_TYPE_LRU_HASH); __uint(max_entries, 4096);
	__type(key, __u32); __type(value, __u32););

/* record --timeline: untraced threads' last events (bpf/tlhist.bpf.h) */
XLP_MAP(tl_hist, __uint(type, BPF_MAP_TYPE_TASK_STORAGE); __uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int); __type(value, struct xlp_tl_hist););

XLP_MAP(irqctx, __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 1); __type(key, __u32);
	__type(value, struct xlp_irqctx););

/* the last tasks each CPU ran (bpf/thief.bpf.h) */
XLP_MAP(cpulog, __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 1);
	__type(key, __u32); __type(value, struct xlp_cpulog););

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

XLP_MAP(blk_pending, __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, XLP_PID_MAX_LIMIT / 64);
	__type(key, __u32); __type(value, __u64););

XLP_MAP(rq_owner, __uint(type, BPF_MAP_TYPE_LRU_HASH); __uint(max_entries, 16384);
	__type(key, __u64); __type(value, __u32););

/* launched pid -> its exec and exit times (record --repeat; bpf/sched.bpf.c) */
XLP_MAP(launch_times, __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 64); __type(key, __u32);
	__type(value, struct xlp_launch_time););

static __always_inline void stat_add(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += n;
}

static __always_inline void stat_inc(__u32 idx)
{
	stat_add(idx, 1);
}

/*
 * Wakes the reader only when enough is queued: a wakeup per record costs
 * more than the record (MACHINE.md); the reader also drains on a timer.
 * Only the record that crosses the threshold wakes it: one wakeup (an IPI
 * here) per cfg_rb_wakeup_bytes, not one per record while it catches up.
 */
static __always_inline long wake_flags(__u64 queued, __u64 size)
{
	return queued >= cfg_rb_wakeup_bytes && queued - size < cfg_rb_wakeup_bytes
		       ? BPF_RB_FORCE_WAKEUP
		       : BPF_RB_NO_WAKEUP;
}

static __always_inline void emit(void *rec, __u64 size)
{
	__u64 queued = bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) + size;

	if (bpf_ringbuf_output(&rb, rec, size, wake_flags(queued, size)))
		stat_inc(XLP_S_RB_FULL);
}

/* One timeline event (record --timeline); nothing, and no cost, without. */
static __always_inline void tl_emit(__u16 kind, __u32 pid, __u32 tid, __u32 arg, __u16 detail,
				    __u64 now)
{
	struct xlp_sched_rec r;

	if (!cfg_timeline)
		return;
	r.h.type = XLP_R_SCHED;
	r.h.size = sizeof(r);
	r.h.cpu = bpf_get_smp_processor_id();
	r.time_ns = now;
	r.pid = pid;
	r.tid = tid;
	r.arg = arg;
	r.kind = kind;
	r.detail = detail;
	emit(&r, sizeof(r));
}

/*
 * Sends the thread's pending compact call records, one ring buffer sample
 * for them all: the ring buffer's cost per record (~60 ns on the uretprobe
 * path here, most of a short call's cost) is paid once per batch. Called
 * before any other record of the thread goes out, so that a thread's
 * records stay in the order it produced them.
 */
static __always_inline void batch_flush(struct xlp_thread *t)
{
	__u32 len = t->batch_len, n = t->batch_recs;

	/* reported at stop: the iterator wrote the batch, it must not go twice */
	if (!len || t->stopped)
		return;
	if (len > sizeof(t->batch))
		len = sizeof(t->batch);
	t->batch_len = 0;
	t->batch_recs = 0;
	if (bpf_ringbuf_output(&rb, t->batch, len,
			       wake_flags(bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) + len, len))) {
		__u32 idx = XLP_S_RB_FULL;
		__u64 *v = bpf_map_lookup_elem(&stats, &idx);

		if (v)
			*v += n;
	}
}

static __always_inline bool bit_test(void *bitmap, __u32 n)
{
	__u32 idx = n >> 6;
	__u64 *w = bpf_map_lookup_elem(bitmap, &idx);

	return w && (*w & (1ULL << (n & 63)));
}

static __always_inline void bit_set(void *bitmap, __u32 n, bool on)
{
	__u32 idx = n >> 6;
	__u64 *w = bpf_map_lookup_elem(bitmap, &idx);

	if (!w)
		return;
	if (on)
		__sync_fetch_and_or(w, 1ULL << (n & 63));
	else
		__sync_fetch_and_and(w, ~(1ULL << (n & 63)));
}

static __always_inline bool tid_tracked(__u32 tid)
{
	return bit_test(&tracked, tid);
}

static __always_inline void tid_set_tracked(__u32 tid, bool on)
{
	bit_set(&tracked, tid, on);
}

/* Forgets tid's block I/O (a thread starts or ends). */
static __always_inline void blk_reset(__u32 tid)
{
	if (!bit_test(&blk_pending, tid) && !bpf_map_lookup_elem(&blk, &tid))
		return;
	bit_set(&blk_pending, tid, false);
	bpf_map_delete_elem(&blk, &tid);
}

/*
 * Brings the thread's disk_rq and disk_bytes up to date with what other
 * tasks counted for it (bpf/block.bpf.c): a bit test when there is nothing
 * new. Their process already has them.
 */
static __always_inline void blk_fold(struct xlp_thread *t)
{
	__u32 tid = t->tid;
	struct xlp_blk *b;

	if (!bit_test(&blk_pending, tid))
		return;
	bit_set(&blk_pending, tid, false);
	b = bpf_map_lookup_elem(&blk, &tid);
	if (!b)
		return;
	t->c[XLP_C_DISK_RQ] += b->rq - t->blk_rq_seen;
	t->c[XLP_C_DISK_BYTES] += b->bytes - t->blk_bytes_seen;
	t->blk_rq_seen = b->rq;
	t->blk_bytes_seen = b->bytes;
}

/*
 * The thread blocks: what its block requests add up to then, so that its
 * wakeup can tell whether one completed during the sleep. A lookup only
 * for threads that ever issued one (the bitmap, or counts already folded).
 */
static __always_inline void blk_sleep_mark(struct xlp_thread *t)
{
	__u32 tid = t->tid;
	struct xlp_blk *b;

	t->blk_done_at_block = 0;
	if (!t->blk_rq_seen && !bit_test(&blk_pending, tid))
		return;
	b = bpf_map_lookup_elem(&blk, &tid);
	if (b)
		t->blk_done_at_block = b->done;
}

/*
 * Whether the thread's own block requests were in flight during the sleep
 * that ends now: one still is, or one completed since it blocked (the
 * completion comes before the wakeup it causes, so in flight alone misses
 * the last request). Looked up for kernel-context wakeups only.
 */
static __always_inline bool blk_during_sleep(struct xlp_thread *t)
{
	__u32 tid = t->tid;
	struct xlp_blk *b = bpf_map_lookup_elem(&blk, &tid);

	return b && (b->inflight > 0 || b->done != t->blk_done_at_block);
}

static __always_inline struct xlp_thread *thread_get(struct task_struct *task)
{
	if (!tid_tracked(task->pid))
		return NULL;
	return bpf_task_storage_get(&threads, task, 0, 0);
}

static __always_inline struct xlp_thread *thread_get_current(void)
{
	if (!tid_tracked((__u32)bpf_get_current_pid_tgid()))
		return NULL;
	return bpf_task_storage_get(&threads, bpf_get_current_task_btf(), 0, 0);
}

/*
 * The same without the bitmap, for programs that fire in traced processes
 * only (uprobes are attached per process): there the gate almost never
 * says no, and a storage miss is the same answer.
 */
static __always_inline struct xlp_thread *thread_get_current_traced(void)
{
	return bpf_task_storage_get(&threads, bpf_get_current_task_btf(), 0, 0);
}

/*
 * Starts tracing task (tid, in process tgid at proc slot): its state, zeroed
 * by the kernel, then the tracked bit. Returns the state (an existing one
 * unchanged: the fork program may have been first), or NULL when the
 * thread cannot be traced (counted).
 */
static __always_inline struct xlp_thread *thread_new(struct task_struct *task, __u32 tid,
						     __u32 tgid, __u32 slot, __u32 flags, __u64 now)
{
	struct xlp_thread *t = bpf_task_storage_get(&threads, task, 0, 0);

	if (t)
		return t;
	if (__sync_fetch_and_add(&nr_threads, 1) >= XLP_MAX_THREADS) {
		__sync_fetch_and_sub(&nr_threads, 1);
		stat_inc(XLP_S_THREADS_FULL);
		return NULL;
	}
	t = bpf_task_storage_get(&threads, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t) {
		__sync_fetch_and_sub(&nr_threads, 1);
		/* created meanwhile on another CPU (fork against user space) */
		t = bpf_task_storage_get(&threads, task, 0, 0);
		if (!t)
			stat_inc(XLP_S_THREADS_FULL);
		return t;
	}
	t->pid = tgid;
	t->tid = tid;
	t->proc_slot = slot;
	t->flags = flags;
	t->ts = now;
	t->first_ns = now;
	t->last_cpu = (__u32)-1;
	blk_reset(tid);
	tid_set_tracked(tid, true);
	return t;
}

/* Stops tracing task: its bit, then its state. */
static __always_inline void thread_del(struct task_struct *task, __u32 tid)
{
	tid_set_tracked(tid, false);
	blk_reset(tid);
	if (!bpf_task_storage_delete(&threads, task))
		__sync_fetch_and_sub(&nr_threads, 1);
}

static __always_inline struct xlp_proc *proc_get(struct xlp_thread *t)
{
	__u32 slot = t->proc_slot;

	return bpf_map_lookup_elem(&procs, &slot);
}

/* A process slot for tgid, found by its threads through the targets map. */
static __always_inline int proc_new(__u32 tgid, __u64 now, __u32 *slot_out)
{
	__u32 slot = __sync_fetch_and_add(&next_proc_slot, 1);
	struct xlp_proc *p;

	if (slot >= XLP_MAX_PROCS) {
		stat_inc(XLP_S_PROCS_FULL);
		return -1;
	}
	p = bpf_map_lookup_elem(&procs, &slot);
	if (!p)
		return -1;
	p->pid = tgid;
	p->first_ns = now;
	bpf_map_update_elem(&targets, &tgid, &slot, BPF_ANY);
	*slot_out = slot;
	return 0;
}

/*
 * sum(kHz x ns) of cpu up to now. A thread's frequency counter grows by the
 * difference of this integral between its switch-in and switch-out, so a
 * frequency change in the middle of a slice is weighted exactly.
 */
static __always_inline __u64 freq_integral(__u32 cpu, __u64 now)
{
	struct xlp_cpufreq *f = bpf_map_lookup_elem(&cpu_freq, &cpu);

	if (!f)
		return 0;
	return f->integral + (now > f->since ? f->khz * (now - f->since) : 0);
}

static __always_inline void freq_set(__u32 cpu, __u64 khz, __u64 now)
{
	struct xlp_cpufreq *f = bpf_map_lookup_elem(&cpu_freq, &cpu);

	if (!f)
		return;
	f->integral = freq_integral(cpu, now);
	f->since = now;
	f->khz = khz;
}

/*
 * The steal clock of cpu + 1 (0: none), read through task's runqueue. The
 * self-test object brings its own (bpf/selftest.bpf.c).
 */
#ifndef XLP_STEAL_CLOCK
static __always_inline __u64 steal_clock(struct task_struct *task, __u32 cpu)
{
	return xlp_rq_steal(xlp_task_rq(task), cpu);
}
#else
#define steal_clock XLP_STEAL_CLOCK
#endif

/* Steal on t's CPU between its switch-in and clk (both steal clock + 1). */
static __always_inline __u64 steal_since_in(struct xlp_thread *t, __u64 clk)
{
	return clk && t->steal_at_in && clk > t->steal_at_in ? clk - t->steal_at_in : 0;
}

/* A new on-CPU slice of t begins at steal clock clk (0: none): nothing stolen yet. */
static __always_inline void steal_reset(struct xlp_thread *t, __u64 clk)
{
	t->run_exposed = 0;
	t->steal_exposed = 0;
	t->steal_at_in = clk;
}

/* The cost of sampling work on a traced thread that began at t0 (bpf_ktime_get_ns). */
static __always_inline struct xlp_sample_cost *sample_cost_add(__u64 t0)
{
	__u32 zero = 0;
	struct xlp_sample_cost *c = bpf_map_lookup_elem(&sample_cost, &zero);

	if (c)
		c->cost_ns += bpf_ktime_get_ns() - t0;
	return c;
}

#include "ucopy.bpf.h"

/*
 * A traced thread (current) leaves the CPU: the stacks it leaves with,
 * for the off-CPU samples its wait may give (offcpu_charge). ctx: the
 * tracepoint's, whose caller's registers the kernel stack starts from.
 */
#if defined(__TARGET_ARCH_x86)
/* Whether the 8 code bytes before ret end in a call instruction: direct
 * (e8 rel32), through memory (ff 15 disp32, ff 50+r disp8, ff 10+r) or a
 * register (ff d0+r). */
static __noinline bool after_call(__u64 ret)
{
	__u8 c[8];

	if (bpf_probe_read_user(c, sizeof(c), (void *)(ret - 8)))
		return false;
	return c[3] == 0xe8 || (c[2] == 0xff && c[3] == 0x15) ||
	       (c[5] == 0xff && (c[6] & 0xf8) == 0x50) || (c[6] == 0xff && (c[7] & 0xf8) == 0x10) ||
	       (c[6] == 0xff && (c[7] & 0xf8) == 0xd0);
}

/*
 * The caller a frame-pointer walk skips. A function that sets up no frame
 * (glibc is built without frame pointers, and GCC omits them in leaves)
 * leaves %rbp at its caller's frame, so the walk goes from the sampled IP
 * straight to the caller's caller: pread without load_config, crunch
 * without compute_checksum. The skipped return address was pushed by the
 * caller's call, below its frame: it is the highest word in [%rsp, %rbp)
 * that points just after a call instruction (the caller's own spills and
 * locals above it hold data, not return addresses). Nothing is guessed
 * when the gap is larger than 128 bytes or holds no such word: the stack
 * then stays as the walk gave it. When the sampled function did set up
 * its frame, [%rsp, %rbp) is its locals and the walk was right; the
 * recorder inserts the address only between the first two frames.
 * sp, bp: the thread's user %rsp and %rbp. 0: none found. A global
 * function, verified once on its own: inlined into the scheduler program
 * its loop multiplied that program's paths past the verifier's limit.
 */
__weak __noinline __u64 xlp_leaf_caller(__u64 sp, __u64 bp)
{
	struct xlp_scan *b;
	__u32 zero = 0;
	__u64 n;

	if (bp <= sp || (bp - sp) & 7 || bp - sp > sizeof(b->w))
		return 0;
	n = (bp - sp) / 8;
	b = bpf_map_lookup_elem(&scan_buf, &zero);
	if (!b || n < 1 || n > XLP_SCAN_WORDS)
		return 0;
	if (bpf_probe_read_user(b->w, n * 8, (void *)sp))
		return 0;
	/* no other state across iterations: the verifier prunes each one's paths */
	for (int i = XLP_SCAN_WORDS - 1; i >= 0; i--) {
		__u64 w;

		if ((__u64)i >= n)
			continue;
		w = b->w[i];
		/* user text: above the first page, below the canonical hole */
		if (w < 4096 || w >= (1ull << 47))
			continue;
		if (after_call(w))
			return w;
	}
	return 0;
}

static __always_inline __u64 leaf_caller(struct pt_regs *regs)
{
	if (!regs)
		return 0;
	return xlp_leaf_caller(BPF_CORE_READ(regs, sp), BPF_CORE_READ(regs, bp));
}
#else
/* arm64 keeps a leaf's return address in the link register, not on the stack */
static __always_inline __u64 leaf_caller(struct pt_regs *regs)
{
	return 0;
}
#endif

/* a task's user sp and ip; the length of the syscall instruction, which
 * a restarted syscall returns to (ip moved back by it) */
#if defined(__TARGET_ARCH_x86)
#define XLP_USER_SP(r) ((r)->sp)
#define XLP_USER_IP(r) ((r)->ip)
#define XLP_SYSCALL_INSN 2 /* syscall */
#else
#define XLP_USER_SP(r) ((r)->sp)
#define XLP_USER_IP(r) ((r)->pc)
#define XLP_SYSCALL_INSN 4 /* svc #0 */
#endif

/* One off-CPU sample record. */
static __always_inline void offcpu_emit(struct xlp_thread *t, __u64 time, __u64 weight,
					__u32 reason, __u32 kstack, __s32 kerr, __u32 ustack,
					__s32 uerr, __u64 ucaller, __u64 useq)
{
	struct xlp_sample_ev ev = {};
	struct xlp_sample_cost *c;
	__u32 zero = 0;

	ev.r.h.type = XLP_R_SAMPLE;
	ev.r.h.size = sizeof(ev);
	ev.r.h.cpu = bpf_get_smp_processor_id();
	ev.r.pid = t->pid;
	ev.r.tid = t->tid;
	ev.r.time_ns = time;
	ev.r.weight_ns = weight;
	ev.r.ustack = ustack;
	ev.r.kstack = kstack;
	ev.r.ustack_err = uerr;
	ev.r.kstack_err = kerr;
	ev.r.kind = XLP_SAMPLE_OFF_CPU;
	ev.r.reason = reason;
	c = bpf_map_lookup_elem(&sample_cost, &zero);
	if (c)
		c->off_samples++;
	ev.ucaller = ucaller;
	ev.useq = useq;
	emit(&ev, sizeof(ev));
}

/*
 * The pending samples go out with the user side given: the one taken on
 * the return to user space, or none (ustack 0) and why (uerr) when it can
 * no longer be taken (the thread exits, recording stops, or another user
 * context took over), which the recorder counts among the samples without
 * their user stack. A global function, verified once on its own: inlined
 * at its callers (the switch program among them) its loop of emits
 * tripled the time the kernel took to load that program.
 */
__weak __noinline int xlp_offcpu_pend_send(struct xlp_thread *t, __u32 ustack, int uerr,
					   __u64 ucaller, __u64 useq)
{
	__u32 n;

	if (!t)
		return 0;
	n = t->npend;
	t->npend = 0;
	for (int i = 0; i < XLP_OFF_PEND; i++) {
		struct xlp_off_pend *q = &t->pend[i];

		if ((__u32)i >= n)
			break;
		offcpu_emit(t, q->time_ns, q->weight_ns, q->reason, q->kstack, q->kerr, ustack,
			    uerr, ucaller, useq);
	}
	return 0;
}

#define offcpu_pend_drop(t, err) xlp_offcpu_pend_send(t, 0, err, 0, 0)

/*
 * The thread (current) is back in user space: its registers and stack are
 * those it left the CPU with, unless a signal handler's frame was pushed
 * meanwhile (then the sp or ip differs and the pending samples go without
 * a user stack, -XLP_ERR_STALE). A syscall the kernel restarts (a stop,
 * eu-stack's ptrace, a signal without a handler) returns to its syscall
 * instruction, in the same function on the same stack: that one is the
 * same. Takes the user side once for all of them.
 */
static __always_inline void offcpu_take_user(void *ctx, struct xlp_thread *t)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(
		(struct task_struct *)bpf_get_current_task_btf());
	__u64 t0 = bpf_ktime_get_ns(), ucaller = 0, useq;
	__u32 ustack = 0, zero = 0;
	struct xlp_sample_cost *c;
	__s32 uerr = 0;
	long u;

	if (XLP_USER_SP(regs) != t->off_sp ||
	    (XLP_USER_IP(regs) != t->off_ip && XLP_USER_IP(regs) != t->off_ip - XLP_SYSCALL_INSN)) {
		offcpu_pend_drop(t, -XLP_ERR_STALE);
		return;
	}
	u = bpf_get_stackid(ctx, &ustacks, BPF_F_USER_STACK);
	if (u >= 0) {
		ustack = (__u32)u + 1;
		ucaller = leaf_caller(regs);
	} else {
		uerr = (__s32)u;
	}
	/* before the samples: the recorder meets the copy first */
	useq = cfg_ucopy_bytes ? ucopy_send(t->pid, t->tid) : 0;
	xlp_offcpu_pend_send(t, ustack, uerr, ucaller, useq);
	c = bpf_map_lookup_elem(&sample_cost, &zero);
	if (c) {
		t0 = bpf_ktime_get_ns() - t0;
		c->cost_ns += t0;
		c->off_cost_ns += t0;
		c->off_deferred++;
	}
}

/* Whether current's user stack can wait for its return to user space. */
static __always_inline bool offcpu_can_defer(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	/* the kernel announces the return only to threads that registered rseq */
	return cfg_offcpu_lazy && bpf_core_field_exists(task->rseq) && task->rseq;
}

static __always_inline void offcpu_capture(void *ctx, struct xlp_thread *t)
{
	__u32 every = offcpu_every, zero = 0;
	/* one lookup for the CPU time and the cost: this runs at every switch */
	struct xlp_sample_cost *c = bpf_map_lookup_elem(&sample_cost, &zero);
	struct pt_regs *regs;
	__u64 t0, sp, ip;
	long u, k;

	t->off_valid = 0;
	if (!c)
		return;
	/* the traced threads' CPU time, which the bound is a share of */
	c->cpu_ns += t->c[XLP_C_CPU_RUN] - t->cpu_told;
	t->cpu_told = t->c[XLP_C_CPU_RUN];
	if (every > 1 && bpf_get_prandom_u32() % every)
		return;
	t0 = bpf_ktime_get_ns();
	regs = (struct pt_regs *)bpf_task_pt_regs((struct task_struct *)bpf_get_current_task_btf());
	if (offcpu_can_defer()) {
		sp = XLP_USER_SP(regs);
		ip = XLP_USER_IP(regs);
		/* samples left from another user context must not get this one's stack */
		if (t->npend && (!t->off_lazy || sp != t->off_sp || ip != t->off_ip))
			offcpu_pend_drop(t, -XLP_ERR_SRCH);
		t->off_lazy = 1;
		t->off_sp = sp;
		t->off_ip = ip;
		t->off_ustack = 0;
		t->off_uerr = 0;
		t->off_ucaller = 0;
		t->off_useq = 0;
	} else {
		if (t->npend)
			offcpu_pend_drop(t, -XLP_ERR_SRCH);
		t->off_lazy = 0;
		u = bpf_get_stackid(ctx, &ustacks, BPF_F_USER_STACK);
		t->off_ustack = u >= 0 ? (__u32)u + 1 : 0;
		t->off_uerr = u >= 0 ? 0 : (__s32)u;
		t->off_ucaller = u >= 0 ? leaf_caller(regs) : 0;
		/* the registers saved at the syscall's entry: the function that made
		 * it is the copy's first frame, whatever libc did */
		t->off_useq = cfg_ucopy_bytes ? ucopy_send(t->pid, t->tid) : 0;
	}
	k = bpf_get_stackid(ctx, &kstacks, 0);
	t->off_kstack = k >= 0 ? (__u32)k + 1 : 0;
	t->off_kerr = k >= 0 ? 0 : (__s32)k;
	t->off_valid = every ? every : 1;
	t0 = bpf_ktime_get_ns() - t0;
	c->cost_ns += t0;
	c->off_cost_ns += t0;
	c->off_captures++;
}

/*
 * An off-CPU sample of weight ns for t's wait of counter reason, ended at
 * now: sent with its switch-out's stacks, or, for a lazy capture, kept in
 * t->pend until its user stack is taken. A global function, verified once
 * (see xlp_offcpu_pend_send): the wait's end is in many programs.
 */
__weak __noinline int xlp_offcpu_sample(struct xlp_thread *t, __u64 now, __u64 weight, __u32 reason)
{
	struct xlp_off_pend *q;
	__u32 n;

	if (!t)
		return 0;
	if (!t->off_lazy) {
		offcpu_emit(t, now, weight, reason, t->off_kstack, t->off_kerr, t->off_ustack,
			    t->off_uerr, t->off_ucaller, t->off_useq);
		return 0;
	}
	n = t->npend;
	if (n >= XLP_OFF_PEND) {
		/* more waits than slots in one stay in the kernel: counted as
		 * samples without a user stack */
		offcpu_emit(t, now, weight, reason, t->off_kstack, t->off_kerr, 0, -XLP_ERR_NOSPC,
			    0, 0);
		return 0;
	}
	q = &t->pend[n & (XLP_OFF_PEND - 1)];
	q->time_ns = now;
	q->weight_ns = weight;
	q->reason = reason;
	q->kstack = t->off_kstack;
	q->kerr = t->off_kerr;
	q->__pad = 0;
	t->npend = n + 1;
	return 0;
}

/*
 * The wait of t from `from` to now, of counter `reason`, ends: as many
 * ticks of the virtual clock of period sample_period_ns as it crossed go
 * out as one off-CPU sample with the stacks of its switch-out. A wait of
 * d ns crosses d / period ticks on average whatever its phase, so off-CPU
 * time is estimated without bias, on the grid on-CPU samples use, and a
 * thread that waits often and briefly sends at most one record per tick.
 * A lazy capture's sample waits in t->pend for its user stack.
 */
static __always_inline void offcpu_charge(struct xlp_thread *t, __u64 from, __u64 now, __u32 reason)
{
	__u64 period = sample_period_ns, ticks;

	if (!period || !t->off_valid || now <= from || t->stopped)
		return;
	ticks = now / period - from / period;
	if (!ticks)
		return;
	xlp_offcpu_sample(t, now, ticks * period * t->off_valid, reason);
}

/*
 * The open on-CPU slice of a running thread, d ns long at clk, split into
 * run (returned) and steal. The steal clock is folded in at ticks, so a
 * snapshot can see steal up to a tick late; each part still never shows
 * less than an earlier snapshot of the slice did, or a call's delta of it
 * would go negative: late steal is taken from the time since that
 * snapshot. Afterwards run_exposed + steal_exposed == d.
 */
static __always_inline __u64 open_split(struct xlp_thread *t, __u64 clk, __u64 d, __u64 *steal)
{
	__u64 s = steal_since_in(t, clk), room = d > t->run_exposed ? d - t->run_exposed : 0;

	if (s > room)
		s = room;
	if (s < t->steal_exposed)
		s = t->steal_exposed;
	t->steal_exposed = s;
	if (d - s > t->run_exposed)
		t->run_exposed = d - s;
	*steal = s;
	return t->run_exposed;
}

/*
 * The process sum is shared by its threads on every CPU: an atomic add,
 * ~6 ns against ~1 for a plain one (bench section 4), skipped when there
 * is nothing to add (freq_khz_ns without a cpufreq driver, always).
 */
static __always_inline void ctr_add(struct xlp_thread *t, struct xlp_proc *p, __u32 c, __u64 d)
{
	/* an empty asm makes clang keep the bound check on the register used
	 * as the index: 6.1's verifier rejected the access without it */
	asm volatile("" : "+r"(c));
	if (c >= XLP_NR_CTR || !d)
		return;
	t->c[c] += d;
	if (p)
		__sync_fetch_and_add(&p->c[c], d);
}

/*
 * Closes the interval t has spent in its current state, at now, charging it
 * to the matching counters (and to the process aggregate).
 */
static __always_inline void thread_account_d(struct xlp_thread *t, struct xlp_proc *p, __u64 now,
					     __u64 d)
{
	__u64 fi;

	switch (t->state) {
	case XLP_T_RUNNING:
		ctr_add(t, p, XLP_C_CPU_RUN, d);
		fi = freq_integral(t->last_cpu, now);
		ctr_add(t, p, XLP_C_FREQ_KHZ_NS, fi - t->freq_at_in);
		t->freq_at_in = fi;
		break;
	case XLP_T_RUNNABLE:
		ctr_add(t, p, XLP_C_CPU_WAIT, d);
		break;
	case XLP_T_SLEEP_S:
	case XLP_T_SLEEP_D:
		/* the wakeup decided the reason before it closes the sleep
		 * (bpf/reasons.bpf.h): no snapshot sees one without the other */
		ctr_add(t, p, t->state == XLP_T_SLEEP_S ? XLP_C_SLEEP_S : XLP_C_SLEEP_D, d);
		ctr_add(t, p, t->wait_reason, d);
		break;
	}
	t->ts = now;
}

/*
 * Repairs the accounting after missed scheduler events: sometimes no
 * sched_switch or sched_wakeup reaches the programs for a thread (seen on
 * 6.18 under load, by bpftrace too). The kernel's cumulative on-CPU (exec)
 * and runqueue (delay) figures say how the span since the last event
 * split; run_min is a lower bound of the on-CPU part known otherwise
 * (kernel_ran_since_in()). The rest stays in the state the programs last
 * saw, except where that cannot be: a thread seen running (rest_ran, from
 * its own uprobe) after a missed switch-in ran the rest when it was
 * runnable (its exec lags by up to a tick), and slept it when it was asleep
 * (its wakeup was missed too: treating that as run turned a 50 ms sleep
 * into 50 ms on a CPU). A sleep's reason must be decided by the caller
 * (wake_decide()) as at a wakeup.
 */
static __always_inline void thread_recover(struct xlp_thread *t, struct xlp_proc *p, __u64 now,
					   __u64 exec, __u64 delay_total, bool rest_ran,
					   __u64 run_min)
{
	__u64 span = now > t->ts ? now - t->ts : 0, run = 0, wait = 0, rest;

	stat_inc(XLP_S_SCHED_MISSED);
	if (t->exec_at_in && exec >= t->exec_at_in)
		run = exec - t->exec_at_in;
	if (run < run_min)
		run = run_min;
	/* a snapshot of the open slice may have shown more (a call's
	 * delta must not go negative) */
	if (t->state == XLP_T_RUNNING && run < t->run_exposed)
		run = t->run_exposed;
	if (run > span)
		run = span;
	if (t->delay_seen && delay_total >= t->delay_seen)
		wait = delay_total - t->delay_seen;
	if (wait > span - run)
		wait = span - run;
	rest = span - run - wait;
	ctr_add(t, p, XLP_C_CPU_RUN, run);
	ctr_add(t, p, XLP_C_CPU_WAIT, wait);
	/* the steal a snapshot of the open slice showed stays steal */
	if (t->state == XLP_T_RUNNING) {
		__u64 s = t->steal_exposed < rest ? t->steal_exposed : rest;

		ctr_add(t, p, XLP_C_CPU_STEAL, s);
		rest -= s;
	}
	if (t->state == XLP_T_SLEEP_S || t->state == XLP_T_SLEEP_D) {
		/* the sleep came first: it ended rest ns after it began */
		offcpu_charge(t, t->ts, t->ts + rest, t->wait_reason);
		thread_account_d(t, p, now, rest);
	} else if (rest_ran) {
		ctr_add(t, p, XLP_C_CPU_RUN, rest);
		t->ts = now;
	} else if (t->state == XLP_T_RUNNING || t->state == XLP_T_RUNNABLE) {
		/* the rest is a sleep whose switch-out we missed */
		ctr_add(t, p, XLP_C_SLEEP_S, rest);
		ctr_add(t, p, XLP_C_OTHER, rest);
		t->ts = now;
	} else {
		thread_account_d(t, p, now, rest);
	}
	if (exec)
		t->exec_at_in = exec;
	if (delay_total)
		t->delay_seen = delay_total;
}

/*
 * Switches of t the programs did not see. The kernel does not always
 * deliver sched_switch for a traced thread (measured here: a switch-in
 * after a VM agent's thread ran reached no program about once in 300
 * cross-CPU wakeups, while the task's own pcount moved); a preemption
 * whose switch-out and switch-in both went unseen leaves the thread
 * RUNNING to the programs, and a call around it would be charged the time
 * another task held the CPU as its own cpu_run, with no switch and no
 * runqueue wait. The task's own counts (nvcsw, nivcsw, what
 * /proc/PID/status shows) tell every switch: v, i are their values now,
 * less the switch being processed if any. *nv, *niv: the switches not
 * seen since the last event (0 the first time, which only sets the
 * baseline). Returns whether there were any.
 */
static __always_inline bool ksw_unseen(struct xlp_thread *t, __u64 v, __u64 i, __u64 *nv,
				       __u64 *niv)
{
	*nv = 0;
	*niv = 0;
	if (t->ksw_valid && v >= t->k_nvcsw && i >= t->k_nivcsw) {
		*nv = v - t->k_nvcsw;
		*niv = i - t->k_nivcsw;
	}
	t->k_nvcsw = v;
	t->k_nivcsw = i;
	t->ksw_valid = 1;
	return *nv || *niv;
}

/*
 * How long the running task has been on this CPU by the kernel's own
 * clock: rq clock - sched_info.last_arrival (stamped at its switch-in by
 * sched_info_arrive() whether or not our program saw it). The rq clock
 * was last updated at most a tick ago, so this is a lower bound. 0 when
 * unknown (no sched_info, another CPU's runqueue).
 */
static __always_inline __u64 kernel_ran_since_in(struct task_struct *task, __u32 cpu)
{
	__u64 arrival, clk;
	struct rq *rq;

	if (!bpf_core_field_exists(task->sched_info.last_arrival))
		return 0;
	arrival = task->sched_info.last_arrival;
	rq = xlp_task_rq(task);
	if (!arrival || !rq || rq->cpu != (int)cpu)
		return 0;
	clk = rq->clock;
	return clk > arrival ? clk - arrival : 0;
}

/* run_delay + 1 of a task that is running (nothing pending); 0 if unknown */
static __always_inline __u64 kernel_delay_running(struct task_struct *task)
{
	if (!bpf_core_field_exists(task->sched_info.run_delay))
		return 0;
	return task->sched_info.run_delay + 1;
}

/*
 * Closes an on-CPU slice at now: run ns of the thread's own (at least what
 * snapshots showed), the steal since its switch-in at clk (as much of the
 * rest as it covers, at least what snapshots showed).
 */
static __always_inline void run_close(struct xlp_thread *t, struct xlp_proc *p, __u64 now,
				      __u64 run, __u64 clk)
{
	__u64 wall = now > t->ts ? now - t->ts : 0, steal = steal_since_in(t, clk);

	if (run < t->run_exposed)
		run = t->run_exposed;
	if (steal > (wall > run ? wall - run : 0))
		steal = wall > run ? wall - run : 0;
	if (steal < t->steal_exposed)
		steal = t->steal_exposed;
	ctr_add(t, p, XLP_C_CPU_STEAL, steal);
	steal_reset(t, clk);
	thread_account_d(t, p, now, run);
}

static __always_inline void thread_account(struct xlp_thread *t, struct xlp_proc *p, __u64 now)
{
	__u64 clk, d, s;

	if (t->state == XLP_T_UNKNOWN || now <= t->ts) {
		t->ts = now;
		return;
	}
	d = now - t->ts;
	if (t->state == XLP_T_RUNNING) {
		clk = steal_clock(bpf_get_current_task_btf(), t->last_cpu);
		s = steal_since_in(t, clk);
		run_close(t, p, now, s < d ? d - s : 0, clk);
		return;
	}
	thread_account_d(t, p, now, d);
}

/*
 * Counters of a running thread as of now: the stored ones plus the on-CPU
 * interval still open. Used for snapshots at uprobe entry and return.
 */
static __always_inline void thread_now(struct xlp_thread *t, __u64 now, __u64 *out)
{
	__u64 d = now > t->ts ? now - t->ts : 0;

#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		out[i] = t->c[i];
	out[XLP_C_WALL] = now;
	if (t->state == XLP_T_RUNNING) {
		__u64 steal,
			run = open_split(t, steal_clock(bpf_get_current_task_btf(), t->last_cpu), d,
					 &steal);

		out[XLP_C_CPU_RUN] += run;
		out[XLP_C_CPU_STEAL] += steal;
		out[XLP_C_FREQ_KHZ_NS] += freq_integral(t->last_cpu, now) - t->freq_at_in;
	}
}

/* A thread's totals (XLP_R_THREAD), as it ends or as recording stops. */
static __always_inline void thread_rec_fill(struct xlp_thread_rec *rec, struct xlp_thread *t,
					    const char *comm, __u32 flags, __u64 now)
{
	__builtin_memset(rec, 0, sizeof(*rec));
	rec->h.type = XLP_R_THREAD;
	rec->h.size = sizeof(*rec);
	rec->h.cpu = bpf_get_smp_processor_id();
	rec->pid = t->pid;
	rec->tid = t->tid;
	rec->flags = flags | (t->flags & XLP_THREAD_PARTIAL);
	rec->first_ns = t->first_ns;
	rec->last_ns = now;
	bpf_probe_read_kernel_str(rec->comm, sizeof(rec->comm), comm);
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		rec->tot[i] = t->c[i];
}

/* A process's totals (XLP_R_PROC), as it ends or as recording stops. */
static __always_inline void proc_rec_fill(struct xlp_proc_rec *rec, struct xlp_proc *p, __u32 pid,
					  const char *comm, __u32 flags, __u64 now)
{
	__builtin_memset(rec, 0, sizeof(*rec));
	rec->h.type = XLP_R_PROC;
	rec->h.size = sizeof(*rec);
	rec->h.cpu = bpf_get_smp_processor_id();
	rec->pid = pid;
	rec->flags = flags;
	rec->first_ns = p->first_ns;
	rec->last_ns = now;
	bpf_probe_read_kernel_str(rec->comm, sizeof(rec->comm), comm);
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		rec->tot[i] = p->c[i];
}

/*
 * The reason a device-like waker gives a sleep (enum xlp_waker: a timer,
 * the network, a block request), 0 for the others: what the waker rule
 * (reasons.bpf.h) and the timeline's history (tlhist.bpf.h) share.
 */
static __always_inline __u16 waker_device_reason(__u32 kind)
{
	switch (kind) {
	case XLP_W_TIMER:
		return XLP_C_TIMER;
	case XLP_W_NET:
		return XLP_C_NET;
	case XLP_W_BLOCK:
		return XLP_C_DISK;
	}
	return 0;
}

#endif
