#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make check-layers (run by make test): the user-space layers only use
# the layers below them (README.md, "Architecture"). The Makefile gives
# each layer its include path; this checks what that path lets through,
# and what it cannot see:
#
#  1. every .c and .h under user/ and analysis/ is in a layer's directory
#     (a file elsewhere would build with no layer's rules, or not at all);
#  2. no #include names a path with "..", and no quoted #include a
#     directory: the compiler would find "../report/report.h" from
#     user/trace/ whatever the -I flags say;
#  3. a probe including each header of each layer, compiled with each
#     layer's flags, builds exactly when the header's layer is at or below
#     the probe's (the probes that must fail are the ones that show the
#     direction is enforced: a leaked -I makes them build, and this fail);
#  4. no layer's archive needs a symbol that an archive above it defines
#     (a declaration written by hand instead of an include);
#  5. checks 2 and 4 are shown a planted violation each and must catch it;
#  6. every BPF header (bpf/*.bpf.h) compiles as the only include of an
#     empty .bpf.c: it includes what it uses, so that a program file can
#     include just the concerns it needs (a planted header that does not
#     must fail).
#
# Environment (set by the Makefile): CC, PROBE_CFLAGS (warnings, defines,
# no dependency output), LAYERS (bottom first), and per layer L: L_DIR,
# L_INC (its -I flags), L_HDRS (its headers), L_AR (its archive).
cd "$(dirname "$0")/.." || exit 2
: "${CC:?}" "${LAYERS:?}" "${CLANG:?}" "${BPF_PROBE_CFLAGS:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
checks=0

fail()
{
	echo "FAIL layers: $*"
	fails=$((fails + 1))
}

var()
{
	eval "printf '%s' \"\${$1}\""
}

# ---- 1. every source file belongs to a layer ----
dirs=
for l in $LAYERS; do
	dirs="$dirs $(var "${l}_DIR")"
done
for f in $(find user analysis -name '*.[ch]' | sort); do
	checks=$((checks + 1))
	d=$(dirname "$f")
	case " $dirs " in
	*" $d "*) ;;
	*) fail "$f is in no layer's directory ($dirs ): move it into one, or add a layer to the Makefile" ;;
	esac
done

# ---- 2. no include escapes its include path ----
# Prints the offending #include lines of the files given, as FILE:LINE:TEXT.
bad_includes()
{
	grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*("[^"]*(\.\.|/)[^"]*"|<[^>]*\.\.[^>]*>)' "$@"
}

for f in $(find user analysis -name '*.[ch]' | sort); do
	checks=$((checks + 1))
	bad_includes "$f" | while IFS= read -r line; do
		echo "FAIL layers: $line: include by name, through the layer's -I (no directory, no ..)"
	done | grep . && fails=$((fails + 1))
done

# ---- 3. include probes ----
pos=0
for l in $LAYERS; do
	pos=$((pos + 1))
	eval "pos_$l=$pos"
done
nprobe=0
nrefused=0
for l in $LAYERS; do
	inc=$(var "${l}_INC")
	for o in $LAYERS; do
		for h in $(var "${o}_HDRS"); do
			nprobe=$((nprobe + 1))
			checks=$((checks + 1))
			name=$(basename "$h")
			# shellcheck disable=SC2086 # flags are words
			if printf '#include "%s"\n' "$name" |
				$CC $PROBE_CFLAGS $inc -fsyntax-only -x c - 2>"$tmp/err"; then
				got=builds
			else
				got=fails
			fi
			if [ "$(var "pos_$o")" -le "$(var "pos_$l")" ]; then
				[ $got = builds ] || {
					fail "layer $l cannot include $name of layer $o (at or below it):"
					sed 's/^/  /' "$tmp/err" | head -n 5
				}
				continue
			fi
			nrefused=$((nrefused + 1))
			if [ $got = builds ]; then
				fail "layer $l can include $name of layer $o, above it: its include path leaks ($inc)"
			elif ! grep -q 'No such file or directory' "$tmp/err"; then
				fail "layer $l, $name: expected 'No such file', got:"
				sed 's/^/  /' "$tmp/err" | head -n 5
			fi
		done
	done
done

