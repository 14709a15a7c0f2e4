/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Lags seen in the wild, grouped into issues (LagHunter, OOPSLA'11): a run
 * of a landmark (an interaction) lags when it takes at least the lag
 * threshold (100 ms: what a person perceives); each lag gets a culprit
 * and a factor, and its fingerprint (landmark, culprit, factor: names, not
 * addresses) links it to the same issue in other sessions, on other hosts,
 * in other builds. Issues are ranked by their total perceptible lag (user
 * impact), not by CPU.
 *
 * The culprit of a lag, in order:
 *   1. the deepest function of the first critical chain (PerfProbe's steps
 *      1 and 2 over the session, slow = lagging) whose step-2 condition
 *      holds in that run, with its leading factor (a sleep's total,
 *      sleep_s or sleep_d, named by the run's largest reason: disk_block,
 *      timer_sleep...);
 *   2. with no function named, the whole run's answer when it holds:
 *      culprit "[whole run]", its factor;
 *   3. else the deepest function (marked or sampled) holding at least half
 *      of the run's latency, with the run's largest resource (its own
 *      thread's counters); "[whole run]" when none holds half.
 */
#ifndef XLP_ISSUES_H
#define XLP_ISSUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XLP_ISSUE_SCHEME "xlp-issue/1"
#define XLP_ISSUE_WHOLE_RUN "[whole run]"
#define XLP_ISSUE_EXAMPLES 3

/*
 * The fingerprint of a lag: 16 hex digits of FNV-1a 64 over the scheme,
 * the landmark's binary (basename) and symbol, the culprit's, the factor.
 */
void issues__fingerprint(const char *landmark_binary, const char *landmark, const char *binary,
			 const char *function, const char *factor, char out[17]);

struct issues_session {
	char *path, *host, *build_id;
	size_t runs, lags; /* runs: those record --lag summarized too */
	double lag_ns;	   /* the threshold its runs were judged by */
};

/* One run of a session, lagging or not (the fleet table's row). */
struct issues_run {
	uint32_t session;
	uint32_t run; /* 1-based, in the session's order (the report's) */
	double latency_ns;
	int64_t wall_ns; /* CLOCK_REALTIME of its start */
	int32_t issue;	 /* index into the issues, -1 when it did not lag */
};

struct issues_issue {
	char fingerprint[17];
	/* landmark and function as printed (demangled), landmark_symbol and
	 * symbol as in the binary (what the fingerprint hashes) */
	char *landmark_binary, *landmark, *binary, *function, *factor;
	char *landmark_symbol, *symbol;
	size_t sessions, hosts, builds, runs;
	double p50_ns, p95_ns, max_ns, impact_ns; /* impact: the lags' latencies summed */
	int64_t first_ns, last_ns;		  /* wall clock of the first / last lag */
	size_t nexamples;
	struct {
		uint32_t session, run;
	} examples[XLP_ISSUE_EXAMPLES]; /* the longest lags */
};

struct issues;

/*
 * lag_ns: the threshold every trace is judged by (issues --lag), or 0 for
 * each trace's own: the --lag it was recorded with (struct xlp_lag_rec),
 * else ISSUES_DEFAULT_LAG_NS.
 */
#define ISSUES_DEFAULT_LAG_NS 100e6
int issues__new(double lag_ns, struct issues **out);
void issues__free(struct issues *s); /* accepts NULL */
/* One session: its runs, lags and culprits. "cause: fix" in err on error. */
int issues__add(struct issues *s, const char *path, char *err, size_t errlen);
/* After the last file: the issues' statistics, by impact. */
int issues__finish(struct issues *s);

/* The threshold all sessions were judged by, or NAN when they differ (or none yet). */
double issues__lag_ns(const struct issues *s);
size_t issues__n(const struct issues *s);
const struct issues_issue *issues__get(const struct issues *s, size_t i);
size_t issues__nsessions(const struct issues *s);
const struct issues_session *issues__session(const struct issues *s, size_t i);
size_t issues__nruns(const struct issues *s);
const struct issues_run *issues__run(const struct issues *s, size_t i);

#endif
