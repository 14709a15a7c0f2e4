// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * reasons: one marked function per wait reason, each blocking ~50 ms in a
 * way that leaves no doubt about why, for the wait-reason tests.
 *
 *   disk_wait()   O_DIRECT read of DISK_CHUNK bytes from --disk FILE (a
 *                 loop device throttled to 8 MiB/s: ~250 ms, see below),
 *                 or without --disk from a file under /var/tmp after
 *                 posix_fadvise(DONTNEED) (as long as the disk takes)
 *   net_wait()    TCP request/reply with a loopback server (child process
 *                 "netpeer") that delays its reply 50 ms
 *   pipe_wait()   read from a pipe whose writer, child process "peerproc",
 *                 sleeps 50 ms before writing
 *   unix_wait()   the same over an AF_UNIX socketpair (another "peerproc")
 *   lock_wait()   pthread mutex held for 50 ms by thread "holder"; the hold
 *                 is taken before the call
 *   timer_wait()  nanosleep 50 ms
 *
 *   reasons [--iterations N] [--disk FILE] [--only NAME] [--wait-after] [--rt]
 *
 * Each function runs N times (default 3), in the order above; --only runs
 * one of them and sets up only what it needs (no children, no threads).
 * --wait-after prints "DONE <pid>" after the calls and waits for SIGUSR1
 * before exiting, so a test can read the kernel's figures of a live thread.
 * --rt runs the workload SCHED_FIFO: see set_rt() for why.
 *
 * stdout (CLOCK_MONOTONIC ns), each line printed outside marked functions:
 *   DISK <path> <bytes per call>
 *   PEER <pipe|unix|net> <pid>
 *   CALL <func> <tid> <start_ns> <end_ns>
 *   DONE <pid>
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define WAIT_NS (50 * NS_PER_MS)
/*
 * The blkio throttle allows bps x (time since its slice began, rounded UP
 * to whole 100 ms slices on rotational devices, which loop devices backed
 * by /dev/vda are): a read of up to k budgets (bps x 100 ms) may go
 * through as soon as the slice is a little over k-1 slices old. A slice
 * begins when the limit is set or at a read after an idle slice; an
 * unmarked read of a chunk first brings the group to the steady state
 * where reads follow dispatches, and a chunk of 2.5 budgets, 2 MiB at the
 * 8 MiB/s the tests throttle to, then waits at least ~100 ms (~250 ms when
 * calls follow each other) whatever the phase of the slice.
 */
#define DISK_CHUNK (2048 * 1024)
#define TMP_FILE_SIZE (64 * 1024 * 1024)

struct opts {
	long iterations;
	const char *disk;
	const char *only;
	bool wait_after;
	bool rt;
};

static struct opts o = {.iterations = 3};

/* one peer child: requests go out on req_fd, replies come back on rep_fd */
struct peer {
	pid_t pid;
	int req_fd;
	int rep_fd;
};

static struct {
	int fd;
	void *buf;
	off_t off, size;
	char tmp_path[64]; /* file we created, removed at exit */
} disk = {.fd = -1};

static struct peer pipe_peer = {.pid = -1}, unix_peer = {.pid = -1}, net_peer = {.pid = -1};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t lock_go, lock_held;
static pthread_t holder;

static void log_call(const char *func, uint64_t start, uint64_t end)
{
	printf("CALL %s %ld %llu %llu\n", func, (long)syscall(SYS_gettid),
	       (unsigned long long)start, (unsigned long long)end);
	fflush(stdout);
}

static bool wanted(const char *name)
{
	return !o.only || !strcmp(o.only, name);
}

static void read_full(int fd, void *buf, size_t len)
{
	if (!wl_read_full(fd, buf, len))
		wl_die("read");
}

static void write_full(int fd, const void *buf, size_t len)
{
	if (!wl_write_all(fd, buf, len))
		wl_die("write");
}

/* ---- disk ---- */

static void disk_read_at(size_t len)
{
	ssize_t r;

	if (disk.off + (off_t)len > disk.size)
		disk.off = 0;
	r = pread(disk.fd, disk.buf, len, disk.off);
	if (r != (ssize_t)len)
		wl_die("pread (O_DIRECT)");
	disk.off += (off_t)len;
}

static void make_tmp_file(void)
{
	char block[64 * 1024];
	int fd;

	strcpy(disk.tmp_path, "/var/tmp/xlprobe-reasons.XXXXXX");
	fd = mkstemp(disk.tmp_path);
	if (fd < 0)
		wl_die("mkstemp /var/tmp");
	/* real data, not holes: a hole is read without any I/O */
	for (size_t i = 0; i < sizeof(block); i++)
		block[i] = (char)(i * 131 + 7);
	for (off_t done = 0; done < TMP_FILE_SIZE; done += sizeof(block))
		write_full(fd, block, sizeof(block));
	if (fsync(fd))
		wl_die("fsync");
	close(fd);
}

