#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tools/fuzz.sh [SECONDS]: `make fuzz [FUZZ_SECONDS=N] [FUZZ_RUNS=N]
# [FUZZ_JOBS=N] [FUZZ_ONLY=NAME] [FUZZ_TIMEOUT=S]`.
# Runs each libFuzzer harness (.output/fuzz/fuzz_*, from tests/fuzz/), one
# harness after the other, for SECONDS (default 300) or for FUZZ_RUNS
# executions in all. FUZZ_JOBS processes (default 1) share one harness's
# working corpus, each running FUZZ_RUNS/FUZZ_JOBS executions; libFuzzer
# reloads the corpus the others grow. FUZZ_ONLY names one harness. Each
# grows its working corpus in .output/fuzz/corpus/NAME, seeded from
# tests/fuzz/corpus/NAME; a finding (crash, leak, undefined behaviour, an
# input slower than FUZZ_TIMEOUT seconds (10) or needing 2 GB) is written to
# .output/fuzz/artifacts/ and ends the script with status 1: copy it into
# tests/fuzz/corpus/NAME as a regression file, fix the bug, run again.
# libFuzzer's timeout is wall-clock time: a fuzzer paused (SIGSTOP, as
# make bench's callers may do) or starved at nice 19 on a busy machine
# reports inputs that take 0.03 s as 38 s or 320 s timeouts; raise
# FUZZ_TIMEOUT for such runs and replay any timeout artifact alone before
# calling it a finding.
set -u
cd "$(dirname "$0")/.." || exit 2
secs=${1:-300}
jobs=${FUZZ_JOBS:-1}
out=.output/fuzz
mkdir -p "$out/artifacts"
status=0
for bin in "$out"/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	[ -n "${FUZZ_ONLY:-}" ] && [ "$name" != "$FUZZ_ONLY" ] && continue
	corpus=$out/corpus/$name
	mkdir -p "$corpus"
	cp -n tests/fuzz/corpus/"$name"/* "$corpus"/ 2>/dev/null
	if [ -n "${FUZZ_RUNS:-}" ]; then
		limit="-runs=$(((FUZZ_RUNS + jobs - 1) / jobs))"
	else
		limit="-max_total_time=$secs"
	fi
	echo "== $name ($jobs x $limit)"
	rm -f "$out/$name".*.log
	pids=
	j=1
	while [ $j -le "$jobs" ]; do
		"$bin" -close_fd_mask=3 -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -print_final_stats=1 \
			-reload=1 "$limit" -artifact_prefix="$out/artifacts/$name-" \
			"$corpus" >"$out/$name.$j.log" 2>&1 &
		pids="$pids $!"
		j=$((j + 1))
	done
	rc=0
	for p in $pids; do
		wait "$p" || rc=$?
	done
	runs=$(cat "$out/$name".*.log | sed -n 's/^stat::number_of_executed_units: *//p' |
		awk '{ s += $1 } END { print s + 0 }')
	if [ $rc = 0 ]; then
		echo "$name: $runs executions ($jobs process(es)), no finding (logs: $out/$name.*.log)"
	else
		echo "$name: FINDING after $runs executions (exit $rc):"
		grep -hE '^(==[0-9]+==|SUMMARY|artifact_prefix|Test unit written|.*ERROR)' \
			"$out/$name".*.log | head -n 20
		status=1
	fi
done
exit $status
