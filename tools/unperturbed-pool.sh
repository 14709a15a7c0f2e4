#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Unperturbed runs accuse nothing of cpu_run (issue 36, acceptance 3).
# The thread pool of tests/workloads/pool.c (--mode none: its worker
# pool-1 hashes a file from the page cache for every request, nothing
# perturbed) is recorded QUIET times as it is and NOISY times beside a CPU
# noise process ("xlp-noise": bursts of ~10 ms of computation every
# ~20 ms, pinned to the pool's CPU, not in step with the requests). Each
# run is reported; a run FAILS when a workload function is accused of
# cpu_run (or cpu_freq: the same CPU work), the answer a slower CPU or the
# natural spread of hashing must not give. A cpu_wait is right when the
# CPU was taken by someone (the noise, or on a shared machine whatever
# else ran there): the thieves are printed beside it.
#
#   sudo tools/unperturbed-pool.sh [QUIET [NOISY]]      (default 5 5)
#
# One line per run, then a summary; exit 1 if a run failed. Live eBPF:
# each recording takes /tmp/xlp-live.lock (the tests' lock), so it waits
# for a running test and the other way round. Not part of make test (10
# recordings, about a minute); needs make build-tests first.
set -u
cd "$(dirname "$0")/.." || exit 2
quiet=${1:-5}
noisy=${2:-5}
xl=$PWD/.output/xlprobe
wl=$PWD/.output/tests/workloads/pool
lock=/tmp/xlp-live.lock
for f in "$xl" "$wl"; do
	[ -x "$f" ] || { echo "unperturbed-pool: $f missing: run make build-tests" >&2; exit 2; }
done
command -v jq >/dev/null || { echo "unperturbed-pool: jq missing: run tools/install-deps.sh" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "unperturbed-pool: needs root (eBPF): run it with sudo" >&2; exit 2; }
dir=$(mktemp -d /tmp/xlp-unperturbed.XXXXXX) || exit 2
noise_pid=
cleanup() {
	[ -n "$noise_pid" ] && kill "$noise_pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# the pool pins its worker and main thread to the last CPU
cpu=$(($(nproc) - 1))

# CPU noise on the pool's CPU: ~10 ms of a busy loop, ~20 ms asleep
start_noise() {
	taskset -c "$cpu" bash -c 'printf xlp-noise >/proc/$$/comm
		while :; do for ((i = 0; i < 5000; i++)); do :; done; sleep 0.02; done' &
	noise_pid=$!
}

stop_noise() {
	kill "$noise_pid" 2>/dev/null
	wait "$noise_pid" 2>/dev/null
	noise_pid=
}

# "function/factor[ (thieves)]" of every accused function, ";"-separated
accused() {
	jq -r '[.critical_functions[] | .function + "/" + ([.factors[].factor] | join("+")) +
		(if .cpu_thieves and (.cpu_thieves.thieves | length) > 0 then
			" (the CPU taken by " + ([.cpu_thieves.thieves[:3][] |
				.comm + " " + ((.share * 100) | floor | tostring) + " %"] | join(", ")) + ")"
		 else "" end)] | join("; ")' "$1"
}

# function names accused of CPU work, one a line
cpu_accused() {
	jq -r '.critical_functions[] | select([.factors[].factor] |
		any(. == "cpu_run" or . == "cpu_freq")) | .function' "$1"
}

pass=0
fail=0
failed=()
total=$((quiet + noisy))
for ((n = 1; n <= total; n++)); do
	kind=quiet
	[ "$n" -gt "$quiet" ] && kind=noisy
	trace=$dir/pool-$n.xlp
	js=$dir/pool-$n.json
	[ "$kind" = noisy ] && start_noise
	flock "$lock" "$xl" record -q -o "$trace" --timeline --sample \
		-i "$wl:dispatch_and_wait" -f "$wl:run_task" -f "$wl:load_index" \
		-- "$wl" --mode none --iterations 100 >"$dir/wl.out" 2>"$dir/rec.err"
	rc=$?
	[ "$kind" = noisy ] && stop_noise
	if [ "$rc" != 0 ] || ! "$xl" report --json -o "$js" "$trace" 2>"$dir/rep.err"; then
		echo "run $n $kind: FAIL: record exit $rc: $(head -c 300 "$dir/rec.err" "$dir/rep.err" 2>/dev/null | tr '\n' ' ')"
		fail=$((fail + 1))
		failed+=("$n")
		continue
	fi
	what=$(accused "$js")
	bad=$(cpu_accused "$js" | tr '\n' ' ')
	runs=$(jq -r '"\(.runs.count) runs, \(.runs.slow) slow"' "$js")
	if [ -n "$bad" ]; then
		verdict="FAIL: accused of CPU work: $bad"
		fail=$((fail + 1))
		failed+=("$n")
		cp "$trace" "/tmp/unperturbed-pool-$n.xlp"
		verdict+=" (trace kept: /tmp/unperturbed-pool-$n.xlp)"
	else
		verdict=ok
		pass=$((pass + 1))
	fi
	echo "run $n $kind: $runs; accused: ${what:-nothing}; $verdict"
done
echo "summary: $pass of $total runs accused no workload function of cpu_run ($quiet quiet, $noisy with CPU noise)${failed[*]:+; failed: ${failed[*]}}"
[ "$fail" = 0 ]
