/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The part of Perfetto's public trace schema that xlprobe export --perfetto
 * writes: field numbers of protos/perfetto/trace/ in the Perfetto
 * repository (trace.proto, trace_packet.proto; track_event/: track_event,
 * track_descriptor, process_descriptor, thread_descriptor,
 * counter_descriptor, debug_annotation; ftrace/: ftrace_event_bundle,
 * ftrace_event, sched, task, power; ps/process_tree.proto;
 * common/system_info.proto), and the framing of one TracePacket.
 * tests/perfetto/perfetto_subset.proto is the same subset as a schema, for
 * the tests to decode with protoc.
 */
#ifndef XLP_PERFETTO_PROTO_H
#define XLP_PERFETTO_PROTO_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "pbw.h"

enum {
	F_TRACE_PACKET = 1,
	/* TracePacket */
	F_PKT_FTRACE = 1, /* ftrace_events: FtraceEventBundle */
	F_PKT_PROCESS_TREE = 2,
	F_PKT_TIMESTAMP = 8,
	F_PKT_SEQ_ID = 10, /* trusted_packet_sequence_id */
	F_PKT_TRACK_EVENT = 11,
	F_PKT_SEQ_FLAGS = 13,
	F_PKT_SYSTEM_INFO = 45,
	F_PKT_TRACK_DESC = 60,
	/* TrackDescriptor, ProcessDescriptor, ThreadDescriptor, CounterDescriptor */
	F_TD_UUID = 1,
	F_TD_NAME = 2,
	F_TD_PROCESS = 3,
	F_TD_THREAD = 4,
	F_TD_PARENT = 5,
	F_TD_COUNTER = 8,
	F_PD_PID = 1,
	F_PD_NAME = 6,
	F_THD_PID = 1,
	F_THD_TID = 2,
	F_THD_NAME = 5,
	F_CD_UNIT = 3,
	/* TrackEvent, DebugAnnotation */
	F_TE_DEBUG = 4,
	F_TE_TYPE = 9,
	F_TE_TRACK = 11,
	F_TE_CATEGORY = 22,
	F_TE_NAME = 23,
	F_TE_COUNTER = 30,
	F_TE_FLOW = 47,
	F_TE_FLOW_END = 48,
	F_DA_BOOL = 2,
	F_DA_UINT = 3,
	F_DA_STRING = 6,
	F_DA_NAME = 10,
	/* FtraceEventBundle, FtraceEvent */
	F_FB_CPU = 1,
	F_FB_EVENT = 2,
	F_FE_TIMESTAMP = 1,
	F_FE_PID = 2,
	F_FE_SCHED_SWITCH = 4,
	F_FE_CPU_FREQUENCY = 11,
	F_FE_SCHED_WAKING = 20,
	F_FE_TASK_NEWTASK = 235,
	/* SchedSwitchFtraceEvent */
	F_SW_PREV_COMM = 1,
	F_SW_PREV_PID = 2,
	F_SW_PREV_PRIO = 3,
	F_SW_PREV_STATE = 4,
	F_SW_NEXT_COMM = 5,
	F_SW_NEXT_PID = 6,
	F_SW_NEXT_PRIO = 7,
	/* SchedWakingFtraceEvent */
	F_WK_COMM = 1,
	F_WK_PID = 2,
	F_WK_PRIO = 3,
	F_WK_SUCCESS = 4,
	F_WK_TARGET_CPU = 5,
	/* TaskNewtaskFtraceEvent */
	F_NT_PID = 1,
	F_NT_COMM = 2,
	F_NT_CLONE_FLAGS = 3,
	/* CpuFrequencyFtraceEvent */
	F_CF_STATE = 1,
	F_CF_CPU_ID = 2,
	/* ProcessTree and its Process, Thread */
	F_PT_PROCESS = 1,
	F_PT_THREAD = 2,
	F_PTP_PID = 1,
	F_PTP_CMDLINE = 3,
	F_PTP_CMDLINE_IS_COMM = 9,
	F_PTT_TID = 1,
	F_PTT_NAME = 2,
	F_PTT_TGID = 3,
	/* SystemInfo, Utsname */
	F_SI_UTSNAME = 1,
	F_SI_NUM_CPUS = 8,
	F_UTS_SYSNAME = 1,
	F_UTS_RELEASE = 3,
};

/* TracePacket.sequence_flags */
#define SEQ_INCREMENTAL_STATE_CLEARED 1

/*
 * Packet sequences: the track events' (their tracks are incremental state
 * on it) and the scheduling data's (ftrace bundles, process tree, system
 * info), as Perfetto's own writers keep them apart.
 */
#define SEQ_TRACK_EVENTS 1
#define SEQ_SYSTEM 2

/* Opens a TracePacket in w (emptied first); ts 0: none. */
static inline void pf_pkt_begin(struct pbw *w, size_t *mark, uint64_t ts, uint32_t seq, bool first)
{
	pbw__reset(w);
	*mark = pbw__begin(w, F_TRACE_PACKET);
	if (ts)
		pbw__varint(w, F_PKT_TIMESTAMP, ts);
	pbw__varint(w, F_PKT_SEQ_ID, seq);
	if (first)
		pbw__varint(w, F_PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
}

/* Closes it and writes it to f. */
static inline int pf_pkt_end(struct pbw *w, size_t mark, FILE *f)
{
	pbw__end(w, mark);
	if (pbw__err(w))
		return pbw__err(w);
	if (fwrite(w->buf, 1, w->len, f) != w->len)
		return -EIO;
	return 0;
}

#endif
