# shellcheck shell=bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tools/bench/pg.sh: a PostgreSQL 15 cluster for sections 6 and 10: its
# cgroup, set-up, tear-down and the backend pgbench uses.
#
# Sourced by tools/bench.sh in its turn, after the parts before it (its top
# says what each section measures; make bench and make bench-quick run it).

# ---- PostgreSQL (sections 6 and 10; section 6 says how and why) ----------------

PG_PORT=54339 # names the socket file only: the cluster has no TCP
PG_FUNCS=(standard_ExecutorRun index_getnext_slot FileRead tuplesort_performsort heap_update
	XactLockTableWait ProcSleep)
PG_PROBES=(-i "$PGBIN/postgres:PortalRun")
for f in "${PG_FUNCS[@]}"; do PG_PROBES+=(-f "$PGBIN/postgres:$f"); done

pg_psql() { "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 "$@"; }

# Moves this script into a new cgroup v1 cpu group with ten times the
# default cpu.shares; what it starts from then on inherits the group.
pg_cgroup_join() {
	local root=/sys/fs/cgroup/cpu

	[ -f "$root/cgroup.procs" ] || return 1
	PG_CG=$root/xlprobe-bench-$$
	mkdir "$PG_CG" && echo 10240 >"$PG_CG/cpu.shares" || return 1
	# the tracers start in the group too: without a real-time budget of
	# its own (0 in a new group) record's reader cannot take SCHED_FIFO
	# when it falls behind (EPERM), as it does for a user
	[ -f "$PG_CG/cpu.rt_runtime_us" ] && ! echo 100000 >"$PG_CG/cpu.rt_runtime_us" &&
		note "no real-time budget for the bench's cpu cgroup: record's reader stays at its normal priority"
	echo $$ >"$PG_CG/cgroup.procs"
}

# Back to the root group, with whatever is left in ours, and removes it.
pg_cgroup_leave() {
	local cg=$PG_CG pid

	PG_CG=""
	while read -r pid; do
		echo "$pid" >"$(dirname "$cg")/cgroup.procs"
	done <"$cg/cgroup.procs"
	rmdir "$cg"
}

# A throwaway cluster in $TMP/pg, run by user postgres, pinned to the
# workload CPU, with pgbench's tables; pg_teardown (also from cleanup)
# stops it, rm -rf $TMP removes it.
pg_setup() {
	local opts="-p $PG_PORT -k $TMP/pg -c listen_addresses= -c autovacuum=off -c fsync=off"

	PG_DIR=$TMP/pg
	export PGHOST=$PG_DIR PGPORT=$PG_PORT PGUSER=postgres PGDATABASE=postgres
	# postgres must reach its directory through ours (0700 from mktemp)
	chmod 711 "$TMP" && mkdir "$PG_DIR" && chown postgres: "$PG_DIR" || return 1
	runuser -u postgres -- "$PGBIN/initdb" -D "$PG_DIR/data" -A trust -U postgres -N \
		>>"$LOG" 2>&1 || return 1
	taskset -c "$WCPU" runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG_DIR/data" \
		-l "$PG_DIR/log" -o "$opts" -w -t 60 start >>"$LOG" 2>&1 || return 1
	# pgbench -b select-only's script
	printf '%s\n' '\set aid random(1, 100000 * :scale)' \
		'SELECT abalance FROM pgbench_accounts WHERE aid = :aid;' >"$TMP/select.pgb"
	"$PGBIN/pgbench" -i -q -s 1 >>"$LOG" 2>&1 && pg_psql -c CHECKPOINT >>"$LOG" 2>&1
}

pg_teardown() {
	local dir=$PG_DIR pm

	PG_DIR=""
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop \
		>/dev/null 2>&1 && return
	pm=$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null)
	[ -n "$pm" ] && kill -KILL "$pm" 2>/dev/null
}

# The server process of pgbench $1's connection, once it ran a query
# (pgbench's first connection only checks the server and runs none, given
# a script file).
pg_backend() {
	local i b

	for ((i = 0; i < 100; i++)); do
		b=$(pg_psql -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench'
			AND query_start IS NOT NULL" 2>>"$LOG")
		case $b in '' | *[!0-9]*) ;; *) echo "$b"; return 0 ;; esac
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
