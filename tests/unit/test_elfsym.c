/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --func resolution (user/elfsym*.c, elf_read.c) against tests/workloads/symtest (built
 * by `make .output/tests/workloads/symtest`) and against the libc this test
 * has mapped. Expected values come from elsewhere: readelf and objdump for
 * symtest, dlsym() and /proc/self/maps for libc.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "testlib.h"
#include "symtest.h"
#include "elfsym.h"
#include "util.h"

static char err[1024];

/* Resolves one spec into a fresh array; returns the result. */
static int resolve(const char *spec, int pid, struct elfsym_target **t, size_t *n)
{
	*t = NULL;
	*n = 0;
	err[0] = 0;
	return elfsym__resolve(spec, pid, t, n, err, sizeof(err));
}

static int resolve_sym(const char *sym, struct elfsym_target **t, size_t *n)
{
	char spec[PATH_MAX + 64];

	snprintf(spec, sizeof(spec), "%s:%s", symtest(), sym);
	return resolve(spec, 0, t, n);
}

static void check_err(const char *spec, int pid, int want_ret, const char *want)
{
	struct elfsym_target *t;
	size_t n;
	int ret = resolve(spec, pid, &t, &n);

	CHECK(ret == want_ret, "%s: ret %d, want %d (%s)", spec, ret, want_ret, err);
	CHECK(!strcmp(err, want), "%s:\n    got  '%s'\n    want '%s'", spec, err, want);
	CHECK(!t && !n, "%s", spec);
	CHECK(!strchr(err, '\n'), "%s", err);
}

static void check_sym_err(const char *sym, int want_ret, const char *fmt)
{
	char spec[PATH_MAX + 64], want[PATH_MAX + 256];

	snprintf(spec, sizeof(spec), "%s:%s", symtest(), sym);
	snprintf(want, sizeof(want), fmt, symtest());
	check_err(spec, 0, want_ret, want);
}

/* Runs the shell command fmt filled with a and b; 0 on success. */
static int shell(const char *fmt, const char *a, const char *b)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	return tl_run(cmd, NULL, 0);
}

/* st_value and st_size of a symbol, from readelf. */
static int readelf_sym(const char *bin, const char *name, uint64_t *value, uint64_t *size)
{
	char cmd[PATH_MAX + 128], out[512];

	snprintf(cmd, sizeof(cmd), "readelf -sW '%s' | awk '$8 == \"%s\" { print $2, $3; exit }'",
		 bin, name);
	if (tl_run(cmd, out, sizeof(out)) != 0)
		return -1;
	return sscanf(out, "%" SCNx64 " %" SCNu64, value, size) == 2 ? 0 : -1;
}

static int readelf_build_id(const char *bin, char *hex, size_t len)
{
	char cmd[PATH_MAX + 64], out[256], id[129];

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | grep 'Build ID:'", bin);
	if (tl_run(cmd, out, sizeof(out)) != 0 || sscanf(out, " Build ID: %128s", id) != 1)
		return -1;
	snprintf(hex, len, "%s", id);
	return 0;
}

/* Whether objdump decodes push %rbp as the first instruction at vaddr. */
static int objdump_starts_with_push(const char *bin, uint64_t vaddr)
{
	char cmd[PATH_MAX + 128], out[2048];

	snprintf(cmd, sizeof(cmd),
		 "objdump -d --start-address=0x%" PRIx64 " --stop-address=0x%" PRIx64
		 " '%s' | grep -m1 '^ *[0-9a-f]*:'",
		 vaddr, vaddr + 1, bin);
	if (tl_run(cmd, out, sizeof(out)) != 0)
		return -1;
	return strstr(out, "push") && strstr(out, "%rbp");
}

static int find(const struct elfsym_target *t, size_t n, const char *sym)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].symbol, sym))
			return (int)i;
	return -1;
}

/* Every field of a symtest target against readelf. */
static void check_symtest_target(const struct elfsym_target *t, const char *name)
{
	uint64_t value = 0, size = 0, off = 0;
	char id[129] = "";

	REQUIRE(readelf_sym(symtest(), name, &value, &size) == 0, "readelf -s: %s", name);
	REQUIRE(readelf_offset(symtest(), value, &off) == 0, "readelf -l: 0x%" PRIx64, value);
	CHECK(!strcmp(t->binary, symtest()), "%s", t->binary);
	CHECK(!strcmp(t->symbol, name), "%s != %s", t->symbol, name);
	CHECK(t->vaddr == value, "%s: vaddr 0x%" PRIx64 " != 0x%" PRIx64, name, t->vaddr, value);
	CHECK(t->offset == off, "%s: offset 0x%" PRIx64 " != 0x%" PRIx64, name, t->offset, off);
	CHECK(t->size == size, "%s: size %" PRIu64 " != %" PRIu64, name, t->size, size);
	CHECK(!t->ifunc, "%s", name);
	CHECK(readelf_build_id(symtest(), id, sizeof(id)) == 0, "readelf -n");
	CHECK(!strcmp(t->build_id, id), "%s != %s", t->build_id, id);
}

