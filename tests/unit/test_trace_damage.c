/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The trace reader against damage: a byte flipped in every framing field
 * (chunk data, chunk header, footer, header), lengths and CRCs crafted to
 * hold, re-synchronisation across scan blocks, random damage; dump exits
 * 1 and never crashes on any of it.
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

/* CHECK(cond) with no message expands to fprintf(stderr, "") */
#pragma GCC diagnostic ignored "-Wformat-zero-length"

/* ---- corruption ---- */

/* Damages one byte of a copy of the sample trace and reads it back. */
static void read_flipped(size_t at, uint8_t mask, struct trt_result *res)
{
	struct trt_sample *s = trt_sample();
	uint8_t *f = malloc(s->len);

	if (!f)
		abort();
	memcpy(f, s->file, s->len);
	f[at] ^= mask;
	trt_read_bytes(f, s->len, res);
	free(f);
}

/*
 * One chunk lost, everything else read, the footer still found, and the
 * file said to be damaged: the chunk named damaged when its header is
 * sound, missing when not.
 */
static void check_chunk_lost(size_t k, size_t at, uint8_t mask, const char *what)
{
	struct trt_sample *s = trt_sample();
	char path[256], want[64];
	struct trt_result res;

	read_flipped(at, mask, &res);
	CHECK(res.err == 0, "%s of chunk %zu: %d", what, k, res.err);
	CHECK(res.bad == 1 && res.good == s->nchunks - 1,
	      "%s of chunk %zu: %" PRIu64 " bad, %" PRIu64 " good", what, k, res.bad, res.good);
	CHECK(res.st == TRACE_DAMAGED, "%s of chunk %zu", what, k);
	snprintf(want, sizeof(want), "chunk %zu %s", k,
		 at >= s->ch[k].start + TRT_CHDR ? "damaged (skipped)" : "missing (lost 1 chunk)");
	CHECK(!strncmp(res.damage, want, strlen(want)), "%s of chunk %zu: '%s'", what, k,
	      res.damage);
	CHECK(trt_recs__eq_except(&res.recs, &s->recs, s->ch[k].first, s->ch[k].nrec),
	      "%s of chunk %zu: %zu records", what, k, res.recs.n);
	trt_recs__free(&res.recs);
	CHECK(trt_dump_quiet(trt_tmp_path(path, "damaged.xlp"), k % 2) == 1,
	      "dump exits 1 on bad chunks");
}

