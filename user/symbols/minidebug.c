/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * MiniDebugInfo (minidebug.h): .gnu_debugdata decompressed with liblzma
 * into memory, opened with elf_memory(), its symbol tables read as a
 * separate debug file's are. Every byte is untrusted: the xz stream's
 * checks are liblzma's (CRCs, sizes in its index), the bounds are ours.
 */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include "elfsym_int.h"
#include "minidebug.h"

/* xz's own limit for a dictionary is 1.5 GiB: one that big is no minidebuginfo */
#define DECODER_MEMLIMIT (MINIDEBUG_MAX + (16u << 20))

static uint64_t n_read, n_refused[MINIDEBUG_NREFUSALS];

void minidebug__counts(struct minidebug_counts *c)
{
	c->read = __atomic_load_n(&n_read, __ATOMIC_RELAXED);
	for (int i = 0; i < MINIDEBUG_NREFUSALS; i++)
		c->refused[i] = __atomic_load_n(&n_refused[i], __ATOMIC_RELAXED);
}

const char *minidebug__refusal_str(enum minidebug_refusal why)
{
	switch (why) {
	case MINIDEBUG_NOT_XZ:
		return "not xz-compressed";
	case MINIDEBUG_CORRUPT:
		return "corrupt or truncated xz";
	case MINIDEBUG_TOO_BIG:
		return "larger than 64 MiB decompressed";
	case MINIDEBUG_NOT_ELF:
		return "xz of something other than an ELF file";
	default:
		return "refused";
	}
}

static int refuse(enum minidebug_refusal r, enum minidebug_refusal *why)
{
	__atomic_add_fetch(&n_refused[r], 1, __ATOMIC_RELAXED);
	*why = r;
	return -EBADMSG;
}

/* The output buffer doubled, up to max + 1 bytes: one more than max says "too big". */
static int out_grow(lzma_stream *st, uint8_t **buf, size_t *cap, size_t max)
{
	size_t used = *cap - st->avail_out, n = *cap * 2 > max + 1 ? max + 1 : *cap * 2;
	uint8_t *p = realloc(*buf, n);

	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = n;
	st->next_out = p + used;
	st->avail_out = n - used;
	return 0;
}

int minidebug__decompress(const void *in, size_t len, size_t max, void **out, size_t *outlen,
			  enum minidebug_refusal *why)
{
	static const uint8_t magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0};
	lzma_stream st = LZMA_STREAM_INIT;
	/* xz compresses symbol tables about 4:1: start there, double as needed */
	size_t cap = len < max / 4 ? 4 * len + 4096 : max + 1;
	uint8_t *buf = NULL;
	lzma_ret lr;
	int ret;

	if (cap > max + 1)
		cap = max + 1;
	if (!in || len < sizeof(magic) || memcmp(in, magic, sizeof(magic)))
		return refuse(MINIDEBUG_NOT_XZ, why);
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	if (lzma_stream_decoder(&st, DECODER_MEMLIMIT, 0) != LZMA_OK) {
		free(buf);
		return -ENOMEM;
	}
	st.next_in = in;
	st.avail_in = len;
	st.next_out = buf;
	st.avail_out = cap;
	/*
	 * All input is there (LZMA_FINISH): a truncated stream stops making
	 * progress, which liblzma says with LZMA_BUF_ERROR on the next call.
	 * Every call consumes input or produces output: linear in the output.
	 */
	for (;;) {
		if (!st.avail_out) {
			if (cap > max) {
				ret = refuse(MINIDEBUG_TOO_BIG, why);
				goto cleanup;
			}
			ret = out_grow(&st, &buf, &cap, max);
			if (ret)
				goto cleanup;
		}
		lr = lzma_code(&st, LZMA_FINISH);
		if (lr == LZMA_STREAM_END)
			break;
		if (lr == LZMA_OK)
			continue;
		if (lr == LZMA_MEM_ERROR)
			ret = -ENOMEM;
		else if (lr == LZMA_MEMLIMIT_ERROR)
			ret = refuse(MINIDEBUG_TOO_BIG, why);
		else if (lr == LZMA_FORMAT_ERROR)
			ret = refuse(MINIDEBUG_NOT_XZ, why);
		else
			ret = refuse(MINIDEBUG_CORRUPT, why);
		goto cleanup;
	}
	if (st.total_out > max) {
		ret = refuse(MINIDEBUG_TOO_BIG, why);
		goto cleanup;
	}
	*outlen = (size_t)st.total_out;
	*out = buf;
	buf = NULL;
	ret = 0;
cleanup:
	lzma_end(&st);
	free(buf);
	return ret;
}

/* The bytes of the section named .gnu_debugdata, or NULL. */
static const Elf_Data *section_data(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".gnu_debugdata"))
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

int minidebug__syms(struct bin *b)
{
	const Elf_Data *d = section_data(b->elf);
	enum minidebug_refusal why;
	size_t n = 0;
	void *buf;
	Elf *mini;
	int ret;

	if (!d)
		return 0;
	/* a section forged SHT_NOBITS has a size but no bytes (d_buf NULL) */
	ret = minidebug__decompress(d->d_buf, d->d_buf ? d->d_size : 0, MINIDEBUG_MAX, &buf, &n,
				    &why);
	if (ret == -EBADMSG) {
		b->mini_why = why;
		return 0;
	}
	if (ret)
		return ret;
	mini = elf_memory(buf, n);
	if (!mini || elf_kind(mini) != ELF_K_ELF) {
		elf_end(mini);
		free(buf);
		refuse(MINIDEBUG_NOT_ELF, &why);
		b->mini_why = why;
		return 0;
	}
	b->dbg = mini;
	b->dbg_buf = buf;
	b->dbg_src = XLP_SYM_SRC_MINIDEBUGINFO;
	__atomic_add_fetch(&n_read, 1, __ATOMIC_RELAXED);
	return elf_read__syms(b, mini, XLP_SYM_SRC_MINIDEBUGINFO);
}
