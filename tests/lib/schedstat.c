/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "schedstat.h"
#include "testlib.h"
#include "xlptest.h"

struct kstat {
	unsigned tid;
	char comm[16];
	unsigned long long run, wait, nvcsw, nivcsw;
};

/* The kernel's counts of pid's threads, up to max; how many. */
static int read_kstat(int pid, struct kstat *k, int max)
{
	char path[128], line[256];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		memset(&k[n], 0, sizeof(k[n]));
		k[n].tid = (unsigned)atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/%d/task/%u/schedstat", pid, k[n].tid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu %llu", &k[n].run, &k[n].wait) != 2) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%d/task/%u/status", pid, k[n].tid);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			sscanf(line, "Name: %15s", k[n].comm);
			sscanf(line, "voluntary_ctxt_switches: %llu", &k[n].nvcsw);
			sscanf(line, "nonvoluntary_ctxt_switches: %llu", &k[n].nivcsw);
		}
		if (f)
			fclose(f);
		n++;
	}
	closedir(d);
	return n;
}

/* Within 2 %, or 1 ms for small values (the tolerance). */
static int close_enough(unsigned long long ours, unsigned long long kernel)
{
	unsigned long long diff = ours > kernel ? ours - kernel : kernel - ours;

	return diff <= 1000000ull || diff <= kernel / 50;
}

static double ms(unsigned long long ns)
{
	return (double)ns / 1e6;
}

/*
 * One thread's totals against the kernel's. before: the kernel's on-CPU
 * time of the thread when the workload's main() began. The kernel counts
 * the launched thread from the recorder's fork; the recording from its
 * release (the launcher's code in between is not the command's, and the
 * thread is registered while it waits). The x86 guest's main thread came
 * 2-6 ms short of the kernel in 3 of 10 checks (14-82 ms before main(), exec
 * and the dynamic loader included, here): the recording may miss up to
 * that much, never more. A bound, not the exact pre-release time, which
 * nothing outside the launcher measures.
 */
static void check_thread(const struct xlp_thread_rec *r, const struct kstat *k,
			 unsigned long long before, bool show)
{
	unsigned long long run = r->tot[XLP_C_CPU_RUN];

	if (show)
		fprintf(stderr,
			"  %-10s run %8.2f ms (kernel %8.2f, %.2f before main)  wait %8.2f ms "
			"(kernel %8.2f)  steal %.2f ms\n",
			k->comm, ms(run), ms(k->run), ms(before), ms(r->tot[XLP_C_CPU_WAIT]),
			ms(k->wait), ms(r->tot[XLP_C_CPU_STEAL]));
	if (before && run < k->run && k->run - run <= before)
		run = k->run; /* what it missed ran before main() */
	CHECK(close_enough(run, k->run), "%s: on-CPU %llu ns, kernel %llu ns (%llu before main)",
	      k->comm, (unsigned long long)r->tot[XLP_C_CPU_RUN], k->run, before);
	CHECK(close_enough(r->tot[XLP_C_CPU_WAIT], k->wait), "%s: runqueue %llu ns, kernel %llu ns",
	      k->comm, (unsigned long long)r->tot[XLP_C_CPU_WAIT], k->wait);
	CHECK(r->tot[XLP_C_NVCSW] == k->nvcsw, "%s: voluntary %llu, kernel %llu", k->comm,
	      (unsigned long long)r->tot[XLP_C_NVCSW], k->nvcsw);
	CHECK(r->tot[XLP_C_NIVCSW] == k->nivcsw, "%s: involuntary %llu, kernel %llu", k->comm,
	      (unsigned long long)r->tot[XLP_C_NIVCSW], k->nivcsw);
	/* the workload exercised what it claims: the test would be empty otherwise
	 * (with the hog on its CPU it waits about as long as it runs) */
	if (!strcmp(k->comm, "preempted"))
		CHECK(k->wait * 4 >= k->run && k->nivcsw > 10,
		      "preempted thread waited only %llu ns, ran %llu ns", k->wait, k->run);
	if (!strcmp(k->comm, "pipe_rd"))
		CHECK(k->nvcsw > 100, "pipe reader blocked only %llu times", k->nvcsw);
	/* sleep reasons add up to the sleep states (bpf/xlprobe.h invariant) */
	CHECK(r->tot[XLP_C_SLEEP_S] + r->tot[XLP_C_SLEEP_D] ==
		      r->tot[XLP_C_DISK] + r->tot[XLP_C_NET] + r->tot[XLP_C_IPC] +
			      r->tot[XLP_C_LOCK] + r->tot[XLP_C_TIMER] + r->tot[XLP_C_OTHER],
	      "%s: sleep reasons do not add up", k->comm);
}