TEST(flipped_byte_in_chunk_data)
{
	struct trt_sample *s = trt_sample();

	for (size_t k = 0; k < s->nchunks; k++) {
		size_t zlen = s->ch[k].end - s->ch[k].start - TRT_CHDR;

		check_chunk_lost(k, s->ch[k].start + TRT_CHDR, 0x01, "first data byte");
		check_chunk_lost(k, s->ch[k].start + TRT_CHDR + zlen / 2, 0x40, "middle data byte");
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
	struct trt_sample *s = trt_sample();

	for (size_t k = 0; k < s->nchunks; k++)
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
			check_chunk_lost(k, s->ch[k].start + cases[c].at, cases[c].mask,
					 cases[c].what);
}

TEST(two_adjacent_bad_chunks_count_twice)
{
	struct trt_sample *s = trt_sample();
	struct trt_result res;
	uint8_t *f = malloc(s->len);

	REQUIRE(f && s->nchunks >= 3);
	memcpy(f, s->file, s->len);
	f[s->ch[0].start + 30] ^= 1;
	f[s->ch[1].start + 30] ^= 1;
	trt_read_bytes(f, s->len, &res);
	CHECK(res.bad == 2 && res.st == TRACE_DAMAGED, "%" PRIu64 " bad", res.bad);
	CHECK(!strncmp(res.damage, "chunks 0, 1 damaged (skipped); ", 31), "%s", res.damage);
	CHECK(trt_recs__eq_except(&res.recs, &s->recs, 0, s->ch[0].nrec + s->ch[1].nrec));
	trt_recs__free(&res.recs);
	free(f);
}

TEST(flipped_byte_in_footer)
{
	struct trt_sample *s = trt_sample();
	struct trt_result res;

	for (size_t at = s->foot + 4; at < s->len; at += 7) {
		read_flipped(at, 0x02, &res);
		CHECK(res.err == 0 && res.st == TRACE_TRUNCATED && !res.footer, "footer byte %zu",
		      at - s->foot);
		/* a longer length reads like a file cut inside the footer */
		CHECK(res.bad == 1 || (at < s->foot + 8 && res.bad == 0),
		      "a damaged footer counts as damage (byte %zu)", at - s->foot);
		CHECK(res.recs.n == TRT_SAMPLE_RECS);
		trt_recs__free(&res.recs);
	}
}

/* A length too large to be a cut file: damage, even with nothing after it. */
TEST(insane_length_at_the_end)
{
	struct trt_sample *s = trt_sample();
	size_t last = s->ch[s->nchunks - 1].start;
	struct trt_result res;
	uint8_t *f = malloc(s->len);

	REQUIRE(f);
	read_flipped(s->foot + 7, 0x01, &res);
	CHECK(res.bad == 1 && res.st == TRACE_TRUNCATED && res.recs.n == TRT_SAMPLE_RECS,
	      "footer length 2^24: %" PRIu64 " bad", res.bad);
	trt_recs__free(&res.recs);
	memcpy(f, s->file, s->foot);
	f[last + 15] ^= 0x80; /* U of the last chunk of a file without footer */
	trt_read_bytes(f, s->foot, &res);
	CHECK(res.bad == 1 && res.st == TRACE_TRUNCATED, "%" PRIu64 " bad", res.bad);
	CHECK(trt_recs__eq_except(&res.recs, &s->recs, s->ch[s->nchunks - 1].first,
				  s->ch[s->nchunks - 1].nrec));
	trt_recs__free(&res.recs);
	free(f);
}

/* A chunk of raw (or, with zlib false, stored as is) bytes with valid CRCs. */
static size_t craft_chunk(uint8_t *out, uint32_t seq, const void *raw, size_t rawlen, uint32_t ulen,
			  uint32_t nrec, bool zlib)
{
	uLongf zlen = compressBound(rawlen);

	if (zlib && compress2(out + TRT_CHDR, &zlen, raw, rawlen, 6) != Z_OK)
		abort();
	if (!zlib) {
		zlen = rawlen;
		memcpy(out + TRT_CHDR, raw, rawlen);
	}
	memcpy(out, "CHNK", 4);
	trt_put32(out + 4, seq);
	trt_put32(out + 8, zlen);
	trt_put32(out + 12, ulen);
	trt_put32(out + 16, nrec);
	trt_put32(out + 20, crc32(0, out + TRT_CHDR, zlen));
	trt_put32(out + 24, crc32(0, out + 4, 20));
	return TRT_CHDR + zlen;
}

/* Gives a copy of a chunk another sequence number (and a valid header CRC). */
static void restamp(uint8_t *chunk, uint32_t seq)
{
	trt_put32(chunk + 4, seq);
	trt_put32(chunk + 24, crc32(0, chunk + 4, 20));
}

/* A valid footer counting nrec records in nchunks chunks. */
static size_t craft_footer(uint8_t *out, uint64_t nrec, uint64_t nchunks)
{
	memset(out, 0, 12 + 136);
	memcpy(out, "FOOT", 4);
	trt_put32(out + 4, 136);
	trt_put32(out + 20, (uint32_t)nrec);
	trt_put32(out + 24, (uint32_t)(nrec >> 32));
	trt_put32(out + 28, (uint32_t)nchunks);
	trt_put32(out + 32, (uint32_t)(nchunks >> 32));
	trt_put32(out + 8, crc32(crc32(0, out + 4, 4), out + 12, 136));
	return 12 + 136;
}

/*
 * header | crafted chunk 0 | the sample trace's first chunk as chunk 1 | a footer
 * counting both: the crafted chunk passes its CRCs, so only the reader's
 * structural checks can catch what is wrong inside.
 */
static void check_crafted(const void *raw, size_t rawlen, int32_t ulen_delta, int32_t nrec,
			  bool zlib, bool valid, const char *what)
{
	struct trt_sample *s = trt_sample();
	size_t c0 = s->ch[0].end - s->ch[0].start, len;
	uint8_t *f = malloc(s->hdr_end + 64 + 2 * rawlen + c0 + 12 + 136);
	struct trt_recs want = {0};
	struct trt_result res;

	if (!f)
		abort();
	memcpy(f, s->file, s->hdr_end);
	len = s->hdr_end;
	len += craft_chunk(f + len, 0, raw, rawlen, rawlen + ulen_delta, nrec, zlib);
	memcpy(f + len, s->file + s->ch[0].start, c0);
	restamp(f + len, 1);
	len += c0;
	len += craft_footer(f + len, nrec + s->ch[0].nrec, 2);
	trt_read_bytes(f, len, &res);
	for (size_t off = 0; valid && off < rawlen; off += ((const struct xlp_hdr *)raw)->size)
		trt_recs__add(&want, (const void *)((const uint8_t *)raw + off));
	for (size_t i = 0; i < s->ch[0].nrec; i++)
		trt_recs__add(&want, (const void *)(s->recs.data + s->recs.off[i]));
	CHECK(res.err == 0 && res.st == (valid ? TRACE_COMPLETE : TRACE_DAMAGED), "%s: %d %d", what,
	      res.err, res.st);
	CHECK(res.bad == !valid && res.good == 1u + valid, "%s: %" PRIu64 " bad", what, res.bad);
	CHECK(valid || !strncmp(res.damage, "chunk 0 damaged (skipped)", 25), "%s: '%s'", what,
	      res.damage);
	CHECK(trt_recs__eq_except(&res.recs, &want, 0, 0), "%s: %zu records", what, res.recs.n);
	trt_recs__free(&res.recs);
	trt_recs__free(&want);
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
	struct trt_sample *s = trt_sample();
	size_t c0 = s->ch[0].end - s->ch[0].start, flen = s->len - s->foot;
	uint8_t *f = malloc(s->hdr_end + 140000 + c0 + flen);
	struct trt_result res;

	REQUIRE(f);
	memcpy(f, s->file, s->hdr_end);
	for (size_t a = 0; a < 3; a++) {
		for (size_t g = around[a] - 6; g < around[a] + 6; g++) {
			memset(f + s->hdr_end, 0x55, g);
			memcpy(f + s->hdr_end + g, s->file + s->ch[0].start, c0);
			memcpy(f + s->hdr_end + g + c0, s->file + s->foot, flen);
			trt_read_bytes(f, s->hdr_end + g + c0 + flen, &res);
			/* the footer counts the sample trace's chunks: all but the first missing */
			CHECK(res.bad == 1 && res.good == 1 && res.st == TRACE_DAMAGED,
			      "%zu bytes of garbage: %" PRIu64 " bad %" PRIu64 " good", g, res.bad,
			      res.good);
			CHECK(trt_recs__eq_except(&res.recs, &s->recs, s->ch[0].nrec,
						  TRT_SAMPLE_RECS - s->ch[0].nrec),
			      "%zu bytes of garbage", g);
			trt_recs__free(&res.recs);
		}
	}
	free(f);
}

TEST(flipped_byte_in_header)
{
	struct trt_sample *s = trt_sample();
	struct trt_result res;

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
	struct trt_sample *s = trt_sample();
	uint8_t *f = malloc(s->len);
	char path[256];
	struct trt_result res;

	REQUIRE(f);
	trt_tmp_path(path, "damaged.xlp");
	for (int i = 0; i < 150; i++) {
		size_t len = s->len;

		trt_rng = 1000 + i;
		memcpy(f, s->file, s->len);
		for (int m = trt_rnd() % 4 + 1; m > 0; m--) {
			size_t at = trt_rnd() % len, span = trt_rnd() % 64 + 1;

			if (m == 1 && trt_rnd() % 4 == 0)
				len = at; /* and cut the file */
			for (size_t j = at; j < at + span && j < len; j++)
				f[j] = i % 3 ? trt_rnd() : 0;
		}
		/* keep the header intact in most runs so the chunks get exercised */
		if (i % 5)
			memcpy(f, s->file, s->hdr_end < len ? s->hdr_end : len);
		trt_read_bytes(f, len, &res);
		CHECK(res.err == 0 || res.why[0], "run %d: error without a reason", i);
		CHECK(trt_recs__subseq(&res.recs, &s->recs),
		      "run %d: a record was not in the original", i);
		CHECK(res.good <= s->nchunks, "run %d", i);
		trt_recs__free(&res.recs);
		CHECK(trt_dump_quiet(path, i % 2) <= 1, "run %d", i);
	}
	free(f);
}

TEST_MAIN()
