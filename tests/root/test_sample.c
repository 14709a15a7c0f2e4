/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stack sampling (issue 10): record --sample on a workload with a known
 * call chain (tests/workloads/stacks.c, frame pointers), the frames named
 * at record time, written out by export --folded. Real eBPF (a cpu-clock
 * perf event per CPU), root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "xlptest.h"

#define OUT_MAX (1 << 20)

static char xl[256], wl[256];
static char out[OUT_MAX], err[65536];

static void paths(void)
{
	xt_out("xlprobe", xl, sizeof(xl));
	xt_out("tests/workloads/stacks", wl, sizeof(wl));
}

/* record [extra] -- stacks --ms 400 into trace; the exit code. */
static int record(const char *trace, const char *extra)
{
	char *argv[] = {xl,   "record", "-q",	"-o",  (char *)trace, (char *)extra,
			"--", wl,	"--ms", "400", NULL};

	if (!extra) /* no option: close the gap */
		memmove(&argv[5], &argv[6], 5 * sizeof(argv[0]));
	return xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
}

/* Samples on folded lines that contain chain, and in all; -1 if malformed. */
static long folded_count(const char *folded, const char *chain, long *total)
{
	long hits = 0;
	const char *line = folded;

	*total = 0;
	while (*line) {
		const char *nl = strchr(line, '\n'), *sp;
		char buf[8192];
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		long n;

		if (len >= sizeof(buf))
			return -1;
		memcpy(buf, line, len);
		buf[len] = 0;
		sp = strrchr(buf, ' ');
		if (!sp || (n = strtol(sp + 1, NULL, 10)) <= 0)
			return -1;
		*total += n;
		if (strstr(buf, chain))
			hits += n;
		line += len + !!nl;
	}
	return hits;
}

TEST(sampled_stacks_name_the_burning_chain)
{
	const char *trace = xt_tmp_path("chain.xlp");
	char *ex[] = {xl, "export", "--folded", (char *)trace, NULL};
	long total, chain, side;
	int rc;

	paths();
	rc = record(trace, "--sample");
	REQUIRE(rc == 0, "record exit %d: %s", rc, err);
	rc = xt_run(ex, 30000, out, sizeof(out), err, sizeof(err));
	REQUIRE(rc == 0, "export exit %d: %s", rc, err);
	chain = folded_count(out, ";main;outer;middle;inner_loop", &total);
	side = folded_count(out, ";main;outer;side;burn", &total);
	fprintf(stderr, "  %ld samples: %ld in main;outer;middle;inner_loop, %ld in side;burn\n",
		total, chain, side);
	REQUIRE(chain >= 0, "malformed folded output:\n%s", out);
	/* 440 ms of CPU at 999 Hz: some ticks are lost to the VM, never most */
	CHECK(total >= 200, "only %ld samples", total);
	/* the loop is in inner_loop: a frame-pointer unwinder sees the whole chain */
	CHECK(chain >= total * 7 / 10, "%ld of %ld samples on the chain:\n%s", chain, total, out);
	/* side() burns a tenth as long: found, and not confused with the chain */
	CHECK(side >= total / 40 && side <= total / 4, "side: %ld of %ld", side, total);
	CHECK(!strncmp(out, "stacks;", 7), "the process's name leads: %.80s", out);
}

/* Every function name the trace gives the workload is one nm gives it. */
TEST(sampled_frames_agree_with_nm)
{
	const char *trace = xt_tmp_path("nm.xlp");
	char *dump[] = {xl, "dump", (char *)trace, NULL};
	char cmd[600], line[512], names[8192] = " ";
	const char *p;
	int rc, named = 0;
	bool inner = false;
	FILE *f;

	paths();
	rc = record(trace, "--sample");
	REQUIRE(rc == 0, "record exit %d: %s", rc, err);
	snprintf(cmd, sizeof(cmd), "nm --defined-only %s", wl);
	f = popen(cmd, "r");
	REQUIRE(f, "nm");
	while (fgets(line, sizeof(line), f)) {
		char type, name[256];

		if (sscanf(line, "%*s %c %255s", &type, name) == 2 &&
		    (type == 'T' || type == 't') &&
		    strlen(names) + strlen(name) + 2 < sizeof(names)) {
			strcat(names, name);
			strcat(names, " ");
		}
	}
	pclose(f);
	rc = xt_run(dump, 30000, out, sizeof(out), err, sizeof(err));
	REQUIRE(rc == 0, "dump exit %d: %s", rc, err);
	for (p = strstr(out, "\nsym "); p; p = strstr(p + 1, "\nsym ")) {
		char mod[128] = "", name[256] = "", want[260];
		const char *m = strstr(p, " module=\""), *n = strstr(p, " name=\""),
			   *e = strchr(p + 1, '\n');
		int kind = -1;

		if (!m || !n || (e && (m > e || n > e)))
			continue;
		sscanf(strstr(p, " kind=") ? strstr(p, " kind=") : "", " kind=%d", &kind);
		sscanf(m, " module=\"%127[^\"]\"", mod);
		sscanf(n, " name=\"%255[^\"]\"", name);
		if (strcmp(mod, "stacks") || kind != 0)
			continue;
		snprintf(want, sizeof(want), " %s ", name);
		CHECK(strstr(names, want), "frame named %s, which nm does not list", name);
		inner |= !strcmp(name, "inner_loop");
		named++;
	}
	CHECK(named >= 4 && inner, "%d names of the workload's functions, inner_loop %s", named,
	      inner ? "among them" : "missing");
}

/* No --func: the samples are what the recording is for; --no-sample: none. */
TEST(sampling_by_default_without_marked_functions)
{
	const char *on = xt_tmp_path("default.xlp"), *off = xt_tmp_path("off.xlp");
	char *ex_on[] = {xl, "export", "--folded", (char *)on, NULL};
	char *ex_off[] = {xl, "export", "--folded", (char *)off, NULL};
	long total;
	int rc;

	paths();
	rc = record(on, NULL);
	REQUIRE(rc == 0, "record exit %d: %s", rc, err);
	rc = xt_run(ex_on, 30000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 0 && folded_count(out, ";inner_loop", &total) > 0 && total > 100,
	      "export exit %d: %s", rc, err);
	rc = record(off, "--no-sample");
	REQUIRE(rc == 0, "record exit %d: %s", rc, err);
	rc = xt_run(ex_off, 30000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 1, "export of a trace without samples: exit %d", rc);
	XT_CHECK_MESSAGE(err, "has no stack samples: record with --sample");
}

TEST(export_refuses_what_it_cannot_do)
{
	char *nofmt[] = {xl, "export", "x.xlp", NULL};
	char *nofile[] = {xl, "export", "--folded", "/nonexistent/t.xlp", NULL};
	char *badfreq[] = {xl, "record", "-F", "0", "--", "/bin/true", NULL};
	int rc;

	paths();
	rc = xt_run(nofmt, 10000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 2, "exit %d", rc);
	XT_CHECK_MESSAGE(err, "no format given");
	rc = xt_run(nofile, 10000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 1, "exit %d", rc);
	XT_CHECK_MESSAGE(err, "/nonexistent/t.xlp");
	rc = xt_run(badfreq, 10000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 2, "exit %d", rc);
	XT_CHECK_MESSAGE(err, "bad --freq '0'");
}

TEST_MAIN()
