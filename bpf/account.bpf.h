/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-thread accounting: each interval a thread spends in a state
 * (running, runnable, asleep) closed and charged to its counters and its
 * process's, the open slice split into run and steal for snapshots, and
 * what the kernel's own figures say when scheduler events were missed.
 */
#ifndef XLP_ACCOUNT_BPF_H
#define XLP_ACCOUNT_BPF_H

#include "maps.bpf.h"
#include "stat.bpf.h"
#include "cpuclock.bpf.h"
#include "offcpu.bpf.h"

/*
 * The open on-CPU slice of a running thread, d ns long at clk, split into
 * run (returned) and steal. The steal clock is folded in at ticks, so a
 * snapshot can see steal up to a tick late; each part still never shows
 * less than an earlier snapshot of the slice did, or a call's delta of it
 * would go negative: late steal is taken from the time since that
 * snapshot. Afterwards run_exposed + steal_exposed == d.
 */
static __always_inline __u64 open_split(struct xlp_thread *t, __u64 clk, __u64 d, __u64 *steal)
{
	__u64 s = steal_since_in(t, clk),
	      room = d > t->acct.run_exposed ? d - t->acct.run_exposed : 0;

	if (s > room)
		s = room;
	if (s < t->acct.steal_exposed)
		s = t->acct.steal_exposed;
	t->acct.steal_exposed = s;
	if (d - s > t->acct.run_exposed)
		t->acct.run_exposed = d - s;
	*steal = s;
	return t->acct.run_exposed;
}

/*
 * The process sum is shared by its threads on every CPU: an atomic add,
 * ~6 ns against ~1 for a plain one (bench section 4), skipped when there
 * is nothing to add (freq_khz_ns without a cpufreq driver, always).
 */
static __always_inline void ctr_add(struct xlp_thread *t, struct xlp_proc *p, __u32 c, __u64 d)
{
	/* an empty asm makes clang keep the bound check on the register used
	 * as the index: 6.1's verifier rejected the access without it */
	asm volatile("" : "+r"(c));
	if (c >= XLP_NR_CTR || !d)
		return;
	t->acct.c[c] += d;
	if (p)
		__sync_fetch_and_add(&p->c[c], d);
}

/*
 * Closes the interval t has spent in its current state, at now, charging it
 * to the matching counters (and to the process aggregate).
 */
static __always_inline void thread_account_d(struct xlp_thread *t, struct xlp_proc *p, __u64 now,
					     __u64 d)
{
	__u64 fi;

	switch (t->acct.state) {
	case XLP_T_RUNNING:
		ctr_add(t, p, XLP_C_CPU_RUN, d);
		fi = freq_integral(t->acct.last_cpu, now);
		ctr_add(t, p, XLP_C_FREQ_KHZ_NS, fi - t->acct.freq_at_in);
		t->acct.freq_at_in = fi;
		break;
	case XLP_T_RUNNABLE:
		ctr_add(t, p, XLP_C_CPU_WAIT, d);
		break;
	case XLP_T_SLEEP_S:
	case XLP_T_SLEEP_D:
		/* the wakeup decided the reason before it closes the sleep
		 * (bpf/reasons.bpf.h): no snapshot sees one without the other */
		ctr_add(t, p, t->acct.state == XLP_T_SLEEP_S ? XLP_C_SLEEP_S : XLP_C_SLEEP_D, d);
		ctr_add(t, p, t->acct.wait_reason, d);
		break;
	}
	t->acct.ts = now;
}

/*
 * Repairs the accounting after missed scheduler events: sometimes no
 * sched_switch or sched_wakeup reaches the programs for a thread (seen on
 * 6.18 under load, by bpftrace too). The kernel's cumulative on-CPU (exec)
 * and runqueue (delay) figures say how the span since the last event
 * split; run_min is a lower bound of the on-CPU part known otherwise
 * (kernel_ran_since_in()). The rest stays in the state the programs last
 * saw, except where that cannot be: a thread seen running (rest_ran, from
 * its own uprobe) after a missed switch-in ran the rest when it was
 * runnable (its exec lags by up to a tick), and slept it when it was asleep
 * (its wakeup was missed too: treating that as run turned a 50 ms sleep
 * into 50 ms on a CPU). A sleep's reason must be decided by the caller
 * (wake_decide()) as at a wakeup.
 */
