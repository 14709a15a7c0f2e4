/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Byte-layout constants of the trace file shared by the writer and the
 * reader (the layout itself is described in trace_writer.c and docs/trace-format.md).
 */
#ifndef XLP_TRACE_FORMAT_H
#define XLP_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include "xlprobe.h"

#define PREFIX_LEN 20 /* magic, version, payload length, CRC */
#define HDR_PAYLOAD_MAX (16u << 20)
#define CHUNK_HDR_LEN_V1 20 /* tag, C, U, N, CRC of C..N and the data */
#define CHUNK_HDR_LEN 28    /* tag, S, C, U, N, data CRC, header CRC */
#define CHUNK_HDR_MAX 28
#define FOOT_HDR_LEN 12
#define FOOT_LEN (8 * 3 + 8 * XLP_NR_STAT + 8 + 4 + 4)

/* Little-endian fields of the file, read from bytes (any alignment). */
static inline uint32_t get_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/* Smallest valid h.size per known record type: the writer enforces it and
 * the reader relies on it, so users may cast a record to its struct. */
static inline size_t trace_rec_min_size(uint16_t type)
{
	switch (type) {
	case XLP_R_CALL:
		return sizeof(struct xlp_call_rec);
	case XLP_R_CALL_COMPACT:
		return sizeof(struct xlp_call_compact_rec);
	case XLP_R_RUN:
		return sizeof(struct xlp_run_rec);
	case XLP_R_THREAD:
		return sizeof(struct xlp_thread_rec);
	case XLP_R_PROC:
		return sizeof(struct xlp_proc_rec);
	case XLP_R_LAUNCH:
		return sizeof(struct xlp_launch_rec);
	case XLP_R_STATS:
		return sizeof(struct xlp_stats_rec);
	case XLP_R_FORK:
		return sizeof(struct xlp_fork_rec);
	case XLP_R_SAMPLE:
		return sizeof(struct xlp_sample_rec);
	case XLP_R_STACK:
		return sizeof(struct xlp_stack_rec);
	case XLP_R_SYM:
		return sizeof(struct xlp_sym_rec);
	case XLP_R_SCHED:
		return sizeof(struct xlp_sched_rec);
	case XLP_R_TASK:
		return sizeof(struct xlp_task_rec);
	case XLP_R_TASKEV:
		return sizeof(struct xlp_taskev_rec);
	case XLP_R_SAMPLING:
		return sizeof(struct xlp_sampling_rec);
	case XLP_R_SIZE:
		return sizeof(struct xlp_size_rec);
	case XLP_R_LAG:
		return sizeof(struct xlp_lag_rec);
	case XLP_R_THIEF:
		return sizeof(struct xlp_thief_rec);
	case XLP_R_CPUSCHED:
		return sizeof(struct xlp_cpusched_rec);
	default:
		return sizeof(struct xlp_hdr);
	}
}

#endif
