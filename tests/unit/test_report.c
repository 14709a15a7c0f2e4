/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `xlprobe report` as a command: bad input, options, the text report. */
#include <stdint.h>
#include <unistd.h>
#include <zlib.h>
#include "testlib.h"
#include "json.h"
#include "synth.h"
#include "xlptest.h"

static char out[1 << 16], err[1 << 14];

static const char *tmp(const char *name)
{
	return xt_tmp_path(name);
}

/* One line "xlprobe: <cause>: <fix>" on stderr. */
static bool one_error_line(const char *s, const char *want)
{
	const char *nl = strchr(s, '\n');

	return !strncmp(s, "xlprobe: ", 9) && strstr(s, want) && nl && !nl[1];
}

static const char *scenario(const char *name, struct synth_scenario *sc)
{
	sc->path = tmp(name);
	CHECK(!synth__scenario(sc), "synth__scenario");
	return sc->path;
}

TEST(no_file)
{
	int rc = synth__report(out, sizeof(out), err, sizeof(err), NULL);

	/* a usage error, exit 2 as for dump and export (1 is unusable input) */
	CHECK(rc == 2, "rc %d", rc);
	CHECK(one_error_line(err, "report: no trace file given: run 'xlprobe report FILE...'"),
	      "%s", err);
	CHECK(!out[0], "stdout '%s'", out);
}

/*
 * The binary, as a user runs it: no trace file is a usage error for each
 * command that reads one, exit 2 and one line naming the command and the fix.
 */
TEST(no_file_exits_2_like_dump_and_export)
{
	static const char *const cmds[][2] = {
		{"report", NULL}, {"dump", NULL}, {"export", "--jsonl"}};
	char xl[256], want[64];

	xt_out("xlprobe", xl, sizeof(xl));
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *argv[] = {xl, (char *)cmds[i][0], (char *)cmds[i][1], NULL};
		int rc = xt_run(argv, 10000, out, sizeof(out), err, sizeof(err));

		CHECK(rc == 2, "%s without a file: exit %d", cmds[i][0], rc);
		snprintf(want, sizeof(want), "%s: no trace file given: run 'xlprobe %s", cmds[i][0],
			 cmds[i][0]);
		XT_CHECK_MESSAGE(err, want);
		CHECK(!out[0], "%s: stdout '%s'", cmds[i][0], out);
	}
}

TEST(missing_file)
{
	int rc = synth__report(out, sizeof(out), err, sizeof(err), tmp("nope.xlp"), NULL);

	CHECK(rc == 1, "rc %d", rc);
	CHECK(one_error_line(err, "nope.xlp: no such file"), "%s", err);
}

TEST(empty_trace)
{
	static const struct synth_func f[] = {{"/bin/app", "on_click", true}};
	const char *path = tmp("empty.xlp");
	struct synth *s;
	int rc;

	REQUIRE(!synth__open(path, 0, 0, f, 1, &s), "-");
	REQUIRE(!synth__close(s, NULL, 0), "-");
	rc = synth__report(out, sizeof(out), err, sizeof(err), path, NULL);
	CHECK(rc == 1, "rc %d", rc);
	CHECK(one_error_line(err, "empty.xlp is empty (no records)"), "%s", err);
	/* header only, not even a footer */
	REQUIRE(!synth__open(path, 0, 0, f, 1, &s), "-");
	synth__abort(s);
	rc = synth__report(out, sizeof(out), err, sizeof(err), path, NULL);
	CHECK(rc == 1, "rc %d", rc);
	CHECK(one_error_line(err, "empty.xlp is empty (no records)"), "%s", err);
}

TEST(no_runs_marked)
{
	static const struct synth_func f[] = {{"/bin/app", "work", false}};
	const char *path = tmp("norun.xlp");
	uint64_t c[XLP_NR_CTR] = {[XLP_C_WALL] = 100, [XLP_C_CPU_RUN] = 100};
	struct synth *s;
	int rc;

	REQUIRE(!synth__open(path, 0, 0, f, 1, &s), "-");
	REQUIRE(!synth__call(s, 0, 1, 1, 0, 1000, c, NULL, 0, NULL), "-");
	REQUIRE(!synth__close(s, NULL, 0), "-");
	rc = synth__report(out, sizeof(out), err, sizeof(err), path, NULL);
	CHECK(rc == 1, "rc %d", rc);
	CHECK(one_error_line(err, "norun.xlp has no runs: record with --interaction "
				  "BINARY:SYMBOL (or --repeat N -- CMD) to mark what a run is"),
	      "%s", err);
}

