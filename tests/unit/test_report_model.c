/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The report model (user/report/report_model.h): the tree the text, JSON
 * and HTML reports render. What a user relies on: the JSON is the tree
 * as built, less what is shown only; values read back by key are those
 * built, in their unit; the three reports say the same verdict and
 * numbers because they read one model.
 */
#include <math.h>
#include <stdlib.h>
#include "json.h"
#include "report.h"
#include "report_model.h"
#include "synth.h"
#include "xlptest.h"
#include "testlib.h"

static char out[1 << 16], err[1 << 14];

/* A small model with every kind of node, one of them shown only. */
static struct report_model *small(void)
{
	struct report_model *m = report_node__new_model();

	if (!m)
		return NULL;
	report_model__begin_obj(m, NULL);
	report_model__str(m, "name", "a \"quoted\"\nname");
	report_model__round(m, "t_ns", 41234567.4);
	report_model__feat_value(m, "freq", DIAGNOSIS_CPU_FREQ, 1200000);
	report_model__num(m, "p", 0.000123456789);
	report_model__shown_only(m, true);
	report_model__str(m, "words", "for a reader only");
	report_model__shown_only(m, false);
	report_model__begin_arr(m, "list");
	report_model__uint(m, NULL, 7);
	report_model__int(m, NULL, -3);
	report_model__null(m, NULL);
	report_model__bool(m, NULL, true);
	report_model__str(m, NULL, NULL);
	report_model__end_arr(m);
	report_model__begin_obj(m, "inner");
	report_model__round(m, "missing_ns", NAN);
	report_model__end_obj(m);
	report_model__end_obj(m);
	CHECK(!report_node__failed(m), "-");
	return m;
}

TEST(json_is_the_tree_less_what_is_shown_only)
{
	struct report_model *m = small();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	REQUIRE(m && f, "-");
	CHECK(report_model__json(m, f) == 0, "-");
	fclose(f);
	CHECK(!strcmp(buf, "{\n"
			   "  \"name\": \"a \\\"quoted\\\"\\nname\",\n"
			   "  \"t_ns\": 41234567,\n"
			   "  \"freq\": 1200000,\n"
			   "  \"p\": 0.000123457,\n"
			   "  \"list\": [\n"
			   "    7,\n"
			   "    -3,\n"
			   "    null,\n"
			   "    true,\n"
			   "    null\n"
			   "  ],\n"
			   "  \"inner\": {\n"
			   "    \"missing_ns\": null\n"
			   "  }\n"
			   "}\n"),
	      "%s", buf);
	free(buf);
	report_model__free(m);
}

TEST(values_read_back_by_key_in_their_unit)
{
	struct report_model *m = small();
	const struct report_node *r = report_model__root(m), *l = report_node__get(r, "list");
	char a[32], b[32];

	REQUIRE(m, "-");
	CHECK(!strcmp(report_node__str_at(r, "name"), "a \"quoted\"\nname"), "-");
	CHECK(!strcmp(report_node__str_at(r, "words"), "for a reader only"), "shown only: read");
	/* a measure keeps its value (the JSON rounds it) and says it in its unit */
	CHECK(report_node__num_at(r, "t_ns") == 41234567.4, "-");
	CHECK(!strcmp(report_node__fmt_at(r, "t_ns", a, sizeof(a)),
		      report__dur(41234567.4, b, sizeof(b))),
	      "%s", a);
	CHECK(!strcmp(report_node__fmt_at(r, "freq", a, sizeof(a)),
		      report__value(DIAGNOSIS_CPU_FREQ, 1200000, b, sizeof(b))),
	      "%s", a);
	CHECK(report_node__len(l) == 5, "%zu", report_node__len(l));
	CHECK(report_node__uint(report_node__at(l, 0)) == 7, "-");
	CHECK(report_node__num(report_node__at(l, 1)) == -3, "-");
	CHECK(report_node__is_null(report_node__at(l, 2)), "-");
	CHECK(report_node__bool(report_node__at(l, 3)), "-");
	CHECK(report_node__is_null(report_node__at(l, 4)), "a NULL string is null");
	CHECK(!report_node__at(l, 5), "past the end");
	CHECK(isnan(report_node__num_at(r, "inner.missing_ns")), "-");
	/* what is not there reads as nothing, never a crash */
	CHECK(!report_node__get(r, "inner.nothing.deeper"), "-");
	CHECK(!report_node__str_at(r, "nothing") && isnan(report_node__num_at(r, "nothing")), "-");
	CHECK(report_node__is_null(report_node__get(NULL, "x")), "-");
	CHECK(!report_node__str_at(r, "t_ns"), "a number is no string");
	report_model__free(m);
}

/*
 * The text renderers' sentences: {#path} an integer, {path} a measure in
 * its unit, as report_node__uint_at and report_node__fmt_at read them (an
 * absent path n/a); a brace that opens no placeholder stays as it is.
 */
