/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * JIT code names (user/symbols/jittab.c, perfmap.c, jitdump.c, jitfile.c,
 * jitproc.c and their use in symbolize.c): crafted perf maps and
 * jitdumps, well formed and not (owner, symlink, FIFO, size, malformed
 * lines, lying record sizes, overlapping, moved and reused code), and this
 * process's own anonymous executable memory named from a map and a
 * jitdump it writes and maps, as a runtime does.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "testlib.h"
#include "jitdump.h"
#include "perfmap.h"
#include "symbolize.h"
#include "xlptest.h"

static int put(const char *path, const void *buf, size_t len, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, buf, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static struct jit_owner me(void)
{
	return (struct jit_owner){.uid = {getuid()}, .n = 1};
}

/* The name perfmap or jitdump gives addr (time: JITTAB_NOW for a map), or "" */
static const char *map_name(struct perfmap *m, uint64_t addr)
{
	static char out[300];
	struct jitsym s;

	out[0] = 0;
	if (!perfmap__find(m, addr, &s))
		snprintf(out, sizeof(out), "%s+0x%llx", s.name,
			 (unsigned long long)(addr - s.start));
	return out;
}

TEST(perfmap_lines)
{
	static const char text[] = "1000 100 first\n"
				   "0x2000 0x80 LazyCompile:*burn /srv/app.js:3\n"
				   "3000 zz notsize\n"		/* malformed: size */
				   "4000\n"			/* malformed: fields missing */
				   "5000 10 \n"			/* malformed: no name */
				   "6000 0 empty\n"		/* size 0: covers nothing */
				   "ffffffffffffffffff 1 big\n" /* more than 64 bits */
				   "fffffffffffffff0 10 top\n" /* reaches the address space's end */
				   "7000 10 crlf\r\n";
	struct jit_counts c = {};
	struct perfmap *m;
	struct jit_owner o = me();

	REQUIRE(!perfmap__new(&m), "perfmap__new");
	REQUIRE(!put(xt_tmp_path("a.map"), text, strlen(text), O_TRUNC), "write");
	CHECK(!perfmap__update(m, xt_tmp_path("a.map"), &o, &c), "update");
	CHECK(!strcmp(map_name(m, 0x1000), "first+0x0"), "%s", map_name(m, 0x1000));
	CHECK(!strcmp(map_name(m, 0x10ff), "first+0xff"), "%s", map_name(m, 0x10ff));
	CHECK(!strcmp(map_name(m, 0x1100), ""), "past the end: %s", map_name(m, 0x1100));
	CHECK(!strcmp(map_name(m, 0x2010), "LazyCompile:*burn /srv/app.js:3+0x10"), "%s",
	      map_name(m, 0x2010));
	CHECK(!strcmp(map_name(m, UINT64_MAX), "top+0xf"), "%s", map_name(m, UINT64_MAX));
	CHECK(!strcmp(map_name(m, 0x7005), "crlf+0x5"), "%s", map_name(m, 0x7005));
	CHECK(!strcmp(map_name(m, 0x3000), "") && !strcmp(map_name(m, 0x6000), ""), "malformed");
	CHECK(c.entries == 4 && c.skipped == 5 && c.files == 1, "entries %llu skipped %llu",
	      (unsigned long long)c.entries, (unsigned long long)c.skipped);
	perfmap__free(m);
}

TEST(perfmap_grows_and_overrides)
{
	struct jit_counts c = {};
	struct jit_owner o = me();
	struct perfmap *m;
	const char *p = xt_tmp_path("grow.map");

	REQUIRE(!perfmap__new(&m), "perfmap__new");
	REQUIRE(!put(p, "1000 100 old\n2000 1", 19, O_TRUNC), "write");
	CHECK(!perfmap__update(m, p, &o, &c), "update");
	CHECK(!strcmp(map_name(m, 0x1010), "old+0x10"), "%s", map_name(m, 0x1010));
	/* the line being written is not read until whole */
	CHECK(!strcmp(map_name(m, 0x2000), "") && c.skipped == 0, "half a line read");
	/* its end, then code over the old one's addresses: the later line wins */
	REQUIRE(!put(p, "0 cut\n1080 100 new\n", 19, O_APPEND), "append");
	CHECK(!perfmap__update(m, p, &o, &c), "update");
	CHECK(!strcmp(map_name(m, 0x2000), "cut+0x0"), "%s", map_name(m, 0x2000));
	CHECK(!strcmp(map_name(m, 0x107f), "old+0x7f"), "%s", map_name(m, 0x107f));
	CHECK(!strcmp(map_name(m, 0x1080), "new+0x0"), "%s", map_name(m, 0x1080));
	CHECK(!strcmp(map_name(m, 0x1170), "new+0xf0"), "%s", map_name(m, 0x1170));
	/* an older, wider line does not hide the newer one inside it */
	REQUIRE(!put(p, "1100 10 inner\n1000 1000 wide\n1200 10 last\n", 43, O_APPEND), "append");
	CHECK(!perfmap__update(m, p, &o, &c), "update");
	CHECK(!strcmp(map_name(m, 0x1105), "wide+0x105"), "%s", map_name(m, 0x1105));
	CHECK(!strcmp(map_name(m, 0x1205), "last+0x5"), "%s", map_name(m, 0x1205));
	CHECK(!strcmp(map_name(m, 0x1fff), "wide+0xfff"), "%s", map_name(m, 0x1fff));
	CHECK(c.entries == 6 && c.files == 1, "entries %llu files %llu",
	      (unsigned long long)c.entries, (unsigned long long)c.files);
	/* replaced by another file: read from its start */
	unlink(p);
	REQUIRE(!put(p, "9000 10 other\n", 14, O_TRUNC), "write");
	CHECK(!perfmap__update(m, p, &o, &c), "update");
	CHECK(!strcmp(map_name(m, 0x9000), "other+0x0") && !strcmp(map_name(m, 0x1000), ""),
	      "replaced file: %s", map_name(m, 0x1000));
	perfmap__free(m);
}

/*
 * A JVM's Compiler.perfmap truncates its map and writes it whole again,
 * same inode, often longer: what was read is no longer there, and the
 * map is read again from its start (the method compiled since, at an
 * address the first map did not have, is named; freed code is not).
 */
TEST(perfmap_rewritten_in_place)
{
	static const char first[] = "0x1000 0x100 long A.old(int)\n";
	static const char second[] = "0x3000 0x100 long A.hot(int)\n0x5000 0x100 void A.x()\n";
	struct jit_counts c = {};
	struct jit_owner o = me();
	struct perfmap *m;
	const char *p = xt_tmp_path("jvm.map");

	REQUIRE(!perfmap__new(&m), "perfmap__new");
	REQUIRE(!put(p, first, strlen(first), O_TRUNC), "write");
	CHECK(!perfmap__update(m, p, &o, &c), "update");
	CHECK(!strcmp(map_name(m, 0x1000), "long A.old(int)+0x0"), "%s", map_name(m, 0x1000));
	REQUIRE(!put(p, second, strlen(second), O_TRUNC), "rewrite");
	CHECK(!perfmap__update(m, p, &o, &c), "update");
	CHECK(!strcmp(map_name(m, 0x3010), "long A.hot(int)+0x10"), "the rewritten map: %s",
	      map_name(m, 0x3010));
	CHECK(!strcmp(map_name(m, 0x1000), ""), "freed code still named: %s", map_name(m, 0x1000));
	perfmap__free(m);
}

TEST(perfmap_refused)
{
	struct jit_counts c = {};
	struct jit_owner o = me(), other = {.uid = {12345}, .n = 1};
	struct perfmap *m;
	const char *p = xt_tmp_path("ok.map"), *l = xt_tmp_path("link.map"),
		   *f = xt_tmp_path("fifo.map");
	int err;

	REQUIRE(!perfmap__new(&m), "perfmap__new");
	REQUIRE(!put(p, "1000 10 x\n", 10, O_TRUNC), "write");
	/* as root, a file of root's is the runtime's own (root's process): make it another's */
	if (!geteuid())
		REQUIRE(!chown(p, 65534, 65534), "chown");
	err = perfmap__update(m, p, &other, &c);
	CHECK(err == -EPERM && c.refused == 1 && strstr(c.why, "owned by uid") &&
		      strstr(c.why, "12345"),
	      "another user's map: %d, %s", err, c.why);
	CHECK(!strcmp(map_name(m, 0x1000), ""), "refused map read");
	REQUIRE(!symlink(p, l), "symlink");
	c = (struct jit_counts){};
	err = perfmap__update(m, l, &o, &c);
	CHECK(err == -EPERM && c.refused == 1 && strstr(c.why, "symlink"), "symlink: %d %s", err,
	      c.why);
	REQUIRE(!mkfifo(f, 0644), "mkfifo");
	c = (struct jit_counts){};
	/* O_NONBLOCK: no writer, no wait */
	err = perfmap__update(m, f, &o, &c);
	CHECK(err == -EPERM && strstr(c.why, "FIFO"), "FIFO: %d %s", err, c.why);
	c = (struct jit_counts){};
	err = perfmap__update(m, xt_tmpdir(), &o, &c);
	CHECK(err == -EPERM && strstr(c.why, "directory"), "directory: %d %s", err, c.why);
	err = perfmap__update(m, xt_tmp_path("none.map"), &o, &c);
	CHECK(err == -ENOENT && c.refused == 1, "missing file: %d (not a refusal)", err);
	perfmap__free(m);
}

TEST(perfmap_bounds)
{
	struct jit_counts c = {};
	struct jit_owner o = me();
	struct perfmap *m;
	const char *p = xt_tmp_path("big.map");
	char *big;
	size_t n = 0, cap = (size_t)(JITTAB_MAX + 10) * 24 + PERFMAP_LINE_MAX + 64;
	int fd;

	REQUIRE(!perfmap__new(&m), "perfmap__new");
	REQUIRE((big = malloc(cap)), "malloc");
	/* a line too long to be one: skipped, the next one read */
	memset(big, 'a', PERFMAP_LINE_MAX + 10);
	n = PERFMAP_LINE_MAX + 10;
	big[n++] = '\n';
	for (uint32_t i = 0; i < JITTAB_MAX + 10; i++)
		n += (size_t)sprintf(big + n, "%x 10 f%u\n", 0x100000u + 16 * i, i);
	REQUIRE(!put(p, big, n, O_TRUNC), "write");
	CHECK(!perfmap__update(m, p, &o, &c), "update");
	CHECK(c.skipped == 1 && c.cut == 1 && perfmap__len(m) == JITTAB_MAX,
	      "skipped %llu cut %llu len %zu", (unsigned long long)c.skipped,
	      (unsigned long long)c.cut, perfmap__len(m));
	CHECK(!strcmp(map_name(m, 0x100000 + 16 * 7), "f7+0x0"), "%s",
	      map_name(m, 0x100000 + 16 * 7));
	perfmap__free(m);
	free(big);
	/* a file past the size bound: read up to it, cut, counted */
	REQUIRE(!perfmap__new(&m), "perfmap__new");
	c = (struct jit_counts){};
	fd = open(p, O_WRONLY | O_TRUNC);
	REQUIRE(fd >= 0 && !ftruncate(fd, (off_t)PERFMAP_MAX_BYTES + 4096), "ftruncate");
	REQUIRE(pwrite(fd, "1000 10 sparse\n", 15, 0) == 15, "pwrite");
	close(fd);
	CHECK(!perfmap__update(m, p, &o, &c), "update");
	CHECK(c.cut == 1 && !strcmp(map_name(m, 0x1000), "sparse+0x0"), "cut %llu",
	      (unsigned long long)c.cut);
	perfmap__free(m);
	unlink(p);
}

/* ---- jitdumps ---- */

struct dump {
	uint8_t *b;
	size_t n, cap;
};

static void raw(struct dump *d, const void *p, size_t len)
{
	if (d->n + len > d->cap) {
		d->cap = (d->n + len) * 2 + 256;
		d->b = realloc(d->b, d->cap);
		if (!d->b)
			abort();
	}
	memcpy(d->b + d->n, p, len);
	d->n += len;
}

static void u32(struct dump *d, uint32_t v)
{
	raw(d, &v, 4);
}

static void u64(struct dump *d, uint64_t v)
{
	raw(d, &v, 8);
}

static void header(struct dump *d, uint64_t flags)
{
	u32(d, JITDUMP_MAGIC);
	u32(d, 1);
	u32(d, 40);
	u32(d, 62); /* EM_X86_64 */
	u32(d, 0);
	u32(d, 1234);
	u64(d, 1);
	u64(d, flags);
}

static void load(struct dump *d, uint64_t t, uint64_t addr, uint64_t size, const char *name)
{
	size_t nl = strlen(name) + 1;

	u32(d, 0);
	u32(d, (uint32_t)(56 + nl + size));
	u64(d, t);
	u32(d, 1234);
	u32(d, 1234);
	u64(d, addr);
	u64(d, addr);
	u64(d, size);
	u64(d, 7);
	raw(d, name, nl);
	for (uint64_t i = 0; i < size; i++)
		raw(d, "\xcc", 1);
}

static void move(struct dump *d, uint64_t t, uint64_t from, uint64_t to, uint64_t size)
{
	u32(d, 1);
	u32(d, 64);
	u64(d, t);
	u32(d, 1234);
	u32(d, 1234);
	u64(d, to);
	u64(d, from);
	u64(d, to);
	u64(d, size);
	u64(d, 7);
}

static const char *dump_name(struct jitdump *j, uint64_t addr, uint64_t t)
{
	static char out[300];
	struct jitsym s;

	out[0] = 0;
	if (!jitdump__find(j, addr, t, &s))
		snprintf(out, sizeof(out), "%s+0x%llx", s.name,
			 (unsigned long long)(addr - s.start));
	return out;
}

/* d written to a file and read: the reader, or NULL. */
static struct jitdump *dump_read(const struct dump *d, struct jit_counts *c)
{
	struct jit_owner o = me();
	struct jitdump *j;
	const char *p = xt_tmp_path("jit-1234.dump");

	if (jitdump__new(&j))
		return NULL;
	if (put(p, d->b, d->n, O_TRUNC) || jitdump__update(j, p, 0, &o, c)) {
		jitdump__free(j);
		return NULL;
	}
	return j;
}

TEST(jitdump_loads_moves_reuse)
{
	struct jit_counts c = {};
	struct dump d = {};
	struct jitdump *j;
	uint64_t now = tl_now_ns();

	header(&d, 0);
	load(&d, now - 900, 0x1000, 0x40, "JS:*first a.js:1");
	load(&d, now - 800, 0x2000, 0x40, "JS:*moved a.js:2");
	move(&d, now - 700, 0x2000, 0x3000, 0x40);
	/* 0x1000 freed and reused by another function */
	load(&d, now - 600, 0x1000, 0x20, "JS:*second a.js:3");
	u32(&d, 2); /* JIT_CODE_DEBUG_INFO: skipped by its size */
	u32(&d, 24);
	u64(&d, now - 500);
	u64(&d, 0);
	u32(&d, 99); /* an id of a later version: skipped by its size */
	u32(&d, 16);
	u64(&d, now - 500);
	REQUIRE((j = dump_read(&d, &c)), "read");
	CHECK(jitdump__timed(j), "CLOCK_MONOTONIC timestamps not used");
	CHECK(!strcmp(dump_name(j, 0x1010, JITTAB_NOW), "JS:*second a.js:3+0x10"), "%s",
	      dump_name(j, 0x1010, JITTAB_NOW));
	/* a sample before the reuse: the code there then */
	CHECK(!strcmp(dump_name(j, 0x1010, now - 650), "JS:*first a.js:1+0x10"), "%s",
	      dump_name(j, 0x1010, now - 650));
	CHECK(!strcmp(dump_name(j, 0x1030, now - 550), "JS:*first a.js:1+0x30"),
	      "the old code past the new one's end: %s", dump_name(j, 0x1030, now - 550));
	CHECK(!strcmp(dump_name(j, 0x1010, now - 950), ""), "before any load: %s",
	      dump_name(j, 0x1010, now - 950));
	CHECK(!strcmp(dump_name(j, 0x3008, JITTAB_NOW), "JS:*moved a.js:2+0x8"), "moved: %s",
	      dump_name(j, 0x3008, JITTAB_NOW));
	CHECK(!strcmp(dump_name(j, 0x2008, now - 750), "JS:*moved a.js:2+0x8"),
	      "before its move: %s", dump_name(j, 0x2008, now - 750));
	CHECK(c.entries == 4 && c.skipped == 0 && c.corrupt == 0 && jitdump__tail(j) == 0,
	      "entries %llu skipped %llu", (unsigned long long)c.entries,
	      (unsigned long long)c.skipped);
	jitdump__free(j);
	free(d.b);
}

TEST(jitdump_untimed)
{
	struct jit_counts c = {};
	struct dump d = {};
	struct jitdump *j;

	/* the CPU's counter (JITDUMP_FLAGS_ARCH_TIMESTAMP): the last load wins */
	header(&d, 1);
	load(&d, 900, 0x1000, 0x40, "first");
	load(&d, 5, 0x1000, 0x40, "second");
	REQUIRE((j = dump_read(&d, &c)), "read");
	CHECK(!jitdump__timed(j) && !strcmp(dump_name(j, 0x1000, 100), "second+0x0"), "%s",
	      dump_name(j, 0x1000, 100));
	jitdump__free(j);
	/* timestamps far in the future are no CLOCK_MONOTONIC: the same */
	free(d.b);
	d = (struct dump){};
	header(&d, 0);
	load(&d, tl_now_ns() + 3600ull * 1000000000, 0x1000, 0x40, "future");
	REQUIRE((j = dump_read(&d, &c)), "read");
	CHECK(!jitdump__timed(j) && !strcmp(dump_name(j, 0x1000, 100), "future+0x0"), "%s",
	      dump_name(j, 0x1000, 100));
	jitdump__free(j);
	free(d.b);
}

TEST(jitdump_malformed)
{
	struct jit_counts c = {};
	struct dump d = {};
	struct jitdump *j;
	size_t at;

	header(&d, 1);
	load(&d, 1, 0x1000, 0x10, "good");
	/* a load whose name does not end inside it: skipped by its size */
	at = d.n;
	load(&d, 2, 0x2000, 0, "noend");
	d.b[d.n - 1] = 'x';
	/* a load reaching past the address space, one with a huge size: skipped */
	load(&d, 3, UINT64_MAX - 4, 0x10, "wraps");
	at = d.n;
	load(&d, 3, 0x5000, 0, "huge");
	memcpy(d.b + at + 40, &(uint64_t){JITDUMP_CODE_MAX + 1}, 8);
	/* a move of nothing known, and one too short: skipped */
	move(&d, 4, 0x9000, 0xa000, 0x10);
	u32(&d, 1);
	u32(&d, 20);
	u64(&d, 4);
	u32(&d, 0);
	load(&d, 5, 0x6000, 0x10, "after");
	REQUIRE((j = dump_read(&d, &c)), "read");
	CHECK(!strcmp(dump_name(j, 0x1000, JITTAB_NOW), "good+0x0") &&
		      !strcmp(dump_name(j, 0x6000, JITTAB_NOW), "after+0x0"),
	      "records around the bad ones");
	CHECK(!strcmp(dump_name(j, 0x2000, JITTAB_NOW), "") &&
		      !strcmp(dump_name(j, 0x5000, JITTAB_NOW), ""),
	      "bad records named");
	CHECK(c.skipped == 5 && c.entries == 2 && !c.corrupt, "skipped %llu entries %llu",
	      (unsigned long long)c.skipped, (unsigned long long)c.entries);
	jitdump__free(j);

	/* a record shorter than its own header: nothing after it can be found */
	c = (struct jit_counts){};
	at = d.n;
	u32(&d, 0);
	u32(&d, 8);
	u64(&d, 6);
	load(&d, 7, 0x7000, 0x10, "lost");
	REQUIRE((j = dump_read(&d, &c)), "read");
	CHECK(c.corrupt == 1 && strstr(c.why, "shorter than its header") &&
		      !strcmp(dump_name(j, 0x7000, JITTAB_NOW), "") &&
		      !strcmp(dump_name(j, 0x6000, JITTAB_NOW), "after+0x0"),
	      "corrupt %llu: %s", (unsigned long long)c.corrupt, c.why);
	jitdump__free(j);

	/* a record claiming more than the file has: left unread, its bytes counted */
	d.n = at;
	c = (struct jit_counts){};
	u32(&d, 0);
	u32(&d, 1u << 20);
	u64(&d, 6);
	REQUIRE((j = dump_read(&d, &c)), "read");
	CHECK(!c.corrupt && jitdump__tail(j) == 16 &&
		      !strcmp(dump_name(j, 0x6000, JITTAB_NOW), "after+0x0"),
	      "lying size: tail %llu", (unsigned long long)jitdump__tail(j));
	jitdump__free(j);

	/* not a jitdump; the other byte order; a bad header size */
	for (int k = 0; k < 3; k++) {
		uint32_t v = k == 0 ? 0x12345678u : k == 1 ? __builtin_bswap32(JITDUMP_MAGIC) : 8;

		c = (struct jit_counts){};
		memcpy(d.b + (k == 2 ? 8 : 0), &v, 4);
		REQUIRE((j = dump_read(&d, &c)), "read");
		CHECK(c.corrupt == 1 && jitdump__len(j) == 0, "header %d: %s", k, c.why);
		jitdump__free(j);
		memcpy(d.b, &(uint32_t){JITDUMP_MAGIC}, 4);
		memcpy(d.b + 8, &(uint32_t){40}, 4);
	}
	/* cut anywhere: no crash, what is whole is read */
	for (size_t cut = 0; cut < d.n; cut += 7) {
		struct dump e = {.b = d.b, .n = cut};

		c = (struct jit_counts){};
		REQUIRE((j = dump_read(&e, &c)), "read");
		CHECK(cut < 40 + 56 + 5 + 0x10 ||
			      !strcmp(dump_name(j, 0x1000, JITTAB_NOW), "good+0x0"),
		      "cut %zu", cut);
		jitdump__free(j);
	}
	free(d.b);
}

TEST(jitdump_grows)
{
	struct jit_counts c = {};
	struct jit_owner o = me();
	struct dump d = {};
	struct jitdump *j;
	const char *p = xt_tmp_path("jit-grow.dump");
	size_t half;

	header(&d, 1);
	load(&d, 1, 0x1000, 0x10, "one");
	load(&d, 2, 0x2000, 0x10, "two");
	half = d.n - 20;
	REQUIRE(!jitdump__new(&j), "new");
	REQUIRE(!put(p, d.b, half, O_TRUNC), "write");
	CHECK(!jitdump__update(j, p, 0, &o, &c), "update");
	CHECK(!strcmp(dump_name(j, 0x1000, JITTAB_NOW), "one+0x0") &&
		      !strcmp(dump_name(j, 0x2000, JITTAB_NOW), "") && jitdump__tail(j) > 0,
	      "half a record read");
	REQUIRE(!put(p, d.b + half, d.n - half, O_APPEND), "append");
	CHECK(!jitdump__update(j, p, 0, &o, &c), "update");
	CHECK(!strcmp(dump_name(j, 0x2000, JITTAB_NOW), "two+0x0") && jitdump__tail(j) == 0,
	      "the rest of it");
	CHECK(c.entries == 2 && c.files == 1, "entries %llu", (unsigned long long)c.entries);
	/* the inode the process maps is another: refused */
	CHECK(jitdump__update(j, p, 1, &o, &c) == -EPERM && strstr(c.why, "replaced"), "%s", c.why);
	jitdump__free(j);
	free(d.b);
}

/* ---- this process, as a runtime: anonymous code named through the symbolizer ---- */

TEST(symbolizer_perfmap_live)
{
	char path[64], line[128];
	struct symbolizer *s;
	struct xsym x;
	struct jit_counts c;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *code = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t a = (uint64_t)(uintptr_t)code;
	struct timespec pause = {0, 30 * 1000 * 1000};

	REQUIRE(code != MAP_FAILED, "mmap");
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	unlink(path);
	REQUIRE(!symbolizer__new(&s) && !symbolizer__add_pid(s, getpid()), "symbolizer");
	/* no map yet */
	symbolizer__user_ip(s, getpid(), a + 0x10, &x);
	CHECK(x.kind == XSYM_UNKNOWN, "named without a map: %s", x.name);
	/* the map appears after the first miss: found on a later miss */
	snprintf(line, sizeof(line), "%llx 100 JS:*burnTheCpuXlp /srv/app.js:3\n",
		 (unsigned long long)a);
	REQUIRE(!put(path, line, strlen(line), O_TRUNC | O_EXCL), "write %s", path);
	nanosleep(&pause, NULL);
	CHECK(!symbolizer__user_ip(s, getpid(), a + 0x10, &x) && x.kind == XSYM_SYMBOL &&
		      !strcmp(x.name, "JS:*burnTheCpuXlp /srv/app.js:3") &&
		      !strcmp(x.module, XSYM_JIT_MODULE) && x.offset == 0x10,
	      "%s %s +0x%llx", x.module, x.name, (unsigned long long)x.offset);
	/* grown since: the new line is read on the next miss */
	snprintf(line, sizeof(line), "%llx 40 JS:~later /srv/app.js:9\n",
		 (unsigned long long)a + 0x200);
	REQUIRE(!put(path, line, strlen(line), O_APPEND), "append");
	nanosleep(&pause, NULL);
	CHECK(!symbolizer__user_ip(s, getpid(), a + 0x204, &x) &&
		      !strcmp(x.name, "JS:~later /srv/app.js:9"),
	      "%s", x.name);
	symbolizer__jit_counts(s, &c);
	CHECK(c.files == 1 && c.entries == 2 && c.named == 2, "files %llu entries %llu named %llu",
	      (unsigned long long)c.files, (unsigned long long)c.entries,
	      (unsigned long long)c.named);
	symbolizer__free(s);
	unlink(path);
	munmap(code, page);
}

TEST(symbolizer_jitdump_live)
{
	char path[PATH_MAX];
	struct symbolizer *s;
	struct dump d = {};
	struct xsym x;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *code = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t a = (uint64_t)(uintptr_t)code, t0 = tl_now_ns();
	void *marker;
	int fd;

	REQUIRE(code != MAP_FAILED, "mmap");
	snprintf(path, sizeof(path), "%s/jit-%d.dump", xt_tmpdir(), getpid());
	header(&d, 0);
	load(&d, t0 - 1000, a, 0x100, "JS:*old /srv/app.js:1");
	load(&d, t0, a, 0x100, "JS:*burnTheCpuXlp /srv/app.js:3");
	REQUIRE(!put(path, d.b, d.n, O_TRUNC), "write");
	/* as a runtime does, so that profilers find it */
	fd = open(path, O_RDONLY);
	REQUIRE(fd >= 0, "open");
	marker = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	REQUIRE(marker != MAP_FAILED, "mmap the dump");
	REQUIRE(!symbolizer__new(&s) && !symbolizer__add_pid(s, getpid()), "symbolizer");
	CHECK(!symbolizer__user_ip(s, getpid(), a + 0x20, &x) &&
		      !strcmp(x.name, "JS:*burnTheCpuXlp /srv/app.js:3") &&
		      !strcmp(x.module, XSYM_JIT_MODULE) && x.offset == 0x20,
	      "%s %s", x.module, x.name);
	/* a sample taken before the second load: the code there then */
	symbolizer__set_time(s, t0 - 500);
	CHECK(!symbolizer__user_ip(s, getpid(), a + 0x20, &x) &&
		      !strcmp(x.name, "JS:*old /srv/app.js:1"),
	      "%s", x.name);
	symbolizer__free(s);
	munmap(marker, page);
	unlink(path);
	munmap(code, page);
	free(d.b);
}

TEST_MAIN()
