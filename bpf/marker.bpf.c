/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Trace-marker sections as marked calls (record --func / --interaction
 * marker:NAME): the atrace lines a traced thread writes to tracefs's
 * trace_marker (bpf/marker.h), seen at the write's syscall tracepoints
 * (no kprobe, no fentry: neither exists on every kernel we run on). The
 * write need not succeed: an app writes its sections whether or not the
 * kernel's tracing is on.
 *
 * A B line a spec matches is a marked call's entry, its E the return:
 * call_enter() and call_return() of bpf/calls.bpf.c, the same accounting
 * as a uprobe's, so a section has the per-run resources, call records and
 * runs of a marked function. The thread's open sections are kept on a
 * stack of their own (a B no spec matched too: its E must pop it, not the
 * section around it). An async section (S to F, by name and cookie) may
 * end on another thread: its record holds its process's counters over it
 * (XLP_CALL_ASYNC). A counter (C) given as --size-counter labels each run
 * its process starts afterwards with its last value (XLP_TASKEV_SIZE).
 * Lines that do not parse, an E with nothing open, an F without its S:
 * skipped, counted by reason (marker_counts, the trace's xlp_marker_rec).
 */
#define XLP_CALLS_CORE_ONLY
#include "calls.bpf.c"
#include "marker.h"

#define TRACEFS_MAGIC 0x74726163
#define MARKER_LINES 0	  /* marker_counts: lines written by traced threads */
#define MARKER_SECTIONS 1 /* B and S lines a spec matched */
#define MARKER_SKIP0 2	  /* then one per enum xlp_marker_skip */

/*
 * record's marker specs (struct xlp_marker_spec, user/record/marker_spec.c),
 * set before load, field by field: a named struct in a global would make
 * the skeleton need its definition wherever it is included.
 */
const volatile char cfg_marker_pat[XLP_MARKER_SPECS][XLP_MARKER_PAT] = {};
const volatile __u32 cfg_marker_len[XLP_MARKER_SPECS] = {};
const volatile __u32 cfg_marker_func[XLP_MARKER_SPECS] = {};
const volatile __u32 cfg_marker_flags[XLP_MARKER_SPECS] = {};
const volatile __u32 cfg_marker_nspecs = 0;

/* twice the bytes read: the length's mask below keeps the copy inside */
struct marker_buf {
	char b[2 * XLP_MARKER_LINE];
};

/* the line being parsed: too large for the stack beside the accounting */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct marker_buf);
} marker_buf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MARKER_SKIP0 + XLP_MARKER_NR_SKIP);
	__type(key, __u32);
	__type(value, __u64);
} marker_counts SEC(".maps");

/* a thread's open B sections, innermost last: spec index + 1, 0 for none */
struct marker_stack {
	__u32 depth; /* may exceed XLP_MARKER_DEPTH: those are not timed */
	__u8 spec[XLP_MARKER_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct marker_stack);
} marker_stacks SEC(".maps");

struct marker_akey {
	__u32 pid;
	__u32 spec;
	__s64 cookie;
};

struct marker_async {
	__u64 ts;
	__u32 tid;
	__u32 __pad;
	__u64 proc[XLP_NR_CTR]; /* its process's counters at S */
};

/* the open async sections */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct marker_akey);
	__type(value, struct marker_async);
} marker_async SEC(".maps");

/* --size-counter: the counter's last value, per process */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __s64);
} marker_size SEC(".maps");

/* an async section's call record */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xlp_call_rec);
} marker_rec SEC(".maps");

static __always_inline void marker_count(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&marker_counts, &idx);

	if (v)
		*v += 1;
}

/* fd of the current task is a trace_marker file of tracefs (any mount, any instance) */
static __always_inline bool is_trace_marker(int fd)
{
	static const char want[] = "trace_marker";
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = task->files->fdt;
	const unsigned char *dn;
	struct file *f = NULL;
	char name[sizeof(want)];

	if (!fdt || fd < 0 || (unsigned int)fd >= fdt->max_fds)
		return false;
	bpf_probe_read_kernel(&f, sizeof(f), fdt->fd + fd);
	if (!f || BPF_CORE_READ(f, f_inode, i_sb, s_magic) != TRACEFS_MAGIC)
		return false;
	dn = BPF_CORE_READ(f, f_path.dentry, d_name.name);
	if (bpf_probe_read_kernel_str(name, sizeof(name), dn) != sizeof(want))
		return false;
	for (int i = 0; i < (int)sizeof(want); i++)
		if (name[i] != want[i])
			return false;
	return true;
}

struct marker_scan {
	struct xlp_marker_scan sc;
	const char *b;
};

static long scan_cb(__u32 i, void *ctx)
{
	struct marker_scan *m = ctx;

	xlp_marker_scan_at(&m->sc, m->b, i + 2);
	return 0;
}

struct marker_match {
	struct xlp_glob g;
	const char *s;
	__u32 spec;
};

