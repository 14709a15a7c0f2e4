/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include "jvm_maps.h"
#include "htab.h"
#include "sampler.h"
#include "session.h"
#include "symbolize.h"
#include "util.h"
#include "stack_unwind.h"

/* the codes the programs give deferred user stacks they could not take (bpf/xlprobe.h) */
_Static_assert(XLP_ERR_SRCH == ESRCH && XLP_ERR_NOSPC == ENOSPC && XLP_ERR_STALE == ESTALE,
	       "XLP_ERR_* are Linux errno values");

/* A distinct frame name: kind, source, module and name, as one key. */
struct sym_key {
	char *key; /* kind byte, source byte, module, NUL, name, NUL */
	size_t len;
};

/*
 * Processes whose mappings were read, and how often: a frame no known
 * file covers reads them again (an exec, a dlopen since), a few times at
 * most, so that a process whose frames cannot be named is not re-read at
 * every sample.
 */
#define MAPS_READS_MAX 4

struct pid_seen {
	struct {
		int pid;
		int reads;
	} * p;
	size_t n, cap;
};

/* A thread's last user-stack copy (xlp_ucopy_rec): its samples name it by seq. */
struct copy_slot {
	int tid;
	uint64_t seq;
	uint64_t regs[XLP_UCOPY_NREGS];
	uint32_t len, flags;
	uint32_t nuret;
	struct xlp_ucopy_uret uret[XLP_UCOPY_URET_MAX];
	uint8_t *data;
	size_t cap;
};

/* A distinct user stack unwound with CFI, by content: the trace's id + 1 */
/* A stack written by its content (the frames' name ids and its flags). */
struct stack_slot {
	uint32_t id1; /* the trace's id + 1 */
	uint16_t n, flags;
	struct xlp_stack_frame *frames;
};

struct sampler {
	struct session *sess;
	struct symbolizer *sym;
	struct jvm_maps *jvm; /* JVMs asked for their perf maps on a JIT miss */
	struct unwinder *unw;
	struct copy_slot *copies; /* in the order first seen */
	size_t copy_cap, ncopies;
	struct htab *copy_index;   /* a tid -> its index in copies + 1 */
	struct htab *cstack_index; /* a stack's content -> its index in cstacks + 1 */
	struct stack_slot *cstacks;
	size_t cstack_cap, ncstacks;
	sampler_write_fn write;
	void *ctx;
	/* kernel stack-map id -> trace stack id + 1, per map; grown on demand */
	uint32_t *umap, *kmap;
	size_t ulen, klen;
	/* (user stack-map id + 1, recovered caller) -> trace stack id + 1 */
	struct caller_slot {
		uint32_t kid1, id;
		uint64_t caller;
	} * cmap; /* in the order first seen */
	size_t ccap, cn;
	struct htab *cindex; /* (kid1, caller) -> its index in cmap + 1 */
	uint32_t next_stack;
	struct htab *sym_index; /* a name's key -> its id + 1 */
	struct sym_key *syms;	/* by id */
	size_t sym_cap, nsyms;
	struct pid_seen seen;
	struct sampler_counts c;
	/* the adaptive period (sampler__adapt): its floor, the bound, the window */
	uint64_t min_period, win_start;
	double pause; /* the last measured cost of an on-CPU sample, ns */
	uint32_t bound_ppm;
	struct xlp_sample_cost win_cost; /* the totals as the window began */
	/* the buffers of one stack: its frames read back, the record written */
	struct bpf_stack_build_id ubuf[XLP_STACK_DEPTH];
	uint64_t kbuf[XLP_STACK_DEPTH];
	struct unwind_out uout;
	/* a stack record and a name record, built here (flexible arrays: bytes) */
	_Alignas(8) char st_buf[sizeof(struct xlp_stack_rec) +
				XLP_STACK_DEPTH * sizeof(struct xlp_stack_frame)];
	_Alignas(8) char sy_buf[sizeof(struct xlp_sym_rec) + sizeof(((struct xsym *)0)->module) +
				sizeof(((struct xsym *)0)->name)];
};

