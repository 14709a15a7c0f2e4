// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * app: the app-like workload of the perturbation suite.
 *
 * Each run is one call of handle_request(run), the interaction. It calls
 * seven functions in this order, each using one resource in normal amounts:
 *
 *   load_config       O_DIRECT read of --disk-kib (128) KiB   disk
 *   fetch_remote      TCP request to process "netserver"     network
 *                     (1 ms think time, 4 KiB reply)
 *   ask_peer          request over pipes to process          IPC
 *                     "peerproc" (0.5 ms of its CPU)
 *   wait_tick         2 ms nanosleep                         timer
 *   update_cache      mutex shared with thread "cache_bg"    lock
 *                     (which takes it briefly every 10 ms)
 *   render            1 ms of CPU                            CPU
 *   compute_checksum  --compute-ms (10) ms of CPU            CPU
 *
 * --perturb SCENARIO slows exactly one function through exactly one
 * resource in round(--rate * --runs) runs picked by a PRNG seeded with
 * --seed, by --delay-ms (50) or the like:
 *
 *   net            netserver answers fetch_remote 50 ms later
 *   cpu            compute_checksum does --cpu-mult (6) times the work
 *   bgload         --hogs (5) busy threads of process "hog" pinned to the
 *                  worker's CPU: compute_checksum waits in the runqueue
 *   bgload_thread  the same with the hogs as threads of this process
 *   disk           load_config reads --disk-mult (8) times more. Only slow
 *                  on a throttled device (tests/e2e/setup.sh throttle; 8
 *                  MiB/s makes 1 MiB take ~100 ms, one throttle slice)
 *   ipc            peerproc sleeps 50 ms before answering ask_peer
 *   lock           cache_bg holds the mutex 50 ms as update_cache starts
 *   timer          wait_tick sleeps 50 ms instead of 2 ms
 *   two            net and cpu, alternating over the perturbed runs
 *   bg_disk_cpu    cpu, plus --bg-readers (2) threads "bg_disk" of this
 *                  process reading 1 MiB blocks with O_DIRECT from a file
 *                  on another device (--bg-disk-file, default a scratch
 *                  file in /var/tmp) for the whole run: the whole-run
 *                  resources look disk-bound, the function is CPU-bound.
 *                  A thread "bg_cpu" also burns 0-40 ms of CPU (seeded)
 *                  at the start of every run, as background work does,
 *                  so whole-run CPU time separates slow runs less cleanly
 *                  than the readers' disk time (PerfProbe V-D)
 *   none           nothing
 *
 * stdout: "READY <pid>" (with --wait-signal, then SIGUSR1 starts the
 * runs), per run "PERTURB <i> <kind>" (perturbed runs only) and
 * "RUN <i> perturbed=0|1 <latency_ns>", and with --verbose
 * "FUNC <i> <name> <ns>" per function plus a SUMMARY of mean durations.
 *
 * Whatever sets a perturbation up (waking the hogs, handing the mutex to
 * cache_bg, using up the disk throttle's credit) happens between runs,
 * never inside handle_request. The worker (main thread) is pinned to --cpu
 * (default 1), every helper to the other CPU, so helpers never delay the
 * worker except through their resource. Children die with the app
 * (PR_SET_PDEATHSIG) and are killed on exit, SIGTERM, SIGINT and SIGHUP;
 * scratch files are unlinked as soon as they are open.
 */
#include "../../workloads/wl.h" /* first: it defines _GNU_SOURCE */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DISK_CHUNK (128 * 1024)
#define BG_CHUNK (1024 * 1024)
#define BG_FILE_SIZE (16 * 1024 * 1024)
#define REQ_SIZE 16
#define REPLY_SIZE 4096
#define PEER_REPLY_SIZE 64
#define SERVER_THINK_MS 1
#define PEER_WORK_NS (500 * 1000)
#define TICK_MS 2
#define RENDER_MS 1
#define CACHE_WORK_NS (500 * 1000)
#define CACHE_SIZE (64 * 1024)
#define CACHE_BG_PERIOD_MS 10
#define MAX_GANG 16
#define MAX_CHILDREN 4
#define DRAIN_MAX_CHUNKS 256
/* a read this slow was surely held back by the throttle, not by the CPU */
#define DRAIN_SLOW_NS (20 * NS_PER_MS)

enum pert {
	P_NET = 1 << 0,
	P_CPU = 1 << 1,
	P_HOG = 1 << 2,
	P_DISK = 1 << 3,
	P_IPC = 1 << 4,
	P_LOCK = 1 << 5,
	P_TIMER = 1 << 6,
	P_BGDISK = 1 << 7,
};

struct scenario {
	const char *name;
	unsigned int pert;
	bool alternate; /* perturbed runs alternate between the two bits */
	bool hog_in_process;
};

static const struct scenario scenarios[] = {
	{"none", 0, false, false},
	{"net", P_NET, false, false},
	{"cpu", P_CPU, false, false},
	{"bgload", P_HOG, false, false},
	{"bgload_thread", P_HOG, false, true},
	{"disk", P_DISK, false, false},
	{"ipc", P_IPC, false, false},
	{"lock", P_LOCK, false, false},
	{"timer", P_TIMER, false, false},
	{"two", P_NET | P_CPU, true, false},
	{"bg_disk_cpu", P_CPU | P_BGDISK, false, false},
};

struct opts {
	int runs;
	uint64_t seed;
	const struct scenario *sc;
	double rate;
	int interval_ms;
	bool wait_signal;
	bool verbose;
	const char *disk_file;
	const char *bg_disk_file;
	int server_port; /* 0: fork our own server */
	int serve_port;	 /* >= 0: only run the server */
	int disk_kib;
	int disk_mult;
	int compute_ms;
	int cpu_mult;
	int delay_ms;
	int hogs;
	int bg_readers;
	int cpu;      /* worker CPU, -1: no pinning */
	int slice_us; /* worker's scheduler slice, 0: the default */
};

/*
 * A gang of threads that run work() in a loop while switched on. The last
 * thread to start and the last to stop write a byte to ack_wr, so the
 * switcher knows the gang is really running (or really quiet) before a run
 * starts (or the next one does).
 */
struct gang {
	const char *name;
	int n;
	int cpu;
	void (*work)(void);
	int ack_rd, ack_wr;
	int ctl_wr; /* gang in a child process: its control pipe, else -1 */
	pthread_mutex_t mtx;
	pthread_cond_t cv;
	atomic_int on;
	atomic_int running;
};

enum { NR_STEPS = 7 }; /* functions handle_request calls */

struct app {
	struct opts o;
	int helper_cpu;
	uint64_t passes_per_ms;
	unsigned int *plan; /* perturbation bits per run */
	int disk_fd;
	void *disk_buf;
	int bg_fd;
	uint16_t port;
	int peer_req, peer_rep;
	pthread_mutex_t cache_mtx;
	char *cache;
	sem_t hold_req, held, go;
	atomic_bool quit;
	struct gang hog, readers;
	atomic_uint bg_seq;
	sem_t noise_go, noise_done; /* bg_cpu: one burn per run */
	uint64_t noise_ns;
	uint64_t dur[NR_STEPS];
	double sum[2][NR_STEPS + 1];
	int count[2];
};

static struct app g;
static pid_t main_pid;
static volatile pid_t children[MAX_CHILDREN];
static volatile uint32_t sink; /* keeps CPU work from being optimized out */
static uint8_t crunch_buf[4096];

static void kill_children(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i] > 0)
			kill(children[i], SIGKILL);
}

