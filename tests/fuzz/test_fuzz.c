/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The fuzz harnesses inside make test: each replays its checked-in corpus
 * (tests/fuzz/corpus/NAME, regression files included), then fuzzes from a
 * copy of it for its share of FUZZ_SMOKE_SECONDS (default 20, shared by the
 * NHARNESS harnesses: a smoke within make test's 12 minutes, and
 * make fuzz is where fuzzing runs long). A crash, a leak,
 * undefined behaviour, an input slower than 10 s or a 2 GB one ends
 * libFuzzer with a non-zero status and an artifact in the copy's
 * directory, printed here: the test fails. make fuzz runs longer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

#define OPTS "-close_fd_mask=3 -timeout=10 -rss_limit_mb=2048"
#define NHARNESS 4

/* Runs cmd with its output in work/log; its exit status, the log's tail in out. */
static int run_logged(const char *cmd, const char *work, char *out, size_t len)
{
	char full[4096], tail[600];
	int rc;

	snprintf(full, sizeof(full), "%s >'%s/log' 2>&1", cmd, work);
	rc = tl_run(full, NULL, 0);
	snprintf(tail, sizeof(tail), "tail -n 40 '%s/log'", work);
	tl_run(tail, out, len);
	return rc;
}

static void run_harness(const char *name)
{
	const char *root = tl_root(), *total = getenv("FUZZ_SMOKE_SECONDS");
	long secs = (total ? atol(total) : 20) / NHARNESS;
	char work[] = "/tmp/xlp-fuzz-smoke-XXXXXX", cmd[2048], out[8192];
	const char *runs;
	int rc;

	REQUIRE(mkdtemp(work), "mkdtemp");
	snprintf(cmd, sizeof(cmd), "cp -r '%s/tests/fuzz/corpus/%s' '%s/corpus'", root, name, work);
	REQUIRE(tl_run(cmd, NULL, 0) == 0, "%s", cmd);
	/* the corpus alone, once each */
	snprintf(cmd, sizeof(cmd), "'%s/.output/fuzz/%s' " OPTS " -runs=0 '%s/corpus'", root, name,
		 work);
	rc = run_logged(cmd, work, out, sizeof(out));
	CHECK(rc == 0 && strstr(out, "INITED"), "replay of the corpus:\n%s", out);
	/* then fuzzing from it */
	snprintf(cmd, sizeof(cmd),
		 "'%s/.output/fuzz/%s' " OPTS
		 " -max_total_time=%ld -artifact_prefix='%s/' '%s/corpus'",
		 root, name, secs > 0 ? secs : 1, work, work);
	rc = run_logged(cmd, work, out, sizeof(out));
	runs = strstr(out, "Done ");
	CHECK(rc == 0 && runs, "fuzzing (artifacts in %s):\n%s", work, out);
	if (rc == 0 && runs) {
		fprintf(stderr, "  %s: %.*s", name, (int)strcspn(runs, "\n") + 1, runs);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
		tl_run(cmd, NULL, 0);
	}
}

TEST(fuzz_trace)
{
	run_harness("fuzz_trace");
}

TEST(fuzz_elfsym)
{
	run_harness("fuzz_elfsym");
}

TEST(fuzz_perfmap)
{
	run_harness("fuzz_perfmap");
}

TEST(fuzz_jitdump)
{
	run_harness("fuzz_jitdump");
}

TEST_MAIN()