static void agreement(const struct xt_schedstat_run *o, const char *bin, bool old_switch)
{
	char xl[256], wl[256], err[4096], line[256];
	unsigned long long before = 0;
	const char *trace = xt_tmp_path(old_switch ? "sched_old.xlp" : "sched.xlp");
	char *argv[] = {
		xt_out(bin, xl, sizeof(xl)),	     "record",	  "-q", "-o", (char *)trace, "--",
		xt_out(o->workload, wl, sizeof(wl)), "--seconds", "2",	NULL};
	struct kstat k[32];
	struct xt_proc p;
	struct xt_trace t;
	int pid, n, rc, checked = 0;

	pid = -1;
	if (!xt_spawn(argv, &p))
		while (!xt_read_line(p.out_fd, line, sizeof(line), o->ready_ms))
			if (sscanf(line, "READY %d %llu", &pid, &before) == 2 && pid > 0)
				break;
	REQUIRE(pid > 0, "sched_mix never said READY");
	/* main blocks in sigwait() just after printing READY: let it get there,
	 * so its switch counts are final before we read them */
	usleep(o->settle_us);
	n = read_kstat(pid, k, 32);
	kill(p.pid, SIGINT);
	rc = xt_wait(&p, o->exit_ms, NULL, 0, err, sizeof(err));
	CHECK(rc == 0, "xlprobe exit %d: %s", rc, err);
	REQUIRE(!xt_trace_load(trace, &t));
	CHECK(t.status == TRACE_COMPLETE);
	if (o->show && t.footer)
		fprintf(stderr,
			"  scheduler events %llu, missed (recovered) %llu, unknown state %llu\n",
			(unsigned long long)t.footer->stat[XLP_S_SCHED_EVENTS],
			(unsigned long long)t.footer->stat[XLP_S_SCHED_MISSED],
			(unsigned long long)t.footer->stat[XLP_S_UNKNOWN_STATE]);
	CHECK(n >= 7, "expected main + 6 workers, saw %d threads", n);
	for (int i = 0; i < n; i++) {
		const struct xlp_thread_rec *r = xt_thread(&t, k[i].tid);

		CHECK(r, "no totals for thread %u (%s)", k[i].tid, k[i].comm);
		if (!r)
			continue;
		checked++;
		/* only the main thread existed before main() */
		check_thread(r, &k[i], (int)k[i].tid == pid ? before : 0, o->show);
	}
	CHECK(checked == n);
	/* the path taken is the one asked for, and the trace says so */
	CHECK(!!strstr(t.meta->notes ? t.meta->notes : "", "no prev_state") == old_switch,
	      "notes: %s", t.meta->notes ? t.meta->notes : "(none)");
	xt_trace_free(&t);
	kill(pid, SIGKILL);
}

void xt_schedstat_agreement(const struct xt_schedstat_run *o, bool old_switch)
{
	if (old_switch)
		setenv("XLPROBE_TEST_OLD_SWITCH", "1", 1);
	agreement(o, old_switch ? "xlprobe-test" : "xlprobe", old_switch);
	unsetenv("XLPROBE_TEST_OLD_SWITCH");
}
