/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The off-CPU capture (record --sample): the stacks a traced thread leaves
 * a CPU with (taken at the switch-out, or its user side on the return to
 * user space), and the off-CPU samples its waits give, one per tick of
 * the sampling clock they cross.
 */
#ifndef XLP_OFFCPU_BPF_H
#define XLP_OFFCPU_BPF_H

#include "maps.bpf.h"
#include "emit.bpf.h"
#include "ucopy.bpf.h"

static __always_inline struct xlp_sample_cost *sample_cost_add(__u64 t0)
{
	__u32 zero = 0;
	struct xlp_sample_cost *c = bpf_map_lookup_elem(&sample_cost, &zero);

	if (c)
		c->cost_ns += bpf_ktime_get_ns() - t0;
	return c;
}

/*
 * A traced thread (current) leaves the CPU: the stacks it leaves with,
 * for the off-CPU samples its wait may give (offcpu_charge). ctx: the
 * tracepoint's, whose caller's registers the kernel stack starts from.
 */
#if defined(__TARGET_ARCH_x86)
/* Whether the 8 code bytes before ret end in a call instruction: direct
 * (e8 rel32), through memory (ff 15 disp32, ff 50+r disp8, ff 10+r) or a
 * register (ff d0+r). A global function, verified once: static, the kernel
 * verified it again at each of xlp_leaf_caller's 16 iterations. */
__weak __noinline int xlp_after_call(__u64 ret)
{
	__u8 c[8];

	if (bpf_probe_read_user(c, sizeof(c), (void *)(ret - 8)))
		return 0;
	return c[3] == 0xe8 || (c[2] == 0xff && c[3] == 0x15) ||
	       (c[5] == 0xff && (c[6] & 0xf8) == 0x50) || (c[6] == 0xff && (c[7] & 0xf8) == 0x10) ||
	       (c[6] == 0xff && (c[7] & 0xf8) == 0xd0);
}

/*
 * The caller a frame-pointer walk skips. A function that sets up no frame
 * (glibc is built without frame pointers, and GCC omits them in leaves)
 * leaves %rbp at its caller's frame, so the walk goes from the sampled IP
 * straight to the caller's caller: pread without load_config, crunch
 * without compute_checksum. The skipped return address was pushed by the
 * caller's call, below its frame: it is the highest word in [%rsp, %rbp)
 * that points just after a call instruction (the caller's own spills and
 * locals above it hold data, not return addresses). Nothing is guessed
 * when the gap is larger than 128 bytes or holds no such word: the stack
 * then stays as the walk gave it. When the sampled function did set up
 * its frame, [%rsp, %rbp) is its locals and the walk was right; the
 * recorder inserts the address only between the first two frames.
 * sp, bp: the thread's user %rsp and %rbp. 0: none found. A global
 * function, verified once on its own: inlined into the scheduler program
 * its loop multiplied that program's paths past the verifier's limit.
 */
__weak __noinline __u64 xlp_leaf_caller(__u64 sp, __u64 bp)
{
	struct xlp_scan *b;
	__u32 zero = 0;
	__u64 n;

	if (bp <= sp || (bp - sp) & 7 || bp - sp > sizeof(b->w))
		return 0;
	n = (bp - sp) / 8;
	b = bpf_map_lookup_elem(&scan_buf, &zero);
	if (!b || n < 1 || n > XLP_SCAN_WORDS)
		return 0;
	if (bpf_probe_read_user(b->w, n * 8, (void *)sp))
		return 0;
	/* no other state across iterations: the verifier prunes each one's paths */
	for (int i = XLP_SCAN_WORDS - 1; i >= 0; i--) {
		__u64 w;

		if ((__u64)i >= n)
			continue;
		w = b->w[i];
		/* user text: above the first page, below the canonical hole */
		if (w < 4096 || w >= (1ull << 47))
			continue;
		if (xlp_after_call(w))
			return w;
	}
	return 0;
}

static __always_inline __u64 leaf_caller(struct pt_regs *regs)
{
	if (!regs)
		return 0;
	return xlp_leaf_caller(BPF_CORE_READ(regs, sp), BPF_CORE_READ(regs, bp));
}
#else
/* arm64 keeps a leaf's return address in the link register, not on the stack */
static __always_inline __u64 leaf_caller(struct pt_regs *regs)
{
	return 0;
}
#endif

/* a task's user sp and ip; the length of the syscall instruction, which
 * a restarted syscall returns to (ip moved back by it) */
#if defined(__TARGET_ARCH_x86)
#define XLP_USER_SP(r) ((r)->sp)
#define XLP_USER_IP(r) ((r)->ip)
#define XLP_SYSCALL_INSN 2 /* syscall */
#else
#define XLP_USER_SP(r) ((r)->sp)
#define XLP_USER_IP(r) ((r)->pc)
#define XLP_SYSCALL_INSN 4 /* svc #0 */
#endif

