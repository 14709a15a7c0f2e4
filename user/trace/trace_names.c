// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The names of the counters and statistics, from the lists of bpf/xlprobe.h. */
#include "trace.h"

#define XLP_NAME(id, name) [XLP_C_##id] = name,
const char *const xlp_ctr_names[XLP_NR_CTR] = {XLP_CTR_LIST(XLP_NAME)};
#undef XLP_NAME

#define XLP_NAME(id, name) [XLP_S_##id] = name,
const char *const xlp_stat_names[XLP_NR_STAT] = {XLP_STAT_LIST(XLP_NAME)};
#undef XLP_NAME
