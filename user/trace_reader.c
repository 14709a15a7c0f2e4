/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Trace file reader. The byte layout is described at the top of
 * trace_writer.c. Every length read from the file is checked against the
 * file size and a cap before it is used, so damaged files cost at most one
 * skipped chunk and never an absurd allocation or an out-of-bounds read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "trace.h"
#include "trace_format.h"

/* Reader-side limits: corrupt length fields never make it allocate more. */
#define CHUNK_MAX (64u << 20) /* cap on C and U */
#define FOOT_MAX 65536
#define SCAN_BLOCK 65536
/* smallest encoded function entry: three u32/u64 fields, three empty strings */
#define FUNC_MIN_LEN (4 + 4 + 8 + 3 * 4)

#define HDR_BAD "header is corrupt or truncated: the file is damaged, record it again"

struct trace_reader {
	int fd;
	uint64_t size; /* at open */
	uint64_t off;  /* next chunk or footer */
	struct xlp_trace_meta meta;
	struct xlp_trace_footer footer;
	enum trace_status status;
	bool done;
	uint64_t good, bad;
	uint8_t *zbuf; /* compressed bytes of the chunk being examined */
	size_t zcap;
	uint8_t *buf; /* records of the current chunk */
	size_t cap;
	size_t pos, len; /* cursor in buf */
};

/* What lies at one offset after the header. */
enum region_kind {
	RG_CHUNK,   /* valid chunk, compressed bytes in zbuf */
	RG_FOOTER,  /* valid footer, decoded in foot */
	RG_SHORT,   /* tag known, but the file ends before its declared end */
	RG_BAD,	    /* tag known, whole, but fails its checks */
	RG_GARBAGE, /* no known tag */
};

struct region {
	enum region_kind kind;
	uint64_t next; /* end of the region; 0 when its length is not known */
	uint32_t zlen, ulen, nrec;
	struct xlp_trace_footer foot;
};

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_le64(const uint8_t *p)
{
	return get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static void set_err(char *errbuf, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errbuf || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
}

/* Reads up to n bytes at off: the count read (short only at EOF) or -errno. */
static ssize_t read_at(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(fd, (uint8_t *)buf + got, n - got, off + got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		got += k;
	}
	return got;
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *p;

	if (need <= *cap)
		return 0;
	p = realloc(*buf, need);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = need;
	return 0;
}

/* ---- header ---- */

struct cursor {
	const uint8_t *p;
	size_t left;
	int err; /* -EBADMSG when the payload ends early, -ENOMEM */
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
	}
}

static int meta__decode(const uint8_t *p, size_t len, struct xlp_trace_meta *m)
{
	struct cursor c = {p, len, 0};

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
	return c.err;
}

/* Checks the 20-byte prefix that every format version starts with. */
static int reader__prefix(struct trace_reader *r, uint8_t *pre, char *errbuf, size_t errlen)
{
	ssize_t n = read_at(r->fd, pre, PREFIX_LEN, 0);

	if (n < 0) {
		set_err(errbuf, errlen, "cannot read: %s", strerror((int)-n));
		return (int)n;
	}
	if (n == 0) {
		set_err(errbuf, errlen,
			"empty file, not an xlprobe trace file: the recording wrote nothing, "
			"record it again");
		return -EINVAL;
	}
	if (n < 8 || memcmp(pre, XLP_TRACE_MAGIC, 8)) {
		set_err(errbuf, errlen,
			"not an xlprobe trace file: pass a file written by 'xlprobe record -o "
			"FILE'");
		return -EINVAL;
	}
	if (n < PREFIX_LEN || get_le32(pre + 12) > HDR_PAYLOAD_MAX ||
	    PREFIX_LEN + (uint64_t)get_le32(pre + 12) > r->size) {
		set_err(errbuf, errlen, HDR_BAD);
		return -EBADMSG;
	}
	return 0;
}

