/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * MiniDebugInfo (user/symbols/minidebug.c): the decompressor's refusals,
 * each counted by its reason, and --func and the frame namer reading a
 * .gnu_debugdata section, good or bad, put into a stripped
 * tests/workloads/symtest with objcopy. Compressed inputs come from
 * liblzma's encoder and xz(1), never from the code under test.
 */
#include <errno.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "elfsym.h"
#include "minidebug.h"
#include "symbolize.h"
#include "symtest.h"
#include "testlib.h"
#include "xlprobe.h"

static char err[1024];

static int shell(const char *fmt, ...)
{
	char cmd[2 * PATH_MAX + 512], out[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return tl_run(cmd, out, sizeof(out));
}

/* in[0..n) as an xz stream (xz -6, CRC64) into a malloc'd *out. */
static size_t xz_of(const void *in, size_t n, uint8_t **out)
{
	size_t cap = lzma_stream_buffer_bound(n), pos = 0;

	*out = malloc(cap);
	if (!*out ||
	    lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, in, n, *out, &pos, cap) != LZMA_OK)
		return 0;
	return pos;
}

static uint64_t refused(enum minidebug_refusal r)
{
	struct minidebug_counts c;

	minidebug__counts(&c);
	return c.refused[r];
}

/* Decompresses in[0..n) with bound max; the return, *why, and whether one refusal was counted. */
static int decompress(const void *in, size_t n, size_t max, enum minidebug_refusal *why,
		      bool *counted)
{
	struct minidebug_counts before, after;
	uint64_t d = 0;
	void *out = NULL;
	size_t len = 0;
	int ret;

	minidebug__counts(&before);
	*why = MINIDEBUG_NREFUSALS;
	ret = minidebug__decompress(in, n, max, &out, &len, why);
	minidebug__counts(&after);
	for (int i = 0; i < MINIDEBUG_NREFUSALS; i++)
		d += after.refused[i] - before.refused[i];
	*counted = ret == -EBADMSG ? d == 1 && after.refused[*why] == before.refused[*why] + 1
				   : d == 0;
	free(out);
	return ret;
}

TEST(decompress_round_trip_and_bound)
{
	size_t n = 1 << 20, z;
	uint8_t *plain = calloc(1, n), *xz = NULL;
	enum minidebug_refusal why;
	void *out = NULL;
	size_t len = 0;
	bool counted;

	REQUIRE(plain, "calloc");
	for (size_t i = 0; i < n; i += 7)
		plain[i] = (uint8_t)(i * 31);
	z = xz_of(plain, n, &xz);
	REQUIRE(z, "lzma_easy_buffer_encode");
	CHECK(minidebug__decompress(xz, z, n, &out, &len, &why) == 0, "exactly at the bound");
	CHECK(len == n && out && !memcmp(out, plain, n), "%zu bytes back of %zu", len, n);
	free(out);
	/* the bound is the output's, whatever the stream says of itself */
	CHECK(decompress(xz, z, n - 1, &why, &counted) == -EBADMSG && why == MINIDEBUG_TOO_BIG,
	      "one byte over: why %d", why);
	CHECK(counted, "the refusal was not counted once, as too big");
	CHECK(decompress(xz, z, 4096, &why, &counted) == -EBADMSG && why == MINIDEBUG_TOO_BIG,
	      "why %d", why);
	CHECK(counted, "not counted");
	free(xz);
	free(plain);
}

TEST(decompress_refuses_what_is_not_xz)
{
	static const char elf[] = "\177ELF\2\1\1";
	enum minidebug_refusal why;
	bool counted;

	CHECK(decompress("hello, world", 12, MINIDEBUG_MAX, &why, &counted) == -EBADMSG &&
		      why == MINIDEBUG_NOT_XZ && counted,
	      "text: why %d", why);
	CHECK(decompress(elf, sizeof(elf), MINIDEBUG_MAX, &why, &counted) == -EBADMSG &&
		      why == MINIDEBUG_NOT_XZ && counted,
	      "an uncompressed ELF header: why %d", why);
	CHECK(decompress(NULL, 0, MINIDEBUG_MAX, &why, &counted) == -EBADMSG &&
		      why == MINIDEBUG_NOT_XZ && counted,
	      "nothing (a SHT_NOBITS section): why %d", why);
	CHECK(!strcmp(minidebug__refusal_str(MINIDEBUG_NOT_XZ), "not xz-compressed"), "%s",
	      minidebug__refusal_str(MINIDEBUG_NOT_XZ));
}

