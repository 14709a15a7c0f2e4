/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Trace file module and `xlprobe dump`: round trip, truncation anywhere,
 * corruption of every framing field, header errors, a full disk, and dump
 * run in-process on all of those. walk() parses the chunk framing straight
 * from the layout documented in user/trace/trace_writer.c (version 3), independently
 * of the reader, to know which records each chunk holds.
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

/* CHECK(cond) with no message expands to fprintf(stderr, "") */
#pragma GCC diagnostic ignored "-Wformat-zero-length"

#define SAMPLE_RECS 7000
#define MAX_CHUNKS 4096
#define UNKNOWN_TYPE 127
#define CHDR 28 /* chunk header: tag, seq, C, U, N, data CRC, header CRC */

/* ---- helpers ---- */

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

/* Records back to back, as the file holds them. */
struct recs {
	uint8_t *data;
	size_t len, cap;
	size_t *off;
	size_t n, ncap;
};

static void recs__add(struct recs *rs, const struct xlp_hdr *h)
{
	if (rs->len + h->size > rs->cap) {
		rs->cap = (rs->cap + h->size) * 2;
		rs->data = realloc(rs->data, rs->cap);
	}
	if (rs->n == rs->ncap) {
		rs->ncap = rs->ncap ? rs->ncap * 2 : 1024;
		rs->off = realloc(rs->off, rs->ncap * sizeof(*rs->off));
	}
	if (!rs->data || !rs->off)
		abort();
	memcpy(rs->data + rs->len, h, h->size);
	rs->off[rs->n++] = rs->len;
	rs->len += h->size;
}

static void recs__free(struct recs *rs)
{
	free(rs->data);
	free(rs->off);
	memset(rs, 0, sizeof(*rs));
}

/* Bytes of records [from, to) of rs. */
static size_t recs__span(const struct recs *rs, size_t from, size_t to)
{
	size_t end = to < rs->n ? rs->off[to] : rs->len;

	return from < to ? end - rs->off[from] : 0;
}

static bool recs__range_eq(const struct recs *got, size_t gfrom, const struct recs *want,
			   size_t wfrom, size_t n)
{
	size_t len = recs__span(want, wfrom, wfrom + n);

	if (!n)
		return true;
	if (gfrom + n > got->n || wfrom + n > want->n || recs__span(got, gfrom, gfrom + n) != len)
		return false;
	return !memcmp(got->data + got->off[gfrom], want->data + want->off[wfrom], len);
}

/* got == want minus the skip records starting at skip_from. */
static bool recs__eq_except(const struct recs *got, const struct recs *want, size_t skip_from,
			    size_t skip)
{
	return got->n + skip == want->n && recs__range_eq(got, 0, want, 0, skip_from) &&
	       recs__range_eq(got, skip_from, want, skip_from + skip, want->n - skip_from - skip);
}

/* Every record of got appears in want, in order. */
static bool recs__subseq(const struct recs *got, const struct recs *want)
{
	size_t w = 0;

	for (size_t g = 0; g < got->n; g++) {
		while (w < want->n && !recs__range_eq(got, g, want, w, 1))
			w++;
		if (w++ == want->n)
			return false;
	}
	return true;
}

static char tmpdir[64];

static void tmp_cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "  could not remove %s\n", tmpdir);
}

static const char *tmp_path(char *buf, const char *name)
{
	if (!tmpdir[0]) {
		strcpy(tmpdir, "/tmp/xlp-test-trace.XXXXXX");
		if (!mkdtemp(tmpdir))
			abort();
		atexit(tmp_cleanup);
	}
	snprintf(buf, 256, "%s/%s", tmpdir, name);
	return buf;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		abort();
	p = malloc(st.st_size + 1);
	if (!p || read(fd, p, st.st_size) != st.st_size)
		abort();
	close(fd);
	*len = st.st_size;
	return p;
}

static void spit(const char *path, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, p, len) != (ssize_t)len || close(fd))
		abort();
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

/* ---- the sample trace ---- */

static struct xlp_func_info sample_funcs[3] = {
	{0, XLP_FUNC_INTERACTION, 0x1234, "/usr/bin/app", "on_click", "0123456789abcdef"},
	{1, 0, 0x5678, "/usr/lib/libfoo.so.1", "decode", ""},
	{2, 0, 0x9abc, "/usr/bin/app", "render \"q\"\n\\", "deadbeef"},
};

static struct xlp_trace_meta sample_meta = {
	.ncpus = 8,
	.clock_id = 1,
	.features = XLP_FEAT_BTF | XLP_FEAT_SCHED | XLP_FEAT_UPROBES | (1u << 20),
	.boot_offset_ns = 1700000000123456789ll,
	.start_ns = 123456789,
	.min_dur_ns = 1000,
	.target_pid = 4242,
	.repeat = 0,
	.host = "testhost",
	.kernel = "6.1.0-test",
	.cmdline = "app --flag \xff\xfe",
	.notes = "binder: tracepoints absent\nsecond line",
	.nfuncs = 3,
	.funcs = sample_funcs,
};

static const struct xlp_trace_footer sample_footer = {
	.end_ns = 987654321,
	.stat = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
	.lost_by_reader = 13,
	.stop_reason = XLP_STOP_SIGNAL,
};

