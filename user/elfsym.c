/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --func BINARY:SYMBOL resolution with libelf, in three steps: find the
 * file (find_binary), load its symbols (bin_open), pick the functions the
 * SYMBOL part names (pick_syms), then make one target per function address.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elfsym.h"
#include "util.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

#define MAX_SUGGEST 3
#define DIST_MAXLEN 64 /* names are compared on their first 64 characters */

struct ebuf {
	char *s;
	size_t len;
};

struct sym {
	const char *name; /* in the string table of its Elf, alive with the bin */
	uint64_t value;
	uint64_t size;
	unsigned char type;
	unsigned char bind;
	bool defined;
};

struct bin {
	char *path;
	int fd;
	Elf *elf;
	int dbg_fd; /* separate debug file the symbols came from, -1 if none */
	Elf *dbg;
	struct sym *syms;
	size_t nsyms;
	size_t cap;
	bool has_symtab;
	char build_id[41];
};

/* Best file found so far for a bare BINARY name (see name_rank). */
struct best {
	char path[PATH_MAX];
	int rank;
	size_t len;
	bool deleted; /* a mapping of a file since replaced on disk */
};

typedef bool (*sym_pred)(const struct bin *b, const struct sym *s, const void *arg);

__attribute__((format(printf, 3, 4))) static int fail(struct ebuf *e, int ret, const char *fmt, ...)
{
	va_list ap;

	if (e->s && e->len) {
		va_start(ap, fmt);
		vsnprintf(e->s, e->len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* ---- finding the file ---- */

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

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Whether path would beat the current best: better rank, then shorter name. */
static bool best_beaten(const struct best *b, const char *path, const char *name)
{
	const char *base = base_name(path);
	int r = name_rank(base, name);

	if (r < 0)
		return false;
	return !b->path[0] || r < b->rank || (r == b->rank && strlen(base) < b->len);
}

static void best_take(struct best *b, const char *path, const char *name)
{
	const char *base = base_name(path);

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
			return fail(e, -ESRCH, "no process %d: check the PID (has it exited?)",
				    pid);
		return fail(e, ret, "cannot read %s: %s: run xlprobe as root", fn, strerror(-ret));
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
		return fail(e, -ENOENT,
			    "%s: not mapped by PID %d: check /proc/%d/maps for the library's name",
			    name, pid, pid);
	if (b->deleted)
		return fail(e, -ENOENT,
			    "%s: PID %d maps a deleted %s (replaced since it started): restart the "
			    "process to trace it",
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

static int find_binary(const char *name, int pid, char **path, struct ebuf *e)
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
			return fail(e, -EACCES, "%s: permission denied: run xlprobe as root", name);
		return fail(e, -ENOENT,
			    "%s: no such file: give a path or a library name mapped by PID", name);
	}
	*path = strdup(real);
	return *path ? 0 : -ENOMEM;
}

/* ---- reading the ELF file ---- */

static int elf_open(const char *path, int *fd, Elf **elf)
{
	struct stat st;
	int ret = -ENOEXEC;

	*elf = NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	if (fstat(*fd, &st) || !S_ISREG(st.st_mode))
		goto cleanup;
	*elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (*elf && elf_kind(*elf) == ELF_K_ELF)
		ret = 0;
cleanup:
	if (ret) {
		elf_end(*elf);
		*elf = NULL;
		close(*fd);
		*fd = -1;
	}
	return ret;
}

static int hexify(const uint8_t *p, size_t n, char *hex, size_t len)
{
	if (2 * n + 1 > len)
		return -ENOSPC;
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", p[i]);
	hex[2 * n] = 0;
	return 0;
}

static int build_id_of(Elf *elf, char *hex, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, next, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (next = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			const char *buf = d->d_buf;

			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(buf + noff, "GNU", 4))
				return hexify((const uint8_t *)buf + doff, nh.n_descsz, hex, len);
			off = next;
		}
	}
	return -ENOENT;
}

int elfsym__build_id(const char *path, char *hex, size_t len)
{
	Elf *elf;
	int fd, ret;

	if (hex && len)
		hex[0] = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	ret = elf_open(path, &fd, &elf);
	if (ret)
		return ret;
	ret = build_id_of(elf, hex, len);
	elf_end(elf);
	close(fd);
	return ret;
}

static int syms_add(struct bin *b, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t cnt = d && sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 1; i < cnt; i++) {
		GElf_Sym s;
		const char *name;
		int type;

		if (!gelf_getsym(d, i, &s))
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		type = GELF_ST_TYPE(s.st_info);
		if (!name || !name[0] || type == STT_SECTION || type == STT_FILE)
			continue;
		if (b->nsyms == b->cap) {
			size_t cap = b->cap ? 2 * b->cap : 256;
			struct sym *p = realloc(b->syms, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			b->syms = p;
			b->cap = cap;
		}
		b->syms[b->nsyms++] = (struct sym){
			.name = name,
			.value = s.st_value,
			.size = s.st_size,
			.type = type,
			.bind = GELF_ST_BIND(s.st_info),
			.defined = s.st_shndx != SHN_UNDEF,
		};
	}
	return 0;
}

static int syms_load(struct bin *b, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int ret;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		b->has_symtab |= sh.sh_type == SHT_SYMTAB;
		ret = syms_add(b, elf, scn, &sh);
		if (ret)
			return ret;
	}
	return 0;
}

