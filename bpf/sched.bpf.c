/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per-thread time accounting from scheduler tracepoints: on-CPU, runqueue
 * wait, interruptible / uninterruptible sleep, switch counts, migrations;
 * thread and process lifetime (fork follows children, exit emits totals);
 * the exec and exit times of launched commands.
 *
 * State machine per traced thread (enum xlp_tstate):
 *   RUNNING  --switch-out, preempted or still TASK_RUNNING-->  RUNNABLE
 *   RUNNING  --switch-out with a sleep state-->                SLEEP_S / SLEEP_D
 *   SLEEP_*  --sched_wakeup / sched_wakeup_new-->              RUNNABLE
 *   RUNNABLE --switch-in-->                                    RUNNING
 * Runqueue wait starts at sched_wakeup, not sched_waking: wakeup fires when
 * the task is enqueued, the moment the kernel's own run_delay (schedstat)
 * starts counting, so both agree.
 */
#include "reasons.bpf.h"
#include "prewake.bpf.h"
#include "tlhist.bpf.h"
#include "thief.bpf.h"

/*
 * The on-CPU and runqueue time of a slice as the kernel itself counts them
 * (schedstat: se.sum_exec_runtime and sched_info.run_delay). Both use the
 * runqueue clock taken at the start of __schedule(), a few microseconds
 * before sched_switch fires; with bpf_ktime_get_ns() at the tracepoint a
 * thread that switches thousands of times a second drifts from the kernel's
 * figures by several percent, charged to the wrong state. Where the kernel
 * has no figure (field absent, task not queued by sched_info) the
 * tracepoint's timestamps are used.
 */
static __always_inline __u64 slice_run(struct xlp_thread *t, __u64 exec, __u64 now, __u64 steal)
{
	__u64 in = t->acct.exec_at_in, wall = now > t->acct.ts ? now - t->acct.ts : 0;

	t->acct.exec_at_in = exec;
	/*
	 * The kernel's figure excludes steal (rq_clock_task()); the clock
	 * does not. A uprobe snapshot during the slice counted its open part
	 * by the clock, and the kernel's figure can be a few us less
	 * (interrupt time is not task time): run_close() never charges less
	 * than a snapshot already saw, or a call's delta would go negative.
	 */
	if (in && exec >= in)
		return exec - in;
	return wall > steal ? wall - steal : 0;
}

/*
 * The kernel's runqueue wait of next up to this switch-in: run_delay plus
 * the wait sched_info_arrive() is about to add (rq clock - last_queued).
 * run_delay also grows when a queued task is dequeued to migrate
 * (sched_info_dequeue), so the delta of this total, not clock - last_queued
 * alone, is what schedstat counts. 0 when the kernel has no such figure.
 * clk: the runqueue's clock (0: none).
 */
static __always_inline __u64 kernel_delay_total(struct task_struct *next, __u64 clk)
{
	__u64 queued, delay;

	if (!bpf_core_field_exists(next->sched_info.last_queued))
		return 0;
	/* direct loads: tp_btf arguments are typed kernel pointers, which is
	 * far cheaper here than a bpf_probe_read_kernel per field */
	queued = next->sched_info.last_queued;
	delay = next->sched_info.run_delay;
	if (!clk)
		return 0;
	if (queued && clk >= queued)
		delay += clk - queued;
	return delay + 1; /* + 1: a valid total is never 0 */
}

