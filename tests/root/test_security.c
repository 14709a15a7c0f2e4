/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Safe as root (issue 8, the writing half): xlprobe never writes through a
 * link or into a file another user planted at an output path, creates its
 * files 0600, validates --buffer-size, probes only the launched command in
 * launch mode, leaves nothing in the kernel after kill -9 (and a partial
 * trace that reports what completed), and the product binary has no test
 * hooks. Runs as root with real eBPF; "another user" is nobody (65534).
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

static char xl[256], xlt[256], wl[256], err[8192], out[65536];

static void init_paths(void)
{
	xt_out("xlprobe", xl, sizeof(xl));
	xt_out("xlprobe-test", xlt, sizeof(xlt));
	xt_out("tests/workloads/funcs", wl, sizeof(wl));
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

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW);
	ssize_t n;

	buf[0] = 0;
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = 0;
	return 0;
}

static bool victim_intact(const char *v)
{
	char buf[256];
	struct stat st;

	return !read_file(v, buf, sizeof(buf)) && !strcmp(buf, VICTIM_TEXT) && !stat(v, &st) &&
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
			wl,
			"--iterations",
			(char *)iterations,
			NULL};

	snprintf(spec, sizeof(spec), "%s:parent", wl);
	return xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
}

/* A small valid trace to report on. */
static const char *good_trace(void)
{
	static char path[PATH_MAX];

	if (!path[0]) {
		snprintf(path, sizeof(path), "%s", xt_tmp_path("good.xlp"));
		if (record_to(xl, path, "2"))
			fprintf(stderr, "  cannot record %s: %s\n", path, err);
	}
	return path;
}

/* xlprobe report OPT OUT good.xlp */
static int report_to(const char *opt, const char *outpath)
{
	char *argv[] = {xl, "report", (char *)opt, (char *)outpath, (char *)good_trace(), NULL};

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
	rc = record_to(xl, link, "1");
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
	rc = record_to(xl, join(d, "p.xlp"), "1");
	CHECK(rc == 1, "record: exit %d", rc);
	check_message("belongs to uid 65534");
	rc = report_to("-o", join(d, "p.txt"));
	CHECK(rc == 1, "report: exit %d", rc);
	check_message("belongs to uid 65534");
	CHECK(!read_file(join(d, "p.xlp"), buf, sizeof(buf)) && !strcmp(buf, "nobody's\n"),
	      "the planted trace path was written: %s", buf);
	CHECK(!read_file(join(d, "p.txt"), buf, sizeof(buf)) && !strcmp(buf, "nobody's\n"),
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
	rc = record_to(xl, path, "3");
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
	char *argv[] = {xl,	  "report",	"-o",	       (char *)txt,
			"--html", (char *)html, (char *)trace, NULL};
	int rc;

	init_paths();
	rc = record_to(xl, trace, "1");
	CHECK(rc == 0, "record: exit %d: %s", rc, err);
	CHECK(file_mode(trace) == 0600, "trace mode %o", file_mode(trace));
	rc = xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 0, "report: exit %d: %s", rc, err);
	CHECK(file_mode(txt) == 0600, "report mode %o", file_mode(txt));
	CHECK(file_mode(html) == 0600, "html mode %o", file_mode(html));
	/* replacing our own older outputs is fine, and keeps them private */
	chmod(trace, 0644);
	chmod(txt, 0644);
	rc = record_to(xl, trace, "1");
	CHECK(rc == 0, "record again: exit %d: %s", rc, err);
	CHECK(file_mode(trace) == 0600, "replaced trace mode %o", file_mode(trace));
	rc = xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 0, "report again: exit %d: %s", rc, err);
	CHECK(file_mode(txt) == 0600, "replaced report mode %o", file_mode(txt));
}

/* ---- BPF objects of a process, from its fds ---- */

struct bpf_objs {
	unsigned prog[256], link[256], map[256];
	int nprog, nlink, nmap;
};

