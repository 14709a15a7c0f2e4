// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * record --timeline and export --perfetto, on a workload whose switches and
 * wakeups are known: tests/workloads/reasons --only pipe_wait. Each
 * pipe_wait() call reads a pipe whose writer, the child process
 * "peerproc", sleeps 50 ms (a timer) before it writes: the calling thread
 * switches out asleep, is woken by the peer's thread (a pipe: ipc) and
 * switches in, all inside the call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "pbtext.h"
#include "testlib.h"
#include "trace.h"
#include "xlptest.h"

#define ITERATIONS 4

struct rec {
	int state; /* 0: not run, 1: ok, -1: failed */
	char err[4096];
	char trace[512], plain[512], nocpu[512];
	struct xt_wl_call calls[ITERATIONS + 8];
	int ncalls;
	unsigned peer_pid;
	struct xlp_sched_rec *ev;
	size_t nev;
	uint64_t bad_size;   /* sched records of another size */
	unsigned wakers[64]; /* tids of the task records: untraced wakers */
	int nwakers;
	long trace_bytes, plain_bytes, nocpu_bytes;
	uint64_t ncpusched; /* the CPUs' scheduling records (bpf/cpusched.bpf.c) */
};

static struct rec rec;

/* timeline: 0 without, 1 with, 2 with --no-cpu-sched */
static int record_one(const char *path, int timeline, char *out, size_t outlen)
{
	char xl[256], wl[256], spec[320], iters[16];
	char *argv[32];
	int n = 0;

	xt_out("xlprobe", xl, sizeof(xl));
	xt_out("tests/workloads/reasons", wl, sizeof(wl));
	snprintf(spec, sizeof(spec), "%s:pipe_wait", wl);
	snprintf(iters, sizeof(iters), "%d", ITERATIONS);
	n = xt_argv(argv, n, xl, "record", "-q", "--no-sample", NULL);
	if (timeline)
		argv[n++] = "--timeline";
	if (timeline == 2)
		argv[n++] = "--no-cpu-sched";
	n = xt_argv(argv, n, "-o", (char *)path, "-i", spec, "--", wl, "--iterations", iters,
		    "--only", "pipe_wait", NULL);
	return xt_run(argv, 60000, out, outlen, rec.err, sizeof(rec.err));
}

