/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Safe as root (issue 8, the writing half): xlprobe never writes through a
 * link or into a file another user planted at an output path, creates its
 * files 0600, and the product binary has no test hooks (what it leaves in
 * the kernel: test_security_kernel.c). Runs as root with real eBPF; "another user" is nobody
 * (65534).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "elfsym.h"
#include "testlib.h"
#include "xlptest.h"

#define NOBODY 65534
#define VICTIM_TEXT "root's file: must never change\n"

static char err[8192], out[65536];

static void init_paths(void)
{
	xt_paths("funcs");
	/* mkdtemp made it 0700: other users must reach the directories below */
	chmod(xt_tmpdir(), 0755);
	umask(022);
}

static const char *join(const char *dir, const char *name)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* Like /tmp: world-writable, sticky. */
static const char *sticky_dir(const char *name)
{
	const char *d = xt_tmp_path(name);

	mkdir(d, 0777);
	chmod(d, 01777);
	return d;
}

/* A directory the other user owns (their home, a shared project dir). */
static const char *nobody_dir(const char *name)
{
	const char *d = xt_tmp_path(name);

	mkdir(d, 0755);
	if (chown(d, NOBODY, NOBODY))
		fprintf(stderr, "  chown %s: %s\n", d, strerror(errno));
	return d;
}

/* A root-owned file the attacker wants overwritten (think /etc/shadow). */
static const char *make_victim(void)
{
	const char *v = xt_tmp_path("victim");
	FILE *f;

	unlink(v);
	f = fopen(v, "w");
	if (f) {
		fputs(VICTIM_TEXT, f);
		fclose(f);
	}
	return v;
}

static bool victim_intact(const char *v)
{
	char buf[256];
	struct stat st;

	return !xt_read_file(v, buf, sizeof(buf)) && !strcmp(buf, VICTIM_TEXT) && !stat(v, &st) &&
	       (st.st_mode & 07777) == 0644;
}

/* Runs fn(a, b) in a child process as nobody; its exit code (0: done). */
static int as_nobody(int (*fn)(const char *a, const char *b), const char *a, const char *b,
		     bool wait)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(99);
		_exit(fn(a, b));
	}
	if (pid < 0)
		return -1;
	if (!wait)
		return pid;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int plant_symlink(const char *target, const char *link)
{
	return symlink(target, link) ? 1 : 0;
}

static int plant_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ssize_t n;

	if (fd < 0)
		return 1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : 1;
}

/* As soon as path exists as a regular file (xlprobe created it), put a
 * link to victim in its place. */
static int swap_in_link(const char *victim, const char *path)
{
	char tmp[PATH_MAX];
	struct stat st;

	snprintf(tmp, sizeof(tmp), "%s.lnk", path);
	for (int i = 0; i < 60000; i++) {
		if (!lstat(path, &st) && S_ISREG(st.st_mode))
			return symlink(victim, tmp) || rename(tmp, path) ? 1 : 0;
		usleep(500);
	}
	return 2;
}

/* One line on stderr, containing want. */
#define check_message(want) XT_CHECK_MESSAGE(err, want)

/* xlprobe record -q -f funcs:parent -o OUT -- funcs --iterations N */
static int record_to(const char *bin, const char *outpath, const char *iterations)
{
	char spec[300];
	char *argv[] = {(char *)bin,
			"record",
			"-q",
			"-f",
			spec,
			"-o",
			(char *)outpath,
			"--",
			xt_wl,
			"--iterations",
			(char *)iterations,
			NULL};

	snprintf(spec, sizeof(spec), "%s:parent", xt_wl);
	return xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
}

/* A small valid trace to report on. */
static const char *good_trace(void)
{
	static char path[PATH_MAX];

	if (!path[0]) {
		snprintf(path, sizeof(path), "%s", xt_tmp_path("good.xlp"));
		if (record_to(xt_xl, path, "2"))
			fprintf(stderr, "  cannot record %s: %s\n", path, err);
	}
	return path;
}

