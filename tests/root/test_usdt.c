/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * USDT probes as marked functions (record --func usdt:...), with real eBPF
 * (root): listing, the errors of bad specs, begin/end pairs and string
 * filters against the workload's own counts, and semaphores back to 0
 * after any exit of the recorder. Workload: tests/workloads/usdtwl.c.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "json.h"
#include "testlib.h"
#include "usdt.h"
#include "xlptest.h"

/* "usdt:<xt_wl>:rest" in one of 8 buffers used in turn */
static char *spec(const char *rest)
{
	static char buf[8][512];
	static int i;
	char *b = buf[i++ % 8];

	snprintf(b, sizeof(buf[0]), "usdt:%s:%s", xt_wl, rest);
	return b;
}

TEST(list_usdt_binary_and_pid)
{
	static char out[16384];
	char err[2048], want[600], funcs[256], line[256], pidarg[16];
	char *argv[] = {xt_xl, "list", "usdt", xt_wl, NULL};
	char *wargv[] = {xt_wl, "--spin", NULL};
	struct xt_proc w;
	int rc;

	xt_paths("usdtwl");
	rc = xt_run(argv, 30000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 0, "exit %d: %s", rc, err);
	for (size_t i = 0; i < 4; i++) {
		static const char *const names[] = {"work__start", "work__done", "step", "tick"};

		snprintf(want, sizeof(want), "usdt:%s:xlpwl:%s\n", xt_wl, names[i]);
		CHECK(strstr(out, want), "no %s in:\n%s", want, out);
	}
	/* -p: the workload's own probes among its libraries' */
	REQUIRE(xt_spawn(wargv, &w) == 0);
	REQUIRE(xt_read_line(w.out_fd, line, sizeof(line), 20000) == 0); /* SEMA */
	REQUIRE(xt_read_line(w.out_fd, line, sizeof(line), 20000) == 0); /* READY */
	snprintf(pidarg, sizeof(pidarg), "%d", w.pid);
	{
		char *pargv[] = {xt_xl, "list", "usdt", "-p", pidarg, NULL};

		rc = xt_run(pargv, 30000, out, sizeof(out), err, sizeof(err));
		CHECK(rc == 0, "exit %d: %s", rc, err);
		snprintf(want, sizeof(want), "usdt:%s:xlpwl:tick\n", xt_wl);
		CHECK(strstr(out, want), "-p: no %s in:\n%s", want, out);
	}
	xt_kill(&w);
	/* a binary without .note.stapsdt: one line, non-zero */
	xt_out("tests/workloads/funcs", funcs, sizeof(funcs));
	{
		char *nargv[] = {xt_xl, "list", "usdt", funcs, NULL};

		rc = xt_run(nargv, 30000, out, sizeof(out), err, sizeof(err));
		CHECK(rc == 1, "exit %d", rc);
		XT_CHECK_MESSAGE(err, "has no USDT probes (no .note.stapsdt section)");
	}
}

/* record refuses spec with a one-line message holding want, exit non-zero */
static void refused(char *const extra[], const char *want)
{
	char *argv[24], err[4096];
	int a = 0, rc;

	argv[a++] = xt_xl;
	argv[a++] = "record";
	argv[a++] = "--no-sample";
	for (size_t i = 0; extra[i]; i++)
		argv[a++] = extra[i];
	argv[a++] = "-o";
	argv[a++] = (char *)xt_tmp_path("refused.xlp");
	argv[a++] = "--";
	argv[a++] = "/bin/true";
	argv[a] = NULL;
	rc = xt_run(argv, 30000, NULL, 0, err, sizeof(err));
	CHECK(rc != 0 && rc < 128, "exit %d for %s", rc, extra[1]);
	XT_CHECK_MESSAGE(err, want);
}