TEST(exact_name)
{
	struct elfsym_target *t;
	size_t n;

	REQUIRE_SYMTEST();
	REQUIRE(resolve_sym("parse_alpha", &t, &n) == 0, "%s", err);
	REQUIRE(n == 1, "n=%zu", n);
	check_symtest_target(&t[0], "parse_alpha");
	CHECK(!t[0].needs_single_step, "parse_alpha");
	elfsym__free_targets(t, n);
}

/* scale is static: only .symtab has it. */
TEST(static_function)
{
	struct elfsym_target *t;
	size_t n;

	REQUIRE_SYMTEST();
	REQUIRE(resolve_sym("scale", &t, &n) == 0, "%s", err);
	REQUIRE(n == 1, "n=%zu", n);
	check_symtest_target(&t[0], "scale");
	elfsym__free_targets(t, n);
}

TEST(glob)
{
	static const char *const want[] = {"parse_alpha", "parse_beta", "parse_gamma"};
	struct elfsym_target *t;
	size_t n;

	REQUIRE_SYMTEST();
	REQUIRE(resolve_sym("parse_*", &t, &n) == 0, "%s", err);
	CHECK(n == 3, "n=%zu", n);
	for (size_t i = 0; i < 3; i++) {
		int k = find(t, n, want[i]);

		CHECK(k >= 0, "%s missing", want[i]);
		if (k >= 0)
			check_symtest_target(&t[k], want[i]);
	}
	elfsym__free_targets(t, n);

	REQUIRE(resolve_sym("parse_[ab]*", &t, &n) == 0, "%s", err);
	CHECK(n == 2 && find(t, n, "parse_gamma") < 0, "n=%zu", n);
	elfsym__free_targets(t, n);
}

/*
 * In symtest (PIE) and libc, text offsets equal addresses, so only a
 * non-PIE build (text at 0x401000, file offset 0x1000) shows that the
 * offset goes through the program headers.
 */
TEST(offset_differs_from_vaddr)
{
	char dir[] = "/tmp/xlp-elfsym-XXXXXX", cmd[3 * PATH_MAX], bin[PATH_MAX],
	     spec[PATH_MAX + 16];
	uint64_t value = 0, size = 0, off = 0;
	struct elfsym_target *t;
	size_t n;

	REQUIRE(mkdtemp(dir), "mkdtemp");
	snprintf(bin, sizeof(bin), "%s/symtest-nopie", dir);
	snprintf(cmd, sizeof(cmd),
		 "${CC:-cc} -O1 -no-pie -fno-omit-frame-pointer -fcf-protection=none "
		 "-fno-inline %s/tests/workloads/symtest.c -o %s",
		 tl_root(), bin);
	REQUIRE(tl_run(cmd, NULL, 0) == 0, "%s", cmd);
	REQUIRE(readelf_sym(bin, "parse_beta", &value, &size) == 0, "readelf -s");
	REQUIRE(readelf_offset(bin, value, &off) == 0, "readelf -l");
	REQUIRE(off != value, "non-PIE build has offset == vaddr 0x%" PRIx64, value);
	snprintf(spec, sizeof(spec), "%s:parse_beta", bin);
	REQUIRE(resolve(spec, 0, &t, &n) == 0 && n == 1, "%s", err);
	CHECK(t[0].offset == off, "0x%" PRIx64 " != 0x%" PRIx64, t[0].offset, off);
	CHECK(t[0].vaddr == value, "0x%" PRIx64 " != 0x%" PRIx64, t[0].vaddr, value);
	CHECK(!t[0].needs_single_step, "push %%rbp at 0x%" PRIx64, off);
	elfsym__free_targets(t, n);
	unlink(bin);
	rmdir(dir);
}

/* asm_entry has no .size: an exact name finds it, a glob does not. */
TEST(unsized_function)
{
	struct elfsym_target *t;
	size_t n;

	REQUIRE_SYMTEST();
	REQUIRE(resolve_sym("asm_entry", &t, &n) == 0 && n == 1, "%s", err);
	check_symtest_target(&t[0], "asm_entry");
	CHECK(t[0].size == 0 && !t[0].needs_single_step, "size %" PRIu64, t[0].size);
	elfsym__free_targets(t, n);
	check_sym_err("asm_*", -ENOENT, "pattern 'asm_*' matched no function in %s");
}

