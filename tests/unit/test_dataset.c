/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* analysis/dataset*.c on hand-written traces: runs, windows, recursion, files. */
#include <stdint.h>
#include <unistd.h>
#include "testlib.h"
#include "diagnosis.h"
#include "dataset.h"
#include "synth.h"
#include "testds.h"

static const char *tmp(const char *name)
{
	return synth__tmp(name);
}

/* Counters of an interval of d ns on CPU, with some disk and an IPC wait. */
static void ctr(uint64_t d, uint64_t *c)
{
	struct synth_usage u = {
		.cpu_run = 0.5 * d, .disk = 0.3 * d, .ipc = 0.2 * d, .khz = 1000000};

	synth__counters(&u, c);
}

enum { F_RUN, F_F, F_G };

static const struct synth_func funcs[] = {
	{"/usr/bin/app", "on_click", true},
	{"/usr/bin/app", "f", false},
	{"/usr/lib/libx.so", "g", false},
};

/*
 * Run 1 at t=1000 (200 ns) on pid 10 tid 10, records in return order:
 *   f [1010, 1040) depth 2, nested in f [1000, 1100) depth 1 -> counted once
 *   f [1052, 1055) depth 3 in g [1050, 1060) depth 2 in f: taken back too
 *   f [1120, 1130) tid 11 (same pid, other thread, in the window): counted
 *   f [1150, 1160) pid 99: another process, not counted
 *   f [1300, 1310) tid 10 after the window: not counted
 * Run 2 at t=2000, with a nested interaction call (not a run of its own).
 */
static void write_trace(const char *path)
{
	struct synth *s;
	uint64_t c[XLP_NR_CTR], proc[XLP_NR_CTR] = {[XLP_C_DISK] = 777};
	int err = synth__open(path, XLP_FEAT_SYSCALLS, 0, funcs, 3, &s);

	REQUIRE(!err, "synth__open: %d", err);
	ctr(30, c), err |= synth__call(s, F_F, 10, 10, 2, 1010, c, NULL, 0, NULL);
	ctr(3, c), err |= synth__call(s, F_F, 10, 10, 3, 1052, c, NULL, 0, NULL);
	ctr(10, c), err |= synth__call(s, F_G, 10, 10, 2, 1050, c, NULL, 0, NULL);
	ctr(100, c), err |= synth__call(s, F_F, 10, 10, 1, 1000, c, NULL, 55, "peer55");
	ctr(10, c), err |= synth__call(s, F_F, 10, 11, 0, 1120, c, NULL, 0, NULL);
	ctr(10, c), err |= synth__call(s, F_F, 99, 99, 0, 1150, c, NULL, 0, NULL);
	ctr(200, c), err |= synth__call(s, F_RUN, 10, 10, 0, 1000, c, NULL, 0, NULL);
	err |= synth__run(s, F_RUN, 10, 10, 1000, proc);
	ctr(10, c), err |= synth__call(s, F_F, 10, 10, 0, 1300, c, NULL, 0, NULL);
	/* run 2: interaction nested in itself */
	ctr(20, c), err |= synth__call(s, F_G, 10, 10, 2, 2010, c, NULL, 0, NULL);
	ctr(50, c), err |= synth__call(s, F_RUN, 10, 10, 1, 2005, c, NULL, 0, NULL);
	ctr(100, c), err |= synth__call(s, F_RUN, 10, 10, 0, 2000, c, NULL, 0, NULL);
	err |= synth__close(s, NULL, 0);
	CHECK(!err, "writing: %d", err);
}

