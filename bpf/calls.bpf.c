/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Marked function invocations. The entry uprobe pushes a frame with a
 * snapshot of the thread's counters; the return probe pops it and emits one
 * record with inclusive and exclusive deltas. Exclusive = inclusive minus
 * the inclusive deltas of nested marked calls, including those filtered by
 * --min-dur, so exclusive times add up exactly (LagHunter's exact exclusive
 * time). The attach cookie carries the function id and flags (XLP_COOKIE).
 *
 * Every marked call pays both probes, so its record is compact (struct
 * xlp_call_compact_rec: only the counters that moved, 48 bytes for a call
 * that ran uninterrupted against 376) and goes into the thread's batch,
 * which reaches the ring buffer XLP_BATCH_BYTES at a time (batch_flush):
 * the ring buffer's cost per record, and the bytes the recorder compresses
 * (~5 ns each here), were most of a short call's cost. And the return path
 * has a fast lane: a call that did not block (every counter outside
 * XLP_FAST_CTR_LIST unmoved, which the snapshot tells exactly) computes
 * six counters, not twenty.
 */
#include "reasons.bpf.h"
#include "prewake.bpf.h"

static __always_inline void proc_now(struct xlp_proc *p, struct xlp_thread *t, __u64 now,
				     __u64 *out)
{
	__u64 d = now > t->acct.ts ? now - t->acct.ts : 0, steal;

#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		out[i] = p->c[i];
	out[XLP_C_WALL] = now;
	/* only the calling thread's open on-CPU interval is known here */
	out[XLP_C_CPU_RUN] += open_split(t, steal_clock(t->acct.last_cpu), d, &steal);
	out[XLP_C_CPU_STEAL] += steal;
	out[XLP_C_FREQ_KHZ_NS] += freq_integral(t->acct.last_cpu, now) - t->acct.freq_at_in;
}

/*
 * The thread runs this very moment. Any other state means it was traced
 * since before attach and has not switched yet, or a scheduler event was
 * missed: either way it is running from now on. RUNNING is not enough
 * either: a preemption whose two switches reached no program leaves it
 * RUNNING, and the task's own switch counts are checked (ksw_unseen()) so
 * that a call around it gets the runqueue wait and the switch, not the
 * other task's time as its cpu_run. Its block I/O counted by others is
 * folded in first: the snapshot must see it.
 */
static __always_inline void thread_sync(struct xlp_thread *t, __u64 now)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 nv, niv;
	bool unseen;

	blk_fold(t);
	unseen = ksw_unseen(t, task->nvcsw, task->nivcsw, &nv, &niv);
	if (t->acct.state == XLP_T_RUNNING && !unseen)
		return;
	t->acct.c[XLP_C_NVCSW] += nv;
	t->acct.c[XLP_C_NIVCSW] += niv;
	if (t->acct.state == XLP_T_RUNNING) {
		/*
		 * Out and back in unseen: the growth of its run_delay was the
		 * runqueue wait, the rest of the span on a CPU (simpler than
		 * thread_recover(), whose every inlined copy costs the
		 * verifier time at each start; a sleep hidden this way, never
		 * seen here, would count as on-CPU time). Of that, steal: at
		 * least what a snapshot already showed (or the steal would
		 * move into the cpu_run of the call around it: a CI run's
		 * call got 0.39 ms more than the thread ran), and what the
		 * CPU's steal since the switch-in exceeds the wait by (the
		 * wait's own steal is in run_delay).
		 */
		__u64 span = now > t->acct.ts ? now - t->acct.ts : 0,
		      delay = kernel_delay_running(task);
		__u64 wait = t->acct.delay_seen && delay > t->acct.delay_seen
				     ? delay - t->acct.delay_seen
				     : 0;
		__u64 steal = steal_since_in(t, steal_clock(t->acct.last_cpu));
		struct xlp_proc *p = proc_get(t);

		stat_inc(XLP_S_SCHED_MISSED);
		if (wait > span)
			wait = span;
		steal = steal > wait ? steal - wait : 0;
		if (steal < t->acct.steal_exposed)
			steal = t->acct.steal_exposed;
		if (steal > span - wait)
			steal = span - wait;
		ctr_add(t, p, XLP_C_CPU_WAIT, wait);
		ctr_add(t, p, XLP_C_CPU_STEAL, steal);
		thread_account_d(t, p, now, span - wait - steal);
		if (delay)
			t->acct.delay_seen = delay;
		t->acct.exec_at_in = task->se.sum_exec_runtime;
	} else if (t->acct.state != XLP_T_UNKNOWN) {
		ev_sync_missed(t, proc_get(t), now, task->se.sum_exec_runtime,
			       kernel_delay_running(task),
			       kernel_ran_since_in(task, bpf_get_smp_processor_id()), true);
	}
	t->acct.state = XLP_T_RUNNING;
	t->acct.ts = now;
	t->acct.last_cpu = bpf_get_smp_processor_id();
	t->acct.freq_at_in = freq_integral(t->acct.last_cpu, now);
	steal_reset(t, steal_clock(t->acct.last_cpu));
}

