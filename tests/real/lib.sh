# shellcheck shell=bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Shared helpers of the real-software suite (tests/real/test_*): results,
# clean-up, private PostgreSQL clusters, servers with a steady client and
# perturbation windows, cgroups, recording, the ground truth measured from
# the trace (or by a server's client), and the check against
# tests/real/expected.
#
# A scenario runs in a subshell (`scenario NAME FUNC`); everything it sets
# up registers its undoing with `undo`, run in reverse order when the
# subshell ends, however it ends. The machine is left as found: no
# processes, cgroups or files of ours remain.

XLP_ROOT=${XLP_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
REAL=$XLP_ROOT/tests/real
XL=$XLP_ROOT/.output/xlprobe
PGBIN=${XLP_PGBIN:-/usr/lib/postgresql/15/bin}
export PATH="$REAL/bin:$PATH"

pass() { echo "PASS $1"; }
# A scenario that fails before its check still gets its scorecard line.
fail() {
	echo "FAIL $1: $2"
	# the scenario's traces outlive its directory: an intermittent failure
	# in CI can be looked at later with xlprobe report and dump
	if [ -n "${W:-}" ] && ls "$W"/*.xlp >/dev/null 2>&1; then
		mkdir -p "$XLP_ROOT/.output/real-failed/$1" &&
			cp "$W"/*.xlp "$XLP_ROOT/.output/real-failed/$1/" &&
			echo "  traces kept in .output/real-failed/$1"
	fi
	if [ -n "${XLP_SCORECARD:-}" ] && [ "$1" = "${SCENARIO:-}" ] && [ "${SCORED:-1}" = 0 ]; then
		printf 'SCORE %-11s %-36s expected: %-44s found: %-44s %s\n' "$1" "-" \
			"$(expected "$1" | awk '{ print ($1 == "-" ? "no accusation" : $1 "/" $2) }')" "($2)" FAIL
		SCORED=1
	fi
}
note() { echo "  $*"; } # tests/run-tests.sh shows lines that start with two spaces

# undo CMD [ARGS...]: run CMD when the scenario ends (last registered, first run).
_undo=()
undo() { _undo+=("$(printf '%q ' "$@")"); }
_run_undo() {
	local i
	for ((i = ${#_undo[@]} - 1; i >= 0; i--)); do
		eval "${_undo[i]}" >/dev/null 2>&1
	done
	_undo=()
}

# scenario NAME FUNC: FUNC NAME in a subshell that cleans up after itself,
# also when this script is interrupted (INT, TERM): the subshell then gets
# TERM, stops what it waits for and undoes what it set up.
scenario() {
	local pid rc
	(
		SCENARIO=$1 SCORED=0
		trap _run_undo EXIT
		trap 'exit 143' TERM
		"$2" "$1"
	) &
	pid=$!
	trap 'kill -TERM $pid 2>/dev/null; INTERRUPTED=1' INT TERM
	while :; do
		wait "$pid"
		rc=$?
		kill -0 "$pid" 2>/dev/null || break # wait also returns when a trap ran
	done
	trap - INT TERM
	[ -z "${INTERRUPTED:-}" ] || exit 130
	return "$rc"
}

# need NAME THING...: each THING is a command or an absolute path; fails
# NAME with the list of what is missing.
need() {
	local name=$1 t missing=""
	shift
	[ "$(id -u)" = 0 ] || missing=" root"
	for t; do
		case $t in
		/*) [ -e "$t" ] || missing="$missing $t" ;;
		*) command -v "$t" >/dev/null || missing="$missing $t" ;;
		esac
	done
	[ -z "$missing" ] && return 0
	fail "$name" "missing$missing (tools/install-deps.sh installs the packages; run as root)"
	return 1
}

# workdir NAME: a fresh directory for the scenario in $W, removed at the end
# (kept when XLP_REAL_KEEP is set).
workdir() {
	W=$(mktemp -d "${TMPDIR:-/tmp}/xlprobe-real-$1.XXXXXX") || return 1
	chmod 755 "$W"
	if [ -n "${XLP_REAL_KEEP:-}" ]; then note "$1: keeping $W"; else undo rm -rf "$W"; fi
}

# ---------------------------------------------------------------- PostgreSQL

# pg_start [SETTING=VALUE...]: a private cluster in $W/pg owned by user
# postgres: no TCP, its socket in $W/pg, fsync off. Exports PGHOST and the
# other libpq variables for psql and pgbench; stopped by undo.
pg_start() {
	local o opts
	# the port only names the socket file (no TCP); not 5432, which Debian's
	# default cluster uses
	export PGHOST=$W/pg PGPORT=54329 PGUSER=postgres PGDATABASE=postgres
	mkdir "$PGHOST" && chown postgres: "$PGHOST" || return 1
	runuser -u postgres -- "$PGBIN/initdb" -D "$PGHOST/data" -A trust -U postgres -N \
		>"$W/initdb.log" 2>&1 || { note "initdb: $(tail -n 3 "$W/initdb.log")"; return 1; }
	undo pg_stop "$PGHOST"
	opts="-p $PGPORT -k $PGHOST -c listen_addresses= -c fsync=off -c synchronous_commit=off"
	opts="$opts -c full_page_writes=off -c autovacuum=off -c max_connections=20"
	for o; do opts="$opts -c $o"; done
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGHOST/data" -l "$PGHOST/log" -o "$opts" \
		-w -t 60 start >/dev/null || { note "pg_ctl start: $(tail -n 3 "$PGHOST/log")"; return 1; }
	"$PGBIN/pg_isready" -q -t 30
}

# poll_until PID TEST...: TEST every 0.1 s for up to 10 s until it succeeds
# (0), or until PID is gone (1): a process that should get ready
poll_until() {
	local pid=$1 i
	shift
	for ((i = 0; i < 100; i++)); do
		"$@" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# listening PORT: something listens on the loopback's TCP PORT
listening() { [ -n "$(ss -Htln "sport = :$1")" ]; }

# group_stop NAME: ends the process group led by the pid in $NAME (none:
# nothing to do), and clears NAME
group_stop() {
	local pid=${!1:-}
	[ -n "$pid" ] || return 0
	kill -TERM -- "-$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	printf -v "$1" '%s' ''
}

# pg_stop DIR: stops the cluster in DIR (immediate), or kills its postmaster.
pg_stop() {
	local pm
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$1/data" -m immediate -w -t 30 stop && return
	pm=$(head -n 1 "$1/data/postmaster.pid" 2>/dev/null)
	[ -n "$pm" ] && kill -KILL "$pm"
}

pg_sql() { "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 "$@"; }

# pgbench_start SCRIPT [pgbench options...]: one client in its own process
# group with the commands its \shell lines start (killed together by
# pgbench_stop or undo); sets PGBENCH and BACKEND, the server process of
# its connection, once it is connected.
pgbench_start() {
	local script=$1
	shift
	setsid "$PGBIN/pgbench" -n -c 1 -j 1 -T 300 --random-seed=7 -f "$script" "$@" \
		>"$W/pgbench.out" 2>&1 &
	PGBENCH=$!
	undo pgbench_stop
	poll_until "$PGBENCH" pgbench_backend && return 0
	note "pgbench did not connect: $(tail -n 3 "$W/pgbench.out")"
	return 1
}

# pgbench_backend: BACKEND, the pid of the backend serving pgbench, once it runs queries
pgbench_backend() {
	# query_start: pgbench's first connection, which only checks the server, runs no query
	BACKEND=$(pg_sql -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench' AND query_start IS NOT NULL")
	case $BACKEND in '' | *[!0-9]*) return 1 ;; esac
}

pgbench_stop() { group_stop PGBENCH; }

# ------------------------------------------------- servers (nginx, redis)

# free_port: a TCP port nothing listens on, on the loopback.
free_port() {
	local p i
	for ((i = 0; i < 100; i++)); do
		p=$((20000 + RANDOM % 30000))
		[ -z "$(ss -Htln "sport = :$p")" ] && echo "$p" && return 0
	done
	note "no free TCP port found"
	return 1
}

# server_start USER CMD [ARGS...]: CMD as USER in a session of its own
# (setpriv execs it: $SERVER is its pid), stopped by undo.
server_start() {
	local user=$1
	shift
	setsid setpriv --reuid="$user" --regid="$user" --init-groups -- "$@" </dev/null \
		>"$W/server.out" 2>&1 &
	SERVER=$!
	undo server_stop
}

server_stop() {
	[ -n "${SERVER:-}" ] || return 0
	kill -TERM "$SERVER" 2>/dev/null
	# a server that does not stop within 10 s is killed, its children too
	timeout 10 tail --pid="$SERVER" -f /dev/null || kill -KILL -- "-$SERVER"
	wait "$SERVER"
	SERVER=
}

# wait_port PORT: until something listens on 127.0.0.1:PORT (10 s at most)
# while $SERVER lives.
wait_port() {
	poll_until "$SERVER" listening "$1" && return 0
	note "the server does not listen on port $1: $(tail -n 3 "$W/server.out")"
	return 1
}

# client_start CMD [ARGS...]: the steady client, in its own process group
# (killed with what it started by client_stop or undo); output in $W/client.out.
client_start() {
	setsid "$@" </dev/null >"$W/client.out" 2>&1 &
	# shellcheck disable=SC2034 # read by client_stop, by name
	CLIENT=$!
	undo client_stop
}

client_stop() { group_stop CLIENT; }

# windows_start ON OFF ON_CMD OFF_CMD: bin/windows in its own process group,
# the first window 1 s from now (recording has begun by then), windows in
# $XLP_WINDOWS; windows_stop (or undo) ends the one under way.
windows_start() {
	export XLP_WINDOWS=$W/windows
	setsid windows "$XLP_WINDOWS" 1 "$@" </dev/null >"$W/windows.out" 2>&1 &
	WINDOWS=$!
	undo windows_stop
}

windows_stop() {
	[ -n "${WINDOWS:-}" ] || return 0
	kill -TERM -- "-$WINDOWS" 2>/dev/null
	wait "$WINDOWS"
	WINDOWS=
}

# ------------------------------------------------------------------ cgroups

# cgroup CONTROLLER: a new cgroup v1 directory of CONTROLLER in $CG; at the
# end what is left in it goes back to the root and it is removed.
cgroup() {
	local root=/sys/fs/cgroup/$1
	[ -f "$root/cgroup.procs" ] || { note "no cgroup v1 $1 hierarchy at $root"; return 1; }
	CG=$root/xlprobe-real-$$-$RANDOM
	mkdir "$CG" || return 1
	undo cgroup_remove "$CG"
}

# cpu_cgroup: a cpu cgroup ($CG) weighing ten times the default (cpu.shares):
# the rest of the machine, in the root group and its autogroups, then takes
# less of the CPU from what the scenario runs in it (hogs included).
cpu_cgroup() {
	cgroup cpu && echo 10240 >"$CG/cpu.shares"
}

cgroup_remove() {
	local pid
	while read -r pid; do
		echo "$pid" >"$(dirname "$1")/cgroup.procs"
	done <"$1/cgroup.procs"
	rmdir "$1"
}

# disk_of PATH: MAJ:MIN of the whole disk that holds PATH (blkio throttles disks).
disk_of() {
	local mm sys
	mm=$(findmnt -n -o MAJ:MIN -T "$1" | tr -d ' ') || return 1
	sys=/sys/dev/block/$mm
	[ -e "$sys" ] || { note "$1 is not on a block device ($mm)"; return 1; }
	[ -e "$sys/partition" ] && mm=$(cat "$sys/../dev")
	echo "$mm"
}

# last_cpu: the CPU the CPU-contention scenarios share.
last_cpu() { echo $(($(nproc) - 1)); }

# ------------------------------------------------------- recording, report

# record TRACE ARGS...: xlprobe record -o TRACE ARGS, bounded in time; in
# cgroup $RECORD_CG when set (what it launches inherits it).
record() {
	local trace=$1 join=()
	shift
	# shellcheck disable=SC2016 # $1 is the inner shell's
	[ -n "${RECORD_CG:-}" ] && join=(sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$RECORD_CG")
	# in the background: a TERM to the scenario stops it at once (stop_recording)
	# shellcheck disable=SC2086 # XLP_REAL_RECORD_ARGS: more options, split (investigations)
	timeout -k 5 180 "${join[@]}" "$XL" record -o "$trace" "$@" ${XLP_REAL_RECORD_ARGS:-} >"$trace.out" 2>"$trace.err" &
	RECORDING=$!
	undo stop_recording
	if ! wait "$RECORDING"; then
		RECORDING=
		note "xlprobe record failed: $(grep -v '^xlprobe: warning' "$trace.err" | tail -n 3)"
		return 1
	fi
	RECORDING=
}

# rec_seconds N: a scenario's recording time, N seconds unless
# XLP_REAL_SECONDS sets every scenario's. N is sized to what the scenario
# needs (docs/testing.md): a perturbed one enough for ~30 slow runs at this
# machine's pace, so that a day three times slower still gives the ~12
# that the sqlite and xz scenarios are answered with; an unperturbed twin
# some hundreds of runs.
rec_seconds() { echo "${XLP_REAL_SECONDS:-$1}"; }

stop_recording() {
	[ -n "${RECORDING:-}" ] || return 0
	kill -TERM "$RECORDING"
	wait "$RECORDING"
	RECORDING=
}

# report TRACE: the JSON report in TRACE.json and the ground truth (per
# run: latency, counters, time per marked function) in TRACE.truth.
report() {
	"$XL" report --json "$1" >"$1.json" 2>"$1.report.err" ||
		{ note "xlprobe report failed: $(tail -n 3 "$1.report.err")"; return 1; }
	"$XL" dump --json "$1" | jq -c -f "$REAL/truth.jq" >"$1.truth" ||
		{ note "ground truth of $1 failed"; return 1; }
}

# ----------------------------------------------------- ground truth, checks

ms() { awk -v ns="$1" 'BEGIN { if (ns == "" || ns == "null" || ns == "-") print "-"; else if (ns >= 1e6) printf "%.1f ms", ns / 1e6; else printf "%.0f us", ns / 1e3 }'; }

# truth NAME TRACE RESOURCE MIN_NS: the ground truth. The perturbed runs are
# those that began right after a mark (bin/mark, in $XLP_MARKS: set it in
# the perturbed scenarios, not in their twins), or were under way in a
# window of bin/windows (in $XLP_WINDOWS). MIN_NS may be Kx: K times the
# median latency of the runs not perturbed. A perturbed scenario must
# have 15..35 % of its runs perturbed (one in four by design), those at
# least 1.3 times slower (medians), and xlprobe must show RESOURCE (a
# counter of the dump: disk, ipc, cpu_wait...) >= MIN_NS in 80 % of them.
# Prints what was measured, and the share of the added time spent in each
# marked function (the drill-down). Sets TRUTH (short) and TRUTH_OK.
truth() {
	local name=$1 res=$3 min=$4 marks='[]' windows='[]' s why="" shown
	TRUTH_OK=0 TRUTH="no ground truth"
	[ -n "${XLP_MARKS:-}" ] && [ -s "$XLP_MARKS" ] && marks=$(jq -s -c . "$XLP_MARKS")
	[ -n "${XLP_WINDOWS:-}" ] && [ -s "$XLP_WINDOWS" ] && windows=$(jq -s -c '[_nwise(2)]' "$XLP_WINDOWS")
	s=$(jq -r --arg res "$res" --arg min "$min" --argjson marks "$marks" --argjson windows "$windows" \
		-f "$REAL/summary.jq" "$2.truth") || { fail "${name}_truth" "no ground truth"; return 1; }
	case $res:$min in
	*:*x) shown="${min%x} x the unperturbed median" ;;
	*_rq:* | *_txn:*) shown=$min ;; # counts
	*) shown=$(ms "$min") ;;
	esac
	# shellcheck disable=SC2086 # fields: see summary.jq
	set -- $s
	local runs=$1 k=$2 pct=$3 lp=$4 lo=$5 ratio=$6 hitp=$7 hitq=$8
	shift 8
	if [ -n "${XLP_MARKS:-}${XLP_WINDOWS:-}" ]; then
		TRUTH="$pct % of $runs runs perturbed, x$ratio"
		note "$name ground truth: $runs runs, $k perturbed ($pct %): median $(ms "$lp") vs $(ms "$lo")" \
			"(x$ratio); $res >= $shown in $hitp of them, in $hitq of the $((runs - k)) others"
		[ $# -gt 0 ] && note "$name added time per function: $*"
		if [ "$runs" -lt 20 ]; then
			why="only $runs runs recorded"
		elif [ "$pct" -lt 15 ] || [ "$pct" -gt 35 ]; then
			why="$pct % of the runs perturbed, expected 15..35 %"
		elif ! awk -v r="$ratio" 'BEGIN { exit !(r != "-" && r >= 1.3) }'; then
			why="perturbed runs only x$ratio slower"
		elif [ $((hitp * 100)) -lt $((k * 80)) ]; then
			why="$res >= $shown in only $hitp of the $k perturbed runs"
		fi
	else
		TRUTH="$runs runs, not perturbed"
		note "$name ground truth: $runs runs, not perturbed: median $(ms "$lo"); $res >= $shown in $hitq runs"
		[ "$runs" -ge 20 ] || why="only $runs runs recorded"
	fi
	if [ -n "$why" ]; then
		fail "${name}_truth" "$why"
		return 1
	fi
	pass "${name}_truth"
	TRUTH_OK=1
}

# client_truth NAME TRACE RESOURCE MIN: the ground truth of a server
# scenario, from its client's own clock ($W/client.log, see client.jq): the
# requests under way in a window of bin/windows ($XLP_WINDOWS) are the
# perturbed ones. A perturbed scenario must have 15..35 % of its requests
# perturbed, and a quarter of those at least slower than 90 % of the
# others (2.5 times what a perturbation that slows nothing gives): busy
# loops beside a server slow the requests they happen to meet, fewer than
# half in CI (redis-server: 97 of 232 queued, the medians x1); every scenario at
# least 20 requests, all answered. The trace's own view of the same
# windows (its runs, and RESOURCE >= MIN in them, as in truth) is printed
# beside it, not judged: that is what the report is judged on.
# Sets TRUTH (short) and TRUTH_OK.
client_truth() {
	local name=$1 trace=$2 res=$3 min=$4 windows="[]" span s why=""
	TRUTH_OK=0 TRUTH="no ground truth"
	[ -n "${XLP_WINDOWS:-}" ] && [ -s "$XLP_WINDOWS" ] && windows=$(jq -s -c '[_nwise(2)]' "$XLP_WINDOWS")
	if ! span=$(jq -c '[.start + .offset, ([.runs[] | .start + .lat] | max // .start) + .offset]' "$trace.truth") ||
		! s=$(jq -R -s -r --argjson span "$span" --argjson windows "$windows" -f "$REAL/client.jq" "$W/client.log"); then
		fail "${name}_truth" "no ground truth (client log)"
		return 1
	fi
	# shellcheck disable=SC2086 # fields: see client.jq
	set -- $s
	local n=$1 k=$2 pct=$3 lp=$4 lo=$5 ratio=$6 bad=$7 tail=$8
	if [ -n "${XLP_WINDOWS:-}" ]; then
		TRUTH="$pct % of $n requests perturbed, x$ratio, $tail past the others' p90"
		note "$name ground truth (client): $n requests, $k perturbed ($pct %): median $(ms "$lp") vs $(ms "$lo") (x$ratio);" \
			"$tail of them slower than 90 % of the others"
	else
		TRUTH="$n requests, not perturbed"
		note "$name ground truth (client): $n requests, not perturbed: median $(ms "$lo")"
	fi
	trace_view "$name" "$trace" "$res" "$min"
	if [ "$n" -lt 20 ]; then
		why="only $n requests during the recording"
	elif [ "$bad" != 0 ]; then
		why="$bad requests failed"
	elif [ -n "${XLP_WINDOWS:-}" ]; then
		# a quarter of the time is perturbed, in windows of 1-2 s; how
		# many of them fall in a 10 s recording depends on when the
		# recording began after the first (attach time: BPF loading,
		# symbols read): 2 or 3 windows of 1 s, 10-30 %, seen 14 %
		if [ "$pct" -lt 10 ] || [ "$pct" -gt 40 ]; then
			why="$pct % of the requests perturbed, expected 10..40 %"
		elif [ $((tail * 4)) -lt "$k" ]; then
			why="only $tail of the $k perturbed requests slower than 90 % of the others"
		fi
	fi
	if [ -n "$why" ]; then
		fail "${name}_truth" "$why"
		return 1
	fi
	pass "${name}_truth"
	TRUTH_OK=1
}

# trace_view NAME TRACE RESOURCE MIN: a note with what the trace shows of
# the windows (summary.jq).
trace_view() {
	local windows='[]' s
	[ -n "${XLP_WINDOWS:-}" ] && [ -s "$XLP_WINDOWS" ] && windows=$(jq -s -c '[_nwise(2)]' "$XLP_WINDOWS")
	s=$(jq -r --arg res "$3" --arg min "$4" --argjson marks '[]' --argjson windows "$windows" \
		-f "$REAL/summary.jq" "$2.truth") || return 0
	# shellcheck disable=SC2086
	set -- "$1" "$3" "$4" $s
	note "$1 in the trace: $4 runs, $5 in the windows: median $(ms "$7") vs $(ms "$8") (x$9);" \
		"$2 >= $3 in ${10} of them, in ${11} of the others${12:+; added time per function: ${*:12}}"
}

# expected NAME: "function(s) factor peer" from tests/real/expected.
expected() {
	awk -v s="$1" '$1 == s { print $2, $3, $4; found = 1 } END { exit !found }' "$REAL/expected"
}

# check NAME TRACE: the report against tests/real/expected; a SCORE line
# for tests/real/scorecard when XLP_SCORECARD is set.
check() {
	local name=$1 j=$2.json want fn factor peer found why="" ok=1
	read -r fn factor peer <<<"$(expected "$name")"
	[ -n "$fn" ] || { fail "$name" "not in tests/real/expected"; return 1; }
	want="$fn/$factor"
	[ "$fn" = - ] && want="no accusation"
	if [ -s "$j" ]; then
		# no function named: the whole run's answer, or the waits' (the blocker's state)
		found=$(jq -r '. as $r | [.critical_functions[] | "\(.function)/\(.factors[0].factor // "-")"]
			| join(", ") as $f
			| if $f != "" then $f
			  elif $r.whole_run.holds // false then "[whole-run]/\($r.whole_run.factor)"
			  elif $r.wait_answer.holds // false then
			    "[waits:\($r.wait_chains.blockers[$r.wait_answer.blocker].state)] \($r.wait_answer.text)"
			  else "no accusation (\($r.status))" end' "$j")
		note "$name report: $(jq -r -f "$REAL/describe.jq" "$j")"
		why=$(jq -r --arg fn "$fn" --arg factor "$factor" --arg peer "$peer" -f "$REAL/verdict.jq" "$j")
	else
		found="(no report)"
		why="no report"
	fi
	[ -n "$why" ] && ok=0
	SCORED=1
	if [ $ok = 1 ]; then pass "$name"; else fail "$name" "$why"; fi
	if [ -n "${XLP_SCORECARD:-}" ]; then
		local verdict=PASS
		[ $ok = 1 ] || verdict=FAIL
		[ "${TRUTH_OK:-0}" = 1 ] || verdict="FAIL (ground truth)"
		printf 'SCORE %-11s %-36s expected: %-44s found: %-44s %s\n' "$name" "${TRUTH:-no trace}" \
			"$want" "$found" "$verdict"
	fi
	[ $ok = 1 ]
}
