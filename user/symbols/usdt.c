/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The notes of .note.stapsdt (type 3, owner "stapsdt"): three addresses
 * (probe, .stapsdt.base at link time, semaphore), then provider, name and
 * the argument specs as NUL-ended strings. Every byte is untrusted:
 * gelf_getnote() keeps a note inside its section, the strings are checked
 * to end inside the note.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elfsym.h"
#include "elfsym_int.h"
#include "usdt.h"
#include "util.h"

#define NT_STAPSDT 3
#define MAX_SUGGEST 3
#define MAX_NOTES 100000 /* a binary with more is refused, not read forever */

void usdt__free_notes(struct usdt_note *notes, size_t n)
{
	for (size_t i = 0; i < n && notes; i++) {
		free(notes[i].provider);
		free(notes[i].name);
	}
	free(notes);
}

/* The next NUL-ended string of d[*off..end), or NULL if none ends there. */
static const char *next_str(const char *d, size_t *off, size_t end)
{
	const char *s = d + *off;
	const char *nul = *off < end ? memchr(s, 0, end - *off) : NULL;

	if (!nul)
		return NULL;
	*off += (size_t)(nul - s) + 1;
	return s;
}

/* Argument specs are separated by spaces ("-4@%eax 8@%rdx"). */
static int count_args(const char *a)
{
	int n = 0;

	for (const char *p = a; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		n++;
		while (*p && *p != ' ')
			p++;
	}
	return n;
}

static int add_note(struct usdt_note **notes, size_t *n, size_t *cap, const char *prov,
		    const char *name, uint64_t pc, uint64_t sema, int nargs)
{
	struct usdt_note *u;

	if (*n >= MAX_NOTES)
		return -E2BIG;
	if (xlp_grow((void **)notes, cap, *n + 1, sizeof(**notes)))
		return -ENOMEM;
	u = &(*notes)[*n];
	u->provider = strdup(prov);
	u->name = strdup(name);
	u->pc = pc;
	u->sema = sema;
	u->nargs = nargs;
	(*n)++;
	return u->provider && u->name ? 0 : -ENOMEM;
}

/* sh_addr of the section called name, 0 if there is none. */
static uint64_t section_addr(Elf *elf, const char *name, size_t shstrndx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *sn;

		if (!gelf_getshdr(scn, &sh))
			continue;
		sn = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sn && !strcmp(sn, name))
			return sh.sh_addr;
	}
	return 0;
}

static int read_section(Elf *elf, Elf_Scn *scn, uint64_t base_now, struct usdt_note **notes,
			size_t *n, size_t *cap)
{
	size_t asz = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8, off = 0, next, noff, doff;
	Elf_Data *d = elf_getdata(scn, NULL);
	GElf_Nhdr nh;
	int ret = 0;

	while (!ret && d && (next = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
		const char *buf = d->d_buf, *prov, *name, *args;
		size_t p = doff + 3 * asz, end = doff + nh.n_descsz;
		uint64_t a[3] = {0, 0, 0};

		off = next;
		if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 || memcmp(buf + noff, "stapsdt", 8))
			continue;
		if (nh.n_descsz < 3 * asz)
			return -EBADMSG;
		for (int i = 0; i < 3; i++) {
			if (asz == 8) {
				memcpy(&a[i], buf + doff + 8 * i, 8);
			} else {
				uint32_t v;

				memcpy(&v, buf + doff + 4 * i, 4);
				a[i] = v;
			}
		}
		prov = next_str(buf, &p, end);
		name = prov ? next_str(buf, &p, end) : NULL;
		args = name ? next_str(buf, &p, end) : NULL;
		if (!args || !prov[0] || !name[0])
			return -EBADMSG;
		/* prelink moves .stapsdt.base; the note keeps where it was linked */
		if (base_now && a[1]) {
			a[0] += base_now - a[1];
			if (a[2])
				a[2] += base_now - a[1];
		}
		ret = add_note(notes, n, cap, prov, name, a[0], a[2], count_args(args));
	}
	return ret;
}