/* Record i: every type in turn, then one the reader does not know. */
static const struct xlp_hdr *gen_record(uint64_t *buf, size_t i)
{
	static const uint16_t sizes[] = {
		[XLP_R_CALL] = sizeof(struct xlp_call_rec),
		[XLP_R_RUN] = sizeof(struct xlp_run_rec),
		[XLP_R_THREAD] = sizeof(struct xlp_thread_rec),
		[XLP_R_PROC] = sizeof(struct xlp_proc_rec),
		[XLP_R_LAUNCH] = sizeof(struct xlp_launch_rec),
		[XLP_R_STATS] = sizeof(struct xlp_stats_rec),
	};
	struct xlp_hdr *h = (struct xlp_hdr *)buf;
	uint16_t type = i % 7 + 1;
	uint16_t size = type <= XLP_R_STATS ? sizes[type] : 8 + 8 * (i / 7 % 5);

	/* a third zeros, the rest moderate values: compresses like real data */
	for (size_t w = 1; w < size / 8u; w++)
		buf[w] = rnd() % 3 ? rnd() % 1000000 : 0;
	h->type = type <= XLP_R_STATS ? type : UNKNOWN_TYPE;
	h->size = size;
	h->cpu = i % 8;
	return h;
}

struct sample {
	char path[256];
	uint8_t *file;
	size_t len;
	struct recs recs;
	size_t hdr_end; /* first chunk */
	size_t foot;	/* footer offset */
	size_t nchunks;
	struct chunk {
		size_t start, end;
		size_t first, nrec; /* records it holds */
		uint32_t ulen;
	} ch[MAX_CHUNKS];
};

/* Chunk table from the documented framing; returns the number of chunks. */
static size_t walk(const uint8_t *f, size_t len, struct chunk *ch, size_t *hdr_end, size_t *foot)
{
	size_t pos = len >= 20 ? 20 + le32(f + 12) : len, n = 0, rec = 0;

	*hdr_end = pos;
	while (n < MAX_CHUNKS && pos + CHDR <= len && !memcmp(f + pos, "CHNK", 4) &&
	       pos + CHDR + le32(f + pos + 8) <= len) {
		ch[n] = (struct chunk){pos, pos + CHDR + le32(f + pos + 8), rec, le32(f + pos + 16),
				       le32(f + pos + 12)};
		rec += ch[n].nrec;
		pos = ch[n++].end;
	}
	*foot = pos;
	return n;
}

static int write_records(const char *path, const struct xlp_trace_meta *meta, size_t nrec,
			 struct recs *rs, const struct xlp_trace_footer *ft)
{
	static uint64_t buf[8192];
	struct trace_writer *w;
	int err;

	rng = 42;
	err = trace_writer__open(path, meta, &w);
	if (err)
		return err;
	for (size_t i = 0; i < nrec; i++) {
		const struct xlp_hdr *h = gen_record(buf, i);

		recs__add(rs, h);
		err = trace_writer__append(w, h);
		if (err) {
			trace_writer__abort(w);
			return err;
		}
	}
	if (trace_writer__nrecords(w) != nrec)
		return -EPROTO;
	return trace_writer__close(w, ft);
}

/* The sample trace, written once and shared by the tests that damage it. */
static struct sample *sample(void)
{
	static struct sample *s;

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		abort();
	tmp_path(s->path, "sample.xlp");
	if (write_records(s->path, &sample_meta, SAMPLE_RECS, &s->recs, &sample_footer))
		abort();
	s->file = slurp(s->path, &s->len);
	s->nchunks = walk(s->file, s->len, s->ch, &s->hdr_end, &s->foot);
	return s;
}

/* ---- reading back ---- */

struct result {
	int err;
	char why[256];
	struct recs recs;
	enum trace_status st;
	uint64_t bad, good;
	bool footer;
	struct xlp_trace_footer ft;
	struct trace_integrity in;
	char damage[512];
};

static void read_back(const char *path, struct result *res)
{
	struct trace_reader *r;
	const struct xlp_hdr *h;
	int err;

	memset(res, 0, sizeof(*res));
	res->err = trace_reader__open(path, &r, res->why, sizeof(res->why));
	if (res->err)
		return;
	while ((err = trace_reader__next(r, &h)) > 0)
		recs__add(&res->recs, h);
	res->err = err;
	res->st = trace_reader__status(r);
	res->bad = trace_reader__bad_chunks(r);
	res->good = trace_reader__good_chunks(r);
	res->footer = trace_reader__footer(r) != NULL;
	if (res->footer)
		res->ft = *trace_reader__footer(r);
	res->in = *trace_reader__integrity(r);
	trace_reader__describe(r, res->damage, sizeof(res->damage));
	/* once at the end, the end is sticky */
	if (!err && trace_reader__next(r, &h) != 0)
		res->err = -EPROTO;
	trace_reader__close(r);
}

static void read_bytes(const void *file, size_t len, struct result *res)
{
	char path[256];

	spit(tmp_path(path, "damaged.xlp"), file, len);
	read_back(path, res);
}