static __always_inline void thread_recover(struct xlp_thread *t, struct xlp_proc *p, __u64 now,
					   __u64 exec, __u64 delay_total, bool rest_ran,
					   __u64 run_min)
{
	__u64 span = now > t->acct.ts ? now - t->acct.ts : 0, run = 0, wait = 0, rest;

	stat_inc(XLP_S_SCHED_MISSED);
	if (t->acct.exec_at_in && exec >= t->acct.exec_at_in)
		run = exec - t->acct.exec_at_in;
	if (run < run_min)
		run = run_min;
	/* a snapshot of the open slice may have shown more (a call's
	 * delta must not go negative) */
	if (t->acct.state == XLP_T_RUNNING && run < t->acct.run_exposed)
		run = t->acct.run_exposed;
	if (run > span)
		run = span;
	if (t->acct.delay_seen && delay_total >= t->acct.delay_seen)
		wait = delay_total - t->acct.delay_seen;
	if (wait > span - run)
		wait = span - run;
	rest = span - run - wait;
	ctr_add(t, p, XLP_C_CPU_RUN, run);
	ctr_add(t, p, XLP_C_CPU_WAIT, wait);
	/* the steal a snapshot of the open slice showed stays steal */
	if (t->acct.state == XLP_T_RUNNING) {
		__u64 s = t->acct.steal_exposed < rest ? t->acct.steal_exposed : rest;

		ctr_add(t, p, XLP_C_CPU_STEAL, s);
		rest -= s;
	}
	if (t->acct.state == XLP_T_SLEEP_S || t->acct.state == XLP_T_SLEEP_D) {
		/* the sleep came first: it ended rest ns after it began */
		offcpu_charge(t, t->acct.ts, t->acct.ts + rest, t->acct.wait_reason);
		thread_account_d(t, p, now, rest);
	} else if (rest_ran) {
		ctr_add(t, p, XLP_C_CPU_RUN, rest);
		t->acct.ts = now;
	} else if (t->acct.state == XLP_T_RUNNING || t->acct.state == XLP_T_RUNNABLE) {
		/* the rest is a sleep whose switch-out we missed */
		ctr_add(t, p, XLP_C_SLEEP_S, rest);
		ctr_add(t, p, XLP_C_OTHER, rest);
		t->acct.ts = now;
	} else {
		thread_account_d(t, p, now, rest);
	}
	if (exec)
		t->acct.exec_at_in = exec;
	if (delay_total)
		t->acct.delay_seen = delay_total;
}

/*
 * Switches of t the programs did not see. The kernel does not always
 * deliver sched_switch for a traced thread (measured here: a switch-in
 * after a VM agent's thread ran reached no program about once in 300
 * cross-CPU wakeups, while the task's own pcount moved); a preemption
 * whose switch-out and switch-in both went unseen leaves the thread
 * RUNNING to the programs, and a call around it would be charged the time
 * another task held the CPU as its own cpu_run, with no switch and no
 * runqueue wait. The task's own counts (nvcsw, nivcsw, what
 * /proc/PID/status shows) tell every switch: v, i are their values now,
 * less the switch being processed if any. *nv, *niv: the switches not
 * seen since the last event (0 the first time, which only sets the
 * baseline). Returns whether there were any.
 */
static __always_inline bool ksw_unseen(struct xlp_thread *t, __u64 v, __u64 i, __u64 *nv,
				       __u64 *niv)
{
	*nv = 0;
	*niv = 0;
	if (t->acct.ksw_valid && v >= t->acct.k_nvcsw && i >= t->acct.k_nivcsw) {
		*nv = v - t->acct.k_nvcsw;
		*niv = i - t->acct.k_nivcsw;
	}
	t->acct.k_nvcsw = v;
	t->acct.k_nivcsw = i;
	t->acct.ksw_valid = 1;
	return *nv || *niv;
}