static void reap_children(void)
{
	kill_children();
	for (int i = 0; i < MAX_CHILDREN; i++) {
		if (children[i] > 0)
			waitpid(children[i], NULL, 0);
		children[i] = 0;
	}
}

static void die(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	va_start(ap, fmt);
	fprintf(stderr, "app[%d]: ", getpid());
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	if (getpid() != main_pid)
		_exit(1);
	fflush(stdout);
	reap_children();
	exit(1);
}

static void pin_self(int cpu)
{
	if (wl_pin_self(cpu))
		die("sched_setaffinity(cpu %d)", cpu);
}

/*
 * A short EEVDF slice for the worker (sched_setattr with sched_runtime,
 * Linux 6.12+): under bgload it then gets the CPU back soon after each
 * wakeup, so the hogs slow the long CPU step, not every step that sleeps.
 * Without contention it changes nothing.
 */
static void set_slice(uint64_t us)
{
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t prio;
		uint64_t runtime, deadline, period;
	} a = {.size = sizeof(a), .policy = SCHED_OTHER, .runtime = us * 1000};

	if (us && syscall(SYS_sched_setattr, 0, &a, 0))
		fprintf(stderr, "app: sched_setattr(slice %llu us): %s (ignored)\n",
			(unsigned long long)us, strerror(errno));
}

static void write_all(int fd, const void *buf, size_t len)
{
	if (!wl_write_all(fd, buf, len))
		die("write");
}

static void write_byte(int fd, char c)
{
	write_all(fd, &c, 1);
}

static char read_byte(int fd)
{
	char c;

	if (!wl_read_full(fd, &c, 1))
		die("unexpected EOF");
	return c;
}

