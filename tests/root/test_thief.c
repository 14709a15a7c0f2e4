/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who took the CPU (issue 36, acceptance 1), with real eBPF (root).
 * tests/workloads/thief.c runs requests on a pinned CPU, every third one
 * beside a CPU hog pinned there too: a child forked at start, a child
 * forked for the request that renames itself (fork + compute, as redis's
 * BGSAVE), or a helper thread of the server's own. For each mode:
 *   - the verdict's cpu_wait clause names the hog, as what it is (a child
 *     of the server, its own thread), and so does the JSON;
 *   - over every slow request, the time charged to the hog is no more than
 *     its own on-CPU time over the request (its schedstat, read before and
 *     after, while it could not run: same CPU), and most of the waits;
 *   - the waits the thief records hold (whose parts, the thieves, idle,
 *     interrupts, steal and what is not told, add up to each) lie between
 *     the server's run_delay growth read inside the call and read around
 *     it: the kernel's own figure, bounded from both sides.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "xlptest.h"
#include "json.h"

#define MAX_REQ 64

struct req {
	int noisy;
	unsigned tid, thief;
	unsigned long long start, end, delay_in, delay_out, thief_cpu;
	/* from the trace: the waits that ended in [start, end] */
	unsigned long long waits, parts, charged;
	unsigned long long untold; /* of the waits: named no one (unlogged, past the largest) */
};

static int parse(char *out, struct req *q, int max)
{
	char *save = NULL;
	int n = 0, i;

	for (char *l = strtok_r(out, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save))
		if (sscanf(l, "REQ %d %d %u %u %llu %llu %llu %llu %llu", &i, &q[n].noisy,
			   &q[n].tid, &q[n].thief, &q[n].start, &q[n].end, &q[n].delay_in,
			   &q[n].delay_out, &q[n].thief_cpu) == 9)
			n++;
	return n;
}

/* Sums the thief records of each request's thread over its span. */
static int read_thieves(const char *path, struct req *q, int n, unsigned long long *records,
			unsigned long long *missed)
{
	struct trace_reader *r = NULL;
	const struct xlp_hdr *h;
	char err[256];
	int ret;

	*records = 0;
	if (trace_reader__open(path, &r, err, sizeof(err)))
		return -1;
	while ((ret = trace_reader__next(r, &h)) > 0) {
		const struct xlp_thief_rec *w = (const void *)h;

		if (h->type != XLP_R_THIEF)
			continue;
		(*records)++;
		for (int i = 0; i < n; i++) {
			unsigned long long parts = w->idle_ns + w->irq_ns + w->steal_ns +
						   w->other_ns + w->unlogged_ns +
						   (w->wait_ns - w->here_ns);

			if (w->tid != q[i].tid || w->end_ns < q[i].start || w->end_ns > q[i].end)
				continue;
			for (uint32_t k = 0; k < xlp_thief_count(w); k++) {
				parts += w->thieves[k].ns;
				if (w->thieves[k].tid == q[i].thief)
					q[i].charged += w->thieves[k].ns;
			}
			q[i].waits += w->wait_ns;
			q[i].untold += w->unlogged_ns + w->other_ns;
			q[i].parts += parts;
		}
	}
	*missed = trace_reader__footer(r) ? trace_reader__footer(r)->stat[XLP_S_SCHED_MISSED] : 0;
	trace_reader__close(r);
	return ret;
}

/* The first non-null "cpu_thieves" of the report: the whole run's or a critical function's. */
static const struct json *answer_thieves(const struct json *rep)
{
	const struct json *fb = json__get(rep, "whole_run.cpu_thieves"),
			  *cr = json__key(rep, "critical_functions");

	if (fb && !json__is_null(fb))
		return fb;
	for (size_t i = 0; cr && i < json__len(cr); i++) {
		const struct json *t = json__key(json__at(cr, i), "cpu_thieves");

		if (t && !json__is_null(t))
			return t;
	}
	return NULL;
}

