/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The wait reasons' BPF code fed what this machine cannot produce (CPU
 * frequency changes, steal, binder, missed wake-ups, block requests in
 * flight) through bpf_prog_test_run_opts: the raw_tp program
 * xlp_cpu_frequency and the SEC("syscall") program xlp_selftest, on the
 * test's own copy of the BPF object (root). Tests built on synthetic input
 * say so in their names; the real recordings are test_reasons.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "selftest.h"
#include "trace.h"
#include "xlprobe.skel.h"
#include "xlprobe_test.skel.h"
#include "testlib.h"
#include "xlptest.h"

#define MS 1000000ull
#define US 1000ull

/* ---- the BPF object, opened by the test itself ---- */

/* the product's programs plus the self-test (.output/xlprobe_test.skel.h) */
static struct xlprobe_test_bpf *skel;

static void skel_free(void)
{
	xlprobe_test_bpf__destroy(skel);
	skel = NULL;
}

/* Binder's programs stay out, absent here. */
static struct xlprobe_test_bpf *skel_get(void)
{
	static bool tried;

	if (tried)
		return skel;
	tried = true;
	skel = xlprobe_test_bpf__open();
	if (!skel)
		return NULL;
	atexit(skel_free);
	bpf_program__set_autoload(skel->progs.xlp_binder_txn, false);
	bpf_program__set_autoload(skel->progs.xlp_binder_recv, false);
	bpf_program__set_autoload(skel->progs.xlp_binder_return, false);
	if (xlprobe_test_bpf__load(skel)) {
		skel_free();
		return NULL;
	}
	return skel;
}

/* Runs one xlp_selftest op; the program writes its answer back into a. */
static int st(struct xlp_selftest *a)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = a, .ctx_size_in = sizeof(*a));
	int err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.xlp_selftest), &o);

	if (err)
		return err;
	return (int)o.retval;
}

static int st_op(uint32_t op, uint32_t tid, uint32_t cpu, uint64_t now, int64_t arg, uint64_t arg2,
		 uint64_t arg3, uint64_t *out)
{
	struct xlp_selftest a = {.op = op, .tid = tid, .cpu = cpu, .now = now};
	int ret;

	/* the operation's arguments */
	a.arg = arg;
	a.arg2 = arg2;
	a.arg3 = arg3;
	ret = st(&a);
	if (out)
		*out = a.out;
	return ret;
}

/* A fake thread (no such tid is ever traced here), in the given state since ts. */
static int thread_put(uint32_t tid, uint32_t state, uint64_t ts, uint32_t cpu, uint64_t freq_at_in)
{
	static struct xlp_thread th;

	memset(&th, 0, sizeof(th));
	th.pid = th.tid = tid;
	th.acct.state = state;
	th.proc_slot = 0;
	th.acct.ts = ts;
	th.first_ns = ts;
	th.acct.last_cpu = cpu;
	th.acct.freq_at_in = freq_at_in;
	return bpf_map_update_elem(bpf_map__fd(skel->maps.st_threads), &tid, &th, BPF_ANY);
}

static int thread_get(uint32_t tid, struct xlp_thread *th)
{
	return bpf_map_lookup_elem(bpf_map__fd(skel->maps.st_threads), &tid, th);
}

/* ---- a real recording's metadata (frequency and binder availability) ---- */

static struct {
	int state;
	struct xt_trace t;
	char err[2048];
} small;

static const struct xt_trace *small_recording(void)
{
	char xl[256], wl[256], spec[320];
	const char *trace = xt_tmp_path("small.xlp");
	char *argv[] = {xl,   "record", "-q",	  "-o",		(char *)trace,	"-f", spec,
			"--", wl,	"--only", "timer_wait", "--iterations", "1",  NULL};
	int rc;

	if (small.state)
		return small.state > 0 ? &small.t : NULL;
	small.state = -1;
	xt_out("xlprobe", xl, sizeof(xl));
	xt_out("tests/workloads/reasons", wl, sizeof(wl));
	snprintf(spec, sizeof(spec), "%s:timer_wait", wl);
	rc = xt_run(argv, 30000, NULL, 0, small.err, sizeof(small.err));
	if (rc || xt_trace_load(trace, &small.t))
		return NULL;
	small.state = 1;
	return &small.t;
}

static bool kernel_has_tp(const char *tp)
{
	struct btf *btf = btf__load_vmlinux_btf();
	char name[96];
	bool found;

	if (!btf)
		return false;
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	found = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) >= 0;
	btf__free(btf);
	return found;
}

/* The thread's on-CPU time and its integral of the CPU's frequency (kHz x ns) so far. */
static void check_run_freq(const struct xlp_thread *th, uint64_t run_ns, uint64_t khz_ns)
{
	CHECK(th->acct.c[XLP_C_CPU_RUN] == run_ns, "on-CPU %llu",
	      (unsigned long long)th->acct.c[XLP_C_CPU_RUN]);
	CHECK(th->acct.c[XLP_C_FREQ_KHZ_NS] == khz_ns, "FREQ_KHZ_NS %llu, expected %llu",
	      (unsigned long long)th->acct.c[XLP_C_FREQ_KHZ_NS], (unsigned long long)khz_ns);
}

