/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stack sampling (record --sample): a software cpu-clock perf event on
 * every CPU runs xlp_sample; when the task it interrupted is traced, its
 * user and kernel stacks go into the stack maps and a sample record names
 * them. User stacks are kept as build-id + file offset (the kernel resolves
 * the mapping at the sample): they stay nameable after the process exits,
 * and user space names them as it reads the record (user/symbols/symbolize.h).
 * Off-CPU samples come from the scheduler programs (offcpu_capture,
 * offcpu_charge in bpf/xlprobe.bpf.h), on the same period.
 */
#include "xlprobe.bpf.h"

SEC("perf_event")
int xlp_sample(struct bpf_perf_event_data *ctx)
{
	struct xlp_thread *t = thread_get_current();
	struct xlp_sample_ev ev = {};
	struct xlp_sample_cost *c;
	__u64 id, t0;
	long u, k;

	if (!t)
		return 0;
	t0 = bpf_ktime_get_ns();
	id = bpf_get_current_pid_tgid();
	ev.r.h.type = XLP_R_SAMPLE;
	ev.r.h.size = sizeof(ev);
	ev.r.h.cpu = bpf_get_smp_processor_id();
	ev.r.pid = id >> 32;
	ev.r.tid = (__u32)id;
	ev.r.time_ns = t0;
	ev.r.weight_ns = sample_period_ns;
	ev.r.kind = XLP_SAMPLE_ON_CPU;
	ev.r.reason = XLP_C_CPU_RUN;
	u = bpf_get_stackid(ctx, &ustacks, BPF_F_USER_STACK);
	k = bpf_get_stackid(ctx, &kstacks, 0);
	if (u >= 0) {
		ev.r.ustack = (__u32)u + 1;
		/* the registers the tick interrupted, or those saved at kernel entry */
		ev.ucaller = leaf_caller((struct pt_regs *)bpf_task_pt_regs(
			(struct task_struct *)bpf_get_current_task_btf()));
	} else {
		ev.r.ustack_err = (__s32)u;
	}
	/* before the sample: the recorder meets the copy first */
	if (cfg_ucopy_bytes)
		ev.useq = xlp_ucopy_send(ev.r.pid, ev.r.tid);
	if (k >= 0)
		ev.r.kstack = (__u32)k + 1;
	else
		ev.r.kstack_err = (__s32)k;
	/*
	 * No batch_flush() here: the timer interrupt may have stopped a
	 * raw_tp program of this thread in the middle of its batch (only
	 * uprobes and kprobes keep perf-event programs out, through
	 * bpf_prog_active). Samples carry their time; their order among
	 * the thread's call records does not matter. t->off.sampled is this
	 * program's alone. The first sample of a thread wakes the reader,
	 * which reads the process's mappings while it lives (a short launch
	 * may be gone by the next timed drain).
	 */
	if (!t->off.sampled) {
		t->off.sampled = 1;
		if (bpf_ringbuf_output(&rb, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP))
			stat_inc(XLP_S_RB_FULL);
	} else {
		emit(&ev, sizeof(ev));
	}
	/* the pause of the interrupted thread, as far as this program goes
	 * (the timer interrupt around it is not counted: docs/recording.md, Stack sampling) */
	c = sample_cost_add(t0);
	if (c)
		c->on_samples++;
	return 0;
}

/*
 * A thread returns to user space after a switch: the kernel announces it
 * to threads that registered rseq, which glibc does for each of them
 * since 2.35. A traced thread's last off-CPU capture gets its user side
 * here, for the samples its waits gave (offcpu_take_user), and only then:
 * most waits of a busy server cross no tick and need none. Loaded with
 * cfg_offcpu_lazy (user/record/session.c).
 */
SEC("tp_btf/rseq_update")
int BPF_PROG(xlp_rseq_update, struct task_struct *task)
{
	struct xlp_thread *t = thread_get_current();

	if (!t || !t->off.lazy)
		return 0;
	t->off.lazy = 0;
	if (t->off.npend && !t->stopped)
		offcpu_take_user(ctx, t);
	return 0;
}
