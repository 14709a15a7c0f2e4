/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record -- CMD (--repeat, --sizes): each launch forked held before its
 * exec, probed, released, reaped and timed by the kernel's exec and exit.
 */
#include <errno.h>
#include <string.h>
#include "log.h"
#include "recorder.h"
#include "util.h"
#include "workload_size.h"

static uint64_t launch_size(const struct recorder *r, unsigned i)
{
	return r->o.nsizes ? r->o.sizes[i % r->o.nsizes] : 0;
}

/* record --size, --sizes: the size the runs were given, written before they run */
void recorder__write_size(struct recorder *r, uint32_t flags, pid_t pid, uint64_t size)
{
	struct xlp_size_rec s = {.h = {XLP_R_SIZE, sizeof(s), 0},
				 .pid = (uint32_t)pid,
				 .time_ns = xlp_now_ns(),
				 .size = size,
				 .flags = flags,
				 .run = (flags & XLP_SIZE_LAUNCH) ? r->launches : 0};

	recorder__write(r, &s.h);
}

/* Forks the next launch, held before exec, and probes it. */
int recorder__start_launch(struct recorder *r)
{
	char **argv = r->o.cmd;
	int ret;

	/* its own copy of the command, its size in place of every {} */
	if (r->o.nsizes) {
		argv = wsize__argv(r->o.cmd, launch_size(r, r->launches));
		if (!argv) {
			xlp_err("out of memory: cannot start launch %u", r->launches + 1);
			return -ENOMEM;
		}
	}
	ret = launch__fork(argv, &r->child);
	if (argv != r->o.cmd)
		wsize__free_argv(argv);
	if (ret) {
		xlp_err("cannot start '%s': %s", r->o.cmd[0], strerror(-ret));
		return ret;
	}
	ret = r->o.probe_forks ? 0 : recorder__attach_funcs(r, launch__pid(r->child));
	if (ret) {
		/* never released: it exits without running, and is no launch */
		launch__free(r->child);
		r->child = NULL;
	}
	return ret;
}

int recorder__release_launch(struct recorder *r)
{
	char err[512];
	int ret;

	if (r->o.nsizes)
		recorder__write_size(r, XLP_SIZE_LAUNCH, launch__pid(r->child),
				     launch_size(r, r->launches));
	/* before the child may exec: the kernel times it from then on */
	ret = session__watch_launch(r->sess, launch__pid(r->child));
	if (ret)
		xlp_warn("cannot have the kernel time launch %u: %s: it is timed by xlprobe",
			 r->launches + 1, strerror(-ret));
	r->launch_start_ns = xlp_now_ns();
	ret = launch__release(r->child, err, sizeof(err));
	if (ret)
		xlp_err("%s", err);
	r->launches++;
	return ret;
}

/*
 * A launch's run is the command's own life as the kernel saw it: its exec
 * and the exit of its last thread (bpf/sched.bpf.c says why those). When an
 * event is missing (its program could not attach or did not run), the
 * release and the reap stand in, flagged in the record and counted in the
 * footer: those include xlprobe's own delays, never silently.
 */
static void launch_times(struct recorder *r, struct xlp_launch_rec *l, uint64_t reaped_ns)
{
	uint64_t exec_ns = 0, exit_ns = 0;

	session__launch_times(r->sess, (pid_t)l->pid, &exec_ns, &exit_ns);
	/* the same clock on both sides: anything outside release..reap is
	 * not this launch's */
	if (exec_ns && exec_ns >= r->launch_start_ns && exec_ns <= reaped_ns) {
		l->start_ns = exec_ns;
		l->flags |= XLP_LAUNCH_EXEC_TIME;
	} else {
		l->start_ns = r->launch_start_ns;
	}
	if (exit_ns && exit_ns >= l->start_ns && exit_ns <= reaped_ns) {
		l->end_ns = exit_ns;
		l->flags |= XLP_LAUNCH_EXIT_TIME;
	} else {
		l->end_ns = reaped_ns;
	}
	if ((l->flags & (XLP_LAUNCH_EXEC_TIME | XLP_LAUNCH_EXIT_TIME)) !=
	    (XLP_LAUNCH_EXEC_TIME | XLP_LAUNCH_EXIT_TIME))
		r->untimed++;
}

/* Records a finished launch; starts the next one unless it was the last. */
int recorder__finish_launch(struct recorder *r, int code)
{
	struct xlp_launch_rec l = {.h = {XLP_R_LAUNCH, sizeof(l), 0}};
	int ret;

	l.run = r->launches - 1;
	l.pid = (uint32_t)launch__pid(r->child);
	l.exit_code = code;
	launch_times(r, &l, xlp_now_ns());
	launch__free(r->child);
	r->child = NULL;
	/* the pid is gone: its probes go too, the next launch gets its own */
	if (!r->o.probe_forks)
		session__detach_funcs(r->sess, 0);
	recorder__on_record(r, &l.h);
	if (r->launches >= record_opts__launches(&r->o) || recorder_stop_signal || r->ended)
		return 1;
	ret = recorder__start_launch(r);
	return ret ? ret : recorder__release_launch(r);
}
