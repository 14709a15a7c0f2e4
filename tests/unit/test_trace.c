/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Trace file module and `xlprobe dump`: round trip, truncation anywhere,
 * header errors, a full disk, and dump run in-process on all of those
 * (the corruption of every framing field: test_trace_damage.c). trt_walk() (tests/lib/tracetest.c)
 * parses the chunk framing straight from the layout documented in user/trace/trace_writer.c
 * (version 3), independently of the reader, to know which records each chunk holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "testlib.h"
#include "commands.h"
#include "trace.h"
#include "tracetest.h"
#include "xlptest.h"

/* CHECK(cond) with no message expands to fprintf(stderr, "") */
#pragma GCC diagnostic ignored "-Wformat-zero-length"

/* ---- round trip ---- */

static bool str_eq(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static void check_meta(const struct xlp_trace_meta *got, const struct xlp_trace_meta *want)
{
	CHECK(got->format_version == XLP_TRACE_VERSION);
	CHECK(got->ncpus == want->ncpus && got->clock_id == want->clock_id);
	CHECK(got->features == want->features);
	CHECK(got->boot_offset_ns == want->boot_offset_ns);
	CHECK(got->start_ns == want->start_ns && got->min_dur_ns == want->min_dur_ns);
	CHECK(got->target_pid == want->target_pid && got->repeat == want->repeat);
	CHECK(str_eq(got->host, want->host) && str_eq(got->kernel, want->kernel));
	CHECK(str_eq(got->cmdline, want->cmdline) && str_eq(got->notes, want->notes));
	CHECK(got->nfuncs == want->nfuncs, "%u funcs", got->nfuncs);
	for (uint32_t i = 0; i < got->nfuncs && i < want->nfuncs; i++) {
		const struct xlp_func_info *g = &got->funcs[i], *w = &want->funcs[i];

		CHECK(g->id == w->id && g->flags == w->flags && g->offset == w->offset, "func %u",
		      i);
		CHECK(str_eq(g->binary, w->binary) && str_eq(g->symbol, w->symbol) &&
			      str_eq(g->build_id, w->build_id),
		      "func %u", i);
		CHECK(g->binary && g->symbol && g->build_id, "reader strings are never NULL");
	}
}

TEST(round_trip)
{
	struct trt_sample *s = trt_sample();
	struct trace_reader *r;
	struct trt_result res;
	char why[256];

	REQUIRE(s->nchunks >= 3, "only %zu chunks", s->nchunks);
	CHECK(s->foot + 12 + 136 == s->len, "footer at %zu of %zu", s->foot, s->len);
	REQUIRE(!trace_reader__open(s->path, &r, why, sizeof(why)), "%s", why);
	check_meta(trace_reader__meta(r), &trt_sample_meta);
	trace_reader__close(r);

	trt_read_back(s->path, &res);
	CHECK(res.err == 0, "%d", res.err);
	CHECK(res.st == TRACE_COMPLETE);
	CHECK(res.bad == 0 && res.good == s->nchunks);
	CHECK(res.recs.n == TRT_SAMPLE_RECS, "%zu records", res.recs.n);
	CHECK(res.recs.len == s->recs.len && !memcmp(res.recs.data, s->recs.data, s->recs.len),
	      "record bytes differ");
	REQUIRE(res.footer);
	CHECK(res.ft.nrecords == TRT_SAMPLE_RECS && res.ft.nchunks == s->nchunks,
	      "writer fills the counts");
	CHECK(res.ft.end_ns == trt_sample_footer.end_ns);
	CHECK(!memcmp(res.ft.stat, trt_sample_footer.stat, sizeof(res.ft.stat)));
	CHECK(res.ft.lost_by_reader == 13 && res.ft.stop_reason == XLP_STOP_SIGNAL);
	trt_recs__free(&res.recs);
}

TEST(chunks_flush_near_256k)
{
	struct trt_sample *s = trt_sample();
	size_t nrec = 0;

	for (size_t i = 0; i < s->nchunks; i++) {
		nrec += s->ch[i].nrec;
		if (i + 1 < s->nchunks)
			CHECK(s->ch[i].ulen >= 256 * 1024 &&
				      s->ch[i].ulen < 256 * 1024 + sizeof(struct xlp_call_rec),
			      "chunk %zu holds %u bytes", i, s->ch[i].ulen);
	}
	CHECK(nrec == TRT_SAMPLE_RECS, "chunk record counts add up to %zu", nrec);
}

TEST(empty_meta_no_records)
{
	struct xlp_trace_meta m = {.ncpus = 1};
	struct trace_writer *w;
	struct trace_reader *r;
	struct trt_result res;
	char path[256], why[256];
	uint64_t bytes;

	trt_tmp_path(path, "empty.xlp");
	REQUIRE(!trace_writer__open(path, &m, &w));
	bytes = trace_writer__bytes(w);
	CHECK(trace_writer__flush(w) == 0 && trace_writer__bytes(w) == bytes,
	      "flushing nothing writes nothing");
	CHECK(trace_writer__close(w, NULL) == 0);
	REQUIRE(!trace_reader__open(path, &r, why, sizeof(why)), "%s", why);
	check_meta(trace_reader__meta(r), &m);
	trace_reader__close(r);
	trt_read_back(path, &res);
	CHECK(res.err == 0 && res.recs.n == 0 && res.st == TRACE_COMPLETE);
	CHECK(res.footer && res.ft.nrecords == 0 && res.ft.nchunks == 0);
	CHECK(trt_dump_quiet(path, false) == 0 && trt_dump_quiet(path, true) == 0);
}

TEST(explicit_flush_makes_chunks)
{
	static uint64_t buf[8192];
	struct trace_writer *w;
	struct trt_chunk ch[8];
	size_t len, hdr, foot, n;
	char path[256];
	uint8_t *f;

	trt_tmp_path(path, "flush.xlp");
	trt_rng = 7;
	REQUIRE(!trace_writer__open(path, &trt_sample_meta, &w));
	for (int c = 0; c < 3; c++) {
		for (int i = 0; i < 10; i++)
			CHECK(trace_writer__append(w, trt_gen_record(buf, i)) == 0);
		CHECK(trace_writer__flush(w) == 0);
	}
	n = trace_writer__bytes(w);
	CHECK(trace_writer__nrecords(w) == 30);
	CHECK(trace_writer__close(w, &trt_sample_footer) == 0);
	f = trt_slurp(path, &len);
	CHECK(len == n + 12 + 136, "bytes() counts the chunks on disk");
	n = trt_walk(f, len, ch, &hdr, &foot);
	CHECK(n == 3 && ch[0].nrec == 10 && ch[1].nrec == 10 && ch[2].nrec == 10);
	free(f);
}

/*
 * A compact call record reads back as the struct xlp_call_rec it stands for
 * (the counters it lacks at 0, an exclusive value it lacks equal to the
 * inclusive one, cpu_run equal to wall when the mask says so, the IPC peer
 * after the values); one whose size does not match its mask, or in a
 * version 2 file, where the type means nothing yet, comes back untouched,
 * as any unknown type.
 */
TEST(compact_call_record_expands)
{
	struct {
		struct xlp_call_compact_rec c;
		uint64_t val[3];
	} s = {.c = {.h = {XLP_R_CALL_COMPACT, sizeof(s), 3},
		     .func_id = 4,
		     .pid = 5,
		     .tid = 6,
		     .depth = 2,
		     .flags = XLP_CALL_INTERACTION,
		     .entry_ns = 1000,
		     .mask = 1ull << XLP_C_WALL | 1ull << XLP_C_NIVCSW | XLP_COMPACT_RUN_IS_WALL |
			     1ull << (XLP_NR_CTR + XLP_C_CPU_RUN)},
	       .val = {100, 3, 40}},
	  bad = s;
	struct {
		struct xlp_call_compact_rec c;
		uint64_t val[4];
		struct xlp_ipc_peer peer;
	} ipc = {.c = {.h = {XLP_R_CALL_COMPACT, sizeof(ipc), 1},
		       .func_id = 7,
		       .pid = 5,
		       .tid = 6,
		       .flags = XLP_CALL_IPC_PEER,
		       .entry_ns = 2000,
		       .mask = 1ull << XLP_C_WALL | 1ull << XLP_C_CPU_RUN | 1ull << XLP_C_SLEEP_S |
			       1ull << XLP_C_IPC},
		 .val = {500, 20, 480, 480},
		 .peer = {.pid = 777, .comm = "peerproc"}};
	struct xlp_call_rec
		want = {.h = {XLP_R_CALL, sizeof(want), 3},
			/* what the compact record says as it is */
			.func_id = s.c.func_id,
			.pid = s.c.pid,
			.tid = s.c.tid,
			.depth = s.c.depth,
			.flags = s.c.flags,
			.entry_ns = s.c.entry_ns,
			.incl = {[XLP_C_WALL] = 100, [XLP_C_CPU_RUN] = 100, [XLP_C_NIVCSW] = 3},
			.excl = {[XLP_C_WALL] = 100, [XLP_C_CPU_RUN] = 40, [XLP_C_NIVCSW] = 3}},
		want_ipc = {.h = {XLP_R_CALL, sizeof(want), 1},
			    .func_id = 7,
			    .pid = 5,
			    .tid = 6,
			    .flags = XLP_CALL_IPC_PEER,
			    .entry_ns = 2000,
			    .incl = {[XLP_C_WALL] = 500,
				     [XLP_C_CPU_RUN] = 20,
				     [XLP_C_SLEEP_S] = 480,
				     [XLP_C_IPC] = 480},
			    .excl = {[XLP_C_WALL] = 500,
				     [XLP_C_CPU_RUN] = 20,
				     [XLP_C_SLEEP_S] = 480,
				     [XLP_C_IPC] = 480},
			    .ipc_peer_pid = 777,
			    .ipc_peer_comm = "peerproc"};
	struct xlp_stats_rec st = {.h = {XLP_R_STATS, sizeof(st), 0}};
	struct trace_writer *w;
	struct trt_result res;
	char path[256];
	size_t len;
	uint8_t *f;

	bad.c.mask |= 1ull << XLP_C_MIGRATIONS; /* four values announced, three there */
	trt_tmp_path(path, "compact.xlp");
	REQUIRE(!trace_writer__open(path, &trt_sample_meta, &w));
	CHECK(trace_writer__append(w, &s.c.h) == 0);
	CHECK(trace_writer__append(w, &ipc.c.h) == 0);
	CHECK(trace_writer__append(w, &bad.c.h) == 0);
	CHECK(trace_writer__append(w, &st.h) == 0);
	CHECK(trace_writer__close(w, &trt_sample_footer) == 0);
	trt_read_back(path, &res);
	REQUIRE(res.err == 0 && res.st == TRACE_COMPLETE && res.recs.n == 4, "%zu records",
		res.recs.n);
	CHECK(res.recs.off[1] == sizeof(want) && !memcmp(res.recs.data, &want, sizeof(want)),
	      "expanded call record differs");
	CHECK(!memcmp(res.recs.data + res.recs.off[1], &want_ipc, sizeof(want_ipc)),
	      "expanded call record with an IPC peer differs");
	CHECK(!memcmp(res.recs.data + res.recs.off[2], &bad, sizeof(bad)),
	      "a record whose mask and size differ is not passed through as it is");
	trt_recs__free(&res.recs);

	/* the same file as version 2 */
	f = trt_slurp(path, &len);
	trt_put32(f + 8, 2);
	trt_put32(f + 16, crc32(crc32(0, f + 8, 8), f + 20, trt_le32(f + 12)));
	trt_spit(path, f, len);
	trt_read_back(path, &res);
	CHECK(res.err == 0 && res.st == TRACE_COMPLETE && res.recs.n == 4);
	CHECK(res.recs.n && res.recs.off[1] == sizeof(s) && !memcmp(res.recs.data, &s, sizeof(s)),
	      "version 2: the record is not passed through as it is");
	trt_recs__free(&res.recs);
	free(f);
}

TEST(append_rejects_bad_sizes)
{
	struct xlp_call_rec call = {.h = {XLP_R_CALL, sizeof(call), 0}};
	struct xlp_hdr bad[] = {
		{99, 0, 0}, {99, 4, 0}, {99, 12, 0}, {XLP_R_CALL, 8, 0}, {XLP_R_STATS, 16, 0}};
	struct trace_writer *w;
	struct trt_result res;
	char path[256];

	trt_tmp_path(path, "badsize.xlp");
	REQUIRE(!trace_writer__open(path, &trt_sample_meta, &w));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(trace_writer__append(w, &bad[i]) == -EINVAL, "case %zu", i);
	CHECK(trace_writer__append(w, &call.h) == 0, "a bad record does not break the writer");
	CHECK(trace_writer__close(w, NULL) == 0);
	trt_read_back(path, &res);
	CHECK(res.err == 0 && res.recs.n == 1 && res.st == TRACE_COMPLETE);
	trt_recs__free(&res.recs);
}

/* ---- truncation ---- */

/* Reads the sample trace cut at len; checks the outcome is exactly what it should be. */
static void check_cut(size_t len)
{
	struct trt_sample *s = trt_sample();
	struct trt_result res;
	size_t whole = 0;

	trt_read_bytes(s->file, len, &res);
	if (len == 0) {
		CHECK(res.err && strstr(res.why, "empty"), "cut at 0: %s", res.why);
		return;
	}
	if (len < 8) {
		CHECK(res.err && strstr(res.why, "not an xlprobe trace file"), "cut at %zu: %s",
		      len, res.why);
		return;
	}
	if (len < s->hdr_end) {
		CHECK(res.err && strstr(res.why, "header is corrupt or truncated"),
		      "cut at %zu: %s", len, res.why);
		return;
	}
	for (size_t i = 0; i < s->nchunks && s->ch[i].end <= len; i++)
		whole += s->ch[i].nrec;
	CHECK(res.err == 0, "cut at %zu: %d", len, res.err);
	CHECK(res.st == (len == s->len ? TRACE_COMPLETE : TRACE_TRUNCATED), "cut at %zu", len);
	CHECK(res.bad == 0, "cut at %zu: %" PRIu64 " bad chunks", len, res.bad);
	CHECK(trt_recs__eq_except(&res.recs, &s->recs, whole, TRT_SAMPLE_RECS - whole),
	      "cut at %zu: %zu records, want the %zu of whole chunks", len, res.recs.n, whole);
	trt_recs__free(&res.recs);
}

TEST(truncate_at_every_boundary)
{
	struct trt_sample *s = trt_sample();

	check_cut(s->hdr_end);
	for (size_t i = 0; i < s->nchunks; i++) {
		check_cut(s->ch[i].end);
		check_cut(s->ch[i].end - 1);
		check_cut(s->ch[i].start + 3);	/* inside the tag */
		check_cut(s->ch[i].start + 19); /* inside the chunk header */
		check_cut(s->ch[i].start + TRT_CHDR - 1);
	}
	check_cut(s->foot + 5);
	check_cut(s->len - 1);
	check_cut(s->len);
}

TEST(truncate_at_random_offsets)
{
	struct trt_sample *s = trt_sample();
	char path[256];

	trt_tmp_path(path, "damaged.xlp");
	trt_rng = 20240601;
	for (int i = 0; i < 200; i++) {
		size_t len = i < 8 ? (size_t)i * s->hdr_end / 8 : trt_rnd() % s->len;
		bool hdr_ok = len >= s->hdr_end;

		check_cut(len);
		/* trt_read_bytes left the cut file in path */
		CHECK(trt_dump_quiet(path, i % 2) == (hdr_ok ? 0 : 1), "dump of cut at %zu", len);
	}
}

/* ---- header errors ---- */

static void check_open_fails(const char *path, const char *why)
{
	char *argv[] = {"dump", (char *)path, NULL};
	char ebuf[256], want[512];
	struct trt_result res;
	size_t n;
	uint8_t *e;

	trt_read_back(path, &res);
	CHECK(res.err < 0 && strstr(res.why, why), "%s: %d '%s'", path, res.err, res.why);
	CHECK(xt_cmd(cmd_dump, 2, argv, NULL, trt_tmp_path(ebuf, "stderr")) == 1,
	      "dump of %s exits 1", path);
	e = trt_slurp(ebuf, &n);
	e[n] = 0;
	snprintf(want, sizeof(want), "xlprobe: %s: %s\n", path, res.why);
	CHECK(!strcmp((char *)e, want), "dump said '%s'", (char *)e);
	CHECK(strchr(res.why, ':') != NULL, "'%s' gives a fix after the cause", res.why);
	free(e);
}

TEST(newer_format_version)
{
	struct trt_sample *s = trt_sample();
	uint8_t *f = malloc(s->len);
	char path[256], want[128];
	uint32_t plen = trt_le32(s->file + 12);

	REQUIRE(f);
	memcpy(f, s->file, s->len);
	trt_put32(f + 8, XLP_TRACE_VERSION + 1);
	trt_put32(f + 16, crc32(crc32(0, f + 8, 8), f + 20, plen));
	trt_spit(trt_tmp_path(path, "newer.xlp"), f, s->len);
	snprintf(want, sizeof(want),
		 "format version %d is newer than this xlprobe (%d): upgrade xlprobe",
		 XLP_TRACE_VERSION + 1, XLP_TRACE_VERSION);
	check_open_fails(path, want);
	free(f);
}

TEST(not_a_trace)
{
	char path[256];

	check_open_fails("/proc/self/exe", "not an xlprobe trace file");
	trt_spit(trt_tmp_path(path, "text.xlp"), "hello, world\n", 13);
	check_open_fails(path, "not an xlprobe trace file");
	trt_spit(trt_tmp_path(path, "tiny.xlp"), "XL", 2);
	check_open_fails(path, "not an xlprobe trace file");
	trt_spit(trt_tmp_path(path, "magic.xlp"), "XLPROBE\0\1\0", 10);
	check_open_fails(path, "header is corrupt or truncated");
	trt_spit(trt_tmp_path(path, "empty.xlp"), "", 0);
	check_open_fails(path, "empty file");
	check_open_fails(trt_tmp_path(path, "missing.xlp"), "no such file");
	check_open_fails(xt_tmpdir(), "not a regular file");
}

/* ---- write errors ---- */

TEST(dev_full)
{
	struct trace_writer *w = (void *)1;

	CHECK(trace_writer__open("/dev/full", &trt_sample_meta, &w) == -ENOSPC);
	CHECK(w == NULL);
	CHECK(trace_writer__open("/nonexistent-dir/x.xlp", &trt_sample_meta, &w) == -ENOENT);
	trace_writer__abort(NULL);
}

/* Record i of a stream that compresses well, so many chunks fit in 64 KiB. */
static const struct xlp_hdr *gen_small(struct xlp_call_rec *c, size_t i)
{
	memset(c, 0, sizeof(*c));
	c->h = (struct xlp_hdr){XLP_R_CALL, sizeof(*c), 0};
	c->entry_ns = i;
	c->incl[XLP_C_WALL] = i % 97;
	return &c->h;
}

/* Writes until the disk is full; filler is space to free after the error. */
static void fill_until_full(const char *path, const char *filler)
{
	struct trace_writer *w;
	struct xlp_call_rec c;
	struct trt_result res;
	size_t i, len, hdr, foot, n, whole = 0;
	struct trt_chunk *ch = calloc(TRT_MAX_CHUNKS, sizeof(*ch));
	uint8_t *f;
	int err = 0;

	REQUIRE(ch);
	REQUIRE(!trace_writer__open(path, &trt_sample_meta, &w));
	for (i = 0; i < 5000000 && !err; i++)
		err = trace_writer__append(w, gen_small(&c, i));
	CHECK(err == -ENOSPC, "append returned %d after %zu records", err, i);
	/* with room again, the writer must still not leave a gap in the file */
	CHECK(!unlink(filler));
	CHECK(trace_writer__append(w, gen_small(&c, i)) == -ENOSPC, "the error is sticky");
	CHECK(trace_writer__flush(w) == -ENOSPC);
	CHECK(trace_writer__close(w, &trt_sample_footer) == -ENOSPC);

	f = trt_slurp(path, &len);
	n = trt_walk(f, len, ch, &hdr, &foot);
	for (size_t k = 0; k < n; k++)
		whole += ch[k].nrec;
	CHECK(n >= 2, "%zu chunks fit", n);
	CHECK(foot == len, "the partial chunk was cut off (%zu of %zu)", foot, len);
	trt_read_back(path, &res);
	CHECK(res.err == 0 && res.st == TRACE_TRUNCATED && res.bad == 0);
	CHECK(res.recs.n == whole && whole > 0, "%zu records, %zu in whole chunks", res.recs.n,
	      whole);
	for (size_t j = 0; j < res.recs.n; j++)
		if (memcmp(res.recs.data + res.recs.off[j], gen_small(&c, j), sizeof(c))) {
			CHECK(0, "record %zu differs", j);
			break;
		}
	trt_recs__free(&res.recs);
	CHECK(trt_dump_quiet(path, false) == 0);
	free(f);
	free(ch);
}

TEST(enospc_on_small_tmpfs)
{
	static const uint8_t zeros[16384];
	char dir[256], path[300], filler[300];

	if (geteuid()) {
		fprintf(stderr, "  note: not root, the tmpfs ENOSPC case is not run\n");
		return;
	}
	trt_tmp_path(dir, "full");
	REQUIRE(!mkdir(dir, 0755));
	REQUIRE(!mount("xlp-test", dir, "tmpfs", 0, "size=64k"), "mount: %s", strerror(errno));
	snprintf(filler, sizeof(filler), "%s/filler", dir);
	trt_spit(filler, zeros, sizeof(zeros));
	snprintf(path, sizeof(path), "%s/t.xlp", dir);
	fill_until_full(path, filler);
	CHECK(!umount2(dir, 0) || !umount2(dir, MNT_DETACH), "umount: %s", strerror(errno));
}

/* ---- dump output ---- */

static char *dump_to_string(char **argv, int argc, int *rc, char **err)
{
	char out[256], ebuf[256];
	size_t n;
	char *s;

	*rc = xt_cmd(cmd_dump, argc, argv, trt_tmp_path(out, "stdout"),
		     trt_tmp_path(ebuf, "stderr"));
	s = (char *)trt_slurp(out, &n);
	s[n] = 0;
	*err = (char *)trt_slurp(ebuf, &n);
	(*err)[n] = 0;
	return s;
}

TEST(dump_text_complete)
{
	struct trt_sample *s = trt_sample();
	char *argv[] = {"dump", s->path, NULL}, *out, *err;
	int rc;

	out = dump_to_string(argv, 2, &rc, &err);
	CHECK(rc == 0 && !err[0], "rc %d, stderr '%s'", rc, err);
	CHECK(strstr(out, "format version: 3\nhost: \"testhost\"\nkernel: \"6.1.0-test\"\n"));
	CHECK(strstr(out, "features: btf|sched|uprobes|0x100000 (0x100007)\n"));
	CHECK(strstr(out, "start: 2023-11-14T22:13:20.246913578Z"));
	CHECK(strstr(out, "target: pid 4242\n"));
	CHECK(strstr(out, "  func 0 binary=\"/usr/bin/app\" symbol=\"on_click\" offset=0x1234 "
			  "build_id=\"0123456789abcdef\" flags=interaction\n"));
	CHECK(strstr(out, "symbol=\"render \\\"q\\\"\\n\\\\\""), "strings stay on one line");
	CHECK(strstr(out, "\nunknown record type 127 (size 8)\n"));
	CHECK(strstr(out, "footer: end_ns=987654321 records=7000 chunks="));
	CHECK(strstr(out, "stop_reason=signal lost_by_reader=13\nstats: rb_full=1 "
			  "stack_overflow=2 stack_mismatch=3 min_dur=4 threads_full=5 "
			  "procs_full=6 sched_events=7 calls=8 unknown_state=9 unfinished=10 "
			  "sched_missed=11 launch_untimed=12\n"));
	CHECK(strstr(out, "status: complete: 7000 records read from"));
	free(out);
	free(err);
}

TEST(dump_text_record_lines)
{
	struct xlp_call_rec c = {.h = {XLP_R_CALL, sizeof(c), 2}};
	struct xlp_launch_rec l = {.h = {XLP_R_LAUNCH, sizeof(l), 1}};
	struct xlp_thread_rec t = {.h = {XLP_R_THREAD, sizeof(t), 3}};
	char path[256], *argv[] = {"dump", path, NULL}, *out, *err;
	struct trace_writer *w;
	int rc;

	c.func_id = 1;
	c.pid = 10;
	c.tid = 11;
	c.flags = XLP_CALL_INTERACTION | XLP_CALL_IPC_PEER;
	c.entry_ns = 100;
	c.ipc_peer_pid = 7;
	memcpy(c.ipc_peer_comm, "binder:7_2", 10);
	c.incl[XLP_C_WALL] = 5;
	c.incl[XLP_C_LOCK] = 7;
	c.incl[XLP_C_BINDER_TXN] = 1;
	c.excl[XLP_C_WALL] = 3;
	l = (struct xlp_launch_rec){l.h, 2, 99, -9, XLP_LAUNCH_EXIT_TIME, 1000, 2000};
	t.pid = 5;
	t.tid = 6;
	t.flags = XLP_THREAD_EXITED | XLP_THREAD_PARTIAL;
	memcpy(t.comm, "0123456789abcdef", 16); /* no NUL: comm fills the field */
	REQUIRE(!trace_writer__open(trt_tmp_path(path, "lines.xlp"), &trt_sample_meta, &w));
	CHECK(!trace_writer__append(w, &c.h) && !trace_writer__append(w, &l.h) &&
	      !trace_writer__append(w, &t.h));
	trace_writer__abort(w); /* flushes: reads as truncated */
	out = dump_to_string(argv, 2, &rc, &err);
	CHECK(rc == 0, "%d", rc);
	CHECK(strstr(out, "\ncall cpu=2 func=1 sym=\"decode\" pid=10 tid=11 depth=0 "
			  "flags=interaction|ipc_peer entry_ns=100 ipc_peer_pid=7 "
			  "ipc_peer_comm=\"binder:7_2\" incl[wall=5 lock=7 binder_txn=1] "
			  "excl[wall=3]\n"),
	      "%s", out);
	CHECK(strstr(out, "\nlaunch cpu=1 run=2 pid=99 exit_code=-9 flags=exit_time start_ns=1000 "
			  "end_ns=2000\n"),
	      "%s", out);
	CHECK(strstr(out, "\nthread cpu=3 pid=5 tid=6 flags=exited|partial first_ns=0 last_ns=0 "
			  "comm=\"0123456789abcdef\" tot[]\n"));
	CHECK(strstr(out, "footer: none\nstatus: truncated: 3 records read from 1 chunks"));
	CHECK(strstr(err, "xlprobe: warning: ") && strstr(err, "lines.xlp is truncated "
							       "(recording did not finish): "
							       "read 3 records from 1 chunks\n"),
	      "stderr: %s", err);
	free(out);
	free(err);
}

/* A frame name's source by name; 0 (a trace older than the field) "unsaid", an unknown one as a
 * number. */
TEST(dump_sym_source)
{
	_Alignas(8) char buf[3][sizeof(struct xlp_sym_rec) + 16];
	static const uint16_t sources[] = {0, XLP_SYM_SRC_MINIDEBUGINFO, 99};
	char path[256], *argv[] = {"dump", path, NULL}, *out, *err;
	struct trace_writer *w;
	int rc;

	REQUIRE(!trace_writer__open(trt_tmp_path(path, "syms.xlp"), &trt_sample_meta, &w));
	for (int i = 0; i < 3; i++) {
		struct xlp_sym_rec *r = (void *)buf[i];

		memset(buf[i], 0, sizeof(buf[i]));
		*r = (struct xlp_sym_rec){.h = {XLP_R_SYM, sizeof(buf[i]), 0},
					  .id = (uint32_t)i,
					  .module_len = 3,
					  .name_len = 4,
					  .source = sources[i]};
		memcpy(r->text, "appmain", 7);
		CHECK(!trace_writer__append(w, &r->h));
	}
	trace_writer__abort(w);
	out = dump_to_string(argv, 2, &rc, &err);
	CHECK(rc == 0, "%d", rc);
	CHECK(strstr(out,
		     "\nsym cpu=0 id=0 kind=0 module=\"app\" name=\"main\" source=\"unsaid\"\n"),
	      "%s", out);
	CHECK(strstr(out, "\nsym cpu=0 id=1 kind=0 module=\"app\" name=\"main\" "
			  "source=\"minidebuginfo\"\n"),
	      "%s", out);
	CHECK(strstr(out, "\nsym cpu=0 id=2 kind=0 module=\"app\" name=\"main\" source=99\n"), "%s",
	      out);
	free(out);
	free(err);
}

TEST(dump_json_parses)
{
	struct trt_sample *s = trt_sample();
	char path[256], cmd[1024], got[256], *argv[] = {"dump", s->path, "--json", NULL};
	int rc;

	rc = xt_cmd(cmd_dump, 3, argv, trt_tmp_path(path, "dump.json"), NULL);
	CHECK(rc == 0);
	/* tests never skip: python3 is in tools/install-deps.sh's list */
	REQUIRE(!tl_run("command -v python3", NULL, 0),
		"python3 missing: run tools/install-deps.sh (make test does)");
	snprintf(
		cmd, sizeof(cmd),
		"python3 -c 'import json,sys,collections as c; d=json.load(open(sys.argv[1],"
		"encoding=\"utf-8\")); r=d[\"records\"]; t=c.Counter(x[\"type\"] for x in r);"
		"print(len(r), d[\"status\"], d[\"bad_chunks\"], d[\"footer\"][\"records\"],"
		"d[\"footer\"][\"stats\"][\"calls\"], len(d[\"meta\"][\"functions\"]),"
		"d[\"meta\"][\"features\"], sorted(t.items()), r[0][\"incl\"][\"binder_txn\"] >= 0,"
		"d[\"meta\"][\"functions\"][2][\"symbol\"] == \"render \\\"q\\\"\\n\\\\\")' %s",
		path);
	rc = tl_run(cmd, got, sizeof(got));
	CHECK(rc == 0, "python could not parse the JSON");
	CHECK(!strcmp(got, "7000 complete 0 7000 8 3 ['btf', 'sched', 'uprobes', '0x100000'] "
			   "[('call', 1000), ('launch', 1000), ('proc', 1000), ('run', 1000), "
			   "('stats', 1000), ('thread', 1000), ('unknown', 1000)] True True\n"),
	      "python printed '%s'", got);
}

TEST(dump_json_of_damaged_file_parses)
{
	struct trt_sample *s = trt_sample();
	char path[256], cmd[512], got[128], *argv[] = {"dump", path, "--json", NULL};
	uint8_t *f = malloc(s->len);

	REQUIRE(f);
	memcpy(f, s->file, s->len);
	f[s->ch[1].start + 40] ^= 1;
	trt_spit(trt_tmp_path(path, "bad.xlp"), f, s->foot + 3);
	free(f);
	CHECK(xt_cmd(cmd_dump, 3, argv, trt_tmp_path(cmd, "bad.json"), NULL) == 1);
	REQUIRE(!tl_run("command -v python3", NULL, 0),
		"python3 missing: run tools/install-deps.sh (make test does)");
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
		 "print(len(d[\"records\"]), d[\"status\"], d[\"bad_chunks\"], d[\"footer\"])' "
		 "%s/bad.json",
		 xt_tmpdir());
	CHECK(tl_run(cmd, got, sizeof(got)) == 0);
	snprintf(cmd, sizeof(cmd), "%zu truncated 1 None\n", TRT_SAMPLE_RECS - s->ch[1].nrec);
	CHECK(!strcmp(got, cmd), "python printed '%s'", got);
}

