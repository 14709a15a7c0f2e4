/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Why a function's time grew, on real eBPF (issue 21): the faults
 * workload (tests/workloads/faults.c) runs handle -> touch 80 times; before
 * every 4th run the buffer's pages are given back, so touch takes a minor
 * fault on each of its pages there, with the same call count and the same
 * work. Recorded with touch marked and stack sampling beside it, the
 * report must name touch, its added time as longer calls (not more of
 * them), and the fault path as what grew in its on-CPU samples. Root.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "json.h"
#include "xlptest.h"

static char xl[256], wl[256], out[1 << 16], err[1 << 16];

static const struct json *critical(const struct json *j, const char *name)
{
	const struct json *a = json__get(j, "critical_functions");

	for (size_t i = 0; i < json__len(a); i++) {
		const char *f = json__str(json__get(json__at(a, i), "function"));

		if (f && !strcmp(f, name))
			return json__at(a, i);
	}
	return NULL;
}

/* Whether a frame of the growth path is one of the kernel's fault path. */
static bool fault_frame(const char *f)
{
	static const char *const names[] = {"asm_exc_page_fault", "exc_page_fault",
					    "do_user_addr_fault", "handle_mm_fault"};

	for (size_t i = 0; f && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(f, names[i]))
			return true;
	return false;
}

TEST(page_faults_named_as_what_grew)
{
	const char *trace = xt_tmp_path("faults.xlp"), *js = xt_tmp_path("faults.json");
	char inter[300], func[300];
	char *rec[] = {
		xl,	  "record", "-q", "-o", (char *)trace, "--sample", "--interaction", inter,
		"--func", func,	    "--", wl,	NULL};
	char *rep[] = {xl, "report", "--json", "-o", (char *)js, (char *)trace, NULL};
	const struct json *t, *path, *calls;
	struct json *j;
	char jerr[256];
	const char *v;
	size_t faults = 0;
	int rc;

	xt_out("xlprobe", xl, sizeof(xl));
	xt_out("tests/workloads/faults", wl, sizeof(wl));
	snprintf(inter, sizeof(inter), "%s:handle", wl);
	snprintf(func, sizeof(func), "%s:touch", wl);
	rc = xt_run(rec, 120000, out, sizeof(out), err, sizeof(err));
	REQUIRE(rc == 0, "record exit %d: %s", rc, err);
	CHECK(strstr(out, "DONE 20"), "the workload faulted 20 runs: %s", out);
	rc = xt_run(rep, 60000, out, sizeof(out), err, sizeof(err));
	REQUIRE(rc == 0, "report exit %d: %s", rc, err);
	j = json__load(js, jerr, sizeof(jerr));
	REQUIRE(j, "report JSON: %s", jerr);
	v = json__str(json__get(j, "verdict"));
	fprintf(stderr, "  verdict: %s\n", v ? v : "(none)");
	t = critical(j, "touch");
	CHECK(t, "touch not accused: %s", v);
	if (!t)
		goto cleanup;
	/* as many calls in slow runs as in fast: the added time is in longer calls */
	calls = json__get(t, "calls");
	CHECK(json__num(json__get(calls, "slow_per_run")) ==
		      json__num(json__get(calls, "fast_per_run")),
	      "calls per run %g vs %g", json__num(json__get(calls, "slow_per_run")),
	      json__num(json__get(calls, "fast_per_run")));
	CHECK(json__num(json__get(calls, "from_per_call_ns")) >
		      0.9 * json__num(json__get(t, "added_ns")),
	      "longer calls hold %g of %g ns", json__num(json__get(calls, "from_per_call_ns")),
	      json__num(json__get(t, "added_ns")));
	/* the on-CPU samples of touch: the fault path grew */
	CHECK(json__bool(json__get(t, "growth.clear")) == 1, "no frame named: %s", v);
	path = json__get(t, "growth.path");
	for (size_t i = 1; i < json__len(path); i++) {
		const struct json *x = json__at(path, i);

		if (!fault_frame(json__str(json__get(x, "function"))))
			continue;
		faults++;
		/* its share of the slow runs' samples above its share of the fast runs' */
		CHECK(json__num(json__get(x, "slow_samples")) *
				      json__num(json__get(path, "[0].fast_samples")) >
			      json__num(json__get(x, "fast_samples")) *
				      json__num(json__get(path, "[0].slow_samples")),
		      "%s: %g of %g slow samples, %g of %g fast",
		      json__str(json__get(x, "function")), json__num(json__get(x, "slow_samples")),
		      json__num(json__get(path, "[0].slow_samples")),
		      json__num(json__get(x, "fast_samples")),
		      json__num(json__get(path, "[0].fast_samples")));
	}
	CHECK(faults >= 1, "no fault-path frame on the growth path of touch");
	CHECK(json__str(json__get(t, "growth.cause")) &&
		      !strcmp(json__str(json__get(t, "growth.cause")), "page_faults"),
	      "cause %s", json__str(json__get(t, "growth.cause")));
	CHECK(v && strstr(v, "touch") && strstr(v, "grown in page faults"), "verdict: %s", v);
cleanup:
	json__free(j);
}

TEST_MAIN()