/*
 * Launch mode through LD_LIBRARY_PATH, in a directory holding ELF copies
 * named libxlpt.so.1 and libxlpt-1 and a linker script libxlpt.so.
 */
TEST(library_dirs_ranking)
{
	char dir[] = "/tmp/xlp-elfsym-XXXXXX", want[PATH_MAX], *old = getenv("LD_LIBRARY_PATH");
	static const char *const specs[] = {"libxlpt:compute", "libxlpt.so:compute",
					    "libxlpt.so.1:compute"};
	struct elfsym_target *t;
	size_t n;

	REQUIRE_SYMTEST();
	old = old ? strdup(old) : NULL;
	REQUIRE(mkdtemp(dir), "mkdtemp");
	REQUIRE(shell("cp %2$s %1$s/libxlpt.so.1 && cp %2$s %1$s/libxlpt-1 && "
		      "echo 'INPUT(libxlpt.so.1)' > %1$s/libxlpt.so",
		      dir, symtest()) == 0,
		"cp");
	setenv("LD_LIBRARY_PATH", dir, 1);
	snprintf(want, sizeof(want), "%s/libxlpt.so.1", dir);
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		CHECK(resolve(specs[i], 0, &t, &n) == 0 && n == 1, "%s: %s", specs[i], err);
		CHECK(n && !strcmp(t[0].binary, want), "%s: %s", specs[i], n ? t[0].binary : "");
		elfsym__free_targets(t, n);
	}
	snprintf(want, sizeof(want), "%s/libxlpt-1", dir);
	CHECK(resolve("libxlpt-1:compute", 0, &t, &n) == 0 && n == 1, "%s", err);
	CHECK(n && !strcmp(t[0].binary, want), "%s", n ? t[0].binary : "");
	elfsym__free_targets(t, n);
	if (old)
		setenv("LD_LIBRARY_PATH", old, 1);
	else
		unsetenv("LD_LIBRARY_PATH");
	free(old);
	shell("rm -rf %s%s", dir, "");
}

/* compute and __compute share an address: one target, the plainer name. */
TEST(glob_aliases_deduplicated)
{
	struct elfsym_target *t;
	size_t n;

	REQUIRE_SYMTEST();
	REQUIRE(resolve_sym("*compute", &t, &n) == 0, "%s", err);
	REQUIRE(n == 1, "n=%zu", n);
	check_symtest_target(&t[0], "compute");
	elfsym__free_targets(t, n);

	/* an exact alias name is kept as written */
	REQUIRE(resolve_sym("__compute", &t, &n) == 0, "%s", err);
	REQUIRE(n == 1, "n=%zu", n);
	CHECK(!strcmp(t[0].symbol, "__compute"), "%s", t[0].symbol);
	elfsym__free_targets(t, n);
}

/* Offsets against the kernel's own mapping: dlsym address in /proc/self/maps. */
static int maps_offset(const void *addr, uint64_t *off, char *path, size_t len)
{
	char line[PATH_MAX + 256];
	uint64_t lo, hi, moff;
	FILE *f = fopen("/proc/self/maps", "r");
	int ret = -1;

	while (f && ret && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, " /");

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64, &lo, &hi, &moff) != 3 ||
		    (uint64_t)addr < lo || (uint64_t)addr >= hi || !p)
			continue;
		p[strcspn(p, "\n")] = 0;
		if (!realpath(p + 1, path))
			snprintf(path, len, "%s", p + 1);
		*off = (uint64_t)addr - lo + moff;
		ret = 0;
	}
	if (f)
		fclose(f);
	return ret;
}

static void check_libc(const char *spec, int pid, const char *sym)
{
	char path[PATH_MAX] = "";
	struct elfsym_target *t;
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *addr = h ? dlsym(h, sym) : NULL;
	uint64_t off = 0;
	size_t n;

	REQUIRE(addr, "dlsym %s: %s", sym, dlerror());
	REQUIRE(maps_offset(addr, &off, path, sizeof(path)) == 0, "%p not in maps", addr);
	REQUIRE(resolve(spec, pid, &t, &n) == 0, "%s: %s", spec, err);
	REQUIRE(n == 1, "%s: n=%zu", spec, n);
	CHECK(!strcmp(t[0].binary, path), "%s: %s != %s", spec, t[0].binary, path);
	CHECK(t[0].offset == off, "%s: 0x%" PRIx64 " != 0x%" PRIx64, spec, t[0].offset, off);
	CHECK(!t[0].ifunc, "%s", spec);
	CHECK(strlen(t[0].build_id) == 40, "%s: build-id '%s'", spec, t[0].build_id);
	elfsym__free_targets(t, n);
	dlclose(h);
}

