# shellcheck shell=bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tools/bench/postgres.sh: section 6 (a real application: PostgreSQL): run
# where it is sourced.
#
# Sourced by tools/bench.sh in its turn, after the parts before it (its top
# says what each section measures; make bench and make bench-quick run it).

# ---- 6. a real application: PostgreSQL ------------------------------------------

# PostgreSQL 15's throughput (pgbench tps) alone, under xlprobe record -p on
# the server process of pgbench's connection (its scheduler accounting
# alone: record wants a function, so ProcSleep, a lock wait that a
# read-only load never reaches; then with a realistic probe set), and
# under perf record of the same scheduler tracepoints on the same process;
# the loss against alone (PerfProbe reports 3.5 % on its apps). The
# summary judges the scheduler accounting's loss against perf's: at most
# half (row 3). Then the set-up recommended on real servers: record -p
# BACKEND -i PortalRun, whose stack samples (on by default without --func:
# up to 999 Hz, bounded at 3 % of the traced CPU) find the functions,
# beside perf record -g -F 999 -p BACKEND, perf's own way to the same
# answer: its loss at most perf's (row 4), and the same without samples
# (--no-sample), which splits row 4's loss into its parts. The summary's
# losses are paired: each round's run against that round's alone run,
# the median over rounds (the machine drifts between rounds more than
# the losses measured).
#
# The workload, pgbench's select-only script with one client: a lookup by
# primary key per transaction, the commonest OLTP statement and the
# shortest (~25 us of client and server CPU here), so the per-call cost of
# the probes shows at its worst. Read-only at scale 1 (16 MB, all in
# shared_buffers), no autovacuum, checkpointed after the load: nothing grows
# or changes from one run to the next, so the alternated runs compare
# (tpcb-like's tables grow, and its tps fell 20 % within four runs here).
# The script is given as a file, not as -S: with a built-in script pgbench
# first counts pgbench_branches on a connection of its own, whose backend
# would pass for the client's.
#
# The pinning: the client and the whole cluster (the postmaster's affinity
# passes to every process it forks) share the workload CPU, the tracers run
# on the other one. A query is then a wakeup on the same CPU, as in section
# 1; across CPUs each one costs 40-116 us in this VM (shared/MACHINE.md)
# and the tps would measure the hypervisor. This script and all it starts
# meanwhile (cluster, pgbench, tracers) run in a cpu cgroup weighing ten
# times the default: another session's build on the workload CPU would
# otherwise take half of it in some runs and not in others (tps seen to
# halve), as autogroups share a CPU equally.
#
# Why -p BACKEND: uprobes are set in the given process only, and PostgreSQL
# forks a backend per connection. pgbench connects once, then runs; the
# tracer attaches to that backend during the first PG_WARMUP seconds, and
# the tps is the mean of pgbench's per-second progress over the last
# PG_SECONDS (a run whose tracer attached later is dropped). The probe set
# is tests/real/test_postgres's: PortalRun as the interaction, the executor,
# the index read path, the file read, the sort, the update, the lock waits,
# all starting with push %rbp. Here PortalRun, standard_ExecutorRun and
# index_getnext_slot (twice) fire every transaction; the calls recorded per
# second are printed.

# perf record prints nothing once attached: it has when it holds a
# perf_event file per event (one thread), at least $2 (3: the three sched
# tracepoints)
perf_attached() {
	local pid=$1 min=${2:-3} i

	for ((i = 0; i < 200; i++)); do
		kill -0 "$pid" 2>/dev/null || return 1
		[ "$(find "/proc/$pid/fd" -lname '*perf_event*' 2>/dev/null | wc -l)" -ge "$min" ] && return 0
		sleep 0.02
	done
	return 1
}

# Starts pgbench for $1 s (-P 1), its output to $2, and finds its backend:
# PB its pid, PB_T0 the instant before it started (date +%s%N),
# PB_BACKEND the backend's pid. Returns 1 when it did not connect.
pg_bench_start() {
	taskset -c "$WCPU" "$PGBIN/pgbench" -n -f "$TMP/select.pgb" -c 1 -j 1 -T "$1" -P 1 \
		>"$2" 2>&1 &
	PB=$!
	BG_PIDS+=("$PB")
	PB_T0=$(date +%s%N)
	if ! PB_BACKEND=$(pg_backend "$PB"); then
		note "pgbench did not connect: $(tail -n 2 "$2" | tr '\n' ' ')"
		bg_wait "$PB" 5
		return 1
	fi
}

