/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Workload sizes of runs (analysis/dataset/dataset_size.c, struct dataset_run.size) on
 * hand-written traces: a call's own size (record --size-arg) before its
 * launch's (--sizes, also through forks) before the recording's (--size),
 * NAN without any; forged values ignored or bounded; dump shows them.
 */
#include <math.h>
#include <stdint.h>
#include "testlib.h"
#include "dataset.h"
#include "synth.h"
#include "testds.h"

/* The size of the run of pid that starts at start; -1 when there is no such run. */
static double size_of(const struct dataset *ds, uint32_t pid, uint64_t start)
{
	for (size_t i = 0; i < dataset__nruns(ds); i++) {
		const struct dataset_run *r = dataset__run(ds, i);

		if (r->pid == pid && r->start_ns == start)
			return r->size;
	}
	return -1;
}

/* An interaction call that starts a run: wall ns long, queued ns of it before the handler */
static int run(struct synth *s, uint32_t pid, uint32_t tid, uint64_t entry, uint64_t wall,
	       uint64_t queued)
{
	uint64_t c[XLP_NR_CTR] = {[XLP_C_WALL] = wall,
				  [XLP_C_CPU_RUN] = wall - queued,
				  [XLP_C_CPU_WAIT] = queued,
				  [XLP_C_QUEUED] = queued};

	return synth__call(s, 0, pid, tid, 0, entry, c, NULL, 0, NULL);
}

static const struct synth_func on_click[] = {{"/usr/bin/app", "on_click", true}};

/*
 * Every source of a size, in one trace (the recorder never writes --size
 * and --sizes together: the reader still has an order for them):
 *   pid 10 is a launch of size 7, pid 30 its child, pid 50 two launches
 *   (the pid reused) of sizes 6 and 8; the recording's size is 100.
 */
/* Ends the trace s (e: an earlier write failed) and loads it; NULL after a failed check. */
static struct dataset *close_load(struct synth *s, int e, const char *path)
{
	e |= synth__close(s, NULL, 0);
	CHECK(!e, "writing %s", path);
	return e ? NULL : tds_load(path);
}