/* Rewrites the header's version and its CRC, as a future xlprobe would write it. */
static int set_version(const char *path, uint32_t v)
{
	FILE *f = fopen(path, "r+b");
	uint8_t pre[20], *payload;
	uint32_t plen, crc;
	int ret = -1;

	if (!f || fread(pre, 1, 20, f) != 20)
		goto cleanup;
	memcpy(&plen, pre + 12, 4);
	payload = malloc(plen + 1);
	if (!payload || fread(payload, 1, plen, f) != plen) {
		free(payload);
		goto cleanup;
	}
	memcpy(pre + 8, &v, 4);
	crc = (uint32_t)crc32(crc32(0, pre + 8, 8), payload, plen);
	memcpy(pre + 16, &crc, 4);
	free(payload);
	rewind(f);
	ret = fwrite(pre, 1, 20, f) == 20 ? 0 : -1;
cleanup:
	if (f)
		fclose(f);
	return ret;
}

TEST(newer_format_version)
{
	struct synth_scenario sc = {.factor = SYNTH_DISK, .slow_func = 1, .seed = 1};
	const char *path = scenario("v99.xlp", &sc);
	char want[128];
	int rc;

	REQUIRE(!set_version(path, 99), "-");
	rc = synth__report(out, sizeof(out), err, sizeof(err), path, NULL);
	CHECK(rc == 1, "rc %d", rc);
	snprintf(want, sizeof(want),
		 "v99.xlp: format version 99 is newer than this xlprobe (%d): upgrade xlprobe",
		 XLP_TRACE_VERSION);
	CHECK(one_error_line(err, want), "%s", err);
}

/* Cut short (no footer, last chunk torn): a warning, and the analysis of what was read. */
TEST(truncated_trace)
{
	struct synth_scenario sc = {
		.factor = SYNTH_DISK, .slow_func = 1, .seed = 2, .truncate = true};
	const char *path = scenario("cut.xlp", &sc), *js = tmp("cut.json");
	struct json *j;
	char jerr[128];
	int rc;

	{
		FILE *f = fopen(path, "rb");
		long size;

		REQUIRE(f, "-");
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		fclose(f);
		REQUIRE(!truncate(path, size - 300), "-");
	}
	rc = synth__report(out, sizeof(out), err, sizeof(err), "--json", "-o", js, path, NULL);
	CHECK(rc == 0, "rc %d: %s", rc, err);
	CHECK(one_error_line(err, "warning: ") && strstr(err, "cut.xlp is truncated"), "%s", err);
	j = json__load(js, jerr, sizeof(jerr));
	REQUIRE(j, "%s", jerr);
	CHECK(json__bool(json__get(j, "truncated")) == 1, "-");
	CHECK(json__num(json__get(j, "runs.count")) >= 55 &&
		      json__num(json__get(j, "runs.count")) < 60,
	      "%g runs read", json__num(json__get(j, "runs.count")));
	CHECK(!strcmp(json__str(json__get(j, "critical_functions[0].function")), "load_config"),
	      "-");
	json__free(j);
	rc = synth__report(out, sizeof(out), err, sizeof(err), path, NULL);
	CHECK(strstr(out, "warning: ") && strstr(out, "is truncated"), "in the text report too");
}

TEST(bad_options)
{
	const char *bad[][2] = {{"--alpha", "2"},	{"--slow", "250"},     {"--top-k", "0"},
				{"--slow", "x"},	{"--max-depth", "-1"}, {"--bogus", NULL},
				{"--json", "--min-gap"}};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = synth__report(out, sizeof(out), err, sizeof(err), bad[i][0], bad[i][1],
				       "x.xlp", NULL);

		CHECK(rc == 2, "%s %s: rc %d", bad[i][0], bad[i][1], rc);
		CHECK(one_error_line(err, bad[i][0][2] == 'b' ? "unknown option" : "--"), "%s",
		      err);
	}
}

TEST(help)
{
	int rc = synth__report(out, sizeof(out), err, sizeof(err), "--help", NULL);

	CHECK(rc == 0, "-");
	CHECK(strstr(out, "Usage: xlprobe report [options] FILE...") && strstr(out, "--slow-sigma"),
	      "-");
	CHECK(!err[0], "%s", err);
}

