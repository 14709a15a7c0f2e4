/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The wait chains of a timeline (analysis/waits/waitchain.h) in the text and
 * JSON reports: the blockers summed over slow and fast runs, and the
 * chain of a typical slow run, wait by wait. Only with record --timeline.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "escape.h"
#include "report_model.h"
#include "report.h"

#define MAX_BLOCKERS 12 /* in text; JSON lists REPORT_MAX_BLOCKERS */
#define MAX_WAITS 16	/* of the typical run, in text */

size_t report__typical_run(const struct dataset *ds, const struct diagnosis *r, bool slow)
{
	size_t best = SIZE_MAX;
	double med = slow ? r->lab.slow_median_ns : r->lab.fast_median_ns, d = INFINITY;

	if (!r->slow || isnan(med))
		return SIZE_MAX;
	for (size_t i = 0; i < dataset__nruns(ds); i++) {
		double x = fabs(dataset__run(ds, i)->latency_ns - med);

		if (!r->slow[i] == !slow && x < d) {
			d = x;
			best = i;
		}
	}
	return best;
}

/* "pool-1 (tid 812)", "tid 812"; a group of n > 1: "postgres (86 threads)" */
static const char *who(const char *comm, uint32_t tid, uint32_t n, char *buf, size_t len)
{
	char name[2 * XLP_COMM_LEN + 16];

	if (n > 1)
		snprintf(buf, len, "%s (%u threads)",
			 comm[0] ? xlp_text(comm, name, sizeof(name)) : "unnamed", n);
	else if (comm[0])
		snprintf(buf, len, "%s (tid %u)", xlp_text(comm, name, sizeof(name)), tid);
	else
		snprintf(buf, len, "tid %u", tid);
	return buf;
}

static const char *device(uint16_t reason)
{
	switch (reason) {
	case XLP_C_DISK:
		return "the disk";
	case XLP_C_NET:
		return "the network";
	case XLP_C_TIMER:
		return "a timer";
	default:
		return "an interrupt";
	}
}

const char *report__blocker(const struct dataset *ds, const struct waitchain_blocker *b, char *buf,
			    size_t len)
{
	char w[64], v[64], via[96] = "", in[160] = "", sym[128], th[320];
	const char *why = b->reason && b->reason < XLP_NR_CTR ? xlp_ctr_names[b->reason] : NULL;

	who(b->comm, b->blocker_tid, b->threads, w, sizeof(w));
	if (b->waker_tid && !(b->waker_tid == b->blocker_tid && b->state != WAITCHAIN_CYCLE))
		snprintf(via, sizeof(via), ", through %s",
			 who(b->waker_comm, b->waker_tid, b->threads, v, sizeof(v)));
	switch (b->state) {
	case WAITCHAIN_RAN:
		if (b->func != DATASET_NO_FUNC && b->func < dataset__nfuncs(ds))
			snprintf(in, sizeof(in), " in %s",
				 xlp_text(dataset__func(ds, b->func)->name, sym, sizeof(sym)));
		snprintf(buf, len, "%s on a CPU%s%s", w, in, via);
		break;
	case WAITCHAIN_CPU_WAIT:
		/* and who ran instead, when its thief records say (report_thief.c) */
		report__blocker_thieves(b, th, sizeof(th));
		if (b->self)
			snprintf(buf, len, "its own wait for a CPU (%s)%s%s", w, th[0] ? ": " : "",
				 th);
		else
			snprintf(buf, len, "%s waiting for a CPU%s%s%s", w, via, th[0] ? ": " : "",
				 th);
		break;
	case WAITCHAIN_DEVICE:
		if (b->reason == XLP_C_DISK || b->reason == XLP_C_NET || b->reason == XLP_C_TIMER ||
		    !why)
			snprintf(buf, len, "%s%s", device(b->reason), via);
		else
			snprintf(buf, len, "an interrupt (%s)%s", why, via);
		break;
	case WAITCHAIN_ASLEEP:
		snprintf(buf, len, "%s asleep, what woke it not recorded%s", b->self ? "itself" : w,
			 via);
		break;
	case WAITCHAIN_UNTRACED:
		snprintf(buf, len, "%s, not on the timeline then%s", w, via);
		break;
	case WAITCHAIN_CYCLE:
		snprintf(buf, len, "a cycle back to %s (events lost)%s", w, via);
		break;
	default:
		snprintf(buf, len, "%s asleep, past the chain's depth limit: not followed%s", w,
			 via);
		break;
	}
	return buf;
}

