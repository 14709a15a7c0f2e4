/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record --lag and several landmarks without a kernel: the recorder's
 * filter (user/record/lag_filter.c) on records as the programs send them, and
 * the dataset, report and dump on synthetic traces with summarized runs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "dataset.h"
#include "json.h"
#include "lag_filter.h"
#include "synth.h"
#include "testds.h"

static char out[1 << 18], err[1 << 14];

/* ---- the filter ---- */

struct sink {
	uint8_t buf[4 << 20];
	size_t len, n;
};

static int sink_write(void *ctx, const struct xlp_hdr *h)
{
	struct sink *k = ctx;

	if (k->len + h->size <= sizeof(k->buf)) {
		memcpy(k->buf + k->len, h, h->size);
		k->len += h->size;
	}
	k->n++;
	return 0;
}

/* The written record of this type and time (a call's entry), or NULL. */
static const struct xlp_hdr *written(const struct sink *k, uint16_t type, uint64_t t)
{
	for (size_t off = 0; off < k->len;) {
		const struct xlp_hdr *h = (const void *)(k->buf + off);

		off += h->size;
		if (h->type != type)
			continue;
		if ((type == XLP_R_CALL_COMPACT &&
		     ((const struct xlp_call_compact_rec *)h)->entry_ns == t) ||
		    (type == XLP_R_SAMPLE && ((const struct xlp_sample_rec *)h)->time_ns == t) ||
		    (type == XLP_R_RUN && ((const struct xlp_run_rec *)h)->entry_ns == t))
			return h;
	}
	return NULL;
}

/* A compact call record of tid 7 with its wall time only. */
static int call(struct lag_filter *lf, uint16_t depth, uint64_t entry, uint64_t wall, bool inter)
{
	struct {
		struct xlp_call_compact_rec c;
		uint64_t v[1];
	} r = {.c = {.h = {XLP_R_CALL_COMPACT, sizeof(r), 0},
		     .func_id = inter ? 0 : 1,
		     .pid = 7,
		     .tid = 7,
		     .depth = depth,
		     .flags = inter ? XLP_CALL_INTERACTION : 0,
		     .entry_ns = entry,
		     .mask = 1},
	       .v = {wall}};

	return lag_filter__record(lf, &r.c.h);
}

static int run(struct lag_filter *lf, uint64_t entry, uint64_t wall)
{
	struct xlp_run_rec r = {.h = {XLP_R_RUN, sizeof(r), 0},
				.func_id = 0,
				.pid = 7,
				.tid = 7,
				.entry_ns = entry,
				.proc = {[XLP_C_WALL] = wall}};

	return lag_filter__record(lf, &r.h);
}

static int sample(struct lag_filter *lf, uint32_t tid, uint64_t t)
{
	struct xlp_sample_rec s = {
		.h = {XLP_R_SAMPLE, sizeof(s), 0}, .pid = 7, .tid = tid, .time_ns = t};

	return lag_filter__record(lf, &s.h);
}

/* One run of tid 7 as the programs send it: nested call, sample, run record, its call. */
static int whole_run(struct lag_filter *lf, uint64_t at, uint64_t wall)
{
	return sample(lf, 7, at + 1) | call(lf, 1, at + 2, 3, false) | run(lf, at, wall) |
	       call(lf, 0, at, wall, true);
}

#define MS 1000000ull