TEST(a_sentence_holds_the_values_at_its_placeholders)
{
	static const char *const names[] = {"a", NULL};
	struct report_model *m = report_node__new_model();
	char *buf = NULL, want[256], d[32];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	REQUIRE(m && f, "-");
	report_model__begin_obj(m, NULL);
	report_model__uint(m, "runs", 12345678);
	report_model__round(m, "wait_ns", 41234567.4);
	report_model__strs(m, "names", names, 2);
	report_model__end_obj(m);
	REQUIRE(!report_node__failed(m), "-");
	report_node__print(f, report_model__root(m), "{#runs} runs {wait_ns} {x} {#runs {");
	fclose(f);
	snprintf(want, sizeof(want), "12345678 runs %s n/a {#runs {",
		 report__dur(41234567.4, d, sizeof(d)));
	CHECK(!strcmp(buf, want), "'%s', not '%s'", buf, want);
	/* an array of strings, a NULL one null */
	CHECK(report_node__len(report_node__get(report_model__root(m), "names")) == 2 &&
		      !strcmp(report_node__str(report_node__at(
				      report_node__get(report_model__root(m), "names"), 0)),
			      "a") &&
		      report_node__is_null(
			      report_node__at(report_node__get(report_model__root(m), "names"), 1)),
	      "names");
	free(buf);
	report_model__free(m);
}

TEST(an_unbalanced_model_fails)
{
	struct report_model *m = report_node__new_model();

	REQUIRE(m, "-");
	report_model__begin_obj(m, NULL);
	report_model__begin_arr(m, "open");
	report_model__end_arr(m);
	CHECK(report_node__failed(m), "the root is still open");
	report_model__end_obj(m);
	CHECK(!report_node__failed(m), "-");
	report_model__free(m);
}

/* A struct of every member kind a jsonw_field table reads. */
struct probe {
	bool b;
	int8_t i8;
	uint16_t u16;
	int32_t i32;
	uint64_t u64;
	long l;
	double d, r;
	const char *s;
};

static const struct jsonw_field probe_f[] = {
	JSONW_F(struct probe, b, "b"),	   JSONW_F(struct probe, i8, "i8"),
	JSONW_F(struct probe, u16, "u16"), JSONW_F(struct probe, i32, "i32"),
	JSONW_F(struct probe, u64, "u64"), JSONW_F(struct probe, l, "l"),
	JSONW_F(struct probe, d, "d"),	   JSONW_F_ROUND(struct probe, r, "r_ns"),
	JSONW_F_STR(struct probe, s, "s"),
};

/* A table's members through the model are the JSON the writer gives them. */
TEST(field_tables_as_the_json_writer_writes_them)
{
	struct probe p = {true, -7,   65535, -2147483647 - 1, 1ull << 63, -5000000000l,
			  0.1,	-2.5, "x"};
	struct report_model *m = report_node__new_model();
	char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	FILE *fa = open_memstream(&a, &na), *fb = open_memstream(&b, &nb);
	struct jsonw w;

	REQUIRE(m && fa && fb, "-");
	report_model__begin_obj(m, NULL);
	report_model__fields_of(m, &p, probe_f);
	report_model__end_obj(m);
	CHECK(report_model__json(m, fa) == 0, "-");
	jsonw__init(&w, fb);
	jsonw__begin_obj(&w, NULL);
	jsonw__fields_of(&w, &p, probe_f);
	jsonw__end_obj(&w);
	fclose(fa);
	fclose(fb);
	CHECK(!strcmp(a, b), "model:\n%s\nwriter:\n%s", a, b);
	CHECK(strstr(a, "\"i8\": -7") && strstr(a, "\"l\": -5000000000"), "%s", a);
	/* a rounded member whose key names ns reads back as a duration */
	CHECK(report_node__num_at(report_model__root(m), "r_ns") == -2.5, "-");
	free(a);
	free(b);
	report_model__free(m);
}

/* The last line starting with prefix, without it. */
static const char *line_after(const char *s, const char *prefix, char *buf, size_t len)
{
	const char *p = NULL;

	for (const char *q = strstr(s, prefix); q; q = strstr(q + 1, prefix))
		p = q + strlen(prefix);
	if (!p)
		return "";
	snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

/* The text and HTML reports say the JSON's verdict, caveat and note included. */
TEST(the_three_reports_say_one_verdict)
{
	struct synth_scenario scs[] = {
		{.factor = SYNTH_DISK, .slow_func = 1, .seed = 3},
		{.seed = 4},
		{.unmarked = true, .seed = 18},
	};

	for (size_t i = 0; i < sizeof(scs) / sizeof(scs[0]); i++) {
		const char *html = xt_tmp_path("r.html");
		struct json *j;
		const char *v;
		char line[4096];
		FILE *f;
		size_t n;
		int rc;

		scs[i].path = xt_tmp_path("t.xlp");
		REQUIRE(!synth__scenario(&scs[i]), "synth__scenario");
		j = synth__report_json(scs[i].path, NULL, NULL);
		REQUIRE(j, "-");
		v = json__str(json__get(j, "verdict"));
		REQUIRE(v && v[0], "scenario %zu: no verdict", i);
		rc = synth__report(out, sizeof(out), err, sizeof(err), "--html", html, scs[i].path,
				   NULL);
		CHECK(rc == 0, "rc %d: %s", rc, err);
		CHECK(!strcmp(line_after(out, "\nVerdict: ", line, sizeof(line)), v),
		      "scenario %zu: text says \"%s\", JSON \"%s\"", i, line, v);
		f = fopen(html, "r");
		REQUIRE(f, "-");
		n = fread(out, 1, sizeof(out) - 1, f);
		out[n] = 0;
		fclose(f);
		/* the HTML escapes it: compare up to the first character it would */
		snprintf(line, sizeof(line), "<p class=\"verdict\">%.*s", (int)strcspn(v, "<>&\"'"),
			 v);
		CHECK(strstr(out, line), "scenario %zu: HTML lacks \"%s\"", i, line);
		if (json__str(json__get(j, "note")))
			CHECK(strstr(out, "<br><small>"), "scenario %zu: HTML lacks the note", i);
		json__free(j);
	}
}

TEST_MAIN()