static struct waitchain_blocker piece_blocker(const struct waitchain *wc,
					      const struct waitchain_piece *p)
{
	struct waitchain_blocker b = {.func = p->func,
				      .threads = 1,
				      .waker_tid = p->waker_tid,
				      .blocker_pid = p->blocker_pid,
				      .blocker_tid = p->blocker_tid,
				      .state = p->state,
				      .reason = p->reason,
				      .self = !p->depth};

	memcpy(b.comm, p->comm, sizeof(b.comm));
	memcpy(b.waker_comm, p->waker_comm, sizeof(b.waker_comm));
	for (size_t i = 0; i < WAITCHAIN_THIEVES && waitchain__thief(wc, p, i); i++)
		b.thieves[b.nthieves++] = *waitchain__thief(wc, p, i);
	b.thief_known_ns = (double)p->known_ns;
	return b;
}

static bool in_group(const struct diagnosis *r, const struct waitchain_blocker *b)
{
	for (size_t i = 0; i < r->nblockers; i++)
		if (waitchain__member_of(b, &r->blockers[i]))
			return true;
	return false;
}

void report__waits_text(FILE *f, const struct report_node *m)
{
	const struct report_node *w = report_node__get(m, "wait_chains"), *bs, *run;
	const char *cw;
	char a[32], b[32];

	if (!w)
		return;
	fprintf(f, "\nWait chains (the timeline: what ended each wait of a run's thread, and what "
		   "it did meanwhile)\n");
	if (!report_node__len(report_node__get(w, "blockers"))) {
		fprintf(f, "  no wait of a run's thread in its window\n");
		return;
	}
	fprintf(f, "  %9s %9s  (per slow run, per fast run)\n", "slow", "fast");
	bs = report_node__get(w, "text_blockers");
	for (size_t i = 0; i < report_node__len(bs); i++) {
		const struct report_node *k = report_node__at(bs, i);

		fprintf(f, "  %9s %9s  %s\n", report_node__fmt_at(k, "slow_ns_per_run", a, 32),
			report_node__fmt_at(k, "fast_ns_per_run", b, 32),
			report_node__str_at(k, "text"));
	}
	if (report_node__uint_at(w, "text_more") || report_node__uint_at(w, "text_members"))
		fprintf(f, "  (%llu more, %llu in groups above, in the JSON report)\n",
			(unsigned long long)report_node__uint_at(w, "text_more"),
			(unsigned long long)report_node__uint_at(w, "text_members"));
	cw = report_node__str_at(w, "cpu_work_text");
	if (cw)
		fprintf(f, "  %s\n", cw);
	run = report_node__get(w, "typical_slow_run");
	if (!report_node__is_null(run)) {
		const struct report_node *ws = report_node__get(run, "waits");
		uint64_t start = report_node__uint_at(run, "start_ns");
		size_t nw = report_node__len(ws);

		fprintf(f, "  A typical slow run (run %llu, %s, tid %u): %zu wait(s)\n",
			(unsigned long long)report_node__uint_at(run, "run"),
			report_node__fmt_at(run, "latency_ns", a, sizeof(a)),
			(unsigned)report_node__uint_at(run, "tid"), nw);
		for (size_t i = 0; i < nw && i < MAX_WAITS; i++) {
			const struct report_node *x = report_node__at(ws, i);
			const struct report_node *ps = report_node__get(x, "pieces");

			fprintf(f, "    at +%s, %s:\n",
				report__dur((double)(report_node__uint_at(x, "start_ns") - start),
					    a, sizeof(a)),
				report__dur((double)report_node__uint_at(x, "ns"), b, sizeof(b)));
			for (size_t k = 0; k < report_node__len(ps); k++) {
				const struct report_node *p = report_node__at(ps, k);

				fprintf(f, "      %9s  %s\n",
					report__dur((double)report_node__uint_at(p, "ns"), a,
						    sizeof(a)),
					report_node__str_at(p, "text"));
			}
		}
		if (nw > MAX_WAITS)
			fprintf(f, "    (%zu more waits, in the JSON report)\n", nw - MAX_WAITS);
	}
	if (report_node__uint_at(w, "cycles") || report_node__uint_at(w, "depth_limits"))
		fprintf(f,
			"  (%llu piece(s) ended in a cycle, %llu at the depth limit: events lost "
			"or "
			"long chains)\n",
			(unsigned long long)report_node__uint_at(w, "cycles"),
			(unsigned long long)report_node__uint_at(w, "depth_limits"));
}

