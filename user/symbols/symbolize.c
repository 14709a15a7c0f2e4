/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Naming sampled stack frames (symbolize.h). A file is known by its path
 * and its GNU build-id from the moment it is shown; its symbols are read
 * only when a frame first falls in it, with elf_read.c and elfsym_find.c
 * (the readers --func uses, so both agree on what a name is), then kept as
 * a sorted array of (address, size, name) and the file closed again: a
 * system-wide recording sees hundreds of libraries, too many to hold open.
 *
 * Which function holds an address: symbolize_file.c; kernel frames:
 * symbolize_kernel.c; the structures they share: symbolize_int.h.
 *
 * Every byte of an ELF file is untrusted: libelf's accessors check
 * offsets and counts against the file, sizes that would wrap are clamped,
 * and names are cut to what struct xsym holds.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elfsym_int.h"
#include "symbolize_int.h"
#include "util.h"

/* ---- files: the indexes ---- */

static int cmp_id(const void *key, const struct sfile *f)
{
	return memcmp(key, f->id, XLP_BUILD_ID_LEN);
}

static int cmp_path(const void *key, const struct sfile *f)
{
	return strcmp(key, f->path);
}

/* The first of a[0..n) (sorted by cmp) not below key. */
static size_t index_find(struct sfile *const *a, size_t n, const void *key,
			 int (*cmp)(const void *key, const struct sfile *f))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp(key, a[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void index_insert(struct sfile **a, size_t *n, size_t at, struct sfile *f)
{
	memmove(a + at + 1, a + at, (*n - at) * sizeof(*a));
	a[at] = f;
	(*n)++;
}

/*
 * The file at path (st: its stat), known already or read now (its
 * build-id only). A file replaced on disk since it was read becomes a new
 * one, the old one kept for the frames that carry its build-id. keep_bare
 * keeps a file without build-id or not ELF too: a mapping names frames by
 * it. -ENOMEM, or the file's own error when it is not kept.
 */
static int file_get(struct symbolizer *s, const char *path, const struct stat *st, bool keep_bare,
		    struct sfile **out)
{
	size_t at = index_find(s->by_path, s->nby_path, path, cmp_path), id_at;
	bool known = at < s->nby_path && !strcmp(s->by_path[at]->path, path);
	struct sfile *f = NULL;
	struct sident ident;
	int err = -ENOMEM;

	sident__of(st, &ident);
	if (known && sident__eq(&s->by_path[at]->ident, &ident)) {
		*out = s->by_path[at];
		return 0;
	}
	/* room first: once made, the file is in every index or in none */
	if (xlp_grow((void **)&s->files, &s->files_cap, s->nfiles, sizeof(*s->files)) ||
	    xlp_grow((void **)&s->by_id, &s->by_id_cap, s->nby_id, sizeof(*s->by_id)) ||
	    xlp_grow((void **)&s->by_path, &s->by_path_cap, s->nby_path, sizeof(*s->by_path)))
		return -ENOMEM;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path)))
		goto cleanup;
	f->ident = ident;
	f->id_err = sfile__read_id(path, f->id);
	err = f->id_err == -ENOMEM || f->id_err == -ENOTSUP ? f->id_err : 0;
	if (!err && f->id_err && !keep_bare)
		err = f->id_err;
	if (err)
		goto cleanup;
	f->has_id = !f->id_err;
	/* no build-id is no reason to fail: a mapping finds it by path */
	f->state = f->has_id || f->id_err == -ENOENT ? SF_UNREAD : SF_FAILED;
	s->files[s->nfiles++] = f;
	if (known)
		s->by_path[at] = f;
	else
		index_insert(s->by_path, &s->nby_path, at, f);
	if (f->has_id) {
		id_at = index_find(s->by_id, s->nby_id, f->id, cmp_id);
		/* one file per id; a copy elsewhere is found again by id_file() */
		if (id_at == s->nby_id || memcmp(s->by_id[id_at]->id, f->id, XLP_BUILD_ID_LEN))
			index_insert(s->by_id, &s->nby_id, id_at, f);
	}
	*out = f;
	f = NULL;
cleanup:
	sfile__free(f);
	return err;
}

/*
 * The file to read for the build-id at by_id[at]: the one indexed, or when
 * it cannot be read, another file shown with the same build-id (a copy
 * elsewhere; a path through /proc/PID/root, gone with its process, and the
 * same file under our own root).
 */
static struct sfile *id_file(struct symbolizer *s, size_t at)
{
	struct sfile *f = s->by_id[at];

	for (size_t i = 0; i < s->nfiles && sfile__load(f) && f->state == SF_FAILED; i++) {
		struct sfile *g = s->files[i];

		if (g != f && g->has_id && g->state != SF_FAILED &&
		    !memcmp(g->id, f->id, XLP_BUILD_ID_LEN))
			s->by_id[at] = f = g;
	}
	return f;
}

