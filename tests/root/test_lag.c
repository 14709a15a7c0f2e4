/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record --lag and several landmarks on real eBPF: every run counted and
 * timed, the detail of the lagging ones and of one in K of the others,
 * the rest summarized, as the dataset, dump and report show it. Workload:
 * tests/workloads/lag.c (on_event every 5 ms, every 10th 150 ms). Root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "testds.h"
#include "dataset.h"
#include "json.h"
#include "xlptest.h"

#define MS 1000000.0

static char xl[256], wl[256], ev[300], key[300], inner[300];
static char out[1 << 16], err[1 << 16], rep[1 << 18];

static void init_paths(void)
{
	xt_out("xlprobe", xl, sizeof(xl));
	xt_out("tests/workloads/lag", wl, sizeof(wl));
	xt_specs(wl, sizeof(ev), ev, "on_event", key, "on_key", inner, "inner", NULL);
}

/* xlprobe record -q -o TRACE ARGS... -- lag WARGS...; its exit status */
static int record(const char *trace, char **args, char **wargs)
{
	char *argv[40] = {xl, "record", "-q", "-o", (char *)trace};
	int n = 5;

	for (int i = 0; args[i] && n < 30; i++)
		argv[n++] = args[i];
	argv[n++] = "--";
	argv[n++] = wl;
	for (int i = 0; wargs[i] && n < 39; i++)
		argv[n++] = wargs[i];
	argv[n] = NULL;
	return xt_run(argv, 120000, out, sizeof(out), err, sizeof(err));
}

/*
 * record(), its workload's "CALLS ..." line holding calls, then the trace
 * as a dataset; NULL after a failed check.
 */
static struct dataset *record_load(const char *trace, char **args, char **wargs, const char *calls)
{
	int rc;

	init_paths();
	rc = record(trace, args, wargs);
	CHECK(rc == 0, "record exit %d: %s", rc, err);
	CHECK(!rc && strstr(out, calls), "%s", out);
	return !rc && strstr(out, calls) ? tds_load(trace) : NULL;
}

/* inner calls of the trace whose entry lies in [lo, hi) */
static size_t inner_calls(const struct xt_trace *t, int id, uint64_t lo, uint64_t hi)
{
	size_t n = 0;

	for (size_t i = 0; i < t->ncalls; i++)
		n += (int)t->calls[i].func_id == id && t->calls[i].entry_ns >= lo &&
		     t->calls[i].entry_ns < hi;
	return n;
}

