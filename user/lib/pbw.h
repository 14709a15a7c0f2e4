/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A protocol buffers writer, wire format only (no schema, no reflection):
 * what xlprobe export --perfetto needs to write TracePackets, and --pprof
 * a profile. Fields are
 * appended in the order called; a nested message is opened and closed
 * around its fields. Errors (out of memory) stick: every call after one is
 * a no-op and pbw__err() tells.
 */
#ifndef XLP_PBW_H
#define XLP_PBW_H

#include <stddef.h>
#include <stdint.h>

struct pbw {
	uint8_t *buf;
	size_t len, cap;
	int err; /* negative errno, sticky */
};

void pbw__reset(struct pbw *w); /* empty, keeps the memory */
void pbw__free(struct pbw *w);
int pbw__err(const struct pbw *w);

void pbw__varint(struct pbw *w, uint32_t field, uint64_t v); /* uint*, int64 >= 0, bool, enum */
void pbw__sint(struct pbw *w, uint32_t field, int64_t v);    /* int32/int64 (two's complement) */
void pbw__fixed64(struct pbw *w, uint32_t field, uint64_t v);
void pbw__double(struct pbw *w, uint32_t field, double v);
void pbw__bytes(struct pbw *w, uint32_t field, const void *p, size_t n);
void pbw__str(struct pbw *w, uint32_t field, const char *s);
/* One element of a packed repeated varint field: the field opened with
 * pbw__begin(), its elements, pbw__end(). */
void pbw__packed_varint(struct pbw *w, uint64_t v);

/*
 * A nested message: pbw__begin() returns a mark to pass to pbw__end()
 * once its fields are written. The length goes in 4 bytes reserved at
 * begin, as a varint padded with continuation bits (valid protobuf:
 * decoders read a varint up to its last byte), so nothing moves at end.
 * A message is at most 256 MB - 1.
 */
size_t pbw__begin(struct pbw *w, uint32_t field);
void pbw__end(struct pbw *w, size_t mark);

#endif
