/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "launch.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every architecture */
#endif

struct launch {
	pid_t pid;
	int go_fd;     /* write end: one byte releases the child */
	int status_fd; /* read end, O_CLOEXEC in the child: EOF = exec worked */
	int pidfd;     /* readable once the child has exited; -1 if unavailable */
	int reaped;
	char cmd[256];
};

/* the command's own fd limit, restored before it runs (launch.h) */
static struct rlimit saved_nofile;
static bool have_saved_nofile;

/* and its nice value (the recorder raises its own priority: record.c) */
static int saved_nice;

void launch__save_fd_limit(void)
{
	have_saved_nofile = !getrlimit(RLIMIT_NOFILE, &saved_nofile);
	errno = 0;
	saved_nice = getpriority(PRIO_PROCESS, 0);
	if (errno)
		saved_nice = 0;
}

static void child(int go_fd, int status_fd, char *const argv[])
{
	char c;
	int e;

	if (have_saved_nofile)
		setrlimit(RLIMIT_NOFILE, &saved_nofile);
	/* SCHED_FIFO is reset at fork (SCHED_RESET_ON_FORK), a nice value not */
	setpriority(PRIO_PROCESS, 0, saved_nice);

	/* a parent that dies before releasing us must not leave us waiting */
	if (read(go_fd, &c, 1) != 1)
		_exit(127);
	close(go_fd);
	execvp(argv[0], argv);
	e = errno;
	if (write(status_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int launch__fork(char *const argv[], struct launch **out)
{
	int go[2] = {-1, -1}, st[2] = {-1, -1}, err = 0;
	struct launch *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	if (pipe(go) || pipe2(st, O_CLOEXEC)) {
		err = -errno;
		goto cleanup;
	}
	snprintf(l->cmd, sizeof(l->cmd), "%s", argv[0]);
	fflush(NULL);
	l->pid = fork();
	if (l->pid < 0) {
		err = -errno;
		goto cleanup;
	}
	if (l->pid == 0) {
		close(go[1]);
		close(st[0]);
		child(go[0], st[1], argv);
	}
	close(go[0]);
	close(st[1]);
	l->go_fd = go[1];
	l->status_fd = st[0];
	/* close-on-exec by definition; without it (kernels before 5.3) the
	 * recorder polls more often instead */
	l->pidfd = (int)syscall(SYS_pidfd_open, l->pid, 0);
	*out = l;
	return 0;
cleanup:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (st[i] >= 0)
			close(st[i]);
	}
	free(l);
	return err;
}

pid_t launch__pid(const struct launch *l)
{
	return l->pid;
}

int launch__pidfd(const struct launch *l)
{
	return l->pidfd;
}

int launch__release(struct launch *l, char *err, size_t errlen)
{
	int e = 0;
	ssize_t n;

	if (write(l->go_fd, "g", 1) != 1)
		return -errno;
	close(l->go_fd);
	l->go_fd = -1;
	n = read(l->status_fd, &e, sizeof(e));
	close(l->status_fd);
	l->status_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		snprintf(err, errlen, "cannot run '%s': %s: check the command after --", l->cmd,
			 strerror(e));
		return -e;
	}
	return 0;
}

int launch__reap(struct launch *l, int block, int *code)
{
	int st;
	pid_t r;

	if (l->reaped)
		return 1;
	do
		r = waitpid(l->pid, &st, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return r < 0 ? -errno : 0;
	l->reaped = 1;
	*code = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
	return 1;
}

void launch__kill(struct launch *l)
{
	int code;

	if (!l || l->reaped)
		return;
	kill(l->pid, SIGTERM);
	/* a command that ignores SIGTERM gets 2 s, then SIGKILL */
	for (int i = 0; i < 200; i++) {
		if (launch__reap(l, 0, &code) != 0)
			return;
		usleep(10000);
	}
	kill(l->pid, SIGKILL);
	launch__reap(l, 1, &code);
}

void launch__free(struct launch *l)
{
	if (!l)
		return;
	if (l->go_fd >= 0) {
		/* never released: closing go makes the child exit */
		close(l->go_fd);
		l->go_fd = -1;
	}
	if (l->status_fd >= 0)
		close(l->status_fd);
	launch__kill(l);
	if (l->pidfd >= 0)
		close(l->pidfd);
	free(l);
}
