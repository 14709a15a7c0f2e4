/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CO-RE shims: every kernel difference xlprobe copes with is here, each
 * citing the kernel change it covers. No kernel version numbers.
 */
#ifndef XLP_CORE_FIXES_BPF_H
#define XLP_CORE_FIXES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

/*
 * task_struct::state was renamed __state (and became unsigned int) by
 * commit 2f064a59a11f ("sched: Change task_struct::state"), v5.14.
 */
struct task_struct___pre_5_14 {
	volatile long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int xlp_task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___pre_5_14 *)t, state);
}

/*
 * sched_switch gained its prev_state argument in commit fa2c3254d7cf
 * ("sched/tracing: Don't re-read p->state when emitting sched_switch
 * event"), v5.18 (Android GKI 5.10 and 5.15 lack it). Before, the state is
 * re-read from the task as the tracepoint did itself, which races with a
 * wakeup between __schedule()'s decision and the tracepoint: a sleep that
 * ends that soon shows as a preemption (that commit's reason).
 */
static __always_inline unsigned int xlp_switch_prev_state(struct task_struct *prev)
{
	return xlp_task_state(prev);
}

/*
 * "Is this the last thread of its process?" at sched_process_exit. The
 * tracepoint gained a group_dead argument only recently (v6.16,
 * "sched: Add group_dead to sched_process_exit"); signal->live has been
 * decremented before the tracepoint fires since do_exit() was written that
 * way, so reading it works on every kernel.
 */
static __always_inline bool xlp_group_dead(struct task_struct *t)
{
	return BPF_CORE_READ(t, signal, live.counter) == 0;
}

/*
 * The runqueue a fair-class task is queued on, through se.cfs_rq->rq, which
 * exists with CONFIG_FAIR_GROUP_SCHED (commit 29f59db3a74b, "sched:
 * group-scheduler core"). NULL without it; callers fall back to their own
 * timestamps. Callers check rq->cpu, since se.cfs_rq of a task of another
 * class may be stale.
 */
static __always_inline struct rq *xlp_task_rq(struct task_struct *t)
{
	if (!bpf_core_field_exists(((struct cfs_rq *)0)->rq))
		return NULL;
	return t->se.cfs_rq->rq;
}

/*
 * The hypervisor's steal clock as the scheduler last folded it into this
 * runqueue: rq::prev_steal_time_rq exists with CONFIG_PARAVIRT_TIME_ACCOUNTING
 * (commit 095c0aa83e52, "sched: adjust scheduler cpu power for stolen
 * time", which made rq_clock_task() exclude steal) and only advances when
 * the hypervisor offers a steal clock (KVM, Xen, Hyper-V, arm64 pvtime).
 * update_rq_clock() folds it in at every schedule, wakeup and tick, so it
 * is exact at sched_switch and at most a tick old anywhere else.
 * Returns the clock + 1 (0: none on this kernel, or rq is not cpu's).
 */
struct rq___steal {
	int cpu;
	u64 prev_steal_time_rq;
} __attribute__((preserve_access_index)); /* absent from the arm64 vmlinux.h */

static __always_inline __u64 xlp_rq_steal(struct rq *rq, __u32 cpu)
{
	struct rq___steal *r = (void *)rq;

	if (!r || !bpf_core_field_exists(r->prev_steal_time_rq) || r->cpu != (int)cpu)
		return 0;
	return r->prev_steal_time_rq + 1;
}

/*
 * The CPU a task is on or last ran on (the kernel's task_cpu()): in
 * thread_info with CONFIG_THREAD_INFO_IN_TASK since commit bcf9033e5449
 * ("sched: move CPU field back into thread_info if THREAD_INFO_IN_TASK=y"),
 * v5.16; in task_struct before.
 */
struct task_struct___cpu {
	unsigned int cpu;
} __attribute__((preserve_access_index));

static __always_inline __u32 xlp_task_cpu(struct task_struct *t)
{
	if (bpf_core_field_exists(t->thread_info.cpu))
		return BPF_CORE_READ(t, thread_info.cpu);
	return BPF_CORE_READ((struct task_struct___cpu *)t, cpu);
}

#endif
