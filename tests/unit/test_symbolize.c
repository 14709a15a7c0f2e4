/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Frame naming (user/symbols/symbolize.c). Expected names come from elsewhere:
 * nm and readelf for the files, dlsym() and /proc/self/maps for this
 * process, a parse of /proc/kallsyms of our own for the kernel. Files:
 * tests/workloads/symtest (make .output/tests/workloads/symtest), builds
 * of it and of a small library made here with ${CC:-cc}, and their
 * stripped copies.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>
#include "testlib.h"
#include "symtest.h"
#include "symbolize.h"

/* A function of this binary for the live-process test; not static: in .symtab as is. */
__attribute__((noinline)) int xt_live_target(int v);

__attribute__((noinline)) int xt_live_target(int v)
{
	return v * 7 + (int)getpid();
}

/*
 * The library, in this order (-fno-toplevel-reorder): an exported
 * function, a static one, another exported one, then an exported
 * assembly function without .size and a static function after it.
 * Stripped, the static ones lie after .dynsym functions and must take
 * neither name: not the sized one's (it ends before), not the unsized
 * one's (.dynsym does not list every function).
 */
static const char lib_src[] = "__attribute__((noinline)) int xt_exported(int v)\n"
			      "{ volatile int x = v; return x * 3 + 1; }\n"
			      "__attribute__((noinline, used)) static int xt_hidden(int v)\n"
			      "{ volatile int x = v; return x * 5 + 2; }\n"
			      "int xt_exported2(int v) { return xt_hidden(v) + xt_exported(v); }\n"
			      "__asm__(\".text\\n.globl xt_asm\\n.type xt_asm, @function\\n"
			      "xt_asm:\\n\\tnop\\n\\tnop\\n\\tret\\n\");\n"
			      "__attribute__((noinline, used)) static int xt_after_asm(int v)\n"
			      "{ volatile int x = v; return x * 11 + 4; }\n";

struct nmsym {
	uint64_t addr, size; /* size 0: nm shows none */
	char type;
	char name[128];
};

__attribute__((format(printf, 1, 2))) static int shell(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return tl_run(cmd, NULL, 0);
}

/* The GNU build-id of bin as the kernel reports it (raw, zero-padded), from readelf. */
static int readelf_build_id(const char *bin, unsigned char id[XLP_BUILD_ID_LEN])
{
	char cmd[PATH_MAX + 64], out[256], hex[129];
	size_t n;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | grep 'Build ID:'", bin);
	if (tl_run(cmd, out, sizeof(out)) != 0 || sscanf(out, " Build ID: %128s", hex) != 1)
		return -1;
	n = strlen(hex) / 2;
	if (n > XLP_BUILD_ID_LEN)
		return -1;
	memset(id, 0, XLP_BUILD_ID_LEN);
	for (size_t i = 0; i < n; i++) {
		unsigned int v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		id[i] = (unsigned char)v;
	}
	return 0;
}

/* The defined text symbols of bin (.symtab), from nm. */
static size_t nm_funcs(const char *bin, struct nmsym *out, size_t max)
{
	char cmd[PATH_MAX + 64], line[512];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm --defined-only -S '%s' 2>/dev/null", bin);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		struct nmsym s = {0};
		char t1[32], t2[32];

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %127s", &s.addr, &s.size, &s.type,
			   s.name) == 4) {
			/* "ADDR SIZE TYPE NAME" */
		} else if (sscanf(line, "%" SCNx64 " %31s %31s", &s.addr, t1, t2) == 3 &&
			   strlen(t1) == 1) {
			s.size = 0;
			s.type = t1[0];
			snprintf(s.name, sizeof(s.name), "%s", t2);
		} else {
			continue;
		}
		if (strchr("tTW", s.type) && n < max)
			out[n++] = s;
	}
	pclose(p);
	return n;
}

static const struct nmsym *nm_find(const struct nmsym *s, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].name, name))
			return &s[i];
	return NULL;
}

/* Whether another of s shares sym's address (aliases: the symbolizer shows one). */
static bool nm_aliased(const struct nmsym *s, size_t n, const struct nmsym *sym)
{
	for (size_t i = 0; i < n; i++)
		if (&s[i] != sym && s[i].addr == sym->addr)
			return true;
	return false;
}

