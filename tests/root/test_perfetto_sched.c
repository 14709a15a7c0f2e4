// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * record --timeline records every switch of the CPUs the traced threads ran
 * on, and export --perfetto writes them as Perfetto's own ftrace events
 * (issue 38), decoded here by protoc against tests/perfetto/: on
 * tests/workloads/thief --mode threads, a server and its helper thread
 * pinned to one CPU, the helper burning it during every third request, so
 * that the two contend for it.
 *
 *   - each CPU's sched_switch sequence is whole: the task one switch lets
 *     in is the one the next switch on that CPU lets out;
 *   - every state xlprobe reports for the traced threads (their "state"
 *     tracks: Running, Runnable (preempted), Sleeping, Sleeping (D)) is one
 *     the switch events say, in the same order;
 *   - the process tree, the wakeups of the traced threads (sched_waking),
 *     the helper's creation (task_newtask) and the kernel release are there;
 *   - every wait for the CPU the trace names thieves for (XLP_R_THIEF) is a
 *     slice on the server's "CPU held by" track, the helper named.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "pbtext.h"
#include "testlib.h"
#include "trace.h"
#include "xlptest.h"

#define REQUESTS 12
#define MAX_CPUS 64

struct sw {
	uint64_t ts;
	uint32_t prev, next;
	int64_t state;
};

struct rec {
	int state; /* 0: not run, 1: ok, -1: failed */
	char err[4096];
	char trace[512], pft[512];
	unsigned server, helper, pid;
	unsigned long long thief_recs, lost, cpusched_bytes;
	struct pbt *root;
};

static struct rec rec;

/* The workload's REQ lines: the server's tid and the helper's (the thief of the noisy ones). */
static void parse_reqs(char *out)
{
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		unsigned i, noisy, server, thief;

		if (sscanf(l, "REQ %u %u %u %u", &i, &noisy, &server, &thief) != 4)
			continue;
		rec.server = server;
		if (noisy && thief)
			rec.helper = thief;
	}
}

static int read_trace(void)
{
	const struct xlp_trace_footer *ft;
	const struct xlp_hdr *h;
	struct trace_reader *r;
	int ret;

	if (trace_reader__open(rec.trace, &r, rec.err, sizeof(rec.err)))
		return -1;
	rec.pid = trace_reader__meta(r)->target_pid;
	while ((ret = trace_reader__next(r, &h)) > 0) {
		if (h->type == XLP_R_THIEF && ((const struct xlp_thief_rec *)h)->tid == rec.server)
			rec.thief_recs++;
		if (h->type == XLP_R_CPUSCHED)
			rec.cpusched_bytes += h->size;
	}
	ft = trace_reader__footer(r);
	rec.lost = ft ? ft->stat[XLP_S_RB_FULL] + ft->lost_by_reader : 0;
	if (ret < 0 || trace_reader__status(r) != TRACE_COMPLETE)
		snprintf(rec.err, sizeof(rec.err), "cannot read %s completely", rec.trace);
	trace_reader__close(r);
	return ret < 0 ? -1 : 0;
}

static const struct rec *recording(void)
{
	static char out[65536];
	char xl[256], wl[256], spec[320], *text;
	char *argv[32];
	int n = 0;

	if (rec.state)
		return rec.state > 0 ? &rec : NULL;
	rec.state = -1;
	snprintf(rec.trace, sizeof(rec.trace), "%s", xt_tmp_path("sched.xlp"));
	snprintf(rec.pft, sizeof(rec.pft), "%s", xt_tmp_path("sched.pftrace"));
	xt_out("xlprobe", xl, sizeof(xl));
	xt_out("tests/workloads/thief", wl, sizeof(wl));
	snprintf(spec, sizeof(spec), "%s:request", wl);
	n = xt_argv(argv, n, xl, "record", "-q", "--no-sample", "--timeline", "-o", rec.trace, "-i",
		    spec, "--", wl, "--mode", "threads", "--requests", "12", NULL);
	if (xt_run(argv, 120000, out, sizeof(out), rec.err, sizeof(rec.err)))
		return NULL;
	parse_reqs(out);
	if (read_trace())
		return NULL;
	n = xt_argv(argv, 0, xl, "export", "--perfetto", rec.trace, "-o", rec.pft, NULL);
	if (xt_run(argv, 60000, NULL, 0, rec.err, sizeof(rec.err)))
		return NULL;
	text = pbt__decode("perfetto_subset.proto", "perfetto.protos.Trace", rec.pft);
	if (!text) {
		snprintf(rec.err, sizeof(rec.err), "protoc could not decode %s", rec.pft);
		return NULL;
	}
	rec.root = pbt__parse(text);
	free(text);
	if (!rec.root) {
		snprintf(rec.err, sizeof(rec.err), "cannot parse protoc's output");
		return NULL;
	}
	rec.state = 1;
	return &rec;
}