/* The unit of CPU work: one pass over a buffer that fits in L1. */
static uint32_t crunch(uint64_t passes)
{
	uint32_t a = 1, b = 0;

	for (uint64_t p = 0; p < passes; p++) {
		for (size_t i = 0; i < sizeof(crunch_buf); i++) {
			a += crunch_buf[i] ^ (uint8_t)p;
			b += a;
		}
	}
	return a ^ b;
}

static void burn_cpu_ns(uint64_t ns)
{
	uint64_t start = wl_cpu_ns();

	while (wl_cpu_ns() - start < ns)
		sink += crunch(4);
}

/* Thread CPU time, not wall time: calibration is immune to preemption. */
static uint64_t calibrate(void)
{
	uint64_t best = UINT64_MAX;
	const uint64_t passes = 200;

	for (size_t i = 0; i < sizeof(crunch_buf); i++)
		crunch_buf[i] = (uint8_t)(i * 131 + 7);
	for (int i = 0; i < 7; i++) {
		uint64_t t0 = wl_cpu_ns();

		sink += crunch(passes);
		t0 = wl_cpu_ns() - t0;
		if (t0 < best)
			best = t0;
	}
	return passes * NS_PER_MS / (best ? best : 1);
}

/* ---------------------------------------------------------------- children */

static void child_init(const char *name, int cpu, pid_t parent)
{
	sigset_t all;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigfillset(&all);
	sigprocmask(SIG_UNBLOCK, &all, NULL);
	prctl(PR_SET_NAME, name);
	pin_self(cpu);
}

/* Forks a child process that runs fn(arg) and exits; it dies with us. */
static pid_t spawn(const char *name, void (*fn)(void *), void *arg)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	int slot;

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		child_init(name, g.helper_cpu, parent);
		fn(arg);
		_exit(0);
	}
	for (slot = 0; slot < MAX_CHILDREN && children[slot]; slot++)
		;
	if (slot == MAX_CHILDREN)
		die("too many children");
	children[slot] = pid;
	return pid;
}

/* ------------------------------------------------------------------ server */

/* A client that went away costs the server nothing but this reply. */
static void serve_one(int c)
{
	static char reply[REPLY_SIZE];
	char req[REQ_SIZE];
	uint64_t think = SERVER_THINK_MS * NS_PER_MS;
	size_t sent = 0;

	if (!wl_read_full(c, req, sizeof(req)))
		return;
	if (req[0] == '1')
		think += g.o.delay_ms * NS_PER_MS;
	wl_sleep_ns(think);
	while (sent < sizeof(reply)) {
		ssize_t n = send(c, reply + sent, sizeof(reply) - sent, MSG_NOSIGNAL);

		if (n <= 0 && errno != EINTR)
			return;
		sent += n > 0 ? n : 0;
	}
}

static void server_loop(void *arg)
{
	int lfd = *(int *)arg;

	for (;;) {
		int c = accept(lfd, NULL, NULL);

		if (c < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		if (c < 0)
			die("accept");
		serve_one(c);
		close(c);
	}
}

static int listen_on(int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	socklen_t len = sizeof(sa);
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 64))
		die("bind/listen 127.0.0.1:%d", port);
	if (getsockname(fd, (struct sockaddr *)&sa, &len))
		die("getsockname");
	g.port = ntohs(sa.sin_port);
	return fd;
}

static void start_server(void)
{
	int lfd;

	if (g.o.server_port) {
		g.port = g.o.server_port;
		return;
	}
	lfd = listen_on(0);
	spawn("netserver", server_loop, &lfd);
	close(lfd);
}

/* One request/reply on a fresh connection; the server closes first. */
static void net_roundtrip(char flag)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(g.port)};
	char req[REQ_SIZE] = {flag};
	static char reply[REPLY_SIZE];
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("connect 127.0.0.1:%d", g.port);
	write_all(fd, req, sizeof(req));
	if (!wl_read_full(fd, reply, sizeof(reply)))
		die("short reply from server");
	close(fd);
}

/* -------------------------------------------------------------------- peer */

static void peer_loop(void *arg)
{
	int *fds = arg; /* request read end, reply write end */
	char reply[PEER_REPLY_SIZE] = "ok";
	char c;

	while (wl_read_full(fds[0], &c, 1)) {
		if (c == '1')
			wl_sleep_ns(g.o.delay_ms * NS_PER_MS);
		burn_cpu_ns(PEER_WORK_NS);
		write_all(fds[1], reply, sizeof(reply));
	}
}

static void start_peer(void)
{
	int req[2], rep[2], fds[2];

	if (pipe2(req, O_CLOEXEC) || pipe2(rep, O_CLOEXEC))
		die("pipe");
	fds[0] = req[0];
	fds[1] = rep[1];
	spawn("peerproc", peer_loop, fds);
	close(req[0]);
	close(rep[1]);
	g.peer_req = req[1];
	g.peer_rep = rep[0];
}