static int load_sched(const char *path)
{
	struct trace_reader *r;
	const struct xlp_hdr *h;
	size_t cap = 0;
	int ret;

	if (trace_reader__open(path, &r, rec.err, sizeof(rec.err)))
		return -1;
	while ((ret = trace_reader__next(r, &h)) > 0) {
		rec.ncpusched += h->type == XLP_R_CPUSCHED;
		if (h->type == XLP_R_TASK && rec.nwakers < 64)
			rec.wakers[rec.nwakers++] = ((const struct xlp_task_rec *)h)->tid;
		if (h->type != XLP_R_SCHED)
			continue;
		if (h->size != sizeof(struct xlp_sched_rec)) {
			rec.bad_size++;
			continue;
		}
		if (rec.nev == cap) {
			cap = cap ? 2 * cap : 256;
			rec.ev = realloc(rec.ev, cap * sizeof(*rec.ev));
			if (!rec.ev)
				abort();
		}
		memcpy(&rec.ev[rec.nev++], h, sizeof(*h) + sizeof(*rec.ev) - sizeof(*h));
	}
	if (ret == 0 && trace_reader__status(r) != TRACE_COMPLETE)
		ret = -1;
	trace_reader__close(r);
	return ret;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

static const struct rec *recording(void)
{
	static char out[65536], plain_out[65536], nocpu_out[65536];
	char *peer;

	if (rec.state)
		return rec.state > 0 ? &rec : NULL;
	rec.state = -1;
	snprintf(rec.trace, sizeof(rec.trace), "%s", xt_tmp_path("timeline.xlp"));
	snprintf(rec.plain, sizeof(rec.plain), "%s", xt_tmp_path("plain.xlp"));
	snprintf(rec.nocpu, sizeof(rec.nocpu), "%s", xt_tmp_path("nocpu.xlp"));
	if (record_one(rec.trace, 1, out, sizeof(out)) ||
	    record_one(rec.plain, 0, plain_out, sizeof(plain_out)) ||
	    record_one(rec.nocpu, 2, nocpu_out, sizeof(nocpu_out)))
		return NULL;
	peer = strstr(out, "PEER pipe ");
	rec.peer_pid = peer ? (unsigned)strtoul(peer + 10, NULL, 10) : 0;
	rec.ncalls = xt_parse_calls(out, rec.calls, ITERATIONS + 8);
	if (load_sched(rec.trace)) {
		snprintf(rec.err, sizeof(rec.err), "cannot read %s completely", rec.trace);
		return NULL;
	}
	rec.trace_bytes = file_size(rec.trace);
	rec.plain_bytes = file_size(rec.plain);
	rec.nocpu_bytes = file_size(rec.nocpu);
	rec.state = 1;
	return &rec;
}

/* The first event of kind (and detail, unless -1) for tid in [from, to], or NULL. */
static const struct xlp_sched_rec *find(const struct rec *r, unsigned kind, int detail,
					unsigned tid, uint64_t from, uint64_t to)
{
	const struct xlp_sched_rec *best = NULL;

	/* the file's order is per CPU: the earliest by time */
	for (size_t i = 0; i < r->nev; i++) {
		const struct xlp_sched_rec *e = &r->ev[i];

		if (e->kind == kind && (detail < 0 || e->detail == detail) && e->tid == tid &&
		    e->time_ns >= from && e->time_ns <= to && (!best || e->time_ns < best->time_ns))
			best = e;
	}
	return best;
}

/*
 * In every call: the thread leaves its CPU asleep, the peer's thread wakes
 * it for an IPC wait, it gets a CPU back; in that order.
 */
TEST(timeline_holds_each_calls_switches_and_wakeup)
{
	const struct rec *r = recording();

	REQUIRE(r, "recording failed: %s", rec.err);
	CHECK(r->ncalls == ITERATIONS, "%d calls logged, want %d", r->ncalls, ITERATIONS);
	CHECK(r->peer_pid, "the workload did not name its peer");
	CHECK(r->bad_size == 0, "%llu sched records not 32 bytes", (unsigned long long)r->bad_size);
	for (int i = 0; i < r->ncalls; i++) {
		const struct xt_wl_call *c = &r->calls[i];
		const struct xlp_sched_rec *out, *wake, *in;

		out = find(r, XLP_SCHED_OUT, XLP_SCHED_SLEEP_S, c->tid, c->start, c->end);
		CHECK(out, "call %d: no sleeping switch-out", i);
		if (!out)
			continue;
		wake = find(r, XLP_SCHED_WAKEUP, -1, c->tid, out->time_ns, c->end);
		CHECK(wake, "call %d: no wakeup after the switch-out", i);
		if (!wake)
			continue;
		/* woken by the peer's reply, which came after its 50 ms timer:
		 * most of the call as the workload timed it, however long the
		 * machine made the call (another wakeup would be a sliver) */
		CHECK((wake->time_ns - out->time_ns) * 2 >= c->end - c->start,
		      "call %d: woken after %llu ns of a call of %llu ns", i,
		      (unsigned long long)(wake->time_ns - out->time_ns), c->end - c->start);
		CHECK(wake->detail == XLP_C_IPC, "call %d: reason %u, want ipc", i, wake->detail);
		CHECK(wake->arg == r->peer_pid, "call %d: waker %u, want the peer %u", i, wake->arg,
		      r->peer_pid);
		in = find(r, XLP_SCHED_IN, -1, c->tid, wake->time_ns, c->end);
		CHECK(in, "call %d: no switch-in after the wakeup", i);
	}
}

/*
 * A thread outside the traced ones that wakes one (here xlprobe itself,
 * releasing the launched command) is named once and is on the timeline
 * from then on: its own switches out and in.
 */
TEST(timeline_holds_the_wakers_own_switches)
{
	const struct rec *r = recording();
	size_t outs = 0, ins = 0;

	REQUIRE(r, "recording failed: %s", rec.err);
	REQUIRE(r->nwakers > 0, "no untraced waker named");
	for (int w = 0; w < r->nwakers; w++)
		for (size_t i = 0; i < r->nev; i++) {
			outs += r->ev[i].tid == r->wakers[w] && r->ev[i].kind == XLP_SCHED_OUT;
			ins += r->ev[i].tid == r->wakers[w] && r->ev[i].kind == XLP_SCHED_IN;
		}
	CHECK(outs > 0 && ins > 0, "the %d untraced wakers: %zu switches out, %zu in", r->nwakers,
	      outs, ins);
}

/*
 * The bound: at most 32 bytes per event in the file, measured as
 * what --timeline adds to the same recording without it; the traced
 * threads' and their wakers' events alone (--no-cpu-sched), since every
 * switch of their CPUs is a record of its own, at most the 80 bytes
 * record --help says: what it adds over --no-cpu-sched, per record.
 * (Both recordings of the same workload: their own events are as many.)
 */
TEST(timeline_costs_at_most_32_bytes_an_event_in_the_file)
{
	const struct rec *r = recording();
	double per, cpu_per;

	REQUIRE(r, "recording failed: %s", rec.err);
	REQUIRE(r->nev >= 3 * ITERATIONS, "only %zu events", r->nev);
	REQUIRE(r->ncpusched > 0, "no switches of the traced threads' CPUs in %s", r->trace);
	per = (double)(r->nocpu_bytes - r->plain_bytes) / (double)r->nev;
	cpu_per = (double)(r->trace_bytes - r->nocpu_bytes) / (double)r->ncpusched;
	printf("  %zu events, %ld bytes with --timeline --no-cpu-sched, %ld without: %.1f bytes an "
	       "event; %llu CPU records, %ld bytes with them: %.1f bytes each\n",
	       r->nev, r->nocpu_bytes, r->plain_bytes, per, (unsigned long long)r->ncpusched,
	       r->trace_bytes, cpu_per);
	CHECK(per <= 32, "%.1f bytes an event", per);
	CHECK(cpu_per <= 80, "%.1f bytes a CPU record", cpu_per);
}

/* ---- the Perfetto trace, decoded by protoc ---- */

struct pf_check {
	struct pbt *root;
	uint64_t main_uuid, state_uuid, peer_uuid, runs_uuid;
};

static const struct pbt *packet_td(const struct pbt *p)
{
	return pbt__get(p, "track_descriptor");
}

static void find_tracks(struct pf_check *k, unsigned main_tid, unsigned peer_pid)
{
	for (size_t i = 0; i < k->root->nkids; i++) {
		const struct pbt *td = packet_td(&k->root->kids[i]);
		const char *name;

		if (!td)
			continue;
		name = pbt__str(td, "name");
		if (pbt__get(td, "thread") && pbt__u64(td, "thread.tid") == main_tid)
			k->main_uuid = pbt__u64(td, "uuid");
		if (pbt__get(td, "thread") && pbt__u64(td, "thread.tid") == peer_pid)
			k->peer_uuid = pbt__u64(td, "uuid");
		if (name && !strcmp(name, "runs"))
			k->runs_uuid = pbt__u64(td, "uuid");
	}
	for (size_t i = 0; i < k->root->nkids; i++) {
		const struct pbt *td = packet_td(&k->root->kids[i]);
		const char *name = td ? pbt__str(td, "name") : NULL;

		if (name && !strcmp(name, "state") && pbt__u64(td, "parent_uuid") == k->main_uuid)
			k->state_uuid = pbt__u64(td, "uuid");
	}
}

/* Track events of type on track named name (NULL: any). */
static size_t count_events(const struct pf_check *k, const char *type, uint64_t track,
			   const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < k->root->nkids; i++) {
		const struct pbt *te = pbt__get(&k->root->kids[i], "track_event");
		const char *nm;

		if (!te || pbt__u64(te, "track_uuid") != track)
			continue;
		nm = pbt__str(te, "name");
		if (strcmp(pbt__str(te, "type") ? pbt__str(te, "type") : "", type))
			continue;
		n += !name || (nm && !strcmp(nm, name));
	}
	return n;
}

