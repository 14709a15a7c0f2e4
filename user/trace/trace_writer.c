/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Trace file writer.
 *
 * Trace file format, version 3
 * ----------------------------
 * Integers in the header, chunk and footer framing are little-endian.
 * Records are stored exactly as the BPF side produced them (bpf/xlprobe.h),
 * in the byte order of the recording host (x86_64 and arm64: little-endian).
 * A file is one header, zero or more chunks, then one footer.
 *
 * Header
 *    0   8  magic "XLPROBE\0"
 *    8   4  format version (XLP_TRACE_VERSION)
 *   12   4  payload length P (at most 16 MiB)
 *   16   4  CRC32 of bytes 8..15 followed by the P payload bytes
 *   20   P  payload, struct xlp_trace_meta:
 *             u32 ncpus, u32 clock_id, u32 features, u32 target_pid,
 *             u32 repeat, s64 boot_offset_ns, u64 start_ns, u64 min_dur_ns,
 *             str host, str kernel, str cmdline, str notes,
 *             u32 nfuncs (at most XLP_MAX_FUNCS), then nfuncs times:
 *               u32 id (== its index), u32 flags, u64 offset,
 *               str binary, str symbol, str build_id
 *           where str is a u32 byte count then that many bytes (no NUL).
 *           Readers ignore bytes after the function table.
 *
 * Chunk (repeated)
 *    0   4  tag "CHNK"
 *    4   4  sequence number S: 0 for the first chunk, then one more each
 *    8   4  compressed length C (at most 64 MiB)
 *   12   4  uncompressed length U (at most 64 MiB, and at most 1032 C:
 *           deflate's largest ratio)
 *   16   4  record count N (at least 1, at most U / 8)
 *   20   4  CRC32 of the C compressed bytes
 *   24   4  CRC32 of bytes 4..23 (the header CRC)
 *   28   C  zlib stream (RFC 1950) of U bytes: N records back to back, each
 *           a struct xlp_hdr and its payload, h.size bytes in all; h.size
 *           is a multiple of 8 and, for the types bpf/xlprobe.h defines,
 *           at least the size of their struct. Readers skip unknown types.
 *
 * Footer (last: it ends the file)
 *    0   4  tag "FOOT"
 *    4   4  payload length L (136 in versions 2 and 3; readers accept more)
 *    8   4  CRC32 of bytes 4..7 followed by the L payload bytes
 *   12   L  payload, struct xlp_trace_footer:
 *             u64 end_ns, u64 nrecords, u64 nchunks (both counted by
 *             the writer: what the chunks on disk hold), u64 stat[12]
 *             (enum xlp_stat order), u64 lost_by_reader,
 *             u32 stop_reason, u32 reserved (0)
 *
 * Version 3 added the compact call record (XLP_R_CALL_COMPACT, which the
 * reader expands); version 2 files are the same without it. Version 1
 * chunks had no S and one CRC: tag, C, U, N, then the CRC32 of bytes
 * 4..15 followed by the C compressed bytes (a 20-byte header).
 *
 * Each CRC32 (zlib's crc32(), the ISO-HDLC polynomial) also covers the
 * fields between the magic or tag and itself, so a damaged length or
 * version is caught like damaged data. The chunk's header CRC lets the
 * reader trust C after checking 24 bytes: re-synchronising after damage
 * costs O(1) per "CHNK" found, never a checksum of a length it cannot
 * trust. The 20-byte header prefix keeps this layout in every format
 * version, so any xlprobe can tell a newer file from a damaged one.
 *
 * The reader (trace_reader.c) delivers chunks in increasing S: a missing
 * number is reported, a chunk whose number was read already (a duplicate)
 * or that comes after a higher one (out of order) is skipped and reported,
 * and the footer's counts are checked against what was read. A file
 * without a valid footer is truncated: it is read up to its last whole
 * chunk. A chunk failing a CRC, not inflating to exactly U bytes, or whose
 * record sizes do not add up to U and N, is skipped and counted; when its
 * header cannot be trusted the reader scans forward for the next "CHNK"
 * whose header CRC validates, or the footer. A footer failing its CRC is
 * counted the same way, and the file reads as truncated.
 *
 * The writer compresses the pending records into a chunk when 256 KiB are
 * buffered and on trace_writer__flush() (the recorder calls it at least
 * once a second). If writing a chunk fails, the file is cut back to the end
 * of the previous chunk and the writer refuses further work: what is on
 * disk always reads back as a valid, truncated trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "outfile.h"
#include "trace.h"
#include "trace_format.h"

#define CHUNK_TARGET (256 * 1024)
/* h.size is a u16 multiple of 8, so one record never exceeds this */
#define REC_MAX 65528
#define BUF_CAP (CHUNK_TARGET + REC_MAX)
/* Tracing must disturb the traced system little: favour speed over ratio. */
#define ZLEVEL 1

struct trace_writer {
	int fd;
	struct outfile *of; /* owned when opened by path, else NULL (fd is the caller's) */
	int err;	    /* first write error: sticky */
	uint64_t off;	    /* file size through the last whole chunk */
	uint64_t nrecords;  /* appended */
	uint64_t nwritten;  /* in chunks on disk */
	uint64_t nchunks;
	uint32_t nbuf; /* records pending in buf */
	size_t len;    /* bytes pending in buf */
	uint8_t *buf;
	uint8_t *zbuf; /* chunk header + compressed records */
	size_t zcap;
	/*
	 * One deflate stream, set up once and reset for each chunk, at level 1
	 * (Z_BEST_SPEED): compression was most of the recorder's CPU per record
	 * (tests/bench, section 2), and compress2() at its default level
	 * allocated and freed ~270 KB of deflate state for every chunk.
	 */
	z_stream zs;
	bool zs_ready;
};

/* Growable byte string for encoding the header payload. */
struct bbuf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}

static void bbuf__put(struct bbuf *b, const void *src, size_t n)
{
	if (b->err)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void bbuf__u32(struct bbuf *b, uint32_t v)
{
	uint8_t x[4];

	put_le32(x, v);
	bbuf__put(b, x, sizeof(x));
}

static void bbuf__u64(struct bbuf *b, uint64_t v)
{
	uint8_t x[8];

	put_le64(x, v);
	bbuf__put(b, x, sizeof(x));
}

/* NULL is written as "", so callers may leave optional strings unset. */
static void bbuf__str(struct bbuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > HDR_PAYLOAD_MAX) {
		b->err = -E2BIG;
		return;
	}
	bbuf__u32(b, n);
	bbuf__put(b, s, n);
}

static uint32_t crc_of(uint32_t crc, const uint8_t *p, size_t n)
{
	return crc32(crc, p, n);
}

static int header__encode(struct bbuf *b, const struct xlp_trace_meta *m)
{
	/* in the order the reader takes them (trace_meta.c) */
	const char *const strs[] = {m->host, m->kernel, m->cmdline, m->notes};
	uint8_t zero[PREFIX_LEN] = {0};
	size_t plen;
	uint32_t crc;

	bbuf__put(b, zero, sizeof(zero)); /* prefix, filled in below */
	bbuf__u32(b, m->ncpus);
	bbuf__u32(b, m->clock_id);
	bbuf__u32(b, m->features);
	bbuf__u32(b, m->target_pid);
	bbuf__u32(b, m->repeat);
	bbuf__u64(b, (uint64_t)m->boot_offset_ns);
	bbuf__u64(b, m->start_ns);
	bbuf__u64(b, m->min_dur_ns);
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		bbuf__str(b, strs[i]);
	/* the reader refuses anything else: a file-chosen id must never index */
	if (m->nfuncs > XLP_MAX_FUNCS)
		return -E2BIG;
	bbuf__u32(b, m->nfuncs);
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		const struct xlp_func_info *f = &m->funcs[i];

		if (f->id != i)
			return -EINVAL;
		bbuf__u32(b, f->id);
		bbuf__u32(b, f->flags);
		bbuf__u64(b, f->offset);
		bbuf__str(b, f->binary);
		bbuf__str(b, f->symbol);
		bbuf__str(b, f->build_id);
	}
	if (b->err)
		return b->err;
	plen = b->len - PREFIX_LEN;
	if (plen > HDR_PAYLOAD_MAX)
		return -E2BIG;
	memcpy(b->p, XLP_TRACE_MAGIC, 8);
	put_le32(b->p + 8, XLP_TRACE_VERSION);
	put_le32(b->p + 12, plen);
	crc = crc_of(0, b->p + 8, 8);
	put_le32(b->p + 16, crc_of(crc, b->p + PREFIX_LEN, plen));
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EIO;
		p += k;
		n -= k;
	}
	return 0;
}

