/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * More work or a slower CPU, on real eBPF (issue 36, acceptance 2, the
 * real half). tests/workloads/cpuwork.c runs 100 CPU-bound requests; in
 * one window of them (40..59) compute_batch also calls checksum_pass, a
 * code path called nowhere else that adds about 30 % to a request's CPU
 * time. Recorded with stack samples and compute_batch marked, the report
 * must
 *   - accuse the window's work with cpu_run through compute_batch (the
 *     critical function is compute_batch or the sampled checksum_pass
 *     under it), with evidence that holds and is not dismissed as "the
 *     CPU ran slower" (the bursts of CPU time the window makes are what
 *     that rule used to dismiss);
 *   - name the new frame: checksum_pass in the critical function's
 *     growth path (the frames whose samples grew), with samples in slow
 *     runs and none in fast ones, and in the verdict.
 * The other outcome (every function stretched in proportion: the machine)
 * cannot be made real here: without cpufreq nothing lowers the clock, and
 * a hog sharing the CPU makes the traced thread wait (cpu_wait), it does
 * not slow its instructions. It is tested on synthetic traces
 * (tests/unit/test_significance.c, cpu_slower) and in make bench section 8.
 * Root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "json.h"
#include "xlptest.h"

static char out[1 << 16], err[1 << 16];

/* The critical function whose chain or name holds compute_batch, or NULL. */
static const struct json *window_critical(const struct json *rep)
{
	const struct json *cr = json__key(rep, "critical_functions");

	for (size_t i = 0; cr && i < json__len(cr); i++) {
		const struct json *c = json__at(cr, i), *chain = json__key(c, "chain");

		if (json__str_is(c, "function", "compute_batch"))
			return c;
		for (size_t k = 0; chain && k < json__len(chain); k++)
			if (json__str_is(json__at(chain, k), "function", "compute_batch"))
				return c;
	}
	return NULL;
}

/* The node of checksum_pass on c's growth path, or NULL. */
static const struct json *new_frame(const struct json *c)
{
	const struct json *path = json__get(c, "growth.path");

	for (size_t i = 0; path && i < json__len(path); i++)
		if (json__str_is(json__at(path, i), "function", "checksum_pass"))
			return json__at(path, i);
	return NULL;
}

TEST(window_of_new_code_is_more_work)
{
	char xl[256], wl[256], inter[320], fb[320], fs[320];
	const char *trace = xt_tmp_path("cpuwork.xlp");
	char *argv[] = {xt_out("xlprobe", xl, sizeof(xl)), "record", "-q", "-o", (char *)trace,
			"--sample",
			/* the runs are the requests, not the sleep before them */
			"--no-prewake", "-i", inter, "-f", fb, "-f", fs, "--",
			xt_out("tests/workloads/cpuwork", wl, sizeof(wl)), "--rt",
			/*
			 * requests of ~6 ms: at the sampler's 1 ms floor the window's
			 * new frame gets ~2 samples a request, not ~0.5 (a clean
			 * clone's run at ~2 ms: the growth path stopped at
			 * compute_batch, checksum_pass's few samples lost in its noise)
			 */
			"--units", "120", NULL};
	const struct json *c, *ev, *node, *verdict;
	struct json *rep;
	double extra = 0, base = 0;
	int rc, n = 0, nx = 0;

	snprintf(inter, sizeof(inter), "%s:handle_request", wl);
	snprintf(fb, sizeof(fb), "%s:compute_batch", wl);
	snprintf(fs, sizeof(fs), "%s:finish_step", wl);
	rc = xt_run(argv, 120000, out, sizeof(out), err, sizeof(err));
	REQUIRE(rc == 0, "xlprobe exit %d: %s", rc, err);
	/* the window's requests took more CPU by the workload's own clock */
	for (char *p = strstr(out, "REQ "); p; p = strstr(p + 1, "REQ ")) {
		int i, x;
		unsigned long long ns, cpu;

		if (sscanf(p, "REQ %d %d %llu %llu", &i, &x, &ns, &cpu) != 4)
			continue;
		n++;
		nx += x;
		*(x ? &extra : &base) += (double)cpu;
	}
	REQUIRE(n == 100 && nx == 20, "workload reported %d requests, %d in the window", n, nx);
	fprintf(stderr, "  window: %.0f %% more CPU per request by the workload's clock\n",
		100 * (extra / nx / (base / (n - nx)) - 1));

	rep = xt_report_json(xl, trace, 120000);
	REQUIRE(rep, "no JSON report");
	verdict = json__key(rep, "verdict");
	fprintf(stderr, "  verdict: %s\n", json__str(verdict) ?: "(none)");
	c = window_critical(rep);
	REQUIRE(c, "no critical function through compute_batch: %s", json__str(verdict) ?: "");
	ev = json__key(c, "evidence");
	CHECK(json__bool(json__key(ev, "significant")) == 1, "%s not accused",
	      json__str(json__key(c, "function")));
	CHECK(json__str_is(c, "factors[0].factor", "cpu_run"), "factor %s, not cpu_run",
	      json__str(json__get(c, "factors[0].factor")) ?: "(none)");
	/* not the CPU's slowness: by the rule that told them apart */
	CHECK(json__bool(json__get(ev, "work.dismissed")) == 0 &&
		      json__bool(json__get(ev, "bursts.cpu_slower")) == 0 &&
		      json__bool(json__get(ev, "mode.cpu_slower")) == 0,
	      "dismissed as a slower CPU");
	CHECK(json__bool(json__get(ev, "work.more_work")) == 1, "work.more_work false");
	/* the new frame: on the path of what grew, absent from the fast runs */
	node = new_frame(c);
	REQUIRE(node, "checksum_pass not on the growth path");
	CHECK(json__num(json__key(node, "slow_samples")) > 0 &&
		      json__num(json__key(node, "fast_samples")) == 0,
	      "checksum_pass: %.0f slow samples, %.0f fast",
	      json__num(json__key(node, "slow_samples")),
	      json__num(json__key(node, "fast_samples")));
	CHECK(json__str(verdict) && strstr(json__str(verdict), "checksum_pass") &&
		      strstr(json__str(verdict), "compute_batch") &&
		      strstr(json__str(verdict), "cpu_run"),
	      "verdict does not name checksum_pass, compute_batch and cpu_run");
	json__free(rep);
}

TEST_MAIN()
