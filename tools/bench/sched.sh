# shellcheck shell=bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tools/bench/sched.sh: sections 1 (scheduler overhead) and 1b (the timeline
# beside the traced threads): run where they are sourced.
#
# Sourced by tools/bench.sh in its turn, after the parts before it (its top
# says what each section measures; make bench and make bench-quick run it).

# ---- 1. scheduler overhead ---------------------------------------------------

PP_ARGS=(--roundtrips "$ROUNDTRIPS" --cpu "$WCPU")
PERF_EVENTS=(-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking)

# One timed ping-pong; sets RES to ns per round trip, empty on failure.
# (Results go through a variable, not $(...): a subshell would lose the
# background PIDs the cleanup must kill.)
run_pp() {
	local out=$TMP/pp.out

	RES=""
	: >"$out"
	case $1 in
	alone)
		timeout -k 5 "$RUN_TIMEOUT" "$PINGPONG" "${PP_ARGS[@]}" >"$out" 2>>"$LOG"
		;;
	xl)
		# the scheduler accounting alone: sampling is section 7's
		"${ON_TRACER_CPUS[@]}" timeout -k 5 "$RUN_TIMEOUT" "$XLPROBE" record -q -o "$TMP/pp.xlp" \
			--no-sample -- "$PINGPONG" "${PP_ARGS[@]}" >"$out" 2>>"$LOG"
		;;
	xlf)
		"${ON_TRACER_CPUS[@]}" timeout -k 5 "$RUN_TIMEOUT" "$XLPROBE" record -q -o "$TMP/pp.xlp" \
			--func "$PINGPONG:roundtrip" -- "$PINGPONG" "${PP_ARGS[@]}" >"$out" 2>>"$LOG"
		;;
	perf)
		"${ON_TRACER_CPUS[@]}" timeout -k 5 "$RUN_TIMEOUT" "$PERF" record -q "${PERF_EVENTS[@]}" \
			-o "$TMP/perf.data" -- "$PINGPONG" "${PP_ARGS[@]}" >"$out" 2>>"$LOG"
		;;
	esac
	RES=$(awk '$1 == "ROUNDTRIPS" { print ($5 != "") ? $5 : $4 }' "$out")
}

# One ping-pong under xlprobe with bpf_stats on; the programs' counters are
# read after the workload's last round trip but before xlprobe stops: the
# launched command is a shell that runs pingpong, then waits in a sleep we
# kill afterwards. Writes $TMP/stats.$1 and $TMP/cpu.$1 (reader CPU ns).
# Variants thief / nothief: the test build (xlprobe-test) with -i roundtrip,
# every switch-in of the traced thread a wait ended (a thief record each),
# with and without the CPU's log (XLPROBE_TEST_NO_CPULOG): section 1's row
# for the thief accounting.
stats_pp() {
	local v=$1 out=$TMP/ppstats.out xl func=(--no-sample) c0 i bin=$XLPROBE env=()

	# --probe-forks: pingpong is a child of the launched shell
	[ "$v" = xlf ] && func=(--func "$PINGPONG:roundtrip" --probe-forks)
	case $v in
	thief | nothief)
		bin=$XLPROBE_TEST
		func=(--no-sample -i "$PINGPONG:roundtrip" --probe-forks)
		[ "$v" = nothief ] && env=(XLPROBE_TEST_NO_CPULOG=1)
		;;
	esac
	: >"$out"
	rm -f "$TMP/wrapper.pid"
	# shellcheck disable=SC2016 # $$ and $@ are the wrapper shell's
	env "${env[@]}" "${ON_TRACER_CPUS[@]}" "$bin" record -q -o "$TMP/pp.xlp" "${func[@]}" -- \
		sh -c 'echo $$ >"$0"; "$@"; exec sleep 600' "$TMP/wrapper.pid" \
		"$PINGPONG" "${PP_ARGS[@]}" >"$out" 2>>"$LOG" &
	xl=$!
	BG_PIDS+=("$xl")
	# the recorder's CPU from the launch's start (its own start and the
	# programs' loading are not per round trip) to the last round trip
	for ((i = 0; i < RUN_TIMEOUT * 50; i++)); do
		[ -s "$TMP/wrapper.pid" ] || ! kill -0 "$xl" 2>/dev/null && break
		sleep 0.02
	done
	c0=$(proc_cpu_ns "$xl")
	if wait_for_line "$out" '^ROUNDTRIPS' "$xl"; then
		sleep 0.3 # its last timed drain
		prog_stats "$xl" >"$TMP/stats.$v"
		echo $(($(proc_cpu_ns "$xl") - c0)) >"$TMP/cpu.$v"
		awk '$1 == "ROUNDTRIPS" { print ($5 != "") ? $5 : $4 }' "$out" >"$TMP/rt.$v"
	else
		note "stats run ($v) failed; see below"
		tail -5 "$LOG" >&2
	fi
	[ -s "$TMP/wrapper.pid" ] && kill -TERM "$(cat "$TMP/wrapper.pid")" 2>/dev/null
	bg_wait "$xl" 30
	rm -f "$TMP/wrapper.pid" # its PID may be reused: never kill it again
}

