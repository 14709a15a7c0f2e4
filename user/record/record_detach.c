/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probes go last, once the file is complete, and the stop does not
 * wait for the kernel past a bound. Removing a uprobe waits for RCU grace
 * periods (synchronize_rcu_tasks_trace and uretprobes' SRCU in
 * uprobe_unregister_sync, once per uprobe_multi link; six per perf-event
 * uprobe before 6.6), and a loaded machine delays those without limit:
 * 34.7 s for `-i PortalRun` and 7 functions on a busy pgbench backend
 * (make bench, 2026-11-29), in state D, where nothing else of the stop is
 * left to do. So a child process removes them: it holds the same link
 * files, and this process waits for it at most DETACH_WAIT_MS (a quiet
 * machine's removal: 0.05-0.13 s for 30 functions through uprobe_multi),
 * then says that the removal goes on and in which process, and exits. The
 * child ignores the terminal's signals and writes nothing: a second
 * Ctrl-C cannot leave the probes half removed, and a caller reading our
 * stdout or stderr gets its end of file when we exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "log.h"
#include "recorder.h"
#include "testhooks.h"
#include "util.h"

#define DETACH_WAIT_MS 1000

/* In the child: remove every probe, then exit. Never returns. */
static void remover_run(struct session *s, const char *delay)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	/* test hook: a removal that takes this many ms more (a loaded machine) */
	if (delay) {
		long ms = atol(delay);
		struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};

		nanosleep(&ts, NULL);
	}
	session__close(s);
	_exit(0);
}

/* Has child pid exited within ms? Reaps it if so. */
static bool wait_child(pid_t pid, int ms)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd p = {.fd = pfd, .events = POLLIN};
	uint64_t end = xlp_now_ns() + (uint64_t)ms * 1000000ull;
	int rc;

	if (pfd >= 0) {
		do
			rc = poll(&p, 1, ms);
		while (rc < 0 && errno == EINTR && xlp_now_ns() < end);
		close(pfd);
		return rc > 0 && waitpid(pid, NULL, 0) == pid;
	}
	/* no pidfd (before 5.3): look every 10 ms */
	for (;;) {
		struct timespec ts = {.tv_nsec = 10000000};

		if (waitpid(pid, NULL, WNOHANG) == pid)
			return true;
		if (xlp_now_ns() >= end)
			return false;
		nanosleep(&ts, NULL);
	}
}

void recorder__detach(struct recorder *r)
{
	uint64_t start = xlp_now_ns();
	pid_t pid;

	if (!r->sess)
		return;
	fflush(NULL); /* nothing buffered twice */
	pid = xlp_test_hook("DETACH_INLINE") ? -1 : fork();
	if (pid == 0)
		remover_run(r->sess, xlp_test_hook("DETACH_DELAY_MS"));
	if (pid < 0) {
		/* no child: remove them here, however long it takes */
		session__close(r->sess);
		r->sess = NULL;
		xlp_dbg("probes removed in %.3f s", (xlp_now_ns() - start) / 1e9);
		return;
	}
	/* ours are copies of the child's: closing them at exit removes nothing */
	r->sess = NULL;
	if (wait_child(pid, DETACH_WAIT_MS)) {
		xlp_dbg("probes removed in %.3f s", (xlp_now_ns() - start) / 1e9);
		return;
	}
	xlp_warn("the kernel is still removing the probes %.1f s after %s was complete (it waits "
		 "for RCU grace periods, which a loaded machine delays): process %d finishes "
		 "that in the background; the recording is complete",
		 (xlp_now_ns() - start) / 1e9, r->o.output, (int)pid);
}