TEST(libc_by_pid)
{
	check_libc("libc.so.6:malloc", getpid(), "malloc");
	check_libc("libc.so.6:qsort", getpid(), "qsort");
	check_libc("libc:malloc", getpid(), "malloc"); /* prefix of the basename */
}

TEST(libc_launch_mode)
{
	check_libc("libc.so.6:malloc", 0, "malloc");
	check_libc("libc:qsort", 0, "qsort");
	check_libc("libc.so:malloc", 0, "malloc"); /* the linker script is skipped */
}

/* Among libc's *malloc aliases, each address once; malloc's named malloc. */
TEST(libc_glob_aliases)
{
	struct elfsym_target *t, *m;
	size_t n, nm;

	REQUIRE(resolve("libc.so.6:malloc", getpid(), &m, &nm) == 0, "%s", err);
	REQUIRE(resolve("libc.so.6:*malloc", getpid(), &t, &n) == 0, "%s", err);
	CHECK(n >= 1, "n=%zu", n);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i + 1; j < n; j++)
			CHECK(t[i].offset != t[j].offset, "%s and %s", t[i].symbol, t[j].symbol);
		if (t[i].offset == m[0].offset)
			CHECK(!strcmp(t[i].symbol, "malloc"), "alias picked: %s", t[i].symbol);
	}
	CHECK(find(t, n, "malloc") >= 0, "n=%zu", n);
	elfsym__free_targets(t, n);
	elfsym__free_targets(m, nm);
}

/* strlen is an IFUNC in glibc on x86-64: the probe would hit the resolver. */
TEST(libc_ifunc_flagged)
{
	struct elfsym_target *t;
	size_t n;

	REQUIRE(resolve("libc.so.6:strlen", getpid(), &t, &n) == 0, "%s", err);
	REQUIRE(n == 1, "n=%zu", n);
	CHECK(t[0].ifunc, "strlen");
	elfsym__free_targets(t, n);
}

TEST(prefix_needs_separator)
{
	struct elfsym_target *t;
	size_t n;
	char want[256];
	int pid = getpid();

	/* libelf.so.1 is mapped, but "libel" is not a name of it */
	CHECK(resolve("libel:elf_begin", pid, &t, &n) == -ENOENT, "%s", err);
	snprintf(want, sizeof(want),
		 "libel: not mapped by PID %d: check /proc/%d/maps for the library's name", pid,
		 pid);
	CHECK(!strcmp(err, want), "%s", err);
	CHECK(!t && !n, "t=%p n=%zu", (void *)t, n);
	REQUIRE(resolve("libelf:elf_begin", pid, &t, &n) == 0, "%s", err);
	CHECK(n == 1 && strstr(t[0].binary, "/libelf"), "%s", n ? t[0].binary : "");
	elfsym__free_targets(t, n);
}

TEST(bare_name_in_cwd)
{
	char cwd[PATH_MAX], dir[PATH_MAX];
	struct elfsym_target *t = NULL;
	size_t n = 0;
	int ret;

	REQUIRE_SYMTEST();
	REQUIRE(getcwd(cwd, sizeof(cwd)), "getcwd");
	snprintf(dir, sizeof(dir), "%s", symtest());
	*strrchr(dir, '/') = 0;
	REQUIRE(chdir(dir) == 0, "chdir %s", dir);
	ret = resolve("symtest:compute", 0, &t, &n);
	CHECK(chdir(cwd) == 0, "chdir %s", cwd);
	REQUIRE(ret == 0, "%s", err);
	CHECK(n == 1 && !strcmp(t[0].binary, symtest()), "%s", n ? t[0].binary : "");
	elfsym__free_targets(t, n);
}

TEST(appends_and_keeps_on_error)
{
	struct elfsym_target *t = NULL;
	char spec[PATH_MAX + 64];
	size_t n = 0;

	REQUIRE_SYMTEST();
	snprintf(spec, sizeof(spec), "%s:compute", symtest());
	REQUIRE(elfsym__resolve(spec, 0, &t, &n, err, sizeof(err)) == 0, "%s", err);
	snprintf(spec, sizeof(spec), "%s:parse_*", symtest());
	REQUIRE(elfsym__resolve(spec, 0, &t, &n, err, sizeof(err)) == 0, "%s", err);
	CHECK(n == 4, "n=%zu", n);
	snprintf(spec, sizeof(spec), "%s:nope_*", symtest());
	CHECK(elfsym__resolve(spec, 0, &t, &n, err, sizeof(err)) == -ENOENT, "%s", err);
	CHECK(n == 4 && !strcmp(t[0].symbol, "compute") && find(t, n, "parse_beta") > 0, "n=%zu",
	      n);
	elfsym__free_targets(t, n);
	elfsym__free_targets(NULL, 0);
	/* no err buffer: still fails cleanly */
	CHECK(elfsym__resolve("nocolon", 0, &t, &n, NULL, 0) == -EINVAL, "no err buffer");
}

