/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* When to ask a JVM for its perf map (jvm_maps.h). */
#include <errno.h>
#include <stdlib.h>
#include "jvm_attach.h"
#include "jvm_maps.h"
#include "log.h"
#include "util.h"

/*
 * A JVM compiles most at its start, then now and then: the first request
 * on a miss at once, then each after twice the gap of the one before, from
 * 50 ms to 2 s (a 2-second program was asked 5 times at once a second and
 * its hot method's final code was never named; a server with 50 000
 * methods spends tens of ms writing its map, at most once in 2 s)
 */
#define JVM_ASK_FIRST_GAP_NS 50000000ull
#define JVM_ASK_MAX_GAP_NS 2000000000ull

struct jvm_proc {
	int pid;
	int8_t jvm;	   /* -1: not known yet, 0: no, 1: yes */
	bool told;	   /* its failure was said */
	uint64_t asked_ns; /* the last request */
	uint64_t gap_ns;   /* before the next one */
};

struct jvm_maps {
	struct jvm_proc *p;
	size_t n, cap;
	uint64_t written, failed;
};

int jvm_maps__new(struct jvm_maps **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void jvm_maps__free(struct jvm_maps *m)
{
	if (!m)
		return;
	free(m->p);
	free(m);
}

static struct jvm_proc *proc_of(struct jvm_maps *m, int pid)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->p[i].pid == pid)
			return &m->p[i];
	if (xlp_grow((void **)&m->p, &m->cap, m->n, sizeof(*m->p)))
		return NULL;
	m->p[m->n] = (struct jvm_proc){.pid = pid, .jvm = -1, .gap_ns = JVM_ASK_FIRST_GAP_NS};
	return &m->p[m->n++];
}

bool jvm_maps__miss(void *ctx, int pid)
{
	struct jvm_maps *m = ctx;
	struct jvm_proc *p = proc_of(m, pid);
	uint64_t now = xlp_now_ns();
	char err[256];

	if (!p)
		return false;
	if (p->jvm < 0)
		p->jvm = jvm_attach__is_jvm(pid);
	if (!p->jvm || (p->asked_ns && now - p->asked_ns < p->gap_ns))
		return false;
	if (p->asked_ns)
		p->gap_ns = p->gap_ns * 2 < JVM_ASK_MAX_GAP_NS ? p->gap_ns * 2 : JVM_ASK_MAX_GAP_NS;
	p->asked_ns = now;
	if (!jvm_attach__perfmap(pid, err, sizeof(err))) {
		m->written++;
		return true;
	}
	m->failed++;
	if (!p->told) {
		p->told = true;
		xlp_warn("cannot ask the JVM %d for its perf map: %s: its Java methods stay "
			 "unnamed; run `jcmd %d Compiler.perfmap` (JDK 17 and later) while "
			 "recording, as its user",
			 pid, err, pid);
	}
	return false;
}

void jvm_maps__counts(const struct jvm_maps *m, uint64_t *written, uint64_t *failed)
{
	*written = m ? m->written : 0;
	*failed = m ? m->failed : 0;
}