# Starts variant $1's tracer (xls, xlt, xl, xli, xlin, xlic, perf, perfg, perfd, bt; alone:
# none) on backend $2, its stderr to $3, and waits until it is attached:
# TG_PID its pid (empty for alone), TG_AT the instant it attached (date
# +%s%N; empty if it did not). Returns 1 when it did not attach.
pg_tracer_start() {
	local v=$1 backend=$2 terr=$3 args=()

	TG_PID="" TG_AT=""
	case $v in
	xls | xlt | xl | xli | xlin | xlic)
		args=(-p "$backend" -o "$TMP/pg.xlp" "${PG_PROBES[@]}")
		# record wants a function; a lock wait is never called under -S
		[ "$v" = xls ] && args=(-p "$backend" -o "$TMP/pg.xlp" -f "$PGBIN/postgres:ProcSleep")
		# what the wait chains need: every scheduling event, and the wakers' history
		[ "$v" = xlt ] && args=(-p "$backend" -o "$TMP/pg.xlp" -f "$PGBIN/postgres:ProcSleep"
			--timeline)
		# the set-up recommended on servers: the interaction, and stack
		# samples (the default without --func) for the functions
		[ "$v" = xli ] && args=(-p "$backend" -o "$TMP/pg.xlp" -i "$PGBIN/postgres:PortalRun")
		# the same without the samples: what PortalRun's uprobe pair adds to xls
		[ "$v" = xlin ] && args=(-p "$backend" -o "$TMP/pg.xlp" -i "$PGBIN/postgres:PortalRun"
			--no-sample)
		# the samples without the user-stack copy (frame pointers only):
		# what the copies for CFI unwinding add
		[ "$v" = xlic ] && args=(-p "$backend" -o "$TMP/pg.xlp" -i "$PGBIN/postgres:PortalRun"
			--stack-copy 0)
		# not -q: "recording PID" on stderr says every probe is attached
		"${ON_TRACER_CPUS[@]}" "$XLPROBE" record "${args[@]}" >/dev/null 2>"$terr" &
		TG_PID=$!
		BG_PIDS+=("$TG_PID")
		wait_for_line "$terr" 'recording PID' "$TG_PID" || return 1
		;;
	perf)
		"${ON_TRACER_CPUS[@]}" "$PERF" record -q "${PERF_EVENTS[@]}" -p "$backend" \
			-o "$TMP/pg.perf" >/dev/null 2>"$terr" &
		TG_PID=$!
		BG_PIDS+=("$TG_PID")
		perf_attached "$TG_PID" || return 1
		;;
	perfg)
		# perf's stack sampling: its default event (cpu-clock where the
		# VM has no PMU), call graphs by frame pointers
		"${ON_TRACER_CPUS[@]}" "$PERF" record -q -g -F 999 -p "$backend" \
			-o "$TMP/pg.perf" >/dev/null 2>"$terr" &
		TG_PID=$!
		BG_PIDS+=("$TG_PID")
		perf_attached "$TG_PID" 1 || return 1
		;;
	bt)
		# bpftrace's empty uprobe+uretprobe on PortalRun, as xlin's pair:
		# row 6's reference stop (and its loss, information)
		"${ON_TRACER_CPUS[@]}" "$BPFTRACE" -p "$backend" -e "BEGIN { printf(\"ready\\n\"); }
			uprobe:$PGBIN/postgres:PortalRun {} uretprobe:$PGBIN/postgres:PortalRun {}" \
			>"$terr" 2>&1 &
		TG_PID=$!
		BG_PIDS+=("$TG_PID")
		wait_for_line "$terr" '^ready' "$TG_PID" || return 1
		;;
	perfd)
		# the same with the stacks perf needs where frame pointers are
		# missing (Debian's glibc, nginx, redis): 8 KiB user-stack copies
		# unwound with CFI, as xlprobe's samples are (information)
		"${ON_TRACER_CPUS[@]}" "$PERF" record -q --call-graph dwarf,8192 -F 999 -p "$backend" \
			-o "$TMP/pg.perf" >/dev/null 2>"$terr" &
		TG_PID=$!
		BG_PIDS+=("$TG_PID")
		perf_attached "$TG_PID" 1 || return 1
		;;
	*) return 0 ;;
	esac
	TG_AT=$(date +%s%N)
}