TEST(offset_spec)
{
	struct elfsym_target *t, *o;
	char sym[64], want[PATH_MAX + 256];
	size_t n, no;

	REQUIRE_SYMTEST();
	REQUIRE(resolve_sym("parse_beta", &t, &n) == 0 && n == 1, "%s", err);
	snprintf(sym, sizeof(sym), "0x%" PRIx64, t[0].offset);
	REQUIRE(resolve_sym(sym, &o, &no) == 0, "%s", err);
	CHECK(no == 1 && !strcmp(o[0].symbol, "parse_beta") && o[0].offset == t[0].offset, "%s",
	      err);
	elfsym__free_targets(o, no);

	snprintf(sym, sizeof(sym), "0x%" PRIx64, t[0].offset + 4);
	CHECK(resolve_sym(sym, &o, &no) == -EINVAL, "%s", err);
	snprintf(want, sizeof(want),
		 "offset %s in %s is not at a function start (inside parse_beta+0x4): use SYMBOL "
		 "or the function's start",
		 sym, symtest());
	CHECK(!strcmp(err, want), "%s", err);

	CHECK(resolve_sym("0x0", &o, &no) == -EINVAL, "%s", err);
	CHECK(strstr(err, "offset 0x0 in ") && strstr(err, "is not inside any function"), "%s",
	      err);
	elfsym__free_targets(t, n);
}

/* objdump decides: push %rbp first means no single-step. */
TEST(single_step_flag_symtest)
{
	static const char *const names[] = {"parse_alpha", "parse_beta", "parse_gamma", "compute",
					    "scale"};
	struct elfsym_target *t;
	size_t n;

	REQUIRE_SYMTEST();
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int push;

		REQUIRE(resolve_sym(names[i], &t, &n) == 0 && n == 1, "%s", err);
		push = objdump_starts_with_push(symtest(), t[0].vaddr);
		CHECK(push >= 0, "objdump failed");
		CHECK(t[0].needs_single_step == !push, "%s: needs_single_step=%d push=%d", names[i],
		      t[0].needs_single_step, push);
		elfsym__free_targets(t, n);
	}
	/* the fixture promises both kinds (see symtest.c) */
	REQUIRE(resolve_sym("parse_beta", &t, &n) == 0, "%s", err);
	CHECK(!t[0].needs_single_step, "parse_beta");
	elfsym__free_targets(t, n);
	REQUIRE(resolve_sym("scale", &t, &n) == 0, "%s", err);
	CHECK(t[0].needs_single_step, "scale");
	elfsym__free_targets(t, n);
}

TEST(single_step_patterns)
{
	static const uint8_t push_rbp[] = {0x55, 0x48, 0x89, 0xe5};
	static const uint8_t push_r15[] = {0x41, 0x57};
	static const uint8_t endbr_push[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x55};
	static const uint8_t endbr_sub[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x83, 0xec, 0x08};
	static const uint8_t nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	static const uint8_t sub_rsp[] = {0x48, 0x83, 0xec, 0x08};
	static const uint8_t mov_rip[] = {0x48, 0x8b, 0x05, 0, 0, 0, 0};
	static const uint8_t movzbl[] = {0x0f, 0xb6, 0x07, 0x84, 0xc0}; /* 0x0f, not a nop */

	CHECK(!elfsym__needs_single_step(push_rbp, sizeof(push_rbp)), "pattern");
	CHECK(!elfsym__needs_single_step(push_r15, sizeof(push_r15)), "pattern");
	CHECK(!elfsym__needs_single_step(endbr_push, sizeof(endbr_push)), "pattern");
	CHECK(!elfsym__needs_single_step(nop5, sizeof(nop5)), "pattern");
	CHECK(elfsym__needs_single_step(endbr_sub, sizeof(endbr_sub)), "pattern");
	CHECK(elfsym__needs_single_step(sub_rsp, sizeof(sub_rsp)), "pattern");
	CHECK(elfsym__needs_single_step(mov_rip, sizeof(mov_rip)), "pattern");
	CHECK(elfsym__needs_single_step(movzbl, sizeof(movzbl)), "pattern");
	CHECK(elfsym__needs_single_step(endbr_push, 4), "pattern"); /* endbr64 alone */
	CHECK(elfsym__needs_single_step(push_rbp, 0), "pattern");
}