/* The frame at sym + delta in bin, by build-id and file offset. */
static int by_build_id(struct symbolizer *s, const char *bin, uint64_t vaddr, struct xsym *x,
		       uint64_t *off)
{
	unsigned char id[XLP_BUILD_ID_LEN];

	if (readelf_build_id(bin, id) || readelf_offset(bin, vaddr, off))
		return -1000;
	return symbolizer__user_build_id(s, id, *off, x);
}

static void check_symbol(const struct xsym *x, int ret, const char *name, const char *module,
			 uint64_t offset)
{
	CHECK(ret == 0 && x->kind == XSYM_SYMBOL, "%s: ret %d kind %d name '%s'", name, ret,
	      x->kind, x->name);
	CHECK(!strcmp(x->name, name), "got '%s', want '%s'", x->name, name);
	CHECK(!strcmp(x->module, module), "%s: module '%s', want '%s'", name, x->module, module);
	CHECK(x->offset == offset, "%s: offset %" PRIu64 ", want %" PRIu64, name, x->offset,
	      offset);
}

static void check_file(const struct xsym *x, int ret, const char *what, const char *base,
		       uint64_t off)
{
	char want[512];

	snprintf(want, sizeof(want), "[%s+0x%" PRIx64 "]", base, off);
	CHECK(ret != 0 && x->kind == XSYM_FILE, "%s: ret %d kind %d name '%s'", what, ret, x->kind,
	      x->name);
	CHECK(!strcmp(x->name, want), "%s: got '%s', want '%s'", what, x->name, want);
	CHECK(!strcmp(x->module, base), "%s: module '%s'", what, x->module);
	CHECK(x->offset == off, "%s: offset 0x%" PRIx64 ", want 0x%" PRIx64, what, x->offset, off);
}

/*
 * Every sized function nm lists, 3 bytes in, by build-id and file offset:
 * its name, offset 3. Returns how many were checked.
 */
static size_t check_nm_agrees(const char *bin)
{
	static struct nmsym syms[4096];
	size_t n = nm_funcs(bin, syms, sizeof(syms) / sizeof(syms[0])), checked = 0;
	struct symbolizer *s;

	if (symbolizer__new(&s))
		return 0;
	CHECK(symbolizer__add_file(s, bin) == 0, "%s", bin);
	for (size_t i = 0; i < n; i++) {
		struct xsym x;
		uint64_t off;
		int ret;

		if (syms[i].size <= 3 || nm_aliased(syms, n, &syms[i]))
			continue;
		ret = by_build_id(s, bin, syms[i].addr + 3, &x, &off);
		CHECK(ret != -1000, "readelf: %s", syms[i].name);
		check_symbol(&x, ret, syms[i].name, strrchr(bin, '/') + 1, 3);
		checked++;
	}
	symbolizer__free(s);
	return checked;
}

/* Builds the library (lib_src) as dir/libxt.so.1; 0 on success. */
static int build_lib(const char *dir)
{
	char src[PATH_MAX];
	FILE *f;

	snprintf(src, sizeof(src), "%s/xt.c", dir);
	f = fopen(src, "w");
	if (!f)
		return -1;
	fputs(lib_src, f);
	fclose(f);
	return shell("${CC:-cc} -O1 -g -fPIC -shared -fno-toplevel-reorder -fno-inline "
		     "-fcf-protection=none %s -o %s/libxt.so.1",
		     src, dir);
}