sec_begin 1
if want 1; then
	PP_VARIANTS=(alone xl xlf)
	[ "$HAVE_PERF" = 1 ] && PP_VARIANTS+=(perf)
	declare -A PP_RUNS=([alone]="" [xl]="" [xlf]="" [perf]="")
	declare -A PP_MED=([alone]=n/a [xl]=n/a [xlf]=n/a [perf]=n/a)
	declare -A PP_IWI=([alone]=0 [xl]=0 [xlf]=0 [perf]=0)
	declare -A ALL_BPF=([xl]=n/a [xlf]=n/a) READER=([xl]=n/a [xlf]=n/a)
	declare -A PP_LABEL=()
	bench_labels pp PP_LABEL

	echo
	echo "== 1. Scheduler overhead: pipe ping-pong, $ROUNDTRIPS round trips, both threads on CPU $WCPU =="
	echo "(IPI/1k: irq_work self-interrupts on that CPU per 1000 round trips, i.e. ring buffer wakeups)"
	sysctl -qw kernel.bpf_stats_enabled=0 2>>"$LOG" # timed runs without the stats' own clock reads
	run_pp alone # warm-up: page cache, first-run effects
	rounds run_pp PP_VARIANTS PP_RUNS PP_LABEL "$LOG" PP_IWI

	# shellcheck disable=SC2086 # word splitting of the run lists is intended
	base=$(median ${PP_RUNS[alone]})
	# "best": the ratio of the fastest runs, less exposed to other sessions' bursts
	# both sides' CPU time per round trip (pingpong prints it beside the
	# wall time): another session's process preempting them is not in it
	printf '%-50s %12s %9s %6s %7s  %s\n' "variant" "CPU ns/rt" "slowdown" "best" "IPI/1k" "runs"
	for v in alone xl xlf perf; do
		if [ "$v" = perf ] && [ "$HAVE_PERF" = 0 ]; then
			printf '%-50s %12s %9s %6s %7s  %s\n' "${PP_LABEL[$v]}" "n/a" "n/a" "n/a" "n/a" "(perf not found)"
			continue
		fi
		# shellcheck disable=SC2086
		m=$(median ${PP_RUNS[$v]})
		ratio=$(calc 'printf "%.2fx", a / b' "$m" "$base")
		[ "$m" = n/a ] && ratio=n/a
		ipi=$(calc 'printf "%.1f", a * 1000 / (b * c)' "${PP_IWI[$v]}" "$ROUNDTRIPS" "$REPS")
		# shellcheck disable=SC2086
		best=$(calc 'printf "%.2fx", a / b' "$(minimum ${PP_RUNS[$v]})" "$(minimum ${PP_RUNS[alone]})")
		printf '%-50s %12s %9s %6s %7s  %s\n' "${PP_LABEL[$v]}" "$m" "$ratio" "$best" "$ipi" \
			"${PP_RUNS[$v]:-(failed)}"
		PP_MED[$v]=$m
	done

	# bpf_stats: one more run of each xlprobe variant
	sysctl -qw kernel.bpf_stats_enabled=1 2>>"$LOG" || note "cannot enable bpf_stats"
	stats_pp xl
	stats_pp xlf
	# the thief accounting (issue 36): the CPU's log closed and filled at
	# every switch, and a thief record per traced wait, against the same
	# test binary without them; alternated, medians of xlp_sched_switch's
	# ns per event (docs/overhead.md, "Who held the CPU")
	declare -A THIEF_NS=([thief]="" [nothief]="")
	for ((i = 0; i < THIEF_REPS; i++)); do
		for v in thief nothief; do
			stats_pp "$v"
			THIEF_NS[$v]+=" $(awk '$1 == "xlp_sched_switch" && $2 > 0 { printf "%.0f", $3 / $2 }' \
				"$TMP/stats.$v" 2>/dev/null)"
		done
	done
	sysctl -qw kernel.bpf_stats_enabled="$OLD_BPF_STATS" 2>>"$LOG"

	echo
	echo "BPF programs (bpf_stats, one extra run each with stats on; counts are machine-wide: other"
	echo "processes' events take the untraced fast path):"
	printf '%-24s %11s %8s %8s   %11s %8s %8s\n' "program" "run_cnt" "per rt" "avg ns" \
		"run_cnt" "per rt" "avg ns"
	printf '%-24s %29s   %29s\n' "" "[xlprobe record]" "[--func roundtrip]"
	for v in xl xlf; do [ -s "$TMP/stats.$v" ] || : >"$TMP/stats.$v"; done
	sort -u -k1,1 "$TMP/stats.xl" "$TMP/stats.xlf" | awk '{ print $1 }' | while read -r p; do
		a=$(awk -v p="$p" -v n="$ROUNDTRIPS" '$1 == p && $2 > 0 { printf "%11d %8.2f %8.0f", $2, $2 / n, $3 / $2 }' "$TMP/stats.xl")
		b=$(awk -v p="$p" -v n="$ROUNDTRIPS" '$1 == p && $2 > 0 { printf "%11d %8.2f %8.0f", $2, $2 / n, $3 / $2 }' "$TMP/stats.xlf")
		[ -z "$a$b" ] && continue # never ran in either
		printf '%-24s %29s   %29s\n' "$p" "${a:-0}" "${b:-0}"
	done
	SCHED_PROGS="xlp_sched_switch xlp_sched_wakeup xlp_sched_waking xlp_sched_wakeup_new"
	echo "scheduler programs (switch + wakeup + waking + wakeup_new), average per event:"
	for v in xl xlf; do
		sched=$(awk -v list="$SCHED_PROGS" 'BEGIN { split(list, l, " "); for (i in l) s[l[i]] = 1 }
			$1 in s { c += $2; t += $3 } END { if (c) printf "%.0f %d", t / c, c; else print "n/a 0" }' "$TMP/stats.$v")
		avg=${sched% *}
		printf '  %-34s %6s ns over %7s events\n' "${PP_LABEL[$v]}" "$avg" "${sched#* }"
		ALL_BPF[$v]=$(awk -v n="$ROUNDTRIPS" '{ t += $3 } END { printf "%.0f", t / n }' "$TMP/stats.$v")
		READER[$v]=$(calc 'printf "%.0f", a / b' "$(cat "$TMP/cpu.$v" 2>/dev/null || echo n/a)" "$ROUNDTRIPS")
	done
	# shellcheck disable=SC2086 # word splitting of the run lists is intended
	th_on=$(median ${THIEF_NS[thief]})
	# shellcheck disable=SC2086
	th_off=$(median ${THIEF_NS[nothief]})
	printf '%s\n' "thief accounting (the CPU's log at every switch, a thief record per wait; -i roundtrip):"
	printf '  %-56s %8s ns  (runs:%s)\n' "xlp_sched_switch per event, with" "$th_on" "${THIEF_NS[thief]}"
	printf '  %-56s %8s ns  (runs:%s)\n' "without (XLPROBE_TEST_NO_CPULOG)" "$th_off" "${THIEF_NS[nothief]}"
	printf '  %-56s %8s ns\n' "its cost per switch event" "$(calc 'printf "%+.0f", a - b' "$th_on" "$th_off")"
	printf '%-58s %8s %8s\n' "per round trip, ns:" "xlprobe" "--func"
	printf '  %-56s %8s %8s\n' "added CPU time of both sides (medians of the timed runs)" \
		"$(calc 'printf "%.0f", a - b' "${PP_MED[xl]}" "$base")" \
		"$(calc 'printf "%.0f", a - b' "${PP_MED[xlf]}" "$base")"
	printf '  %-56s %8s %8s\n' "all xlprobe BPF programs (incl. other processes' events)" \
		"${ALL_BPF[xl]}" "${ALL_BPF[xlf]}"
	printf '  %-56s %8s %8s\n' "xlprobe's recorder, user-space CPU from the launch on" \
		"${READER[xl]}" "${READER[xlf]}"
	# summary row 1: the time the scheduler accounting adds per round trip
	# against what perf record of the same tracepoints adds
	if [ "$HAVE_PERF" = 1 ]; then
		sum_set 1 "$(calc 'printf "%.0f", a - b' "${PP_MED[xl]}" "${PP_MED[alone]}")" \
			"$(calc 'printf "%.0f", a - b' "${PP_MED[perf]}" "${PP_MED[alone]}")"
		echo "added per round trip, xlprobe record / perf record: ${SUM_X[1]:-n/a} / ${SUM_REF[1]:-n/a} ns (summary row 1)"
	else
		sum_na 1 "perf missing"
	fi
fi

# ---- 1b. the timeline's cost beside the traced threads ------------------------
#
# record --timeline follows the wakers outside the traced threads: every
# switch and wakeup of the machine pays a lookup, and with the waker
# history (the default) a task storage write (docs/analysis.md, "Wait chains"). Here
# the ping-pong is NOT traced: xlprobe records an idle process (-p of a
# sleep), so what the ping-pong pays is what the rest of a machine pays.
# perf record -a of the same tracepoints is what a system-wide scheduler
# trace costs (the timeline needs the wakers' events, not the whole
# machine's, but it is the baseline users know).
# tl_cpu: --timeline also records every switch, wakeup and new task of a
# CPU a traced thread ran on (issue 38: Perfetto's CPU tracks); the idle
# target is pinned to the ping-pong's CPU and stopped and continued once,
# so that it switches there, and from then on the untraced ping-pong's
# every switch and wakeup is an 80-byte record: what the rest of a
# traced thread's CPU pays.

# One timed untraced ping-pong beside tracer $1; sets RES.
run_ppu() {
	local v=$1 out=$TMP/ppu.out terr=$TMP/ppu.tracer sl tr="" args=()

	RES=""
	: >"$out"
	: >"$terr"
	if [ "$v" != alone ]; then
		# an idle target: funcs waits for SIGUSR1 before its loop (killed
		# after); tl_cpu: on the ping-pong's CPU
		if [ "$v" = tl_cpu ]; then
			taskset -c "$WCPU" "$FUNCS" --bench 1 --wait-signal >"$TMP/ppu.idle" 2>>"$LOG" &
		else
			"$FUNCS" --bench 1 --wait-signal >"$TMP/ppu.idle" 2>>"$LOG" &
		fi
		sl=$!
		BG_PIDS+=("$sl")
		wait_for_line "$TMP/ppu.idle" '^READY' "$sl" || return
		case $v in
		xl) args=(--no-sample) ;;
		tl_nohist) args=(--no-sample --timeline --no-waker-history) ;;
		tl | tl_cpu) args=(--no-sample --timeline) ;;
		esac
		if [ "$v" = perf ]; then
			"${ON_TRACER_CPUS[@]}" "$PERF" record -a "${PERF_EVENTS[@]}" -o "$TMP/perfu.data" \
				>"$terr" 2>&1 &
			tr=$!
			sleep 2
		else
			"${ON_TRACER_CPUS[@]}" "$XLPROBE" record -o "$TMP/ppu.xlp" -p "$sl" \
				--interaction "$FUNCS:cheap" "${args[@]}" >/dev/null 2>"$terr" &
			tr=$!
			wait_for_line "$terr" '^xlprobe: recording' "$tr" || { kill "$sl"; return; }
			if [ "$v" = tl_cpu ]; then
				# a switch of the traced process on the ping-pong's CPU
				kill -STOP "$sl"
				sleep 0.1
				kill -CONT "$sl"
				sleep 0.2
			fi
		fi
		BG_PIDS+=("$tr")
	fi
	timeout -k 5 "$RUN_TIMEOUT" "$PINGPONG" "${PP_ARGS[@]}" >"$out" 2>>"$LOG"
	RES=$(awk '$1 == "ROUNDTRIPS" { print ($5 != "") ? $5 : $4 }' "$out")
	if [ -n "$tr" ]; then
		kill -INT "$tr" 2>/dev/null
		bg_wait "$tr" 30
		kill "$sl" 2>/dev/null
		wait "$sl" 2>/dev/null
	fi
}

