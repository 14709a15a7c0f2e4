/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An app that marks its work as Android's Trace.beginSection / ATRACE_*
 * do: atrace lines written to tracefs's trace_marker (tests/root/test_marker).
 *
 *   markers [--bad] RUNS SLOW_EVERY BURN_US SLEEP_US
 *
 * Prints "READY <pid>" and waits for SIGUSR1, then runs RUNS frames:
 *
 *   C|pid|frame_items|SIZE           SIZE = 1000 x (1 + run % 4)
 *   B|pid|Choreographer#doFrame
 *     B|pid|measure   burns BURN_US of CPU                         E|pid
 *     B|pid|draw      burns BURN_US, 10x as much in every SLOW_EVERY-th run  E|pid
 *     B|pid|untraced  (no spec matches it: its E must pop it alone) E|pid
 *     S|pid|upload|run   the helper thread burns BURN_US, then writes F|pid|upload|run
 *     B|pid|sync      sleeps SLEEP_US                              E|pid
 *   E|pid
 *
 * Each section's own clocks go to stdout at the end, CLOCK_MONOTONIC and
 * CLOCK_THREAD_CPUTIME_ID read before the B write (out0), after it (in0),
 * before the E write (in1) and after it (out1): the tracer sees the B
 * between out0 and in0 and the E between in1 and out1, so its times lie
 * between in1 - in0 and out1 - out0.
 *
 *   SEC <name> <tid> <run> <out0> <in0> <in1> <out1> <cout0> <cin0> <cin1> <cout1>
 *   ASYNC upload <run> <s_out0> <s_in0> <f_in1> <f_out1>   (S by main, F by the helper)
 *   SIZE <run> <size>
 *
 * --bad first writes malformed lines (tests/root/test_marker counts them by
 * reason), each B among them followed by its E, so that the frames after
 * them nest as they should.
 */
#include "wl.h"
#include <pthread.h>
#include <stdarg.h>

#define MAX_RUNS 400

struct sec {
	const char *name;
	int tid, run;
	uint64_t t[4], c[4];
};

static int fd = -1, pid, to_helper[2], from_helper[2];
static struct sec secs[MAX_RUNS * 5];
static int nsecs;
static uint64_t async_t[MAX_RUNS][4];
static uint64_t burn_ns;

static void line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void line(const char *fmt, ...)
{
	/* one write per line: the kernel takes each write as one marker */
	int n;
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* it may fail (tracing off in the kernel): apps write all the same */
	ssize_t w = write(fd, buf, (size_t)n);

	(void)w;
}

static void now2(uint64_t *t, uint64_t *c)
{
	*t = wl_now_ns();
	*c = wl_cpu_ns();
}

static struct sec *begin(const char *name, int run)
{
	struct sec *s = &secs[nsecs++];

	s->name = name;
	s->tid = gettid();
	s->run = run;
	now2(&s->t[0], &s->c[0]);
	line("B|%d|%s", pid, name);
	now2(&s->t[1], &s->c[1]);
	return s;
}

static void end(struct sec *s)
{
	now2(&s->t[2], &s->c[2]);
	line("E|%d", pid);
	now2(&s->t[3], &s->c[3]);
}

static void *helper(void *arg)
{
	int run;

	(void)arg;
	while (wl_read_full(to_helper[0], &run, sizeof(run))) {
		wl_burn_cpu_ns(burn_ns);
		async_t[run][2] = wl_now_ns();
		line("F|%d|upload|%d", pid, run);
		async_t[run][3] = wl_now_ns();
		if (!wl_write_all(from_helper[1], &run, sizeof(run)))
			wl_die("pipe");
	}
	return NULL;
}