TEST(text_report)
{
	struct synth_scenario sc = {.factor = SYNTH_DISK, .slow_func = 1, .seed = 3};
	const char *path = scenario("text.xlp", &sc);
	int rc = synth__report(out, sizeof(out), err, sizeof(err), path, NULL);
	const char *want[] = {
		"60 runs: median ",
		"15 slow: latency > ",
		"(median + 1σ)",
		"1. runs are slow when load_config > ",
		"(15 of 15 slow runs)",
		"Critical function #1 load_config (app): slow when > ",
		"% of the added latency",
		"    mode: DISTINCT: time: no run between ",
		"    bursts: spread out: 15 runs past the threshold in ",
		"    resource: ",
		"    => a slowdown with a cause",
		"factor: disk_block > ",
		"holds for 15 of 15 slow",
		"cpu_freq        unavailable",
		"Baseline: whole-run resource usage",
		"agrees with the function-level answer",
		"CPU frequency: unavailable (no cpufreq driver)",
		"no events lost",
		"Verdict: slow runs are explained by load_config > ",
	};

	CHECK(rc == 0, "rc %d: %s", rc, err);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(strstr(out, want[i]), "missing \"%s\" in:\n%s", want[i], out);
	CHECK(!strstr(out, "Functions (median"), "table only without a precondition");
}

TEST(text_no_precondition)
{
	struct synth_scenario sc = {.seed = 4};
	const char *path = scenario("quiet.xlp", &sc);
	int rc = synth__report(out, sizeof(out), err, sizeof(err), path, NULL);

	CHECK(rc == 0, "rc %d", rc);
	CHECK(strstr(out, "\nno slowdown precondition found\n  (the slow runs look like the "
			  "workload's natural tail"),
	      "%s", out);
	CHECK(strstr(out, "Not accused: ") && strstr(out, "=> no evidence of a cause"), "%s", out);
	CHECK(strstr(out, "Functions (median over the runs where each ran)") &&
		      strstr(out, "parse_input"),
	      "%s", out);
	CHECK(!strstr(out, "Critical function"), "-");
}

TEST(few_none_all_slow)
{
	struct synth_scenario few = {.factor = SYNTH_DISK, .slow_func = 1, .seed = 5, .nruns = 8};
	struct synth_scenario sc = {.factor = SYNTH_DISK, .slow_func = 1, .seed = 6};
	const char *p1 = scenario("few.xlp", &few), *p2 = scenario("many.xlp", &sc);

	CHECK(!synth__report(out, sizeof(out), err, sizeof(err), p1, NULL), "-");
	CHECK(strstr(out, "Verdict: only 8 runs: too few"), "%s", out);
	CHECK(strstr(out, "Functions (median"), "table still printed");
	CHECK(!synth__report(out, sizeof(out), err, sizeof(err), "--slow", "10s", p2, NULL), "-");
	CHECK(strstr(out, "Verdict: 60 runs, none slow by --slow 10.0 s (threshold 10.0 s): no "
			  "slowdown to explain"),
	      "%s", out);
	CHECK(!synth__report(out, sizeof(out), err, sizeof(err), "--slow", "1ms", p2, NULL), "-");
	CHECK(strstr(out, "Verdict: all 60 runs are slow"), "%s", out);
}

TEST(html_page)
{
	struct synth_scenario sc = {.factor = SYNTH_IPC, .slow_func = 2, .seed = 8};
	const char *path = scenario("h.xlp", &sc), *html = tmp("r.html");
	const char *ids[] = {"<svg id=\"plot-latency-hist\"", "<svg id=\"plot-latency-runs\"",
			     "<svg id=\"plot-resources\"",    "<svg id=\"tree-step1\"",
			     "<svg id=\"tree-step2-1\"",      "<svg id=\"plot-resources-baseline\"",
			     "<svg id=\"tree-baseline\""};
	int rc = synth__report(out, sizeof(out), err, sizeof(err), "--html", html, path, NULL);

	CHECK(rc == 0, "rc %d: %s", rc, err);
	REQUIRE(!xt_read_file(html, out, sizeof(out)), "no %s", html);
	CHECK(!strncmp(out, "<!DOCTYPE html>", 15) && strstr(out, "</html>"), "-");
	CHECK(strstr(out, "<svg") && strstr(out, "Critical function query_db") &&
		      strstr(out, "waiting for pid 4242 (dbserver)") &&
		      strstr(out, "Resource tree"),
	      "-");
	CHECK(!strstr(out, "<script"), "self-contained, no script");
	/* each plot by its id (tests/unit/test_html_chromium.c counts their elements) */
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		CHECK(strstr(out, ids[i]), "no %s", ids[i]);
}