static void bpf_objs_of(pid_t pid, struct bpf_objs *o)
{
	char path[64], buf[4096];
	struct dirent *de;
	DIR *d;

	memset(o, 0, sizeof(*o));
	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char file[PATH_MAX];
		const char *p;
		unsigned id;

		if (de->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		if (read_file(file, buf, sizeof(buf)))
			continue;
		/* a link's fdinfo names its program too: links first */
		if ((p = strstr(buf, "link_id:")) && sscanf(p, "link_id: %u", &id) == 1) {
			if (o->nlink < 256)
				o->link[o->nlink++] = id;
		} else if ((p = strstr(buf, "prog_id:")) && sscanf(p, "prog_id: %u", &id) == 1) {
			if (o->nprog < 256)
				o->prog[o->nprog++] = id;
		} else if ((p = strstr(buf, "map_id:")) && sscanf(p, "map_id: %u", &id) == 1) {
			if (o->nmap < 256)
				o->map[o->nmap++] = id;
		}
	}
	closedir(d);
}

/* BPF ids are allocated cyclically: a freed one is not reused soon. */
static int alive(int (*get)(__u32), const unsigned *ids, int n)
{
	int left = 0;

	for (int i = 0; i < n; i++) {
		int fd = get(ids[i]);

		if (fd >= 0) {
			close(fd);
			left++;
		} else if (errno != ENOENT) {
			left++;
		}
	}
	return left;
}

/* Objects of o still in the kernel after up to timeout_ms (freeing is
 * deferred a little after the fds close). */
static int objs_left(const struct bpf_objs *o, int timeout_ms)
{
	int left = 0;

	for (int waited = 0; waited <= timeout_ms; waited += 50) {
		left = alive(bpf_prog_get_fd_by_id, o->prog, o->nprog) +
		       alive(bpf_link_get_fd_by_id, o->link, o->nlink) +
		       alive(bpf_map_get_fd_by_id, o->map, o->nmap);
		if (!left)
			break;
		usleep(50000);
	}
	return left;
}

/* run_cnt of the process's program whose name begins with name (bpf_stats on;
 * xlp_func_entry_multi is xlp_func_entry_ in the kernel), or -1. */
static long long run_cnt(pid_t pid, const char *name)
{
	struct bpf_objs o;

	bpf_objs_of(pid, &o);
	for (int i = 0; i < o.nprog; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(o.prog[i]);
		bool found;

		if (fd < 0)
			continue;
		found = !bpf_obj_get_info_by_fd(fd, &info, &len) &&
			!strncmp(info.name, name, strlen(name));
		close(fd);
		if (found)
			return (long long)info.run_cnt;
	}
	return -1;
}

/*
 * The first code byte of funcs' function in process pid: 0xcc (int3)
 * while a uprobe is set there for that process. -1 if unreadable.
 */
static int code_byte(pid_t pid, const char *func)
{
	char spec[300], msg[256], path[64], line[1024], real[PATH_MAX];
	struct elfsym_target *t = NULL;
	unsigned long long off, addr = 0;
	unsigned char b;
	size_t n = 0;
	FILE *f;
	int fd;

	snprintf(spec, sizeof(spec), "%s:%s", wl, func);
	if (elfsym__resolve(spec, 0, &t, &n, msg, sizeof(msg)) || n != 1 || !realpath(wl, real)) {
		elfsym__free_targets(t, n);
		return -1;
	}
	off = t[0].offset;
	elfsym__free_targets(t, n);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (!addr && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char file[PATH_MAX];

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &start, &end, &pgoff, file) ==
			    4 &&
		    !strcmp(file, real) && off >= pgoff && off < pgoff + (end - start))
			addr = start + off - pgoff;
	}
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY);
	if (!addr || fd < 0 || pread(fd, &b, 1, (off_t)addr) != 1)
		b = 0, addr = 0;
	if (fd >= 0)
		close(fd);
	return addr ? b : -1;
}

