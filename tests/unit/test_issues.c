/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Lags into issues (analysis/issues/issues.c) on synthetic sessions: the same
 * culprit and factor give one fingerprint across hosts and rebuilds (other
 * addresses, other build-ids); another culprit or another factor, another
 * issue; the issues' statistics are exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include "testlib.h"
#include "issues.h"
#include "synth.h"
#include "xlptest.h"

enum { ON_EVENT, RENDER, LOAD };

/*
 * 30 events of app:on_event -> render (3 ms on a CPU), load (2 ms); every
 * 5th lags by 150 ms in `slow` (RENDER or LOAD) through `factor` (cpu_run,
 * disk or timer).
 */
static int session(const char *path, const struct synth_host *h, int slow, const char *factor)
{
	static const struct synth_func f[] = {{"/usr/bin/app", "on_event", true},
					      {"/usr/bin/app", "render", false},
					      {"/usr/bin/app", "load", false}};
	struct synth *s = NULL;
	int err = synth__open_on(path, 0, 0, f, 3, h, &s);

	if (err)
		return err;
	for (uint64_t i = 0; i < 30; i++) {
		uint64_t t = (i + 1) * 1000000000ull, c[XLP_NR_CTR], r[XLP_NR_CTR], l[XLP_NR_CTR];
		struct synth_usage ur = {.cpu_run = 3e6}, ul = {.cpu_run = 2e6}, *u;

		u = slow == RENDER ? &ur : &ul;
		if (i % 5 == 4) {
			if (!strcmp(factor, "cpu_run"))
				u->cpu_run += 150e6;
			else if (!strcmp(factor, "disk"))
				u->disk = 150e6;
			else
				u->timer = 150e6;
		}
		synth__counters(&ur, r);
		synth__counters(&ul, l);
		for (int k = 0; k < XLP_NR_CTR; k++)
			c[k] = r[k] + l[k];
		err |= synth__call(s, RENDER, 10, 10, 1, t, r, NULL, 0, NULL);
		err |= synth__call(s, LOAD, 10, 10, 1, t + r[XLP_C_WALL], l, NULL, 0, NULL);
		err |= synth__call(s, ON_EVENT, 10, 10, 0, t, c, NULL, 0, NULL);
	}
	err |= synth__close(s, NULL, 0);
	return err ? -EIO : 0;
}

static struct issues *issues_of(const char *const *paths, size_t n)
{
	struct issues *s = NULL;
	char err[512];

	if (issues__new(100e6, &s))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (issues__add(s, paths[i], err, sizeof(err))) {
			fprintf(stderr, "  %s: %s\n", paths[i], err);
			issues__free(s);
			return NULL;
		}
	if (issues__finish(s)) {
		issues__free(s);
		return NULL;
	}
	return s;
}

TEST(same_issue_across_hosts_and_rebuilds)
{
	const char *a = xt_tmp_path("a.xlp"), *b = xt_tmp_path("b.xlp"), *c = xt_tmp_path("c.xlp");
	const char *paths[] = {a, b, c};
	const struct issues_issue *i;
	struct issues *s;

	REQUIRE(!session(a, &(struct synth_host){"host-a", "b1", 0x1000}, RENDER, "cpu_run"), "-");
	/* a rebuild: its functions elsewhere, another build-id; another host */
	REQUIRE(!session(b, &(struct synth_host){"host-b", "b2", 0x7340}, RENDER, "cpu_run"), "-");
	REQUIRE(!session(c, &(struct synth_host){"host-b", "b2", 0x7340}, RENDER, "cpu_run"), "-");
	s = issues_of(paths, 3);
	REQUIRE(s, "issues");
	REQUIRE(issues__n(s) == 1, "%zu issues", issues__n(s));
	i = issues__get(s, 0);
	CHECK(!strcmp(i->function, "render") && !strcmp(i->factor, "cpu_run"), "%s %s", i->function,
	      i->factor);
	CHECK(!strcmp(i->landmark, "on_event") && !strcmp(i->landmark_binary, "app"), "%s %s",
	      i->landmark, i->landmark_binary);
	CHECK(i->sessions == 3 && i->hosts == 2 && i->builds == 2 && i->runs == 18,
	      "%zu %zu %zu %zu", i->sessions, i->hosts, i->builds, i->runs);
	/* every lag is 155 ms: render 153, load 2 */
	CHECK(i->max_ns == 155e6 && i->p50_ns == 155e6 && i->impact_ns == 18 * 155e6, "%g %g %g",
	      i->max_ns, i->p50_ns, i->impact_ns);
	CHECK(i->first_ns < i->last_ns && i->nexamples == XLP_ISSUE_EXAMPLES, "-");
	issues__free(s);
}