TEST(build_id_agrees_with_nm)
{
	char dir[] = "/tmp/xlp-sym-XXXXXX", nopie[PATH_MAX];
	struct symbolizer *s;
	struct xsym x;
	uint64_t off;
	size_t n;

	REQUIRE_SYMTEST();
	n = check_nm_agrees(symtest());
	CHECK(n >= 5, "only %zu functions of symtest checked", n);

	/* non-PIE: text at 0x401000, file offset 0x1000; the offset must go through PT_LOAD */
	REQUIRE(mkdtemp(dir), "mkdtemp");
	snprintf(nopie, sizeof(nopie), "%s/symtest-nopie", dir);
	REQUIRE(shell("${CC:-cc} -O1 -no-pie -fno-omit-frame-pointer -fcf-protection=none "
		      "-fno-inline %s/tests/workloads/symtest.c -o %s",
		      tl_root(), nopie) == 0,
		"cc -no-pie");
	n = check_nm_agrees(nopie);
	CHECK(n >= 5, "only %zu functions of symtest-nopie checked", n);

	/* aliases at one address: the global name without underscores */
	REQUIRE(symbolizer__new(&s) == 0, "new");
	CHECK(symbolizer__add_file(s, symtest()) == 0, "%s", symtest());
	{
		static struct nmsym syms[4096];
		size_t k = nm_funcs(symtest(), syms, 4096);
		const struct nmsym *c = nm_find(syms, k, "compute"),
				   *a = nm_find(syms, k, "asm_entry");

		REQUIRE(c && a, "nm: compute, asm_entry");
		check_symbol(&x, by_build_id(s, symtest(), c->addr + 1, &x, &off), "compute",
			     "symtest", 1);
		/* unsized (assembly without .size), in a file with .symtab: named */
		CHECK(a->size == 0, "asm_entry has size %" PRIu64, a->size);
		check_symbol(&x, by_build_id(s, symtest(), a->addr + 1, &x, &off), "asm_entry",
			     "symtest", 1);
	}
	symbolizer__free(s);
	shell("rm -rf %s", dir);
}

