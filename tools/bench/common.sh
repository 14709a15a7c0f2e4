# shellcheck shell=bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tools/bench/common.sh: the helpers every section uses: messages, the
# clean-up on exit, background processes, medians and ratios, alternated
# rounds, CPU times, bpf_stats.
#
# Sourced by tools/bench.sh in its turn, after the parts before it (its top
# says what each section measures; make bench and make bench-quick run it).

die() {
	echo "bench: $*" >&2
	exit 1
}

note() {
	echo "bench: $*" >&2
}

# bench_labels TABLE ARRAY: the associative array ARRAY (declared by the
# caller) gets the labels of TABLE's variants, from tools/bench/labels.tsv
# shellcheck disable=SC2004,SC2034 # bl_labels: a name for the caller's associative array
bench_labels() {
	local -n bl_labels=$2
	local t k l

	while IFS=$'\t' read -r t k l; do
		[ "$t" = "$1" ] && bl_labels[$k]=$l
	done <"$BENCH_PARTS/labels.tsv"
}

# ---- cleanup ---------------------------------------------------------------

# shellcheck disable=SC2317 # reached through the EXIT trap
cleanup() {
	local pid

	trap - EXIT INT TERM
	# SIGTERM first: the tracers detach and exit cleanly on it
	for pid in "${BG_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	sleep 0.2
	for pid in "${BG_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	# pgbench and the tracers are gone: the cluster can stop
	if [ -n "$PG_DIR" ]; then
		pg_teardown
	fi
	if [ -n "$PG_CG" ]; then
		pg_cgroup_leave
	fi
	# the shell a stats run launched, if it still waits in its sleep
	if [ -n "$TMP" ] && [ -s "$TMP/wrapper.pid" ]; then
		kill -TERM "$(cat "$TMP/wrapper.pid")" 2>/dev/null
	fi
	if [ -n "$OLD_BPF_STATS" ]; then
		sysctl -qw kernel.bpf_stats_enabled="$OLD_BPF_STATS" >/dev/null 2>&1
	fi
	if [ "$MOUNTED_TRACEFS" = 1 ]; then
		umount "$TRACEFS" 2>/dev/null || note "could not unmount $TRACEFS (busy?)"
	fi
	if [ -n "$TMP" ]; then
		rm -rf "$TMP"
	fi
}

trap cleanup EXIT
trap 'note "interrupted"; exit 130' INT TERM

bg_forget() {
	local pid keep=()

	for pid in "${BG_PIDS[@]}"; do
		[ "$pid" = "$1" ] || keep+=("$pid")
	done
	BG_PIDS=("${keep[@]}")
}

