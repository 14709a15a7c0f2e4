/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Trace file reader. The byte layout is described at the top of
 * trace_writer.c. Every byte of the file is untrusted: every length is
 * checked against the file size and a cap before it is used, so damaged or
 * forged files cost at most one skipped chunk and never an absurd
 * allocation or an out-of-bounds read.
 *
 * Reading is linear in the file size, whatever the file holds. Version 2
 * chunk headers carry their own CRC, so re-synchronising over them costs
 * O(1) per tag found, and a chunk whose header holds is checksummed once
 * and read past. Every checksum is paid out of a budget of twice the file
 * size: reading the chunks in order spends at most the file size; what
 * cannot be trusted as cheaply (version 1 chunks and footers found while
 * re-synchronising) spends more, and a file that exhausts the budget (only
 * forged ones do: "CHNK" tags every few bytes, each claiming the rest of
 * the file) reads as truncated where it ran out.
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
#include "trace_ledger.h"
#include "trace_meta.h"
#include "util.h"

/* Reader-side limits: corrupt length fields never make it allocate more. */
#define CHUNK_MAX (64u << 20) /* cap on C and U */
#define FOOT_MAX 65536
#define SCAN_BLOCK 65536
/* deflate's largest compression ratio: C bytes never inflate to more */
#define ZRATIO_MAX 1032
/* checksum budget for what is not read past: 2 x file size + this */
#define WORK_SLACK (1u << 20)

#define HDR_BAD "header is corrupt or truncated: the file is damaged, record it again"
/* "CHNK" and "FOOT" read as little-endian words */
#define TAG_CHNK 0x4b4e4843u
#define TAG_FOOT 0x544f4f46u

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
	bool trusted;  /* a version 2 header CRC vouches for next and seq */
	uint32_t seq, zlen, ulen, nrec, crc;
	struct xlp_trace_footer foot;
};

struct trace_reader {
	int fd;
	uint64_t size; /* at open */
	uint64_t off;  /* next chunk or footer */
	struct xlp_trace_meta meta;
	struct xlp_trace_footer footer;
	enum trace_status status;
	bool done;
	unsigned chunk_hdr; /* CHUNK_HDR_LEN, or CHUNK_HDR_LEN_V1 */
	struct trace_integrity in;
	struct ledger led;
	uint64_t work, budget; /* bytes checksummed, and the cap */
	bool cached;	       /* cache is the region at cache_off (zbuf holds its data) */
	uint64_t cache_off;
	struct region cache;
	uint8_t *zbuf; /* compressed bytes of the chunk being examined */
	size_t zcap;
	uint8_t *buf; /* records of the current chunk */
	size_t cap;
	size_t pos, len;	  /* cursor in buf */
	struct xlp_call_rec wide; /* the last compact call record, expanded */
};

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

/* ---- header ---- */

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
	char why[160] = "";
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
	else if (version > XLP_TRACE_VERSION)
		err = -ENOTSUP;
	else
		err = trace_meta__decode(payload, plen, &r->meta, why, sizeof(why));
	if (err == -ENOTSUP)
		set_err(errbuf, errlen,
			"format version %u is newer than this xlprobe (%d): upgrade xlprobe",
			version, XLP_TRACE_VERSION);
	if (err == -EBADMSG)
		set_err(errbuf, errlen, "%s", why[0] ? why : HDR_BAD);
	r->meta.format_version = version;
	r->chunk_hdr = version >= 2 ? CHUNK_HDR_LEN : CHUNK_HDR_LEN_V1;
	r->in.sequenced = version >= 2;
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
	r->budget = 2 * r->size + WORK_SLACK;
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

/*
 * Accounts n bytes about to be checksummed; -ECANCELED when that would
 * pass the budget (only forged files get there: see the top of the file).
 */
static int reader__charge(struct trace_reader *r, uint64_t n)
{
	if (r->work + n > r->budget)
		return -ECANCELED;
	r->work += n;
	return 0;
}

