// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * many: thirty distinct functions fn_00 ... fn_29, for the stop tests
 * (tests/root/test_stop.c, issue 35): a tracer that marks them all holds
 * sixty probes in one process.
 *
 *   many busy [--threads T]    T threads (default 1) call every function,
 *                              over and over, each 20 us of CPU work:
 *                              ~45 000 calls a second per thread, about
 *                              what a busy PostgreSQL backend makes of
 *                              its marked functions (issue 35: 54 000)
 *   many block [--threads T]   T threads (default 4) each call fn_00,
 *                              which calls fn_01, ... down to fn_29, which
 *                              blocks in read() on a pipe nobody writes:
 *                              thirty return probes pending per thread
 *
 * Both print "READY <pid>" and wait for SIGUSR1 before the threads start
 * (a tracer attaches in between, so that the blocked threads entered the
 * functions under its probes), then "STARTED" once every thread of block
 * is inside fn_29 (busy: at once). They run until killed.
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <pthread.h>
#include <stdatomic.h>

#define NFUNCS 30
#define MAX_THREADS 64

static int block_fd = -1; /* a pipe's read end, never written */
static atomic_int bottom; /* threads blocked inside fn_29 */
static void (*funcs[NFUNCS])(int depth);

static bool busy;

/*
 * busy: 20 us of work per call, so that the recorder keeps up with the
 * calls (it takes ~3 us a record here); with a few hundred ns it fell
 * behind, and a stop waited for it to drain its backlog (up to 0.8 s).
 */
static void work(void)
{
	if (busy)
		wl_burn_cpu_ns(20000);
}

/* The bottom of block's chain: here until the process is killed. */
static void block_here(void)
{
	char c;

	atomic_fetch_add(&bottom, 1);
	while (read(block_fd, &c, 1) < 0 && errno == EINTR)
		;
}

/* fn_<k>(depth): its work, then fn_<k+1>(depth - 1) while depth lasts. */
#define FN(k)                                                                                      \
	MARKED void fn_##k(int depth)                                                              \
	{                                                                                          \
		work();                                                                            \
		if (depth > 0 && 1##k - 100 + 1 < NFUNCS)                                          \
			funcs[1##k - 100 + 1](depth - 1);                                          \
		else if (depth > 0)                                                                \
			block_here();                                                              \
	}

// clang-format off
/* a list of macro calls, one function each */
FN(00) FN(01) FN(02) FN(03) FN(04) FN(05) FN(06) FN(07) FN(08) FN(09)
FN(10) FN(11) FN(12) FN(13) FN(14) FN(15) FN(16) FN(17) FN(18) FN(19)
FN(20) FN(21) FN(22) FN(23) FN(24) FN(25) FN(26) FN(27) FN(28) FN(29)

static void (*funcs[NFUNCS])(int) = {
	fn_00, fn_01, fn_02, fn_03, fn_04, fn_05, fn_06, fn_07, fn_08, fn_09,
	fn_10, fn_11, fn_12, fn_13, fn_14, fn_15, fn_16, fn_17, fn_18, fn_19,
	fn_20, fn_21, fn_22, fn_23, fn_24, fn_25, fn_26, fn_27, fn_28, fn_29,
};
// clang-format on

static void *busy_thread(void *arg)
{
	(void)arg;
	for (;;)
		for (int k = 0; k < NFUNCS; k++)
			funcs[k](0);
	return NULL;
}

static void *block_thread(void *arg)
{
	(void)arg;
	fn_00(NFUNCS); /* one level past fn_29: it blocks there */
	return NULL;
}

int main(int argc, char **argv)
{
	bool block = argc > 1 && !strcmp(argv[1], "block");
	int threads = block ? 4 : 1, fds[2];
	pthread_t tid;

	if (argc < 2 || (!block && strcmp(argv[1], "busy"))) {
		fprintf(stderr, "usage: many busy|block [--threads T]\n");
		return 2;
	}
	busy = !block;
	if (argc > 3 && !strcmp(argv[2], "--threads"))
		threads = atoi(argv[3]);
	if (threads < 1 || threads > MAX_THREADS) {
		fprintf(stderr, "many: --threads from 1 to %d\n", MAX_THREADS);
		return 2;
	}
	if (pipe(fds))
		wl_die("pipe");
	block_fd = fds[0];
	wl_block_usr1();
	wl_announce_wait("READY");
	for (int i = 0; i < threads; i++)
		if (pthread_create(&tid, NULL, block ? block_thread : busy_thread, NULL))
			wl_die("pthread_create");
	while (block && atomic_load(&bottom) < threads)
		wl_sleep_ns(NS_PER_MS);
	printf("STARTED\n");
	fflush(stdout);
	for (;;)
		pause();
}