/*
 * How long the running task (current) has been on this CPU by the kernel's own
 * clock: rq clock - sched_info.last_arrival (stamped at its switch-in by
 * sched_info_arrive() whether or not our program saw it). The rq clock
 * was last updated at most a tick ago, so this is a lower bound. 0 when
 * unknown (no sched_info, another CPU's runqueue).
 */
static __always_inline __u64 kernel_ran_since_in(struct task_struct *task, __u32 cpu)
{
	__u64 arrival, clk;

	if (!bpf_core_field_exists(task->sched_info.last_arrival))
		return 0;
	arrival = task->sched_info.last_arrival;
	clk = xlp_rq_clock(cpu);
	if (!arrival || !clk--)
		return 0;
	return clk > arrival ? clk - arrival : 0;
}

/* run_delay + 1 of a task that is running (nothing pending); 0 if unknown */
static __always_inline __u64 kernel_delay_running(struct task_struct *task)
{
	if (!bpf_core_field_exists(task->sched_info.run_delay))
		return 0;
	return task->sched_info.run_delay + 1;
}

/*
 * Closes an on-CPU slice at now: run ns of the thread's own (at least what
 * snapshots showed), the steal since its switch-in at clk (as much of the
 * rest as it covers, at least what snapshots showed).
 */
static __always_inline void run_close(struct xlp_thread *t, struct xlp_proc *p, __u64 now,
				      __u64 run, __u64 clk)
{
	__u64 wall = now > t->acct.ts ? now - t->acct.ts : 0, steal = steal_since_in(t, clk);

	if (run < t->acct.run_exposed)
		run = t->acct.run_exposed;
	if (steal > (wall > run ? wall - run : 0))
		steal = wall > run ? wall - run : 0;
	if (steal < t->acct.steal_exposed)
		steal = t->acct.steal_exposed;
	ctr_add(t, p, XLP_C_CPU_STEAL, steal);
	steal_reset(t, clk);
	thread_account_d(t, p, now, run);
}

static __always_inline void thread_account(struct xlp_thread *t, struct xlp_proc *p, __u64 now)
{
	__u64 clk, d, s;

	if (t->acct.state == XLP_T_UNKNOWN || now <= t->acct.ts) {
		t->acct.ts = now;
		return;
	}
	d = now - t->acct.ts;
	if (t->acct.state == XLP_T_RUNNING) {
		clk = steal_clock(t->acct.last_cpu);
		s = steal_since_in(t, clk);
		run_close(t, p, now, s < d ? d - s : 0, clk);
		return;
	}
	thread_account_d(t, p, now, d);
}

/*
 * Counters of a running thread as of now: the stored ones plus the on-CPU
 * interval still open. Used for snapshots at uprobe entry and return.
 */
static __always_inline void thread_now(struct xlp_thread *t, __u64 now, __u64 *out)
{
	__u64 d = now > t->acct.ts ? now - t->acct.ts : 0;

#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		out[i] = t->acct.c[i];
	out[XLP_C_WALL] = now;
	if (t->acct.state == XLP_T_RUNNING) {
		__u64 steal, run = open_split(t, steal_clock(t->acct.last_cpu), d, &steal);

		out[XLP_C_CPU_RUN] += run;
		out[XLP_C_CPU_STEAL] += steal;
		out[XLP_C_FREQ_KHZ_NS] += freq_integral(t->acct.last_cpu, now) - t->acct.freq_at_in;
	}
}

/* A thread's totals (XLP_R_THREAD), as it ends or as recording stops. */

/*
 * The reason a device-like waker gives a sleep (enum xlp_waker: a timer,
 * the network, a block request), 0 for the others: what the waker rule
 * (reasons.bpf.h) and the timeline's history (tlhist.bpf.h) share.
 */
static __always_inline __u16 waker_device_reason(__u32 kind)
{
	switch (kind) {
	case XLP_W_TIMER:
		return XLP_C_TIMER;
	case XLP_W_NET:
		return XLP_C_NET;
	case XLP_W_BLOCK:
		return XLP_C_DISK;
	}
	return 0;
}

#endif
