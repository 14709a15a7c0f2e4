/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * export --pprof of a real sampled recording, read by go tool pprof
 * (Debian's golang-go, tools/install-deps.sh): the C++ workload
 * (tests/workloads/cxxwl.cc), whose slow runs spend their CPU time in
 * shop::crunch<long>(long). Per-function totals of each sample type agree
 * with export --folded; pprof shows the demangled names; --runs slow keeps
 * the samples of the runs report calls slow. Root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testlib.h"
#include "pprofcmp.h"
#include "xlptest.h"

static char out[1 << 16], err[1 << 16], buf[1 << 20];

/* report's number of slow runs of trace ("N slow: latency > ..."), -1 if none. */
static int slow_runs(const char *trace)
{
	char *rep[] = {xt_xl, "report", (char *)trace, NULL};
	const char *p;

	if (xt_run(rep, 120000, buf, sizeof(buf), err, sizeof(err)))
		return -1;
	p = strstr(buf, " slow: latency > ");
	if (!p)
		return -1;
	while (p > buf && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return atoi(p);
}

/* The number of values of key in go tool pprof -tags's text. */
static int tag_values(const char *tags, const char *key)
{
	char head[64];
	const char *p;
	int n = 0;

	snprintf(head, sizeof(head), " %s: Total", key);
	p = strstr(tags, head);
	if (!p)
		return 0;
	for (p = strchr(p, '\n'); p && p[1] && p[1] != '\n'; p = strchr(p + 1, '\n'))
		n++;
	return n;
}

TEST(cxx_recording_in_pprof)
{
	const char *trace = xt_tmp_path("cxx.xlp"), *pb = xt_tmp_path("cxx.pb.gz");
	char cmd[1024];
	char *exp[] = {xt_xl, "export", "--pprof", (char *)trace, "-o", (char *)pb, NULL};
	const char *slow = xt_tmp_path("slow.pb.gz");
	char *exps[] = {xt_xl,	       "export", "--pprof",    "--runs", "slow",
			(char *)trace, "-o",	 (char *)slow, NULL};
	int rc, nslow;

	rc = xt_record_cxxwl(trace, out, sizeof(out), err, sizeof(err));
	REQUIRE(rc == 0, "record exit %d: %s", rc, err);
	rc = xt_run(exp, 60000, out, sizeof(out), err, sizeof(err));
	REQUIRE(rc == 0, "export --pprof exit %d: %s", rc, err);
	pprofcmp__same_totals(xt_xl, trace, pb, "samples", "");
	pprofcmp__same_totals(xt_xl, trace, pb, "cpu", "--weight --on-cpu");
	pprofcmp__same_totals(xt_xl, trace, pb, "off_cpu", "--weight --off-cpu");
	/* demangled, and the slow runs' CPU time under crunch */
	snprintf(cmd, sizeof(cmd),
		 "go tool pprof -top -nodefraction=0 -tagfocus=run_class=slow %s 2>&1", pb);
	rc = tl_run(cmd, buf, sizeof(buf));
	CHECK(rc == 0 && strstr(buf, "long shop::crunch<long>(long)"), "%.3000s", buf);
	CHECK(!strstr(buf, "_ZN4shop"), "mangled: %.3000s", buf);
	/* --runs slow holds the runs report calls slow, and no other */
	nslow = slow_runs(trace);
	REQUIRE(nslow > 0, "report: %.2000s", buf);
	rc = xt_run(exps, 60000, out, sizeof(out), err, sizeof(err));
	REQUIRE(rc == 0, "export --pprof --runs slow exit %d: %s", rc, err);
	snprintf(cmd, sizeof(cmd), "go tool pprof -tags %s 2>&1", slow);
	rc = tl_run(cmd, buf, sizeof(buf));
	REQUIRE(rc == 0, "%s", buf);
	CHECK(tag_values(buf, "run") <= nslow, "report: %d slow runs; pprof: %.3000s", nslow, buf);
	CHECK(tag_values(buf, "run_class") == 1 && strstr(buf, ": slow"), "%.3000s", buf);
	snprintf(cmd, sizeof(cmd), "go tool pprof -traces %s 2>&1", pb);
	rc = tl_run(cmd, buf, sizeof(buf));
	CHECK(rc == 0 && strstr(buf, "shop::Checkout::handle(int)") &&
		      strstr(buf, "thread:  cxxwl"),
	      "%.3000s", buf);
}

TEST_MAIN()
