/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The CPU's other tenants: who ran on a CPU while a traced thread waited
 * for it (issue 36). Riding on the switch events already taken, every
 * switch of the machine logs the task it switches in, per CPU, in the last
 * XLP_CPULOG slots (struct xlp_cpulog): its runqueue clock, steal clock and
 * on-CPU total then, and at its switch-out its on-CPU total again. When a
 * traced thread that waited is switched in, the log is walked back over the
 * part of its wait spent on this CPU's runqueue, [last_queued, now] by the
 * runqueue's clock (the kernel's own run_delay is measured on it; a wait
 * that began on another CPU before a migration is the rest, told apart as
 * elsewhere), and each task is charged its own on-CPU time in the overlap.
 * The result goes out in the thread's batch (struct xlp_thief_rec), so its
 * cost is one record per wait, only for waits inside a marked call or
 * before a run's handler (prewake): the waits a report can name a cause of.
 */
#ifndef XLP_THIEF_BPF_H
#define XLP_THIEF_BPF_H

#include "xlprobe.bpf.h"

#define PF_KTHREAD 0x00200000

/*
 * At every switch, first: prev's slot gets its on-CPU total (its time since
 * its switch-in is exec_out - exec_in, interrupts and steal left out as the
 * kernel leaves them out). clk: the runqueue's clock now (0: none on this
 * kernel, nothing logged).
 */
static __always_inline struct xlp_cpulog *cpulog_close(struct task_struct *prev, __u64 clk)
{
	__u32 zero = 0;
	struct xlp_cpulog *log = bpf_map_lookup_elem(&cpulog, &zero);
	struct xlp_cpulog_ent *e;

	if (!log || !clk)
		return NULL;
	if (!log->n || !prev)
		return log;
	e = &log->e[(log->n - 1) & (XLP_CPULOG - 1)];
	if (e->tid == (__u32)prev->pid && !e->exec_out)
		e->exec_out = prev->se.sum_exec_runtime + 1;
	return log;
}

/* At every switch, last: next's slot. */
static __always_inline void cpulog_push(struct xlp_cpulog *log, struct task_struct *next, __u64 clk,
					__u64 steal)
{
	struct xlp_cpulog_ent *e;

	if (!log || !clk)
		return;
	e = &log->e[log->n & (XLP_CPULOG - 1)];
	e->t = clk;
	e->steal = steal;
	e->exec_in = next->se.sum_exec_runtime;
	e->exec_out = 0;
	e->task = (__u64)next;
	e->tid = next->pid;
	e->tgid = next->tgid;
	e->flags = next->flags & PF_KTHREAD ? XLP_THIEF_KTHREAD : 0;
	log->n++;
}

/* a * num / den for num <= den (a share of a), exact below 2^32, no overflow below 2^48 */
static __always_inline __u64 prorate(__u64 a, __u64 num, __u64 den)
{
	if (!den || num >= den)
		return a;
	if ((a | num) >> 32) {
		a >>= 16;
		num >>= 16;
		den >>= 16;
		if (!den)
			return 0;
		return (a * num / den) << 16;
	}
	return a * num / den;
}

/* Adds ns of the task in log slot s; the smallest gives way (to other_ns). */
static __always_inline void thief_add(struct xlp_cpulog *log, __u32 tid, __u32 s, __u64 ns,
				      __u64 *other)
{
	__u32 k, min = 0;

	for (k = 0; k < XLP_THIEF_MAX; k++) {
		if (log->acc_tid[k] == tid && log->acc_ns[k]) {
			log->acc_ns[k] += ns;
			return;
		}
		if (log->acc_ns[k] < log->acc_ns[min & (XLP_THIEF_MAX - 1)])
			min = k;
	}
	min &= XLP_THIEF_MAX - 1;
	if (log->acc_ns[min] && ns <= log->acc_ns[min]) {
		*other += ns;
		return;
	}
	*other += log->acc_ns[min];
	log->acc_tid[min] = tid;
	log->acc_slot[min] = s;
	log->acc_ns[min] = ns;
}

/*
 * The wait of t that ends now (log's q0, clk, steal, wait, now): its record,
 * into t's batch. A global function, verified once.
 */
/*
 * One slot of the walk back over the log (a bpf_loop callback: verified
 * once, not once per slot): its task's overlap with the wait, [q0, w_end].
 * 1 stops the walk.
 */
struct thief_walk {
	struct xlp_cpulog *log; /* bpf_loop's context is on the stack */
};

