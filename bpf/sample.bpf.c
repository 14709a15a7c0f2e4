/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stack sampling (record --sample): a software cpu-clock perf event on
 * every CPU runs xlp_sample; when the task it interrupted is traced, its
 * user and kernel stacks go into the stack maps and a sample record names
 * them. User stacks are kept as build-id + file offset (the kernel resolves
 * the mapping at the sample): they stay nameable after the process exits,
 * and user space names them as it reads the record (user/symbolize.h).
 */
#include "xlprobe.bpf.h"

/*
 * Not in state.bpf.c: only the sampler uses them, and user space shrinks
 * them to one entry when it does not sample. No BPF_F_REUSE_STACKID: a
 * stack id, once given, keeps its frames until the end, so the recorder
 * can read it whenever its record arrives; a stack whose bucket another
 * holds is lost (-EEXIST in the record, never silent).
 */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 8192);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, XLP_STACK_DEPTH * sizeof(struct bpf_stack_build_id));
	__uint(map_flags, BPF_F_STACK_BUILD_ID);
} ustacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 8192);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, XLP_STACK_DEPTH * sizeof(__u64));
} kstacks SEC(".maps");

SEC("perf_event")
int xlp_sample(struct bpf_perf_event_data *ctx)
{
	struct xlp_thread *t = thread_get_current();
	struct xlp_sample_rec rec = {};
	__u64 id = bpf_get_current_pid_tgid();
	long u, k;

	if (!t)
		return 0;
	rec.h.type = XLP_R_SAMPLE;
	rec.h.size = sizeof(rec);
	rec.h.cpu = bpf_get_smp_processor_id();
	rec.pid = id >> 32;
	rec.tid = (__u32)id;
	rec.time_ns = bpf_ktime_get_ns();
	rec.weight_ns = cfg_sample_period_ns;
	rec.kind = XLP_SAMPLE_ON_CPU;
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
		return 0;
	}
	emit(&rec, sizeof(rec));
	return 0;
}
