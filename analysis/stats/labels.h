/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Performance labels (PerfProbe section IV): every run is slow or fast,
 * by a rule on the distribution of run latencies.
 */
#ifndef XLP_LABELS_H
#define XLP_LABELS_H

#include <stddef.h>
#include <stdint.h>

enum labels_kind {
	LABELS_SIGMA = 0, /* slow if latency > median + k * sigma (default, k = 1) */
	LABELS_FIXED,	  /* slow if latency > a user threshold (--slow 250ms) */
	LABELS_AUTO,	  /* 2-class split maximizing between-class variance (Otsu) */
};

struct labels_rule {
	enum labels_kind kind;
	double k;	     /* LABELS_SIGMA */
	double threshold_ns; /* LABELS_FIXED */
};

struct labels_summary {
	size_t n, nslow;
	double threshold_ns; /* slow iff latency > threshold_ns */
	double median_ns, p90_ns, max_ns, mean_ns, sigma_ns;
	double slow_median_ns, fast_median_ns; /* NAN when the class is empty */
};

/*
 * Labels n latencies: slow[i] = 1 when run i is slow. Negative errno
 * (-EINVAL for n == 0, -ENOMEM).
 */
int labels__compute(const double *lat, size_t n, const struct labels_rule *rule, uint8_t *slow,
		    struct labels_summary *sum);
/* Threshold of the Otsu split of sorted values (the midpoint between classes). */
double labels__otsu(const double *sorted, size_t n);

#endif
