/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every error a user can cause with `xlprobe record`: one line naming the
 * cause and the fix, a non-zero exit, and no file left that looks like a
 * recording. Runs as root with real eBPF.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "elfsym.h"
#include "testlib.h"
#include "xlptest.h"

/* xt_xlt: the test build, which has the test hooks (user/lib/testhooks.h) */
static char err[8192];

/* One line on stderr, containing want. */
#define check_message(want) XT_CHECK_MESSAGE(err, want)

static int record_with(char *bin, char **extra, int nextra)
{
	char *argv[32] = {bin, "record", "-q"};
	int n = 3;

	for (int i = 0; i < nextra && n < 31; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	return xt_run(argv, 30000, NULL, 0, err, sizeof(err));
}

static int record(char **extra, int nextra)
{
	return record_with(xt_xl, extra, nextra);
}

static int spawn_waiting_funcs(struct xt_proc *w)
{
	char *argv[] = {xt_wl, "--wait-signal", NULL};

	return xt_spawn_ready(argv, w, 10000);
}

TEST(not_root)
{
	const char *out = xt_tmp_path("nonroot.xlp");
	char *argv[] = {"/usr/bin/setpriv", "--reuid=65534",
			"--regid=65534",    "--clear-groups",
			"--inh-caps=-all",  xt_xl,
			"record",	    "-o",
			(char *)out,	    "-f",
			"/bin/true:main",   "--",
			"/bin/true",	    NULL};
	int rc;

	xt_paths("funcs");
	chmod(xt_tmpdir(), 0777);
	rc = xt_run(argv, 30000, NULL, 0, err, sizeof(err));
	CHECK(rc == 1, "exit %d", rc);
	check_message("needs root (or CAP_BPF and CAP_PERFMON): run it with sudo");
	CHECK(access(out, F_OK) != 0, "left %s behind", out);
}

TEST(no_such_pid)
{
	char *a[] = {"-p", "4194000", "-f", "/bin/true:main"};

	xt_paths("funcs");
	CHECK(record(a, 4) == 1);
	check_message("no process with PID 4194000");
}

TEST(pid_exits_during_attach)
{
	const char *out = xt_tmp_path("exits.xlp");
	char pid_s[16], spec[300];
	char *argv[] = {xt_xlt, "record", "-q", "-p", pid_s, "-f", spec, "-o", (char *)out, NULL};
	struct xt_proc w, x;
	int pid, rc;

	xt_paths("funcs");
	pid = spawn_waiting_funcs(&w);
	REQUIRE(pid > 0);
	snprintf(pid_s, sizeof(pid_s), "%d", pid);
	snprintf(spec, sizeof(spec), "%s:parent", xt_wl);
	setenv("XLPROBE_TEST_ATTACH_DELAY_MS", "1500", 1);
	rc = xt_spawn(argv, &x);
	unsetenv("XLPROBE_TEST_ATTACH_DELAY_MS");
	REQUIRE(!rc);
	{
		char line[256];

		/* functions resolved, attach delayed (the hook says so): the target goes now */
		CHECK(!xt_read_line(x.err_fd, line, sizeof(line), 30000) &&
			      strstr(line, "attach delayed"),
		      "no word of the delayed attach: %s", line);
	}
	xt_kill(&w);
	rc = xt_wait(&x, 30000, NULL, 0, err, sizeof(err));
	CHECK(rc == 1, "exit %d", rc);
	check_message("exited while xlprobe was attaching");
	CHECK(access(out, F_OK) != 0, "left %s behind", out);
}

TEST(binary_not_elf)
{
	char *a[] = {"-o",	 (char *)xt_tmp_path("x.xlp"), "-f", "/etc/passwd:main", "--",
		     "/bin/true"};

	xt_paths("funcs");
	CHECK(record(a, 6) == 1);
	check_message("/etc/passwd is not an ELF file");
}

TEST(library_not_mapped_by_pid)
{
	struct xt_proc w;
	char pid_s[16];
	char *a[] = {"-p", pid_s, "-f", "libnotthere.so.9:foo"};
	int pid;

	xt_paths("funcs");
	pid = spawn_waiting_funcs(&w);
	REQUIRE(pid > 0);
	snprintf(pid_s, sizeof(pid_s), "%d", pid);
	CHECK(record(a, 4) == 1);
	check_message("not mapped by PID");
	xt_kill(&w);
}

TEST(symbol_not_found_suggests)
{
	char spec[300];
	char *a[] = {"-o", (char *)xt_tmp_path("x.xlp"), "-f", spec, "--", xt_wl};

	xt_paths("funcs");
	snprintf(spec, sizeof(spec), "%s:spin_20m", xt_wl);
	CHECK(record(a, 6) == 1);
	check_message("no function 'spin_20m'");
	CHECK(strstr(err, "did you mean") && strstr(err, "spin_20ms"), "%s", err);
}

TEST(offset_not_at_function_start)
{
	struct elfsym_target *t = NULL;
	char spec[300], msg[256];
	size_t n = 0;
	char *a[] = {"-o", (char *)xt_tmp_path("x.xlp"), "-f", spec, "--", xt_wl};

	xt_paths("funcs");
	snprintf(spec, sizeof(spec), "%s:spin_20ms", xt_wl);
	REQUIRE(!elfsym__resolve(spec, 0, &t, &n, msg, sizeof(msg)) && n == 1, "%s", msg);
	snprintf(spec, sizeof(spec), "%s:0x%llx", xt_wl, (unsigned long long)t[0].offset + 1);
	elfsym__free_targets(t, n);
	CHECK(record(a, 6) == 1);
	check_message("is not at a function start");
}

TEST(output_not_writable)
{
	char spec[300];
	char *a[] = {"-o", "/nonexistent-dir/x.xlp", "-f", spec, "--", xt_wl};

	xt_paths("funcs");
	snprintf(spec, sizeof(spec), "%s:parent", xt_wl);
	CHECK(record(a, 6) == 1);
	check_message("cannot write /nonexistent-dir/x.xlp");
	CHECK(strstr(err, "-o"), "the fix names -o: %s", err);
}

/* A small tmpfs fills up mid-recording: stop, say so, keep a valid prefix. */
TEST(disk_full_during_recording)
{
	const char *dir = xt_tmp_path("full");
	char out[300], spec[300];
	char *a[] = {"-o", out, "-f", spec, "--", xt_wl, "--bench", "400000"};
	struct xt_trace t;
	int rc;

	xt_paths("funcs");
	mkdir(dir, 0755);
	REQUIRE(!mount("tmpfs", dir, "tmpfs", 0, "size=96k"), "mount tmpfs");
	snprintf(out, sizeof(out), "%s/t.xlp", dir);
	snprintf(spec, sizeof(spec), "%s:cheap", xt_wl);
	rc = record(a, 8);
	CHECK(rc == 1, "exit %d", rc);
	check_message("No space left on device");
	if (!xt_trace_load(out, &t)) {
		CHECK(t.status == TRACE_TRUNCATED, "a cut-short file must read as truncated");
		CHECK(t.ncalls > 0, "what was written before the disk filled is readable");
		xt_trace_free(&t);
	} else {
		CHECK(0, "the file left behind must be readable");
	}
	umount2(dir, MNT_DETACH);
}

/* A kernel lacking something, simulated through a hook of the test build. */
static void record_with_env(const char *var, const char *value, const char *want)
{
	char spec[300];
	char *a[] = {"-o", (char *)xt_tmp_path("x.xlp"), "-f", spec, "--", xt_wl};

	xt_paths("funcs");
	snprintf(spec, sizeof(spec), "%s:parent", xt_wl);
	setenv(var, value, 1);
	CHECK(record_with(xt_xlt, a, 6) == 1);
	unsetenv(var);
	check_message(want);
	CHECK(access(xt_tmp_path("x.xlp"), F_OK) != 0, "left a file behind");
}

TEST(kernel_without_btf_simulated)
{
	record_with_env("XLPROBE_TEST_BTF", "/nonexistent/vmlinux", "kernel has no BTF");
}

TEST(kernel_without_tracepoint_simulated)
{
	record_with_env("XLPROBE_TEST_HIDE_TP", "sched_switch",
			"kernel lacks the sched_switch tracepoint");
}

TEST(command_not_found)
{
	char spec[300];
	char *a[] = {"-o", (char *)xt_tmp_path("nocmd.xlp"), "-f", spec, "--", "/nonexistent/cmd"};

	xt_paths("funcs");
	snprintf(spec, sizeof(spec), "%s:parent", xt_wl);
	CHECK(record(a, 6) == 1);
	check_message("cannot run '/nonexistent/cmd'");
	CHECK(access(xt_tmp_path("nocmd.xlp"), F_OK) != 0, "left a file behind");
}

TEST(bad_usage)
{
	char *a[] = {"-p", "12", "-f", "/bin/true:main", "--", "/bin/true"};
	char *b[] = {"-f", "/bin/true:main"};
	char *c[] = {"-p", "abc", "-f", "/bin/true:main"};

	xt_paths("funcs");
	CHECK(record(a, 6) == 2);
	check_message("both -p and a command");
	CHECK(record(b, 2) == 2);
	check_message("no target");
	CHECK(record(c, 4) == 2);
	check_message("bad PID 'abc'");
}

/* The issue-22 options: each misuse named, with its fix, exit 2. */
TEST(bad_wait_and_task_options)
{
	char *a[] = {"-p", "12", "-i", "/bin/true:main", "--until", "/bin/true:main"};
	char *b[] = {"-p", "12", "--until", "/bin/true:main", "--key", "arg0"};
	char *c[] = {"-p", "12", "-i", "/bin/true:main", "--task-post", "/bin/true:main"};
	char *d[] = {"-p", "12", "-i", "/bin/true:main", "--task-run", "/bin/true:main:arg7"};
	char *e[] = {"-p", "12", "--task-post", "/bin/true:main:arg0"};
	char *f[] = {"-p", "12", "-i", "/bin/true:main", "--no-waker-history"};
	char *g[] = {"-p", "12", "-i", "/bin/true:main", "--until", "/bin/true:main", "--key", "x"};
	char *h[] = {"-p", "12", "-i", "/bin/true:main", "--no-cpu-sched"};

	xt_paths("funcs");
	CHECK(record(a, 6) == 2);
	check_message("--until and --key go together");
	CHECK(record(b, 6) == 2);
	check_message("--until without --interaction");
	CHECK(record(c, 6) == 2);
	check_message("bad --task-post '/bin/true:main': expected BINARY:SYMBOL:argN");
	CHECK(record(d, 6) == 2);
	check_message("bad --task-run '/bin/true:main:arg7'");
	CHECK(record(e, 4) == 2);
	check_message("--task-post/--task-run without --interaction");
	CHECK(record(f, 5) == 2);
	check_message("--no-waker-history without --timeline");
	CHECK(record(g, 8) == 2);
	check_message("bad --key 'x'");
	CHECK(record(h, 5) == 2);
	check_message("--no-cpu-sched without --timeline: add --timeline, or drop it");
}

/* record --size, --sizes, --size-arg: each misuse named, with its fix, exit 2. */
TEST(bad_size_options)
{
	struct {
		char *args[10];
		const char *want;
	} c[] = {
		{{"--size", "0", "--", "/bin/true"}, "bad --size '0': expected a positive integer"},
		{{"--size", "-3", "--", "/bin/true"}, "bad --size '-3'"},
		{{"--size", "12k", "--", "/bin/true"}, "bad --size '12k'"},
		{{"--sizes", "1,,2", "--", "/bin/true", "{}"}, "bad --sizes '1,,2'"},
		{{"--sizes", "3,0", "--", "/bin/true", "{}"}, "bad --sizes '3,0'"},
		{{"--sizes", "3,5", "--", "/bin/true"}, "--sizes without {} in the command"},
		{{"--sizes", "3", "-p", "12"}, "--sizes needs a command"},
		{{"--size", "3", "--sizes", "3", "--", "/bin/true", "{}"},
		 "both --size and --sizes given"},
		{{"-i", "/bin/true:main", "--size-arg", "0", "--sizes", "3", "--", "/bin/true",
		  "{}"},
		 "both --size-arg and --sizes given"},
		{{"--size-arg", "0", "--", "/bin/true"}, "--size-arg without --interaction"},
		{{"-i", "/bin/true:main", "--size-arg", "5", "--", "/bin/true"},
		 "bad --size-arg '5': expected N from 0"},
		{{"-i", "/bin/true:main", "--size-arg", "x", "--", "/bin/true"},
		 "bad --size-arg 'x'"},
	};

	xt_paths("funcs");
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int n = 0;

		while (n < 10 && c[i].args[n])
			n++;
		CHECK(record(c[i].args, n) == 2, "case %zu", i);
		check_message(c[i].want);
	}
}