TEST(bad_usdt_specs)
{
	char funcs[256], nonotes[300];

	xt_paths("usdtwl");
	xt_out("tests/workloads/funcs", funcs, sizeof(funcs));
	snprintf(nonotes, sizeof(nonotes), "usdt:%s:p:n", funcs);
	/* the provider left out */
	refused((char *[]){"-f", spec("tick"), NULL}, "expected usdt:BINARY:PROVIDER:NAME");
	/* a misspelt probe: the closest names */
	refused((char *[]){"-f", spec("xlpwl:tikc"), NULL}, "did you mean xlpwl:tick");
	refused((char *[]){"-f", spec("xlpwl:work__strat,work__done"), NULL},
		"did you mean xlpwl:work__start");
	refused((char *[]){"-f", spec("xlpwl:work__start,work__dnoe"), NULL},
		"did you mean xlpwl:work__done");
	refused((char *[]){"-f", spec("xlpw:tick"), NULL}, "did you mean xlpwl:tick");
	refused((char *[]){"-f", nonotes, NULL}, "has no USDT probes (no .note.stapsdt section)");
	/* arguments past the probe's */
	refused((char *[]){"-f", spec("xlpwl:step:arg2=beta"), NULL},
		"which has 2 arguments (arg0 to arg1)");
	refused((char *[]){"-f", spec("xlpwl:tick:arg0=x"), NULL}, "which has 0 arguments");
	refused((char *[]){"-i", spec("xlpwl:work__start,work__done"), "--size-arg", "1", NULL},
		"--size-arg names arg1");
	refused((char *[]){"-f", spec("xlpwl:step:argx=beta"), NULL}, "expected :argN=STRING");
	/* --until without --key: a USDT interaction's end probe only */
	refused((char *[]){"-i", spec("xlpwl:work__start"), "--until", spec("xlpwl:nope"), NULL},
		"has no USDT probe xlpwl:nope");
}

static int count_calls(const struct xt_trace *t, const char *sym)
{
	int id = xt_func_id(t, sym), n = 0;

	for (size_t i = 0; id >= 0 && i < t->ncalls; i++)
		n += t->calls[i].func_id == (uint32_t)id;
	return n;
}

/* A call's own time: its wall time but for waiting for a CPU and steal. */
static unsigned long long own_time(const __u64 *x)
{
	unsigned long long q = x[XLP_C_CPU_WAIT] + x[XLP_C_CPU_STEAL];

	return x[XLP_C_WALL] > q ? x[XLP_C_WALL] - q : 0;
}

TEST(pairs_points_and_filters_against_the_workload)
{
	const char *trace = xt_tmp_path("usdt_pairs.xlp");
	char *wargv[] = {xt_wl, "--calls", "40", NULL};
	char line[256], pid[16], err[8192];
	unsigned long n = 0, ticks = 0, betas = 0;
	struct xt_proc w, x;
	struct xt_trace t;
	int wpid, rc, id, ok = 0;

	xt_paths("usdtwl");
	REQUIRE(xt_spawn(wargv, &w) == 0);
	REQUIRE(xt_read_line(w.out_fd, line, sizeof(line), 20000) == 0); /* SEMA */
	REQUIRE(xt_read_line(w.out_fd, line, sizeof(line), 20000) == 0 &&
		sscanf(line, "READY %d", &wpid) == 1);
	snprintf(pid, sizeof(pid), "%d", wpid);
	{
		char *xargv[] = {xt_xl,
				 "record",
				 "--no-sample",
				 "-p",
				 pid,
				 "-i",
				 spec("xlpwl:work__start,work__done"),
				 "-f",
				 spec("xlpwl:step:arg0=beta"),
				 "-f",
				 spec("xlpwl:tick"),
				 "-o",
				 (char *)trace,
				 NULL};

		/* the attach sequence of xt_record_start, with the SEMA line read */
		REQUIRE(xt_spawn(xargv, &x) == 0);
		REQUIRE(xt_wait_attached(&x, 30000) == 0);
		kill(wpid, SIGUSR1);
	}
	while (!xt_read_line(w.out_fd, line, sizeof(line), 60000))
		if (sscanf(line, "CALLS %lu TICKS %lu BETA %lu", &n, &ticks, &betas) == 3)
			break;
	xt_read_line(w.out_fd, line, sizeof(line), 10000); /* DONE */
	rc = xt_record_stop(&x, &w, err, sizeof(err));
	CHECK(rc == 0, "xlprobe exit %d: %s", rc, err);
	REQUIRE(n == 40, "the workload said %lu calls", n);
	/* the tick probe's semaphore was set: every iteration saw a tracer */
	CHECK(ticks == n, "%lu ticks of %lu iterations: the semaphore was not set", ticks, n);
	REQUIRE(xt_trace_load(trace, &t) == 0);
	CHECK(t.status == TRACE_COMPLETE);
	CHECK(count_calls(&t, "xlpwl:work__start") == 40, "%d calls of the pair",
	      count_calls(&t, "xlpwl:work__start"));
	CHECK(t.nruns == 40, "%zu runs", t.nruns);
	CHECK(count_calls(&t, "xlpwl:step:arg0=beta") == (int)betas, "%d beta steps of %lu",
	      count_calls(&t, "xlpwl:step:arg0=beta"), betas);
	CHECK(count_calls(&t, "xlpwl:tick") == (int)ticks, "%d ticks of %lu",
	      count_calls(&t, "xlpwl:tick"), ticks);
	/* a pair is the call between its probes: 2 ms of CPU burnt, 90 % on a CPU */
	id = xt_func_id(&t, "xlpwl:work__start");
	for (size_t i = 0; i < t.ncalls; i++) {
		const struct xlp_call_rec *r = &t.calls[i];

		if (r->func_id != (uint32_t)id)
			continue;
		ok += r->incl[XLP_C_CPU_RUN] * 10 >= own_time(r->incl) * 9 &&
		      r->incl[XLP_C_CPU_RUN] >= 1800000ull;
	}
	CHECK(ok == 40, "%d of 40 pair calls held their 2 ms of CPU", ok);
	xt_trace_free(&t);
}