/* steal: this CPU's steal clock + 1 (0: none) */
static __always_inline void switch_out(struct xlp_thread *t, struct task_struct *prev, bool preempt,
				       unsigned int prev_state, __u64 now, __u32 cpu, __u64 steal)
{
	__u64 exec = prev->se.sum_exec_runtime, delay = kernel_delay_running(prev), a0, a1, clk;
	__u64 nvcsw = prev->nvcsw, nivcsw = prev->nivcsw, nv, niv;
	bool invol = preempt || prev_state == TASK_RUNNING;
	struct xlp_proc *p = proc_get(t);
	long nr;

	/* the kernel counted this switch already (before the tracepoint) */
	ksw_unseen(t, nvcsw - !invol, nivcsw - invol, &nv, &niv);
	t->acct.c[XLP_C_NVCSW] += nv;
	t->acct.c[XLP_C_NIVCSW] += niv;
	t->acct.k_nvcsw = nvcsw;
	t->acct.k_nivcsw = nivcsw;
	if (t->acct.state == XLP_T_RUNNING && !nv) {
		/*
		 * Preempted and back unseen during this slice (niv): the
		 * kernel's on-CPU figure leaves the runqueue wait out, which
		 * run_delay holds.
		 */
		if (niv && t->acct.delay_seen && delay > t->acct.delay_seen)
			ctr_add(t, p, XLP_C_CPU_WAIT, delay - t->acct.delay_seen);
		/* the steal clock of the CPU it was switched in on, none if
		 * it moved unseen */
		clk = t->acct.last_cpu == cpu ? steal : 0;
		run_close(t, p, now, slice_run(t, exec, now, steal_since_in(t, clk)), clk);
	} else if (t->acct.state == XLP_T_UNKNOWN) {
		thread_account(t, p, now);
	} else {
		/*
		 * Its switch-in was missed, and its wakeup if it slept; or,
		 * running, it slept and came back unseen during this slice.
		 * The kernel's figures split the span.
		 */
		if (t->acct.state != XLP_T_RUNNABLE && t->acct.state != XLP_T_RUNNING)
			wake_decide(t);
		thread_recover(t, p, now, exec, delay, false, 0);
		steal_reset(t, t->acct.last_cpu == cpu ? steal : 0);
	}
	if (delay)
		t->acct.delay_seen = delay;
	/*
	 * Same rule as __schedule() uses for nvcsw/nivcsw: a task preempted
	 * while setting up to sleep stays on the runqueue, so it is runnable.
	 */
	if (invol) {
		t->acct.state = XLP_T_RUNNABLE;
		t->acct.c[XLP_C_NIVCSW]++;
		return;
	}
	nr = task_syscall(prev, &a0, &a1);
	ev_block(t, prev_state & TASK_UNINTERRUPTIBLE, nr,
		 nr >= 0 ? xlp_sys_class(t, nr, a0, a1) : XLP_SC_WAKER);
	if (bpf_core_field_exists(prev->in_iowait) &&
	    BPF_CORE_READ_BITFIELD_PROBED(prev, in_iowait))
		ev_block_iowait(t);
}

/*
 * log: this CPU's log of switch-ins (cpulog_close); clk, steal: its
 * runqueue's clock (0: none) and steal clock + 1 (0: none)
 */
static __always_inline void switch_in(struct xlp_thread *t, struct task_struct *next, __u32 cpu,
				      __u64 now, struct xlp_cpulog *log, __u64 clk, __u64 steal)
{
	__u64 total = kernel_delay_total(next, clk), seen = t->acct.delay_seen;
	__u64 exec = next->se.sum_exec_runtime, wait;
	struct xlp_proc *p = proc_get(t);

	if (t->acct.state == XLP_T_RUNNABLE) {
		offcpu_charge(t, t->acct.ts, now, XLP_C_CPU_WAIT);
		wait = total && seen && total >= seen ? total - seen : now - t->acct.ts;
		thread_account_d(t, p, now, wait);
		thief_wait_end(t, log, next, clk, steal, wait, now);
		t->acct.delay_seen = total;
	} else if (t->acct.state == XLP_T_UNKNOWN) {
		thread_account(t, p, now);
		t->acct.delay_seen = total;
	} else {
		/* running: its switch-out was missed; asleep: its wakeup */
		if (t->acct.state != XLP_T_RUNNING) {
			wake_decide(t);
			t->sys.nr1 = 0;
		}
		thread_recover(t, p, now, exec, total, false, 0);
	}
	if (t->acct.state == XLP_T_UNKNOWN)
		stat_inc(XLP_S_UNKNOWN_STATE);
	t->off.valid = 0; /* its stacks are spent: a missed switch-out must not reuse them */
	t->acct.exec_at_in = exec;
	steal_reset(t, steal);
	if (t->acct.last_cpu != cpu && t->acct.last_cpu != (__u32)-1)
		t->acct.c[XLP_C_MIGRATIONS]++;
	t->acct.last_cpu = cpu;
	t->acct.freq_at_in = freq_integral(cpu, now);
	t->acct.state = XLP_T_RUNNING;
}

/*
 * record --timeline: a thread that woke a traced one (named by
 * bpf/waker.bpf.c) is on the timeline from then on with its own switches
 * and wakeups, so that the waker's side of a wakeup shows what it was
 * doing; until then its last events are kept (bpf/tlhist.bpf.h). Only
 * under --timeline: a task storage lookup per switch of any thread.
 */
static __always_inline void tl_waker(__u16 kind, struct task_struct *task, __u16 detail, __u64 now)
{
	if (!cfg_timeline || !task->pid)
		return;
	tlhist_event(task, kind, 0, detail, now);
}

