#!/bin/sh
# Writes vmlinux/<arch>/vmlinux.h from the BTF of Debian's own kernel for
# another architecture (default arm64), for cross builds: no arm64 machine
# is needed. The kernel package (linux-image-<arch>, ~60 MB) is fetched with
# apt-get download into a temporary directory, not installed. Needs the
# architecture enabled (dpkg --add-architecture arm64; apt-get update).
#   tools/gen-vmlinux-deb.sh [arm64|x86]
# The kernel image keeps its BTF in the .BTF section, which vmlinuz still
# carries: the blob is found by its header (magic 0xeb9f, version 1, header
# length 24), after decompression if the image is compressed. Like gen-vmlinux.sh,
# regenerate only to pick up new kernel types; CO-RE keeps other kernels
# working.
set -eu
cd "$(dirname "$0")/.."
arch=${1:-arm64}
case $arch in
arm64) debarch=arm64 ;;
x86) debarch=amd64 ;;
*)
	echo "gen-vmlinux-deb: unknown architecture $arch (arm64 or x86)" >&2
	exit 1
	;;
esac
dpkg --print-foreign-architectures | grep -qx $debarch || [ "$(dpkg --print-architecture)" = $debarch ] || {
	echo "gen-vmlinux-deb: $debarch packages not enabled: dpkg --add-architecture $debarch && apt-get update" >&2
	exit 1
}
pkg=$(apt-cache depends "linux-image-$debarch:$debarch" 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[^ :]*\).*/\1/p' | head -n 1)
[ -n "$pkg" ] || {
	echo "gen-vmlinux-deb: apt knows no linux-image-$debarch:$debarch: run apt-get update" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the sandbox user _apt cannot write to a mktemp directory
(cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "$pkg:$debarch")
dpkg-deb -x "$tmp"/*.deb "$tmp/root"
vmlinuz=$(ls "$tmp"/root/boot/vmlinuz-* | head -n 1)
python3 - "$vmlinuz" "$tmp/vmlinux.btf" <<'EOF'
import struct, sys, zlib

data = open(sys.argv[1], "rb").read()
# arm64 vmlinuz is the plain Image (an EFI executable); other kernels are a
# compressed stream, or an EFI zboot image carrying one: then the first
# gzip stream is the kernel
image = data
if data.find(b"\x9f\xeb\x01\x00\x18\x00\x00\x00") < 0:
    start = data.find(b"\x1f\x8b\x08")
    if start < 0:
        sys.exit("gen-vmlinux-deb: %s is neither a kernel image with BTF nor gzip-compressed" % sys.argv[1])
    image = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data[start:])
best = None
pos = image.find(b"\x9f\xeb\x01\x00\x18\x00\x00\x00")
while pos >= 0:
    toff, tlen, soff, slen = struct.unpack_from("<4I", image, pos + 8)
    size = 24 + max(toff + tlen, soff + slen)
    if pos + size <= len(image) and (best is None or size > best[1]):
        best = (pos, size)
    pos = image.find(b"\x9f\xeb\x01\x00\x18\x00\x00\x00", pos + 1)
if best is None:
    sys.exit("gen-vmlinux-deb: no BTF in the kernel image (built without CONFIG_DEBUG_INFO_BTF?)")
open(sys.argv[2], "wb").write(image[best[0] : best[0] + best[1]])
print("gen-vmlinux-deb: BTF of %d bytes at offset %#x" % (best[1], best[0]))
EOF
mkdir -p "vmlinux/$arch"
bpftool btf dump file "$tmp/vmlinux.btf" format c >"vmlinux/$arch/vmlinux.h.tmp"
mv "vmlinux/$arch/vmlinux.h.tmp" "vmlinux/$arch/vmlinux.h"
echo "wrote vmlinux/$arch/vmlinux.h from $pkg ($(apt-cache show "$pkg:$debarch" | sed -n 's/^Version: //p' | head -n 1))"
