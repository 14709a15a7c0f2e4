/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Damaged and forged traces for the reader's tests (synth.h): chunks reordered, ids and footers
 * forged, temporary files. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "synth.h"
#include "xlptest.h"
#include "testlib.h"

/* ---- damaging a trace ---- */

#define CHDR 28 /* version 2 chunk header */

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

uint8_t *synth__slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (p = malloc(n + 1)) && fread(p, 1, n, f) == (size_t)n) {
		p[n] = 0;
		*len = n;
	} else {
		free(p);
		p = NULL;
	}
	fclose(f);
	return p;
}

static int spit(const char *path, const uint8_t *p, size_t len)
{
	FILE *f = fopen(path, "wb");
	int err = 0;

	if (!f)
		return -errno;
	if (fwrite(p, 1, len, f) != len)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

size_t synth__chunks(const uint8_t *f, size_t len, size_t *start, size_t max, size_t *foot)
{
	size_t pos = len >= 20 ? 20 + le32(f + 12) : len, n = 0;
	/* version 1: a 20-byte chunk header, C at 4; version 2: 28, C at 8 */
	size_t hdr = len >= 20 && le32(f + 8) == 1 ? 20 : CHDR, c = hdr == 20 ? 4 : 8;

	while (n < max && pos + hdr <= len && !memcmp(f + pos, "CHNK", 4) &&
	       pos + hdr + le32(f + pos + c) <= len) {
		start[n++] = pos;
		pos += hdr + le32(f + pos + c);
	}
	*foot = pos;
	return n;
}

int synth__rechunk(const char *in, const char *out, const int *order, size_t n)
{
	size_t len, foot, nc, o, *st = NULL;
	uint8_t *f = synth__slurp(in, &len), *w = NULL;
	int err = -ENOMEM;

	if (!f)
		return -errno ? -errno : -EIO;
	st = malloc((len / CHDR + 1) * sizeof(*st));
	w = malloc(len * (n + 1));
	if (!st || !w)
		goto cleanup;
	nc = synth__chunks(f, len, st, len / CHDR + 1, &foot);
	o = nc ? st[0] : foot;
	memcpy(w, f, o);
	err = -EINVAL;
	for (size_t i = 0; i < n; i++) {
		size_t k = (size_t)order[i], e;

		if (k >= nc)
			goto cleanup;
		e = k + 1 < nc ? st[k + 1] : foot;
		memcpy(w + o, f + st[k], e - st[k]);
		o += e - st[k];
	}
	memcpy(w + o, f + foot, len - foot);
	err = spit(out, w, o + len - foot);
cleanup:
	free(st);
	free(w);
	free(f);
	return err;
}

int synth__forge_id(const char *path, uint32_t k, uint32_t id)
{
	size_t len, p = 20 + 5 * 4 + 3 * 8;
	uint8_t *f = synth__slurp(path, &len);
	int err;

	if (!f)
		return -EIO;
	for (int i = 0; i < 4; i++) /* host, kernel, cmdline, notes */
		p += 4 + le32(f + p);
	p += 4; /* nfuncs */
	for (uint32_t i = 0; i < k; i++) {
		p += 16;		    /* id, flags, offset */
		for (int j = 0; j < 3; j++) /* binary, symbol, build_id */
			p += 4 + le32(f + p);
	}
	put32(f + p, id);
	put32(f + 16, crc32(crc32(0, f + 8, 8), f + 20, le32(f + 12)));
	err = spit(path, f, len);
	free(f);
	return err;
}

int synth__forge_footer(const char *path, uint64_t nrecords, uint64_t nchunks)
{
	size_t len, foot;
	uint8_t *f = synth__slurp(path, &len), *p;
	int err = -EINVAL;

	if (!f)
		return -EIO;
	/* the footer ends the file: 12 bytes of framing and 136 of payload */
	foot = len - 12 - 136;
	if (len < 12 + 136 || memcmp(f + foot, "FOOT", 4))
		goto cleanup;
	p = f + foot + 12;
	put32(p + 8, (uint32_t)nrecords);
	put32(p + 12, (uint32_t)(nrecords >> 32));
	put32(p + 16, (uint32_t)nchunks);
	put32(p + 20, (uint32_t)(nchunks >> 32));
	put32(f + foot + 8, crc32(crc32(0, f + foot + 4, 4), p, 136));
	err = spit(path, f, len);
cleanup:
	free(f);
	return err;
}

/* ---- forged files ---- */

int synth__forge_resync(const char *path, int version, size_t body)
{
	size_t hlen, len, vlen;
	char src[512];
	uint8_t *v, *f;
	int err = -ENOMEM;

	if (version == 1) {
		snprintf(src, sizeof(src), "%s/tests/data/v1-net.xlp", tl_root());
	} else {
		struct synth_scenario sc = {.path = xt_tmp_path("forge-src.xlp"), .nruns = 1};

		snprintf(src, sizeof(src), "%s", sc.path);
		if ((err = synth__scenario(&sc)))
			return err;
	}
	v = synth__slurp(src, &vlen);
	if (!v || vlen < 20)
		return -ENOENT;
	hlen = 20 + le32(v + 12);
	len = hlen + body;
	f = calloc(1, len);
	if (!f)
		goto cleanup;
	memcpy(f, v, hlen);
	for (size_t o = hlen; version == 1 && o + 20 <= len; o += 20) {
		memcpy(f + o, "CHNK", 4);
		put32(f + o + 4, (uint32_t)(len - o - 20 - 1)); /* C */
		put32(f + o + 8, (uint32_t)(len - o - 20 - 1)); /* U */
		put32(f + o + 12, 1);				/* N */
	}
	for (size_t o = hlen; version != 1 && o + 4 <= hlen + body / 2; o += 4)
		memcpy(f + o, "CHNK", 4);
	for (size_t o = hlen + body / 2; version != 1 && o + CHDR <= len; o += 64) {
		memcpy(f + o, "CHNK", 4);
		put32(f + o + 8, (uint32_t)(len - o - CHDR - 1)); /* C */
		put32(f + o + 12, 64);				  /* U */
		put32(f + o + 16, 1);				  /* N */
		put32(f + o + 24, crc32(0, f + o + 4, 20));
	}
	err = spit(path, f, len);
cleanup:
	free(f);
	free(v);
	return err;
}

int synth__forge_nesting(const char *path, unsigned n)
{
	static const struct synth_func funcs[] = {
		{"/bin/app", "run", true}, {"/bin/app", "f", false}, {"/bin/app", "g", false}};
	uint64_t c[XLP_NR_CTR] = {[XLP_C_WALL] = 10, [XLP_C_CPU_RUN] = 10};
	uint64_t run[XLP_NR_CTR] = {[XLP_C_WALL] = 1000000000000ull};
	struct synth *s;
	int err;

	err = synth__open(path, XLP_FEAT_SCHED, 0, funcs, 3, &s);
	for (unsigned i = 0; i < n && !err; i++)
		err = synth__call(s, 1, 7, 7, 1, 2000000000ull + i, c, NULL, 0, NULL);
	for (unsigned i = 0; i < n && !err; i++)
		err = synth__call(s, 2, 7, 7, 1, 1999999999ull - i, c, NULL, 0, NULL);
	err = err ? err : synth__call(s, 0, 7, 7, 0, 1000, run, NULL, 0, NULL);
	if (err) {
		synth__abort(s);
		return err;
	}
	return synth__close(s, NULL, 0);
}

/*
 * Stack samples on a synthetic trace (record --sample): 20 runs of
 * on_click on tid 10, every 4th slow by a 50 ms disk wait under load ->
 * pread (libc). Per run, 8 on-CPU samples of 1 ms in compute, and some
 * that must not count: one of tid 11 (another thread), one between runs,
 * one whose stack lacks the interaction frame (unplaced).
 */
enum { S_MAIN, S_CLICK, S_LOAD, S_PREAD, S_COMPUTE, S_ANON };
enum { K_LOAD, K_COMPUTE, K_NOINTER, K_ANON };

int synth__sampled(const char *path)
{
	static const struct synth_func f[] = {{"/usr/bin/app", "on_click", true}};
	const uint32_t load[] = {S_PREAD, S_LOAD, S_CLICK, S_MAIN};
	const uint32_t compute[] = {S_COMPUTE, S_CLICK, S_MAIN};
	const uint32_t nointer[] = {S_COMPUTE, S_MAIN};
	const uint32_t anon[] = {S_ANON, S_LOAD, S_CLICK, S_MAIN};
	const uint32_t bad[] = {99};
	uint64_t c[XLP_NR_CTR];
	struct synth *s = NULL;
	int err = synth__open(path, XLP_FEAT_SYSCALLS | XLP_FEAT_SAMPLE, 0, f, 1, &s);

	if (err)
		return err;
	err |= synth__sym(s, S_MAIN, XLP_SYM_FUNCTION, "app", "main");
	err |= synth__sym(s, S_CLICK, XLP_SYM_FUNCTION, "app", "on_click");
	err |= synth__sym(s, S_LOAD, XLP_SYM_FUNCTION, "app", "load");
	err |= synth__sym(s, S_PREAD, XLP_SYM_FUNCTION, "libc.so.6", "pread");
	err |= synth__sym(s, S_COMPUTE, XLP_SYM_FUNCTION, "app", "compute");
	err |= synth__sym(s, S_ANON, XLP_SYM_FILE, "app", "[app+0x10]");
	err |= synth__stack(s, K_LOAD, load, 4);
	err |= synth__stack(s, K_COMPUTE, compute, 3);
	err |= synth__stack(s, K_NOINTER, nointer, 2);
	err |= synth__stack(s, K_ANON, anon, 4);
	err |= synth__stack(s, 7, bad, 1); /* out of order, unknown name: skipped */
	/* off the CPU, but charged to wall time: no wait has that reason */
	err |= synth__sample(s, 10, 10, 1000000000ull + 100, 1000000, K_LOAD + 1, XLP_C_WALL);
	for (uint64_t i = 0; i < 20; i++) {
		uint64_t t = (i + 1) * 1000000000ull, d = i % 4 ? 10000000 : 60000000;

		for (uint64_t k = 0; k < 8; k++)
			err |= synth__sample(s, 10, 10, t + k * 1000000 + 500, 1000000,
					     K_COMPUTE + 1, XLP_C_CPU_RUN);
		if (!(i % 4)) {
			err |= synth__sample(s, 10, 10, t + 58000000, 50000000, K_LOAD + 1,
					     XLP_C_DISK);
			err |= synth__sample(s, 10, 10, t + 59000000, 1000000, K_ANON + 1,
					     XLP_C_CPU_RUN);
		}
		err |= synth__sample(s, 10, 11, t + 100, 1000000, K_LOAD + 1, XLP_C_CPU_RUN);
		err |= synth__sample(s, 10, 10, t + 9000000, 1000000, K_NOINTER + 1, XLP_C_CPU_RUN);
		err |= synth__sample(s, 10, 10, t + d + 1000, 1000000, K_LOAD + 1, XLP_C_CPU_RUN);
		/* what the run measured: its samples never stand for more */
		synth__counters(
			&(struct synth_usage){.cpu_run = 10000000, .disk = (double)d - 10000000},
			c);
		err |= synth__call(s, 0, 10, 10, 0, t, c, NULL, 0, NULL);
	}
	err |= synth__close(s, NULL, 0);
	return err ? -EIO : 0;
}