# Rows 3 and 4 from one long pgbench run (-P 1: its tps each second), each
# tracer of "$@" attached and detached in turn: TG_WINDOW s off, then
# TG_WINDOW s on, per variant, TG_ROUNDS rounds. Separate runs minutes
# apart saw the machine's speed change more than any loss (alone 14 600 to
# 21 900 tps, dips of 3-4 s to 13 000 inside one run); here each on window
# is held to the off window just before it, seconds apart. Each window's
# tps is the median of its whole seconds (a second that straddles an
# attach or a detach is left out), a variant's loss the median over its
# rounds of 1 - on / off, in %: TG_LOSS[v], TG_N[v] the windows that
# counted, TG_CPU[v] the tracer's own CPU time in its on windows (median,
# % of one CPU: it runs on the other CPU, whose load the host may pass on).
pg_toggled() {
	local out=$TMP/pgtg.out terr=$TMP/pgtg.tracer marks=$TMP/pgtg.marks pb t0 backend
	local k v s e total c0

	: >"$out"
	: >"$marks"
	total=$((PG_WARMUP + TG_ROUNDS * $# * (2 * TG_WINDOW + 8) + 30))
	pg_bench_start "$total" "$out" || return
	pb=$PB t0=$PB_T0 backend=$PB_BACKEND
	sleep "$PG_WARMUP"
	for ((k = 0; k < TG_ROUNDS; k++)); do
		for v in "$@"; do
			s=$(date +%s%N)
			sleep "$TG_WINDOW"
			e=$(date +%s%N)
			: >"$terr"
			if ! pg_tracer_start "$v" "$backend" "$terr"; then
				note "$v did not attach to backend $backend: $(grep -v RLIMIT "$terr" | tail -n 2)"
				[ -n "$TG_PID" ] && kill -INT "$TG_PID" 2>/dev/null && bg_wait "$TG_PID" 30
				continue
			fi
			c0=$(proc_cpu_ms "$TG_PID")
			sleep "$TG_WINDOW"
			# the instant it is told to stop: its flush runs on the tracer CPU
			echo "$v $k $(((s - t0) / 1000000)) $(((e - t0) / 1000000))" \
				"$(((TG_AT - t0) / 1000000)) $((($(date +%s%N) - t0) / 1000000))" \
				"$(($(proc_cpu_ms "$TG_PID") - c0))" >>"$marks"
			# Ctrl-C, timed (bpftrace in the background ignores SIGINT)
			if [ "$v" = bt ]; then stop_timed "$TG_PID" TERM "$v"; else stop_timed "$TG_PID" INT "$v"; fi
			cat "$terr" >>"$LOG"
			# what xlprobe recorded, for the calls per transaction
			[ "${v#xl}" != "$v" ] && TG_REC[$v]+="$(sed -n 's/.*wrote .*: \([0-9]*\) runs, \([0-9]*\) calls, \([0-9]*\) dropped.*/\1 \2 \3/p' "$terr");"
			rm -f "$TMP/pg.xlp" "$TMP/pg.perf"
		done
	done
	# pgbench has no SIGINT handler, and a background job of a script
	# ignores SIGINT
	kill -TERM "$pb" 2>/dev/null
	bg_wait "$pb" 30
	# pgbench's "progress: T s, X tps" is the second (T - 1, T] of its own
	# clock, which starts after t0 (its connection): a window's seconds must
	# lie inside it with 0.3 s to spare at the start
	while read -r v k s e a d _; do
		awk -v s="$s" -v e="$e" -v a="$a" -v d="$d" -v v="$v" '
			function med(x, n,    i, j, t) {
				for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) {
					t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
				return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
			}
			$1 == "progress:" { t = $2 * 1000
				if (t - 1000 >= s + 300 && t <= e) off[++no] = $4
				if (t - 1000 >= a + 300 && t <= d) on[++nn] = $4 }
			END { if (no >= 2 && nn >= 2) printf "%s %.2f\n", v, (1 - med(on, nn) / med(off, no)) * 100 }' "$out"
	done <"$marks" >"$TMP/pgtg.losses"
	for v in "$@"; do
		# shellcheck disable=SC2046 # one word per loss
		TG_LOSS[$v]=$(median $(awk -v v="$v" '$1 == v { print $2 }' "$TMP/pgtg.losses"))
		TG_N[$v]=$(awk -v v="$v" '$1 == v { n++ } END { print n + 0 }' "$TMP/pgtg.losses")
		# shellcheck disable=SC2046 # one word per window
		TG_CPU[$v]=$(median $(awk -v v="$v" '$1 == v && $6 > $5 { printf "%.1f\n", $7 * 100 / ($6 - $5) }' "$marks"))
	done
}

# The CPU time process $1 has used (user + system), in ms; 0 when it is gone.
proc_cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%d\n", ($12 + $13) * 1000 / hz }' \
		"/proc/$1/stat" 2>/dev/null || echo 0
}

PG_UP=0
sec_begin 6
if want 6; then
	echo
	echo "== 6. PostgreSQL 15: pgbench select-only, 1 client, tps over ${PG_SECONDS} s; client and server on CPU $WCPU =="
	if [ ! -x "$PGBIN/postgres" ] || [ ! -x "$PGBIN/pgbench" ] || ! id postgres >/dev/null 2>&1; then
		echo "n/a: PostgreSQL 15 not found in $PGBIN (tools/install-deps.sh installs postgresql-15)"
		sum_na 3 "PostgreSQL 15 missing"
		sum_na 4 "PostgreSQL 15 missing"
	else
		# before the cluster starts: its processes inherit the group
		pg_cgroup_join 2>>"$LOG" || note "no cpu cgroup: other sessions' load weighs fully"
		if pg_setup; then
			PG_UP=1
		else
			echo "n/a: the PostgreSQL cluster did not start (see the log lines below)"
			tail -n 5 "$LOG"
			sum_na 3 "the PostgreSQL cluster did not start"
			sum_na 4 "the PostgreSQL cluster did not start"
		fi
	fi
fi
if [ "$PG_UP" = 1 ]; then
	declare -A PG_LABEL=()
	bench_labels pg PG_LABEL
	PG_LABEL[xl]="xlprobe record -p BACKEND -i PortalRun + ${#PG_FUNCS[@]} funcs"
	foreign=$(bpftool perf list 2>/dev/null | grep -c "filename $PGBIN/postgres ")
	[ "$foreign" -gt 0 ] && echo "WARNING: $foreign uprobe(s) of other tracers sit on $PGBIN/postgres"
	if [ "$HAVE_PERF" = 1 ]; then
		# every tracer attached and detached in turn in one pgbench run
		# (pg_toggled): rows 3 and 4, and the losses of the others; the
		# separate runs of each tracer before (5 rounds of 14 s, 11 minutes)
		# measured the same with more of the machine's drift in them
		TG_VARIANTS=(xls xlt xl perf xlin xlic xli perfg perfd)
		[ "$HAVE_BPFTRACE" = 1 ] && TG_VARIANTS+=(bt)
		[ -n "$QUICK" ] && TG_VARIANTS=(xls perf xli perfg)
		declare -A TG_LOSS=() TG_N=() TG_CPU=() TG_REC=()
		sysctl -qw kernel.bpf_stats_enabled=0 2>>"$LOG"
		echo "toggled in one pgbench run ($TG_ROUNDS rounds of ${TG_WINDOW} s off, ${TG_WINDOW} s on, per tracer; medians):"
		pg_toggled "${TG_VARIANTS[@]}"
		sysctl -qw kernel.bpf_stats_enabled="$OLD_BPF_STATS" 2>>"$LOG"
		for v in "${TG_VARIANTS[@]}"; do
			printf '  %-62s loss %6s %%  (%s windows; the tracer used %s %% of a CPU)\n' \
				"${PG_LABEL[$v]# }" "${TG_LOSS[$v]}" "${TG_N[$v]}" "${TG_CPU[$v]}"
		done
		if [ -z "$QUICK" ]; then
			# a run (PortalRun) is one transaction here
			rec=$(printf '%s' "${TG_REC[xl]:-}" | tr ';' '\n' | awk 'NF == 3 && $1 > 0 { r += $1; c += $2; d += $3 }
				END { if (r) printf "%.2f %d", c / r, d }')
			echo "  the probe set recorded ${rec% *} calls per transaction, ${rec#* } dropped;" \
				"functions: PortalRun (interaction), ${PG_FUNCS[*]}"
			echo "  the scheduler accounting with --timeline / perf record of the sched tracepoints:" \
				"ratio $(ratio_of "${TG_LOSS[xlt]}" "${TG_LOSS[perf]}")"
			echo "  row 4's toggled loss by part: scheduler accounting ${TG_LOSS[xls]} %," \
				"+ PortalRun's uprobe pair $(calc 'printf "%.1f", a - b' "${TG_LOSS[xlin]}" "${TG_LOSS[xls]}") %," \
				"+ stack samples $(calc 'printf "%.1f", a - b' "${TG_LOSS[xlic]}" "${TG_LOSS[xlin]}") %," \
				"+ their stack copies $(calc 'printf "%.1f", a - b' "${TG_LOSS[xli]}" "${TG_LOSS[xlic]}") %"
			# information: perf taking stacks the way xlprobe does (copies and
			# CFI), the reference a server without frame pointers leaves
			echo "  information: xlprobe's set-up / perf record --call-graph dwarf (stack copies, as xlprobe's):" \
				"ratio $(ratio_of "${TG_LOSS[xli]}" "${TG_LOSS[perfd]}")"
		fi
		sum_set 3 "${TG_LOSS[xls]}" "${TG_LOSS[perf]}"
		sum_set 4 "${TG_LOSS[xli]}" "${TG_LOSS[perfg]}"
	else
		sum_na 3 "perf missing"
		sum_na 4 "perf missing"
	fi
fi
[ -n "$PG_DIR" ] && pg_teardown
[ -n "$PG_CG" ] && pg_cgroup_leave 2>>"$LOG"
