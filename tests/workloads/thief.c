// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * thief: a server whose CPU is taken, in some of its requests, by a task
 * pinned on the same CPU, for the "who took the CPU" test
 * (tests/root/test_thief.c).
 *
 *   thief --mode child|fork|threads [--requests N] [--every K] [--work-us W]
 *
 *   request()   the interaction: compute() between two readings of the
 *               thread's own runqueue wait (schedstat), inside the call
 *   compute()   W us of CPU work (default 4000)
 *
 * Every K-th request (default 3) runs beside a CPU hog on the server's CPU
 * (the last one) at nice -10 (root), the thief:
 *   child    a child forked at start ("thief-child"), woken for it
 *   fork     a child forked for that request, which renames itself
 *            ("bgsave-child") and computes until the request ends
 *   threads  a helper thread of the server's own ("helper"), woken for it
 * N requests (default 24), ~1 ms apart.
 *
 * stdout: one line per request, after it returned,
 *   REQ <i> <noisy> <server tid> <thief tid> <start_ns> <end_ns> <delay_in_ns>
 *       <delay_out_ns> <thief_cpu_ns>
 * start..end: CLOCK_MONOTONIC just before and after the call; delay_out the
 * server thread's run_delay growth over that span, delay_in over the
 * readings inside request() (so the waits that ended inside the call lie
 * between the two); thief_cpu the thief's own on-CPU time over the span
 * (/proc/PID/task/TID/schedstat, read while it cannot run: same CPU).
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static uint64_t work_ns = 4000000;
static int cpu;
static volatile int *spin; /* shared with the children: the hog runs while set */
static int go[2];	   /* a byte wakes the child or the helper */
static uint64_t in0, in1;  /* run_delay inside request() */

MARKED void compute(void)
{
	wl_burn_cpu_ns(work_ns);
}

MARKED void request(void)
{
	in0 = wl_schedstat(0).delay_ns;
	compute();
	in1 = wl_schedstat(0).delay_ns;
}

/*
 * The hog outweighs the server (nice -10: ~9 times its share), so the slow
 * requests stand apart from whatever else a shared machine runs there.
 */
static void favour(void)
{
	if (setpriority(PRIO_PROCESS, 0, -10))
		wl_die("setpriority (run as root)");
}

static void hog(void)
{
	volatile uint64_t sink = 0;

	while (*spin)
		for (int i = 0; i < 1000; i++)
			sink += i;
}

static uint64_t cpu_of(pid_t pid, pid_t tid)
{
	char path[64];
	unsigned long long c = 0, d = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu %llu", &c, &d) != 2)
		wl_die(path);
	fclose(f);
	return c;
}

/* The child and the helper: a hog each time a byte comes. */
static void serve_hog(const char *name, pid_t *tid_out)
{
	char b;

	prctl(PR_SET_NAME, name);
	if (wl_pin_self(cpu))
		wl_die("pin");
	favour();
	if (tid_out)
		__atomic_store_n(tid_out, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	while (wl_read_full(go[0], &b, 1))
		hog();
}

static pid_t helper_tid;

static void *helper(void *arg)
{
	(void)arg;
	serve_hog("helper", &helper_tid);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = "child";
	int n = 24, every = 3;
	pid_t me = getpid(), child = 0, thief = 0;
	pthread_t th;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--mode"))
			mode = argv[i + 1];
		else if (!strcmp(argv[i], "--requests"))
			n = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--every"))
			every = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--work-us"))
			work_ns = strtoull(argv[i + 1], NULL, 10) * 1000;
	}
	cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	spin = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (spin == MAP_FAILED || pipe(go))
		wl_die("setup");
	if (wl_pin_self(cpu))
		wl_die("pin");
	if (!strcmp(mode, "child")) {
		child = fork();
		if (child < 0)
			wl_die("fork");
		if (!child) {
			close(go[1]); /* its read ends when the server closes its end */
			serve_hog("thief-child", NULL);
			_exit(0);
		}
		thief = child;
	} else if (!strcmp(mode, "threads")) {
		if (pthread_create(&th, NULL, helper, NULL))
			wl_die("pthread_create");
		while (!__atomic_load_n(&helper_tid, __ATOMIC_SEQ_CST))
			usleep(1000);
		thief = helper_tid;
	} else if (strcmp(mode, "fork")) {
		fprintf(stderr, "thief: unknown --mode %s\n", mode);
		return 2;
	}
	for (int i = 0; i < n; i++) {
		bool noisy = i % every == every - 1;
		pid_t owner = !strcmp(mode, "threads") ? me : thief;
		uint64_t d0, d1, c0 = 0, c1 = 0, t0, t1;

		wl_sleep_ns(NS_PER_MS);
		if (noisy) {
			*spin = 1;
			if (!strcmp(mode, "fork")) {
				thief = fork();
				if (thief < 0)
					wl_die("fork");
				if (!thief) {
					prctl(PR_SET_NAME, "bgsave-child");
					favour();
					hog();
					_exit(0);
				}
				owner = thief;
			} else if (!wl_write_all(go[1], "x", 1)) {
				wl_die("write");
			}
			/* let the hog get going on our CPU */
			wl_sleep_ns(NS_PER_MS / 2);
			c0 = cpu_of(owner, thief);
		}
		t0 = wl_now_ns();
		d0 = wl_schedstat(0).delay_ns;
		request();
		d1 = wl_schedstat(0).delay_ns;
		t1 = wl_now_ns();
		if (noisy) {
			c1 = cpu_of(owner, thief);
			*spin = 0;
			if (!strcmp(mode, "fork") && waitpid(thief, NULL, 0) != thief)
				wl_die("waitpid");
		}
		printf("REQ %d %d %d %d %llu %llu %llu %llu %llu\n", i, noisy,
		       (int)syscall(SYS_gettid), noisy ? (int)thief : 0, (unsigned long long)t0,
		       (unsigned long long)t1, (unsigned long long)(in1 - in0),
		       (unsigned long long)(d1 - d0), (unsigned long long)(c1 - c0));
		fflush(stdout);
	}
	close(go[1]);
	if (child)
		waitpid(child, NULL, 0);
	if (!strcmp(mode, "threads"))
		pthread_join(th, NULL);
	return 0;
}
