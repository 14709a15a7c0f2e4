/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record --timeline: every context switch, wakeup and new task on the CPUs
 * the traced threads ran on, whatever the task (issue 38), as the kernel's
 * own sched_switch, sched_waking and task_newtask trace events tell them,
 * so that the Perfetto export can write ftrace events: Perfetto's CPU
 * tracks (what ran on each CPU), its thread_state table and the critical
 * path its standard library computes need every switch of a CPU, not only
 * the traced threads' (bpf/sched.bpf.c) and their wakers' (tlhist.bpf.h).
 *
 * Programs of their own beside the accounting's: user space loads them
 * only under --timeline (user/record/session.c), so a recording without it
 * pays nothing, and the accounting's programs stay as they were. A CPU
 * joins at the first switch on it that involves a traced thread and stays
 * (a thread migrates back and forth: the CPUs it left are where its
 * runqueue rivals are). The cost on a joined CPU: one 80-byte record per
 * switch, wakeup and fork of any task (make bench section 1b); on the
 * others an array lookup and two bit tests per switch. Records the ring
 * buffer cannot take are counted in rb_full, as every record is.
 */
#include "xlprobe.bpf.h"

#define TASK_REPORT 0x7f
#define TASK_IDLE 0x402
#define TASK_RTLOCK_WAIT 0x1000
#define TASK_REPORT_IDLE 0x80
#define TASK_REPORT_MAX 0x100

/* CPU -> nonzero once a traced thread switched on it */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} cpusched_cpus SEC(".maps");

static __always_inline bool cpu_joined(__u32 cpu)
{
	__u32 *on = bpf_map_lookup_elem(&cpusched_cpus, &cpu);

	return on && *on;
}

static __always_inline void task_fill(struct xlp_cpusched_task *d, struct task_struct *t)
{
	d->tid = t->pid;
	d->pid = t->tgid;
	d->prio = t->prio;
	bpf_probe_read_kernel(d->comm, sizeof(d->comm), t->comm);
}

static __always_inline void cpusched_emit(__u32 kind, __u32 arg, struct task_struct *a,
					  struct task_struct *b, __u32 cpu)
{
	struct xlp_cpusched_rec r;

	r.h.type = XLP_R_CPUSCHED;
	r.h.size = sizeof(r);
	r.h.cpu = cpu;
	r.time_ns = bpf_ktime_get_ns();
	r.kind = kind;
	r.arg = arg;
	task_fill(&r.a, a);
	task_fill(&r.b, b);
	emit(&r, sizeof(r));
}

/*
 * prev's state as the kernel's sched_switch event reports it
 * (__trace_sched_switch_state() in include/trace/events/sched.h): the
 * highest TASK_REPORT bit of its state and exit state, TASK_IDLE as
 * TASK_REPORT_IDLE, a preemption as TASK_REPORT_MAX. Perfetto decodes this
 * encoding for kernels from 4.14 on (the export says the kernel).
 */
static __always_inline __u32 report_state(bool preempt, unsigned int state,
					  struct task_struct *prev)
{
	__u32 s, top = 0;

	if (preempt)
		return TASK_REPORT_MAX;
	s = (state | (__u32)prev->exit_state) & TASK_REPORT;
	if (state == TASK_IDLE)
		s = TASK_REPORT_IDLE;
	if (state == TASK_RTLOCK_WAIT)
		s = TASK_UNINTERRUPTIBLE;
	for (__u32 bit = 1; bit <= TASK_REPORT_IDLE; bit <<= 1)
		if (s & bit)
			top = bit;
	return top;
}

static __always_inline int cpu_switch(bool preempt, struct task_struct *prev,
				      struct task_struct *next, unsigned int prev_state)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (!cpu_joined(cpu)) {
		__u32 on = 1;

		if (!tid_tracked(prev->pid) && !tid_tracked(next->pid))
			return 0;
		bpf_map_update_elem(&cpusched_cpus, &cpu, &on, BPF_ANY);
	}
	cpusched_emit(XLP_CPUS_SWITCH, report_state(preempt, prev_state, prev), prev, next, cpu);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(xlp_cpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return cpu_switch(preempt, prev, next, prev_state);
}

/* The same where the tracepoint has no prev_state argument (as xlp_sched_switch_old). */
SEC("tp_btf/sched_switch")
int BPF_PROG(xlp_cpu_switch_old, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return cpu_switch(preempt, prev, next, xlp_switch_prev_state(prev));
}

/*
 * A wakeup on a joined CPU, or of a task whose CPU is joined: the waker's
 * CPU is this one (the bundle it goes in), the woken task's the one it
 * last ran on, as the kernel's event says at this point (before the
 * wakeup picks its runqueue).
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(xlp_cpu_waking, struct task_struct *p)
{
	__u32 cpu = bpf_get_smp_processor_id(), target = xlp_task_cpu(p);

	if (!cpu_joined(cpu) && !cpu_joined(target))
		return 0;
	cpusched_emit(XLP_CPUS_WAKING, target, bpf_get_current_task_btf(), p, cpu);
	return 0;
}

SEC("tp_btf/task_newtask")
int BPF_PROG(xlp_cpu_newtask, struct task_struct *task, __u64 clone_flags)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (!cpu_joined(cpu))
		return 0;
	cpusched_emit(XLP_CPUS_NEWTASK, (__u32)clone_flags, bpf_get_current_task_btf(), task, cpu);
	return 0;
}