/*
 * Frequency accounting with synthetic changes (this VM has no cpufreq
 * driver): the real raw_tp program run by bpf_prog_test_run_opts, the
 * kHz x ns integral through xlp_selftest, a fake thread's FREQ_KHZ_NS
 * across a change; and a real recording that says frequency is unknown.
 */
TEST(cpu_frequency_accounting_via_prog_test_run_synthetic)
{
	const uint32_t fcpu = 1, icpu = 7, tcpu = 9, tid = 4000001;
	__u64 args[2] = {1200000, fcpu}; /* (state = kHz, cpu_id) */
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = sizeof(args));
	int ffd, freq_fd, err;
	struct xlp_cpufreq f1 = {}, f2 = {};
	static struct xlp_thread th;
	const struct xt_trace *t;
	uint64_t t0, t1, out = 0, base = tl_now_ns();
	bool cpufreq_here;

	REQUIRE(skel_get(), "cannot open and load the BPF object: %s", strerror(errno));
	freq_fd = bpf_map__fd(skel->maps.cpu_freq);

	/* (a) the tracepoint program itself, as power/cpu_frequency would run it */
	ffd = bpf_program__fd(skel->progs.xlp_cpu_frequency);
	t0 = tl_now_ns();
	err = bpf_prog_test_run_opts(ffd, &o);
	t1 = tl_now_ns();
	REQUIRE(!err, "test run of xlp_cpu_frequency: %s", strerror(-err));
	CHECK(!bpf_map_lookup_elem(freq_fd, &fcpu, &f1));
	CHECK(f1.khz == 1200000, "cpu_freq[%u].khz = %llu", fcpu, (unsigned long long)f1.khz);
	CHECK(f1.since >= t0 && f1.since <= t1, "change time %llu not in [%llu, %llu]",
	      (unsigned long long)f1.since, (unsigned long long)t0, (unsigned long long)t1);
	CHECK(f1.integral == 0, "no frequency known before: integral %llu",
	      (unsigned long long)f1.integral);
	usleep(2000);
	args[0] = 2400000;
	err = bpf_prog_test_run_opts(ffd, &o);
	CHECK(!err);
	CHECK(!bpf_map_lookup_elem(freq_fd, &fcpu, &f2));
	CHECK(f2.khz == 2400000, "cpu_freq[%u].khz = %llu", fcpu, (unsigned long long)f2.khz);
	CHECK(f2.since > f1.since && f2.integral == 1200000 * (f2.since - f1.since),
	      "integral %llu after %llu ns at 1.2 GHz", (unsigned long long)f2.integral,
	      (unsigned long long)(f2.since - f1.since));

	/* (b) the integral: 1 GHz for 1 ms then 2 GHz for 3 ms = 7e12 kHz*ns */
	CHECK(!st_op(XLP_ST_FREQ_SET, 0, icpu, base, 1000000, 0, 0, NULL));
	CHECK(!st_op(XLP_ST_FREQ_SET, 0, icpu, base + 1 * MS, 2000000, 0, 0, NULL));
	CHECK(!st_op(XLP_ST_FREQ_INTEGRAL, 0, icpu, base + 4 * MS, 0, 0, 0, &out));
	CHECK(out == 7000000000000ull, "integral %llu, expected 7e12", (unsigned long long)out);

	/*
	 * A thread running on tcpu from base at 1 GHz; 2 GHz from +2 ms; off
	 * the CPU at +5 ms: 1e6*2e6 + 2e6*3e6 = 8e12 over 5 ms, 1.6 GHz. Then
	 * back on at +7 ms (still 2 GHz), 1 GHz from +8 ms, off at +10 ms:
	 * 2e6*1e6 + 1e6*2e6 = 4e12 more over 3 ms.
	 */
	CHECK(!st_op(XLP_ST_FREQ_SET, 0, tcpu, base, 1000000, 0, 0, NULL));
	REQUIRE(!thread_put(tid, XLP_T_RUNNING, base, tcpu, 0), "cannot insert thread");
	CHECK(!st_op(XLP_ST_FREQ_SET, 0, tcpu, base + 2 * MS, 2000000, 0, 0, NULL));
	CHECK(!st_op(XLP_ST_SWITCH_OUT, tid, tcpu, base + 5 * MS, XLP_T_SLEEP_S, 0, 0, NULL));
	REQUIRE(!thread_get(tid, &th));
	check_run_freq(&th, 5 * MS, 8000000000000ull);
	CHECK(th.acct.c[XLP_C_CPU_RUN] &&
		      th.acct.c[XLP_C_FREQ_KHZ_NS] / th.acct.c[XLP_C_CPU_RUN] == 1600000,
	      "average %llu kHz, expected 1600000",
	      th.acct.c[XLP_C_CPU_RUN] ? (unsigned long long)(th.acct.c[XLP_C_FREQ_KHZ_NS] /
							      th.acct.c[XLP_C_CPU_RUN])
				       : 0ull);
	CHECK(!st_op(XLP_ST_WAKE, tid, tcpu, base + 6 * MS, XLP_W_TIMER, 0, 0, NULL));
	CHECK(!st_op(XLP_ST_SWITCH_IN, tid, tcpu, base + 7 * MS, 0, 0, 0, NULL));
	CHECK(!st_op(XLP_ST_FREQ_SET, 0, tcpu, base + 8 * MS, 1000000, 0, 0, NULL));
	CHECK(!st_op(XLP_ST_SWITCH_OUT, tid, tcpu, base + 10 * MS, XLP_T_SLEEP_S, 0, 0, NULL));
	REQUIRE(!thread_get(tid, &th));
	check_run_freq(&th, 8 * MS, 12000000000000ull);
	/* the 1 ms asleep (woken by a timer) and 1 ms runnable in between */
	CHECK(th.acct.c[XLP_C_SLEEP_S] == MS && th.acct.c[XLP_C_TIMER] == MS &&
		      th.acct.c[XLP_C_CPU_WAIT] == MS,
	      "sleep %llu timer %llu runqueue %llu", (unsigned long long)th.acct.c[XLP_C_SLEEP_S],
	      (unsigned long long)th.acct.c[XLP_C_TIMER],
	      (unsigned long long)th.acct.c[XLP_C_CPU_WAIT]);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.st_threads), &tid);

	/* a real recording on this machine knows whether frequency is real */
	t = small_recording();
	REQUIRE(t, "recording failed: %s", small.err);
	cpufreq_here = !access("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", R_OK);
	if (cpufreq_here) {
		CHECK(t->meta->features & XLP_FEAT_CPUFREQ, "cpufreq driver present, feature off");
	} else {
		CHECK(!(t->meta->features & XLP_FEAT_CPUFREQ), "no cpufreq driver, feature on");
		CHECK(t->meta->notes && strstr(t->meta->notes, "CPU frequency: unavailable"),
		      "notes: \"%s\"", t->meta->notes ? t->meta->notes : "(null)");
	}
}

