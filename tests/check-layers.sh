#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make check-layers (run by make test): each user-space layer uses only
# the layers it may use (README.md, "Architecture": the Makefile's L_USES,
# a graph, and what those use through them, L_ALL). The Makefile gives
# each layer its include path; this checks what that path lets through,
# and what it cannot see:
#
#  1. every .c and .h under user/ and analysis/ is in a layer's directory
#     or its private/ folder (a file elsewhere would build with no layer's
#     rules, or not at all), and no two headers share a name (includes are
#     by name);
#  2. no #include names a path with "..", and no quoted #include a
#     directory: the compiler would find "../report/report.h" from
#     user/trace/ whatever the -I flags say;
#  3. a probe including each header of each layer, compiled with each
#     layer's flags, builds exactly when the header's layer is the probe's
#     or one it may use, and a private/ header only in its own layer (the
#     probes that must fail are the ones that show the direction is
#     enforced: a leaked -I makes them build, and this fail);
#  4. no layer's archive needs a symbol that the archive of a layer it may
#     not use defines (a declaration written by hand instead of an include);
#  5. the graph: every layer a layer uses is a layer listed before it in
#     LAYERS (the archives link in the reverse order, so a cycle or a
#     misordered list would not link), and one it includes a header of
#     (the graph is the code's, not wider);
#  6. no include cycle among the headers of user/, analysis/ and bpf/
#     (one header including another that includes it back): none is
#     justified today, so none is allowed;
#  7. the README's table of layers (Architecture) gives each layer the
#     Makefile's folder and L_USES;
#  8. checks 2, 4, 5 (both), 6 and 7 are shown a planted violation each and must
#     catch it;
#  9. every BPF header (bpf/*.bpf.h) compiles as the only include of an
#     empty .bpf.c: it includes what it uses, so that a program file can
#     include just the concerns it needs (a planted header that does not
#     must fail).
# 10. no hand-written source file (.c, .h, .sh, .py, Makefile) has more
#     than 900 lines, vmlinux/ (generated) aside: a longer one holds more
#     than one concern (README.md, "Architecture"; a planted 901-line file
#     must fail).
#
# Environment (set by the Makefile): CC, PROBE_CFLAGS (warnings, defines,
# no dependency output), LAYERS (in link order reversed: a layer after the
# layers it uses), and per layer L: L_DIR, L_INC (the -I flags other layers
# see it by), L_OWN_INC (what its own files compile with: L_INC and its
# private/), L_USES (the layers it uses directly), L_ALL (all it may use),
# L_HDRS (its headers), L_PRIV_HDRS (its private ones), L_AR (its archive).
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
	dirs="$dirs $(var "${l}_DIR") $(var "${l}_DIR")/private"
done
for f in $(find user analysis -name '*.[ch]' | sort); do
	checks=$((checks + 1))
	d=$(dirname "$f")
	case " $dirs " in
	*" $d "*) ;;
	*) fail "$f is in no layer's directory ($dirs ): move it into one, or add a layer to the Makefile" ;;
	esac
done
checks=$((checks + 1))
dup=$(find user analysis bpf -name '*.h' -exec basename -a {} + | sort | uniq -d | tr '\n' ' ')
[ -z "$dup" ] || fail "headers of the same name in two places: $dup(an include by name would find either): rename one"

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
# may_use L O: layer L may include layer O's headers (O is L or in L_ALL)
may_use()
{
	[ "$1" = "$2" ] && return 0
	case " $(var "${1}_ALL") " in
	*" $2 "*) return 0 ;;
	esac
	return 1
}

# The probes first, one compile each, as many at a time as there are CPUs
# (910 of them: 30 s one after another on this 2-CPU VM). Job N (a line
# "N LAYER HEADER" of $tmp/jobs) leaves "builds" or "fails" in
# $tmp/p/N.got and the compiler's words in $tmp/p/N.err.
mkdir -p "$tmp/p"
: >"$tmp/jobs"
n=0
for l in $LAYERS; do
	for o in $LAYERS; do
		for h in $(var "${o}_HDRS") $(var "${o}_PRIV_HDRS"); do
			n=$((n + 1))
			echo "$n $l $h" >>"$tmp/jobs"
		done
	done