/* A child of parent (scanning /proc), or -1. */
static pid_t child_of(pid_t parent)
{
	struct dirent *de;
	pid_t found = -1;
	DIR *d = opendir("/proc");

	while (d && found < 0 && (de = readdir(d))) {
		char path[300], buf[1024], *p;
		int ppid;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (read_file(path, buf, sizeof(buf)))
			continue;
		p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == parent)
			found = atoi(de->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * Until the trace file holds at least runs interaction calls and launches
 * launch records (the recorder flushes them once a second): a handshake
 * in place of a sleep. Reads the file as it is being written.
 */
static bool wait_flushed(const char *trace, size_t runs, size_t launches, int timeout_ms)
{
	for (int waited = 0; waited < timeout_ms; waited += 50) {
		struct xt_trace t;
		size_t n = 0;
		bool ok = false;

		if (!xt_trace_load(trace, &t)) {
			for (size_t i = 0; i < t.ncalls; i++)
				n += !!(t.calls[i].flags & XLP_CALL_INTERACTION);
			ok = n >= runs && t.nlaunches >= launches;
			xt_trace_free(&t);
		}
		if (ok)
			return true;
		usleep(50000);
	}
	return false;
}

/* The workload's "CALL parent" lines on fd, until n of them (0: timeout). */
static int wait_parent_calls(int fd, int n, int timeout_ms)
{
	char line[512];
	int seen = 0;

	while (seen < n && !xt_read_line(fd, line, sizeof(line), timeout_ms))
		seen += !strncmp(line, "CALL parent ", 12);
	return seen >= n;
}

/* Drops what fd holds now, without waiting. */
static void drain(int fd)
{
	char buf[4096];
	int fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	fcntl(fd, F_SETFL, fl);
}

/*
 * From the launches' stdout: the pid of a launch that just ran its first
 * parent() (a change of tid in the "CALL parent TID" lines), so that it
 * has most of its life ahead. -1 after timeout_ms.
 */
static pid_t fresh_launch(int fd, int timeout_ms)
{
	char line[512];
	int tid, first = -1;

	drain(fd);
	while (!xt_read_line(fd, line, sizeof(line), timeout_ms)) {
		if (sscanf(line, "CALL parent %d", &tid) != 1)
			continue;
		if (first < 0)
			first = tid;
		else if (tid != first)
			return tid;
	}
	return -1;
}

static int ringbuf_size(pid_t pid)
{
	char path[64], buf[4096];
	struct dirent *de;
	int size = -1;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	d = opendir(path);
	while (d && size < 0 && (de = readdir(d))) {
		char file[PATH_MAX];
		const char *p;

		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		if (read_file(file, buf, sizeof(buf)) || !strstr(buf, "map_type:\t27\n"))
			continue; /* BPF_MAP_TYPE_RINGBUF */
		p = strstr(buf, "max_entries:");
		if (p)
			sscanf(p, "max_entries: %d", &size);
	}
	if (d)
		closedir(d);
	return size;
}

TEST(buffer_size_validated)
{
	static const char *const bad[] = {"4096", "3", "0", "1K", "2G", "16X", "-16", "16MM", ""};
	const char *trace = xt_tmp_path("buf.xlp");
	char spec[300];
	char *argv[] = {xl,   "record", "--buffer-size", NULL, "-f", spec, "-o", (char *)trace,
			"--", wl,	"--wait-signal", NULL};
	char *bargv[] = {xl,
			 "record",
			 "-q",
			 "--buffer-size",
			 NULL,
			 "-f",
			 spec,
			 "-o",
			 (char *)trace,
			 "--",
			 wl,
			 "--iterations",
			 "1",
			 NULL};
	struct xt_proc x;
	int rc, pid;

	init_paths();
	snprintf(spec, sizeof(spec), "%s:parent", wl);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bargv[4] = (char *)bad[i];
		rc = xt_run(bargv, 30000, out, sizeof(out), err, sizeof(err));
		CHECK(rc == 2, "--buffer-size '%s': exit %d", bad[i], rc);
		check_message("bad --buffer-size");
	}
	CHECK(access(trace, F_OK) != 0, "a refused option left %s", trace);
	argv[3] = "32";
	pid = xt_spawn_ready(argv, &x, 30000);
	REQUIRE(pid > 0, "the launched command never said READY");
	rc = ringbuf_size(x.pid);
	CHECK(rc == 32 << 20, "ring buffer of %d bytes", rc);
	kill(pid, SIGUSR1);
	rc = xt_wait(&x, 60000, NULL, 0, err, sizeof(err));
	CHECK(rc == 0, "--buffer-size 32: exit %d: %s", rc, err);
	argv[3] = "512K";
	pid = xt_spawn_ready(argv, &x, 30000);
	REQUIRE(pid > 0, "the launched command never said READY");
	rc = ringbuf_size(x.pid);
	CHECK(rc == 512 << 10, "ring buffer of %d bytes", rc);
	kill(pid, SIGUSR1);
	rc = xt_wait(&x, 60000, NULL, 0, err, sizeof(err));
	CHECK(rc == 0, "--buffer-size 512K: exit %d: %s", rc, err);
}

/*
 * record -- CMD probes CMD only: another process running the same binary
 * at the same time has no breakpoint in its code, and its calls never run
 * xlprobe's program (bpf_stats' run_cnt), however many it makes.
 */
TEST(launch_uprobes_only_in_the_launched_command)
{
	const char *trace = xt_tmp_path("scope.xlp");
	char spec[300];
	char *uargv[] = {wl, "--wait-signal", "--bench", "200000", NULL};
	char *xargv[] = {xl, "record",	      "-f", spec, "-o", (char *)trace, "--",
			 wl, "--wait-signal", NULL};
	long long before, after;
	struct xt_proc u, x;
	int upid, lpid, stats, b, rc;
	struct xt_trace t;

	init_paths();
	snprintf(spec, sizeof(spec), "%s:cheap", wl);
	upid = xt_spawn_ready(uargv, &u, 10000);
	REQUIRE(upid > 0, "the unrelated process never said READY");
	/* READY comes from the launched command, released once probes are set */
	lpid = xt_spawn_ready(xargv, &x, 30000);
	if (lpid <= 0) {
		xt_kill(&u);
		REQUIRE(0, "the launched command never said READY");
	}
	stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	CHECK(stats >= 0, "cannot enable bpf_stats: %s", strerror(errno));
	b = code_byte(lpid, "cheap");
	CHECK(b == 0xcc, "control: no breakpoint in the launched command (byte %d)", b);
	b = code_byte(upid, "cheap");
	CHECK(b >= 0 && b != 0xcc, "the unrelated process has a breakpoint (byte %d)", b);
	before = run_cnt(x.pid, "xlp_func_entry");
	kill(upid, SIGUSR1);
	rc = xt_wait(&u, 60000, out, sizeof(out), NULL, 0);
	CHECK(rc == 0 && strstr(out, "BENCH 200000"), "unrelated process: exit %d: %s", rc, out);
	after = run_cnt(x.pid, "xlp_func_entry");
	CHECK(before >= 0 && after == before,
	      "the uprobe program ran %lld times during the unrelated process's calls",
	      after - before);
	if (stats >= 0)
		close(stats);
	kill(lpid, SIGUSR1);
	rc = xt_wait(&x, 60000, NULL, 0, err, sizeof(err));
	CHECK(rc == 0, "xlprobe exit %d: %s", rc, err);
	REQUIRE(!xt_trace_load(trace, &t));
	for (size_t i = 0; i < t.ncalls; i++)
		CHECK(t.calls[i].pid != (uint32_t)upid, "a call of the unrelated process");
	xt_trace_free(&t);
}

/*
 * The launched command's forked children (a wrapper script's) are probed
 * once xlprobe has seen their fork: their calls from then on are recorded,
 * the fork record says when, and xlprobe hints at --probe-forks when no
 * call was seen at all; --probe-forks probes them from the fork on,
 * system-wide as before.
 */
TEST(launch_probe_forks_reaches_forked_children)
{
	const char *trace = xt_tmp_path("forks.xlp");
	char spec[300], script[600];
	char *argv[] = {xl,   "record",	 "-f", spec,   "-o", (char *)trace,
			"--", "/bin/sh", "-c", script, NULL, NULL};
	struct xt_trace t;
	size_t probed = 0;
	int rc;

	init_paths();
	snprintf(spec, sizeof(spec), "%s:parent", wl);
	snprintf(script, sizeof(script), "'%s' --iterations 2; true", wl);
	rc = xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 0, "exit %d: %s", rc, err);
	if (!xt_trace_load(trace, &t)) {
		/* the shell (launched: probed already) and the child it forks */
		for (size_t i = 0; i < t.nforks; i++)
			probed += !!(t.forks[i].flags & (XLP_FORK_PROBED | XLP_FORK_GONE));
		CHECK(t.nforks == 2 && probed == 1, "%zu fork records, %zu of children", t.nforks,
		      probed);
		CHECK(t.ncalls <= 2, "%zu calls", t.ncalls);
		for (size_t i = 0; i < t.ncalls; i++)
			CHECK(t.forks && t.calls[i].entry_ns >= t.forks[t.nforks - 1].probed_ns,
			      "a call before its process's probes were set");
		CHECK(!strstr(err, "record with --probe-forks") == (t.ncalls > 0),
		      "%zu calls; hint: %s", t.ncalls, err);
		xt_trace_free(&t);
	}
	memmove(argv + 3, argv + 2, 8 * sizeof(*argv));
	argv[2] = "--probe-forks";
	rc = xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 0, "--probe-forks: exit %d: %s", rc, err);
	CHECK(!strstr(err, "--probe-forks"), "hint despite calls: %s", err);
	REQUIRE(!xt_trace_load(trace, &t));
	CHECK(t.ncalls == 2, "%zu calls with --probe-forks", t.ncalls);
	xt_trace_free(&t);
}