/* A uprobe's snapshot of a fake running thread: its cpu_run and cpu_steal. */
static int st_snap(uint32_t tid, uint32_t cpu, uint64_t now, uint64_t *run, uint64_t *steal)
{
	struct xlp_selftest a = {.op = XLP_ST_SNAPSHOT, .tid = tid, .cpu = cpu, .now = now};
	int ret = st(&a);

	*run = a.out;
	*steal = a.out2;
	return ret;
}

/* The fake thread's cpu_run and cpu_steal totals are run and steal ns. */
static void steal_totals(uint32_t tid, uint64_t run, uint64_t steal, const char *when)
{
	static struct xlp_thread th;

	REQUIRE(!thread_get(tid, &th));
	CHECK(th.acct.c[XLP_C_CPU_RUN] == run && th.acct.c[XLP_C_CPU_STEAL] == steal,
	      "%s: run %llu steal %llu, expected %llu and %llu", when,
	      (unsigned long long)th.acct.c[XLP_C_CPU_RUN],
	      (unsigned long long)th.acct.c[XLP_C_CPU_STEAL], (unsigned long long)run,
	      (unsigned long long)steal);
}

/*
 * Time on a CPU that the CPU did not run the thread (this VM's hypervisor
 * steals a tick now and then, never on cue): the steal clock read at
 * switches, one folded late (snapshots never go back), and at a switch-out
 * where the kernel's figure already excludes it.
 */
