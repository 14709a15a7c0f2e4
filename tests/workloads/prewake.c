// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * prewake: an event loop woken for each request, with a busy loop on its
 * CPU, for the prewake rule (tests/root/test_prewake.c).
 *
 *   prewake [--requests N] [--wait-signal] [--no-hog]
 *
 * The server thread (CPU 0, nice 19) blocks in read() on a pipe; the
 * client thread (CPU 1 when there is one) writes a byte, the server wakes,
 * calls handle_request() (the interaction: a little work) and answers on
 * a second pipe; the client waits for the answer, sleeps 2 ms and sends
 * the next request. A hog thread spins on CPU 0 at nice 0, so that the
 * woken server waits in the runqueue before its handler begins. For each
 * request the server prints
 *   RUN <entry_ns> <kernel_wait_ns> <slept>
 * in order, after the last one. entry_ns: CLOCK_MONOTONIC in handle_request,
 * after it read its run_delay; kernel_wait_ns: the
 * growth of its schedstat run_delay from just before it blocked in read()
 * to handle_request's first instruction; slept: 1 if the read slept
 * (its voluntary switches grew), 0 if the byte was there already.
 * --wait-signal prints READY <pid> and waits for SIGUSR1 before the
 * first request, then DONE <pid> and waits again before exiting.
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#define MAX_REQ 10000

static int req_pipe[2], ans_pipe[2];
static volatile int hog_stop;
static volatile uint64_t sink;
static unsigned nreq = 200;

struct run {
	uint64_t entry_ns, wait_ns;
	int slept;
};

static struct run runs[MAX_REQ];
static uint64_t delay_before;

MARKED void handle_request(unsigned i)
{
	runs[i].wait_ns = wl_schedstat(0).delay_ns - delay_before;
	runs[i].entry_ns = wl_now_ns();
	wl_burn_cpu_ns(100000);
}

static long nvcsw(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

static void *server(void *arg)
{
	char c = 0;

	wl_pin_self(0);
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	for (unsigned i = 0; i < nreq; i++) {
		long before;

		delay_before = wl_schedstat(0).delay_ns;
		before = nvcsw();
		if (!wl_read_full(req_pipe[0], &c, 1))
			wl_die("read request");
		runs[i].slept = nvcsw() > before;
		handle_request(i);
		if (!wl_write_all(ans_pipe[1], &c, 1))
			wl_die("write answer");
	}
	return NULL;
}

static void *client(void *arg)
{
	char c = 'x';

	wl_pin_self(sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0);
	for (unsigned i = 0; i < nreq; i++) {
		/* time for the server to block in read() */
		wl_sleep_ns(2 * NS_PER_MS);
		if (!wl_write_all(req_pipe[1], &c, 1) || !wl_read_full(ans_pipe[0], &c, 1))
			wl_die("client");
	}
	return NULL;
}

static void *hog(void *arg)
{
	wl_pin_self(0);
	while (!hog_stop)
		for (int i = 0; i < 10000; i++)
			sink += i;
	return NULL;
}

int main(int argc, char **argv)
{
	bool wait_signal = false, use_hog = true;
	pthread_t ts, tc, th;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--requests") && i + 1 < argc)
			nreq = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--wait-signal"))
			wait_signal = true;
		else if (!strcmp(argv[i], "--no-hog"))
			use_hog = false;
		else {
			fprintf(stderr,
				"usage: prewake [--requests N] [--wait-signal] [--no-hog]\n");
			return 2;
		}
	}
	if (!nreq || nreq > MAX_REQ) {
		fprintf(stderr, "prewake: --requests from 1 to %d\n", MAX_REQ);
		return 2;
	}
	if (pipe(req_pipe) || pipe(ans_pipe))
		wl_die("pipe");
	wl_block_usr1();
	if (wait_signal)
		wl_announce_wait("READY");
	if (use_hog && pthread_create(&th, NULL, hog, NULL))
		wl_die("pthread_create");
	if (pthread_create(&ts, NULL, server, NULL) || pthread_create(&tc, NULL, client, NULL))
		wl_die("pthread_create");
	pthread_join(tc, NULL);
	pthread_join(ts, NULL);
	hog_stop = 1;
	if (use_hog)
		pthread_join(th, NULL);
	for (unsigned i = 0; i < nreq; i++)
		printf("RUN %llu %llu %d\n", (unsigned long long)runs[i].entry_ns,
		       (unsigned long long)runs[i].wait_ns, runs[i].slept);
	fflush(stdout);
	if (wait_signal)
		wl_announce_wait("DONE");
	return 0;
}
