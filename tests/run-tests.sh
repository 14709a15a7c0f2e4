#!/bin/sh
# Runs every test binary under .output/tests, then the real-software suite
# (the scripts tests/real/test_*), and prints one line per test and a
# final "N passed, M failed" line. Tests needing root and eBPF are
# real tests: run as root, they run; not as root, they fail (never skip).
#   tests/run-tests.sh [--unit-only] [FILTER]
cd "$(dirname "$0")/.." || exit 2
out=.output/tests
unit_only=0
[ "${1:-}" = "--unit-only" ] && { unit_only=1; shift; }
filter=${1:-}
export XLP_ROOT="$PWD"
log=$(mktemp)
times=$(mktemp)
trap 'rm -f "$log" "$times"' EXIT
start=$(date +%s)
status=0
for dir in unit root e2e real fuzz; do
	[ $unit_only = 1 ] && [ $dir != unit ] && continue
	base=$out/$dir
	[ $dir = real ] && base=tests/real
	for t in "$base"/test_*; do
		[ -x "$t" ] || continue
		case "$t" in *"$filter"*) ;; *) continue ;; esac
		echo "== $dir/$(basename "$t")" | tee -a "$log"
		one=$(mktemp)
		t0=$(date +%s%N)
		"$t" >"$one" 2>&1
		rc=$?
		echo "$(( ($(date +%s%N) - t0) / 1000000 )) $dir/$(basename "$t")" >>"$times"
		grep -E '^(PASS|FAIL|  )' "$one"
		cat "$one" >>"$log"
		# a crash or a non-zero exit without a FAIL line must not pass unnoticed
		if [ $rc != 0 ] && ! grep -q '^FAIL ' "$one"; then
			echo "FAIL $(basename "$t"): exited with status $rc" | tee -a "$log"
			tail -n 20 "$one"
		fi
		rm -f "$one"
	done
done
passed=$(grep -c '^PASS ' "$log")
failed=$(grep -c '^FAIL ' "$log")
# The failures again, last, each with its suite and its first failed check:
# a log cut to its head and tail still names every one.
if [ "$failed" != 0 ]; then
	echo "failures:"
	awk '/^== / { suite = $2; chk = ""; next }
	     /: CHECK\(.*\) failed: / && chk == "" {
		where = $1; msg = $0; sub(/^.*\) failed: /, "", msg); chk = where " " msg }
	     /^PASS / { chk = "" }
	     /^FAIL / { line = $0; sub(/^FAIL /, "", line); print "  " suite " " substr(line, 1, 300);
	                if (chk != "") print "    " substr(chk, 1, 400); chk = "" }' "$log"
fi
# where the time went: each suite's wall time, longest first, then per directory
echo "time per suite (s):"
sort -rn "$times" | awk '{ printf "  %7.1f  %s\n", $1 / 1000, $2 }'
awk '{ split($2, p, "/"); t[p[1]] += $1 } END { for (d in t) printf "  %7.1f  %s/ in all\n", t[d] / 1000, d }' "$times" | sort -rn
echo "total $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