static void bad_lines(void)
{
	char longname[300];

	memset(longname, 'x', sizeof(longname));
	longname[sizeof(longname) - 1] = 0;
	line("hello");			/* no_bar */
	line("X|%d|foo", pid);		/* type */
	line("B|abc|x");		/* pid (a begin all the same) */
	line("E|%d", pid);		/* pops it */
	line("C|%d|frame_items|", pid); /* number */
	line("S|%d|upload", pid);	/* number */
	line("B|%d|", pid);		/* name */
	line("E|%d", pid);
	line("B|%d|%s", pid, longname); /* too_long */
	line("E|%d", pid);
	line("E|%d", pid);		 /* end_without_begin */
	line("F|%d|upload|999999", pid); /* finish_without_start */
}

int main(int argc, char **argv)
{
	int runs, slow_every, a = 1, bad = 0;
	uint64_t sleep_ns;
	pthread_t th;

	if (argc > 1 && !strcmp(argv[1], "--bad")) {
		bad = 1;
		a++;
	}
	if (argc - a != 4) {
		fprintf(stderr, "usage: markers [--bad] RUNS SLOW_EVERY BURN_US SLEEP_US\n");
		return 2;
	}
	runs = atoi(argv[a]);
	slow_every = atoi(argv[a + 1]);
	burn_ns = strtoull(argv[a + 2], NULL, 10) * 1000;
	sleep_ns = strtoull(argv[a + 3], NULL, 10) * 1000;
	if (runs < 1 || runs > MAX_RUNS || slow_every < 1)
		return 2;
	pid = getpid();
	/* as an app does: the top-level file, else the one under debugfs */
	fd = open("/sys/kernel/tracing/trace_marker", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/sys/kernel/debug/tracing/trace_marker", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		wl_die("open trace_marker (is tracefs mounted?)");
	if (pipe(to_helper) || pipe(from_helper))
		wl_die("pipe");
	wl_block_usr1();
	if (pthread_create(&th, NULL, helper, NULL))
		wl_die("pthread_create");
	wl_announce_wait("READY");
	if (bad)
		bad_lines();
	for (int r = 0; r < runs; r++) {
		struct sec *frame, *s;
		int back;

		line("C|%d|frame_items|%d", pid, 1000 * (1 + r % 4));
		frame = begin("Choreographer#doFrame", r);
		s = begin("measure", r);
		wl_burn_cpu_ns(burn_ns);
		end(s);
		s = begin("draw", r);
		wl_burn_cpu_ns(r % slow_every == slow_every - 1 ? 10 * burn_ns : burn_ns);
		end(s);
		s = begin("untraced", r);
		end(s);
		async_t[r][0] = wl_now_ns();
		line("S|%d|upload|%d", pid, r);
		async_t[r][1] = wl_now_ns();
		if (!wl_write_all(to_helper[1], &r, sizeof(r)))
			wl_die("pipe");
		s = begin("sync", r);
		wl_sleep_ns(sleep_ns);
		end(s);
		if (!wl_read_full(from_helper[0], &back, sizeof(back)))
			wl_die("pipe");
		end(frame);
	}
	close(to_helper[1]);
	pthread_join(th, NULL);
	for (int i = 0; i < nsecs; i++) {
		const struct sec *s = &secs[i];

		printf("SEC %s %d %d %llu %llu %llu %llu %llu %llu %llu %llu\n", s->name, s->tid,
		       s->run, (unsigned long long)s->t[0], (unsigned long long)s->t[1],
		       (unsigned long long)s->t[2], (unsigned long long)s->t[3],
		       (unsigned long long)s->c[0], (unsigned long long)s->c[1],
		       (unsigned long long)s->c[2], (unsigned long long)s->c[3]);
	}
	for (int r = 0; r < runs; r++) {
		printf("ASYNC upload %d %llu %llu %llu %llu\n", r,
		       (unsigned long long)async_t[r][0], (unsigned long long)async_t[r][1],
		       (unsigned long long)async_t[r][2], (unsigned long long)async_t[r][3]);
		printf("SIZE %d %d\n", r, 1000 * (1 + r % 4));
	}
	return 0;
}