TEST(cpu_steal_split_from_run_synthetic_hypervisor)
{
	const uint32_t cpu = 11, tid = 4000002;
	const uint64_t base = tl_now_ns(), clk0 = 1000000000ull;
	uint64_t run = 0, steal = 0;

	REQUIRE(skel_get(), "cannot open and load the BPF object: %s", strerror(errno));
	REQUIRE(!st_op(XLP_ST_STEAL_SET, 0, cpu, 0, (int64_t)clk0, 0, 0, NULL));
	REQUIRE(!thread_put(tid, XLP_T_RUNNABLE, base - MS, cpu, 0), "cannot insert thread");

	/* 8 ms on the CPU, 3 of them stolen, folded in between two snapshots */
	CHECK(!st_op(XLP_ST_SWITCH_IN, tid, cpu, base, 0, 0, 0, NULL));
	CHECK(!st_snap(tid, cpu, base + 2 * MS, &run, &steal));
	CHECK(run == 2 * MS && steal == 0, "at +2 ms: run %llu steal %llu", (unsigned long long)run,
	      (unsigned long long)steal);
	CHECK(!st_op(XLP_ST_STEAL_SET, 0, cpu, 0, (int64_t)(clk0 + 3 * MS), 0, 0, NULL));
	CHECK(!st_snap(tid, cpu, base + 6 * MS, &run, &steal));
	CHECK(run == 3 * MS && steal == 3 * MS, "at +6 ms: run %llu steal %llu",
	      (unsigned long long)run, (unsigned long long)steal);
	CHECK(!st_op(XLP_ST_SWITCH_OUT, tid, cpu, base + 8 * MS, XLP_T_SLEEP_S, 0, 0, NULL));
	steal_totals(tid, 5 * MS, 3 * MS, "first slice");

	/*
	 * 5 ms stolen, folded only after a snapshot at +5.1 ms had shown all
	 * of it as run: later snapshots show no less run, and the steal comes
	 * from what follows (1 ms by +6.1 ms, 2.9 of the 5 by the switch-out).
	 */
	CHECK(!st_op(XLP_ST_SWITCH_IN, tid, cpu, base + 10 * MS, 0, 0, 0, NULL));
	CHECK(!st_snap(tid, cpu, base + 15 * MS + 100000, &run, &steal));
	CHECK(run == 5 * MS + 5 * MS + 100000 && steal == 3 * MS, "at +5.1 ms: run %llu steal %llu",
	      (unsigned long long)run, (unsigned long long)steal);
	CHECK(!st_op(XLP_ST_STEAL_SET, 0, cpu, 0, (int64_t)(clk0 + 8 * MS), 0, 0, NULL));
	CHECK(!st_snap(tid, cpu, base + 16 * MS + 100000, &run, &steal));
	CHECK(run == 5 * MS + 5 * MS + 100000 && steal == 4 * MS, "at +6.1 ms: run %llu steal %llu",
	      (unsigned long long)run, (unsigned long long)steal);
	CHECK(!st_op(XLP_ST_SWITCH_OUT, tid, cpu, base + 18 * MS, XLP_T_SLEEP_S, 0, 0, NULL));
	steal_totals(tid, 10 * MS + 100000, 5 * MS + 900000, "second slice");

	/*
	 * At a real switch-out the run is the kernel's own figure, which
	 * excludes the steal clock's part: 20 ms on the CPU, 4 stolen, 15.9
	 * of the thread's own by the kernel (interrupt time is no one's).
	 */
	CHECK(!st_op(XLP_ST_SWITCH_IN, tid, cpu, base + 20 * MS, 0, 0, 0, NULL));
	CHECK(!st_op(XLP_ST_STEAL_SET, 0, cpu, 0, (int64_t)(clk0 + 12 * MS), 0, 0, NULL));
	CHECK(!st_op(XLP_ST_SWITCH_OUT, tid, cpu, base + 40 * MS, XLP_T_SLEEP_S, 0,
		     15 * MS + 900000 + 1, NULL));
	steal_totals(tid, 26 * MS, 9 * MS + 900000, "third slice");
	bpf_map_delete_elem(bpf_map__fd(skel->maps.st_threads), &tid);
}

/*
 * The binder programs exist in the product's object (the skeleton's fields
 * say so at compile time; their sections here); on a kernel without binder
 * they are skipped. The self-test program is not in the product's object.
 */
TEST(binder_programs_built_and_skipped_without_binder)
{
	struct xlprobe_bpf *s = xlprobe_bpf__open();
	const struct xt_trace *t;

	REQUIRE(s, "cannot open the BPF object");
	CHECK(!strcmp(bpf_program__section_name(s->progs.xlp_binder_txn),
		      "raw_tp/binder_transaction"),
	      "xlp_binder_txn: section %s", bpf_program__section_name(s->progs.xlp_binder_txn));
	CHECK(!strcmp(bpf_program__section_name(s->progs.xlp_binder_recv),
		      "raw_tp/binder_transaction_received"),
	      "xlp_binder_recv: section %s", bpf_program__section_name(s->progs.xlp_binder_recv));
	CHECK(!strcmp(bpf_program__section_name(s->progs.xlp_binder_return),
		      "raw_tp/binder_return"),
	      "xlp_binder_return: section %s",
	      bpf_program__section_name(s->progs.xlp_binder_return));
	CHECK(!bpf_object__find_program_by_name(s->obj, "xlp_selftest"),
	      "the self-test program is in the product's object");
	xlprobe_bpf__destroy(s);

	t = small_recording();
	REQUIRE(t, "recording failed: %s", small.err);
	if (kernel_has_tp("binder_transaction")) {
		CHECK(t->meta->features & XLP_FEAT_BINDER, "kernel has binder, feature off");
		return;
	}
	CHECK(!(t->meta->features & XLP_FEAT_BINDER), "no binder in this kernel, feature on");
	CHECK(t->meta->notes && strstr(t->meta->notes, "binder: tracepoints absent"),
	      "notes: \"%s\"", t->meta->notes ? t->meta->notes : "(null)");
}

/*
 * One blocking syscall of a fake thread, driven through xlp_selftest: it
 * enters syscall nr with class cls at base, blocks at +1 ms, is woken by
 * (waker, wpid) at +11 ms, runs at +12 ms and returns. Before the
 * block, between() may act on the thread (send a binder transaction...).
 */