/*
 * The caveat of a partial sample: first in the verdict (text, JSON, HTML)
 * exactly when more than XLP_LOSS_CAVEAT of the records the programs sent
 * were lost (rb_full in the footer, against the records in the file),
 * and nowhere when as much or less was.
 */
static unsigned long long json_u64(const char *json, const char *key)
{
	const char *p = strstr(json, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

TEST(partial_sample_caveat_synthetic)
{
	struct synth_scenario sc = {.factor = SYNTH_DISK, .slow_func = 1, .seed = 9};
	static const char want[] = "\nVerdict: on a partial, likely biased sample (";
	unsigned long long prog, below;
	const char *html = tmp("caveat.html");

	/* the records the scenario's programs sent: with nothing lost */
	scenario("caveat0.xlp", &sc);
	CHECK(!synth__report(out, sizeof(out), err, sizeof(err), "--json", sc.path, NULL), "%s",
	      err);
	prog = json_u64(out, "\"records_sent\": ");
	REQUIRE(prog > 100, "records_sent %llu", prog);
	CHECK(strstr(out, "\"caveat\": null") && json_u64(out, "\"records_lost\": ") == 0, "%s",
	      out);
	/* the most that is still at most the threshold, then one more */
	below = (unsigned long long)(XLP_LOSS_CAVEAT * prog / (1 - XLP_LOSS_CAVEAT));
	while ((double)(below + 1) / (double)(prog + below + 1) <= XLP_LOSS_CAVEAT)
		below++;
	for (int over = 0; over < 2; over++) {
		sc.rb_full = below + (unsigned long long)over;
		scenario(over ? "caveat2.xlp" : "caveat1.xlp", &sc);
		CHECK(!synth__report(out, sizeof(out), err, sizeof(err), sc.path, NULL), "%s", err);
		CHECK(!!strstr(out, want) == over, "rb_full %llu of %llu:\n%s",
		      (unsigned long long)sc.rb_full, prog + sc.rb_full, out);
		CHECK(!!strstr(out, "of the records were lost while recording: the verdict rests "
				    "on a partial") == over,
		      "header warning");
		/* the verdict itself follows, unchanged */
		if (over)
			CHECK(strstr(out, "were lost while recording: a full ring buffer drops "
					  "them in the busiest periods, where slow runs are): "
					  "slow runs are explained by load_config > "),
			      "%s", out);
		CHECK(!synth__report(out, sizeof(out), err, sizeof(err), "--json", sc.path, NULL),
		      "-");
		CHECK(json_u64(out, "\"records_lost\": ") == sc.rb_full &&
			      json_u64(out, "\"records_sent\": ") == prog + sc.rb_full,
		      "%s", out);
		CHECK(!!strstr(out, "\"caveat\": \"on a partial, likely biased sample (") == over &&
			      !!strstr(out, "\"caveat\": null") == !over,
		      "JSON caveat with rb_full %llu", (unsigned long long)sc.rb_full);
		CHECK(!synth__report(out, sizeof(out), err, sizeof(err), "--html", html, sc.path,
				     NULL),
		      "-");
		REQUIRE(!xt_read_file(html, out, sizeof(out)), "no %s", html);
		CHECK(!!strstr(out, "<p class=\"verdict\"><strong class=\"caveat\">on a "
				    "partial, likely biased sample") == over,
		      "HTML caveat with rb_full %llu", (unsigned long long)sc.rb_full);
	}
}

TEST(output_file_errors)
{
	struct synth_scenario sc = {.factor = SYNTH_DISK, .slow_func = 1, .seed = 7};
	const char *path = scenario("o.xlp", &sc);
	int rc = synth__report(out, sizeof(out), err, sizeof(err), "-o", "/nonexistent/dir/r.txt",
			       path, NULL);

	CHECK(rc == 1, "rc %d", rc);
	CHECK(one_error_line(err, "cannot write /nonexistent/dir/r.txt"), "%s", err);
}

TEST_MAIN()
