/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recorder under overload: far more busy threads than CPUs
 * (tests/workloads/overload.c, 1000 threads on this 2-CPU machine), each
 * calling the one interaction function, recorded into a small ring buffer
 * with the recorder at its ordinary priority (--realtime off) and at its
 * default one. Whatever was lost, it is counted to the record: the
 * records in the file and those lost add up to what the workload made,
 * which it counts itself; record says what to change and the report's
 * verdict starts with its caveat exactly when more than XLP_LOSS_CAVEAT
 * was lost. How much each setting lost is printed, not asserted.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testlib.h"
#include "xlptest.h"

#define THREADS "1000"
#define CALLS "30"

/* The share of the records lost, or -1 when the run could not be checked. */
static double overload_run(const char *realtime)
{
	char xl[256], wl[256], spec[300], line[256], err[8192];
	const char *trace = xt_tmp_path(realtime ? "ov_off.xlp" : "ov_default.xlp");
	char *wargv[] = {wl, "--threads", THREADS, "--calls", CALLS, NULL};
	char *xargv[20], pid[16];
	unsigned long long made = 0;
	uint64_t lost, sent, prog;
	struct xt_proc w, x;
	struct xt_trace t;
	int a = 0, wpid, rc, id;
	size_t calls = 0;
	double share;

	xt_out("tests/workloads/overload", wl, sizeof(wl));
	snprintf(spec, sizeof(spec), "%s:work", wl);
	wpid = xt_spawn_ready(wargv, &w, 20000);
	if (wpid <= 0) {
		CHECK(0, "the workload never said READY");
		return -1;
	}
	snprintf(pid, sizeof(pid), "%d", wpid);
	xargv[a++] = xt_out("xlprobe", xl, sizeof(xl));
	xargv[a++] = "record";
	xargv[a++] = "--no-sample";
	if (realtime) {
		xargv[a++] = "--realtime";
		xargv[a++] = (char *)realtime;
	}
	xargv[a++] = "--buffer-size";
	xargv[a++] = "64K";
	xargv[a++] = "-p";
	xargv[a++] = pid;
	xargv[a++] = "-i";
	xargv[a++] = spec;
	xargv[a++] = "-o";
	xargv[a++] = (char *)trace;
	xargv[a] = NULL;
	if (xt_record_start(xargv, &x, &w, 30000)) {
		CHECK(0, "xlprobe did not attach");
		return -1;
	}
	/* every thread done (and parked, alive) before the recording stops */
	while (!xt_read_line(w.out_fd, line, sizeof(line), 120000))
		if (sscanf(line, "CALLS %llu", &made) == 1)
			break;
	CHECK(made > 0, "the workload never said how many calls it made");
	xt_read_line(w.out_fd, line, sizeof(line), 10000); /* DONE */
	rc = xt_record_stop(&x, &w, err, sizeof(err));
	CHECK(rc == 0, "xlprobe exit %d: %s", rc, err);
	if (rc || !made || xt_trace_load(trace, &t))
		return -1;
	CHECK(t.status == TRACE_COMPLETE);
	id = xt_func_id(&t, "work");
	for (size_t i = 0; i < t.ncalls; i++)
		calls += t.calls[i].func_id == (uint32_t)id;
	lost = t.footer->stat[XLP_S_RB_FULL] + t.footer->lost_by_reader;
	/*
	 * No thread exits and nothing is sampled while recording: the ring
	 * buffer carried each call's record and its run's, and a thief record
	 * (who held the CPU, bpf/thief.bpf.h) per runqueue wait inside a call,
	 * in the same batches; the totals at stop do not go through it. So
	 * every call and run record the workload made is in the file or
	 * counted lost; the losses beyond those are thief records, whose
	 * number the workload cannot know (one per wait).
	 */
	CHECK(calls + t.nruns + lost >= 2 * made,
	      "%zu call and %zu run records in the file, %llu lost: %llu made (%llu calls): "
	      "some vanished uncounted",
	      calls, t.nruns, (unsigned long long)lost, 2 * made, made);
	CHECK(calls <= made && t.nruns <= made, "%zu calls, %zu runs in the file of %llu made",
	      calls, t.nruns, made);
	CHECK(t.footer->stat[XLP_S_CALLS] == made, "the programs counted %llu calls of %llu",
	      (unsigned long long)t.footer->stat[XLP_S_CALLS], made);
	prog = calls + t.nruns + t.nthreads + t.nprocs + t.nforks;
	sent = prog + lost;
	share = sent ? (double)lost / (double)sent : 0;
	/* record's advice, exactly when the report will call its sample partial */
	CHECK(!!strstr(err, "of the records were lost") == (share > XLP_LOSS_CAVEAT),
	      "lost %.2f %%, record said: %s", 100 * share, err);
	if (share > XLP_LOSS_CAVEAT)
		CHECK(strstr(err, "--buffer-size") && strstr(err, "--min-dur"), "advice: %s", err);
	{
		char *rargv[] = {xl, "report", (char *)trace, NULL};
		char *jargv[] = {xl, "report", "--json", (char *)trace, NULL};
		static const char want[] = "\nVerdict: on a partial, likely biased sample";
		static char rep[1 << 20];
		char rerr[2048];
		const char *v;

		rc = xt_run(rargv, 120000, rep, sizeof(rep), rerr, sizeof(rerr));
		CHECK(rc == 0, "report exit %d: %s", rc, rerr);
		v = strstr(rep, "\nVerdict: ");
		CHECK(v, "no verdict: %s", rep);
		if (v)
			CHECK(!strncmp(v, want, strlen(want)) == (share > XLP_LOSS_CAVEAT),
			      "lost %.2f %%: %.300s", 100 * share, v);
		rc = xt_run(jargv, 120000, rep, sizeof(rep), rerr, sizeof(rerr));
		CHECK(rc == 0, "report --json exit %d: %s", rc, rerr);
		CHECK(!!strstr(rep, "\"caveat\": \"on a partial") == (share > XLP_LOSS_CAVEAT) &&
			      !!strstr(rep, "\"caveat\": null") == !(share > XLP_LOSS_CAVEAT),
		      "lost %.2f %%: JSON caveat wrong", 100 * share);
	}
	printf("  --realtime %s: %llu calls, %llu of %llu records lost (%.1f %%)\n",
	       realtime ? realtime : "(default)", made, (unsigned long long)lost,
	       (unsigned long long)sent, 100 * share);
	xt_trace_free(&t);
	return share;
}

TEST(overload_losses_counted_and_said)
{
	double off = overload_run("off"), def = overload_run(NULL);

	/* the premise: an ordinary reader behind 1000 busy threads and a
	 * 64 KiB buffer falls behind, so the caveat was exercised */
	CHECK(off > XLP_LOSS_CAVEAT,
	      "--realtime off lost %.2f %%: the workload did not overload the recorder", 100 * off);
	CHECK(def >= 0);
}

TEST_MAIN()
