# shellcheck shell=bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tools/bench/lag.sh: section 10 (record --lag over a long recording): a
# function, called from tools/bench.sh in its turn.
#
# Sourced by tools/bench.sh in its turn, after the parts before it (its top
# says what each section measures; make bench and make bench-quick run it).

# ---- 10. record --lag over a long recording (a function: BENCH_ONLY=lag runs it alone) ----

# docs/recording.md, "record --lag": what a day of recording costs. Section 6's
# pgbench select-only load, one client, for XLP_BENCH_LAG_SECONDS (600),
# three ways, one run each: alone, under record -p BACKEND -i PortalRun
# --lag 100ms, and the same without --lag. Each transaction is a run; at
# scale 1 none lags, so --lag keeps one in 20 and summarizes the rest. The
# throughput of each against alone, and the trace's bytes over the time the
# recorder was attached, extrapolated to an hour. One run each: a long
# run's tps is a mean already, and three long runs fill the budget.
lag_one() {
	local v=$1 secs=$2
	local out=$TMP/lag-$v.pgbench terr=$TMP/lag-$v.err pb tp="" backend ta te args

	LAG_TPS="" LAG_BPH="" LAG_RUNS=""
	: >"$out"
	: >"$terr"
	taskset -c "$WCPU" "$PGBIN/pgbench" -n -f "$TMP/select.pgb" -c 1 -j 1 -T "$secs" \
		>"$out" 2>&1 &
	pb=$!
	BG_PIDS+=("$pb")
	if ! backend=$(pg_backend "$pb"); then
		note "pgbench did not connect: $(tail -n 2 "$out" | tr '\n' ' ')"
		bg_wait "$pb" 5
		return
	fi
	if [ "$v" != alone ]; then
		args=(-p "$backend" -o "$TMP/lag-$v.xlp" -i "$PGBIN/postgres:PortalRun")
		[ "$v" = lag ] && args+=(--lag 100ms)
		"${ON_TRACER_CPUS[@]}" "$XLPROBE" record "${args[@]}" >/dev/null 2>"$terr" &
		tp=$!
		BG_PIDS+=("$tp")
		wait_for_line "$terr" 'recording PID' "$tp" || note "$v did not attach"
		ta=$(date +%s%N)
	fi
	bg_wait "$pb" $((secs + 60))
	LAG_TPS=$(awk '$1 == "tps" && $2 == "=" { printf "%.1f", $3; exit }' "$out")
	[ -n "$tp" ] || return
	# the recorder stops when the backend exits with its client
	bg_wait "$tp" 60
	te=$(date +%s%N)
	cat "$terr" >>"$LOG"
	LAG_RUNS=$(sed -n 's/.*wrote .*: \([0-9]*\) runs,.*/\1/p' "$terr")
	LAG_BPH=$(calc 'printf "%.1f", a * 3600e9 / b / 1e6' "$(stat -c %s "$TMP/lag-$v.xlp" 2>/dev/null ||
		echo n/a)" "$((te - ta))")
	rm -f "$TMP/lag-$v.xlp"
}

bench_lag() {
	local secs=${XLP_BENCH_LAG_SECONDS:-600} v
	declare -A tps=() bph=() runs=() label=([alone]="alone"
		[lag]="xlprobe record -p BACKEND -i PortalRun --lag 100ms"
		[full]="xlprobe record -p BACKEND -i PortalRun (no --lag)")

	want 10 || return 0
	echo
	echo "== 10. record --lag: pgbench select-only for $secs s, 1 client, on CPU $WCPU; one run each =="
	case $secs in '' | *[!0-9]* | 0)
		echo "n/a: XLP_BENCH_LAG_SECONDS must be a positive number of seconds"
		return
		;;
	esac
	if [ ! -x "$PGBIN/postgres" ] || [ ! -x "$PGBIN/pgbench" ] || ! id postgres >/dev/null 2>&1; then
		echo "n/a: PostgreSQL 15 not found in $PGBIN (tools/install-deps.sh installs postgresql-15)"
		return
	fi
	pg_cgroup_join 2>>"$LOG" || note "no cpu cgroup: other sessions' load weighs fully"
	if pg_setup; then
		for v in alone lag full; do
			lag_one "$v" "$secs"
			tps[$v]=${LAG_TPS:-n/a} bph[$v]=${LAG_BPH:-n/a} runs[$v]=${LAG_RUNS:-n/a}
		done
		printf '%-52s %9s %7s %7s %12s %10s\n' "variant" "tps" "ratio" "loss" "trace MB/h" "runs"
		for v in alone lag full; do
			printf '%-52s %9s %7s %7s %12s %10s\n' "${label[$v]}" "${tps[$v]}" \
				"$(calc 'printf "%.3f", a / b' "${tps[$v]}" "${tps[alone]}")" \
				"$(calc 'printf "%.1f %%", (1 - a / b) * 100' "${tps[$v]}" "${tps[alone]}")" \
				"$([ "$v" = alone ] && echo - || echo "${bph[$v]}")" \
				"$([ "$v" = alone ] && echo - || echo "${runs[$v]}")"
		done
		echo "trace per hour with --lag 100ms: ${bph[lag]} MB, without: ${bph[full]} MB" \
			"($(calc 'printf "%.1f", b / a' "${bph[lag]}" "${bph[full]}")x smaller)"
	else
		echo "n/a: the PostgreSQL cluster did not start (see the log lines below)"
		tail -n 5 "$LOG"
	fi
	[ -n "$PG_DIR" ] && pg_teardown
	[ -n "$PG_CG" ] && pg_cgroup_leave 2>>"$LOG"
}
