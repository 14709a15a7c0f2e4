/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xlprobe export --pprof, read by pprof itself (go tool pprof, Debian's
 * golang-go) as its users would: per-function totals of each sample type
 * against export --folded on the same trace, the labels through
 * -tagfocus, demangled C++ names with the raw ones kept, mappings with
 * build-ids, --runs, and a damaged or foreign file refused with no output.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testlib.h"
#include "pprofcmp.h"
#include "synth.h"
#include "xlptest.h"

static char out[1 << 18];

static const char *xl(void)
{
	static char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/.output/xlprobe", tl_root());
	return p;
}

enum { Y_MAIN, Y_HANDLE, Y_LOAD, Y_PREAD, Y_COMPUTE, Y_ANON, Y_KREAD, Y_KSCHED };
enum { K_LOAD, K_COMPUTE, K_OTHER, K_KERNEL };
#define BIN "/opt/app/bin/app"
#define BUILD_ID "8f3e5c0a11223344556677889900aabbccddeeff"
#define HANDLE "_ZN3app6Server6handleEv"
#define LOAD "_ZN3app5Store4loadEi"
#define COMPUTE "_ZN3app7computeIiEEvT_"

/*
 * 20 runs of app::Server::handle() (pid 10, thread "worker" 10), every
 * 4th slow by a 50 ms disk wait in app::Store::load(int) -> pread with a
 * kernel stack; 8 on-CPU samples of 1 ms per run in void
 * app::compute<int>(int); per run one sample of thread "logger" (11),
 * outside any run, its stack in a file without symbols.
 */
static int cxx_trace(const char *path)
{
	static const struct synth_func f[] = {{BIN, HANDLE, true}, {BIN, LOAD, false}};
	const struct synth_host h = {"host-a", BUILD_ID, 0x4000};
	const uint32_t load[] = {Y_PREAD, Y_LOAD, Y_HANDLE, Y_MAIN};
	const uint32_t compute[] = {Y_COMPUTE, Y_HANDLE, Y_MAIN};
	const uint32_t other[] = {Y_ANON, Y_MAIN};
	const uint32_t kern[] = {Y_KSCHED, Y_KREAD};
	uint64_t c[XLP_NR_CTR] = {0};
	struct synth *s = NULL;
	int err = synth__open_on(path, XLP_FEAT_SYSCALLS | XLP_FEAT_SAMPLE, 0, f, 2, &h, &s);

	if (err)
		return err;
	err |= synth__sym(s, Y_MAIN, XLP_SYM_FUNCTION, "app", "main");
	err |= synth__sym(s, Y_HANDLE, XLP_SYM_FUNCTION, "app", HANDLE);
	err |= synth__sym(s, Y_LOAD, XLP_SYM_FUNCTION, "app", LOAD);
	err |= synth__sym(s, Y_PREAD, XLP_SYM_FUNCTION, "libc.so.6", "pread");
	err |= synth__sym(s, Y_COMPUTE, XLP_SYM_FUNCTION, "app", COMPUTE);
	err |= synth__sym(s, Y_ANON, XLP_SYM_FILE, "app", "[app+0x10]");
	err |= synth__sym(s, Y_KREAD, XLP_SYM_FUNCTION, "[kernel]", "vfs_read");
	err |= synth__sym(s, Y_KSCHED, XLP_SYM_FUNCTION, "[kernel]", "schedule");
	err |= synth__stack(s, K_LOAD, load, 4);
	err |= synth__stack(s, K_COMPUTE, compute, 3);
	err |= synth__stack(s, K_OTHER, other, 2);
	err |= synth__kstack(s, K_KERNEL, kern, 2);
	for (uint64_t i = 0; i < 20; i++) {
		uint64_t t = (i + 1) * 1000000000ull, d = i % 4 ? 10000000 : 60000000;

		for (uint64_t k = 0; k < 8; k++)
			err |= synth__sample(s, 10, 10, t + k * 1000000 + 500, 1000000,
					     K_COMPUTE + 1, XLP_C_CPU_RUN);
		if (!(i % 4))
			err |= synth__ksample(s, 10, 10, t + 58000000, 50000000, K_LOAD + 1,
					      K_KERNEL + 1, XLP_C_DISK);
		err |= synth__sample(s, 10, 11, t + 100, 1000000, K_OTHER + 1, XLP_C_CPU_RUN);
		synth__counters(
			&(struct synth_usage){.cpu_run = 10000000, .disk = (double)d - 10000000},
			c);
		err |= synth__call(s, 0, 10, 10, 0, t, c, NULL, 0, NULL);
	}
	err |= synth__thread(s, 10, 10, XLP_THREAD_EXITED, "worker", c);
	err |= synth__thread(s, 10, 11, XLP_THREAD_EXITED, "logger", c);
	err |= synth__proc(s, 10, c);
	return synth__finish(s, err ? -EIO : 0);
}