/* Reads and decodes the header; a one-line reason on failure. */
static int reader__header(struct trace_reader *r, char *errbuf, size_t errlen)
{
	uint8_t pre[PREFIX_LEN], *payload;
	uint32_t version, plen;
	ssize_t n;
	int err;

	err = reader__prefix(r, pre, errbuf, errlen);
	if (err)
		return err;
	version = get_le32(pre + 8);
	plen = get_le32(pre + 12);
	payload = malloc(plen ? plen : 1);
	if (!payload)
		return -ENOMEM;
	n = read_at(r->fd, payload, plen, PREFIX_LEN);
	if (n < 0) {
		set_err(errbuf, errlen, "cannot read: %s", strerror((int)-n));
		err = (int)n;
		goto cleanup;
	}
	/* the CRC covers the version too: a damaged one is not "newer" */
	if ((size_t)n != plen || !version ||
	    crc32(crc32(0, pre + 8, 8), payload, plen) != get_le32(pre + 16))
		err = -EBADMSG;
	else if (version > XLP_FORMAT_VERSION)
		err = -ENOTSUP;
	else
		err = meta__decode(payload, plen, &r->meta);
	if (err == -ENOTSUP)
		set_err(errbuf, errlen,
			"format version %u is newer than this xlprobe (%d): upgrade xlprobe",
			version, XLP_FORMAT_VERSION);
	if (err == -EBADMSG)
		set_err(errbuf, errlen, HDR_BAD);
	r->meta.format_version = version;
	r->off = PREFIX_LEN + plen;
cleanup:
	free(payload);
	return err;
}

int trace_reader__open(const char *path, struct trace_reader **out, char *errbuf, size_t errlen)
{
	struct trace_reader *r;
	struct stat st;
	int err;

	*out = NULL;
	set_err(errbuf, errlen, "out of memory");
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->status = TRACE_TRUNCATED;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		err = -errno;
		if (err == -ENOENT)
			set_err(errbuf, errlen, "no such file: check the path");
		else if (err == -EACCES)
			set_err(errbuf, errlen, "permission denied: check the file's permissions");
		else
			set_err(errbuf, errlen, "cannot open: %s", strerror(-err));
		goto cleanup;
	}
	if (fstat(r->fd, &st)) {
		err = -errno;
		set_err(errbuf, errlen, "cannot stat: %s", strerror(-err));
		goto cleanup;
	}
	if (!S_ISREG(st.st_mode)) {
		set_err(errbuf, errlen,
			"not a regular file: pass a trace file written by 'xlprobe record -o "
			"FILE'");
		err = -EINVAL;
		goto cleanup;
	}
	r->size = st.st_size;
	err = reader__header(r, errbuf, errlen);
	if (err == -ENOMEM)
		set_err(errbuf, errlen, "out of memory reading the header");
	if (err)
		goto cleanup;
	set_err(errbuf, errlen, "%s", "");
	*out = r;
	r = NULL;
cleanup:
	trace_reader__close(r);
	return err;
}

/* ---- chunks ---- */

static int reader__probe_chunk(struct trace_reader *r, uint64_t off, const uint8_t *h,
			       struct region *rg)
{
	uint64_t avail = r->size - off;
	uint32_t crc;
	ssize_t n;
	int err;

	rg->zlen = get_le32(h + 4);
	rg->ulen = get_le32(h + 8);
	rg->nrec = get_le32(h + 12);
	rg->kind = RG_BAD;
	if (rg->zlen > CHUNK_MAX || rg->ulen > CHUNK_MAX || !rg->nrec ||
	    rg->nrec > rg->ulen / sizeof(struct xlp_hdr))
		return 0;
	rg->next = off + CHUNK_HDR_LEN + rg->zlen;
	if (CHUNK_HDR_LEN + (uint64_t)rg->zlen > avail) {
		rg->kind = RG_SHORT;
		rg->next = 0;
		return 0;
	}
	err = grow(&r->zbuf, &r->zcap, rg->zlen ? rg->zlen : 1);
	if (err)
		return err;
	n = read_at(r->fd, r->zbuf, rg->zlen, off + CHUNK_HDR_LEN);
	if (n < 0)
		return (int)n;
	if ((size_t)n != rg->zlen) { /* file shrank under us */
		rg->kind = RG_SHORT;
		return 0;
	}
	crc = crc32(crc32(0, h + 4, 12), r->zbuf, rg->zlen);
	if (crc == get_le32(h + 16))
		rg->kind = RG_CHUNK;
	return 0;
}