int sampler__new(struct session *sess, sampler_write_fn write, void *ctx, struct sampler **out)
{
	struct sampler *sm = calloc(1, sizeof(*sm));
	int err = -ENOMEM;

	*out = NULL;
	if (!sm)
		return -ENOMEM;
	sm->sess = sess;
	sm->write = write;
	sm->ctx = ctx;
	/* names come from the traced process's files: the seeded table */
	sm->sym_index = htab__new(UINT32_MAX - 1);
	sm->cstack_index = htab__new(UINT32_MAX - 1);
	sm->copy_index = htab__new(UINT32_MAX - 1);
	sm->cindex = htab__new(UINT32_MAX - 1);
	if (!sm->sym_index || !sm->cstack_index || !sm->copy_index || !sm->cindex)
		goto cleanup;
	err = symbolizer__new(&sm->sym);
	if (err)
		goto cleanup;
	err = jvm_maps__new(&sm->jvm);
	if (err)
		goto cleanup;
	symbolizer__on_jit_miss(sm->sym, jvm_maps__miss, sm->jvm);
	err = unwinder__new(&sm->unw);
	if (err)
		goto cleanup;
	*out = sm;
	sm = NULL;
cleanup:
	sampler__free(sm);
	return err;
}

void sampler__free(struct sampler *sm)
{
	if (!sm)
		return;
	symbolizer__free(sm->sym);
	jvm_maps__free(sm->jvm);
	unwinder__free(sm->unw);
	for (size_t i = 0; i < sm->ncopies; i++)
		free(sm->copies[i].data);
	free(sm->copies);
	htab__free(sm->copy_index);
	htab__free(sm->cindex);
	for (size_t i = 0; i < sm->ncstacks; i++)
		free(sm->cstacks[i].frames);
	free(sm->cstacks);
	htab__free(sm->cstack_index);
	for (size_t i = 0; i < sm->nsyms; i++)
		free(sm->syms[i].key);
	free(sm->syms);
	htab__free(sm->sym_index);
	free(sm->umap);
	free(sm->kmap);
	free(sm->cmap);
	free(sm->seen.p);
	free(sm);
}

void sampler__add_file(struct sampler *sm, const char *path)
{
	symbolizer__add_file(sm->sym, path); /* not an ELF file with a build-id: no frames of it */
}

/* Whether pid's mappings may be read (again), counting the read. */
static bool pid_may_read(struct pid_seen *s, int pid)
{
	void *p;

	for (size_t i = 0; i < s->n; i++)
		if (s->p[i].pid == pid)
			return s->p[i].reads < MAPS_READS_MAX && ++s->p[i].reads;
	if (s->n == s->cap) {
		p = realloc(s->p, (s->cap ? 2 * s->cap : 64) * sizeof(*s->p));
		if (!p)
			return false; /* no memory to remember it: read nothing more */
		s->p = p;
		s->cap = s->cap ? 2 * s->cap : 64;
	}
	s->p[s->n].pid = pid;
	s->p[s->n++].reads = 1;
	return true;
}

void sampler__add_pid(struct sampler *sm, int pid)
{
	if (!pid_may_read(&sm->seen, pid))
		return;
	/* gone already: its build-ids may still be known */
	if (!symbolizer__add_pid(sm->sym, pid))
		symbolizer__prepare(sm->sym, pid);
	if (sm->unw)
		unwinder__prepare(sm->unw, pid);
}

struct sym_want {
	const struct sym_key *syms;
	const char *key;
	size_t len;
};

static bool sym_eq(const void *ctx, uint32_t i)
{
	const struct sym_want *w = ctx;

	return w->syms[i - 1].len == w->len && !memcmp(w->syms[i - 1].key, w->key, w->len);
}

