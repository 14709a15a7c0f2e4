/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The user stack copied for unwinding with CFI (record --sample): the
 * thread's user registers and the top cfg_ucopy_bytes of its stack, sent
 * as an xlp_ucopy_rec that the recorder unwinds with the binaries' own
 * .eh_frame / .debug_frame (user/symbols/stack_unwind.h). A frame-pointer walk stops or
 * skips callers in code built without frame pointers (Debian's glibc,
 * nginx, redis) and in frameless leaves; the tables do not. Used by the
 * off-CPU capture and the sampling program; the cost is timed with a sample's
 * (sample_cost), so the overhead bound covers it.
 */
#ifndef XLP_UCOPY_BPF_H
#define XLP_UCOPY_BPF_H

#include "maps.bpf.h"
#include "stat.bpf.h"
#include "emit.bpf.h"

#if defined(__TARGET_ARCH_x86)
/* return addresses put back, at most: one per pending uretprobe of a marked call */
#define XLP_UCOPY_URET_FIX 16

/*
 * A marked call's uretprobe replaced its return address on the stack with
 * the uprobes trampoline, which has no CFI: unwinding from the copy would
 * name each caller of a marked function "[unknown]" (the kernel fixes its
 * own frame-pointer walks up, not our copy). The task's pending
 * return_instances say where each return address was (ri->stack, the sp
 * at the call's entry) and what it was (orig_ret_vaddr, already resolved
 * for chained ones): written back into the copy, the unwinder sees the
 * stack the program built. Newest first, as the stack goes up. sp, len:
 * the copy's start address and length. A global function, verified once:
 * inlined, its loop was verified again for each length the copy's loop
 * can end with.
 */
__weak __noinline int xlp_ucopy_uret_fix(__u64 sp, __u64 len)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct return_instance *ri = BPF_CORE_READ(task, utask, return_instances);
	struct xlp_ucopy_buf *b;
	__u32 zero = 0;

	b = bpf_map_lookup_elem(&ucopy_buf, &zero);
	if (!b)
		return 0;
	b->r.nuret = 0;
	for (int i = 0; i < XLP_UCOPY_URET_FIX && ri; i++) {
		__u64 at = BPF_CORE_READ(ri, stack), ret = BPF_CORE_READ(ri, orig_ret_vaddr);
		__u64 o = at - sp;

		if (at >= sp && o + 8 <= len && o <= XLP_UCOPY_MAX - 8)
			bpf_probe_read_kernel(b->data + o, 8, &ret);
		if (i < XLP_UCOPY_URET_MAX) {
			b->r.uret[i].ret = ret;
			b->r.uret[i].func = BPF_CORE_READ(ri, func);
			b->r.nuret = i + 1;
		}
		ri = BPF_CORE_READ(ri, next);
	}
	return 0;
}

/*
 * Copies current's user registers and stack top into an xlp_ucopy_rec and
 * sends it. Returns its seq, or 0 when nothing was sent, XLP_UCOPY_SKIPPED
 * when the ring buffer is a quarter full (the sample keeps its
 * frame-pointer walk; the recorder counts it). The stack is read
 * page by page from sp up, and the copy ends at the first page that cannot
 * be read (the stack's end: one read across it would fail as a whole), or
 * at cfg_ucopy_bytes (XLP_UCOPY_CUT). A global function, verified once on
 * its own: as a static one the kernel verified it again on every path
 * that reached it, a third of the switch program's load time.
 */
__weak __noinline __u64 xlp_ucopy_send(__u32 pid, __u32 tid)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(
		(struct task_struct *)bpf_get_current_task_btf());
	__u64 limit = cfg_ucopy_bytes, off = 0, addr;
	struct xlp_ucopy_buf *b;
	__u32 zero = 0;

	b = bpf_map_lookup_elem(&ucopy_buf, &zero);
	if (!b || !regs || !limit)
		return 0;
	if (bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) >
	    bpf_ringbuf_query(&rb, BPF_RB_RING_SIZE) / 4)
		return XLP_UCOPY_SKIPPED;
	if (bpf_probe_read_kernel(b->r.regs, sizeof(b->r.regs), regs))
		return 0;
	if (limit > XLP_UCOPY_MAX)
		limit = XLP_UCOPY_MAX;
	addr = b->r.regs[XLP_UREG_SP];
	for (int i = 0; i < XLP_UCOPY_MAX / XLP_PAGE + 1; i++) {
		__u64 chunk = XLP_PAGE - (addr & (XLP_PAGE - 1));

		if (off >= limit)
			break;
		if (chunk > limit - off)
			chunk = limit - off;
		/* both always hold; the verifier needs them said */
		if (off > XLP_UCOPY_MAX || chunk > XLP_PAGE)
			break;
		if (bpf_probe_read_user(b->data + off, chunk, (void *)addr))
			break;
		off += chunk;
		addr += chunk;
	}
	if (!off || off > XLP_UCOPY_MAX)
		return 0;
	xlp_ucopy_uret_fix(b->r.regs[XLP_UREG_SP], off);
	b->next_seq++;
	b->r.h.type = XLP_R_UCOPY;
	b->r.h.size = sizeof(b->r) + off;
	b->r.h.cpu = bpf_get_smp_processor_id();
	b->r.pid = pid;
	b->r.tid = tid;
	/* unique across CPUs: the CPU in the low bits */
	b->r.seq = b->next_seq << 12 | (b->r.h.cpu & 4095);
	b->r.len = off;
	b->r.flags = off >= limit ? XLP_UCOPY_CUT : 0;
	if (bpf_ringbuf_output(
		    &rb, &b->r, sizeof(b->r) + off,
		    wake_flags(bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) + sizeof(b->r) + off,
			       sizeof(b->r) + off))) {
		stat_inc(XLP_S_RB_FULL);
		return 0;
	}
	return b->r.seq;
}
#else
/* arm64: not yet (user/symbols/stack_unwind.c knows x86-64's registers only): frame pointers */
static __always_inline __u64 xlp_ucopy_send(__u32 pid, __u32 tid)
{
	return 0;
}
#endif

#endif
