// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pool: an interaction that hands its work to a worker and waits for it,
 * for the wait-chain tests (tests/root/test_pool.c, issue 22).
 *
 *   dispatch_and_wait()  posts one task (post_task) and waits until it is
 *                        done: on a condition variable (thread pool), or
 *                        reading the reply from a pipe (--peer)
 *   run_task()           the worker runs a task (its argument: the task)
 *   load_index()         the interaction's task: reads a 4 MiB file (under
 *                        /var/tmp) and hashes it (a few ms)
 *   warm_cache()         a background task the app queues (queue mode):
 *                        hashes the file from the page cache (a few ms)
 *
 *   request_begin()      --async: the interaction begins (its argument: the
 *                        request), posts the task and returns; pool-1 tells
 *                        the main thread when it is done (a pipe), which
 *                        then calls request_end() with the same request:
 *                        an event loop's request, spanning two threads
 *
 *   pool --mode none|cold|cpu|queue [--iterations N] [--peer|--async] [--wait]
 *
 * The worker is thread "pool-1", or with --peer a child process "peer-1"
 * fed through a pipe (its tasks are numbers: it has its own copies). Every
 * fourth run (i % 4 == 3) is perturbed, outside the interaction:
 *   cold   the file is dropped from the page cache before the run
 *          (posix_fadvise DONTNEED): the task reads it from the disk
 *   cpu    a busy process ("hog", pinned to the worker's CPU) runs while
 *          the worker runs the task (the worker continues it, and stops
 *          it before answering): the worker waits for its CPU
 *   queue  the app queues three warm_cache tasks just before the run's
 *          own (thread pool only): its task waits behind them
 *   none   nothing
 * The worker and the main thread are pinned to the last CPU. --wait
 * prints "READY <pid>" once the worker runs, and waits for SIGUSR1 before
 * the runs (for record -p: a peer forked before it is not traced).
 * stdout: "RUN <i> <perturbed> <ns> <wcpu> <wdelay> <mcpu> <mdelay>" per run,
 * then DONE: the run's time by the workload's clock, and the kernel's
 * account of the worker's and the main thread's time on a CPU and on a
 * runqueue over it (schedstat), the tests' ground truth.
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#define FILE_SIZE (4 * 1024 * 1024)
#define BACKGROUND 3

enum { T_LOAD = 1, T_WARM = 2 };

struct request {
	int id;
	volatile int done;
};

struct task {
	int kind, perturb, done;
	struct request *req; /* --async: tell the main thread when done */
	struct task *next;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t posted = PTHREAD_COND_INITIALIZER, done_cv = PTHREAD_COND_INITIALIZER;
static struct task *head, *tail;
static int file_fd = -1, pool_cpu, to_peer = -1, from_peer = -1, notify[2] = {-1, -1};
static bool cpu_mode;
static pid_t hog = -1;		  /* cpu mode: stopped but while the worker runs a perturbed task */
static volatile pid_t worker_tid; /* pool-1's tid, or peer-1's pid */
static char path[] = "/var/tmp/xlp-pool-XXXXXX";
static volatile uint64_t sink;

static uint64_t hash_file(void)
{
	static char buf[1 << 16];
	uint64_t sum = 0;

	for (off_t off = 0; off < FILE_SIZE; off += sizeof(buf)) {
		if (pread(file_fd, buf, sizeof(buf), off) != (ssize_t)sizeof(buf))
			wl_die("pread");
		/* a few ms of CPU in all: long enough to be preempted by a hog */
		for (size_t i = 0; i < sizeof(buf); i++)
			sum = sum * 31 + (unsigned char)buf[i];
	}
	return sum;
}

MARKED void load_index(void)
{
	sink = hash_file();
}

MARKED void warm_cache(void)
{
	sink = hash_file();
}

MARKED void run_task(struct task *t)
{
	if (t->kind == T_LOAD)
		load_index();
	else
		warm_cache();
}

/* A process that spins on the worker's CPU while the worker lets it (SIGCONT / SIGSTOP). */
static pid_t start_hog(void)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		wl_die("fork");
	if (!pid) {
		prctl(PR_SET_NAME, "hog");
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		wl_pin_self(pool_cpu);
		raise(SIGSTOP);
		for (;;)
			sink++;
	}
	if (waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st))
		wl_die("hog");
	return pid;
}