/* Every sched_switch of cpu, in the file's order (bundles, then events). */
static struct sw *switches(const struct pbt *root, uint32_t cpu, size_t *n)
{
	struct sw *s = NULL;
	size_t cap = 0;

	*n = 0;
	for (size_t i = 0; i < root->nkids; i++) {
		const struct pbt *b = pbt__get(&root->kids[i], "ftrace_events");

		if (!b || pbt__u64(b, "cpu") != cpu)
			continue;
		for (size_t j = 0; j < b->nkids; j++) {
			const struct pbt *e = &b->kids[j], *x = pbt__get(e, "sched_switch");

			if (strcmp(e->key, "event") || !x)
				continue;
			if (*n == cap) {
				cap = cap ? 2 * cap : 1024;
				s = realloc(s, cap * sizeof(*s));
				if (!s)
					abort();
			}
			s[(*n)++] = (struct sw){pbt__u64(e, "timestamp"),
						(uint32_t)pbt__u64(x, "prev_pid"),
						(uint32_t)pbt__u64(x, "next_pid"),
						(int64_t)pbt__u64(x, "prev_state")};
		}
	}
	return s;
}

TEST(perfetto_ftrace_decodes_with_no_unknown_fields)
{
	const struct rec *r = recording();
	size_t bundles = 0, trees = 0, info = 0;
	struct utsname u;

	REQUIRE(r, "recording failed: %s", rec.err);
	REQUIRE(r->server && r->helper, "workload: server %u, helper %u", r->server, r->helper);
	CHECK(pbt__count(r->root, "packet") == r->root->nkids, "fields besides packets");
	for (size_t i = 0; i < r->root->nkids; i++) {
		const struct pbt *p = &r->root->kids[i];

		/* a field under a number the subset does not know decodes as "N: ..." */
		for (size_t j = 0; j < p->nkids; j++)
			CHECK(p->kids[j].key[0] < '0' || p->kids[j].key[0] > '9',
			      "packet %zu: unknown field %s", i, p->kids[j].key);
		bundles += pbt__get(p, "ftrace_events") != NULL;
		trees += pbt__get(p, "process_tree") != NULL;
		if (pbt__get(p, "system_info")) {
			info++;
			REQUIRE(uname(&u) == 0);
			CHECK(pbt__str(p, "system_info.utsname.release") &&
				      !strcmp(pbt__str(p, "system_info.utsname.release"),
					      u.release),
			      "kernel release %s", pbt__str(p, "system_info.utsname.release"));
		}
	}
	CHECK(bundles > 0 && trees == 1 && info == 1, "%zu bundles, %zu process trees, %zu infos",
	      bundles, trees, info);
	CHECK(r->cpusched_bytes > 0, "no CPU scheduling records in the trace");
	/* the comparisons below need every switch: a loss would show as a break */
	REQUIRE(r->lost == 0, "%llu records lost while recording", r->lost);
}

/* Whether tid leaves a CPU in any switch of the trace. */
static bool ever_out(const struct pbt *root, uint32_t tid)
{
	bool out = false;

	for (uint32_t cpu = 0; cpu < MAX_CPUS && !out; cpu++) {
		size_t n;
		struct sw *s = switches(root, cpu, &n);

		for (size_t i = 0; i < n && !out; i++)
			out = s[i].prev == tid;
		free(s);
	}
	return out;
}

