/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The one definition of every map and global (bpf/maps.bpf.h). */
#define XLP_DEFINE_STATE
#include "maps.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";