static long glob_cb(__u32 i, void *ctx)
{
	struct marker_match *m = ctx;

	return xlp_glob_step(&m->g, (const char *)cfg_marker_pat[m->spec & (XLP_MARKER_SPECS - 1)],
			     m->s) != 0;
}

/* The first spec (a counter's when size) matching the line's name, or -1. */
static __always_inline int marker_match(const char *b, const struct xlp_marker_line *l, bool size)
{
	struct marker_match m;

	for (__u32 i = 0; i < XLP_MARKER_SPECS; i++) {
		if (i >= cfg_marker_nspecs)
			break;
		if (!(cfg_marker_flags[i] & XLP_MARKER_F_SIZE) != !size)
			continue;
		m.g = (struct xlp_glob){.plen = cfg_marker_len[i] & (XLP_MARKER_PAT - 1),
					.slen = l->name_len,
					.off = l->name_off};
		m.s = b;
		m.spec = i;
		bpf_loop(XLP_MARKER_GLOB_STEPS, glob_cb, &m, 0);
		if (m.g.result == 1)
			return (int)i;
	}
	return -1;
}

static __always_inline __u64 marker_cookie(int spec)
{
	__u32 i = (__u32)spec & (XLP_MARKER_SPECS - 1);

	return XLP_COOKIE(cfg_marker_func[i], (cfg_marker_flags[i] & XLP_MARKER_F_INTERACTION)
						      ? XLP_CALL_INTERACTION
						      : 0);
}

static __always_inline void marker_begin(struct xlp_thread *t, struct marker_stack *st, int spec,
					 __u64 now)
{
	__u32 d = st->depth;
	bool idle = !t->calls.run_depth;
	__u64 cookie;
	__s64 *size;

	st->depth = d + 1;
	if (d >= XLP_MARKER_DEPTH) {
		marker_count(MARKER_SKIP0 + XLP_MSKIP_DEPTH);
		return;
	}
	st->spec[d & (XLP_MARKER_DEPTH - 1)] = (__u8)(spec + 1);
	if (spec < 0)
		return;
	marker_count(MARKER_SECTIONS);
	cookie = marker_cookie(spec);
	call_enter(cookie, 0, 0);
	/* a run began: its size is the --size-counter's value now */
	if (idle && t->calls.run_depth) {
		__u32 pid = t->pid;

		size = bpf_map_lookup_elem(&marker_size, &pid);
		if (size && *size > 0)
			taskev_emit(t, XLP_TASKEV_SIZE, 0, (__u64)*size, (__u32)cookie, now);
	}
}

static __always_inline void marker_end(struct xlp_thread *t, __u64 now)
{
	struct marker_stack *st =
		bpf_task_storage_get(&marker_stacks, bpf_get_current_task_btf(), 0, 0);
	__u32 d;
	__u8 spec;

	if (!st || !st->depth) {
		marker_count(MARKER_SKIP0 + XLP_MSKIP_E_NO_B);
		return;
	}
	d = --st->depth;
	if (d >= XLP_MARKER_DEPTH)
		return;
	spec = st->spec[d & (XLP_MARKER_DEPTH - 1)];
	if (spec)
		call_return((__u32)marker_cookie(spec - 1));
}

static __always_inline void async_begin(struct xlp_thread *t, const struct xlp_marker_line *l,
					int spec, __u64 now)
{
	struct marker_akey k = {.pid = t->pid, .spec = (__u32)spec, .cookie = l->num};
	struct xlp_proc *p = proc_get(t);
	struct marker_async v = {.ts = now, .tid = t->tid};

	if (!p)
		return;
	thread_sync(t, now);
	proc_now(p, t, now, v.proc);
	if (bpf_map_update_elem(&marker_async, &k, &v, BPF_ANY)) {
		marker_count(MARKER_SKIP0 + XLP_MSKIP_ASYNC_FULL);
		return;
	}
	marker_count(MARKER_SECTIONS);
}