TEST(runs_windows_and_recursion)
{
	const char *path = tmp("rec.xlp");
	struct dataset *ds;
	int f, g;

	write_trace(path);
	ds = tds_load_paths(&path, 1, false);
	REQUIRE(ds, "-");
	REQUIRE(dataset__nruns(ds) == 2, "%zu runs", dataset__nruns(ds));
	/* the interaction is a function (the runs' landmark), never a feature */
	CHECK(dataset__nfuncs(ds) == 3, "f, g and the landmark: %zu", dataset__nfuncs(ds));
	f = tds_func(ds, "f");
	g = tds_func(ds, "g");
	REQUIRE(f >= 0 && g >= 0, "-");
	CHECK(f == 0 && g == 1 && tds_func(ds, "on_click") == 2, "landmarks come last");
	CHECK(dataset__func(ds, 2)->landmark && dataset__run(ds, 0)->landmark == 2 &&
		      dataset__run(ds, 1)->landmark == 2,
	      "-");
	CHECK(!dataset__time(ds, 0, 2) && !dataset__time(ds, 1, 2) && !dataset__ncalls(ds, 0, 2),
	      "a landmark has no time");
	CHECK(dataset__run(ds, 0)->latency_ns == 200, "%g", dataset__run(ds, 0)->latency_ns);
	CHECK(dataset__run(ds, 1)->latency_ns == 100, "%g", dataset__run(ds, 1)->latency_ns);
	/* 100 (outer f, inner ones taken back) + 10 (other thread) */
	CHECK(dataset__time(ds, 0, f) == 110, "f in run 0: %llu",
	      (unsigned long long)dataset__time(ds, 0, f));
	CHECK(dataset__ncalls(ds, 0, f) == 2, "%u", dataset__ncalls(ds, 0, f));
	CHECK(dataset__time(ds, 0, g) == 10, "g in run 0: %llu",
	      (unsigned long long)dataset__time(ds, 0, g));
	CHECK(dataset__time(ds, 1, g) == 20, "g in run 1");
	CHECK(dataset__time(ds, 1, f) == 0, "f in run 1");
	CHECK(dataset__run(ds, 0)->has_base && dataset__run(ds, 0)->base[XLP_C_DISK] == 777,
	      "run record matched");
	CHECK(!dataset__run(ds, 1)->has_base, "run 2 has no run record");
	CHECK(!strcmp(dataset__func(ds, g)->binary, "libx.so"), "%s", dataset__func(ds, g)->binary);
	dataset__free(ds);
}

TEST(exclusive_sums_excl)
{
	const char *path = tmp("rec.xlp");
	struct dataset *ds;
	uint64_t want = 0, c[XLP_NR_CTR];

	write_trace(path);
	ds = tds_load_paths(&path, 1, true);
	REQUIRE(ds, "-");
	/* synth writes excl = incl: every invocation in the window counts once */
	for (int i = 0; i < 4; i++) {
		ctr((uint64_t[]){30, 3, 100, 10}[i], c);
		want += c[XLP_C_WALL];
	}
	CHECK(dataset__time(ds, 0, tds_func(ds, "f")) == want, "%llu != %llu",
	      (unsigned long long)dataset__time(ds, 0, tds_func(ds, "f")),
	      (unsigned long long)want);
	dataset__free(ds);
}

TEST(resources_and_peers)
{
	const char *path = tmp("rec.xlp");
	struct resources *res = NULL;
	struct dataset *ds;
	uint32_t fn[2];
	char err[256];
	uint64_t c[XLP_NR_CTR];

	write_trace(path);
	ds = tds_load_paths(&path, 1, false);
	REQUIRE(ds, "-");
	fn[0] = (uint32_t)tds_func(ds, "f");
	fn[1] = (uint32_t)tds_func(ds, "g");
	REQUIRE(!dataset__resources(ds, fn, 2, &res, err, sizeof(err)), "%s", err);
	ctr(100, c);
	CHECK(resources__get(res, 0, 0)->ncalls == 2, "-");
	CHECK(resources__get(res, 0, 0)->ctr[XLP_C_WALL] == 110, "%llu",
	      (unsigned long long)resources__get(res, 0, 0)->ctr[XLP_C_WALL]);
	CHECK(resources__get(res, 0, 0)->ctr[XLP_C_CPU_RUN] == c[XLP_C_CPU_RUN] + 5, "%llu",
	      (unsigned long long)resources__get(res, 0, 0)->ctr[XLP_C_CPU_RUN]);
	CHECK(resources__get(res, 1, 1)->ncalls == 1, "-");
	REQUIRE(resources__npeers(res, 0) == 1, "%zu peers", resources__npeers(res, 0));
	CHECK(resources__peer(res, 0, 0)->pid == 55 && resources__peer(res, 0, 0)->run == 0, "-");
	CHECK(!strcmp(resources__peer(res, 0, 0)->comm, "peer55"), "-");
	resources__free(res);
	dataset__free(ds);
}

/*
 * Concurrent interactions on two threads of one process: A [5000, 5500)
 * and B [5100, 5150). A call entering at 5120 belongs to both runs (any
 * thread of the pid, entry in the window), one at 5200 to A only.
 */
