/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The real-software suite's judge, tests/real/verdict.jq, on crafted
 * reports: what it accepts and what it fails, without recording anything
 * (the suite itself needs root, Debian's servers and minutes).
 */
#include <stdio.h>
#include "json.h"
#include "testlib.h"
#include "synth.h"
#include "xlptest.h"

/* A critical function: its chain (outermost first, ending with fn), factor and peer. */
static void crit(char *buf, size_t len, const char *fn, const char *chain, const char *fac,
		 const char *peer)
{
	json__crafted_critical(buf, len, fn, chain, fac, false, peer);
}

/*
 * verdict.jq's answer for the report whose critical functions are crits
 * (JSON objects, comma-separated) against "fn factor peer" of
 * tests/real/expected; "" when it passes.
 */
static const char *verdict_of(const char *report, const char *fn, const char *factor,
			      const char *peer)
{
	static char out[1024];
	const char *path = xt_tmp_path("report.json");
	char cmd[2048];
	FILE *f = fopen(path, "w");
	int rc;

	if (!f)
		return "(cannot write the crafted report)";
	fprintf(f, "%s\n", report);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "jq -r --arg fn '%s' --arg factor '%s' --arg peer '%s' -f "
		 "'%s/tests/real/verdict.jq' "
		 "'%s' 2>&1",
		 fn, factor, peer, tl_root(), path);
	rc = tl_run(cmd, out, sizeof(out));
	out[strcspn(out, "\n")] = 0;
	if (rc) /* 127: jq not installed (make deps) */
		snprintf(out, sizeof(out), "(jq exited %d)", rc);
	return out;
}

static const char *verdict(const char *crits, const char *fn, const char *factor, const char *peer)
{
	char report[4096];

	snprintf(report, sizeof(report), "{\"status\": \"ok\", \"critical_functions\": [%s]}",
		 crits);
	return verdict_of(report, fn, factor, peer);
}

#define CHECK_VERDICT(got, want)                                                                   \
	do {                                                                                       \
		const char *g_ = (got), *w_ = (want);                                              \
		CHECK(!strcmp(g_, w_), "verdict \"%s\", want \"%s\"", g_, w_);                     \
	} while (0)

#define LINK(fn) "{\"function\": \"" fn "\"}"

/*
 * The deepest function of the chain is the one named: the expected one
 * anywhere on it is found (compute_checksum → crunch, crunch seen by stack
 * samples only).
 */
TEST(expected_function_on_the_chain)
{
	char c[512];

	crit(c, sizeof(c), "crunch", LINK("compute_checksum") ", " LINK("crunch"), "cpu_run", NULL);
	CHECK_VERDICT(verdict(c, "compute_checksum", "cpu_run", "-"), "");
	/* one of several expected functions */
	CHECK_VERDICT(verdict(c, "main|compute_checksum", "cpu_run", "-"), "");
	/* the factor is still the critical function's */
	CHECK_VERDICT(verdict(c, "compute_checksum", "cpu_wait", "-"),
		      "found compute_checksum → crunch/cpu_run, expected factor cpu_wait");
	/* accused though nothing was perturbed: the chain in the message */
	CHECK_VERDICT(verdict(c, "-", "-", "-"),
		      "accused compute_checksum → crunch/cpu_run though nothing was perturbed");
}

/* A chain without the expected function, or none, fails as before. */
TEST(expected_function_not_on_the_chain)
{
	char c[512];

	crit(c, sizeof(c), "crunch", LINK("crunch"), "cpu_run", NULL);
	CHECK_VERDICT(verdict(c, "compute_checksum", "cpu_run", "-"),
		      "found crunch/cpu_run, expected compute_checksum/cpu_run");
	crit(c, sizeof(c), "crunch", LINK("load_config") ", " LINK("crunch"), "cpu_run", NULL);
	CHECK_VERDICT(verdict(c, "compute_checksum", "cpu_run", "-"),
		      "found load_config → crunch/cpu_run, expected compute_checksum/cpu_run");
	/* a report of schema 1 had no chain: the function alone is judged */
	CHECK_VERDICT(verdict("{\"function\": \"FileRead\", \"factors\": [{\"factor\": "
			      "\"disk_block\"}], \"peer\": null}",
			      "FileRead", "disk_block", "-"),
		      "");
}