/* The value of the 2-byte semaphore at addr in pid, or -1. */
static int sema_read(int pid, unsigned long addr)
{
	char path[64];
	unsigned short v;
	int fd, ok;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = pread(fd, &v, sizeof(v), (off_t)addr) == sizeof(v);
	close(fd);
	return ok ? v : -1;
}

/* Polls for the semaphore to read 0 again: up to 10 s (the unregister is the kernel's). */
static int sema_settles(int pid, unsigned long addr)
{
	int v = -1;

	for (int i = 0; i < 1000 && (v = sema_read(pid, addr)) != 0; i++)
		usleep(10000);
	return v;
}

/* One recording of the tick probe; kill_sig: how xlprobe ends (SIGINT, SIGKILL). */
static void semaphore_round(int sig)
{
	char *wargv[] = {xt_wl, "--spin", NULL}, *xargv[16];
	char line[256], pid[16], err[4096];
	unsigned long addr = 0;
	struct usdt_note *notes = NULL;
	struct xt_proc w, x;
	size_t n = 0;
	int wpid, v;

	REQUIRE(xt_spawn(wargv, &w) == 0);
	REQUIRE(xt_read_line(w.out_fd, line, sizeof(line), 20000) == 0 &&
		sscanf(line, "SEMA %lx", &addr) == 1);
	REQUIRE(xt_read_line(w.out_fd, line, sizeof(line), 20000) == 0 &&
		sscanf(line, "READY %d", &wpid) == 1);
	/* the address is the note's semaphore, moved by the load bias (pages) */
	REQUIRE(usdt__read_notes(xt_wl, &notes, &n, err, sizeof(err)) == 0, "%s", err);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(notes[i].name, "tick"))
			CHECK(notes[i].sema && (addr - notes[i].sema) % 4096 == 0,
			      "note's semaphore 0x%llx, the process's at 0x%lx",
			      (unsigned long long)notes[i].sema, addr);
	usdt__free_notes(notes, n);
	kill(wpid, SIGUSR1); /* it spins from now on */
	CHECK(sema_read(wpid, addr) == 0, "semaphore %d before attach", sema_read(wpid, addr));
	snprintf(pid, sizeof(pid), "%d", wpid);
	xt_argv(xargv, 0, xt_xl, "record", "--no-sample", "-o", xt_tmp_path("sema.xlp"), "-p", pid,
		"-f", spec("xlpwl:tick"), NULL);
	REQUIRE(xt_spawn(xargv, &x) == 0);
	REQUIRE(xt_wait_attached(&x, 30000) == 0);
	v = sema_read(wpid, addr);
	CHECK(v >= 1, "semaphore %d while attached", v);
	kill(x.pid, sig);
	xt_wait(&x, 60000, NULL, 0, NULL, 0);
	v = sema_settles(wpid, addr);
	CHECK(v == 0, "semaphore %d after xlprobe %s", v, sig == SIGKILL ? "was killed" : "exited");
	xt_kill(&w);
}