/* The trace's id of a frame name, writing its record the first time. */
static int sym_id(struct sampler *sm, const struct xsym *x, uint32_t *id)
{
	size_t ml = strnlen(x->module, sizeof(x->module)), nl = strnlen(x->name, sizeof(x->name));
	size_t klen = 2 + ml + 1 + nl + 1, size;
	char key[2 + sizeof(x->module) + sizeof(x->name) + 2];
	struct xlp_sym_rec *sy = (void *)sm->sy_buf;
	struct sym_want w = {sm->syms, key, klen};
	uint64_t h;
	uint32_t i;
	int err;

	/* one record per name and source: the source is said with the name */
	key[0] = (char)('0' + x->kind);
	key[1] = (char)x->source;
	memcpy(key + 2, x->module, ml);
	key[2 + ml] = 0;
	memcpy(key + 3 + ml, x->name, nl);
	key[3 + ml + nl] = 0;
	h = htab__hash(sm->sym_index, key, klen);
	i = htab__find(sm->sym_index, h, sym_eq, &w);
	if (i) {
		*id = i - 1;
		return 0;
	}
	memset(sm->sy_buf, 0, sizeof(sm->sy_buf));
	size = sizeof(*sy) + ml + nl;
	size = (size + 7) & ~(size_t)7;
	sy->h.type = XLP_R_SYM;
	sy->h.size = (uint16_t)size;
	sy->id = (uint32_t)sm->nsyms;
	sy->kind = (uint16_t)x->kind;
	sy->source = x->source;
	sy->module_len = (uint16_t)ml;
	sy->name_len = (uint16_t)nl;
	memcpy(sy->text, x->module, ml);
	memcpy(sy->text + ml, x->name, nl);
	err = sm->write(sm->ctx, &sy->h);
	if (err)
		return err;
	if (xlp_grow((void **)&sm->syms, &sm->sym_cap, sm->nsyms, sizeof(*sm->syms)) ||
	    !(sm->syms[sm->nsyms].key = malloc(klen)))
		return -ENOMEM;
	memcpy(sm->syms[sm->nsyms].key, key, klen);
	sm->syms[sm->nsyms].len = klen;
	err = htab__put(sm->sym_index, h, (uint32_t)sm->nsyms + 1, NULL, NULL);
	if (err) {
		free(sm->syms[sm->nsyms].key);
		return err;
	}
	*id = (uint32_t)sm->nsyms++;
	sm->c.syms++;
	return 0;
}

/* The slot of kernel id kid in map *m (grown to hold it), or NULL. */
static uint32_t *map_slot(uint32_t **m, size_t *len, uint32_t kid)
{
	if (kid >= *len) {
		size_t n = kid + 1 > 2 * *len ? kid + 1 : 2 * *len;
		uint32_t *p = realloc(*m, n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + *len, 0, (n - *len) * sizeof(*p));
		*m = p;
		*len = n;
	}
	return &(*m)[kid];
}

struct caller_want {
	const struct sampler *sm;
	uint32_t kid1;
	uint64_t caller;
};

static bool caller_eq(const void *ctx, uint32_t i)
{
	const struct caller_want *w = ctx;

	return w->sm->cmap[i - 1].kid1 == w->kid1 && w->sm->cmap[i - 1].caller == w->caller;
}

/* The trace stack id + 1 of (kid1, caller), 0 when new; NULL on ENOMEM. */
static uint32_t *caller_slot(struct sampler *sm, uint32_t kid1, uint64_t caller)
{
	struct caller_want w = {sm, kid1, caller};
	uint64_t key[2] = {kid1, caller}, h = htab__hash(sm->cindex, key, sizeof(key));
	uint32_t i = htab__find(sm->cindex, h, caller_eq, &w);

	if (i)
		return &sm->cmap[i - 1].id;
	if (xlp_grow((void **)&sm->cmap, &sm->ccap, sm->cn, sizeof(*sm->cmap)) ||
	    htab__put(sm->cindex, h, (uint32_t)sm->cn + 1, NULL, NULL))
		return NULL;
	sm->cmap[sm->cn] = (struct caller_slot){.kid1 = kid1, .caller = caller};
	return &sm->cmap[sm->cn++].id;
}

/*
 * The caller a frame-pointer walk skipped (leaf_caller, bpf/xlprobe.bpf.h)
 * as frame 1 of the n frames in st, unless the walk's own frame 1 is in
 * the same function (the sampled function had its frame: nothing skipped).
 */
