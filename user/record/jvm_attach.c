/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Asking a HotSpot JVM for its perf map (jvm_attach.h), as `jcmd PID
 * Compiler.perfmap` does, through HotSpot's attach mechanism on Linux
 * (src/jdk.attach/linux/classes/sun/tools/attach/VirtualMachineImpl.java):
 *
 *   1. the JVM listens on the UNIX socket /tmp/.java_pid<NSPID> once its
 *      attach listener runs; it starts it when it gets SIGQUIT while a file
 *      .attach_pid<NSPID> exists in its working directory (or /tmp);
 *   2. a request is "1\0" (the protocol version), the command "jcmd\0" and
 *      three arguments, NUL-terminated: "Compiler.perfmap\0\0\0";
 *   3. the answer starts with the result code, "0\n" for success.
 *
 * HotSpot accepts a peer and a trigger file only of its own effective uid
 * and gid (AttachListener's checks), so the request is made by a child
 * that has become the target's user; paths go through /proc/PID/root and
 * /proc/PID/cwd and the pid is the one of the target's own pid namespace,
 * so a JVM in a container is asked the same way.
 *
 * SIGQUIT is sent only when the target catches it (SigCgt): a JVM started
 * with -Xrs leaves it to the default action, which would end it.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "jvm_attach.h"
#include "util.h"

/* what the child's exit status says went wrong (its message is lost with it) */
enum {
	JA_OK = 0,
	JA_USER = 10,	   /* could not become the target's user */
	JA_TRIGGER = 11,   /* could not create the trigger file */
	JA_NO_QUIT = 12,   /* the target does not catch SIGQUIT (-Xrs) */
	JA_SIGNAL = 13,	   /* kill(SIGQUIT) failed */
	JA_NO_SOCKET = 14, /* no listener came up */
	JA_PROTO = 15,	   /* the request or its answer failed */
	JA_REFUSED = 16,   /* the JVM answered with an error (no Compiler.perfmap) */
};

/* "Uid:" or "Gid:" (the effective one), "NSpid:" (the last), "SigCgt:" of /proc/PID/status */
static int proc_status(int pid, uid_t *uid, gid_t *gid, int *nspid, uint64_t *sigcgt)
{
	char path[64], line[256];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	*nspid = pid;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		if (sscanf(line, "Uid: %lu %lu", &a, &b) == 2) {
			*uid = (uid_t)b;
			found |= 1;
		} else if (sscanf(line, "Gid: %lu %lu", &a, &b) == 2) {
			*gid = (gid_t)b;
			found |= 2;
		} else if (!strncmp(line, "NSpid:", 6)) {
			/* the last is the pid in the process's own namespace */
			char *s = strrchr(line, '\t');
			long v = s ? strtol(s + 1, NULL, 10) : 0;

			if (v > 0)
				*nspid = (int)v;
		} else if (sscanf(line, "SigCgt: %" SCNx64, sigcgt) == 1) {
			found |= 4;
		}
	}
	fclose(f);
	return found == 7 ? 0 : -EINVAL;
}

/* Whether pid maps HotSpot's libjvm.so. */
bool jvm_attach__is_jvm(int pid)
{
	char path[64], line[512];
	bool jvm = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!jvm && fgets(line, sizeof(line), f))
		jvm = strstr(line, "/libjvm.so") != NULL;
	fclose(f);
	return jvm;
}

static int connect_to(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* The child, as the target's user: the whole exchange; returns its exit code. */
static int child(int pid, int nspid, uid_t uid, gid_t gid, uint64_t sigcgt)
{
	static const char req[] = "1\0jcmd\0Compiler.perfmap\0\0"; /* + the literal's NUL */
	char sock[128], trig[128], ans[64];
	int fd, tfd = -1;
	ssize_t n;

	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
		return JA_USER;
	snprintf(sock, sizeof(sock), "/proc/%d/root/tmp/.java_pid%d", pid, nspid);
	fd = connect_to(sock);
	if (fd < 0) {
		/* SIGQUIT's bit in SigCgt is bit SIGQUIT - 1 */
		if (!(sigcgt & (1ull << (SIGQUIT - 1))))
			return JA_NO_QUIT;
		snprintf(trig, sizeof(trig), "/proc/%d/cwd/.attach_pid%d", pid, nspid);
		tfd = open(trig, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (tfd < 0) {
			snprintf(trig, sizeof(trig), "/proc/%d/root/tmp/.attach_pid%d", pid, nspid);
			tfd = open(trig, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				   0600);
		}
		if (tfd < 0)
			return JA_TRIGGER;
		close(tfd);
		if (kill(pid, SIGQUIT)) {
			unlink(trig);
			return JA_SIGNAL;
		}
		/* HotSpot starts its listener within ms; jcmd waits up to 10 s */
		for (int i = 0; i < 100 && fd < 0; i++) {
			sleep_ms(50);
			fd = connect_to(sock);
		}
		unlink(trig);
		if (fd < 0)
			return JA_NO_SOCKET;
	}
	if (write(fd, req, sizeof(req)) != (ssize_t)sizeof(req)) {
		close(fd);
		return JA_PROTO;
	}
	n = read(fd, ans, sizeof(ans) - 1);
	close(fd);
	if (n <= 0)
		return JA_PROTO;
	ans[n] = 0;
	return ans[0] == '0' && (ans[1] == '\n' || !ans[1]) ? JA_OK : JA_REFUSED;
}

static const char *why(int code)
{
	switch (code) {
	case JA_USER:
		return "cannot take the JVM's user";
	case JA_TRIGGER:
		return "cannot create its attach trigger file";
	case JA_NO_QUIT:
		return "it does not catch SIGQUIT (started with -Xrs?)";
	case JA_SIGNAL:
		return "cannot signal it";
	case JA_NO_SOCKET:
		return "its attach listener did not start (-XX:+DisableAttachMechanism?)";
	case JA_PROTO:
		return "the attach exchange failed";
	case JA_REFUSED:
		return "it refused Compiler.perfmap (a JVM before 17?)";
	default:
		return "the attach helper failed";
	}
}

int jvm_attach__perfmap(int pid, char *err, size_t errlen)
{
	uint64_t sigcgt = 0;
	int nspid = pid, st, ret;
	uid_t uid = 0;
	gid_t gid = 0;
	pid_t c;

	ret = proc_status(pid, &uid, &gid, &nspid, &sigcgt);
	if (ret) {
		snprintf(err, errlen, "cannot read /proc/%d/status: %s", pid, strerror(-ret));
		return ret;
	}
	c = fork();
	if (c < 0) {
		ret = -errno;
		snprintf(err, errlen, "fork: %s", strerror(-ret));
		return ret;
	}
	if (!c)
		_exit(child(pid, nspid, uid, gid, sigcgt));
	/* the child waits 5 s at most for the listener; give it 10 */
	for (int i = 0;; i++) {
		pid_t w = waitpid(c, &st, WNOHANG);

		if (w == c)
			break;
		if (w < 0 && errno != EINTR) {
			snprintf(err, errlen, "waitpid: %s", strerror(errno));
			return -ECHILD;
		}
		if (i == 1000) {
			kill(c, SIGKILL);
			waitpid(c, &st, 0);
			snprintf(err, errlen, "the JVM's attach listener did not answer in 10 s");
			return -ETIMEDOUT;
		}
		sleep_ms(10);
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == JA_OK)
		return 0;
	snprintf(err, errlen, "%s", why(WIFEXITED(st) ? WEXITSTATUS(st) : -1));
	return -EPROTO;
}
