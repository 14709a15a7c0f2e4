/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every file xlprobe writes (trace, report, HTML page) is created here, so
 * that a root xlprobe never writes through a link or into a file someone
 * else planted at the path (docs/security.md, "Writing files"):
 *
 * - the directory is opened once; everything after is relative to it;
 * - the last component of the path is never followed;
 * - files are created O_EXCL|O_NOFOLLOW, mode 0600, and put in place at
 *   the end (renamed or linked, never truncated or rewritten);
 * - an existing destination is replaced only if it is a regular file of
 *   our own user (atomically, by rename: the old file is not opened); a
 *   symbolic link, another user's file, a directory or a FIFO is refused;
 *   an existing character device with a single name (/dev/null) is
 *   written to directly.
 */
#ifndef XLP_OUTFILE_H
#define XLP_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

struct outfile;

/*
 * The data must survive a crash of xlprobe (a trace: its footer tells a
 * complete file from a cut-short one). A new file is then created under
 * its final name at once; replacing our own older file goes through a
 * named temporary file (outfile__partial_path) renamed at commit. Without
 * the flag, the file is an O_TMPFILE where the filesystem has them (a
 * named temporary file elsewhere), linked in at commit: nothing appears
 * under the name before it is complete.
 */
#define OUTFILE_CRASH_SAFE (1u << 0)

/*
 * Opens path for writing as described above. Negative errno on error, with
 * a one-line message in err (may be NULL) of the form "cannot write PATH:
 * CAUSE: FIX", the fix ending with "choose another path" or "choose a
 * writable path" so that callers can name their option after it.
 */
int outfile__open(const char *path, unsigned flags, struct outfile **out, char *err, size_t errlen);
int outfile__fd(const struct outfile *f);
/* A stdio stream on the file (opened on first call, owned by f); NULL and
 * errno on failure. Flushed and closed by commit/abort. */
FILE *outfile__stream(struct outfile *f);
/* Where the data is while it is written, when that is not the final name
 * (a temporary file): "DIR/.NAME.XXXXXX". NULL otherwise. */
const char *outfile__partial_path(const struct outfile *f);
/*
 * Flushes, syncs and puts the file in place under its name, then frees f
 * (also on error). Negative errno on error, with a one-line message in err
 * that says where the data is, if anywhere.
 */
int outfile__commit(struct outfile *f, char *err, size_t errlen);
/* Removes what was created (never anything else) and frees f. Accepts NULL. */
void outfile__abort(struct outfile *f);

/*
 * One whole output written by fn: to path (opened, written, put in place
 * only when complete) or, path NULL, to standard output (flushed). Any
 * failure is one message on stderr naming the file and the fix ("... with
 * -o" when opt is "-o"). 0 or -errno.
 */
int outfile__write_with(const char *path, const char *opt, int (*fn)(FILE *f, const void *ctx),
			const void *ctx);

#endif