TEST(stripped_never_misnames)
{
	char dir[] = "/tmp/xlp-sym-XXXXXX", lib[PATH_MAX], strip_lib[PATH_MAX], linked[PATH_MAX],
	     strip_st[PATH_MAX];
	static struct nmsym syms[4096];
	const struct nmsym *exp, *hid, *asm_, *after;
	uint64_t off, exp_addr, hid_addr, asm_addr, after_addr;
	struct symbolizer *s, *t;
	struct xsym x;
	size_t n;
	int ret;

	REQUIRE_SYMTEST();
	REQUIRE(mkdtemp(dir), "mkdtemp");
	REQUIRE(build_lib(dir) == 0, "cc -shared");
	snprintf(lib, sizeof(lib), "%s/libxt.so.1", dir);
	REQUIRE(shell("mkdir %1$s/s %1$s/l && objcopy --strip-all %2$s %1$s/s/libxt.so.1", dir,
		      lib) == 0,
		"objcopy --strip-all");
	snprintf(strip_lib, sizeof(strip_lib), "%s/s/libxt.so.1", dir);
	n = nm_funcs(lib, syms, 4096);
	exp = nm_find(syms, n, "xt_exported");
	hid = nm_find(syms, n, "xt_hidden");
	asm_ = nm_find(syms, n, "xt_asm");
	after = nm_find(syms, n, "xt_after_asm");
	REQUIRE(exp && hid && hid->addr > exp->addr && hid->size > 3, "nm %s", lib);
	REQUIRE(asm_ && after && !asm_->size && after->addr > asm_->addr && after->size > 3,
		"nm %s: xt_asm unsized, then xt_after_asm", lib);
	/* syms is read again below */
	exp_addr = exp->addr;
	hid_addr = hid->addr;
	asm_addr = asm_->addr;
	after_addr = after->addr;

	/* the original: every function named */
	REQUIRE(symbolizer__new(&s) == 0, "new");
	CHECK(symbolizer__add_file(s, lib) == 0, "%s", lib);
	check_symbol(&x, by_build_id(s, lib, hid_addr + 3, &x, &off), "xt_hidden", "libxt.so.1", 3);
	check_symbol(&x, by_build_id(s, lib, asm_addr + 1, &x, &off), "xt_asm", "libxt.so.1", 1);
	check_symbol(&x, by_build_id(s, lib, after_addr + 3, &x, &off), "xt_after_asm",
		     "libxt.so.1", 3);
	symbolizer__free(s);

	/* stripped (same build-id): .dynsym names the export, the static one is a file offset */
	REQUIRE(symbolizer__new(&s) == 0, "new");
	CHECK(symbolizer__add_file(s, strip_lib) == 0, "%s", strip_lib);
	check_symbol(&x, by_build_id(s, strip_lib, exp_addr + 3, &x, &off), "xt_exported",
		     "libxt.so.1", 3);
	ret = by_build_id(s, strip_lib, hid_addr + 3, &x, &off);
	check_file(&x, ret, "xt_hidden+3", "libxt.so.1", off);
	CHECK(off == hid_addr + 3, "PIC library: offset 0x%" PRIx64 " == vaddr", off);
	/* after an unsized .dynsym function: maybe another function, so no name */
	ret = by_build_id(s, strip_lib, after_addr + 3, &x, &off);
	check_file(&x, ret, "xt_after_asm+3", "libxt.so.1", off);
	ret = by_build_id(s, strip_lib, asm_addr + 1, &x, &off);
	check_file(&x, ret, "xt_asm+1", "libxt.so.1", off);
	symbolizer__free(s);

	/* stripped with a .gnu_debuglink: the debug file names the static one again */
	REQUIRE(shell("cd %1$s/l && objcopy --only-keep-debug %2$s libxt.debug && "
		      "objcopy --strip-all --add-gnu-debuglink=libxt.debug %2$s libxt.so.1",
		      dir, lib) == 0,
		"objcopy --add-gnu-debuglink");
	snprintf(linked, sizeof(linked), "%s/l/libxt.so.1", dir);
	REQUIRE(symbolizer__new(&s) == 0, "new");
	CHECK(symbolizer__add_file(s, linked) == 0, "%s", linked);
	check_symbol(&x, by_build_id(s, linked, hid_addr + 3, &x, &off), "xt_hidden", "libxt.so.1",
		     3);
	symbolizer__free(s);

	/* symtest stripped: its .dynsym has imports only, so no function keeps a name */
	snprintf(strip_st, sizeof(strip_st), "%s/s/symtest", dir);
	REQUIRE(shell("objcopy --strip-all %s %s", symtest(), strip_st) == 0, "objcopy");
	REQUIRE(symbolizer__new(&s) == 0, "new");
	REQUIRE(symbolizer__new(&t) == 0, "new");
	CHECK(symbolizer__add_file(s, strip_st) == 0, "%s", strip_st);
	n = nm_funcs(symtest(), syms, 4096);
	CHECK(n >= 5, "nm symtest: %zu", n);
	for (size_t i = 0; i < n; i++) {
		ret = by_build_id(s, strip_st, syms[i].addr + (syms[i].size > 1), &x, &off);

		check_file(&x, ret, syms[i].name, "symtest", off);
	}
	symbolizer__free(s);

	/*
	 * Replaced between being shown and first read: the file at the path
	 * now has another build-id, so its symbols would name other code.
	 */
	CHECK(shell("cp %s %s/l/replaced", lib, dir) == 0, "cp");
	snprintf(linked, sizeof(linked), "%s/l/replaced", dir);
	CHECK(symbolizer__add_file(t, linked) == 0, "%s", linked);
	CHECK(readelf_offset(lib, hid_addr + 3, &off) == 0, "readelf");
	CHECK(shell("cp %s %s.new && mv %s.new %s", symtest(), linked, linked, linked) == 0, "cp");
	{
		unsigned char id[XLP_BUILD_ID_LEN];

		CHECK(readelf_build_id(lib, id) == 0, "readelf -n");
		check_file(&x, symbolizer__user_build_id(t, id, off, &x), "replaced", "replaced",
			   off);
	}
	symbolizer__free(t);
	shell("rm -rf %s", dir);
}