TEST(overlapping_windows)
{
	const char *path = tmp("overlap.xlp");
	uint64_t c[XLP_NR_CTR];
	struct dataset *ds;
	struct synth *s;
	int err = synth__open(path, 0, 0, funcs, 3, &s), f;

	REQUIRE(!err, "-");
	ctr(10, c), err |= synth__call(s, F_F, 10, 22, 0, 5120, c, NULL, 0, NULL);
	ctr(50, c), err |= synth__call(s, F_RUN, 10, 21, 0, 5100, c, NULL, 0, NULL);
	ctr(20, c), err |= synth__call(s, F_F, 10, 22, 0, 5200, c, NULL, 0, NULL);
	ctr(500, c), err |= synth__call(s, F_RUN, 10, 20, 0, 5000, c, NULL, 0, NULL);
	err |= synth__close(s, NULL, 0);
	REQUIRE(!err, "-");
	ds = tds_load_paths(&path, 1, false);
	REQUIRE(ds && dataset__nruns(ds) == 2, "-");
	f = tds_func(ds, "f");
	REQUIRE(dataset__run(ds, 0)->tid == 20 && dataset__run(ds, 1)->tid == 21, "runs by start");
	CHECK(dataset__ncalls(ds, 0, f) == 2, "A: %u calls", dataset__ncalls(ds, 0, f));
	CHECK(dataset__ncalls(ds, 1, f) == 1, "B: %u calls", dataset__ncalls(ds, 1, f));
	CHECK(dataset__time(ds, 0, f) == 30 && dataset__time(ds, 1, f) == 10, "-");
	dataset__free(ds);
}

TEST(files_matched_by_symbol_and_basename)
{
	static const struct synth_func fa[] = {{"/opt/a/app", "on_click", true},
					       {"/opt/a/app", "work", false}};
	static const struct synth_func fb[] = {{"/srv/b/app", "other", false},
					       {"/srv/b/app", "work", false},
					       {"/srv/b/app", "on_click", true}};
	const char *paths[2] = {tmp("a.xlp"), tmp("b.xlp")};
	uint64_t c[XLP_NR_CTR];
	struct synth *s;
	struct dataset *ds;
	int err = synth__open(paths[0], 0, 0, fa, 2, &s);

	REQUIRE(!err, "-");
	ctr(10, c), err |= synth__call(s, 1, 5, 5, 1, 100, c, NULL, 0, NULL);
	ctr(50, c), err |= synth__call(s, 0, 5, 5, 0, 100, c, NULL, 0, NULL);
	err |= synth__close(s, NULL, 0);
	err |= synth__open(paths[1], 0, 0, fb, 3, &s);
	ctr(20, c), err |= synth__call(s, 1, 5, 5, 1, 100, c, NULL, 0, NULL);
	ctr(60, c), err |= synth__call(s, 2, 5, 5, 0, 100, c, NULL, 0, NULL);
	err |= synth__close(s, NULL, 0);
	REQUIRE(!err, "writing: %d", err);
	ds = tds_load_paths(paths, 2, false);
	REQUIRE(ds, "-");
	CHECK(dataset__nruns(ds) == 2, "-");
	CHECK(dataset__nfuncs(ds) == 3, "work, other, on_click once each: %zu",
	      dataset__nfuncs(ds));
	CHECK(dataset__run(ds, 0)->landmark == dataset__run(ds, 1)->landmark &&
		      dataset__run(ds, 0)->landmark == (uint32_t)tds_func(ds, "on_click"),
	      "one landmark across the files");
	CHECK(dataset__time(ds, 0, tds_func(ds, "work")) == 10, "%llu",
	      (unsigned long long)dataset__time(ds, 0, tds_func(ds, "work")));
	CHECK(dataset__time(ds, 1, tds_func(ds, "work")) == 20, "%llu",
	      (unsigned long long)dataset__time(ds, 1, tds_func(ds, "work")));
	CHECK(dataset__run(ds, 0)->latency_ns == 50, "%g", dataset__run(ds, 0)->latency_ns);
	CHECK(dataset__run(ds, 1)->file == 1, "-");
	dataset__free(ds);
}

