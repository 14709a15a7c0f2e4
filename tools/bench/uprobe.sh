# shellcheck shell=bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tools/bench/uprobe.sh: sections 2 (uprobe cost) and 2u (USDT cost): run
# where they are sourced.
#
# Sourced by tools/bench.sh in its turn, after the parts before it (its top
# says what each section measures; make bench and make bench-quick run it).

# ---- 2. uprobe cost --------------------------------------------------------------

# The bpftrace program of variant $1: bt, empty uprobe+uretprobe (the
# summary's reference); btt, the same pair timing each call into a
# histogram, as funclatency or a bpftrace one-liner would (information: a
# marked call takes two timestamps too, and on this VM bpf_ktime_get_ns
# alone costs 35-105 ns, more than the 5 % that row 2's target allows).
bt_prog() {
	local probes

	if [ "$1" = btt ]; then
		probes="uprobe:$FUNCS:cheap { @s[tid] = nsecs; }
			uretprobe:$FUNCS:cheap /@s[tid]/ { @ns = hist(nsecs - @s[tid]); delete(@s[tid]); }"
	else
		probes="uprobe:$FUNCS:cheap {} uretprobe:$FUNCS:cheap {}"
	fi
	printf 'BEGIN { printf("ready\\n"); }\n%s\n' "$probes"
}

# Starts the target $2... on the workload CPU, its stdout into $1, and
# waits for its READY (it then waits for SIGUSR1): TARGET is its pid;
# false, the target reaped, when it did not say READY.
bench_target() {
	local out=$1

	shift
	taskset -c "$WCPU" "$@" >"$out" 2>>"$LOG" &
	TARGET=$!
	BG_PIDS+=("$TARGET")
	if ! wait_for_line "$out" '^READY' "$TARGET"; then
		bg_wait "$TARGET" 5
		return 1
	fi
}

# Tracer $1, just started in the background, attaches to target $2, which
# waits after READY: once the tracer's output $3 shows $4, the target is
# released and its BENCH line in $5 sets RES (ns per call: the thread's
# CPU time when the line has it); $6 names the tracer in a note when it
# does not attach. Both stop by themselves when the target exits; with $7
# "timed", the tracer's stop is timed from that exit (stop_timed).
bench_attached() {
	local tp=$1 target=$2 terr=$3 pat=$4 out=$5 v=$6 timed=${7:-}

	BG_PIDS+=("$tp")
	if wait_for_line "$terr" "$pat" "$tp"; then
		kill -USR1 "$target"
		bg_wait "$target" "$RUN_TIMEOUT"
		RES=$(awk '$1 == "BENCH" { print ($5 != "") ? $5 : $4 }' "$out")
	else
		note "$v did not attach: $(grep -v RLIMIT "$terr" | tail -2)"
		kill -KILL "$target" 2>/dev/null
		bg_wait "$target" 5
	fi
	if [ -n "$timed" ] && [ -n "$RES" ]; then
		stop_timed "$tp" 0 "$v"
	else
		bg_wait "$tp" 30
	fi
	cat "$terr" >>"$LOG"
}

# One timed funcs --bench under tracer $1 (alone, bt, btt, xl), attached
# with -p before the loop starts; sets RES to ns per call, empty on failure.
run_up() {
	local v=$1 out=$TMP/up.out terr=$TMP/up.tracer fp pat=""

	RES=""
	: >"$out"
	: >"$terr"
	if [ "$v" = alone ]; then
		timeout -k 5 "$RUN_TIMEOUT" taskset -c "$WCPU" "$FUNCS" --bench "$CALLS" >"$out" 2>>"$LOG"
		RES=$(awk '$1 == "BENCH" { print ($5 != "") ? $5 : $4 }' "$out")
		return
	fi
	bench_target "$out" "$FUNCS" --bench "$CALLS" --wait-signal || return
	fp=$TARGET
	case $v in
	bt | btt)
		"${ON_TRACER_CPUS[@]}" "$BPFTRACE" -p "$fp" -e "$(bt_prog "$v")" >"$terr" 2>&1 &
		pat='^ready'
		;;
	xl)
		# not -q: "recording PID" on stderr says every probe is attached
		"${ON_TRACER_CPUS[@]}" "$XLPROBE" record -o "$TMP/up.xlp" -p "$fp" --func "$FUNCS:cheap" \
			>"$terr" 2>&1 &
		pat='recording PID'
		;;
	esac
	bench_attached $! "$fp" "$terr" "$pat" "$out" "$v" timed
}

