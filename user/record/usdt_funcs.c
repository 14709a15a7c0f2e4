/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "usdt.h"
#include "usdt_funcs.h"
#include "xlprobe.h"

struct usdt_funcs {
	struct usdt_target t[XLP_MAX_FUNCS]; /* by function id; binary NULL: not USDT */
};

/* "usdt:B:P:begin[:filter]" with --until's "usdt:B:P:end": one pair, begin,end. */
static int pair(const char *spec, const char *until, int pid, struct usdt_target *t, char *err,
		size_t errlen)
{
	struct usdt_target u;
	int ret = usdt__resolve(until, pid, &u, err, errlen);

	if (ret)
		return ret;
	if (t->end || u.end || u.filter_arg >= 0 || strcmp(t->binary, u.binary) ||
	    strcmp(t->provider, u.provider)) {
		snprintf(err, errlen,
			 "--until %s without --key: the end probe of --interaction's calls on the "
			 "same thread, one probe of its binary and provider with no filter, e.g. "
			 "--interaction usdt:postgres:postgresql:query__start --until "
			 "usdt:postgres:postgresql:query__done (or add --key argN)",
			 until);
		usdt__free_target(&u);
		return -EINVAL;
	}
	t->end = strdup(u.begin);
	if (u.nargs < t->nargs)
		t->nargs = u.nargs;
	t->semaphore |= u.semaphore;
	usdt__free_target(&u);
	if (!t->end)
		return -ENOMEM;
	if (t->filter_arg >= 0)
		return usdt__check_arg(t, t->filter_arg, "the filter", err, errlen);
	return 0;
}

static int check_args(const struct usdt_target *t, uint32_t flags, char *err, size_t errlen)
{
	int ret = 0;

	if (flags &
	    (XLP_FUNC_TASK_POST | XLP_FUNC_TASK_RUN | XLP_FUNC_RUN_BEGIN | XLP_FUNC_RUN_END))
		ret = usdt__check_arg(t, (int)XLP_FUNC_TASK_ARG_OF(flags), "--key", err, errlen);
	if (!ret && (flags & XLP_FUNC_SIZE))
		ret = usdt__check_arg(t, (int)XLP_FUNC_SIZE_ARG_OF(flags), "--size-arg", err,
				      errlen);
	return ret;
}

static int add_meta(struct usdt_funcs *uf, struct xlp_trace_meta *m, struct usdt_target *t,
		    uint32_t flags)
{
	struct xlp_func_info *f;
	int ret;

	for (uint32_t i = 0; i < m->nfuncs; i++) {
		const struct usdt_target *o = &uf->t[i];

		if (o->binary && !strcmp(o->binary, t->binary) && !strcmp(o->label, t->label) &&
		    !strcmp(o->end ? o->end : "", t->end ? t->end : "")) {
			m->funcs[i].flags |= flags;
			usdt__free_target(t);
			return 0;
		}
	}
	ret = xlp_trace_meta__add_func(m, flags | XLP_FUNC_USDT, t->offset, t->binary, t->label,
				       t->build_id, &f);
	if (ret == -E2BIG)
		xlp_err("more than %d functions marked: mark fewer", XLP_MAX_FUNCS);
	if (ret)
		return ret;
	uf->t[f->id] = *t;
	xlp_dbg("--func %s: %s:%s%s%s of %s%s", f->symbol, t->provider, t->begin,
		t->end ? " to " : " (a point)", t->end ? t->end : "", t->binary,
		t->semaphore ? ", semaphore-guarded" : "");
	return 0;
}

int usdt_funcs__add(struct usdt_funcs **uf, struct xlp_trace_meta *m, const char *spec,
		    const char *until, int pid, uint32_t flags)
{
	struct usdt_target t;
	char err[1024];
	int ret;

	if (!*uf) {
		*uf = calloc(1, sizeof(**uf));
		if (!*uf)
			return -ENOMEM;
	}
	ret = usdt__resolve(spec, pid, &t, err, sizeof(err));
	if (ret) {
		xlp_err("%s", err);
		return ret;
	}
	if (until)
		ret = pair(spec, until, pid, &t, err, sizeof(err));
	if (!ret)
		ret = check_args(&t, flags, err, sizeof(err));
	if (!ret)
		return add_meta(*uf, m, &t, flags);
	if (ret != -ENOMEM)
		xlp_err("%s", err);
	usdt__free_target(&t);
	return ret;
}

int usdt_funcs__attach(const struct usdt_funcs *uf, struct session *s,
		       const struct xlp_func_info *f, uint32_t cookie_flags, pid_t pid, char *err,
		       size_t errlen)
{
	const struct usdt_target *t = uf && f->id < XLP_MAX_FUNCS ? &uf->t[f->id] : NULL;

	if (!t || !t->binary) {
		snprintf(err, errlen, "%s: not a resolved USDT probe", f->symbol);
		return -EINVAL;
	}
	return session__attach_usdt(s, f->id, cookie_flags, t->binary, t->provider, t->begin,
				    t->end, t->filter_arg, t->filter, pid, err, errlen);
}

void usdt_funcs__free(struct usdt_funcs *uf)
{
	if (!uf)
		return;
	for (size_t i = 0; i < XLP_MAX_FUNCS; i++)
		usdt__free_target(&uf->t[i]);
	free(uf);
}
