#!/bin/sh
# Runs the static binary of ARCH (x86 or arm64; arm64 under Debian's
# qemu-aarch64 user-mode emulator, no arm64 machine needed) on the
# checked-in traces and compares every report, text and JSON, and its exit
# status, with the static x86 build's: the analysis must not depend on the
# architecture (floating point included). Recording needs the target's
# kernel and is not run here (make guest-test runs it on another kernel).
#   tools/static-check.sh x86|arm64       (make [ARCH=arm64] static-check)
set -u
cd "$(dirname "$0")/.."
arch=${1:-x86}
ref=.output/static/x86/xlprobe
bin=.output/static/$arch/xlprobe
run=""
[ "$arch" = arm64 ] && run=qemu-aarch64
[ -x "$ref" ] && [ -x "$bin" ] || {
	echo "static-check: $ref or $bin missing: run make ARCH=$arch static-check" >&2
	exit 1
}
if [ -n "$run" ] && ! command -v $run >/dev/null; then
	echo "static-check: $run missing: install Debian's qemu-user (tools/install-deps.sh --static arm64)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
out=$($run "$bin" --version 2>&1)
if [ $? = 0 ]; then
	passed=$((passed + 1))
	echo "PASS $arch: runs ($out)"
else
	failed=$((failed + 1))
	echo "FAIL $arch: --version: $out"
fi
for f in tests/data/*.xlp tests/fuzz/corpus/fuzz_trace/*.xlp; do
	[ -f "$f" ] || continue
	for fmt in text --json; do
		opt=$fmt
		[ "$fmt" = text ] && opt=""
		# shellcheck disable=SC2086
		$run "$bin" report $opt "$f" >"$tmp/a" 2>&1
		echo "exit $?" >>"$tmp/a"
		# shellcheck disable=SC2086
		"$ref" report $opt "$f" >"$tmp/b" 2>&1
		echo "exit $?" >>"$tmp/b"
		if cmp -s "$tmp/a" "$tmp/b"; then
			passed=$((passed + 1))
			echo "PASS $arch: report $fmt $f"
		else
			failed=$((failed + 1))
			echo "FAIL $arch: report $fmt $f differs from x86's:"
			diff "$tmp/b" "$tmp/a" | head -n 10
		fi
	done
done
echo "$passed passed, $failed failed"
[ $failed = 0 ]