sec_begin 1b
if want 1b; then
	PPU_VARIANTS=(alone xl tl_nohist tl tl_cpu)
	[ "$HAVE_PERF" = 1 ] && PPU_VARIANTS+=(perf)
	declare -A PPU_RUNS=([alone]="" [xl]="" [tl_nohist]="" [tl]="" [tl_cpu]="" [perf]="")
	declare -A PPU_LABEL=()
	bench_labels ppu PPU_LABEL
	echo
	echo "== 1b. The timeline beside the traced threads: the same ping-pong, untraced, while xlprobe records an idle process =="
	rounds run_ppu PPU_VARIANTS PPU_RUNS PPU_LABEL "$TMP/ppu.tracer"
	# shellcheck disable=SC2086 # word splitting of the run lists is intended
	base=$(median ${PPU_RUNS[alone]})
	printf '%-56s %12s %9s  %s\n' "variant" "CPU ns/rt" "slowdown" "runs"
	for v in "${PPU_VARIANTS[@]}"; do
		# shellcheck disable=SC2086
		m=$(median ${PPU_RUNS[$v]})
		printf '%-56s %12s %9s  %s\n' "${PPU_LABEL[$v]}" "$m" \
			"$(calc 'printf "%.2fx", a / b' "$m" "$base")" "${PPU_RUNS[$v]:-(failed)}"
	done
fi