/*
 * Appends a whole chunk or footer. On failure, drops the part of it that
 * made it to the file, so the file keeps ending on a chunk boundary.
 */
static int writer__write(struct trace_writer *w, const uint8_t *p, size_t n)
{
	int err = write_all(w->fd, p, n);

	if (err) {
		/* fails on devices like /dev/full: nothing to cut back there */
		if (!ftruncate(w->fd, w->off))
			lseek(w->fd, w->off, SEEK_SET);
		w->err = err;
		return err;
	}
	w->off += n;
	return 0;
}

/* Frees w; a file opened by path is put in place (commit) or removed. */
static int writer__free(struct trace_writer *w, bool commit)
{
	int err = 0;

	if (!w)
		return 0;
	if (w->of && commit)
		err = outfile__commit(w->of, NULL, 0);
	else
		outfile__abort(w->of);
	if (w->zs_ready)
		deflateEnd(&w->zs);
	free(w->buf);
	free(w->zbuf);
	free(w);
	return err;
}

int trace_writer__open_fd(int fd, const struct xlp_trace_meta *meta, struct trace_writer **out)
{
	struct bbuf hdr = {0};
	struct trace_writer *w;
	int err;

	*out = NULL;
	if (!meta || (meta->nfuncs && !meta->funcs) || fd < 0)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	if (deflateInit(&w->zs, ZLEVEL) != Z_OK) {
		err = -ENOMEM;
		goto cleanup;
	}
	w->zs_ready = true;
	w->zcap = CHUNK_HDR_LEN + deflateBound(&w->zs, BUF_CAP);
	w->buf = malloc(BUF_CAP);
	w->zbuf = malloc(w->zcap);
	if (!w->buf || !w->zbuf) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = header__encode(&hdr, meta);
	if (err)
		goto cleanup;
	err = write_all(w->fd, hdr.p, hdr.len);
	if (err)
		goto cleanup;
	w->off = hdr.len;
	*out = w;
	w = NULL;
cleanup:
	free(hdr.p);
	writer__free(w, false);
	return err;
}

