#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tools/fuzz.sh [SECONDS]: `make fuzz [FUZZ_SECONDS=N] [FUZZ_RUNS=N]`.
# Runs each libFuzzer harness (.output/fuzz/fuzz_*, from tests/fuzz/) for
# SECONDS (default 300), or for FUZZ_RUNS executions when that is set, one
# after the other on one CPU. Each grows its working corpus in
# .output/fuzz/corpus/NAME, seeded from tests/fuzz/corpus/NAME; a finding
# (crash, leak, undefined behaviour, an input slower than 10 s or needing
# 2 GB) is written to .output/fuzz/artifacts/ and ends the script with
# status 1: copy it into tests/fuzz/corpus/NAME as a regression file, fix
# the bug, run again.
set -u
cd "$(dirname "$0")/.." || exit 2
secs=${1:-300}
out=.output/fuzz
mkdir -p "$out/artifacts"
status=0
for bin in "$out"/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	corpus=$out/corpus/$name
	mkdir -p "$corpus"
	cp -n tests/fuzz/corpus/"$name"/* "$corpus"/ 2>/dev/null
	if [ -n "${FUZZ_RUNS:-}" ]; then
		limit="-runs=$FUZZ_RUNS"
	else
		limit="-max_total_time=$secs"
	fi
	echo "== $name ($limit)"
	"$bin" -close_fd_mask=3 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		"$limit" -artifact_prefix="$out/artifacts/$name-" "$corpus" >"$out/$name.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log")
	if [ $rc = 0 ]; then
		echo "$name: ${runs:-?} executions, no finding (log: $out/$name.log)"
	else
		echo "$name: FINDING after ${runs:-?} executions (exit $rc):"
		grep -E '^(==[0-9]+==|SUMMARY|artifact_prefix|Test unit written|.*ERROR)' \
			"$out/$name.log" | head -n 20
		status=1
	fi
done
exit $status
