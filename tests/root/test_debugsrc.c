/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where the symbols of a stripped binary come from (issue 34): its
 * MiniDebugInfo (.gnu_debugdata, made here exactly as Fedora's
 * find-debuginfo makes it), a debug file under /usr/lib/debug/.build-id,
 * and one in the debuginfod client's cache. Each names the static
 * function --func marks (its calls recorded, record -v says the source)
 * and the frames of the samples (dump's sym records say the source).
 * A .gnu_debugdata that is no xz is refused, and the recording says so.
 * The workload is tests/workloads/stacks: inner_loop burns most of the
 * CPU, burn (static) a tenth of it, under side. Real eBPF, root.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testlib.h"
#include "xlptest.h"

#define OUT_MAX (1 << 22)

static char out[OUT_MAX], err[65536];

/* Runs a shell script in the test's directory; its exit status, its output in out. */
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int n;

	n = snprintf(cmd, sizeof(cmd), "cd '%s' && { ", xt_tmpdir());
	va_start(ap, fmt);
	vsnprintf(cmd + n, sizeof(cmd) - (size_t)n - 16, fmt, ap);
	va_end(ap);
	strcat(cmd, "; } 2>&1");
	return tl_run(cmd, out, sizeof(out));
}

/*
 * stacks copied to NAME, its debug file NAME.debug (objcopy
 * --only-keep-debug), and NAME stripped of every symbol (strip
 * --strip-all, no .gnu_debuglink): 0 or the script's status.
 */
static int make_stripped(const char *name)
{
	return sh("set -e; cp '%s' %s; objcopy --only-keep-debug %s %s.debug; "
		  "strip --strip-all %s; ! readelf -S %s | grep -qw .symtab",
		  xt_wl, name, name, name, name, name);
}

/*
 * NAME made as Fedora's find-debuginfo (add_minidebug) makes a package's
 * binaries: the functions of the debug file that .dynsym lacks, kept in a
 * copy of the debug file without its DWARF, xz-compressed into the
 * stripped binary's .gnu_debugdata.
 */
static int make_minidebug(const char *name)
{
	int rc = make_stripped(name);

	if (rc)
		return rc;
	return sh("set -e; "
		  "nm -D %s --format=posix --defined-only | awk '{ print $1 }' | sort > dynsyms; "
		  "nm %s.debug --format=posix --defined-only | "
		  "awk '{ if ($2 == \"T\" || $2 == \"t\") print $1 }' | sort > funcsyms; "
		  "comm -13 dynsyms funcsyms > keep_symbols; "
		  "grep -qx burn keep_symbols; "
		  "objcopy -S --remove-section .gdb_index --remove-section .comment "
		  "--keep-symbols=keep_symbols %s.debug mini.debug; "
		  "rm -f mini.debug.xz; xz mini.debug; "
		  "objcopy --add-section .gnu_debugdata=mini.debug.xz %s",
		  name, name, name, name);
}

/* The GNU build-id of the test directory's file name, as hex, into id. */
static int build_id(const char *name, char *id, size_t len)
{
	char *p;

	if (sh("readelf -n %s | sed -n 's/.*Build ID: *//p'", name))
		return -1;
	p = out + strspn(out, " ");
	p[strcspn(p, "\n ")] = 0;
	if (strlen(p) < 4 || strlen(p) >= len)
		return -1;
	snprintf(id, len, "%s", p);
	return 0;
}

/* record [-v] [--sample] -f BIN:burn -o trace -- BIN --ms MS; the exit code. */
static int record(const char *bin, const char *trace, bool sample, const char *ms)
{
	char spec[300], *argv[16];
	int n = 0;

	snprintf(spec, sizeof(spec), "%s:burn", bin);
	n = xt_argv(argv, n, xt_xl, "record", "-v", "-f", spec, "-o", trace, NULL);
	if (sample)
		n = xt_argv(argv, n, "--sample", NULL);
	xt_argv(argv, n, "--", bin, "--ms", ms, NULL);
	return xt_run(argv, 120000, out, sizeof(out), err, sizeof(err));
}

/* Calls of burn in trace: 1 (side calls it once), or -1 if the trace is unreadable. */
static long burn_calls(const char *trace)
{
	struct xt_trace t;
	long n = 0;
	int id;

	if (xt_trace_load(trace, &t))
		return -1;
	id = xt_func_id(&t, "burn");
	for (size_t i = 0; id >= 0 && i < t.ncalls; i++)
		n += t.calls[i].func_id == (uint32_t)id;
	xt_trace_free(&t);
	return n;
}

