/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Marked function invocations. The entry uprobe pushes a frame with a
 * snapshot of the thread's counters; the return probe pops it and emits one
 * record with inclusive and exclusive deltas. Exclusive = inclusive minus
 * the inclusive deltas of nested marked calls, including those filtered by
 * --min-dur, so exclusive times add up exactly (LagHunter's exact exclusive
 * time). The attach cookie carries the function id and flags (XLP_COOKIE).
 *
 * Every marked call pays both probes, so the return path has a fast lane:
 * a call that never blocked (every counter outside XLP_SHORT_CTR_LIST
 * unmoved, which the snapshot tells exactly) only computes those six
 * counters and writes a struct xlp_call_short_rec of those that moved (48
 * bytes for a call that ran uninterrupted) into the thread's batch, which
 * goes to the ring buffer XLP_BATCH_BYTES at a time (batch_flush), instead
 * of 20 counters into a 376-byte record of its own (the recorder also
 * compresses every byte, ~5 ns each here).
 */
#include "xlprobe.bpf.h"

static __always_inline void proc_now(struct xlp_proc *p, struct xlp_thread *t, __u64 now,
				     __u64 *out)
{
	__u64 d = now > t->ts ? now - t->ts : 0;

#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		out[i] = p->c[i];
	out[XLP_C_WALL] = now;
	/* only the calling thread's open on-CPU interval is known here */
	out[XLP_C_CPU_RUN] += d;
	out[XLP_C_FREQ_KHZ_NS] += freq_integral(t->last_cpu, now) - t->freq_at_in;
}

/*
 * The thread runs this very moment. Any other state means it was traced
 * since before attach and has not switched yet, or a scheduler event was
 * missed: either way it is running from now on. Its block I/O counted by
 * others is folded in first: the snapshot must see it.
 */
static __always_inline void thread_sync(struct xlp_thread *t, __u64 now)
{
	struct task_struct *task;

	blk_fold(t);
	if (t->state == XLP_T_RUNNING)
		return;
	if (t->state != XLP_T_UNKNOWN) {
		task = bpf_get_current_task_btf();
		thread_recover(t, proc_get(t), now, task->se.sum_exec_runtime,
			       kernel_delay_running(task), true);
	}
	t->state = XLP_T_RUNNING;
	t->ts = now;
	t->run_exposed = 0;
	t->last_cpu = bpf_get_smp_processor_id();
	t->freq_at_in = freq_integral(t->last_cpu, now);
}

SEC("uprobe")
int xlp_func_entry(struct pt_regs *ctx)
{
	struct xlp_thread *t = thread_get_current_traced();
	struct xlp_frame *f;
	__u64 now, cookie;
	__u32 d;

	if (!t)
		return 0;
	now = bpf_ktime_get_ns();
	cookie = bpf_get_attach_cookie(ctx); /* XLP_COOKIE() */
	d = t->depth;
	t->depth = d + 1;
	if (d >= XLP_MAX_DEPTH) {
		stat_inc(XLP_S_STACK_OVERFLOW);
		return 0;
	}
	thread_sync(t, now);
	f = &t->stack[d];
	f->func_id = (__u32)cookie;
	f->flags = (cookie >> 32) & XLP_CALL_INTERACTION;
	thread_now(t, now, f->snap);
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		f->child[i] = 0;
	if (!t->run_depth && (f->flags & XLP_CALL_INTERACTION)) {
		struct xlp_proc *p = proc_get(t);

		if (p) {
			proc_now(p, t, now, t->run_proc_snap);
			t->run_depth = d + 1;
		}
	}
	return 0;
}

static __always_inline void emit_run(struct xlp_thread *t, struct xlp_frame *f, __u64 now)
{
	__u32 k = 1;
	struct xlp_call_rec *scratch = bpf_map_lookup_elem(&call_scratch, &k);
	struct xlp_run_rec *rec = (void *)scratch;
	struct xlp_proc *p = proc_get(t);

	if (!rec || !p)
		return;
	proc_now(p, t, now, rec->proc);
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		rec->proc[i] -= t->run_proc_snap[i];
	batch_flush(t);
	rec->h.type = XLP_R_RUN;
	rec->h.size = sizeof(*rec);
	rec->h.cpu = bpf_get_smp_processor_id();
	rec->func_id = f->func_id;
	rec->pid = t->pid;
	rec->tid = t->tid;
	rec->__pad = 0;
	rec->entry_ns = f->snap[XLP_C_WALL];
	emit(rec, sizeof(*rec));
}

