/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The perturbation suite (PerfProbe Table II on Linux): the app-like
 * workload tests/e2e/workloads/app.c slows exactly one function through
 * exactly one resource in a quarter of its runs; xlprobe records it with
 * real eBPF, `xlprobe report --json` analyses it, and the test asserts the
 * critical function(s) and their factor — and nothing else accused.
 * The sampled_* variants record the same scenarios with --interaction
 * alone (stack sampling, no --func): the perturbed function must then be
 * found among functions nobody marked, on the chain of a critical one.
 * With XLP_SCORECARD=1 each scenario also prints one "SCORE" line
 * (tests/e2e/scorecard).
 */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "json.h"
#include "testlib.h"
#include "xlptest.h"

#define MAX_EXPECT 2

struct expect {
	const char *function;
	const char *factor;
};

struct scenario {
	const char *name;
	struct expect want[MAX_EXPECT]; /* none: no precondition at all */
	const char *peer;		/* IPC peer to be named, or NULL */
	bool baseline_wrong;		/* the whole-run baseline must name another factor */
	int disk;     /* 1: load_config reads a loop device, 2: throttled to 8 MiB/s */
	bool sampled; /* --interaction only: the functions come from stack samples */
	/*
	 * The perturbation slows every function that is on the CPU in a
	 * perturbed run (the hogs share the worker's CPU for the whole run):
	 * another function accused with the expected factor is right too, as
	 * long as it ranks below the expected one (it holds less of the
	 * added time: load_config's 4 ms of cpu_wait beside compute_checksum's
	 * 60 ms, seen in one run in ~20).
	 */
	bool whole_run;
	const char *args[6]; /* more options for the app */
};

static const char *const marked[] = {"load_config",  "fetch_remote", "ask_peer",	"wait_tick",
				     "update_cache", "render",	     "compute_checksum"};

static char app[256], xl[256], setup_sh[300];

static void paths(void)
{
	xt_out("tests/e2e/workloads/app", app, sizeof(app));
	xt_out("xlprobe", xl, sizeof(xl));
	snprintf(setup_sh, sizeof(setup_sh), "%s/tests/e2e/setup.sh", tl_root());
}

static int sh(const char *cmd, char *out, size_t len)
{
	int rc = tl_run(cmd, out, len);

	if (out && len)
		out[strcspn(out, "\n")] = 0;
	return rc;
}

/* A loop device, throttled to 8 MiB/s if asked; the cgroup dir in cg. */
static int disk_setup(int how, char *dev, size_t dlen, char *cg, size_t clen)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "%s loopdev %s", setup_sh, xt_tmpdir());
	if (sh(cmd, dev, dlen) || strncmp(dev, "/dev/loop", 9))
		return -1;
	if (how < 2)
		return 0;
	snprintf(cmd, sizeof(cmd), "%s throttle %s 8388608", setup_sh, dev);
	return sh(cmd, cg, clen) ? -1 : 0;
}

static void disk_teardown(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "%s teardown", setup_sh);
	if (sh(cmd, NULL, 0))
		fprintf(stderr, "  e2e: teardown failed\n");
}

