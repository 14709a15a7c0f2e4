// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export --perfetto on synthetic --timeline traces whose every event is
 * known (tests/lib/synth.c, synth__timeline), decoded by protoc against
 * tests/perfetto/perfetto_subset.proto: the tracks, the states named by
 * the sleep's reason, the slow run, the wakeup flows, the frequency
 * counter, the CPUs' scheduling events as ftrace bundles, the CPU's other
 * tenants, and what it refuses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pbtext.h"
#include "synth.h"
#include "testlib.h"
#include "trace.h"
#include "xlptest.h"

struct dec {
	struct pbt *root;
	char err[4096];
};

static int export_decode(const char *trace, struct dec *d)
{
	const char *out = xt_tmp_path("synth.pftrace");
	char xl[256], *text;
	char *argv[] = {xl, "export", "--perfetto", (char *)trace, "-o", (char *)out, NULL};

	xt_out("xlprobe", xl, sizeof(xl));
	if (xt_run(argv, 30000, NULL, 0, d->err, sizeof(d->err)))
		return -1;
	text = pbt__decode("perfetto_subset.proto", "perfetto.protos.Trace", out);
	if (!text)
		return -1;
	d->root = pbt__parse(text);
	free(text);
	return d->root ? 0 : -1;
}

static uint64_t track_named(const struct dec *d, const char *name, uint64_t parent)
{
	for (size_t i = 0; i < d->root->nkids; i++) {
		const struct pbt *td = pbt__get(&d->root->kids[i], "track_descriptor");
		const char *n = td ? pbt__str(td, "name") : NULL;

		if (n && !strcmp(n, name) && (!parent || pbt__u64(td, "parent_uuid") == parent))
			return pbt__u64(td, "uuid");
	}
	return 0;
}

static uint64_t thread_track(const struct dec *d, unsigned tid, const char **name)
{
	for (size_t i = 0; i < d->root->nkids; i++) {
		const struct pbt *td = pbt__get(&d->root->kids[i], "track_descriptor");

		if (td && pbt__get(td, "thread") && pbt__u64(td, "thread.tid") == tid) {
			*name = pbt__str(td, "thread.thread_name");
			return pbt__u64(td, "uuid");
		}
	}
	return 0;
}

static size_t count(const struct dec *d, uint64_t track, const char *type, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < d->root->nkids; i++) {
		const struct pbt *te = pbt__get(&d->root->kids[i], "track_event");
		const char *t = te ? pbt__str(te, "type") : NULL, *nm;

		if (!t || pbt__u64(te, "track_uuid") != track || strcmp(t, type))
			continue;
		nm = pbt__str(te, "name");
		n += !name || (nm && !strcmp(nm, name));
	}
	return n;
}

