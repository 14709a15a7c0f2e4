/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Finding the files --func reads: the BINARY of a spec (a path, a library
 * the process maps, one in the dynamic loader's directories) and the
 * separate debug file of a binary without .symtab.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elfsym_int.h"

/* Best file found so far for a bare BINARY name (see name_rank). */
struct best {
	char path[PATH_MAX];
	int rank;
	size_t len;
	bool deleted; /* a mapping of a file since replaced on disk */
};

/*
 * How well a file's basename matches a bare BINARY: 0 exact, 1 "NAME.so*"
 * (a library named without its version), 2 another "NAME." or "NAME-"
 * prefix, -1 no match. The separator keeps "libc" from matching libcap.
 */
static int name_rank(const char *base, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(base, name, n))
		return -1;
	if (!base[n])
		return 0;
	if (!strncmp(base + n, ".so", 3))
		return 1;
	return base[n] == '.' || base[n] == '-' ? 2 : -1;
}

/* Whether path would beat the current best: better rank, then shorter name. */
static bool best_beaten(const struct best *b, const char *path, const char *name)
{
	const char *base = path_base_name(path);
	int r = name_rank(base, name);

	if (r < 0)
		return false;
	return !b->path[0] || r < b->rank || (r == b->rank && strlen(base) < b->len);
}

static void best_take(struct best *b, const char *path, const char *name)
{
	const char *base = path_base_name(path);

	snprintf(b->path, sizeof(b->path), "%s", path);
	b->rank = name_rank(base, name);
	b->len = strlen(base);
}

static bool is_elf_file(const char *path)
{
	char magic[SELFMAG];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = read(fd, magic, SELFMAG) == SELFMAG && !memcmp(magic, ELFMAG, SELFMAG);
	close(fd);
	return ok;
}

static int maps_find(const char *name, int pid, struct best *b, struct ebuf *e)
{
	char fn[64], line[PATH_MAX + 256], *deleted;
	FILE *f;
	int ret;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", pid);
	f = fopen(fn, "re");
	if (!f) {
		ret = -errno;
		if (ret == -ENOENT)
			return ebuf__fail(e, -ESRCH,
					  "no process %d: check the PID (has it exited?)", pid);
		return ebuf__fail(e, ret, "cannot read %s: %s: run xlprobe as root", fn,
				  strerror(-ret));
	}
	while (fgets(line, sizeof(line), f)) {
		/* the path is the last field; pseudo-files ([heap]...) have no '/' */
		char *path = strstr(line, " /");

		if (!path)
			continue;
		path[strcspn(path, "\n")] = 0;
		/* replaced on disk since it was mapped: match it to say so */
		deleted = strstr(path, " (deleted)");
		if (deleted)
			*deleted = 0;
		if (best_beaten(b, path + 1, name)) {
			best_take(b, path + 1, name);
			b->deleted = deleted;
		}
	}
	fclose(f);
	if (!b->path[0])
		return ebuf__fail(
			e, -ENOENT,
			"%s: not mapped by PID %d: check /proc/%d/maps for the library's name",
			name, pid, pid);
	if (b->deleted)
		return ebuf__fail(e, -ENOENT,
				  "%s: PID %d maps a deleted %s (replaced since it started): "
				  "restart the process to trace it",
				  name, pid, b->path);
	/* a process in another mount namespace sees its files under its root */
	if (access(b->path, F_OK)) {
		char inner[sizeof(b->path)];

		memcpy(inner, b->path, sizeof(inner));
		if (snprintf(b->path, sizeof(b->path), "/proc/%d/root%s", pid, inner) >=
		    (int)sizeof(b->path))
			b->path[0] = 0;
	}
	return 0;
}

static void dir_find(const char *dir, const char *name, struct best *b)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!best_beaten(b, de->d_name, name))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		/* skip linker scripts such as libc.so: "libc.so" then finds libc.so.6 */
		if (is_elf_file(path))
			best_take(b, path, name);
	}
	closedir(d);
}

/* Launch mode: the dynamic loader's usual places, LD_LIBRARY_PATH first. */
static void libs_find(const char *name, struct best *b)
{
	static const char *const dirs[] = {
#if defined(__x86_64__)
		"/lib/x86_64-linux-gnu",
		"/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
		"/lib/aarch64-linux-gnu",
		"/usr/lib/aarch64-linux-gnu",
#endif
		"/lib64",
		"/usr/lib64",
		"/lib",
		"/usr/lib",
		"/usr/local/lib",
	};
	const char *env = getenv("LD_LIBRARY_PATH");
	char *copy = env ? strdup(env) : NULL, *save = NULL;

	for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save))
		dir_find(d, name, b);
	free(copy);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		dir_find(dirs[i], name, b);
}

