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
 * files, and this process waits for it until the stop's second is nearly
 * spent (STOP_BUDGET_MS from the signal or the target's exit; a quiet
 * machine's removal: 0.05-0.13 s for 30 functions through uprobe_multi),
 * then says that the removal goes on and in which process, and exits. The
 * child ignores the terminal's signals and writes nothing: a second
 * Ctrl-C cannot leave the probes half removed, and a caller reading our
 * stdout or stderr gets its end of file when we exit.
 *
 * The kernel removes a probe when the last reference to its file goes,
 * whoever drops it: after the fork both processes hold one. So this
 * process drops its references to every perf event and BPF link first,
 * and the child waits for that (the end of a pipe) before it closes its
 * own: its closes are the last, and the grace periods are its to wait
 * for. Without that order the child's closes were cheap, it exited at
 * once, and this process's exit waited for the kernel instead (make
 * bench, 2026-11-29: a stop of 34 s after the remover had exited).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "log.h"
#include "recorder.h"
#include "testhooks.h"
#include "util.h"

/*
 * The whole stop's bound (issue "A stop that stops": every stop within
 * 1 s, from the signal or the target's exit), less what our own exit
 * takes after the wait (the ring buffer's unmapping, the maps' closes:
 * 10-30 ms here).
 */
#define STOP_BUDGET_MS 1000
#define EXIT_MARGIN_MS 100

/*
 * Closes this process's references to perf events and BPF links (the
 * files whose last close removes a probe), as /proc names them. Returns
 * how many; -errno when /proc cannot be read (then none was closed).
 */
static int drop_probe_refs(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char path[64], target[64];
		int fd = atoi(e->d_name);
		ssize_t len;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d) || fd <= 2)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		if (!strcmp(target, "anon_inode:[perf_event]") ||
		    !strcmp(target, "anon_inode:bpf_link")) {
			close(fd);
			n++;
		}
	}
	closedir(d);
	return n;
}

/*
 * In the child: once the parent has dropped its references (go, the
 * pipe's read end, at its end of file; also when the parent died),
 * remove every probe, then exit. Never returns.
 */
static void remover_run(struct session *s, const char *delay, int go)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	char c;

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
	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	session__close(s);
	_exit(0);
}

/* Has child pid exited by end (xlp_now_ns's clock)? Reaps it if so. */
static bool wait_child(pid_t pid, uint64_t end)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd p = {.fd = pfd, .events = POLLIN};
	int rc;

	if (pfd >= 0) {
		for (;;) {
			uint64_t now = xlp_now_ns();

			rc = poll(&p, 1, now < end ? (int)((end - now) / 1000000) : 0);
			if (rc >= 0 || errno != EINTR || now >= end)
				break;
		}
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

void recorder__detach(struct recorder *r, uint64_t stop_began_ns)
{
	uint64_t start = xlp_now_ns(),
		 end = stop_began_ns + (STOP_BUDGET_MS - EXIT_MARGIN_MS) * 1000000ull;
	int go[2] = {-1, -1}, dropped = 0;
	pid_t pid;

	if (!r->sess)
		return;
	fflush(NULL); /* nothing buffered twice */
	pid = xlp_test_hook("DETACH_INLINE") || pipe2(go, O_CLOEXEC) ? -1 : fork();
	if (pid == 0) {
		close(go[1]);
		remover_run(r->sess, xlp_test_hook("DETACH_DELAY_MS"), go[0]);
	}
	if (pid > 0) {
		close(go[0]);
		dropped = drop_probe_refs();
		close(go[1]); /* the child's turn */
	} else if (go[0] >= 0) {
		close(go[0]);
		close(go[1]);
	}
	if (pid < 0 || dropped < 0) {
		/*
		 * No child, or our references still held (no /proc): remove
		 * them here, however long it takes; a child's closes then
		 * remove nothing, and it exits
		 */
		session__close(r->sess);
		r->sess = NULL;
		if (pid > 0)
			waitpid(pid, NULL, 0);
		xlp_dbg("probes removed in %.3f s", (xlp_now_ns() - start) / 1e9);
		return;
	}
	/* the child holds the last references now: it removes the probes */
	r->sess = NULL;
	xlp_dbg("%d probe files left to process %d", dropped, (int)pid);
	if (wait_child(pid, end)) {
		xlp_dbg("probes removed in %.3f s", (xlp_now_ns() - start) / 1e9);
		return;
	}
	xlp_warn("the kernel is still removing the probes %.1f s after %s was complete (it waits "
		 "for RCU grace periods, which a loaded machine delays): process %d finishes "
		 "that in the background; the recording is complete",
		 (xlp_now_ns() - start) / 1e9, r->o.output, (int)pid);
}