/* -i on_event -f inner --lag 100ms --lag-keep 5 on 100 calls, 10 of them 150 ms */
TEST(lag_keeps_lagging_runs_and_one_in_k)
{
	const char *trace = xt_tmp_path("lag.xlp"), *js = xt_tmp_path("lag.json");
	char *args[] = {"-i", ev, "-f", inner, "--lag", "100ms", "--lag-keep", "5", NULL};
	char *wargs[] = {"--calls", "100", NULL};
	char *dump[] = {xl, "dump", (char *)trace, NULL};
	char *report[] = {xl, "report", (char *)trace, NULL};
	char *rjson[] = {xl, "report", "--json", "-o", (char *)js, (char *)trace, NULL};
	size_t nlag = 0, nnormal = 0, ns;
	struct xt_trace t;
	struct dataset *ds;
	const double *lat;
	struct json *j;
	char jerr[128];
	int rc, fi, ti;

	ds = record_load(trace, args, wargs, "CALLS on_event=100 on_key=0 slow=10");
	REQUIRE(ds, "-");
	fi = tds_func(ds, "inner");
	REQUIRE(fi >= 0, "-");
	ns = dataset__summary_runs(ds, &lat);
	CHECK(dataset__nruns(ds) + ns == 100, "%zu runs with detail + %zu summarized",
	      dataset__nruns(ds), ns);
	for (size_t r = 0; r < dataset__nruns(ds); r++) {
		const struct dataset_run *run = dataset__run(ds, r);

		nlag += run->latency_ns >= 100 * MS;
		nnormal += run->latency_ns < 100 * MS;
		CHECK(dataset__ncalls(ds, r, fi) == 1, "run %zu has its inner call", r);
	}
	CHECK(nlag == 10, "%zu lagging runs with detail", nlag);
	/* one in 5 of the 90 others (the first of them included), a few more
	 * if a run went past 100 ms or a thread's first run was written whole */
	CHECK(nnormal >= 16 && nnormal <= 22, "%zu normal runs kept", nnormal);
	for (size_t i = 0; i < ns; i++)
		CHECK(lat[i] < 100 * MS && dataset__summary_run(ds, i)->summary, "summary %zu: %g",
		      i, lat[i]);
	/* nothing of a summarized run's inside is in the file */
	REQUIRE(!xt_trace_load(trace, &t), "cannot read %s", trace);
	ti = xt_func_id(&t, "inner");
	for (size_t i = 0; i < ns; i++) {
		const struct dataset_run *run = dataset__summary_run(ds, i);

		CHECK(!inner_calls(&t, ti, run->start_ns, run->end_ns), "summary %zu has detail",
		      i);
	}
	xt_trace_free(&t);
	CHECK(dataset__drops(ds)->lag_summarized == ns && dataset__drops(ds)->lag_left_out >= ns,
	      "%llu left out", (unsigned long long)dataset__drops(ds)->lag_left_out);
	/* dump: the counts */
	rc = xt_run(dump, 60000, rep, sizeof(rep), err, sizeof(err));
	CHECK(rc == 0, "dump exit %d: %s", rc, err);
	snprintf(jerr, sizeof(jerr), "summarized=%zu ", ns);
	CHECK(strstr(rep, "\nlag cpu=0 threshold_ns=100000000 keep=5 runs=100 lagging=10 ") &&
		      strstr(rep, jerr),
	      "dump lacks the lag record or '%s'", jerr);
	/* report: the runs in all, and what was left out */
	rc = xt_run(report, 60000, rep, sizeof(rep), err, sizeof(err));
	CHECK(rc == 0, "report exit %d: %s", rc, err);
	snprintf(jerr, sizeof(jerr), "%zu more runs summarized by record --lag 100.0 ms: 100 runs",
		 ns);
	CHECK(strstr(rep, jerr), "report lacks '%s'", jerr);
	CHECK(strstr(rep, "lag_runs_summarized"), "report's limits lack the summary");
	rc = xt_run(rjson, 60000, rep, sizeof(rep), err, sizeof(err));
	CHECK(rc == 0, "report --json exit %d: %s", rc, err);
	j = json__load(js, jerr, sizeof(jerr));
	REQUIRE(j, "%s", jerr);
	CHECK(json__num(json__get(j, "runs.count")) + json__num(json__get(j, "runs.summarized")) ==
		      100,
	      "the report counts every run");
	json__free(j);
	dataset__free(ds);
}

/* -i on_event -i on_key: the runs of both, each with its landmark */
TEST(two_landmarks)
{
	const char *trace = xt_tmp_path("two.xlp");
	char *args[] = {"-i", ev, "-i", key, "-f", inner, NULL};
	char *wargs[] = {"--calls", "40", "--slow-every", "0", "--key", NULL};
	size_t nev = 0, nkey = 0;
	struct dataset *ds;
	int fe, fk;

	ds = record_load(trace, args, wargs, "CALLS on_event=20 on_key=20");
	REQUIRE(ds, "-");
	fe = tds_func(ds, "on_event");
	fk = tds_func(ds, "on_key");
	REQUIRE(fe >= 0 && fk >= 0, "-");
	CHECK(dataset__func(ds, fe)->landmark && dataset__func(ds, fk)->landmark, "-");
	CHECK(dataset__nruns(ds) == 40, "%zu runs", dataset__nruns(ds));
	for (size_t r = 0; r < dataset__nruns(ds); r++) {
		nev += dataset__run(ds, r)->landmark == (uint32_t)fe;
		nkey += dataset__run(ds, r)->landmark == (uint32_t)fk;
		CHECK(dataset__ncalls(ds, r, tds_func(ds, "inner")) == 1, "run %zu", r);
	}
	CHECK(nev == 20 && nkey == 20, "%zu on_event, %zu on_key", nev, nkey);
	CHECK(dataset__file(ds, 0)->nlandmarks == 2, "-");
	dataset__free(ds);
}

TEST_MAIN()
