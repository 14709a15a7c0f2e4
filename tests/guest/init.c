// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * PID 1 of the make guest-test initramfs (static; the initramfs has no
 * shell). Mounts what xlprobe and the tests need (proc, sysfs with the
 * kernel's BTF, devtmpfs, binderfs where the kernel has it, tmpfs), runs
 * /xlp/.output/guest/test_guest with the kernel command line's arguments
 * after "--" (test names; none: all), copies its output to the console
 * (ttyS0) and to the results port (ttyS1, a file on the host that carries
 * nothing else; absent on arm64's virt machine, where the host reads the
 * console), ends with "XLP-GUEST-END status=N" there, and reboots:
 * QEMU runs with -no-reboot, so the reboot ends it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define TESTS "/xlp/.output/guest/test_guest"

static int results = -1;

static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (write(1, buf, n) < 0)
		return;
	if (results >= 0 && write(results, buf, n) < 0)
		return;
}

static void mnt(const char *src, const char *dir, const char *type, const char *opts)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, opts) && errno != EBUSY)
		say("init: mount %s on %s: %s\n", type, dir, strerror(errno));
}

static void finish(int status)
{
	say("XLP-GUEST-END status=%d\n", status);
	if (results >= 0)
		tcdrain(results);
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

/* The results port, raw: no CR added to the lines, nothing echoed. */
static int open_results(void)
{
	struct termios t;
	int fd = open("/dev/ttyS1", O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0 && !tcgetattr(fd, &t)) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

/* Copies what is in the pipe to the console and the results port. */
static void copy_out(int fd)
{
	char buf[4096];
	ssize_t len;

	while ((len = read(fd, buf, sizeof(buf))) > 0) {
		if (write(1, buf, len) < 0) {
			/* no console: the results port still gets it */
		}
		if (results >= 0 && write(results, buf, len) < 0)
			results = -1;
	}
}

int main(int argc, char **argv)
{
	char *targv[64] = {TESTS};
	int pfd[2], status = 0, st, exited = 0, n = 1, con;
	pid_t pid;

	mnt("devtmpfs", "/dev", "devtmpfs", NULL);
	/* the kernel found no /dev/console in the initramfs: open it now */
	con = open("/dev/console", O_RDWR | O_NOCTTY);
	if (con >= 0) {
		dup2(con, 0);
		dup2(con, 1);
		dup2(con, 2);
		if (con > 2)
			close(con);
	}
	mnt("proc", "/proc", "proc", NULL);
	mnt("sysfs", "/sys", "sysfs", NULL);
	mnt("tracefs", "/sys/kernel/tracing", "tracefs", NULL);
	mnt("tmpfs", "/tmp", "tmpfs", "mode=1777");
	/* ENODEV: a kernel without binderfs (binder as a module, as Debian's
	 * arm64 one): the test program loads the module with its devices */
	mkdir("/dev/binderfs", 0755);
	if (mount("binder", "/dev/binderfs", "binder", 0, NULL) && errno != ENODEV)
		say("init: mount binder on /dev/binderfs: %s\n", strerror(errno));
	results = open_results();
	if (results < 0)
		say("init: no results port /dev/ttyS1 (%s): results on the console\n",
		    strerror(errno));
	say("XLP-GUEST-BEGIN\n");
	for (int i = 1; i < argc && n < 63; i++)
		targv[n++] = argv[i];
	targv[n] = NULL;
	if (pipe(pfd)) {
		say("init: pipe: %s\n", strerror(errno));
		finish(1);
	}
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		setenv("XLP_ROOT", "/xlp", 1);
		/* no shell to remove the temporary files with, and the guest
		 * is thrown away anyway */
		setenv("XLP_KEEP_TMP", "1", 1);
		setenv("PATH", "/xlp/.output:/xlp/.output/guest", 1);
		execv(TESTS, targv);
		fprintf(stderr, "init: exec %s: %s\n", TESTS, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	/* copy the output until the test program exits (not until the pipe
	 * closes: a child it left behind may hold the pipe open) */
	while (!exited) {
		struct pollfd p = {pfd[0], POLLIN, 0};
		pid_t done;

		poll(&p, 1, 200);
		copy_out(pfd[0]);
		/* PID 1 adopts every orphan: reap them, and note our child */
		while ((done = waitpid(-1, &st, WNOHANG)) > 0)
			if (done == pid) {
				status = st;
				exited = 1;
			}
	}
	copy_out(pfd[0]); /* what it wrote just before exiting */
	finish(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