static void peer_roundtrip(char flag)
{
	char reply[PEER_REPLY_SIZE];

	write_byte(g.peer_req, flag);
	if (!wl_read_full(g.peer_rep, reply, sizeof(reply)))
		die("peerproc closed its pipe");
}

/* -------------------------------------------------------------------- gang */

static void *gang_thread(void *arg)
{
	struct gang *gg = arg;

	pthread_setname_np(pthread_self(), gg->name);
	pin_self(gg->cpu);
	for (;;) {
		pthread_mutex_lock(&gg->mtx);
		while (!atomic_load(&gg->on))
			pthread_cond_wait(&gg->cv, &gg->mtx);
		pthread_mutex_unlock(&gg->mtx);
		if (atomic_fetch_add(&gg->running, 1) + 1 == gg->n)
			write_byte(gg->ack_wr, '1');
		while (atomic_load_explicit(&gg->on, memory_order_relaxed))
			gg->work();
		if (atomic_fetch_sub(&gg->running, 1) == 1)
			write_byte(gg->ack_wr, '0');
	}
	return NULL;
}

static void gang_init(struct gang *gg, const char *name, int n, int cpu, void (*work)(void))
{
	int p[2];

	if (n < 1 || n > MAX_GANG)
		die("%s: between 1 and %d threads", name, MAX_GANG);
	if (pipe2(p, O_CLOEXEC))
		die("pipe");
	gg->name = name;
	gg->n = n;
	gg->cpu = cpu;
	gg->work = work;
	gg->ack_rd = p[0];
	gg->ack_wr = p[1];
	gg->ctl_wr = -1;
	pthread_mutex_init(&gg->mtx, NULL);
	pthread_cond_init(&gg->cv, NULL);
}

static void gang_start_threads(struct gang *gg)
{
	for (int i = 0; i < gg->n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, gang_thread, gg))
			die("pthread_create");
		pthread_detach(t);
	}
}

static void gang_signal(struct gang *gg, bool on)
{
	pthread_mutex_lock(&gg->mtx);
	atomic_store(&gg->on, on);
	pthread_cond_broadcast(&gg->cv);
	pthread_mutex_unlock(&gg->mtx);
}

/* Switches the gang on or off and waits until it really is. */
static void gang_switch(struct gang *gg, bool on)
{
	if (gg->ctl_wr >= 0)
		write_byte(gg->ctl_wr, on ? '1' : '0');
	else
		gang_signal(gg, on);
	if (read_byte(gg->ack_rd) != (on ? '1' : '0'))
		die("gang %s out of step", gg->name);
}

/* The hog process: its main thread turns control bytes into switches. */
static void hog_process(void *arg)
{
	int ctl_rd = *(int *)arg;
	char c;

	gang_start_threads(&g.hog);
	while (wl_read_full(ctl_rd, &c, 1))
		gang_signal(&g.hog, c == '1');
}

static void hog_work(void)
{
	sink += crunch(1);
}

static void start_hogs(void)
{
	int ctl[2];

	gang_init(&g.hog, "hog", g.o.hogs, g.o.cpu, hog_work);
	if (g.o.sc->hog_in_process) {
		gang_start_threads(&g.hog);
		return;
	}
	if (pipe2(ctl, O_CLOEXEC))
		die("pipe");
	spawn("hog", hog_process, &ctl[0]);
	close(ctl[0]);
	close(g.hog.ack_wr);
	g.hog.ctl_wr = ctl[1];
}

/* -------------------------------------------------------------------- disk */

static void *alloc_aligned(size_t size)
{
	void *p;

	if (posix_memalign(&p, 4096, size))
		die("posix_memalign");
	memset(p, 0xa5, size);
	return p;
}

/*
 * A scratch file for O_DIRECT reads, unlinked as soon as it is created so
 * that nothing is left behind however we exit. Written with O_DIRECT too,
 * so the reads go to the device, not to the page cache.
 */
static int scratch_file(const char *tag, size_t size)
{
	char path[128];
	size_t chunk = 1 << 20;
	char *buf = alloc_aligned(chunk);
	int fd;

	snprintf(path, sizeof(path), "/var/tmp/xlprobe-app-%s-%d.dat", tag, getpid());
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC, 0600);
	if (fd < 0)
		die("create %s with O_DIRECT", path);
	unlink(path);
	for (size_t off = 0; off < size; off += chunk) {
		for (size_t i = 0; i < chunk; i += 64)
			buf[i] = (char)(off + i);
		write_all(fd, buf, size - off < chunk ? size - off : chunk);
	}
	if (fdatasync(fd))
		die("fdatasync %s", path);
	free(buf);
	return fd;
}