TEST(filter_keeps_lagging_and_one_in_k)
{
	static struct sink k;
	struct lag_filter *lf;
	struct xlp_lag_rec st;
	const struct xlp_call_compact_rec *c;

	REQUIRE(!lag_filter__new(100 * MS, 2, sink_write, &k, &lf), "-");
	/* run 1: the thread's first, its records not held yet */
	CHECK(!whole_run(lf, 1000 * MS, 5 * MS), "-");
	CHECK(written(&k, XLP_R_SAMPLE, 1000 * MS + 1) && written(&k, XLP_R_RUN, 1000 * MS),
	      "the first run is written as it comes");
	/* runs 2-5 under the threshold: the 1st and 3rd of them kept (K = 2) */
	for (int i = 0; i < 4; i++)
		CHECK(!whole_run(lf, (2000 + 1000 * i) * MS, 10 * MS), "-");
	/* between runs: a sample of the thread, and one of another thread */
	CHECK(!sample(lf, 7, 5500 * MS) && !sample(lf, 8, 5600 * MS), "-");
	CHECK(written(&k, XLP_R_SAMPLE, 5600 * MS), "another thread's: written at once");
	CHECK(!written(&k, XLP_R_SAMPLE, 5500 * MS), "held until the next run ends");
	/* run 6 lags */
	CHECK(!whole_run(lf, 6000 * MS, 150 * MS), "-");
	CHECK(written(&k, XLP_R_SAMPLE, 5500 * MS), "before the run: written");
	CHECK(written(&k, XLP_R_SAMPLE, 6000 * MS + 1) && written(&k, XLP_R_RUN, 6000 * MS),
	      "a lagging run keeps its detail");
	for (int i = 0; i < 4; i++) {
		uint64_t at = (2000 + 1000 * i) * MS;
		bool kept = !(i & 1);

		c = (const void *)written(&k, XLP_R_CALL_COMPACT, at);
		CHECK(c && !!(c->flags & XLP_CALL_SUMMARY) == !kept, "run %d's call", i + 2);
		CHECK(!!written(&k, XLP_R_SAMPLE, at + 1) == kept, "run %d's sample", i + 2);
		CHECK(!!written(&k, XLP_R_CALL_COMPACT, at + 2) == kept, "run %d's nested call",
		      i + 2);
		CHECK(!!written(&k, XLP_R_RUN, at) == kept, "run %d's run record", i + 2);
	}
	/* run 7 never ends: its nested call is held, and written at the end */
	CHECK(!call(lf, 1, 7000 * MS, 1, false), "-");
	CHECK(!written(&k, XLP_R_CALL_COMPACT, 7000 * MS), "held");
	CHECK(!lag_filter__flush(lf), "-");
	CHECK(written(&k, XLP_R_CALL_COMPACT, 7000 * MS), "never silently dropped");
	lag_filter__stats(lf, &st);
	CHECK(st.h.type == XLP_R_LAG && st.threshold_ns == 100 * MS && st.keep == 2, "-");
	CHECK(st.runs == 6 && st.lagging == 1 && st.sampled == 2 && st.summarized == 2 &&
		      st.written_through == 1,
	      "%llu runs: %llu %llu %llu %llu", (unsigned long long)st.runs,
	      (unsigned long long)st.lagging, (unsigned long long)st.sampled,
	      (unsigned long long)st.summarized, (unsigned long long)st.written_through);
	/* per summarized run: the sample, the nested call, the run record */
	CHECK(st.records_left_out == 6, "%llu", (unsigned long long)st.records_left_out);
	lag_filter__free(lf);
}

/* Past the per-thread cap the records go out as they come, and the run is kept whole. */
TEST(filter_writes_through_past_its_cap)
{
	static struct sink k;
	struct lag_filter *lf;
	struct xlp_lag_rec st;
	uint64_t n = LAG_HOLD_THREAD / sizeof(struct xlp_sample_rec) + 10;

	REQUIRE(!lag_filter__new(100 * MS, 1000, sink_write, &k, &lf), "-");
	CHECK(!whole_run(lf, 1000 * MS, 5 * MS), "-");
	CHECK(!whole_run(lf, 2000 * MS, 5 * MS), "the one in K");
	for (uint64_t i = 0; i < n; i++)
		sample(lf, 7, 3000 * MS + i);
	CHECK(!whole_run(lf, 3000 * MS, 5 * MS), "-");
	lag_filter__stats(lf, &st);
	CHECK(st.spills >= 1 && st.written_through == 2 && st.summarized == 0,
	      "spills %llu, through %llu", (unsigned long long)st.spills,
	      (unsigned long long)st.written_through);
	CHECK(written(&k, XLP_R_SAMPLE, 3000 * MS + n - 1) && written(&k, XLP_R_RUN, 3000 * MS),
	      "written");
	lag_filter__free(lf);
}

