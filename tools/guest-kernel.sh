#!/bin/sh
# Builds the guest kernel of make guest-test: Debian's linux-source-6.1
# (x86-64), allnoconfig + tests/guest/kernel.config (binder, binderfs, the
# binder tracepoints, BTF). The result, OUT/bzImage, is cached: it is built
# again only when the fragment, the source package or the compiler change.
#   tools/guest-kernel.sh [OUT]        (default .output/guest)
# The build runs under nice -n 19: the machine is shared with benchmarks.
set -eu
cd "$(dirname "$0")/.."
out=${1:-.output/guest}
frag=tests/guest/kernel.config
tarball=/usr/src/linux-source-6.1.tar.xz
jobs=${GUEST_JOBS:-$(nproc)}

die() {
	echo "guest-kernel: $*" >&2
	exit 1
}

[ -r "$tarball" ] || die "$tarball missing: install Debian's linux-source-6.1 (tools/install-deps.sh --guest)"
for tool in flex bison pahole bc make gcc; do
	command -v $tool >/dev/null ||
		die "$tool missing (kernel build tool): run tools/install-deps.sh --guest"
done

ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)
key="linux-source-6.1 $ver; $(sha256sum <"$frag" | cut -c1-16); $(gcc -dumpfullversion); pahole $(pahole --version)"
mkdir -p "$out"
if [ -s "$out/bzImage" ] && [ "$(cat "$out/bzImage.key" 2>/dev/null)" = "$key" ]; then
	echo "guest-kernel: $out/bzImage is up to date ($key)"
	exit 0
fi

start=$(date +%s)
src=$out/linux-source-6.1
if [ "$(cat "$out/source.key" 2>/dev/null)" != "$ver" ] || [ ! -f "$src/Makefile" ]; then
	echo "guest-kernel: extracting $tarball (linux-source-6.1 $ver)"
	rm -rf "$src" "$out/build" "$out/source.key"
	nice -n 19 tar -xJf "$tarball" -C "$out"
	echo "$ver" >"$out/source.key"
fi

build=$out/build
mkdir -p "$build"
# allnoconfig + the fragment: only what the guest needs, so it builds in
# minutes (a distribution config takes hours on two cores)
make -s -C "$src" O="$PWD/$build" KCONFIG_ALLCONFIG="$PWD/$frag" allnoconfig >/dev/null
# Kconfig drops an option whose dependencies are missing without a word:
# check that every option the tests rely on survived
for opt in ANDROID_BINDER_IPC ANDROID_BINDERFS DEBUG_INFO_BTF BPF_SYSCALL BPF_JIT BPF_JIT_ALWAYS_ON BPF_EVENTS ACPI \
	HPET_TIMER UPROBE_EVENTS PERF_EVENTS SCHEDSTATS FAIR_GROUP_SCHED SERIAL_8250_CONSOLE BLK_DEV_INITRD DEVTMPFS FUTEX; do
	grep -q "^CONFIG_$opt=y" "$build/.config" ||
		die "CONFIG_$opt not set in $build/.config: a dependency of it is missing from $frag"
done

echo "guest-kernel: building bzImage in $build (nice -n 19, -j$jobs; log $out/kernel-build.log)"
if ! nice -n 19 make -C "$src" O="$PWD/$build" -j"$jobs" bzImage >"$out/kernel-build.log" 2>&1; then
	tail -n 30 "$out/kernel-build.log" >&2
	die "kernel build failed (log: $out/kernel-build.log)"
fi
[ -s "$build/vmlinux" ] && readelf -S "$build/vmlinux" | grep -q '\.BTF' ||
	die "the kernel has no .BTF section: is pahole (Debian's dwarves) 1.16 or newer?"
cp "$build/arch/x86/boot/bzImage" "$out/bzImage"
echo "$key" >"$out/bzImage.key"
echo "guest-kernel: built $out/bzImage in $(($(date +%s) - start)) s"