TEST(totals_agree_with_folded)
{
	const char *trace = xt_tmp_path("cxx.xlp"), *pb = xt_tmp_path("cxx.pb.gz");

	REQUIRE(cxx_trace(trace) == 0);
	REQUIRE(tl_runf(out, sizeof(out), "%s export --pprof %s -o %s", xl(), trace, pb) == 0, "%s",
		out);
	pprofcmp__same_totals(xl(), trace, pb, "samples", "");
	pprofcmp__same_totals(xl(), trace, pb, "cpu", "--weight --on-cpu");
	pprofcmp__same_totals(xl(), trace, pb, "off_cpu", "--weight --off-cpu");
	/* the sampled data set of tests/lib/synth.c too (frames without a run, an
	 * off-CPU sample of no known wait, a malformed stack) */
	trace = xt_tmp_path("sampled.xlp");
	pb = xt_tmp_path("sampled.pb.gz");
	REQUIRE(synth__sampled(trace) == 0);
	REQUIRE(tl_runf(out, sizeof(out), "%s export --pprof %s -o %s", xl(), trace, pb) == 0, "%s",
		out);
	pprofcmp__same_totals(xl(), trace, pb, "samples", "");
	pprofcmp__same_totals(xl(), trace, pb, "cpu", "--weight --on-cpu");
	pprofcmp__same_totals(xl(), trace, pb, "off_cpu", "--weight --off-cpu");
}

TEST(demangled_names_raw_kept)
{
	const char *trace = xt_tmp_path("cxx2.xlp"), *pb = xt_tmp_path("cxx2.pb.gz");

	REQUIRE(cxx_trace(trace) == 0);
	REQUIRE(tl_runf(out, sizeof(out), "%s export --pprof %s -o %s", xl(), trace, pb) == 0, "%s",
		out);
	REQUIRE(tl_runf(out, sizeof(out), "go tool pprof -traces %s", pb) == 0, "%s", out);
	CHECK(strstr(out, "app::Server::handle()"), "%s", out);
	CHECK(strstr(out, "app::Store::load(int)"), "%s", out);
	CHECK(strstr(out, "void app::compute<int>(int)"), "%s", out);
	CHECK(!strstr(out, HANDLE), "mangled name shown: %s", out);
	/* a stack in order, innermost first, kernel frames below the user ones */
	CHECK(strstr(out, "schedule\n             vfs_read\n             pread\n"
			  "             app::Store::load(int)\n"
			  "             app::Server::handle()\n             main\n"),
	      "%s", out);
	/* the raw names as system names (pprof -symbolize=none -raw lists both),
	 * the binary's path and build-id on its mapping */
	REQUIRE(tl_runf(out, sizeof(out), "go tool pprof -raw %s", pb) == 0, "%s", out);
	CHECK(strstr(out, HANDLE), "%s", out);
	CHECK(strstr(out, BIN) && strstr(out, BUILD_ID), "%s", out);
}

/* What the samples a -top report kept add up to (with -unit=ns: ns). */
static unsigned long long top_total(const char *args, const char *pb)
{
	const char *t;

	if (tl_runf(out, sizeof(out), "go tool pprof -top -nodefraction=0 -unit=ns %s %s", args,
		    pb))
		return ~0ull;
	t = strstr(out, "Showing nodes accounting for ");
	return t ? strtoull(t + 29, NULL, 10) : ~0ull;
}

