#!/bin/sh
# The arm64 guest kernel of make ARCH=arm64 guest-test: Debian 12's own
# arm64 kernel (the linux-image-arm64 package's current image), unchanged:
# a distribution config with BTF, schedstats and binder as a module
# (binder_linux.ko; no binderfs: the test program loads the module with the
# devices it needs). The package is fetched with apt-get download (Debian's
# archive, as tools/install-deps.sh uses it), not installed; OUT/Image and
# OUT/binder_linux.ko are kept until the package changes.
#   tools/guest-kernel-arm64.sh [OUT]        (default .output/guest-arm64)
set -eu
cd "$(dirname "$0")/.."
out=${1:-.output/guest-arm64}

die() {
	echo "guest-kernel-arm64: $*" >&2
	exit 1
}

dpkg --print-foreign-architectures | grep -qx arm64 ||
	die "arm64 packages not enabled: run tools/install-deps.sh --static arm64"
pkg=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[^ :]*\).*/\1/p' | head -n 1)
[ -n "$pkg" ] || die "apt knows no linux-image-arm64:arm64: run apt-get update"
ver=$(apt-cache show "$pkg:arm64" | sed -n 's/^Version: //p' | head -n 1)
key="$pkg $ver"
mkdir -p "$out"
if [ -s "$out/Image" ] && [ -s "$out/binder_linux.ko" ] && [ "$(cat "$out/Image.key" 2>/dev/null)" = "$key" ]; then
	echo "guest-kernel-arm64: $out/Image is up to date ($key)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "guest-kernel-arm64: fetching $pkg $ver (Debian's arm64 kernel, ~60 MB)"
# the sandbox user _apt cannot write to a mktemp directory
(cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "$pkg:arm64") ||
	die "apt-get download $pkg:arm64 failed"
dpkg-deb -x "$tmp"/*.deb "$tmp/root"
cp "$tmp"/root/boot/vmlinuz-* "$out/Image"
ko=$(find "$tmp/root/lib/modules" -name binder_linux.ko | head -n 1)
[ -n "$ko" ] || die "$pkg has no binder_linux.ko: Debian's config changed (CONFIG_ANDROID_BINDER_IPC)"
cp "$ko" "$out/binder_linux.ko"
echo "$key" >"$out/Image.key"
echo "guest-kernel-arm64: $out/Image and binder_linux.ko from $key"
