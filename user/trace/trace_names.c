// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The names the tools show of the trace's fields: counters and statistics
 * (from the lists of bpf/xlprobe.h), flags, scheduling events, name
 * sources, the unwinding of user stacks, stop reasons and read statuses. */
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

#define NAMES(...)                                                                                 \
	{                                                                                          \
		(const struct trace_flag_name[]){__VA_ARGS__},                                     \
			sizeof((const struct trace_flag_name[]){__VA_ARGS__}) /                    \
				sizeof(struct trace_flag_name)                                     \
	}

static const struct {
	const struct trace_flag_name *names;
	size_t n;
} flag_names[TRACE_NR_FLAGS] = {
	[TRACE_FLAGS_FEATURES] = NAMES(
		{XLP_FEAT_BTF, "btf"}, {XLP_FEAT_SCHED, "sched"}, {XLP_FEAT_UPROBES, "uprobes"},
		{XLP_FEAT_CPUFREQ, "cpufreq"}, {XLP_FEAT_BINDER, "binder"},
		{XLP_FEAT_BLOCK, "block"}, {XLP_FEAT_SYSCALLS, "syscalls"},
		{XLP_FEAT_DELAYACCT, "delayacct"}, {XLP_FEAT_SAMPLE, "sample"},
		{XLP_FEAT_TIMELINE, "timeline"}, {XLP_FEAT_PREWAKE, "prewake"}),
	[TRACE_FLAGS_FUNC] = NAMES({XLP_FUNC_INTERACTION, "interaction"}, {XLP_FUNC_SIZE, "size"},
				   {XLP_FUNC_MARKER, "marker"}),
	[TRACE_FLAGS_CALL] =
		NAMES({XLP_CALL_INTERACTION, "interaction"}, {XLP_CALL_IPC_PEER, "ipc_peer"},
		      {XLP_CALL_SUMMARY, "summary"}, {XLP_CALL_ASYNC, "async"}),
	[TRACE_FLAGS_LAUNCH] =
		NAMES({XLP_LAUNCH_EXEC_TIME, "exec_time"}, {XLP_LAUNCH_EXIT_TIME, "exit_time"}),
	[TRACE_FLAGS_THREAD] = NAMES({XLP_THREAD_EXITED, "exited"}, {XLP_THREAD_AT_STOP, "at_stop"},
				     {XLP_THREAD_PARTIAL, "partial"}),
	[TRACE_FLAGS_FORK] =
		NAMES({XLP_FORK_PROBED, "probed"}, {XLP_FORK_PROBED_ALREADY, "probed_already"},
		      {XLP_FORK_GONE, "gone"}, {XLP_FORK_PROBE_FAILED, "probe_failed"}),
	[TRACE_FLAGS_STACK] = NAMES({XLP_STACK_KERNEL, "kernel"}, {XLP_STACK_FULL, "full"}),
	[TRACE_FLAGS_SAMPLING] = NAMES({XLP_SAMPLING_LAST, "last"}, {XLP_SAMPLING_OVER, "over"}),
	[TRACE_FLAGS_SIZE] = NAMES({XLP_SIZE_RECORDING, "recording"}, {XLP_SIZE_LAUNCH, "launch"}),
	[TRACE_FLAGS_THIEF] =
		NAMES({XLP_THIEF_KTHREAD, "kthread"}, {XLP_THIEF_NAME_STALE, "name_stale"}),
};
#undef NAMES

const struct trace_flag_name *trace__flag_names(enum trace_flags field, size_t *n)
{
	if ((unsigned)field >= TRACE_NR_FLAGS) {
		*n = 0;
		return NULL;
	}
	*n = flag_names[field].n;
	return flag_names[field].names;
}

const char *trace__unwind_method_name(unsigned int method)
{
	static const char *const names[] = {
		[XLP_UNWIND_FP] = "fp", [XLP_UNWIND_CFI] = "cfi", [XLP_UNWIND_MIXED] = "mixed"};

	return method < sizeof(names) / sizeof(names[0]) && names[method] ? names[method] : "?";
}

const char *trace__unwind_stop_name(unsigned int stop)
{
	static const char *const names[XLP_STOP_NR] = {
		[XLP_STOP_UNSAID] = "unsaid", [XLP_STOP_END] = "end",
		[XLP_STOP_COPY] = "copy",     [XLP_STOP_NO_CFI] = "no_cfi",
		[XLP_STOP_BAD] = "bad_frame", [XLP_STOP_DEPTH] = "depth",
		[XLP_STOP_FP] = "fp_end"};

	return stop < XLP_STOP_NR && names[stop] ? names[stop] : "?";
}
