// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "pbw.h"

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

#define NEST_LEN_BYTES 4
#define NEST_MAX ((1u << (7 * NEST_LEN_BYTES)) - 1)

static uint8_t *room(struct pbw *w, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (w->err)
		return NULL;
	if (w->cap - w->len < n) {
		cap = w->cap ? w->cap : 256;
		while (cap - w->len < n) {
			if (cap > SIZE_MAX / 2) {
				w->err = -ENOMEM;
				return NULL;
			}
			cap *= 2;
		}
		p = realloc(w->buf, cap);
		if (!p) {
			w->err = -ENOMEM;
			return NULL;
		}
		w->buf = p;
		w->cap = cap;
	}
	p = w->buf + w->len;
	w->len += n;
	return p;
}

static void put_varint(struct pbw *w, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	uint8_t *p;

	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	p = room(w, n);
	if (p)
		memcpy(p, tmp, n);
}

static void put_tag(struct pbw *w, uint32_t field, unsigned int type)
{
	put_varint(w, (uint64_t)field << 3 | type);
}

void pbw__reset(struct pbw *w)
{
	w->len = 0;
	w->err = 0;
}

void pbw__free(struct pbw *w)
{
	if (!w)
		return;
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

int pbw__err(const struct pbw *w)
{
	return w->err;
}

void pbw__varint(struct pbw *w, uint32_t field, uint64_t v)
{
	put_tag(w, field, WT_VARINT);
	put_varint(w, v);
}

void pbw__sint(struct pbw *w, uint32_t field, int64_t v)
{
	pbw__varint(w, field, (uint64_t)v);
}

void pbw__fixed64(struct pbw *w, uint32_t field, uint64_t v)
{
	uint8_t *p;

	put_tag(w, field, WT_I64);
	p = room(w, 8);
	if (!p)
		return;
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i)); /* little-endian, whatever the host */
}

void pbw__double(struct pbw *w, uint32_t field, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	pbw__fixed64(w, field, bits);
}

void pbw__bytes(struct pbw *w, uint32_t field, const void *data, size_t n)
{
	uint8_t *p;

	put_tag(w, field, WT_LEN);
	put_varint(w, n);
	p = room(w, n);
	if (p && n)
		memcpy(p, data, n);
}

void pbw__str(struct pbw *w, uint32_t field, const char *s)
{
	pbw__bytes(w, field, s, strlen(s));
}

void pbw__packed_varint(struct pbw *w, uint64_t v)
{
	put_varint(w, v);
}

size_t pbw__begin(struct pbw *w, uint32_t field)
{
	put_tag(w, field, WT_LEN);
	if (!room(w, NEST_LEN_BYTES))
		return 0;
	return w->len;
}

void pbw__end(struct pbw *w, size_t mark)
{
	size_t n;
	uint8_t *p;

	if (w->err || mark < NEST_LEN_BYTES || mark > w->len)
		return;
	n = w->len - mark;
	if (n > NEST_MAX) {
		w->err = -EFBIG;
		return;
	}
	p = w->buf + mark - NEST_LEN_BYTES;
	for (int i = 0; i < NEST_LEN_BYTES; i++, n >>= 7)
		p[i] = (uint8_t)((n & 0x7f) | (i < NEST_LEN_BYTES - 1 ? 0x80 : 0));
}