TEST(build_id)
{
	char want[129], got[41], small[8];
	char path[PATH_MAX];
	const void *addr = (const void *)malloc;
	uint64_t off;

	REQUIRE_SYMTEST();
	REQUIRE(readelf_build_id(symtest(), want, sizeof(want)) == 0, "readelf -n");
	CHECK(elfsym__build_id(symtest(), got, sizeof(got)) == 0, "%s", got);
	CHECK(!strcmp(got, want), "%s != %s", got, want);
	CHECK(elfsym__build_id(symtest(), small, sizeof(small)) == -ENOSPC, "small buffer");
	CHECK(elfsym__build_id("/nonexistent/x", got, sizeof(got)) == -ENOENT, "missing file");
	CHECK(elfsym__build_id("/proc/self/status", got, sizeof(got)) == -ENOEXEC, "not ELF");
	REQUIRE(maps_offset(addr, &off, path, sizeof(path)) == 0, "malloc not in maps");
	REQUIRE(readelf_build_id(path, want, sizeof(want)) == 0, "readelf -n %s", path);
	CHECK(elfsym__build_id(path, got, sizeof(got)) == 0 && !strcmp(got, want), "%s != %s", got,
	      want);
}

/* ---- errors: exact messages, negative errno, nothing appended ---- */

TEST(err_bad_spec)
{
	static const char *const specs[] = {"foo", "app:", ":foo", ""};
	char want[256];

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		snprintf(want, sizeof(want),
			 "bad --func '%s': expected BINARY:SYMBOL, e.g. ./app:parse_json, "
			 "libc.so.6:malloc or ./app:'ns::Klass::*'",
			 specs[i]);
		check_err(specs[i], 0, -EINVAL, want);
	}
}

TEST(err_no_such_file)
{
	check_err("./nope/app:main", 0, -ENOENT,
		  "./nope/app: no such file: give a path or a library name mapped by PID");
	check_err("libxlp-nonexistent.so.9:foo", 0, -ENOENT,
		  "libxlp-nonexistent.so.9: no such file: give a path or a library name mapped by "
		  "PID");
}

TEST(err_not_elf)
{
	char dir[] = "/tmp/xlp-elfsym-XXXXXX", path[PATH_MAX], spec[PATH_MAX + 8],
	     want[PATH_MAX + 128];
	FILE *f;

	REQUIRE(mkdtemp(dir), "mkdtemp");
	snprintf(path, sizeof(path), "%s/notelf", dir);
	REQUIRE((f = fopen(path, "w")), "%s", path);
	fputs("#!/bin/sh\necho hi\n", f);
	fclose(f);
	snprintf(spec, sizeof(spec), "%s:main", path);
	snprintf(want, sizeof(want),
		 "%s is not an ELF file: --func needs an executable or shared library", path);
	check_err(spec, 0, -ENOEXEC, want);

	/* a directory is not one either */
	snprintf(spec, sizeof(spec), "%s:main", dir);
	snprintf(want, sizeof(want),
		 "%s is not an ELF file: --func needs an executable or shared library", dir);
	check_err(spec, 0, -ENOEXEC, want);
	unlink(path);
	rmdir(dir);
}

TEST(err_object_file)
{
	char dir[] = "/tmp/xlp-elfsym-XXXXXX", cmd[3 * PATH_MAX], obj[PATH_MAX],
	     spec[PATH_MAX + 16], want[PATH_MAX + 128];

	REQUIRE(mkdtemp(dir), "mkdtemp");
	snprintf(obj, sizeof(obj), "%s/symtest.o", dir);
	snprintf(cmd, sizeof(cmd), "${CC:-cc} -c %s/tests/workloads/symtest.c -o %s", tl_root(),
		 obj);
	REQUIRE(tl_run(cmd, NULL, 0) == 0, "%s", cmd);
	snprintf(spec, sizeof(spec), "%s:compute", obj);
	snprintf(want, sizeof(want),
		 "%s is not linked (ELF type 1): --func needs an executable or shared library",
		 obj);
	check_err(spec, 0, -ENOEXEC, want);
	unlink(obj);
	rmdir(dir);
}

TEST(err_not_mapped)
{
	char want[256];
	int pid = getpid();

	snprintf(want, sizeof(want),
		 "libfoo.so: not mapped by PID %d: check /proc/%d/maps for the library's name", pid,
		 pid);
	check_err("libfoo.so:bar", pid, -ENOENT, want);
}