/* Starts app, attaches xlprobe, runs the 40 requests; 0 on success. */
static int record(const struct scenario *s, const char *trace, const char *dev, const char *cg)
{
	char *aargv[16] = {app,	 "--wait-signal", "--perturb", (char *)s->name, "--runs",
			   "40", "--seed",	  "7"};
	char *xargv[32] = {xl, "record", "-p", NULL, "-i", NULL, "-o", (char *)trace};
	char specs[8][320], pid_s[16], err[4096], cmd[600];
	struct xt_proc a, x;
	int pid = 0, n = 8, an = 8, rc;

	if (dev) {
		aargv[an++] = "--disk-file";
		aargv[an++] = (char *)dev;
	}
	for (int i = 0; i < 6 && s->args[i]; i++)
		aargv[an++] = (char *)s->args[i];
	pid = xt_spawn_ready(aargv, &a, 20000);
	if (pid <= 0)
		return -1;
	if (cg) {
		snprintf(cmd, sizeof(cmd), "%s join %s %d", setup_sh, cg, pid);
		if (sh(cmd, NULL, 0))
			return -1;
	}
	snprintf(pid_s, sizeof(pid_s), "%d", pid);
	snprintf(specs[0], sizeof(specs[0]), "%s:handle_request", app);
	xargv[3] = pid_s;
	xargv[5] = specs[0];
	for (int i = 0; i < 7 && !s->sampled; i++) {
		snprintf(specs[i + 1], sizeof(specs[i + 1]), "%s:%s", app, marked[i]);
		xargv[n++] = "-f";
		xargv[n++] = specs[i + 1];
	}
	if (s->sampled) {
		/*
		 * At the default 3 % of its CPU time, this app's request
		 * thread, which waits most of the time, keeps the stacks of 1
		 * switch-out in 2: unbiased, but the one 50 ms wait of a slow
		 * run is then seen in half of them. 10 % kept every one here
		 * on a quiet machine, but not always in CI (sampled_timer
		 * failed once in ~20 runs, trace not kept): the bound is
		 * relative to a thread that hardly runs, so a few slow stack
		 * walks raise the period or the thinning. These scenarios
		 * test the analysis on samples; the adaptive rate has its own
		 * test (tests/root/test_sample), so they take the widest bound
		 * (docs/recording.md, Stack sampling).
		 */
		xargv[n++] = "--sample-overhead";
		xargv[n++] = "50";
	}
	xargv[n] = NULL;
	if (xt_record_start(xargv, &x, &a, 30000)) {
		fprintf(stderr, "  xlprobe did not attach\n");
		return -1;
	}
	rc = xt_wait(&a, 120000, NULL, 0, NULL, 0);
	if (rc)
		fprintf(stderr, "  app exited %d\n", rc);
	rc = xt_wait(&x, 60000, NULL, 0, err, sizeof(err));
	if (rc)
		fprintf(stderr, "  xlprobe exited %d: %s\n", rc, err);
	return rc;
}

static struct json *report(const char *trace)
{
	return xt_report_json(xl, trace, 60000);
}

/*
 * "fn/factor[, fn/factor]" of what the report accuses; a drill-down chain
 * in full ("compute_checksum → crunch/cpu_run"), as the judge reads it.
 */
static void found_str(const struct json *j, char *buf, size_t len)
{
	const struct json *cf = json__key(j, "critical_functions");

	buf[0] = 0;
	for (size_t i = 0; i < json__len(cf); i++) {
		const struct json *f = json__at(cf, i), *chain = json__key(f, "chain");
		const char *fac = json__str(json__get(f, "factors[0].factor"));
		size_t used = strlen(buf);

		if (json__len(chain) > 1) {
			for (size_t k = 0; k < json__len(chain) && used < len; k++) {
				snprintf(buf + used, len - used, "%s%s",
					 k   ? " → "
					 : i ? ", "
					     : "",
					 json__str(json__get(json__at(chain, k), "function")));
				used = strlen(buf);
			}
			snprintf(buf + used, len - used, "/%s", fac ? fac : "-");
			continue;
		}
		snprintf(buf + used, len - used, "%s%s/%s", i ? ", " : "",
			 json__str(json__key(f, "function")), fac ? fac : "-");
	}
	if (!buf[0])
		snprintf(buf, len, "no slowdown precondition");
}

/*
 * The critical function named name, or the one whose drill-down chain
 * passes through it: the chain ends at the deepest function that holds the
 * added time (compute_checksum → crunch: crunch, which only stack samples
 * see, is named, a deeper true answer), and it is the verdict's own
 * account of where that time is.
 */
static const struct json *find_function(const struct json *j, const char *name)
{
	const struct json *cf = json__key(j, "critical_functions");

	for (size_t i = 0; i < json__len(cf); i++) {
		const struct json *c = json__at(cf, i);
		const char *fn = json__str(json__key(c, "function"));
		const struct json *chain = json__key(c, "chain");

		if (fn && !strcmp(fn, name))
			return c;
		for (size_t k = 0; k < json__len(chain); k++) {
			fn = json__str(json__key(json__at(chain, k), "function"));
			if (fn && !strcmp(fn, name))
				return c;
		}
	}
	return NULL;
}

static int nexpect(const struct scenario *s)
{
	int n = 0;

	while (n < MAX_EXPECT && s->want[n].function)
		n++;
	return n;
}

/*
 * A function slowed because its CPU did not run it (the hypervisor's steal
 * clock, or late timers: a stalled vCPU) was perturbed by the host, not by
 * the scenario: the report is right to accuse it, and the test counts the
 * scenario's accusations without it.
 */
static bool by_host(const struct json *f)
{
	const char *fac = json__str(json__get(f, "factors[0].factor"));

	return fac && !strcmp(fac, "cpu_steal");
}

