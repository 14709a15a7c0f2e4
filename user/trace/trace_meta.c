/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The trace header's metadata (struct xlp_trace_meta): decoded from the
 * header's payload, every length checked against what is left of it; and
 * built by the recorder (xlp_trace_meta__add_func).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "demangle.h"
#include "trace_format.h"
#include "trace_meta.h"

/* smallest encoded function entry: three u32/u64 fields, three empty strings */
#define FUNC_MIN_LEN (4 + 4 + 8 + 3 * 4)

struct cursor {
	const uint8_t *p;
	size_t left;
	int err;       /* -EBADMSG when the payload ends early, -ENOMEM */
	char why[160]; /* a reason more precise than HDR_BAD, or "" */
};

static const uint8_t *cursor__take(struct cursor *c, size_t n)
{
	const uint8_t *p = c->p;

	if (c->err || n > c->left) {
		c->err = c->err ? c->err : -EBADMSG;
		return NULL;
	}
	c->p += n;
	c->left -= n;
	return p;
}

static uint32_t cursor__u32(struct cursor *c)
{
	const uint8_t *p = cursor__take(c, 4);

	return p ? get_le32(p) : 0;
}

static uint64_t cursor__u64(struct cursor *c)
{
	const uint8_t *p = cursor__take(c, 8);

	return p ? get_le64(p) : 0;
}

/* Always returns an allocated string, unless c->err is set. */
static char *cursor__str(struct cursor *c)
{
	uint32_t n = cursor__u32(c);
	const uint8_t *p = cursor__take(c, n);
	char *s;

	if (!p)
		return NULL;
	s = malloc((size_t)n + 1);
	if (!s) {
		c->err = -ENOMEM;
		return NULL;
	}
	memcpy(s, p, n);
	s[n] = 0;
	return s;
}

static void meta__decode_funcs(struct cursor *c, struct xlp_trace_meta *m)
{
	uint32_t n = cursor__u32(c);

	if (!c->err && n > XLP_MAX_FUNCS) {
		snprintf(c->why, sizeof(c->why),
			 "corrupt trace: %" PRIu32 " functions in the header (a recording marks at "
			 "most %d): the file is damaged or forged",
			 n, XLP_MAX_FUNCS);
		c->err = -EBADMSG;
	}
	/* bounded by the payload, so a damaged count cannot ask for much */
	if (c->err || n > c->left / FUNC_MIN_LEN) {
		c->err = c->err ? c->err : -EBADMSG;
		return;
	}
	m->funcs = calloc(n ? n : 1, sizeof(*m->funcs));
	if (!m->funcs) {
		c->err = -ENOMEM;
		return;
	}
	m->nfuncs = n;
	for (uint32_t i = 0; i < n && !c->err; i++) {
		struct xlp_func_info *f = &m->funcs[i];

		f->id = cursor__u32(c);
		f->flags = cursor__u32(c);
		f->offset = cursor__u64(c);
		f->binary = cursor__str(c);
		f->symbol = cursor__str(c);
		f->build_id = cursor__str(c);
		/* once per function, for every reader of the header */
		if (f->symbol && !(f->name = demangle__dup(f->symbol)))
			c->err = -ENOMEM;
		/* records index tables by id: only id == index is safe and unique */
		if (!c->err && f->id != i) {
			snprintf(c->why, sizeof(c->why),
				 "corrupt trace: function %" PRIu32 " of the header has id %" PRIu32
				 " (ids are 0, 1, 2... in order): the file is damaged or forged",
				 i, f->id);
			c->err = -EBADMSG;
		}
	}
}

int trace_meta__decode(const uint8_t *p, size_t len, struct xlp_trace_meta *m, char *why,
		       size_t whylen)
{
	struct cursor c = {p, len, 0, ""};

	m->ncpus = cursor__u32(&c);
	m->clock_id = cursor__u32(&c);
	m->features = cursor__u32(&c);
	m->target_pid = cursor__u32(&c);
	m->repeat = cursor__u32(&c);
	m->boot_offset_ns = (int64_t)cursor__u64(&c);
	m->start_ns = cursor__u64(&c);
	m->min_dur_ns = cursor__u64(&c);
	m->host = cursor__str(&c);
	m->kernel = cursor__str(&c);
	m->cmdline = cursor__str(&c);
	m->notes = cursor__str(&c);
	meta__decode_funcs(&c, m);
	snprintf(why, whylen, "%s", c.why);
	return c.err;
}

void xlp_trace_meta__free(struct xlp_trace_meta *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; m->funcs && i < m->nfuncs; i++) {
		free(m->funcs[i].binary);
		free(m->funcs[i].symbol);
		free(m->funcs[i].name);
		free(m->funcs[i].build_id);
	}
	free(m->funcs);
	free(m->host);
	free(m->kernel);
	free(m->cmdline);
	free(m->notes);
	memset(m, 0, sizeof(*m));
}

int xlp_trace_meta__add_func(struct xlp_trace_meta *m, uint32_t flags, uint64_t offset,
			     const char *binary, const char *symbol, const char *build_id,
			     struct xlp_func_info **out)
{
	struct xlp_func_info *f;

	if (m->nfuncs >= XLP_MAX_FUNCS)
		return -E2BIG;
	f = realloc(m->funcs, (m->nfuncs + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	m->funcs = f;
	f = &m->funcs[m->nfuncs];
	memset(f, 0, sizeof(*f));
	f->id = m->nfuncs++;
	f->flags = flags;
	f->offset = offset;
	f->binary = strdup(binary ? binary : "");
	f->symbol = strdup(symbol ? symbol : "");
	f->build_id = strdup(build_id ? build_id : "");
	if (!f->binary || !f->symbol || !f->build_id)
		return -ENOMEM;
	*out = f;
	return 0;
}