/* Cheap checks of a chunk's lengths and count, before any checksum. */
static bool chunk_fields_ok(const struct region *rg)
{
	return rg->zlen <= CHUNK_MAX && rg->ulen <= CHUNK_MAX && rg->nrec &&
	       rg->nrec <= rg->ulen / sizeof(struct xlp_hdr) &&
	       rg->ulen <= (uint64_t)ZRATIO_MAX * rg->zlen + 64;
}

/* Decodes a chunk header (h holds r->chunk_hdr bytes); false if its CRC fails. */
static bool chunk_header(const struct trace_reader *r, const uint8_t *h, struct region *rg)
{
	if (!r->in.sequenced) {
		rg->zlen = get_le32(h + 4);
		rg->ulen = get_le32(h + 8);
		rg->nrec = get_le32(h + 12);
		rg->crc = get_le32(h + 16);
		return true;
	}
	if (crc32(0, h + 4, 20) != get_le32(h + 24))
		return false;
	rg->trusted = true;
	rg->seq = get_le32(h + 4);
	rg->zlen = get_le32(h + 8);
	rg->ulen = get_le32(h + 12);
	rg->nrec = get_le32(h + 16);
	rg->crc = get_le32(h + 20);
	return true;
}

static int reader__probe_chunk(struct trace_reader *r, uint64_t off, const uint8_t *h,
			       struct region *rg)
{
	uint64_t avail = r->size - off - r->chunk_hdr;
	uint32_t crc;
	ssize_t n;
	int err;

	rg->kind = RG_BAD;
	if (!chunk_header(r, h, rg))
		return 0; /* length unknown: re-synchronise */
	if (rg->zlen > avail) {
		rg->kind = RG_SHORT;
		return 0;
	}
	rg->next = off + r->chunk_hdr + rg->zlen;
	if (!chunk_fields_ok(rg))
		return 0;
	err = reader__charge(r, rg->zlen);
	err = err ? err : xlp_grow((void **)&r->zbuf, &r->zcap, rg->zlen, 1);
	if (err)
		return err;
	n = read_at(r->fd, r->zbuf, rg->zlen, off + r->chunk_hdr);
	if (n < 0)
		return (int)n;
	if ((size_t)n != rg->zlen) { /* file shrank under us */
		rg->kind = RG_SHORT;
		rg->next = 0;
		return 0;
	}
	if (r->in.sequenced)
		crc = crc32(0, r->zbuf, rg->zlen);
	else
		crc = crc32(crc32(0, h + 4, 12), r->zbuf, rg->zlen);
	if (crc == rg->crc)
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

/* A footer ends the file: one that does not cannot be, and costs no checksum. */
static int reader__probe_footer(struct trace_reader *r, uint64_t off, const uint8_t *h,
				struct region *rg)
{
	uint32_t len = get_le32(h + 4);
	uint8_t *p;
	ssize_t n;
	int err;

