/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The app workload's surroundings (app.h): its children and their end,
 * CPU work, the network server, the IPC peer, gangs of hog and reader
 * threads, the O_DIRECT disk, the cache and its background holder.
 */
#include "app.h" /* first: wl.h defines _GNU_SOURCE */

static void kill_children(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i] > 0)
			kill(children[i], SIGKILL);
}

void reap_children(void)
{
	kill_children();
	for (int i = 0; i < MAX_CHILDREN; i++) {
		if (children[i] > 0)
			waitpid(children[i], NULL, 0);
		children[i] = 0;
	}
}

void die(const char *fmt, ...)
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

void pin_self(int cpu)
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
void set_slice(uint64_t us)
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
uint32_t crunch(uint64_t passes)
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

void burn_cpu_ns(uint64_t ns)
{
	uint64_t start = wl_cpu_ns();

	while (wl_cpu_ns() - start < ns)
		sink += crunch(4);
}

/* Thread CPU time, not wall time: calibration is immune to preemption. */
uint64_t calibrate(void)
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

void server_loop(void *arg)
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

int listen_on(int port)
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

void start_server(void)
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
void net_roundtrip(char flag)
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

void start_peer(void)
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

void peer_roundtrip(char flag)
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
void gang_switch(struct gang *gg, bool on)
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

void start_hogs(void)
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

void *alloc_aligned(size_t size)
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

uint64_t file_size(int fd)
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

int open_direct(const char *path, const char *tag, size_t need)
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

void disk_read(int fd, void *buf, size_t chunk, uint64_t off, size_t bytes)
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

size_t config_bytes(unsigned int pert)
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

void start_noise(void)
{
	pthread_t t;

	sem_init(&g.noise_go, 0, 0);
	sem_init(&g.noise_done, 0, 0);
	if (pthread_create(&t, NULL, noise_thread, NULL))
		die("pthread_create");
	pthread_detach(t);
}

void start_bg_readers(void)
{
	g.bg_fd = open_direct(g.o.bg_disk_file, "bg", BG_FILE_SIZE);
	gang_init(&g.readers, "bg_disk", g.o.bg_readers, g.helper_cpu, bg_read_work);
	gang_start_threads(&g.readers);
}

/* ------------------------------------------------------------------- cache */

void cache_touch(size_t len)
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

void start_cache(void)
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