static void disk_setup(void)
{
	const char *path = o.disk;

	if (!path) {
		make_tmp_file();
		path = disk.tmp_path;
	}
	disk.fd = open(path, O_RDONLY | O_DIRECT);
	if (disk.fd < 0)
		wl_die(path);
	disk.size = lseek(disk.fd, 0, SEEK_END);
	if (disk.size < 2 * DISK_CHUNK)
		wl_die("disk file too small");
	if (posix_memalign(&disk.buf, 4096, DISK_CHUNK))
		wl_die("posix_memalign");
	if (o.disk)
		disk_read_at(DISK_CHUNK);
	printf("DISK %s %d\n", path, DISK_CHUNK);
	fflush(stdout);
}

MARKED void disk_wait(void)
{
	uint64_t start = wl_now_ns(), end;

	disk_read_at(DISK_CHUNK);
	end = wl_now_ns();
	log_call("disk_wait", start, end);
}

static void disk_prepare(void)
{
	/* O_DIRECT bypasses the page cache anyway; dropping it also keeps a
	 * filesystem from serving the read from pages cached earlier */
	if (!o.disk)
		posix_fadvise(disk.fd, 0, 0, POSIX_FADV_DONTNEED);
}

/* ---- peer processes ---- */

/* The child side: each request byte is answered 50 ms later. */
static void serve(const char *name, int in, int out)
{
	char c;

	prctl(PR_SET_NAME, name);
	/* other peers' channels inherited from the workload would keep them
	 * open after the workload closes its ends: they would never see EOF */
	for (int fd = 3; fd < 1024; fd++)
		if (fd != in && fd != out)
			close(fd);
	for (;;) {
		ssize_t r = read(in, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			_exit(0); /* the workload closed its end: done */
		wl_sleep_ns(WAIT_NS);
		write_full(out, &c, 1);
	}
}

static void start_pipe_peer(void)
{
	int req[2], rep[2];

	if (pipe(req) || pipe(rep))
		wl_die("pipe");
	fflush(stdout);
	pipe_peer.pid = fork();
	if (pipe_peer.pid < 0)
		wl_die("fork");
	if (!pipe_peer.pid) {
		close(req[1]);
		close(rep[0]);
		serve("peerproc", req[0], rep[1]);
	}
	close(req[0]);
	close(rep[1]);
	pipe_peer.req_fd = req[1];
	pipe_peer.rep_fd = rep[0];
	printf("PEER pipe %d\n", pipe_peer.pid);
}

static void start_unix_peer(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		wl_die("socketpair");
	fflush(stdout);
	unix_peer.pid = fork();
	if (unix_peer.pid < 0)
		wl_die("fork");
	if (!unix_peer.pid) {
		close(sv[0]);
		serve("peerproc", sv[1], sv[1]);
	}
	close(sv[1]);
	unix_peer.req_fd = unix_peer.rep_fd = sv[0];
	printf("PEER unix %d\n", unix_peer.pid);
}

static void start_net_peer(void)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(addr);
	int lfd, fd, one = 1;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&addr, &alen))
		wl_die("loopback server socket");
	fflush(stdout);
	net_peer.pid = fork();
	if (net_peer.pid < 0)
		wl_die("fork");
	if (!net_peer.pid) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			wl_die("accept");
		close(lfd);
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		serve("netpeer", fd, fd);
	}
	close(lfd);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		wl_die("connect to the loopback server");
	/* one byte each way must leave at once, not after Nagle's delay */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	net_peer.req_fd = net_peer.rep_fd = fd;
	printf("PEER net %d\n", net_peer.pid);
}

static void stop_peer(struct peer *p)
{
	if (p->pid < 0)
		return;
	/* EOF on its request channel ends the child */
	close(p->req_fd);
	if (p->rep_fd != p->req_fd)
		close(p->rep_fd);
	waitpid(p->pid, NULL, 0);
	p->pid = -1;
}

static void request_reply(struct peer *p)
{
	char c = 'x';

	write_full(p->req_fd, &c, 1);
	read_full(p->rep_fd, &c, 1);
}

MARKED void net_wait(void)
{
	uint64_t start = wl_now_ns(), end;

	request_reply(&net_peer);
	end = wl_now_ns();
	log_call("net_wait", start, end);
}

MARKED void pipe_wait(void)
{
	uint64_t start = wl_now_ns(), end;

	request_reply(&pipe_peer);
	end = wl_now_ns();
	log_call("pipe_wait", start, end);
}

MARKED void unix_wait(void)
{
	uint64_t start = wl_now_ns(), end;

	request_reply(&unix_peer);
	end = wl_now_ns();
	log_call("unix_wait", start, end);
}

