/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Who held the CPU while the runs' threads waited for it: the clause and its JSON. */
#include <stdio.h>
#include <string.h>
#include "report.h"
#include "report_model.h"

/* A share below this is not named in the clause (JSON has every thief). */
#define THIEF_MIN_SHARE 0.05

const char *report__thief(const struct diagnosis_thief *t, char *buf, size_t len)
{
	/* raw: every writer escapes the whole sentence (xlp_fputs_text, html_esc, JSON) */
	char comm[XLP_COMM_LEN + 1] = "";

	memcpy(comm, t->comm, sizeof(t->comm));
	if (!comm[0])
		snprintf(buf, len, "an exited task (pid %u)", t->pid);
	else if (t->own_process)
		snprintf(buf, len, "its own thread %s (tid %u)", comm, t->tid);
	else if (t->kernel_thread)
		snprintf(buf, len, "%s (a kernel thread)", comm);
	else if (t->child)
		snprintf(buf, len, "%s (pid %u, a child of the server)", comm, t->pid);
	else
		snprintf(buf, len, "%s (pid %u)", comm, t->pid);
	return buf;
}

static void add(char *buf, size_t len, size_t *n, const char *who, double share)
{
	int k;

	if (*n >= len)
		return;
	k = snprintf(buf + *n, len - *n, "%s%s %.0f %%", *n ? ", " : "the CPU was taken by ", who,
		     100 * share);
	*n += k > 0 ? (size_t)k : 0;
}

const char *report__thieves(const struct diagnosis_thieves *t, char *buf, size_t len)
{
	char who[128];
	size_t n = 0;

	buf[0] = 0;
	if (!t->known || !(t->wait_ns > 0))
		return buf;
	for (size_t i = 0; i < t->n && i < 3; i++)
		if (t->t[i].share >= THIEF_MIN_SHARE)
			add(buf, len, &n, report__thief(&t->t[i], who, sizeof(who)), t->t[i].share);
	if (t->steal_ns / t->wait_ns >= THIEF_MIN_SHARE)
		add(buf, len, &n, "the hypervisor (steal)", t->steal_ns / t->wait_ns);
	if (t->irq_ns / t->wait_ns >= THIEF_MIN_SHARE)
		add(buf, len, &n, "interrupts", t->irq_ns / t->wait_ns);
	return buf;
}

/* A thief of the wait chains (struct dataset_thief) as the answers' (struct diagnosis_thief). */
static struct diagnosis_thief of_ds(const struct dataset_thief *x, double known_ns)
{
	struct diagnosis_thief t = {.pid = x->pid,
				    .tid = x->tid,
				    .own_process = x->own_process,
				    .child = x->child,
				    .kernel_thread = x->flags & XLP_THIEF_KTHREAD,
				    .ns = x->ns,
				    .share = known_ns > 0 ? x->ns / known_ns : 0};

	memcpy(t.comm, x->comm, sizeof(t.comm));
	return t;
}

const char *report__blocker_thieves(const struct waitchain_blocker *b, char *buf, size_t len)
{
	char who[128];
	size_t n = 0;

	buf[0] = 0;
	if (b->state != WAITCHAIN_CPU_WAIT || !(b->thief_known_ns > 0))
		return buf;
	for (uint32_t i = 0; i < b->nthieves; i++) {
		struct diagnosis_thief t = of_ds(&b->thieves[i], b->thief_known_ns);

		if (t.share >= THIEF_MIN_SHARE)
			add(buf, len, &n, report__thief(&t, who, sizeof(who)), t.share);
	}
	return buf;
}

/* One thief's object, its time divided by per (1: as it is) */
static void thief_obj(struct report_model *m, const struct diagnosis_thief *x, double per)
{
	report_model__begin_obj(m, NULL);
	report_model__uint(m, "tid", x->tid);
	report_model__uint(m, "pid", x->pid);
	report_model__strn(m, "comm", x->comm, strnlen(x->comm, sizeof(x->comm)));
	report_model__round(m, "ns", x->ns / per);
	report_model__num(m, "share", x->share);
	report_model__bool(m, "own_process", x->own_process);
	report_model__bool(m, "child", x->child);
	report_model__bool(m, "kernel_thread", x->kernel_thread);
	report_model__end_obj(m);
}

void report_model__blocker_thieves(struct report_model *m, const struct waitchain_blocker *b,
				   double per)
{
	if (b->state != WAITCHAIN_CPU_WAIT || !(b->thief_known_ns > 0)) {
		report_model__null(m, "cpu_thieves");
		return;
	}
	report_model__begin_obj(m, "cpu_thieves");
	report_model__round(m, "known_ns", b->thief_known_ns / per);
	report_model__begin_arr(m, "thieves");
	for (uint32_t i = 0; i < b->nthieves; i++) {
		struct diagnosis_thief x = of_ds(&b->thieves[i], b->thief_known_ns);

		thief_obj(m, &x, per);
	}
	report_model__end_arr(m);
	report_model__end_obj(m);
}

static const struct jsonw_field thieves_f[] = {
	JSONW_F(struct diagnosis_thieves, waits, "waits"),
	JSONW_F_ROUND(struct diagnosis_thieves, wait_ns, "wait_ns"),
	JSONW_F_ROUND(struct diagnosis_thieves, idle_ns, "idle_ns"),
	JSONW_F_ROUND(struct diagnosis_thieves, irq_ns, "irq_ns"),
	JSONW_F_ROUND(struct diagnosis_thieves, steal_ns, "steal_ns"),
	JSONW_F_ROUND(struct diagnosis_thieves, unknown_ns, "unknown_ns"),
};

void report_model__thieves(struct report_model *m, const char *key,
			   const struct diagnosis_thieves *t)
{
	if (!t->known) {
		report_model__null(m, key);
		return;
	}
	report_model__begin_obj(m, key);
	report_model__fields_of(m, t, thieves_f);
	report_model__begin_arr(m, "thieves");
	for (size_t i = 0; i < t->n; i++)
		thief_obj(m, &t->t[i], 1);
	report_model__end_arr(m);
	report_model__end_obj(m);
}