static uint64_t file_size(int fd)
{
	struct stat st;
	uint64_t size;

	if (fstat(fd, &st))
		die("fstat");
	if (!S_ISBLK(st.st_mode))
		return st.st_size;
	if (ioctl(fd, BLKGETSIZE64, &size))
		die("BLKGETSIZE64");
	return size;
}

static int open_direct(const char *path, const char *tag, size_t need)
{
	int fd;

	if (!path)
		return scratch_file(tag, need);
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		die("open %s with O_DIRECT", path);
	if (file_size(fd) < need) {
		errno = EINVAL;
		die("%s: smaller than the %zu bytes needed", path, need);
	}
	return fd;
}

static void disk_read(int fd, void *buf, size_t chunk, uint64_t off, size_t bytes)
{
	for (size_t done = 0; done < bytes; done += chunk) {
		size_t len = bytes - done < chunk ? bytes - done : chunk;
		ssize_t n = pread(fd, buf, len, off + done);

		if (n < 0 && errno == EINTR)
			n = pread(fd, buf, len, off + done);
		if (n != (ssize_t)len)
			die("O_DIRECT read at %llu", (unsigned long long)(off + done));
	}
}

static size_t config_bytes(unsigned int pert)
{
	size_t bytes = (size_t)g.o.disk_kib * 1024;

	return pert & P_DISK ? bytes * g.o.disk_mult : bytes;
}

/* One big read per call from a file on another device than --disk-file. */
static void bg_read_work(void)
{
	static __thread void *buf;
	unsigned int slot = atomic_fetch_add(&g.bg_seq, 1) % (BG_FILE_SIZE / BG_CHUNK);

	if (!buf)
		buf = alloc_aligned(BG_CHUNK);
	disk_read(g.bg_fd, buf, BG_CHUNK, (uint64_t)slot * BG_CHUNK, BG_CHUNK);
}

/* Background CPU noise of bg_disk_cpu: up to NOISE_MAX_MS per run on the
 * helper CPU, started with the run; the run's whole-run window sees the
 * part that overlaps it. */
#define NOISE_MAX_MS 40

static void *noise_thread(void *arg)
{
	pthread_setname_np(pthread_self(), "bg_cpu");
	pin_self(g.helper_cpu);
	for (;;) {
		while (sem_wait(&g.noise_go))
			;
		if (atomic_load(&g.quit))
			return NULL;
		burn_cpu_ns(g.noise_ns);
		sem_post(&g.noise_done);
	}
}

static void start_noise(void)
{
	pthread_t t;

	sem_init(&g.noise_go, 0, 0);
	sem_init(&g.noise_done, 0, 0);
	if (pthread_create(&t, NULL, noise_thread, NULL))
		die("pthread_create");
	pthread_detach(t);
}

static void start_bg_readers(void)
{
	g.bg_fd = open_direct(g.o.bg_disk_file, "bg", BG_FILE_SIZE);
	gang_init(&g.readers, "bg_disk", g.o.bg_readers, g.helper_cpu, bg_read_work);
	gang_start_threads(&g.readers);
}

/* ------------------------------------------------------------------- cache */

static void cache_touch(size_t len)
{
	for (size_t i = 0; i < len; i += 64)
		g.cache[i]++;
}

/* Holds the cache mutex from before the run until update_cache asks. */
static void cache_hold(void)
{
	pthread_mutex_lock(&g.cache_mtx);
	sem_post(&g.held);
	while (sem_wait(&g.go))
		;
	wl_sleep_ns(g.o.delay_ms * NS_PER_MS);
	pthread_mutex_unlock(&g.cache_mtx);
}

static void *cache_thread(void *arg)
{
	pthread_setname_np(pthread_self(), "cache_bg");
	pin_self(g.helper_cpu);
	while (!atomic_load(&g.quit)) {
		struct timespec ts;
		uint64_t end = wl_now_ns() + CACHE_BG_PERIOD_MS * NS_PER_MS;

		ts.tv_sec = end / 1000000000ULL;
		ts.tv_nsec = end % 1000000000ULL;
		if (sem_clockwait(&g.hold_req, CLOCK_MONOTONIC, &ts) == 0) {
			if (!atomic_load(&g.quit))
				cache_hold();
			continue;
		}
		/* the normal, brief background use of the cache */
		pthread_mutex_lock(&g.cache_mtx);
		cache_touch(4096);
		pthread_mutex_unlock(&g.cache_mtx);
	}
	return NULL;
}