/* Two files with one build-id: when the first is gone, the other names the frames. */
TEST(same_build_id_elsewhere)
{
	char dir[] = "/tmp/xlp-sym-XXXXXX", lib[PATH_MAX], copy[PATH_MAX];
	unsigned char id[XLP_BUILD_ID_LEN];
	static struct nmsym syms[64];
	const struct nmsym *hid;
	struct symbolizer *s;
	uint64_t off = 0;
	struct xsym x;
	size_t n;

	REQUIRE(mkdtemp(dir), "mkdtemp");
	REQUIRE(build_lib(dir) == 0, "cc -shared");
	snprintf(lib, sizeof(lib), "%s/libxt.so.1", dir);
	snprintf(copy, sizeof(copy), "%s/c/libxt.so.1", dir);
	REQUIRE(shell("mkdir %s/c && cp %s %s", dir, lib, copy) == 0, "cp");
	n = nm_funcs(lib, syms, 64);
	hid = nm_find(syms, n, "xt_hidden");
	REQUIRE(hid && readelf_offset(lib, hid->addr + 3, &off) == 0 &&
			readelf_build_id(lib, id) == 0,
		"nm, readelf %s", lib);
	REQUIRE(symbolizer__new(&s) == 0, "new");
	CHECK(symbolizer__add_file(s, lib) == 0, "%s", lib);
	CHECK(symbolizer__add_file(s, copy) == 0, "%s", copy);
	CHECK(unlink(lib) == 0, "unlink");
	check_symbol(&x, symbolizer__user_build_id(s, id, off, &x), "xt_hidden", "libxt.so.1", 3);
	symbolizer__free(s);
	shell("rm -rf %s", dir);
}

/* The mapping of this process holding addr, from /proc/self/maps: file offset and path. */
static int self_maps_offset(uint64_t addr, uint64_t *off, char *path, size_t len)
{
	char line[PATH_MAX + 256];
	FILE *f = fopen("/proc/self/maps", "r");
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff;
		int pos = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*u %n", &start, &end,
			   &pgoff, &pos) != 3 ||
		    addr < start || addr >= end)
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(path, len, "%s", line + pos);
		*off = pgoff + addr - start;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

TEST(live_process)
{
	char dir[] = "/tmp/xlp-sym-XXXXXX", path[PATH_MAX], lib[PATH_MAX], exe[PATH_MAX];
	unsigned char id[XLP_BUILD_ID_LEN];
	ssize_t n;
	uint64_t self = (uintptr_t)xt_live_target, off;
	void *getpid_addr = dlsym(RTLD_DEFAULT, "getpid"), *h, *fn;
	struct symbolizer *s;
	struct xsym x;
	pid_t child;
	int st;

	REQUIRE(getpid_addr, "dlsym getpid");
	REQUIRE(symbolizer__new(&s) == 0, "new");
	/* not seen yet: nothing known */
	CHECK(symbolizer__user_ip(s, getpid(), self, &x) && x.kind == XSYM_UNKNOWN, "%s", x.name);
	REQUIRE(symbolizer__add_pid(s, getpid()) == 0, "add_pid");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	REQUIRE(n > 0, "readlink /proc/self/exe");
	exe[n] = 0;
	check_symbol(&x, symbolizer__user_ip(s, getpid(), self + 1, &x), "xt_live_target",
		     strrchr(exe, '/') + 1, 1);
	check_symbol(&x, symbolizer__user_ip(s, getpid(), (uintptr_t)getpid_addr, &x), "getpid",
		     "libc.so.6", 0);
	check_symbol(&x, symbolizer__user_ip(s, getpid(), (uintptr_t)getpid_addr + 1, &x), "getpid",
		     "libc.so.6", 1);

	/* the pid taught the build-ids of what it maps: libc by build-id and offset */
	REQUIRE(self_maps_offset((uintptr_t)getpid_addr, &off, path, sizeof(path)) == 0, "maps");
	REQUIRE(readelf_build_id(path, id) == 0, "readelf -n %s", path);
	check_symbol(&x, symbolizer__user_build_id(s, id, off + 1, &x), "getpid", "libc.so.6", 1);

	/* an address no file mapping holds, another pid */
	CHECK(symbolizer__user_ip(s, getpid(), 16, &x) && x.kind == XSYM_UNKNOWN &&
		      !strcmp(x.name, "[unknown]") && !x.module[0],
	      "%s", x.name);
	CHECK(symbolizer__user_ip(s, getpid() + 1, self, &x) && x.kind == XSYM_UNKNOWN, "%s",
	      x.name);

	/* a library mapped then unmapped: still named by build-id and by address */
	REQUIRE(mkdtemp(dir), "mkdtemp");
	REQUIRE(build_lib(dir) == 0, "cc -shared");
	snprintf(lib, sizeof(lib), "%s/libxt.so.1", dir);
	REQUIRE((h = dlopen(lib, RTLD_NOW | RTLD_LOCAL)), "dlopen: %s", dlerror());
	fn = dlsym(h, "xt_exported2");
	REQUIRE(fn, "dlsym");
	REQUIRE(self_maps_offset((uintptr_t)fn, &off, path, sizeof(path)) == 0, "maps");
	CHECK(!strcmp(path, lib), "%s", path);
	REQUIRE(symbolizer__add_pid(s, getpid()) == 0, "add_pid");
	dlclose(h);
	REQUIRE(readelf_build_id(lib, id) == 0, "readelf -n");
	check_symbol(&x, symbolizer__user_build_id(s, id, off + 2, &x), "xt_exported2",
		     "libxt.so.1", 2);
	check_symbol(&x, symbolizer__user_ip(s, getpid(), (uintptr_t)fn + 2, &x), "xt_exported2",
		     "libxt.so.1", 2);
	/* re-adding refreshes: the unmapped library's range is no longer this pid's */
	REQUIRE(symbolizer__add_pid(s, getpid()) == 0, "add_pid");
	CHECK(symbolizer__user_ip(s, getpid(), (uintptr_t)fn + 2, &x) && x.kind != XSYM_SYMBOL,
	      "%s", x.name);
	check_symbol(&x, symbolizer__user_build_id(s, id, off + 2, &x), "xt_exported2",
		     "libxt.so.1", 2);

	/* a process that is gone */
	child = fork();
	REQUIRE(child >= 0, "fork");
	if (!child)
		_exit(0);
	REQUIRE(waitpid(child, &st, 0) == child, "waitpid");
	CHECK(symbolizer__add_pid(s, child) == -ESRCH, "dead pid");
	CHECK(symbolizer__add_pid(s, -1) == -ESRCH, "pid -1");
	symbolizer__free(s);
	shell("rm -rf %s", dir);
}