TEST(labels_filter)
{
	const char *trace = xt_tmp_path("cxx3.xlp"), *pb = xt_tmp_path("cxx3.pb.gz"),
		   *slow = xt_tmp_path("slow.pb.gz");
	/* go tool pprof's totals of the samples each filter keeps */
	static const struct {
		const char *args;
		uint64_t want;
	} tops[] = {
		/* on-CPU: 20 runs x 8 ms on worker, 20 x 1 ms on logger */
		{"-sample_index=cpu", 180000000ull},
		{"-sample_index=cpu -tagfocus=thread=worker", 160000000ull},
		{"-sample_index=cpu -tagfocus=thread=logger", 20000000ull},
		{"-sample_index=cpu -tagfocus=tid=11", 20000000ull},
		/* off-CPU: 5 disk waits of 50 ms, all in the slow runs */
		{"-sample_index=off_cpu -tagfocus=reason=disk", 250000000ull},
		{"-sample_index=off_cpu -tagfocus=run_class=slow", 250000000ull},
		{"-sample_index=cpu -tagfocus=run_class=slow", 40000000ull},
		{"-sample_index=cpu -tagfocus=run_class=fast", 120000000ull},
		{"-sample_index=cpu -tagfocus=state=on_cpu", 180000000ull},
		{"-sample_index=cpu -tagfocus=process=app", 180000000ull},
		{"-sample_index=cpu -tagfocus=host=host-a", 180000000ull},
		/* run 5 is the second slow one */
		{"-sample_index=off_cpu -tagfocus=run=5", 50000000ull},
	};

	REQUIRE(cxx_trace(trace) == 0);
	REQUIRE(tl_runf(out, sizeof(out), "%s export --pprof %s -o %s", xl(), trace, pb) == 0, "%s",
		out);
	for (size_t i = 0; i < sizeof(tops) / sizeof(tops[0]); i++)
		CHECK(top_total(tops[i].args, pb) == tops[i].want, "%s", tops[i].args);
	/* --runs slow: the same as the label */
	REQUIRE(tl_runf(out, sizeof(out), "%s export --pprof --runs slow %s -o %s", xl(), trace,
			slow) == 0,
		"%s", out);
	CHECK(top_total("-sample_index=cpu", slow) == 40000000ull);
	CHECK(top_total("-sample_index=off_cpu", slow) == 250000000ull);
	REQUIRE(tl_runf(out, sizeof(out), "%s export --pprof --runs fast %s -o %s", xl(), trace,
			slow) == 0,
		"%s", out);
	CHECK(top_total("-sample_index=cpu", slow) == 120000000ull);
	/* --no-kernel: no kernel frame left */
	REQUIRE(tl_runf(out, sizeof(out), "%s export --pprof --no-kernel %s -o %s", xl(), trace,
			slow) == 0,
		"%s", out);
	REQUIRE(tl_runf(out, sizeof(out), "go tool pprof -traces %s", slow) == 0, "%s", out);
	CHECK(!strstr(out, "vfs_read") && strstr(out, "pread"), "%s", out);
}

TEST(refusals_leave_no_file)
{
	const char *trace = xt_tmp_path("cxx4.xlp"), *pb = xt_tmp_path("r.pb.gz"),
		   *bad = xt_tmp_path("bad.xlp");
	FILE *f;

	REQUIRE(cxx_trace(trace) == 0);
	/* not a trace */
	f = fopen(bad, "w");
	REQUIRE(f);
	fputs("this is not a trace\n", f);
	fclose(f);
	CHECK(tl_runf(out, sizeof(out), "%s export --pprof %s -o %s", xl(), bad, pb) == 1, "%s",
	      out);
	CHECK(!strchr(out, '\n') || strchr(out, '\n') == out + strlen(out) - 1, "one line: %s",
	      out);
	CHECK(strstr(out, bad), "names the file: %s", out);
	CHECK(access(pb, F_OK) != 0, "no output file");
	/* a bad one among good ones: still no file */
	CHECK(tl_runf(out, sizeof(out), "%s export --pprof %s %s -o %s", xl(), trace, bad, pb) == 1,
	      "%s", out);
	CHECK(access(pb, F_OK) != 0, "no output file");
	CHECK(tl_runf(out, sizeof(out), "%s export --pprof --runs medium %s -o %s", xl(), trace,
		      pb) == 2,
	      "%s", out);
	CHECK(strstr(out, "slow, fast or all"), "%s", out);
	CHECK(access(pb, F_OK) != 0, "no output file");
	/* no runs to label: --runs slow says so */
	REQUIRE(synth__scenario(&(struct synth_scenario){.path = bad, .nruns = 1}) == 0);
	CHECK(tl_runf(out, sizeof(out), "%s export --pprof %s -o %s", xl(), bad, pb) == 1, "%s",
	      out);
	CHECK(strstr(out, "no stack samples"), "%s", out);
	CHECK(access(pb, F_OK) != 0, "no output file");
}

TEST_MAIN()
