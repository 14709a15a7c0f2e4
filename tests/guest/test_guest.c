/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The tests that run inside the QEMU guests of make [ARCH=arm64]
 * guest-test (kernel 6.1 with binder; tools/guest-test.sh boots them,
 * tests/guest/init.c runs this program). Everything here is linked static: the initramfs has
 * no libraries and no shell.
 *
 *   binder_*: the static xlprobe records binder_client (launch mode) while
 *     binder_service answers it through a binder device of the test's own
 *     (binderfs, or the binder module's devices); the trace and
 *     `xlprobe report --json` must show the client's waits as IPC with the
 *     service as peer, one-way transactions as no wait, and timer sleeps
 *     around binder calls as timer sleeps.
 *   schedstat_*: the per-thread scheduler accounting against the guest
 *     kernel's /proc/PID/task/TID/schedstat, as tests/root/test_record.c
 *     checks it on the host: CO-RE on another kernel; once more with the
 *     sched_switch program of kernels before 5.18, forced through the test
 *     build (xlprobe-test, XLPROBE_TEST_OLD_SWITCH).
 *
 * Paths are those of tests/lib (XLP_ROOT/.output/...): the init sets
 * XLP_ROOT=/xlp and the initramfs holds
 * /xlp/.output/{xlprobe,xlprobe-test,guest/...}.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/android/binderfs.h>
#include "json.h"
#include "testlib.h"
#include "schedstat.h"
#include "xlptest.h"

static char xl[256], client[256], service[256];

static void paths(void)
{
	xt_out("xlprobe", xl, sizeof(xl));
	xt_out("guest/binder_client", client, sizeof(client));
	xt_out("guest/binder_service", service, sizeof(service));
}

/*
 * Without binderfs (Debian's arm64 kernel builds binder as a module and no
 * binderfs) the devices are named when the module is loaded: these, one
 * per recording (see record_client's callers).
 */
#define MODULE_DEVICES "devices=slow,oneway,signal,dead"

static int load_binder_module(void)
{
	static int state; /* 1 loaded, -1 failed */
	int fd;

	if (state)
		return state > 0 ? 0 : -1;
	state = -1;
	fd = open("/lib/modules/binder_linux.ko", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "  no binderfs and no /lib/modules/binder_linux.ko: a kernel "
				"without binder\n");
		return -1;
	}
	if (syscall(SYS_finit_module, fd, MODULE_DEVICES, 0) && errno != EEXIST) {
		fprintf(stderr, "  loading binder_linux.ko: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	state = 1;
	return 0;
}

/* A binder device of our own: /dev/binderfs/NAME, or the module's /dev/NAME. */
static int new_device(const char *name, char *path, size_t len)
{
	struct binderfs_device d = {0};
	int fd = open("/dev/binderfs/binder-control", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(path, len, "/dev/%s", name);
		if (load_binder_module())
			return -1;
		if (access(path, R_OK | W_OK)) {
			fprintf(stderr, "  %s: %s (not in " MODULE_DEVICES ")\n", path,
				strerror(errno));
			return -1;
		}
		return 0;
	}
	snprintf(d.name, sizeof(d.name), "%s", name);
	if (ioctl(fd, BINDER_CTL_ADD, &d)) {
		fprintf(stderr, "  BINDER_CTL_ADD %s: %s\n", name, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	snprintf(path, len, "/dev/binderfs/%s", name);
	return 0;
}

/* One recording of binder_client against a fresh binder_service. */
struct binder_rec {
	int done, ok;
	int svc_pid;
	char trace[256];
	char client_out[512];
	struct xt_trace t;
};

static const char *const client_funcs[] = {"call_service",   "prepare_request",
					   "notify_service", "pause_briefly",
					   "backoff",	     "ask_service_to_exit"};

static int record_client(struct binder_rec *r, const char *name, char *const *args)
{
	static char err[1 << 20];
	char dev[128], spec[8][320], out[4096];
	char *argv[48] = {xl, "record", "-q", "-o", r->trace};
	struct xt_proc svc;
	const char *line;
	int n = 5, rc;

	paths();
	r->done = 1;
	snprintf(r->trace, sizeof(r->trace), "%s/%s.xlp", xt_tmpdir(), name);
	if (new_device(name, dev, sizeof(dev)))
		return -1;
	r->svc_pid = xt_spawn_ready((char *[]){service, "--device", dev, NULL}, &svc, 20000);
	if (r->svc_pid <= 0) {
		fprintf(stderr, "  binder_service did not start\n");
		return -1;
	}
	/* XLP_GUEST_VERBOSE=1 on the kernel command line (GUEST_APPEND):
	 * the verifier log of a program the guest kernel rejects */
	if (getenv("XLP_GUEST_VERBOSE"))
		argv[n++] = "-v";
	snprintf(spec[0], sizeof(spec[0]), "%s:handle_request", client);
	argv[n++] = "-i";
	argv[n++] = spec[0];
	for (size_t i = 0; i < sizeof(client_funcs) / sizeof(client_funcs[0]); i++) {
		snprintf(spec[i + 1], sizeof(spec[i + 1]), "%s:%s", client, client_funcs[i]);
		argv[n++] = "-f";
		argv[n++] = spec[i + 1];
	}
	argv[n++] = "--";
	argv[n++] = client;
	argv[n++] = "--device";
	argv[n++] = dev;
	while (*args)
		argv[n++] = *args++;
	argv[n] = NULL;
	/* a recording takes a few seconds under TCG; a hung call fails the
	 * test here, well before the QEMU timeout ends everything */
	rc = xt_run(argv, 180000, out, sizeof(out), err, sizeof(err));
	kill(svc.pid, SIGKILL);
	xt_wait(&svc, 10000, NULL, 0, NULL, 0);
	if (rc) {
		/* the end of a long verifier log is what says why */
		fprintf(stderr, "  xlprobe record exited %d: %s\n", rc,
			strlen(err) > 4000 ? err + strlen(err) - 4000 : err);
		return -1;
	}
	/* the client's summary line (xlprobe passes the command's stdout on) */
	line = strstr(out, "calls ");
	snprintf(r->client_out, sizeof(r->client_out), "%.*s", line ? (int)strcspn(line, "\n") : 0,
		 line ? line : "");
	fprintf(stderr, "  client: %s\n", r->client_out);
	if (xt_trace_load(r->trace, &r->t)) {
		fprintf(stderr, "  cannot read %s\n", r->trace);
		return -1;
	}
	r->ok = 1;
	return 0;
}

/* The client's counts, from its last line. */
static int client_count(const struct binder_rec *r, const char *what)
{
	const char *p = strstr(r->client_out, what);

	return p ? atoi(p + strlen(what) + 1) : -1;
}

/* The calls of one function, in the order they began. */
static size_t calls_of(const struct binder_rec *r, const char *fn, const struct xlp_call_rec **out,
		       size_t max)
{
	int id = xt_func_id(&r->t, fn);
	size_t n = 0;

	for (size_t i = 0; id >= 0 && i < r->t.ncalls && n < max; i++)
		if ((int)r->t.calls[i].func_id == id)
			out[n++] = &r->t.calls[i];
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && out[j]->entry_ns < out[j - 1]->entry_ns; j--) {
			const struct xlp_call_rec *tmp = out[j];

			out[j] = out[j - 1];
			out[j - 1] = tmp;
		}
	return n;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static uint64_t sleep_of(const __u64 *x)
{
	return x[XLP_C_SLEEP_S] + x[XLP_C_SLEEP_D];
}

/*
 * Thresholds here are shares of what the same call, or the same recording,
 * measured, never milliseconds: under TCG the time a call spends on the CPU
 * or waiting for one around its sleeps grows with the host's speed and
 * load (a reply after a signal: 52.9 ms of IPC in a 61.9 ms call once,
 * against a fixed 55 ms), while which of its sleeps were IPC does not.
 */

/*
 * The call waited for the service: 90 % of its sleeps at least were IPC
 * (a wait charged to another reason after a signal leaves ~1/6 of it),
 * and the sleeps were most of its own time (its wall time but for the
 * runqueue wait and steal, which a busy host stretches).
 */
static bool waited_on_ipc(const __u64 *x)
{
	uint64_t sleep = sleep_of(x), queued = x[XLP_C_CPU_WAIT] + x[XLP_C_CPU_STEAL];
	uint64_t own = x[XLP_C_WALL] > queued ? x[XLP_C_WALL] - queued : 0;

	return sleep && x[XLP_C_IPC] * 10 >= sleep * 9 && sleep * 2 >= own;
}

/* The numbers waited_on_ipc() judged, for a failure's message. */
static const char *ipc_numbers(const __u64 *x, char *buf, size_t len)
{
	snprintf(buf, len,
		 "ipc %.2f ms of %.2f ms asleep, wall %.2f ms, cpu_wait %.2f ms, cpu_run %.2f ms",
		 (double)x[XLP_C_IPC] / 1e6, (double)sleep_of(x) / 1e6, (double)x[XLP_C_WALL] / 1e6,
		 (double)x[XLP_C_CPU_WAIT] / 1e6, (double)x[XLP_C_CPU_RUN] / 1e6);
	return buf;
}

/* The median sleep of n calls (of one function, doing the same thing). */
static uint64_t median_sleep(const struct xlp_call_rec *const *c, size_t n)
{
	uint64_t v[64];

	n = n < 64 ? n : 64;
	for (size_t i = 0; i < n; i++)
		v[i] = sleep_of(c[i]->incl);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && v[j] < v[j - 1]; j--) {
			uint64_t tmp = v[j];

			v[j] = v[j - 1];
			v[j - 1] = tmp;
		}
	return n ? v[n / 2] : 0;
}

/*
 * A call whose every sleep is a timer sleep: its sleeps add up to timer
 * time alone, none of it IPC; and it slept, at least half the median
 * sleep of the calls like it in the recording (their nanosleep), so a
 * sleep the recorder cut short shows.
 */
static int only_timer(const struct xlp_call_rec *c, uint64_t median)
{
	uint64_t sleep = sleep_of(c->incl);

	return c->incl[XLP_C_IPC] == 0 && c->incl[XLP_C_TIMER] == sleep && sleep &&
	       sleep * 2 >= median;
}

/*
 * The client's pauses (pause_briefly): want of them recorded, each a
 * timer sleep only; those of run from on are said to be what.
 */
static void check_pauses(struct binder_rec *r, size_t want, size_t from, const char *what)
{
	const struct xlp_call_rec *c[64];
	size_t n = calls_of(r, "pause_briefly", c, 64);
	uint64_t med = median_sleep(c, n);

	CHECK(n == want, "%zu pauses recorded, want %zu", n, want);
	for (size_t i = 0; i < n; i++)
		CHECK(only_timer(c[i], med),
		      "pause of run %zu%s: timer %.2f ms, ipc %.2f ms (peer %u), slept %.2f ms "
		      "(median %.2f ms)",
		      i, i >= from ? what : "", ms(c[i]->incl[XLP_C_TIMER]),
		      ms(c[i]->incl[XLP_C_IPC]), c[i]->ipc_peer_pid, ms(sleep_of(c[i]->incl)),
		      ms(med));
}

static struct json *report_json(const char *trace)
{
	return xt_report_json(xl, trace, 300000);
}

/* ---- slow service: the report accuses call_service, ipc_wait, the service ---- */

static struct binder_rec slow;
static struct json *slow_report;

/* 40 runs, every 4th one the service takes 50 ms instead of 1 ms. */
static int slow_recording(void)
{
	if (!slow.done &&
	    !record_client(&slow, "slow",
			   (char *[]){"--runs", "40", "--slow-every", "4", "--slow-us", "50000",
				      "--fast-us", "1000", NULL}))
		slow_report = report_json(slow.trace);
	return slow.ok && slow_report ? 0 : -1;
}

TEST(guest_kernel_6_1_with_binder)
{
	struct utsname u;

	REQUIRE(!uname(&u));
	fprintf(stderr, "  kernel %s %s\n", u.release, u.machine);
	/* x86: linux-source-6.1 built here; arm64: Debian's 6.1 kernel */
	CHECK(!strncmp(u.release, "6.1.", 4), "guest kernel %s, not 6.1", u.release);
	CHECK(!access("/sys/kernel/btf/vmlinux", R_OK), "no BTF in the guest kernel");
	REQUIRE(!slow_recording(), "recording failed");
	CHECK(slow.t.meta->kernel && !strcmp(slow.t.meta->kernel, u.release), "trace kernel %s",
	      slow.t.meta->kernel ? slow.t.meta->kernel : "(none)");
	CHECK(slow.t.meta->features & XLP_FEAT_BINDER, "binder programs not attached: notes %s",
	      slow.t.meta->notes ? slow.t.meta->notes : "(none)");
}

TEST(binder_slow_calls_accuse_call_service)
{
	const struct xlp_call_rec *c[64];
	char num[160];
	const struct json *cf, *f = NULL;
	size_t n, nslow = 0;
	const char *fac;

	REQUIRE(!slow_recording(), "recording failed");
	CHECK(client_count(&slow, "replies") == 40, "client: %s", slow.client_out);
	/* the trace first: each call is one transaction, slow ones wait ~50 ms
	 * on IPC with the service as peer */
	n = calls_of(&slow, "call_service", c, 64);
	CHECK(n == 40, "%zu calls of call_service recorded, want 40", n);
	for (size_t i = 0; i < n; i++) {
		CHECK(c[i]->incl[XLP_C_BINDER_TXN] == 1, "call %zu: %llu transactions", i,
		      (unsigned long long)c[i]->incl[XLP_C_BINDER_TXN]);
		if (i % 4 != 3)
			continue;
		nslow++;
		CHECK(waited_on_ipc(c[i]->incl), "slow call %zu: %s", i,
		      ipc_numbers(c[i]->incl, num, sizeof(num)));
		CHECK(c[i]->ipc_peer_pid == (uint32_t)slow.svc_pid,
		      "slow call %zu: peer %u, want %d", i, c[i]->ipc_peer_pid, slow.svc_pid);
	}
	CHECK(nslow == 10);
	/* then the report */
	cf = json__key(slow_report, "critical_functions");
	CHECK(json__len(cf) == 1, "%zu critical functions, want call_service alone", json__len(cf));
	for (size_t i = 0; i < json__len(cf); i++) {
		const char *fn = json__str(json__key(json__at(cf, i), "function"));

		fprintf(stderr, "  critical: %s/%s\n", fn ? fn : "?",
			json__str(json__get(json__at(cf, i), "factors[0].factor")) ?: "-");
		if (fn && !strcmp(fn, "call_service"))
			f = json__at(cf, i);
	}
	REQUIRE(f, "call_service is not a critical function");
	fac = json__str(json__get(f, "factors[0].factor"));
	CHECK(fac && !strcmp(fac, "ipc_wait"), "factor %s, want ipc_wait", fac ? fac : "(none)");
	CHECK(json__num(json__get(f, "peer.pid")) == slow.svc_pid, "peer pid %g, want %d",
	      json__num(json__get(f, "peer.pid")), slow.svc_pid);
}

/* The peer is named by its command, as for a pipe or a socket peer. */
TEST(binder_peer_named_binder_service)
{
	const char *fn = NULL, *comm;

	REQUIRE(!slow_recording(), "recording failed");
	fn = json__str(json__get(slow_report, "critical_functions[0].function"));
	REQUIRE(fn && !strcmp(fn, "call_service"), "no critical call_service");
	comm = json__str(json__get(slow_report, "critical_functions[0].peer.comm"));
	CHECK(comm && !strcmp(comm, "binder_service"), "peer comm \"%s\", want binder_service",
	      comm ? comm : "(null)");
}

/* ---- one-way transactions are not a wait ---- */

TEST(binder_oneway_is_not_a_wait)
{
	static struct binder_rec r;
	const struct xlp_call_rec *c[64];
	char num[160];
	size_t n;

	/*
	 * The synchronous calls wait 50 ms, as the slow calls of
	 * binder_slow_calls_accuse_call_service: waited_on_ipc() wants
	 * their sleep at least half their own time, and their time on the
	 * CPU, 0.5-1 ms under TCG, reached 5-7 ms now and then in quiet
	 * runs and 25-52 ms in runs while other work shared the host's 2
	 * cores (likely: TCG reports no steal, so a preempted vCPU thread
	 * is on-CPU time for the guest). With 5 ms waits the test failed
	 * in 3 of 6 runs, with 20 ms in 2 of 9.
	 */
	REQUIRE(!record_client(&r, "oneway",
			       (char *[]){"--runs", "10", "--fast-us", "50000", "--oneway", NULL}),
		"recording failed");
	CHECK(client_count(&r, "replies") == 10, "client: %s", r.client_out);
	n = calls_of(&r, "notify_service", c, 64);
	CHECK(n == 10, "%zu one-way calls recorded, want 10", n);
	for (size_t i = 0; i < n; i++) {
		CHECK(c[i]->incl[XLP_C_IPC] == 0, "one-way %zu: ipc %.3f ms", i,
		      ms(c[i]->incl[XLP_C_IPC]));
		CHECK(c[i]->incl[XLP_C_BINDER_TXN] == 0, "one-way %zu counted as a transaction", i);
	}
	/* the synchronous calls between them still wait on the service */
	n = calls_of(&r, "call_service", c, 64);
	CHECK(n == 10, "%zu calls recorded, want 10", n);
	for (size_t i = 0; i < n; i++) {
		CHECK(waited_on_ipc(c[i]->incl), "call %zu: %s", i,
		      ipc_numbers(c[i]->incl, num, sizeof(num)));
		CHECK(c[i]->incl[XLP_C_BINDER_TXN] == 1);
	}
	/* the one-way sent just before must not turn this timer sleep into IPC */
	check_pauses(&r, 10, 0, " (after a one-way)");
	xt_trace_free(&r.t);
}

/* ---- a reply that arrives after a signal woke the caller ---- */

static struct binder_rec sig;

/* 8 calls of 60 ms, each interrupted by SIGALRM after 10 ms (the ioctl
 * fails with EINTR and the client reads again); odd ones first sleep 10 ms
 * in backoff(). */
static int signal_recording(void)
{
	if (!sig.done)
		record_client(&sig, "signal",
			      (char *[]){"--runs", "8", "--fast-us", "60000", "--interrupt-us",
					 "10000", "--backoff-us", "10000", NULL});
	return sig.ok ? 0 : -1;
}

TEST(binder_reply_after_signal_is_ipc)
{
	const struct xlp_call_rec *c[16];
	char num[160];
	size_t n;

	REQUIRE(!signal_recording(), "recording failed");
	/* without the interruption this test would test nothing */
	REQUIRE(client_count(&sig, "interrupted") == 8 && client_count(&sig, "replies") == 8,
		"the alarms did not interrupt every call: %s", sig.client_out);
	n = calls_of(&sig, "call_service", c, 16);
	REQUIRE(n == 8, "%zu calls recorded, want 8", n);
	for (size_t i = 0; i < n; i += 2) {
		/* the whole wait, before and after the signal, is the service's
		 * (what the client does between the two is on the CPU) */
		CHECK(waited_on_ipc(c[i]->incl), "call %zu: %s", i,
		      ipc_numbers(c[i]->incl, num, sizeof(num)));
		CHECK(c[i]->ipc_peer_pid == (uint32_t)sig.svc_pid, "call %zu: peer %u, want %d", i,
		      c[i]->ipc_peer_pid, sig.svc_pid);
	}
}

TEST(binder_timer_sleep_between_signal_and_reply)
{
	const struct xlp_call_rec *c[16], *bo[16];
	char num[160];
	uint64_t med;
	size_t n, nb;

	REQUIRE(!signal_recording(), "recording failed");
	REQUIRE(client_count(&sig, "interrupted") == 8, "client: %s", sig.client_out);
	n = calls_of(&sig, "call_service", c, 16);
	nb = calls_of(&sig, "backoff", bo, 16);
	REQUIRE(n == 8 && nb == 4, "%zu calls, %zu backoffs recorded, want 8 and 4", n, nb);
	med = median_sleep(bo, nb);
	for (size_t i = 0; i < nb; i++) {
		/* a nanosleep of the caller's own, between the EINTR and the
		 * read that gets the reply: a timer sleep, not the service */
		CHECK(only_timer(bo[i], med),
		      "backoff %zu: timer %.1f ms, ipc %.1f ms, slept %.1f ms (median %.1f ms)", i,
		      ms(bo[i]->incl[XLP_C_TIMER]), ms(bo[i]->incl[XLP_C_IPC]),
		      ms(sleep_of(bo[i]->incl)), ms(med));
	}
	/* the rest of the call, its own time without the backoff, waited for
	 * the service */
	for (size_t i = 1; i < n; i += 2)
		CHECK(waited_on_ipc(c[i]->excl), "call %zu, without its backoff: %s", i,
		      ipc_numbers(c[i]->excl, num, sizeof(num)));
}

/* ---- the service dies during a call: BR_DEAD_REPLY ends the wait ---- */

TEST(binder_dead_reply_ends_the_wait)
{
	static struct binder_rec r;

	REQUIRE(!record_client(&r, "dead", (char *[]){"--runs", "8", "--die-at", "3", NULL}),
		"recording failed");
	/* the exit call and the four calls after it all end in BR_DEAD_REPLY */
	REQUIRE(client_count(&r, "dead") == 5, "client: %s", r.client_out);
	check_pauses(&r, 8, 3, " (after the dead reply)");
	xt_trace_free(&r.t);
}

/* ---- the scheduler accounting against this kernel's schedstat ---- */

/* the guest is slow (TCG): longer timeouts, and its log shows the counts */
static const struct xt_schedstat_run guest = {.workload = "guest/sched_mix",
					      .ready_ms = 120000,
					      .exit_ms = 120000,
					      .settle_us = 500000,
					      .show = true};

TEST(schedstat_agrees_on_guest_kernel)
{
	xt_schedstat_agreement(&guest, false);
}

/* Kernels before 5.18 (Android GKI 5.10, 5.15): the second program, on this kernel. */
TEST(schedstat_agrees_on_guest_kernel_pre_5_18_switch_forced)
{
	xt_schedstat_agreement(&guest, true);
}

TEST_MAIN()
