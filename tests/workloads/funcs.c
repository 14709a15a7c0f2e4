// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * funcs: functions with known behaviour, for the recorder's function tests.
 *
 *   spin_20ms()   20 ms of thread CPU time
 *   sleep_20ms()  nanosleep 20 ms
 *   parent()      spin_20ms(), sleep_20ms(), then 2 ms of its own CPU time
 *   cheap()       nothing (uprobe overhead benchmark)
 *
 *   funcs [--iterations N] [--threads T] [--wait-signal] [--late-thread]
 *         [--fork P] [--linger]
 *   funcs --bench N [--wait-signal] [--linger]
 *
 * By default parent() runs N times (default 5) on the main thread. With
 * --threads T, T threads (named "worker<i>") run it N times each; they are
 * created before READY and blocked until the start. --late-thread creates
 * the threads (one unless --threads) only after the start, so they are
 * born while a tracer is attached. --wait-signal prints "READY <pid>" and
 * waits for SIGUSR1 before the start. --fork P: after the start, P child
 * processes, forked one after the other (each when the previous one has
 * exited), run parent() N times each; the first process only waits.
 * --linger: at the end, print "DONE <pid>" and wait for SIGUSR1 before
 * exiting (a test looks at the finished process).
 *
 * stdout: one line per completed call, children before their parent,
 *   CALL <func> <tid> <start_ns> <end_ns> <before_ns>     (CLOCK_MONOTONIC)
 * start is read inside the function, after its entry probe; before by its
 * caller just before the call, so that the entry lies between the two (a
 * thread preempted on its way in may read start long after its entry).
 * or for --bench: BENCH <N> <elapsed_ns> <ns_per_call> <cpu_ns_per_call> (the
 * thread's CPU time, which another process's time on its CPU is not in).
 * The lines are printed after each parent() returns, never inside a
 * measured function.
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define MAX_THREADS 64
#define LOG_SIZE 4 /* calls per parent(): spin, sleep, parent */

struct call {
	const char *func;
	uint64_t start, end, before;
};

struct opts {
	long iterations;
	int threads;
	bool wait_signal;
	bool late;
	long bench; /* -1: no benchmark */
	int fork;   /* child processes that do the work */
	bool linger;
};

static struct opts o = {.iterations = 5, .threads = 1, .bench = -1};
static __thread struct call call_log[LOG_SIZE];
static __thread int nr_calls;
static __thread uint64_t next_before; /* the caller's clock just before a call */
static pthread_barrier_t start_barrier;

static void log_call(const char *func, uint64_t before, uint64_t start)
{
	uint64_t end = wl_now_ns();

	if (nr_calls < LOG_SIZE)
		call_log[nr_calls++] = (struct call){func, start, end, before};
}

static void flush_log(void)
{
	pid_t tid = syscall(SYS_gettid);

	flockfile(stdout);
	for (int i = 0; i < nr_calls; i++)
		printf("CALL %s %d %llu %llu %llu\n", call_log[i].func, tid,
		       (unsigned long long)call_log[i].start, (unsigned long long)call_log[i].end,
		       (unsigned long long)call_log[i].before);
	fflush(stdout);
	funlockfile(stdout);
	nr_calls = 0;
}

MARKED void spin_20ms(void)
{
	uint64_t before = next_before, start = wl_now_ns();

	wl_burn_cpu_ns(20 * NS_PER_MS);
	log_call("spin_20ms", before, start);
}

MARKED void sleep_20ms(void)
{
	uint64_t before = next_before, start = wl_now_ns();

	wl_sleep_ns(20 * NS_PER_MS);
	log_call("sleep_20ms", before, start);
}

MARKED void parent(void)
{
	uint64_t before = next_before, start = wl_now_ns();

	next_before = wl_now_ns();
	spin_20ms();
	next_before = wl_now_ns();
	sleep_20ms();
	wl_burn_cpu_ns(2 * NS_PER_MS);
	log_call("parent", before, start);
}