# bpf_stats of each tracer over one bench. bpftrace -p and xlprobe -p stop
# when the target exits, so both attach to launch-style targets that outlive
# the loop: bpftrace system-wide (only funcs --bench calls cheap()), xlprobe
# launching a shell that waits after funcs. Writes $TMP/upstats.$1.
stats_up() {
	local v=$1 out=$TMP/upstats.out terr=$TMP/upstats.tracer tp c0=""

	: >"$out"
	: >"$terr"
	rm -f "$TMP/wrapper.pid"
	case $v in
	bt | btt)
		"${ON_TRACER_CPUS[@]}" "$BPFTRACE" -e "$(bt_prog "$v")" >"$terr" 2>&1 &
		tp=$!
		BG_PIDS+=("$tp")
		if wait_for_line "$terr" '^ready' "$tp"; then
			timeout -k 5 "$RUN_TIMEOUT" taskset -c "$WCPU" "$FUNCS" --bench "$CALLS" >"$out" 2>>"$LOG"
			prog_stats "$tp" >"$TMP/upstats.$v"
		fi
		# bpftrace started in the background ignores SIGINT (no job control)
		stop_timed "$tp" TERM "$v"
		;;
	xl)
		# shellcheck disable=SC2016 # $$ and $@ are the wrapper shell's
		# --probe-forks: funcs is a child of the launched shell
		"${ON_TRACER_CPUS[@]}" "$XLPROBE" record -o "$TMP/up.xlp" --func "$FUNCS:cheap" \
			--probe-forks -- sh -c 'echo $$ >"$0"; "$@"; exec sleep 600' "$TMP/wrapper.pid" \
			taskset -c "$WCPU" "$FUNCS" --bench "$CALLS" >"$out" 2>"$terr" &
		tp=$!
		BG_PIDS+=("$tp")
		# the recorder's CPU from its attach (its start, the programs'
		# loading and verification, are not per call) to the end of the
		# calls, with its last timed drain (100 ms)
		wait_for_line "$terr" 'recording' "$tp" && c0=$(proc_cpu_ns "$tp")
		if wait_for_line "$out" '^BENCH' "$tp"; then
			sleep 0.3
			prog_stats "$tp" >"$TMP/upstats.$v"
			[ -n "$c0" ] && echo $(($(proc_cpu_ns "$tp") - c0)) >"$TMP/upcpu.$v"
		fi
		[ -s "$TMP/wrapper.pid" ] && kill -TERM "$(cat "$TMP/wrapper.pid")" 2>/dev/null
		;;
	esac
	bg_wait "$tp" 30
	rm -f "$TMP/wrapper.pid" # its PID may be reused: never kill it again
	cat "$terr" >>"$LOG"
	[ "$v" = xl ] && grep -o 'wrote .*' "$terr" | sed 's/^wrote [^:]*: //' >"$TMP/updrop.xl"
	[ -s "$TMP/upstats.$v" ] || note "no bpf_stats for $v"
}

