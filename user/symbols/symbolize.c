/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Naming sampled stack frames (symbolize.h). A file is known by its path
 * and its GNU build-id from the moment it is shown; its symbols are read
 * only when a frame first falls in it, with elf_read.c and elfsym_find.c
 * (the readers --func uses, so both agree on what a name is), then kept as
 * a sorted array of (address, size, name) and the file closed again: a
 * system-wide recording sees hundreds of libraries, too many to hold open.
 *
 * Which function holds a link-time address (file_func):
 *   - a sized symbol whose [value, value + size) holds it: the nearest
 *     start first, else any earlier sized one still reaching over it (a
 *     symbol inside another's range, as hand-written assembly has);
 *   - else an unsized symbol (assembly without .size) if it is the
 *     nearest start before the address and lies in the same executable
 *     section, and only when the file's symbols come from a .symtab (its
 *     own or its debug file's): .dynsym lists exported functions only, so
 *     the code after an unsized one may be a static function it would
 *     misname;
 *   - else none, and the frame is "[base+0xOFF]".
 * At one address the preferred name is the one --func prefers (global,
 * fewest leading '_': elfsym_pick__alias_pref), an STT_FUNC before an
 * STT_GNU_IFUNC: at an IFUNC's address is its resolver, not the function
 * it names.
 *
 * Kernel frames: /proc/kallsyms has no sizes, so a kernel symbol runs to
 * the next one, as the kernel's own %pS does; a non-text symbol, _etext
 * and _einittext end the text before them, and nothing is known past the
 * last symbol.
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
#include "jitproc.h"
#include "symbolize.h"
#include "util.h"

#define NONE SIZE_MAX
/* The longest name kept: what struct xsym's name holds. */
#define NAME_KEPT (sizeof(((struct xsym *)0)->name) - 1)
#define DELETED " (deleted)"

/* A function of a file, by link-time address. */
struct sfunc {
	uint64_t vaddr;
	uint64_t size; /* 0: unsized (assembly without .size) */
	size_t name;   /* offset in sfile.names */
	size_t cover;  /* the sized function reaching furthest among 0..this one, or NONE */
	/* XLP_SYM_SRC_*: the table its name came from */
	unsigned char src;
};

/* A PT_LOAD: which file bytes hold which addresses. */
struct sload {
	uint64_t off, filesz, vaddr;
	bool exec;
};

struct srange {
	uint64_t start, end;
};

/* The file as it was when first read: one replaced since is another file. */
struct sident {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

enum sfile_state {
	SF_UNREAD, /* symbols not read yet */
	SF_READ,
	SF_FAILED, /* not ELF, unreadable, replaced: frames in it are "[base+0xOFF]" */
};

struct sfile {
	char *path;
	struct sident ident;
	unsigned char id[XLP_BUILD_ID_LEN]; /* zero-padded, as the kernel reports it */
	bool has_id;
	int id_err; /* why it has none: -ENOENT, -ENOEXEC (not ELF), -errno */
	enum sfile_state state;
	bool full; /* symbols from a .symtab: unsized ones may be trusted */
	struct sfunc *funcs;
	size_t nfuncs;
	char *names;
	struct sload *loads;
	size_t nloads;
	struct srange *xsecs; /* executable sections, by address */
	size_t nxsecs;
};

/* An executable file mapping of a process. */
struct smap {
	uint64_t start, end, pgoff;
	struct sfile *file;
};

struct spid {
	int pid;
	struct smap *maps; /* sorted by start */
	size_t nmaps;
	struct jitproc *jit; /* its JIT code's names, or NULL */
};

struct ksym {
	uint64_t addr;
	uint32_t name; /* offsets in symbolizer.knames */
	uint32_t mod;  /* 0 (""): the kernel itself */
	uint32_t rank; /* which name wins at one address: lowest; KRANK_NOTEXT ends text */
};

#define KRANK_NOTEXT (1u << 16)
#define KRANK_LOCAL (1u << 8)

struct symbolizer {
	struct sfile **files; /* owned, in the order added */
	size_t nfiles, files_cap;
	struct sfile **by_id; /* sorted by build-id, one file per id */
	size_t nby_id, by_id_cap;
	struct sfile **by_path; /* sorted by path, the newest file of each */
	size_t nby_path, by_path_cap;
	struct spid *pids; /* sorted by pid */
	size_t npids, pids_cap;
	bool kread;
	int kerr;
	struct ksym *ksyms; /* sorted by address, one per address */
	size_t nksyms;
	char *knames;
	uint64_t time; /* of the frames named now (symbolizer__set_time) */
	struct jit_counts jc;
	symbolizer_jit_miss_fn jit_miss; /* symbolizer__on_jit_miss */
	void *jit_miss_ctx;
};

/* Makes room for need elements in *p, an array of *cap; 0 or -ENOMEM. */
static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	while (n < need) {
		if (n > SIZE_MAX / 2 / size)
			return -ENOMEM;
		n *= 2;
	}
	if (n == *cap)
		return 0;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* ---- output ---- */

static int out_unknown(struct xsym *out)
{
	out->kind = XSYM_UNKNOWN;
	out->source = XLP_SYM_SRC_UNSAID;
	snprintf(out->name, sizeof(out->name), "[unknown]");
	out->module[0] = 0;
	out->offset = 0;
	return -ENOENT;
}

static int out_file(struct xsym *out, const char *path, uint64_t off)
{
	const char *base = path_base_name(path);
	char hex[24];
	int room;

	/* a long basename is cut, not the offset that says where the frame is */
	snprintf(hex, sizeof(hex), "+0x%" PRIx64 "]", off);
	room = (int)(sizeof(out->name) - 2 - strlen(hex));
	out->kind = XSYM_FILE;
	out->source = XLP_SYM_SRC_UNSAID;
	snprintf(out->name, sizeof(out->name), "[%.*s%s", room, base, hex);
	snprintf(out->module, sizeof(out->module), "%s", base);
	out->offset = off;
	return -ENOENT;
}

static int out_symbol(struct xsym *out, const char *name, const char *module, uint64_t offset)
{
	out->kind = XSYM_SYMBOL;
	out->source = XLP_SYM_SRC_UNSAID; /* the caller says */
	snprintf(out->name, sizeof(out->name), "%s", name);
	snprintf(out->module, sizeof(out->module), "%s", module);
	out->offset = offset;
	return 0;
}

/* ---- files: reading ---- */

static void sfile_unload(struct sfile *f)
{
	free(f->funcs);
	free(f->names);
	free(f->loads);
	free(f->xsecs);
	f->funcs = NULL;
	f->names = NULL;
	f->loads = NULL;
	f->xsecs = NULL;
	f->nfuncs = f->nloads = f->nxsecs = 0;
}

static void sfile_free(struct sfile *f)
{
	if (!f)
		return;
	sfile_unload(f);
	free(f->path);
	free(f);
}

static void ident_of(const struct stat *st, struct sident *id)
{
	*id = (struct sident){st->st_dev, st->st_ino, st->st_size, st->st_mtim};
}

static bool ident_eq(const struct sident *a, const struct sident *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/* elf_read__build_id()'s hex to the kernel's form: raw, zero-padded. */
static int id_from_hex(const char *hex, unsigned char id[XLP_BUILD_ID_LEN])
{
	size_t n = strlen(hex);

	/* the kernel reports no longer id, and an empty one names nothing */
	if (!n || n % 2 || n > 2 * XLP_BUILD_ID_LEN)
		return -ENOENT;
	memset(id, 0, XLP_BUILD_ID_LEN);
	for (size_t i = 0; i < n / 2; i++) {
		unsigned int v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -ENOENT;
		id[i] = (unsigned char)v;
	}
	return 0;
}

/* The build-id of a linked ELF file: 0, -ENOENT (none), -ENOEXEC (not one), -errno. */
static int file_read_id(const char *path, unsigned char id[XLP_BUILD_ID_LEN])
{
	char hex[2 * XLP_BUILD_ID_LEN + 1];
	GElf_Ehdr eh;
	Elf *elf;
	int fd, err;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	err = elf_read__open(path, &fd, &elf);
	if (err)
		return err;
	/* what elf_read__bin_open() will take: no frame is in a .o or a core file */
	if (!gelf_getehdr(elf, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		err = -ENOEXEC;
	else
		err = elf_read__build_id(elf, hex, sizeof(hex));
	if (!err)
		err = id_from_hex(hex, id);
	elf_end(elf);
	close(fd);
	return err == -ENOSPC ? -ENOENT : err;
}

static int loads_read(struct sfile *f, Elf *elf)
{
	size_t n, k = 0;
	GElf_Phdr ph;

	/* libelf bounds the count by the file's size */
	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++)
		k += gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD;
	if (!k)
		return 0;
	f->loads = calloc(k, sizeof(*f->loads));
	if (!f->loads)
		return -ENOMEM;
	for (size_t i = 0; i < n && f->nloads < k; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->loads[f->nloads++] = (struct sload){
			.off = ph.p_offset,
			.filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr,
			.exec = ph.p_flags & PF_X,
		};
	}
	return 0;
}

static int xsecs_read(struct sfile *f, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		if (grow((void **)&f->xsecs, &cap, f->nxsecs + 1, sizeof(*f->xsecs)))
			return -ENOMEM;
		f->xsecs[f->nxsecs++] = (struct srange){
			.start = sh.sh_addr,
			/* a forged size must not wrap */
			.end = sh.sh_size > UINT64_MAX - sh.sh_addr ? UINT64_MAX
								    : sh.sh_addr + sh.sh_size,
		};
	}
	return 0;
}

/* By address; at one address the name shown first. */
static int func_cmp(const void *pa, const void *pb)
{
	const struct sym *a = *(const struct sym *const *)pa;
	const struct sym *b = *(const struct sym *const *)pb;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	if ((a->type == STT_GNU_IFUNC) != (b->type == STT_GNU_IFUNC))
		return a->type == STT_GNU_IFUNC ? 1 : -1;
	return elfsym_pick__alias_pref(a, b);
}

/* The functions of b, one per address, with their names copied out of the Elf. */
static int funcs_read(struct sfile *f, const struct bin *b)
{
	const struct sym **p = NULL;
	size_t n = 0, k = 0, pool = 0, best = NONE;
	uint64_t best_end = 0;
	int err = -ENOMEM;

	for (size_t i = 0; i < b->nsyms; i++)
		n += sym_is_func(&b->syms[i]);
	if (!n)
		return 0;
	p = malloc(n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (size_t i = 0, j = 0; i < b->nsyms; i++)
		if (sym_is_func(&b->syms[i]))
			p[j++] = &b->syms[i];
	xlp_sort(p, n, sizeof(*p), func_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i && p[i]->value == p[i - 1]->value)
			continue;
		k++;
		pool += strnlen(p[i]->name, NAME_KEPT) + 1;
	}
	f->funcs = calloc(k, sizeof(*f->funcs));
	f->names = malloc(pool);
	if (!f->funcs || !f->names)
		goto cleanup;
	pool = 0;
	for (size_t i = 0; i < n; i++) {
		struct sfunc *fn = &f->funcs[f->nfuncs];
		size_t len;

		if (i && p[i]->value == p[i - 1]->value) {
			/* aliases: the name of the first, the reach of the longest */
			fn = &f->funcs[f->nfuncs - 1];
		} else {
			len = strnlen(p[i]->name, NAME_KEPT);
			memcpy(f->names + pool, p[i]->name, len);
			f->names[pool + len] = 0;
			fn->vaddr = p[i]->value;
			fn->name = pool;
			fn->src = p[i]->src;
			pool += len + 1;
			f->nfuncs++;
		}
		if (p[i]->size > fn->size)
			fn->size = p[i]->size;
		/* a forged size must not wrap around the address space */
		if (fn->size > UINT64_MAX - fn->vaddr)
			fn->size = UINT64_MAX - fn->vaddr;
	}
	for (size_t i = 0; i < f->nfuncs; i++) {
		struct sfunc *fn = &f->funcs[i];

		if (fn->size && fn->vaddr + fn->size > best_end) {
			best = i;
			best_end = fn->vaddr + fn->size;
		}
		fn->cover = best;
	}
	err = 0;
cleanup:
	free(p);
	return err;
}

/*
 * Reads f's symbols, once. A file that fails stays failed, so that its
 * frames do not reopen it each time; only a lack of memory may be retried.
 */
static int file_load(struct sfile *f)
{
	unsigned char id[XLP_BUILD_ID_LEN];
	struct ebuf e = {NULL, 0};
	struct bin *b = NULL;
	struct stat st;
	int err;

	if (f->state != SF_UNREAD)
		return f->state == SF_READ ? 0 : -ENOENT;
	f->state = SF_FAILED;
	err = elf_read__bin_open(f->path, &b, &e);
	if (err)
		goto cleanup;
	/* replaced on disk since it was shown: its symbols would name other code */
	if (f->has_id) {
		if (id_from_hex(b->build_id, id) || memcmp(id, f->id, sizeof(id)))
			err = -ESTALE;
	} else {
		struct sident now;

		if (fstat(b->fd, &st))
			st = (struct stat){0};
		ident_of(&st, &now);
		if (!ident_eq(&now, &f->ident))
			err = -ESTALE;
	}
	if (!err && !b->has_symtab)
		err = elfsym_find__debug_syms(b);
	if (!err)
		err = loads_read(f, b->elf);
	if (!err)
		err = xsecs_read(f, b->elf);
	if (!err)
		err = funcs_read(f, b);
	if (err)
		goto cleanup;
	f->full = b->has_symtab;
	f->state = SF_READ;
cleanup:
	if (err) {
		sfile_unload(f);
		if (err == -ENOMEM)
			f->state = SF_UNREAD;
	}
	elf_read__bin_close(b);
	return err;
}

/* ---- files: looking up ---- */

/* The link-time address of a file offset: code segments first. */
static int file_vaddr(const struct sfile *f, uint64_t off, uint64_t *vaddr)
{
	for (int exec = 1; exec >= 0; exec--) {
		for (size_t i = 0; i < f->nloads; i++) {
			const struct sload *l = &f->loads[i];

			/* subtract first: off + size may wrap in a forged header */
			if (l->exec == exec && off >= l->off && off - l->off < l->filesz) {
				*vaddr = l->vaddr + (off - l->off);
				return 0;
			}
		}
	}
	return -ENOENT;
}

static bool same_xsec(const struct sfile *f, uint64_t a, uint64_t b)
{
	for (size_t i = 0; i < f->nxsecs; i++) {
		const struct srange *r = &f->xsecs[i];

		if (a >= r->start && a < r->end)
			return b >= r->start && b < r->end;
	}
	return false;
}

/* The function holding vaddr, or NULL: the rules at the top of the file. */
static const struct sfunc *file_func(const struct sfile *f, uint64_t vaddr)
{
	const struct sfunc *fn, *c;
	size_t lo = 0, hi = f->nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->funcs[mid].vaddr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	fn = &f->funcs[lo - 1];
	if (vaddr - fn->vaddr < fn->size)
		return fn;
	c = fn->cover == NONE ? NULL : &f->funcs[fn->cover];
	if (c && vaddr - c->vaddr < c->size)
		return c;
	if (!fn->size && f->full && same_xsec(f, fn->vaddr, vaddr))
		return fn;
	return NULL;
}

static int file_name(struct sfile *f, uint64_t off, struct xsym *out)
{
	const struct sfunc *fn = NULL;
	uint64_t vaddr;
	int err = file_load(f);

	if (!err && !file_vaddr(f, off, &vaddr))
		fn = file_func(f, vaddr);
	if (!fn) {
		out_file(out, f->path, off);
		return err == -ENOMEM ? err : -ENOENT;
	}
	out_symbol(out, f->names + fn->name, path_base_name(f->path), vaddr - fn->vaddr);
	out->source = fn->src;
	return 0;
}

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

	ident_of(st, &ident);
	if (known && ident_eq(&s->by_path[at]->ident, &ident)) {
		*out = s->by_path[at];
		return 0;
	}
	/* room first: once made, the file is in every index or in none */
	if (grow((void **)&s->files, &s->files_cap, s->nfiles + 1, sizeof(*s->files)) ||
	    grow((void **)&s->by_id, &s->by_id_cap, s->nby_id + 1, sizeof(*s->by_id)) ||
	    grow((void **)&s->by_path, &s->by_path_cap, s->nby_path + 1, sizeof(*s->by_path)))
		return -ENOMEM;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path)))
		goto cleanup;
	f->ident = ident;
	f->id_err = file_read_id(path, f->id);
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
	sfile_free(f);
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

	for (size_t i = 0; i < s->nfiles && file_load(f) && f->state == SF_FAILED; i++) {
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
		if (grow((void **)&s->pids, &s->pids_cap, s->npids + 1, sizeof(*s->pids))) {
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
		return out_unknown(out);
	if (jitproc__find(p->jit, ip, s->time, &s->jc, &js)) {
		/* the runtime may write its names on request (a JVM): ask, read again */
		if (!s->jit_miss || !s->jit_miss(s->jit_miss_ctx, p->pid))
			return out_unknown(out);
		jitproc__read(p->jit, &s->jc);
		if (jitproc__find(p->jit, ip, s->time, &s->jc, &js))
			return out_unknown(out);
	}
	s->jc.named++;
	out_symbol(out, js.name, XSYM_JIT_MODULE, ip - js.start);
	out->source = js.source;
	return 0;
}

void symbolizer__on_jit_miss(struct symbolizer *s, symbolizer_jit_miss_fn fn, void *ctx)
{
	s->jit_miss = fn;
	s->jit_miss_ctx = ctx;
}

/* ---- the kernel ---- */

static int ksym_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	/* names are stored in file order: the first listed wins, every time */
	return a->name < b->name ? -1 : a->name > b->name;
}