TEST(timeline_synthetic_states_runs_flows_and_counter)
{
	const char *trace = xt_tmp_path("timeline.xlp"), *name = NULL, *peer_name = NULL;
	uint64_t th, st, peer, runs, freq, last_ts = 0;
	size_t flows = 0;
	struct dec d = {0};

	REQUIRE(!synth__timeline(trace), "cannot write the synthetic trace");
	REQUIRE(!export_decode(trace, &d), "export or decode failed: %s", d.err);
	th = thread_track(&d, 10, &name);
	peer = thread_track(&d, 20, &peer_name);
	st = track_named(&d, "state", th);
	runs = track_named(&d, "runs", 0);
	freq = track_named(&d, "cpu1 frequency (kHz)", 0);
	REQUIRE(th && peer && st && runs && freq, "tracks: %llu %llu %llu %llu %llu",
		(unsigned long long)th, (unsigned long long)peer, (unsigned long long)st,
		(unsigned long long)runs, (unsigned long long)freq);
	CHECK(peer_name && !strcmp(peer_name, "peer"), "the waker is named %s", peer_name);
	CHECK(count(&d, th, "TYPE_SLICE_BEGIN", "on_click") == 6, "on_click slices");
	CHECK(count(&d, runs, "TYPE_SLICE_BEGIN", "slow run 6") == 1, "run 6 is not slow");
	CHECK(count(&d, runs, "TYPE_SLICE_BEGIN", NULL) == 6, "%zu runs",
	      count(&d, runs, "TYPE_SLICE_BEGIN", NULL));
	CHECK(count(&d, st, "TYPE_SLICE_BEGIN", "Sleeping: ipc") == 6, "%zu ipc sleeps",
	      count(&d, st, "TYPE_SLICE_BEGIN", "Sleeping: ipc"));
	CHECK(count(&d, st, "TYPE_SLICE_BEGIN", "Running") == 12, "%zu running",
	      count(&d, st, "TYPE_SLICE_BEGIN", "Running"));
	CHECK(count(&d, st, "TYPE_SLICE_BEGIN", "Runnable (preempted)") == 6, "preempted");
	CHECK(count(&d, st, "TYPE_INSTANT", "block issue") == 1, "block issue");
	CHECK(count(&d, st, "TYPE_INSTANT", "block done") == 1, "block done");
	CHECK(count(&d, freq, "TYPE_COUNTER", NULL) == 1, "frequency samples");
	for (size_t i = 0; i < d.root->nkids; i++) {
		const struct pbt *p = &d.root->kids[i], *te = pbt__get(p, "track_event");
		uint64_t ts = pbt__u64(p, "timestamp");

		/* the track events' sequence, and the ftrace events' (CPU 1's frequency) */
		CHECK(pbt__u64(p, "trusted_packet_sequence_id") ==
			      (te || pbt__get(p, "track_descriptor") ? 1u : 2u),
		      "packet %zu: sequence %llu", i,
		      (unsigned long long)pbt__u64(p, "trusted_packet_sequence_id"));
		if (!te)
			continue;
		CHECK(ts >= last_ts, "packet %zu goes back in time", i);
		last_ts = ts;
		if (pbt__get(te, "flow_ids")) {
			CHECK(pbt__u64(te, "track_uuid") == peer, "a flow leaves another track");
			/* thread 10 has no thread record: its tid names it */
			CHECK(!strcmp(pbt__str(te, "name"), "wakes 10 10"), "flow from \"%s\"",
			      pbt__str(te, "name"));
			flows++;
		}
		if (pbt__get(te, "type") && !strcmp(pbt__str(te, "type"), "TYPE_COUNTER"))
			CHECK(pbt__u64(te, "counter_value") == 2000000, "frequency %s",
			      pbt__str(te, "counter_value"));
	}
	CHECK(flows == 6, "%zu flows", flows);
	CHECK(strstr(d.err, "1 scheduling events of unknown kind skipped"), "stderr: %s", d.err);
	pbt__free(d.root);
}

static struct xlp_cpusched_rec cs(uint32_t cpu, uint64_t t, uint32_t kind, uint32_t arg,
				  uint32_t atid, uint32_t apid, const char *acomm, uint32_t btid,
				  uint32_t bpid, const char *bcomm)
{
	struct xlp_cpusched_rec r = {.h.cpu = cpu, .time_ns = t, .kind = kind, .arg = arg};

	r.a = (struct xlp_cpusched_task){.tid = atid, .pid = apid, .prio = 120};
	r.b = (struct xlp_cpusched_task){.tid = btid, .pid = bpid, .prio = 110};
	strncpy(r.a.comm, acomm, sizeof(r.a.comm));
	strncpy(r.b.comm, bcomm, sizeof(r.b.comm));
	return r;
}

/*
 * The CPUs' scheduling events (XLP_R_CPUSCHED) as Perfetto's ftrace: one
 * bundle per CPU, its events in time order whatever the file's order,
 * every field under its number (protoc would print an unknown one as a
 * number), comms cleaned, an unknown kind skipped and said; the process
 * tree and the kernel release; a thief record as a "CPU held by" slice.
 */
