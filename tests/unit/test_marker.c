/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Trace-marker lines without a kernel: the atrace parser and the glob that
 * bpf/marker.bpf.c runs (bpf/marker.h, the same code), on crafted lines,
 * good and bad, and record's checks of marker: specs
 * (user/record/marker_spec.c).
 */
#include <stdio.h>
#include <string.h>
#include "testlib.h"
#include "marker_spec.h"
#include "trace.h"

/* The line as a write of its bytes: its parse result. */
static int parse(const char *s, struct xlp_marker_line *l)
{
	size_t n = strlen(s);

	return xlp_marker_parse(s, n < XLP_MARKER_LINE ? (__u32)n : XLP_MARKER_LINE, n, l);
}

static void name_is(const char *s, const struct xlp_marker_line *l, const char *want)
{
	CHECK(l->name_len == strlen(want) && !memcmp(s + l->name_off, want, l->name_len),
	      "%s: name '%.*s', want '%s'", s, l->name_len, s + l->name_off, want);
}

TEST(good_lines_parse)
{
	struct xlp_marker_line l;
	const char *s;

	s = "B|1234|Choreographer#doFrame";
	REQUIRE(parse(s, &l) == 0, "%s", s);
	CHECK(l.kind == 'B' && l.pid == 1234, "kind %c pid %u", l.kind, l.pid);
	name_is(s, &l, "Choreographer#doFrame");

	/* a trailing newline is not part of the name */
	s = "B|7|inflate\n";
	REQUIRE(parse(s, &l) == 0, "%s", s);
	name_is(s, &l, "inflate");

	/* newer Android adds arguments after the name: kept in it */
	s = "B|7|RV Scroll|args";
	REQUIRE(parse(s, &l) == 0, "%s", s);
	name_is(s, &l, "RV Scroll|args");

	CHECK(parse("E|1234", &l) == 0 && l.kind == 'E', "E|pid");
	CHECK(parse("E", &l) == 0 && l.kind == 'E', "E alone (older atrace)");
	CHECK(parse("E|", &l) == 0 && l.kind == 'E', "E| without pid");

	s = "S|42|upload|-17";
	REQUIRE(parse(s, &l) == 0, "%s", s);
	CHECK(l.kind == 'S' && l.pid == 42 && l.num == -17, "S cookie %lld", (long long)l.num);
	name_is(s, &l, "upload");

	/* an async name may hold bars: the cookie is after the last one */
	s = "F|42|net|req|9";
	REQUIRE(parse(s, &l) == 0, "%s", s);
	CHECK(l.kind == 'F' && l.num == 9, "F cookie %lld", (long long)l.num);
	name_is(s, &l, "net|req");

	s = "C|42|frame_items|4000";
	REQUIRE(parse(s, &l) == 0, "%s", s);
	CHECK(l.kind == 'C' && l.num == 4000, "C value %lld", (long long)l.num);
	name_is(s, &l, "frame_items");

	/* C|pid|name|value|category */
	s = "C|42|mem|-5|gfx";
	REQUIRE(parse(s, &l) == 0, "%s", s);
	CHECK(l.num == -5, "C value %lld", (long long)l.num);
	name_is(s, &l, "mem");
}

/* Each bad line: the reason it is skipped for. */
TEST(bad_lines_counted_by_reason)
{
	static const struct {
		const char *line;
		int skip;
	} cases[] = {
		{"", XLP_MSKIP_NO_BAR},
		{"\n", XLP_MSKIP_NO_BAR},
		{"hello", XLP_MSKIP_NO_BAR},
		{"B", XLP_MSKIP_NO_BAR},
		{"B1234|x", XLP_MSKIP_NO_BAR},
		{"X|1|foo", XLP_MSKIP_TYPE},
		{"b|1|foo", XLP_MSKIP_TYPE},
		{"B|abc|x", XLP_MSKIP_PID},
		{"B||x", XLP_MSKIP_PID},
		{"B|12", XLP_MSKIP_PID},
		{"B|99999999999|x", XLP_MSKIP_PID},
		{"B|-1|x", XLP_MSKIP_PID},
		{"B|1|", XLP_MSKIP_NAME},
		{"B|1|\n", XLP_MSKIP_NAME},
		{"S|1||5", XLP_MSKIP_NAME},
		{"C|1||5", XLP_MSKIP_NAME},
		{"S|1|upload", XLP_MSKIP_NUMBER},
		{"S|1|upload|", XLP_MSKIP_NUMBER},
		{"F|1|upload|x9", XLP_MSKIP_NUMBER},
		{"F|1|upload|99999999999999999999", XLP_MSKIP_NUMBER},
		{"C|1|items|", XLP_MSKIP_NUMBER},
		{"C|1|items|12a", XLP_MSKIP_NUMBER},
		{"C|1|items", XLP_MSKIP_NUMBER},
	};
	struct xlp_marker_line l;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = parse(cases[i].line, &l);

		CHECK(r == cases[i].skip + 1, "'%s': %d (%s), want %s", cases[i].line, r,
		      r > 0 && r <= XLP_MARKER_NR_SKIP ? xlp_marker_skip_names[r - 1] : "parsed",
		      xlp_marker_skip_names[cases[i].skip]);
	}
}