int usdt__read_notes(const char *path, struct usdt_note **notes, size_t *n, char *err,
		     size_t errlen)
{
	struct ebuf e = {err, errlen};
	size_t shstrndx, cap = 0;
	Elf_Scn *scn = NULL;
	Elf *elf = NULL;
	int fd = -1, ret;

	*notes = NULL;
	*n = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return ebuf__fail(&e, -EINVAL, "libelf: %s", elf_errmsg(-1));
	ret = elf_read__open(path, &fd, &elf);
	if (ret == -ENOEXEC)
		return ebuf__fail(&e, ret, "%s: not an ELF file: give an executable or a library",
				  path);
	if (ret)
		return ebuf__fail(&e, ret, "%s: %s", path, strerror(-ret));
	if (elf_getshdrstrndx(elf, &shstrndx)) {
		ret = ebuf__fail(&e, -EBADMSG, "%s: malformed ELF file (no section names)", path);
		goto out;
	}
	while (!ret && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *sn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		sn = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sn && !strcmp(sn, ".note.stapsdt"))
			ret = read_section(elf, scn, section_addr(elf, ".stapsdt.base", shstrndx),
					   notes, n, &cap);
	}
	if (ret == -EBADMSG)
		ebuf__fail(&e, ret, "%s: malformed .note.stapsdt note: the binary is corrupt",
			   path);
	else if (ret == -E2BIG)
		ebuf__fail(&e, ret, "%s: more than %d USDT notes: refused", path, MAX_NOTES);
	else if (ret)
		ebuf__fail(&e, ret, "%s: %s", path, strerror(-ret));
out:
	if (ret) {
		usdt__free_notes(*notes, *n);
		*notes = NULL;
		*n = 0;
	}
	elf_end(elf);
	close(fd);
	return ret;
}

void usdt__free_target(struct usdt_target *t)
{
	if (!t)
		return;
	free(t->binary);
	free(t->provider);
	free(t->begin);
	free(t->end);
	free(t->label);
	memset(t, 0, sizeof(*t));
	t->filter_arg = -1;
}

/*
 * Splits "usdt:BINARY:PROVIDER:NAME[,END][:argN=STRING]" into t's
 * provider, begin, end and filter; *bin the BINARY (malloc'd).
 */
static int split_spec(const char *spec, struct usdt_target *t, char **bin, struct ebuf *e)
{
	const char *p = spec + 5, *c1 = strchr(p, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	const char *names = c2 ? c2 + 1 : NULL, *c3 = names ? strchr(names, ':') : NULL;
	const char *comma;
	size_t nlen;

	if (!c1 || c1 == p || !c2 || c2 == c1 + 1 || !names || !*names || names == c3)
		return ebuf__fail(
			e, -EINVAL,
			"bad spec '%s': expected usdt:BINARY:PROVIDER:NAME[,END], e.g. "
			"usdt:/usr/bin/python3.11:python:function__entry,function__return "
			"(xlprobe list usdt BINARY lists them)",
			spec);
	nlen = c3 ? (size_t)(c3 - names) : strlen(names);
	comma = memchr(names, ',', nlen);
	*bin = strndup(p, (size_t)(c1 - p));
	t->provider = strndup(c1 + 1, (size_t)(c2 - c1 - 1));
	t->begin = strndup(names, comma ? (size_t)(comma - names) : nlen);
	t->end = comma ? strndup(comma + 1, nlen - (size_t)(comma - names) - 1) : NULL;
	if (!*bin || !t->provider || !t->begin || (comma && !t->end))
		return -ENOMEM;
	if (!t->begin[0] || (t->end && (!t->end[0] || strchr(t->end, ','))))
		return ebuf__fail(e, -EINVAL,
				  "bad spec '%s': NAME,END names two probes, e.g. "
				  "query__start,query__done",
				  spec);
	if (c3) {
		const char *f = c3 + 1, *eq = strchr(f, '=');

		if (strncmp(f, "arg", 3) || !isdigit((unsigned char)f[3]) || f + 4 != eq ||
		    !eq[1] || strlen(eq + 1) >= sizeof(t->filter))
			return ebuf__fail(
				e, -EINVAL,
				"bad filter in '%s': expected :argN=STRING after the probe (N from "
				"0 to 9, STRING 1 to %zu bytes), e.g. "
				"usdt:/usr/bin/python3.11:python:function__entry,function__return:"
				"arg1=handle",
				spec, sizeof(t->filter) - 1);
		t->filter_arg = f[3] - '0';
		snprintf(t->filter, sizeof(t->filter), "%s", eq + 1);
	}
	return 0;
}

/* The first note of probe provider:name, NULL if none. */
static const struct usdt_note *find_note(const struct usdt_note *nt, size_t n, const char *prov,
					 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(nt[i].provider, prov) && !strcmp(nt[i].name, name))
			return &nt[i];
	return NULL;
}

struct cand {
	const struct usdt_note *u;
	unsigned int dist;
};

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	return strcmp(a->u->name, b->u->name);
}

/*
 * Up to MAX_SUGGEST probes close to prov:name, "provider:name, ...", into
 * out; a probe whose name holds the query counts as at the limit.
 */