static void start_cache(void)
{
	pthread_t t;

	g.cache = alloc_aligned(CACHE_SIZE);
	pthread_mutex_init(&g.cache_mtx, NULL);
	sem_init(&g.hold_req, 0, 0);
	sem_init(&g.held, 0, 0);
	sem_init(&g.go, 0, 0);
	if (pthread_create(&t, NULL, cache_thread, NULL))
		die("pthread_create");
	pthread_detach(t);
}

/* ------------------------------------------------- the marked functions */

MARKED void load_config(unsigned int pert)
{
	disk_read(g.disk_fd, g.disk_buf, DISK_CHUNK, 0, config_bytes(pert));
}

MARKED void compute_checksum(unsigned int pert)
{
	uint64_t passes = g.passes_per_ms * g.o.compute_ms;

	if (pert & P_CPU)
		passes *= g.o.cpu_mult;
	sink += crunch(passes);
}

MARKED void fetch_remote(unsigned int pert)
{
	net_roundtrip(pert & P_NET ? '1' : '0');
}

MARKED void ask_peer(unsigned int pert)
{
	peer_roundtrip(pert & P_IPC ? '1' : '0');
}

MARKED void update_cache(unsigned int pert)
{
	if (pert & P_LOCK)
		sem_post(&g.go); /* cache_bg holds the mutex: let it go on */
	pthread_mutex_lock(&g.cache_mtx);
	cache_touch(CACHE_SIZE);
	burn_cpu_ns(CACHE_WORK_NS);
	pthread_mutex_unlock(&g.cache_mtx);
}

MARKED void wait_tick(unsigned int pert)
{
	wl_sleep_ns((pert & P_TIMER ? g.o.delay_ms : TICK_MS) * NS_PER_MS);
}

MARKED void render(unsigned int pert)
{
	sink += crunch(g.passes_per_ms * RENDER_MS);
}

/*
 * CPU work comes last: a worker that just used CPU next to bgload's hogs
 * has negative EEVDF lag and waits long after every wakeup, so sleeping
 * steps after a CPU step would be slowed too (measured: fetch_remote
 * +13 ms after compute_checksum, under 1 ms before it).
 */
static const struct step {
	void (*fn)(unsigned int pert);
	const char *name;
} steps[NR_STEPS] = {
	{load_config, "load_config"},
	{fetch_remote, "fetch_remote"},
	{ask_peer, "ask_peer"},
	{wait_tick, "wait_tick"},
	{update_cache, "update_cache"},
	{render, "render"},
	{compute_checksum, "compute_checksum"},
};

/* The interaction: one run. */
MARKED void handle_request(int run)
{
	unsigned int pert = g.plan[run];

	for (int i = 0; i < NR_STEPS; i++) {
		uint64_t t0 = wl_now_ns();

		steps[i].fn(pert);
		g.dur[i] = wl_now_ns() - t0;
	}
}

/* ------------------------------------------------------------------- runs */

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Exactly round(rate * runs) perturbed runs, picked by a seeded partial
 * Fisher-Yates shuffle, so a test never gets zero by bad luck.
 */
static void make_plan(void)
{
	int n = g.o.runs;
	int k = (int)(g.o.rate * n + 0.5);
	int *idx = calloc(n, sizeof(*idx));
	uint64_t s = g.o.seed;

	g.plan = calloc(n, sizeof(*g.plan));
	if (!idx || !g.plan)
		die("calloc");
	if (!g.o.sc->pert)
		k = 0;
	for (int i = 0; i < n; i++)
		idx[i] = i;
	for (int i = 0; i < k; i++) {
		int j = i + (int)(splitmix64(&s) % (uint64_t)(n - i));
		int t = idx[i];
		unsigned int pert = g.o.sc->pert;

		idx[i] = idx[j];
		idx[j] = t;
		if (g.o.sc->alternate)
			pert = i % 2 ? P_CPU : P_NET;
		g.plan[idx[i]] = pert;
	}
	free(idx);
}

/*
 * blk-throttle (v1) hands out a whole throttle slice (100 ms) of bytes at
 * once, plus credit a group left unused, so a read right after quiet runs
 * often passes unthrottled. Spend that credit before a disk-perturbed run:
 * read until one read is held back. load_config's bigger read then waits
 * for the next slice in every perturbed run (measured: 1 MiB at 8 MiB/s,
 * 92-108 ms), not only when the credit happens to be low. Without a limit
 * this gives up after DRAIN_MAX_CHUNKS fast reads.
 */
static void drain_disk_credit(void)
{
	uint64_t size = file_size(g.disk_fd) / DISK_CHUNK * DISK_CHUNK;

	for (int i = 0; size && i < DRAIN_MAX_CHUNKS; i++) {
		uint64_t t0 = wl_now_ns();

		disk_read(g.disk_fd, g.disk_buf, DISK_CHUNK, i * DISK_CHUNK % size, DISK_CHUNK);
		if (wl_now_ns() - t0 > DRAIN_SLOW_NS)
			break;
	}
}