/* ---- processes ---- */

static int map_cmp(const void *pa, const void *pb)
{
	const struct smap *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return 0;
}

/*
 * One line of /proc/PID/maps: 1 and *m for an executable mapping of a
 * file, 0 for any other, or -ENOMEM.
 */
static int map_parse(struct symbolizer *s, int pid, char *line, struct smap *m)
{
	char perms[5], alt[PATH_MAX + 32], *path;
	unsigned long long ino;
	struct stat st, ast;
	int pos = -1, err;
	bool ours;
	size_t len;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %*s %llu %n", &m->start, &m->end,
		   perms, &m->pgoff, &ino, &pos) != 5 ||
	    pos < 0)
		return 0;
	path = line + pos;
	len = strcspn(path, "\n");
	path[len] = 0;
	/* frames are in code; pseudo-files ([vdso], [heap]) have no '/' */
	if (strlen(perms) < 3 || perms[2] != 'x' || path[0] != '/' || m->end <= m->start)
		return 0;
	/* replaced on disk since it was mapped: the file there is another */
	if (len >= strlen(DELETED) && !strcmp(path + len - strlen(DELETED), DELETED))
		return 0;
	/*
	 * A process in another mount namespace sees its files under its root.
	 * Our own path is kept unless the inode says the file there is not
	 * the mapped one and the process's root has it: a path through
	 * /proc/PID/root is gone with the process, before its symbols are read.
	 */
	ours = !stat(path, &st);
	if (!ours || st.st_ino != ino) {
		if (snprintf(alt, sizeof(alt), "/proc/%d/root%s", pid, path) < (int)sizeof(alt) &&
		    !stat(alt, &ast) && ast.st_ino == ino) {
			path = alt;
			st = ast;
		} else if (!ours) {
			return 0;
		}
	}
	if (!S_ISREG(st.st_mode))
		return 0;
	err = file_get(s, path, &st, true, &m->file);
	return err ? err : 1;
}

/*
 * A mapping of a jitdump, "jit-*.dump": a runtime writing one maps it so
 * that profilers find it (perf's convention). 1 with its path and inode.
 */
static int dump_line(const char *line, char *path, size_t len, ino_t *ino)
{
	unsigned long long i;
	const char *p, *base;
	int pos = -1;
	size_t n;

	if (sscanf(line, "%*x-%*x %*s %*x %*s %llu %n", &i, &pos) != 1 || pos < 0)
		return 0;
	p = line + pos;
	n = strcspn(p, "\n");
	if (p[0] != '/' || n >= len || n < 5 || strncmp(p + n - 5, ".dump", 5))
		return 0;
	memcpy(path, p, n);
	path[n] = 0;
	base = path_base_name(path);
	if (strncmp(base, "jit-", 4))
		return 0;
	*ino = (ino_t)i;
	return 1;
}

