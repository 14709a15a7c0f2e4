// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * preempt: nested marked calls preempted by a busy loop on their CPU, each
 * measured by the kernel's own counters around it, for the per-call
 * accounting test (tests/root/test_preempt.c).
 *
 *   request()        the interaction: handler()
 *   handler()        starts with lea (the kernel single-steps its uprobe:
 *                    docs/overhead.md) and jumps to handler_body()
 *   handler_body()   W/4 of CPU work, filter(), W/4 of CPU work
 *   filter()         W/2 of CPU work
 *
 *   preempt [--calls N] [--work-us W]
 *
 * The server (the main thread) pins itself to the last CPU and forks a
 * busy loop pinned there too, so calls of W us (default 2000) of CPU work
 * are preempted at the scheduler's tick; a client process on another CPU
 * (when there is one) sends each request through a pipe after ~1 ms and
 * waits for the answer, so that the server is woken from another CPU, as
 * a server by its network client (default N = 100).
 *
 * stdout: one line per call, after it returned,
 *   CALL request <tid> <start_ns> <end_ns> <run_delay_ns> <nivcsw> <cpu_ns>
 *        <outer_ns>
 * the deltas of the thread's runqueue wait (/proc/thread-self/schedstat),
 * involuntary switches (getrusage) and CPU time (CLOCK_THREAD_CPUTIME_ID)
 * from just before the call to just after it: a window that contains the
 * call and little else. start..end is the call; outer_ns the wall time from
 * before the first reading of the counters to after the last, the span
 * their deltas cover (a preemption between a reading and the call is in
 * the deltas, not in end - start).
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static long work_ns = 2000000;

struct kview {
	uint64_t delay, cpu;
	long nivcsw;
};

static void kview(struct kview *k)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		wl_die("getrusage");
	k->nivcsw = ru.ru_nivcsw;
	k->delay = wl_schedstat(0).delay_ns;
	k->cpu = wl_cpu_ns();
}

MARKED void filter(void)
{
	wl_burn_cpu_ns(work_ns / 2);
}

MARKED void handler_body(void)
{
	wl_burn_cpu_ns(work_ns / 4);
	filter();
	wl_burn_cpu_ns(work_ns / 4);
}

/* a first instruction the kernel cannot emulate: the probe is single-stepped */
void handler(void);
__asm__(".text\n"
	".globl handler\n"
	".type handler, @function\n"
	"handler:\n"
	"\tlea 0(%rsp), %rax\n"
	"\tjmp handler_body\n"
	".size handler, .-handler\n");

MARKED void request(void)
{
	handler();
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		wl_die("sched_setaffinity");
}

static void client(int n, int req, int rsp)
{
	char b = 0;

	for (int i = 0; i < n; i++) {
		wl_sleep_ns(NS_PER_MS);
		if (write(req, &b, 1) != 1 || read(rsp, &b, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

static void usage(void)
{
	fprintf(stderr, "usage: preempt [--calls N] [--work-us W]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), n = 100, req[2], rsp[2];
	pid_t hog, cl = -1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--work-us") && i + 1 < argc)
			work_ns = atol(argv[++i]) * 1000;
		else
			usage();
	}
	if (n < 1 || work_ns < 4)
		usage();
	if (pipe(req) || pipe(rsp))
		wl_die("pipe");
	if (ncpu > 1) {
		cl = fork();
		if (cl < 0)
			wl_die("fork");
		if (!cl) {
			pin(0);
			client(n, req[1], rsp[0]);
		}
	}
	pin(ncpu - 1);
	hog = fork();
	if (hog < 0)
		wl_die("fork");
	if (!hog) {
		for (;;)
			;
	}
	for (int i = 0; i < n; i++) {
		struct kview a, b;
		uint64_t o0, o1, t0, t1;
		char c = 0;

		if (cl > 0 && read(req[0], &c, 1) != 1)
			wl_die("read request");
		if (cl < 0)
			wl_sleep_ns(NS_PER_MS);
		o0 = wl_now_ns();
		kview(&a);
		t0 = wl_now_ns();
		request();
		t1 = wl_now_ns();
		kview(&b);
		o1 = wl_now_ns();
		if (cl > 0 && write(rsp[1], &c, 1) != 1)
			wl_die("write answer");
		printf("CALL request %ld %llu %llu %llu %ld %llu %llu\n", (long)syscall(SYS_gettid),
		       (unsigned long long)t0, (unsigned long long)t1,
		       (unsigned long long)(b.delay - a.delay), b.nivcsw - a.nivcsw,
		       (unsigned long long)(b.cpu - a.cpu), (unsigned long long)(o1 - o0));
		fflush(stdout);
	}
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	if (cl > 0)
		waitpid(cl, NULL, 0);
	return 0;
}