struct kent {
	uint64_t addr;
	char type;
	char name[128];
	char mod[64];
};

static int kent_cmp(const void *a, const void *b)
{
	const struct kent *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* k[i] (sorted, not the first or last): a function alone at its address, 2 bytes or more. */
/*
 * A text symbol alone at its address. Not a BPF program's: another tool
 * may unload it between the test's read of /proc/kallsyms and the
 * symbolizer's.
 */
static bool kent_plain(const struct kent *k, size_t i)
{
	return strchr("tT", k[i].type) && strcmp(k[i].mod, "bpf") && k[i - 1].addr != k[i].addr &&
	       k[i + 1].addr > k[i].addr + 1 && strcmp(k[i].name, "_etext") &&
	       strcmp(k[i].name, "_einittext");
}

TEST(kernel)
{
	struct kent *k = NULL;
	size_t n = 0, cap = 0, picked = 0, cand = 0;
	char line[512];
	struct symbolizer *s;
	struct xsym x;
	FILE *f = fopen("/proc/kallsyms", "r");

	REQUIRE(f, "/proc/kallsyms");
	while (fgets(line, sizeof(line), f)) {
		struct kent e = {0};

		if (sscanf(line, "%" SCNx64 " %c %127s [%63[^]]]", &e.addr, &e.type, e.name,
			   e.mod) < 3 ||
		    !e.addr)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			k = realloc(k, cap * sizeof(*k));
			REQUIRE(k, "realloc");
		}
		k[n++] = e;
	}
	fclose(f);
	REQUIRE(n > 1000, "/proc/kallsyms: %zu addresses (run as root)", n);
	qsort(k, n, sizeof(*k), kent_cmp);
	REQUIRE(symbolizer__new(&s) == 0, "new");

	/* text symbols alone at their address, with a next symbol past +1: 8 spread out */
	for (size_t i = 1; i + 1 < n; i++)
		cand += kent_plain(k, i);
	REQUIRE(cand >= 8, "%zu candidates", cand);
	for (size_t i = 1, c = 0; i + 1 < n; i++) {
		char mod[80];

		if (!kent_plain(k, i) || c++ % (cand / 8))
			continue;
		snprintf(mod, sizeof(mod), "%s", k[i].mod[0] ? k[i].mod : "[kernel]");
		check_symbol(&x, symbolizer__kernel(s, k[i].addr + 1, &x), k[i].name, mod, 1);
		picked++;
	}
	CHECK(picked >= 8, "%zu checked", picked);

	/* nothing below the first symbol, past the last, or after the end of text */
	CHECK(symbolizer__kernel(s, 0, &x) && x.kind == XSYM_UNKNOWN &&
		      !strcmp(x.name, "[unknown]"),
	      "%s", x.name);
	/*
	 * A BPF program loaded since the test read /proc/kallsyms (another
	 * tool on the machine) is JITed above the last symbol the test saw and
	 * is then rightly named: only a symbol the test saw is wrong there.
	 */
	if (k[n - 1].addr < UINT64_MAX - 16) {
		int rc = symbolizer__kernel(s, k[n - 1].addr + 16, &x);

		CHECK((rc && x.kind == XSYM_UNKNOWN) || (!rc && !strncmp(x.name, "bpf_prog_", 9)),
		      "%d %s", rc, x.name);
	}
	for (size_t i = 0; i + 1 < n; i++)
		if (!strcmp(k[i].name, "_etext") && k[i + 1].addr > k[i].addr + 16)
			CHECK(symbolizer__kernel(s, k[i].addr + 16, &x) && x.kind == XSYM_UNKNOWN,
			      "_etext+16: %s", x.name);
	symbolizer__free(s);
	free(k);
}

