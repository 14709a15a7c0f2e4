// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * stacks: a known call chain that burns CPU where a sampler must find it,
 * for the stack-sampling tests (tests/root/test_sample.c).
 *
 *   main -> outer -> middle -> inner_loop   pure arithmetic, no calls, for
 *                                           the time given (checked every
 *                                           2^16 iterations)
 *   main -> outer -> side                   a tenth of that time, the same way
 *   main -> nap                             --sleep-ms N: asleep N ms in 10 ms
 *                                           nanosleeps (off the CPU: timer)
 *   main -> pipe_wait                       --pipe-ms N: blocked N ms reading a
 *                                           pipe a child writes a byte to every
 *                                           10 ms (off the CPU: ipc)
 *
 *   main -> sig_wait -> pause               --signal-ms N: asleep N ms in pause(),
 *                                           woken every 10 ms by SIGALRM, whose
 *                                           handler (on_alarm) runs before the
 *                                           thread is back where it slept
 *
 *   main -> dive x 60 -> deep_loop          --deep-ms N: N ms of CPU 60 frames
 *                                           down (a sample's stack walk costs
 *                                           more there: make bench, section 7)
 *
 *   stacks [--ms N] [--sleep-ms N] [--pipe-ms N] [--signal-ms N] [--deep-ms N]
 *                                           (default 400 ms in inner_loop)
 *
 * Built with frame pointers (WL_CFLAGS): the chain is what a frame-pointer
 * unwinder sees from any instruction of inner_loop's loop. Prints
 * "DONE <iterations>" (so the loop cannot be optimised away).
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>

static volatile uint64_t sink;

/*
 * Iterations of arithmetic until ns of thread CPU time went by. Inlined,
 * so that the samples land in the function that calls it.
 */
static inline __attribute__((always_inline)) uint64_t spin_for(uint64_t ns, uint64_t x)
{
	uint64_t start = wl_cpu_ns(), n = 0;

	for (;;) {
		for (int i = 0; i < 65536; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		n += 65536;
		if (wl_cpu_ns() - start >= ns)
			break;
	}
	sink = x;
	return n;
}

static MARKED uint64_t burn(uint64_t ns, uint64_t seed)
{
	return spin_for(ns, seed);
}

/* the loop is here, not in burn(): samples land in inner_loop itself */
MARKED uint64_t inner_loop(uint64_t ns)
{
	return spin_for(ns, 1);
}

MARKED uint64_t middle(uint64_t ns)
{
	return inner_loop(ns) + (sink & 1);
}

MARKED uint64_t side(uint64_t ns)
{
	return burn(ns, 7) + (sink & 1);
}

MARKED uint64_t outer(uint64_t ns)
{
	return middle(ns) + side(ns / 10);
}

MARKED void nap(uint64_t ms)
{
	for (uint64_t i = 0; i < ms / 10; i++)
		wl_sleep_ns(10 * NS_PER_MS);
}

MARKED void pipe_wait(uint64_t ms)
{
	int fd[2];
	pid_t child;
	char c;

	if (pipe(fd))
		wl_die("pipe");
	child = fork();
	if (child < 0)
		wl_die("fork");
	if (!child) {
		close(fd[0]);
		for (uint64_t i = 0; i < ms / 10; i++) {
			wl_sleep_ns(10 * NS_PER_MS);
			if (!wl_write_all(fd[1], "x", 1))
				_exit(1);
		}
		_exit(0);
	}
	close(fd[1]);
	for (uint64_t i = 0; i < ms / 10; i++)
		if (!wl_read_full(fd[0], &c, 1))
			wl_die("read from the pipe");
	close(fd[0]);
	waitpid(child, NULL, 0);
}

static volatile sig_atomic_t alarms;

MARKED void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

MARKED void sig_wait(uint64_t ms)
{
	struct sigaction sa = {.sa_handler = on_alarm};
	struct itimerval it = {{0, 10000}, {0, 10000}}, off = {{0, 0}, {0, 0}};

	if (!ms)
		return;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL))
		wl_die("SIGALRM");
	while ((uint64_t)alarms < ms / 10)
		pause();
	setitimer(ITIMER_REAL, &off, NULL);
}

MARKED uint64_t deep_loop(uint64_t ns)
{
	return spin_for(ns, 3);
}

MARKED uint64_t dive(int depth, uint64_t ns)
{
	return (depth ? dive(depth - 1, ns) : deep_loop(ns)) + (sink & 1);
}

int main(int argc, char **argv)
{
	uint64_t ms = 400, sleep_ms = 0, pipe_ms = 0, signal_ms = 0, deep_ms = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ms") && i + 1 < argc)
			ms = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--sleep-ms") && i + 1 < argc)
			sleep_ms = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--pipe-ms") && i + 1 < argc)
			pipe_ms = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--signal-ms") && i + 1 < argc)
			signal_ms = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--deep-ms") && i + 1 < argc)
			deep_ms = strtoull(argv[++i], NULL, 10);
		else
			wl_die("usage: stacks [--ms N] [--sleep-ms N] [--pipe-ms N] [--signal-ms "
			       "N] "
			       "[--deep-ms N]");
	}
	printf("DONE %llu\n", (unsigned long long)outer(ms * NS_PER_MS));
	if (deep_ms)
		printf("DEEP %llu\n", (unsigned long long)dive(60, deep_ms * NS_PER_MS));
	nap(sleep_ms);
	pipe_wait(pipe_ms);
	sig_wait(signal_ms);
	return 0;
}