/* A mapped file later replaced on disk: maps says "(deleted)". */
TEST(err_mapped_file_deleted)
{
	char dir[] = "/tmp/xlp-elfsym-XXXXXX", path[PATH_MAX], want[PATH_MAX + 256];
	struct elfsym_target *t;
	int pid = getpid(), fd;
	void *map;
	size_t n;

	REQUIRE_SYMTEST();
	REQUIRE(mkdtemp(dir), "mkdtemp");
	REQUIRE(shell("cp %2$s %1$s/xlp-mapped", dir, symtest()) == 0, "cp");
	snprintf(path, sizeof(path), "%s/xlp-mapped", dir);
	REQUIRE((fd = open(path, O_RDONLY)) >= 0, "%s", path);
	map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	REQUIRE(map != MAP_FAILED, "mmap");
	CHECK(resolve("xlp-mapped:compute", pid, &t, &n) == 0 && n == 1, "%s", err);
	CHECK(n && !strcmp(t[0].binary, path), "%s", n ? t[0].binary : "");
	elfsym__free_targets(t, n);
	unlink(path);
	rmdir(dir);
	snprintf(want, sizeof(want),
		 "xlp-mapped: PID %d maps a deleted %s (replaced since it started): restart the "
		 "process to trace it",
		 pid, path);
	check_err("xlp-mapped:compute", pid, -ENOENT, want);
	munmap(map, 4096);
}

TEST(err_no_process)
{
	char want[128];
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork");
	if (!pid)
		_exit(0);
	REQUIRE(waitpid(pid, NULL, 0) == pid, "waitpid");
	snprintf(want, sizeof(want), "no process %d: check the PID (has it exited?)", pid);
	check_err("libc.so.6:malloc", pid, -ESRCH, want);
}

TEST(err_no_function_suggests)
{
	REQUIRE_SYMTEST();
	check_sym_err("prase_alpha", -ENOENT,
		      "no function 'prase_alpha' in %s; did you mean: parse_alpha, parse_beta, "
		      "parse_gamma?");
	/* substring */
	check_sym_err("gamma", -ENOENT, "no function 'gamma' in %s; did you mean: parse_gamma?");
	/* case; and __compute, an alias of compute, is not offered again */
	check_sym_err("Compute", -ENOENT, "no function 'Compute' in %s; did you mean: compute?");
	check_sym_err("zzzzqqqq", -ENOENT,
		      "no function 'zzzzqqqq' in %1$s: list its functions with nm %1$s");
}

TEST(err_glob_no_match)
{
	REQUIRE_SYMTEST();
	check_sym_err("zz_*", -ENOENT, "pattern 'zz_*' matched no function in %s");
	/* some_data matches, but it is no function */
	check_sym_err("some_*", -ENOENT, "pattern 'some_*' matched no function in %s");
}

/* tests/workloads/cxxwl, the C++ subject */
static const char *cxxwl(void)
{
	static char path[PATH_MAX];
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/.output/tests/workloads/cxxwl", tl_root());
	if (!realpath(rel, path))
		snprintf(path, sizeof(path), "%s", rel);
	return path;
}

/* The symbols a C++ spec resolves to, sorted names joined by ' ' into out. */
static int cxx_resolve(const char *sym, char *out, size_t len)
{
	char spec[PATH_MAX + 128];
	struct elfsym_target *t;
	size_t n, used = 0;
	int ret;

	snprintf(spec, sizeof(spec), "%s:%s", cxxwl(), sym);
	out[0] = 0;
	ret = resolve(spec, 0, &t, &n);
	for (size_t k = 0; !ret && k < n; k++) {
		/* in address order; the overloads' order is the compiler's */
		size_t best = n;

		for (size_t i = 0; i < n; i++)
			if (t[i].symbol[0] &&
			    (best == n || strcmp(t[i].symbol, t[best].symbol) < 0))
				best = i;
		xlp_put(out, len, &used, "%s%s", used ? " " : "", t[best].symbol);
		t[best].symbol[0] = 0;
	}
	if (!ret)
		elfsym__free_targets(t, n);
	return ret;
}

/*
 * C++ functions by their demangled names: whole, without the parameter
 * list (every overload), by glob; the mangled name still works. BINARY
 * ends at the first ':' outside a '::' (the last ':' would have cut
 * "ns:" off the name). The mangled names are the Itanium ABI's, as nm
 * shows them.
 */