/* the worker's side of a task: the hog runs only while a perturbed one does */
static void work(struct task *t)
{
	if (hog > 0 && t->perturb)
		kill(hog, SIGCONT);
	run_task(t);
	/* stopped before the answer: only the worker loses its CPU */
	if (hog > 0 && t->perturb) {
		int st;

		kill(hog, SIGSTOP);
		if (waitpid(hog, &st, WUNTRACED) != hog)
			wl_die("waitpid hog");
	}
}

static void *pool_thread(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "pool-1");
	worker_tid = gettid();
	wl_pin_self(pool_cpu);
	if (cpu_mode)
		hog = start_hog();
	for (;;) {
		struct task *t;

		pthread_mutex_lock(&mu);
		while (!head)
			pthread_cond_wait(&posted, &mu);
		t = head;
		head = t->next;
		if (!head)
			tail = NULL;
		pthread_mutex_unlock(&mu);
		work(t);
		if (t->req) { /* the event loop learns of it from the pipe */
			struct request *r = t->req;

			if (!wl_write_all(notify[1], &r, sizeof(r)))
				wl_die("notify");
			continue;
		}
		pthread_mutex_lock(&mu);
		t->done = 1;
		pthread_cond_broadcast(&done_cv);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

/* peer-1: one byte per task (its kind, + 'P' - 1 when perturbed), one byte back */
static void peer_main(int in, int out)
{
	prctl(PR_SET_NAME, "peer-1");
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	wl_pin_self(pool_cpu);
	if (cpu_mode)
		hog = start_hog();
	for (;;) {
		struct task t = {0};
		unsigned char c;

		if (!wl_read_full(in, &c, 1))
			_exit(0);
		t.kind = c & 0x7f;
		t.perturb = !!(c & 0x80);
		work(&t);
		if (!wl_write_all(out, "D", 1))
			_exit(1);
	}
}

MARKED void post_task(struct task *t)
{
	unsigned char c;

	if (to_peer >= 0) {
		c = (unsigned char)(t->kind | (t->perturb ? 0x80 : 0));
		if (!wl_write_all(to_peer, &c, 1))
			wl_die("write to peer");
		return;
	}
	pthread_mutex_lock(&mu);
	t->next = NULL;
	if (tail)
		tail->next = t;
	else
		head = t;
	tail = t;
	pthread_cond_signal(&posted);
	pthread_mutex_unlock(&mu);
}

static void wait_task(struct task *t)
{
	char c;

	if (from_peer >= 0) {
		if (!wl_read_full(from_peer, &c, 1))
			wl_die("read from peer");
		return;
	}
	pthread_mutex_lock(&mu);
	while (!t->done)
		pthread_cond_wait(&done_cv, &mu);
	pthread_mutex_unlock(&mu);
}

MARKED void dispatch_and_wait(bool perturb)
{
	struct task t = {.kind = T_LOAD, .perturb = perturb};

	post_task(&t);
	wait_task(&t);
}

/* --async: a request begins, its task is posted; the loop goes on */
MARKED void request_begin(struct request *r, struct task *t)
{
	post_task(t);
	(void)r;
}

MARKED void request_end(struct request *r)
{
	r->done = 1;
}

/* the event loop's wait for the pool's answer: the request it names ends */
static void async_run(struct request *r, struct task *t)
{
	struct request *got;

	request_begin(r, t);
	if (!wl_read_full(notify[0], &got, sizeof(got)))
		wl_die("read notify");
	request_end(got);
}

static void start_peer(void)
{
	int a[2], b[2];
	pid_t pid;

	if (pipe(a) || pipe(b))
		wl_die("pipe");
	pid = fork();
	if (pid < 0)
		wl_die("fork");
	if (!pid) {
		close(a[1]);
		close(b[0]);
		peer_main(a[0], b[1]);
	}
	close(a[0]);
	close(b[1]);
	worker_tid = pid;
	to_peer = a[1];
	from_peer = b[0];
}

int main(int argc, char **argv)
{
	static struct task bg[BACKGROUND];
	const char *mode = "none";
	long iterations = 60;
	bool peer = false, ready = false, async = false;
	static struct request reqs[2];
	static struct task atask[2];
	pthread_t t;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mode") && i + 1 < argc)
			mode = argv[++i];
		else if (!strcmp(argv[i], "--iterations") && i + 1 < argc)
			iterations = atol(argv[++i]);
		else if (!strcmp(argv[i], "--peer"))
			peer = true;
		else if (!strcmp(argv[i], "--wait"))
			ready = true;
		else if (!strcmp(argv[i], "--async"))
			async = true;
		else {
			fprintf(stderr, "usage: pool --mode none|cold|cpu|queue [--iterations N] "
					"[--peer|--async] [--wait]\n");
			return 2;
		}
	}
	if (strcmp(mode, "none") && strcmp(mode, "cold") && strcmp(mode, "cpu") &&
	    strcmp(mode, "queue")) {
		fprintf(stderr, "pool: unknown mode %s\n", mode);
		return 2;
	}
	if (peer && async) {
		fprintf(stderr, "pool: --async needs the thread pool (no --peer)\n");
		return 2;
	}
	if (async && pipe(notify))
		wl_die("pipe");
	if (peer && !strcmp(mode, "queue")) {
		fprintf(stderr, "pool: --mode queue needs the thread pool (no --peer)\n");
		return 2;
	}
	cpu_mode = !strcmp(mode, "cpu");
	/*
	 * The worker on the main thread's CPU, which sleeps while it works:
	 * the recorder keeps off the CPUs of the threads it sees run marked
	 * functions when others are left (user/record/cpu_avoid.c), and on a 2-CPU
	 * machine two pinned CPUs would leave it none.
	 */
	pool_cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? (int)sysconf(_SC_NPROCESSORS_ONLN) - 1 : 0;
	wl_pin_self(pool_cpu);
	file_fd = wl_make_file(path, FILE_SIZE);
	/* no readahead: a cold run reads its 64 chunks one request at a time,
	 * a clear slowdown even where the disk is the host's page cache */
	if (posix_fadvise(file_fd, 0, 0, POSIX_FADV_RANDOM))
		wl_die("fadvise");
	if (ready)
		wl_block_usr1();
	if (peer)
		start_peer();
	else if (pthread_create(&t, NULL, pool_thread, NULL))
		wl_die("pthread_create");
	/* warm: the file in the page cache, the worker's first task done */
	dispatch_and_wait(false);
	if (ready)
		wl_announce_wait("READY");
	for (long i = 0; i < iterations; i++) {
		bool perturb = i % 4 == 3;
		struct wl_sched w0, w1, m0, m1;
		uint64_t t0;

		if (perturb && !strcmp(mode, "cold") &&
		    posix_fadvise(file_fd, 0, 0, POSIX_FADV_DONTNEED))
			wl_die("fadvise");
		if (perturb && !strcmp(mode, "queue"))
			for (int k = 0; k < BACKGROUND; k++) {
				bg[k] = (struct task){.kind = T_WARM};
				post_task(&bg[k]);
			}
		w0 = wl_schedstat(worker_tid);
		m0 = wl_schedstat(0);
		t0 = wl_now_ns();
		if (async) {
			/* two requests, alternating: a key is reused once its run ended */
			struct request *r = &reqs[i % 2];

			*r = (struct request){.id = (int)i};
			atask[i % 2] = (struct task){
				.kind = T_LOAD, .perturb = perturb && cpu_mode, .req = r};
			async_run(r, &atask[i % 2]);
		} else {
			dispatch_and_wait(perturb && cpu_mode);
		}
		t0 = wl_now_ns() - t0;
		w1 = wl_schedstat(worker_tid);
		m1 = wl_schedstat(0);
		printf("RUN %ld %d %llu %llu %llu %llu %llu\n", i, perturb, (unsigned long long)t0,
		       (unsigned long long)(w1.cpu_ns - w0.cpu_ns),
		       (unsigned long long)(w1.delay_ns - w0.delay_ns),
		       (unsigned long long)(m1.cpu_ns - m0.cpu_ns),
		       (unsigned long long)(m1.delay_ns - m0.delay_ns));
		wl_sleep_ns(5 * NS_PER_MS);
	}
	if (peer) {
		close(to_peer);
		while (wait(NULL) > 0)
			;
	}
	unlink(path);
	printf("DONE\n");
	fflush(stdout);
	return 0;
}