/*
 * The task a switch lets in runs until the next switch on that CPU lets it
 * out: a lost or misordered event, a wrong pid field or a bundle under the
 * wrong CPU breaks the chain. One exception, the kernel's: on the VMs
 * these tests run in, the threads of the VM's own agent (PID 1's) are
 * switched in but the kernel fires no sched_switch as they leave (its own
 * tracepoint, read by bpftrace, sees the same), so the next switch lets
 * out someone else. A break is that only after a task the trace never
 * shows leaving a CPU, and never after a traced thread.
 */
TEST(each_cpus_sched_switches_chain)
{
	const struct rec *r = recording();
	size_t total = 0, cpus = 0, silent = 0;

	REQUIRE(r, "recording failed: %s", rec.err);
	for (uint32_t cpu = 0; cpu < MAX_CPUS; cpu++) {
		size_t n, breaks = 0, back = 0;
		struct sw *s = switches(r->root, cpu, &n);

		for (size_t i = 1; i < n; i++) {
			back += s[i].ts < s[i - 1].ts;
			if (s[i].prev == s[i - 1].next)
				continue;
			if (s[i - 1].next != r->server && s[i - 1].next != r->helper &&
			    !ever_out(r->root, s[i - 1].next)) {
				silent++;
				continue;
			}
			if (breaks++ < 3)
				fprintf(stderr,
					"  cpu %u: switch %zu lets in %u at %llu, switch %zu lets "
					"out %u at %llu\n",
					cpu, i - 1, s[i - 1].next, (unsigned long long)s[i - 1].ts,
					i, s[i].prev, (unsigned long long)s[i].ts);
		}
		CHECK(breaks == 0, "cpu %u: %zu of %zu switches do not chain", cpu, breaks, n);
		CHECK(back == 0, "cpu %u: %zu switches before the one written before them", cpu,
		      back);
		total += n;
		cpus += n > 0;
		free(s);
	}
	printf("  %zu switches on %zu CPUs; %zu after a task the kernel never shows leaving\n",
	       total, cpus, silent);
	CHECK(total >= 4 * REQUESTS, "%zu switches", total);
}

/* 'I' switch-in, 'R' runnable (preempted), 'S' asleep, 'D' uninterruptible; 0: none */
static char switch_out_state(int64_t st)
{
	if (st == 0 || st == 0x100)
		return 'R';
	return st == 2 || st == 0x80 ? 'D' : 'S';
}

static char state_slice(const char *name)
{
	if (!strcmp(name, "Running"))
		return 'I';
	if (!strcmp(name, "Runnable (preempted)"))
		return 'R';
	if (!strncmp(name, "Sleeping (D)", 12))
		return 'D';
	if (!strncmp(name, "Sleeping", 8))
		return 'S';
	return 0; /* Runnable: a wakeup, no switch */
}

static uint64_t track_of(const struct pbt *root, unsigned tid, const char *child)
{
	uint64_t thread = 0;

	for (size_t i = 0; i < root->nkids && !thread; i++) {
		const struct pbt *td = pbt__get(&root->kids[i], "track_descriptor");

		if (td && pbt__get(td, "thread") && pbt__u64(td, "thread.tid") == tid)
			thread = pbt__u64(td, "uuid");
	}
	for (size_t i = 0; i < root->nkids && thread; i++) {
		const struct pbt *td = pbt__get(&root->kids[i], "track_descriptor");
		const char *name = td ? pbt__str(td, "name") : NULL;

		if (name && !strcmp(name, child) && pbt__u64(td, "parent_uuid") == thread)
			return pbt__u64(td, "uuid");
	}
	return 0;
}