struct sys_script {
	long nr;
	uint64_t cls;
	uint32_t waker, wpid;
	void (*between)(uint32_t tid, uint64_t now);
	void (*after_wake)(uint32_t tid, uint64_t now);
};

static int run_script(uint32_t tid, const struct sys_script *s, struct xlp_thread *th)
{
	uint64_t base = tl_now_ns();
	int bad = 0;

	if (thread_put(tid, XLP_T_RUNNING, base, 0, 0))
		return -1;
	bad |= st_op(XLP_ST_SYS_ENTER, tid, 0, base, s->nr, s->cls, 0, NULL);
	if (s->between)
		s->between(tid, base);
	bad |= st_op(XLP_ST_SWITCH_OUT, tid, 0, base + 1 * MS, XLP_T_SLEEP_S, 0, 0, NULL);
	bad |= st_op(XLP_ST_WAKE, tid, 0, base + 11 * MS, s->waker, s->wpid, 0, NULL);
	bad |= st_op(XLP_ST_SWITCH_IN, tid, 0, base + 12 * MS, 0, 0, 0, NULL);
	if (s->after_wake)
		s->after_wake(tid, base + 12 * MS);
	bad |= st_op(XLP_ST_SYS_EXIT, tid, 0, base + 12 * MS + 500, 0, 0, 0, NULL);
	if (bad || thread_get(tid, th))
		return -1;
	bpf_map_delete_elem(bpf_map__fd(skel->maps.st_threads), &tid);
	return 0;
}

static void send_txn(uint32_t tid, uint64_t now)
{
	CHECK(!st_op(XLP_ST_BINDER_TXN, tid, 0, now, 0, 0, 4242, NULL));
}

static void send_oneway(uint32_t tid, uint64_t now)
{
	CHECK(!st_op(XLP_ST_BINDER_TXN, tid, 0, now, 0, 0x01 /* TF_ONE_WAY */, 4242, NULL));
	/* a reply is not a wait either */
	CHECK(!st_op(XLP_ST_BINDER_TXN, tid, 0, now, 1, 0, 4242, NULL));
}

static void recv_txn(uint32_t tid, uint64_t now)
{
	CHECK(!st_op(XLP_ST_BINDER_RECV, tid, 0, now, 0, 0, 0, NULL));
}

static void check_only(const struct xlp_thread *th, int reason, const char *what)
{
	CHECK(th->acct.c[XLP_C_SLEEP_S] == 10 * MS, "%s: sleep %llu", what,
	      (unsigned long long)th->acct.c[XLP_C_SLEEP_S]);
	CHECK(th->acct.c[reason] == 10 * MS, "%s: %s %llu, want 10 ms:%s", what,
	      xlp_ctr_names[reason], (unsigned long long)th->acct.c[reason],
	      xt_fmt_reasons(th->acct.c));
	CHECK(xt_reasons_sum(th->acct.c) == xt_sleep_of(th->acct.c), "%s: reasons do not add up",
	      what);
	CHECK(th->sys.nr1 == 0, "%s: syscall left open", what);
}

/* The BPF object loaded, run_script, then check_only of its reason; false when either failed. */
static bool script_only(uint32_t tid, const struct sys_script *sc, struct xlp_thread *th,
			uint32_t reason, const char *what)
{
	if (!skel_get()) {
		CHECK(0, "cannot open and load the BPF object: %s", strerror(errno));
		return false;
	}
	if (run_script(tid, sc, th))
		return false;
	check_only(th, reason, what);
	return true;
}

/*
 * A synchronous binder transaction's wait is IPC with the target as peer,
 * whatever woke the thread (a kthread here); a one-way one is not a wait.
 */
TEST(binder_logic_synthetic)
{
	/* ioctl's number does not matter: the class is given, "unknown" */
	struct sys_script sync = {.nr = 16,
				  .cls = XLP_SC_WAKER,
				  .waker = XLP_W_KTHREAD,
				  .between = send_txn,
				  .after_wake = recv_txn};
	/* a one-way sender gets no reply: nothing is received in its ioctl */
	struct sys_script oneway = {
		.nr = 16, .cls = XLP_SC_WAKER, .waker = XLP_W_KTHREAD, .between = send_oneway};
	static struct xlp_thread th;

	REQUIRE(script_only(4000010, &sync, &th, XLP_C_IPC, "binder call"),
		"self-test program failed");
	CHECK(th.ipc.peer_pid == 4242, "binder peer %u", th.ipc.peer_pid);
	CHECK(th.acct.c[XLP_C_BINDER_TXN] == 1, "transactions %llu",
	      (unsigned long long)th.acct.c[XLP_C_BINDER_TXN]);
	CHECK(th.ipc.binder_wait == 0, "binder wait still open after the ioctl returned");

	/* nothing but a kthread's wakeup: the waker rule says "other" */
	REQUIRE(script_only(4000011, &oneway, &th, XLP_C_OTHER, "one-way binder"),
		"self-test program failed");
	CHECK(th.ipc.peer_pid == 0, "one-way: peer %u", th.ipc.peer_pid);
	CHECK(th.acct.c[XLP_C_BINDER_TXN] == 0, "one-way/reply counted as %llu transaction(s)",
	      (unsigned long long)th.acct.c[XLP_C_BINDER_TXN]);
}