static size_t pid_find(const struct symbolizer *s, int pid)
{
	size_t lo = 0, hi = s->npids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->pids[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Gives pid the mappings maps (taken over, also on error). */
static int pid_set(struct symbolizer *s, int pid, struct smap *maps, size_t n)
{
	size_t at = pid_find(s, pid);
	struct spid *p;

	if (at == s->npids || s->pids[at].pid != pid) {
		if (xlp_grow((void **)&s->pids, &s->pids_cap, s->npids, sizeof(*s->pids))) {
			free(maps);
			return -ENOMEM;
		}
		memmove(s->pids + at + 1, s->pids + at, (s->npids - at) * sizeof(*s->pids));
		s->pids[at] = (struct spid){.pid = pid};
		s->npids++;
	}
	p = &s->pids[at];
	free(p->maps);
	p->maps = maps;
	p->nmaps = n;
	return 0;
}

/* pid's JIT code names (jitproc.h): its files are read when a frame needs them. */
static void pid_jit(struct symbolizer *s, int pid, const char *dump, ino_t ino)
{
	struct spid *p = &s->pids[pid_find(s, pid)];

	if (!p->jit && jitproc__new(pid, &p->jit))
		return;
	if (dump[0])
		jitproc__set_dump(p->jit, dump, ino);
}

/* A frame in no file: JIT code, if the process's runtime said whose. */
static int jit_name(struct symbolizer *s, const struct spid *p, uint64_t ip, struct xsym *out)
{
	struct jitsym js;

	if (!p->jit)
		return xsym__unknown(out);
	if (jitproc__find(p->jit, ip, s->time, &s->jc, &js)) {
		/* the runtime may write its names on request (a JVM): ask, read again */
		if (!s->jit_miss || !s->jit_miss(s->jit_miss_ctx, p->pid))
			return xsym__unknown(out);
		jitproc__read(p->jit, &s->jc);
		if (jitproc__find(p->jit, ip, s->time, &s->jc, &js))
			return xsym__unknown(out);
	}
	s->jc.named++;
	xsym__symbol(out, js.name, XSYM_JIT_MODULE, ip - js.start);
	out->source = js.source;
	return 0;
}

void symbolizer__on_jit_miss(struct symbolizer *s, symbolizer_jit_miss_fn fn, void *ctx)
{
	s->jit_miss = fn;
	s->jit_miss_ctx = ctx;
}

/* ---- the API ---- */

int symbolizer__new(struct symbolizer **out)
{
	*out = calloc(1, sizeof(**out));
	if (*out)
		(*out)->time = JITTAB_NOW;
	return *out ? 0 : -ENOMEM;
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++)
		sfile__free(s->files[i]);
	for (size_t i = 0; i < s->npids; i++) {
		free(s->pids[i].maps);
		jitproc__free(s->pids[i].jit);
	}
	free(s->files);
	free(s->by_id);
	free(s->by_path);
	free(s->pids);
	free(s->ksyms);
	free(s->knames);
	free(s);
}

int symbolizer__add_file(struct symbolizer *s, const char *path)
{
	char real[PATH_MAX];
	struct sfile *f;
	struct stat st;
	int err;

	/* the path mappings show: links resolved */
	if (!realpath(path, real) || stat(real, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	err = file_get(s, real, &st, false, &f);
	return err ? err : f->id_err;
}

int symbolizer__add_pid(struct symbolizer *s, int pid)
{
	char fn[64], *line = NULL, dump[PATH_MAX] = "";
	struct smap *maps = NULL, m;
	size_t lcap = 0, cap = 0, n = 0;
	ino_t dump_ino = 0;
	FILE *fp;
	int err = 0;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", pid);
	fp = fopen(fn, "re");
	if (!fp)
		return errno == ENOENT ? -ESRCH : -errno;
	while (getline(&line, &lcap, fp) > 0) {
		dump_line(line, dump, sizeof(dump), &dump_ino);
		err = map_parse(s, pid, line, &m);
		if (err < 0)
			goto cleanup;
		if (!err)
			continue;
		err = xlp_grow((void **)&maps, &cap, n, sizeof(*maps));
		if (err)
			goto cleanup;
		maps[n++] = m;
	}
	/* an exited process reads as empty: keep what was seen while it lived */
	if (!n) {
		err = -ESRCH;
		goto cleanup;
	}
	xlp_sort(maps, n, sizeof(*maps), map_cmp);
	err = pid_set(s, pid, maps, n);
	maps = NULL;
	if (!err)
		pid_jit(s, pid, dump, dump_ino);
cleanup:
	free(maps);
	free(line);
	fclose(fp);
	return err;
}

int symbolizer__prepare(struct symbolizer *s, int pid)
{
	size_t at = pid_find(s, pid);
	struct xsym x;

	symbolizer__kernel(s, 0, &x);
	if (at == s->npids || s->pids[at].pid != pid)
		return -ESRCH;
	for (size_t i = 0; i < s->pids[at].nmaps; i++)
		if (s->pids[at].maps[i].file)
			sfile__load(s->pids[at].maps[i].file);
	if (s->pids[at].jit)
		jitproc__read(s->pids[at].jit, &s->jc);
	return 0;
}

int symbolizer__user_build_id(struct symbolizer *s, const unsigned char id[XLP_BUILD_ID_LEN],
			      uint64_t file_offset, struct xsym *out)
{
	size_t at = index_find(s->by_id, s->nby_id, id, cmp_id);

	if (at == s->nby_id || memcmp(s->by_id[at]->id, id, XLP_BUILD_ID_LEN))
		return xsym__unknown(out);
	return sfile__name(id_file(s, at), file_offset, out);
}

int symbolizer__user_ip(struct symbolizer *s, int pid, uint64_t ip, struct xsym *out)
{
	size_t at = pid_find(s, pid), lo = 0, hi;
	const struct spid *p;
	const struct smap *m;

	if (at == s->npids || s->pids[at].pid != pid)
		return xsym__unknown(out);
	p = &s->pids[at];
	hi = p->nmaps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ip >= p->maps[lo - 1].end)
		return jit_name(s, p, ip, out);
	m = &p->maps[lo - 1];
	return sfile__name(m->file, m->pgoff + (ip - m->start), out);
}

void symbolizer__set_time(struct symbolizer *s, uint64_t ns)
{
	s->time = ns;
}

void symbolizer__jit_counts(const struct symbolizer *s, struct jit_counts *out)
{
	*out = s->jc;
	out->tail = 0;
	for (size_t i = 0; i < s->npids; i++)
		out->tail += s->pids[i].jit ? jitproc__tail(s->pids[i].jit) : 0;
}