/* Every prefix of a stream is refused as corrupt, and every flipped byte at least never crashes. */
TEST(decompress_refuses_truncated_and_corrupt_xz)
{
	char plain[8192];
	uint8_t *xz = NULL, *bad;
	size_t z, bad_refused = 0;
	enum minidebug_refusal why;
	bool counted;
	int ret;

	for (size_t i = 0; i < sizeof(plain); i++)
		plain[i] = (char)('a' + (i * i) % 23);
	z = xz_of(plain, sizeof(plain), &xz);
	REQUIRE(z > 12, "lzma_easy_buffer_encode");
	for (size_t cut = 6; cut < z; cut++) {
		ret = decompress(xz, cut, MINIDEBUG_MAX, &why, &counted);
		CHECK(ret == -EBADMSG && why == MINIDEBUG_CORRUPT && counted,
		      "%zu of %zu bytes: ret %d why %d", cut, z, ret, why);
	}
	bad = malloc(z);
	REQUIRE(bad, "malloc");
	for (size_t i = 0; i < z; i++) {
		memcpy(bad, xz, z);
		bad[i] ^= 0x55;
		ret = decompress(bad, z, MINIDEBUG_MAX, &why, &counted);
		CHECK(ret == 0 || ret == -EBADMSG, "byte %zu flipped: %d", i, ret);
		CHECK(counted, "byte %zu flipped: refusal not counted once", i);
		bad_refused += ret == -EBADMSG;
	}
	/* CRC32 on the headers, CRC64 on the data: a flip anywhere is caught */
	CHECK(bad_refused == z, "%zu of %zu flipped bytes refused", bad_refused, z);
	free(bad);
	free(xz);
}

static char dir[] = "/tmp/xlp-minidebug-XXXXXX";

/* symtest stripped of every symbol, its .gnu_debugdata the file section: dir/name. */
static int stripped_with(const char *name, const char *section)
{
	return shell("cd %s && strip --strip-all -o %s %s && "
		     "objcopy --add-section .gnu_debugdata=%s %s",
		     dir, name, symtest(), section, name);
}

static void check_refused(const char *name, const char *section, enum minidebug_refusal r)
{
	char spec[PATH_MAX + 32], want[256];
	struct elfsym_target *t = NULL;
	uint64_t before = refused(r);
	size_t n = 0;
	int ret;

	REQUIRE(stripped_with(name, section) == 0, "objcopy %s", name);
	snprintf(spec, sizeof(spec), "%s/%s:scale", dir, name);
	ret = elfsym__resolve(spec, 0, &t, &n, err, sizeof(err));
	CHECK(ret == -ENOENT && !n, "%s: ret %d", name, ret);
	snprintf(want, sizeof(want), "its .gnu_debugdata (MiniDebugInfo) is %s: install",
		 minidebug__refusal_str(r));
	CHECK(strstr(err, want), "%s: '%s' lacks '%s'", name, err, want);
	CHECK(refused(r) == before + 1, "%s: counted %llu times", name,
	      (unsigned long long)(refused(r) - before));
	elfsym__free_targets(t, n);
}

TEST(func_says_why_a_debugdata_was_refused)
{
	REQUIRE_SYMTEST();
	REQUIRE(mkdtemp(dir), "mkdtemp");
	REQUIRE(shell("cd %s && printf 'not xz at all' > text && "
		      "printf 'hello' | xz > hello.xz && head -c 40 hello.xz > trunc.xz && "
		      "head -c 3000000 /dev/zero | xz > zeros.xz",
		      dir) == 0,
		"xz");
	check_refused("text-bin", "text", MINIDEBUG_NOT_XZ);
	check_refused("trunc-bin", "trunc.xz", MINIDEBUG_CORRUPT);
	check_refused("hello-bin", "hello.xz", MINIDEBUG_NOT_ELF);
	/* 3 MB of zeros is no ELF file: refused for what it is, within the bound */
	check_refused("zeros-bin", "zeros.xz", MINIDEBUG_NOT_ELF);
	shell("rm -rf %s", dir);
}