static __always_inline int sched_switch(void *ctx, bool preempt, struct task_struct *prev,
					struct task_struct *next, unsigned int prev_state)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	struct xlp_irqctx *c = bpf_map_lookup_elem(&irqctx, &zero);
	struct xlp_cpulog *log;
	struct xlp_thread *t;
	/* this CPU's runqueue clock (0: none) and steal clock + 1 (0: none), read once */
	__u64 now = 0, rqc = xlp_rq_clock(cpu), steal = steal_clock(cpu), clk = rqc ? rqc - 1 : 0;

	/*
	 * No task switches inside an interrupt, softirq or hrtimer: a context
	 * still set here lost its exit event (an interrupt that began between
	 * the attach of the entry and of the exit program, or an event the
	 * kernel did not deliver) and would make every later waker on this
	 * CPU look like an interrupt.
	 */
	if (c && (c->hardirq | c->hrtimer | c->softirq))
		c->hardirq = c->hrtimer = c->softirq = 0;
	/* the CPU's log of who ran (bpf/thief.bpf.h): prev's slot closed first */
	log = cfg_test_no_cpulog ? NULL : cpulog_close(prev, clk);
	t = thread_get(prev);
	/* test build: a preemption the kernel did not deliver (both switches) */
	if (t && cfg_test_drop_switch && t->acct.state == XLP_T_RUNNING &&
	    (preempt || prev_state == TASK_RUNNING)) {
		struct xlp_test_drop *d =
			bpf_task_storage_get(&test_drops, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

		if (d && !(++d->drops % cfg_test_drop_switch)) {
			d->dropped = 1;
			t = NULL;
			prev = NULL;
		}
	}
	if (t) {
		now = bpf_ktime_get_ns();
		switch_out(t, prev, preempt, prev_state, now, cpu, steal);
		tl_emit(XLP_SCHED_OUT, t->pid, t->tid, 0, (__u16)t->acct.state, now);
		/* only when sampling: two stack walks cost more than the rest */
		if (sample_period_ns && !t->stopped)
			offcpu_capture(ctx, t);
		stat_inc(XLP_S_SCHED_EVENTS);
	} else if (prev) {
		tl_waker(XLP_SCHED_OUT, prev,
			 preempt || prev_state == TASK_RUNNING ? XLP_SCHED_RUNNABLE
			 : prev_state & TASK_UNINTERRUPTIBLE   ? XLP_SCHED_SLEEP_D
							       : XLP_SCHED_SLEEP_S,
			 0);
	}
	t = thread_get(next);
	if (cfg_test_drop_switch && t) {
		struct xlp_test_drop *d = bpf_task_storage_get(&test_drops, next, 0, 0);

		if (d && d->dropped) {
			d->dropped = 0;
			cpulog_push(log, next, clk, steal);
			return 0;
		}
	}
	if (t) {
		if (!now)
			now = bpf_ktime_get_ns();
		switch_in(t, next, cpu, now, log, clk, steal);
		tl_emit(XLP_SCHED_IN, t->pid, t->tid, 0, 0, now);
		stat_inc(XLP_S_SCHED_EVENTS);
	} else {
		tl_waker(XLP_SCHED_IN, next, 0, now);
	}
	cpulog_push(log, next, clk, steal);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(xlp_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return sched_switch(ctx, preempt, prev, next, prev_state);
}

/*
 * The same where the tracepoint has no prev_state argument (user space
 * loads one of the two: bpf/core_fixes.bpf.h, xlp_switch_prev_state).
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(xlp_sched_switch_old, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return sched_switch(ctx, preempt, prev, next, xlp_switch_prev_state(prev));
}

/* is_new: a new thread's first wakeup, which no request caused */
static __always_inline void wakeup(struct task_struct *p, bool is_new)
{
	struct xlp_thread *t = thread_get(p);
	__u32 state;
	__u64 now;

	if (!t) {
		/* its waker and, from an interrupt, the reason it names */
		if (cfg_timeline)
			tlhist_wakeup(p);
		return;
	}
	state = t->acct.state;
	now = bpf_ktime_get_ns();
	ev_wakeup(t, proc_get(t), now);
	if (!is_new)
		prewake_arm(t, state, now);
	/* a wakeup of a thread that is not asleep ends no sleep */
	if (state == XLP_T_SLEEP_S || state == XLP_T_SLEEP_D)
		tl_emit(XLP_SCHED_WAKEUP, t->pid, t->tid, t->waker.tid, (__u16)t->acct.wait_reason,
			now);
	else if (state == XLP_T_UNKNOWN)
		tl_emit(XLP_SCHED_WAKEUP, t->pid, t->tid, t->waker.tid, XLP_C_OTHER, now);
	stat_inc(XLP_S_SCHED_EVENTS);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(xlp_sched_wakeup, struct task_struct *p)
{
	wakeup(p, false);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(xlp_sched_wakeup_new, struct task_struct *p)
{
	wakeup(p, true);
	return 0;
}

/* New threads of a traced process are traced; new processes are followed. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(xlp_sched_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid, slot;
	__u64 now = bpf_ktime_get_ns();
	__u32 *pslot = bpf_map_lookup_elem(&targets, &ptgid);
	struct xlp_thread *t;

	if (!pslot)
		return 0;
	slot = *pslot;
	if (ctgid != ptgid) {
		struct xlp_fork_rec rec = {
			.h = {XLP_R_FORK, sizeof(rec), bpf_get_smp_processor_id()},
			.pid = ctgid,
			.ppid = ptgid,
			.fork_ns = now};

		if (proc_new(ctgid, now, &slot))
			return 0;
		/*
		 * Woken now, not with the next batch: the recorder sets the
		 * marked functions' uprobes in the child, whose calls until
		 * then are not seen (struct xlp_fork_rec says for how long).
		 */
		if (bpf_ringbuf_output(&rb, &rec, sizeof(rec), BPF_RB_FORCE_WAKEUP))
			stat_inc(XLP_S_RB_FULL);
	}
	t = thread_new(child, child->pid, ctgid, slot, 0, now);
	if (t && bpf_core_field_exists(child->sched_info.run_delay))
		t->acct.delay_seen = child->sched_info.run_delay + 1;
	return 0;
}

static __always_inline void emit_thread_exit(struct xlp_thread *t, struct task_struct *p, __u64 now)
{
	struct xlp_thread_rec rec;

	thread_rec_fill(&rec, t, p->comm, XLP_THREAD_EXITED, now);
	emit(&rec, sizeof(rec));
}

static __always_inline void emit_proc_exit(struct xlp_thread *t, struct task_struct *p, __u64 now)
{
	struct xlp_proc *pr = proc_get(t);
	struct xlp_proc_rec rec;

	if (!pr)
		return;
	proc_rec_fill(&rec, pr, t->pid, p->group_leader->comm, XLP_THREAD_EXITED, now);
	emit(&rec, sizeof(rec));
}

/*
 * record --repeat: the life of each launched command, its run's latency
 * (struct xlp_launch_rec), from the kernel rather than from the recorder's
 * poll loop. User space adds the pid to launch_times before it releases the
 * held child, and reads the entry after reaping it; the entry does not
 * depend on the thread table, so a full table does not lose the times.
 *
 * Start: the command's first exec, once the kernel has loaded its image;
 * its first instruction (the dynamic loader) comes next. Before that the
 * child is xlprobe's: waiting to be released, then execvp's PATH search,
 * whose delay depends on how soon the recorder gets a CPU, not on the
 * command. Later execs (sh -c, env, nice handing over to the real program)
 * are part of the command, as they are of what `time` shows.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(xlp_sched_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 tgid = p->tgid;
	struct xlp_launch_time *lt = bpf_map_lookup_elem(&launch_times, &tgid);

	if (lt && !lt->exec_ns)
		lt->exec_ns = now;
	return 0;
}

/*
 * End: the exit of the command's last thread, not of its leader. wait4(),
 * hence `time` and a shell's prompt, return only once the whole thread
 * group is gone, and a leader that calls pthread_exit() leaves long before
 * its other threads. Threads dying together (exit_group) may each see
 * signal->live at 0; the last one to pass here writes last, microseconds
 * apart. Since v6.16 the tracepoint fires before exit_mm(): unmapping the
 * address space, closing files and notifying the parent follow, which take
 * microseconds for a small command (a large heap takes longer, and `time`
 * would count it).
 */
static __always_inline void launch_exit(struct task_struct *p, __u64 now)
{
	__u32 tgid = p->tgid;
	struct xlp_launch_time *lt = bpf_map_lookup_elem(&launch_times, &tgid);

	if (lt && xlp_group_dead(p))
		lt->exit_ns = now;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(xlp_sched_exit, struct task_struct *p)
{
	__u32 tid = p->pid, tgid = p->tgid;
	struct xlp_thread *t = thread_get(p);
	__u64 now = bpf_ktime_get_ns();

	launch_exit(p, now);
	if (!t)
		return 0;
	thread_account(t, proc_get(t), now);
	blk_fold(t);
	if (t->calls.depth) {
		__u64 *v;
		__u32 idx = XLP_S_UNFINISHED;

		v = bpf_map_lookup_elem(&stats, &idx);
		if (v)
			*v += t->calls.depth;
	}
	/* one reported at stop already (bpf/control.bpf.c) is not again */
	if (!t->stopped) {
		/* it returns to user space no more */
		offcpu_pend_drop(t, -XLP_ERR_SRCH);
		batch_flush(t);
		emit_thread_exit(t, p, now);
		if (xlp_group_dead(p))
			emit_proc_exit(t, p, now);
	}
	if (xlp_group_dead(p))
		bpf_map_delete_elem(&targets, &tgid);
	thread_del(p, tid);
	return 0;
}
