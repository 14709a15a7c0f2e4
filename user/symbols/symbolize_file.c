/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One file of the symbolizer (symbolize_int.h): its build-id, its symbols
 * read once as a sorted array of (address, size, name), and the name of a
 * frame at an offset in it.
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
 * Every byte of an ELF file is untrusted: libelf's accessors check
 * offsets and counts against the file, sizes that would wrap are clamped,
 * and names are cut to what struct xsym holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elfsym_int.h"
#include "symbolize_int.h"
#include "util.h"

/* ---- the frame's name ---- */

int xsym__unknown(struct xsym *out)
{
	out->kind = XSYM_UNKNOWN;
	out->source = XLP_SYM_SRC_UNSAID;
	snprintf(out->name, sizeof(out->name), "[unknown]");
	out->module[0] = 0;
	out->offset = 0;
	return -ENOENT;
}

int xsym__file(struct xsym *out, const char *path, uint64_t off)
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

int xsym__symbol(struct xsym *out, const char *name, const char *module, uint64_t offset)
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

void sfile__free(struct sfile *f)
{
	if (!f)
		return;
	sfile_unload(f);
	free(f->path);
	free(f);
}

void sident__of(const struct stat *st, struct sident *id)
{
	*id = (struct sident){st->st_dev, st->st_ino, st->st_size, st->st_mtim};
}

bool sident__eq(const struct sident *a, const struct sident *b)
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
int sfile__read_id(const char *path, unsigned char id[XLP_BUILD_ID_LEN])
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
		if (xlp_grow((void **)&f->xsecs, &cap, f->nxsecs, sizeof(*f->xsecs)))
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
int sfile__load(struct sfile *f)
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
		sident__of(&st, &now);
		if (!sident__eq(&now, &f->ident))
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

int sfile__name(struct sfile *f, uint64_t off, struct xsym *out)
{
	const struct sfunc *fn = NULL;
	uint64_t vaddr;
	int err = sfile__load(f);

	if (!err && !file_vaddr(f, off, &vaddr))
		fn = file_func(f, vaddr);
	if (!fn) {
		xsym__file(out, f->path, off);
		return err == -ENOMEM ? err : -ENOENT;
	}
	xsym__symbol(out, f->names + fn->name, path_base_name(f->path), vaddr - fn->vaddr);
	out->source = fn->src;
	return 0;
}
