// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pool: an interaction that hands its work to a thread pool and waits for
 * it, for the wait-chain tests (tests/root/test_pool.c, issue 22).
 *
 *   dispatch_and_wait()  posts one task to the pool's queue and waits on a
 *                        condition variable until it is done
 *   load_index()         the task, on thread "pool-1": reads a 4 MiB file
 *                        (under /var/tmp) and hashes it (a few ms)
 *
 *   pool --mode none|cold|cpu [--iterations N]
 *
 * Every fourth run (i % 4 == 3) is perturbed, outside the interaction:
 *   cold  the file is dropped from the page cache before the run
 *         (posix_fadvise DONTNEED): the task reads it from the disk
 *   cpu   a busy child process ("hog", pinned to pool-1's CPU) runs while
 *         pool-1 runs the task (pool-1 continues it, and stops it before
 *         waking the main thread): pool-1 waits for its CPU
 *   none  nothing
 * pool-1 and the main thread are pinned to the first CPU.
 * stdout: "RUN <i> <perturbed> <ns>" per run, then DONE.
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#define FILE_SIZE (4 * 1024 * 1024)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t posted = PTHREAD_COND_INITIALIZER, done_cv = PTHREAD_COND_INITIALIZER;
static int queued, done;
static int file_fd = -1, pool_cpu;
static pid_t hog = -1;		 /* cpu mode: stopped but while pool-1 runs a perturbed task */
static volatile int perturb_now; /* set by main before a perturbed run */
static char path[] = "/var/tmp/xlp-pool-XXXXXX";
static volatile uint64_t sink;

MARKED void load_index(void)
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
	sink = sum;
}

static void *pool_thread(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "pool-1");
	wl_pin_self(pool_cpu);
	for (;;) {
		pthread_mutex_lock(&mu);
		while (!queued)
			pthread_cond_wait(&posted, &mu);
		queued = 0;
		pthread_mutex_unlock(&mu);
		if (hog > 0 && perturb_now)
			kill(hog, SIGCONT);
		load_index();
		/* stopped before main is woken: only pool-1 loses its CPU */
		if (hog > 0 && perturb_now) {
			int st;

			kill(hog, SIGSTOP);
			if (waitpid(hog, &st, WUNTRACED) != hog)
				wl_die("waitpid hog");
		}
		pthread_mutex_lock(&mu);
		done = 1;
		pthread_cond_signal(&done_cv);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

MARKED void dispatch_and_wait(void)
{
	pthread_mutex_lock(&mu);
	done = 0;
	queued = 1;
	pthread_cond_signal(&posted);
	while (!done)
		pthread_cond_wait(&done_cv, &mu);
	pthread_mutex_unlock(&mu);
}

/* A process that spins on pool-1's CPU while pool-1 lets it (SIGCONT / SIGSTOP). */
static pid_t start_hog(void)
{
	pid_t pid = fork();

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
	return pid;
}

int main(int argc, char **argv)
{
	const char *mode = "none";
	long iterations = 60;
	pthread_t t;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mode") && i + 1 < argc)
			mode = argv[++i];
		else if (!strcmp(argv[i], "--iterations") && i + 1 < argc)
			iterations = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: pool --mode none|cold|cpu [--iterations N]\n");
			return 2;
		}
	}
	if (strcmp(mode, "none") && strcmp(mode, "cold") && strcmp(mode, "cpu")) {
		fprintf(stderr, "pool: unknown mode %s\n", mode);
		return 2;
	}
	/*
	 * pool-1 on the main thread's CPU, which sleeps while it works: the
	 * recorder keeps off the CPUs of the threads it sees run marked
	 * functions when others are left (user/cpu_avoid.c), and on a 2-CPU
	 * machine two pinned CPUs would leave it none.
	 */
	pool_cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? (int)sysconf(_SC_NPROCESSORS_ONLN) - 1 : 0;
	wl_pin_self(pool_cpu);
	file_fd = wl_make_file(path, FILE_SIZE);
	if (!strcmp(mode, "cpu")) {
		int st;

		hog = start_hog();
		if (waitpid(hog, &st, WUNTRACED) != hog || !WIFSTOPPED(st))
			wl_die("hog");
	}
	if (pthread_create(&t, NULL, pool_thread, NULL))
		wl_die("pthread_create");
	/* warm: the file in the page cache, the pool's first task done */
	dispatch_and_wait();
	for (long i = 0; i < iterations; i++) {
		bool perturb = i % 4 == 3;
		uint64_t t0;

		if (perturb && !strcmp(mode, "cold") &&
		    posix_fadvise(file_fd, 0, 0, POSIX_FADV_DONTNEED))
			wl_die("fadvise");
		perturb_now = perturb;
		t0 = wl_now_ns();
		dispatch_and_wait();
		t0 = wl_now_ns() - t0;
		perturb_now = 0;
		printf("RUN %ld %d %llu\n", i, perturb, (unsigned long long)t0);
		wl_sleep_ns(5 * NS_PER_MS);
	}
	if (hog > 0) {
		kill(hog, SIGKILL);
		waitpid(hog, NULL, 0);
	}
	unlink(path);
	printf("DONE\n");
	fflush(stdout);
	return 0;
}
