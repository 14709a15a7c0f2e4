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
# tests/unit/test_man renders the man page with man and groff, which a
# minimal Debian 12 (priority standard, not required) does not have;
# tests/root/test_timeline decodes the Perfetto export with protoc;
# chromium: tests/unit/test_html_chromium loads the HTML report in it, headless.
# tests/real/test_nginx and test_redis run Debian's servers as shipped:
# nginx-light (the worker serves static files), wrk (its steady client,
# paced by a Lua script), redis-server and redis-tools (redis-cli fills the
# list), python3 (the redis client, tests/real/redis/client.py). Installing
# them may start Debian's default instances (ports 80 and 6379); the tests
# run their own, on free ports, and leave those alone.
# libdw-dev: elfutils' libdw, which unwinds sampled stacks with CFI
# (user/symbols/stack_unwind.c); elfutils: eu-stack, tests/root/test_unwind's reference.
# liblzma-dev: MiniDebugInfo, the xz-compressed symbols in .gnu_debugdata
# (user/symbols/minidebug.c); binutils and xz-utils: tests/root/test_debugsrc
# makes binaries as Fedora does (nm, objcopy, strip, xz).
# libiberty-dev: libiberty's C++ and Rust demangler (user/lib/demangle.c), every
# output's function names; a static archive, so the static builds need it too.
# nodejs: tests/root/test_demangle records node's own C++ frames (its HTTP parser),
# tests/root/test_jit a Node.js server whose JavaScript frames are named from its
# perf map and jitdump (--perf-basic-prof, --perf-prof);
# g++ builds its C++ workload (tests/workloads/cxxwl.cc).
# systemtap-sdt-dev: <sys/sdt.h> for tests/workloads/usdtwl.c, whose USDT probes
# (semaphore-guarded) tests/root/test_usdt records.
# openjdk-17-jdk-headless: tests/root/test_java runs a HotSpot program (javac, JNI
# headers) whose JIT-compiled method must be named.
# @duckdb/node-api (npm, not Debian: DuckDB is not packaged): tests/unit/test_fleet_duckdb
# runs docs/issues.sql and the fleet queries of docs/fleet-tables.md in DuckDB, from Node.js
# (Debian's nodejs); installed here into .output/npm (XLP_NPM_DIR), pinned, never at build
# time, and only by the default list (not --static or --guest).
# chdb (npm, not Debian: ClickHouse is not packaged; PyPI is not reachable from
# our machines, npm's binding is the same engine): tests/unit/test_fleet_chdb runs
# the ClickHouse statements of docs/issues.md and docs/fleet-tables.md in chDB,
# ClickHouse's in-process engine (its libchdb comes in npm's @chdb/lib-linux-*
# package, ~540 MB); installed beside DuckDB, pinned, the same way.
# postgresql-15 (above) also serves tests/unit/test_fleet_postgres: docs/issues.sql
# in a private cluster it starts in a temporary directory as the user postgres.
# golang-go: go tool pprof reads export --pprof in tests/unit/test_pprof and
# tests/root/test_pprof (pprof's own reader, as its users open the file).
PKGS="make gcc clang llvm libclang-rt-dev bpftool libbpf-dev libelf-dev libdw-dev elfutils zlib1g-dev pkg-config libiberty-dev
      liblzma-dev binutils
      iproute2 util-linux procps coreutils bpftrace man-db groff-base
      postgresql-15 sqlite3 xz-utils jq protobuf-compiler chromium
      nginx-light wrk redis-server redis-tools python3 nodejs g++ openjdk-17-jdk-headless
      systemtap-sdt-dev golang-go"

# ---- static, cross and guest builds (make static, make guest-test) ----
# A flag picks another, smaller list, so make test stays lean:
#   --static x86|arm64  make [ARCH=arm64] static: Debian ships libbpf.a,
#                       libelf.a, liblzma.a and libz.a in the -dev packages; arm64 adds
#                       Debian's cross compiler and the arm64 libraries
#                       through multiarch (dpkg --add-architecture arm64),
#                       and qemu-user to run it (make static-check)
#   --guest [x86|arm64] make [ARCH=arm64] guest-test: x86: the static
#                       build, the guest kernel's source and build tools
#                       (flex, bison, pahole from dwarves, bc), cpio for the
#                       initramfs, QEMU; arm64: the --static arm64 list,
#                       cpio and QEMU for arm64 (the kernel is Debian's own)
BUILD_PKGS="make gcc clang llvm bpftool libbpf-dev libelf-dev liblzma-dev zlib1g-dev libiberty-dev file"
case "${1:-}" in
--static | --guest)
	PKGS=$BUILD_PKGS
	if [ "${2:-x86}" = arm64 ]; then
		# qemu-user: make ARCH=arm64 static-check runs the binary
		PKGS="$PKGS gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
		      libbpf-dev:arm64 libelf-dev:arm64 liblzma-dev:arm64 zlib1g-dev:arm64 libiberty-dev:arm64"
		if ! dpkg --print-foreign-architectures | grep -qx arm64; then
			if [ "$(id -u)" != 0 ]; then
				echo "xlprobe: arm64 packages not enabled; run as root (sudo make ARCH=arm64 static) to enable them" >&2
				exit 1
			fi
			echo "xlprobe: enabling arm64 packages (dpkg --add-architecture arm64)"
			dpkg --add-architecture arm64
		fi
	fi
	if [ "$1" = --guest ] && [ "${2:-x86}" = arm64 ]; then
		PKGS="$PKGS cpio qemu-system-arm"
	elif [ "$1" = --guest ]; then
		PKGS="$PKGS linux-source-6.1 flex bison dwarves bc cpio qemu-system-x86"
	fi
	;;
"") ;;
*)
	echo "install-deps: unknown option $1 (--static x86|arm64, --guest x86|arm64, or none)" >&2
	exit 1
	;;
esac
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "xlprobe: missing Debian packages:$missing; run as root (sudo make ...) to install them" >&2
		exit 1
	fi
	echo "xlprobe: installing missing Debian packages:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
[ -n "${1:-}" ] && exit 0
# DuckDB for the tests, from npm (see the top): a pinned version that runs on Node.js 20
DUCKDB_NPM="@duckdb/node-api@1.5.6-r.1"
# chDB for the tests, from npm (see the top): pinned, its engine package with it
CHDB_NPM="chdb@3.4.0"
npm_dir=${XLP_NPM_DIR:-$(cd "$(dirname "$0")/.." && pwd)/.output/npm}
if ! [ -f "$npm_dir/node_modules/@duckdb/node-api/package.json" ]; then
	echo "xlprobe: installing $DUCKDB_NPM into $npm_dir (npm)"
	mkdir -p "$npm_dir"
	npm install --prefix "$npm_dir" --no-audit --no-fund --silent "$DUCKDB_NPM" >/dev/null
fi
if ! [ -f "$npm_dir/node_modules/chdb/package.json" ] ||
	! ls "$npm_dir"/node_modules/@chdb/lib-linux-*/package.json >/dev/null 2>&1; then
	echo "xlprobe: installing $CHDB_NPM into $npm_dir (npm)"
	mkdir -p "$npm_dir"
	npm install --prefix "$npm_dir" --no-audit --no-fund --silent "$CHDB_NPM" >/dev/null
fi