TEST(semaphore_set_while_attached_and_zero_after_exit)
{
	xt_paths("usdtwl");
	semaphore_round(SIGINT);
}

TEST(semaphore_zero_after_sigkill_of_the_recorder)
{
	xt_paths("usdtwl");
	semaphore_round(SIGKILL);
}

/*
 * Debian's python3.11 (the one with the probes; pyenv's may come first on
 * PATH): a script whose handle() compresses 4 MiB in one call of five, a
 * page in the others. The runs are handle's calls, selected by name among
 * every Python function's function__entry / function__return; the
 * verdict names the slow part, libz's deflate (marked), with cpu_run.
 * The script sets a profile function: 3.11 fires function__entry only
 * then (CPython gh-98894).
 */
TEST(python_handle_runs_name_the_slow_native_function)
{
	static const char script[] =
		"import sys, zlib, time\n"
		"sys.setprofile(lambda *a: None)  # function__entry fires only so (gh-98894)\n"
		"big = bytes(range(256)) * 16384\n"
		"small = big[:4096]\n"
		"def handle(i):\n"
		"    return zlib.compress(big if i % 5 == 0 else small, 9)\n"
		"def other(i):\n"
		"    return i\n"
		"for i in range(60):\n"
		"    handle(i)\n"
		"    other(i)\n"
		"    time.sleep(0.01)\n";
	const char *py = xt_tmp_path("handle.py"), *trace = xt_tmp_path("py.xlp");
	char js[600], err[4096];
	static char out[1 << 20];
	const struct json *crit;
	struct json *j;
	bool found = false;
	FILE *f;
	int rc;

	xt_paths("usdtwl");
	f = fopen(py, "w");
	REQUIRE(f && fputs(script, f) >= 0 && !fclose(f));
	{
		char *argv[] = {
			xt_xl,
			"record",
			"-q",
			"-i",
			"usdt:/usr/bin/python3.11:python:function__entry,function__return:arg1="
			"handle",
			"-f",
			"libz.so.1:deflate",
			"-o",
			(char *)trace,
			"--",
			"/usr/bin/python3.11",
			(char *)py,
			NULL};

		rc = xt_run(argv, 120000, NULL, 0, err, sizeof(err));
		REQUIRE(rc == 0, "record exit %d: %s", rc, err);
	}
	{
		char *argv[] = {xt_xl, "report", (char *)trace, NULL};

		rc = xt_run(argv, 120000, out, sizeof(out), err, sizeof(err));
		CHECK(rc == 0, "report exit %d: %s", rc, err);
		/* the name users know, and handle's calls only (not other's) */
		CHECK(strstr(out, "60 runs of python:function__entry:arg1=handle"), "%s", out);
	}
	{
		char *rep[] = {xt_xl, "report", "--json", "-o", js, (char *)trace, NULL};

		snprintf(js, sizeof(js), "%s.json", trace);
		j = xt_report_file(rep, js, 120000);
		REQUIRE(j, "no report");
	}
	crit = json__get(j, "critical_functions");
	for (size_t i = 0; i < json__len(crit); i++) {
		const struct json *c = json__at(crit, i);
		const char *fn = json__str(json__get(c, "function")) ?: "";
		const char *fac =
			json__str(json__get(json__at(json__get(c, "factors"), 0), "factor"));

		found |= !strcmp(fn, "deflate") && fac && !strcmp(fac, "cpu_run");
	}
	CHECK(found, "the verdict does not name deflate with cpu_run: %s",
	      json__str(json__get(j, "verdict")));
	json__free(j);
}

TEST_MAIN()