/* A write longer than the bytes read: a B, S, F or C is cut, an E is not. */
TEST(long_lines)
{
	char buf[400];
	struct xlp_marker_line l;

	memset(buf, 'x', sizeof(buf));
	memcpy(buf, "B|12|", 5);
	CHECK(xlp_marker_parse(buf, XLP_MARKER_LINE, sizeof(buf), &l) == XLP_MSKIP_LONG + 1,
	      "a B longer than %d bytes", XLP_MARKER_LINE);
	CHECK(l.pid == 12, "its pid still read (the recorder keeps it open for its E)");
	/* exactly the bytes read: not cut */
	CHECK(xlp_marker_parse(buf, XLP_MARKER_LINE, XLP_MARKER_LINE, &l) == 0 &&
		      l.name_len == XLP_MARKER_LINE - 5,
	      "a B of exactly %d bytes", XLP_MARKER_LINE);
	memcpy(buf, "E|12|", 5);
	CHECK(xlp_marker_parse(buf, XLP_MARKER_LINE, sizeof(buf), &l) == 0, "a long E");
	/* a pid that never ends within the bytes read */
	memset(buf, '1', sizeof(buf));
	memcpy(buf, "B|", 2);
	CHECK(xlp_marker_parse(buf, XLP_MARKER_LINE, sizeof(buf), &l) == XLP_MSKIP_LONG + 1,
	      "no bar after the pid within the bytes read");
}

static int glob(const char *pat, const char *name)
{
	char b[XLP_MARKER_LINE] = "B|1|";
	struct xlp_glob g = {.plen = (__u32)strlen(pat), .slen = (__u32)strlen(name), .off = 4};
	int steps = 0;

	memcpy(b + 4, name, strlen(name));
	while (!xlp_glob_step(&g, pat, b))
		if (++steps > XLP_MARKER_GLOB_STEPS)
			return 0; /* the BPF side would stop here: no match */
	return g.result;
}

TEST(globs_match_as_fnmatch)
{
	CHECK(glob("doFrame", "doFrame") == 1, "exact");
	CHECK(glob("doFrame", "doFrames") == -1, "longer name");
	CHECK(glob("doFrame", "doFram") == -1, "shorter name");
	CHECK(glob("*doFrame", "Choreographer#doFrame") == 1, "leading star");
	CHECK(glob("Choreographer#*", "Choreographer#doFrame") == 1, "trailing star");
	CHECK(glob("*", "x") == 1 && glob("**", "x") == 1, "stars");
	CHECK(glob("d?Frame", "doFrame") == 1 && glob("d?Frame", "dFrame") == -1, "?");
	CHECK(glob("*a*b*c", "xxaxxbxxcxxc") == 1, "backtracking");
	CHECK(glob("*a*b*c", "xxaxxbxxcxxd") == -1, "backtracking, no match");
	CHECK(glob("a*", "b") == -1, "first character");
	/* worst case stays inside the BPF side's bound */
	{
		char name[120], pat[63];

		memset(name, 'a', sizeof(name) - 1);
		name[sizeof(name) - 1] = 0;
		for (size_t i = 0; i < sizeof(pat) - 1; i++)
			pat[i] = i % 2 ? 'a' : '*';
		pat[sizeof(pat) - 2] = 'b';
		pat[sizeof(pat) - 1] = 0;
		CHECK(glob(pat, name) == -1, "worst case within %d steps", XLP_MARKER_GLOB_STEPS);
	}
}

TEST(specs_checked)
{
	struct xlp_marker_spec sp;
	char err[256];

	CHECK(marker_spec__is("marker:doFrame") && !marker_spec__is("/bin/app:doFrame"), "prefix");
	CHECK(!marker_spec__make("doFrame*", 3, XLP_MARKER_F_INTERACTION, &sp, err, sizeof(err)) &&
		      sp.len == 8 && sp.func_id == 3 && !memcmp(sp.pat, "doFrame*", 9),
	      "a glob");
	CHECK(marker_spec__make("", 0, 0, &sp, err, sizeof(err)) && strstr(err, "give one"),
	      "empty: %s", err);
	CHECK(marker_spec__make("a[bc]", 0, 0, &sp, err, sizeof(err)) &&
		      strstr(err, "only * and ?"),
	      "class: %s", err);
	CHECK(marker_spec__make("B|1|x", 0, 0, &sp, err, sizeof(err)) && strstr(err, "no '|'"),
	      "bar: %s", err);
	{
		char big[100];

		memset(big, 'n', sizeof(big) - 1);
		big[sizeof(big) - 1] = 0;
		CHECK(marker_spec__make(big, 0, 0, &sp, err, sizeof(err)) &&
			      strstr(err, "longer than"),
		      "long: %s", err);
	}
}

TEST_MAIN()