TEST(launch_mode_runs)
{
	const char *path = tmp("launch.xlp");
	struct synth_scenario sc = {.path = path,
				    .launches = true,
				    .nruns = 12,
				    .factor = SYNTH_DISK,
				    .slow_func = 1,
				    .seed = 3};
	struct dataset *ds;

	REQUIRE(!synth__scenario(&sc), "-");
	ds = tds_load_paths(&path, 1, false);
	REQUIRE(ds, "-");
	CHECK(dataset__nruns(ds) == 12, "%zu", dataset__nruns(ds));
	CHECK(dataset__nfuncs(ds) == SYNTH_NFUNCS, "%zu", dataset__nfuncs(ds));
	for (size_t r = 0; r < dataset__nruns(ds); r++) {
		CHECK(dataset__run(ds, r)->has_base, "run %zu has its process record", r);
		CHECK(dataset__ncalls(ds, r, tds_func(ds, "parse_input")) == 1, "run %zu", r);
	}
	CHECK(dataset__file(ds, 0)->launches && !dataset__file(ds, 0)->interaction, "-");
	dataset__free(ds);
}

/*
 * The sampler's observer effect: 10 runs of 200 us on a CPU, every other
 * one hit by a 1 ms sample in compute; the window says the sampler took 5
 * stacks for 250 us. A sampled run is 50 us shorter without that cost, and
 * its sample stands for its 150 us on a CPU, not for 1 ms.
 */
TEST(sampler_cost_removed_and_samples_bounded_by_the_run)
{
	static const struct synth_func f[] = {{"/usr/bin/app", "on_click", true}};
	const uint32_t compute[] = {0, 1};
	const char *path = tmp("observer.xlp");
	const char *paths[] = {path};
	const struct dataset_sample_info *si;
	uint64_t c[XLP_NR_CTR];
	struct synth *s = NULL;
	struct dataset *ds;
	int fc;

	REQUIRE(!synth__open(path, XLP_FEAT_SAMPLE, 0, f, 1, &s), "-");
	CHECK(!synth__sym(s, 0, XLP_SYM_FUNCTION, "app", "compute"), "-");
	CHECK(!synth__sym(s, 1, XLP_SYM_FUNCTION, "app", "on_click"), "-");
	CHECK(!synth__stack(s, 0, compute, 2), "-");
	for (uint64_t i = 0; i < 10; i++) {
		uint64_t t = (i + 1) * 1000000000ull;

		if (i % 2 == 0)
			CHECK(!synth__sample(s, 10, 10, t + 100000, 1000000, 1, XLP_C_CPU_RUN),
			      "-");
		synth__counters(&(struct synth_usage){.cpu_run = 200000}, c);
		CHECK(!synth__call(s, 0, 10, 10, 0, t, c, NULL, 0, NULL), "-");
	}
	CHECK(!synth__sampling(s, 0, 20000000000ull, 1000000, 250000, 5, 0), "-");
	REQUIRE(!synth__close(s, NULL, 0), "-");
	ds = tds_load_paths(paths, 1, false);
	REQUIRE(ds);
	si = dataset__samples(ds);
	CHECK(si->sampler_cost_ns == 50000 && si->sampler_removed_ns == 250000, "%llu %llu",
	      (unsigned long long)si->sampler_cost_ns, (unsigned long long)si->sampler_removed_ns);
	CHECK(si->calibrated == 5, "%llu", (unsigned long long)si->calibrated);
	fc = tds_func(ds, "compute");
	REQUIRE(fc >= 0, "compute not found");
	for (size_t i = 0; i < dataset__nruns(ds); i++) {
		const struct dataset_run *r = dataset__run(ds, i);
		bool hit = i % 2 == 0;

		CHECK(r->latency_ns == (hit ? 150000 : 200000), "run %zu: %g", i, r->latency_ns);
		CHECK(r->own[XLP_C_CPU_RUN] == (hit ? 150000u : 200000u), "run %zu", i);
		CHECK(dataset__time(ds, i, (size_t)fc) == (hit ? 150000u : 0), "run %zu: %llu", i,
		      (unsigned long long)dataset__time(ds, i, (size_t)fc));
	}
	dataset__free(ds);
}

