/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * USDT probes as marked calls (record --func / --interaction usdt:...).
 * A probe is a point in the code, a call has an entry and a return: a
 * begin probe (query__start, function__entry) is the call's entry and its
 * end probe (query__done, function__return) the return, on the same
 * thread's stack of pending calls that bpf/calls.bpf.c keeps for uprobes,
 * so nesting, exclusive times and runs work unchanged. A lone probe is a
 * call of no length (a point: its count, its key for --until).
 *
 * libbpf attaches them (bpf_program__attach_usdt(): .note.stapsdt, the
 * semaphores through the kernel's uprobe reference counter) and decodes the
 * arguments (bpf_usdt_arg()); the cookie of usdt.bpf.h is ours,
 * XLP_COOKIE().
 */
#include "xlprobe.bpf.h"
#include <bpf/usdt.bpf.h>

/* bpf/calls.bpf.c: the call accounting shared with the uprobes */
extern int xlp_call_enter(__u64 cookie, __u64 key, __u64 size) __hidden;
extern int xlp_call_return(__u32 cookie) __hidden;

/* struct xlp_usdt_filter per function id; only read with XLP_COOKIE_USDT_FILTER */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XLP_MAX_FUNCS);
	__type(key, __u32);
	__type(value, struct xlp_usdt_filter);
} usdt_filters SEC(".maps");

/* An argument of the probe, 0 when it has none of that index (checked at attach). */
static __always_inline __u64 usdt_arg(struct pt_regs *ctx, __u32 n)
{
	long v = 0;

	if (bpf_usdt_arg(ctx, n, &v))
		return 0;
	return (__u64)v;
}

/*
 * Whether the probe's string argument is the filter's: read up to
 * XLP_USDT_STR_MAX bytes from the target and compare them with the NUL.
 * A string the target cannot give (a fault) selects nothing.
 */
static __always_inline bool usdt_selected(struct pt_regs *ctx, __u64 cookie)
{
	__u32 id = (__u32)cookie;
	struct xlp_usdt_filter *f;
	char buf[XLP_USDT_STR_MAX];
	long p, n;

	if (!((cookie >> 32) & XLP_COOKIE_USDT_FILTER))
		return true;
	f = bpf_map_lookup_elem(&usdt_filters, &id);
	if (!f || bpf_usdt_arg(ctx, f->arg, &p))
		return false;
	n = bpf_probe_read_user_str(buf, sizeof(buf), (const void *)p);
	if (n <= 0 || (__u32)n != f->len + 1)
		return false;
	for (int i = 0; i < XLP_USDT_STR_MAX; i++) {
		if (buf[i] != f->s[i])
			return false;
		if (!buf[i])
			break;
	}
	return true;
}

static __always_inline int usdt_enter(struct pt_regs *ctx, __u64 cookie)
{
	__u32 fl = cookie >> 32;

	return xlp_call_enter(
		cookie, (fl & XLP_COOKIE_KEYED) ? usdt_arg(ctx, XLP_COOKIE_TASK_ARG_OF(fl)) : 0,
		(fl & XLP_COOKIE_SIZE) ? usdt_arg(ctx, XLP_COOKIE_SIZE_ARG_OF(fl)) : 0);
}

SEC("usdt")
int xlp_usdt_begin(struct pt_regs *ctx)
{
	__u64 cookie = bpf_usdt_cookie(ctx);

	if (!usdt_selected(ctx, cookie))
		return 0;
	return usdt_enter(ctx, cookie);
}

SEC("usdt")
int xlp_usdt_end(struct pt_regs *ctx)
{
	__u64 cookie = bpf_usdt_cookie(ctx);

	if (!usdt_selected(ctx, cookie))
		return 0;
	return xlp_call_return((__u32)cookie);
}

SEC("usdt")
int xlp_usdt_point(struct pt_regs *ctx)
{
	__u64 cookie = bpf_usdt_cookie(ctx);

	if (!usdt_selected(ctx, cookie))
		return 0;
	usdt_enter(ctx, cookie);
	return xlp_call_return((__u32)cookie);
}