TEST(sizes_by_precedence)
{
	const char *path = synth__tmp("sizes.xlp");
	struct synth *s;
	struct dataset *ds;
	int e = synth__open(path, XLP_FEAT_SYSCALLS | XLP_FEAT_PREWAKE, 0, on_click, 1, &s);

	REQUIRE(!e, "synth__open: %d", e);
	e |= synth__size(s, XLP_SIZE_RECORDING, 0, 10, 0); /* forged: no size is 0 */
	e |= synth__size(s, XLP_SIZE_RECORDING, 0, 11, 100);
	e |= synth__size(s, XLP_SIZE_RECORDING, 0, 12, 555); /* the first one holds */
	e |= synth__size(s, XLP_SIZE_LAUNCH, 10, 100, 7);
	e |= synth__size(s, XLP_SIZE_LAUNCH, 40, 100, 0);
	e |= synth__size(s, XLP_SIZE_LAUNCH, 50, 4500, 6);
	e |= synth__size(s, XLP_SIZE_LAUNCH, 50, 6000, 8);
	e |= synth__size(s, 0, 20, 100, 44); /* neither flag: says nothing */
	e |= synth__fork(s, 30, 10, 3500, XLP_FORK_PROBED);
	e |= synth__fork(s, 60, 61, 100, XLP_FORK_PROBED); /* forged: a cycle */
	e |= synth__fork(s, 61, 60, 100, XLP_FORK_PROBED);
	/* a call's size: its handler's entry, queued 30 ns after the run's start */
	e |= synth__taskev(s, XLP_TASKEV_SIZE, 10, 10, 1030, 3, 0);
	e |= run(s, 10, 10, 1000, 100, 30);
	/* another thread's size at the same time is not this run's */
	e |= synth__taskev(s, XLP_TASKEV_SIZE, 10, 12, 2000, 55, 0);
	e |= run(s, 10, 11, 2000, 100, 0);
	/* inside the run, not at its entry: a nested call's, not the run's */
	e |= synth__taskev(s, XLP_TASKEV_SIZE, 10, 10, 3050, 99, 0);
	e |= run(s, 10, 10, 3000, 100, 0);
	/* other kinds of task events carry keys, not sizes */
	e |= synth__taskev(s, XLP_TASKEV_POST, 30, 30, 4000, 77, 0);
	e |= run(s, 30, 30, 4000, 50, 0);
	e |= run(s, 40, 40, 4100, 50, 0);
	e |= run(s, 50, 50, 5000, 50, 0);
	e |= synth__taskev(s, XLP_TASKEV_SIZE, 50, 50, 7000, 13, 0);
	e |= run(s, 50, 50, 7000, 50, 0);
	e |= run(s, 50, 50, 8500, 50, 0);
	e |= run(s, 60, 60, 8000, 50, 0);
	e |= run(s, 20, 20, 9000, 50, 0);
	ds = close_load(s, e, path);
	REQUIRE(ds, "-");
	CHECK(dataset__nruns(ds) == 10, "%zu runs", dataset__nruns(ds));
	CHECK(size_of(ds, 10, 1000) == 3, "its call's size: %g", size_of(ds, 10, 1000));
	CHECK(size_of(ds, 10, 2000) == 7, "its launch's: %g", size_of(ds, 10, 2000));
	CHECK(size_of(ds, 10, 3000) == 7, "its launch's: %g", size_of(ds, 10, 3000));
	CHECK(size_of(ds, 30, 4000) == 7, "forked by a launch: %g", size_of(ds, 30, 4000));
	CHECK(size_of(ds, 40, 4100) == 100, "the recording's: %g", size_of(ds, 40, 4100));
	CHECK(size_of(ds, 50, 5000) == 6, "the launch before it: %g", size_of(ds, 50, 5000));
	CHECK(size_of(ds, 50, 7000) == 13, "its call's size: %g", size_of(ds, 50, 7000));
	CHECK(size_of(ds, 50, 8500) == 8, "the later launch: %g", size_of(ds, 50, 8500));
	CHECK(size_of(ds, 60, 8000) == 100, "fork cycle: %g", size_of(ds, 60, 8000));
	CHECK(size_of(ds, 20, 9000) == 100, "the recording's: %g", size_of(ds, 20, 9000));
	dataset__free(ds);
}

/* dump names the records: the recorder's sizes and the calls' */
TEST(dump_shows_sizes)
{
	const char *path = synth__tmp("dump.xlp");
	static char out[1 << 16], err[4096];
	struct synth *s;
	int e = synth__open(path, XLP_FEAT_SYSCALLS, 0, on_click, 1, &s);

	REQUIRE(!e, "synth__open: %d", e);
	e |= synth__size(s, XLP_SIZE_LAUNCH, 10, 100, 7);
	e |= synth__taskev(s, XLP_TASKEV_SIZE, 10, 10, 1000, 3, 0);
	e |= run(s, 10, 10, 1000, 100, 0);
	e |= synth__close(s, NULL, 0);
	REQUIRE(!e, "writing %s", path);
	CHECK(synth__dump(out, sizeof(out), err, sizeof(err), path, NULL) == 0, "%s", err);
	CHECK(strstr(out, "size cpu=0 size=7 flags=launch pid=10 tid=0 run=0 time_ns=100\n"), "%s",
	      out);
	CHECK(strstr(out, "taskev cpu=0 kind=\"size\" pid=10 tid=10 entry_ns=1000 key=3"), "%s",
	      out);
	CHECK(synth__dump(out, sizeof(out), err, sizeof(err), "--json", path, NULL) == 0, "%s",
	      err);
	CHECK(strstr(out, "\"type\": \"size\"") || strstr(out, "\"type\":\"size\""), "%s", out);
}