static void perturb_begin(unsigned int pert)
{
	if (pert & P_HOG)
		gang_switch(&g.hog, true);
	if (pert & P_BGDISK)
		gang_switch(&g.readers, true);
	if (pert & P_DISK)
		drain_disk_credit();
	if (pert & P_LOCK) {
		sem_post(&g.hold_req);
		while (sem_wait(&g.held))
			;
	}
}

static void perturb_end(unsigned int pert)
{
	if (pert & P_HOG)
		gang_switch(&g.hog, false);
	if (pert & P_BGDISK)
		gang_switch(&g.readers, false);
}

static const char *pert_kind(unsigned int pert)
{
	if (g.o.sc->alternate)
		return pert & P_NET ? "net" : "cpu";
	return g.o.sc->name;
}

static void report_run(int run, uint64_t latency)
{
	unsigned int pert = g.plan[run];
	int p = pert != 0;

	if (pert)
		printf("PERTURB %d %s\n", run, pert_kind(pert));
	printf("RUN %d perturbed=%d %llu\n", run, p, (unsigned long long)latency);
	g.count[p]++;
	g.sum[p][NR_STEPS] += latency;
	for (int i = 0; i < NR_STEPS; i++) {
		g.sum[p][i] += g.dur[i];
		if (g.o.verbose)
			printf("FUNC %d %s %llu\n", run, steps[i].name,
			       (unsigned long long)g.dur[i]);
	}
	fflush(stdout);
}

static void print_summary(void)
{
	for (int i = 0; i <= NR_STEPS; i++) {
		const char *name = i < NR_STEPS ? steps[i].name : "handle_request";
		double n = g.count[0] ? g.sum[0][i] / g.count[0] / 1e6 : 0;
		double p = g.count[1] ? g.sum[1][i] / g.count[1] / 1e6 : 0;

		printf("SUMMARY %-16s normal_ms=%.2f perturbed_ms=%.2f\n", name, n, p);
	}
}

static void run_all(void)
{
	uint64_t noise_seed = g.o.seed ^ 0x5eedULL;
	bool noise = g.o.sc->pert & P_BGDISK;

	for (int i = 0; i < g.o.runs; i++) {
		uint64_t t0;

		wl_sleep_ns(g.o.interval_ms * NS_PER_MS);
		perturb_begin(g.plan[i]);
		if (noise) {
			g.noise_ns = splitmix64(&noise_seed) % (NOISE_MAX_MS * NS_PER_MS);
			sem_post(&g.noise_go);
		}
		t0 = wl_now_ns();
		handle_request(i);
		t0 = wl_now_ns() - t0;
		if (noise)
			while (sem_wait(&g.noise_done))
				;
		perturb_end(g.plan[i]);
		report_run(i, t0);
	}
	if (g.o.verbose)
		print_summary();
}

/* ------------------------------------------------------------------- setup */

