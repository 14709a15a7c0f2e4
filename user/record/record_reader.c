/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recorder's reader: the loop that drains the ring buffer into the
 * trace until the recording ends, and the priority and CPUs it keeps to
 * keep up with the programs without delaying the target.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "log.h"
#include "recorder.h"
#include "util.h"

uint64_t recorder__drops(const uint64_t *st, uint64_t lost)
{
	return st[XLP_S_RB_FULL] + st[XLP_S_STACK_OVERFLOW] + st[XLP_S_THREADS_FULL] + lost;
}

static void show_status(struct recorder *r, uint64_t now, uint64_t *last_events, uint64_t *last_ns)
{
	uint64_t st[XLP_NR_STAT] = {};
	double dt = (now - *last_ns) / 1e9;

	session__stats(r->sess, st);
	fprintf(stderr,
		"\r\033[K%7.1fs  runs %llu  calls %llu  events/s %.0f  recorder__drops %llu",
		(now - r->meta.start_ns) / 1e9, (unsigned long long)r->nruns,
		(unsigned long long)r->ncalls,
		dt > 0 ? (st[XLP_S_SCHED_EVENTS] - *last_events) / dt : 0.0,
		(unsigned long long)recorder__drops(st, r->lost));
	*last_events = st[XLP_S_SCHED_EVENTS];
	*last_ns = now;
}

/*
 * The recorder's own priority: SCHED_FIFO prio, which its children (the
 * launched command) do not inherit. A reader at an ordinary priority gets
 * 1 / (N + 1) of the CPUs behind N busy traced threads, and the ring
 * buffer overflows exactly when the machine is overloaded; a SCHED_FIFO
 * reader runs as soon as it is woken, for as long as the records take, then
 * sleeps again (the kernel's RT throttling still leaves others 5 %).
 */
void recorder__realtime(struct recorder *r, int prio, uint64_t now)
{
	struct sched_param sp = {.sched_priority = prio};

	if (r->load.rt_since_ns || r->load.rt_failed)
		return;
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp)) {
		r->load.rt_failed = true;
		xlp_warn("cannot run the recorder at SCHED_FIFO %d: %s: it may fall behind on a "
			 "busy machine (records lost are counted)",
			 prio, strerror(errno));
		return;
	}
	r->load.rt_prio = prio;
	r->load.rt_since_ns = now;
	xlp_dbg("recorder at SCHED_FIFO %d from %.3f s", prio, (now - r->meta.start_ns) / 1e9);
}

/*
 * The default: nice -20, a fair share that cannot starve anything, yet
 * weighs 86 ordinary threads (weight 88761 against 1024), and a waking
 * nice -20 thread gets a CPU almost at once. Children do not inherit it
 * (launch.c resets the launched command's priority).
 */
/*
 * With -p: the recorder on the CPUs the threads that run the interaction
 * cannot run on, when there are any (cpu_avoid.h), checked again each
 * second as threads come and go or pin themselves. Measured: with an e2e worker pinned to
 * CPU 1, the recorder (nice -20, unwinding ~300 samples a second) ran 1.2 s
 * on that CPU in a 20 s recording, and the worker's sampled stacks showed
 * it waiting for the CPU in a few runs (a false cpu_wait).
 */
void recorder__off_target(struct recorder *r)
{
	pid_t pid = r->o.pid ? r->o.pid : r->child ? launch__pid(r->child) : 0;
	int ret;

	/* made before a launch starts, so that its first runs' threads are noted */
	if (!r->avoid) {
		r->avoid = cpu_avoid__new();
		if (!r->avoid)
			return;
	}
	if (pid <= 0)
		return;
	ret = cpu_avoid__update(r->avoid, pid);
	if (ret == 1)
		xlp_dbg("recorder off %d CPU(s) of PID %d", cpu_avoid__count(r->avoid), pid);
	else if (ret < 0 && ret != -ESRCH && ret != -ENOENT)
		xlp_dbg("cannot read the CPUs of PID %d: %s", pid, strerror(-ret));
}