/* One off-CPU sample record. */
static __always_inline void offcpu_emit(struct xlp_thread *t, __u64 time, __u64 weight,
					__u32 reason, __u32 kstack, __s32 kerr, __u32 ustack,
					__s32 uerr, __u64 ucaller, __u64 useq)
{
	struct xlp_sample_ev ev = {};
	struct xlp_sample_cost *c;
	__u32 zero = 0;

	ev.r.h.type = XLP_R_SAMPLE;
	ev.r.h.size = sizeof(ev);
	ev.r.h.cpu = bpf_get_smp_processor_id();
	ev.r.pid = t->pid;
	ev.r.tid = t->tid;
	ev.r.time_ns = time;
	ev.r.weight_ns = weight;
	ev.r.ustack = ustack;
	ev.r.kstack = kstack;
	ev.r.ustack_err = uerr;
	ev.r.kstack_err = kerr;
	ev.r.kind = XLP_SAMPLE_OFF_CPU;
	ev.r.reason = reason;
	c = bpf_map_lookup_elem(&sample_cost, &zero);
	if (c)
		c->off_samples++;
	ev.ucaller = ucaller;
	ev.useq = useq;
	emit(&ev, sizeof(ev));
}

/*
 * The pending samples go out with the user side given: the one taken on
 * the return to user space, or none (ustack 0) and why (uerr) when it can
 * no longer be taken (the thread exits, recording stops, or another user
 * context took over), which the recorder counts among the samples without
 * their user stack. A global function, verified once on its own: inlined
 * at its callers (the switch program among them) its loop of emits
 * tripled the time the kernel took to load that program.
 */
__weak __noinline int xlp_offcpu_pend_send(struct xlp_thread *t, __u32 ustack, int uerr,
					   __u64 ucaller, __u64 useq)
{
	__u32 n;

	if (!t)
		return 0;
	n = t->off.npend;
	t->off.npend = 0;
	for (int i = 0; i < XLP_OFF_PEND; i++) {
		struct xlp_off_pend *q = &t->off.pend[i];

		if ((__u32)i >= n)
			break;
		offcpu_emit(t, q->time_ns, q->weight_ns, q->reason, q->kstack, q->kerr, ustack,
			    uerr, ucaller, useq);
	}
	return 0;
}

#define offcpu_pend_drop(t, err) xlp_offcpu_pend_send(t, 0, err, 0, 0)

/*
 * The thread (current) is back in user space: its registers and stack are
 * those it left the CPU with, unless a signal handler's frame was pushed
 * meanwhile (then the sp or ip differs and the pending samples go without
 * a user stack, -XLP_ERR_STALE). A syscall the kernel restarts (a stop,
 * eu-stack's ptrace, a signal without a handler) returns to its syscall
 * instruction, in the same function on the same stack: that one is the
 * same. Takes the user side once for all of them.
 */
static __always_inline void offcpu_take_user(void *ctx, struct xlp_thread *t)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(
		(struct task_struct *)bpf_get_current_task_btf());
	__u64 t0 = bpf_ktime_get_ns(), ucaller = 0, useq;
	__u32 ustack = 0, zero = 0;
	struct xlp_sample_cost *c;
	__s32 uerr = 0;
	long u;

	if (XLP_USER_SP(regs) != t->off.sp ||
	    (XLP_USER_IP(regs) != t->off.ip && XLP_USER_IP(regs) != t->off.ip - XLP_SYSCALL_INSN)) {
		offcpu_pend_drop(t, -XLP_ERR_STALE);
		return;
	}
	u = bpf_get_stackid(ctx, &ustacks, BPF_F_USER_STACK);
	if (u >= 0) {
		ustack = (__u32)u + 1;
		ucaller = leaf_caller(regs);
	} else {
		uerr = (__s32)u;
	}
	/* before the samples: the recorder meets the copy first */
	useq = cfg_ucopy_bytes ? xlp_ucopy_send(t->pid, t->tid) : 0;
	xlp_offcpu_pend_send(t, ustack, uerr, ucaller, useq);
	c = bpf_map_lookup_elem(&sample_cost, &zero);
	if (c) {
		t0 = bpf_ktime_get_ns() - t0;
		c->cost_ns += t0;
		c->off_cost_ns += t0;
		c->off_deferred++;
	}
}

/*
 * Whether current's user stack can wait for its return to user space. A
 * global function, verified once: task->rseq is a walk from a trusted
 * pointer (see xlp_rq_clock).
 */
__weak __noinline int xlp_offcpu_can_defer(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	/* the kernel announces the return only to threads that registered rseq */
	return cfg_offcpu_lazy && bpf_core_field_exists(task->rseq) && task->rseq;
}