	rg->kind = RG_BAD;
	if (len < FOOT_LEN || len > FOOT_MAX)
		return 0;
	if (FOOT_HDR_LEN + (uint64_t)len > r->size - off) {
		rg->kind = RG_SHORT;
		return 0;
	}
	if (FOOT_HDR_LEN + (uint64_t)len < r->size - off)
		return 0;
	rg->next = r->size;
	err = reader__charge(r, len);
	if (err)
		return err;
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

/* Classifies what starts at off (< r->size); negative errno, -ECANCELED. */
static int reader__probe(struct trace_reader *r, uint64_t off, struct region *rg)
{
	uint8_t h[CHUNK_HDR_MAX];
	ssize_t n;

	if (r->cached && r->cache_off == off) {
		r->cached = false;
		*rg = r->cache; /* what resync checked there, data in zbuf */
		return 0;
	}
	r->cached = false;
	memset(rg, 0, sizeof(*rg));
	n = read_at(r->fd, h, r->chunk_hdr, off);
	if (n < 0)
		return (int)n;
	if (n == r->chunk_hdr && !memcmp(h, "CHNK", 4))
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

/* A word compare: the resync scan asks this at every byte */
static bool is_tag(const uint8_t *p)
{
	uint32_t w = get_le32(p);

	return w == TAG_CHNK || w == TAG_FOOT;
}

/*
 * Whether a chunk or footer starts at off, where p holds the n bytes of
 * the file from off: 1 (and the region cached when it was checked in
 * full), 0, or negative errno. Only candidates that pass O(1) checks cost
 * a checksum: a version 2 chunk whose header CRC holds is taken on its
 * word (the main loop reads it and moves past it), a version 1 chunk
 * whose lengths fit the file, or a footer that ends the file.
 */
static int reader__candidate(struct trace_reader *r, uint64_t off, const uint8_t *p, size_t n)
{
	struct region *rg = &r->cache;
	int err;

	memset(rg, 0, sizeof(*rg));
	if (!memcmp(p, "CHNK", 4)) {
		if (n < r->chunk_hdr || !chunk_header(r, p, rg))
			return 0;
		if (r->in.sequenced)
			return 1;
		if (rg->zlen > r->size - off - r->chunk_hdr || !chunk_fields_ok(rg))
			return 0;
		err = reader__probe_chunk(r, off, p, rg);
	} else {
		if (n < FOOT_HDR_LEN || off + FOOT_HDR_LEN + (uint64_t)get_le32(p + 4) != r->size)
			return 0;
		err = reader__probe_footer(r, off, p, rg);
	}
	if (err)
		return err;
	if (rg->kind != RG_CHUNK && rg->kind != RG_FOOTER)
		return 0;
	r->cached = true;
	r->cache_off = off;
	return 1;
}

/*
 * 1 and *found when a chunk or footer starts at or after from (see
 * reader__candidate), 0 when none does, negative errno or -ECANCELED.
 * Each byte is looked at once, each tag costs O(1) or is paid for by the
 * budget: linear in the bytes scanned.
 */
static int reader__resync(struct trace_reader *r, uint64_t from, uint64_t *found)
{
	/* a block overlaps the next by a header, so a tag near its end is whole */
	uint8_t *blk = malloc(SCAN_BLOCK + CHUNK_HDR_MAX);
	int err = 0;

	if (!blk)
		return -ENOMEM;
	while (from + 4 <= r->size) {
		ssize_t n = read_at(r->fd, blk, SCAN_BLOCK + CHUNK_HDR_MAX, from);

		if (n < 0) {
			err = (int)n;
			goto cleanup;
		}
		if (n < 4)
			break;
		for (ssize_t i = 0; i + 4 <= n && i < SCAN_BLOCK; i++) {
			if (!is_tag(blk + i))
				continue;
			err = reader__candidate(r, from + i, blk + i, n - i);
			if (err < 0)
				goto cleanup;
			if (err) {
				*found = from + i;
				goto cleanup;
			}
		}
		from += SCAN_BLOCK;
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

	err = xlp_grow((void **)&r->buf, &r->cap, rg->ulen, 1);
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

/*
 * Counts a damaged region. One whose number is known (a version 2 header
 * CRC vouches for it) and in order uses that number up: damaged, not
 * missing. A damaged copy of a number taken already is only damage.
 */
static int reader__damaged(struct trace_reader *r, const struct region *rg, bool taken)
{
	bool in_order = true;
	int err = 0;

	r->in.bad++;
	if (!r->in.sequenced || !rg->trusted)
		return 0;
	if (!taken) {
		if (rg->seq < r->led.expect)
			return 0;
		err = ledger__take(&r->led, rg->seq, &in_order);
	}
	if (err || !in_order)
		return err;
	r->in.damaged++;
	return xlp_push((void **)&r->led.dmg, &r->led.ndmg, &r->led.dmg_cap, sizeof(uint64_t),
			&(uint64_t){rg->seq});
}

/* Compares what was read with the footer; sets the final status. */
static int reader__finish(struct trace_reader *r, const struct xlp_trace_footer *ft)
{
	struct trace_integrity *in = &r->in;
	struct ledger *l = &r->led;
	int err;

	r->done = true;
	r->status = TRACE_TRUNCATED;
	r->pos = r->len = 0;
	if (ft) {
		r->footer = *ft;
		in->footer = true;
		in->footer_chunks = ft->nchunks;
		in->footer_records = ft->nrecords;
	}
	if (in->sequenced && ft) {
		in->extra_chunks = ledger__taken_from(l, ft->nchunks);
		/* the numbers after the last one taken, up to the footer's count */
		if (l->expect < ft->nchunks) {
			struct seq_range g = {l->expect, ft->nchunks - 1};

			err = xlp_push((void **)&l->gap, &l->ngap, &l->gap_cap, sizeof(g), &g);
			if (err)
				return err;
			l->expect = ft->nchunks;
		}
	}
	if (in->sequenced) {
		err = ledger__settle(l, in);
		if (err)
			return err;
	} else if (ft) {
		uint64_t seen = in->chunks + in->bad;

		in->missing = ft->nchunks > seen ? ft->nchunks - seen : 0;
		in->extra_chunks = seen > ft->nchunks ? seen - ft->nchunks : 0;
	}
	if (!ft)
		return 0;
	in->missing_records = ft->nrecords > in->records ? ft->nrecords - in->records : 0;
	in->extra_records = in->records > ft->nrecords ? in->records - ft->nrecords : 0;
	r->status = in->bad || in->missing || in->duplicate || in->reordered || in->extra_chunks ||
				    in->missing_records || in->extra_records ||
				    in->chunks != ft->nchunks
			    ? TRACE_DAMAGED
			    : TRACE_COMPLETE;
	return 0;
}

/* Moves past a region that is not a valid chunk or footer. */
static int reader__recover(struct trace_reader *r, struct region *rg)
{
	bool bad = rg->kind == RG_BAD;
	uint8_t tag[4];
	uint64_t next = 0;
	int err;

	/*
	 * Damaged contents, sound length (a version 2 header CRC says so, or
	 * the next region starts where it says): move on to its end.
	 */
	if (rg->kind == RG_BAD && rg->next &&
	    (rg->trusted || rg->next == r->size ||
	     (read_at(r->fd, tag, 4, rg->next) == 4 && is_tag(tag)))) {
		r->off = rg->next;
		return reader__damaged(r, rg, false);
	}
	/* a sound header whose chunk runs past the end: the file was cut there */
	if (rg->kind == RG_SHORT && rg->trusted)
		return reader__finish(r, NULL);
	err = reader__resync(r, r->off + 1, &next);
	if (err < 0)
		return err;
	if (err == 1 || bad)
		r->in.bad++;
	if (err == 1)
		r->off = next;
	else
		/* only a cut-off region or trailing garbage: a truncated file */
		return reader__finish(r, NULL);
	return 0;
}

/* Loads the next chunk to deliver into buf, or marks the end of the file. */
static int reader__advance_once(struct trace_reader *r)
{
	struct region rg;
	bool in_order = true;
	int err;

	if (r->off >= r->size)
		return reader__finish(r, NULL);
	err = reader__probe(r, r->off, &rg);
	if (err)
		return err;
	if (rg.kind == RG_FOOTER)
		return reader__finish(r, &rg.foot);
	if (rg.kind != RG_CHUNK)
		return reader__recover(r, &rg);
	r->off = rg.next;
	if (r->in.sequenced) {
		err = ledger__take(&r->led, rg.seq, &in_order);
		if (err || !in_order)
			return err; /* a duplicate or out of order: not delivered */
	}
	err = reader__unpack(r, &rg);
	if (err < 0)
		return err;
	if (err)
		return reader__damaged(r, &rg, true);
	r->in.chunks++;
	r->in.records += rg.nrec;
	return 0;
}

static int reader__advance(struct trace_reader *r)
{
	int err = 0;

	while (!r->done && r->pos >= r->len && !err)
		err = reader__advance_once(r);
	if (err == -ECANCELED) {
		/* the checksum budget ran out: only a forged file gets here */
		r->in.gave_up = true;
		err = reader__finish(r, NULL);
	}
	return err;
}

/*
 * A compact call record (format 3) as the struct xlp_call_rec it stands
 * for: the counters it does not hold moved by 0 (an exclusive value it
 * does not hold equals the inclusive one), and the IPC peer is there when
 * its flag says so. One whose size does not match its mask and flags is
 * returned as it is, an unknown record to every consumer.
 */
static const struct xlp_hdr *expand_compact(struct trace_reader *r, const struct xlp_hdr *h)
{
	const struct xlp_call_compact_rec *c = (const void *)h;
	uint64_t mask = c->mask & ((1ull << XLP_COMPACT_VALUE_BITS) - 1);
	bool ipc = c->flags & XLP_CALL_IPC_PEER;
	struct xlp_call_rec *w = &r->wide;
	const struct xlp_ipc_peer *peer;
	const __u64 *v = c->val;
	size_t nval = (size_t)__builtin_popcountll(mask);

	if (h->size != sizeof(*c) + 8 * nval + (ipc ? sizeof(*peer) : 0))
		return h;
	*w = (struct xlp_call_rec){
		.h = {.type = XLP_R_CALL, .size = sizeof(*w), .cpu = c->h.cpu},
		.func_id = c->func_id,
		.pid = c->pid,
		.tid = c->tid,
		.depth = c->depth,
		.flags = c->flags,
		.entry_ns = c->entry_ns,
	};
	for (int k = 0; k < XLP_NR_CTR; k++)
		if (mask & (1ull << k))
			w->incl[k] = *v++;
	if (c->mask & XLP_COMPACT_RUN_IS_WALL)
		w->incl[XLP_C_CPU_RUN] = w->incl[XLP_C_WALL];
	for (int k = 0; k < XLP_NR_CTR; k++)
		w->excl[k] = mask & (1ull << (XLP_NR_CTR + k)) ? *v++ : w->incl[k];
	if (ipc) {
		peer = (const void *)v;
		w->ipc_peer_pid = peer->pid;
		memcpy(w->ipc_peer_comm, peer->comm, sizeof(w->ipc_peer_comm));
	}
	return &w->h;
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
	if ((*rec)->type == XLP_R_CALL_COMPACT && r->meta.format_version >= 3)
		*rec = expand_compact(r, *rec);
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
	return r->in.footer ? &r->footer : NULL;
}

uint64_t trace_reader__bad_chunks(const struct trace_reader *r)
{
	return r->in.bad;
}

uint64_t trace_reader__good_chunks(const struct trace_reader *r)
{
	return r->in.chunks;
}

const struct trace_integrity *trace_reader__integrity(const struct trace_reader *r)
{
	return &r->in;
}

const char *trace_reader__describe(const struct trace_reader *r, char *buf, size_t len)
{
	return ledger__describe(&r->led, &r->in, buf, len);
}

void trace_reader__close(struct trace_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	xlp_trace_meta__free(&r->meta);
	ledger__free(&r->led);
	free(r->zbuf);
	free(r->buf);
	free(r);
}

bool trace__sym_ok(const struct xlp_sym_rec *r, uint32_t next)
{
	return r->id == next && (size_t)r->module_len + r->name_len <= r->h.size - sizeof(*r);
}

bool trace__stack_ok(const struct xlp_stack_rec *r, uint32_t next, uint32_t nsyms)
{
	size_t room = (r->h.size - sizeof(*r)) / sizeof(r->frames[0]);

	if (r->id != next || r->nframes > room || r->nframes > XLP_STACK_DEPTH)
		return false;
	for (size_t i = 0; i < r->nframes; i++)
		if (r->frames[i].sym >= nsyms)
			return false;
	return true;
}

uint32_t *trace__stack_syms(const struct xlp_stack_rec *r)
{
	uint32_t *syms = calloc(r->nframes + 1, sizeof(*syms));

	for (size_t i = 0; syms && i < r->nframes; i++)
		syms[i] = r->frames[i].sym;
	return syms;
}
