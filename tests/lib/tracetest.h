/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What tests/unit/test_trace.c and test_trace_damage.c share: a sample
 * trace of every record type written once, its chunks found from the
 * documented framing (independently of the reader), a trace read back
 * into its records and integrity, and xlprobe dump run in-process.
 */
#ifndef XLP_TRACETEST_H
#define XLP_TRACETEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trace.h"

#define TRT_SAMPLE_RECS 7000
#define TRT_MAX_CHUNKS 4096
#define TRT_UNKNOWN_TYPE 127
#define TRT_CHDR 28 /* chunk header: tag, seq, C, U, N, data CRC, header CRC */

/* The state of trt_rnd(), a xorshift: set it for a sequence of one's own. */
extern uint64_t trt_rng;
extern struct xlp_trace_meta trt_sample_meta;
extern const struct xlp_trace_footer trt_sample_footer;

/* Records back to back, as the file holds them. */
struct trt_recs {
	uint8_t *data;
	size_t len, cap;
	size_t *off;
	size_t n, ncap;
};

struct trt_sample {
	char path[256];
	uint8_t *file;
	size_t len;
	struct trt_recs recs;
	size_t hdr_end; /* first chunk */
	size_t foot;	/* footer offset */
	size_t nchunks;
	struct trt_chunk {
		size_t start, end;
		size_t first, nrec; /* records it holds */
		uint32_t ulen;
	} ch[TRT_MAX_CHUNKS];
};

struct trt_result {
	int err;
	char why[256];
	struct trt_recs recs;
	enum trace_status st;
	uint64_t bad, good;
	bool footer;
	struct xlp_trace_footer ft;
	struct trace_integrity in;
	char damage[512];
};

uint64_t trt_rnd(void);
void trt_recs__add(struct trt_recs *rs, const struct xlp_hdr *h);
void trt_recs__free(struct trt_recs *rs);
/* Bytes of records [from, to) of rs. */
size_t trt_recs__span(const struct trt_recs *rs, size_t from, size_t to);
bool trt_recs__range_eq(const struct trt_recs *got, size_t gfrom, const struct trt_recs *want,
			size_t wfrom, size_t n);
/* got == want minus the skip records starting at skip_from. */
bool trt_recs__eq_except(const struct trt_recs *got, const struct trt_recs *want, size_t skip_from,
			 size_t skip);
/* Every record of got appears in want, in order. */
bool trt_recs__subseq(const struct trt_recs *got, const struct trt_recs *want);
/* "<xt_tmpdir()>/<name>" into buf (256 bytes). */
const char *trt_tmp_path(char *buf, const char *name);
uint8_t *trt_slurp(const char *path, size_t *len);
void trt_spit(const char *path, const void *p, size_t len);
uint32_t trt_le32(const uint8_t *p);
void trt_put32(uint8_t *p, uint32_t v);
/* Record i: every type in turn, then one the reader does not know. */
const struct xlp_hdr *trt_gen_record(uint64_t *buf, size_t i);
/* Chunk table from the documented framing; returns the number of chunks. */
size_t trt_walk(const uint8_t *f, size_t len, struct trt_chunk *ch, size_t *hdr_end, size_t *foot);
int trt_write_records(const char *path, const struct xlp_trace_meta *meta, size_t nrec,
		      struct trt_recs *rs, const struct xlp_trace_footer *ft);
/* The sample trace, written once and shared by the tests that damage it. */
struct trt_sample *trt_sample(void);
void trt_read_back(const char *path, struct trt_result *res);
void trt_read_bytes(const void *file, size_t len, struct trt_result *res);
int trt_dump_quiet(const char *path, bool json);

#endif