/* What kill -9 of record must leave: no BPF object of its own, no
 * breakpoint in the process it probed. */
static void check_nothing_left(const struct bpf_objs *o, pid_t probed, int byte_before)
{
	char buf[65536];
	int left, b = -1;

	/* first, while the probed process is surely alive */
	CHECK(byte_before == 0xcc, "control: no breakpoint in the probed process before the kill");
	for (int i = 0; i < 40; i++) {
		b = code_byte(probed, "parent");
		if (b != 0xcc)
			break;
		usleep(25000);
	}
	CHECK(b >= 0 && b != 0xcc, "breakpoint left in the probed process (byte %d)", b);
	CHECK(o->nprog > 0 && o->nlink > 0 && o->nmap > 0, "found %d programs, %d links, %d maps",
	      o->nprog, o->nlink, o->nmap);
	left = objs_left(o, 5000);
	CHECK(left == 0, "%d BPF programs, links or maps of the killed recorder remain", left);
	/* libbpf's uprobes are perf events, never in uprobe_events; this
	 * catches a fallback that would leave one there */
	if (!read_file("/sys/kernel/tracing/uprobe_events", buf, sizeof(buf)))
		CHECK(!strstr(buf, "funcs"), "uprobe_events: %s", buf);
}

/*
 * kill -9, and reap. The pipes stay open meanwhile: the launched command
 * writes to the same stdout, and must not die of SIGPIPE before the test
 * looks at its code.
 */