/*
 * The report against the scenario. In a scenario that perturbs nothing, a
 * function whose only factors are cpu_run or cpu_steal (json__by_machine)
 * was slowed by the machine: the same work took longer
 * on a CPU that ran slower for a while (these VMs have their own slow
 * mode: one scorecard run, 2026-11-28, had compute_checksum and render
 * both 20 % longer on the CPU in 9 of 40 runs, in two stretches of the
 * recording, the other functions unchanged), or the host stole the CPU.
 * tests/root/test_pool and tests/real/expected accept the same; the
 * evidence rules' false alarms on natural shapes are measured where the
 * truth is known (tests/unit/test_sigsim). A wait is never accepted.
 */
static void check_report(const struct scenario *s, const struct json *j)
{
	const struct json *cf = json__key(j, "critical_functions");
	int n = nexpect(s);
	size_t own = 0;
	char found[512];

	found_str(j, found, sizeof(found));
	for (size_t i = 0; i < json__len(cf); i++) {
		const struct json *f = json__at(cf, i);
		const char *fac = json__str(json__get(f, "factors[0].factor"));

		if (by_host(f) || (!n && json__by_machine(f)))
			continue;
		/* ranked below the expected function, with its factor */
		if (s->whole_run && i > 0 && n && fac && !strcmp(fac, s->want[0].factor)) {
			printf("  %s: also %s/%s, slowed by the same perturbation\n", s->name,
			       json__str(json__key(f, "function")), fac);
			continue;
		}
		own++;
	}
	if (own < json__len(cf))
		printf("  %s: slowed by the machine (cpu_run / cpu_steal alone): %s\n", s->name,
		       found);
	CHECK(own == (size_t)n, "%s: %zu critical functions, expected %d: %s", s->name, own, n,
	      found);
	/*
	 * Nothing perturbed: nothing accused. The tree may still split the
	 * ordinary spread (schema 1 hid that behind a 2x gate); every function
	 * it picked is then listed as rejected, with the evidence it lacks.
	 */
	if (!n) {
		const struct json *rej = json__key(j, "rejected_functions");
		const char *st = json__str(json__key(j, "status"));

		CHECK(own < json__len(cf) || (st && strcmp(st, "ok")), "%s: status %s", s->name,
		      st ? st : "?");
		for (size_t i = 0; i < json__len(rej); i++)
			CHECK(!json__bool(json__get(json__at(rej, i), "evidence.significant")),
			      "rejected but significant");
		CHECK(json__len(json__key(j, "preconditions")) == 0 || json__len(rej) > 0 ||
			      own < json__len(cf),
		      "a precondition without a rejected function says nothing");
	}
	for (int i = 0; i < n; i++) {
		const struct json *f = find_function(j, s->want[i].function);
		const char *fac;

		/*
		 * The hogs slow every function on the worker's CPU: step 1's
		 * split may fall on another one of them first (update_cache's
		 * burn_cpu_ns in 10 of 12 slow runs, with sampled times), and
		 * that function with the expected factor is the right answer
		 * too (above: every accusation carries that factor).
		 */
		if (!f && s->whole_run && json__len(cf)) {
			f = json__at(cf, 0);
			printf("  %s: %s named instead of %s, with the same perturbation\n",
			       s->name, json__str(json__key(f, "function")), s->want[i].function);
		}
		fac = json__str(json__get(f, "factors[0].factor"));

		CHECK(f, "%s: %s not named", s->name, s->want[i].function);
		CHECK(fac && !strcmp(fac, s->want[i].factor), "%s: %s factor %s, expected %s",
		      s->name, s->want[i].function, fac ? fac : "(none)", s->want[i].factor);
		CHECK(!s->sampled || json__bool(json__key(f, "sampled")),
		      "%s: %s found, but not from samples", s->name, s->want[i].function);
		/* samples carry no waker: the peer comes from marked calls */
		if (s->peer && !s->sampled) {
			const char *comm = json__str(json__get(f, "peer.comm"));

			CHECK(comm && !strcmp(comm, s->peer), "%s: peer %s", s->name,
			      comm ? comm : "(none)");
		}
	}
	/*
	 * PerfProbe V-D: the whole run looks disk-bound (the background
	 * readers' disk_block grew more in the slow runs than the factor
	 * that made them slow), and the function-level answer above was not
	 * misled. Which factor the baseline's tree splits on first is its
	 * tie-break when both separate the runs as well (119 of 120 each,
	 * seen), or it stops after cpu_run: "agrees" follows that first
	 * factor, so the test asks only that it says what that one is.
	 */
	if (s->baseline_wrong) {
		const char *first = json__str(json__get(j, "baseline.factors[0].factor"));
		char key[128];
		double disk, want;

		disk = json__num(json__get(j, "baseline.breakdown.disk_block.slow_median")) -
		       json__num(json__get(j, "baseline.breakdown.disk_block.fast_median"));
		snprintf(key, sizeof(key), "baseline.breakdown.%s.slow_median", s->want[0].factor);
		want = json__num(json__get(j, key));
		snprintf(key, sizeof(key), "baseline.breakdown.%s.fast_median", s->want[0].factor);
		want -= json__num(json__get(j, key));
		CHECK(disk > want,
		      "the whole run did not look disk-bound: disk_block +%.1f ms, %s +%.1f ms",
		      disk / 1e6, s->want[0].factor, want / 1e6);
		CHECK(json__bool(json__get(j, "baseline.agrees")) ==
			      (first && !strcmp(first, s->want[0].factor)),
		      "baseline.agrees does not follow its first factor %s", first ? first : "-");
	}
}

