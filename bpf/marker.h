/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Trace-marker sections (record --func / --interaction marker:NAME): the
 * atrace lines an application writes to tracefs's trace_marker, as
 * Android's Trace.beginSection / ATRACE_* do, and the patterns that pick
 * them. The parser and the glob matcher are here, plain C with bounded
 * loops, so that the BPF side (bpf/marker.bpf.c) and the unit tests run
 * the same code on the same bytes.
 *
 *   B|pid|name            a section begins on the writing thread (nested)
 *   E|pid  (or E)         the thread's innermost section ends
 *   S|pid|name|cookie     an async section begins (may end on another thread)
 *   F|pid|name|cookie     the async section of that name and cookie ends
 *   C|pid|name|value      a counter's value (C|pid|name|value|category too)
 *
 * A trailing newline is dropped. Only the first XLP_MARKER_LINE bytes of a
 * write are read: a longer B, S, F or C line is skipped as too long (its
 * name or number would be cut), counted.
 */
#ifndef XLP_MARKER_H
#define XLP_MARKER_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define XLP_MARKER_LINE 128 /* bytes of a write read; a power of two */
#define XLP_MARKER_PAT 64   /* a pattern's bytes, NUL included; a power of two */
#define XLP_MARKER_SPECS 16 /* marker specs per recording */
#define XLP_MARKER_DEPTH 32 /* nested B sections tracked per thread */
/* glob steps at most: every (name, pattern) position pair, and the trailing stars */
#define XLP_MARKER_GLOB_STEPS ((XLP_MARKER_LINE + 1) * (XLP_MARKER_PAT + 1))

/* struct xlp_marker_spec.flags */
#define XLP_MARKER_F_INTERACTION (1u << 0) /* the sections are runs */
#define XLP_MARKER_F_SIZE (1u << 1)	   /* a counter: its value is the size of the runs */

/*
 * One --func / --interaction marker:PATTERN (or --size-counter), given to
 * the programs before load (rodata): pat holds len bytes, * and ? globs.
 */
struct xlp_marker_spec {
	char pat[XLP_MARKER_PAT];
	__u32 len;
	__u32 func_id; /* the function table's id; unused for a size counter */
	__u32 flags;   /* XLP_MARKER_F_* */
	__u32 __pad;
};

enum xlp_marker_kind {
	XLP_MK_BEGIN = 'B',
	XLP_MK_END = 'E',
	XLP_MK_ASYNC_BEGIN = 'S',
	XLP_MK_ASYNC_END = 'F',
	XLP_MK_COUNTER = 'C',
};

/*
 * Why a line written to trace_marker by a traced thread was skipped,
 * counted per reason (struct xlp_marker_rec). X(id, name) as for the
 * counters; the parser returns XLP_MSKIP_<id> + 1, 0 for a good line.
 */
/* clang-format off */
#define XLP_MARKER_SKIP_LIST(X)						\
	X(NO_BAR, "no_bar")	/* no '|' after the type letter: not an atrace line */ \
	X(TYPE, "type")		/* a type other than B, E, S, F, C */		\
	X(PID, "pid")		/* the pid missing or not a number */		\
	X(NAME, "name")		/* the name empty */				\
	X(LONG, "too_long")	/* longer than XLP_MARKER_LINE bytes: name cut */ \
	X(NUMBER, "number")	/* a cookie or value missing or not a number */ \
	X(E_NO_B, "end_without_begin")   /* E with no open section on its thread */ \
	X(F_NO_S, "finish_without_start") /* F with no open S of its name and cookie */ \
	X(DEPTH, "depth")	/* nested deeper than XLP_MARKER_DEPTH: not timed */ \
	X(ASYNC_FULL, "async_full") /* more async sections open than the table holds */ \
	X(UNREAD, "unreadable")	/* the written buffer could not be read */
/* clang-format on */

#define XLP_MSKIP_ENUM(id, name) XLP_MSKIP_##id,
enum xlp_marker_skip { XLP_MARKER_SKIP_LIST(XLP_MSKIP_ENUM) XLP_MARKER_NR_SKIP };
#undef XLP_MSKIP_ENUM