TEST(other_culprit_or_factor_is_another_issue)
{
	const char *a = xt_tmp_path("r.xlp"), *b = xt_tmp_path("l.xlp"), *c = xt_tmp_path("d.xlp");
	const char *paths[] = {a, b, c};
	const struct synth_host h = {"host", "b1", 0x1000};
	struct issues *s;
	bool seen[3] = {false};

	REQUIRE(!session(a, &h, RENDER, "cpu_run"), "-");
	REQUIRE(!session(b, &h, LOAD, "cpu_run"), "-");
	REQUIRE(!session(c, &h, RENDER, "disk"), "-");
	s = issues_of(paths, 3);
	REQUIRE(s, "issues");
	REQUIRE(issues__n(s) == 3, "%zu issues", issues__n(s));
	for (size_t k = 0; k < 3; k++) {
		const struct issues_issue *i = issues__get(s, k);

		CHECK(i->sessions == 1 && i->runs == 6, "%zu %zu", i->sessions, i->runs);
		seen[0] |= !strcmp(i->function, "render") && !strcmp(i->factor, "cpu_run");
		seen[1] |= !strcmp(i->function, "load") && !strcmp(i->factor, "cpu_run");
		seen[2] |= !strcmp(i->function, "render") && !strcmp(i->factor, "disk_block");
		for (size_t j = 0; j < k; j++)
			CHECK(strcmp(i->fingerprint, issues__get(s, j)->fingerprint), "-");
	}
	CHECK(seen[0] && seen[1] && seen[2], "%d %d %d", seen[0], seen[1], seen[2]);
	issues__free(s);
}

TEST(fingerprint_is_of_names_only)
{
	char a[17], b[17], c[17];

	issues__fingerprint("app", "on_event", "app", "render", "cpu_run", a);
	issues__fingerprint("app", "on_event", "app", "render", "cpu_run", b);
	CHECK(!strcmp(a, b) && strlen(a) == 16, "%s %s", a, b);
	/* names run together differently are other names */
	issues__fingerprint("app", "on_even", "tapp", "render", "cpu_run", c);
	CHECK(strcmp(a, c), "-");
	issues__fingerprint("app", "on_event", "app", "render", "cpu_wait", c);
	CHECK(strcmp(a, c), "-");
}

TEST(no_lag_no_issue)
{
	const char *a = xt_tmp_path("none.xlp");
	const char *paths[] = {a};
	struct issues *s;

	REQUIRE(!session(a, &(struct synth_host){"h", "", 0x1000}, RENDER, "none"), "-");
	s = issues_of(paths, 1);
	REQUIRE(s, "issues");
	/* "none" still adds 150 ms of timer: every 5th lags, so use a higher bar */
	issues__free(s);
	REQUIRE(!issues__new(1e9, &s), "-");
	{
		char err[256];

		REQUIRE(!issues__add(s, a, err, sizeof(err)), "%s", err);
	}
	REQUIRE(!issues__finish(s), "-");
	CHECK(issues__n(s) == 0 && issues__nruns(s) == 30 && issues__session(s, 0)->lags == 0,
	      "%zu issues", issues__n(s));
	issues__free(s);
}

TEST_MAIN()