static void dead_reply(uint32_t tid, uint64_t now)
{
	send_txn(tid, now);
	/* BR_DEAD_REPLY: the target died; no transaction will be received */
	CHECK(!st_op(XLP_ST_BINDER_RETURN, tid, 0, now, 0x7205, 0, 0, NULL));
}

/*
 * The transaction's wait is its ioctl's: a nanosleep while it is open (a
 * signal handler's) is a timer sleep; and a dead or failed reply closes
 * it, so later sleeps are not IPC.
 */
TEST(binder_wait_only_in_its_ioctl_and_ended_by_dead_reply_synthetic)
{
	/* nanosleep woken by its timer */
	struct sys_script nap = {
		.nr = SYS_nanosleep, .cls = XLP_C_TIMER, .waker = XLP_W_TIMER, .between = send_txn};
	struct sys_script after_dead = {
		.nr = 16, .cls = XLP_SC_WAKER, .waker = XLP_W_KTHREAD, .between = dead_reply};
	static struct xlp_thread th;

	REQUIRE(script_only(4000012, &nap, &th, XLP_C_TIMER, "nanosleep during a transaction"),
		"self-test program failed");
	CHECK(th.ipc.binder_wait == 1, "the transaction is still open");
	REQUIRE(script_only(4000013, &after_dead, &th, XLP_C_OTHER, "ioctl after a dead reply"),
		"self-test program failed");
	CHECK(th.ipc.binder_wait == 0, "a dead reply left the wait open");
}

/* A futex woken by our own process is a lock; by another process, IPC. */
TEST(futex_lock_or_ipc_by_waker_synthetic)
{
	struct sys_script same = {.nr = 202,
				  .cls = XLP_SC_FUTEX,
				  .waker = XLP_W_SAME_PROC,
				  .wpid = (uint32_t)getpid()};
	struct sys_script other = same;
	static struct xlp_thread th;

	REQUIRE(script_only(4000020, &same, &th, XLP_C_LOCK, "futex, same process"),
		"self-test program failed");
	CHECK(th.ipc.peer_pid == 0, "a lock has no IPC peer: %u", th.ipc.peer_pid);
	other.waker = XLP_W_OTHER_PROC;
	other.wpid = 777;
	REQUIRE(script_only(4000021, &other, &th, XLP_C_IPC, "futex, other process"),
		"self-test program failed");
	CHECK(th.ipc.peer_pid == 777, "futex peer %u", th.ipc.peer_pid);
}

/*
 * A poll-like syscall woken by an expiring timer timed out: timer, whatever
 * its fds are (here a pipe, which alone would say IPC). Woken by the other
 * end of the pipe, it is IPC. (Syscall 7 is poll on x86-64; elsewhere the
 * fd class decides both, and the first case is skipped.)
 */
TEST(poll_timeout_is_timer_synthetic)
{
	struct sys_script tmo = {.nr = 7, .cls = XLP_C_IPC, .waker = XLP_W_TIMER};
	struct sys_script ready = {
		.nr = 7, .cls = XLP_C_IPC, .waker = XLP_W_OTHER_PROC, .wpid = 777};
	static struct xlp_thread th;

	REQUIRE(skel_get(), "cannot open and load the BPF object: %s", strerror(errno));
#if defined(__x86_64__)
	REQUIRE(script_only(4000030, &tmo, &th, XLP_C_TIMER, "poll woken by its timeout"),
		"self-test program failed");
#endif
	REQUIRE(script_only(4000031, &ready, &th, XLP_C_IPC, "poll woken by its peer"),
		"self-test program failed");
	CHECK(th.ipc.peer_pid == 777, "poll peer %u", th.ipc.peer_pid);
}

/*
 * The scheduler events of a sleep can go missing (sched_missed counts
 * them). When a thread's own uprobe then finds it asleep, its wakeup and
 * its switch-in were both missed: of the span since it blocked, the
 * kernel's figures give the on-CPU part (the larger of exec's and the time
 * since its switch-in) and the runqueue part; the rest is the sleep, with
 * the reason its syscall gives. It was charged as on-CPU time before (a
 * 50 ms nanosleep measured as 50 ms of cpu_run). Found runnable (only the
 * switch-in missed), the rest is on-CPU time whose exec lags.
 */