/* A parsed line: the name is at b[name_off], name_len bytes. */
struct xlp_marker_line {
	__u32 pid;
	__u16 name_off;
	__u16 name_len;
	__s64 num; /* S / F: the cookie; C: the value */
	__u8 kind; /* enum xlp_marker_kind */
};

#define XLP_MARKER_IDX(i) ((i) & (XLP_MARKER_LINE - 1))

/*
 * The decimal number in b[from, to): 0 and *out set, or -1 (empty, a
 * character not a digit, more than 18 digits). Signed when sign.
 */
static __always_inline int xlp_marker_num(const char *b, __u32 from, __u32 to, int sign, __s64 *out)
{
	__u64 v = 0;
	int neg = 0, nd = 0;

	if (sign && from < to && b[XLP_MARKER_IDX(from)] == '-') {
		neg = 1;
		from++;
	}
	for (int k = 0; k < 20; k++) {
		__u32 i = from + (__u32)k;
		char c;

		if (i >= to)
			break;
		c = b[XLP_MARKER_IDX(i)];
		if (c < '0' || c > '9' || nd == 18)
			return -1;
		v = v * 10 + (__u64)(c - '0');
		nd++;
	}
	if (!nd || from + (__u32)nd != to)
		return -1;
	*out = neg ? -(__s64)v : (__s64)v;
	return 0;
}

/*
 * A write of full bytes: its first len = min(full, XLP_MARKER_LINE) read.
 * Parsing goes in three steps, so that BPF can run the one loop over the
 * line's bytes under bpf_loop (a plain loop that remembers where the bars
 * are is too many states for the verifier): xlp_marker_len(), then
 * xlp_marker_scan_at() for every i from 2 to that length, then
 * xlp_marker_finish(). xlp_marker_parse() runs them in a plain loop.
 */
struct xlp_marker_scan {
	__u32 nbars;		/* '|' after the first */
	__u32 bar2, bar3, bar4; /* the second, third and fourth '|' of the line */
	__u32 last;		/* the last '|' */
};

/* The bytes of the line to parse: len read of a write of full bytes, without a trailing newline. */
static __always_inline __u32 xlp_marker_len(const char *b, __u32 len, __u64 full)
{
	if (len > XLP_MARKER_LINE)
		len = XLP_MARKER_LINE;
	if (full <= len && len && b[XLP_MARKER_IDX(len - 1)] == '\n')
		len--;
	return len;
}

static __always_inline void xlp_marker_scan_at(struct xlp_marker_scan *sc, const char *b, __u32 i)
{
	if (b[XLP_MARKER_IDX(i)] != '|')
		return;
	sc->nbars++;
	if (sc->nbars == 1)
		sc->bar2 = i;
	else if (sc->nbars == 2)
		sc->bar3 = i;
	else if (sc->nbars == 3)
		sc->bar4 = i;
	sc->last = i;
}

/*
 * The line b[0, len) (len from xlp_marker_len(), of a write of full
 * bytes) once scanned: 0 and *l, or XLP_MSKIP_* + 1.
 */
static __always_inline int xlp_marker_finish(const char *b, __u32 len, __u64 full,
					     const struct xlp_marker_scan *sc,
					     struct xlp_marker_line *l)
{
	/* the bytes read were min(full, XLP_MARKER_LINE) */
	int cut = full > XLP_MARKER_LINE;
	__s64 pid = 0;
	char kind;

