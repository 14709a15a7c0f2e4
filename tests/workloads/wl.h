/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every test workload needs (tests/workloads/, tests/e2e/workloads/):
 * clocks, sleeps and busy loops, pinning, the READY / SIGUSR1 handshake
 * with a test or a tracer, whole reads and writes, a fatal error.
 *
 * Header-only: the Makefile builds each workload from its one .c file, and
 * timed.c static with its own entry point, so there is no object to link
 * in. static inline, so a workload pays for what it uses. None of these is
 * MARKED: tracers mark the workloads' own functions, and these run inside
 * them. Include it first (it needs _GNU_SOURCE for the CPU sets).
 */
#ifndef XLP_WL_H
#define XLP_WL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Functions a tracer marks: real symbols, never inlined, cloned or elided. */
#define MARKED __attribute__((noinline, noipa, used))

#define NS_PER_MS 1000000ULL
#define NS_PER_S 1000000000ULL

/* "<program>: <what>: <errno's message>" on stderr, exit 1. */
__attribute__((noreturn)) static inline void wl_die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, strerror(errno));
	exit(1);
}

static inline uint64_t wl_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC, the clock of every xlprobe timestamp. */
static inline uint64_t wl_now_ns(void)
{
	return wl_clock_ns(CLOCK_MONOTONIC);
}

/* The calling thread's CPU time. */
static inline uint64_t wl_cpu_ns(void)
{
	return wl_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Sleeps ns, all of it even when a signal interrupts the sleep. */
static inline void wl_sleep_ns(uint64_t ns)
{
	uint64_t end = wl_now_ns() + ns;
	struct timespec ts = {.tv_sec = (time_t)(end / NS_PER_S),
			      .tv_nsec = (long)(end % NS_PER_S)};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * Burns ns of the calling thread's CPU time: the same work however long
 * the thread waits for a CPU meanwhile.
 */
static inline void wl_burn_cpu_ns(uint64_t ns)
{
	volatile uint64_t sink = 0;
	uint64_t start = wl_cpu_ns();

	while (wl_cpu_ns() - start < ns)
		for (int i = 0; i < 1000; i++)
			sink += i;
}

/* Pins the calling thread to cpu (< 0: leaves it where it is); 0 or -errno. */
static inline int wl_pin_self(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/*
 * Blocks SIGUSR1 in the calling thread and in the threads it creates from
 * then on, so that only wl_announce_wait()'s sigwait() takes it: call it
 * before the first pthread_create().
 */
static inline void wl_block_usr1(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/*
 * Prints "<word> <pid>" (READY: a test or tracer may attach now; DONE: it
 * may look at the finished process) and waits for SIGUSR1.
 */
static inline void wl_announce_wait(const char *word)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	printf("%s %d\n", word, getpid());
	fflush(stdout);
	sigwait(&set, &sig);
}

/* Reads exactly len bytes; false on EOF (errno EPIPE) or an error. */
static inline bool wl_read_full(int fd, void *buf, size_t len)
{
	char *p = (char *)buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = EPIPE;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* Writes all of buf, resuming after signals and short writes; false on an error. */
static inline bool wl_write_all(int fd, const void *buf, size_t len)
{
	const char *p = (const char *)buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/*
 * A file of size bytes (a multiple of 64 KiB) from the template path (its
 * XXXXXX replaced), holding data the disk must really store (no hole, no
 * zero page), written and synced: its fd, open for reading and writing.
 */
static inline int wl_make_file(char *path, size_t size)
{
	static char buf[1 << 16];
	int fd = mkstemp(path);

	if (fd < 0)
		wl_die("mkstemp");
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 131 + 7);
	for (size_t i = 0; i < size / sizeof(buf); i++)
		if (!wl_write_all(fd, buf, sizeof(buf)))
			wl_die("write");
	if (fsync(fd))
		wl_die("fsync");
	return fd;
}

/*
 * The kernel's own account of thread tid (0: the caller) so far, from
 * /proc/<tid>/schedstat: ns on a CPU (sum_exec_runtime: the steal clock
 * left out where the hypervisor offers one) and ns runnable on a runqueue
 * (run_delay). The ground truth the tests hold xlprobe's answers to.
 */
struct wl_sched {
	uint64_t cpu_ns, delay_ns;
};

static inline struct wl_sched wl_schedstat(pid_t tid)
{
	unsigned long long cpu = 0, delay = 0;
	char path[64], buf[128];
	ssize_t n;
	int fd;

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)tid);
	else
		snprintf(path, sizeof(path), "/proc/thread-self/schedstat");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		wl_die(path);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		wl_die("read schedstat");
	buf[n] = 0;
	if (sscanf(buf, "%llu %llu", &cpu, &delay) != 2)
		wl_die("parse schedstat");
	return (struct wl_sched){.cpu_ns = cpu, .delay_ns = delay};
}

#endif