TEST(dump_warns_on_bad_chunks)
{
	struct trt_sample *s = trt_sample();
	char path[256], *argv[] = {"dump", path, NULL}, *out, *err, want[512];
	uint8_t *f = malloc(s->len);
	int rc;

	REQUIRE(f);
	memcpy(f, s->file, s->len);
	f[s->ch[0].start + 40] ^= 1;
	trt_spit(trt_tmp_path(path, "bad.xlp"), f, s->len);
	free(f);
	out = dump_to_string(argv, 2, &rc, &err);
	snprintf(want, sizeof(want),
		 "xlprobe: warning: %s: chunk 0 damaged (skipped); the footer counts %d records "
		 "in %zu chunks, %zu records in %zu chunks were read\n",
		 path, TRT_SAMPLE_RECS, s->nchunks, TRT_SAMPLE_RECS - s->ch[0].nrec,
		 s->nchunks - 1);
	CHECK(rc == 1 && !strcmp(err, want), "rc %d, stderr '%s'", rc, err);
	CHECK(strstr(out, "status: damaged: ") && strstr(out, ", 1 corrupt chunks skipped\n"));
	free(out);
	free(err);
}

TEST(dump_usage)
{
	char *help[] = {"dump", "--help", NULL}, *none[] = {"dump", NULL};
	char *bad[] = {"dump", "--jsn", "x", NULL}, *two[] = {"dump", "a", "b", NULL};
	char *out, *err;
	int rc;

	out = dump_to_string(help, 2, &rc, &err);
	CHECK(rc == 0 && strstr(out, "Usage: xlprobe dump FILE [--json]") &&
	      strstr(out, "Exit status:"));
	free(out);
	free(err);
	out = dump_to_string(none, 1, &rc, &err);
	CHECK(rc == 2 && !out[0] && !strncmp(err, "xlprobe: dump: no trace file given", 34), "%s",
	      err);
	free(out);
	free(err);
	out = dump_to_string(bad, 3, &rc, &err);
	CHECK(rc == 2 && strstr(err, "unknown option '--jsn'"), "%s", err);
	free(out);
	free(err);
	out = dump_to_string(two, 3, &rc, &err);
	CHECK(rc == 2, "%d", rc);
	free(out);
	free(err);
}

TEST_MAIN()