static long thief_step(__u32 j, struct thief_walk *w)
{
	struct xlp_cpulog *log = w->log;
	__u32 s;
	struct xlp_cpulog_ent *e;
	__u64 end, start, from, ov, seg, run, st, charge;

	if (!log)
		return 1;
	s = (log->n - 1 - j) & (XLP_CPULOG - 1);
	e = &log->e[s];
	end = log->w_end;
	start = e->t;

	/* older than the wait, or not a slot yet; a clock going back cannot be */
	if (j >= log->n || end <= log->q0 || start > end)
		return 1;
	from = start > log->q0 ? start : log->q0;
	ov = end - from;
	seg = end - start;
	st = e->steal && log->w_send > e->steal ? prorate(log->w_send - e->steal, ov, seg) : 0;
	if (st > ov)
		st = ov;
	if (!e->tid) {
		/* the idle task: the CPU's own latency in switching to us */
		log->w_idle += ov;
	} else if (e->tid == log->w_tid || !e->exec_out) {
		log->w_irq += ov; /* nothing ran but us, or it is not known */
	} else {
		run = e->exec_out - 1 > e->exec_in ? e->exec_out - 1 - e->exec_in : 0;
		charge = prorate(run, ov, seg);
		if (charge > ov)
			charge = ov;
		if (st > ov - charge)
			st = ov - charge;
		log->w_steal += st;
		log->w_irq += ov - charge - st;
		if (charge)
			thief_add(log, e->tid, s, charge, &log->w_other);
	}
	log->w_end = start;
	log->w_send = e->steal;
	return 0;
}

/*
 * The wait of t that ends now (log's q0, clk, steal, wait, now): its record,
 * into t's batch. A global function, verified once.
 */
__weak __noinline int xlp_thief_charge(struct xlp_thread *t, struct xlp_cpulog *log)
{
	struct thief_walk w = {log};
	struct xlp_thief_rec *r;
	__u64 end, here;
	__u32 i, off, nth = 0;

	if (!t || !log || t->stopped)
		return 0;
	end = log->clk;
	here = log->q0 && end > log->q0 ? end - log->q0 : 0;
	if (here > log->wait)
		here = log->wait;
	log->q0 = end - here;
	log->w_end = end;
	log->w_send = log->steal;
	log->w_idle = log->w_irq = log->w_steal = log->w_other = 0;
	log->w_tid = t->tid;
	for (i = 0; i < XLP_THIEF_MAX; i++)
		log->acc_ns[i] = 0;
	bpf_loop(XLP_CPULOG, thief_step, &w, 0);
	if (t->batch.len > XLP_BATCH_BYTES - sizeof(*r) - sizeof(r->thieves[0]) * XLP_THIEF_MAX)
		batch_flush(t);
	off = t->batch.len;
	if (off > XLP_BATCH_BYTES - sizeof(*r) - sizeof(r->thieves[0]) * XLP_THIEF_MAX)
		return 0; /* cannot happen: for the verifier */
	r = (void *)(t->batch.buf + off);
	r->h.type = XLP_R_THIEF;
	r->h.cpu = bpf_get_smp_processor_id();
	r->pid = t->pid;
	r->tid = t->tid;
	r->end_ns = log->now;
	r->wait_ns = log->wait;
	r->here_ns = here;
	r->idle_ns = log->w_idle;
	r->irq_ns = log->w_irq;
	r->steal_ns = log->w_steal;
	r->other_ns = log->w_other;
	r->unlogged_ns = log->w_end > log->q0 ? log->w_end - log->q0 : 0;
	r->__pad = 0;
	/* largest first: a selection over four */
	for (i = 0; i < XLP_THIEF_MAX; i++) {
		struct xlp_thief *x = &r->thieves[i];
		struct xlp_cpulog_ent *e;
		struct task_struct *task;
		__u32 best = 0, k, pid = 0;

		for (k = 1; k < XLP_THIEF_MAX; k++)
			if (log->acc_ns[k] > log->acc_ns[best & (XLP_THIEF_MAX - 1)])
				best = k;
		best &= XLP_THIEF_MAX - 1;
		if (!log->acc_ns[best])
			break;
		e = &log->e[log->acc_slot[best] & (XLP_CPULOG - 1)];
		x->tid = log->acc_tid[best];
		x->pid = e->tgid;
		x->ns = log->acc_ns[best];
		x->flags = e->flags;
		x->__pad = 0;
		__builtin_memset(x->comm, 0, sizeof(x->comm));
		/* the task may be gone: its name only if it is still itself */
		task = (struct task_struct *)e->task;
		if (!bpf_probe_read_kernel(&pid, sizeof(pid), &task->pid) && pid == x->tid)
			bpf_probe_read_kernel_str(x->comm, sizeof(x->comm), task->comm);
		else
			x->flags |= XLP_THIEF_NAME_STALE;
		log->acc_ns[best] = 0;
		nth++;
	}
	r->nthieves = nth;
	r->h.size = sizeof(*r) + nth * sizeof(r->thieves[0]);
	/* written before counted: the flush at stop may read the batch */
	t->batch.len = off + r->h.size;
	t->batch.recs++;
	return 0;
}

/*
 * The switch-in of t, which waited wait ns (its cpu_wait just counted), on
 * cpu at now. Only the waits a report can name a cause of: inside a marked
 * call, or before a run's handler (armed by the wakeup, bpf/prewake.bpf.h).
 */
static __always_inline void thief_wait_end(struct xlp_thread *t, struct xlp_cpulog *log,
					   struct task_struct *next, __u64 clk, __u64 steal,
					   __u64 wait, __u64 now)
{
	if (!log || !clk || !wait || (!t->calls.depth && !t->pw.armed))
		return;
	log->q0 = bpf_core_field_exists(next->sched_info.last_queued) ? next->sched_info.last_queued
								      : 0;
	log->clk = clk;
	log->steal = steal;
	log->wait = wait;
	log->now = now;
	xlp_thief_charge(t, log);
}

#endif