static int insert_caller(struct sampler *sm, struct xlp_stack_rec *st, size_t n, int pid,
			 uint64_t caller)
{
	struct xsym x;
	uint32_t id;

	if (!n || n >= XLP_STACK_DEPTH)
		return (int)n;
	if (symbolizer__user_ip(sm->sym, pid, caller, &x) && x.kind == XSYM_UNKNOWN) {
		sampler__add_pid(sm, pid);
		symbolizer__user_ip(sm->sym, pid, caller, &x);
	}
	if (x.kind != XSYM_SYMBOL || sym_id(sm, &x, &id))
		return (int)n;
	if (n > 1 && st->frames[1].sym == id)
		return (int)n;
	memmove(&st->frames[2], &st->frames[1], (n - 1) * sizeof(st->frames[0]));
	st->frames[1] = (struct xlp_stack_frame){
		.sym = id, .flags = XLP_FRAME_RECOVERED, .offset = x.offset};
	sm->c.frames_named++;
	sm->c.recovered++;
	return (int)n + 1;
}

/* Names one frame of a stack read back from the kernel. */
static bool frame_name(struct sampler *sm, bool kernel, int pid, size_t i, struct xsym *x,
		       bool *end)
{
	const struct bpf_stack_build_id *b = &sm->ubuf[i];

	*end = false;
	if (kernel) {
		if (!sm->kbuf[i]) {
			*end = true;
			return false;
		}
		symbolizer__kernel(sm->sym, sm->kbuf[i], x);
		return true;
	}
	switch (b->status) {
	case BPF_STACK_BUILD_ID_VALID:
		/* a build-id no file shown so far has: the process's maps, once */
		if (symbolizer__user_build_id(sm->sym, b->build_id, b->offset, x) &&
		    x->kind == XSYM_UNKNOWN) {
			sampler__add_pid(sm, pid);
			symbolizer__user_build_id(sm->sym, b->build_id, b->offset, x);
		}
		return true;
	case BPF_STACK_BUILD_ID_IP:
		/* the kernel could not read the build-id then: by address */
		if (symbolizer__user_ip(sm->sym, pid, b->ip, x) && x->kind == XSYM_UNKNOWN) {
			sampler__add_pid(sm, pid);
			symbolizer__user_ip(sm->sym, pid, b->ip, x);
		}
		return true;
	default:
		*end = true;
		return false;
	}
}