TEST(missed_wakeup_and_switch_in_recovered_as_sleep_synthetic)
{
	static struct xlp_thread th;
	uint32_t tid = 4000040;
	uint64_t base = tl_now_ns(), run, total;

	REQUIRE(skel_get(), "cannot open and load the BPF object: %s", strerror(errno));
	REQUIRE(!thread_put(tid, XLP_T_RUNNING, base, 0, 0));
	CHECK(!st_op(XLP_ST_SYS_ENTER, tid, 0, base, SYS_nanosleep, XLP_C_TIMER, 0, NULL));
	CHECK(!st_op(XLP_ST_SWITCH_OUT, tid, 0, base + 1 * MS, XLP_T_SLEEP_S, 0, 0, NULL));
	/* woken and switched in unseen; the uprobe at +52 ms: 200 us of exec,
	 * 1 ms on the runqueue, 300 us since its switch-in by the rq clock */
	CHECK(!st_op(XLP_ST_UPROBE_SYNC, tid, 0, base + 52 * MS, 200 * US, 1 * MS, 300 * US, NULL));
	REQUIRE(!thread_get(tid, &th));
	run = th.acct.c[XLP_C_CPU_RUN];
	total = run + th.acct.c[XLP_C_CPU_WAIT] + xt_sleep_of(th.acct.c);
	CHECK(run == 1 * MS + 300 * US, "cpu_run %llu, want 1.3 ms", (unsigned long long)run);
	CHECK(th.acct.c[XLP_C_CPU_WAIT] == 1 * MS, "cpu_wait %llu",
	      (unsigned long long)th.acct.c[XLP_C_CPU_WAIT]);
	CHECK(th.acct.c[XLP_C_SLEEP_S] == 49700 * US, "sleep_s %llu, want 49.7 ms",
	      (unsigned long long)th.acct.c[XLP_C_SLEEP_S]);
	CHECK(th.acct.c[XLP_C_TIMER] == th.acct.c[XLP_C_SLEEP_S], "timer %llu:%s",
	      (unsigned long long)th.acct.c[XLP_C_TIMER], xt_fmt_reasons(th.acct.c));
	CHECK(total == 52 * MS, "states add up to %llu of 52 ms", (unsigned long long)total);
	CHECK(th.sys.nr1 == 0, "syscall left open");
	CHECK(th.acct.state == XLP_T_RUNNING, "state %u", th.acct.state);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.st_threads), &tid);

	/* the wakeup seen, the switch-in not: the time after the queue ran */
	REQUIRE(!thread_put(tid, XLP_T_RUNNING, base, 0, 0));
	CHECK(!st_op(XLP_ST_SYS_ENTER, tid, 0, base, SYS_nanosleep, XLP_C_TIMER, 0, NULL));
	CHECK(!st_op(XLP_ST_SWITCH_OUT, tid, 0, base + 1 * MS, XLP_T_SLEEP_S, 0, 0, NULL));
	CHECK(!st_op(XLP_ST_WAKE, tid, 0, base + 50 * MS, XLP_W_TIMER, 0, 0, NULL));
	CHECK(!st_op(XLP_ST_UPROBE_SYNC, tid, 0, base + 52 * MS, 200 * US, 1 * MS, 300 * US, NULL));
	REQUIRE(!thread_get(tid, &th));
	CHECK(th.acct.c[XLP_C_TIMER] == 49 * MS && th.acct.c[XLP_C_SLEEP_S] == 49 * MS,
	      "sleep %llu:%s", (unsigned long long)th.acct.c[XLP_C_SLEEP_S],
	      xt_fmt_reasons(th.acct.c));
	CHECK(th.acct.c[XLP_C_CPU_WAIT] == 1 * MS, "cpu_wait %llu",
	      (unsigned long long)th.acct.c[XLP_C_CPU_WAIT]);
	CHECK(th.acct.c[XLP_C_CPU_RUN] == 2 * MS, "cpu_run %llu, want 2 ms",
	      (unsigned long long)th.acct.c[XLP_C_CPU_RUN]);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.st_threads), &tid);
}

/*
 * The thread's own block requests during a sleep: what block_rq_issue and
 * block_rq_complete (bpf/block.bpf.c) leave in the blk map for its tid,
 * set from here (the programs cannot be run on cue). pending: the bit
 * that says the tid has issued requests.
 */
static int blk_put(uint32_t tid, int64_t inflight, uint64_t done)
{
	struct xlp_blk b = {.inflight = inflight, .rq = inflight + done, .done = done};
	uint32_t word = tid >> 6;
	uint64_t bits = 0;
	int fd = bpf_map__fd(skel->maps.blk_pending);

	if (bpf_map_lookup_elem(fd, &word, &bits))
		return -1;
	bits |= 1ull << (tid & 63);
	if (bpf_map_update_elem(fd, &word, &bits, BPF_ANY))
		return -1;
	return bpf_map_update_elem(bpf_map__fd(skel->maps.blk), &tid, &b, BPF_ANY);
}

static void blk_del(uint32_t tid)
{
	bpf_map_delete_elem(bpf_map__fd(skel->maps.blk), &tid);
}