sec_begin 2
if want 2; then
	echo
	echo "== 2. Uprobe cost: funcs --bench $CALLS (empty cheap(), push %rbp prologue), CPU $WCPU =="
	# shellcheck disable=SC2034 # read by rounds(), by name
	UP_VARIANTS=(alone xl)
	# shellcheck disable=SC2034
	[ "$HAVE_BPFTRACE" = 1 ] && UP_VARIANTS=(alone bt btt xl)
	declare -A UP_RUNS=([alone]="" [bt]="" [btt]="" [xl]="")
	declare -A UP_COST=([alone]=n/a [bt]=n/a [btt]=n/a [xl]=n/a)
	declare -A UP_IWI=([alone]=0 [bt]=0 [btt]=0 [xl]=0)
	declare -A UP_LABEL=()
	bench_labels up UP_LABEL
	sysctl -qw kernel.bpf_stats_enabled=0 2>>"$LOG"
	run_up alone # warm-up
	rounds run_up UP_VARIANTS UP_RUNS UP_LABEL "$LOG" UP_IWI
	# shellcheck disable=SC2086
	ubase=$(median ${UP_RUNS[alone]})
	# the workload thread's CPU time per call (the traps and the programs
	# run in its context), not the wall time, which another session's
	# process preempting it adds to
	printf '%-50s %12s %9s %7s  %s\n' "variant" "CPU ns/call" "cost/call" "IPI/1k" "runs"
	for v in alone bt btt xl; do
		if [ "$v" != alone ] && [ "$v" != xl ] && [ "$HAVE_BPFTRACE" = 0 ]; then
			printf '%-50s %12s %9s %7s  %s\n' "${UP_LABEL[$v]}" "n/a" "n/a" "n/a" "(bpftrace not found)"
			continue
		fi
		# shellcheck disable=SC2086
		m=$(median ${UP_RUNS[$v]})
		cost=$(calc 'printf "%.1f", a - b' "$m" "$ubase")
		ipi=$(calc 'printf "%.1f", a * 1000 / (b * c)' "${UP_IWI[$v]}" "$CALLS" "$REPS")
		printf '%-50s %12s %9s %7s  %s\n' "${UP_LABEL[$v]}" "$m" "$cost" "$ipi" "${UP_RUNS[$v]:-(failed)}"
		UP_COST[$v]=$cost
	done
	if [ "$HAVE_BPFTRACE" = 1 ]; then
		ratio=$(ratio_of "${UP_COST[xl]}" "${UP_COST[bt]}")
		# shellcheck disable=SC2086
		best=$(calc 'printf "%.2f", (a - c) / (b - c)' "$(minimum ${UP_RUNS[xl]})" \
			"$(minimum ${UP_RUNS[bt]})" "$(minimum ${UP_RUNS[alone]})")
		echo "cost ratio xlprobe / bpftrace: ${ratio}x (fastest runs: ${best}x); target <= ${SUM_TARGET[2]}x:" \
			"$(judge "$ratio" "${SUM_TARGET[2]}") (summary row 2)"
		echo "information: xlprobe / bpftrace timing the call (two timestamps, a map, a histogram):" \
			"$(ratio_of "${UP_COST[xl]}" "${UP_COST[btt]}")x"
		sum_set 2 "${UP_COST[xl]}" "${UP_COST[bt]}"
	else
		sum_na 2 "bpftrace missing"
	fi

	sysctl -qw kernel.bpf_stats_enabled=1 2>>"$LOG" || note "cannot enable bpf_stats"
	if [ "$HAVE_BPFTRACE" = 1 ]; then
		stats_up bt
		stats_up btt
	fi
	stats_up xl
	sysctl -qw kernel.bpf_stats_enabled="$OLD_BPF_STATS" 2>>"$LOG"
	echo "BPF programs per call (bpf_stats, one extra run each; the rest of the cost is the uprobe"
	echo "machinery both pay: int3 trap, emulated push, return-address hijack, uretprobe trampoline):"
	printf '  %-10s %-24s %9s %9s %8s\n' "tracer" "program" "run_cnt" "per call" "avg ns"
	for v in bt btt xl; do
		[ -s "$TMP/upstats.$v" ] || continue
		# bpftrace's uprobe and uretprobe programs are both named after the
		# function; xlprobe's other programs see background events only (it
		# attaches no syscall tracepoint, which the uretprobe() syscall a
		# uretprobe returns through on x86 since 6.11 would hit once per call)
		awk -v n="$CALLS" -v tr="$v" '
			BEGIN { name = (tr == "xl") ? "xlprobe" : (tr == "btt") ? "bpftrace-t" : "bpftrace" }
			$2 == 0 { next }
			tr != "xl" || $1 ~ /^xlp_func_/ {
				printf "  %-10s %-24s %9d %9.2f %8.0f\n", name, $1, $2, $2 / n, $3 / $2
				t += $3
				next
			}
			{ oc += $2; ot += $3 }
			END {
				if (oc) printf "  %-10s %-24s %9d %9s %8.0f   other processes: not per call\n", name, "other xlp_* programs", oc, "-", ot / oc
				printf "  %-10s %-24s %9s %9s %8.0f   per call\n", name, "total", "", "", t / n
		}' "$TMP/upstats.$v"
	done
	if [ -s "$TMP/upcpu.xl" ] && [ -s "$TMP/upstats.xl" ]; then
		rd=$(calc 'printf "%.0f", a / b' "$(cat "$TMP/upcpu.xl")" "$CALLS")
		bpfns=$(awk -v n="$CALLS" '$1 ~ /^xlp_func_/ { t += $3 } END { printf "%.0f", t / n }' "$TMP/upstats.xl")
		echo "  xlprobe's recorder (user space: drain, trace writer, compression; all its threads, on CPU" \
			"${TRACER_CPUS:-$WCPU}, from its attach to the end of the calls): $rd ns of CPU per call," \
			"the BPF programs' $bpfns: ratio $(ratio_of "$rd" "$bpfns") (summary row 5); $(cat "$TMP/updrop.xl" 2>/dev/null)"
		sum_set 5 "$rd" "$bpfns"
	else
		sum_na 5 "no bpf_stats or CPU time of the recorder (see above)"
	fi