/* A kernel frame of the tracing machinery that runs the programs. */
static bool xlp_own_frame(const char *name)
{
	static const char *const prefix[] = {"bpf_prog_", "bpf_trace_run", "__bpf_trace_",
					     "__traceiter_", "bpf_overflow_handler"};

	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

/* The trace's id + 1 of the kernel's stack kid + 1 (0: none); 0 and *err when lost. */
static uint32_t stack_id(struct sampler *sm, bool kernel, uint32_t kid1, int pid, int32_t *lost,
			 uint64_t caller)
{
	uint32_t *slot = !kid1	  ? NULL
			 : caller ? caller_slot(sm, kid1, caller)
				  : map_slot(kernel ? &sm->kmap : &sm->umap,
					     kernel ? &sm->klen : &sm->ulen, kid1 - 1);
	struct xlp_stack_rec *st = (void *)sm->st_buf;
	size_t n = 0;
	int err;

	if (!kid1)
		return 0;
	if (!slot) {
		*lost = -ENOMEM;
		return 0;
	}
	if (*slot)
		return *slot;
	err = kernel ? session__read_stack(sm->sess, true, kid1 - 1, sm->kbuf, sizeof(sm->kbuf))
		     : session__read_stack(sm->sess, false, kid1 - 1, sm->ubuf, sizeof(sm->ubuf));
	if (err) {
		*lost = err;
		return 0;
	}
	memset(st, 0, sizeof(*st));
	for (size_t i = 0, ours = kernel; i < XLP_STACK_DEPTH; i++) {
		struct xsym x;
		bool end;

		if (!frame_name(sm, kernel, pid, i, &x, &end)) {
			if (end)
				break;
			continue;
		}
		/* the innermost frames of an off-CPU stack are xlprobe's own
		 * program and the tracepoint's glue: not the thread's */
		if (ours && xlp_own_frame(x.name))
			continue;
		ours = false;
		if (sym_id(sm, &x, &st->frames[n].sym)) {
			*lost = -EIO;
			return 0;
		}
		st->frames[n].offset = x.offset;
		sm->c.frames_named += x.kind == XSYM_SYMBOL;
		n++;
	}
	if (caller)
		n = (size_t)insert_caller(sm, st, n, pid, caller);
	st->h.type = XLP_R_STACK;
	st->h.size = (uint16_t)(sizeof(*st) + n * sizeof(struct xlp_stack_frame));
	st->id = sm->next_stack;
	st->nframes = (uint16_t)n;
	st->flags = (kernel ? XLP_STACK_KERNEL : 0) | (n == XLP_STACK_DEPTH ? XLP_STACK_FULL : 0);
	if (!kernel)
		st->flags |= XLP_UNWIND_FP << XLP_STACK_METHOD_SHIFT |
			     (n == XLP_STACK_DEPTH ? XLP_STOP_DEPTH : XLP_STOP_FP)
				     << XLP_STACK_STOP_SHIFT;
	if (sm->write(sm->ctx, &st->h)) {
		*lost = -EIO;
		return 0;
	}
	sm->c.stacks++;
	sm->c.frames += n;
	*slot = ++sm->next_stack;
	return *slot;
}

struct copy_want {
	const struct sampler *sm;
	int tid;
};

static bool copy_eq(const void *ctx, uint32_t i)
{
	const struct copy_want *w = ctx;

	return w->sm->copies[i - 1].tid == w->tid;
}

/* Thread tid's last copy, made when add; NULL when absent (or on ENOMEM). */
static struct copy_slot *copy_slot(struct sampler *sm, int tid, bool add)
{
	uint64_t h = htab__hash(sm->copy_index, &tid, sizeof(tid));
	uint32_t i;

	i = htab__find(sm->copy_index, h, copy_eq, &(struct copy_want){sm, tid});
	if (i)
		return &sm->copies[i - 1];
	if (!add ||
	    xlp_grow((void **)&sm->copies, &sm->copy_cap, sm->ncopies, sizeof(*sm->copies)) ||
	    htab__put(sm->copy_index, h, (uint32_t)sm->ncopies + 1, NULL, NULL))
		return NULL;
	memset(&sm->copies[sm->ncopies], 0, sizeof(sm->copies[0]));
	sm->copies[sm->ncopies].tid = tid;
	return &sm->copies[sm->ncopies++];
}

int sampler__ucopy(struct sampler *sm, const struct xlp_ucopy_rec *rec, size_t size)
{
	struct copy_slot *c;

	if (size < sizeof(*rec) || rec->len > size - sizeof(*rec) || !rec->tid)
		return -EINVAL;
	c = copy_slot(sm, (int)rec->tid, true);
	if (!c)
		return -ENOMEM;
	if (c->cap < rec->len) {
		uint8_t *d = realloc(c->data, rec->len);

		if (!d)
			return -ENOMEM;
		c->data = d;
		c->cap = rec->len;
	}
	memcpy(c->regs, rec->regs, sizeof(c->regs));
	memcpy(c->data, (const char *)rec + sizeof(*rec), rec->len);
	c->len = rec->len;
	c->flags = rec->flags;
	c->nuret = rec->nuret < XLP_UCOPY_URET_MAX ? rec->nuret : XLP_UCOPY_URET_MAX;
	memcpy(c->uret, rec->uret, sizeof(c->uret));
	c->seq = rec->seq;
	sm->c.copies++;
	sm->c.copy_bytes += rec->len;
	return 0;
}

/* Names an unwound user frame; a return address by the call before it. */
static void uframe_name(struct sampler *sm, int pid, const struct unwind_frame *f, struct xsym *x)
{
	uint64_t back = f->ret && f->kind == UNWIND_ADDR;

	if (f->kind == UNWIND_BUILD_ID) {
		if (symbolizer__user_build_id(sm->sym, f->build_id, f->offset, x) &&
		    x->kind == XSYM_UNKNOWN) {
			sampler__add_pid(sm, pid);
			symbolizer__user_build_id(sm->sym, f->build_id, f->offset, x);
		}
		return;
	}
	if (symbolizer__user_ip(sm->sym, pid, f->ip - back, x) && x->kind == XSYM_UNKNOWN) {
		sampler__add_pid(sm, pid);
		symbolizer__user_ip(sm->sym, pid, f->ip - back, x);
	}
	/* the frame's offset is the return address's, as the walk's are */
	if (x->kind != XSYM_UNKNOWN)
		x->offset += back;
}

static bool stack_eq(const void *ctx, uint32_t i)
{
	const struct sampler *sm = ctx;
	const struct xlp_stack_rec *st = (const void *)sm->st_buf;
	const struct stack_slot *slot = &sm->cstacks[i - 1];

	return slot->n == st->nframes && slot->flags == st->flags &&
	       !memcmp(slot->frames, st->frames, st->nframes * sizeof(st->frames[0]));
}

/* The trace's id + 1 of the stack in sm->st_buf (its record written the first time), or 0. */
static uint32_t stack_by_content(struct sampler *sm, size_t named, int32_t *lost)
{
	struct xlp_stack_rec *st = (void *)sm->st_buf;
	size_t bytes = st->nframes * sizeof(st->frames[0]);
	uint64_t h = htab__hash(sm->cstack_index, st->frames, bytes) ^ st->flags;
	uint32_t i = htab__find(sm->cstack_index, h, stack_eq, sm);
	struct stack_slot *slot;

	if (i)
		return sm->cstacks[i - 1].id1;
	if (xlp_grow((void **)&sm->cstacks, &sm->cstack_cap, sm->ncstacks, sizeof(*sm->cstacks))) {
		*lost = -ENOMEM;
		return 0;
	}
	slot = &sm->cstacks[sm->ncstacks];
	slot->frames = malloc(bytes ? bytes : 1);
	if (!slot->frames) {
		*lost = -ENOMEM;
		return 0;
	}
	memcpy(slot->frames, st->frames, bytes);
	st->h.type = XLP_R_STACK;
	st->h.size = (uint16_t)(sizeof(*st) + bytes);
	st->id = sm->next_stack;
	if (sm->write(sm->ctx, &st->h) ||
	    htab__put(sm->cstack_index, h, (uint32_t)sm->ncstacks + 1, NULL, NULL)) {
		free(slot->frames);
		*lost = -EIO;
		return 0;
	}
	slot->n = st->nframes;
	slot->flags = st->flags;
	slot->id1 = ++sm->next_stack;
	sm->ncstacks++;
	sm->c.stacks++;
	sm->c.frames += st->nframes;
	sm->c.frames_named += named;
	return slot->id1;
}
/*
 * The user stack of rec unwound with CFI from copy c (stack_unwind.h), as the
 * trace's stack id + 1; 0 with *fp set when only the frame-pointer walk
 * was usable (the caller then takes that path, leaf recovery included).
 */
static uint32_t ustack_cfi(struct sampler *sm, struct xlp_sample_rec *rec,
			   const struct copy_slot *c, bool *fp)
{
	struct xlp_stack_rec *st = (void *)sm->st_buf;
	struct unwind_copy copy = {.regs = c->regs,
				   .data = c->data,
				   .len = c->len,
				   .cut = c->flags & XLP_UCOPY_CUT,
				   .uret = c->uret,
				   .nuret = c->nuret};
	struct unwind_in in = {.pid = (int)rec->pid, .tid = (int)rec->tid, .copy = &copy};
	struct unwind_out *out = &sm->uout;
	size_t named = 0;
	uint64_t t0;
	uint32_t id1;
	int err;

	*fp = false;
	if (rec->ustack &&
	    !session__read_stack(sm->sess, false, rec->ustack - 1, sm->ubuf, sizeof(sm->ubuf))) {
		in.fp = sm->ubuf;
		in.nfp = XLP_STACK_DEPTH;
	}
	t0 = xlp_now_ns();
	err = unwind__stack(sm->unw, &in, out);
	/* the recorder's cost, on its own CPU: not in the bound, but printed */
	sm->c.unwind_ns += xlp_now_ns() - t0;
	sm->c.unwinds++;
	if (err || out->method == XLP_UNWIND_FP) {
		*fp = true;
		return 0;
	}
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < out->n; i++) {
		struct xsym x;

		uframe_name(sm, in.pid, &out->f[i], &x);
		if (sym_id(sm, &x, &st->frames[i].sym)) {
			rec->ustack_err = -EIO;
			return 0;
		}
		st->frames[i].offset = x.offset;
		named += x.kind == XSYM_SYMBOL;
	}
	st->nframes = (uint16_t)out->n;
	st->flags = (out->n == XLP_STACK_DEPTH ? XLP_STACK_FULL : 0) |
		    out->method << XLP_STACK_METHOD_SHIFT | out->stop << XLP_STACK_STOP_SHIFT;
	id1 = stack_by_content(sm, named, &rec->ustack_err);
	if (id1) {
		rec->ustack_err = 0;
		sm->c.unwound[out->method]++;
		sm->c.copy_cut += out->cfi_stop == XLP_STOP_COPY;
	}
	return id1;
}

