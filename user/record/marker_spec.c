/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "marker_spec.h"
#include "xlprobe.h"

_Static_assert(XLP_MARKER_NR_SKIP <= XLP_MARKER_REC_SKIPS,
	       "struct xlp_marker_rec holds every reason a line is skipped for");
_Static_assert(XLP_MARKER_SPECS <= 255, "bpf/marker.bpf.c keeps a spec index in a byte");

bool marker_spec__is(const char *spec)
{
	return !strncmp(spec, MARKER_SPEC_PREFIX, strlen(MARKER_SPEC_PREFIX));
}

int marker_spec__make(const char *pattern, uint32_t func_id, uint32_t flags,
		      struct xlp_marker_spec *out, char *err, size_t errlen)
{
	size_t len = strlen(pattern);

	if (!len) {
		snprintf(
			err, errlen,
			"marker: with no section name: give one, e.g. marker:Choreographer#doFrame "
			"or marker:'doFrame*'");
		return -EINVAL;
	}
	if (len >= XLP_MARKER_PAT) {
		snprintf(err, errlen,
			 "marker:%.40s...: the name is longer than %d bytes: shorten it with a "
			 "glob (*)",
			 pattern, XLP_MARKER_PAT - 1);
		return -EINVAL;
	}
	/* the programs match * and ? only: say so rather than match nothing */
	if (strpbrk(pattern, "[]\\")) {
		snprintf(err, errlen,
			 "marker:%s: only * and ? globs are matched in section names: replace the "
			 "[...] class or \\ escape with ? or *",
			 pattern);
		return -EINVAL;
	}
	if (strchr(pattern, '|') || strchr(pattern, '\n')) {
		snprintf(err, errlen,
			 "marker:%s: a section name holds no '|' or newline: give the name alone, "
			 "without the B|pid| of the line",
			 pattern);
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	memcpy(out->pat, pattern, len);
	out->len = (uint32_t)len;
	out->func_id = func_id;
	out->flags = flags;
	return 0;
}
