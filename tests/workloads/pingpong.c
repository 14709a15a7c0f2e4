// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pingpong: a byte bounced through two pipes, for the overhead benchmark.
 * Every round trip is two context switches on one CPU, so the tracer's
 * per-event cost shows up as a ratio of ns per round trip.
 *
 *   pingpong [--roundtrips N] [--cpu C] [--procs] [--wait-signal]
 *
 * N round trips (default 200000) between the main thread and an "echo"
 * thread, or with --procs a child process "pingpong_echo". Both sides are
 * pinned to CPU C (default 0; -1: no pinning). Each round trip is one call
 * of roundtrip(), a function with an ordinary prologue that a tracer may
 * mark. --wait-signal prints "READY <pid>" and waits for SIGUSR1 first.
 *
 * stdout: ROUNDTRIPS <N> <elapsed_ns> <ns_per_rt> <cpu_ns_per_rt>: the CPU
 * time of both sides per round trip too, which the scheduler programs and
 * switches add to and another process preempting them (a loaded machine)
 * does not.
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

struct opts {
	long roundtrips;
	int cpu;
	bool procs;
	bool wait_signal;
};

static struct opts o = {.roundtrips = 200000, .cpu = 0};
static int ping[2], pong[2]; /* main -> echo, echo -> main */

static void pin_self(int cpu)
{
	if (wl_pin_self(cpu))
		wl_die("sched_setaffinity");
}

/* false on EOF */
static bool xfer(int rd, int wr, char *c)
{
	ssize_t n;

	while ((n = read(rd, c, 1)) < 0 && errno == EINTR)
		;
	if (n < 0)
		wl_die("read");
	if (n == 0)
		return false;
	while ((n = write(wr, c, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		wl_die("write");
	return true;
}

MARKED void roundtrip(void)
{
	char c = 'p';

	if (write(ping[1], &c, 1) != 1)
		wl_die("write");
	if (read(pong[0], &c, 1) != 1)
		wl_die("read");
}

/* The echo side: answers every byte until main closes its pipe. */
static void echo_loop(void)
{
	char c;

	pin_self(o.cpu);
	while (xfer(ping[0], pong[1], &c))
		;
}

static void *echo_thread(void *arg)
{
	pthread_setname_np(pthread_self(), "echo");
	echo_loop();
	return NULL;
}

static pid_t start_echo_process(void)
{
	pid_t pid = fork();

	if (pid < 0)
		wl_die("fork");
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "pingpong_echo");
		close(ping[1]);
		close(pong[0]);
		echo_loop();
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	return pid;
}

static void parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has_val = i + 1 < argc;

		if (!strcmp(a, "--roundtrips") && has_val) {
			o.roundtrips = atol(argv[++i]);
		} else if (!strcmp(a, "--cpu") && has_val) {
			o.cpu = atoi(argv[++i]);
		} else if (!strcmp(a, "--procs")) {
			o.procs = true;
		} else if (!strcmp(a, "--wait-signal")) {
			o.wait_signal = true;
		} else {
			fprintf(stderr, "usage: pingpong [--roundtrips N] [--cpu C] [--procs] "
					"[--wait-signal]\n");
			exit(2);
		}
	}
	if (o.roundtrips < 1)
		o.roundtrips = 1;
}

int main(int argc, char **argv)
{
	pthread_t echo;
	pid_t child = 0;
	uint64_t t0, c0;
	struct rusage ru;

	parse_args(argc, argv);
	/* blocked before the echo thread exists, so sigwait() gets it */
	wl_block_usr1();
	if (pipe(ping) || pipe(pong))
		wl_die("pipe");
	if (o.procs)
		child = start_echo_process();
	else if (pthread_create(&echo, NULL, echo_thread, NULL))
		wl_die("pthread_create");
	pin_self(o.cpu);
	if (o.wait_signal)
		wl_announce_wait("READY");

	t0 = wl_now_ns();
	/* both threads; the echo process's, when it is one, from its rusage */
	c0 = wl_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 0; i < o.roundtrips; i++)
		roundtrip();
	t0 = wl_now_ns() - t0;

	close(ping[1]); /* the echo side sees EOF and ends */
	if (o.procs)
		waitpid(child, NULL, 0);
	else
		pthread_join(echo, NULL);
	c0 = wl_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
	if (o.procs && !getrusage(RUSAGE_CHILDREN, &ru))
		c0 += (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NS_PER_S +
		      (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
	printf("ROUNDTRIPS %ld %llu %.1f %.1f\n", o.roundtrips, (unsigned long long)t0,
	       (double)t0 / o.roundtrips, (double)c0 / o.roundtrips);
	return 0;
}
