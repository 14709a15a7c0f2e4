# shellcheck shell=bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tools/bench/setup.sh: the checks and set-up before any section: the
# sections asked, root and the binaries, tracefs, bpf_stats, the workload's
# CPU.
#
# Sourced by tools/bench.sh in its turn, after the parts before it (its top
# says what each section measures; make bench and make bench-quick run it).

# ---- checks and setup -------------------------------------------------------

for n in "$ROUNDTRIPS" "$CALLS" "$REPS" "$PG_SECONDS" "$PG_WARMUP"; do
	case $n in '' | *[!0-9]* | 0) die "ROUNDTRIPS, CALLS, REPS, PG_SECONDS and PG_WARMUP must be positive integers" ;; esac
done
# XLP_BENCH_SECTIONS="1 2 6" (or "1,2,6") runs those sections only;
# BENCH_ONLY=unwind or lag, the older way, runs section 9 or 10 alone
BENCH_SECTIONS="1 1b 2 2u 3 4 5 6 7 8 9 10 11"
SECTIONS=$(printf '%s' "${XLP_BENCH_SECTIONS:-}" | tr ',' ' ')
if [ -z "${SECTIONS// /}" ]; then
	case ${BENCH_ONLY:-} in unwind) SECTIONS=9 ;; lag) SECTIONS=10 ;; jit) SECTIONS=11 ;; esac
fi
# the default: every section but 10 (make bench-quick: what rows 1-4 need)
if [ -z "${SECTIONS// /}" ]; then
	SECTIONS="1 1b 2 2u 3 4 5 6 7 8 9 11"
	[ -n "$QUICK" ] && SECTIONS="1 2 6"
fi
for n in $SECTIONS; do
	case " $BENCH_SECTIONS " in *" $n "*) ;; *) die "XLP_BENCH_SECTIONS: no section '$n' (sections: $BENCH_SECTIONS)" ;; esac
done
# want N: section N runs
want() {
	case " $SECTIONS " in *" $1 "*) return 0 ;; esac
	return 1
}

# sec_mark NAME: the wall time since the previous mark belongs to NAME
# (printed at the end, beside the total: the budget is 15 minutes for make
# bench, 5 for make bench-quick)
SEC_LAST=$SECONDS
SEC_TIMES=""
SEC_NAME=setup
sec_mark() {
	[ $((SECONDS - SEC_LAST)) -gt 0 ] && SEC_TIMES+="$1 $((SECONDS - SEC_LAST)) s, "
	SEC_LAST=$SECONDS
}
# sec_begin N: section N starts (the time since the last one was the previous one's)
sec_begin() {
	sec_mark "$SEC_NAME"
	SEC_NAME=$1
}
[ "$(id -u)" = 0 ] || die "needs root (BPF, bpf_stats, tracefs): run 'sudo make bench'"
for b in "$XLPROBE" "$PINGPONG" "$FUNCS"; do
	[ -x "$b" ] || die "$b is missing: run 'make build-tests' first"
done
command -v bpftool >/dev/null || die "bpftool not found: run tools/install-deps.sh"
command -v taskset >/dev/null || die "taskset not found (util-linux)"
HAVE_BPFTRACE=0
command -v "$BPFTRACE" >/dev/null && HAVE_BPFTRACE=1
HAVE_PERF=0
command -v "$PERF" >/dev/null && "$PERF" version >/dev/null 2>&1 && HAVE_PERF=1

TMP=$(mktemp -d /tmp/xlprobe-bench.XXXXXX) || die "mktemp failed"
LOG=$TMP/log

# bpftrace 0.17 detaches uprobes through tracefs and perf's tracepoint
# events need it: mount it unless it is there, and only then unmount it
if [ ! -e "$TRACEFS/uprobe_events" ] && [ -d "$TRACEFS" ]; then
	if mount -t tracefs nodev "$TRACEFS" 2>>"$LOG"; then
		MOUNTED_TRACEFS=1
	else
		note "cannot mount tracefs: bpftrace may fail to detach, perf will be n/a"
	fi
fi

OLD_BPF_STATS=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null) ||
	die "no kernel.bpf_stats_enabled sysctl"

# The workload CPU is the idlest one over half a second (another session's
# CPU hog would otherwise halve the workload's speed); tracers get the rest.
ONLINE=$(awk '/^cpu[0-9]/ { sub("cpu", "", $1); print $1 }' /proc/stat)
if [ "$BENCH_CPU" = auto ]; then
	awk '/^cpu[0-9]/ { print $1, $5 + $6 }' /proc/stat >"$TMP/idle0"
	sleep 0.5
	WCPU=$(awk '/^cpu[0-9]/ { print $1, $5 + $6 }' /proc/stat |
		awk -v f="$TMP/idle0" 'BEGIN { while ((getline l < f) > 0) { split(l, a, " "); i0[a[1]] = a[2] } }
			{ d = $2 - i0[$1]; if (best == "" || d > bd) { best = $1; bd = d } }
			END { sub("cpu", "", best); print best }')
else
	printf '%s\n' "$ONLINE" | grep -qx -- "$BENCH_CPU" || die "BENCH_CPU=$BENCH_CPU is not an online CPU"
	WCPU=$BENCH_CPU
fi
TRACER_CPUS=$(printf '%s\n' "$ONLINE" | awk -v w="$WCPU" '$1 != w' | paste -sd, -)
# Tracers run under this prefix: their own user-space work (the ring buffer
# reader) must not share the CPU the workload is timed on. An array, not a
# function: "$!" of a backgrounded function is a subshell, not the tracer.
ON_TRACER_CPUS=()
[ -n "$TRACER_CPUS" ] && ON_TRACER_CPUS=(taskset -c "$TRACER_CPUS")

# Launch-mode xlprobe (and bpftrace without -p) put system-wide uprobes on
# a binary: another session's tracer on our workloads makes "alone" traced.
FOREIGN=$(bpftool perf list 2>/dev/null | grep -cE "filename ($FUNCS|$PINGPONG) ")
echo "xlprobe overhead benchmark: $(uname -r), $(nproc) CPUs; workload on CPU $WCPU," \
	"tracers on CPU ${TRACER_CPUS:-$WCPU (shared)}; $REPS alternated runs per variant, medians"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (other sessions add noise; compare ratios, not runs)"
if [ "$FOREIGN" -gt 0 ]; then
	echo "WARNING: $FOREIGN uprobe(s) of other tracers sit on the workload binaries" \
		"(bpftool perf list): the 'alone' runs are not alone"
fi