/* The source= of dump's sym record naming name in module into src[64], or "" (no sample in it). */
static const char *sym_source(const char *trace, const char *module, const char *name, char *src)
{
	char *argv[] = {xt_xl, "dump", (char *)trace, NULL}, want_m[160], want_n[300];
	const char *p;

	src[0] = 0;
	if (xt_run(argv, 60000, out, sizeof(out), err, sizeof(err)))
		return src;
	snprintf(want_m, sizeof(want_m), " module=\"%s\"", module);
	snprintf(want_n, sizeof(want_n), " name=\"%s\"", name);
	for (p = strstr(out, "\nsym "); p; p = strstr(p + 1, "\nsym ")) {
		const char *e = strchr(p + 1, '\n'), *m = strstr(p, want_m), *n = strstr(p, want_n),
			   *s = strstr(p, " source=");

		if (!e || !m || !n || !s || m > e || n > e || s > e)
			continue;
		sscanf(s, " source=\"%63[^\"]\"", src);
		break;
	}
	return src;
}

/*
 * The whole check for a stripped binary bin whose symbols come from
 * source: --func names burn (its call recorded, record -v says by which
 * source) and the samples name burn and inner_loop by that source.
 */
static void check_named_by(const char *bin, const char *source)
{
	const char *trace = xt_tmp_path("t.xlp"), *base = strrchr(bin, '/') + 1;
	char want[128], src[64];
	int rc;

	rc = record(bin, trace, true, "1000");
	REQUIRE(rc == 0, "record %s exit %d: %s", bin, rc, err);
	snprintf(want, sizeof(want), ":burn at file offset");
	CHECK(strstr(err, want), "record -v does not say where burn is:\n%s", err);
	snprintf(want, sizeof(want), "named by %s", source);
	CHECK(strstr(err, want), "--func burn not %s:\n%s", want, err);
	CHECK(burn_calls(trace) == 1, "%ld calls of burn recorded, want 1", burn_calls(trace));
	sym_source(trace, base, "inner_loop", src);
	CHECK(!strcmp(src, source), "samples in inner_loop named by '%s', want %s", src, source);
	sym_source(trace, base, "burn", src);
	CHECK(!strcmp(src, source), "samples in burn (static) named by '%s', want %s", src, source);
}

/* The stripped binary alone has no names: --func refuses it, saying so. */
static void check_unnamed(const char *bin)
{
	int rc = record(bin, xt_tmp_path("none.xlp"), false, "10");

	CHECK(rc != 0, "record -f %s:burn succeeded without symbols", bin);
	CHECK(strstr(err, "has no function symbols (stripped)"), "%s", err);
}

TEST(minidebuginfo_names_local_functions)
{
	char bin[300], stripped[300];

	xt_paths("stacks");
	snprintf(bin, sizeof(bin), "%s/stacks-mini", xt_tmpdir());
	snprintf(stripped, sizeof(stripped), "%s/stacks-bare", xt_tmpdir());
	REQUIRE(make_stripped("stacks-bare") == 0, "stripping stacks failed:\n%s", out);
	check_unnamed(stripped);
	REQUIRE(make_minidebug("stacks-mini") == 0, "making the MiniDebugInfo failed:\n%s", out);
	REQUIRE(sh("readelf -S stacks-mini | grep -q gnu_debugdata && "
		   "! readelf -S stacks-mini | grep -qw .symtab") == 0,
		"stacks-mini: no .gnu_debugdata, or a .symtab:\n%s", out);
	check_named_by(bin, "minidebuginfo");
}

/* A .gnu_debugdata that is no xz: the recording's frames go unnamed, and it says why. */
TEST(refused_minidebuginfo_is_counted_and_said)
{
	char bin[300], *argv[16];
	int rc;

	xt_paths("stacks");
	snprintf(bin, sizeof(bin), "%s/stacks-junk", xt_tmpdir());
	REQUIRE(make_stripped("stacks-junk") == 0, "stripping stacks failed:\n%s", out);
	REQUIRE(sh("printf 'no xz here' > junk && "
		   "objcopy --add-section .gnu_debugdata=junk stacks-junk") == 0,
		"%s", out);
	xt_argv(argv, 0, xt_xl, "record", "--sample", "-o", xt_tmp_path("junk.xlp"), "--", bin,
		"--ms", "200", NULL);
	rc = xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 0, "record exit %d: %s", rc, err);
	CHECK(strstr(err, "MiniDebugInfo (.gnu_debugdata) refused on reading: 1 not "
			  "xz-compressed: "),
	      "the refusal is not said:\n%s", err);
}

/* What the test put under /usr/lib/debug, removed at the end (and at exit). */
static char created_file[PATH_MAX];
static char created_dirs[3][PATH_MAX]; /* deepest last */
static char debug_dirs[3][PATH_MAX];
static bool existed[3];