static void usage(void)
{
	fprintf(stderr, "usage: app [--runs N] [--seed S] [--perturb SCENARIO] [--rate R]\n"
			"           [--interval-ms MS] [--wait-signal] [--verbose]\n"
			"           [--disk-file PATH] [--disk-kib K] [--disk-mult M]\n"
			"           [--bg-disk-file PATH] [--bg-readers N] [--server-port P]\n"
			"           [--compute-ms MS] [--cpu-mult M] [--delay-ms MS] [--hogs N]\n"
			"           [--cpu C | --no-pin] [--slice-us US]\n"
			"       app --serve PORT    (only the TCP server, in the foreground)\n"
			"scenarios:");
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		fprintf(stderr, " %s", scenarios[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

static const struct scenario *find_scenario(const char *name)
{
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (!strcmp(scenarios[i].name, name))
			return &scenarios[i];
	fprintf(stderr, "app: unknown scenario '%s'\n", name);
	usage();
	return NULL;
}

static void set_defaults(struct opts *o)
{
	*o = (struct opts){
		.runs = 40,
		.seed = 1,
		.sc = &scenarios[0],
		.rate = 0.25,
		.interval_ms = 10,
		.serve_port = -1,
		.disk_kib = 128,
		.disk_mult = 8,
		.compute_ms = 10,
		.cpu_mult = 6,
		.delay_ms = 50,
		.hogs = 5,
		.bg_readers = 2,
		.slice_us = 300,
		.cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : -1,
	};
}

/* Options that take an int, by name and place in struct opts. */
static const struct int_opt {
	const char *name;
	size_t off;
} int_opts[] = {
	{"--runs", offsetof(struct opts, runs)},
	{"--interval-ms", offsetof(struct opts, interval_ms)},
	{"--disk-kib", offsetof(struct opts, disk_kib)},
	{"--disk-mult", offsetof(struct opts, disk_mult)},
	{"--bg-readers", offsetof(struct opts, bg_readers)},
	{"--server-port", offsetof(struct opts, server_port)},
	{"--serve", offsetof(struct opts, serve_port)},
	{"--compute-ms", offsetof(struct opts, compute_ms)},
	{"--cpu-mult", offsetof(struct opts, cpu_mult)},
	{"--delay-ms", offsetof(struct opts, delay_ms)},
	{"--hogs", offsetof(struct opts, hogs)},
	{"--cpu", offsetof(struct opts, cpu)},
	{"--slice-us", offsetof(struct opts, slice_us)},
};

static int parse_int(const char *name, const char *val)
{
	char *end;
	long v = strtol(val, &end, 0);

	if (*end || end == val || v < -1 || v > 1000000000) {
		fprintf(stderr, "app: bad value '%s' for %s\n", val, name);
		usage();
	}
	return (int)v;
}

static bool parse_int_opt(struct opts *o, const char *name, const char *val)
{
	for (size_t i = 0; i < sizeof(int_opts) / sizeof(int_opts[0]); i++) {
		if (!strcmp(name, int_opts[i].name)) {
			*(int *)((char *)o + int_opts[i].off) = parse_int(name, val);
			return true;
		}
	}
	return false;
}

/* true if name is an option that takes val */
static bool parse_value_opt(struct opts *o, const char *name, const char *val)
{
	if (!strcmp(name, "--perturb"))
		o->sc = find_scenario(val);
	else if (!strcmp(name, "--seed"))
		o->seed = strtoull(val, NULL, 0);
	else if (!strcmp(name, "--rate"))
		o->rate = atof(val);
	else if (!strcmp(name, "--disk-file"))
		o->disk_file = val;
	else if (!strcmp(name, "--bg-disk-file"))
		o->bg_disk_file = val;
	else
		return parse_int_opt(o, name, val);
	return true;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	set_defaults(o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--wait-signal"))
			o->wait_signal = true;
		else if (!strcmp(a, "--verbose"))
			o->verbose = true;
		else if (!strcmp(a, "--no-pin"))
			o->cpu = -1;
		else if (i + 1 < argc && parse_value_opt(o, a, argv[i + 1]))
			i++;
		else
			usage();
	}
	if (o->runs < 0 || o->rate < 0 || o->rate > 1 || o->disk_kib < 4 || o->disk_kib % 4 ||
	    o->disk_mult < 1 || o->cpu_mult < 1 || o->compute_ms < 1)
		usage();
}

/* kill() and waitpid() are async-signal-safe: children are gone first. */
static void on_fatal_signal(int sig)
{
	reap_children();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_fatal_signal};

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* blocked before any thread exists, so sigwait() gets it */
	wl_block_usr1();
}

/* One use of every resource, so that run 0 pays no first-time costs. */
static void warm_up(void)
{
	disk_read(g.disk_fd, g.disk_buf, DISK_CHUNK, 0, config_bytes(0));
	net_roundtrip('0');
	peer_roundtrip('0');
	cache_touch(CACHE_SIZE);
}

static void setup(void)
{
	size_t need = (size_t)g.o.disk_kib * 1024 * g.o.disk_mult;

	g.helper_cpu = g.o.cpu < 0 ? -1 : g.o.cpu == 0 ? 1 : 0;
	g.passes_per_ms = calibrate();
	g.disk_fd = open_direct(g.o.disk_file, "config", need);
	g.disk_buf = alloc_aligned(DISK_CHUNK);
	/* children first: fork() before this process has threads */
	start_server();
	start_peer();
	if (g.o.sc->pert & P_HOG)
		start_hogs();
	pin_self(g.o.cpu);
	set_slice(g.o.slice_us);
	start_cache();
	if (g.o.sc->pert & P_BGDISK) {
		start_bg_readers();
		start_noise();
	}
	make_plan();
	warm_up();
}

static void serve_forever(int port)
{
	int lfd = listen_on(port);

	printf("PORT %u\n", g.port);
	fflush(stdout);
	server_loop(&lfd);
}

int main(int argc, char **argv)
{
	main_pid = getpid();
	parse_args(argc, argv, &g.o);
	install_signals();
	if (g.o.serve_port >= 0)
		serve_forever(g.o.serve_port);
	setup();
	if (g.o.wait_signal)
		wl_announce_wait("READY");
	run_all();
	atomic_store(&g.quit, true);
	sem_post(&g.hold_req);
	reap_children();
	return 0;
}
