#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# System set-up for the e2e tests and `make demo`. Needs root.
#
#   setup.sh loopdev DIR        attach DIR/xlprobe-e2e.img (64 MiB) to a loop
#                               device and print its path (/dev/loopN)
#   setup.sh throttle DEV BPS   blkio v1 cgroup limiting reads from DEV to BPS
#                               bytes/s; prints the cgroup directory
#   setup.sh join CGDIR PID     move process PID (all its threads) into CGDIR
#   setup.sh teardown           undo everything the commands above created
#   setup.sh status             print the state file
#
# Every command is idempotent: loopdev on the same DIR prints the same
# device, throttle on the same DEV reuses its cgroup and updates the limit.
# What is created is written to the state file *before* it is created, so
# teardown also cleans up after a command that failed half-way.
set -eu

STATE=${XLP_E2E_STATE:-/tmp/xlprobe-e2e-state}
BLKIO=/sys/fs/cgroup/blkio
IMG_MIB=64

die() {
	echo "setup.sh: $*" >&2
	exit 1
}

# Serialise concurrent callers: they all edit one state file.
lock_state() {
	exec 9>>"$STATE.lock"
	flock 9
	touch "$STATE"
}

# state_get KIND KEY: the value recorded for KEY, if any.
state_get() {
	awk -v k="$1" -v key="$2" '$1 == k && $2 == key { v = $3 } END { if (v != "") print v }' "$STATE"
}

state_add() {
	echo "$*" >>"$STATE"
}

cmd_loopdev() {
	dir=$1
	[ -d "$dir" ] || die "loopdev: no directory $dir"
	img=$(cd "$dir" && pwd)/xlprobe-e2e.img
	lock_state
	dev=$(state_get loop "$img")
	if [ -n "$dev" ] && losetup -j "$img" | grep -q "^$dev:"; then
		echo "$dev"
		return
	fi
	state_add image "$img" -
	if [ ! -f "$img" ]; then
		# Real data, not a sparse file: the loop driver must copy pages.
		dd if=/dev/urandom of="$img.tmp" bs=1M count=$IMG_MIB status=none
		mv "$img.tmp" "$img"
	fi
	dev=$(losetup -f --show "$img")
	state_add loop "$img" "$dev"
	echo "$dev"
}

# The cgroup of DEV created earlier, if it still exists.
existing_cgroup() {
	cg=$(state_get cgroup "$1")
	[ -n "$cg" ] && [ -d "$cg" ] && echo "$cg"
	return 0
}

cmd_throttle() {
	dev=$1
	bps=$2
	[ -b "$dev" ] || die "throttle: $dev is not a block device"
	[ -d "$BLKIO" ] || die "throttle: no blkio v1 hierarchy at $BLKIO"
	case $bps in '' | *[!0-9]*) die "throttle: BPS must be a number" ;; esac
	majmin=$(printf '%d:%d' "0x$(stat -L -c %t "$dev")" "0x$(stat -L -c %T "$dev")")
	lock_state
	cg=$(existing_cgroup "$dev")
	if [ -z "$cg" ]; then
		cg=$BLKIO/xlprobe-test-$$
		state_add cgroup "$dev" "$cg"
		mkdir -p "$cg"
	fi
	echo "$majmin $bps" >"$cg/blkio.throttle.read_bps_device"
	echo "$cg"
}

cmd_join() {
	cg=$1
	pid=$2
	[ -f "$cg/cgroup.procs" ] || die "join: $cg is not a cgroup"
	echo "$pid" >"$cg/cgroup.procs"
}

# Move every task left in cgroup $1 back to the root, then remove it.
remove_cgroup() {
	cg=$1
	[ -d "$cg" ] || return 0
	# a snapshot first: the file changes under us as tasks leave
	procs=$(cat "$cg/cgroup.procs" 2>/dev/null || true)
	for pid in $procs; do
		echo "$pid" >"$BLKIO/cgroup.procs" 2>/dev/null || true
	done
	rmdir "$cg" 2>/dev/null || echo "setup.sh: could not remove $cg" >&2
}

cmd_teardown() {
	lock_state
	# cgroups first: a throttled process may still hold the device open
	awk '$1 == "cgroup" { print $3 }' "$STATE" | while read -r cg; do
		remove_cgroup "$cg"
	done
	awk '$1 == "loop" { print $2, $3 }' "$STATE" | while read -r img dev; do
		if losetup -j "$img" | grep -q "^$dev:"; then
			losetup -d "$dev" || echo "setup.sh: could not detach $dev" >&2
		fi
	done
	awk '$1 == "image" { print $2 }' "$STATE" | while read -r img; do
		# a loop device attached by someone else keeps the image alive
		if [ -z "$(losetup -j "$img")" ]; then
			rm -f "$img" "$img.tmp"
		fi
	done
	rm -f "$STATE" "$STATE.lock"
}

usage() {
	sed -n '3,12s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
loopdev) [ $# = 1 ] || usage; cmd_loopdev "$1" ;;
throttle) [ $# = 2 ] || usage; cmd_throttle "$1" "$2" ;;
join) [ $# = 2 ] || usage; cmd_join "$1" "$2" ;;
teardown) [ $# = 0 ] || usage; cmd_teardown ;;
status) [ ! -f "$STATE" ] || cat "$STATE" ;;
*) usage ;;
esac