static void debug_dir_remove(void)
{
	if (created_file[0] && unlink(created_file) && errno != ENOENT)
		fprintf(stderr, "  cannot remove %s: %s\n", created_file, strerror(errno));
	created_file[0] = 0;
	for (int i = 2; i >= 0; i--) {
		if (created_dirs[i][0] && rmdir(created_dirs[i]) && errno != ENOENT)
			fprintf(stderr, "  cannot remove %s: %s\n", created_dirs[i],
				strerror(errno));
		created_dirs[i][0] = 0;
	}
}

/* Copies the test directory's file src to /usr/lib/debug/.build-id/<id[0..2]>/<id[2..]>.debug. */
static int debug_dir_install(const char *src, const char *id)
{
	char(*dirs)[PATH_MAX] = debug_dirs;

	snprintf(dirs[0], sizeof(dirs[0]), "/usr/lib/debug");
	snprintf(dirs[1], sizeof(dirs[1]), "/usr/lib/debug/.build-id");
	snprintf(dirs[2], sizeof(dirs[2]), "/usr/lib/debug/.build-id/%.2s", id);
	atexit(debug_dir_remove);
	for (int i = 0; i < 3; i++) {
		existed[i] = !access(dirs[i], F_OK);
		if (!mkdir(dirs[i], 0755))
			snprintf(created_dirs[i], sizeof(created_dirs[i]), "%s", dirs[i]);
		else if (errno != EEXIST)
			return -errno;
	}
	snprintf(created_file, sizeof(created_file), "%s/%s.debug", dirs[2], id + 2);
	if (!access(created_file, F_OK)) {
		created_file[0] = 0; /* not ours: left alone */
		return -EEXIST;
	}
	return sh("cp %s '%s'", src, created_file) ? -EIO : 0;
}

TEST(build_id_debug_dir_names_a_stripped_binary)
{
	char bin[300], id[128];
	int ret;

	xt_paths("stacks");
	snprintf(bin, sizeof(bin), "%s/stacks-bid", xt_tmpdir());
	REQUIRE(make_stripped("stacks-bid") == 0, "stripping stacks failed:\n%s", out);
	REQUIRE(build_id("stacks-bid", id, sizeof(id)) == 0, "no build-id: %s", out);
	check_unnamed(bin);
	ret = debug_dir_install("stacks-bid.debug", id);
	CHECK(ret == 0, "cannot install the debug file of %s: %s", id, strerror(-ret));
	if (!ret)
		check_named_by(bin, "build_id_dir");
	debug_dir_remove();
	/* the machine as found */
	for (int i = 0; i < 3; i++)
		CHECK(!access(debug_dirs[i], F_OK) == existed[i], "%s %s", debug_dirs[i],
		      existed[i] ? "removed" : "left behind");
	snprintf(bin, sizeof(bin), "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
	CHECK(ret == -EEXIST || access(bin, F_OK), "%s left behind", bin);
}

TEST(debuginfod_cache_names_a_stripped_binary)
{
	char bin[300], id[128], cache[PATH_MAX];
	int rc;

	xt_paths("stacks");
	snprintf(bin, sizeof(bin), "%s/stacks-dfd", xt_tmpdir());
	snprintf(cache, sizeof(cache), "%s/dcache", xt_tmpdir());
	REQUIRE(make_stripped("stacks-dfd") == 0, "stripping stacks failed:\n%s", out);
	REQUIRE(build_id("stacks-dfd", id, sizeof(id)) == 0, "no build-id: %s", out);
	/* the client's layout: <cache>/<build-id>/debuginfo */
	REQUIRE(sh("mkdir -p dcache/%s xdg/debuginfod_client/%s && "
		   "cp stacks-dfd.debug dcache/%s/debuginfo && "
		   "ln -s ../../dcache/%s/debuginfo xdg/debuginfod_client/%s/debuginfo",
		   id, id, id, id, id) == 0,
		"%s", out);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	check_named_by(bin, "debuginfod_cache");
	/* $XDG_CACHE_HOME/debuginfod_client, whose file here is a symlink: not followed */
	unsetenv("DEBUGINFOD_CACHE_PATH");
	snprintf(cache, sizeof(cache), "%s/xdg", xt_tmpdir());
	setenv("XDG_CACHE_HOME", cache, 1);
	check_unnamed(bin);
	rc = sh("rm xdg/debuginfod_client/%s/debuginfo && "
		"cp stacks-dfd.debug xdg/debuginfod_client/%s/debuginfo",
		id, id);
	CHECK(rc == 0, "%s", out);
	rc = record(bin, xt_tmp_path("xdg.xlp"), false, "10");
	CHECK(rc == 0 && strstr(err, "named by debuginfod_cache"),
	      "$XDG_CACHE_HOME/debuginfod_client not read (exit %d):\n%s", rc, err);
	unsetenv("XDG_CACHE_HOME");
}

TEST_MAIN()
