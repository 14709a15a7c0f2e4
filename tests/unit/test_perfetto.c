// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export --perfetto on synthetic --timeline traces whose every event is
 * known (tests/lib/synth.c, synth__timeline), decoded by protoc against
 * tests/perfetto/perfetto_subset.proto: the tracks, the states named by
 * the sleep's reason, the slow run, the wakeup flows, the frequency
 * counter, and what it refuses.
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

		CHECK(pbt__u64(p, "trusted_packet_sequence_id") == 1, "packet %zu: no sequence", i);
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