/* The event on track whose field (flow_ids / terminating_flow_ids) holds id. */
static const struct pbt *event_with_flow(const struct pf_check *k, uint64_t track,
					 const char *field, const char *id)
{
	for (size_t i = 0; i < k->root->nkids; i++) {
		const struct pbt *te = pbt__get(&k->root->kids[i], "track_event");

		if (!te || pbt__u64(te, "track_uuid") != track)
			continue;
		for (size_t j = 0; j < te->nkids; j++)
			if (!strcmp(te->kids[j].key, field) && te->kids[j].val &&
			    !strcmp(te->kids[j].val, id))
				return te;
	}
	return NULL;
}

TEST(perfetto_export_decodes_with_threads_slices_and_wakeup_flows)
{
	const struct rec *r = recording();
	const char *pft = xt_tmp_path("timeline.pftrace");
	char xl[256], err[4096], want[64], *text;
	char *argv[] = {xl, "export", "--perfetto", rec.trace, "-o", (char *)pft, NULL};
	struct pf_check k = {0};
	unsigned tid;
	size_t flows = 0;

	REQUIRE(r, "recording failed: %s", rec.err);
	REQUIRE(r->ncalls > 0, "no calls logged");
	tid = r->calls[0].tid;
	xt_out("xlprobe", xl, sizeof(xl));
	REQUIRE(xt_run(argv, 60000, NULL, 0, err, sizeof(err)) == 0, "export failed: %s", err);
	text = pbt__decode("perfetto_subset.proto", "perfetto.protos.Trace", pft);
	REQUIRE(text, "protoc could not decode %s", pft);
	k.root = pbt__parse(text);
	free(text);
	REQUIRE(k.root, "cannot parse protoc's output");
	CHECK(pbt__count(k.root, "packet") == k.root->nkids, "fields besides packets");
	find_tracks(&k, tid, r->peer_pid);
	REQUIRE(k.main_uuid && k.state_uuid && k.peer_uuid && k.runs_uuid,
		"tracks: thread %llu, state %llu, peer %llu, runs %llu",
		(unsigned long long)k.main_uuid, (unsigned long long)k.state_uuid,
		(unsigned long long)k.peer_uuid, (unsigned long long)k.runs_uuid);
	for (size_t i = 0; i < k.root->nkids; i++) {
		const struct pbt *td = packet_td(&k.root->kids[i]);

		if (td && pbt__u64(td, "thread.tid") == tid)
			CHECK(!strcmp(pbt__str(td, "thread.thread_name"), "reasons"),
			      "thread name %s", pbt__str(td, "thread.thread_name"));
		if (td && pbt__u64(td, "thread.tid") == r->peer_pid)
			CHECK(!strcmp(pbt__str(td, "thread.thread_name"), "peerproc"),
			      "peer name %s", pbt__str(td, "thread.thread_name"));
	}
	CHECK(count_events(&k, "TYPE_SLICE_BEGIN", k.main_uuid, "pipe_wait") == ITERATIONS,
	      "%zu pipe_wait slices",
	      count_events(&k, "TYPE_SLICE_BEGIN", k.main_uuid, "pipe_wait"));
	CHECK(count_events(&k, "TYPE_SLICE_BEGIN", k.main_uuid, NULL) ==
		      count_events(&k, "TYPE_SLICE_END", k.main_uuid, NULL),
	      "unbalanced slices on the thread's track");
	CHECK(count_events(&k, "TYPE_SLICE_BEGIN", k.runs_uuid, NULL) == ITERATIONS, "%zu runs",
	      count_events(&k, "TYPE_SLICE_BEGIN", k.runs_uuid, NULL));
	CHECK(count_events(&k, "TYPE_SLICE_BEGIN", k.state_uuid, "Sleeping: ipc") >= ITERATIONS,
	      "%zu ipc sleeps",
	      count_events(&k, "TYPE_SLICE_BEGIN", k.state_uuid, "Sleeping: ipc"));
	CHECK(count_events(&k, "TYPE_SLICE_BEGIN", k.state_uuid, "Running") >= ITERATIONS,
	      "%zu running slices", count_events(&k, "TYPE_SLICE_BEGIN", k.state_uuid, "Running"));
	/* each wakeup by the peer: an instant on the peer's track starts a flow
	 * that a Runnable slice of the woken thread's ends */
	snprintf(want, sizeof(want), "wakes reasons %u", tid);
	for (size_t i = 0; i < k.root->nkids; i++) {
		const struct pbt *te = pbt__get(&k.root->kids[i], "track_event"), *end;
		const char *id = te ? pbt__str(te, "flow_ids") : NULL;

		if (!id || pbt__u64(te, "track_uuid") != k.peer_uuid)
			continue;
		CHECK(!strcmp(pbt__str(te, "name"), want), "flow from \"%s\"",
		      pbt__str(te, "name"));
		CHECK(!strcmp(pbt__str(te, "type"), "TYPE_INSTANT"), "flow starts at a %s",
		      pbt__str(te, "type"));
		end = event_with_flow(&k, k.state_uuid, "terminating_flow_ids", id);
		CHECK(end && !strcmp(pbt__str(end, "name"), "Runnable"), "flow %s ends at %s", id,
		      end ? pbt__str(end, "name") : "nothing");
		flows++;
	}
	CHECK(flows >= ITERATIONS, "%zu wakeup flows from the peer, want %d", flows, ITERATIONS);
	pbt__free(k.root);
}

TEST(perfetto_export_refuses_what_it_cannot_do)
{
	char xl[256], err[4096];
	char *none[] = {xl, "export", "--perfetto", NULL};
	char *missing[] = {xl, "export", "--perfetto", "/nonexistent.xlp", "-o", "/dev/null", NULL};

	xt_out("xlprobe", xl, sizeof(xl));
	CHECK(xt_run(none, 10000, NULL, 0, err, sizeof(err)) == 2);
	XT_CHECK_MESSAGE(err, "one trace file expected");
	CHECK(xt_run(missing, 10000, NULL, 0, err, sizeof(err)) == 1);
	XT_CHECK_MESSAGE(err, "/nonexistent.xlp");
}

TEST_MAIN()
