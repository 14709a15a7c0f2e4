/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Opening a JIT runtime's file safely (jitfile.h). */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "jitfile.h"

void jitfile__blame(struct jit_counts *c, const char *path, const char *cause)
{
	if (!c->why[0])
		snprintf(c->why, sizeof(c->why), "%s: %s", path, cause);
}

static const char *type_name(mode_t m)
{
	return S_ISFIFO(m)   ? "a FIFO"
	       : S_ISDIR(m)  ? "a directory"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
			     : "not a regular file";
}

int jitfile__open(const char *path, const struct jit_owner *own, int *fd, struct stat *st,
		  struct jit_counts *c)
{
	char cause[160];
	bool ok;
	int f = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), err;

	*fd = -1;
	if (f < 0) {
		err = -errno;
		if (err == -ELOOP) {
			c->refused++;
			jitfile__blame(c, path, "a symlink, not read (the recorder runs as root)");
			return -EPERM;
		}
		return err;
	}
	if (fstat(f, st)) {
		err = -errno;
		close(f);
		return err;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(cause, sizeof(cause), "%s, not read", type_name(st->st_mode));
		goto refuse;
	}
	ok = st->st_uid == 0;
	for (size_t i = 0; i < own->n && i < 4; i++)
		ok |= st->st_uid == own->uid[i];
	if (!ok) {
		snprintf(cause, sizeof(cause),
			 "owned by uid %u, not by the process's uid %u nor root: not read (another "
			 "user could have written it)",
			 (unsigned)st->st_uid, own->n ? (unsigned)own->uid[0] : 0u);
		goto refuse;
	}
	*fd = f;
	return 0;
refuse:
	close(f);
	c->refused++;
	jitfile__blame(c, path, cause);
	return -EPERM;
}
