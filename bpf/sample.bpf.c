/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stack sampling (record --sample): a software cpu-clock perf event on
 * every CPU runs xlp_sample; when the task it interrupted is traced, its
 * user and kernel stacks go into the stack maps and a sample record names
 * them. User stacks are kept as build-id + file offset (the kernel resolves
 * the mapping at the sample): they stay nameable after the process exits,
 * and user space names them as it reads the record (user/symbolize.h).
 * Off-CPU samples come from the scheduler programs (offcpu_capture,
 * offcpu_charge in bpf/xlprobe.bpf.h), on the same period.
 */
#include "xlprobe.bpf.h"

SEC("perf_event")
int xlp_sample(struct bpf_perf_event_data *ctx)
{
	struct xlp_thread *t = thread_get_current();
	struct xlp_sample_rec rec = {};
	struct xlp_sample_cost *c;
	__u64 id, t0;
	long u, k;

	if (!t)
		return 0;
	t0 = bpf_ktime_get_ns();
	id = bpf_get_current_pid_tgid();
	rec.h.type = XLP_R_SAMPLE;
	rec.h.size = sizeof(rec);
	rec.h.cpu = bpf_get_smp_processor_id();
	rec.pid = id >> 32;
	rec.tid = (__u32)id;
	rec.time_ns = t0;
	rec.weight_ns = sample_period_ns;
	rec.kind = XLP_SAMPLE_ON_CPU;
	rec.reason = XLP_C_CPU_RUN;
	u = bpf_get_stackid(ctx, &ustacks, BPF_F_USER_STACK);
	k = bpf_get_stackid(ctx, &kstacks, 0);
	if (u >= 0)
		rec.ustack = (__u32)u + 1;
	else
		rec.ustack_err = (__s32)u;
	if (k >= 0)
		rec.kstack = (__u32)k + 1;
	else
		rec.kstack_err = (__s32)k;
	/*
	 * No batch_flush() here: the timer interrupt may have stopped a
	 * raw_tp program of this thread in the middle of its batch (only
	 * uprobes and kprobes keep perf-event programs out, through
	 * bpf_prog_active). Samples carry their time; their order among
	 * the thread's call records does not matter. t->sampled is this
	 * program's alone. The first sample of a thread wakes the reader,
	 * which reads the process's mappings while it lives (a short launch
	 * may be gone by the next timed drain).
	 */
	if (!t->sampled) {
		t->sampled = 1;
		if (bpf_ringbuf_output(&rb, &rec, sizeof(rec), BPF_RB_FORCE_WAKEUP))
			stat_inc(XLP_S_RB_FULL);
	} else {
		emit(&rec, sizeof(rec));
	}
	/* the pause of the interrupted thread, as far as this program goes
	 * (the timer interrupt around it is not counted: README, Sampling) */
	c = sample_cost_add(t0);
	if (c)
		c->on_samples++;
	return 0;
}