/* Runs cmd_dump in-process; stdout and stderr go to files (or /dev/null). */
static int run_dump(const char *out, const char *err, int argc, char **argv)
{
	int so, se, fo, fe, rc;

	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	fo = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fe = open(err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (so < 0 || se < 0 || fo < 0 || fe < 0)
		abort();
	dup2(fo, 1);
	dup2(fe, 2);
	close(fo);
	close(fe);
	rc = cmd_dump(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	return rc;
}

static int dump_quiet(const char *path, bool json)
{
	char *argv[] = {"dump", (char *)path, json ? "--json" : NULL, NULL};

	return run_dump(NULL, NULL, json ? 3 : 2, argv);
}

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
	struct sample *s = sample();
	struct trace_reader *r;
	struct result res;
	char why[256];

	REQUIRE(s->nchunks >= 3, "only %zu chunks", s->nchunks);
	CHECK(s->foot + 12 + 136 == s->len, "footer at %zu of %zu", s->foot, s->len);
	REQUIRE(!trace_reader__open(s->path, &r, why, sizeof(why)), "%s", why);
	check_meta(trace_reader__meta(r), &sample_meta);
	trace_reader__close(r);

	read_back(s->path, &res);
	CHECK(res.err == 0, "%d", res.err);
	CHECK(res.st == TRACE_COMPLETE);
	CHECK(res.bad == 0 && res.good == s->nchunks);
	CHECK(res.recs.n == SAMPLE_RECS, "%zu records", res.recs.n);
	CHECK(res.recs.len == s->recs.len && !memcmp(res.recs.data, s->recs.data, s->recs.len),
	      "record bytes differ");
	REQUIRE(res.footer);
	CHECK(res.ft.nrecords == SAMPLE_RECS && res.ft.nchunks == s->nchunks,
	      "writer fills the counts");
	CHECK(res.ft.end_ns == sample_footer.end_ns);
	CHECK(!memcmp(res.ft.stat, sample_footer.stat, sizeof(res.ft.stat)));
	CHECK(res.ft.lost_by_reader == 13 && res.ft.stop_reason == XLP_STOP_SIGNAL);
	recs__free(&res.recs);
}

TEST(chunks_flush_near_256k)
{
	struct sample *s = sample();
	size_t nrec = 0;

	for (size_t i = 0; i < s->nchunks; i++) {
		nrec += s->ch[i].nrec;
		if (i + 1 < s->nchunks)
			CHECK(s->ch[i].ulen >= 256 * 1024 &&
				      s->ch[i].ulen < 256 * 1024 + sizeof(struct xlp_call_rec),
			      "chunk %zu holds %u bytes", i, s->ch[i].ulen);
	}
	CHECK(nrec == SAMPLE_RECS, "chunk record counts add up to %zu", nrec);
}

TEST(empty_meta_no_records)
{
	struct xlp_trace_meta m = {.ncpus = 1};
	struct trace_writer *w;
	struct trace_reader *r;
	struct result res;
	char path[256], why[256];
	uint64_t bytes;

	tmp_path(path, "empty.xlp");
	REQUIRE(!trace_writer__open(path, &m, &w));
	bytes = trace_writer__bytes(w);
	CHECK(trace_writer__flush(w) == 0 && trace_writer__bytes(w) == bytes,
	      "flushing nothing writes nothing");
	CHECK(trace_writer__close(w, NULL) == 0);
	REQUIRE(!trace_reader__open(path, &r, why, sizeof(why)), "%s", why);
	check_meta(trace_reader__meta(r), &m);
	trace_reader__close(r);
	read_back(path, &res);
	CHECK(res.err == 0 && res.recs.n == 0 && res.st == TRACE_COMPLETE);
	CHECK(res.footer && res.ft.nrecords == 0 && res.ft.nchunks == 0);
	CHECK(dump_quiet(path, false) == 0 && dump_quiet(path, true) == 0);
}

TEST(explicit_flush_makes_chunks)
{
	static uint64_t buf[8192];
	struct trace_writer *w;
	struct chunk ch[8];
	size_t len, hdr, foot, n;
	char path[256];
	uint8_t *f;

	tmp_path(path, "flush.xlp");
	rng = 7;
	REQUIRE(!trace_writer__open(path, &sample_meta, &w));
	for (int c = 0; c < 3; c++) {
		for (int i = 0; i < 10; i++)
			CHECK(trace_writer__append(w, gen_record(buf, i)) == 0);
		CHECK(trace_writer__flush(w) == 0);
	}
	n = trace_writer__bytes(w);
	CHECK(trace_writer__nrecords(w) == 30);
	CHECK(trace_writer__close(w, &sample_footer) == 0);
	f = slurp(path, &len);
	CHECK(len == n + 12 + 136, "bytes() counts the chunks on disk");
	n = walk(f, len, ch, &hdr, &foot);
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
			.func_id = 4,
			.pid = 5,
			.tid = 6,
			.depth = 2,
			.flags = XLP_CALL_INTERACTION,
			.entry_ns = 1000,
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
	struct result res;
	char path[256];
	size_t len;
	uint8_t *f;

	bad.c.mask |= 1ull << XLP_C_MIGRATIONS; /* four values announced, three there */
	tmp_path(path, "compact.xlp");
	REQUIRE(!trace_writer__open(path, &sample_meta, &w));
	CHECK(trace_writer__append(w, &s.c.h) == 0);
	CHECK(trace_writer__append(w, &ipc.c.h) == 0);
	CHECK(trace_writer__append(w, &bad.c.h) == 0);
	CHECK(trace_writer__append(w, &st.h) == 0);
	CHECK(trace_writer__close(w, &sample_footer) == 0);
	read_back(path, &res);
	REQUIRE(res.err == 0 && res.st == TRACE_COMPLETE && res.recs.n == 4, "%zu records",
		res.recs.n);
	CHECK(res.recs.off[1] == sizeof(want) && !memcmp(res.recs.data, &want, sizeof(want)),
	      "expanded call record differs");
	CHECK(!memcmp(res.recs.data + res.recs.off[1], &want_ipc, sizeof(want_ipc)),
	      "expanded call record with an IPC peer differs");
	CHECK(!memcmp(res.recs.data + res.recs.off[2], &bad, sizeof(bad)),
	      "a record whose mask and size differ is not passed through as it is");
	recs__free(&res.recs);

	/* the same file as version 2 */
	f = slurp(path, &len);
	put32(f + 8, 2);
	put32(f + 16, crc32(crc32(0, f + 8, 8), f + 20, le32(f + 12)));
	spit(path, f, len);
	read_back(path, &res);
	CHECK(res.err == 0 && res.st == TRACE_COMPLETE && res.recs.n == 4);
	CHECK(res.recs.n && res.recs.off[1] == sizeof(s) && !memcmp(res.recs.data, &s, sizeof(s)),
	      "version 2: the record is not passed through as it is");
	recs__free(&res.recs);
	free(f);
}

TEST(append_rejects_bad_sizes)
{
	struct xlp_call_rec call = {.h = {XLP_R_CALL, sizeof(call), 0}};
	struct xlp_hdr bad[] = {
		{99, 0, 0}, {99, 4, 0}, {99, 12, 0}, {XLP_R_CALL, 8, 0}, {XLP_R_STATS, 16, 0}};
	struct trace_writer *w;
	struct result res;
	char path[256];

	tmp_path(path, "badsize.xlp");
	REQUIRE(!trace_writer__open(path, &sample_meta, &w));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(trace_writer__append(w, &bad[i]) == -EINVAL, "case %zu", i);
	CHECK(trace_writer__append(w, &call.h) == 0, "a bad record does not break the writer");
	CHECK(trace_writer__close(w, NULL) == 0);
	read_back(path, &res);
	CHECK(res.err == 0 && res.recs.n == 1 && res.st == TRACE_COMPLETE);
	recs__free(&res.recs);
}

/* ---- truncation ---- */

/* Reads the sample cut at len; checks the outcome is exactly what it should be. */
static void check_cut(size_t len)
{
	struct sample *s = sample();
	struct result res;
	size_t whole = 0;

	read_bytes(s->file, len, &res);
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
	CHECK(recs__eq_except(&res.recs, &s->recs, whole, SAMPLE_RECS - whole),
	      "cut at %zu: %zu records, want the %zu of whole chunks", len, res.recs.n, whole);
	recs__free(&res.recs);
}

TEST(truncate_at_every_boundary)
{
	struct sample *s = sample();

	check_cut(s->hdr_end);
	for (size_t i = 0; i < s->nchunks; i++) {
		check_cut(s->ch[i].end);
		check_cut(s->ch[i].end - 1);
		check_cut(s->ch[i].start + 3);	/* inside the tag */
		check_cut(s->ch[i].start + 19); /* inside the chunk header */
		check_cut(s->ch[i].start + CHDR - 1);
	}
	check_cut(s->foot + 5);
	check_cut(s->len - 1);
	check_cut(s->len);
}

TEST(truncate_at_random_offsets)
{
	struct sample *s = sample();
	char path[256];

	tmp_path(path, "damaged.xlp");
	rng = 20240601;
	for (int i = 0; i < 200; i++) {
		size_t len = i < 8 ? (size_t)i * s->hdr_end / 8 : rnd() % s->len;
		bool hdr_ok = len >= s->hdr_end;

		check_cut(len);
		/* read_bytes left the cut file in path */
		CHECK(dump_quiet(path, i % 2) == (hdr_ok ? 0 : 1), "dump of cut at %zu", len);
	}
}

/* ---- corruption ---- */

/* Damages one byte of a copy of the sample and reads it back. */
static void read_flipped(size_t at, uint8_t mask, struct result *res)
{
	struct sample *s = sample();
	uint8_t *f = malloc(s->len);

	if (!f)
		abort();
	memcpy(f, s->file, s->len);
	f[at] ^= mask;
	read_bytes(f, s->len, res);
	free(f);
}

/*
 * One chunk lost, everything else read, the footer still found, and the
 * file said to be damaged: the chunk named damaged when its header is
 * sound, missing when not.
 */
static void check_chunk_lost(size_t k, size_t at, uint8_t mask, const char *what)
{
	struct sample *s = sample();
	char path[256], want[64];
	struct result res;

	read_flipped(at, mask, &res);
	CHECK(res.err == 0, "%s of chunk %zu: %d", what, k, res.err);
	CHECK(res.bad == 1 && res.good == s->nchunks - 1,
	      "%s of chunk %zu: %" PRIu64 " bad, %" PRIu64 " good", what, k, res.bad, res.good);
	CHECK(res.st == TRACE_DAMAGED, "%s of chunk %zu", what, k);
	snprintf(want, sizeof(want), "chunk %zu %s", k,
		 at >= s->ch[k].start + CHDR ? "damaged (skipped)" : "missing (lost 1 chunk)");
	CHECK(!strncmp(res.damage, want, strlen(want)), "%s of chunk %zu: '%s'", what, k,
	      res.damage);
	CHECK(recs__eq_except(&res.recs, &s->recs, s->ch[k].first, s->ch[k].nrec),
	      "%s of chunk %zu: %zu records", what, k, res.recs.n);
	recs__free(&res.recs);
	CHECK(dump_quiet(tmp_path(path, "damaged.xlp"), k % 2) == 1, "dump exits 1 on bad chunks");
}

TEST(flipped_byte_in_chunk_data)
{
	struct sample *s = sample();

	for (size_t k = 0; k < s->nchunks; k++) {
		size_t zlen = s->ch[k].end - s->ch[k].start - CHDR;

		check_chunk_lost(k, s->ch[k].start + CHDR, 0x01, "first data byte");
		check_chunk_lost(k, s->ch[k].start + CHDR + zlen / 2, 0x40, "middle data byte");
		check_chunk_lost(k, s->ch[k].end - 1, 0x80, "last data byte");
	}
}

TEST(flipped_byte_in_chunk_header)
{
	static const struct {
		size_t at;
		uint8_t mask;
		const char *what;
	} cases[] = {
		{0, 0x01, "tag"},
		{4, 0x01, "sequence number, low bit"},
		{7, 0x80, "sequence number, top bit"},
		{8, 0x01, "compressed length, low bit"},
		{8, 0xff, "compressed length, low byte"},
		{10, 0x04, "compressed length, 2^18"},
		{11, 0x80, "compressed length, top bit"},
		{12, 0x08, "uncompressed length, low byte"},
		{15, 0x10, "uncompressed length, high byte"},
		{16, 0x01, "record count, low bit"},
		{19, 0x01, "record count, high byte"},
		{20, 0x20, "data CRC"},
		{24, 0x20, "header CRC"},
	};
	struct sample *s = sample();

	for (size_t k = 0; k < s->nchunks; k++)
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
			check_chunk_lost(k, s->ch[k].start + cases[c].at, cases[c].mask,
					 cases[c].what);
}

TEST(two_adjacent_bad_chunks_count_twice)
{
	struct sample *s = sample();
	struct result res;
	uint8_t *f = malloc(s->len);

	REQUIRE(f && s->nchunks >= 3);
	memcpy(f, s->file, s->len);
	f[s->ch[0].start + 30] ^= 1;
	f[s->ch[1].start + 30] ^= 1;
	read_bytes(f, s->len, &res);
	CHECK(res.bad == 2 && res.st == TRACE_DAMAGED, "%" PRIu64 " bad", res.bad);
	CHECK(!strncmp(res.damage, "chunks 0, 1 damaged (skipped); ", 31), "%s", res.damage);
	CHECK(recs__eq_except(&res.recs, &s->recs, 0, s->ch[0].nrec + s->ch[1].nrec));
	recs__free(&res.recs);
	free(f);
}

TEST(flipped_byte_in_footer)
{
	struct sample *s = sample();
	struct result res;

	for (size_t at = s->foot + 4; at < s->len; at += 7) {
		read_flipped(at, 0x02, &res);
		CHECK(res.err == 0 && res.st == TRACE_TRUNCATED && !res.footer, "footer byte %zu",
		      at - s->foot);
		/* a longer length reads like a file cut inside the footer */
		CHECK(res.bad == 1 || (at < s->foot + 8 && res.bad == 0),
		      "a damaged footer counts as damage (byte %zu)", at - s->foot);
		CHECK(res.recs.n == SAMPLE_RECS);
		recs__free(&res.recs);
	}
}

/* A length too large to be a cut file: damage, even with nothing after it. */
TEST(insane_length_at_the_end)
{
	struct sample *s = sample();
	size_t last = s->ch[s->nchunks - 1].start;
	struct result res;
	uint8_t *f = malloc(s->len);

	REQUIRE(f);
	read_flipped(s->foot + 7, 0x01, &res);
	CHECK(res.bad == 1 && res.st == TRACE_TRUNCATED && res.recs.n == SAMPLE_RECS,
	      "footer length 2^24: %" PRIu64 " bad", res.bad);
	recs__free(&res.recs);
	memcpy(f, s->file, s->foot);
	f[last + 15] ^= 0x80; /* U of the last chunk of a file without footer */
	read_bytes(f, s->foot, &res);
	CHECK(res.bad == 1 && res.st == TRACE_TRUNCATED, "%" PRIu64 " bad", res.bad);
	CHECK(recs__eq_except(&res.recs, &s->recs, s->ch[s->nchunks - 1].first,
			      s->ch[s->nchunks - 1].nrec));
	recs__free(&res.recs);
	free(f);
}

/* A chunk of raw (or, with zlib false, stored as is) bytes with valid CRCs. */
static size_t craft_chunk(uint8_t *out, uint32_t seq, const void *raw, size_t rawlen, uint32_t ulen,
			  uint32_t nrec, bool zlib)
{
	uLongf zlen = compressBound(rawlen);

	if (zlib && compress2(out + CHDR, &zlen, raw, rawlen, 6) != Z_OK)
		abort();
	if (!zlib) {
		zlen = rawlen;
		memcpy(out + CHDR, raw, rawlen);
	}
	memcpy(out, "CHNK", 4);
	put32(out + 4, seq);
	put32(out + 8, zlen);
	put32(out + 12, ulen);
	put32(out + 16, nrec);
	put32(out + 20, crc32(0, out + CHDR, zlen));
	put32(out + 24, crc32(0, out + 4, 20));
	return CHDR + zlen;
}

/* Gives a copy of a chunk another sequence number (and a valid header CRC). */
static void restamp(uint8_t *chunk, uint32_t seq)
{
	put32(chunk + 4, seq);
	put32(chunk + 24, crc32(0, chunk + 4, 20));
}

/* A valid footer counting nrec records in nchunks chunks. */
static size_t craft_footer(uint8_t *out, uint64_t nrec, uint64_t nchunks)
{
	memset(out, 0, 12 + 136);
	memcpy(out, "FOOT", 4);
	put32(out + 4, 136);
	put32(out + 20, (uint32_t)nrec);
	put32(out + 24, (uint32_t)(nrec >> 32));
	put32(out + 28, (uint32_t)nchunks);
	put32(out + 32, (uint32_t)(nchunks >> 32));
	put32(out + 8, crc32(crc32(0, out + 4, 4), out + 12, 136));
	return 12 + 136;
}

/*
 * header | crafted chunk 0 | the sample's first chunk as chunk 1 | a footer
 * counting both: the crafted chunk passes its CRCs, so only the reader's
 * structural checks can catch what is wrong inside.
 */
static void check_crafted(const void *raw, size_t rawlen, int32_t ulen_delta, int32_t nrec,
			  bool zlib, bool valid, const char *what)
{
	struct sample *s = sample();
	size_t c0 = s->ch[0].end - s->ch[0].start, len;
	uint8_t *f = malloc(s->hdr_end + 64 + 2 * rawlen + c0 + 12 + 136);
	struct recs want = {0};
	struct result res;

	if (!f)
		abort();
	memcpy(f, s->file, s->hdr_end);
	len = s->hdr_end;
	len += craft_chunk(f + len, 0, raw, rawlen, rawlen + ulen_delta, nrec, zlib);
	memcpy(f + len, s->file + s->ch[0].start, c0);
	restamp(f + len, 1);
	len += c0;
	len += craft_footer(f + len, nrec + s->ch[0].nrec, 2);
	read_bytes(f, len, &res);
	for (size_t off = 0; valid && off < rawlen; off += ((const struct xlp_hdr *)raw)->size)
		recs__add(&want, (const void *)((const uint8_t *)raw + off));
	for (size_t i = 0; i < s->ch[0].nrec; i++)
		recs__add(&want, (const void *)(s->recs.data + s->recs.off[i]));
	CHECK(res.err == 0 && res.st == (valid ? TRACE_COMPLETE : TRACE_DAMAGED), "%s: %d %d", what,
	      res.err, res.st);
	CHECK(res.bad == !valid && res.good == 1u + valid, "%s: %" PRIu64 " bad", what, res.bad);
	CHECK(valid || !strncmp(res.damage, "chunk 0 damaged (skipped)", 25), "%s: '%s'", what,
	      res.damage);
	CHECK(recs__eq_except(&res.recs, &want, 0, 0), "%s: %zu records", what, res.recs.n);
	recs__free(&res.recs);
	recs__free(&want);
	free(f);
}

TEST(crafted_chunks_with_valid_crc)
{
	uint64_t raw[64] = {0};
	struct xlp_hdr *h = (struct xlp_hdr *)raw;
	size_t len = 4 * sizeof(struct xlp_launch_rec);

	/* four launch records: 160 bytes */
	for (int i = 0; i < 4; i++)
		h[i * 5] = (struct xlp_hdr){XLP_R_LAUNCH, sizeof(struct xlp_launch_rec), i};
	check_crafted(raw, len, 0, 4, true, true, "control");
	check_crafted(raw, len, 0, 5, true, false, "one record more than there are");
	check_crafted(raw, len, 0, 3, true, false, "one record fewer");
	check_crafted(raw, len, 0, 0, true, false, "no records");
	check_crafted(raw, len, 8, 4, true, false, "U larger than the data");
	check_crafted(raw, len, -8, 4, true, false, "U smaller than the data");
	check_crafted(raw, len, 0, 4, false, false, "not zlib");
	check_crafted(raw, 0, 0, 1, false, false, "nothing at all");
	h[15].size = 48; /* last record runs past the end */
	check_crafted(raw, len, 0, 4, true, false, "record past the end");
	h[15].size = 36;
	check_crafted(raw, len, 0, 4, true, false, "size not a multiple of 8");
	h[15].size = 8; /* a launch record needs 40 */
	check_crafted(raw, len - 32, 0, 4, true, false, "known type too small");
	h[15].size = 0;
	check_crafted(raw, len, 0, 4, true, false, "size 0");
	h[15] = (struct xlp_hdr){999, 40, 0};
	check_crafted(raw, len, 0, 4, true, true, "unknown type: passed through");
	/* sizes that add up, but would leave later records misaligned */
	memset(raw, 0, sizeof(raw));
	memcpy(raw, &(struct xlp_hdr){999, 12, 0}, 8);
	memcpy((uint8_t *)raw + 12, &(struct xlp_hdr){998, 20, 0}, 8);
	memcpy((uint8_t *)raw + 32, &(struct xlp_hdr){997, 8, 0}, 8);
	check_crafted(raw, 40, 0, 3, true, false, "unknown types, unaligned sizes");
}

/* Garbage with no tag in it, then a chunk: found wherever it starts. */
TEST(resync_across_scan_blocks)
{
	static const size_t around[] = {4096, 65536, 131072};
	struct sample *s = sample();
	size_t c0 = s->ch[0].end - s->ch[0].start, flen = s->len - s->foot;
	uint8_t *f = malloc(s->hdr_end + 140000 + c0 + flen);
	struct result res;

	REQUIRE(f);
	memcpy(f, s->file, s->hdr_end);
	for (size_t a = 0; a < 3; a++) {
		for (size_t g = around[a] - 6; g < around[a] + 6; g++) {
			memset(f + s->hdr_end, 0x55, g);
			memcpy(f + s->hdr_end + g, s->file + s->ch[0].start, c0);
			memcpy(f + s->hdr_end + g + c0, s->file + s->foot, flen);
			read_bytes(f, s->hdr_end + g + c0 + flen, &res);
			/* the footer counts the sample's chunks: all but the first missing */
			CHECK(res.bad == 1 && res.good == 1 && res.st == TRACE_DAMAGED,
			      "%zu bytes of garbage: %" PRIu64 " bad %" PRIu64 " good", g, res.bad,
			      res.good);
			CHECK(recs__eq_except(&res.recs, &s->recs, s->ch[0].nrec,
					      SAMPLE_RECS - s->ch[0].nrec),
			      "%zu bytes of garbage", g);
			recs__free(&res.recs);
		}
	}
	free(f);
}

TEST(flipped_byte_in_header)
{
	struct sample *s = sample();
	struct result res;

	read_flipped(0, 0x20, &res);
	CHECK(res.err && strstr(res.why, "not an xlprobe trace file"), "%s", res.why);
	for (size_t at = 8; at < s->hdr_end; at += 5) {
		read_flipped(at, 0x01, &res);
		CHECK(res.err == -EBADMSG &&
			      !strncmp(res.why, "header is corrupt or truncated", 30),
		      "byte %zu: %d %s", at, res.err, res.why);
	}
}

TEST(random_damage_never_crashes)
{
	struct sample *s = sample();
	uint8_t *f = malloc(s->len);
	char path[256];
	struct result res;

	REQUIRE(f);
	tmp_path(path, "damaged.xlp");
	for (int i = 0; i < 150; i++) {
		size_t len = s->len;

		rng = 1000 + i;
		memcpy(f, s->file, s->len);
		for (int m = rnd() % 4 + 1; m > 0; m--) {
			size_t at = rnd() % len, span = rnd() % 64 + 1;

			if (m == 1 && rnd() % 4 == 0)
				len = at; /* and cut the file */
			for (size_t j = at; j < at + span && j < len; j++)
				f[j] = i % 3 ? rnd() : 0;
		}
		/* keep the header intact in most runs so the chunks get exercised */
		if (i % 5)
			memcpy(f, s->file, s->hdr_end < len ? s->hdr_end : len);
		read_bytes(f, len, &res);
		CHECK(res.err == 0 || res.why[0], "run %d: error without a reason", i);
		CHECK(recs__subseq(&res.recs, &s->recs), "run %d: a record was not in the original",
		      i);
		CHECK(res.good <= s->nchunks, "run %d", i);
		recs__free(&res.recs);
		CHECK(dump_quiet(path, i % 2) <= 1, "run %d", i);
	}
	free(f);
}

/* ---- header errors ---- */

static void check_open_fails(const char *path, const char *why)
{
	char *argv[] = {"dump", (char *)path, NULL};
	char ebuf[256], want[512];
	struct result res;
	size_t n;
	uint8_t *e;

	read_back(path, &res);
	CHECK(res.err < 0 && strstr(res.why, why), "%s: %d '%s'", path, res.err, res.why);
	CHECK(run_dump(NULL, tmp_path(ebuf, "stderr"), 2, argv) == 1, "dump of %s exits 1", path);
	e = slurp(ebuf, &n);
	e[n] = 0;
	snprintf(want, sizeof(want), "xlprobe: %s: %s\n", path, res.why);
	CHECK(!strcmp((char *)e, want), "dump said '%s'", (char *)e);
	CHECK(strchr(res.why, ':') != NULL, "'%s' gives a fix after the cause", res.why);
	free(e);
}

TEST(newer_format_version)
{
	struct sample *s = sample();
	uint8_t *f = malloc(s->len);
	char path[256], want[128];
	uint32_t plen = le32(s->file + 12);

	REQUIRE(f);
	memcpy(f, s->file, s->len);
	put32(f + 8, XLP_TRACE_VERSION + 1);
	put32(f + 16, crc32(crc32(0, f + 8, 8), f + 20, plen));
	spit(tmp_path(path, "newer.xlp"), f, s->len);
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
	spit(tmp_path(path, "text.xlp"), "hello, world\n", 13);
	check_open_fails(path, "not an xlprobe trace file");
	spit(tmp_path(path, "tiny.xlp"), "XL", 2);
	check_open_fails(path, "not an xlprobe trace file");
	spit(tmp_path(path, "magic.xlp"), "XLPROBE\0\1\0", 10);
	check_open_fails(path, "header is corrupt or truncated");
	spit(tmp_path(path, "empty.xlp"), "", 0);
	check_open_fails(path, "empty file");
	check_open_fails(tmp_path(path, "missing.xlp"), "no such file");
	check_open_fails(tmpdir, "not a regular file");
}

/* ---- write errors ---- */

TEST(dev_full)
{
	struct trace_writer *w = (void *)1;

	CHECK(trace_writer__open("/dev/full", &sample_meta, &w) == -ENOSPC);
	CHECK(w == NULL);
	CHECK(trace_writer__open("/nonexistent-dir/x.xlp", &sample_meta, &w) == -ENOENT);
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
	struct result res;
	size_t i, len, hdr, foot, n, whole = 0;
	struct chunk *ch = calloc(MAX_CHUNKS, sizeof(*ch));
	uint8_t *f;
	int err = 0;

	REQUIRE(ch);
	REQUIRE(!trace_writer__open(path, &sample_meta, &w));
	for (i = 0; i < 5000000 && !err; i++)
		err = trace_writer__append(w, gen_small(&c, i));
	CHECK(err == -ENOSPC, "append returned %d after %zu records", err, i);
	/* with room again, the writer must still not leave a gap in the file */
	CHECK(!unlink(filler));
	CHECK(trace_writer__append(w, gen_small(&c, i)) == -ENOSPC, "the error is sticky");
	CHECK(trace_writer__flush(w) == -ENOSPC);
	CHECK(trace_writer__close(w, &sample_footer) == -ENOSPC);

	f = slurp(path, &len);
	n = walk(f, len, ch, &hdr, &foot);
	for (size_t k = 0; k < n; k++)
		whole += ch[k].nrec;
	CHECK(n >= 2, "%zu chunks fit", n);
	CHECK(foot == len, "the partial chunk was cut off (%zu of %zu)", foot, len);
	read_back(path, &res);
	CHECK(res.err == 0 && res.st == TRACE_TRUNCATED && res.bad == 0);
	CHECK(res.recs.n == whole && whole > 0, "%zu records, %zu in whole chunks", res.recs.n,
	      whole);
	for (size_t j = 0; j < res.recs.n; j++)
		if (memcmp(res.recs.data + res.recs.off[j], gen_small(&c, j), sizeof(c))) {
			CHECK(0, "record %zu differs", j);
			break;
		}
	recs__free(&res.recs);
	CHECK(dump_quiet(path, false) == 0);
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
	tmp_path(dir, "full");
	REQUIRE(!mkdir(dir, 0755));
	REQUIRE(!mount("xlp-test", dir, "tmpfs", 0, "size=64k"), "mount: %s", strerror(errno));
	snprintf(filler, sizeof(filler), "%s/filler", dir);
	spit(filler, zeros, sizeof(zeros));
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

	*rc = run_dump(tmp_path(out, "stdout"), tmp_path(ebuf, "stderr"), argc, argv);
	s = (char *)slurp(out, &n);
	s[n] = 0;
	*err = (char *)slurp(ebuf, &n);
	(*err)[n] = 0;
	return s;
}

TEST(dump_text_complete)
{
	struct sample *s = sample();
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
	REQUIRE(!trace_writer__open(tmp_path(path, "lines.xlp"), &sample_meta, &w));
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

	REQUIRE(!trace_writer__open(tmp_path(path, "syms.xlp"), &sample_meta, &w));
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
	struct sample *s = sample();
	char path[256], cmd[1024], got[256], *argv[] = {"dump", s->path, "--json", NULL};
	int rc;

	rc = run_dump(tmp_path(path, "dump.json"), NULL, 3, argv);
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
	struct sample *s = sample();
	char path[256], cmd[512], got[128], *argv[] = {"dump", path, "--json", NULL};
	uint8_t *f = malloc(s->len);

	REQUIRE(f);
	memcpy(f, s->file, s->len);
	f[s->ch[1].start + 40] ^= 1;
	spit(tmp_path(path, "bad.xlp"), f, s->foot + 3);
	free(f);
	CHECK(run_dump(tmp_path(cmd, "bad.json"), NULL, 3, argv) == 1);
	REQUIRE(!tl_run("command -v python3", NULL, 0),
		"python3 missing: run tools/install-deps.sh (make test does)");
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
		 "print(len(d[\"records\"]), d[\"status\"], d[\"bad_chunks\"], d[\"footer\"])' "
		 "%s/bad.json",
		 tmpdir);
	CHECK(tl_run(cmd, got, sizeof(got)) == 0);
	snprintf(cmd, sizeof(cmd), "%zu truncated 1 None\n", SAMPLE_RECS - s->ch[1].nrec);
	CHECK(!strcmp(got, cmd), "python printed '%s'", got);
}

TEST(dump_warns_on_bad_chunks)
{
	struct sample *s = sample();
	char path[256], *argv[] = {"dump", path, NULL}, *out, *err, want[512];
	uint8_t *f = malloc(s->len);
	int rc;

	REQUIRE(f);
	memcpy(f, s->file, s->len);
	f[s->ch[0].start + 40] ^= 1;
	spit(tmp_path(path, "bad.xlp"), f, s->len);
	free(f);
	out = dump_to_string(argv, 2, &rc, &err);
	snprintf(want, sizeof(want),
		 "xlprobe: warning: %s: chunk 0 damaged (skipped); the footer counts %d records "
		 "in %zu chunks, %zu records in %zu chunks were read\n",
		 path, SAMPLE_RECS, s->nchunks, SAMPLE_RECS - s->ch[0].nrec, s->nchunks - 1);
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