# waits for a background process, at most $2 seconds, then kills it
bg_wait() {
	local pid=$1 max=$2 i=0 rc

	while kill -0 "$pid" 2>/dev/null && [ "$i" -lt $((max * 20)) ]; do
		sleep 0.05
		i=$((i + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		note "process $pid ($(cat "/proc/$pid/comm" 2>/dev/null)) still running after ${max}s: killing it"
		# where it is stuck, for the log: each thread's state and kernel stack
		for t in /proc/"$pid"/task/*; do
			echo "  $t: $(cat "$t/comm" 2>/dev/null) $(awk '/^State/ { print $2 }' "$t/status" 2>/dev/null) $(cat "$t/wchan" 2>/dev/null)"
			sed 's/^/    /' "$t/stack" 2>/dev/null
		done >>"${LOG:-/dev/stderr}"
		kill -TERM "$pid" 2>/dev/null
		sleep 1
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	rc=$?
	bg_forget "$pid"
	return "$rc"
}

# waits until file $1 has a line matching $2 (while process $3 lives)
wait_for_line() {
	local file=$1 pat=$2 pid=$3 i=0

	while [ "$i" -lt $((RUN_TIMEOUT * 50)) ]; do
		grep -q -- "$pat" "$file" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || { grep -q -- "$pat" "$file" 2>/dev/null; return; }
		sleep 0.02
		i=$((i + 1))
	done
	return 1
}

# ---- small helpers -----------------------------------------------------------

minimum() {
	[ $# -gt 0 ] || { echo "n/a"; return; }
	printf '%s\n' "$@" | sort -g | head -1
}

maximum() {
	[ $# -gt 0 ] || { echo "n/a"; return; }
	printf '%s\n' "$@" | sort -g | tail -1
}

median() {
	[ $# -gt 0 ] || { echo "n/a"; return; }
	printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 }
		END { if (NR % 2) printf "%.1f\n", a[(NR + 1) / 2]
		      else printf "%.1f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# awk arithmetic on numbers that may be "n/a"
calc() {
	local expr=$1
	shift
	case " $* " in *" n/a "* | *"  "*) echo "n/a"; return ;; esac
	awk -v a="${1:-0}" -v b="${2:-0}" -v c="${3:-0}" "BEGIN { $expr }"
}

# irq_work interrupts so far on the workload CPU: a BPF program's
# BPF_RB_FORCE_WAKEUP raises one per record (a self-IPI, a VM exit here)
iwi_count() {
	awk -v c="$WCPU" '$1 == "IWI:" { print $(c + 2); found = 1 } END { if (!found) print 0 }' /proc/interrupts
}

# REPS rounds of every variant of a section, in turn. RUN_FN VARIANT leaves
# its result in RES (empty: failed); the results gather in the associative
# array RUNS (by name, as do VARIANTS and LABELS). With LOGFILE, a failure
# shows its last lines; with IWI, the irq_work interrupts of each variant
# add up there.
rounds() {
	local run_fn=$1 logfile=${5:-} iwi_name=${6:-} r v i0=0
	local -n rounds_vars=$2 rounds_runs=$3 rounds_labels=$4
	for ((r = 0; r < REPS; r++)); do
		for v in "${rounds_vars[@]}"; do
			[ -n "$iwi_name" ] && i0=$(iwi_count)
			"$run_fn" "$v"
			[ -n "$iwi_name" ] && iwi_add "$iwi_name" "$v" $(($(iwi_count) - i0))
			if [ -n "$RES" ]; then
				rounds_runs[$v]+="$RES "
			else
				note "run '${rounds_labels[$v]}' failed${logfile:+ (see log below)}"
				[ -n "$logfile" ] && tail -3 "$logfile" >&2
			fi
		done
	done
}

# IWI[VARIANT] += N, IWI named by the caller
iwi_add() {
	local -n iwi_to=$1
	iwi_to[$2]=$((${iwi_to[$2]} + $3))
}

# The CPU time of every thread of process $1 (schedstat: ns, exact), in ns
proc_cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'
}

# The run_cnt / run_time_ns of every BPF program process $1 holds open,
# from its fdinfo (one consistent read, no matter which other sessions
# load programs named like ours), joined with the names bpftool shows.
# Output lines: name run_cnt run_time_ns
prog_stats() {
	local pid=$1 names=$TMP/prognames

	bpftool prog show 2>/dev/null | awk '/^[0-9]+:/ {
		id = $1; sub(":", "", id)
		for (i = 2; i < NF; i++) if ($i == "name") { print id, $(i + 1); break }
	}' >"$names"
	awk 'FNR == 1 { id = ""; c = ""; t = 0 } /^prog_id:/ { id = $2 } /^run_time_ns:/ { t = $2 } /^run_cnt:/ { c = $2 }
		/^prog_id:/ || /^run_cnt:/ { if (id != "" && c != "") { print id, c, t; id = ""; c = "" } }' \
		"/proc/$pid"/fdinfo/* 2>/dev/null | sort -u |
		awk -v names="$names" 'BEGIN { while ((getline l < names) > 0) { split(l, f, " "); n[f[1]] = f[2] } }
			{ nm = ($1 in n) ? n[$1] : "id" $1; cnt[nm] += $2; ns[nm] += $3 }
			END { for (nm in cnt) print nm, cnt[nm], ns[nm] }' | sort
}