/* record --until: the size is the begin's, on the thread the run began on */
TEST(keyed_run_takes_its_begins_size)
{
	static const struct synth_func f[] = {
		{"/usr/bin/srv", "begin", true, XLP_FUNC_RUN_BEGIN | XLP_FUNC_TASK_ARG(0)},
		{"/usr/bin/srv", "end", false, XLP_FUNC_RUN_END | XLP_FUNC_TASK_ARG(0)},
	};
	const char *path = synth__tmp("keyed.xlp");
	uint64_t c[XLP_NR_CTR] = {[XLP_C_WALL] = 50, [XLP_C_CPU_RUN] = 50};
	struct synth *s;
	struct dataset *ds;
	int e = synth__open(path, XLP_FEAT_SYSCALLS, 0, f, 2, &s);

	REQUIRE(!e, "synth__open: %d", e);
	e |= synth__taskev(s, XLP_TASKEV_BEGIN, 10, 10, 1000, 0xa, 0);
	e |= synth__taskev(s, XLP_TASKEV_SIZE, 10, 10, 1000, 12, 0);
	e |= synth__call(s, 0, 10, 10, 0, 1000, c, NULL, 0, NULL);
	e |= synth__taskev(s, XLP_TASKEV_END, 10, 11, 1500, 0xa, 1);
	e |= synth__call(s, 1, 10, 11, 0, 1500, c, NULL, 0, NULL);
	ds = close_load(s, e, path);
	REQUIRE(ds, "-");
	REQUIRE(dataset__nruns(ds) == 1, "%zu runs", dataset__nruns(ds));
	CHECK(dataset__run(ds, 0)->tid == 11, "ended on %u", dataset__run(ds, 0)->tid);
	CHECK(dataset__run(ds, 0)->size == 12, "%g", dataset__run(ds, 0)->size);
	dataset__free(ds);
}

/* record --repeat 1 --sizes 3,5: each launch's run has its size */
TEST(launch_runs_take_their_launchs_size)
{
	static const struct synth_func f[] = {{"/usr/bin/app", "f", false}};
	uint64_t tot[XLP_NR_CTR] = {[XLP_C_WALL] = 100, [XLP_C_CPU_RUN] = 100};
	const char *path = synth__tmp("launch.xlp");
	struct dataset *ds;
	struct synth *s;
	int e = synth__open(path, XLP_FEAT_SYSCALLS, 2, f, 1, &s);

	REQUIRE(!e, "synth__open: %d", e);
	e |= synth__size(s, XLP_SIZE_LAUNCH, 10, 50, 3);
	e |= synth__proc(s, 10, tot);
	e |= synth__launch(s, 0, 10, 100, 200);
	e |= synth__size(s, XLP_SIZE_LAUNCH, 11, 250, 5);
	e |= synth__proc(s, 11, tot);
	e |= synth__launch(s, 1, 11, 300, 400);
	ds = close_load(s, e, path);
	REQUIRE(ds, "-");
	REQUIRE(dataset__nruns(ds) == 2, "%zu runs", dataset__nruns(ds));
	CHECK(size_of(ds, 10, 100) == 3, "%g", size_of(ds, 10, 100));
	CHECK(size_of(ds, 11, 300) == 5, "%g", size_of(ds, 11, 300));
	dataset__free(ds);
}

/* No size in the trace: NAN, also in a version 1 file */
TEST(no_size_is_nan)
{
	char v1[4096];
	const char *paths[] = {synth__tmp("none.xlp"), v1};
	struct synth_scenario sc = {.path = paths[0], .nruns = 12, .seed = 5};

	snprintf(v1, sizeof(v1), "%s/tests/data/v1-net.xlp", tl_root());
	REQUIRE(!synth__scenario(&sc), "-");
	for (size_t i = 0; i < 2; i++) {
		struct dataset *ds = tds_load(paths[i]);

		REQUIRE(ds, "%s", paths[i]);
		CHECK(dataset__nruns(ds) > 0, "%s", paths[i]);
		for (size_t r = 0; r < dataset__nruns(ds); r++)
			CHECK(isnan(dataset__run(ds, r)->size), "%s run %zu: %g", paths[i], r,
			      dataset__run(ds, r)->size);
		dataset__free(ds);
	}
}

TEST_MAIN()
