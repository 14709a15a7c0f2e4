/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * export --perfetto's ftrace events (user/export/perfetto_ftrace.h).
 *
 * The plain encoding (one FtraceEvent message per event), not the
 * compact_sched one: ~70 bytes an event, ~16 gzipped (docs/elsewhere.md
 * has the measurement), against ~10 for the compact one before gzip; but
 * the compact one drops each switch's previous task, which Perfetto then
 * takes from the CPU's switch before, and the plain one keeps it: the
 * tests check each CPU's chain with it, and a kernel that does not
 * report a switch shows as a break instead of a wrong thread. Every byte comes
 * from the trace file: comms are cleaned to UTF-8, events of an unknown
 * kind are counted and skipped, and the order is rebuilt (per CPU, by
 * time, ties in file order) whatever order the file had.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include "perfetto_ftrace.h"
#include "perfetto_proto.h"
#include "util.h"

/* XLP_SCHED_FREQ, kept as a cpusched record of this kind (a.tid: the CPU, arg: kHz) */
#define FT_FREQ 0x100
/* Events per bundle: a few pages' worth, as Perfetto's own reader writes them. */
#define FT_BUNDLE 512

struct ft_ev {
	struct xlp_cpusched_rec r;
	uint64_t seq; /* file order: ties keep it */
};

struct ft_task {
	uint32_t tid, pid;
	uint64_t ts, seq; /* the last event that named it: its latest comm */
	char comm[XLP_COMM_LEN];
};

struct perfetto_ftrace {
	struct ft_ev *evs;
	size_t nevs, cap;
	size_t nswitches;
	uint64_t malformed;
};

struct perfetto_ftrace *perfetto_ftrace__new(void)
{
	return calloc(1, sizeof(struct perfetto_ftrace));
}

void perfetto_ftrace__free(struct perfetto_ftrace *ft)
{
	if (!ft)
		return;
	free(ft->evs);
	free(ft);
}

size_t perfetto_ftrace__count(const struct perfetto_ftrace *ft)
{
	return ft->nevs;
}

size_t perfetto_ftrace__switches(const struct perfetto_ftrace *ft)
{
	return ft->nswitches;
}

uint64_t perfetto_ftrace__malformed(const struct perfetto_ftrace *ft)
{
	return ft->malformed;
}

