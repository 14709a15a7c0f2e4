/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading files anyone can hand xlprobe (issue 8, the reading half): forged
 * function ids, files built to make the reader or the analysis quadratic,
 * chunks cut out, duplicated or out of order, footers whose counts do not
 * match, symbols carrying terminal escapes or bytes that are not UTF-8, and
 * version 1 files (tests/data/v1-net.xlp, written by the version 1 writer).
 *
 * The quadratic files are checked to finish only: a hang guard (alarm)
 * fails the test if one does not finish at all, far beyond what it takes
 * (well under a second); `make bench` measures how the time grows.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include "testlib.h"
#include "dataset.h"
#include "json.h"
#include "synth.h"
#include "xlptest.h"
#include "trace.h"

#define HANG_GUARD_S 120

static char out[1 << 20], err[1 << 14];

static const char *tmp(const char *name)
{
	return xt_tmp_path(name);
}

/* ---- hang guard ---- */

static const char *guarded;

static void on_alarm(int sig)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg),
			 "FAIL %s: did not finish in %d s (a hang guard, not a timing check)\n",
			 guarded, HANG_GUARD_S);

	(void)sig;
	if (write(1, msg, n) < 0)
		_exit(2);
	_exit(1);
}

static void guard(const char *name)
{
	guarded = name;
	signal(SIGALRM, on_alarm);
	alarm(HANG_GUARD_S);
}

static void unguard(void)
{
	alarm(0);
}

/* ---- reading a file through the reader ---- */

struct read_result {
	int err;
	enum trace_status st;
	uint64_t nrec;
	struct trace_integrity in;
	char damage[512];
};

static void read_all(const char *path, struct read_result *res)
{
	struct trace_reader *r;
	const struct xlp_hdr *h;
	char why[256];
	int e;

	memset(res, 0, sizeof(*res));
	res->err = trace_reader__open(path, &r, why, sizeof(why));
	if (res->err)
		return;
	while ((e = trace_reader__next(r, &h)) > 0)
		res->nrec++;
	res->err = e;
	res->st = trace_reader__status(r);
	res->in = *trace_reader__integrity(r);
	trace_reader__describe(r, res->damage, sizeof(res->damage));
	trace_reader__close(r);
}

/* A 12-run scenario, one chunk per run (written once). */
static const char *sample(void)
{
	static char path[512];
	struct synth_scenario sc = {
		.path = path, .nruns = 12, .slow_frac = 0.25, .slow_func = 2, .factor = SYNTH_NET};

	if (path[0])
		return path;
	snprintf(path, sizeof(path), "%s", tmp("sample.xlp"));
	sc.seed = 8;
	if (synth__scenario(&sc))
		abort();
	return path;
}

static int copy_file(const char *from, const char *to)
{
	size_t n;
	uint8_t *f = synth__slurp(from, &n);
	FILE *o = fopen(to, "wb");
	int ret = f && o && fwrite(f, 1, n, o) == n ? 0 : -EIO;

	if (o && fclose(o))
		ret = -EIO;
	free(f);
	return ret;
}

static struct dataset *load(const char *path, char *why, size_t len)
{
	struct dataset *ds = NULL;

	if (dataset__load(&path, 1, NULL, &ds, why, len))
		return NULL;
	return ds;
}

/* ---- forged function ids ---- */

/*
 * In a child with 1 GB of address space: id 0x3FFFFFFF made a 1 KB header
 * allocate 4 GB, id 0xFFFFFFFF wrote out of bounds (SIGSEGV). Both must be
 * a clear one-line error from report and dump.
 */
