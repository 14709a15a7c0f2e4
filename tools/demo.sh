#!/bin/sh
# make demo: the main job on the built-in workload. The app-like workload
# (tests/e2e/workloads/app.c) serves 40 requests; in a quarter of them one
# function is slowed through one resource (default: the loopback server
# answers fetch_remote 50 ms late). xlprobe records it and the report names
# the function and the resource.
#   DEMO_SCENARIO=cpu|net|ipc|lock|timer|bgload|two|bg_disk_cpu|none (default net)
#   DEMO_OUT=FILE (default /tmp/xlprobe-demo.xlp)
set -eu
cd "$(dirname "$0")/.."
scenario=${DEMO_SCENARIO:-net}
out=${DEMO_OUT:-/tmp/xlprobe-demo.xlp}
app=$PWD/.output/tests/e2e/workloads/app
xlprobe=$PWD/.output/xlprobe
tmp=$(mktemp -d)
app_pid=
xl_pid=

cleanup() {
	[ -n "$xl_pid" ] && kill "$xl_pid" 2>/dev/null
	[ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

if [ "$(id -u)" != 0 ]; then
	echo "make demo: recording needs root (eBPF): run sudo make demo" >&2
	exit 1
fi

# wait_for FILE PATTERN SECONDS: until a line of FILE matches
wait_for() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt $(($3 * 10)) ] && { echo "demo: timed out waiting for '$2' in $1" >&2; cat "$1" >&2; exit 1; }
		sleep 0.1
	done
}

echo "== workload: app --perturb $scenario (40 requests, 25% perturbed, seed 7)"
"$app" --wait-signal --perturb "$scenario" --runs 40 --seed 7 >"$tmp/app.out" 2>&1 &
app_pid=$!
wait_for "$tmp/app.out" '^READY' 10

funcs=""
for f in load_config fetch_remote ask_peer wait_tick update_cache render compute_checksum; do
	funcs="$funcs -f $app:$f"
done
echo "== xlprobe record -p $app_pid -i $app:handle_request $funcs -o $out"
# shellcheck disable=SC2086
"$xlprobe" record -p "$app_pid" -i "$app:handle_request" $funcs -o "$out" 2>"$tmp/xl.err" &
xl_pid=$!
wait_for "$tmp/xl.err" 'recording PID' 20
kill -USR1 "$app_pid"
wait "$app_pid" || true
app_pid=
wait "$xl_pid"
xl_pid=
cat "$tmp/xl.err"
echo "== which runs were perturbed (the workload's own account)"
grep -c '^PERTURB' "$tmp/app.out" | sed 's/^/perturbed runs: /'
echo "== xlprobe report $out"
"$xlprobe" report "$out"