static void suggest(const struct usdt_note *nt, size_t n, const char *prov, const char *name,
		    char *out, size_t len)
{
	struct cand *c = malloc(n * sizeof(*c) + 1);
	char want[256], have[256];
	size_t nc = 0, used = 0;
	unsigned int limit;

	out[0] = 0;
	if (!c)
		return;
	snprintf(want, sizeof(want), "%s:%s", prov, name);
	limit = strlen(want) / 3 > 3 ? (unsigned int)(strlen(want) / 3) : 3;
	for (size_t i = 0; i < n; i++) {
		unsigned int d;

		if (find_note(nt, i, nt[i].provider, nt[i].name))
			continue; /* another location of one seen */
		snprintf(have, sizeof(have), "%s:%s", nt[i].provider, nt[i].name);
		d = elfsym_suggest__dist(want, have);
		if (d > limit && strlen(name) >= 3 && strcasestr(nt[i].name, name))
			d = limit;
		if (d <= limit)
			c[nc++] = (struct cand){&nt[i], d};
	}
	xlp_sort(c, nc, sizeof(*c), cand_cmp);
	for (size_t i = 0; i < nc && i < MAX_SUGGEST && used < len; i++)
		used += snprintf(out + used, len - used, "%s%s:%s", i ? ", " : "", c[i].u->provider,
				 c[i].u->name);
	free(c);
}

/* The probe's note, or the error naming the closest probes. */
static int pick(const struct usdt_note *nt, size_t n, const char *path, const char *prov,
		const char *name, const struct usdt_note **out, struct ebuf *e)
{
	char close[512];

	*out = find_note(nt, n, prov, name);
	if (*out)
		return 0;
	suggest(nt, n, prov, name, close, sizeof(close));
	if (close[0])
		return ebuf__fail(e, -ENOENT,
				  "%s has no USDT probe %s:%s: did you mean %s? (xlprobe list usdt "
				  "%s lists them)",
				  path, prov, name, close, path);
	return ebuf__fail(e, -ENOENT,
			  "%s has no USDT probe %s:%s: xlprobe list usdt %s lists the %zu it has",
			  path, prov, name, path, n);
}

/* File offset of a link-time address through the PT_LOAD headers. */
static uint64_t file_offset(const char *path, uint64_t vaddr)
{
	uint64_t off = vaddr;
	size_t nph = 0;
	Elf *elf = NULL;
	int fd = -1;

	if (elf_read__open(path, &fd, &elf) || elf_getphdrnum(elf, &nph))
		goto out;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr - ph.p_vaddr < ph.p_filesz) {
			off = vaddr - ph.p_vaddr + ph.p_offset;
			break;
		}
	}
out:
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return off;
}

static int make_label(struct usdt_target *t)
{
	char buf[512];

	if (t->filter_arg >= 0)
		snprintf(buf, sizeof(buf), "%s:%s:arg%d=%s", t->provider, t->begin, t->filter_arg,
			 t->filter);
	else
		snprintf(buf, sizeof(buf), "%s:%s", t->provider, t->begin);
	t->label = strdup(buf);
	return t->label ? 0 : -ENOMEM;
}

int usdt__resolve(const char *spec, int pid, struct usdt_target *t, char *err, size_t errlen)
{
	struct ebuf e = {err, errlen};
	const struct usdt_note *b = NULL, *en = NULL;
	struct usdt_note *nt = NULL;
	char *bin = NULL;
	size_t n = 0;
	int ret;

	if (err && errlen)
		err[0] = 0;
	memset(t, 0, sizeof(*t));
	t->filter_arg = -1;
	if (!usdt__is_spec(spec))
		return ebuf__fail(&e, -EINVAL,
				  "bad spec '%s': a USDT spec starts with usdt:", spec ? spec : "");
	ret = split_spec(spec, t, &bin, &e);
	if (!ret)
		ret = elfsym_find__binary(bin, pid, &t->binary, &e);
	if (!ret)
		ret = usdt__read_notes(t->binary, &nt, &n, err, errlen);
	if (!ret && !n)
		ret = ebuf__fail(&e, -ENOENT,
				 "%s has no USDT probes (no .note.stapsdt section): give the "
				 "binary or library that holds them (xlprobe list usdt -p PID "
				 "lists a process's), or mark a function with BINARY:SYMBOL",
				 t->binary);
	if (!ret)
		ret = pick(nt, n, t->binary, t->provider, t->begin, &b, &e);
	if (!ret && t->end)
		ret = pick(nt, n, t->binary, t->provider, t->end, &en, &e);
	if (ret)
		goto out;
	t->nargs = b->nargs;
	if (en && en->nargs < t->nargs)
		t->nargs = en->nargs;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(nt[i].provider, t->provider) &&
		    (!strcmp(nt[i].name, t->begin) || (t->end && !strcmp(nt[i].name, t->end))))
			t->semaphore |= nt[i].sema != 0;
	if (t->filter_arg >= 0)
		ret = usdt__check_arg(t, t->filter_arg, "the filter", err, errlen);
	if (!ret)
		ret = make_label(t);
	if (ret)
		goto out;
	t->offset = file_offset(t->binary, b->pc);
	if (elfsym__build_id(t->binary, t->build_id, sizeof(t->build_id)))
		t->build_id[0] = 0;
