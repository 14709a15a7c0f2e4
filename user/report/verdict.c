/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The one-sentence answer at the end of every report. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "analysis_impl.h"
#include "report.h"

static void put(struct xa_result *r, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void put(struct xa_result *r, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= sizeof(r->verdict))
		return;
	va_start(ap, fmt);
	n = vsnprintf(r->verdict + *len, sizeof(r->verdict) - *len, fmt, ap);
	va_end(ap);
	*len += n > 0 ? (size_t)n : 0;
}

static void critical(const struct dataset *ds, struct xa_result *r, size_t i, size_t *len)
{
	const struct xa_critical *c = &r->crit[i];
	char t[32], v[32], chain[256];

	put(r, len, "%s%s %s %s", i ? "; and " : "", dataset__func(ds, c->func)->symbol,
	    c->gt ? ">" : "<=", report__dur(c->threshold_ns, t, sizeof(t)));
	if (c->nchain > 1)
		put(r, len, " (%s)", report__chain(ds, c, chain, sizeof(chain)));
	if (!isnan(c->ev.share))
		put(r, len, ", %.0f %% of the added latency,", 100 * c->ev.share);
	if (!c->s2.nfactors) {
		put(r, len, " (no resource factor found)");
		return;
	}
	for (size_t k = 0; k < c->s2.nfactors; k++) {
		const struct xa_factor *f = &c->s2.factors[k];

		put(r, len, "%s%s %s %s", k ? ", " : " because of ", xa_feat_name(f->feat),
		    f->gt ? ">" : "<=", report__value(f->feat, f->threshold, v, sizeof(v)));
		if (f->feat == XA_IPC && c->peer.found)
			put(r, len, " (waiting for pid %u (%s))", c->peer.pid, c->peer.comm);
	}
}

void xa_verdict(const struct dataset *ds, struct xa_result *r)
{
	char rule[64], thr[32];
	size_t len = 0;

	labels__describe(&r->rule, rule, sizeof(rule));
	report__dur(r->lab.threshold_ns, thr, sizeof(thr));
	switch (r->status) {
	case XA_FEW_RUNS:
		put(r, &len,
		    "only %zu runs: too few to tell slow runs from fast ones; record more "
		    "runs",
		    r->lab.n);
		break;
	case XA_NONE_SLOW:
		put(r, &len, "%zu runs, none slow by %s (threshold %s): no slowdown to explain",
		    r->lab.n, rule, thr);
		break;
	case XA_ALL_SLOW:
		put(r, &len,
		    "all %zu runs are slow by %s (threshold %s): no fast run to compare "
		    "with; set the threshold with --slow",
		    r->lab.n, rule, thr);
		break;
	case XA_NO_PRECOND:
		put(r, &len, "no slowdown precondition found");
		if (r->insignificant && r->nrejected) {
			const struct xa_critical *c = &r->crit[0];

			snprintf(r->note, sizeof(r->note),
				 "the slow runs look like the workload's natural tail: %s is "
				 "longer in them, but its slow runs form no distinct mode, come "
				 "in no burst, and no resource grew beyond proportion",
				 dataset__func(ds, c->func)->symbol);
		} else if (r->insignificant)
			snprintf(r->note, sizeof(r->note),
				 "the slow runs are only %.0f %% slower than the fast ones (median "
				 "%s "
				 "vs %s), below --min-slowdown %.0f %%: ordinary variation, not a "
				 "slowdown",
				 100 * (r->lab.slow_median_ns / r->lab.fast_median_ns - 1),
				 report__dur(r->lab.slow_median_ns, thr, sizeof(thr)),
				 report__dur(r->lab.fast_median_ns, rule, sizeof(rule)),
				 100 * r->min_slowdown);
		break;
	case XA_OK:
		put(r, &len, "slow runs are explained by ");
		for (size_t i = 0; i < r->ncrit; i++)
			critical(ds, r, i, &len);
		if (!r->ncrit)
			put(r, &len, "functions being faster than usual (see the preconditions)");
		break;
	}
}