static __always_inline void offcpu_capture(void *ctx, struct xlp_thread *t)
{
	__u32 every = offcpu_every, zero = 0;
	/* one lookup for the CPU time and the cost: this runs at every switch */
	struct xlp_sample_cost *c = bpf_map_lookup_elem(&sample_cost, &zero);
	struct pt_regs *regs;
	__u64 t0, sp, ip;
	long u, k;

	t->off.valid = 0;
	if (!c)
		return;
	/* the traced threads' CPU time, which the bound is a share of */
	c->cpu_ns += t->acct.c[XLP_C_CPU_RUN] - t->off.cpu_told;
	t->off.cpu_told = t->acct.c[XLP_C_CPU_RUN];
	if (every > 1 && bpf_get_prandom_u32() % every)
		return;
	t0 = bpf_ktime_get_ns();
	regs = (struct pt_regs *)bpf_task_pt_regs((struct task_struct *)bpf_get_current_task_btf());
	if (xlp_offcpu_can_defer()) {
		sp = XLP_USER_SP(regs);
		ip = XLP_USER_IP(regs);
		/* samples left from another user context must not get this one's stack */
		if (t->off.npend && (!t->off.lazy || sp != t->off.sp || ip != t->off.ip))
			offcpu_pend_drop(t, -XLP_ERR_SRCH);
		t->off.lazy = 1;
		t->off.sp = sp;
		t->off.ip = ip;
		t->off.ustack = 0;
		t->off.uerr = 0;
		t->off.ucaller = 0;
		t->off.useq = 0;
	} else {
		if (t->off.npend)
			offcpu_pend_drop(t, -XLP_ERR_SRCH);
		t->off.lazy = 0;
		u = bpf_get_stackid(ctx, &ustacks, BPF_F_USER_STACK);
		t->off.ustack = u >= 0 ? (__u32)u + 1 : 0;
		t->off.uerr = u >= 0 ? 0 : (__s32)u;
		t->off.ucaller = u >= 0 ? leaf_caller(regs) : 0;
		/* the registers saved at the syscall's entry: the function that made
		 * it is the copy's first frame, whatever libc did */
		t->off.useq = cfg_ucopy_bytes ? xlp_ucopy_send(t->pid, t->tid) : 0;
	}
	k = bpf_get_stackid(ctx, &kstacks, 0);
	t->off.kstack = k >= 0 ? (__u32)k + 1 : 0;
	t->off.kerr = k >= 0 ? 0 : (__s32)k;
	t->off.valid = every ? every : 1;
	t0 = bpf_ktime_get_ns() - t0;
	c->cost_ns += t0;
	c->off_cost_ns += t0;
	c->off_captures++;
}

/*
 * An off-CPU sample of weight ns for t's wait of counter reason, ended at
 * now: sent with its switch-out's stacks, or, for a lazy capture, kept in
 * t->off.pend until its user stack is taken. A global function, verified once
 * (see xlp_offcpu_pend_send): the wait's end is in many programs.
 */
__weak __noinline int xlp_offcpu_sample(struct xlp_thread *t, __u64 now, __u64 weight, __u32 reason)
{
	struct xlp_off_pend *q;
	__u32 n;

	if (!t)
		return 0;
	if (!t->off.lazy) {
		offcpu_emit(t, now, weight, reason, t->off.kstack, t->off.kerr, t->off.ustack,
			    t->off.uerr, t->off.ucaller, t->off.useq);
		return 0;
	}
	n = t->off.npend;
	if (n >= XLP_OFF_PEND) {
		/* more waits than slots in one stay in the kernel: counted as
		 * samples without a user stack */
		offcpu_emit(t, now, weight, reason, t->off.kstack, t->off.kerr, 0, -XLP_ERR_NOSPC,
			    0, 0);
		return 0;
	}
	q = &t->off.pend[n & (XLP_OFF_PEND - 1)];
	q->time_ns = now;
	q->weight_ns = weight;
	q->reason = reason;
	q->kstack = t->off.kstack;
	q->kerr = t->off.kerr;
	q->__pad = 0;
	t->off.npend = n + 1;
	return 0;
}

/*
 * The wait of t from `from` to now, of counter `reason`, ends: as many
 * ticks of the virtual clock of period sample_period_ns as it crossed go
 * out as one off-CPU sample with the stacks of its switch-out. A wait of
 * d ns crosses d / period ticks on average whatever its phase, so off-CPU
 * time is estimated without bias, on the grid on-CPU samples use, and a
 * thread that waits often and briefly sends at most one record per tick.
 * A lazy capture's sample waits in t->off.pend for its user stack.
 */
static __always_inline void offcpu_charge(struct xlp_thread *t, __u64 from, __u64 now, __u32 reason)
{
	__u64 period = sample_period_ns, ticks;

	if (!period || !t->off.valid || now <= from || t->stopped)
		return;
	ticks = now / period - from / period;
	if (!ticks)
		return;
	xlp_offcpu_sample(t, now, ticks * period * t->off.valid, reason);
}

#endif