int elfsym_find__binary(const char *name, int pid, char **path, struct ebuf *e)
{
	struct best b = {.rank = -1};
	char real[PATH_MAX];
	int ret;

	if (strchr(name, '/') || (!pid && !access(name, F_OK))) {
		snprintf(b.path, sizeof(b.path), "%s", name);
	} else if (pid) {
		ret = maps_find(name, pid, &b, e);
		if (ret)
			return ret;
	} else {
		libs_find(name, &b);
	}
	errno = ENOENT;
	if (!b.path[0] || !realpath(b.path, real)) {
		if (errno == EACCES)
			return ebuf__fail(e, -EACCES, "%s: permission denied: run xlprobe as root",
					  name);
		return ebuf__fail(e, -ENOENT,
				  "%s: no such file: give a path or a library name mapped by PID",
				  name);
	}
	*path = strdup(real);
	return *path ? 0 : -ENOMEM;
}

/*
 * Takes the debug file at path if it is the binary's (src: where it was
 * found). nofollow: a file in a directory its user may write, read as root.
 */
static bool dbg_try(struct bin *b, const char *path, unsigned char src, bool nofollow)
{
	char id[41];
	Elf *elf;
	int fd;

	if (!strcmp(path, b->path) ||
	    (nofollow ? elf_read__open_nofollow(path, &fd, &elf) : elf_read__open(path, &fd, &elf)))
		return false;
	/* a debug file from another build would give wrong addresses */
	if (b->build_id[0] &&
	    (elf_read__build_id(elf, id, sizeof(id)) || strcmp(id, b->build_id))) {
		elf_end(elf);
		close(fd);
		return false;
	}
	b->dbg = elf;
	b->dbg_fd = fd;
	b->dbg_src = src;
	return true;
}

/*
 * The debuginfod client's cache (elfutils' debuginfod-client(3)):
 * $DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client, else
 * $HOME/.cache/debuginfod_client; one directory per build-id. Files a
 * client downloaded earlier: xlprobe itself downloads nothing.
 */
static bool debuginfod_path(const char *build_id, char *path, size_t len)
{
	const char *dir = getenv("DEBUGINFOD_CACHE_PATH"), *home;
	int n;

	if (dir && dir[0])
		n = snprintf(path, len, "%s/%s/debuginfo", dir, build_id);
	else if ((dir = getenv("XDG_CACHE_HOME")) && dir[0])
		n = snprintf(path, len, "%s/debuginfod_client/%s/debuginfo", dir, build_id);
	else if ((home = getenv("HOME")) && home[0])
		n = snprintf(path, len, "%s/.cache/debuginfod_client/%s/debuginfo", home, build_id);
	else
		return false;
	return n > 0 && (size_t)n < len;
}

/*
 * Distributions move .symtab to a separate debug file, found by build-id,
 * by .gnu_debuglink (the places gdb looks) or in the cache of a debuginfod
 * client that fetched it; without one, a MiniDebugInfo section may still
 * name the local functions. Its symbols carry the binary's addresses;
 * offsets and code are still read from the binary.
 */
int elfsym_find__debug_syms(struct bin *b)
{
	char path[PATH_MAX], link[NAME_MAX + 1], dir[PATH_MAX];
	const char *const fmts[] = {"%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s"};
	bool found = false;

	if (b->build_id[0]) {
		snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", b->build_id,
			 b->build_id + 2);
		found = dbg_try(b, path, XLP_SYM_SRC_BUILD_ID, false);
	}
	if (!found && elf_read__debuglink(b->elf, link, sizeof(link))) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(path_base_name(b->path) - 1 - b->path),
			 b->path);
		for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]) && !found; i++) {
			snprintf(path, sizeof(path), fmts[i], dir, link);
			found = dbg_try(b, path, XLP_SYM_SRC_DEBUGLINK, false);
		}
	}
	/* the cache may be under a user's home: no symlink, no FIFO */
	if (!found && b->build_id[0] && debuginfod_path(b->build_id, path, sizeof(path)))
		found = dbg_try(b, path, XLP_SYM_SRC_DEBUGINFOD, true);
	return found ? elf_read__syms(b, b->dbg, b->dbg_src) : minidebug__syms(b);
}