static void footer__decode(const uint8_t *p, struct xlp_trace_footer *f)
{
	f->end_ns = get_le64(p);
	f->nrecords = get_le64(p + 8);
	f->nchunks = get_le64(p + 16);
	p += 24;
	for (int i = 0; i < XLP_NR_STAT; i++, p += 8)
		f->stat[i] = get_le64(p);
	f->lost_by_reader = get_le64(p);
	f->stop_reason = get_le32(p + 8);
	f->__pad = 0;
}

static int reader__probe_footer(struct trace_reader *r, uint64_t off, const uint8_t *h,
				struct region *rg)
{
	uint32_t len = get_le32(h + 4);
	uint8_t *p;
	ssize_t n;
	int err = 0;

	rg->kind = RG_BAD;
	if (len < FOOT_LEN || len > FOOT_MAX)
		return 0;
	rg->next = off + FOOT_HDR_LEN + len;
	if (FOOT_HDR_LEN + (uint64_t)len > r->size - off) {
		rg->kind = RG_SHORT;
		rg->next = 0;
		return 0;
	}
	p = malloc(len);
	if (!p)
		return -ENOMEM;
	n = read_at(r->fd, p, len, off + FOOT_HDR_LEN);
	if (n < 0) {
		err = (int)n;
		goto cleanup;
	}
	if ((size_t)n != len)
		rg->kind = RG_SHORT;
	else if (crc32(crc32(0, h + 4, 4), p, len) == get_le32(h + 8))
		rg->kind = RG_FOOTER;
	if (rg->kind == RG_FOOTER)
		footer__decode(p, &rg->foot);
cleanup:
	free(p);
	return err;
}

/* Classifies what starts at off (< r->size). */
static int reader__probe(struct trace_reader *r, uint64_t off, struct region *rg)
{
	uint8_t h[CHUNK_HDR_LEN];
	ssize_t n;

	memset(rg, 0, sizeof(*rg));
	n = read_at(r->fd, h, sizeof(h), off);
	if (n < 0)
		return (int)n;
	if (n == CHUNK_HDR_LEN && !memcmp(h, "CHNK", 4))
		return reader__probe_chunk(r, off, h, rg);
	if (n >= FOOT_HDR_LEN && !memcmp(h, "FOOT", 4))
		return reader__probe_footer(r, off, h, rg);
	/* the file ends inside a tag or the header that follows it */
	if (!memcmp(h, "CHNK", n < 4 ? n : 4) || !memcmp(h, "FOOT", n < 4 ? n : 4))
		rg->kind = RG_SHORT;
	else
		rg->kind = RG_GARBAGE;
	return 0;
}

static bool is_tag(const uint8_t *p)
{
	return !memcmp(p, "CHNK", 4) || !memcmp(p, "FOOT", 4);
}

/* 1 and *found when a valid chunk or footer starts at or after from. */
static int reader__resync(struct trace_reader *r, uint64_t from, uint64_t *found)
{
	uint8_t *blk = malloc(SCAN_BLOCK);
	struct region rg;
	int err = 0;

	if (!blk)
		return -ENOMEM;
	while (from + 4 <= r->size) {
		ssize_t n = read_at(r->fd, blk, SCAN_BLOCK, from);

		if (n < 0) {
			err = (int)n;
			goto cleanup;
		}
		if (n < 4)
			break;
		for (ssize_t i = 0; i + 4 <= n; i++) {
			if (!is_tag(blk + i))
				continue;
			err = reader__probe(r, from + i, &rg);
			if (err)
				goto cleanup;
			if (rg.kind == RG_CHUNK || rg.kind == RG_FOOTER) {
				*found = from + i;
				err = 1;
				goto cleanup;
			}
		}
		from += n - 3; /* a tag may straddle two blocks */
	}
cleanup:
	free(blk);
	return err;
}

/* True when the records fill exactly len bytes and number nrec. */
static bool records_ok(const uint8_t *buf, size_t len, uint32_t nrec)
{
	size_t off = 0;
	uint32_t n = 0;

	while (off < len) {
		const struct xlp_hdr *h = (const void *)(buf + off);

		if (len - off < sizeof(*h) || h->size % 8 ||
		    h->size < trace_rec_min_size(h->type) || h->size > len - off)
			return false;
		off += h->size;
		n++;
	}
	return n == nrec;
}

