// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * overload: far more busy threads than CPUs, each calling one marked
 * function, for the recorder under overload (tests/root/test_overload.c).
 *
 *   overload [--threads N] [--calls K] [--work-us W] [--sleep-us S]
 *
 * Prints READY <pid> and waits for SIGUSR1; then N threads each call
 * work() (W us of CPU) K times, sleeping S us after each. Once all are
 * done it prints "CALLS <count>" (the calls made, counted here) and
 * DONE <pid>, with every thread parked (alive: no thread exits while a
 * tracer still records), and waits for SIGUSR1 again before exiting.
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <pthread.h>

static unsigned ncalls = 50, work_us = 200, sleep_us = 5000;
static uint64_t calls_made;
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go, done, released;

MARKED void work(void)
{
	wl_burn_cpu_ns(work_us * 1000ull);
	__atomic_fetch_add(&calls_made, 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	pthread_mutex_lock(&mtx);
	while (!go)
		pthread_cond_wait(&cv, &mtx);
	pthread_mutex_unlock(&mtx);
	for (unsigned i = 0; i < ncalls; i++) {
		work();
		if (sleep_us)
			wl_sleep_ns(sleep_us * 1000ull);
	}
	pthread_mutex_lock(&mtx);
	done++;
	pthread_cond_broadcast(&cv);
	while (!released)
		pthread_cond_wait(&cv, &mtx);
	pthread_mutex_unlock(&mtx);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned nthreads = 1000;
	pthread_attr_t attr;
	pthread_t *t;

	for (int i = 1; i + 1 < argc; i += 2) {
		unsigned v = (unsigned)atoi(argv[i + 1]);

		if (!strcmp(argv[i], "--threads"))
			nthreads = v;
		else if (!strcmp(argv[i], "--calls"))
			ncalls = v;
		else if (!strcmp(argv[i], "--work-us"))
			work_us = v;
		else if (!strcmp(argv[i], "--sleep-us"))
			sleep_us = v;
		else
			break;
	}
	if (!nthreads || nthreads > 10000 || argc % 2 == 0) {
		fprintf(stderr, "usage: overload [--threads N] [--calls K] [--work-us W] "
				"[--sleep-us S]\n");
		return 2;
	}
	t = calloc(nthreads, sizeof(*t));
	if (!t)
		wl_die("calloc");
	wl_block_usr1();
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (unsigned i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], &attr, worker, NULL))
			wl_die("pthread_create");
	wl_announce_wait("READY");
	pthread_mutex_lock(&mtx);
	go = 1;
	pthread_cond_broadcast(&cv);
	while (done < (int)nthreads)
		pthread_cond_wait(&cv, &mtx);
	pthread_mutex_unlock(&mtx);
	printf("CALLS %llu\n", (unsigned long long)__atomic_load_n(&calls_made, __ATOMIC_RELAXED));
	fflush(stdout);
	wl_announce_wait("DONE");
	pthread_mutex_lock(&mtx);
	released = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mtx);
	for (unsigned i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