TEST(cpu_scheduling_events_as_ftrace_bundles)
{
	static const struct synth_func f[] = {{"/usr/bin/app", "on_click", true}};
	const char *trace = xt_tmp_path("cpusched.xlp");
	struct xlp_cpusched_rec r[] = {
		cs(1, 3000, XLP_CPUS_SWITCH, 0x100, 10, 10, "app", 20, 10, "worker"),
		cs(0, 1000, XLP_CPUS_SWITCH, 1, 0, 0, "swapper/0", 10, 10, "app"),
		cs(1, 2000, XLP_CPUS_WAKING, 0, 0, 0, "swapper/1", 20, 10, "worker"),
		cs(0, 1500, XLP_CPUS_NEWTASK, 0x3d0f00, 10, 10, "app", 20, 10, "app"),
		cs(0, 4000, XLP_CPUS_SWITCH, 2, 10, 10, "app", 30, 30, "bad\x1b\xff"),
		cs(0, 4500, 99, 0, 10, 10, "app", 20, 10, "worker"),
	};
	struct {
		struct xlp_thief_rec w;
		struct xlp_thief t[1];
	} th = {.w = {.h.cpu = 1,
		      .pid = 10,
		      .tid = 10,
		      .end_ns = 9000,
		      .wait_ns = 5000,
		      .here_ns = 5000,
		      .idle_ns = 1000,
		      .nthieves = 1},
		.t = {{.tid = 20, .pid = 10, .ns = 4000, .comm = "worker"}}};
	uint64_t c[XLP_NR_CTR] = {0}, last[2] = {0}, uuid = 0;
	size_t sw[2] = {0}, wk = 0, nt = 0, threads = 0, bundles = 0, slices = 0;
	struct synth *s = NULL;
	struct dec d = {0};

	REQUIRE(!synth__open(trace, XLP_FEAT_TIMELINE, 0, f, 1, &s));
	c[XLP_C_WALL] = 10000;
	REQUIRE(!synth__call(s, 0, 10, 10, 0, 500, c, NULL, 0, NULL));
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		REQUIRE(!synth__cpusched(s, &r[i]));
	REQUIRE(!synth__thief(s, &th.w));
	REQUIRE(!synth__close(s, NULL, 0));
	REQUIRE(!export_decode(trace, &d), "export or decode failed: %s", d.err);
	CHECK(strstr(d.err, "1 scheduling events of unknown kind skipped"), "stderr: %s", d.err);
	for (size_t i = 0; i < d.root->nkids; i++) {
		const struct pbt *p = &d.root->kids[i], *b = pbt__get(p, "ftrace_events");
		const struct pbt *pt = pbt__get(p, "process_tree"), *td;

		for (size_t j = 0; j < p->nkids; j++)
			CHECK(p->kids[j].key[0] < '0' || p->kids[j].key[0] > '9',
			      "packet %zu: unknown field %s", i, p->kids[j].key);
		if (pbt__get(p, "system_info"))
			CHECK(!strcmp(pbt__str(p, "system_info.utsname.release"), "6.18.0"),
			      "release %s", pbt__str(p, "system_info.utsname.release"));
		for (size_t j = 0; pt && j < pt->nkids; j++)
			if (!strcmp(pt->kids[j].key, "threads")) {
				threads++;
				CHECK(pbt__u64(&pt->kids[j], "tid") != 20 ||
					      pbt__u64(&pt->kids[j], "tgid") == 10,
				      "thread 20 in process %llu",
				      (unsigned long long)pbt__u64(&pt->kids[j], "tgid"));
			}
		td = pbt__get(p, "track_descriptor");
		if (td && pbt__str(td, "name") && !strcmp(pbt__str(td, "name"), "CPU held by"))
			uuid = pbt__u64(td, "uuid");
		if (pbt__get(p, "track_event") && pbt__u64(p, "track_event.track_uuid") == uuid &&
		    uuid && pbt__get(p, "track_event.name")) {
			slices++;
			CHECK(!strcmp(pbt__str(p, "track_event.name"), "CPU held by worker 20"),
			      "thief slice %s", pbt__str(p, "track_event.name"));
			CHECK(pbt__u64(p, "timestamp") == 4000, "the wait starts at %llu",
			      (unsigned long long)pbt__u64(p, "timestamp"));
		}
		if (!b)
			continue;
		bundles++;
		for (size_t j = 0; j < b->nkids; j++) {
			const struct pbt *e = &b->kids[j], *x;
			uint32_t cpu = (uint32_t)pbt__u64(b, "cpu");

			if (strcmp(e->key, "event") || cpu > 1)
				continue;
			CHECK(pbt__u64(e, "timestamp") >= last[cpu], "cpu %u goes back in time",
			      cpu);
			last[cpu] = pbt__u64(e, "timestamp");
			if ((x = pbt__get(e, "sched_switch"))) {
				sw[cpu]++;
				CHECK(pbt__u64(e, "pid") == pbt__u64(x, "prev_pid"),
				      "switch by %llu", (unsigned long long)pbt__u64(e, "pid"));
				if (pbt__u64(x, "next_pid") == 30)
					CHECK(!strcmp(pbt__str(x, "next_comm"), "bad??") &&
						      pbt__u64(x, "prev_state") == 2 &&
						      pbt__u64(x, "next_prio") == 110,
					      "comm %s state %llu", pbt__str(x, "next_comm"),
					      (unsigned long long)pbt__u64(x, "prev_state"));
			}
			if ((x = pbt__get(e, "sched_waking"))) {
				wk++;
				CHECK(cpu == 1 && pbt__u64(x, "pid") == 20 &&
					      pbt__u64(x, "target_cpu") == 0 &&
					      pbt__u64(e, "pid") == 0 &&
					      !strcmp(pbt__str(x, "comm"), "worker"),
				      "waking on cpu %u of %llu", cpu,
				      (unsigned long long)pbt__u64(x, "pid"));
			}
			if ((x = pbt__get(e, "task_newtask"))) {
				nt++;
				CHECK(pbt__u64(x, "pid") == 20 && pbt__u64(e, "pid") == 10 &&
					      pbt__u64(x, "clone_flags") == 0x3d0f00,
				      "newtask %llu", (unsigned long long)pbt__u64(x, "pid"));
			}
		}
	}
	CHECK(bundles == 2, "%zu bundles", bundles);
	CHECK(sw[0] == 2 && sw[1] == 1, "switches: cpu0 %zu, cpu1 %zu", sw[0], sw[1]);
	CHECK(wk == 1 && nt == 1, "%zu wakings, %zu newtasks", wk, nt);
	CHECK(threads == 3, "%zu threads in the tree (10, 20, 30; not the idle tasks)", threads);
	CHECK(slices == 1, "%zu thief slices", slices);
	pbt__free(d.root);
}