/* Argument n of the call (the first five: what libbpf's PT_REGS_PARM gives
 * on every architecture), read, not loaded: a load through a computed ctx
 * offset is refused. */
static __always_inline __u64 call_arg(struct pt_regs *ctx, __u32 n)
{
	return n == 0	? PT_REGS_PARM1_CORE(ctx)
	       : n == 1 ? PT_REGS_PARM2_CORE(ctx)
	       : n == 2 ? PT_REGS_PARM3_CORE(ctx)
	       : n == 3 ? PT_REGS_PARM4_CORE(ctx)
			: PT_REGS_PARM5_CORE(ctx);
}

static __always_inline void taskev_emit(struct xlp_thread *t, __u16 kind, __u32 n, __u64 key,
					__u32 func_id, __u64 now)
{
	struct xlp_taskev_rec r;

	r.h.type = XLP_R_TASKEV;
	r.h.size = sizeof(r);
	r.h.cpu = bpf_get_smp_processor_id();
	r.pid = t->pid;
	r.tid = t->tid;
	r.entry_ns = now;
	r.key = key;
	r.func_id = func_id;
	r.kind = kind;
	r.arg = (__u16)n;
	emit(&r, sizeof(r));
}

/* record --task-post / --task-run / --until: the task's or the run's key */
static __always_inline void task_event(__u64 key, struct xlp_thread *t, __u32 flags, __u32 func_id,
				       __u64 now)
{
	__u32 n = XLP_COOKIE_TASK_ARG_OF(flags);
	__u16 kind = (flags & XLP_COOKIE_TASK_POST)   ? XLP_TASKEV_POST
		     : (flags & XLP_COOKIE_TASK_RUN)  ? XLP_TASKEV_RUN
		     : (flags & XLP_COOKIE_RUN_BEGIN) ? XLP_TASKEV_BEGIN
						      : XLP_TASKEV_END;

	taskev_emit(t, kind, n, key, func_id, now);
}

/*
 * A marked call begins: cookie is XLP_COOKIE(), key and size the values of
 * the arguments its flags name (0 when they name none). The uprobe reads
 * them from the registers, bpf/usdt.bpf.c from a USDT probe's arguments.
 */