/* The file name .gnu_debuglink points to, without its CRC. */
static bool debuglink(Elf *elf, char *name, size_t len)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *sname;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			continue;
		sname = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".gnu_debuglink"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_size || !memchr(d->d_buf, 0, d->d_size))
			return false;
		snprintf(name, len, "%s", (const char *)d->d_buf);
		return name[0] && !strchr(name, '/');
	}
	return false;
}

static bool dbg_try(struct bin *b, const char *path)
{
	char id[41];
	Elf *elf;
	int fd;

	if (!strcmp(path, b->path) || elf_open(path, &fd, &elf))
		return false;
	/* a debug file from another build would give wrong addresses */
	if (b->build_id[0] && (build_id_of(elf, id, sizeof(id)) || strcmp(id, b->build_id))) {
		elf_end(elf);
		close(fd);
		return false;
	}
	b->dbg = elf;
	b->dbg_fd = fd;
	return true;
}

/*
 * Distributions move .symtab to a separate debug file, found by build-id
 * or by .gnu_debuglink (the places gdb looks). Its symbols carry the
 * binary's addresses; offsets and code are still read from the binary.
 */
static int dbg_load(struct bin *b)
{
	char path[PATH_MAX], link[NAME_MAX + 1], dir[PATH_MAX];
	const char *const fmts[] = {"%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s"};
	bool found = false;

	if (b->build_id[0]) {
		snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", b->build_id,
			 b->build_id + 2);
		found = dbg_try(b, path);
	}
	if (!found && debuglink(b->elf, link, sizeof(link))) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(base_name(b->path) - 1 - b->path),
			 b->path);
		for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]) && !found; i++) {
			snprintf(path, sizeof(path), fmts[i], dir, link);
			found = dbg_try(b, path);
		}
	}
	return found ? syms_load(b, b->dbg) : 0;
}

static void bin_close(struct bin *b)
{
	if (!b)
		return;
	elf_end(b->dbg);
	if (b->dbg_fd >= 0)
		close(b->dbg_fd);
	elf_end(b->elf);
	if (b->fd >= 0)
		close(b->fd);
	free(b->syms);
	free(b->path);
	free(b);
}

static int bin_open(const char *path, struct bin **out, struct ebuf *e)
{
	struct bin *b = calloc(1, sizeof(*b));
	GElf_Ehdr eh;
	int ret = -ENOMEM;

	if (!b)
		return -ENOMEM;
	b->fd = b->dbg_fd = -1;
	b->path = strdup(path);
	if (!b->path)
		goto cleanup;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		ret = fail(e, -ENOTSUP, "libelf: %s: rebuild xlprobe against this libelf",
			   elf_errmsg(-1));
		goto cleanup;
	}
	ret = elf_open(path, &b->fd, &b->elf);
	if (ret == -ENOEXEC)
		fail(e, ret, "%s is not an ELF file: --func needs an executable or shared library",
		     path);
	else if (ret)
		fail(e, ret, "cannot open %s: %s: run xlprobe as root or make it readable", path,
		     strerror(-ret));
	if (ret)
		goto cleanup;
	if (!gelf_getehdr(b->elf, &eh))
		eh.e_type = ET_NONE;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		ret = fail(e, -ENOEXEC,
			   "%s is not linked (ELF type %u): --func needs an executable or shared "
			   "library",
			   path, eh.e_type);
		goto cleanup;
	}
	build_id_of(b->elf, b->build_id, sizeof(b->build_id));
	ret = syms_load(b, b->elf);
	if (!ret && !b->has_symtab)
		ret = dbg_load(b);
