// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The names the tools show: counters and statistics (from the lists of
 * bpf/xlprobe.h), stop reasons and read statuses. */
#include "trace.h"

#define XLP_NAME(id, name) [XLP_C_##id] = name,
const char *const xlp_ctr_names[XLP_NR_CTR] = {XLP_CTR_LIST(XLP_NAME)};
#undef XLP_NAME

#define XLP_NAME(id, name) [XLP_S_##id] = name,
const char *const xlp_stat_names[XLP_NR_STAT] = {XLP_STAT_LIST(XLP_NAME)};
#undef XLP_NAME

#define XLP_NAME(id, name) [XLP_MSKIP_##id] = name,
const char *const xlp_marker_skip_names[XLP_MARKER_NR_SKIP] = {XLP_MARKER_SKIP_LIST(XLP_NAME)};
#undef XLP_NAME

const char *trace__sched_kind_name(unsigned int kind)
{
	static const char *const names[] = {
		[XLP_SCHED_OUT] = "switch_out",	       [XLP_SCHED_IN] = "switch_in",
		[XLP_SCHED_WAKEUP] = "wakeup",	       [XLP_SCHED_BLOCK_ISSUE] = "block_issue",
		[XLP_SCHED_BLOCK_DONE] = "block_done", [XLP_SCHED_FREQ] = "cpu_freq",
	};

	return kind < sizeof(names) / sizeof(names[0]) && names[kind] ? names[kind] : NULL;
}

const char *trace__sym_source_name(unsigned int source)
{
	static const char *const names[] = {
		[XLP_SYM_SRC_UNSAID] = "unsaid",
		[XLP_SYM_SRC_SYMTAB] = "symtab",
		[XLP_SYM_SRC_DYNSYM] = "dynsym",
		[XLP_SYM_SRC_BUILD_ID] = "build_id_dir",
		[XLP_SYM_SRC_DEBUGLINK] = "debuglink",
		[XLP_SYM_SRC_DEBUGINFOD] = "debuginfod_cache",
		[XLP_SYM_SRC_MINIDEBUGINFO] = "minidebuginfo",
		[XLP_SYM_SRC_KALLSYMS] = "kallsyms",
		[XLP_SYM_SRC_JITDUMP] = "jitdump",
		[XLP_SYM_SRC_PERFMAP] = "perfmap",
	};

	return source < sizeof(names) / sizeof(names[0]) ? names[source] : NULL;
}

const char *trace__sched_state_name(unsigned int state)
{
	switch (state) {
	case XLP_SCHED_RUNNABLE:
		return "runnable";
	case XLP_SCHED_SLEEP_S:
		return "sleep_s";
	case XLP_SCHED_SLEEP_D:
		return "sleep_d";
	}
	return NULL;
}

const char *trace_stop_name(uint32_t reason)
{
	switch (reason) {
	case XLP_STOP_SIGNAL:
		return "signal";
	case XLP_STOP_DURATION:
		return "duration";
	case XLP_STOP_TARGET_EXIT:
		return "target_exit";
	case XLP_STOP_ERROR:
		return "error";
	default:
		return "unknown";
	}
}

const char *trace_status_name(enum trace_status st)
{
	return st == TRACE_COMPLETE ? "complete" : st == TRACE_DAMAGED ? "damaged" : "truncated";
}