/*
 * GCC gives an empty leaf function no frame (a bare ret) even with
 * -fno-omit-frame-pointer; using the frame address forces the ordinary
 * push %rbp; mov %rsp,%rbp prologue that uprobes emulate cheaply.
 */
MARKED void cheap(void)
{
	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
}

static void run_parents(void)
{
	for (long i = 0; i < o.iterations; i++) {
		next_before = wl_now_ns();
		parent();
		flush_log();
	}
}

/*
 * The thread's CPU time per call too: the traps and the programs run in
 * its context and count there, while another process that preempts it
 * (a loaded machine) counts in the wall time only.
 */
static void bench(long n)
{
	uint64_t t0 = wl_now_ns(), c0 = wl_cpu_ns();

	for (long i = 0; i < n; i++)
		cheap();
	t0 = wl_now_ns() - t0;
	c0 = wl_cpu_ns() - c0;
	printf("BENCH %ld %llu %.1f %.1f\n", n, (unsigned long long)t0, n ? (double)t0 / n : 0.0,
	       n ? (double)c0 / n : 0.0);
	fflush(stdout);
}

static void *worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "worker%d", (int)(intptr_t)arg);
	pthread_setname_np(pthread_self(), name);
	if (!o.late)
		pthread_barrier_wait(&start_barrier);
	run_parents();
	return NULL;
}

static void create_workers(pthread_t *t, int n)
{
	for (int i = 0; i < n; i++) {
		int err = pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);

		if (err) {
			fprintf(stderr, "funcs: pthread_create: %s\n", strerror(err));
			exit(1);
		}
	}
}

static void run_children(int n)
{
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		int status;

		if (pid < 0) {
			fprintf(stderr, "funcs: fork: %s\n", strerror(errno));
			exit(1);
		}
		if (!pid) {
			run_parents();
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			exit(1);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: funcs [--iterations N] [--threads T] [--wait-signal] "
			"[--late-thread] [--fork P] [--linger]\n       funcs --bench N "
			"[--wait-signal] [--linger]\n");
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has_val = i + 1 < argc;

		if (!strcmp(a, "--iterations") && has_val)
			o.iterations = atol(argv[++i]);
		else if (!strcmp(a, "--threads") && has_val)
			o.threads = atoi(argv[++i]);
		else if (!strcmp(a, "--bench") && has_val)
			o.bench = atol(argv[++i]);
		else if (!strcmp(a, "--wait-signal"))
			o.wait_signal = true;
		else if (!strcmp(a, "--late-thread"))
			o.late = true;
		else if (!strcmp(a, "--fork") && has_val)
			o.fork = atoi(argv[++i]);
		else if (!strcmp(a, "--linger"))
			o.linger = true;
		else
			usage();
	}
	if (o.iterations < 0 || o.threads < 1 || o.threads > MAX_THREADS || o.bench < -1 ||
	    o.fork < 0 || (o.fork && (o.threads > 1 || o.late)))
		usage();
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_THREADS];
	bool use_threads;

	parse_args(argc, argv);
	use_threads = o.threads > 1 || o.late;
	/* blocked before any thread exists, so sigwait() gets it */
	wl_block_usr1();

	if (use_threads && !o.late && o.bench < 0) {
		pthread_barrier_init(&start_barrier, NULL, o.threads + 1);
		create_workers(t, o.threads);
	}
	if (o.wait_signal)
		wl_announce_wait("READY");
	if (o.bench >= 0) {
		bench(o.bench);
		if (o.linger)
			wl_announce_wait("DONE");
		return 0;
	}
	if (o.fork) {
		run_children(o.fork);
		return 0;
	}
	if (!use_threads) {
		run_parents();
		if (o.linger)
			wl_announce_wait("DONE");
		return 0;
	}
	if (o.late)
		create_workers(t, o.threads);
	else
		pthread_barrier_wait(&start_barrier);
	for (int i = 0; i < o.threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
