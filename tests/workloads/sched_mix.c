// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sched_mix: threads with known scheduler behaviour, for comparing the
 * recorder's per-thread times with /proc/PID/task/TID/schedstat.
 *
 *   sched_mix [--seconds S] [--verbose]
 *
 * For about S seconds (default 2), in parallel:
 *   compute    busy loop (pinned to CPU 1 when there is one)
 *   sleeper    nanosleep(1 ms) in a loop
 *   pipe_rd    blocks in read() on a pipe ...
 *   pipe_wr    ... that this thread writes a byte to every 2 ms
 *   preempted  busy loop pinned to CPU 0, competing with ...
 *   hog        ... this busy loop, also pinned to CPU 0
 *
 * Then every worker parks in pthread_cond_wait (a futex sleep, so its
 * schedstat stops changing), main prints "READY <pid> <run_ns>" (run_ns:
 * its own on-CPU time when main() began, from its schedstat: what ran
 * before, e.g. a launcher's code between fork and exec) and waits for
 * SIGUSR1 (SIGTERM/SIGINT also end the wait), releases the workers, joins
 * them and exits 0. --verbose prints "THREAD <name> <tid>" lines on stderr.
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <pthread.h>
#include <sys/syscall.h>

#define NR_WORKERS 6
/* time between the last worker parking and READY: see park() */
#define SETTLE_NS (50 * NS_PER_MS)

struct worker {
	const char *name;
	void (*work)(struct worker *w);
	int cpu; /* -1: not pinned */
	pthread_t thread;
	pid_t tid;
};

static uint64_t deadline_ns;
static int pipe_fds[2];
static volatile uint64_t sink;
static bool verbose;

static pthread_barrier_t start_barrier;
static pthread_mutex_t park_mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cv = PTHREAD_COND_INITIALIZER;
static int parked;
static bool released;

static bool working(void)
{
	return wl_now_ns() < deadline_ns;
}

static void spin_until_deadline(void)
{
	while (working())
		for (int i = 0; i < 10000; i++)
			sink += i;
}

static void do_compute(struct worker *w)
{
	spin_until_deadline();
}

static void do_sleeper(struct worker *w)
{
	while (working())
		wl_sleep_ns(NS_PER_MS);
}

/* Reads until pipe_wr closes its end, after the deadline. */
static void do_pipe_reader(struct worker *w)
{
	char c;
	ssize_t n;

	while ((n = read(pipe_fds[0], &c, 1)) != 0)
		if (n < 0 && errno != EINTR)
			wl_die("read");
	close(pipe_fds[0]);
}

static void do_pipe_writer(struct worker *w)
{
	char c = 'x';

	while (working()) {
		wl_sleep_ns(2 * NS_PER_MS);
		if (write(pipe_fds[1], &c, 1) != 1)
			wl_die("write");
	}
	close(pipe_fds[1]);
}

static struct worker workers[NR_WORKERS] = {
	{"compute", do_compute, 1, 0, 0},      {"sleeper", do_sleeper, -1, 0, 0},
	{"pipe_rd", do_pipe_reader, -1, 0, 0}, {"pipe_wr", do_pipe_writer, -1, 0, 0},
	{"preempted", do_compute, 0, 0, 0},    {"hog", do_compute, 0, 0, 0},
};

/* A CPU the machine lacks is left out: a warning, not an error. */
static void pin_self(const char *name, int cpu)
{
	int err;

	if (cpu >= sysconf(_SC_NPROCESSORS_ONLN))
		return;
	err = wl_pin_self(cpu);
	if (err)
		fprintf(stderr, "sched_mix: %s: pin to CPU %d: %s\n", name, cpu, strerror(-err));
}

/*
 * Sleeps in the kernel (futex) until main releases the workers. main
 * waits SETTLE_NS after the last worker got here before READY, so that
 * every worker is surely inside the futex wait, not just past the
 * mutex, when a test takes its schedstat snapshot.
 */
static void park(void)
{
	pthread_mutex_lock(&park_mtx);
	parked++;
	pthread_cond_broadcast(&park_cv);
	while (!released)
		pthread_cond_wait(&park_cv, &park_mtx);
	pthread_mutex_unlock(&park_mtx);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->tid = syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), w->name);
	pin_self(w->name, w->cpu);
	pthread_barrier_wait(&start_barrier);
	w->work(w);
	park();
	return NULL;
}

static void start_workers(double seconds)
{
	if (pipe(pipe_fds))
		wl_die("pipe");
	pthread_barrier_init(&start_barrier, NULL, NR_WORKERS + 1);
	for (int i = 0; i < NR_WORKERS; i++)
		if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]))
			wl_die("pthread_create");
	/* the deadline is set before anyone passes the barrier */
	deadline_ns = wl_now_ns() + (uint64_t)(seconds * 1e9);
	pthread_barrier_wait(&start_barrier);
}

static void wait_all_parked(void)
{
	pthread_mutex_lock(&park_mtx);
	while (parked < NR_WORKERS)
		pthread_cond_wait(&park_cv, &park_mtx);
	pthread_mutex_unlock(&park_mtx);
	wl_sleep_ns(SETTLE_NS);
}

static void release_and_join(void)
{
	pthread_mutex_lock(&park_mtx);
	released = true;
	pthread_cond_broadcast(&park_cv);
	pthread_mutex_unlock(&park_mtx);
	for (int i = 0; i < NR_WORKERS; i++)
		pthread_join(workers[i].thread, NULL);
}

static double parse_args(int argc, char **argv)
{
	double seconds = 2;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			seconds = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--verbose")) {
			verbose = true;
		} else {
			fprintf(stderr, "usage: sched_mix [--seconds S] [--verbose]\n");
			exit(2);
		}
	}
	if (seconds <= 0) {
		fprintf(stderr, "sched_mix: --seconds must be > 0\n");
		exit(2);
	}
	return seconds;
}

/* The calling thread's on-CPU time so far, by the kernel (schedstat). */
static unsigned long long own_run_ns(void)
{
	unsigned long long run = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (!f || fscanf(f, "%llu", &run) != 1)
		wl_die("read /proc/thread-self/schedstat");
	fclose(f);
	return run;
}

int main(int argc, char **argv)
{
	unsigned long long run_at_start = own_run_ns();
	double seconds = parse_args(argc, argv);
	sigset_t set;
	int sig;

	/* blocked before the threads exist, so only sigwait() takes them */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	start_workers(seconds);
	wait_all_parked();
	if (verbose)
		for (int i = 0; i < NR_WORKERS; i++)
			fprintf(stderr, "THREAD %s %d\n", workers[i].name, workers[i].tid);
	printf("READY %d %llu\n", getpid(), run_at_start);
	fflush(stdout);
	sigwait(&set, &sig);
	release_and_join();
	return 0;
}
