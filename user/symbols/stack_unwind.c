/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "stack_unwind.h"
#include "util.h"

#ifdef XLP_HAVE_LIBDW
#include <dwarf.h>
#include <gelf.h>
#include <stdio.h>
#include <sys/stat.h>
#include <elfutils/libdwfl.h>
#endif

/* The kernel's walk as it is, from frame `from` on, appended to out. */
static void append_fp(const struct unwind_in *in, size_t from, struct unwind_out *out)
{
	for (size_t i = from; i < in->nfp && out->n < XLP_STACK_DEPTH; i++) {
		const struct bpf_stack_build_id *b = &in->fp[i];
		struct unwind_frame *f = &out->f[out->n];

		if (b->status == BPF_STACK_BUILD_ID_EMPTY)
			break;
		memset(f, 0, sizeof(*f));
		/* the kernel's first frame is the interrupted address, the rest return addresses */
		f->ret = i > 0;
		if (b->status == BPF_STACK_BUILD_ID_VALID) {
			f->kind = UNWIND_BUILD_ID;
			memcpy(f->build_id, b->build_id, sizeof(f->build_id));
			f->offset = b->offset;
		} else {
			f->kind = UNWIND_ADDR;
			f->ip = b->ip;
		}
		out->n++;
	}
}

static void fp_only(const struct unwind_in *in, struct unwind_out *out)
{
	out->n = 0;
	out->ncfi = 0;
	append_fp(in, 0, out);
	out->method = XLP_UNWIND_FP;
	out->stop = out->n >= XLP_STACK_DEPTH ? XLP_STOP_DEPTH : XLP_STOP_FP;
}

#ifndef XLP_HAVE_LIBDW

struct unwinder {
	int unused;
};

bool unwinder__has_cfi(void)
{
	return false;
}

int unwinder__new(struct unwinder **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void unwinder__free(struct unwinder *u)
{
	free(u);
}

int unwinder__prepare(struct unwinder *u, int pid)
{
	(void)u;
	(void)pid;
	return 0;
}

int unwind__stack(struct unwinder *u, const struct unwind_in *in, struct unwind_out *out)
{
	fp_only(in, out);
	return 0;
}

#else

/*
 * One Dwfl per process: its modules (from /proc/PID/maps, ELF files opened
 * once, their CFI parsed once) serve every stack of it. A process whose
 * stack has code no module covers (the dynamic loader mapping libraries,
 * an exec, a dlopen since) is read again: at once the first few times (a
 * launch is sampled from its exec on, while ld.so maps its libraries),
 * then at most every UNWIND_REPORT_GAP_NS. Few processes are sampled at
 * once; beyond UNWIND_PROCS the least recently used is dropped.
 */
#define UNWIND_PROCS 16
#define UNWIND_REPORTS_QUICK 16
#define UNWIND_REPORT_GAP_NS 200000000ull

struct proc_dwfl {
	int pid; /* 0: free */
	int reports;
	uint64_t reported_ns; /* CLOCK_MONOTONIC of the last report */
	uint64_t used;
	/* the executable the mappings were read with: an exec replaces them all */
	uint64_t exe_dev, exe_ino;
	uint64_t gen; /* of this report: the function-start cache's key */
	Dwfl *dwfl;
};

/*
 * Function entries by code address (func_start): elfutils finds a symbol
 * by scanning the whole symbol table (dwfl_module_addrinfo took a third
 * of the recorder's CPU on a PostgreSQL backend sampled under pgbench,
 * 2026-11-28, one lookup per stack under a pending uretprobe), while the
 * same few return addresses recur. Direct-mapped, keyed by the report's
 * generation: a process read again (or another in its slot) misses.
 */
#define UNWIND_FCACHE 4096

struct fstart {
	uint64_t gen, at, start;
};

/* The executable pid runs now (device, inode); false when it is gone. */
static bool exe_of(int pid, uint64_t *dev, uint64_t *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	if (stat(path, &st))
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return true;
}

struct unwinder {
	struct proc_dwfl procs[UNWIND_PROCS];
	uint64_t clock, gen;
	struct fstart fcache[UNWIND_FCACHE];
	/* the stack being unwound, for the callbacks */
	const struct unwind_in *in;
	struct unwind_out *out;
	bool beyond;   /* a read above the copy */
	bool bad_read; /* a read below it, or unaligned */
};

bool unwinder__has_cfi(void)
{
	return true;
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwinder *u = arg;

	/* one thread: the one whose stack was copied */
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->in->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct unwinder *u = arg;

	*thread_argp = u;
	return tid == u->in->tid;
}

/* A word of the copied stack; above it, nothing (counted: the copy was too short). */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = arg;
	const struct unwind_copy *c = u->in->copy;
	uint64_t sp = c->regs[XLP_UREG_SP];

	if (addr >= sp && addr - sp <= c->len - sizeof(*result) && c->len >= sizeof(*result)) {
		memcpy(result, c->data + (addr - sp), sizeof(*result));
		return true;
	}
	if (addr >= sp + c->len)
		u->beyond = true;
	else
		u->bad_read = true;
	return false;
}