static void kill_recorder(struct xt_proc *x)
{
	int st = 0;

	kill(x->pid, SIGKILL);
	CHECK(waitpid(x->pid, &st, 0) == x->pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      "status 0x%x", st);
}

static void close_pipes(struct xt_proc *x)
{
	close(x->out_fd);
	close(x->err_fd);
	x->out_fd = x->err_fd = -1;
}

/* report on the partial trace: succeeds, says it is truncated, counts runs */
static void check_partial_report(const char *trace, int min_runs)
{
	char *argv[] = {xl, "report", (char *)trace, NULL};
	const char *p;
	int rc, runs = 0;

	rc = xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 0, "report on the partial trace: exit %d: %s", rc, err);
	CHECK(strstr(err, "truncated"), "report does not say the trace is truncated: %s", err);
	p = strstr(out, "Runs\n");
	CHECK(p && sscanf(p, "Runs\n %d runs", &runs) == 1 && runs >= min_runs,
	      "%d runs reported, want >= %d: %s", runs, min_runs, out);
}

TEST(kill9_of_record_launch_mode)
{
	const char *trace = xt_tmp_path("kill-launch.xlp");
	char spec[300];
	char *argv[] = {xl,   "record", "--repeat",	"100", "-f", spec, "-o", (char *)trace,
			"--", wl,	"--iterations", "25",  NULL};
	struct bpf_objs o;
	struct xt_proc x;
	struct xt_trace t;
	pid_t child = -1;
	int b = -1;

	init_paths();
	snprintf(spec, sizeof(spec), "%s:parent", wl);
	REQUIRE(!xt_spawn(argv, &x));
	REQUIRE(!xt_wait_attached(&x, 30000), "xlprobe did not attach");
	/* two launches of 25 parent() calls (1 s each) ended; then more than
	 * the recorder's 1 s flush interval */
	CHECK(wait_parent_calls(x.out_fd, 50, 60000), "two launches did not finish");
	/* the recorder flushes once a second: until the trace holds both launches */
	CHECK(wait_flushed(trace, 0, 2, 30000), "the two launches never reached %s", trace);
	/* killed early in a launch, which then outlives the recorder */
	child = fresh_launch(x.out_fd, 30000);
	CHECK(child > 0 && child == child_of(x.pid), "no running launch found (%d)", child);
	bpf_objs_of(x.pid, &o);
	b = child > 0 ? code_byte(child, "parent") : -1;
	kill_recorder(&x);
	check_nothing_left(&o, child, b);
	if (child > 0)
		kill(child, SIGKILL); /* reparented: init reaps it */
	close_pipes(&x);
	REQUIRE(!xt_trace_load(trace, &t), "the partial trace is unreadable");
	CHECK(t.status == TRACE_TRUNCATED, "a killed recording must read as truncated");
	CHECK(t.nlaunches >= 2, "%zu launch records", t.nlaunches);
	xt_trace_free(&t);
	check_partial_report(trace, 2);
}

