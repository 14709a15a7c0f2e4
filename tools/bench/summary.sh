# shellcheck shell=bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tools/bench/summary.sh: the summary's six rows (filled by sections 1, 2
# and 6, printed last) and the timed stops of row 6.
#
# Sourced by tools/bench.sh in its turn, after the parts before it (its top
# says what each section measures; make bench and make bench-quick run it).

# ---- the summary: four ratios against their references, one run ---------------
#
# Each row divides what xlprobe adds by what its reference tool adds to the
# same workload in the same run: the machine's speed, which moves both, is
# (mostly) divided out. Absolute targets were not: on a slower VM of the
# same kind bpf_ktime_get_ns took 105 ns instead of 35 and an empty uprobe
# pair 7 us instead of 0.9. Sections 1, 2 and 6 fill their rows through
# sum_set or sum_na; bench_summary prints them last.
#
# Row 5 divides the recorder's CPU per marked call (user space: the ring
# buffer's drain, the trace writer and its compression, all its threads,
# between its attach and the end of the calls) by the BPF programs' own
# CPU per call (bpf_stats), both from the same run of section 2. Row 6 is
# the longest stop of any xlprobe in the run (from its signal, or its
# target's exit, to its exit), judged against 1 s, beside bpftrace's
# longest (the reference column) and perf's (printed under the table).
SUM_ROWS="1 2 3 4 5 6"
[ -n "$QUICK" ] && SUM_ROWS="1 2 3 4"
declare -A SUM_WHAT=(
	[1]="scheduler accounting, CPU ns added per round trip: record / perf record -e sched:* (1)"
	[2]="a marked call, CPU ns added per call: record --func / bpftrace uprobe+uretprobe (2)"
	[3]="pgbench tps loss %: record -p -f ProcSleep / perf record -e sched:* -p (6)"
	[4]="pgbench tps loss %: record -p -i PortalRun (samples) / perf record -g -F 999 -p (6)"
	[5]="a marked call, ns of CPU: the recorder's (user space) / the BPF programs' (2)"
	[6]="the longest stop, s: xlprobe's / bpftrace's (2, 6; target: xlprobe's <= 1 s)"
)
declare -A SUM_TARGET=([1]=0.30 [2]=1.05 [3]=0.50 [4]=1.00 [5]=1.00 [6]=1.00)
declare -A SUM_SECTION=([1]=1 [2]=2 [3]=6 [4]=6 [5]=2 [6]="2 and 6")
# rows whose target bounds xlprobe's own figure, not the ratio
declare -A SUM_ABS=([6]=1)
declare -A SUM_X=() SUM_REF=() SUM_NA=()
for r in $SUM_ROWS; do SUM_NA[$r]="n/a: section ${SUM_SECTION[$r]} not run"; done

# sum_set ROW XLPROBE REFERENCE: a row's two inputs (either may be n/a)
sum_set() {
	if [ "$2" = n/a ] || [ "$3" = n/a ] || [ -z "$2" ] || [ -z "$3" ]; then
		SUM_NA[$1]="n/a: no measure (failed runs, see above)"
		return
	fi
	SUM_X[$1]=$2 SUM_REF[$1]=$3 SUM_NA[$1]=""
}

# sum_na ROW REASON: why a row has no ratio ("n/a: perf missing")
sum_na() {
	SUM_NA[$1]="n/a: $2"
}

# ratio_of A B: A / B to two decimals; n/a unless B > 0 (a reference that
# added nothing measurable leaves nothing to compare with)
ratio_of() {
	case $(calc 'print (b > 0) ? 1 : 0' "$1" "$2") in
	1) calc 'printf "%.2f", a / b' "$1" "$2" ;;
	*) echo n/a ;;
	esac
}

# judge RATIO TARGET: met or OVER, on the ratio as printed
judge() {
	case $1 in '' | n/a) echo n/a ;; *) calc 'print (a <= b) ? "met" : "OVER"' "$1" "$2" ;; esac
}