/*
 * What the text shows of the blockers (shown only): the first MAX_BLOCKERS
 * not in a group (a group's members are in the JSON), how many more, and
 * the wait answer's CPU work judged.
 */
static void text_blockers(struct report_model *m, const struct dataset *ds,
			  const struct diagnosis *r, double ns, double nf)
{
	size_t shown = 0, more = 0, members = 0;
	char line[512], cw[1024], both[1600];

	report_model__shown_only(m, true);
	report_model__begin_arr(m, "text_blockers");
	for (size_t i = 0; i < r->nblockers; i++) {
		const struct waitchain_blocker *k = &r->blockers[i];

		if (in_group(r, k)) {
			members++;
			continue;
		}
		if (shown++ == MAX_BLOCKERS) {
			more++;
			continue;
		}
		report_model__begin_obj(m, NULL);
		report_model__round(m, "slow_ns_per_run", k->slow_ns / ns);
		report_model__round(m, "fast_ns_per_run", k->fast_ns / nf);
		report_model__str(m, "text", report__blocker(ds, k, line, sizeof(line)));
		report_model__end_obj(m);
	}
	report_model__end_arr(m);
	report_model__uint(m, "text_more", more);
	report_model__uint(m, "text_members", members);
	if (r->wait_answer.cpu_work.tested && r->wait_answer.blocker < r->nblockers) {
		snprintf(both, sizeof(both), "waited for %s: %s",
			 report__blocker(ds, &r->blockers[r->wait_answer.blocker], line,
					 sizeof(line)),
			 report__cpu_work(&r->wait_answer.cpu_work, cw, sizeof(cw)));
		report_model__str(m, "cpu_work_text", both);
	}
	report_model__shown_only(m, false);
}

/* A thread's name, null when unknown (a device, an unnamed thread). */
static void name_json(struct report_model *m, const char *key, const char *comm)
{
	size_t n = strnlen(comm, XLP_COMM_LEN);

	if (n)
		report_model__strn(m, key, comm, n);
	else
		report_model__null(m, key);
}

/* per: what the blocker's ns are divided by (the slow runs; 1 for a piece) */
static void blocker_json(struct report_model *m, const struct dataset *ds,
			 const struct waitchain_blocker *b, double per)
{
	bool fn = b->func != DATASET_NO_FUNC && b->func < dataset__nfuncs(ds);
	char line[512];

	report_model__str(m, "state", waitchain__state_name(b->state));
	report_model__str(m, "reason",
			  b->reason && b->reason < XLP_NR_CTR ? xlp_ctr_names[b->reason] : NULL);
	report_model__bool(m, "self", b->self);
	/* a group's are its members' */
	report_model__uint(m, "blocker_pid", b->threads > 1 ? 0 : b->blocker_pid);
	report_model__uint(m, "blocker_tid", b->threads > 1 ? 0 : b->blocker_tid);
	name_json(m, "blocker", b->comm);
	report_model__uint(m, "via_tid", b->threads > 1 ? 0 : b->waker_tid);
	name_json(m, "via", b->waker_comm);
	report_model__str(m, "function", fn ? dataset__func(ds, b->func)->name : NULL);
	report_model__str(m, "symbol", fn ? dataset__func(ds, b->func)->symbol : NULL);
	report_model__str(m, "binary", fn ? dataset__func(ds, b->func)->binary : NULL);
	report_model__uint(m, "threads", b->threads);
	report_model__str(m, "text", report__blocker(ds, b, line, sizeof(line)));
	report_model__blocker_thieves(m, b, per);
}

