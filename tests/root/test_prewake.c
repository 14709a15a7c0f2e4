/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A run starts when its thread was woken for it (record's prewake,
 * bpf/prewake.bpf.h), against the kernel's own count of the same wait:
 * tests/workloads/prewake.c is an event loop woken by a pipe, with a
 * busy loop on its CPU, and reports for each request how much its
 * schedstat run_delay grew between blocking and the handler's entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "xlptest.h"

#define NREQ 100

struct wl_run {
	unsigned long long entry, wait;
	int slept;
};

/* The RUN lines of the workload's output, in order; how many. */
static int parse_runs(char *out, struct wl_run *r, int max)
{
	int n = 0;

	for (char *line = strtok(out, "\n"); line && n < max; line = strtok(NULL, "\n"))
		if (sscanf(line, "RUN %llu %llu %d", &r[n].entry, &r[n].wait, &r[n].slept) == 3)
			n++;
	return n;
}

/*
 * Records NREQ requests of the workload (with --no-prewake when off) and
 * compares each run's queued wait with the kernel's figure for it.
 */
static void prewake_run(bool off)
{
	char xl[256], wl[256], spec[300], out[64 * 1024], err[4096];
	const char *trace = xt_tmp_path(off ? "off.xlp" : "on.xlp");
	char nreq[16];
	char *argv[16];
	int a = 0, n, rc, id, slept = 0, queued_runs = 0, waited = 0;
	unsigned long long sum_q = 0, sum_k = 0;
	struct wl_run runs[NREQ];
	struct xt_trace t;
	size_t k = 0;

	xt_out("tests/workloads/prewake", wl, sizeof(wl));
	snprintf(spec, sizeof(spec), "%s:handle_request", wl);
	snprintf(nreq, sizeof(nreq), "%d", NREQ);
	argv[a++] = xt_out("xlprobe", xl, sizeof(xl));
	argv[a++] = "record";
	argv[a++] = "-q";
	argv[a++] = "--no-sample";
	if (off)
		argv[a++] = "--no-prewake";
	argv[a++] = "-o";
	argv[a++] = (char *)trace;
	argv[a++] = "-i";
	argv[a++] = spec;
	argv[a++] = "--";
	argv[a++] = wl;
	argv[a++] = "--requests";
	argv[a++] = nreq;
	argv[a] = NULL;
	rc = xt_run(argv, 120000, out, sizeof(out), err, sizeof(err));
	REQUIRE(rc == 0, "xlprobe exit %d: %s", rc, err);
	n = parse_runs(out, runs, NREQ);
	REQUIRE(n == NREQ, "the workload reported %d of %d requests", n, NREQ);
	REQUIRE(!xt_trace_load(trace, &t));
	CHECK(t.status == TRACE_COMPLETE);
	CHECK(!!(t.meta->features & XLP_FEAT_PREWAKE) == !off, "features 0x%x", t.meta->features);
	id = xt_func_id(&t, "handle_request");
	REQUIRE(id >= 0);
	/* one thread calls it: its records come in the order of the requests */
	for (size_t i = 0; i < t.ncalls; i++) {
		const struct xlp_call_rec *c = &t.calls[i];
		unsigned long long q = c->incl[XLP_C_QUEUED];

		if (c->func_id != (uint32_t)id)
			continue;
		if (k >= (size_t)n) {
			k++;
			continue;
		}
		/* the wait is part of the run: its latency and its cpu_wait */
		CHECK(c->incl[XLP_C_WALL] >= q && c->incl[XLP_C_CPU_WAIT] >= q,
		      "run %zu: queued %llu outside wall %llu / cpu_wait %llu", k, q,
		      (unsigned long long)c->incl[XLP_C_WALL],
		      (unsigned long long)c->incl[XLP_C_CPU_WAIT]);
		/* the handler's own entry, before the workload read its clock */
		CHECK(c->entry_ns + q <= runs[k].entry, "run %zu: entry %llu + %llu after %llu", k,
		      (unsigned long long)c->entry_ns, q, runs[k].entry);
		if (off)
			CHECK(!q, "run %zu: queued %llu with --no-prewake", k, q);
		if (runs[k].slept) {
			slept++;
			sum_q += q;
			sum_k += runs[k].wait;
			waited += runs[k].wait > 0;
			queued_runs += q > 0;
		}
		k++;
	}
	CHECK(k == (size_t)n, "%zu handle_request records for %d requests", k, n);
	/* the workload did what the test needs: requests that waited */
	CHECK(slept >= n / 2, "only %d of %d requests found the server asleep", slept, n);
	CHECK(waited >= slept / 2, "only %d of %d woken requests waited for the CPU", waited,
	      slept);
	if (!off) {
		/*
		 * The kernel's span (from just before the read to inside the
		 * handler) holds the prewake's (wakeup to entry) and adds
		 * preemptions around it: never less, a little more.
		 */
		CHECK(sum_q <= sum_k + sum_k / 1000 && sum_q >= sum_k * 8 / 10,
		      "queued %llu ns over the woken runs, the kernel counts %llu ns", sum_q,
		      sum_k);
		CHECK(queued_runs >= waited * 8 / 10, "%d runs queued, %d waited", queued_runs,
		      waited);
	}
	printf("  %s: %d woken runs, queued %.1f ms, kernel %.1f ms (ratio %.3f)\n",
	       off ? "--no-prewake" : "prewake", slept, sum_q / 1e6, sum_k / 1e6,
	       sum_k ? (double)sum_q / sum_k : 0.0);
	/* the run records carry it too (the whole-run baseline) */
	for (size_t i = 0; i < t.nruns; i++) {
		const struct xlp_run_rec *r = &t.runs[i];

		CHECK(r->proc[XLP_C_WALL] >= r->proc[XLP_C_QUEUED] &&
			      r->proc[XLP_C_CPU_WAIT] >= r->proc[XLP_C_QUEUED],
		      "run record %zu: queued %llu", i, (unsigned long long)r->proc[XLP_C_QUEUED]);
		if (off)
			CHECK(!r->proc[XLP_C_QUEUED]);
	}
	CHECK(t.nruns == (size_t)n, "%zu run records", t.nruns);
	xt_trace_free(&t);
}

TEST(prewake_queued_wait_matches_schedstat)
{
	prewake_run(false);
}

TEST(no_prewake_leaves_runs_at_the_handler)
{
	prewake_run(true);
}

TEST_MAIN()