/* 0 when the chunk's records are in buf, 1 when it is corrupt, or -errno. */
static int reader__unpack(struct trace_reader *r, const struct region *rg)
{
	uLongf ulen = rg->ulen;
	int err, zerr;

	err = grow(&r->buf, &r->cap, rg->ulen ? rg->ulen : 1);
	if (err)
		return err;
	zerr = uncompress(r->buf, &ulen, r->zbuf, rg->zlen);
	if (zerr == Z_MEM_ERROR)
		return -ENOMEM;
	if (zerr != Z_OK || ulen != rg->ulen || !records_ok(r->buf, ulen, rg->nrec))
		return 1;
	r->pos = 0;
	r->len = ulen;
	return 0;
}

static void reader__finish(struct trace_reader *r, enum trace_status st)
{
	r->done = true;
	r->status = st;
}

/* Moves past a region that is not a valid chunk or footer. */
static int reader__recover(struct trace_reader *r, const struct region *rg)
{
	uint8_t tag[4];
	uint64_t next = 0;
	int err;

	/* damaged contents, sound length: the next region starts where it says */
	if (rg->kind == RG_BAD && rg->next) {
		if (rg->next == r->size || (read_at(r->fd, tag, 4, rg->next) == 4 && is_tag(tag))) {
			r->bad++;
			r->off = rg->next;
			return 0;
		}
	}
	err = reader__resync(r, r->off + 1, &next);
	if (err < 0)
		return err;
	if (err == 1 || rg->kind == RG_BAD)
		r->bad++;
	if (err == 1)
		r->off = next;
	else
		/* only a cut-off region or trailing garbage: a truncated file */
		reader__finish(r, TRACE_TRUNCATED);
	return 0;
}

/* Loads the next valid chunk into buf, or marks the end of the file. */
static int reader__advance(struct trace_reader *r)
{
	struct region rg;
	int err;

	while (!r->done) {
		if (r->off >= r->size) {
			reader__finish(r, TRACE_TRUNCATED);
			break;
		}
		err = reader__probe(r, r->off, &rg);
		if (err)
			return err;
		if (rg.kind == RG_FOOTER) {
			r->footer = rg.foot;
			reader__finish(r, TRACE_COMPLETE);
			break;
		}
		if (rg.kind != RG_CHUNK) {
			err = reader__recover(r, &rg);
			if (err)
				return err;
			continue;
		}
		err = reader__unpack(r, &rg);
		if (err < 0)
			return err;
		r->off = rg.next;
		if (err) {
			r->bad++;
			continue;
		}
		r->good++;
		break;
	}
	return 0;
}

int trace_reader__next(struct trace_reader *r, const struct xlp_hdr **rec)
{
	int err;

	while (r->pos >= r->len) {
		if (r->done)
			return 0;
		r->pos = r->len = 0;
		err = reader__advance(r);
		if (err)
			return err;
	}
	*rec = (const struct xlp_hdr *)(r->buf + r->pos);
	r->pos += (*rec)->size;
	return 1;
}

const struct xlp_trace_meta *trace_reader__meta(const struct trace_reader *r)
{
	return &r->meta;
}

enum trace_status trace_reader__status(const struct trace_reader *r)
{
	return r->status;
}

const struct xlp_trace_footer *trace_reader__footer(const struct trace_reader *r)
{
	return r->status == TRACE_COMPLETE ? &r->footer : NULL;
}

uint64_t trace_reader__bad_chunks(const struct trace_reader *r)
{
	return r->bad;
}

uint64_t trace_reader__good_chunks(const struct trace_reader *r)
{
	return r->good;
}

void trace_reader__close(struct trace_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	xlp_trace_meta__free(&r->meta);
	free(r->zbuf);
	free(r->buf);
	free(r);
}

void xlp_trace_meta__free(struct xlp_trace_meta *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; m->funcs && i < m->nfuncs; i++) {
		free(m->funcs[i].binary);
		free(m->funcs[i].symbol);
		free(m->funcs[i].build_id);
	}
	free(m->funcs);
	free(m->host);
	free(m->kernel);
	free(m->cmdline);
	free(m->notes);
	memset(m, 0, sizeof(*m));
}