int sampler__sample(struct sampler *sm, struct xlp_sample_rec *rec, uint64_t ucaller, uint64_t useq)
{
	const struct copy_slot *c =
		useq > XLP_UCOPY_SKIPPED ? copy_slot(sm, (int)rec->tid, false) : NULL;
	bool fp = true;
	uint32_t id1 = 0;

	sm->c.samples++;
	/* a jitdump names an address by the code there at the sample's time */
	symbolizer__set_time(sm->sym, rec->time_ns);
	if (useq && (!c || c->seq != useq))
		sm->c.copy_missing++; /* its copy was skipped or lost (ring buffer full): fp */
	else if (c)
		id1 = ustack_cfi(sm, rec, c, &fp);
	if (!fp) {
		rec->ustack = id1;
	} else if (rec->ustack) {
		rec->ustack =
			stack_id(sm, false, rec->ustack, (int)rec->pid, &rec->ustack_err, ucaller);
		sm->c.unwound[XLP_UNWIND_FP] += !!rec->ustack;
	}
	if (rec->kstack)
		rec->kstack = stack_id(sm, true, rec->kstack, (int)rec->pid, &rec->kstack_err, 0);
	/* a user stack is what a sample is for; a kernel thread has none (-EFAULT) */
	sm->c.stack_lost += !rec->ustack && rec->ustack_err != -EFAULT;
	return 0;
}