static void scorecard(const struct scenario *s, const struct json *j, bool pass)
{
	char want[256] = "", got[512];

	if (!getenv("XLP_SCORECARD"))
		return;
	for (int i = 0; i < nexpect(s); i++) {
		size_t used = strlen(want);

		snprintf(want + used, sizeof(want) - used, "%s%s/%s", i ? ", " : "",
			 s->want[i].function, s->want[i].factor);
	}
	if (!want[0])
		snprintf(want, sizeof(want), "no slowdown precondition");
	if (j)
		found_str(j, got, sizeof(got));
	else
		snprintf(got, sizeof(got), "(no report)");
	printf("SCORE %-14s expected: %-50s found: %-50s %s\n", s->name, want, got,
	       pass ? "PASS" : "FAIL");
}

/*
 * The trace of a failed scenario goes to .output/e2e-failed/ (the temporary
 * directory is removed at exit): an intermittent failure in CI can then be
 * looked at with xlprobe report and dump.
 */
static void keep_failed(const char *trace)
{
	char dir[512], cmd[1400];

	snprintf(dir, sizeof(dir), "%s/.output/e2e-failed", tl_root());
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s' '%s/'", dir, trace, dir);
	if (system(cmd))
		fprintf(stderr, "  cannot keep %s\n", trace);
	else
		fprintf(stderr, "  trace kept in %s\n", dir);
}

static void run_scenario(const struct scenario *s)
{
	char trace[300], dev[64] = "", cg[256] = "";
	int before = tl_failed_checks;
	struct json *j = NULL;

	paths();
	snprintf(trace, sizeof(trace), "%s/%s%s.xlp", xt_tmpdir(), s->sampled ? "sampled-" : "",
		 s->name);
	if (s->disk && disk_setup(s->disk, dev, sizeof(dev), cg, sizeof(cg))) {
		CHECK(0, "cannot set up the throttled loop device");
		goto out;
	}
	if (record(s, trace, s->disk ? dev : NULL, cg[0] ? cg : NULL)) {
		CHECK(0, "%s: recording failed", s->name);
		goto out;
	}
	j = report(trace);
	CHECK(j, "%s: no report", s->name);
	if (j)
		check_report(s, j);
out:
	if (s->disk)
		disk_teardown();
	if (tl_failed_checks != before)
		keep_failed(trace);
	scorecard(s, j, tl_failed_checks == before);
	json__free(j);
}

#define SCENARIO(id, ...)                                                                          \
	TEST(id)                                                                                   \
	{                                                                                          \
		static const struct scenario s = {__VA_ARGS__};                                    \
		run_scenario(&s);                                                                  \
	}

SCENARIO(network_delay, "net", {{"fetch_remote", "net_block"}})
/* CPU-only causes are told from a tail by their distinct mode alone; the
 * slow runs' own spread (background CPU noise scales with their length)
 * needs 20 of them, not 10, for p <= 0.001 (docs/analysis.md). */
SCENARIO(programming_flaw, "cpu", {{"compute_checksum", "cpu_run"}}, .args = {"--runs", "80"})
SCENARIO(background_load_other_process, "bgload", {{"compute_checksum", "cpu_wait"}},
	 .whole_run = true)
SCENARIO(background_load_same_process, "bgload_thread", {{"compute_checksum", "cpu_wait"}},
	 .whole_run = true)
