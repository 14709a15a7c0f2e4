/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The tests' JSON parser (tests/lib/json.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "jsonw.h"
#include "testlib.h"
#include "json.h"

TEST(parse_and_lookup)
{
	const char *doc = "{\"a\": [1, -2.5e3, {\"b\": \"x\\\"y\\u00e9\\ud83d\\ude00\"}],"
			  " \"t\": true, \"f\": false, \"n\": null, \"e\": {}, \"z\": []}";
	char err[128];
	struct json *j = json__parse(doc, err, sizeof(err));

	REQUIRE(j, "%s", err);
	CHECK(json__len(json__get(j, "a")) == 3, "-");
	CHECK(json__num(json__get(j, "a[0]")) == 1 && json__num(json__get(j, "a[1]")) == -2500,
	      "-");
	CHECK(!strcmp(json__str(json__get(j, "a[2].b")), "x\"y\xc3\xa9\xf0\x9f\x98\x80"), "%s",
	      json__str(json__get(j, "a[2].b")));
	CHECK(json__bool(json__get(j, "t")) == 1 && json__bool(json__get(j, "f")) == 0, "-");
	CHECK(json__is_null(json__get(j, "n")) && json__len(json__get(j, "e")) == 0, "-");
	CHECK(!json__get(j, "a[3]") && !json__get(j, "nope.x") &&
		      isnan(json__num(json__get(j, "t"))),
	      "-");
	json__free(j);
}

TEST(rejects_bad_documents)
{
	const char *bad[] = {"", "{", "[1,]", "{\"a\" 1}", "\"abc", "tru", "[1] x", "{1: 2}",
			     "\"\\q\"", "-", "[\"\\ud800\"]",
			     /* raw bytes that are not UTF-8: lone, overlong, surrogate, cut */
			     "\"\xff\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xe2\x82\""};
	char err[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct json *j = json__parse(bad[i], err, sizeof(err));

		CHECK(!j, "accepted: %s", bad[i]);
		json__free(j);
	}
}

/*
 * The report writers' field tables (user/lib/jsonw.h): every kind, at
 * every width, read back by the parser; members in table order, a NULL
 * string and a NAN as null, ROUND rounded half away from zero.
 */
struct fields_probe {
	bool b;
	int8_t i8;
	uint16_t u16;
	int32_t i32;
	uint32_t u32;
	int64_t i64;
	size_t z;
	double d, nan, r;
	const char *s, *null;
};

static const struct jsonw_field probe_f[] = {
	JSONW_F(struct fields_probe, b, "b"),	  JSONW_F(struct fields_probe, i8, "i8"),
	JSONW_F(struct fields_probe, u16, "u16"), JSONW_F(struct fields_probe, i32, "i32"),
	JSONW_F(struct fields_probe, u32, "u32"), JSONW_F(struct fields_probe, i64, "i64"),
	JSONW_F(struct fields_probe, z, "z"),	  JSONW_F(struct fields_probe, d, "d"),
	JSONW_F(struct fields_probe, nan, "nan"), JSONW_F_ROUND(struct fields_probe, r, "r"),
	JSONW_F_STR(struct fields_probe, s, "s"), JSONW_F_STR(struct fields_probe, null, "null"),
};

TEST(writer_field_tables)
{
	static const char *const keys[] = {"b", "i8", "u16", "i32", "u32", "i64",
					   "z", "d",  "nan", "r",   "s",   "null"};
	struct fields_probe p = {true,	      -128,	   65535,      -2147483647 - 1,
				 4294967295u, -5000000000, 1ull << 40, 0.125,
				 NAN,	      2.5,	   "a\"b",     NULL};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct jsonw w;
	struct json *j;

	REQUIRE(f, "open_memstream");
	jsonw__init(&w, f);
	jsonw__begin_obj(&w, NULL);
	jsonw__fields_of(&w, &p, probe_f);
	jsonw__end_obj(&w);
	fclose(f);
	j = json__parse(text, NULL, 0);
	REQUIRE(j, "not JSON: %s", text);
	CHECK(json__len(j) == sizeof(keys) / sizeof(*keys), "%zu members", json__len(j));
	for (size_t i = 0; i < json__len(j) && i < sizeof(keys) / sizeof(*keys); i++)
		CHECK(!strcmp(j->keys[i], keys[i]), "member %zu is %s, not %s", i, j->keys[i],
		      keys[i]);
	CHECK(json__bool(json__key(j, "b")) == 1, "b");
	CHECK(json__num(json__key(j, "i8")) == -128, "i8");
	CHECK(json__num(json__key(j, "u16")) == 65535, "u16");
	CHECK(json__num(json__key(j, "i32")) == -2147483648.0, "i32");
	CHECK(json__num(json__key(j, "u32")) == 4294967295.0, "u32");
	CHECK(json__num(json__key(j, "i64")) == -5e9, "i64");
	CHECK(json__num(json__key(j, "z")) == 1099511627776.0, "z");
	CHECK(json__num(json__key(j, "d")) == 0.125, "d");
	CHECK(json__is_null(json__key(j, "nan")), "nan");
	CHECK(json__num(json__key(j, "r")) == 3, "r: %g", json__num(json__key(j, "r")));
	CHECK(json__str_is(j, "s", "a\"b"), "s");
	CHECK(json__is_null(json__key(j, "null")), "null");
	json__free(j);
	free(text);
}

TEST_MAIN()