/* tid's switches on every CPU, by time, as 'I' / 'R' / 'S' / 'D'; the last one's time in *last */
static char *switch_string(const struct pbt *root, unsigned tid, uint64_t *times)
{
	char *s = calloc(1 << 20, 1);
	size_t len = 0;
	struct sw *all = NULL;
	size_t nall = 0;

	for (uint32_t cpu = 0; cpu < MAX_CPUS; cpu++) {
		size_t n;
		struct sw *c = switches(root, cpu, &n);

		all = realloc(all, (nall + n + 1) * sizeof(*all));
		if (!all || !s)
			abort();
		for (size_t i = 0; i < n; i++)
			if (c[i].prev == tid || c[i].next == tid)
				all[nall++] = c[i];
		free(c);
	}
	/* one thread's switches: in and out alternate, so time orders them */
	for (size_t i = 1; i < nall; i++)
		for (size_t j = i; j > 0 && all[j].ts < all[j - 1].ts; j--) {
			struct sw t = all[j];

			all[j] = all[j - 1];
			all[j - 1] = t;
		}
	for (size_t i = 0; i < nall && len < (1 << 20) - 2; i++) {
		if (all[i].prev == tid) {
			times[len] = all[i].ts;
			s[len++] = switch_out_state(all[i].state);
		}
		if (all[i].next == tid) {
			times[len] = all[i].ts;
			s[len++] = 'I';
		}
	}
	free(all);
	return s;
}

/* tid's state slices as 'I' / 'R' / 'S' / 'D' (woken: none), each one's time in times[] */
static char *state_string(const struct pbt *root, uint64_t track, uint64_t *last, uint64_t *times)
{
	char *s = calloc(1 << 20, 1);
	size_t len = 0;

	if (!s)
		abort();
	for (size_t i = 0; i < root->nkids && len < (1 << 20) - 1; i++) {
		const struct pbt *te = pbt__get(&root->kids[i], "track_event");
		const char *type = te ? pbt__str(te, "type") : NULL;
		char c;

		if (!te || pbt__u64(te, "track_uuid") != track || !type ||
		    strcmp(type, "TYPE_SLICE_BEGIN"))
			continue;
		c = state_slice(pbt__str(te, "name") ? pbt__str(te, "name") : "");
		*last = pbt__u64(&root->kids[i], "timestamp");
		if (c) {
			times[len] = *last;
			s[len++] = c;
		}
	}
	return s;
}

/*
 * xlprobe's thread states and the kernel's switches agree: the same
 * switches in and out, in order, each out with the state the switch gave,
 * and at the same moments: the two programs stamp a switch within the
 * same tracepoint call, so both stamps of one switch come before both of
 * the thread's next (no tolerance to choose: the order says it).
 * The switches may go on after xlprobe's last state: a thread that exits
 * stops being traced before its last switch, the one out of life.
 */
TEST(traced_threads_states_match_the_switch_events)
{
	const struct rec *r = recording();
	unsigned tids[2];

	REQUIRE(r, "recording failed: %s", rec.err);
	tids[0] = r->server;
	tids[1] = r->helper;
	for (int k = 0; k < 2; k++) {
		uint64_t track = track_of(r->root, tids[k], "state"), last = 0;
		uint64_t *times = calloc(1 << 20, sizeof(*times));
		uint64_t *st_times = calloc(1 << 20, sizeof(*st_times));
		char *st, *sw;
		size_t ns, nw, same = 0, apart = 0;

		REQUIRE(track, "no state track for %u", tids[k]);
		REQUIRE(times && st_times);
		st = state_string(r->root, track, &last, st_times);
		sw = switch_string(r->root, tids[k], times);
		ns = strlen(st);
		nw = strlen(sw);
		while (same < ns && same < nw && st[same] == sw[same])
			same++;
		printf("  thread %u: %zu states, %zu switches, %zu agree\n", tids[k], ns, nw, same);
		CHECK(ns >= 4, "thread %u: %zu states", tids[k], ns);
		CHECK(same == ns,
		      "thread %u: state %zu is '%c', the switches say '%c' (states %.40s, switches "
		      "%.40s)",
		      tids[k], same, same < ns ? st[same] : '-', same < nw ? sw[same] : '-',
		      st + (same > 20 ? same - 20 : 0), sw + (same > 20 ? same - 20 : 0));
		for (size_t i = ns; i < nw && same == ns; i++)
			CHECK(times[i] >= last,
			      "thread %u: switch %zu ('%c') at %llu, before xlprobe's last state "
			      "at %llu",
			      tids[k], i, sw[i], (unsigned long long)times[i],
			      (unsigned long long)last);
		CHECK(nw - ns <= 2, "thread %u: %zu switches past its states", tids[k], nw - ns);
		for (size_t i = 0; i + 1 < same; i++)
			if (!(times[i] < st_times[i + 1] && st_times[i] < times[i + 1]) &&
			    apart++ < 3)
				fprintf(stderr,
					"  thread %u: event %zu at %llu (switch) / %llu (state), "
					"the "
					"next at %llu / %llu\n",
					tids[k], i, (unsigned long long)times[i],
					(unsigned long long)st_times[i],
					(unsigned long long)times[i + 1],
					(unsigned long long)st_times[i + 1]);
		CHECK(apart == 0, "thread %u: %zu states not at their switch's moment", tids[k],
		      apart);
		free(st_times);
		free(st);
		free(sw);
		free(times);
	}
}