/* xlprobe report OPT OUT good.xlp */
static int report_to(const char *opt, const char *outpath)
{
	char *argv[] = {xt_xl, "report", (char *)opt, (char *)outpath, (char *)good_trace(), NULL};

	return xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
}

static unsigned file_mode(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? 0 : st.st_mode & 07777;
}

TEST(record_never_writes_through_a_planted_symlink)
{
	const char *d, *v, *link;
	struct stat st;
	int rc;

	init_paths();
	d = sticky_dir("sticky1");
	v = make_victim();
	link = join(d, "t.xlp");
	REQUIRE(as_nobody(plant_symlink, v, link, true) == 0, "nobody cannot plant %s", link);
	rc = record_to(xt_xl, link, "1");
	CHECK(rc == 1, "exit %d", rc);
	check_message("is a symbolic link");
	CHECK(strstr(err, "with -o"), "the fix names -o: %s", err);
	CHECK(victim_intact(v), "the victim was written through the link");
	CHECK(!lstat(link, &st) && S_ISLNK(st.st_mode) && st.st_uid == NOBODY, "the link changed");
}

TEST(report_never_writes_through_a_planted_symlink)
{
	const char *d, *v;
	int rc;

	init_paths();
	good_trace();
	d = sticky_dir("sticky2");
	v = make_victim();
	REQUIRE(as_nobody(plant_symlink, v, join(d, "r.txt"), true) == 0);
	REQUIRE(as_nobody(plant_symlink, v, join(d, "r.html"), true) == 0);
	rc = report_to("-o", join(d, "r.txt"));
	CHECK(rc == 1, "report -o: exit %d", rc);
	check_message("is a symbolic link");
	CHECK(strstr(err, "with -o"), "%s", err);
	rc = report_to("--html", join(d, "r.html"));
	CHECK(rc == 1, "report --html: exit %d", rc);
	check_message("is a symbolic link");
	CHECK(strstr(err, "with --html"), "%s", err);
	CHECK(victim_intact(v), "the victim was written through the link");
}

TEST(a_file_planted_by_another_user_is_left_alone)
{
	const char *d = NULL;
	char buf[256];
	int rc;

	init_paths();
	good_trace();
	d = sticky_dir("sticky3");
	REQUIRE(as_nobody(plant_file, join(d, "p.xlp"), "nobody's\n", true) == 0);
	REQUIRE(as_nobody(plant_file, join(d, "p.txt"), "nobody's\n", true) == 0);
	rc = record_to(xt_xl, join(d, "p.xlp"), "1");
	CHECK(rc == 1, "record: exit %d", rc);
	check_message("belongs to uid 65534");
	rc = report_to("-o", join(d, "p.txt"));
	CHECK(rc == 1, "report: exit %d", rc);
	check_message("belongs to uid 65534");
	CHECK(!xt_read_file(join(d, "p.xlp"), buf, sizeof(buf)) && !strcmp(buf, "nobody's\n"),
	      "the planted trace path was written: %s", buf);
	CHECK(!xt_read_file(join(d, "p.txt"), buf, sizeof(buf)) && !strcmp(buf, "nobody's\n"),
	      "the planted report path was written: %s", buf);
}

/*
 * The other user owns the directory, so may rename anything in it: a link
 * to the victim is put in place of the trace right after xlprobe created
 * it, while it attaches. xlprobe keeps writing its own file (by fd), never
 * the victim, and says where the complete trace is.
 */