TEST(cxx_demangled_names)
{
	char got[1024];

	REQUIRE(access(cxxwl(), X_OK) == 0, "%s missing: make .output/tests/workloads/cxxwl",
		cxxwl());
	CHECK(!cxx_resolve("shop::Checkout::handle(int)", got, sizeof(got)) &&
		      !strcmp(got, "_ZN4shop8Checkout6handleEi"),
	      "%s %s", got, err);
	CHECK(!cxx_resolve("shop::Checkout::handle", got, sizeof(got)) &&
		      !strcmp(got, "_ZN4shop8Checkout6handleEd _ZN4shop8Checkout6handleEi"),
	      "%s %s", got, err);
	CHECK(!cxx_resolve("shop::*::handle*", got, sizeof(got)) &&
		      !strcmp(got, "_ZN4shop8Checkout6handleEd _ZN4shop8Checkout6handleEi"),
	      "%s %s", got, err);
	CHECK(!cxx_resolve("shop::(anonymous namespace)::tally", got, sizeof(got)) &&
		      !strcmp(got, "_ZN4shop12_GLOBAL__N_15tallyEl"),
	      "%s %s", got, err);
	/* a template, by its demangled form with its return type */
	CHECK(!cxx_resolve("long shop::crunch<long>(long)", got, sizeof(got)) &&
		      !strcmp(got, "_ZN4shop6crunchIlEET_S1_"),
	      "%s %s", got, err);
	/* a '*' of the name escaped (as report suggests it), or as a glob */
	CHECK(!cxx_resolve("shop::Checkout::note(char const\\*)", got, sizeof(got)) &&
		      !strcmp(got, "_ZN4shop8Checkout4noteEPKc"),
	      "%s %s", got, err);
	CHECK(!cxx_resolve("shop::Checkout::note(char const*)", got, sizeof(got)) &&
		      !strcmp(got, "_ZN4shop8Checkout4noteEPKc"),
	      "%s %s", got, err);
	CHECK(!cxx_resolve("_ZN4shop8Checkout6handleEi", got, sizeof(got)) &&
		      !strcmp(got, "_ZN4shop8Checkout6handleEi"),
	      "%s %s", got, err);
	CHECK(cxx_resolve("shop::Checkout::nope", got, sizeof(got)) == -ENOENT &&
		      strstr(err, "'shop::Checkout::nope' is no function of ") &&
		      strstr(err, "by its demangled name"),
	      "%s", err);
	CHECK(cxx_resolve("shop::Nope::*", got, sizeof(got)) == -ENOENT &&
		      strstr(err, "matched no function in ") &&
		      strstr(err, "by its demangled name either"),
	      "%s", err);
}

TEST(err_not_a_function)
{
	REQUIRE_SYMTEST();
	check_sym_err("some_data", -EINVAL, "'some_data' in %s is not a function");
}

TEST(err_imported)
{
	REQUIRE_SYMTEST();
	check_sym_err("printf", -ENOENT,
		      "'printf' is not defined in %s (it is imported from libc.so.6): use "
		      "libc.so.6:printf");
	/* unversioned (weak) imports: the library is not known */
	check_sym_err("__gmon_start__", -ENOENT,
		      "'__gmon_start__' is not defined in %s (it is imported): use "
		      "LIBRARY:__gmon_start__ with the library that defines it");
}

TEST(stripped_and_debuglink)
{
	char dir[] = "/tmp/xlp-elfsym-XXXXXX", path[PATH_MAX], spec[PATH_MAX + 32],
	     want[PATH_MAX + 256];
	struct elfsym_target *t, *ref;
	size_t n, nref;

	REQUIRE_SYMTEST();
	REQUIRE(mkdtemp(dir), "mkdtemp");
	REQUIRE(shell("strip -o %s/stripped %s", dir, symtest()) == 0, "strip");
	snprintf(path, sizeof(path), "%s/stripped", dir);
	snprintf(spec, sizeof(spec), "%s:parse_alpha", path);
	snprintf(want, sizeof(want),
		 "%s has no function symbols (stripped): use an unstripped build or install its "
		 "debug symbols",
		 path);
	check_err(spec, 0, -ENOENT, want);

	/* the debug file next to the binary brings even static functions back */
	REQUIRE(shell("objcopy --only-keep-debug %2$s %1$s/symtest.debug", dir, symtest()) == 0,
		"objcopy --only-keep-debug");
	REQUIRE(shell("cd %s && objcopy --strip-all --add-gnu-debuglink=symtest.debug %s linked",
		      dir, symtest()) == 0,
		"objcopy");
	snprintf(spec, sizeof(spec), "%s/linked:scale", dir);
	REQUIRE(resolve(spec, 0, &t, &n) == 0, "%s", err);
	REQUIRE(resolve_sym("scale", &ref, &nref) == 0, "%s", err);
	CHECK(n == 1 && t[0].offset == ref[0].offset && t[0].size == ref[0].size, "n=%zu", n);
	CHECK(!strcmp(t[0].build_id, ref[0].build_id), "%s != %s", t[0].build_id, ref[0].build_id);
	elfsym__free_targets(t, n);
	elfsym__free_targets(ref, nref);
	shell("rm -rf %s%s", dir, "");
}

TEST_MAIN()