cleanup:
	if (ret)
		bin_close(b);
	else
		*out = b;
	return ret;
}

/* File offset of a link-time address, through the PT_LOAD that holds it. */
static int to_offset(const struct bin *b, uint64_t vaddr, uint64_t *off)
{
	GElf_Phdr ph;
	size_t n;

	if (elf_getphdrnum(b->elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(b->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = ph.p_offset + vaddr - ph.p_vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- picking functions ---- */

static bool is_func(const struct sym *s)
{
	return s->defined && (s->type == STT_FUNC || s->type == STT_GNU_IFUNC);
}

static bool has_funcs(const struct bin *b)
{
	for (size_t i = 0; i < b->nsyms; i++)
		if (is_func(&b->syms[i]))
			return true;
	return false;
}

/* Exact names may be unsized: hand-written assembly often is. */
static bool pred_name(const struct bin *b, const struct sym *s, const void *arg)
{
	return is_func(s) && !strcmp(s->name, arg);
}

static bool pred_glob(const struct bin *b, const struct sym *s, const void *arg)
{
	return is_func(s) && s->size && !fnmatch(arg, s->name, 0);
}

static bool pred_offset(const struct bin *b, const struct sym *s, const void *arg)
{
	uint64_t off;

	return is_func(s) && !to_offset(b, s->value, &off) && off == *(const uint64_t *)arg;
}

/* Weak aliases are how libraries export plain names: rank them as global. */
static int bind_rank(const struct sym *s)
{
	switch (s->bind) {
	case STB_GLOBAL:
	case STB_WEAK:
		return 0;
	case STB_LOCAL:
		return 1;
	default:
		return 2;
	}
}

/* Which of two names to show: global first, then fewest leading '_'. */
static int alias_pref(const struct sym *a, const struct sym *b)
{
	int d = bind_rank(a) - bind_rank(b);

	if (!d)
		d = (int)strspn(a->name, "_") - (int)strspn(b->name, "_");
	return d ? d : strcmp(a->name, b->name);
}

/* By address, the preferred alias first. */
static int alias_cmp(const void *pa, const void *pb)
{
	const struct sym *a = *(const struct sym *const *)pa;
	const struct sym *b = *(const struct sym *const *)pb;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return alias_pref(a, b);
}

/* Matching symbols, one per address (.symtab and .dynsym repeat names). */
static int collect(const struct bin *b, sym_pred pred, const void *arg, const struct sym ***out,
		   size_t *n)
{
	const struct sym **p = NULL;
	size_t k = 0, cnt = 0;

	for (size_t i = 0; i < b->nsyms; i++)
		cnt += pred(b, &b->syms[i], arg);
	if (cnt && !(p = malloc(cnt * sizeof(*p))))
		return -ENOMEM;
	for (size_t i = 0, j = 0; i < b->nsyms; i++)
		if (pred(b, &b->syms[i], arg))
			p[j++] = &b->syms[i];
	if (cnt)
		xlp_sort(p, cnt, sizeof(*p), alias_cmp);
	for (size_t i = 0; i < cnt; i++)
		if (!k || p[i]->value != p[k - 1]->value)
			p[k++] = p[i];
	*out = p;
	*n = k;
	return 0;
}

/* Optimal string alignment distance, case-insensitive: a swap costs 1. */
static unsigned int str_dist(const char *a, const char *b)
{
	unsigned int rows[3][DIST_MAXLEN + 1], *pp, *p, *c;
	size_t la = strnlen(a, DIST_MAXLEN), lb = strnlen(b, DIST_MAXLEN);

	for (size_t j = 0; j <= lb; j++)
		rows[1][j] = j;
	for (size_t i = 1; i <= la; i++) {
		/* row r lives in rows[(r + 1) % 3] */
		pp = rows[(i + 2) % 3];
		p = rows[i % 3];
		c = rows[(i + 1) % 3];
		c[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned int cost = tolower(a[i - 1]) != tolower(b[j - 1]);
			unsigned int v = p[j - 1] + cost;

			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && tolower(a[i - 1]) == tolower(b[j - 2]) &&
			    tolower(a[i - 2]) == tolower(b[j - 1]) && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
		}
	}
	return rows[(la + 1) % 3][lb];
}

struct cand {
	const struct sym *s;
	unsigned int dist;
};

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	return alias_pref(a->s, b->s);
}

/*
 * Up to MAX_SUGGEST function names close to name, "a, b, c", into out.
 * A name containing the query counts as at the distance limit, so "gamma"
 * finds parse_gamma but close misspellings still come first. One name per
 * address: libc's malloc, not its __libc_malloc alias.
 */
static void suggest(const struct bin *b, const char *name, char *out, size_t len)
{
	size_t qlen = strlen(name), nc = 0, nkept = 0, used = 0;
	unsigned int limit = qlen / 2 > 2 ? qlen / 2 : 2;
	struct cand *c = malloc(b->nsyms * sizeof(*c) + 1);
	const struct sym *kept[MAX_SUGGEST];

	out[0] = 0;
	if (!c)
		return;
	for (size_t i = 0; i < b->nsyms; i++) {
		const struct sym *s = &b->syms[i];
		unsigned int d = is_func(s) ? str_dist(name, s->name) : UINT_MAX;

		if (d > limit && d != UINT_MAX && qlen >= 3 && strcasestr(s->name, name))
			d = limit;
		if (d <= limit)
			c[nc++] = (struct cand){s, d};
	}
	xlp_sort(c, nc, sizeof(*c), cand_cmp);
	for (size_t i = 0; i < nc && nkept < MAX_SUGGEST; i++) {
		bool dup = false;

		for (size_t k = 0; k < nkept; k++)
			dup |= kept[k]->value == c[i].s->value ||
			       !strcmp(kept[k]->name, c[i].s->name);
		if (dup)
			continue;
		kept[nkept] = c[i].s;
		if (used < len)
			used += snprintf(out + used, len - used, "%s%s", nkept ? ", " : "",
					 c[i].s->name);
		nkept++;
	}
	free(c);
}

/* A defined symbol of that name if any, else an undefined one (an import). */
static const struct sym *find_any(const struct bin *b, const char *name)
{
	const struct sym *undef = NULL;

	for (size_t i = 0; i < b->nsyms; i++) {
		if (strcmp(b->syms[i].name, name))
			continue;
		if (b->syms[i].defined)
			return &b->syms[i];
		undef = &b->syms[i];
	}
	return undef;
}

static int stripped_error(const struct bin *b, struct ebuf *e)
{
	return fail(e, -ENOENT,
		    "%s has no function symbols (stripped): use an unstripped build or install "
		    "its debug symbols",
		    b->path);
}

/* The file of version index idx in .gnu.version_r (GLIBC_2.2.5: libc.so.6). */
static bool verneed_file(Elf *elf, Elf_Data *d, size_t strndx, unsigned int idx, char *lib,
			 size_t len)
{
	GElf_Verneed vn;
	GElf_Vernaux va;
	size_t off = 0;

	while (gelf_getverneed(d, off, &vn)) {
		size_t aoff = off + vn.vn_aux;

		for (unsigned int k = 0; k < vn.vn_cnt && gelf_getvernaux(d, aoff, &va); k++) {
			const char *file = elf_strptr(elf, strndx, vn.vn_file);

			if (va.vna_other == idx && file) {
				snprintf(lib, len, "%s", file);
				return true;
			}
			aoff += va.vna_next;
		}
		if (!vn.vn_next)
			break;
		off += vn.vn_next;
	}
	return false;
}

/* The library a versioned import comes from, to name it in the message. */
static bool import_lib(const struct bin *b, const char *name, char *lib, size_t len)
{
	Elf_Data *dsym = NULL, *vsym = NULL, *vneed = NULL;
	size_t symstr = 0, verstr = 0, nsym = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(b->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM && sh.sh_entsize) {
			dsym = elf_getdata(scn, NULL);
			symstr = sh.sh_link;
			nsym = sh.sh_size / sh.sh_entsize;
		} else if (sh.sh_type == SHT_GNU_versym) {
			vsym = elf_getdata(scn, NULL);
		} else if (sh.sh_type == SHT_GNU_verneed) {
			vneed = elf_getdata(scn, NULL);
			verstr = sh.sh_link;
		}
	}
	for (size_t i = 1; dsym && vsym && vneed && i < nsym; i++) {
		const char *n;
		GElf_Versym v;
		GElf_Sym sym;

		if (!gelf_getsym(dsym, i, &sym) || sym.st_shndx != SHN_UNDEF)
			continue;
		n = elf_strptr(b->elf, symstr, sym.st_name);
		if (n && !strcmp(n, name) && gelf_getversym(vsym, i, &v))
			return verneed_file(b->elf, vneed, verstr, v & 0x7fff, lib, len);
	}
	return false;
}

static int name_error(const struct bin *b, const char *name, struct ebuf *e)
{
	const struct sym *s = find_any(b, name);
	char sugg[256], lib[NAME_MAX + 1];

	if (s && s->defined)
		return fail(e, -EINVAL, "'%s' in %s is not a function", name, b->path);
	if (s && import_lib(b, name, lib, sizeof(lib)))
		return fail(e, -ENOENT,
			    "'%s' is not defined in %s (it is imported from %s): use %s:%s", name,
			    b->path, lib, lib, name);
	if (s)
		return fail(e, -ENOENT,
			    "'%s' is not defined in %s (it is imported): use LIBRARY:%s with the "
			    "library that defines it",
			    name, b->path, name);
	if (!has_funcs(b))
		return stripped_error(b, e);
	suggest(b, name, sugg, sizeof(sugg));
	if (!b->has_symtab)
		return fail(e, -ENOENT,
			    "no function '%s' among the exported symbols of %s (no .symtab): "
			    "install its debug symbols or use an unstripped build%s%s%s",
			    name, b->path, sugg[0] ? "; did you mean: " : "", sugg,
			    sugg[0] ? "?" : "");
	if (sugg[0])
		return fail(e, -ENOENT, "no function '%s' in %s; did you mean: %s?", name, b->path,
			    sugg);
	return fail(e, -ENOENT, "no function '%s' in %s: list its functions with nm %s", name,
		    b->path, b->path);
}

static int offset_error(const struct bin *b, uint64_t off, struct ebuf *e)
{
	for (size_t i = 0; i < b->nsyms; i++) {
		const struct sym *s = &b->syms[i];
		uint64_t start;

		if (!is_func(s) || to_offset(b, s->value, &start))
			continue;
		if (off > start && off - start < s->size)
			return fail(e, -EINVAL,
				    "offset 0x%" PRIx64 " in %s is not at a function start "
				    "(inside %s+0x%" PRIx64 "): use SYMBOL or the function's start",
				    off, b->path, s->name, off - start);
	}
	return fail(e, -EINVAL,
		    "offset 0x%" PRIx64 " in %s is not inside any function: use SYMBOL or "
		    "a function's start",
		    off, b->path);
}

static bool parse_offset(const char *s, uint64_t *off)
{
	char *end;

	if (strncmp(s, "0x", 2) || !isxdigit((unsigned char)s[2]))
		return false;
	errno = 0;
	*off = strtoull(s + 2, &end, 16);
	return !*end && !errno;
}

static int pick_syms(const struct bin *b, const char *spec, const struct sym ***out, size_t *n,
		     struct ebuf *e)
{
	uint64_t off;
	int ret;

	if (parse_offset(spec, &off)) {
		ret = collect(b, pred_offset, &off, out, n);
		if (ret || *n)
			return ret;
		return has_funcs(b) ? offset_error(b, off, e) : stripped_error(b, e);
	}
	if (strpbrk(spec, "*?[")) {
		ret = collect(b, pred_glob, spec, out, n);
		if (ret || *n)
			return ret;
		if (!has_funcs(b))
			return stripped_error(b, e);
		return fail(e, -ENOENT, "pattern '%s' matched no function in %s", spec, b->path);
	}
	ret = collect(b, pred_name, spec, out, n);
	return ret || *n ? ret : name_error(b, spec, e);
}

/* ---- targets ---- */

bool elfsym__needs_single_step(const uint8_t *c, size_t len)
{
	static const uint8_t endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
	static const uint8_t nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

	if (len >= sizeof(nop5) && !memcmp(c, nop5, sizeof(nop5)))
		return false;
	if (len >= sizeof(endbr64) && !memcmp(c, endbr64, sizeof(endbr64))) {
		c += sizeof(endbr64);
		len -= sizeof(endbr64);
	}
	/* push %reg (0x50-0x57, REX.B 0x41 for r8-r15): emulated since Linux 4.18 */
	if (len >= 1 && c[0] >= 0x50 && c[0] <= 0x57)
		return false;
	return !(len >= 2 && c[0] == 0x41 && c[1] >= 0x50 && c[1] <= 0x57);
}

static int fill_target(const struct bin *b, const struct sym *s, struct elfsym_target *t,
		       struct ebuf *e)
{
	uint8_t code[16];
	ssize_t got;

	if (to_offset(b, s->value, &t->offset))
		return fail(e, -ENOEXEC,
			    "'%s' in %s is at 0x%" PRIx64 ", outside the file's loadable segments: "
			    "its symbols do not match the file",
			    s->name, b->path, s->value);
	got = pread(b->fd, code, sizeof(code), (off_t)t->offset);
	t->needs_single_step = elfsym__needs_single_step(code, got > 0 ? (size_t)got : 0);
	t->vaddr = s->value;
	t->size = s->size;
	t->ifunc = s->type == STT_GNU_IFUNC;
	memcpy(t->build_id, b->build_id, sizeof(t->build_id));
	t->binary = strdup(b->path);
	t->symbol = strdup(s->name);
	return t->binary && t->symbol ? 0 : -ENOMEM;
}

static int make_targets(const struct bin *b, const struct sym **picks, size_t n,
			struct elfsym_target **out, struct ebuf *e)
{
	struct elfsym_target *t = calloc(n, sizeof(*t));
	int ret = 0;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < n && !ret; i++)
		ret = fill_target(b, picks[i], &t[i], e);
	if (ret) {
		elfsym__free_targets(t, n);
		return ret;
	}
	*out = t;
	return 0;
}

static int split_spec(const char *spec, char **bin, const char **sym, struct ebuf *e)
{
	/* the last ':' splits: symbol names never hold one (they are mangled) */
	const char *colon = spec ? strrchr(spec, ':') : NULL;

	if (!colon || colon == spec || !colon[1])
		return fail(e, -EINVAL,
			    "bad --func '%s': expected BINARY:SYMBOL, e.g. ./app:parse_json or "
			    "libc.so.6:malloc",
			    spec ? spec : "");
	*bin = strndup(spec, colon - spec);
	*sym = colon + 1;
	return *bin ? 0 : -ENOMEM;
}

int elfsym__resolve(const char *spec, int pid, struct elfsym_target **targets, size_t *n, char *err,
		    size_t errlen)
{
	struct ebuf e = {err, errlen};
	struct elfsym_target *t = NULL, *all;
	const struct sym **picks = NULL;
	char *name = NULL, *path = NULL;
	struct bin *b = NULL;
	size_t npicks = 0;
	const char *sym = NULL;
	int ret;

	if (err && errlen)
		err[0] = 0;
	ret = split_spec(spec, &name, &sym, &e);
	if (!ret)
		ret = find_binary(name, pid, &path, &e);
	if (!ret)
		ret = bin_open(path, &b, &e);
	if (!ret)
		ret = pick_syms(b, sym, &picks, &npicks, &e);
	if (!ret)
		ret = make_targets(b, picks, npicks, &t, &e);
	if (ret)
		goto cleanup;
	all = realloc(*targets, (*n + npicks) * sizeof(*all));
	if (!all) {
		ret = -ENOMEM;
		elfsym__free_targets(t, npicks);
		goto cleanup;
	}
	memcpy(all + *n, t, npicks * sizeof(*t));
	free(t);
	*targets = all;
	*n += npicks;
cleanup:
	if (ret && err && errlen && !err[0])
		snprintf(err, errlen, "--func '%s': %s", spec ? spec : "", strerror(-ret));
	bin_close(b);
	free(picks);
	free(path);
	free(name);
	return ret;
}

void elfsym__free_targets(struct elfsym_target *t, size_t n)
{
	if (!t)
		return;
	for (size_t i = 0; i < n; i++) {
		free(t[i].binary);
		free(t[i].symbol);
	}
	free(t);
}