static __always_inline int call_enter(__u64 cookie, __u64 key, __u64 size)
{
	struct xlp_thread *t = thread_get_current_traced();
	struct xlp_frame *f;
	__u64 now;
	__u32 d;

	if (!t)
		return 0;
	now = bpf_ktime_get_ns();
	d = t->calls.depth;
	t->calls.depth = d + 1;
	if (d >= XLP_MAX_DEPTH) {
		stat_inc(XLP_S_STACK_OVERFLOW);
		return 0;
	}
	thread_sync(t, now);
	f = &t->calls.stack[d];
	f->func_id = (__u32)cookie;
	f->flags = (cookie >> 32) & XLP_CALL_INTERACTION;
	thread_now(t, now, f->snap);
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		f->child[i] = 0;
	if ((cookie >> 32) & XLP_COOKIE_KEYED)
		task_event(key, t, (__u32)(cookie >> 32), (__u32)cookie, now);
	if (!t->calls.run_depth && (f->flags & XLP_CALL_INTERACTION)) {
		struct xlp_proc *p = proc_get(t);

		if (p) {
			proc_now(p, t, now, t->calls.run_proc_snap);
			t->calls.run_depth = d + 1;
			prewake_begin(t, p, f, now);
			/* --size-arg: once per run, not per nested interaction call */
			if ((cookie >> 32) & XLP_COOKIE_SIZE) {
				__u32 n = XLP_COOKIE_SIZE_ARG_OF((__u32)(cookie >> 32));

				taskev_emit(t, XLP_TASKEV_SIZE, n, size, (__u32)cookie, now);
			}
		}
	}
	/* the first marked call since the wakeup, whichever it is */
	t->pw.armed = 0;
	return 0;
}

