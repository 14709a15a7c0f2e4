#!/bin/sh
# Installs the Debian packages xlprobe needs to build, test and benchmark,
# only those that are missing. Safe to run again; needs root to install.
# libclang-rt-dev: the sanitizer and libFuzzer runtimes of Debian's clang
# (libclang-rt-14-dev on Debian 12), for make fuzz and the fuzz tests.
set -eu
# The real-software suite (tests/real) runs PostgreSQL 15, sqlite3 and xz
# from Debian and reads traces with jq.
# Installing postgresql-15 also creates and starts a default cluster
# (15/main); the tests run their own clusters and leave that one alone.
PKGS="make gcc clang llvm libclang-rt-dev bpftool libbpf-dev libelf-dev zlib1g-dev pkg-config
      iproute2 util-linux procps coreutils bpftrace
      postgresql-15 sqlite3 xz-utils jq"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "xlprobe: missing Debian packages:$missing; run as root (sudo make ...) to install them" >&2
	exit 1
fi
echo "xlprobe: installing missing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
