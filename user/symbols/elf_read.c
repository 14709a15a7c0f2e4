/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading the ELF files --func names, with libelf: symbol tables, the GNU
 * build-id, .gnu_debuglink, and link-time addresses to file offsets.
 * Every byte comes from a file anyone may have written (and is fuzzed:
 * tests/fuzz/fuzz_elfsym.c): sizes, indexes and string offsets are checked
 * by libelf's accessors or here before use.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elfsym.h"
#include "elfsym_int.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

static int open_flags(const char *path, int flags, int *fd, Elf **elf)
{
	struct stat st;
	int ret = -ENOEXEC;

	*elf = NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC | flags);
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

int elf_read__open(const char *path, int *fd, Elf **elf)
{
	return open_flags(path, 0, fd, elf);
}

/* O_NONBLOCK: a FIFO planted in its place must not hang the open (fstat refuses it) */
int elf_read__open_nofollow(const char *path, int *fd, Elf **elf)
{
	return open_flags(path, O_NOFOLLOW | O_NONBLOCK, fd, elf);
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

int elf_read__build_id(Elf *elf, char *hex, size_t len)
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
		/* gelf_getnote() checks that name and descriptor lie inside d */
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
	ret = elf_read__open(path, &fd, &elf);
	if (ret)
		return ret;
	ret = elf_read__build_id(elf, hex, len);
	elf_end(elf);
	close(fd);
	return ret;
}

static int syms_add(struct bin *b, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, unsigned char src)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t cnt = d && sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 1; i < cnt; i++) {
		GElf_Sym s;
		const char *name;
		int type;

		/* sh_size may claim more than d holds: gelf_getsym() checks i */
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
			.src = src,
			.defined = s.st_shndx != SHN_UNDEF,
		};
	}
	return 0;
}

int elf_read__syms(struct bin *b, Elf *elf, unsigned char src)
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
		ret = syms_add(b, elf, scn, &sh,
			       src == XLP_SYM_SRC_SYMTAB && sh.sh_type == SHT_DYNSYM
				       ? XLP_SYM_SRC_DYNSYM
				       : src);
		if (ret)
			return ret;
	}
	return 0;
}

bool elf_read__debuglink(Elf *elf, char *name, size_t len)
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
		/* the name must end inside the section, and stay a file name; a
		 * section forged SHT_NOBITS has a size but no bytes (d_buf NULL) */
		if (!d || !d->d_buf || !d->d_size || !memchr(d->d_buf, 0, d->d_size))
			return false;
		snprintf(name, len, "%s", (const char *)d->d_buf);
		return name[0] && !strchr(name, '/');
	}
	return false;
}

void elf_read__bin_close(struct bin *b)
{
	if (!b)
		return;
	elf_end(b->dbg);
	free(b->dbg_buf); /* after elf_end: b->dbg reads it */
	if (b->dbg_fd >= 0)
		close(b->dbg_fd);
	elf_end(b->elf);
	if (b->fd >= 0)
		close(b->fd);
	free(b->syms);
	free(b->path);
	free(b);
}

int elf_read__bin_open(const char *path, struct bin **out, struct ebuf *e)
{
	struct bin *b = calloc(1, sizeof(*b));
	GElf_Ehdr eh;
	int ret = -ENOMEM;

	if (!b)
		return -ENOMEM;
	b->fd = b->dbg_fd = -1;
	b->mini_why = -1;
	b->path = strdup(path);
	if (!b->path)
		goto cleanup;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		ret = ebuf__fail(e, -ENOTSUP, "libelf: %s: rebuild xlprobe against this libelf",
				 elf_errmsg(-1));
		goto cleanup;
	}
	ret = elf_read__open(path, &b->fd, &b->elf);
	if (ret == -ENOEXEC)
		ebuf__fail(e, ret,
			   "%s is not an ELF file: --func needs an executable or shared library",
			   path);
	else if (ret)
		ebuf__fail(e, ret, "cannot open %s: %s: run xlprobe as root or make it readable",
			   path, strerror(-ret));
	if (ret)
		goto cleanup;
	if (!gelf_getehdr(b->elf, &eh))
		eh.e_type = ET_NONE;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		ret = ebuf__fail(e, -ENOEXEC,
				 "%s is not linked (ELF type %u): --func needs an executable or "
				 "shared library",
				 path, eh.e_type);
		goto cleanup;
	}
	elf_read__build_id(b->elf, b->build_id, sizeof(b->build_id));
	ret = elf_read__syms(b, b->elf, XLP_SYM_SRC_SYMTAB);
cleanup:
	if (ret)
		elf_read__bin_close(b);
	else
		*out = b;
	return ret;
}

int elf_read__offset(const struct bin *b, uint64_t vaddr, uint64_t *off)
{
	GElf_Phdr ph;
	size_t n;

	if (elf_getphdrnum(b->elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(b->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* subtract first: vaddr + size may wrap in a forged header */
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = ph.p_offset + vaddr - ph.p_vaddr;
			return 0;
		}
	}
	return -ENOENT;
}