/* Appends str[0..n) to the kernel's names: its offset, or 0 for no memory. */
static uint32_t kname_add(char **pool, size_t *len, size_t *cap, const char *str, size_t n)
{
	uint32_t at = (uint32_t)*len;

	if (*len + n + 1 > UINT32_MAX || grow((void **)pool, cap, *len + n + 1, 1))
		return 0;
	memcpy(*pool + *len, str, n);
	(*pool)[*len + n] = 0;
	*len += n + 1;
	return at;
}

/* Which of the symbols at one address names it: text, global, fewest '_'. */
static uint32_t ksym_rank(char type, const char *name, size_t len)
{
	size_t us = strspn(name, "_");
	bool text = strchr("tTwW", type) && !(len == 6 && !strncmp(name, "_etext", 6)) &&
		    !(len == 10 && !strncmp(name, "_einittext", 10));

	return (text ? 0 : KRANK_NOTEXT) | (islower((unsigned char)type) ? KRANK_LOCAL : 0) |
	       (uint32_t)(us < 255 ? us : 255);
}

/*
 * Reads /proc/kallsyms: "ADDR TYPE NAME[\t[MODULE]]". -EACCES when every
 * address is 0 (kptr_restrict hides them from the unprivileged).
 */
static int kernel_load(struct symbolizer *s)
{
	size_t lcap = 0, cap = 0, pool = 0, pool_cap = 0, n = 0, lines = 0, k = 0;
	uint32_t mod = 0, last_mod = 0;
	struct ksym *ks = NULL;
	char *line = NULL, *names = NULL;
	FILE *fp = fopen("/proc/kallsyms", "re");
	int err = -ENOMEM;

	if (!fp)
		return -errno;
	/* offset 0 is "": the module of the kernel itself */
	if (grow((void **)&names, &pool_cap, 1, 1))
		goto cleanup;
	names[pool++] = 0;
	while (getline(&line, &lcap, fp) > 0) {
		char type, *name, *m, *end;
		uint64_t addr;
		size_t len;
		int pos = -1;

		lines++;
		if (sscanf(line, "%" SCNx64 " %c %n", &addr, &type, &pos) != 2 || pos < 0 || !addr)
			continue;
		name = line + pos;
		len = strcspn(name, " \t\n");
		if (!len)
			continue;
		mod = 0;
		m = strchr(name + len, '[');
		end = m ? strchr(m, ']') : NULL;
		if (end && end > m + 1) {
			/* kallsyms lists a module's symbols together: one copy of its name */
			if (last_mod && strlen(names + last_mod) == (size_t)(end - m - 1) &&
			    !strncmp(names + last_mod, m + 1, end - m - 1))
				mod = last_mod;
			else
				mod = last_mod =
					kname_add(&names, &pool, &pool_cap, m + 1, end - m - 1);
			if (!mod)
				goto cleanup;
		}
		if (grow((void **)&ks, &cap, n + 1, sizeof(*ks)))
			goto cleanup;
		ks[n] = (struct ksym){
			.addr = addr,
			.rank = ksym_rank(type, name, len),
			.mod = mod,
			.name = kname_add(&names, &pool, &pool_cap, name,
					  len < NAME_KEPT ? len : NAME_KEPT),
		};
		if (!ks[n++].name)
			goto cleanup;
	}
	xlp_sort(ks, n, sizeof(*ks), ksym_cmp);
	for (size_t i = 0; i < n; i++)
		if (!k || ks[i].addr != ks[k - 1].addr)
			ks[k++] = ks[i];
	err = k ? 0 : lines ? -EACCES : -ENOENT;
	if (err)
		goto cleanup;
	s->ksyms = ks;
	s->nksyms = k;
	s->knames = names;
	ks = NULL;
	names = NULL;
cleanup:
	free(ks);
	free(names);
	free(line);
	fclose(fp);
	return err;
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
		sfile_free(s->files[i]);
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
		err = grow((void **)&maps, &cap, n + 1, sizeof(*maps));
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
			file_load(s->pids[at].maps[i].file);
	if (s->pids[at].jit)
		jitproc__read(s->pids[at].jit, &s->jc);
	return 0;
}