int trace_writer__open(const char *path, const struct xlp_trace_meta *meta,
		       struct trace_writer **out)
{
	struct outfile *of = NULL;
	int err;

	*out = NULL;
	err = outfile__open(path, OUTFILE_CRASH_SAFE, &of, NULL, 0);
	if (err)
		return err;
	err = trace_writer__open_fd(outfile__fd(of), meta, out);
	if (err) {
		outfile__abort(of);
		return err;
	}
	(*out)->of = of;
	return 0;
}

int trace_writer__append(struct trace_writer *w, const struct xlp_hdr *rec)
{
	int err;

	if (w->err)
		return w->err;
	if (rec->size % 8 || rec->size < trace_rec_min_size(rec->type))
		return -EINVAL;
	if (w->len + rec->size > BUF_CAP) {
		err = trace_writer__flush(w);
		if (err)
			return err;
	}
	memcpy(w->buf + w->len, rec, rec->size);
	w->len += rec->size;
	w->nbuf++;
	w->nrecords++;
	if (w->len >= CHUNK_TARGET)
		return trace_writer__flush(w);
	return 0;
}

int trace_writer__flush(struct trace_writer *w)
{
	uint8_t *h = w->zbuf;
	size_t zlen;
	int err;

	if (w->err)
		return w->err;
	if (!w->nbuf)
		return 0;
	/* zbuf is sized by the stream's bound: one Z_FINISH call ends it */
	w->zs.next_in = w->buf;
	w->zs.avail_in = (uInt)w->len;
	w->zs.next_out = h + CHUNK_HDR_LEN;
	w->zs.avail_out = (uInt)(w->zcap - CHUNK_HDR_LEN);
	if (deflate(&w->zs, Z_FINISH) != Z_STREAM_END) {
		deflateReset(&w->zs);
		w->err = -ENOMEM;
		return w->err;
	}
	zlen = w->zs.total_out;
	if (deflateReset(&w->zs) != Z_OK) {
		w->err = -ENOMEM;
		return w->err;
	}
	memcpy(h, "CHNK", 4);
	put_le32(h + 4, (uint32_t)w->nchunks); /* the sequence number */
	put_le32(h + 8, (uint32_t)zlen);
	put_le32(h + 12, w->len);
	put_le32(h + 16, w->nbuf);
	put_le32(h + 20, crc_of(0, h + CHUNK_HDR_LEN, zlen));
	put_le32(h + 24, crc_of(0, h + 4, 20));
	err = writer__write(w, h, CHUNK_HDR_LEN + zlen);
	if (err)
		return err;
	w->nwritten += w->nbuf;
	w->nchunks++;
	w->nbuf = 0;
	w->len = 0;
	return 0;
}

