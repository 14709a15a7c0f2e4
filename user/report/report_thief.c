/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Who held the CPU while the runs' threads waited for it: the clause and its JSON. */
#include <stdio.h>
#include <string.h>
#include "report.h"
#include "jsonw.h"

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

void report__thieves_json(struct jsonw *w, const char *key, const struct diagnosis_thieves *t)
{
	if (!t->known) {
		jsonw__null(w, key);
		return;
	}
	jsonw__begin_obj(w, key);
	jsonw__uint(w, "waits", t->waits);
	jsonw__round(w, "wait_ns", t->wait_ns);
	jsonw__round(w, "idle_ns", t->idle_ns);
	jsonw__round(w, "irq_ns", t->irq_ns);
	jsonw__round(w, "steal_ns", t->steal_ns);
	jsonw__round(w, "unknown_ns", t->unknown_ns);
	jsonw__begin_arr(w, "thieves");
	for (size_t i = 0; i < t->n; i++) {
		const struct diagnosis_thief *x = &t->t[i];

		jsonw__begin_obj(w, NULL);
		jsonw__uint(w, "tid", x->tid);
		jsonw__uint(w, "pid", x->pid);
		jsonw__strn(w, "comm", x->comm, strnlen(x->comm, sizeof(x->comm)));
		jsonw__round(w, "ns", x->ns);
		jsonw__num(w, "share", x->share);
		jsonw__bool(w, "own_process", x->own_process);
		jsonw__bool(w, "child", x->child);
		jsonw__bool(w, "kernel_thread", x->kernel_thread);
		jsonw__end_obj(w);
	}
	jsonw__end_arr(w);
	jsonw__end_obj(w);
}