int perfetto_ftrace__add(struct perfetto_ftrace *ft, const struct xlp_hdr *h)
{
	struct ft_ev *e;
	int err;

	if (h->type == XLP_R_CPUSCHED && h->size >= sizeof(struct xlp_cpusched_rec)) {
		const struct xlp_cpusched_rec *c = (const void *)h;

		if (c->kind < XLP_CPUS_SWITCH || c->kind > XLP_CPUS_NEWTASK) {
			ft->malformed++;
			return 0;
		}
	} else if (h->type != XLP_R_SCHED || h->size < sizeof(struct xlp_sched_rec) ||
		   ((const struct xlp_sched_rec *)h)->kind != XLP_SCHED_FREQ) {
		return 0;
	}
	err = xlp_grow((void **)&ft->evs, &ft->cap, ft->nevs + 1, sizeof(*ft->evs));
	if (err)
		return err;
	e = &ft->evs[ft->nevs];
	memset(e, 0, sizeof(*e));
	e->seq = ft->nevs++;
	if (h->type == XLP_R_CPUSCHED) {
		memcpy(&e->r, h, sizeof(e->r));
		ft->nswitches += e->r.kind == XLP_CPUS_SWITCH;
	} else {
		const struct xlp_sched_rec *s = (const void *)h;

		e->r.h = s->h;
		e->r.time_ns = s->time_ns;
		e->r.kind = FT_FREQ;
		e->r.arg = s->arg;
		e->r.a.tid = s->pid; /* the CPU whose frequency it is */
	}
	return 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ft_ev *x = a, *y = b;

	if (x->r.h.cpu != y->r.h.cpu)
		return x->r.h.cpu < y->r.h.cpu ? -1 : 1;
	if (x->r.time_ns != y->r.time_ns)
		return x->r.time_ns < y->r.time_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void put_comm(struct pbw *w, uint32_t field, const char *comm)
{
	char buf[3 * XLP_COMM_LEN + 1];

	xlp_clean_utf8(buf, sizeof(buf), comm, strnlen(comm, XLP_COMM_LEN));
	pbw__str(w, field, buf);
}

static void put_event(struct pbw *w, const struct xlp_cpusched_rec *r)
{
	size_t fe = pbw__begin(w, F_FB_EVENT), m;

	pbw__varint(w, F_FE_TIMESTAMP, r->time_ns);
	/* the task on the CPU as the event fired (none for a frequency) */
	pbw__varint(w, F_FE_PID, r->kind == FT_FREQ ? 0 : r->a.tid);
	switch (r->kind) {
	case XLP_CPUS_SWITCH:
		m = pbw__begin(w, F_FE_SCHED_SWITCH);
		put_comm(w, F_SW_PREV_COMM, r->a.comm);
		pbw__sint(w, F_SW_PREV_PID, (int32_t)r->a.tid);
		pbw__sint(w, F_SW_PREV_PRIO, r->a.prio);
		pbw__sint(w, F_SW_PREV_STATE, r->arg);
		put_comm(w, F_SW_NEXT_COMM, r->b.comm);
		pbw__sint(w, F_SW_NEXT_PID, (int32_t)r->b.tid);
		pbw__sint(w, F_SW_NEXT_PRIO, r->b.prio);
		break;
	case XLP_CPUS_WAKING:
		m = pbw__begin(w, F_FE_SCHED_WAKING);
		put_comm(w, F_WK_COMM, r->b.comm);
		pbw__sint(w, F_WK_PID, (int32_t)r->b.tid);
		pbw__sint(w, F_WK_PRIO, r->b.prio);
		pbw__sint(w, F_WK_SUCCESS, 1);
		pbw__sint(w, F_WK_TARGET_CPU, (int32_t)r->arg);
		break;
	case XLP_CPUS_NEWTASK:
		m = pbw__begin(w, F_FE_TASK_NEWTASK);
		pbw__sint(w, F_NT_PID, (int32_t)r->b.tid);
		put_comm(w, F_NT_COMM, r->b.comm);
		pbw__varint(w, F_NT_CLONE_FLAGS, r->arg);
		break;
	default: /* FT_FREQ */
		m = pbw__begin(w, F_FE_CPU_FREQUENCY);
		pbw__varint(w, F_CF_STATE, r->arg);
		pbw__varint(w, F_CF_CPU_ID, r->a.tid);
		break;
	}
	pbw__end(w, m);
	pbw__end(w, fe);
}

static int write_bundles(struct perfetto_ftrace *ft, struct pbw *w, FILE *f)
{
	int err = 0;

	for (size_t i = 0; i < ft->nevs && !err;) {
		uint32_t cpu = ft->evs[i].r.h.cpu;
		size_t pkt, b, n = 0;

		pf_pkt_begin(w, &pkt, 0, SEQ_SYSTEM, false);
		b = pbw__begin(w, F_PKT_FTRACE);
		pbw__varint(w, F_FB_CPU, cpu);
		for (; i < ft->nevs && ft->evs[i].r.h.cpu == cpu && n < FT_BUNDLE; i++, n++)
			put_event(w, &ft->evs[i].r);
		pbw__end(w, b);
		err = pf_pkt_end(w, pkt, f);
	}
	return err;
}

static int cmp_task(const void *a, const void *b)
{
	const struct ft_task *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Every task the events name (but the idle tasks, tid 0), once, with its latest comm. */
static struct ft_task *tasks_of(const struct perfetto_ftrace *ft, size_t *n)
{
	struct ft_task *t = calloc(2 * ft->nevs + 1, sizeof(*t));
	size_t k = 0, u = 0;

	if (!t)
		return NULL;
	for (size_t i = 0; i < ft->nevs; i++) {
		const struct xlp_cpusched_rec *r = &ft->evs[i].r;

		if (r->kind == FT_FREQ)
			continue;
		for (int j = 0; j < 2; j++) {
			const struct xlp_cpusched_task *s = j ? &r->b : &r->a;

			if (!s->tid)
				continue;
			t[k] = (struct ft_task){s->tid, s->pid, r->time_ns, ft->evs[i].seq, {0}};
			memcpy(t[k++].comm, s->comm, XLP_COMM_LEN);
		}
	}
	xlp_sort(t, k, sizeof(*t), cmp_task);
	for (size_t i = 0; i < k; i++) {
		if (u && t[u - 1].tid == t[i].tid)
			u--; /* a later event: its comm and tgid win */
		t[u++] = t[i];
	}
	*n = u;
	return t;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The task tid in t (sorted by tid), or NULL. */
static const struct ft_task *task_find(const struct ft_task *t, size_t n, uint32_t tid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid].tid == tid)
			return &t[mid];
		if (t[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The process tree: every thread with its process (tgid), and each
 * process named by its main thread's comm where an event named that one.
 * trace_processor needs it to put the threads the events name into
 * their processes.
 */
static int write_tree(const struct perfetto_ftrace *ft, struct pbw *w, FILE *f)
{
	size_t n = 0, np = 0, pkt, pt, m;
	struct ft_task *t = tasks_of(ft, &n);
	uint32_t *pids = t ? calloc(n + 1, sizeof(*pids)) : NULL;
	uint64_t first = ft->evs[0].r.time_ns;
	int err;

	if (!pids) {
		free(t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		pids[i] = t[i].pid;
	xlp_sort(pids, n, sizeof(*pids), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (!np || pids[np - 1] != pids[i])
			pids[np++] = pids[i];
	for (size_t i = 0; i < ft->nevs; i++)
		first = ft->evs[i].r.time_ns < first ? ft->evs[i].r.time_ns : first;
	pf_pkt_begin(w, &pkt, first, SEQ_SYSTEM, false);
	pt = pbw__begin(w, F_PKT_PROCESS_TREE);
	for (size_t i = 0; i < np; i++) {
		const struct ft_task *main = task_find(t, n, pids[i]);

		m = pbw__begin(w, F_PT_PROCESS);
		pbw__sint(w, F_PTP_PID, (int32_t)pids[i]);
		if (main) {
			put_comm(w, F_PTP_CMDLINE, main->comm);
			pbw__varint(w, F_PTP_CMDLINE_IS_COMM, 1);
		}
		pbw__end(w, m);
	}
	for (size_t i = 0; i < n; i++) {
		m = pbw__begin(w, F_PT_THREAD);
		pbw__sint(w, F_PTT_TID, (int32_t)t[i].tid);
		put_comm(w, F_PTT_NAME, t[i].comm);
		pbw__sint(w, F_PTT_TGID, (int32_t)t[i].pid);
		pbw__end(w, m);
	}
	pbw__end(w, pt);
	free(pids);
	free(t);
	err = pf_pkt_end(w, pkt, f);
	return err;
}

/*
 * The kernel release tells trace_processor how to read prev_state: the
 * TASK_REPORT encoding bpf/cpusched.bpf.c writes is that of 4.14 on, and
 * without a release it assumes 4.4's.
 */
static int write_system(const char *kernel, uint32_t ncpus, struct pbw *w, FILE *f)
{
	size_t pkt, si, u;

	pf_pkt_begin(w, &pkt, 0, SEQ_SYSTEM, false);
	si = pbw__begin(w, F_PKT_SYSTEM_INFO);
	u = pbw__begin(w, F_SI_UTSNAME);
	pbw__str(w, F_UTS_SYSNAME, "Linux");
	if (kernel && *kernel) {
		char buf[256];

		xlp_clean_utf8(buf, sizeof(buf), kernel, strnlen(kernel, 80));
		pbw__str(w, F_UTS_RELEASE, buf);
	}
	pbw__end(w, u);
	if (ncpus)
		pbw__varint(w, F_SI_NUM_CPUS, ncpus);
	pbw__end(w, si);
	return pf_pkt_end(w, pkt, f);
}

int perfetto_ftrace__write(struct perfetto_ftrace *ft, const char *kernel, uint32_t ncpus,
			   struct pbw *w, FILE *f)
{
	int err;

	if (!ft->nevs)
		return 0;
	xlp_sort(ft->evs, ft->nevs, sizeof(*ft->evs), cmp_ev);
	err = write_system(kernel, ncpus, w, f);
	if (!err)
		err = write_tree(ft, w, f);
	if (!err)
		err = write_bundles(ft, w, f);
	return err;
}