# ---- 4. no symbol from above ----
# Symbols archive $1 needs that the archives $2... define.
upward_symbols()
{
	a=$1
	shift
	nm -u --format=posix "$a" 2>/dev/null | awk '{ print $1 }' | sort -u >"$tmp/undef"
	for up in "$@"; do
		nm -g --defined-only --format=posix "$up" 2>/dev/null | awk '{ print $1 }'
	done | sort -u >"$tmp/def"
	comm -12 "$tmp/undef" "$tmp/def"
}

above=
for l in $(echo "$LAYERS" | awk '{ for (i = NF; i > 0; i--) print $i }'); do
	ar=$(var "${l}_AR")
	checks=$((checks + 1))
	if [ ! -f "$ar" ]; then
		fail "$ar missing: run make first"
	elif [ -n "$above" ]; then
		# shellcheck disable=SC2086
		syms=$(upward_symbols "$ar" $above)
		[ -z "$syms" ] || fail "layer $l uses symbols of a layer above it: $(echo "$syms" | tr '\n' ' ' | sed 's/ $//')"
	fi
	above="$above $ar"
done

# ---- 5. the checks catch a planted violation ----
checks=$((checks + 1))
printf '#include "../report/report.h"\n#include <../x.h>\n#include "lib/log.h"\n#include "trace.h"\n#include <bpf/libbpf.h>\n' >"$tmp/planted.c"
[ "$(bad_includes "$tmp/planted.c" | wc -l)" = 3 ] ||
	fail "the include check missed a planted '../' or directory include: $(bad_includes "$tmp/planted.c")"
checks=$((checks + 1))
low=${LAYERS%% *}
top=$(echo "$LAYERS" | awk '{ print $NF }')
topsym=$(nm -g --defined-only --format=posix "$(var "${top}_AR")" 2>/dev/null | awk '$2 == "T" { print $1; exit }')
if [ -z "$topsym" ]; then
	fail "no function found in $(var "${top}_AR") to plant"
else
	printf 'void %s(void);\nvoid planted(void) { %s(); }\n' "$topsym" "$topsym" >"$tmp/up.c"
	# shellcheck disable=SC2086
	if ! $CC $PROBE_CFLAGS -c "$tmp/up.c" -o "$tmp/up.o" || ! ar rcs "$tmp/up.a" "$tmp/up.o"; then
		fail "cannot build the planted object"
	elif [ "$(upward_symbols "$tmp/up.a" "$(var "${top}_AR")")" != "$topsym" ]; then
		fail "the symbol check missed $topsym planted in layer $low"
	fi
fi

# ---- 6. each BPF header stands alone ----
# Compiles $tmp/bpfh/probe.bpf.c, which includes only the header given.
bpf_alone()
{
	mkdir -p "$tmp/bpfh"
	printf '#include "%s"\n' "$1" >"$tmp/bpfh/probe.bpf.c"
	# shellcheck disable=SC2086
	$CLANG $BPF_PROBE_CFLAGS -I"$2" -c "$tmp/bpfh/probe.bpf.c" -o "$tmp/bpfh/probe.o" \
		2>"$tmp/bpfh/err"
}

nbpfh=0
for h in bpf/*.bpf.h; do
	checks=$((checks + 1))
	nbpfh=$((nbpfh + 1))
	bpf_alone "$(basename "$h")" bpf ||
		fail "$h does not compile as the only include of an empty .bpf.c: include what it uses ($(grep -m1 error: "$tmp/bpfh/err"))"
done
checks=$((checks + 1))
mkdir -p "$tmp/planted_bpf"
# uses stat.bpf.h's stat_inc without including it
printf 'static inline void planted(void) { stat_inc(0); }\n' >"$tmp/planted_bpf/planted.bpf.h"
bpf_alone planted.bpf.h "$tmp/planted_bpf" &&
	fail "the BPF header check passed a planted header that includes nothing it uses"

if [ $fails = 0 ]; then
	echo "PASS layers: $checks checks; $nprobe include probes, $nrefused refused as they must be; $nbpfh BPF headers compile alone"
	exit 0
fi
echo "FAIL layers: $fails of $checks checks failed"
exit 1