	l->kind = 0;
	l->num = 0;
	l->pid = 0;
	l->name_off = 0;
	l->name_len = 0;
	if (!len)
		return XLP_MSKIP_NO_BAR + 1;
	kind = b[0];
	l->kind = (__u8)kind;
	/* Linux's and Android's older "E" alone */
	if (kind == XLP_MK_END && len == 1)
		return 0;
	if (len < 2 || b[1] != '|')
		return XLP_MSKIP_NO_BAR + 1;
	if (kind != XLP_MK_BEGIN && kind != XLP_MK_END && kind != XLP_MK_ASYNC_BEGIN &&
	    kind != XLP_MK_ASYNC_END && kind != XLP_MK_COUNTER)
		return XLP_MSKIP_TYPE + 1;
	/* E|pid[|...]: the pid is optional and not used */
	if (kind == XLP_MK_END)
		return 0;
	if (!sc->nbars || xlp_marker_num(b, 2, sc->bar2, 0, &pid) || pid > 0xffffffffll)
		return (cut && !sc->nbars) ? XLP_MSKIP_LONG + 1 : XLP_MSKIP_PID + 1;
	l->pid = (__u32)pid;
	if (cut)
		return XLP_MSKIP_LONG + 1;
	l->name_off = (__u16)(sc->bar2 + 1);
	if (kind == XLP_MK_BEGIN) {
		/* the name is the rest (newer Android may add "|args": kept in it) */
		l->name_len = (__u16)(len - sc->bar2 - 1);
		return l->name_len ? 0 : XLP_MSKIP_NAME + 1;
	}
	if (sc->nbars < 2)
		return XLP_MSKIP_NUMBER + 1;
	if (kind == XLP_MK_COUNTER) {
		/* C|pid|name|value[|category] */
		l->name_len = (__u16)(sc->bar3 - sc->bar2 - 1);
		if (!l->name_len)
			return XLP_MSKIP_NAME + 1;
		return xlp_marker_num(b, sc->bar3 + 1, sc->nbars > 2 ? sc->bar4 : len, 1, &l->num)
			       ? XLP_MSKIP_NUMBER + 1
			       : 0;
	}
	/* S|pid|name|cookie, F|pid|name|cookie: the name may hold bars */
	l->name_len = (__u16)(sc->last - sc->bar2 - 1);
	if (!l->name_len)
		return XLP_MSKIP_NAME + 1;
	return xlp_marker_num(b, sc->last + 1, len, 1, &l->num) ? XLP_MSKIP_NUMBER + 1 : 0;
}

/* The three steps in a plain loop (user space, tests). */
static inline int xlp_marker_parse(const char *b, __u32 len, __u64 full, struct xlp_marker_line *l)
{
	struct xlp_marker_scan sc = {0};

	len = xlp_marker_len(b, len, full);
	for (__u32 i = 2; i < len; i++)
		xlp_marker_scan_at(&sc, b, i);
	return xlp_marker_finish(b, len, full, &sc, l);
}

/*
 * Glob matching (* and ?) of the name s[off, off + slen) against the
 * pattern p[0, plen), one step per call so that BPF can run it under
 * bpf_loop: the classic backtracking to the last star, linear in practice
 * and at most XLP_MARKER_GLOB_STEPS steps.
 */
struct xlp_glob {
	__u32 p, s;
	__u32 star; /* 1 + the pattern position after the last star; 0: none */
	__u32 mark; /* the name position that star last took up to */
	__u32 plen, slen, off;
	__s32 result; /* 1 match, -1 no match, 0 not yet */
};

/* 0: go on; else g->result */
static __always_inline int xlp_glob_step(struct xlp_glob *g, const char *p, const char *s)
{
	char pc = g->p < g->plen ? p[g->p & (XLP_MARKER_PAT - 1)] : 0;

	if (g->s < g->slen) {
		char sc = s[XLP_MARKER_IDX(g->off + g->s)];

		if (g->p < g->plen && pc == '*') {
			g->p++;
			g->star = g->p + 1;
			g->mark = g->s;
			return 0;
		}
		if (g->p < g->plen && (pc == '?' || pc == sc)) {
			g->p++;
			g->s++;
			return 0;
		}
		if (g->star) {
			g->p = g->star - 1;
			g->s = ++g->mark;
			return 0;
		}
		return g->result = -1;
	}
	if (g->p < g->plen && pc == '*') {
		g->p++;
		return 0;
	}
	return g->result = g->p == g->plen ? 1 : -1;
}

#endif /* XLP_MARKER_H */