void sampler__set_bound(struct sampler *sm, uint64_t min_period_ns, uint32_t bound_ppm,
			uint64_t now)
{
	sm->min_period = min_period_ns;
	sm->bound_ppm = bound_ppm;
	sm->win_start = now;
	session__sample_cost(sm->sess, &sm->win_cost);
}

/*
 * PerfProbe's adaptive interval (section III-B): the relative overhead of
 * a period S is O = P / (S + P) for a pause P per sample, and the next
 * period is the smallest with O <= T, S = P / T - P, never below the
 * user's -F. Here the pause is paid per on-CPU tick (the sampling program)
 * and per switch-out whose stacks are taken (the off-CPU stacks), the
 * second whatever S is. Over a window in which the traced threads ran cpu
 * ns, with C_on over n ticks and C_off, the budget is
 * B = T / (1 - T) x cpu (cost / (cpu + cost) <= T). The switch-outs get at
 * most half of it: their stacks are taken with chance 1 / k, k the
 * smallest with C_off,all / k <= B / 2 (C_off,all = C_off x the k in force);
 * the ticks get the rest:
 *     S' = cpu x (C_on / n) / (B - C_off,all / k),
 * which is the paper's formula when nothing is taken at switch-outs.
 */
#define SAMPLER_MAX_PERIOD 1000000000ull /* one sample a second: coarser tells nothing */
#define SAMPLER_MAX_EVERY 65536u	 /* then the off-CPU stacks are as good as off */

struct adapt {
	double cpu;
	uint64_t period;
	uint32_t every;
	bool over;
};

static struct adapt next_rates(struct sampler *sm, uint64_t period, uint32_t every,
			       const struct xlp_sample_cost *d, uint64_t on_cost)
{
	double T = sm->bound_ppm / 1e6, tick_cpu = (double)d->on_samples * (double)period;
	/* threads that never left the CPU in the window told nothing of
	 * their time at switch-outs: the ticks count it (both fall short) */
	double cpu = (double)d->cpu_ns > tick_cpu ? (double)d->cpu_ns : tick_cpu;
	double budget = T * cpu / (1 - T), off_all = (double)(d->cost_ns - on_cost) * every;
	double k = 1, room, s;
	struct adapt a = {.cpu = cpu, .period = period, .every = every};

	if (cpu <= 0)
		return a; /* nothing ran: nothing to measure the rates by */
	if (d->on_samples)
		sm->pause = (double)on_cost / (double)d->on_samples;
	if (off_all > budget / 2)
		k = ceil(off_all / (budget / 2));
	if (k > SAMPLER_MAX_EVERY) {
		k = SAMPLER_MAX_EVERY;
		a.over = true;
	}
	a.every = (uint32_t)k;
	room = budget - off_all / k;
	s = room > 0 ? cpu * sm->pause / room : (double)SAMPLER_MAX_PERIOD;
	if (s > (double)SAMPLER_MAX_PERIOD) {
		s = (double)SAMPLER_MAX_PERIOD;
		a.over = true;
	}
	a.period = s < (double)sm->min_period ? sm->min_period : (uint64_t)s;
	return a;
}

