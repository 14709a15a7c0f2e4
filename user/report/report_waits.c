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
#include "jsonw.h"
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
	char w[64], v[64], via[96] = "", in[160] = "", sym[128];
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
		if (b->self)
			snprintf(buf, len, "its own wait for a CPU (%s)", w);
		else
			snprintf(buf, len, "%s waiting for a CPU%s", w, via);
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

static struct waitchain_blocker piece_blocker(const struct waitchain_piece *p)
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
	return b;
}

static bool in_group(const struct diagnosis *r, const struct waitchain_blocker *b)
{
	for (size_t i = 0; i < r->nblockers; i++)
		if (waitchain__member_of(b, &r->blockers[i]))
			return true;
	return false;
}

void report__waits_text(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	double ns = r->lab.nslow ? (double)r->lab.nslow : NAN;
	double nf = r->lab.n > r->lab.nslow ? (double)(r->lab.n - r->lab.nslow) : NAN;
	const struct waitchain_info *in;
	char a[32], b[32], line[256];
	size_t run, shown = 0, more = 0, members = 0;

	if (!r->waits)
		return;
	in = waitchain__info(r->waits);
	fprintf(f, "\nWait chains (the timeline: what ended each wait of a run's thread, and what "
		   "it did meanwhile)\n");
	if (!r->nblockers) {
		fprintf(f, "  no wait of a run's thread in its window\n");
		return;
	}
	fprintf(f, "  %9s %9s  (per slow run, per fast run)\n", "slow", "fast");
	for (size_t i = 0; i < r->nblockers; i++) {
		const struct waitchain_blocker *k = &r->blockers[i];

		/* a group's members are in the JSON report */
		if (in_group(r, k)) {
			members++;
			continue;
		}
		if (shown++ == MAX_BLOCKERS) {
			more++;
			continue;
		}
		fprintf(f, "  %9s %9s  %s\n", report__dur(k->slow_ns / ns, a, sizeof(a)),
			report__dur(k->fast_ns / nf, b, sizeof(b)),
			report__blocker(ds, k, line, sizeof(line)));
	}
	if (more || members)
		fprintf(f, "  (%zu more, %zu in groups above, in the JSON report)\n", more,
			members);
	if (r->wait_answer.cpu_work.tested) {
		char cw[1024];

		fprintf(f, "  waited for %s: %s\n",
			report__blocker(ds, &r->blockers[r->wait_answer.blocker], line,
					sizeof(line)),
			report__cpu_work(&r->wait_answer.cpu_work, cw, sizeof(cw)));
	}
	run = report__typical_run(ds, r, true);
	if (run != SIZE_MAX) {
		const struct dataset_run *x = dataset__run(ds, run);
		size_t nw = waitchain__nwaits(r->waits, run);

		fprintf(f, "  A typical slow run (run %zu, %s, tid %u): %zu wait(s)\n", run + 1,
			report__dur(x->latency_ns, a, sizeof(a)), x->tid, nw);
		for (size_t i = 0; i < nw && i < MAX_WAITS; i++) {
			const struct waitchain_wait *w = waitchain__wait(r->waits, run, i);

			fprintf(f, "    at +%s, %s:\n",
				report__dur((double)(w->start_ns - x->start_ns), a, sizeof(a)),
				report__dur((double)(w->end_ns - w->start_ns), b, sizeof(b)));
			for (size_t k = w->first; k < w->first + w->n; k++) {
				const struct waitchain_piece *p =
					waitchain__piece(r->waits, run, k);
				struct waitchain_blocker pb = piece_blocker(p);

				fprintf(f, "      %9s  %s\n",
					report__dur((double)p->ns, a, sizeof(a)),
					report__blocker(ds, &pb, line, sizeof(line)));
			}
		}
		if (nw > MAX_WAITS)
			fprintf(f, "    (%zu more waits, in the JSON report)\n", nw - MAX_WAITS);
	}
	if (in->cycles || in->depth_cuts)
		fprintf(f,
			"  (%llu piece(s) ended in a cycle, %llu at the depth limit: events lost "
			"or "
			"long chains)\n",
			(unsigned long long)in->cycles, (unsigned long long)in->depth_cuts);
}

/* A thread's name, null when unknown (a device, an unnamed thread). */
static void name_json(struct jsonw *w, const char *key, const char *comm)
{
	size_t n = strnlen(comm, XLP_COMM_LEN);

	if (n)
		jsonw__strn(w, key, comm, n);
	else
		jsonw__null(w, key);
}