static __always_inline void async_end(struct xlp_thread *t, const struct xlp_marker_line *l,
				      int spec, __u64 now)
{
	struct marker_akey k = {.pid = t->pid, .spec = (__u32)spec, .cookie = l->num};
	struct marker_async *v = bpf_map_lookup_elem(&marker_async, &k);
	struct xlp_proc *p = proc_get(t);
	__u64 cookie = marker_cookie(spec);
	struct xlp_call_rec *rec;
	__u32 z = 0;

	if (!v) {
		marker_count(MARKER_SKIP0 + XLP_MSKIP_F_NO_S);
		return;
	}
	rec = bpf_map_lookup_elem(&marker_rec, &z);
	if (!rec || !p || t->stopped)
		goto out;
	thread_sync(t, now);
	proc_now(p, t, now, rec->incl);
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++) {
		rec->incl[i] -= v->proc[i];
		rec->excl[i] = rec->incl[i];
	}
	rec->h.type = XLP_R_CALL;
	rec->h.size = sizeof(*rec);
	rec->h.cpu = bpf_get_smp_processor_id();
	rec->func_id = (__u32)cookie;
	rec->pid = t->pid;
	rec->tid = v->tid;
	rec->depth = 0;
	rec->flags = XLP_CALL_ASYNC | ((cookie >> 32) & XLP_CALL_INTERACTION);
	rec->entry_ns = v->ts;
	rec->ipc_peer_pid = 0;
	rec->__pad = 0;
	__builtin_memset(rec->ipc_peer_comm, 0, sizeof(rec->ipc_peer_comm));
	stat_inc(XLP_S_CALLS);
	/* after the thread's batched records, as a uprobe's call would be */
	batch_flush(t);
	emit(rec, sizeof(*rec));
	if (rec->flags & XLP_CALL_INTERACTION) {
		/* its run's process-wide counters: the same ones */
		struct xlp_run_rec *run = bpf_map_lookup_elem(&run_scratch, &z);

		if (run) {
			run->h.type = XLP_R_RUN;
			run->h.size = sizeof(*run);
			run->h.cpu = rec->h.cpu;
			run->func_id = rec->func_id;
			run->pid = rec->pid;
			run->tid = rec->tid;
			run->__pad = 0;
			run->entry_ns = rec->entry_ns;
#pragma unroll
			for (int i = 0; i < XLP_NR_CTR; i++)
				run->proc[i] = rec->incl[i];
			emit(run, sizeof(*run));
		}
	}
out:
	bpf_map_delete_elem(&marker_async, &k);
}

static __always_inline int marker_write(int fd, const char *ubuf, __u64 count)
{
	struct xlp_thread *t = thread_get_current();
	struct marker_stack *st;
	struct xlp_marker_line l;
	struct marker_scan sc;
	struct marker_buf *mb;
	__u32 z = 0, len;
	__u64 now;
	int err, spec;

	if (!t || !count || !is_trace_marker(fd))
		return 0;
	now = bpf_ktime_get_ns();
	mb = bpf_map_lookup_elem(&marker_buf, &z);
	if (!mb)
		return 0;
	marker_count(MARKER_LINES);
	len = count < XLP_MARKER_LINE ? (__u32)count : XLP_MARKER_LINE;
	/* a bound the verifier sees on the register the copy takes (clang
	 * may test another copy of it, and drop a mask it can prove idle) */
	barrier_var(len);
	len &= 2 * XLP_MARKER_LINE - 1;
	if (bpf_probe_read_user(mb->b, len, ubuf)) {
		marker_count(MARKER_SKIP0 + XLP_MSKIP_UNREAD);
		return 0;
	}
	len = xlp_marker_len(mb->b, len, count);
	sc.sc = (struct xlp_marker_scan){};
	sc.b = mb->b;
	if (len > 2)
		bpf_loop(len - 2, scan_cb, &sc, 0);
	err = xlp_marker_finish(mb->b, len, count, &sc.sc, &l);
	if (err) {
		marker_count(MARKER_SKIP0 + ((__u32)(err - 1) & 15));
		/* a section begins all the same: its E will pop it, not the one around it */
		if (mb->b[0] != XLP_MK_BEGIN || err - 1 == XLP_MSKIP_NO_BAR)
			return 0;
		l.kind = XLP_MK_BEGIN;
		spec = -1;
	} else if (l.kind == XLP_MK_END) {
		marker_end(t, now);
		return 0;
	} else {
		spec = marker_match(mb->b, &l, l.kind == XLP_MK_COUNTER);
	}
	switch (l.kind) {
	case XLP_MK_BEGIN:
		st = bpf_task_storage_get(&marker_stacks, bpf_get_current_task_btf(), 0,
					  BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (st)
			marker_begin(t, st, spec, now);
		break;
	case XLP_MK_ASYNC_BEGIN:
		if (spec >= 0)
			async_begin(t, &l, spec, now);
		break;
	case XLP_MK_ASYNC_END:
		if (spec >= 0)
			async_end(t, &l, spec, now);
		break;
	case XLP_MK_COUNTER:
		if (spec >= 0) {
			__u32 pid = t->pid;

			bpf_map_update_elem(&marker_size, &pid, &l.num, BPF_ANY);
		}
		break;
	}
	return 0;
}

SEC("tp/syscalls/sys_enter_write")
int xlp_marker_write(struct trace_event_raw_sys_enter *ctx)
{
	return marker_write((int)ctx->args[0], (const char *)ctx->args[1], ctx->args[2]);
}

/* pwrite64(fd, buf, count, pos): trace_marker ignores the position */
SEC("tp/syscalls/sys_enter_pwrite64")
int xlp_marker_pwrite(struct trace_event_raw_sys_enter *ctx)
{
	return marker_write((int)ctx->args[0], (const char *)ctx->args[1], ctx->args[2]);
}