/* PerfProbe V-D: disk-heavy background threads make the whole run look
 * disk-bound; the function that made it slow only used more CPU.
 * load_config reads a loop device (page-cached backing file), so the
 * readers' disk traffic does not slow it as well. 120 runs: the slow runs'
 * CPU time spreads over 2x with the background threads' noise. */
SCENARIO(background_disk_baseline_wrong, "bg_disk_cpu", {{"compute_checksum", "cpu_run"}},
	 .baseline_wrong = true, .disk = 1, .args = {"--runs", "120"})
SCENARIO(throttled_disk, "disk", {{"load_config", "disk_block"}}, .disk = 2)
SCENARIO(slow_peer_process, "ipc", {{"ask_peer", "ipc_wait"}}, .peer = "peerproc")
SCENARIO(lock_contention, "lock", {{"update_cache", "lock_wait"}})
SCENARIO(timer, "timer", {{"wait_tick", "timer_sleep"}})
/* Each cause in half of the perturbed runs: 320 runs give each 40, as the
 * CPU-only cause needs for its distinct mode to reach p <= 0.001 reliably (with 40,
 * five 4x-slower runs give p ~ 0.003: the report then rightly says the
 * evidence is too thin). Both causes add ~100 ms here, not ~50: at 50 the
 * sampled twin's leaf (crunch) showed its fast runs up to 28-29 ms and its
 * slow ones from 32-39 ms in one recording in ~6 (gap p = 0.002 to 0.012:
 * the evidence too thin, as the report said). The two stay of one size, or
 * median + 1 sigma, widened by the larger, leaves the smaller at the
 * threshold. */
SCENARIO(two_causes, "two", {{"fetch_remote", "net_block"}, {"compute_checksum", "cpu_run"}},
	 .args = {"--runs", "320", "--cpu-mult", "10", "--delay-ms", "100"})
SCENARIO(no_perturbation, "none", {{NULL, NULL}})

/*
 * The same with --interaction alone. Every perturbation adds at least 50 ms
 * to its function, 50 periods of the default 1 ms sampling (the adaptive
 * period stays there for this app at the 3 % bound): each is long enough
 * to be sampled. A function is found when its added time in a slow run
 * spans several periods and its fast runs' time differs from it by more
 * than a period (docs/recording.md, Stack sampling: what sampling can find).
 */
SCENARIO(sampled_network_delay, "net", {{"fetch_remote", "net_block"}}, .sampled = true)
/* Sampled CPU time spreads the slow mode wider than measured time (1 ms
 * samples, and each slow run's share of the machine's noise): 18 slow runs
 * of 80 left a 6x mode at p = 0.001-0.003 in CI, the report rightly saying
 * "record more runs"; 160 give it 40 (docs/analysis.md: Evidence, its operating
 * characteristic). */
SCENARIO(sampled_programming_flaw, "cpu", {{"compute_checksum", "cpu_run"}}, .sampled = true,
	 .args = {"--runs", "160"})
SCENARIO(sampled_background_load, "bgload", {{"compute_checksum", "cpu_wait"}}, .sampled = true,
	 .whole_run = true)
SCENARIO(sampled_background_load_same_process, "bgload_thread", {{"compute_checksum", "cpu_wait"}},
	 .sampled = true, .whole_run = true)
SCENARIO(sampled_background_disk_baseline_wrong, "bg_disk_cpu", {{"compute_checksum", "cpu_run"}},
	 .baseline_wrong = true, .disk = 1, .sampled = true, .args = {"--runs", "120"})
SCENARIO(sampled_throttled_disk, "disk", {{"load_config", "disk_block"}}, .disk = 2,
	 .sampled = true)
SCENARIO(sampled_slow_peer_process, "ipc", {{"ask_peer", "ipc_wait"}}, .sampled = true)
SCENARIO(sampled_lock_contention, "lock", {{"update_cache", "lock_wait"}}, .sampled = true)
SCENARIO(sampled_timer, "timer", {{"wait_tick", "timer_sleep"}}, .sampled = true)
SCENARIO(sampled_two_causes, "two",
	 {{"fetch_remote", "net_block"}, {"compute_checksum", "cpu_run"}}, .sampled = true,
	 .args = {"--runs", "320", "--cpu-mult", "10", "--delay-ms", "100"})
SCENARIO(sampled_no_perturbation, "none", {{NULL, NULL}}, .sampled = true)

/* ---- the judge itself, on crafted reports (no recording, no root) ---- */

