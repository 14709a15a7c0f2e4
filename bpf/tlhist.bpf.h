/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record --timeline: what a thread outside the traced ones did before it
 * woke a traced one (issue 22, "wakers that are not traced"). The thread
 * that held a run up is often not traced: another client's backend that
 * held a row lock, a worker process, a kworker. The timeline shows a
 * waker from its first wakeup of a traced thread on; before it, nothing.
 *
 * Every untraced thread keeps its last XLP_TL_HIST scheduling events
 * (switch-out with the state left in, wakeup with its waker, switch-in)
 * in task storage, and when it first wakes a traced thread, or a thread
 * already on the timeline, they go out as ordinary timeline records with
 * their own timestamps: the timeline extended backwards over the window
 * it held the run up, then live from there. A wakeup from interrupt
 * context gets the reason its context names (an expiring hrtimer: timer,
 * the NET softirqs: net, the BLOCK softirq or a hard interrupt ending an
 * uninterruptible sleep: disk), since the syscall witnesses of
 * bpf/reasons.bpf.h are kept for traced threads only.
 *
 * Chosen by measurement over the alternatives (docs/analysis.md, "Wait chains";
 * make bench section 1): the kernel's per-thread counters read at the two
 * wakeups of a handoff say how much the waker ran and waited, but not
 * when, nor on what it slept (task_delayacct is off by default), nor
 * anything when there is no first wakeup (a lock holder is never woken
 * by the waiter). The cost: one task storage lookup and a 16-byte write
 * per scheduling event of an untraced thread, under --timeline only.
 */
#ifndef XLP_TLHIST_BPF_H
#define XLP_TLHIST_BPF_H

#include "xlprobe.bpf.h"

static __always_inline struct xlp_tl_hist *tlhist_get(struct task_struct *task, bool create)
{
	if (!cfg_timeline || !task->pid)
		return NULL;
	return bpf_task_storage_get(&tl_hist, task, 0, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* the sleep's reason from the context that ended it (enum xlp_waker) */
static __always_inline __u16 tlhist_reason(__u32 kind, __u16 state)
{
	__u16 dev = waker_device_reason(kind);

	if (dev)
		return dev;
	switch (kind) {
	case XLP_W_HARDIRQ:
		/* a storage device's completion runs in its hard interrupt */
		return state == XLP_SCHED_SLEEP_D ? XLP_C_DISK : XLP_C_OTHER;
	case XLP_W_SOFTIRQ:
		return XLP_C_OTHER;
	default:
		return 0; /* a thread ended it: follow the thread */
	}
}

static __always_inline void tlhist_push(struct xlp_tl_hist *h, __u16 kind, __u32 arg, __u16 detail,
					__u64 now)
{
	__u32 i = h->n % XLP_TL_HIST;

	h->ev[i].t = now;
	h->ev[i].arg = arg;
	h->ev[i].kind = kind;
	h->ev[i].detail = detail;
	h->n++;
}

/*
 * An untraced thread's scheduling event: live on the timeline once it is
 * named, else kept. detail as in struct xlp_sched_rec.
 */
static __always_inline void tlhist_event(struct task_struct *task, __u16 kind, __u32 arg,
					 __u16 detail, __u64 now)
{
	__u32 tid = task->pid;
	struct xlp_tl_hist *h;

	if (cfg_tl_history) {
		h = tlhist_get(task, true);
		if (!h)
			return;
		if (kind == XLP_SCHED_OUT)
			h->state = detail;
		if (!h->named) {
			tlhist_push(h, kind, arg, detail, now ? now : bpf_ktime_get_ns());
			return;
		}
	} else if (!bpf_map_lookup_elem(&tl_named, &tid)) {
		return;
	}
	tl_emit(kind, task->tgid, tid, arg, detail, now ? now : bpf_ktime_get_ns());
}

/* the wakeup of an untraced thread: its waker, taken at sched_waking */
static __always_inline void tlhist_wakeup(struct task_struct *p)
{
	struct xlp_tl_hist *h = cfg_tl_history ? tlhist_get(p, false) : NULL;
	__u32 waker = 0;
	__u16 reason = 0;

	if (h) {
		waker = h->waker;
		reason = h->waker ? 0 : tlhist_reason(h->waker_kind, h->state);
	}
	tlhist_event(p, XLP_SCHED_WAKEUP, waker, reason, 0);
}

/*
 * Puts current on the timeline (its name went out just before): its kept
 * events first, oldest first, then live. Once per thread. A global
 * function, verified once: inlined, its loop of emits was verified again
 * on each path of the waking program (61 ms of its load).
 */
__weak __noinline int xlp_tlhist_dump(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct xlp_tl_hist *h = tlhist_get(task, true);
	__u32 n, first;

	if (!h || h->named)
		return 0;
	h->named = 1;
	n = h->n < XLP_TL_HIST ? h->n : XLP_TL_HIST;
	first = h->n - n;
#pragma clang loop unroll(disable)
	for (__u32 k = 0; k < XLP_TL_HIST; k++) {
		__u32 i = (first + k) % XLP_TL_HIST;

		if (k >= n)
			break;
		tl_emit(h->ev[i].kind, task->tgid, task->pid, h->ev[i].arg, h->ev[i].detail,
			h->ev[i].t);
	}
	h->n = 0;
	return 0;
}

#endif
