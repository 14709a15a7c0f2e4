/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record -p keeps off the CPUs of the thread that runs the interaction
 * when it is pinned (user/record/cpu_avoid.h): a nice -20 reader that unwinds
 * samples on the measured thread's CPU makes it wait for that CPU, and
 * the recording then shows a cpu_wait the thread would not have had (the
 * e2e app's worker, pinned to CPU 1: sampled runs accused of cpu_wait).
 * Real eBPF (root). Workload: tests/workloads/prewake.c, whose server
 * thread (the interaction, handle_request) is pinned to CPU 0 and its
 * client thread to CPU 1.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "testlib.h"
#include "xlptest.h"

/* "0-1,3" of a mask, for the messages */
static const char *mask_str(const cpu_set_t *m, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int c = 0; c < CPU_SETSIZE && used + 8 < len; c++)
		if (CPU_ISSET(c, m))
			used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "",
						 c);
	return buf;
}

TEST(recorder_keeps_off_the_pinned_interaction_thread_cpu)
{
	char xl[256], wl[256], spec[300], line[256], got_s[64], want_s[64];
	const char *trace = xt_tmp_path("avoid.xlp");
	char *wargv[] = {xt_out("tests/workloads/prewake", wl, sizeof(wl)), "--wait-signal",
			 "--requests", "400", NULL};
	char *xargv[12];
	struct xt_proc w, x;
	cpu_set_t online, want, got;
	bool seen = false, done = false;
	int pid, a = 0, polls = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char pid_s[16];

	REQUIRE(!sched_getaffinity(0, sizeof(online), &online));
	/* the server thread runs on CPU 0: the recorder on the others, if any */
	want = online;
	if (CPU_COUNT(&online) > 1)
		CPU_CLR(0, &want);
	pid = xt_spawn_ready(wargv, &w, 20000);
	REQUIRE(pid > 0, "prewake did not start");
	snprintf(pid_s, sizeof(pid_s), "%d", pid);
	snprintf(spec, sizeof(spec), "%s:handle_request", wl);
	xargv[a++] = xt_out("xlprobe", xl, sizeof(xl));
	xargv[a++] = "record";
	xargv[a++] = "-p";
	xargv[a++] = pid_s;
	xargv[a++] = "-i";
	xargv[a++] = spec;
	xargv[a++] = "-o";
	xargv[a++] = (char *)trace;
	xargv[a] = NULL;
	REQUIRE(!xt_record_start(xargv, &x, &w, 30000), "xlprobe did not attach");
	/* until the workload says DONE: the recorder's CPUs, every 100 ms */
	while (!done) {
		int rc = xt_read_line(w.out_fd, line, sizeof(line), 100);

		done = !rc && !strncmp(line, "DONE", 4);
		if (rc && ++polls > 600)
			break;
		if (!sched_getaffinity(x.pid, sizeof(got), &got) && CPU_EQUAL(&got, &want))
			seen = true;
	}
	CHECK(done, "the workload did not finish");
	/* after the interaction's first runs, within the recorder's 1 s check */
	CHECK(seen, "the recorder ran on CPUs %s, never on %s only (%ld CPUs)",
	      mask_str(&got, got_s, sizeof(got_s)), mask_str(&want, want_s, sizeof(want_s)), ncpu);
	printf("  recorder on CPUs %s while the interaction thread ran on CPU 0\n",
	       mask_str(&want, want_s, sizeof(want_s)));
	kill(w.pid, SIGUSR1);
	CHECK(xt_wait(&w, 20000, NULL, 0, NULL, 0) == 0, "prewake exit");
	CHECK(xt_wait(&x, 30000, NULL, 0, NULL, 0) == 0, "xlprobe exit");
}

TEST_MAIN()
