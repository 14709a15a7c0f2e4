/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Step 2 (analysis/diagnosis/step2.c) on hand-made resource samples. */
#include <math.h>
#include <stdint.h>
#include "testlib.h"
#include "diagnosis_impl.h"

#define N 40

static uint64_t rng_state = 5;

static double rnd(void)
{
	return tl_rnd01(&rng_state);
}

struct sample_set {
	double x[DIAGNOSIS_NFEAT * N], cycles[N], time[N];
	uint8_t slow[N];
};

/*
 * Slow samples ran at ~1.0 GHz for 10 ms, fast ones at ~2.5 GHz for 4 ms:
 * the same work (cycles) either way. cpu_run separates the classes more
 * cleanly than the noisy frequency, so the tree picks cpu_run; the
 * work/frequency check must name cpu_freq. With more work (slow samples at
 * 1.6 GHz: 60 % more cycles) the clock is lower too, but the work grew:
 * cpu_run must stay.
 */
static void fill(struct sample_set *s, bool more_work)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < N; i++) {
		bool slow = i % 4 == 0;
		double run = (slow ? 10e6 : 4e6) * (1 + 0.01 * rnd());
		double khz = (slow ? (more_work ? 1.6e6 : 1.0e6) : 2.5e6) * (0.85 + 0.3 * rnd());

		s->slow[i] = slow;
		s->x[DIAGNOSIS_CPU_RUN * N + i] = run;
		s->x[DIAGNOSIS_CPU_WAIT * N + i] = 1e5 * rnd();
		s->x[DIAGNOSIS_CPU_FREQ * N + i] = khz;
		s->x[DIAGNOSIS_OTHER * N + i] = 1e5 * rnd();
		s->cycles[i] = run * khz;
		s->time[i] = run + s->x[DIAGNOSIS_CPU_WAIT * N + i] + s->x[DIAGNOSIS_OTHER * N + i];
	}
}

static void fit(struct sample_set *s, uint32_t features, struct diagnosis_step2 *out)
{
	struct diagnosis_opts o = DIAGNOSIS_OPTS_DEFAULT;
	struct diagnosis_s2_input in = {.n = N,
					.x = s->x,
					.cycles = s->cycles,
					.time = s->time,
					.slow = s->slow,
					.features = features,
					.time_ref = 5e6};

	CHECK(!diagnosis__step2_fit(&in, &o, out), "diagnosis__step2_fit");
}

TEST(lower_clock_named_over_cpu_run)
{
	static struct sample_set s;
	struct diagnosis_step2 r;

	fill(&s, false);
	fit(&s, XLP_FEAT_SYSCALLS | XLP_FEAT_CPUFREQ, &r);
	REQUIRE(r.tree && dtree__nnodes(r.tree) == 3, "-");
	CHECK(r.featmap[dtree__node(r.tree, 0)->feature] == DIAGNOSIS_CPU_RUN,
	      "the tree picks cpu_run");
	REQUIRE(r.nfactors == 1, "%zu factors", r.nfactors);
	CHECK(r.factors[0].feat == DIAGNOSIS_CPU_FREQ && r.factors[0].from_freq_check, "%s",
	      diagnosis__feat_name(r.factors[0].feat));
	CHECK(!r.factors[0].gt && r.factors[0].slow_hits == 10 && r.factors[0].fast_hits == 0,
	      "cpu_freq <= %g: %u/%u", r.factors[0].threshold, r.factors[0].slow_hits,
	      r.factors[0].fast_hits);
	diagnosis__step2_release(&r);
}

TEST(more_work_stays_cpu_run)
{
	static struct sample_set s;
	struct diagnosis_step2 r;

	fill(&s, true);
	fit(&s, XLP_FEAT_SYSCALLS | XLP_FEAT_CPUFREQ, &r);
	REQUIRE(r.nfactors == 1, "%zu factors", r.nfactors);
	CHECK(r.factors[0].feat == DIAGNOSIS_CPU_RUN && !r.factors[0].from_freq_check, "%s",
	      diagnosis__feat_name(r.factors[0].feat));
	diagnosis__step2_release(&r);
}

TEST(no_cpufreq_no_frequency)
{
	static struct sample_set s;
	struct diagnosis_step2 r;

	fill(&s, false);
	fit(&s, XLP_FEAT_SYSCALLS, &r);
	REQUIRE(r.nfactors == 1, "%zu factors", r.nfactors);
	CHECK(r.factors[0].feat == DIAGNOSIS_CPU_RUN, "-");
	CHECK(!r.avail[DIAGNOSIS_CPU_FREQ] && isnan(r.slow_median[DIAGNOSIS_CPU_FREQ]),
	      "never a made-up 0");
	diagnosis__step2_release(&r);
}

TEST(breakdown_medians)
{
	static struct sample_set s;
	struct diagnosis_step2 r;

	fill(&s, false);
	fit(&s, XLP_FEAT_CPUFREQ, &r);
	CHECK(r.samples == N && r.nslow == 10 && r.nfast == 30, "-");
	CHECK(r.slow_median[DIAGNOSIS_CPU_RUN] > 9.9e6 && r.fast_median[DIAGNOSIS_CPU_RUN] < 4.1e6,
	      "-");
	CHECK(r.used[DIAGNOSIS_SLEEP_S] && !r.used[DIAGNOSIS_DISK],
	      "no wait reasons: sleep states are used");
	diagnosis__step2_release(&r);
}

/*
 * The function got 50 ms slower through cpu_run; 1 ms of runqueue wait
 * happens only in the slow samples (it separates them perfectly, and with
 * fast samples at exactly 0 its relative difference is the larger). It is
 * 2 % of the added time: cpu_run, not cpu_wait, is the factor.
 */
TEST(small_resource_does_not_explain_large_slowdown)
{
	static struct sample_set s;
	struct diagnosis_step2 r;

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < N; i++) {
		bool slow = i % 4 == 0;
		double run = (slow ? 60e6 : 10e6) * (0.9 + 0.2 * rnd());
		double wait = slow ? 1e6 * (1 + 0.01 * rnd()) : 0;

		s.slow[i] = slow;
		s.x[DIAGNOSIS_CPU_RUN * N + i] = run;
		s.x[DIAGNOSIS_CPU_WAIT * N + i] = wait;
		s.time[i] = run + wait;
	}
	fit(&s, XLP_FEAT_SYSCALLS, &r);
	REQUIRE(r.nfactors >= 1, "%zu factors", r.nfactors);
	CHECK(r.factors[0].feat == DIAGNOSIS_CPU_RUN, "factor %s",
	      diagnosis__feat_name(r.factors[0].feat));
	for (size_t i = 0; i < r.nfactors; i++)
		CHECK(r.factors[i].feat != DIAGNOSIS_CPU_WAIT, "cpu_wait named");
	diagnosis__step2_release(&r);
}

TEST_MAIN()