/* The other rules: a second factor, the peer, the queued pseudo-function, steal. */
TEST(other_rules_unchanged)
{
	char a[512], b[512], both[1100];

	crit(a, sizeof(a), "crunch", LINK("compute_checksum") ", " LINK("crunch"), "cpu_run", NULL);
	crit(b, sizeof(b), "render", LINK("render"), "lock_wait", NULL);
	snprintf(both, sizeof(both), "%s, %s", a, b);
	CHECK_VERDICT(verdict(both, "compute_checksum", "cpu_run", "-"),
		      "found compute_checksum → crunch/cpu_run, render/lock_wait: a wrong factor "
		      "besides");
	/* stolen CPU time is the host's, left out */
	crit(b, sizeof(b), "render", LINK("render"), "cpu_steal", NULL);
	snprintf(both, sizeof(both), "%s, %s", a, b);
	CHECK_VERDICT(verdict(both, "compute_checksum", "cpu_run", "-"), "");
	crit(a, sizeof(a), "ProcSleep", LINK("ProcSleep"), "ipc_wait", "postgres");
	CHECK_VERDICT(verdict(a, "ProcSleep", "ipc_wait", "postgres"), "");
	CHECK_VERDICT(verdict(a, "ProcSleep", "ipc_wait", "nginx"),
		      "found ProcSleep/ipc_wait with IPC peer postgres, expected nginx");
	crit(a, sizeof(a), "call [queued before it]", LINK("call [queued before it]"), "cpu_wait",
	     NULL);
	CHECK_VERDICT(verdict(a, "call", "cpu_wait", "-"), "");
}

/* A critical function with two factors, f1 first. */
static const char *crit2(char *buf, size_t len, const char *fn, const char *f1, const char *f2)
{
	snprintf(buf, len,
		 "{\"function\": \"%s\", \"chain\": [{\"function\": \"%s\"}], "
		 "\"factors\": [{\"factor\": \"%s\"}, {\"factor\": \"%s\"}], \"peer\": null}",
		 fn, fn, f1, f2);
	return buf;
}

/*
 * The host took the CPU and slowed the one it left running: cpu_run then
 * cpu_steal (pg_none in one CI run, 2026-11-28) is the host's; cpu_run
 * alone, or steal beside a wait, is not.
 */
TEST(steal_with_cpu_run_is_the_hosts)
{
	char c[512];

	CHECK_VERDICT(verdict(crit2(c, sizeof(c), "tuplesort_performsort", "cpu_run", "cpu_steal"),
			      "-", "-", "-"),
		      "");
	crit(c, sizeof(c), "tuplesort_performsort", LINK("tuplesort_performsort"), "cpu_run", NULL);
	CHECK_VERDICT(verdict(c, "-", "-", "-"),
		      "accused tuplesort_performsort/cpu_run though nothing was perturbed");
	/* steal first is the host's whatever follows (the rule before) */
	CHECK_VERDICT(
		verdict(crit2(c, sizeof(c), "FileRead", "cpu_steal", "disk_block"), "-", "-", "-"),
		"");
	crit2(c, sizeof(c), "FileRead", "disk_block", "cpu_steal");
	CHECK_VERDICT(verdict(c, "-", "-", "-"),
		      "accused FileRead/disk_block though nothing was perturbed");
	CHECK_VERDICT(verdict(c, "FileRead", "disk_block", "-"), "");
}

/*
 * No function named, nor a resource of the whole run, but the waits'
 * answer (a leader waiting for its parallel worker, the worker waiting for
 * a CPU): "[waits:STATE]" accepts it when the blocker was in STATE, and
 * only when the answer holds.
 */
