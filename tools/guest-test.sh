#!/bin/sh
# Boots the guest of make [ARCH=arm64] guest-test under QEMU (TCG) and
# counts its results: one "PASS name" or "FAIL name: reason" line per test,
# then "N passed, M failed"; exits non-zero on any failure.
#   GUEST_ARCH=x86|arm64 tools/guest-test.sh [TEST...]
#                                   (make guest-test builds what it needs)
#
# x86: the results come back on a serial port of their own. The guest's
# console is ttyS0 (kernel messages, shown here live and kept in
# console.log); tests/guest/init.c writes the test program's output, then
# "XLP-GUEST-END status=N", to ttyS1, which QEMU writes to results.txt: no
# kernel message can interleave with a result line there. arm64 (QEMU's
# virt machine has one UART): the same lines are read from the console,
# with the kernel at loglevel 4 (warnings and worse only).
# Either way a guest that crashed, hung or was cut by the timeout has no
# END line: that is a failure, never a pass. GUEST_TIMEOUT (seconds,
# default 1200) bounds it; GUEST_APPEND adds kernel parameters
# (XLP_GUEST_VERBOSE=1: xlprobe record -v); GUEST_SMP sets the vCPUs
# (default 2: the cross-CPU paths of the scheduler accounting are tested).
set -eu
cd "$(dirname "$0")/.."
arch=${GUEST_ARCH:-x86}
xl=.output/static/$arch/xlprobe
# the test build (test hooks: XLPROBE_TEST_OLD_SWITCH forces the
# sched_switch program of kernels before 5.18)
xlt=.output/static/$arch/xlprobe-test
tests_bin=.output/static/$arch/tests/guest/test_guest
timeout_s=${GUEST_TIMEOUT:-1200}

die() {
	echo "guest-test: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

case $arch in
x86)
	g=.output/guest
	kernel=$g/bzImage
	qemu=qemu-system-x86_64
	qpkg=qemu-system-x86
	;;
arm64)
	g=.output/guest-arm64
	kernel=$g/Image
	qemu=qemu-system-aarch64
	qpkg=qemu-system-arm
	;;
*) die "no guest for $arch (x86 or arm64)" ;;
esac
command -v $qemu >/dev/null ||
	die "$qemu missing: install it with tools/install-deps.sh --guest $arch (Debian's $qpkg)"
command -v cpio >/dev/null || die "cpio missing: install it with tools/install-deps.sh --guest $arch"
for f in $kernel $xl $xlt $tests_bin $g/init $g/binder_service $g/binder_client $g/sched_mix; do
	[ -s "$f" ] || die "$f missing: run make guest-test (it builds the guest first)"
done

# the initramfs: /init, and /xlp/.output laid out as tests/lib expects it
stage=$g/initramfs
rm -rf "$stage"
mkdir -p "$stage/xlp/.output/guest"
cp $g/init "$stage/init"
cp $xl "$stage/xlp/.output/xlprobe"
cp $xlt "$stage/xlp/.output/xlprobe-test"
cp $tests_bin $g/binder_service $g/binder_client $g/sched_mix "$stage/xlp/.output/guest/"
# a kernel with binder as a module: the test program loads it
if [ -f $g/binder_linux.ko ]; then
	mkdir -p "$stage/lib/modules"
	cp $g/binder_linux.ko "$stage/lib/modules/"
fi
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >$g/initramfs.cpio.gz

res=$g/results.txt
log=$g/console.log
rm -f "$res" "$log"
: >"$log"
echo "guest-test: booting $kernel under QEMU ($arch, TCG, ${GUEST_SMP:-2} vCPUs, timeout ${timeout_s} s); console in $log"
start=$(date +%s)
# -no-reboot: the init's reboot ends QEMU; panic=-1 turns a kernel panic
# into a reboot, so a crash ends it too.
if [ $arch = x86 ]; then
	# tsc=reliable: TCG's TSC is the host's, the same on every vCPU, but
	# the guest's warp test fails when a vCPU thread is descheduled on a
	# busy host, and the fallback (HPET, a per-CPU sched_clock) is not
	# what real machines run
	set -- -kernel $kernel -append "console=ttyS0 loglevel=4 panic=-1 tsc=reliable ${GUEST_APPEND:-} -- $*" \
		-serial "file:$log" -serial "file:$res"
else
	# the virt machine's generic timer gives the guest a stable clock;
	# cortex-a57: an ARMv8.0 core, as the oldest 64-bit Android devices
	set -- -M virt -cpu cortex-a57 -kernel $kernel \
		-append "console=ttyAMA0 loglevel=4 panic=-1 ${GUEST_APPEND:-} -- $*" -serial "file:$log"
	res=$log
fi
timeout --kill-after=10 "$timeout_s" $qemu -nodefaults -display none -no-reboot \
	-m 1024 -smp ${GUEST_SMP:-2} -initrd $g/initramfs.cpio.gz "$@" </dev/null &
qpid=$!
tail -n +1 -f --pid=$qpid "$log" 2>/dev/null || true
qrc=0
wait $qpid || qrc=$?
secs=$(($(date +%s) - start))
echo "guest-test: QEMU ran ${secs} s (exit $qrc)"

[ -f "$res" ] || die "no results file: QEMU failed to start (exit $qrc)"
# the console above showed the details; the verdicts again
echo "guest-test: results ($res):"
tr -d '\r' <"$res" | grep -E '^(PASS|FAIL) ' || true
passed=$(tr -d '\r' <"$res" | grep -c '^PASS ' || true)
failed=$(tr -d '\r' <"$res" | grep -c '^FAIL ' || true)
if ! tr -d '\r' <"$res" | grep -q '^XLP-GUEST-END status='; then
	if [ $qrc = 124 ] || [ $qrc = 137 ]; then
		echo "FAIL guest: no end of the tests after ${timeout_s} s (GUEST_TIMEOUT): see $log"
	else
		echo "FAIL guest: the guest stopped before the tests ended (QEMU exit $qrc): see $log"
	fi
	failed=$((failed + 1))
elif ! tr -d '\r' <"$res" | grep -q '^XLP-GUEST-END status=0$' && [ "$failed" = 0 ]; then
	echo "FAIL guest: the test program failed without a FAIL line: see $res"
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
