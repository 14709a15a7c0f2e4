/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A fleet for the SQL engines' tests (tests/unit/test_fleet_*.c): six
 * synthetic recordings of the same event loop from three hosts and two
 * builds, render lagging in four, load in two; and the checks every
 * engine's answer gets: docs/issues.sql's rows against xlprobe issues.
 */
#ifndef XLP_FLEET_H
#define XLP_FLEET_H

#include <stdbool.h>
#include "json.h"

#define FLEET_N 6
extern const char *const fleet_hosts[FLEET_N];
extern const char *const fleet_builds[FLEET_N];

/* Writes the six traces (once); 0 or -1. */
int fleet__make(void);
const char *fleet__trace(int i);
/* Every trace, quoted for a shell, or those which[] sets (which NULL: all). */
const char *fleet__list(const bool *which);
/* .output/xlprobe */
const char *fleet__xl(void);
/* What the last command of a fleet test printed (tl_runf(fleet_out, ...)). */
extern char fleet_out[1 << 20];

/* A number as an engine gives it: a JSON number, or a string (64-bit integers). */
double fleet__num(const struct json *o, const char *k);

/* xlprobe issues --lag LAG --json over the fleet (its "issues" in *issues), and
 * the lags table (export --csv) in lags_csv; the JSON (free it), or NULL. */
struct json *fleet__issues(const char *lag, const char *lags_csv, const struct json **issues);

/*
 * CHECKs an engine's rows of docs/issues.sql (an array of objects with its
 * columns) against xlprobe issues --json's "issues", row by row: the same
 * fingerprint, landmark, function, factor, counts, impact and longest lag.
 */
void fleet__check_issues(const char *engine, const struct json *issues, const struct json *rows);
/* CHECKs p50 and p95 (ns, as the engine computed them) against the issue's lag_ms. */
void fleet__check_pcts(const char *engine, const struct json *issue, double p50_ns, double p95_ns);
/* The same for every issue, its p50 and p95 in the row of rows with its fingerprint. */
void fleet__check_pcts_rows(const char *engine, const struct json *issues, const struct json *rows);

/* report --json over the traces which[] sets (runs.count, median_ns, ...); NULL on failure. */
struct json *fleet__report(const bool *which);

/*
 * CHECKs an engine's rows per host (by_build false) or per build, each
 * {k: the host or build-id, n, median, p90, max} in k's order, against
 * report --json over the traces of that host or build.
 */
void fleet__check_groups(const char *engine, bool by_build, const struct json *rows);

/*
 * The text of the fenced code block that follows the line
 * "<!-- tested: MARK -->" in the doc (relative to the repository), so
 * that a test runs the statements the doc shows; NULL if none (malloc'd).
 */
char *fleet__doc_block(const char *doc, const char *mark);

#endif