static void check_forged_id(uint32_t k, uint32_t id)
{
	struct rlimit lim = {1ul << 30, 1ul << 30};
	char path[512], want[128];
	int status, rc;
	pid_t pid;

	snprintf(path, sizeof(path), "%s", tmp("forged.xlp"));
	REQUIRE(!copy_file(sample(), path) && !synth__forge_id(path, k, id));
	snprintf(want, sizeof(want), "corrupt trace: function %u of the header has id %u", k, id);
	fflush(NULL);
	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid) {
		setrlimit(RLIMIT_AS, &lim);
		rc = synth__report(out, sizeof(out), err, sizeof(err), path, NULL);
		if (rc != 1 || !strstr(err, want) || strchr(err, '\n') != strrchr(err, '\n'))
			_exit(2);
		rc = synth__dump(out, sizeof(out), err, sizeof(err), path, NULL);
		_exit(rc == 1 && strstr(err, want) ? 0 : 3);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
	      "id %#x of function %u: %s %d (2, 3: report, dump said something else)", id, k,
	      WIFSIGNALED(status) ? "killed by signal" : "exit",
	      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

TEST(forged_function_ids)
{
	check_forged_id(1, 0xffffffffu);
	check_forged_id(1, 0x3fffffffu);
	check_forged_id(2, 7); /* past the table */
	check_forged_id(2, 1); /* a duplicate */
}

/* ---- linear time on forged files ---- */

TEST(resync_on_forged_files_finishes)
{
	char path[512];
	struct read_result res;

	snprintf(path, sizeof(path), "%s", tmp("resync-v1.xlp"));
	REQUIRE(!synth__forge_resync(path, 1, 16u << 20), "no tests/data/v1-net.xlp?");
	guard("resync_on_forged_files_finishes");
	read_all(path, &res);
	unguard();
	CHECK(res.err == 0 && res.st == TRACE_TRUNCATED && res.nrec == 0, "%d %d", res.err, res.st);
	CHECK(res.in.gave_up && strstr(res.damage, "gave up re-synchronising"), "%s", res.damage);
	snprintf(path, sizeof(path), "%s", tmp("resync-v2.xlp"));
	REQUIRE(!synth__forge_resync(path, 2, 16u << 20));
	guard("resync_on_forged_files_finishes");
	read_all(path, &res);
	unguard();
	CHECK(res.err == 0 && res.st == TRACE_TRUNCATED && res.nrec == 0 && !res.in.gave_up,
	      "%d %d %s", res.err, res.st, res.damage);
	CHECK(res.in.bad >= 1, "%" PRIu64, res.in.bad);
}

/* See synth__forge_nesting(): 200 000 calls. */
TEST(nesting_on_forged_files_finishes)
{
	const unsigned n = 100000;
	struct dataset *ds = NULL;
	struct nesting *nest = NULL;
	const char *path = tmp("nest.xlp");
	uint32_t anc[2] = {0, 1};
	char why[512];

	REQUIRE(!synth__forge_nesting(path, n));
	guard("nesting_on_forged_files_finishes");
	ds = load(path, why, sizeof(why));
	CHECK(ds, "%s", why);
	if (ds) {
		/* the two functions, and the run's landmark after them */
		CHECK(dataset__nruns(ds) == 1 && dataset__nfuncs(ds) == 3);
		CHECK(!dataset__nesting(ds, anc, 2, &nest, why, sizeof(why)), "%s", why);
		/* siblings at one depth: nothing nested, every call counted */
		CHECK(dataset__ncalls(ds, 0, 0) == n && dataset__ncalls(ds, 0, 1) == n, "%u %u",
		      dataset__ncalls(ds, 0, 0), dataset__ncalls(ds, 0, 1));
	}
	unguard();
	nesting__free(nest);
	dataset__free(ds);
}

/* ---- chunks cut out, duplicated, out of order; the footer's counts ---- */

static void check_damage(const char *name, const int *order, size_t n, const char *want,
			 const char *drop)
{
	char path[512];
	struct read_result res;
	int rc;

	snprintf(path, sizeof(path), "%s", tmp(name));
	REQUIRE(!synth__rechunk(sample(), path, order, n));
	read_all(path, &res);
	CHECK(res.err == 0 && res.st == TRACE_DAMAGED, "%s: status %d", name, res.st);
	CHECK(!strncmp(res.damage, want, strlen(want)), "%s: '%s'", name, res.damage);
	rc = synth__dump(out, sizeof(out), err, sizeof(err), path, NULL);
	CHECK(rc == 1 && strstr(out, "status: damaged: ") && strstr(out, want) && strstr(err, want),
	      "%s: dump %d '%s'", name, rc, err);
	rc = synth__report(out, sizeof(out), err, sizeof(err), path, NULL);
	CHECK(rc == 0 && strstr(out, "is damaged: ") && strstr(out, drop) &&
		      !strstr(out, "no events lost"),
	      "%s: report %d:\n%s", name, rc, out);
	rc = synth__report(out, sizeof(out), err, sizeof(err), "--json", path, NULL);
	CHECK(rc == 0 && strstr(out, drop) && strstr(out, "\"damaged\": true"), "%s: %s", name,
	      out);
}

TEST(chunk_cut_out)
{
	static const int cut[] = {0, 1, 2, 3, 6, 7, 8, 9, 10, 11},
			 last[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

	check_damage("cut.xlp", cut, 10, "chunks 4-5 missing (lost 2 chunks)", "missing_chunks");
	check_damage("cut-last.xlp", last, 11, "chunk 11 missing (lost 1 chunk)",
		     "missing_records");
}

TEST(chunk_out_of_order)
{
	static const int swap[] = {0, 1, 3, 2, 4, 5, 6, 7, 8, 9, 10, 11};

	check_damage("swap.xlp", swap, 12, "chunk 2 out of order (skipped)", "reordered_chunks");
}

/* A duplicated chunk is reported and skipped: the function times stay. */
TEST(chunk_duplicated_not_counted_twice)
{
	static const int dup[] = {0, 1, 2, 3, 4, 5, 6, 7, 7, 8, 9, 10, 11};
	const char *path = tmp("dup.xlp");
	struct dataset *a, *b;
	char why[512];

	check_damage("dup.xlp", dup, 13, "chunk 7 duplicated (skipped)", "duplicate_chunks");
	a = load(sample(), why, sizeof(why));
	b = load(path, why, sizeof(why));
	REQUIRE(a && b, "%s", why);
	REQUIRE(dataset__nruns(a) == dataset__nruns(b) && dataset__nfuncs(a) == dataset__nfuncs(b),
		"%zu runs, %zu", dataset__nruns(a), dataset__nruns(b));
	for (size_t r = 0; r < dataset__nruns(a); r++)
		for (size_t f = 0; f < dataset__nfuncs(a); f++)
			CHECK(dataset__time(a, r, f) == dataset__time(b, r, f),
			      "run %zu %s: %" PRIu64 " vs %" PRIu64, r, dataset__func(a, f)->symbol,
			      dataset__time(a, r, f), dataset__time(b, r, f));
	CHECK(dataset__drops(b)->duplicate_chunks == 1);
	dataset__free(a);
	dataset__free(b);
}

TEST(footer_counts_checked)
{
	const char *path = tmp("foot.xlp");
	struct read_result res, good;
	char want[256];

	read_all(sample(), &good);
	REQUIRE(good.st == TRACE_COMPLETE && good.in.chunks == 12, "%d", good.st);
	REQUIRE(!copy_file(sample(), path));
	REQUIRE(!synth__forge_footer(path, good.nrec + 5, 12));
	read_all(path, &res);
	snprintf(want, sizeof(want),
		 "the footer counts %" PRIu64 " records in 12 chunks, %" PRIu64
		 " records in 12 chunks were read",
		 good.nrec + 5, good.nrec);
	CHECK(res.st == TRACE_DAMAGED && !strcmp(res.damage, want), "%d '%s'", res.st, res.damage);
	CHECK(res.in.missing_records == 5);
	REQUIRE(!synth__forge_footer(path, good.nrec, 13));
	read_all(path, &res);
	CHECK(res.st == TRACE_DAMAGED &&
		      !strncmp(res.damage, "chunk 12 missing (lost 1 chunk)", 31),
	      "'%s'", res.damage);
	REQUIRE(!synth__forge_footer(path, good.nrec - 9, 11));
	read_all(path, &res);
	CHECK(res.st == TRACE_DAMAGED &&
		      strstr(res.damage, "1 chunk(s) numbered past the footer's count (11)"),
	      "'%s'", res.damage);
}

/* ---- what the writers print ---- */

/* Names carrying terminal escapes, a forged line, and an 8-bit CSI. */
static const char *const evil_names[SYNTH_NFUNCS] = {
	"parse_input",
	"load_config",
	"evil\x1b[2J\x1b]0;owned\x07\nVerdict: forged\x9b"
	"31m",
	"render",
	"compress",
	"send_reply",
};

static bool has_raw_controls(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f || *p == 0x9b)
			return true;
	return false;
}

/* The escaping tests' trace: a slow quarter of 40 runs (80 ms of net), its names given. */
static struct synth_scenario named_scenario(const char *path, uint64_t seed,
					    const char *const *names, const char *interaction)
{
	return (struct synth_scenario){.path = path,
				       .nruns = 40,
				       .slow_frac = 0.25,
				       .slow_func = 2,
				       .factor = SYNTH_NET,
				       .extra_ms = 80,
				       .seed = seed,
				       .names = names,
				       .interaction = interaction};
}

TEST(control_characters_escaped)
{
	const char *path = tmp("evil.xlp"), *html = tmp("evil.html");
	struct synth_scenario sc = named_scenario(path, 11, evil_names, "handle\x1b[31m");
	size_t n;
	char *h;
	int rc;

	REQUIRE(!synth__scenario(&sc));
	rc = synth__report(out, sizeof(out), err, sizeof(err), "--html", html, path, NULL);
	CHECK(rc == 0, "report: %d %s", rc, err);
	CHECK(strstr(out, "evil\\x1b[2J\\x1b]0;owned\\x07\\nVerdict: forged\\x9b31m"),
	      "the name, escaped:\n%s", out);
	CHECK(strstr(out, "runs of handle\\x1b[31m"), "%s", out);
	CHECK(!has_raw_controls(out) && !strstr(out, "\nVerdict: forged"), "raw:\n%s", out);
	CHECK(!has_raw_controls(err), "stderr: %s", err);
	h = (char *)synth__slurp(html, &n);
	CHECK(h && !has_raw_controls(h) && strstr(h, "evil\\x1b[2J"), "HTML");
	free(h);
	rc = synth__dump(out, sizeof(out), err, sizeof(err), path, NULL);
	CHECK(rc == 0 && !has_raw_controls(out) &&
		      strstr(out,
			     "symbol=\"evil\\x1b[2J\\x1b]0;owned\\x07\\nVerdict: forged\\x9b31m\""),
	      "dump: %d", rc);
}

/* Bytes that are not UTF-8 in names: the JSON of both commands stays UTF-8. */
TEST(json_is_utf8)
{
	static const char *const names[SYNTH_NFUNCS] = {
		"parse_input",	    "load_config", "bad\xff\xfename",
		"over\xc0\xaflong", "cut\xe2\x82", "caf\xc3\xa9\x1b",
	};
	const char *path = tmp("utf8.xlp");
	struct synth_scenario sc = named_scenario(path, 12, names, "run\x80");
	const char *want[] = {"bad\xef\xbf\xbd\xef\xbf\xbdname", "over\xef\xbf\xbd\xef\xbf\xbdlong",
			      "cut\xef\xbf\xbd\xef\xbf\xbd", "caf\xc3\xa9\x1b"};
	char why[256];
	struct json *j;
	int rc, found = 0;

	REQUIRE(!synth__scenario(&sc));
	rc = synth__report(out, sizeof(out), err, sizeof(err), "--json", path, NULL);
	CHECK(rc == 0, "%d %s", rc, err);
	j = json__parse(out, why, sizeof(why));
	CHECK(j, "report --json: %s", why);
	for (size_t i = 0; j && i < json__len(json__get(j, "functions")); i++) {
		const char *f =
			json__str(json__get(json__at(json__get(j, "functions"), i), "function"));

		for (size_t k = 0; f && k < 4; k++)
			found += !strcmp(f, want[k]);
	}
	CHECK(found == 4, "%d of the names with U+FFFD", found);
	CHECK(j && !strcmp(json__str(json__get(j, "traces[0].interaction")), "run\xef\xbf\xbd"));
	json__free(j);
	rc = synth__dump(out, sizeof(out), err, sizeof(err), "--json", path, NULL);
	j = json__parse(out, why, sizeof(why));
	CHECK(rc == 0 && j, "dump --json: %d %s", rc, why);
	CHECK(j && !strcmp(json__str(json__get(j, "meta.functions[3].symbol")), want[0]));
	json__free(j);
	/* one escaper: the same string comes out of both commands the same */
	CHECK(strstr(out, "\"caf\xc3\xa9\\u001b\""), "dump");
	synth__report(out, sizeof(out), err, sizeof(err), "--json", path, NULL);
	CHECK(strstr(out, "\"caf\xc3\xa9\\u001b\""), "report");
}

/* ---- version 1 files ---- */

TEST(version1_file_still_reads)
{
	struct read_result res;
	char path[512], copy[512];
	int rc;

	snprintf(path, sizeof(path), "%s/tests/data/v1-net.xlp", tl_root());
	read_all(path, &res);
	CHECK(res.err == 0 && res.st == TRACE_COMPLETE && res.nrec == 108 && res.in.chunks == 12 &&
		      !res.in.sequenced && !res.damage[0],
	      "%d %d %" PRIu64 " '%s'", res.err, res.st, res.nrec, res.damage);
	rc = synth__dump(out, sizeof(out), err, sizeof(err), path, NULL);
	CHECK(rc == 0 && strstr(out, "format version: 1 (no chunk sequence numbers)\n") &&
		      strstr(out, "status: complete: 108 records read from 12 chunks"),
	      "%d %s", rc, err);
	rc = synth__report(out, sizeof(out), err, sizeof(err), path, NULL);
	CHECK(rc == 0 && strstr(out, ": 12 runs of handle_request\n") && strstr(out, "rb_full 3: "),
	      "%d %s", rc, err);
	/* no sequence numbers: only the footer's counts can tell, and it says so */
	snprintf(copy, sizeof(copy), "%s", tmp("v1-foot.xlp"));
	REQUIRE(!copy_file(path, copy) && !synth__forge_footer(copy, 117, 13));
	read_all(copy, &res);
	CHECK(res.st == TRACE_DAMAGED &&
		      !strcmp(res.damage,
			      "the footer counts 117 records in 13 chunks, 108 records in 12 "
			      "chunks "
			      "were read (format version 1 has no chunk sequence numbers: which "
			      "chunks cannot be told)"),
	      "'%s'", res.damage);
}

TEST_MAIN()