static void run_json(struct report_model *m, const char *key, const struct dataset *ds,
		     const struct diagnosis *r, size_t run)
{
	const struct dataset_run *x;

	if (run == SIZE_MAX) {
		report_model__null(m, key);
		return;
	}
	x = dataset__run(ds, run);
	report_model__begin_obj(m, key);
	report_model__uint(m, "run", run + 1);
	report_model__uint(m, "tid", x->tid);
	report_model__uint(m, "start_ns", x->start_ns);
	report_model__round(m, "latency_ns", x->latency_ns);
	report_model__begin_arr(m, "waits");
	for (size_t i = 0; i < waitchain__nwaits(r->waits, run); i++) {
		const struct waitchain_wait *v = waitchain__wait(r->waits, run, i);

		report_model__begin_obj(m, NULL);
		report_model__uint(m, "start_ns", v->start_ns);
		report_model__uint(m, "ns", v->end_ns - v->start_ns);
		report_model__begin_arr(m, "pieces");
		for (size_t k = v->first; k < v->first + v->n; k++) {
			const struct waitchain_piece *p = waitchain__piece(r->waits, run, k);
			struct waitchain_blocker b = piece_blocker(r->waits, p);

			report_model__begin_obj(m, NULL);
			report_model__uint(m, "start_ns", p->start_ns);
			report_model__uint(m, "ns", p->ns);
			report_model__uint(m, "depth", p->depth);
			blocker_json(m, ds, &b, 1);
			report_model__end_obj(m);
		}
		report_model__end_arr(m);
		report_model__end_obj(m);
	}
	report_model__end_arr(m);
	report_model__end_obj(m);
}

void report_model__waits(struct report_model *m, const struct dataset *ds,
			 const struct diagnosis *r)
{
	double ns = r->lab.nslow ? (double)r->lab.nslow : NAN;
	double nf = r->lab.n > r->lab.nslow ? (double)(r->lab.n - r->lab.nslow) : NAN;
	const struct waitchain_info *in;

	if (!r->waits)
		return;
	in = waitchain__info(r->waits);
	report_model__begin_obj(m, "wait_chains");
	report_model__uint(m, "max_depth", WAITCHAIN_MAX_DEPTH);
	report_model__uint(m, "events", in->events);
	report_model__uint(m, "waits", in->waits);
	report_model__uint(m, "pieces", in->pieces);
	report_model__uint(m, "cycles", in->cycles);
	report_model__uint(m, "depth_limits", in->depth_cuts);
	report_model__uint(m, "unknown_ns", in->unknown_ns);
	report_model__begin_arr(m, "blockers");
	for (size_t i = 0; i < r->nblockers && i < REPORT_MAX_BLOCKERS; i++) {
		const struct waitchain_blocker *b = &r->blockers[i];

		report_model__begin_obj(m, NULL);
		blocker_json(m, ds, b, r->lab.nslow ? (double)r->lab.nslow : 1);
		report_model__round(m, "slow_ns_per_run", b->slow_ns / ns);
		report_model__round(m, "fast_ns_per_run", b->fast_ns / nf);
		report_model__uint(m, "slow_runs", b->slow_runs);
		report_model__uint(m, "fast_runs", b->fast_runs);
		report_model__end_obj(m);
	}
	report_model__end_arr(m);
	report_model__uint(m, "blockers_omitted",
			   r->nblockers > REPORT_MAX_BLOCKERS ? r->nblockers - REPORT_MAX_BLOCKERS
							      : 0);
	run_json(m, "typical_slow_run", ds, r, report__typical_run(ds, r, true));
	run_json(m, "typical_fast_run", ds, r, report__typical_run(ds, r, false));
	text_blockers(m, ds, r, ns, nf);
	report_model__end_obj(m);
}