static int writer__footer(struct trace_writer *w, const struct xlp_trace_footer *f)
{
	static const struct xlp_trace_footer none;
	uint8_t b[FOOT_HDR_LEN + FOOT_LEN], *p = b + FOOT_HDR_LEN;

	if (!f)
		f = &none;
	memcpy(b, "FOOT", 4);
	put_le32(b + 4, FOOT_LEN);
	put_le64(p, f->end_ns);
	/* the writer knows best what reached the file */
	put_le64(p + 8, w->nwritten);
	put_le64(p + 16, w->nchunks);
	p += 24;
	for (int i = 0; i < XLP_NR_STAT; i++, p += 8)
		put_le64(p, f->stat[i]);
	put_le64(p, f->lost_by_reader);
	put_le32(p + 8, f->stop_reason);
	put_le32(p + 12, 0);
	put_le32(b + 8, crc_of(crc_of(0, b + 4, 4), b + FOOT_HDR_LEN, FOOT_LEN));
	return writer__write(w, b, sizeof(b));
}

int trace_writer__close(struct trace_writer *w, const struct xlp_trace_footer *footer)
{
	int err, ret;

	if (!w)
		return -EINVAL;
	err = trace_writer__flush(w);
	if (!err)
		err = writer__footer(w, footer);
	/* even after an error: the chunks before it are a valid trace, and
	 * commit syncs them to disk */
	ret = writer__free(w, true);
	return err ? err : ret;
}

void trace_writer__abort(struct trace_writer *w)
{
	if (!w)
		return;
	/* the pending records are valid: keep them in the truncated file */
	trace_writer__flush(w);
	writer__free(w, true);
}

void trace_writer__discard(struct trace_writer *w)
{
	writer__free(w, false);
}

uint64_t trace_writer__nrecords(const struct trace_writer *w)
{
	return w->nrecords;
}

uint64_t trace_writer__bytes(const struct trace_writer *w)
{
	return w->off;
}
