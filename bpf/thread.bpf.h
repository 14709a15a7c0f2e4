/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The state of traced threads (task storage) and processes (slots):
 * found, created, deleted.
 */
#ifndef XLP_THREAD_BPF_H
#define XLP_THREAD_BPF_H

#include "maps.bpf.h"
#include "stat.bpf.h"
#include "bitmap.bpf.h"
#include "blkfold.bpf.h"

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
	t->acct.ts = now;
	t->first_ns = now;
	t->acct.last_cpu = (__u32)-1;
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

#endif
