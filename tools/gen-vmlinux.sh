#!/bin/sh
# Regenerates vmlinux/<arch>/vmlinux.h from the running kernel's BTF.
# The checked-in header is what CO-RE relocates against; regenerate it only
# to pick up new kernel types (CO-RE keeps old kernels working).
set -eu
arch=$(uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')
btf=${1:-/sys/kernel/btf/vmlinux}
[ -r "$btf" ] || { echo "gen-vmlinux: $btf not readable: kernel built without CONFIG_DEBUG_INFO_BTF" >&2; exit 1; }
mkdir -p "vmlinux/$arch"
bpftool btf dump file "$btf" format c > "vmlinux/$arch/vmlinux.h.tmp"
mv "vmlinux/$arch/vmlinux.h.tmp" "vmlinux/$arch/vmlinux.h"
echo "wrote vmlinux/$arch/vmlinux.h"