TEST(waits_answer_accepted_by_the_blocker_state)
{
	static const char *const fmt =
		"{\"status\": \"no_precondition\", \"critical_functions\": [],"
		" \"whole_run\": {\"holds\": false, \"factor\": \"ipc_wait\"},"
		" \"wait_answer\": {\"holds\": %s, \"blocker\": 1},"
		" \"wait_chains\": {\"blockers\": [{\"state\": \"ran\"}, {\"state\": "
		"\"cpu_wait\"}]}}";
	char holds[512], not_held[512];

	snprintf(holds, sizeof(holds), fmt, "true");
	snprintf(not_held, sizeof(not_held), fmt, "false");
	CHECK_VERDICT(verdict_of(holds, "standard_ExecutorRun|[waits:cpu_wait]", "ipc_wait", "-"),
		      "");
	CHECK_VERDICT(verdict_of(holds, "standard_ExecutorRun|[waits:ran]", "ipc_wait", "-"),
		      "no accusation (no_precondition), expected "
		      "standard_ExecutorRun|[waits:ran]/ipc_wait");
	CHECK_VERDICT(
		verdict_of(not_held, "standard_ExecutorRun|[waits:cpu_wait]", "ipc_wait", "-"),
		"no accusation (no_precondition), expected "
		"standard_ExecutorRun|[waits:cpu_wait]/ipc_wait");
	/* without the token the waits' answer is no accusation, as before */
	CHECK_VERDICT(verdict_of(holds, "standard_ExecutorRun", "ipc_wait", "-"),
		      "no accusation (no_precondition), expected standard_ExecutorRun/ipc_wait");
}

/*
 * A whole-run answer names the application's frame first (issue 34): the
 * judge finds it on the printed path itself (nginx reaching libc's
 * sendfile and the kernel's page-cache wait) and fails an answer that
 * names the library's frame, or none.
 */
TEST(whole_run_names_the_application_frame)
{
	static const char *const fmt =
		"{\"status\": \"no_precondition\", \"critical_functions\": [],"
		" \"whole_run\": {\"holds\": true, \"factor\": \"disk_block\","
		" \"deepest_frame\": {\"function\": \"folio_wait_bit_common\"},"
		" \"app_frame\": %s, \"growth\": {\"deepest\": 4, \"path\": ["
		"{\"function\": null, \"kernel\": false},"
		"{\"function\": \"ngx_http_write_filter\", \"binary\": \"nginx\", \"kernel\": "
		"false},"
		"{\"function\": \"ngx_linux_sendfile_chain\", \"binary\": \"nginx\", \"kernel\": "
		"false},"
		"{\"function\": \"sendfile\", \"binary\": \"libc.so.6\", \"kernel\": false},"
		"{\"function\": \"folio_wait_bit_common\", \"binary\": \"[kernel]\", \"kernel\": "
		"true}]}}}";
	char app[1024], lib[1024], none[1024];

	snprintf(app, sizeof(app), fmt, "{\"function\": \"ngx_linux_sendfile_chain\"}");
	snprintf(lib, sizeof(lib), fmt, "{\"function\": \"sendfile\"}");
	snprintf(none, sizeof(none), fmt, "null");
	CHECK_VERDICT(verdict_of(app, "[whole-run]", "disk_block", "-"), "");
	CHECK_VERDICT(verdict_of(lib, "[whole-run]", "disk_block", "-"),
		      "the whole run's samples reach folio_wait_bit_common through the "
		      "application's ngx_linux_sendfile_chain, but the answer names sendfile");
	CHECK_VERDICT(verdict_of(none, "[whole-run]", "disk_block", "-"),
		      "the whole run's samples reach folio_wait_bit_common through the "
		      "application's ngx_linux_sendfile_chain, but the answer names no "
		      "application frame");
}

TEST_MAIN()
