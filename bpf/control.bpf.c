/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What user space asks of the BPF side outside of events, so that one
 * accounting serves the whole recording:
 *   - SEC("syscall") programs, run with bpf_prog_test_run_opts (struct
 *     xlp_ctl), and a task iterator: register a process and its existing
 *     threads, seed a CPU's frequency, with the code the tracepoints use;
 *   - task iterators that close every live thread's open interval at
 *     flush_ns with thread_account(), like the exit program does, and
 *     write its pending compact call records and its XLP_THREAD_AT_STOP
 *     totals (XLP_R_THREAD, then XLP_R_PROC) to the iterator's file. The
 *     per-thread state is task storage, which user space cannot iterate,
 *     and nothing goes through the ring buffer, so a full one cannot lose
 *     anything at the end.
 */
#include "reasons.bpf.h"

#define ENOSPC 28

SEC("syscall")
int xlp_add_proc(struct xlp_ctl *a)
{
	__u32 slot = 0;

	a->err = proc_new(a->pid, bpf_ktime_get_ns(), &slot) ? -ENOSPC : 0;
	a->slot = slot;
	return 0;
}

/* The slot of task's process among the targets, or NULL: not traced. */
static __always_inline __u32 *target_slot(struct task_struct *task)
{
	__u32 tgid = task->tgid;

	return bpf_map_lookup_elem(&targets, &tgid);
}

/*
 * The threads that exist already of process add_pid (set by user space
 * before it runs the iterator), at the slot xlp_add_proc gave it: their
 * state is unknown until their next switch (XLP_T_UNKNOWN, partial). One
 * that the fork program registered first keeps the state it has. A thread
 * the table has no room for is counted (XLP_S_THREADS_FULL). An iterator,
 * not a lookup by tid: no kfunc (libbpf 1.1's linker cannot link a kfunc
 * that two objects reference, and bpf/block.bpf.c needs one).
 */
SEC("iter/task")
int xlp_add_threads(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	__u32 *slot;

	if (!task || task->tgid != add_pid)
		return 0;
	slot = target_slot(task);
	if (slot)
		thread_new(task, task->pid, task->tgid, *slot, XLP_THREAD_PARTIAL,
			   bpf_ktime_get_ns());
	return 0;
}

SEC("syscall")
int xlp_set_freq(struct xlp_ctl *a)
{
	freq_set(a->cpu, a->khz, a->now);
	a->err = 0;
	return 0;
}

SEC("iter/task")
int xlp_flush_threads(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct xlp_thread_rec rec;
	struct xlp_thread *t;
	struct xlp_proc *p;
	__u32 n;

	if (!task)
		return 0;
	t = bpf_task_storage_get(&threads, task, 0, 0);
	if (!t)
		return 0;
	/*
	 * Closing the interval at the same instant again changes nothing, so
	 * a thread the iterator shows twice (bpf_seq_read retries a record
	 * that did not fit) is counted once. A sleep still in progress gets
	 * the reason ev_block() gave it (no waker known).
	 */
	p = proc_get(t);
	thread_account(t, p, flush_ns);
	blk_fold(t);
	n = t->batch.len;
	if (n > sizeof(t->batch.buf))
		n = sizeof(t->batch.buf);
	if (n)
		bpf_seq_write(ctx->meta->seq, t->batch.buf, n);
	thread_rec_fill(&rec, t, task->comm, XLP_THREAD_AT_STOP, flush_ns);
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	/* its off-CPU samples still waiting for a user stack: without it */
	offcpu_pend_drop(t, -XLP_ERR_SRCH);
	t->off.lazy = 0;
	/*
	 * From now on the thread emits nothing: the batch written here would
	 * otherwise go out a second time, and its exit's totals would repeat
	 * these. What it flushed before this point is in the ring buffer, which
	 * the recorder drains once more (session__emit_live).
	 */
	t->stopped = 1;
	return 0;
}

/* After xlp_flush_threads: every live target's totals, by its leader. */
SEC("iter/task")
int xlp_flush_procs(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct xlp_proc_rec rec;
	struct xlp_proc *p = NULL;
	__u32 *slot;

	/* by its leader: once per process */
	if (task && task->pid == task->tgid && (slot = target_slot(task)))
		p = bpf_map_lookup_elem(&procs, slot);
	if (!p)
		return 0;
	proc_rec_fill(&rec, p, task->tgid, task->comm, XLP_THREAD_AT_STOP, flush_ns);
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}
