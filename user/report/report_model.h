/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The report's content, built once from the analysis result: a tree of
 * named values (objects, arrays, numbers with their unit, flags, names and
 * sentences), the verdict among them. The text, JSON and HTML reports are
 * renderers of it: JSON writes the tree as it is (docs/json.md is its
 * schema), text and HTML read the values and sentences they show by key.
 * So a value added to the model reaches the JSON without a renderer's
 * change, and the three reports cannot disagree on a number or a verdict.
 *
 * Nodes marked "shown only" hold what a reader sees but the JSON leaves
 * out (a sentence over several JSON values, a display cut's choice): the
 * JSON renderer skips them.
 *
 *   report_node.c          the tree: building, reading, the JSON renderer
 *   report_model.c         the analysis result -> the tree (top level)
 *   report_model_crit.c    critical and rejected functions, baseline,
 *                          whole run, wait answer
 *   report_model_detail.c  the JSON-only details (trees, evidence, growth)
 *   report_model_verdict.c the verdict, its caveat and note, and the losses
 */
#ifndef XLP_REPORT_MODEL_H
#define XLP_REPORT_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "diagnosis.h"
#include "jsonw.h"

struct report_model;
struct report_node;
struct waitchain_blocker;

enum report_kind {
	REPORT_NULL,
	REPORT_OBJ,
	REPORT_ARR,
	REPORT_BOOL,
	REPORT_UINT,
	REPORT_INT,
	REPORT_NUM,   /* a ratio, a p-value: %.6g in JSON */
	REPORT_ROUND, /* a measure in its unit, rounded to an integer in JSON */
	REPORT_STR,   /* a name or a sentence */
};

enum report_unit {
	REPORT_UNIT_NONE,
	REPORT_UNIT_NS,	 /* a duration: "41.2 ms" in text */
	REPORT_UNIT_KHZ, /* a CPU frequency (cpu_freq): "1.20 GHz" in text */
};

/* The model of one report; NULL when out of memory. */
struct report_model *report_model__build(const struct dataset *ds, const struct diagnosis *r);
void report_model__free(struct report_model *m);
const struct report_node *report_model__root(const struct report_model *m);
/* The JSON report (schema xlprobe-report/3): every node not shown only. */
int report_model__json(const struct report_model *m, FILE *f);

/* ---- reading ---- */

/*
 * The member at a dotted path ("runs.count", "verdict"); NULL when absent
 * (n NULL too). Every accessor takes NULL and then gives its "none".
 */
const struct report_node *report_node__get(const struct report_node *n, const char *path);
/* An array's (or object's) items, in order. */
size_t report_node__len(const struct report_node *n);
const struct report_node *report_node__at(const struct report_node *n, size_t i);
enum report_kind report_node__kind(const struct report_node *n);
/* Absent, or written null in the JSON (a NULL string, a NaN measure). */
bool report_node__is_null(const struct report_node *n);
/* Numbers of every kind (NAN: null or absent); booleans as 0 / 1. */
double report_node__num(const struct report_node *n);
uint64_t report_node__uint(const struct report_node *n);
bool report_node__bool(const struct report_node *n);
/* A string (NULL: null or absent). */
const char *report_node__str(const struct report_node *n);
/* The same at a path below n. */
double report_node__num_at(const struct report_node *n, const char *path);
uint64_t report_node__uint_at(const struct report_node *n, const char *path);
bool report_node__bool_at(const struct report_node *n, const char *path);
const char *report_node__str_at(const struct report_node *n, const char *path);
/* A measure in words by its unit: "41.2 ms", "1.20 GHz", "n/a" for null. */
const char *report_node__fmt(const struct report_node *n, char *buf, size_t len);
const char *report_node__fmt_at(const struct report_node *n, const char *path, char *buf,
				size_t len);
/*
 * Prints tmpl to f with each {path} replaced by report_node__fmt_at(n, path)
 * and each {#path} by report_node__uint_at(n, path) as an integer: the text
 * renderers' sentences say which values they hold where they stand.
 */
void report_node__print(FILE *f, const struct report_node *n, const char *tmpl);

/* ---- building (report_model*.c and the section writers) ---- */

/* An empty model, and whether building it failed (out of memory, unbalanced). */
struct report_model *report_node__new_model(void);
bool report_node__failed(const struct report_model *m);
/* keys are the program's own static names (never text from a file) */
void report_model__begin_obj(struct report_model *m, const char *key);
void report_model__begin_arr(struct report_model *m, const char *key);
void report_model__end_obj(struct report_model *m);
void report_model__end_arr(struct report_model *m);
void report_model__str(struct report_model *m, const char *key, const char *v); /* NULL: null */
/* An array of n strings (each NULL: null) */
void report_model__strs(struct report_model *m, const char *key, const char *const *v, size_t n);
void report_model__strn(struct report_model *m, const char *key, const char *v, size_t n);
void report_model__int(struct report_model *m, const char *key, int64_t v);
void report_model__uint(struct report_model *m, const char *key, uint64_t v);
/* A measure rounded in JSON; its unit ns when the key is "ns", ends in "_ns" or holds "_ns_". */
void report_model__round(struct report_model *m, const char *key, double v);
/* A measure in an explicit unit. */
void report_model__measure(struct report_model *m, const char *key, double v,
			   enum report_unit unit);
/* A feature's value: ns, or kHz for cpu_freq. */
void report_model__feat_value(struct report_model *m, const char *key, enum diagnosis_feat f,
			      double v);
void report_model__num(struct report_model *m, const char *key, double v);
void report_model__bool(struct report_model *m, const char *key, bool v);
void report_model__null(struct report_model *m, const char *key);
/* A flat struct's members by a jsonw_field table (jsonw.h). */
void report_model__fields(struct report_model *m, const void *obj, const struct jsonw_field *f,
			  size_t n);
#define report_model__fields_of(m, obj, table)                                                     \
	report_model__fields(m, obj, table, sizeof(table) / sizeof(*(table)))
/* The nodes added until report_model__shown_only(m, false) are left out of the JSON. */
void report_model__shown_only(struct report_model *m, bool on);

/* The model's sections, each written by the file that knows its words. */
void report_model__criticals(struct report_model *m, const struct dataset *ds,
			     const struct diagnosis *r);
void report_model__baseline(struct report_model *m, const struct dataset *ds,
			    const struct diagnosis *r);
void report_model__whole_run(struct report_model *m, const struct dataset *ds,
			     const struct diagnosis *r);
void report_model__wait_answer(struct report_model *m, const struct dataset *ds,
			       const struct diagnosis *r);
/* The keys "loss", "caveat", "verdict", "note" (report_model_verdict.c). */
void report_model__verdict(struct report_model *m, const struct dataset *ds,
			   const struct diagnosis *r);
void report_model__func_id(struct report_model *m, const struct dataset *ds, uint32_t f);
/* report_model_detail.c: what only the JSON shows in full */
void report_model__tree(struct report_model *m, const struct dtree *t, const char *const *names);
void report_model__step2_tree(struct report_model *m, const struct diagnosis_step2 *s);
void report_model__evidence(struct report_model *m, const struct diagnosis_evidence *e);
void report_model__growth(struct report_model *m, const char *key, const struct dataset *ds,
			  const struct diagnosis_why *g);
void report_model__diff_frame(struct report_model *m, const struct dataset *ds,
			      const struct dataset_diff_node *x);
void report_model__calls(struct report_model *m, const struct diagnosis_calls *k);
void report_model__disk_on_cpu(struct report_model *m, const struct diagnosis_disk_cpu *d);
void report_model__cpu_work(struct report_model *m, const struct diagnosis_cpu_work *c);
void report_model__thieves(struct report_model *m, const char *key,
			   const struct diagnosis_thieves *t);
/* A wait-chain blocker's "cpu_thieves" (null unless cpu_wait with thief records), ns / per. */
void report_model__blocker_thieves(struct report_model *m, const struct waitchain_blocker *b,
				   double per);
void report_model__waits(struct report_model *m, const struct dataset *ds,
			 const struct diagnosis *r);
void report_model__tasks(struct report_model *m, const struct dataset *ds,
			 const struct diagnosis *r);

#endif