/* ---- lock ---- */

static void *holder_main(void *arg)
{
	pthread_setname_np(pthread_self(), "holder");
	for (;;) {
		while (sem_wait(&lock_go))
			;
		pthread_mutex_lock(&lock);
		sem_post(&lock_held);
		wl_sleep_ns(WAIT_NS);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void lock_setup(void)
{
	int err;

	if (sem_init(&lock_go, 0, 0) || sem_init(&lock_held, 0, 0))
		wl_die("sem_init");
	err = pthread_create(&holder, NULL, holder_main, NULL);
	if (err) {
		errno = err;
		wl_die("pthread_create");
	}
}

/* Outside the marked function: after this the holder owns the mutex. */
static void lock_prepare(void)
{
	sem_post(&lock_go);
	while (sem_wait(&lock_held))
		;
}

MARKED void lock_wait(void)
{
	uint64_t start = wl_now_ns(), end;

	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	end = wl_now_ns();
	log_call("lock_wait", start, end);
}

/* ---- timer ---- */

MARKED void timer_wait(void)
{
	uint64_t start = wl_now_ns(), end;

	wl_sleep_ns(WAIT_NS);
	end = wl_now_ns();
	log_call("timer_wait", start, end);
}

/* ---- driver ---- */

struct reason_fn {
	const char *name;
	void (*setup)(void);
	void (*prepare)(void); /* before each call, unmarked */
	void (*fn)(void);
};

static const struct reason_fn fns[] = {
	{"disk_wait", disk_setup, disk_prepare, disk_wait},
	{"net_wait", start_net_peer, NULL, net_wait},
	{"pipe_wait", start_pipe_peer, NULL, pipe_wait},
	{"unix_wait", start_unix_peer, NULL, unix_wait},
	{"lock_wait", lock_setup, lock_prepare, lock_wait},
	{"timer_wait", NULL, NULL, timer_wait},
};

#define NR_FNS (sizeof(fns) / sizeof(fns[0]))

static void usage(void)
{
	fprintf(stderr, "usage: reasons [--iterations N] [--disk FILE] [--only NAME] "
			"[--wait-after] [--rt]\n  NAME: disk_wait net_wait pipe_wait unix_wait "
			"lock_wait timer_wait\n");
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	bool known = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has_val = i + 1 < argc;

		if (!strcmp(a, "--iterations") && has_val)
			o.iterations = atol(argv[++i]);
		else if (!strcmp(a, "--disk") && has_val)
			o.disk = argv[++i];
		else if (!strcmp(a, "--only") && has_val)
			o.only = argv[++i];
		else if (!strcmp(a, "--wait-after"))
			o.wait_after = true;
		else if (!strcmp(a, "--rt"))
			o.rt = true;
		else
			usage();
	}
	for (size_t i = 0; i < NR_FNS; i++)
		known |= wanted(fns[i].name);
	if (o.iterations < 0 || !known)
		usage();
}

/*
 * The kernel's blkio delay (taskstats) goes wrong for a fair-class task
 * whose sleep is a delayed dequeue (EEVDF, 6.12+): __block_task() then runs
 * later from another task's pick_next_task() and delayacct_blkio_start()
 * stamps *current*, so the sleeper keeps a stale start and its wakeup adds
 * far more than it waited (measured here: 550-670 ms of "delay" over reads
 * that took 375 ms of wall time). An RT task is dequeued at once, by itself:
 * its figures are right, and a test comparing against them can be exact.
 */
static void set_rt(void)
{
	struct sched_param sp = {.sched_priority = 1};

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		wl_die("sched_setscheduler SCHED_FIFO");
}

static void cleanup(void)
{
	stop_peer(&net_peer);
	stop_peer(&pipe_peer);
	stop_peer(&unix_peer);
	if (disk.tmp_path[0])
		unlink(disk.tmp_path);
}

int main(int argc, char **argv)
{
	parse_args(argc, argv);
	if (o.rt)
		set_rt();
	/* blocked before the holder thread exists, so sigwait() gets it */
	wl_block_usr1();
	/* a peer that died must show as an error, not kill us silently */
	signal(SIGPIPE, SIG_IGN);

	for (size_t i = 0; i < NR_FNS; i++)
		if (wanted(fns[i].name) && fns[i].setup)
			fns[i].setup();
	fflush(stdout);
	for (size_t i = 0; i < NR_FNS; i++) {
		if (!wanted(fns[i].name))
			continue;
		for (long k = 0; k < o.iterations; k++) {
			if (fns[i].prepare)
				fns[i].prepare();
			fns[i].fn();
		}
	}
	cleanup();
	if (o.wait_after)
		wl_announce_wait("DONE");
	/* the holder thread waits in sem_wait for ever: exit ends it */
	return 0;
}