static void blocker_json(struct jsonw *w, const struct dataset *ds,
			 const struct waitchain_blocker *b)
{
	bool fn = b->func != DATASET_NO_FUNC && b->func < dataset__nfuncs(ds);
	char line[256];

	jsonw__str(w, "state", waitchain__state_name(b->state));
	jsonw__str(w, "reason",
		   b->reason && b->reason < XLP_NR_CTR ? xlp_ctr_names[b->reason] : NULL);
	jsonw__bool(w, "self", b->self);
	/* a group's are its members' */
	jsonw__uint(w, "blocker_pid", b->threads > 1 ? 0 : b->blocker_pid);
	jsonw__uint(w, "blocker_tid", b->threads > 1 ? 0 : b->blocker_tid);
	name_json(w, "blocker", b->comm);
	jsonw__uint(w, "via_tid", b->threads > 1 ? 0 : b->waker_tid);
	name_json(w, "via", b->waker_comm);
	jsonw__str(w, "function", fn ? dataset__func(ds, b->func)->name : NULL);
	jsonw__str(w, "symbol", fn ? dataset__func(ds, b->func)->symbol : NULL);
	jsonw__str(w, "binary", fn ? dataset__func(ds, b->func)->binary : NULL);
	jsonw__uint(w, "threads", b->threads);
	jsonw__str(w, "text", report__blocker(ds, b, line, sizeof(line)));
}

static void run_json(struct jsonw *w, const char *key, const struct dataset *ds,
		     const struct diagnosis *r, size_t run)
{
	const struct dataset_run *x;

	if (run == SIZE_MAX) {
		jsonw__null(w, key);
		return;
	}
	x = dataset__run(ds, run);
	jsonw__begin_obj(w, key);
	jsonw__uint(w, "run", run + 1);
	jsonw__uint(w, "tid", x->tid);
	jsonw__uint(w, "start_ns", x->start_ns);
	jsonw__round(w, "latency_ns", x->latency_ns);
	jsonw__begin_arr(w, "waits");
	for (size_t i = 0; i < waitchain__nwaits(r->waits, run); i++) {
		const struct waitchain_wait *v = waitchain__wait(r->waits, run, i);

		jsonw__begin_obj(w, NULL);
		jsonw__uint(w, "start_ns", v->start_ns);
		jsonw__uint(w, "ns", v->end_ns - v->start_ns);
		jsonw__begin_arr(w, "pieces");
		for (size_t k = v->first; k < v->first + v->n; k++) {
			const struct waitchain_piece *p = waitchain__piece(r->waits, run, k);
			struct waitchain_blocker b = piece_blocker(p);

			jsonw__begin_obj(w, NULL);
			jsonw__uint(w, "start_ns", p->start_ns);
			jsonw__uint(w, "ns", p->ns);
			jsonw__uint(w, "depth", p->depth);
			blocker_json(w, ds, &b);
			jsonw__end_obj(w);
		}
		jsonw__end_arr(w);
		jsonw__end_obj(w);
	}
	jsonw__end_arr(w);
	jsonw__end_obj(w);
}

void report__waits_json(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r)
{
	double ns = r->lab.nslow ? (double)r->lab.nslow : NAN;
	double nf = r->lab.n > r->lab.nslow ? (double)(r->lab.n - r->lab.nslow) : NAN;
	const struct waitchain_info *in;

	if (!r->waits)
		return;
	in = waitchain__info(r->waits);
	jsonw__begin_obj(w, "wait_chains");
	jsonw__uint(w, "max_depth", WAITCHAIN_MAX_DEPTH);
	jsonw__uint(w, "events", in->events);
	jsonw__uint(w, "waits", in->waits);
	jsonw__uint(w, "pieces", in->pieces);
	jsonw__uint(w, "cycles", in->cycles);
	jsonw__uint(w, "depth_limits", in->depth_cuts);
	jsonw__uint(w, "unknown_ns", in->unknown_ns);
	jsonw__begin_arr(w, "blockers");
	for (size_t i = 0; i < r->nblockers && i < REPORT_MAX_BLOCKERS; i++) {
		const struct waitchain_blocker *b = &r->blockers[i];

		jsonw__begin_obj(w, NULL);
		blocker_json(w, ds, b);
		jsonw__round(w, "slow_ns_per_run", b->slow_ns / ns);
		jsonw__round(w, "fast_ns_per_run", b->fast_ns / nf);
		jsonw__uint(w, "slow_runs", b->slow_runs);
		jsonw__uint(w, "fast_runs", b->fast_runs);
		jsonw__end_obj(w);
	}
	jsonw__end_arr(w);
	jsonw__uint(w, "blockers_omitted",
		    r->nblockers > REPORT_MAX_BLOCKERS ? r->nblockers - REPORT_MAX_BLOCKERS : 0);
	run_json(w, "typical_slow_run", ds, r, report__typical_run(ds, r, true));
	run_json(w, "typical_fast_run", ds, r, report__typical_run(ds, r, false));
	jsonw__end_obj(w);
}