/* xlprobe CMD ARGS...: the exit status, stderr in err. */
static int command(char **args, int n)
{
	char *argv[16] = {xt_xl};

	for (int i = 0; i < n && i < 14; i++)
		argv[i + 1] = args[i];
	argv[n + 1] = NULL;
	return xt_run(argv, 30000, NULL, 0, err, sizeof(err));
}

/* report --growth and xlprobe issues: each misuse named, with its fix, exit 2. */
TEST(bad_growth_and_issues_options)
{
	char *a[] = {"report", "--predict-size", "1000", "x.xlp"};
	char *b[] = {"report", "--growth", "--predict-size", "zero", "x.xlp"};
	char *c[] = {"issues"};
	char *d[] = {"issues", "--lag", "100", "x.xlp"};
	char *e[] = {"issues", "--frobnicate", "x.xlp"};
	char *f[] = {"issues", "/nonexistent/x.xlp"};
	char *g[] = {"export", "--csv", "--table", "lags", "--lag", "soon", "x.xlp"};

	xt_paths("funcs");
	CHECK(command(a, 4) == 2);
	check_message("--predict-size needs --growth");
	CHECK(command(b, 5) == 2);
	check_message("invalid --predict-size 'zero'");
	CHECK(command(c, 1) == 2);
	check_message("no trace file given");
	CHECK(command(d, 4) == 2);
	check_message("bad --lag '100': give a duration with a unit");
	CHECK(command(e, 3) == 2);
	check_message("unknown option '--frobnicate'");
	CHECK(command(f, 2) == 1);
	check_message("/nonexistent/x.xlp");
	CHECK(command(g, 7) == 2);
	check_message("bad --lag 'soon'");
}