/* A file offset's name, by the file's build-id as the kernel reports it. */
static int name_by_build_id(struct symbolizer *s, const char *bin, uint64_t off, struct xsym *x)
{
	unsigned char id[XLP_BUILD_ID_LEN] = {0};
	char hex[41];

	if (elfsym__build_id(bin, hex, sizeof(hex)))
		return -ENOENT;
	for (size_t i = 0; 2 * i + 1 < strlen(hex) && i < sizeof(id); i++)
		sscanf(hex + 2 * i, "%2hhx", &id[i]);
	return symbolizer__user_build_id(s, id, off, x);
}

TEST(func_and_frames_named_by_minidebuginfo)
{
	char mini[] = "/tmp/xlp-minidebug-XXXXXX", spec[PATH_MAX + 32], bin[PATH_MAX];
	struct elfsym_target *t = NULL, *ref = NULL;
	struct symbolizer *s = NULL;
	size_t n = 0, nref = 0;
	struct xsym x;
	int ret;

	REQUIRE_SYMTEST();
	REQUIRE(mkdtemp(mini), "mkdtemp");
	/* Fedora's find-debuginfo add_minidebug, on symtest */
	REQUIRE(shell("set -e; cd %s; objcopy --only-keep-debug %s full.debug; "
		      "strip --strip-all -o bin %s; "
		      "nm -D bin --format=posix --defined-only | awk '{ print $1 }' | sort > dyn; "
		      "nm full.debug --format=posix --defined-only | "
		      "awk '{ if ($2 == \"T\" || $2 == \"t\") print $1 }' | sort > funcs; "
		      "comm -13 dyn funcs > keep; grep -qx scale keep; "
		      "objcopy -S --remove-section .gdb_index --remove-section .comment "
		      "--keep-symbols=keep full.debug mini.debug; xz mini.debug; "
		      "objcopy --add-section .gnu_debugdata=mini.debug.xz bin",
		      mini, symtest(), symtest()) == 0,
		"making the MiniDebugInfo");
	snprintf(bin, sizeof(bin), "%s/bin", mini);
	snprintf(spec, sizeof(spec), "%s:scale", bin);
	ret = elfsym__resolve(spec, 0, &t, &n, err, sizeof(err));
	CHECK(ret == 0 && n == 1, "%s: %d %s", spec, ret, err);
	snprintf(spec, sizeof(spec), "%s:scale", symtest());
	REQUIRE(elfsym__resolve(spec, 0, &ref, &nref, err, sizeof(err)) == 0 && nref == 1, "%s",
		err);
	CHECK(ref[0].source == XLP_SYM_SRC_SYMTAB, "unstripped: source %u", ref[0].source);
	if (n == 1) {
		CHECK(t[0].offset == ref[0].offset && t[0].size == ref[0].size,
		      "offset 0x%llx size %llu, want 0x%llx %llu", (unsigned long long)t[0].offset,
		      (unsigned long long)t[0].size, (unsigned long long)ref[0].offset,
		      (unsigned long long)ref[0].size);
		CHECK(t[0].source == XLP_SYM_SRC_MINIDEBUGINFO, "source %u", t[0].source);
	}
	/* a sampled frame inside scale, named the same way */
	REQUIRE(symbolizer__new(&s) == 0, "symbolizer__new");
	CHECK(symbolizer__add_file(s, bin) == 0, "%s", bin);
	ret = name_by_build_id(s, bin, ref[0].offset + 1, &x);
	CHECK(ret == 0 && x.kind == XSYM_SYMBOL && !strcmp(x.name, "scale") && x.offset == 1 &&
		      x.source == XLP_SYM_SRC_MINIDEBUGINFO,
	      "%d kind %d %s+%llu source %u", ret, x.kind, x.name, (unsigned long long)x.offset,
	      x.source);
	symbolizer__free(s);
	elfsym__free_targets(t, n);
	elfsym__free_targets(ref, nref);
	shell("rm -rf %s", mini);
}

TEST_MAIN()