out:
	if (ret && err && errlen && !err[0])
		snprintf(err, errlen, "'%s': %s", spec, strerror(-ret));
	if (ret)
		usdt__free_target(t);
	usdt__free_notes(nt, n);
	free(bin);
	return ret;
}

int usdt__check_arg(const struct usdt_target *t, int argn, const char *what, char *err,
		    size_t errlen)
{
	struct ebuf e = {err, errlen};

	if (argn >= 0 && argn < t->nargs)
		return 0;
	if (!t->end)
		return ebuf__fail(&e, -EINVAL,
				  "%s names arg%d of USDT probe %s:%s, which has %d argument%s "
				  "(arg0 to arg%d): give an index below %d",
				  what, argn, t->provider, t->begin, t->nargs,
				  t->nargs == 1 ? "" : "s", t->nargs - 1, t->nargs);
	return ebuf__fail(&e, -EINVAL,
			  "%s names arg%d of USDT probes %s:%s,%s, which have %d argument%s in "
			  "common: give an index below %d",
			  what, argn, t->provider, t->begin, t->end, t->nargs,
			  t->nargs == 1 ? "" : "s", t->nargs);
}

/* Prints path's probes, each provider:name once. */
static int list_file(FILE *out, const char *path, bool quiet, char *err, size_t errlen)
{
	struct usdt_note *nt;
	size_t n;
	int ret = usdt__read_notes(path, &nt, &n, err, errlen), listed = 0;

	if (ret)
		return quiet ? 0 : ret;
	for (size_t i = 0; i < n; i++) {
		if (find_note(nt, i, nt[i].provider, nt[i].name))
			continue; /* another location of a probe already listed */
		fprintf(out, "usdt:%s:%s:%s\n", path, nt[i].provider, nt[i].name);
		listed++;
	}
	usdt__free_notes(nt, n);
	return listed;
}

/* The ELF files pid maps executable, each once, in the order of its maps. */
static int list_pid(FILE *out, int pid, char *err, size_t errlen)
{
	struct ebuf e = {err, errlen};
	char maps[64], line[PATH_MAX + 256], **seen = NULL;
	size_t nseen = 0, cap = 0;
	int listed = 0, ret = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return ebuf__fail(&e, -errno == -ENOENT ? -ESRCH : -errno,
				  "process %d: %s: give the PID of a running process", pid,
				  errno == ENOENT ? "no such process" : strerror(errno));
	while (!ret && fgets(line, sizeof(line), f)) {
		char perms[8], *path = strchr(line, '/'), *nl;
		bool dup = false;
		int r;

		if (!path || sscanf(line, "%*s %7s", perms) != 1 || perms[2] != 'x')
			continue;
		nl = strchr(path, '\n');
		if (nl)
			*nl = 0;
		for (size_t i = 0; i < nseen && !dup; i++)
			dup = !strcmp(seen[i], path);
		if (dup || strstr(path, " (deleted)"))
			continue;
		if (xlp_grow((void **)&seen, &cap, nseen + 1, sizeof(*seen)) ||
		    !(seen[nseen] = strdup(path))) {
			ret = -ENOMEM;
			break;
		}
		nseen++;
		r = list_file(out, path, true, err, errlen);
		listed += r > 0 ? r : 0;
	}
	fclose(f);
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	return ret ? ret : listed;
}

int usdt__list(FILE *out, const char *path, int pid, char *err, size_t errlen)
{
	struct ebuf e = {err, errlen};
	char *real = NULL;
	int ret;

	if (!path)
		return list_pid(out, pid, err, errlen);
	ret = elfsym_find__binary(path, pid, &real, &e);
	if (!ret)
		ret = list_file(out, real, false, err, errlen);
	if (ret == 0)
		ret = ebuf__fail(&e, -ENOENT,
				 "%s has no USDT probes (no .note.stapsdt section): it was built "
				 "without <sys/sdt.h> probes; try its libraries (xlprobe list usdt "
				 "-p PID)",
				 real);
	free(real);
	return ret;
}