/* ---- the dataset, report and dump ---- */

enum { F_CLICK, F_KEY, F_WORK };

static const struct synth_func funcs[] = {
	{"/usr/bin/app", "on_click", true},
	{"/usr/bin/app", "on_key", true},
	{"/usr/bin/app", "work", false},
};

static void ctr(uint64_t wall, uint64_t *c)
{
	memset(c, 0, XLP_NR_CTR * sizeof(*c));
	c[XLP_C_WALL] = c[XLP_C_CPU_RUN] = wall;
}

/*
 * 40 runs on pid 10, tid 10, 1 s apart: every 5th lags (150 ms), the
 * others take 10 ms + i us; of those, runs 1, 6, 11... kept whole, the
 * others summarized (their call alone, no work inside). Runs alternate
 * between the two landmarks; run 0's on_click calls on_key inside (a
 * nested landmark: part of its run). lag: write the counts.
 */
static int write_lag_trace(const char *path, bool lag)
{
	uint64_t c[XLP_NR_CTR];
	struct synth *s;
	int e = synth__open(path, 0, 0, funcs, 3, &s);

	for (int i = 0; i < 40 && !e; i++) {
		uint64_t at = (uint64_t)(i + 1) * 1000 * MS, wall = 10 * MS + i * 1000;
		bool lags = i % 5 == 0, summary = !lags && i % 5 != 1;
		uint32_t f = i & 1 ? F_KEY : F_CLICK;

		if (lags)
			wall = 150 * MS;
		if (!summary) {
			ctr(wall / 2, c),
				e |= synth__call(s, F_WORK, 10, 10, 1, at + 1, c, NULL, 0, NULL);
			if (i == 0)
				ctr(1000, c), e |= synth__call(s, F_KEY, 10, 10, 1, at + 2, c, NULL,
							       0, NULL);
		}
		ctr(wall, c), e |= synth__call_flags(s, f, 10, 10, 0, at, c,
						     XLP_CALL_INTERACTION |
							     (summary ? XLP_CALL_SUMMARY : 0));
	}
	if (lag && !e)
		e = synth__lag(s, &(struct xlp_lag_rec){.threshold_ns = 100 * MS,
							.keep = 5,
							.runs = 40,
							.lagging = 8,
							.sampled = 8,
							.summarized = 24,
							.records_left_out = 48,
							.bytes_left_out = 4800});
	return e ? e : synth__close(s, NULL, 0);
}

TEST(summary_runs_apart_but_counted)
{
	const char *path = synth__tmp("lag.xlp");
	struct dataset_opts o = {0};
	struct dataset *ds = NULL;
	const struct dataset_file_info *fi;
	const double *lat;
	size_t ns, nclick = 0;
	char msg[512];
	int work, click, key;

	REQUIRE(!write_lag_trace(path, true), "-");
	REQUIRE(!dataset__load(&path, 1, &o, &ds, msg, sizeof(msg)), "%s", msg);
	CHECK(dataset__nruns(ds) == 16, "runs with detail: %zu", dataset__nruns(ds));
	ns = dataset__summary_runs(ds, &lat);
	CHECK(ns == 24, "summarized: %zu", ns);
	work = tds_func(ds, "work");
	click = tds_func(ds, "on_click");
	key = tds_func(ds, "on_key");
	REQUIRE(work >= 0 && click >= 0 && key >= 0, "-");
	CHECK(dataset__func(ds, click)->landmark && dataset__func(ds, key)->landmark &&
		      !dataset__func(ds, work)->landmark,
	      "-");
	for (size_t r = 0; r < dataset__nruns(ds); r++) {
		const struct dataset_run *run = dataset__run(ds, r);

		CHECK(!run->summary && dataset__time(ds, r, work) > 0, "run %zu has its detail", r);
		CHECK(run->landmark == (uint32_t)click || run->landmark == (uint32_t)key, "-");
		nclick += run->landmark == (uint32_t)click;
		/* run 0: on_key inside on_click is part of it */
		if (run->start_ns == 1000 * MS)
			CHECK(run->landmark == (uint32_t)click && run->latency_ns == 150 * MS, "-");
	}
	CHECK(nclick == 8, "%zu on_click runs", nclick);
	for (size_t i = 0; i < ns; i++) {
		const struct dataset_run *run = dataset__summary_run(ds, i);

		CHECK(run->summary && run->latency_ns == lat[i] && lat[i] < 100 * MS, "%zu", i);
		CHECK(run->landmark == (uint32_t)click || run->landmark == (uint32_t)key, "-");
	}
	fi = dataset__file(ds, 0);
	CHECK(fi->nruns == 16 && fi->nsummary == 24 && fi->lag_ns == 100 * MS && fi->lag_keep == 5,
	      "%zu %zu", fi->nruns, fi->nsummary);
	CHECK(fi->nlandmarks == 2 && !strcmp(fi->landmarks[1], "on_key"), "-");
	CHECK(dataset__drops(ds)->lag_summarized == 24 && dataset__drops(ds)->lag_left_out == 48,
	      "-");
	dataset__free(ds);
}