TEST(kill9_of_record_pid_mode)
{
	const char *trace = xt_tmp_path("kill-pid.xlp");
	char ispec[300], fspec[300], pid_s[16];
	char *wargv[] = {wl, "--wait-signal", "--iterations", "400", NULL};
	char *xargv[] = {xl,   "record", "-p", pid_s,	      "-i", ispec,
			 "-f", fspec,	 "-o", (char *)trace, NULL};
	struct bpf_objs o;
	struct xt_proc w, x;
	struct xt_trace t;
	int pid, b, runs = 0;

	init_paths();
	snprintf(ispec, sizeof(ispec), "%s:parent", wl);
	snprintf(fspec, sizeof(fspec), "%s:spin_20ms", wl);
	pid = xt_spawn_ready(wargv, &w, 10000);
	REQUIRE(pid > 0, "funcs never said READY");
	snprintf(pid_s, sizeof(pid_s), "%d", pid);
	REQUIRE(!xt_record_start(xargv, &x, &w, 30000), "xlprobe did not attach");
	CHECK(wait_parent_calls(w.out_fd, 20, 30000), "20 runs did not finish");
	/* the recorder flushes once a second: until the trace holds the 20 runs */
	CHECK(wait_flushed(trace, 20, 0, 30000), "the 20 runs never reached %s", trace);
	bpf_objs_of(x.pid, &o);
	b = code_byte(pid, "parent");
	kill_recorder(&x);
	check_nothing_left(&o, pid, b);
	xt_kill(&w);
	close_pipes(&x);
	REQUIRE(!xt_trace_load(trace, &t), "the partial trace is unreadable");
	CHECK(t.status == TRACE_TRUNCATED, "a killed recording must read as truncated");
	for (size_t i = 0; i < t.ncalls; i++)
		runs += !!(t.calls[i].flags & XLP_CALL_INTERACTION);
	CHECK(runs >= 20, "%d interaction calls in the partial trace", runs);
	xt_trace_free(&t);
	check_partial_report(trace, 20);
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
	rc = record_to(xl, trace, "1");
	CHECK(rc == 0, "the product binary obeyed a test hook: exit %d: %s", rc, err);
	/* control: the test build does obey it */
	rc = record_to(xlt, xt_tmp_path("hooks-test.xlp"), "1");
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
	fd = open(xl, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, bin, sizeof(bin));
		close(fd);
	}
	CHECK(n > 0 && !memmem(bin, (size_t)n, "XLPROBE_TEST_", 13),
	      "the product binary names a test hook");
}

TEST_MAIN()
