/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Run labels (analysis/stats/labels.c) and the statistics under them; the rule's
 * description is the report's (user/report/report_common.c).
 */
#include <math.h>
#include <stdint.h>
#include "testlib.h"
#include "labels.h"
#include "report.h"
#include "stats.h"

TEST(sigma_rule)
{
	/* 8 runs at 10, 2 at 30: median 10, mean 14, sigma 8 -> threshold 18 */
	double lat[10] = {10, 30, 10, 10, 10, 10, 30, 10, 10, 10};
	struct labels_rule rule = {.kind = LABELS_SIGMA, .k = 1};
	struct labels_summary s;
	uint8_t slow[10];

	REQUIRE(!labels__compute(lat, 10, &rule, slow, &s), "-");
	CHECK(s.median_ns == 10 && s.sigma_ns == 8 && s.threshold_ns == 18, "%g %g %g", s.median_ns,
	      s.sigma_ns, s.threshold_ns);
	CHECK(s.nslow == 2 && slow[1] && slow[6] && !slow[0], "-");
	CHECK(s.max_ns == 30 && s.slow_median_ns == 30 && s.fast_median_ns == 10, "-");
	rule.k = 3; /* 10 + 24 = 34: none slow */
	REQUIRE(!labels__compute(lat, 10, &rule, slow, &s), "-");
	CHECK(s.nslow == 0 && isnan(s.slow_median_ns), "-");
}

TEST(fixed_rule_is_strict)
{
	double lat[4] = {100, 250, 251, 300};
	struct labels_rule rule = {.kind = LABELS_FIXED, .threshold_ns = 250};
	struct labels_summary s;
	uint8_t slow[4];

	REQUIRE(!labels__compute(lat, 4, &rule, slow, &s), "-");
	CHECK(!slow[1] && slow[2] && s.nslow == 2, "slow means > threshold");
}

TEST(otsu_splits_two_modes)
{
	double lat[12] = {10, 11, 9, 10, 12, 10, 40, 42, 41, 10, 11, 9}, sorted[12];
	struct labels_rule rule = {.kind = LABELS_AUTO};
	struct labels_summary s;
	uint8_t slow[12];

	REQUIRE(!labels__compute(lat, 12, &rule, slow, &s), "-");
	CHECK(s.threshold_ns == 26, "midpoint between 12 and 40: %g", s.threshold_ns);
	CHECK(s.nslow == 3, "-");
	memcpy(sorted, lat, sizeof(lat));
	stats__sort(sorted, 12);
	CHECK(labels__otsu(sorted, 12) == 26, "-");
	CHECK(labels__otsu(sorted, 1) == 9, "-");
}

TEST(describe)
{
	struct labels_rule a = {.kind = LABELS_SIGMA, .k = 1.5},
			   b = {.kind = LABELS_FIXED, .threshold_ns = 250e6};
	char buf[64];

	CHECK(!strcmp(report__label_rule(&a, buf, sizeof(buf)), "median + 1.5σ"), "%s", buf);
	CHECK(!strcmp(report__label_rule(&b, buf, sizeof(buf)), "--slow 250.0 ms"), "%s", buf);
}

TEST(quantiles)
{
	double v[5] = {5, 1, 4, 2, 3};

	CHECK(stats__median(v, 5) == 3, "-");
	CHECK(stats__quantile(v, 5, 0.9) == 4.6, "%g", stats__quantile(v, 5, 0.9));
	CHECK(stats__quantile(v, 0, 0.5) == 0, "-");
	CHECK(fabs(stats__stddev(v, 5) - sqrt(2)) < 1e-12, "-");
}

TEST_MAIN()