void recorder__nice(struct recorder *r)
{
	if (setpriority(PRIO_PROCESS, 0, -20))
		xlp_dbg("cannot raise the recorder's priority: %s", strerror(errno));
	else
		r->load.niced = true;
}

/*
 * After each drain: how much the programs sent since the last one (what
 * arrived, and what was lost at the mean record size), and whether the
 * recorder fell behind: more than half the buffer waiting, or records
 * lost. Then, by default, it takes SCHED_FIFO 1 (--realtime).
 */
static void reader_check(struct recorder *r, uint64_t now)
{
	struct reader_load *l = &r->load;
	uint64_t recs, bytes, full = session__stat(r->sess, XLP_S_RB_FULL), sent, mean;

	session__rb_counts(r->sess, &recs, &bytes);
	mean = recs ? bytes / recs : 64;
	sent = bytes - l->bytes + (full - l->rb_full) * mean;
	if (sent > l->need_bytes)
		l->need_bytes = sent;
	if (l->last_ns && now - l->last_ns > l->max_gap_ns)
		l->max_gap_ns = now - l->last_ns;
	if (r->o.realtime == XLP_RT_AUTO &&
	    (full > l->rb_full || bytes - l->bytes > r->o.ringbuf_bytes / 2))
		recorder__realtime(r, 1, now);
	l->bytes = bytes;
	l->records = recs;
	l->rb_full = full;
	l->last_ns = now;
}

enum xlp_stop_reason recorder__run(struct recorder *r)
{
	bool tty = !r->o.quiet && isatty(STDERR_FILENO);
	uint64_t last_flush = xlp_now_ns(), last_status = last_flush, last_events = 0;
	uint64_t last_adapt = last_flush;
	int code;

	r->cpu_at_run_ns = recorder__cpu_ns();
	for (;;) {
		/* a launch's exit wakes us through its pidfd, so the next one
		 * starts at once; without a pidfd, poll more often meanwhile */
		int wake_fd = r->child ? launch__pidfd(r->child) : -1;
		int timeout_ms = r->child && wake_fd < 0 ? 5 : 100;
		uint64_t now;

		if (session__poll(r->sess, wake_fd, timeout_ms) < 0 || recorder_stop_signal)
			return XLP_STOP_SIGNAL;
		if (r->write_err)
			return XLP_STOP_ERROR;
		now = xlp_now_ns();
		reader_check(r, now);
		/* the first run of a thread names its CPUs: leave them at once */
		if (r->avoid_new) {
			r->avoid_new = false;
			recorder__off_target(r);
		}
		if (r->o.duration_ns && now - r->meta.start_ns >= r->o.duration_ns)
			return XLP_STOP_DURATION;
		if (r->o.pid && (r->target_exited || kill(r->o.pid, 0)))
			return XLP_STOP_TARGET_EXIT;
		if (r->child && launch__reap(r->child, 0, &code) == 1) {
			int ret = recorder__finish_launch(r, code);

			/* the next launch could not start (said why): the trace
			 * is valid, the recording is not what was asked */
			if (ret < 0) {
				r->launch_failed = true;
				return XLP_STOP_ERROR;
			}
			if (ret)
				return XLP_STOP_TARGET_EXIT;
		}
		if (now - last_flush >= 1000000000ull) {
			/* a chunk a second bounds what a crash can lose */
			int err = trace_writer__flush(r->w);

			if (err && !r->write_err)
				r->write_err = err;
			last_flush = now;
			recorder__off_target(r);
		}
		/*
		 * The sampling period follows its measured cost: a quarter of a
		 * second holds ~250 ticks of a busy thread at the default rate,
		 * enough to measure the mean pause to a few percent.
		 */
		if (r->sampler && now - last_adapt >= 250000000ull) {
			int err = sampler__adapt(r->sampler, now, false);

			if (err && err != -EIO)
				xlp_warn("cannot adapt the sampling period: %s", strerror(-err));
			last_adapt = now;
		}
		if (tty && now - last_status >= 1000000000ull)
			show_status(r, now, &last_events, &last_status);
	}
}