TEST(bad_input)
{
	char dir[] = "/tmp/xlp-sym-XXXXXX", path[PATH_MAX];
	unsigned char id[XLP_BUILD_ID_LEN];
	struct symbolizer *s;
	struct xsym x;
	FILE *f;

	REQUIRE_SYMTEST();
	REQUIRE(symbolizer__new(&s) == 0, "new");
	memset(id, 0xab, sizeof(id));
	CHECK(symbolizer__user_build_id(s, id, 0x1000, &x) != 0, "unknown build-id");
	CHECK(x.kind == XSYM_UNKNOWN && !strcmp(x.name, "[unknown]") && !x.module[0], "%s", x.name);

	REQUIRE(mkdtemp(dir), "mkdtemp");
	snprintf(path, sizeof(path), "%s/notelf", dir);
	REQUIRE((f = fopen(path, "w")), "%s", path);
	fputs("#!/bin/sh\necho hi\n", f);
	fclose(f);
	CHECK(symbolizer__add_file(s, path) == -ENOEXEC, "not ELF");
	CHECK(symbolizer__add_file(s, dir) == -ENOEXEC, "a directory");
	snprintf(path, sizeof(path), "%s/missing", dir);
	CHECK(symbolizer__add_file(s, path) == -ENOENT, "missing");

	/* the first 200 bytes of a real binary: its ELF header, nothing it points to */
	snprintf(path, sizeof(path), "%s/truncated", dir);
	REQUIRE(shell("head -c 200 %s > %s", symtest(), path) == 0, "head -c");
	CHECK(symbolizer__add_file(s, path) < 0, "truncated ELF");
	/* half of it: maybe its build-id, no section table; no name either way */
	snprintf(path, sizeof(path), "%s/half", dir);
	REQUIRE(shell("head -c $(($(stat -c %%s %s) / 2)) %s > %s", symtest(), symtest(), path) ==
			0,
		"head -c");
	symbolizer__add_file(s, path);
	REQUIRE(readelf_build_id(symtest(), id) == 0, "readelf -n");
	CHECK(symbolizer__user_build_id(s, id, 0x1139, &x) != 0 && x.kind != XSYM_SYMBOL, "%s",
	      x.name);

	/* an ELF file without a build-id is not indexed */
	snprintf(path, sizeof(path), "%s/noid", dir);
	REQUIRE(shell("${CC:-cc} -Wl,--build-id=none %s/tests/workloads/symtest.c -o %s", tl_root(),
		      path) == 0,
		"cc --build-id=none");
	CHECK(symbolizer__add_file(s, path) == -ENOENT, "no build-id");
	symbolizer__free(s);
	symbolizer__free(NULL);
	shell("rm -rf %s", dir);
}

TEST_MAIN()