done
export CC PROBE_CFLAGS
# shellcheck disable=SC2016 # the job's script expands its own variables
xargs -P "$(nproc 2>/dev/null || echo 2)" -n 3 sh -c '
	eval "inc=\${${2}_OWN_INC}"
	# shellcheck disable=SC2086 # flags are words
	if printf "#include \"%s\"\n" "$(basename "$3")" |
		$CC $PROBE_CFLAGS $inc -fsyntax-only -x c - 2>"$0/$1.err"; then
		echo builds >"$0/$1.got"
	else
		echo fails >"$0/$1.got"
	fi' "$tmp/p" <"$tmp/jobs"

nprobe=0
nrefused=0
for l in $LAYERS; do
	inc=$(var "${l}_OWN_INC")
	for o in $LAYERS; do
		for h in $(var "${o}_HDRS") $(var "${o}_PRIV_HDRS"); do
			nprobe=$((nprobe + 1))
			checks=$((checks + 1))
			name=$(basename "$h")
			got=none
			read -r got <"$tmp/p/$nprobe.got" || got=none
			err=$tmp/p/$nprobe.err
			case "$h" in
			*/private/*) [ "$o" = "$l" ] && want=builds || want=fails ;;
			*) may_use "$l" "$o" && want=builds || want=fails ;;
			esac
			if [ "$want" = builds ]; then
				[ "$got" = builds ] || {
					fail "layer $l cannot include $name of layer $o (one it may use):"
					sed 's/^/  /' "$err" | head -n 5
				}
				continue
			fi
			nrefused=$((nrefused + 1))
			if [ "$got" = builds ]; then
				fail "layer $l can include $name of layer $o, which it may not use: its include path leaks ($inc)"
			elif ! grep -q 'No such file or directory' "$err"; then
				fail "layer $l, $name: expected 'No such file', got:"
				sed 's/^/  /' "$err" | head -n 5
			fi
		done
	done
done

# ---- 4. no symbol from a layer it may not use ----
# Symbols archive $1 needs that the archives $2... define (check 8's
# planted archive).
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

# Each archive's undefined and defined symbols, read once (nm of every
# pair of layers took 6 s).
for l in $LAYERS; do
	ar=$(var "${l}_AR")
	[ -f "$ar" ] || continue
	nm -u --format=posix "$ar" 2>/dev/null | awk '{ print $1 }' | sort -u >"$tmp/undef.$l"
	nm -g --defined-only --format=posix "$ar" 2>/dev/null | awk '{ print $1 }' | sort -u >"$tmp/def.$l"
done

for l in $LAYERS; do
	ar=$(var "${l}_AR")
	checks=$((checks + 1))
	if [ ! -f "$ar" ]; then
		fail "$ar missing: run make first"
		continue
	fi
	for o in $LAYERS; do
		may_use "$l" "$o" && continue
		[ -f "$tmp/def.$o" ] || continue # its own "missing" fails above
		syms=$(comm -12 "$tmp/undef.$l" "$tmp/def.$o")
		[ -z "$syms" ] || fail "layer $l uses symbols of layer $o, which it may not use: $(echo "$syms" | tr '\n' ' ' | sed 's/ $//')"
	done
done

# ---- 5. the graph: a layer comes after the layers it uses ----
# graph_order "LAYERS" prints what is wrong, nothing when each layer's
# L_USES are layers listed before it
graph_order()
{
	seen=
	for l in $1; do
		for u in $(var "${l}_USES"); do
			case " $seen " in
			*" $u "*) ;;
			*) echo "layer $l uses $u, which is not a layer listed before it" ;;
			esac
		done
		seen="$seen $l"
	done
}
# unused_uses: each "L U" where layer L lists U but no file of L includes
# a header of U (the graph would allow more than the code does)
unused_uses()
{
	for l in $LAYERS; do
		for u in $(var "${l}_USES"); do
			used=
			for h in $(var "${u}_HDRS"); do
				if grep -qE "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$(basename "$h")\"" \
					"$(var "${l}_DIR")"/*.[ch] "$(var "${l}_DIR")"/private/*.h 2>/dev/null; then
					used=1
					break
				fi
			done
			[ -n "$used" ] || echo "$l $u"
		done
	done
}
checks=$((checks + 1))
bad=$(unused_uses)
[ -z "$bad" ] || fail "layers list layers they do not include a header of (L U): $(echo "$bad" | tr '\n' ';' | sed 's/;$//'): drop them from L_USES (and README.md's table)"
checks=$((checks + 1))
bad=$(graph_order "$LAYERS")
[ -z "$bad" ] || fail "$bad: list LAYERS in the Makefile so that each layer follows those it uses (a cycle cannot be)"

# ---- 6. no include cycle ----
# include_edges FILE...: "A B" for each header B that header A includes by name
include_edges()
{
	for f in "$@"; do
		b=$(basename "$f")
		echo "$b $b"
		grep -hoE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' "$f" |
			sed -E 's/.*"([^"]+)"/\1/' | while IFS= read -r h; do echo "$b $h"; done
	done
}
checks=$((checks + 1))
# shellcheck disable=SC2046 # file names have no spaces
include_edges $(find user analysis bpf -name '*.h' | sort) >"$tmp/edges"
tsort "$tmp/edges" >/dev/null 2>"$tmp/loop" ||
	fail "an include cycle among the headers: $(grep -v 'input contains a loop' "$tmp/loop" | sed 's/^tsort: //' | tr '\n' ' ')(a header needs only what it declares: move the shared part into its own header)"

# ---- 7. the README's table of layers is the Makefile's graph ----
# readme_rows FILE: what is wrong with FILE's rows "| `L` | `DIR/` | USES | ... |"
readme_rows()
{
	for l in $LAYERS; do
		row=$(grep -m1 "^| \`$l\` |" "$1")
		if [ -z "$row" ]; then
			echo "no row for layer $l"
			continue
		fi
		dir=$(echo "$row" | awk -F'|' '{ gsub(/[` ]/, "", $3); print $3 }')
		uses=$(echo "$row" | awk -F'|' '{ gsub(/`/, "", $4); print $4 }' | tr ' ' '\n' | grep -v '^-*$' | sort | tr '\n' ' ')
		want=$(var "${l}_USES" | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
		[ "$dir" = "$(var "${l}_DIR")/" ] || echo "layer $l: folder $dir, the Makefile's is $(var "${l}_DIR")/"
		[ "$uses" = "$want" ] || echo "layer $l uses '$uses', the Makefile's L_USES '$want'"
	done
}
checks=$((checks + 1))
bad=$(readme_rows README.md)
[ -z "$bad" ] || fail "README.md's table of layers (Architecture) and the Makefile differ: $(echo "$bad" | tr '\n' ';' | sed 's/;$//'): make them agree"

# ---- 8. the checks catch a planted violation ----
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

checks=$((checks + 1))
# a layer using one listed after it (a cycle would need one)
# shellcheck disable=SC2034 # read back by the evals below
low_uses=$(var "${low}_USES")
eval "${low}_USES=\"\$low_uses $top\""
[ -n "$(graph_order "$LAYERS")" ] || fail "the graph check missed $low using $top, listed after it"
eval "${low}_USES=\"\$low_uses\""
checks=$((checks + 1))
# a use the code does not make: the bottom layer listing the top one
eval "${low}_USES=\"\$low_uses $top\""
[ -n "$(unused_uses)" ] || fail "the unused-use check missed $low listing $top"
eval "${low}_USES=\"\$low_uses\""
checks=$((checks + 1))
printf '#include "planted_b.h"\n' >"$tmp/planted_a.h"
printf '#include "planted_a.h"\n' >"$tmp/planted_b.h"
include_edges "$tmp/planted_a.h" "$tmp/planted_b.h" | tsort >/dev/null 2>&1 &&
	fail "the include-cycle check missed planted_a.h <-> planted_b.h"

checks=$((checks + 1))
sed "s/^| \`$top\` |\(.*\)| [^|]* |\([^|]*|\)$/| \`$top\` |\1| $low |\2/" README.md >"$tmp/README.md"
[ -n "$(readme_rows "$tmp/README.md")" ] || fail "the README check missed the row of $top given the uses '$low'"

# ---- 9. each BPF header stands alone ----
# The job that compiles $0/NAME/probe.bpf.c, which includes only the header
# $1 (NAME.bpf.h, found through its own directory); it leaves the
# compiler's words in $0/NAME/err, and $0/NAME/failed when it fails.
# shellcheck disable=SC2016 # the job's script expands its own variables
bpf_alone='
	d=$0/$(basename "$1" .bpf.h)
	mkdir -p "$d"
	printf "#include \"%s\"\n" "$(basename "$1")" >"$d/probe.bpf.c"
	# shellcheck disable=SC2086
	$CLANG $BPF_PROBE_CFLAGS -I"$(dirname "$1")" -c "$d/probe.bpf.c" -o "$d/probe.o" \
		2>"$d/err" || : >"$d/failed"'

# every header at once, as many compiles as CPUs (each reads vmlinux.h:
# 8.5 s one after another here)
export CLANG BPF_PROBE_CFLAGS
for h in bpf/*.bpf.h; do echo "$h"; done |
	xargs -P "$(nproc 2>/dev/null || echo 2)" -n 1 sh -c "$bpf_alone" "$tmp/bpfh"
nbpfh=0
for h in bpf/*.bpf.h; do
	checks=$((checks + 1))
	nbpfh=$((nbpfh + 1))
	d=$tmp/bpfh/$(basename "$h" .bpf.h)
	if [ ! -d "$d" ] || [ -e "$d/failed" ]; then
		fail "$h does not compile as the only include of an empty .bpf.c: include what it uses ($(grep -m1 error: "$d/err" 2>/dev/null))"
	fi
done
checks=$((checks + 1))
mkdir -p "$tmp/planted_bpf"
# uses stat.bpf.h's stat_inc without including it
printf 'static inline void planted(void) { stat_inc(0); }\n' >"$tmp/planted_bpf/planted.bpf.h"
sh -c "$bpf_alone" "$tmp/bpfh" "$tmp/planted_bpf/planted.bpf.h"
[ -e "$tmp/bpfh/planted/failed" ] ||
	fail "the BPF header check passed a planted header that includes nothing it uses"

# ---- 10. no source file over 900 lines ----
max_lines=900
# Prints the files of the list on stdin longer than max_lines, with their count.
too_long()
{
	grep -E '(\.(c|h|sh|py)|(^|/)Makefile)$' | grep -v '^vmlinux/' |
		while IFS= read -r f; do
			[ -f "$f" ] && n=$(wc -l <"$f") && [ "$n" -gt $max_lines ] && echo "$f ($n lines)"
		done
}

checks=$((checks + 1))
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	srcs=$(git ls-files --cached --others --exclude-standard)
else
	srcs=$(find . -type f | sed 's|^\./||')
fi
long=$(printf '%s\n' "$srcs" | too_long)
[ -z "$long" ] ||
	fail "over $max_lines lines, split by concern: $(echo "$long" | paste -sd, - | sed 's/,/, /g')"
checks=$((checks + 1))
mkdir -p "$tmp/long"
seq 901 >"$tmp/long/planted.c"
[ -n "$(echo "$tmp/long/planted.c" | too_long)" ] ||
	fail "the line-count check passed a planted file of 901 lines"

if [ $fails = 0 ]; then
	echo "PASS layers: $checks checks; $nprobe include probes, $nrefused refused as they must be; $nbpfh BPF headers compile alone; no source file over $max_lines lines"
	exit 0
fi
echo "FAIL layers: $fails of $checks checks failed"
exit 1