/* Counter c is one of the compact record's (a constant once unrolled). */
static __always_inline bool is_short(int c)
{
#define XLP_SHORT_IS(id) c == XLP_C_##id ||
	return XLP_SHORT_CTR_LIST(XLP_SHORT_IS) false;
#undef XLP_SHORT_IS
}

/*
 * A call that never blocked: its record is compact. Only the six counters
 * move; the parent's child sums of the others stay as they are. The record
 * holds the ones that moved (struct xlp_call_short_rec) and goes into the
 * thread's batch.
 */
static __always_inline void return_short(struct xlp_thread *t, struct xlp_frame *f,
					 struct xlp_frame *parent, __u32 d, __u64 now)
{
	struct xlp_call_short_rec *rec;
	__u64 incl[XLP_NR_SHORT], open = now > t->ts ? now - t->ts : 0;
	__u32 off, n = 0, mask = 0;

	/* thread_now() for these six: thread_sync() made the thread running */
	if (open > t->run_exposed)
		t->run_exposed = open;
	incl[XLP_SH_WALL] = now - f->snap[XLP_C_WALL];
	incl[XLP_SH_CPU_RUN] = t->c[XLP_C_CPU_RUN] + open - f->snap[XLP_C_CPU_RUN];
	incl[XLP_SH_CPU_WAIT] = t->c[XLP_C_CPU_WAIT] - f->snap[XLP_C_CPU_WAIT];
	incl[XLP_SH_FREQ_KHZ_NS] = t->c[XLP_C_FREQ_KHZ_NS] + freq_integral(t->last_cpu, now) -
				   t->freq_at_in - f->snap[XLP_C_FREQ_KHZ_NS];
	incl[XLP_SH_NIVCSW] = t->c[XLP_C_NIVCSW] - f->snap[XLP_C_NIVCSW];
	incl[XLP_SH_MIGRATIONS] = t->c[XLP_C_MIGRATIONS] - f->snap[XLP_C_MIGRATIONS];
	if (parent) {
#define XLP_SHORT_CHILD(id) parent->child[XLP_C_##id] += incl[XLP_SH_##id];
		XLP_SHORT_CTR_LIST(XLP_SHORT_CHILD)
#undef XLP_SHORT_CHILD
	}
	if (incl[XLP_SH_WALL] < cfg_min_dur_ns) {
		stat_inc(XLP_S_MIN_DUR);
		return;
	}
	off = t->batch_len;
	if (off > XLP_BATCH_BYTES)
		return; /* cannot happen: batch_flush() keeps it below */
	rec = (void *)(t->batch + off);
	rec->h.type = XLP_R_CALL_SHORT;
	rec->h.cpu = bpf_get_smp_processor_id();
	rec->func_id = f->func_id;
	rec->pid = t->pid;
	rec->tid = t->tid;
	rec->depth = d;
	rec->flags = f->flags;
	rec->entry_ns = f->snap[XLP_C_WALL];
	rec->__pad = 0;
	/* the values that moved, then the exclusive ones nested calls changed */
	if (incl[XLP_SH_CPU_RUN] == incl[XLP_SH_WALL]) {
		mask |= XLP_SHORT_RUN_IS_WALL;
		incl[XLP_SH_CPU_RUN] = 0; /* not stored */
	}
#define XLP_SHORT_INCL(id)                                                                         \
	if (incl[XLP_SH_##id]) {                                                                   \
		rec->val[n & 15] = incl[XLP_SH_##id];                                              \
		mask |= 1u << XLP_SH_##id;                                                         \
		n++;                                                                               \
	}
	XLP_SHORT_CTR_LIST(XLP_SHORT_INCL)
#undef XLP_SHORT_INCL
	if (mask & XLP_SHORT_RUN_IS_WALL)
		incl[XLP_SH_CPU_RUN] = incl[XLP_SH_WALL];
#define XLP_SHORT_EXCL(id)                                                                         \
	if (f->child[XLP_C_##id]) {                                                                \
		rec->val[n & 15] = incl[XLP_SH_##id] - f->child[XLP_C_##id];                       \
		mask |= 1u << (XLP_NR_SHORT + XLP_SH_##id);                                        \
		n++;                                                                               \
	}
	XLP_SHORT_CTR_LIST(XLP_SHORT_EXCL)
#undef XLP_SHORT_EXCL
	rec->mask = mask;
	rec->h.size = sizeof(*rec) + 8 * n;
	/* written before counted: the flush at stop may read the batch */
	t->batch_len = off + sizeof(*rec) + 8 * n;
	t->batch_recs++;
	if (t->batch_len > XLP_BATCH_BYTES - XLP_SHORT_MAX)
		batch_flush(t);
}

/* Any other call: every counter, and the IPC peer it waited on. */
static __always_inline void return_full(struct xlp_thread *t, struct xlp_frame *f,
					struct xlp_frame *parent, __u32 d, __u64 now)
{
	struct xlp_call_rec *rec;
	__u32 k = 0;

	rec = bpf_map_lookup_elem(&call_scratch, &k);
	if (!rec)
		return;
	thread_now(t, now, rec->incl);
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++) {
		/* counters only grow (FREQ_KHZ_NS wraps: modulo 2^64 is right) */
		rec->incl[i] -= f->snap[i];
		rec->excl[i] = rec->incl[i] - f->child[i];
		if (parent)
			parent->child[i] += rec->incl[i];
	}
	if (rec->incl[XLP_C_WALL] < cfg_min_dur_ns) {
		stat_inc(XLP_S_MIN_DUR);
		return;
	}
	rec->h.type = XLP_R_CALL;
	rec->h.size = sizeof(*rec);
	rec->h.cpu = bpf_get_smp_processor_id();
	rec->func_id = f->func_id;
	rec->pid = t->pid;
	rec->tid = t->tid;
	rec->depth = d;
	rec->flags = f->flags;
	rec->entry_ns = f->snap[XLP_C_WALL];
	rec->__pad = 0;
	/* the peer is named only for calls that waited on IPC themselves */
	rec->ipc_peer_pid = rec->incl[XLP_C_IPC] ? t->ipc_peer_pid : 0;
	if (rec->ipc_peer_pid) {
		rec->flags |= XLP_CALL_IPC_PEER;
		bpf_probe_read_kernel(rec->ipc_peer_comm, sizeof(rec->ipc_peer_comm),
				      t->ipc_peer_comm);
	} else {
		__builtin_memset(rec->ipc_peer_comm, 0, sizeof(rec->ipc_peer_comm));
	}
	batch_flush(t);
	emit(rec, sizeof(*rec));
}

SEC("uretprobe")
int xlp_func_return(struct pt_regs *ctx)
{
	struct xlp_thread *t = thread_get_current_traced();
	struct xlp_frame *f, *parent = NULL;
	__u64 now, moved = 0;
	__u32 d;

	if (!t)
		return 0;
	now = bpf_ktime_get_ns();
	d = t->depth;
	if (!d) {
		/* the call began before we attached */
		stat_inc(XLP_S_STACK_MISMATCH);
		return 0;
	}
	d--;
	t->depth = d;
	if (d >= XLP_MAX_DEPTH)
		return 0;
	f = &t->stack[d];
	if (d > 0 && d - 1 < XLP_MAX_DEPTH)
		parent = &t->stack[d - 1];
	if (f->func_id != (__u32)bpf_get_attach_cookie(ctx))
		stat_inc(XLP_S_STACK_MISMATCH); /* longjmp or a missed return */
	stat_inc(XLP_S_CALLS);
	thread_sync(t, now);
	if (t->run_depth == d + 1) {
		emit_run(t, f, now);
		t->run_depth = 0;
	}
	/* the counters outside the compact record have no open interval:
	 * the stored ones are current */
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		if (!is_short(i))
			moved |= t->c[i] ^ f->snap[i];
	if (moved)
		return_full(t, f, parent, d, now);
	else
		return_short(t, f, parent, d, now);
	return 0;
}
