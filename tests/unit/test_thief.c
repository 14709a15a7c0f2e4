/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who held the CPU (issue 36): the dataset's attribution of thief records
 * to functions and runs, their sums over chosen runs, and the clause's
 * wording, on a synthetic trace.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "xlptest.h"
#include "synth.h"
#include "dataset.h"
#include "report.h"

enum { F_RUN, F_WORK };

static const struct synth_func funcs[] = {
	{"/usr/bin/srv", "request", true},
	{"/usr/bin/srv", "work", false},
};

struct wait_buf {
	struct xlp_thief_rec r;
	struct xlp_thief t[XLP_THIEF_MAX];
};

static void thief(struct xlp_thief *t, uint32_t pid, uint32_t tid, const char *comm, uint64_t ns,
		  uint32_t flags)
{
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->ns = ns;
	t->flags = flags;
	strncpy(t->comm, comm, sizeof(t->comm) - 1);
}

/*
 * Four runs of request on pid 10 tid 10, at 10 000 * (i + 1), 1000 ns long,
 * work [+100, +900) in each. In runs 1 and 3 one wait inside work (1000
 * ns: helper, a thread of pid 10, 600; bgsave, a child, 300; the idle task
 * 50; 50 untold) and one in request outside work (kworker 200 of 200).
 */
static void write_trace(const char *path)
{
	struct synth *s;
	uint64_t c[XLP_NR_CTR] = {0};
	struct wait_buf w;
	int err = synth__open(path, XLP_FEAT_SCHED, 0, funcs, 2, &s);

	REQUIRE(!err, "synth__open: %d", err);
	err |= synth__fork(s, 20, 10, 5000, 0);
	for (uint64_t i = 0; i < 4; i++) {
		uint64_t t = 10000 * (i + 1);

		if (i % 2) {
			memset(&w, 0, sizeof(w));
			w.r.pid = w.r.tid = 10;
			w.r.end_ns = t + 500;
			w.r.wait_ns = w.r.here_ns = 1000;
			w.r.idle_ns = 50;
			w.r.unlogged_ns = 50;
			w.r.nthieves = 2;
			thief(&w.t[0], 10, 11, "helper", 600, 0);
			thief(&w.t[1], 20, 20, "bgsave", 300, 0);
			err |= synth__thief(s, &w.r);
		}
		c[XLP_C_WALL] = 800;
		err |= synth__call(s, F_WORK, 10, 10, 1, t + 100, c, NULL, 0, NULL);
		if (i % 2) {
			memset(&w, 0, sizeof(w));
			w.r.pid = w.r.tid = 10;
			w.r.end_ns = t + 950;
			w.r.wait_ns = w.r.here_ns = 200;
			w.r.nthieves = 1;
			thief(&w.t[0], 30, 30, "kworker/1:0", 200, XLP_THIEF_KTHREAD);
			err |= synth__thief(s, &w.r);
		}
		c[XLP_C_WALL] = 1000;
		err |= synth__call(s, F_RUN, 10, 10, 0, t, c, NULL, 0, NULL);
	}
	REQUIRE(!synth__finish(s, err), "synthetic trace not written");
}

static const struct dataset_thief *find(const struct dataset_thief_sum *s, const char *comm)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->t[i].comm, comm))
			return &s->t[i];
	return NULL;
}

TEST(attributed_to_function_and_run)
{
	const char *path = xt_tmp_path("thief.xlp");
	const char *paths[] = {path};
	struct dataset_opts o = {0};
	struct dataset *ds = NULL;
	struct thieves *th = NULL;
	struct dataset_thief_sum s;
	uint8_t slow[4] = {0, 1, 0, 1}, fast[4] = {1, 0, 1, 0};
	uint32_t fw = UINT32_MAX;
	char err[256];
	const struct dataset_thief *h, *b, *k;

	write_trace(path);
	REQUIRE(!dataset__load(paths, 1, &o, &ds, err, sizeof(err)), "%s", err);
	REQUIRE(dataset__nruns(ds) == 4, "%zu runs", dataset__nruns(ds));
	for (size_t g = 0; g < dataset__nfuncs(ds); g++)
		if (!strcmp(dataset__func(ds, g)->symbol, "work"))
			fw = (uint32_t)g;
	REQUIRE(fw != UINT32_MAX);
	REQUIRE(!dataset__thieves(ds, &fw, 1, &th, err, sizeof(err)), "%s", err);
	CHECK(thieves__recorded(th));
	/* work: the waits inside it only */
	REQUIRE(!thieves__sum(th, 0, slow, &s));
	CHECK(s.waits == 2 && s.wait_ns == 2000, "work: %llu waits, %.0f ns",
	      (unsigned long long)s.waits, s.wait_ns);
	h = find(&s, "helper");
	b = find(&s, "bgsave");
	CHECK(s.n == 2 && h && b && s.t == h, "work: helper first of 2");
	CHECK(h && h->ns == 1200 && h->own_process && !h->child, "helper: own thread, 1200 ns");
	CHECK(b && b->ns == 600 && b->child && !b->own_process, "bgsave: a child, 600 ns");
	CHECK(s.idle_ns == 100 && s.unknown_ns == 100, "idle %.0f, unknown %.0f", s.idle_ns,
	      s.unknown_ns);
	dataset_thief_sum__release(&s);
	/* the whole run of its thread: both waits */
	REQUIRE(!thieves__sum(th, 1, slow, &s));
	k = find(&s, "kworker/1:0");
	CHECK(s.waits == 4 && s.wait_ns == 2400, "run: %llu waits, %.0f ns",
	      (unsigned long long)s.waits, s.wait_ns);
	CHECK(k && k->ns == 400 && (k->flags & XLP_THIEF_KTHREAD), "kworker: a kernel thread");
	dataset_thief_sum__release(&s);
	/* the fast runs had none */
	REQUIRE(!thieves__sum(th, 1, fast, &s));
	CHECK(s.waits == 0 && s.n == 0);
	dataset_thief_sum__release(&s);
	thieves__free(th);
	dataset__free(ds);
}

TEST(clause_names_them)
{
	struct diagnosis_thieves t = {
		.known = true, .waits = 3, .wait_ns = 1000, .steal_ns = 100, .n = 3};
	char buf[400];

	memcpy(t.t[0].comm, "redis-rdb-bgsav", 16);
	t.t[0].pid = t.t[0].tid = 4242;
	t.t[0].child = true;
	t.t[0].share = 0.6;
	memcpy(t.t[1].comm, "V8 worker", 10);
	t.t[1].pid = 10;
	t.t[1].tid = 12;
	t.t[1].own_process = true;
	t.t[1].share = 0.2;
	memcpy(t.t[2].comm, "kworker/0:1", 12);
	t.t[2].kernel_thread = true;
	t.t[2].share = 0.01; /* too small to name */
	report__thieves(&t, buf, sizeof(buf));
	CHECK(!strcmp(buf,
		      "the CPU was taken by redis-rdb-bgsav (pid 4242, a child of the server) "
		      "60 %, its own thread V8 worker (tid 12) 20 %, the hypervisor (steal) 10 %"),
	      "%s", buf);
	t.known = false;
	CHECK(!report__thieves(&t, buf, sizeof(buf))[0], "unknown thieves are not named");
}

TEST_MAIN()
