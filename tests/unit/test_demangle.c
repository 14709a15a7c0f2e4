/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The demangler (user/lib/demangle.c): C++ and Rust names as c++filt
 * prints them (the same libiberty, which these expectations were checked
 * against), junk and hostile input left as it is, the output bounded.
 */
#include <time.h>
#include "testlib.h"
#include "demangle.h"

static const struct {
	const char *raw, *name, *bare;
} cases[] = {
	/* node's HTTP parser: an anonymous namespace */
	{"_ZN4node12_GLOBAL__N_16Parser19on_headers_completeEv",
	 "node::(anonymous namespace)::Parser::on_headers_complete()",
	 "node::(anonymous namespace)::Parser::on_headers_complete"},
	{"_ZN2v88Function4CallENS_5LocalINS_7ContextEEENS1_INS_5ValueEEEiPS5_",
	 "v8::Function::Call(v8::Local<v8::Context>, v8::Local<v8::Value>, int, "
	 "v8::Local<v8::Value>*)",
	 "v8::Function::Call"},
	/* a function template, a lambda's call operator, a const method, a clone */
	{"_Z3fooIiEvT_", "void foo<int>(int)", "foo<int>"},
	{"_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const",
	 "main::{lambda()#1}::operator()"},
	{"_ZNK2ns5Klass3getEv", "ns::Klass::get() const", "ns::Klass::get"},
	{"_ZN2ns5Klass6handleEi.isra.0", "ns::Klass::handle(int) [clone .isra.0]",
	 "ns::Klass::handle"},
	/* Rust: legacy (its hash dropped) and v0 */
	{"_ZN3std2rt10lang_start17h1234567890abcdefE", "std::rt::lang_start",
	 "std::rt::lang_start"},
	{"_RNvCs1234_7mycrate3foo", "mycrate::foo", "mycrate::foo"},
};

TEST(cxx_and_rust)
{
	char out[DEMANGLE_MAX_OUT];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(demangle__name(cases[i].raw, out, sizeof(out)), "%s", cases[i].raw);
		CHECK(!strcmp(out, cases[i].name), "%s -> '%s', expected '%s'", cases[i].raw, out,
		      cases[i].name);
		CHECK(demangle__bare(cases[i].raw, out, sizeof(out)), "%s", cases[i].raw);
		CHECK(!strcmp(out, cases[i].bare), "%s -> '%s', expected '%s'", cases[i].raw, out,
		      cases[i].bare);
	}
}

TEST(dup)
{
	char *s = demangle__dup("_ZN3foo3barEv"), *c = demangle__dup("malloc");

	CHECK(s && !strcmp(s, "foo::bar()"), "%s", s ? s : "(null)");
	CHECK(c && !strcmp(c, "malloc"), "%s", c ? c : "(null)");
	free(s);
	free(c);
}

/* Not a mangling, or not a valid one: the name itself, cut to the buffer. */
TEST(junk_kept)
{
	static const char *const junk[] = {"malloc",	"",
					   "_Z",	"_ZN",
					   "_ZN3foo",	"_ZZZZ",
					   "_R",	"_RNv",
					   "Z3foov",	"_Z3foo\x01\x02",
					   "[unknown]", "_ZN9999999999999999999fooE"};
	char out[64], small[4];

	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		CHECK(!demangle__name(junk[i], out, sizeof(out)), "%s", junk[i]);
		CHECK(!strcmp(out, junk[i]), "'%s' -> '%s'", junk[i], out);
		CHECK(!demangle__bare(junk[i], out, sizeof(out)), "%s", junk[i]);
	}
	CHECK(!demangle__name("malloc_trim", small, sizeof(small)));
	CHECK(!strcmp(small, "mal"), "%s", small);
	/* a valid mangling whose demangled form does not fit: the raw name, cut */
	CHECK(!demangle__name("_ZN4node12_GLOBAL__N_16Parser19on_headers_completeEv", out, 20));
	CHECK(!strcmp(out, "_ZN4node12_GLOBAL__"), "%s", out);
	CHECK(!demangle__name(NULL, out, sizeof(out)) && !out[0]);
}

/* Longer than DEMANGLE_MAX_IN: not demangled, however valid. */
TEST(over_long_input)
{
	size_t n = DEMANGLE_MAX_IN + 100;
	char *raw = malloc(n + 16), out[256];

	REQUIRE(raw);
	strcpy(raw, "_ZN");
	for (size_t i = 3; i + 8 < n; i += 4)
		memcpy(raw + i, "1ab1", 4);
	strcpy(raw + (n - 8 - (n - 11) % 4), "1aEv");
	CHECK(!demangle__name(raw, out, sizeof(out)));
	CHECK(strlen(out) == sizeof(out) - 1 && !strncmp(out, raw, sizeof(out) - 1));
	free(raw);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The substitution number k as a mangling writes it: S_, S0_, S1_... */
static void seq_id(unsigned k, char *buf)
{
	static const char d[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char t[8];
	int n = 0;

	if (!k) {
		strcpy(buf, "S_");
		return;
	}
	for (k--;; k /= 36) {
		t[n++] = d[k % 36];
		if (k < 36)
			break;
	}
	*buf++ = 'S';
	while (n)
		*buf++ = t[--n];
	strcpy(buf, "_");
}

/*
 * f(A, A<A, A>, A<A<A, A>, A<A, A>>, ...): each parameter names the one
 * before it twice, so 30 of them (under 300 bytes) print 2^30 names. The
 * printer stops at the buffer: the name is left as it is, at once.
 */
TEST(exponential_output_bounded)
{
	char raw[512] = "_Z1f1A", a[8], out[DEMANGLE_MAX_OUT];
	double t0;
	bool ok;

	for (unsigned i = 0; i < 30; i++) {
		seq_id(i, a);
		strcat(raw, "S_I");
		strcat(raw, a);
		strcat(raw, a);
		strcat(raw, "E");
	}
	/* a few levels print in full: the mangling is the one described */
	REQUIRE(demangle__name("_Z1f1AS_IS_S_ES_IS0_S0_E", out, sizeof(out)));
	CHECK(!strcmp(out, "f(A, A<A, A>, A<A<A, A>, A<A, A> >)"), "%s", out);
	t0 = now_s();
	ok = demangle__name(raw, out, sizeof(out));
	CHECK(!ok && !strcmp(out, raw), "%s", out);
	/* 2^30 names printed would take minutes; the bound, microseconds: a
	 * margin of thousands, not a benchmark */
	CHECK(now_s() - t0 < 10.0, "%.1f s", now_s() - t0);
}

/* Random bytes after the prefixes: no crash, out always a string in its buffer. */
TEST(random_input)
{
	static const char alpha[] = "_ZRNSEIJTLvi0123456789abcdefhxyzCDKPRO.$";
	char raw[96], out[48];
	unsigned s = 12345;

	for (int i = 0; i < 200000; i++) {
		size_t n = 2 + (s >> 8) % 80;

		memcpy(raw, i & 1 ? "_Z" : "_R", 2);
		for (size_t k = 2; k < n; k++) {
			s = s * 1103515245u + 12345u;
			raw[k] = alpha[(s >> 16) % (sizeof(alpha) - 1)];
		}
		raw[n] = 0;
		memset(out, 'x', sizeof(out));
		demangle__name(raw, out, sizeof(out));
		REQUIRE(memchr(out, 0, sizeof(out)), "%s", raw);
		demangle__bare(raw, out, sizeof(out));
		REQUIRE(memchr(out, 0, sizeof(out)), "%s", raw);
	}
}

TEST_MAIN()
