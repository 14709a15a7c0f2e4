/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Output files, created so that root never writes where someone else
 * pointed it (see outfile.h and docs/security.md, "Writing files").
 *
 * Every step works on the directory's fd and the last component of the
 * path, so a check and the act it guards see the same directory. The
 * final name is only ever created with O_EXCL|O_NOFOLLOW, linked (link
 * fails on an existing name) or renamed onto (rename replaces the name,
 * never writes into what it pointed to): a symbolic link or a hard link
 * planted at the name, even between a check and the act, is never written
 * through. What is checked (the destination's type and owner) only decides
 * whether replacing it is polite, not whether it is safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "log.h"
#include "outfile.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* What is at the final name, when xlprobe may go on. */
enum dest_kind {
	DEST_NONE,   /* nothing: create it */
	DEST_OURS,   /* a regular file of our user: replaced by rename */
	DEST_DEVICE, /* a character device with one name: written directly */
};

enum out_mode {
	M_NONE,	     /* nothing created yet */
	M_IN_PLACE,  /* created under the final name (OUTFILE_CRASH_SAFE) */
	M_DEVICE,    /* an existing character device */
	M_NAMED_TMP, /* tmp in the directory, renamed at commit */
	M_TMPFILE,   /* O_TMPFILE, linked at commit */
};

struct outfile {
	int dirfd;
	int fd;
	enum out_mode mode;
	bool dir_syncable; /* dirfd is O_RDONLY (fsync works), not O_PATH */
	bool keep_tmp;	   /* the data was left in tmp: never remove it */
	dev_t dev;	   /* of fd: our file, whatever name it has */
	ino_t ino;
	FILE *stream;
	char *path;	  /* as given, for messages */
	char *dir;	  /* its directory as given, "." when none */
	const char *name; /* last component, inside path */
	char tmp[NAME_MAX + 1];
	char partial[PATH_MAX];
};

static void msg(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void msg(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static int split_path(struct outfile *f, const char *path)
{
	char *slash;

	f->path = strdup(path);
	if (!f->path)
		return -ENOMEM;
	slash = strrchr(f->path, '/');
	if (!slash) {
		f->dir = strdup(".");
		f->name = f->path;
	} else {
		f->dir = slash == f->path ? strdup("/") : strndup(f->path, slash - f->path);
		f->name = slash + 1;
	}
	if (!f->dir)
		return -ENOMEM;
	if (!*f->name || !strcmp(f->name, ".") || !strcmp(f->name, ".."))
		return -EISDIR;
	return 0;
}

/*
 * What is at the final name now. Refusals come with their cause and fix,
 * worded for "cannot write PATH: CAUSE: FIX".
 */
static int dest_check(struct outfile *f, enum dest_kind *kind, struct stat *st, const char **cause,
		      const char **fix)
{
	static char owner[96];

	*fix = "remove it or choose another path";
	if (fstatat(f->dirfd, f->name, st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT) {
			*kind = DEST_NONE;
			return 0;
		}
		*cause = strerror(errno);
		*fix = "choose a writable path";
		return -errno;
	}
	if (S_ISLNK(st->st_mode)) {
		*cause = "it is a symbolic link, which xlprobe never writes through";
		return -ELOOP;
	}
	if (S_ISREG(st->st_mode)) {
		if (st->st_uid == geteuid()) {
			*kind = DEST_OURS;
			return 0;
		}
		snprintf(owner, sizeof(owner),
			 "it belongs to uid %u, and xlprobe replaces only files of its own user",
			 (unsigned)st->st_uid);
		*cause = owner;
		return -EEXIST;
	}
	/* only root makes device nodes; a second name would be a planted link */
	if (S_ISCHR(st->st_mode) && st->st_nlink == 1) {
		*kind = DEST_DEVICE;
		return 0;
	}
	*fix = "choose another path";
	if (S_ISDIR(st->st_mode)) {
		*cause = "it is a directory";
		return -EISDIR;
	}
	*cause = "it is not a regular file";
	return -EEXIST;
}

static void remember(struct outfile *f)
{
	struct stat st;

	if (!fstat(f->fd, &st)) {
		f->dev = st.st_dev;
		f->ino = st.st_ino;
	}
}

static bool is_ours(const struct outfile *f, const char *name)
{
	struct stat st;

	return !fstatat(f->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) && st.st_dev == f->dev &&
	       st.st_ino == f->ino;
}

/* ".NAME.XXXXXX": hidden, next to the destination, unguessable. */
static void make_tmp_name(struct outfile *f)
{
	static const char cs[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static unsigned counter;
	unsigned char r[6];
	char suf[sizeof(r) + 1];

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		/* only predictable, not unsafe: O_EXCL refuses a planted name */
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		for (size_t i = 0; i < sizeof(r); i++)
			r[i] = (unsigned char)((ts.tv_nsec >> (4 * i)) ^ getpid() ^ counter++);
	}
	for (size_t i = 0; i < sizeof(r); i++)
		suf[i] = cs[r[i] % (sizeof(cs) - 1)];
	suf[sizeof(r)] = 0;
	snprintf(f->tmp, sizeof(f->tmp), ".%.*s.%s", NAME_MAX - 8, f->name, suf);
}

static void set_partial(struct outfile *f)
{
	size_t n = strlen(f->dir);

	snprintf(f->partial, sizeof(f->partial), "%s%s%s", f->dir,
		 n && f->dir[n - 1] == '/' ? "" : "/", f->tmp);
}

static int create_named_tmp(struct outfile *f)
{
	for (int i = 0; i < 100; i++) {
		make_tmp_name(f);
		f->fd = openat(f->dirfd, f->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       0600);
		if (f->fd >= 0) {
			remember(f);
			set_partial(f);
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	f->tmp[0] = 0;
	return errno == EEXIST ? -EEXIST : -errno;
}

static int open_tmpfile(struct outfile *f)
{
#ifdef O_TMPFILE
	f->fd = openat(f->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (f->fd >= 0) {
		remember(f);
		return 0;
	}
	return -errno;
#else
	return -EOPNOTSUPP;
#endif
}

/* Opens an existing character device without blocking on it, and checks
 * that what was opened is what was checked. */
static int open_device(struct outfile *f, const struct stat *want)
{
	struct stat st;
	int fl;

	f->fd = openat(f->dirfd, f->name,
		       O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (f->fd < 0)
		return errno == ELOOP ? -EAGAIN : -errno;
	if (fstat(f->fd, &st) || !S_ISCHR(st.st_mode) || st.st_nlink != 1 ||
	    st.st_rdev != want->st_rdev) {
		close(f->fd);
		f->fd = -1;
		return -EAGAIN; /* swapped since the check: look again */
	}
	fl = fcntl(f->fd, F_GETFL);
	if (fl >= 0)
		fcntl(f->fd, F_SETFL, fl & ~O_NONBLOCK);
	remember(f);
	f->mode = M_DEVICE;
	return 0;
}

/* -EAGAIN: the name changed between the check and the create. */
static int create(struct outfile *f, enum dest_kind kind, const struct stat *st, unsigned flags)
{
	if (kind == DEST_DEVICE)
		return open_device(f, st);
	if (kind == DEST_NONE && (flags & OUTFILE_CRASH_SAFE)) {
		f->fd = openat(f->dirfd, f->name,
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (f->fd < 0)
			return errno == EEXIST ? -EAGAIN : -errno;
		remember(f);
		f->mode = M_IN_PLACE;
		return 0;
	}
	/* a crash must not lose a trace: an O_TMPFILE would vanish with us */
	if (!(flags & OUTFILE_CRASH_SAFE) && !open_tmpfile(f)) {
		f->mode = M_TMPFILE;
		return 0;
	}
	f->mode = M_NAMED_TMP;
	return create_named_tmp(f);
}

static void outfile__free(struct outfile *f)
{
	if (!f)
		return;
	if (f->stream)
		fclose(f->stream);
	if (f->fd >= 0)
		close(f->fd);
	if (f->dirfd >= 0)
		close(f->dirfd);
	free(f->path);
	free(f->dir);
	free(f);
}

int outfile__open(const char *path, unsigned flags, struct outfile **out, char *err, size_t errlen)
{
	const char *cause = NULL, *fix = "choose a writable path";
	enum dest_kind kind;
	struct outfile *f;
	struct stat st;
	int ret;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->dirfd = f->fd = -1;
	ret = split_path(f, path);
	if (ret) {
		msg(err, errlen, "cannot write %s: %s: choose another path", path,
		    ret == -EISDIR ? "not a file name" : strerror(-ret));
		goto cleanup;
	}
	f->dir_syncable = true;
	f->dirfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->dirfd < 0 && errno == EACCES) {
		/* may be writable without being readable: enough to create in */
		f->dir_syncable = false;
		f->dirfd = open(f->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (f->dirfd < 0) {
		ret = -errno;
		msg(err, errlen, "cannot write %s: %s: %s: choose a writable path", path, f->dir,
		    strerror(-ret));
		goto cleanup;
	}
	/* what was checked may change before the create: then look again */
	for (int tries = 0; tries < 3; tries++) {
		ret = dest_check(f, &kind, &st, &cause, &fix);
		if (ret) {
			msg(err, errlen, "cannot write %s: %s: %s", path, cause, fix);
			goto cleanup;
		}
		ret = create(f, kind, &st, flags);
		if (ret != -EAGAIN)
			break;
	}
	if (ret) {
		msg(err, errlen, "cannot write %s: %s: choose a writable path", path,
		    strerror(ret == -EAGAIN ? EBUSY : -ret));
		goto cleanup;
	}
	*out = f;
	f = NULL;
cleanup:
	outfile__abort(f);
	return ret;
}

int outfile__fd(const struct outfile *f)
{
	return f->fd;
}

FILE *outfile__stream(struct outfile *f)
{
	int fd;

	if (f->stream)
		return f->stream;
	/* a copy: fclose() must leave fd to commit, which links it by fd */
	fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	f->stream = fdopen(fd, "w");
	if (!f->stream)
		close(fd);
	return f->stream;
}

const char *outfile__partial_path(const struct outfile *f)
{
	return f->mode == M_NAMED_TMP && f->tmp[0] ? f->partial : NULL;
}

/* Gives the O_TMPFILE's inode a name: the final one or tmp. */
static int link_fd(struct outfile *f, const char *name)
{
	char proc[64];

	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc works for anyone */
	if (!linkat(f->fd, "", f->dirfd, name, AT_EMPTY_PATH))
		return 0;
	if (errno == EEXIST)
		return -EEXIST;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	if (!linkat(AT_FDCWD, proc, f->dirfd, name, AT_SYMLINK_FOLLOW))
		return 0;
	return -errno;
}

static int name_tmpfile(struct outfile *f)
{
	int ret = -EEXIST;

	for (int i = 0; i < 100 && ret == -EEXIST; i++) {
		make_tmp_name(f);
		ret = link_fd(f, f->tmp);
	}
	if (ret) {
		f->tmp[0] = 0;
		return ret;
	}
	set_partial(f);
	f->mode = M_NAMED_TMP;
	return 0;
}

static int rename_noreplace(struct outfile *f)
{
	if (!renameat2(f->dirfd, f->tmp, f->dirfd, f->name, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* a filesystem without RENAME_NOREPLACE: link refuses a taken name alike */
	if (linkat(f->dirfd, f->tmp, f->dirfd, f->name, 0))
		return -errno;
	unlinkat(f->dirfd, f->tmp, 0);
	return 0;
}

/* Leaves the data under a temporary name and says where. */
static int left_in_tmp(struct outfile *f, int ret, const char *cause, char *err, size_t errlen)
{
	if (f->mode == M_TMPFILE && name_tmpfile(f)) {
		msg(err, errlen,
		    "cannot write %s: %s, since xlprobe began writing it: nothing was "
		    "written; write into a directory only you can change",
		    f->path, cause);
		return ret;
	}
	f->keep_tmp = true;
	msg(err, errlen,
	    "cannot write %s: %s, since xlprobe began writing it: the data is in %s; write into a "
	    "directory only you can change",
	    f->path, cause, f->partial);
	return ret;
}

static int publish(struct outfile *f, char *err, size_t errlen)
{
	const char *cause, *fix;
	enum dest_kind kind;
	struct stat st;
	int ret = 0;

	/* someone may have put something at the name meanwhile: look again */
	for (int tries = 0; tries < 3; tries++) {
		ret = dest_check(f, &kind, &st, &cause, &fix);
		if (!ret && kind == DEST_DEVICE) {
			cause = "it is not a regular file";
			ret = -EEXIST;
		}
		if (ret)
			return left_in_tmp(f, ret, cause, err, errlen);
		if (kind == DEST_NONE) {
			ret = f->mode == M_TMPFILE ? link_fd(f, f->name) : rename_noreplace(f);
			if (ret == -EEXIST)
				continue;
			break;
		}
		/* our own older file: rename replaces the name, not the file */
		if (f->mode == M_TMPFILE) {
			ret = name_tmpfile(f);
			if (ret)
				break;
		}
		ret = renameat(f->dirfd, f->tmp, f->dirfd, f->name) ? -errno : 0;
		break;
	}
	if (!ret) {
		f->tmp[0] = 0;
		return 0;
	}
	return left_in_tmp(f, ret, strerror(-ret), err, errlen);
}

/*
 * The file created under the final name is not there any more: someone who
 * can change the directory replaced or moved it. Copy what was written to a
 * temporary name (our inode may have no name left to link).
 */
static int rescue_copy(struct outfile *f, char *err, size_t errlen)
{
	char buf[65536];
	int src = f->fd, ret;
	off_t off = 0;
	ssize_t n;

	f->fd = -1;
	ret = create_named_tmp(f);
	while (!ret && (n = pread(src, buf, sizeof(buf), off)) != 0) {
		if (n < 0 || write(f->fd, buf, (size_t)n) != n) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		off += n;
	}
	if (!ret && fsync(f->fd) && errno != EINVAL)
		ret = -errno;
	close(src);
	if (ret) {
		msg(err, errlen,
		    "cannot write %s: it was replaced by someone else while xlprobe wrote it, and "
		    "saving the data elsewhere failed (%s): write into a directory only you can "
		    "change",
		    f->path, strerror(-ret));
		return ret;
	}
	f->mode = M_NAMED_TMP;
	f->keep_tmp = true;
	msg(err, errlen,
	    "cannot write %s: it was replaced by someone else while xlprobe wrote it: the data is "
	    "in %s; write into a directory only you can change",
	    f->path, f->partial);
	return -ESTALE;
}

int outfile__commit(struct outfile *f, char *err, size_t errlen)
{
	int ret = 0;

	if (!f)
		return -EINVAL;
	if (f->stream) {
		if (fflush(f->stream) || ferror(f->stream))
			ret = errno ? -errno : -EIO;
		if (fclose(f->stream) && !ret)
			ret = -errno;
		f->stream = NULL;
	}
	/* the data first, then the name: a crash never shows a name without it */
	if (!ret && f->mode != M_DEVICE && fsync(f->fd) && errno != EINVAL && errno != EROFS)
		ret = -errno;
	if (ret) {
		if (f->mode == M_IN_PLACE) {
			msg(err, errlen, "cannot write %s: %s: the file may lack its end", f->path,
			    strerror(-ret));
			goto cleanup;
		}
		msg(err, errlen,
		    "cannot write %s: %s: nothing was written there; check the free "
		    "space",
		    f->path, strerror(-ret));
		outfile__abort(f);
		return ret;
	}
	if (f->mode == M_IN_PLACE && !is_ours(f, f->name))
		ret = rescue_copy(f, err, errlen);
	else if (f->mode == M_NAMED_TMP || f->mode == M_TMPFILE)
		ret = publish(f, err, errlen);
	/* the name too must survive a crash */
	if (!ret && f->dir_syncable && f->mode != M_DEVICE)
		fsync(f->dirfd);
cleanup:
	outfile__free(f);
	return ret;
}

void outfile__abort(struct outfile *f)
{
	if (!f)
		return;
	if (f->stream) {
		fclose(f->stream);
		f->stream = NULL;
	}
	/* only what we created, and only if it is still ours */
	if (f->fd >= 0 && f->mode == M_IN_PLACE && is_ours(f, f->name))
		unlinkat(f->dirfd, f->name, 0);
	if (f->tmp[0] && !f->keep_tmp && is_ours(f, f->tmp))
		unlinkat(f->dirfd, f->tmp, 0);
	outfile__free(f);
}

int outfile__write_with(const char *path, const char *opt, int (*fn)(FILE *f, const void *ctx),
			const void *ctx)
{
	char err[PATH_MAX + 256];
	struct outfile *of = NULL;
	FILE *f = stdout;
	int ret;

	if (path) {
		ret = outfile__open(path, 0, &of, err, sizeof(err));
		if (ret) {
			xlp_err("%s with %s", err, opt);
			return ret;
		}
		f = outfile__stream(of);
	}
	ret = f ? fn(f, ctx) : -ENOMEM;
	if (!ret && !of && fflush(f))
		ret = -errno;
	if (ret) {
		xlp_err("cannot write %s: %s: check the free space", path ? path : "the output",
			strerror(-ret));
		outfile__abort(of);
		return ret;
	}
	if (of) {
		ret = outfile__commit(of, err, sizeof(err));
		if (ret)
			xlp_err("%s", err);
	}
	return ret;
}