static void check_mode(const char *mode, const char *comm, const char *kind, const char *flag)
{
	static char out[65536];
	static struct req q[MAX_REQ];
	char xl[256], wl[256], err[4096], f_req[320], f_cmp[320], name[64];
	const char *trace;
	char *argv[] = {xt_out("xlprobe", xl, sizeof(xl)),
			"record",
			"-q",
			"-o",
			NULL,
			"-i",
			f_req,
			"-f",
			f_cmp,
			"--",
			xt_out("tests/workloads/thief", wl, sizeof(wl)),
			"--mode",
			(char *)mode,
			"--requests",
			"24",
			NULL};
	unsigned long long records = 0, waits = 0, parts = 0, in = 0, outd = 0, charged = 0,
			   cpu = 0, untold = 0, missed = 0;
	int n, rc, over = 0;
	struct json *rep;
	const struct json *th, *t0, *verdict;

	snprintf(name, sizeof(name), "thief-%s.xlp", mode);
	trace = xt_tmp_path(name);
	argv[4] = (char *)trace;
	snprintf(f_req, sizeof(f_req), "%s:request", wl);
	snprintf(f_cmp, sizeof(f_cmp), "%s:compute", wl);
	memset(q, 0, sizeof(q));
	rc = xt_run(argv, 120000, out, sizeof(out), err, sizeof(err));
	REQUIRE(rc == 0, "%s: xlprobe exit %d: %s", mode, rc, err);
	n = parse(out, q, MAX_REQ);
	REQUIRE(n == 24, "%s: workload reported %d requests", mode, n);
	REQUIRE(read_thieves(trace, q, n, &records, &missed) == 0, "%s: trace unreadable", mode);
	REQUIRE(records > 0, "%s: no thief record in the trace", mode);
	for (int i = 0; i < n; i++) {
		if (!q[i].noisy)
			continue;
		/* never more than the thief ran over the request */
		if (q[i].charged > q[i].thief_cpu)
			over++;
		waits += q[i].waits;
		parts += q[i].parts;
		in += q[i].delay_in;
		outd += q[i].delay_out;
		charged += q[i].charged;
		untold += q[i].untold;
		cpu += q[i].thief_cpu;
	}
	fprintf(stderr,
		"  %s: %llu records; slow requests: run_delay in %llu / out %llu ns, recorded "
		"waits "
		"%llu (parts %llu, untold %llu), charged to the thief %llu of its %llu ns\n",
		mode, records, in, outd, waits, parts, untold, charged, cpu);
	CHECK(over == 0, "%s: %d requests charged the thief more than it ran", mode, over);
	CHECK(parts == waits, "%s: the parts of the waits add up to %llu, not %llu", mode, parts,
	      waits);
	/*
	 * Switches the kernel did not deliver are repaired from its figures
	 * (sched_missed) without a thief record: then the waits may fall short
	 * of the inner bound, by a few such waits (a hundredth, at most, here)
	 */
	CHECK((missed ? 100 * waits >= 99 * in : waits >= in) && waits <= outd,
	      "%s: recorded waits %llu outside the kernel's run_delay [%llu, %llu] (%llu switches "
	      "missed)",
	      mode, waits, in, outd, missed);
	/*
	 * The server is runnable all along the request (CPU-bound), so the
	 * hog's every nanosecond on their CPU is one the server waited: all of
	 * it is charged, but what it ran in waits that ended outside the call
	 * (at most the run_delay between the readings around and inside it),
	 * and in the parts of waits the records name no one for.
	 */
	CHECK(charged + (outd - waits) + untold >= cpu,
	      "%s: the thief got %llu ns, it ran %llu ns; waits outside the call %llu ns, untold "
	      "%llu ns",
	      mode, charged, cpu, outd - waits, untold);

	rep = xt_report_json(xl, trace, 120000);
	REQUIRE(rep, "%s: no JSON report", mode);
	verdict = json__key(rep, "verdict");
	CHECK(verdict && json__str(verdict) && strstr(json__str(verdict), "cpu_wait") &&
		      strstr(json__str(verdict), "the CPU was taken by") &&
		      strstr(json__str(verdict), comm) && strstr(json__str(verdict), kind),
	      "%s: verdict does not name %s (%s): %s", mode, comm, kind,
	      verdict && json__str(verdict) ? json__str(verdict) : "(none)");
	/* the hog among the answer's thieves, as what it is (on a shared machine
	 * other tasks may take more of that CPU: not necessarily first) */
	th = json__key(answer_thieves(rep), "thieves");
	t0 = NULL;
	for (size_t i = 0; th && i < json__len(th) && !t0; i++)
		if (json__str_is(json__at(th, i), "comm", comm))
			t0 = json__at(th, i);
	CHECK(t0, "%s: %s is not among the answer's thieves in JSON", mode, comm);
	CHECK(t0 && json__bool(json__key(t0, flag)) == 1, "%s: %s not set in JSON", mode, flag);
	CHECK(t0 && json__num(json__key(t0, "share")) > 0 && json__num(json__key(t0, "ns")) > 0,
	      "%s: the thief has no share in JSON", mode);
	json__free(rep);
}

TEST(busy_child)
{
	check_mode("child", "thief-child", "a child of the server", "child");
}

TEST(fork_compute)
{
	check_mode("fork", "bgsave-child", "a child of the server", "child");
}

TEST(own_threads)
{
	check_mode("threads", "helper", "its own thread helper", "own_process");
}

TEST_MAIN()