/* record --lag, --lag-keep, several -i: each misuse named, with its fix, exit 2. */
TEST(bad_lag_options)
{
	struct {
		char *args[12];
		const char *want;
	} c[] = {
		{{"--lag", "100ms", "--", "/bin/true"}, "--lag without --interaction"},
		{{"-i", "/bin/true:main", "--lag", "100", "--", "/bin/true"},
		 "bad --lag '100': expected a duration above 0 with its unit"},
		{{"-i", "/bin/true:main", "--lag", "0ms", "--", "/bin/true"}, "bad --lag '0ms'"},
		{{"-i", "/bin/true:main", "--lag", "soon", "--", "/bin/true"}, "bad --lag 'soon'"},
		{{"-i", "/bin/true:main", "--lag", "100ms", "--lag-keep", "0", "--", "/bin/true"},
		 "bad --lag-keep '0': expected a count from 1"},
		{{"-i", "/bin/true:main", "--lag-keep", "5", "--", "/bin/true"},
		 "--lag-keep without --lag"},
		{{"-i", "/bin/true:main", "-i", "/bin/true:exit", "--until", "/bin/true:main",
		  "--key", "arg0", "--", "/bin/true"},
		 "--until with several --interaction"},
		{{"-i", "/bin/true:main", "--until", "/bin/true:exit", "--key", "arg0", "--lag",
		  "100ms", "--", "/bin/true"},
		 "--lag with --until"},
	};

	xt_paths("funcs");
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int n = 0;

		while (n < 12 && c[i].args[n])
			n++;
		CHECK(record(c[i].args, n) == 2, "case %zu", i);
		check_message(c[i].want);
	}
}

TEST_MAIN()
