/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Safe as root (issue 8), what a recording leaves in the kernel and where
 * its probes reach: --buffer-size validated, uprobes only in the launched
 * command in launch mode (and its forks with --probe-forks), nothing left
 * behind after kill -9 (and a partial trace that reports what completed).
 * Runs as root with real eBPF; the files it writes: test_security.c.
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

static char err[8192], out[65536];

/* One line on stderr, containing want. */
#define check_message(want) XT_CHECK_MESSAGE(err, want)

static void init_paths(void)
{
	xt_paths("funcs");
	chmod(xt_tmpdir(), 0755);
	umask(022);
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
		if (xt_read_file(file, buf, sizeof(buf)))
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

	snprintf(spec, sizeof(spec), "%s:%s", xt_wl, func);
	if (elfsym__resolve(spec, 0, &t, &n, msg, sizeof(msg)) || n != 1 ||
	    !realpath(xt_wl, real)) {
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
		if (xt_read_file(file, buf, sizeof(buf)) || !strstr(buf, "map_type:\t27\n"))
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
	char *argv[] = {xt_xl, "record", "--buffer-size", NULL, "-f", spec, "-o", (char *)trace,
			"--",  xt_wl,	 "--wait-signal", NULL};
	char *bargv[] = {xt_xl, "record",      "-q", "--buffer-size", NULL,	      "-f", spec,
			 "-o",	(char *)trace, "--", xt_wl,	      "--iterations", "1",  NULL};
	struct xt_proc x;
	int rc, pid;

	init_paths();
	snprintf(spec, sizeof(spec), "%s:parent", xt_wl);
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
	char *uargv[] = {xt_wl, "--wait-signal", "--bench", "200000", NULL};
	char *xargv[] = {xt_xl, "record",	 "-f", spec, "-o", (char *)trace, "--",
			 xt_wl, "--wait-signal", NULL};
	long long before, after;
	struct xt_proc u, x;
	int upid, lpid, stats, b, rc;
	struct xt_trace t;

	init_paths();
	snprintf(spec, sizeof(spec), "%s:cheap", xt_wl);
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
	char *argv[] = {xt_xl, "record",  "-f", spec,	"-o", (char *)trace,
			"--",  "/bin/sh", "-c", script, NULL, NULL};
	struct xt_trace t;
	size_t probed = 0;
	int rc;

	init_paths();
	snprintf(spec, sizeof(spec), "%s:parent", xt_wl);
	snprintf(script, sizeof(script), "'%s' --iterations 2; true", xt_wl);
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
	if (!xt_read_file("/sys/kernel/tracing/uprobe_events", buf, sizeof(buf)))
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
	char *argv[] = {xt_xl, "report", (char *)trace, NULL};
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
	char *argv[] = {xt_xl,	       "record", "--repeat", "100",	     "-f", spec, "-o",
			(char *)trace, "--",	 xt_wl,	     "--iterations", "25", NULL};
	struct bpf_objs o;
	struct xt_proc x;
	struct xt_trace t;
	pid_t child = -1;
	int b = -1;

	init_paths();
	snprintf(spec, sizeof(spec), "%s:parent", xt_wl);
	REQUIRE(!xt_spawn(argv, &x));
	REQUIRE(!xt_wait_attached(&x, 30000), "xlprobe did not attach");
	/* two launches of 25 parent() calls (1 s each) ended; then more than
	 * the recorder's 1 s flush interval */
	CHECK(wait_parent_calls(x.out_fd, 50, 60000), "two launches did not finish");
	/* the recorder flushes once a second: until the trace holds both launches */
	CHECK(wait_flushed(trace, 0, 2, 30000), "the two launches never reached %s", trace);
	/* killed early in a launch, which then outlives the recorder */
	child = fresh_launch(x.out_fd, 30000);
	CHECK(child > 0 && child == xt_child_of(x.pid), "no running launch found (%d)", child);
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
	char *wargv[] = {xt_wl, "--wait-signal", "--iterations", "400", NULL};
	char *xargv[] = {xt_xl, "record", "-p", pid_s,	       "-i", ispec,
			 "-f",	fspec,	  "-o", (char *)trace, NULL};
	struct bpf_objs o;
	struct xt_proc w, x;
	struct xt_trace t;
	int pid, b, runs = 0;

	init_paths();
	snprintf(ispec, sizeof(ispec), "%s:parent", xt_wl);
	snprintf(fspec, sizeof(fspec), "%s:spin_20ms", xt_wl);
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

TEST_MAIN()