int sampler__adapt(struct sampler *sm, uint64_t now, bool last)
{
	struct xlp_sampling_rec rec = {.h = {XLP_R_SAMPLING, sizeof(rec), 0}};
	uint64_t period = session__sample_period(sm->sess), on_cost;
	uint32_t every = session__offcpu_every(sm->sess);
	struct xlp_sample_cost tot, d;
	struct adapt a = {.period = period, .every = every};
	int err;

	if (!sm->bound_ppm || !period)
		return 0;
	err = session__sample_cost(sm->sess, &tot);
	if (err)
		return err;
	d.cost_ns = tot.cost_ns - sm->win_cost.cost_ns;
	d.on_samples = tot.on_samples - sm->win_cost.on_samples;
	d.off_captures = tot.off_captures - sm->win_cost.off_captures;
	d.off_samples = tot.off_samples - sm->win_cost.off_samples;
	d.cpu_ns = tot.cpu_ns - sm->win_cost.cpu_ns;
	d.off_cost_ns = tot.off_cost_ns - sm->win_cost.off_cost_ns;
	d.off_deferred = tot.off_deferred - sm->win_cost.off_deferred;
	if (!d.cost_ns && !d.on_samples && !d.off_samples && !d.cpu_ns && !last)
		return 0;
	/*
	 * The off-CPU work is timed apart: a lazy capture (cfg_offcpu_lazy)
	 * walks the kernel stack alone, and the user side only for the waits
	 * that gave a sample, so it costs less than an on-CPU sample.
	 */
	on_cost = d.cost_ns > d.off_cost_ns ? d.cost_ns - d.off_cost_ns : 0;
	if (!last)
		a = next_rates(sm, period, every, &d, on_cost);
	rec.start_ns = sm->win_start;
	rec.end_ns = now;
	rec.period_ns = period;
	rec.next_period_ns = a.period;
	rec.cost_ns = d.cost_ns;
	rec.on_samples = d.on_samples;
	rec.off_captures = d.off_captures;
	rec.off_samples = d.off_samples;
	rec.cpu_ns = last ? (d.cpu_ns > d.on_samples * period ? d.cpu_ns : d.on_samples * period)
			  : (uint64_t)a.cpu;
	rec.bound_ppm = sm->bound_ppm;
	rec.off_every = every;
	rec.next_off_every = a.every;
	rec.flags = (last ? XLP_SAMPLING_LAST : 0) | (a.over ? XLP_SAMPLING_OVER : 0);
	err = sm->write(sm->ctx, &rec.h);
	if (err)
		return err;
	sm->c.cost_ns += d.cost_ns;
	sm->c.off_captures += d.off_captures;
	sm->c.off_samples += d.off_samples;
	sm->c.off_deferred += d.off_deferred;
	sm->c.cpu_ns += rec.cpu_ns;
	sm->c.over_windows += a.over;
	if (a.period > sm->c.max_period)
		sm->c.max_period = a.period;
	if (a.every > sm->c.max_every)
		sm->c.max_every = a.every;
	sm->win_cost = tot;
	sm->win_start = now;
	if (a.every != every)
		session__set_offcpu_every(sm->sess, a.every);
	if (a.period != period)
		return session__set_sample_period(sm->sess, a.period);
	return 0;
}

void sampler__counts(const struct sampler *sm, struct sampler_counts *c)
{
	*c = sm->c;
	symbolizer__jit_counts(sm->sym, &c->jit);
	jvm_maps__counts(sm->jvm, &c->jvm_maps, &c->jvm_failed);
}
