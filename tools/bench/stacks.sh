# shellcheck shell=bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tools/bench/stacks.sh: section 7 (stack sampling: its cost and its bound):
# run where it is sourced.
#
# Sourced by tools/bench.sh in its turn, after the parts before it (its top
# says what each section measures; make bench and make bench-quick run it).

sec_begin 7
if want 7; then
	echo
	echo "== 7. Stack sampling: what it costs, and its bound (PerfProbe III-B) =="
	STACKS=$OUT/tests/workloads/stacks
	if [ ! -x "$STACKS" ]; then
		echo "n/a: $STACKS not built (make build-tests)"
	else
		# the work a pinned CPU-bound run does in 2 s of its CPU time (stacks
		# prints its iterations): alone / under record --sample at the default
		# bound (3 %) and at -F 999 with the bound off (50 %). The programs run
		# in the tick's interrupt on the sampled thread, so their time is in
		# its CPU time and the iterations drop by the share they take; the
		# recorder's start and stop are outside the measure (a wall clock
		# around `record -- cmd` counted its ~1 s of BPF loading).
		declare -A SM_RUNS=([alone]="" [bound]="" [fixed]="")
		declare -A SM_LABEL=()
		bench_labels sm SM_LABEL
		sm_run() {
			local rec=()
			case $1 in
			bound) rec=("$XLPROBE" record -q --sample -o "$TMP/sm.xlp" --) ;;
			fixed) rec=("$XLPROBE" record -q --sample --sample-overhead 50 -o "$TMP/sm.xlp" --) ;;
			esac
			RES=$(timeout -k 5 "$RUN_TIMEOUT" "${rec[@]}" taskset -c "$WCPU" "$STACKS" --ms 2000 \
				2>>"$LOG" | awk '$1 == "DONE" { print $2 }') || RES=""
		}
		for ((r = 0; r < REPS; r++)); do
			for v in alone bound fixed; do
				sm_run "$v"
				[ -n "$RES" ] && SM_RUNS[$v]+="$RES "
			done
		done
		# shellcheck disable=SC2086
		sbase=$(median ${SM_RUNS[alone]})
		printf '%-58s %12s %8s  %s\n' "variant (stacks --ms 2000 of CPU, pinned)" "iterations" \
			"slowdown" "runs (millions)"
		for v in alone bound fixed; do
			# shellcheck disable=SC2086
			m=$(median ${SM_RUNS[$v]})
			printf '%-58s %12.0f %8s  %s\n' "${SM_LABEL[$v]}" "${m:-0}" \
				"$(calc 'printf "%.3f", a / b' "$sbase" "$m")" \
				"$(for x in ${SM_RUNS[$v]}; do printf '%d ' $((x / 1000000)); done)"
		done
		# what the trace says sampling cost, per window: a phase of shallow
		# stacks then one 60 frames deep (a dearer walk) at a 0.5 % bound
		if "$XLPROBE" record -q --sample-overhead 0.5 -o "$TMP/smd.xlp" -- taskset -c "$WCPU" \
			"$STACKS" --ms 1500 --deep-ms 1500 >/dev/null 2>>"$LOG"; then
			echo "bound 0.5 %, 1.5 s shallow then 1.5 s deep; per window (period, cost per on-CPU sample, cost / CPU):"
			"$XLPROBE" dump "$TMP/smd.xlp" | awk '
				$1 == "sampling" {
					for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
					n++
					o = v["cpu_ns"] > 0 ? 100 * v["cost_ns"] / v["cpu_ns"] : 0
					printf "  %2d  period %7.2f ms -> %7.2f ms  %6.1f us/sample  %5.2f %%%s\n", n,
						v["period_ns"] / 1e6, v["next_period_ns"] / 1e6,
						v["on_samples"] ? v["cost_ns"] / v["on_samples"] / 1e3 : 0, o,
						n == 1 ? "  (the floor period, before any measure)" : ""
					if (n > 1) { c += v["cost_ns"]; u += v["cpu_ns"]; if (o > mx) mx = o }
				}
				END {
					if (u > 0)
						printf "after the first window: cost / CPU %.2f %%, the worst window %.2f %%; bound 0.5 %%: %s\n",
							100 * c / u, mx, (100 * c / u <= 0.5) ? "met" : "OVER"
				}'
		else
			echo "n/a: the recording failed (see the log)"
		fi
	fi
fi
