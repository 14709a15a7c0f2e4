/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The trace tests' shared helpers (tracetest.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"
#include "tracetest.h"
#include "xlptest.h"

uint64_t trt_rng;

uint64_t trt_rnd(void)
{
	trt_rng ^= trt_rng >> 12;
	trt_rng ^= trt_rng << 25;
	trt_rng ^= trt_rng >> 27;
	return trt_rng * 0x2545f4914f6cdd1dull;
}

void trt_recs__add(struct trt_recs *rs, const struct xlp_hdr *h)
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

void trt_recs__free(struct trt_recs *rs)
{
	free(rs->data);
	free(rs->off);
	memset(rs, 0, sizeof(*rs));
}

/* Bytes of records [from, to) of rs. */
size_t trt_recs__span(const struct trt_recs *rs, size_t from, size_t to)
{
	size_t end = to < rs->n ? rs->off[to] : rs->len;

	return from < to ? end - rs->off[from] : 0;
}

bool trt_recs__range_eq(const struct trt_recs *got, size_t gfrom, const struct trt_recs *want,
			size_t wfrom, size_t n)
{
	size_t len = trt_recs__span(want, wfrom, wfrom + n);

	if (!n)
		return true;
	if (gfrom + n > got->n || wfrom + n > want->n ||
	    trt_recs__span(got, gfrom, gfrom + n) != len)
		return false;
	return !memcmp(got->data + got->off[gfrom], want->data + want->off[wfrom], len);
}

/* got == want minus the skip records starting at skip_from. */
bool trt_recs__eq_except(const struct trt_recs *got, const struct trt_recs *want, size_t skip_from,
			 size_t skip)
{
	return got->n + skip == want->n && trt_recs__range_eq(got, 0, want, 0, skip_from) &&
	       trt_recs__range_eq(got, skip_from, want, skip_from + skip,
				  want->n - skip_from - skip);
}

/* Every record of got appears in want, in order. */
bool trt_recs__subseq(const struct trt_recs *got, const struct trt_recs *want)
{
	size_t w = 0;

	for (size_t g = 0; g < got->n; g++) {
		while (w < want->n && !trt_recs__range_eq(got, g, want, w, 1))
			w++;
		if (w++ == want->n)
			return false;
	}
	return true;
}

const char *trt_tmp_path(char *buf, const char *name)
{
	snprintf(buf, 256, "%s", xt_tmp_path(name));
	return buf;
}

uint8_t *trt_slurp(const char *path, size_t *len)
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

void trt_spit(const char *path, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, p, len) != (ssize_t)len || close(fd))
		abort();
}

uint32_t trt_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

void trt_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

/* ---- the sample trace ---- */

static struct xlp_func_info trt_sample_funcs[3] = {
	{0, XLP_FUNC_INTERACTION, 0x1234, "/usr/bin/app", "on_click", "0123456789abcdef"},
	{1, 0, 0x5678, "/usr/lib/libfoo.so.1", "decode", ""},
	{2, 0, 0x9abc, "/usr/bin/app", "render \"q\"\n\\", "deadbeef"},
};

struct xlp_trace_meta trt_sample_meta = {
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
	.funcs = trt_sample_funcs,
};

const struct xlp_trace_footer trt_sample_footer = {
	.end_ns = 987654321,
	.stat = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
	.lost_by_reader = 13,
	.stop_reason = XLP_STOP_SIGNAL,
};

/* Record i: every type in turn, then one the reader does not know. */
const struct xlp_hdr *trt_gen_record(uint64_t *buf, size_t i)
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
		buf[w] = trt_rnd() % 3 ? trt_rnd() % 1000000 : 0;
	h->type = type <= XLP_R_STATS ? type : TRT_UNKNOWN_TYPE;
	h->size = size;
	h->cpu = i % 8;
	return h;
}

/* Chunk table from the documented framing; returns the number of chunks. */
size_t trt_walk(const uint8_t *f, size_t len, struct trt_chunk *ch, size_t *hdr_end, size_t *foot)
{
	size_t pos = len >= 20 ? 20 + trt_le32(f + 12) : len, n = 0, rec = 0;

	*hdr_end = pos;
	while (n < TRT_MAX_CHUNKS && pos + TRT_CHDR <= len && !memcmp(f + pos, "CHNK", 4) &&
	       pos + TRT_CHDR + trt_le32(f + pos + 8) <= len) {
		ch[n] = (struct trt_chunk){pos, pos + TRT_CHDR + trt_le32(f + pos + 8), rec,
					   trt_le32(f + pos + 16), trt_le32(f + pos + 12)};
		rec += ch[n].nrec;
		pos = ch[n++].end;
	}
	*foot = pos;
	return n;
}

int trt_write_records(const char *path, const struct xlp_trace_meta *meta, size_t nrec,
		      struct trt_recs *rs, const struct xlp_trace_footer *ft)
{
	static uint64_t buf[8192];
	struct trace_writer *w;
	int err;

	trt_rng = 42;
	err = trace_writer__open(path, meta, &w);
	if (err)
		return err;
	for (size_t i = 0; i < nrec; i++) {
		const struct xlp_hdr *h = trt_gen_record(buf, i);

		trt_recs__add(rs, h);
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
struct trt_sample *trt_sample(void)
{
	static struct trt_sample *s;

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		abort();
	trt_tmp_path(s->path, "sample.xlp");
	if (trt_write_records(s->path, &trt_sample_meta, TRT_SAMPLE_RECS, &s->recs,
			      &trt_sample_footer))
		abort();
	s->file = trt_slurp(s->path, &s->len);
	s->nchunks = trt_walk(s->file, s->len, s->ch, &s->hdr_end, &s->foot);
	return s;
}

/* ---- reading back ---- */

void trt_read_back(const char *path, struct trt_result *res)
{
	struct trace_reader *r;
	const struct xlp_hdr *h;
	int err;

	memset(res, 0, sizeof(*res));
	res->err = trace_reader__open(path, &r, res->why, sizeof(res->why));
	if (res->err)
		return;
	while ((err = trace_reader__next(r, &h)) > 0)
		trt_recs__add(&res->recs, h);
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

void trt_read_bytes(const void *file, size_t len, struct trt_result *res)
{
	char path[256];

	trt_spit(trt_tmp_path(path, "damaged.xlp"), file, len);
	trt_read_back(path, res);
}

int trt_dump_quiet(const char *path, bool json)
{
	char *argv[] = {"dump", (char *)path, json ? "--json" : NULL, NULL};

	return xt_cmd(cmd_dump, json ? 3 : 2, argv, NULL, NULL);
}