/* Names come from the file: control bytes and broken UTF-8 do not reach the output. */
TEST(names_are_cleaned_utf8)
{
	static const struct synth_func f[] = {{"/usr/bin/app", "bad\x1b[2Jname\xff", true}};
	const char *trace = xt_tmp_path("names.xlp");
	uint64_t c[XLP_NR_CTR] = {0};
	struct synth *s = NULL;
	struct dec d = {0};
	size_t seen = 0;

	REQUIRE(!synth__open(trace, 0, 0, f, 1, &s));
	c[XLP_C_WALL] = 1000;
	REQUIRE(!synth__call(s, 0, 10, 10, 0, 1000000, c, NULL, 0, NULL));
	REQUIRE(!synth__close(s, NULL, 0));
	REQUIRE(!export_decode(trace, &d), "export or decode failed: %s", d.err);
	for (size_t i = 0; i < d.root->nkids; i++) {
		const char *n = pbt__str(&d.root->kids[i], "track_event.name");

		if (n && strstr(n, "name")) {
			CHECK(!strcmp(n, "bad?[2Jname?"), "name %s", n);
			seen++;
		}
	}
	CHECK(seen == 1, "%zu named slices", seen);
	CHECK(strstr(d.err, "without --timeline"), "no warning about --timeline: %s", d.err);
	pbt__free(d.root);
}

TEST(refuses_an_empty_trace)
{
	static const struct synth_func f[] = {{"/usr/bin/app", "main", false}};
	const char *trace = xt_tmp_path("empty.xlp");
	char xl[256], err[4096];
	char *argv[] = {xl, "export", "--perfetto", (char *)trace, "-o", "/dev/null", NULL};
	struct synth *s = NULL;

	xt_out("xlprobe", xl, sizeof(xl));
	REQUIRE(!synth__open(trace, 0, 0, f, 1, &s));
	REQUIRE(!synth__close(s, NULL, 0));
	CHECK(xt_run(argv, 10000, NULL, 0, err, sizeof(err)) == 1);
	XT_CHECK_MESSAGE(err, "holds no calls, runs or scheduling events");
}

TEST_MAIN()
