/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libFuzzer harness: the input is an ELF file, resolved the ways --func
 * does (user/elfsym*.c, elf_read.c): every function by glob, a name that is probably
 * missing (suggestions, imported libraries from version records), a file
 * offset, and the build-id. Built with clang
 * -fsanitize=fuzzer,address,undefined (make fuzz).
 *
 * Two more forms reach MiniDebugInfo (user/symbols/minidebug.c) without
 * the fuzzer having to write a valid xz stream inside a valid ELF file:
 * an input that begins with 'Z' is the rest as the .gnu_debugdata section
 * of a stripped binary the harness writes (the xz decoder's input), one
 * that begins with 'E' is the ELF file inside it, which the harness
 * xz-compresses first (the mini ELF's symbol tables). Any other input is
 * the file itself, and may hold a .gnu_debugdata of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include "elfsym.h"

static char dir[64], path[80];
static int fd = -1;

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

/* A private directory: .gnu_debuglink names are looked up next to the file. */
static int setup(void)
{
	/* tmpfs when there is one: ext4 flushes a file truncated to 0 at close */
	snprintf(dir, sizeof(dir), "%s/xlp-fuzz-elf-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(dir))
		return -errno;
	atexit(cleanup);
	snprintf(path, sizeof(path), "%s/bin", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	return fd >= 0 ? 0 : -errno;
}

static void resolve(const char *sym)
{
	struct elfsym_target *t = NULL;
	char spec[128], err[512];
	size_t n = 0;

	snprintf(spec, sizeof(spec), "%s:%s", path, sym);
	if (!elfsym__resolve(spec, 0, &t, &n, err, sizeof(err)))
		elfsym__free_targets(t, n);
}

/*
 * A stripped x86-64 ET_DYN file at fd: 16 KiB of .text, .gnu_debugdata
 * holding sec, one PT_LOAD mapping the whole file at address 0 (as a
 * PIE's first segment does), so that the functions of a mini ELF made for
 * a small program lie inside it. No build-id: no debug file is looked for.
 */
static void write_stripped(const void *sec, size_t len)
{
	static uint8_t text[16384];
	static char shstr[] = "\0.text\0.gnu_debugdata\0.shstrtab";
	Elf64_Shdr *sh[3];
	Elf_Scn *scn[3];
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	Elf *e;

	if (ftruncate(fd, 0) || elf_version(EV_CURRENT) == EV_NONE ||
	    !(e = elf_begin(fd, ELF_C_WRITE, NULL)) || !(eh = elf64_newehdr(e)) ||
	    !(ph = elf64_newphdr(e, 1)))
		abort();
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	for (int i = 0; i < 3; i++) {
		static const int names[] = {1, 7, 22};
		Elf_Data *d;

		if (!(scn[i] = elf_newscn(e)) || !(d = elf_newdata(scn[i])) ||
		    !(sh[i] = elf64_getshdr(scn[i])))
			abort();
		d->d_buf = i == 0 ? (void *)text : i == 1 ? (void *)sec : shstr;
		d->d_size = i == 0 ? sizeof(text) : i == 1 ? len : sizeof(shstr);
		d->d_align = i == 0 ? 16 : 1;
		d->d_type = ELF_T_BYTE;
		sh[i]->sh_name = (Elf64_Word)names[i];
		sh[i]->sh_type = i == 2 ? SHT_STRTAB : SHT_PROGBITS;
		sh[i]->sh_flags = i == 0 ? SHF_ALLOC | SHF_EXECINSTR : 0;
	}
	eh->e_shstrndx = (Elf64_Half)elf_ndxscn(scn[2]);
	if (elf_update(e, ELF_C_NULL) < 0)
		abort();
	sh[0]->sh_addr = sh[0]->sh_offset;
	*ph = (Elf64_Phdr){
		.p_type = PT_LOAD,
		.p_flags = PF_R | PF_X,
		.p_filesz = eh->e_shoff + (Elf64_Off)eh->e_shnum * eh->e_shentsize,
		.p_align = 0x1000,
	};
	ph->p_memsz = ph->p_filesz;
	elf_flagphdr(e, ELF_C_SET, ELF_F_DIRTY);
	if (elf_update(e, ELF_C_WRITE) < 0)
		abort();
	elf_end(e);
}

/* in[0..n) xz-compressed (preset 0: the fuzzer's time goes to the reader) into *out. */
static size_t xz_of(const uint8_t *in, size_t n, uint8_t **out)
{
	size_t cap = lzma_stream_buffer_bound(n), pos = 0;

	*out = malloc(cap);
	if (!*out ||
	    lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, in, n, *out, &pos, cap) != LZMA_OK)
		abort();
	return pos;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *xz = NULL;
	char hex[41];

	if (fd < 0 && setup())
		abort();
	if (size && data[0] == 'Z') {
		write_stripped(data + 1, size - 1);
	} else if (size && data[0] == 'E') {
		size_t n = xz_of(data + 1, size - 1, &xz);

		write_stripped(xz, n);
		free(xz);
	} else if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size) {
		abort();
	}
	resolve("*");
	resolve("main");
	resolve("0x1040");
	elfsym__build_id(path, hex, sizeof(hex));
	elfsym__needs_single_step(data, size < 16 ? size : 16);
	return 0;
}