int symbolizer__user_build_id(struct symbolizer *s, const unsigned char id[XLP_BUILD_ID_LEN],
			      uint64_t file_offset, struct xsym *out)
{
	size_t at = index_find(s->by_id, s->nby_id, id, cmp_id);

	if (at == s->nby_id || memcmp(s->by_id[at]->id, id, XLP_BUILD_ID_LEN))
		return out_unknown(out);
	return file_name(id_file(s, at), file_offset, out);
}

int symbolizer__user_ip(struct symbolizer *s, int pid, uint64_t ip, struct xsym *out)
{
	size_t at = pid_find(s, pid), lo = 0, hi;
	const struct spid *p;
	const struct smap *m;

	if (at == s->npids || s->pids[at].pid != pid)
		return out_unknown(out);
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
	return file_name(m->file, m->pgoff + (ip - m->start), out);
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

int symbolizer__kernel(struct symbolizer *s, uint64_t ip, struct xsym *out)
{
	const struct ksym *k;
	size_t lo = 0, hi;

	/* read once: a kernel without kallsyms stays without */
	if (!s->kread) {
		s->kerr = kernel_load(s);
		s->kread = s->kerr != -ENOMEM;
	}
	if (s->kerr) {
		out_unknown(out);
		return s->kerr;
	}
	hi = s->nksyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ksyms[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return out_unknown(out);
	k = &s->ksyms[lo - 1];
	/* past the last symbol no end is known; a non-text symbol ends the text */
	if ((k->rank & KRANK_NOTEXT) || (lo == s->nksyms && ip != k->addr))
		return out_unknown(out);
	out_symbol(out, s->knames + k->name, k->mod ? s->knames + k->mod : "[kernel]",
		   ip - k->addr);
	out->source = XLP_SYM_SRC_KALLSYMS;
	return 0;
}