static __always_inline void emit_run(struct xlp_thread *t, struct xlp_frame *f, __u64 now)
{
	__u32 k = 0;
	struct xlp_run_rec *rec = bpf_map_lookup_elem(&run_scratch, &k);
	struct xlp_proc *p = proc_get(t);

	if (!rec || !p || t->stopped)
		return;
	proc_now(p, t, now, rec->proc);
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		rec->proc[i] -= t->calls.run_proc_snap[i];
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

/*
 * The counters a call that did not block can move: if every other one is
 * where the entry snapshot left it, only these are computed (the fast lane).
 */
#define XLP_FAST_CTR_LIST(X)                                                                       \
	X(WALL) X(CPU_RUN) X(CPU_WAIT) X(FREQ_KHZ_NS) X(NIVCSW) X(MIGRATIONS) X(CPU_STEAL)

/* Counter c is one of them (a constant once unrolled). */
static __always_inline bool is_fast(int c)
{
#define XLP_FAST_IS(id) c == XLP_C_##id ||
	return XLP_FAST_CTR_LIST(XLP_FAST_IS) false;
#undef XLP_FAST_IS
}

/*
 * A compact record's fixed part at the end of the thread's batch, which is
 * flushed first when a record of the largest size might not fit. The
 * slack after XLP_BATCH_BYTES lets the verifier see that the values, at
 * indexes masked to 63, stay inside.
 */
static __always_inline struct xlp_call_compact_rec *rec_begin(struct xlp_thread *t,
							      struct xlp_frame *f, __u32 d)
{
	struct xlp_call_compact_rec *rec;
	__u32 off;

	if (t->stopped)
		return NULL; /* recording ended for it: its totals are out */
	if (t->batch.len > XLP_BATCH_BYTES - XLP_COMPACT_MAX)
		batch_flush(t);
	off = t->batch.len;
	if (off > XLP_BATCH_BYTES - XLP_COMPACT_MAX)
		return NULL; /* cannot happen: for the verifier */
	rec = (void *)(t->batch.buf + off);
	rec->h.type = XLP_R_CALL_COMPACT;
	rec->h.cpu = bpf_get_smp_processor_id();
	rec->func_id = f->func_id;
	rec->pid = t->pid;
	rec->tid = t->tid;
	rec->depth = d;
	rec->flags = f->flags;
	rec->entry_ns = f->snap[XLP_C_WALL];
	rec->mask = 0; /* the count of values until rec_end (REC_PUT) */
	return rec;
}

/* rec_begin for a call of wall ns, unless --min-dur drops it (counted): NULL then. */
static __always_inline struct xlp_call_compact_rec *
rec_begin_kept(struct xlp_thread *t, struct xlp_frame *f, __u32 d, __u64 wall)
{
	if (wall < cfg_min_dur_ns) {
		stat_inc(XLP_S_MIN_DUR);
		return NULL;
	}
	return rec_begin(t, f, d);
}

static __always_inline void rec_end(struct xlp_thread *t, struct xlp_call_compact_rec *rec,
				    __u64 mask, __u32 size)
{
	rec->mask = mask;
	rec->h.size = size;
	/* written before counted: the flush at stop may read the batch */
	t->batch.len += size;
	t->batch.recs++;
}

/*
 * Appends value v of mask bit b when it is to be stored (cond). The count
 * of values stored so far is kept in the record (in rec->mask, until
 * rec_end writes the mask there), not in a register: the kernel's verifier
 * follows a register's exact value, and with the slot index in one it
 * walked every combination of stored values apart, half of the return
 * program's load time. Read back from memory, the count is only known to
 * lie in [0, 63], the same on every path, and the paths merge after each
 * value. rec_n() reads it.
 */
#define REC_PUT(cond, b, v)                                                                        \
	if (cond) {                                                                                \
		__u64 n_ = rec_n(rec);                                                             \
		rec->val[n_] = (v);                                                                \
		*(volatile __u64 *)&rec->mask = n_ + 1;                                            \
		mask |= 1ull << (b);                                                               \
	}

static __always_inline __u64 rec_n(struct xlp_call_compact_rec *rec)
{
	return *(volatile __u64 *)&rec->mask & 63;
}

/*
 * A call that did not block: only the fast counters moved, and the parent's
 * child sums of the others stay as they are.
 */
static __always_inline void return_fast(struct xlp_thread *t, struct xlp_frame *f,
					struct xlp_frame *parent, __u32 d, __u64 now)
{
	/* indexed by counter; only the fast ones are set, and read */
	__u64 incl[XLP_NR_CTR], open = now > t->acct.ts ? now - t->acct.ts : 0, mask = 0, steal;
	struct xlp_call_compact_rec *rec;

	/* thread_now() for these: thread_sync() made the thread running */
	open = open_split(t, steal_clock(t->acct.last_cpu), open, &steal);
	incl[XLP_C_WALL] = now - f->snap[XLP_C_WALL];
	incl[XLP_C_CPU_RUN] = t->acct.c[XLP_C_CPU_RUN] + open - f->snap[XLP_C_CPU_RUN];
	incl[XLP_C_CPU_STEAL] = t->acct.c[XLP_C_CPU_STEAL] + steal - f->snap[XLP_C_CPU_STEAL];
	incl[XLP_C_CPU_WAIT] = t->acct.c[XLP_C_CPU_WAIT] - f->snap[XLP_C_CPU_WAIT];
	incl[XLP_C_FREQ_KHZ_NS] = t->acct.c[XLP_C_FREQ_KHZ_NS] +
				  freq_integral(t->acct.last_cpu, now) - t->acct.freq_at_in -
				  f->snap[XLP_C_FREQ_KHZ_NS];
	incl[XLP_C_NIVCSW] = t->acct.c[XLP_C_NIVCSW] - f->snap[XLP_C_NIVCSW];
	incl[XLP_C_MIGRATIONS] = t->acct.c[XLP_C_MIGRATIONS] - f->snap[XLP_C_MIGRATIONS];
	if (parent) {
#define XLP_FAST_CHILD(id) parent->child[XLP_C_##id] += incl[XLP_C_##id];
		XLP_FAST_CTR_LIST(XLP_FAST_CHILD)
#undef XLP_FAST_CHILD
	}
	rec = rec_begin_kept(t, f, d, incl[XLP_C_WALL]);
	if (!rec)
		return;
		/* the values that moved, then the exclusive ones nested calls changed */
#define XLP_FAST_INCL(id)                                                                          \
	REC_PUT(incl[XLP_C_##id] &&                                                                \
			(XLP_C_##id != XLP_C_CPU_RUN || incl[XLP_C_CPU_RUN] != incl[XLP_C_WALL]),  \
		XLP_C_##id, incl[XLP_C_##id])
	XLP_FAST_CTR_LIST(XLP_FAST_INCL)
#undef XLP_FAST_INCL
#define XLP_FAST_EXCL(id)                                                                          \
	REC_PUT(f->child[XLP_C_##id], XLP_NR_CTR + XLP_C_##id,                                     \
		incl[XLP_C_##id] - f->child[XLP_C_##id])
	XLP_FAST_CTR_LIST(XLP_FAST_EXCL)
#undef XLP_FAST_EXCL
	if (incl[XLP_C_CPU_RUN] == incl[XLP_C_WALL])
		mask |= XLP_COMPACT_RUN_IS_WALL;
	rec_end(t, rec, mask, sizeof(*rec) + 8 * rec_n(rec));
}

/* Any other call: every counter, and the IPC peer it waited on. */
static __always_inline void return_slow(struct xlp_thread *t, struct xlp_frame *f,
					struct xlp_frame *parent, __u32 d, __u64 now)
{
	struct xlp_call_compact_rec *rec;
	struct xlp_ipc_peer *peer;
	__u64 incl[XLP_NR_CTR], mask = 0;
	__u32 n;

	thread_now(t, now, incl);
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++) {
		/* counters only grow (FREQ_KHZ_NS wraps: modulo 2^64 is right) */
		incl[i] -= f->snap[i];
		if (parent)
			parent->child[i] += incl[i];
	}
	rec = rec_begin_kept(t, f, d, incl[XLP_C_WALL]);
	if (!rec)
		return;
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		REC_PUT(incl[i] && (i != XLP_C_CPU_RUN || incl[i] != incl[XLP_C_WALL]), i, incl[i])
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		REC_PUT(f->child[i], XLP_NR_CTR + i, incl[i] - f->child[i])
	if (incl[XLP_C_CPU_RUN] == incl[XLP_C_WALL])
		mask |= XLP_COMPACT_RUN_IS_WALL;
	n = rec_n(rec);
	/* the peer is named only for calls that waited on IPC themselves */
	if (incl[XLP_C_IPC] && t->ipc.peer_pid) {
		rec->flags |= XLP_CALL_IPC_PEER;
		peer = (void *)&rec->val[n];
		peer->pid = t->ipc.peer_pid;
		peer->__pad = 0;
		__builtin_memcpy(peer->comm, t->ipc.peer_comm, sizeof(peer->comm));
		rec_end(t, rec, mask, sizeof(*rec) + 8 * n + sizeof(*peer));
		return;
	}
	rec_end(t, rec, mask, sizeof(*rec) + 8 * n);
}

#undef REC_PUT

/* A marked call of func_id returns (the low half of its XLP_COOKIE()). */
static __always_inline int call_return(__u32 cookie)
{
	struct xlp_thread *t = thread_get_current_traced();
	struct xlp_frame *f, *parent = NULL;
	__u64 now, moved = 0;
	__u32 d;

	if (!t)
		return 0;
	now = bpf_ktime_get_ns();
	d = t->calls.depth;
	if (!d) {
		/* the call began before we attached */
		stat_inc(XLP_S_STACK_MISMATCH);
		return 0;
	}
	d--;
	if (d >= XLP_MAX_DEPTH) {
		t->calls.depth = d; /* a call the stack had no room for */
		return 0;
	}
	/*
	 * The frame of this function is the top one, unless returns were
	 * missed: a longjmp out of nested calls, or an entry probe set before
	 * its return probe (attach order is return first, so that should not
	 * happen). Then the nearest frame of this function is popped with the
	 * frames above it, which are dropped, counted. No frame of it at all:
	 * its entry was not seen (the call began before its entry probe was
	 * set), and the return is ignored, counted.
	 */
	if (t->calls.stack[d & (XLP_MAX_DEPTH - 1)].func_id != cookie) {
		__u32 j = d;

		for (int i = 0; i < XLP_MAX_DEPTH && j > 0; i++) {
			j--;
			if (t->calls.stack[j & (XLP_MAX_DEPTH - 1)].func_id == cookie)
				break;
		}
		if (t->calls.stack[j & (XLP_MAX_DEPTH - 1)].func_id != cookie) {
			stat_inc(XLP_S_STACK_MISMATCH);
			return 0;
		}
		stat_add(XLP_S_STACK_MISMATCH, d - j);
		d = j;
		if (t->calls.run_depth > d + 1)
			t->calls.run_depth = 0; /* the run's own frame was dropped */
	}
	t->calls.depth = d;
	/* the masks change nothing (d < XLP_MAX_DEPTH, a power of two) but let
	 * older verifiers (6.1) see the bound they lose across the branch */
	f = &t->calls.stack[d & (XLP_MAX_DEPTH - 1)];
	if (d > 0)
		parent = &t->calls.stack[(d - 1) & (XLP_MAX_DEPTH - 1)];
	/*
	 * clang knows parent is non-NULL exactly when d > 0, so it tested d
	 * (a 32-bit stack spill) for return_slow's and return_fast's
	 * "if (parent)". 6.1's verifier does not tie that spill to the branch
	 * that left parent NULL: it took the d != 0 path with parent NULL
	 * and rejected xlp_func_return at parent->child[i] += incl[i] ("R2
	 * invalid mem access 'scalar'", clang 14.0.6; 6.18 accepts it).
	 * barrier_var() (an empty asm, no instruction) hides the relation
	 * from clang, so parent itself is tested, which every verifier
	 * tracks on each path (NULL or the map value).
	 */
	barrier_var(parent);
	stat_inc(XLP_S_CALLS);
	thread_sync(t, now);
	if (t->calls.run_depth == d + 1) {
		emit_run(t, f, now);
		t->calls.run_depth = 0;
	}
	/* the counters outside the fast lane have no open interval: the
	 * stored ones are current */
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		if (!is_fast(i))
			moved |= t->acct.c[i] ^ f->snap[i];
	if (moved)
		return_slow(t, f, parent, d, now);
	else
		return_fast(t, f, parent, d, now);
	return 0;
}

/*
 * The programs, and the entry points bpf/usdt.bpf.c calls across objects;
 * bpf/marker.bpf.c includes this file for the inline accounting alone.
 */
#ifndef XLP_CALLS_CORE_ONLY
static __always_inline int func_entry(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx); /* XLP_COOKIE() */
	__u32 fl = cookie >> 32;

	return call_enter(cookie,
			  (fl & XLP_COOKIE_KEYED) ? call_arg(ctx, XLP_COOKIE_TASK_ARG_OF(fl)) : 0,
			  (fl & XLP_COOKIE_SIZE) ? call_arg(ctx, XLP_COOKIE_SIZE_ARG_OF(fl)) : 0);
}

/*
 * Two ways to attach the same two programs. A uprobe_multi link (Linux
 * 6.6) sets every marked function of a binary in a process at once, and
 * its release waits for the kernel's grace periods once for all of them
 * (6.12): a perf-event uprobe waits for about six per function as it is
 * closed, and a recording with 30 marked functions took 7-9 s to stop.
 * A program serves one way only (its expected attach type), so each has
 * a twin; the session loads one pair (session.c, select_uprobes), the
 * multi pair (off by default: "?") where the kernel has the link.
 */
SEC("uprobe")
int xlp_func_entry(struct pt_regs *ctx)
{
	return func_entry(ctx);
}

SEC("uretprobe")
int xlp_func_return(struct pt_regs *ctx)
{
	return call_return((__u32)bpf_get_attach_cookie(ctx));
}

SEC("?uprobe")
int xlp_func_entry_multi(struct pt_regs *ctx)
{
	return func_entry(ctx);
}

SEC("?uprobe")
int xlp_func_return_multi(struct pt_regs *ctx)
{
	return call_return((__u32)bpf_get_attach_cookie(ctx));
}

/* call_enter() for the USDT programs of bpf/usdt.bpf.c (another object) */
__hidden int xlp_call_enter(__u64 cookie, __u64 key, __u64 size)
{
	return call_enter(cookie, key, size);
}

/* call_return() for bpf/usdt.bpf.c */
__hidden int xlp_call_return(__u32 cookie)
{
	return call_return(cookie);
}
#endif