bench_summary() {
	local r x ref ratio verdict

	echo
	echo "== Summary: xlprobe's cost as a ratio to its reference's, both measured in this run =="
	printf '%-3s %-86s %9s %9s %7s %8s  %s\n' "row" "what (section)" "xlprobe" "reference" \
		"ratio" "target" "verdict"
	for r in $SUM_ROWS; do
		x=- ref=- ratio=- verdict=${SUM_NA[$r]}
		if [ -z "$verdict" ] && [ -n "${SUM_ABS[$r]:-}" ]; then
			x=${SUM_X[$r]} ref=${SUM_REF[$r]}
			ratio=$(ratio_of "$x" "$ref")
			[ "$ratio" = n/a ] && ratio=-
			verdict=$(judge "$x" "${SUM_TARGET[$r]}")
		elif [ -z "$verdict" ]; then
			x=${SUM_X[$r]} ref=${SUM_REF[$r]}
			ratio=$(ratio_of "$x" "$ref")
			verdict=$(judge "$ratio" "${SUM_TARGET[$r]}")
			if [ "$ratio" = n/a ]; then
				ratio=-
				verdict="n/a: the reference added no measurable cost"
			elif [ "$(calc 'print (a <= 0) ? 1 : 0' "$x")" = 1 ]; then
				# alone was slower than under xlprobe: the cost is in the noise
				verdict="$verdict (xlprobe's cost within the noise)"
			fi
		fi
		printf '%-3s %-86s %9s %9s %7s %8s  %s\n' "$r" "${SUM_WHAT[$r]}" "$x" "$ref" "$ratio" \
			"<= ${SUM_TARGET[$r]}" "$verdict"
	done
	echo "(absolute times and losses in the sections above are information: they follow the machine's speed)"
	if [ -z "$QUICK" ]; then
		echo "longest stops (s, from the signal or the target's exit to the tracer's exit; stops timed):" \
			"xlprobe ${STOP_MAX[xlprobe]:-n/a} (${STOP_N[xlprobe]:-0}, ${STOP_WHERE[xlprobe]:-}), perf ${STOP_MAX[perf]:-n/a}" \
			"(${STOP_N[perf]:-0}), bpftrace ${STOP_MAX[bpftrace]:-n/a} (${STOP_N[bpftrace]:-0})"
	fi
}

# ---- stops ---------------------------------------------------------------------
#
# Every stop of a tracer the sections time: STOP_MAX[tool] the longest in s,
# STOP_N[tool] how many, STOP_WHERE[tool] the longest's variant.
declare -A STOP_MAX=() STOP_N=() STOP_WHERE=()

# stop_tool VARIANT: which tool a variant of a section runs
stop_tool() {
	case $1 in bt*) echo bpftrace ;; perf*) echo perf ;; *) echo xlprobe ;; esac
}

# stop_timed PID SIGNAL VARIANT: sends SIGNAL (0: none, the tracer stops by
# itself as its target exits, which has happened) and times the tracer
# until it exits (polled every 10 ms; one that is still there after 30 s
# is killed and counts as 30 s)
stop_timed() {
	local pid=$1 sig=$2 v=$3 tool t0 ms i=0

	tool=$(stop_tool "$v")
	t0=$(date +%s%N)
	[ "$sig" != 0 ] && kill -"$sig" "$pid" 2>/dev/null
	while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 3000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	bg_wait "$pid" 1
	STOP_N[$tool]=$((${STOP_N[$tool]:-0} + 1))
	if [ -z "${STOP_MAX[$tool]:-}" ] || [ "$(calc 'print (a > b) ? 1 : 0' "$(calc 'printf "%.2f", a / 1000' "$ms")" "${STOP_MAX[$tool]}")" = 1 ]; then
		STOP_MAX[$tool]=$(calc 'printf "%.2f", a / 1000' "$ms")
		STOP_WHERE[$tool]=$v
	fi
}