TEST(symlink_swapped_in_during_attach)
{
	const char *d, *v, *path;
	char saved[PATH_MAX] = "";
	const char *p;
	struct xt_trace t;
	int attacker, st = 0, rc, parents = 0, fid;

	init_paths();
	d = nobody_dir("owned");
	v = make_victim();
	path = join(d, "t.xlp");
	attacker = as_nobody(swap_in_link, v, path, false);
	REQUIRE(attacker > 0);
	rc = record_to(xt_xl, path, "3");
	waitpid(attacker, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the link was not swapped in (%d)", st);
	CHECK(victim_intact(v), "the victim was written through the swapped-in link");
	CHECK(rc == 1, "exit %d: the trace is not at %s, which must be said", rc, path);
	check_message("was replaced by someone else");
	p = strstr(err, "the data is in ");
	REQUIRE(p, "no saved trace named: %s", err);
	sscanf(p + strlen("the data is in "), "%4095[^;]", saved);
	CHECK(strncmp(saved, d, strlen(d)) == 0, "saved outside the directory: %s", saved);
	CHECK(file_mode(saved) == 0600, "saved copy mode %o", file_mode(saved));
	REQUIRE(!xt_trace_load(saved, &t), "the saved trace %s is unreadable", saved);
	CHECK(t.status == TRACE_COMPLETE, "the saved trace is not complete");
	fid = xt_func_id(&t, "parent");
	for (size_t i = 0; i < t.ncalls; i++)
		parents += (int)t.calls[i].func_id == fid;
	CHECK(parents == 3, "%d parent() calls in the saved trace", parents);
	xt_trace_free(&t);
}

/* Traces hold the target's command line: private, like perf.data. */
TEST(created_files_are_private)
{
	const char *trace = xt_tmp_path("m.xlp"), *txt = xt_tmp_path("m.txt"),
		   *html = xt_tmp_path("m.html");
	char *argv[] = {xt_xl,	  "report",	"-o",	       (char *)txt,
			"--html", (char *)html, (char *)trace, NULL};
	int rc;

	init_paths();
	rc = record_to(xt_xl, trace, "1");
	CHECK(rc == 0, "record: exit %d: %s", rc, err);
	CHECK(file_mode(trace) == 0600, "trace mode %o", file_mode(trace));
	rc = xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 0, "report: exit %d: %s", rc, err);
	CHECK(file_mode(txt) == 0600, "report mode %o", file_mode(txt));
	CHECK(file_mode(html) == 0600, "html mode %o", file_mode(html));
	/* replacing our own older outputs is fine, and keeps them private */
	chmod(trace, 0644);
	chmod(txt, 0644);
	rc = record_to(xt_xl, trace, "1");
	CHECK(rc == 0, "record again: exit %d: %s", rc, err);
	CHECK(file_mode(trace) == 0600, "replaced trace mode %o", file_mode(trace));
	rc = xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 0, "report again: exit %d: %s", rc, err);
	CHECK(file_mode(txt) == 0600, "replaced report mode %o", file_mode(txt));
}

/* The product binary has no test hooks: the variables change nothing. */
TEST(product_binary_ignores_test_hooks)
{
	const char *trace = xt_tmp_path("hooks.xlp");
	static char bin[8 << 20];
	struct xt_trace t;
	ssize_t n = 0;
	int rc, fd;

	init_paths();
	setenv("XLPROBE_TEST_HIDE_TP", "sched_switch", 1);
	setenv("XLPROBE_TEST_BTF", "/nonexistent/vmlinux", 1);
	rc = record_to(xt_xl, trace, "1");
	CHECK(rc == 0, "the product binary obeyed a test hook: exit %d: %s", rc, err);
	/* control: the test build does obey it */
	rc = record_to(xt_xlt, xt_tmp_path("hooks-test.xlp"), "1");
	unsetenv("XLPROBE_TEST_HIDE_TP");
	unsetenv("XLPROBE_TEST_BTF");
	CHECK(rc == 1 && strstr(err, "kernel has no BTF"), "xlprobe-test: exit %d: %s", rc, err);
	if (!xt_trace_load(trace, &t)) {
		CHECK(t.status == TRACE_COMPLETE && t.ncalls == 1, "status %d, %zu calls", t.status,
		      t.ncalls);
		xt_trace_free(&t);
	} else {
		CHECK(0, "no trace");
	}
	fd = open(xt_xl, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, bin, sizeof(bin));
		close(fd);
	}
	CHECK(n > 0 && !memmem(bin, (size_t)n, "XLPROBE_TEST_", 13),
	      "the product binary names a test hook");
}

TEST_MAIN()