/* The other events: wakeups, the helper's creation, the process tree. */
TEST(wakings_newtask_and_process_tree_name_the_traced_threads)
{
	const struct rec *r = recording();
	size_t wakings = 0, newtask = 0, in_tree = 0;

	REQUIRE(r, "recording failed: %s", rec.err);
	for (size_t i = 0; i < r->root->nkids; i++) {
		const struct pbt *p = &r->root->kids[i], *b = pbt__get(p, "ftrace_events"),
				 *pt = pbt__get(p, "process_tree");

		for (size_t j = 0; b && j < b->nkids; j++) {
			const struct pbt *e = &b->kids[j], *x;

			if ((x = pbt__get(e, "sched_waking")) && pbt__u64(x, "pid") == r->server) {
				wakings++;
				CHECK(pbt__u64(x, "target_cpu") < MAX_CPUS, "target_cpu %llu",
				      (unsigned long long)pbt__u64(x, "target_cpu"));
			}
			if ((x = pbt__get(e, "task_newtask")) && pbt__u64(x, "pid") == r->helper) {
				newtask++;
				CHECK(pbt__u64(e, "pid") == r->server,
				      "the helper created by %llu, not the server %u",
				      (unsigned long long)pbt__u64(e, "pid"), r->server);
			}
		}
		for (size_t j = 0; pt && j < pt->nkids; j++) {
			const struct pbt *t = &pt->kids[j];

			if (strcmp(t->key, "threads") ||
			    (pbt__u64(t, "tid") != r->server && pbt__u64(t, "tid") != r->helper))
				continue;
			in_tree++;
			CHECK(pbt__u64(t, "tgid") == r->server,
			      "thread %llu in process %llu, want %u",
			      (unsigned long long)pbt__u64(t, "tid"),
			      (unsigned long long)pbt__u64(t, "tgid"), r->server);
		}
	}
	/* the server sleeps between requests and is woken for each */
	CHECK(wakings >= REQUESTS, "%zu wakings of the server", wakings);
	CHECK(newtask == 1, "%zu task_newtask of the helper", newtask);
	CHECK(in_tree == 2, "%zu of the two threads in the process tree", in_tree);
}

/* XLP_R_THIEF: a slice per wait on the server's "CPU held by" track, the helper named. */
TEST(cpu_thieves_are_slices_on_the_waiting_threads_track)
{
	const struct rec *r = recording();
	uint64_t track;
	size_t slices = 0, helper = 0;
	char want[64];

	REQUIRE(r, "recording failed: %s", rec.err);
	REQUIRE(r->thief_recs > 0, "no thief record for the server in the trace");
	track = track_of(r->root, r->server, "CPU held by");
	REQUIRE(track, "no \"CPU held by\" track for the server");
	snprintf(want, sizeof(want), "CPU held by helper %u", r->helper);
	for (size_t i = 0; i < r->root->nkids; i++) {
		const struct pbt *te = pbt__get(&r->root->kids[i], "track_event");
		const char *type = te ? pbt__str(te, "type") : NULL;
		const char *name = te ? pbt__str(te, "name") : NULL;

		if (!te || pbt__u64(te, "track_uuid") != track || !type ||
		    strcmp(type, "TYPE_SLICE_BEGIN"))
			continue;
		slices++;
		helper += name && !strcmp(name, want);
	}
	CHECK(slices == r->thief_recs, "%zu slices for %llu thief records", slices, r->thief_recs);
	CHECK(helper > 0, "no slice named \"%s\"", want);
	pbt__free(rec.root);
}

TEST_MAIN()