/* x86-64's DWARF registers 0-16 (rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip) from pt_regs */
static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	const uint64_t *r = u->in->copy->regs;
	static const int order[17] = {
		XLP_UREG_AX,  XLP_UREG_DX,  XLP_UREG_CX,  XLP_UREG_BX,	XLP_UREG_SI,  XLP_UREG_DI,
		XLP_UREG_BP,  XLP_UREG_SP,  XLP_UREG_R8,  XLP_UREG_R9,	XLP_UREG_R10, XLP_UREG_R11,
		XLP_UREG_R12, XLP_UREG_R13, XLP_UREG_R14, XLP_UREG_R15, XLP_UREG_IP};
	Dwarf_Word dw[17];

	for (int i = 0; i < 17; i++)
		dw[i] = r[order[i]];
	return dwfl_thread_state_registers(thread, 0, 17, dw);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

int unwinder__new(struct unwinder **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void proc_drop(struct proc_dwfl *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	memset(p, 0, sizeof(*p));
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	for (int i = 0; i < UNWIND_PROCS; i++)
		proc_drop(&u->procs[i]);
	free(u);
}

/* pid's modules as its mappings are now, attached to the unwinder's callbacks */
static Dwfl *proc_report(struct unwinder *u, int pid)
{
	Dwfl *d = dwfl_begin(&proc_callbacks);

	if (!d)
		return NULL;
	dwfl_report_begin(d);
	if (dwfl_linux_proc_report(d, pid) || dwfl_report_end(d, NULL, NULL) ||
	    !dwfl_attach_state(d, NULL, pid, &thread_callbacks, u)) {
		dwfl_end(d);
		return NULL;
	}
	return d;
}

/* The Dwfl of pid (read again if `again`, as often as UNWIND_REPORT_GAP_NS allows), or NULL. */
static struct proc_dwfl *proc_get(struct unwinder *u, int pid, bool again)
{
	struct proc_dwfl *p = NULL, *lru = &u->procs[0];
	uint64_t now = xlp_now_ns(), dev = 0, ino = 0;
	bool exe = exe_of(pid, &dev, &ino);

	for (int i = 0; i < UNWIND_PROCS; i++) {
		if (u->procs[i].pid == pid)
			p = &u->procs[i];
		if (u->procs[i].used < lru->used)
			lru = &u->procs[i];
	}
	/*
	 * Exec'd since the mappings were read (a launch is sampled from its
	 * holding pen on, before it execs the command): every module is
	 * another, and the new image's addresses may fall in the old ones', so
	 * a frame in no known file does not always say so. Read them again
	 * now, whatever the rate limit.
	 */
	if (p && exe && (p->exe_dev != dev || p->exe_ino != ino)) {
		again = true;
		p->reports = 0;
	}
	if (p && !again) {
		p->used = ++u->clock;
		return p->dwfl ? p : NULL;
	}
	if (p && p->reports >= UNWIND_REPORTS_QUICK && now < p->reported_ns + UNWIND_REPORT_GAP_NS)
		return p->dwfl ? p : NULL;
	if (!p) {
		proc_drop(lru);
		p = lru;
		p->pid = pid;
	}
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->reports++;
	p->reported_ns = now;
	p->used = ++u->clock;
	p->exe_dev = dev;
	p->exe_ino = ino;
	p->gen = ++u->gen;
	p->dwfl = proc_report(u, pid);
	return p->dwfl ? p : NULL;
}

static int load_cfi(Dwfl_Module *m, void **userdata, const char *name, Dwarf_Addr start, void *arg)
{
	Dwarf_Addr bias;

	(void)userdata;
	(void)name;
	(void)start;
	(void)arg;
	if (!dwfl_module_eh_cfi(m, &bias))
		dwfl_module_dwarf_cfi(m, &bias);
	return DWARF_CB_OK;
}

int unwinder__prepare(struct unwinder *u, int pid)
{
	struct proc_dwfl *p = proc_get(u, pid, false);

	if (!p)
		return -ESRCH;
	dwfl_getmodules(p->dwfl, load_cfi, NULL, 0);
	return 0;
}

static int on_frame(Dwfl_Frame *fr, void *arg)
{
	struct unwinder *u = arg;
	struct unwind_out *out = u->out;
	struct unwind_frame *f;
	Dwarf_Addr pc;
	bool act;

	if (out->n >= XLP_STACK_DEPTH)
		return DWARF_CB_ABORT;
	if (!dwfl_frame_pc(fr, &pc, &act))
		return DWARF_CB_ABORT;
	f = &out->f[out->n++];
	memset(f, 0, sizeof(*f));
	f->kind = UNWIND_ADDR;
	f->ip = pc;
	f->ret = !act;
	return DWARF_CB_OK;
}

/* Whether code at addr has CFI in a module of d. */
static bool has_cfi(Dwfl *d, uint64_t addr)
{
	Dwfl_Module *m = dwfl_addrmodule(d, addr);
	Dwarf_Addr bias;

	return m && (dwfl_module_eh_cfi(m, &bias) || dwfl_module_dwarf_cfi(m, &bias));
}

/* The file and file offset of addr, as the kernel's build-id walk gives them. */
static bool file_offset(Dwfl *d, uint64_t addr, const unsigned char **id, int *idlen, uint64_t *off)
{
	Dwfl_Module *m = dwfl_addrmodule(d, addr);
	GElf_Addr vaddr, bias;
	size_t nph;
	Elf *e;

	if (!m)
		return false;
	*idlen = dwfl_module_build_id(m, id, &vaddr);
	e = dwfl_module_getelf(m, &bias);
	if (*idlen <= 0 || !e || elf_getphdrnum(e, &nph))
		return false;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr - bias >= ph.p_vaddr && addr - bias < ph.p_vaddr + ph.p_memsz) {
			*off = addr - bias - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

/* Whether CFI frame f and the kernel's frame b are the same return address. */
static bool same_frame(Dwfl *d, const struct unwind_frame *f, const struct bpf_stack_build_id *b)
{
	const unsigned char *id;
	uint64_t off;
	int len;

	if (b->status == BPF_STACK_BUILD_ID_IP)
		return b->ip == f->ip;
	if (b->status != BPF_STACK_BUILD_ID_VALID || !file_offset(d, f->ip, &id, &len, &off))
		return false;
	if (len > BPF_BUILD_ID_SIZE)
		len = BPF_BUILD_ID_SIZE;
	return off == b->offset && !memcmp(id, b->build_id, (size_t)len);
}

/*
 * The CFI frames ended before the stack did: the kernel's walk goes on
 * from the outermost frame both have (frame pointers are right above it
 * if they were right at it). Returns whether frames were added.
 */
static bool splice_fp(Dwfl *d, const struct unwind_in *in, struct unwind_out *out)
{
	for (size_t k = out->n; k-- > 1;) {
		for (size_t j = 1; j < in->nfp; j++) {
			if (in->fp[j].status == BPF_STACK_BUILD_ID_EMPTY)
				break;
			if (!same_frame(d, &out->f[k], &in->fp[j]))
				continue;
			if (j + 1 >= in->nfp || in->fp[j + 1].status == BPF_STACK_BUILD_ID_EMPTY)
				return false; /* the walk knows no more */
			out->n = k + 1;
			out->ncfi = k + 1;
			append_fp(in, j + 1, out);
			return true;
		}
	}
	return false;
}

static enum xlp_stack_stop cfi_unwind(struct unwinder *u, struct proc_dwfl *p,
				      const struct unwind_in *in, struct unwind_out *out)
{
	int rc;

	out->n = 0;
	u->in = in;
	u->out = out;
	u->beyond = u->bad_read = false;
	rc = dwfl_getthread_frames(p->dwfl, in->tid, on_frame, u);
	if (out->n >= XLP_STACK_DEPTH)
		return XLP_STOP_DEPTH;
	/* libdw ends without an error when a return address cannot be read:
	 * the reads say whether the stack went on above the copy */
	if (u->beyond && in->copy->cut)
		return XLP_STOP_COPY;
	if (u->bad_read)
		return XLP_STOP_BAD;
	if (rc == 0)
		return XLP_STOP_END;
	if (out->n && !has_cfi(p->dwfl, out->f[out->n - 1].ip - out->f[out->n - 1].ret))
		return XLP_STOP_NO_CFI;
	return XLP_STOP_BAD;
}

/* The entry of the function holding a frame's code, 0 when no symbol says. */
static uint64_t func_start(struct unwinder *u, const struct proc_dwfl *p,
			   const struct unwind_frame *f)
{
	uint64_t at = f->ip - f->ret;
	struct fstart *c = &u->fcache[(at ^ (at >> 12) ^ p->gen * 0x9e3779b1u) % UNWIND_FCACHE];
	Dwfl_Module *m;
	GElf_Off off;
	GElf_Sym sym;

	if (c->gen == p->gen && c->at == at)
		return c->start;
	m = dwfl_addrmodule(p->dwfl, at);
	*c = (struct fstart){.gen = p->gen, .at = at};
	if (m && dwfl_module_addrinfo(m, at, &off, &sym, NULL, NULL, NULL))
		c->start = at - off;
	return c->start;
}

/*
 * Marked functions entered by a tail call have no frame: nginx's
 * ngx_http_process_request ends in a jump to ngx_http_handler, which
 * jumps to ngx_http_core_run_phases, so a sample in a request has no
 * frame of the interaction and was no run's. Their uretprobes are still
 * pending and say where they return to: between the frame that returns
 * there (f[i]) and the frame inside it (f[i - 1]), each such function
 * whose code f[i - 1] is not gets a frame of its own (its entry, not a
 * return address), newest innermost. Nothing is put back when no symbol
 * says what f[i - 1] is: a frame that is there would be doubled.
 */
static void tail_calls(struct unwinder *u, const struct proc_dwfl *p, const struct unwind_copy *c,
		       struct unwind_out *out)
{
	for (size_t i = 1; i < out->n; i++) {
		uint64_t inner = 0;
		size_t at = i;

		if (!out->f[i].ret || out->f[i].kind != UNWIND_ADDR)
			continue;
		for (size_t k = 0; k < c->nuret && out->n < XLP_STACK_DEPTH; k++) {
			if (c->uret[k].ret != out->f[i].ip)
				continue;
			if (!inner)
				inner = func_start(u, p, &out->f[i - 1]);
			if (!inner || inner == c->uret[k].func)
				continue;
			memmove(&out->f[at + 1], &out->f[at], (out->n - at) * sizeof(out->f[0]));
			memset(&out->f[at], 0, sizeof(out->f[at]));
			out->f[at].kind = UNWIND_ADDR;
			out->f[at].ip = c->uret[k].func;
			out->n++;
			at++;
		}
		i = at;
	}
}

int unwind__stack(struct unwinder *u, const struct unwind_in *in, struct unwind_out *out)
{
	const struct unwind_copy *c = in->copy;
	enum xlp_stack_stop stop;
	struct proc_dwfl *p;

	memset(out, 0, offsetof(struct unwind_out, f));
	if (!c || c->len < 8) {
		fp_only(in, out);
		return 0;
	}
	p = proc_get(u, in->pid, false);
	/* code in no module known: mapped since (dlopen, exec), read the maps again */
	if (!p || !dwfl_addrmodule(p->dwfl, c->regs[XLP_UREG_IP]))
		p = proc_get(u, in->pid, true);
	if (!p) {
		fp_only(in, out);
		return 0;
	}
	stop = cfi_unwind(u, p, in, out);
	if (stop == XLP_STOP_NO_CFI && out->n &&
	    !dwfl_addrmodule(p->dwfl, out->f[out->n - 1].ip - out->f[out->n - 1].ret)) {
		p = proc_get(u, in->pid, true);
		if (!p) {
			fp_only(in, out);
			return 0;
		}
		stop = cfi_unwind(u, p, in, out);
	}
	tail_calls(u, p, c, out);
	out->ncfi = out->n;
	out->method = XLP_UNWIND_CFI;
	out->stop = out->cfi_stop = stop;
	if (stop == XLP_STOP_END || stop == XLP_STOP_DEPTH)
		return 0;
	/* the copy or the tables ended first: the frame pointers may go on */
	if (splice_fp(p->dwfl, in, out)) {
		out->method = XLP_UNWIND_MIXED;
		out->stop = out->n >= XLP_STACK_DEPTH ? XLP_STOP_DEPTH : XLP_STOP_FP;
		return 0;
	}
	/* nothing past the interrupted frame: the walk may know more */
	if (out->n <= 1 && in->nfp > 1 && in->fp[1].status != BPF_STACK_BUILD_ID_EMPTY)
		fp_only(in, out);
	return 0;
}

#endif
