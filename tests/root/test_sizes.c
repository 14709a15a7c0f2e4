/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Workload sizes on real eBPF (record --sizes, --size, --size-arg): the
 * runs of a recording carry the size they were given, as the analysis
 * reads it (struct dataset_run.size) and as dump shows it. Workload:
 * tests/workloads/sizes.c, whose work(i, n) gets the size as its second
 * argument. Root.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "dataset.h"
#include "util.h"
#include "xlptest.h"

static char xl[256], wl[256], spec[300], out[1 << 16], err[1 << 16];

static void init_paths(void)
{
	xt_out("xlprobe", xl, sizeof(xl));
	xt_out("tests/workloads/sizes", wl, sizeof(wl));
	snprintf(spec, sizeof(spec), "%s:work", wl);
}

/* xlprobe record -q -o TRACE ARGS...; its exit status */
static int record(const char *trace, char **args)
{
	char *argv[32] = {xl, "record", "-q", "-o", (char *)trace};
	int n = 5;

	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
}

static int by_start(const void *a, const void *b)
{
	const struct dataset_run *x = a, *y = b;

	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* The runs' sizes in start order: their number, at most max. */
static size_t run_sizes(const char *trace, double *sizes, size_t max)
{
	struct dataset_opts o = {0};
	struct dataset *ds = NULL;
	struct dataset_run runs[64];
	char msg[512];
	size_t n;

	if (dataset__load(&trace, 1, &o, &ds, msg, sizeof(msg))) {
		CHECK(0, "dataset__load: %s", msg);
		return 0;
	}
	n = dataset__nruns(ds) < 64 ? dataset__nruns(ds) : 64;
	for (size_t i = 0; i < n; i++)
		runs[i] = *dataset__run(ds, i);
	xlp_sort(runs, n, sizeof(runs[0]), by_start);
	for (size_t i = 0; i < n && i < max; i++)
		sizes[i] = runs[i].size;
	dataset__free(ds);
	return n;
}

static void check_sizes(const char *trace, const double *want, size_t nwant)
{
	double got[64];
	size_t n = run_sizes(trace, got, 64);

	CHECK(n == nwant, "%zu runs, want %zu", n, nwant);
	for (size_t i = 0; i < n && i < nwant; i++)
		CHECK(got[i] == want[i], "run %zu: size %g, want %g", i + 1, got[i], want[i]);
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/*
 * --repeat 2 --sizes 3,5: four launches in two rounds of one per size (a
 * drift of the machine falls on both sizes), {} replaced, each run labelled
 */
TEST(sizes_label_each_launch)
{
	const char *trace = xt_tmp_path("launches.xlp");
	char *args[] = {"--repeat", "2", "--sizes", "3,5", "--", wl, "{}", NULL};
	char *dump[] = {xl, "dump", (char *)trace, NULL};
	const double want[] = {3, 5, 3, 5};
	struct xt_trace t;
	int rc;

	init_paths();
	rc = record(trace, args);
	REQUIRE(rc == 0, "record exit %d: %s", rc, err);
	CHECK(count(out, "WORK i=0 n=3\n") == 2 && count(out, "WORK i=0 n=5\n") == 2,
	      "the launches' arguments: %s", out);
	check_sizes(trace, want, 4);
	/* dump: a size record per launch, naming its pid and index */
	rc = xt_run(dump, 60000, out, sizeof(out), err, sizeof(err));
	REQUIRE(rc == 0, "dump exit %d: %s", rc, err);
	REQUIRE(!xt_trace_load(trace, &t), "cannot read %s", trace);
	CHECK(t.nlaunches == 4, "%zu launches", t.nlaunches);
	for (size_t i = 0; i < t.nlaunches; i++) {
		char line[128];

		snprintf(line, sizeof(line), "size=%.0f flags=launch pid=%u tid=0 run=%zu ",
			 want[i < 4 ? i : 0], t.launches[i].pid, i);
		CHECK(strstr(out, line), "no '%s' in dump", line);
	}
	CHECK(count(out, "\nsize ") == 4, "%d size records", count(out, "\nsize "));
	xt_trace_free(&t);
}

/* -i with --sizes: the runs inside each launch take its size */
TEST(sizes_label_runs_inside_launches)
{
	const char *trace = xt_tmp_path("inside.xlp");
	char *args[] = {"-i", spec, "--sizes", "4,6", "--", wl, "{}", "{}", NULL};
	const double want[] = {4, 4, 6, 6};
	int rc;

	init_paths();
	rc = record(trace, args);
	REQUIRE(rc == 0, "record exit %d: %s", rc, err);
	check_sizes(trace, want, 4);
}

/* --size-arg 1: each run's size is work's second argument at its entry */
TEST(size_arg_labels_each_run)
{
	const char *trace = xt_tmp_path("arg.xlp");
	char *args[] = {"-i", spec, "--size-arg", "1", "--", wl, "3", "5", "7", "11", NULL};
	const double want[] = {3, 5, 7, 11};
	int rc;

	init_paths();
	rc = record(trace, args);
	REQUIRE(rc == 0, "record exit %d: %s", rc, err);
	check_sizes(trace, want, 4);
}

/* --size: one size for every run */
TEST(size_labels_the_recording)
{
	const char *trace = xt_tmp_path("whole.xlp");
	char *args[] = {"--size", "42", "--repeat", "2", "--", wl, "2", NULL};
	const double want[] = {42, 42};
	int rc;

	init_paths();
	rc = record(trace, args);
	REQUIRE(rc == 0, "record exit %d: %s", rc, err);
	check_sizes(trace, want, 2);
}

TEST_MAIN()