/* Failed checks of check_report on text; they are not counted, nor shown. */
static int judge(const struct scenario *s, const char *text)
{
	int before = tl_failed_checks, failed, fd = dup(2), null = open("/dev/null", O_WRONLY);
	char perr[256];
	struct json *j = json__parse(text, perr, sizeof(perr));

	if (!j) {
		fprintf(stderr, "  crafted JSON: %s\n", perr);
		return -1;
	}
	fflush(stderr);
	dup2(null, 2);
	check_report(s, j);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	close(null);
	json__free(j);
	failed = tl_failed_checks - before;
	tl_failed_checks = before;
	return failed;
}

/* crunch accused with factor fac, its chain from chain_head (or alone), and another */
static const char *crafted(char *buf, size_t len, const char *chain_head, const char *fac,
			   const char *other)
{
	char chain[128] = "", crunch[256], second[256];

	if (chain_head)
		snprintf(chain, sizeof(chain), "{\"function\": \"%s\"}, ", chain_head);
	strcat(chain, "{\"function\": \"crunch\"}");
	json__crafted_critical(crunch, sizeof(crunch), "crunch", chain, fac, true, NULL);
	if (other)
		json__crafted_critical(second, sizeof(second), other, "", "lock_wait", true, NULL);
	snprintf(buf, len,
		 "{\"status\": \"ok\", \"preconditions\": [{}], \"rejected_functions\": [],"
		 " \"critical_functions\": [%s%s%s]}",
		 crunch, other ? ", " : "", other ? second : "");
	return buf;
}

/*
 * The expected function anywhere on the chain of the function accused is
 * found (the sampled bg_disk_cpu named crunch, compute_checksum → crunch,
 * and the scorecard had said FAIL for it); the judge still fails a chain
 * without it, the wrong factor, and a second accusation.
 */
TEST(judge_accepts_the_expected_function_on_the_chain)
{
	static const struct scenario sampled = {"cpu",
						{{"compute_checksum", "cpu_run"}},
						.sampled = true},
				     marked = {"cpu", {{"compute_checksum", "cpu_run"}}};
	char buf[1024], found[256];
	struct json *j;

	CHECK(judge(&sampled, crafted(buf, sizeof(buf), "compute_checksum", "cpu_run", NULL)) == 0,
	      "%s", buf);
	CHECK(judge(&marked, crafted(buf, sizeof(buf), "compute_checksum", "cpu_run", NULL)) == 0,
	      "%s", buf);
	CHECK(judge(&sampled, crafted(buf, sizeof(buf), NULL, "cpu_run", NULL)) > 0,
	      "crunch alone passed for compute_checksum");
	CHECK(judge(&sampled, crafted(buf, sizeof(buf), "load_config", "cpu_run", NULL)) > 0,
	      "a chain without compute_checksum passed");
	CHECK(judge(&sampled, crafted(buf, sizeof(buf), "compute_checksum", "cpu_wait", NULL)) > 0,
	      "the wrong factor passed");
	CHECK(judge(&sampled, crafted(buf, sizeof(buf), "compute_checksum", "cpu_run", "render")) >
		      0,
	      "a second accusation passed");
	/* the scorecard's "found" shows the chain the judge read */
	j = json__parse(crafted(buf, sizeof(buf), "compute_checksum", "cpu_run", "render"), NULL,
			0);
	REQUIRE(j, "crafted JSON");
	found_str(j, found, sizeof(found));
	CHECK(!strcmp(found, "compute_checksum → crunch/cpu_run, render/lock_wait"), "found: %s",
	      found);
	json__free(j);
}

/*
 * A scenario that perturbs nothing accepts a function slowed by the machine
 * alone (cpu_run or cpu_steal its only factor), never a wait.
 */
TEST(judge_accepts_the_machine_in_an_unperturbed_scenario)
{
	static const struct scenario none = {"none", {{NULL, NULL}}};
	char buf[1024];

	CHECK(judge(&none, crafted(buf, sizeof(buf), NULL, "cpu_run", NULL)) == 0, "%s", buf);
	CHECK(judge(&none, crafted(buf, sizeof(buf), NULL, "cpu_steal", NULL)) == 0, "%s", buf);
	CHECK(judge(&none, crafted(buf, sizeof(buf), NULL, "lock_wait", NULL)) > 0,
	      "a wait passed in an unperturbed scenario");
	CHECK(judge(&none, crafted(buf, sizeof(buf), NULL, "cpu_run", "render")) > 0,
	      "cpu_run beside a wait passed in an unperturbed scenario");
}

TEST_MAIN()