TEST(truncated_without_counts_reads_the_flags)
{
	const char *path = synth__tmp("lag-nocounts.xlp");
	struct dataset_opts o = {0};
	struct dataset *ds = NULL;
	char msg[512];

	REQUIRE(!write_lag_trace(path, false), "-");
	REQUIRE(!dataset__load(&path, 1, &o, &ds, msg, sizeof(msg)), "%s", msg);
	CHECK(dataset__drops(ds)->lag_summarized == 24, "%llu",
	      (unsigned long long)dataset__drops(ds)->lag_summarized);
	dataset__free(ds);
}

TEST(report_and_dump_show_the_summary)
{
	const char *path = synth__tmp("lag-rep.xlp"), *js = synth__tmp("lag.json");
	struct json *j;
	char jerr[128];
	int rc;

	REQUIRE(!write_lag_trace(path, true), "-");
	rc = synth__report(out, sizeof(out), err, sizeof(err), path, NULL);
	CHECK(rc == 0, "rc %d: %s", rc, err);
	CHECK(strstr(out, "16 runs of on_click and 1 other landmark"), "%.300s", out);
	CHECK(strstr(out, "24 more runs summarized by record --lag 100.0 ms: 40 runs in all"), "%s",
	      out);
	CHECK(strstr(out, "Left out on purpose (record --lag)\n  lag_runs_summarized 24:"), "%s",
	      out);
	rc = synth__report(out, sizeof(out), err, sizeof(err), "--json", "-o", js, path, NULL);
	CHECK(rc == 0, "rc %d: %s", rc, err);
	j = json__load(js, jerr, sizeof(jerr));
	REQUIRE(j, "%s", jerr);
	CHECK(json__num(json__get(j, "runs.count")) == 16 &&
		      json__num(json__get(j, "runs.summarized")) == 24 &&
		      json__num(json__get(j, "runs.lag_ns")) == 100 * MS,
	      "-");
	CHECK(json__num(json__get(j, "traces[0].summarized")) == 24, "-");
	CHECK(!strcmp(json__str(json__get(j, "traces[0].landmarks[1]")), "on_key"), "-");
	CHECK(json__num(json__get(j, "drops.lag_runs_summarized")) == 24 &&
		      json__num(json__get(j, "drops.lag_records_left_out")) == 48,
	      "-");
	json__free(j);
	rc = synth__dump(out, sizeof(out), err, sizeof(err), path, NULL);
	CHECK(rc == 0, "rc %d: %s", rc, err);
	CHECK(strstr(out, "lag cpu=0 threshold_ns=100000000 keep=5 runs=40 lagging=8 sampled=8 "
			  "summarized=24"),
	      "no lag record in dump");
	CHECK(strstr(out, "flags=interaction|summary"), "summary calls flagged");
}

TEST_MAIN()
