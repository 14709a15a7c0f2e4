/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who wakes a traced thread: the second witness of why it slept.
 * sched_waking runs in the waker's context (sched_wakeup often runs on the
 * idle task of the target CPU). In interrupt context "current" is whatever
 * task was interrupted, so the CPU's context is tracked from the irq,
 * softirq and hrtimer tracepoints, KUtrace-style: an expiring hrtimer is a
 * timer, the NET softirqs are the network, the BLOCK softirq is I/O.
 */
#include "reasons.bpf.h"
#include "tlhist.bpf.h"

#define NET_TX_SOFTIRQ 2
#define NET_RX_SOFTIRQ 3
#define BLOCK_SOFTIRQ 4

static __always_inline struct xlp_irqctx *ctx_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&irqctx, &zero);
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(xlp_irq_entry, int irq, struct irqaction *action)
{
	struct xlp_irqctx *c = ctx_get();

	if (c)
		c->hardirq++;
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(xlp_irq_exit, int irq, struct irqaction *action, int ret)
{
	struct xlp_irqctx *c = ctx_get();

	if (c && c->hardirq)
		c->hardirq--;
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(xlp_softirq_entry, unsigned int vec)
{
	struct xlp_irqctx *c = ctx_get();

	if (c)
		c->softirq = vec + 1;
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(xlp_softirq_exit, unsigned int vec)
{
	struct xlp_irqctx *c = ctx_get();

	if (c)
		c->softirq = 0;
	return 0;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(xlp_hrtimer_entry, struct hrtimer *timer, ktime_t *now)
{
	struct xlp_irqctx *c = ctx_get();

	if (c)
		c->hrtimer++;
	return 0;
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(xlp_hrtimer_exit, struct hrtimer *timer)
{
	struct xlp_irqctx *c = ctx_get();

	if (c && c->hrtimer)
		c->hrtimer--;
	return 0;
}

static __always_inline __u32 waker_kind(struct task_struct *p, struct task_struct *cur)
{
	struct xlp_irqctx *c = ctx_get();

	if (c && c->hrtimer)
		return XLP_W_TIMER;
	if (c && c->hardirq)
		return XLP_W_HARDIRQ;
	if (c && c->softirq) {
		__u32 vec = c->softirq - 1;

		if (vec == NET_RX_SOFTIRQ || vec == NET_TX_SOFTIRQ)
			return XLP_W_NET;
		if (vec == BLOCK_SOFTIRQ)
			return XLP_W_BLOCK;
		return XLP_W_SOFTIRQ;
	}
	if (!cur->pid || (cur->flags & PF_KTHREAD))
		return XLP_W_KTHREAD;
	return cur->tgid == p->tgid ? XLP_W_SAME_PROC : XLP_W_OTHER_PROC;
}

/*
 * The name of a waker the timeline will show, once: a traced thread's goes
 * out in its thread record, another's here (a later rename is not seen),
 * followed by its events before this wakeup (bpf/tlhist.bpf.h).
 */
static __always_inline void tl_name(struct task_struct *cur)
{
	__u32 tid = cur->pid, one = 1;
	struct xlp_tl_hist *h = NULL;
	struct xlp_task_rec r;

	if (tid_tracked(tid))
		return;
	if (cfg_tl_history) {
		h = tlhist_get(cur, true);
		if (!h || h->named || tl_nnamed >= XLP_TL_MAX_NAMED)
			return;
		__sync_fetch_and_add(&tl_nnamed, 1);
	} else {
		if (bpf_map_lookup_elem(&tl_named, &tid))
			return;
		bpf_map_update_elem(&tl_named, &tid, &one, BPF_ANY);
	}
	r.h.type = XLP_R_TASK;
	r.h.size = sizeof(r);
	r.h.cpu = bpf_get_smp_processor_id();
	r.pid = cur->tgid;
	r.tid = tid;
	bpf_get_current_comm(r.comm, sizeof(r.comm));
	emit(&r, sizeof(r));
	if (h)
		xlp_tlhist_dump(); /* cur is current */
}

/*
 * An untraced thread's waker, for its timeline (bpf/tlhist.bpf.h). A
 * thread that wakes one already on the timeline joins it too, so that a
 * chain can be followed through threads nobody traces (a lock holder
 * woken by its client, a worker process woken by its parent).
 */
static __always_inline void tl_waking(struct task_struct *p)
{
	struct xlp_tl_hist *h = cfg_tl_history ? tlhist_get(p, true) : NULL;
	struct task_struct *cur;
	__u32 kind;

	if (!h)
		return;
	cur = bpf_get_current_task_btf();
	kind = waker_kind(p, cur);
	h->waker_kind = kind;
	h->waker = kind == XLP_W_SAME_PROC || kind == XLP_W_OTHER_PROC || kind == XLP_W_KTHREAD
			   ? (__u32)cur->pid
			   : 0;
	if (h->named && h->waker)
		tl_name(cur);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(xlp_sched_waking, struct task_struct *p)
{
	struct xlp_thread *t = thread_get(p);
	struct task_struct *cur;
	__u32 kind;

	if (!t) {
		tl_waking(p);
		return 0;
	}
	cur = bpf_get_current_task_btf();
	kind = waker_kind(p, cur);
	ev_waker(t, kind, cur->tgid, waker_may_be_io(kind) && blk_during_sleep(t));
	t->waker.tid = kind == XLP_W_SAME_PROC || kind == XLP_W_OTHER_PROC || kind == XLP_W_KTHREAD
			       ? (__u32)cur->pid
			       : 0;
	if (cfg_timeline && t->waker.tid)
		tl_name(cur);
	if (kind == XLP_W_OTHER_PROC)
		bpf_probe_read_kernel_str(t->waker.comm, sizeof(t->waker.comm),
					  cur->group_leader->comm);
	return 0;
}