/* synth__sampled (tests/lib/synth.h): 20 runs, every 4th slow by a 50 ms disk wait under load */
TEST(sampled_functions_under_the_interaction)
{
	const char *path = tmp("sampled.xlp");
	const char *paths[] = {path};
	struct diagnosis_opts o = DIAGNOSIS_OPTS_DEFAULT;
	struct diagnosis *r = NULL;
	struct resources *res = NULL;
	struct dataset_cct *t = NULL;
	struct dataset *ds;
	int fl, fc, fp;
	uint32_t want[2];
	uint8_t slow[20];
	char err[512];

	REQUIRE(!synth__sampled(path), "writing %s", path);
	ds = tds_load_paths(paths, 1, false);
	REQUIRE(ds);
	fl = tds_func(ds, "load");
	fc = tds_func(ds, "compute");
	fp = tds_func(ds, "pread");
	REQUIRE(fl >= 0 && fc >= 0 && fp >= 0, "load %d compute %d pread %d", fl, fc, fp);
	/* on_click is there as the runs' landmark only */
	CHECK(tds_func(ds, "main") < 0 && dataset__func(ds, tds_func(ds, "on_click"))->landmark &&
		      !dataset__func(ds, tds_func(ds, "on_click"))->sampled,
	      "a frame at or above the interaction became a function");
	CHECK(dataset__func(ds, fl)->sampled && !dataset__func(ds, fl)->runtime);
	CHECK(dataset__func(ds, fp)->runtime, "libc's pread names nothing");
	REQUIRE(dataset__nruns(ds) == 20, "%zu runs", dataset__nruns(ds));
	for (size_t i = 0; i < 20; i++) {
		bool sl = !(i % 4);

		/* load: the disk wait and the unnamed frame's sample below it */
		CHECK(dataset__time(ds, i, fl) == (sl ? 51000000u : 0), "run %zu: load %llu", i,
		      (unsigned long long)dataset__time(ds, i, fl));
		CHECK(dataset__time(ds, i, fc) == 8000000, "run %zu: compute %llu", i,
		      (unsigned long long)dataset__time(ds, i, fc));
		CHECK(dataset__time(ds, i, fp) == 0, "a runtime function has time");
		CHECK(dataset__ncalls(ds, i, fc) == 8);
		slow[i] = sl;
	}
	CHECK(dataset__samples(ds)->unplaced == 20, "unplaced %llu",
	      (unsigned long long)dataset__samples(ds)->unplaced);
	CHECK(dataset__samples(ds)->malformed == 2, "malformed %llu",
	      (unsigned long long)dataset__samples(ds)->malformed);
	CHECK(dataset__samples(ds)->resolution_ns == 0, "no sampling windows in this file");
	/* resources: the samples' weights by their reasons */
	want[0] = (uint32_t)fl;
	want[1] = (uint32_t)fc;
	REQUIRE(!dataset__resources(ds, want, 2, &res, err, sizeof(err)), "%s", err);
	CHECK(resources__get(res, 0, 0)->ctr[XLP_C_DISK] == 50000000);
	CHECK(resources__get(res, 0, 0)->ctr[XLP_C_CPU_RUN] == 1000000);
	CHECK(resources__get(res, 1, 1)->ctr[XLP_C_CPU_RUN] == 8000000);
	resources__free(res);
	/* the calling-context tree of load: pread under it, slow runs only */
	REQUIRE(!dataset__context_tree(ds, (uint32_t)fl, slow, &t) && t);
	CHECK(dataset_cct__n(t) == 2, "%zu nodes", dataset_cct__n(t));
	CHECK(dataset_cct__node(t, 0)->slow[XLP_C_WALL] == 5 * 51e6, "%g",
	      dataset_cct__node(t, 0)->slow[XLP_C_WALL]);
	CHECK(dataset_cct__n(t) < 2 || (dataset_cct__node(t, 1)->func == (uint32_t)fp &&
					dataset_cct__node(t, 1)->slow[XLP_C_DISK] == 5 * 50e6 &&
					dataset_cct__node(t, 1)->fast[XLP_C_WALL] == 0));
	dataset_cct__free(t);
	/* steps 1 and 2 on the sampled times: load, through the disk */
	REQUIRE(!diagnosis__run(ds, &o, &r, err, sizeof(err)), "%s", err);
	CHECK(r->status == DIAGNOSIS_OK && r->ncrit == 1, "status %d, %zu critical", r->status,
	      r->ncrit);
	if (r->ncrit) {
		CHECK(r->crit[0].func == (uint32_t)fl && r->crit[0].sampled);
		CHECK(r->crit[0].s2.nfactors && r->crit[0].s2.factors[0].feat == DIAGNOSIS_DISK);
		CHECK(r->crit[0].cct != NULL);
	}
	diagnosis__free(r);
	dataset__free(ds);
	unlink(path);
}

TEST_MAIN()
