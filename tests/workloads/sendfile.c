// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sendfile: a cold file sent to a TCP socket, for the multi-fd wait-reason
 * test (tests/root/test_reasons.c): the syscall names the socket, the
 * thread waits for the file's pages.
 *
 *   send_cold()   sendfile() of the whole file (FILE_SIZE bytes, under
 *                 /var/tmp, on the disk) to a loopback TCP connection whose
 *                 other end, child process "sink", reads as fast as it can
 *
 *   sendfile [--iterations N]
 *
 * Before each call (outside it) the file is dropped from the page cache
 * (posix_fadvise DONTNEED after fsync), so each call reads it from the
 * disk. stdout: one line per call, after it returned,
 *   CALL send_cold <tid> <start_ns> <end_ns>
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define FILE_SIZE (16 * 1024 * 1024)

static int file_fd = -1, sock_fd = -1;
static char path[] = "/var/tmp/xlp-sendfile-XXXXXX";

MARKED void send_cold(void)
{
	off_t off = 0;

	while (off < FILE_SIZE) {
		ssize_t n = sendfile(sock_fd, file_fd, &off, FILE_SIZE - off);

		if (n <= 0)
			wl_die("sendfile");
	}
}

/* The child reads the connection to its end, as fast as it can. */
static pid_t start_sink(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), c;
	pid_t pid;

	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &len))
		wl_die("listen");
	pid = fork();
	if (pid < 0)
		wl_die("fork");
	if (!pid) {
		static char buf[1 << 16];

		prctl(PR_SET_NAME, "sink");
		c = accept(l, NULL, NULL);
		if (c < 0)
			_exit(1);
		while (read(c, buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	sock_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock_fd < 0 || connect(sock_fd, (struct sockaddr *)&a, sizeof(a)))
		wl_die("connect");
	close(l);
	return pid;
}

int main(int argc, char **argv)
{
	long iterations = 3;
	pid_t sink;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--iterations") && i + 1 < argc) {
			iterations = atol(argv[++i]);
		} else {
			fprintf(stderr, "usage: sendfile [--iterations N]\n");
			return 2;
		}
	}
	file_fd = wl_make_file(path, FILE_SIZE);
	sink = start_sink();
	for (long i = 0; i < iterations; i++) {
		uint64_t start, end;
		int err;

		/* cold: written back, then dropped from the page cache */
		err = posix_fadvise(file_fd, 0, 0, POSIX_FADV_DONTNEED);
		if (err) {
			errno = err;
			wl_die("posix_fadvise");
		}
		start = wl_now_ns();
		send_cold();
		end = wl_now_ns();
		printf("CALL send_cold %ld %llu %llu\n", (long)syscall(SYS_gettid),
		       (unsigned long long)start, (unsigned long long)end);
		fflush(stdout);
	}
	close(sock_fd);
	waitpid(sink, NULL, 0);
	close(file_fd);
	unlink(path);
	return 0;
}