fi

# ---- 2u. USDT cost --------------------------------------------------------------

# One timed usdtwl --bench under tracer $1 (alone, bt, xl), attached with -p
# before the loop starts (the run_up of section 2 for USDT probes); sets
# RES to ns per call, empty on failure.
run_usdt() {
	local v=$1 out=$TMP/usdt.out terr=$TMP/usdt.tracer wp pat

	RES=""
	: >"$out"
	: >"$terr"
	bench_target "$out" "$USDTWL" --bench "$CALLS" || return
	wp=$TARGET
	case $v in
	alone)
		kill -USR1 "$wp"
		bg_wait "$wp" "$RUN_TIMEOUT"
		RES=$(awk '$1 == "BENCH" { print ($5 != "") ? $5 : $4 }' "$out")
		return
		;;
	bt)
		"${ON_TRACER_CPUS[@]}" "$BPFTRACE" -p "$wp" -e "BEGIN { printf(\"ready\\n\"); }
			usdt:$USDTWL:xlpwl:cheap__start {} usdt:$USDTWL:xlpwl:cheap__done {}" >"$terr" 2>&1 &
		pat='^ready'
		;;
	xl)
		"${ON_TRACER_CPUS[@]}" "$XLPROBE" record -o "$TMP/usdt.xlp" -p "$wp" \
			--func "usdt:$USDTWL:xlpwl:cheap__start,cheap__done" >"$terr" 2>&1 &
		pat='recording PID'
		;;
	esac
	bench_attached $! "$wp" "$terr" "$pat" "$out" "$v"
}

sec_begin 2u
if want 2u; then
	echo
	echo "== 2u. USDT cost: usdtwl --bench $CALLS (an empty call between two USDT probes), CPU $WCPU =="
	if [ ! -x "$USDTWL" ]; then
		note "$USDTWL is missing: run 'make build-tests'"
	else
		# shellcheck disable=SC2034 # read by rounds(), by name
		US_VARIANTS=(alone xl)
		# shellcheck disable=SC2034
		[ "$HAVE_BPFTRACE" = 1 ] && US_VARIANTS=(alone bt xl)
		declare -A US_RUNS=([alone]="" [bt]="" [xl]="")
		declare -A US_COST=([alone]=n/a [bt]=n/a [xl]=n/a)
		declare -A US_LABEL=()
		bench_labels us US_LABEL
		run_usdt alone # warm-up
		rounds run_usdt US_VARIANTS US_RUNS US_LABEL "$LOG"
		# shellcheck disable=SC2086
		ubase=$(median ${US_RUNS[alone]})
		printf '%-60s %12s %9s  %s\n' "variant" "CPU ns/call" "cost/call" "runs"
		for v in "${US_VARIANTS[@]}"; do
			# shellcheck disable=SC2086
			m=$(median ${US_RUNS[$v]})
			cost=$(calc 'printf "%.1f", a - b' "$m" "$ubase")
			printf '%-60s %12s %9s  %s\n' "${US_LABEL[$v]}" "$m" "$cost" "${US_RUNS[$v]:-(failed)}"
			US_COST[$v]=$cost
		done
		if [ "$HAVE_BPFTRACE" = 1 ]; then
			echo "cost ratio xlprobe / bpftrace, a USDT-marked call (two probes each):" \
				"$(ratio_of "${US_COST[xl]}" "${US_COST[bt]}")x (section 2's uprobe pair for comparison)"
		else
			note "bpftrace not found: no USDT ratio"
		fi
	fi
fi
