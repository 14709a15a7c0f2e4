/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Minimal JSON parser for tests: parses a document into a tree and looks
 * values up by path, e.g. json__get(doc, "critical_functions[0].factors[0].factor").
 */
#ifndef XLP_TEST_JSON_H
#define XLP_TEST_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

struct json {
	enum json_type type;
	bool b;
	double num;
	char *str; /* JSON_STR, NUL-terminated UTF-8 */
	size_t n;  /* items of an array or object */
	struct json **items;
	char **keys; /* JSON_OBJ: keys[i] names items[i] */
};

/* NULL on a syntax error (reason and offset in err). */
struct json *json__parse(const char *text, char *err, size_t errlen);
/* Parses a whole file. NULL on error. */
struct json *json__load(const char *path, char *err, size_t errlen);
void json__free(struct json *j); /* accepts NULL */

/* Path: keys separated by '.', array indices as [i]. NULL when absent. */
const struct json *json__get(const struct json *j, const char *path);
const struct json *json__key(const struct json *j, const char *key);
const struct json *json__at(const struct json *j, size_t i);
size_t json__len(const struct json *j);	     /* 0 unless array or object */
const char *json__str(const struct json *j); /* NULL unless a string */
double json__num(const struct json *j);	     /* NAN unless a number */
int json__bool(const struct json *j);	     /* -1 unless a boolean */
/* The string at path (json__get) is want. */
bool json__str_is(const struct json *j, const char *path, const char *want);
bool json__is_null(const struct json *j);

/*
 * A report's critical function (an item of critical_functions) slowed by
 * the machine, not by what a test did: it has factors, and each is cpu_run
 * or cpu_steal (the same work took longer on a slower CPU, or the host
 * stole it). Tests of unperturbed workloads accept it; no wait is.
 */
bool json__by_machine(const struct json *fn);

/*
 * A report's critical function as JSON text, the fields the judges read
 * (tests/e2e's scorecard, tests/real/verdict.jq): fn, its chain (JSON
 * objects, comma-separated, outermost first), its factor, whether it was
 * sampled, its IPC peer's comm (NULL: null). Returns buf.
 */
const char *json__crafted_critical(char *buf, size_t len, const char *fn, const char *chain,
				   const char *factor, bool sampled, const char *peer);

#endif