/*
 * One sleep in syscall nr (class cls) of a fake thread: blocks at +1 ms
 * with its requests as (inflight0, done0), which become (inflight1,
 * done1) by the wakeup at +11 ms by waker; the sleep's reason.
 */
struct io_case {
	const char *what;
	long nr;
	uint64_t cls;
	bool has_blk;
	int64_t inflight0;
	uint64_t done0;
	int64_t inflight1;
	uint64_t done1;
	uint32_t waker;
	int want;
};

static void io_case_run(uint32_t tid, const struct io_case *c)
{
	static struct xlp_thread th;
	uint64_t base = tl_now_ns();
	int bad = 0;

	blk_del(tid);
	REQUIRE(!thread_put(tid, XLP_T_RUNNING, base, 0, 0));
	if (c->has_blk)
		REQUIRE(!blk_put(tid, c->inflight0, c->done0), "cannot set the blk map");
	bad |= st_op(XLP_ST_SYS_ENTER, tid, 0, base, c->nr, c->cls, 0, NULL);
	bad |= st_op(XLP_ST_SWITCH_OUT, tid, 0, base + 1 * MS, XLP_T_SLEEP_D, 0, 0, NULL);
	if (c->has_blk)
		REQUIRE(!blk_put(tid, c->inflight1, c->done1), "cannot set the blk map");
	bad |= st_op(XLP_ST_WAKE, tid, 0, base + 11 * MS, c->waker, 0, 0, NULL);
	bad |= st_op(XLP_ST_SWITCH_IN, tid, 0, base + 12 * MS, 0, 0, 0, NULL);
	bad |= st_op(XLP_ST_SYS_EXIT, tid, 0, base + 12 * MS + 500, 0, 0, 0, NULL);
	REQUIRE(!bad && !thread_get(tid, &th), "self-test program failed");
	CHECK(th.acct.c[XLP_C_SLEEP_D] == 10 * MS, "%s: sleep %llu", c->what,
	      (unsigned long long)th.acct.c[XLP_C_SLEEP_D]);
	CHECK(th.acct.c[c->want] == 10 * MS, "%s: %s %llu, want 10 ms:%s", c->what,
	      xlp_ctr_names[c->want], (unsigned long long)th.acct.c[c->want],
	      xt_fmt_reasons(th.acct.c));
	CHECK(xt_reasons_sum(th.acct.c) == xt_sleep_of(th.acct.c), "%s: reasons do not add up",
	      c->what);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.st_threads), &tid);
	blk_del(tid);
}

/*
 * The multi-fd rule (issue 20, item 2): a sleep during which the thread's
 * own block requests were in flight, ended by a kernel context (their
 * completion: virtio-blk's interrupt, a loop device's kworker), is disk
 * whichever fd the syscall names: sendfile from a cold file to a TCP
 * socket, or a page fault inside a socket write (its registers say write
 * on the socket). The last request completes before the wakeup it causes,
 * so "completed during the sleep" counts as in flight. Not when the
 * network woke it (socket buffer space), nor when its requests had all
 * completed before it blocked, nor with no request of its own.
 */
TEST(disk_wins_over_socket_fd_with_own_requests_in_flight_synthetic)
{
	const long nr_sendfile = SYS_sendfile, nr_write = SYS_write;
	const struct io_case cases[] = {
		{"sendfile, its request completed, woken by the interrupt", nr_sendfile, XLP_C_NET,
		 true, 1, 0, 0, 1, XLP_W_HARDIRQ, XLP_C_DISK},
		{"sendfile, its request in flight, woken by a kworker", nr_sendfile, XLP_C_NET,
		 true, 1, 0, 1, 0, XLP_W_KTHREAD, XLP_C_DISK},
		{"sendfile, woken by the BLOCK softirq, no request of its own", nr_sendfile,
		 XLP_C_NET, false, 0, 0, 0, 0, XLP_W_BLOCK, XLP_C_DISK},
		{"page fault in a socket write, its request completed", nr_write, XLP_C_NET, true,
		 1, 3, 0, 4, XLP_W_SOFTIRQ, XLP_C_DISK},
		{"sendfile, request in flight, woken by the network", nr_sendfile, XLP_C_NET, true,
		 1, 0, 1, 0, XLP_W_NET, XLP_C_NET},
		{"sendfile, requests done before it blocked", nr_sendfile, XLP_C_NET, true, 0, 2, 0,
		 2, XLP_W_HARDIRQ, XLP_C_NET},
		{"sendfile, no request of its own, woken by the interrupt", nr_sendfile, XLP_C_NET,
		 false, 0, 0, 0, 0, XLP_W_HARDIRQ, XLP_C_NET},
		{"pipe read, its request completed, woken by its peer", SYS_read, XLP_C_IPC, true,
		 1, 0, 0, 1, XLP_W_OTHER_PROC, XLP_C_IPC},
	};

	REQUIRE(skel_get(), "cannot open and load the BPF object: %s", strerror(errno));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		io_case_run(4000050 + (uint32_t)i, &cases[i]);
}

TEST_MAIN()
