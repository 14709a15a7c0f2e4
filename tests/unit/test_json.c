/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The tests' JSON parser (tests/lib/json.c). */
#include <math.h>
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

TEST_MAIN()
