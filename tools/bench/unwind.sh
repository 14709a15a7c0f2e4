# shellcheck shell=bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tools/bench/unwind.sh: sections 9 (unwinding with CFI) and 11 (JIT
# symbols): functions, called from tools/bench.sh in their turn.
#
# Sourced by tools/bench.sh in its turn, after the parts before it (its top
# says what each section measures; make bench and make bench-quick run it).

# ---- 9. unwinding with CFI (a function: BENCH_ONLY=unwind runs it alone) -------
# ---- 11. JIT symbols (issue 34): naming frames from a 100 000-entry perf
# map and jitdump, per sample, against perf report on a perf recording of
# a Node.js server whose map was padded to the same size ----------------------
bench_jitsym() {
	local JS=$OUT/tests/bench/bench_jitsym node=/usr/bin/node w srv port pid n frames t0 t1 perf_ns x
	want 11 || return 0
	echo
	echo "== 11. JIT symbols: naming a sample's frames from a 100 000-entry perf map and jitdump =="
	if [ ! -x "$JS" ]; then
		echo "n/a: $JS not built (make build-tests)"
		return
	fi
	w=$TMP/jit
	mkdir -p "$w"
	if [ "$HAVE_PERF" = 1 ] && [ -x "$node" ]; then
		cat >"$w/server.js" <<'JS'
const http = require('http');
function burn(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i); return s; }
const srv = http.createServer((req, res) => res.end('ok ' + burn(2e5) + '\n'));
srv.listen(0, '127.0.0.1', () => console.log('PORT ' + srv.address().port));
JS
		cat >"$w/client.js" <<'JS'
const http = require('http');
const port = +process.argv[2], end = Date.now() + 1000 * +process.argv[3];
(function one() { if (Date.now() > end) return;
  http.get({ port, host: '127.0.0.1' }, r => { r.resume(); r.on('end', one); }); })();
JS
		(cd "$w" && exec "$node" --perf-basic-prof server.js >"$w/srv.out" 2>&1) &
		srv=$!
		for _ in $(seq 100); do grep -q PORT "$w/srv.out" 2>/dev/null && break; sleep 0.1; done
		port=$(awk '/PORT/ { print $2 }' "$w/srv.out")
		pid=$srv
		# padded to 100 000 entries in an address range node does not use
		awk 'BEGIN { for (i = 0; i < 100000; i++) printf "%x 400 JS:*handler%d /srv/app/module%d.js:%d:%d\n", 0x100000000000 + i * 1024, i, i % 97, i % 1000, i % 80 }' \
			>>"/tmp/perf-$pid.map"
		"$node" "$w/client.js" "$port" 6 >/dev/null 2>&1 &
		x=$!
		sleep 0.5
		"$PERF" record -q -F 999 -g -p "$pid" -o "$w/perf.data" -- sleep 4 >>"$LOG" 2>&1
		wait "$x" 2>/dev/null
		n=$("$PERF" script -i "$w/perf.data" -F pid 2>>"$LOG" | wc -l)
		frames=$("$PERF" script -i "$w/perf.data" -F ip 2>>"$LOG" | grep -c .)
		t0=$(date +%s%N)
		"$PERF" report -i "$w/perf.data" --stdio >/dev/null 2>>"$LOG"
		t1=$(date +%s%N)
		kill "$srv" 2>/dev/null
		wait "$srv" 2>/dev/null
		rm -f "/tmp/perf-$pid.map"
		if [ "${n:-0}" -gt 0 ]; then
			perf_ns=$(((t1 - t0) / n))
			frames=$((frames / n))
			echo "perf report (--stdio) of $n samples, $frames frames each, the map padded to 100 000 entries:" \
				"$(calc 'printf "%.1f", (b - a) / 1e6' "$t0" "$t1") ms, $perf_ns ns per sample"
		fi
	else
		echo "perf report: n/a (perf or node missing)"
	fi
	"$JS" 100000 "${n:-20000}" "${frames:-16}" | tee "$w/xl.out"
	if [ -n "${perf_ns:-}" ]; then
		x=$(awk '/^map/ { for (i = 1; i <= NF; i++) if ($i == "samples:") { v = $(i + 1) } } END { print v }' "$w/xl.out")
		echo "xlprobe per sample (map read spread over the same samples) / perf report per sample:" \
			"$(calc 'printf "%.3f", a / b' "$x" "$perf_ns")"
	fi
	bench_jitdump_perf "$w"
}

# The jitdump's side: node --perf-prof recorded by perf record -k 1 -g, its
# jitdump padded to 100 000 loads (after its last whole record), then perf
# inject --jit (one ELF file per load) and perf report, per sample, against
# bench_jitsym's jitdump row.
bench_jitdump_perf() {
	local w=$1/jd node=/usr/bin/node srv pid port x n t0 t1 t2 d per
	[ "$HAVE_PERF" = 1 ] && [ -x "$node" ] && command -v python3 >/dev/null || {
		echo "perf inject --jit: n/a (perf, node or python3 missing)"
		return
	}
	mkdir -p "$w" && cp "$1/server.js" "$1/client.js" "$w/"
	(cd "$w" && exec "$node" --perf-prof server.js >"$w/srv.out" 2>&1) &
	srv=$!
	for _ in $(seq 100); do grep -q PORT "$w/srv.out" 2>/dev/null && break; sleep 0.1; done
	port=$(awk '/PORT/ { print $2 }' "$w/srv.out")
	pid=$srv
	"$node" "$w/client.js" "$port" 5 >/dev/null 2>&1 &
	x=$!
	sleep 0.5
	"$PERF" record -q -k 1 -F 999 -g -p "$pid" -o "$w/perf.data" -- sleep 3 >>"$LOG" 2>&1
	wait "$x" 2>/dev/null
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	d=$(ls "$w"/jit-*.dump 2>/dev/null | head -n 1)
	[ -n "$d" ] || { echo "perf inject --jit: n/a (node wrote no jitdump)"; return; }
	python3 - "$d" <<'PY' >>"$LOG" 2>&1
import struct, sys
p = sys.argv[1]
data = open(p, 'rb').read()
_, _, hsz, _, _, pid, ts, _ = struct.unpack_from('<IIIIIIQQ', data, 0)
off, last, n = hsz, ts, 0
while off + 16 <= len(data):
    rid, tot, t = struct.unpack_from('<IIQ', data, off)
    if tot < 16 or off + tot > len(data) or rid > 10:
        break
    n += rid == 0
    last, off = max(last, t), off + tot
out = bytearray()
for i in range(max(0, 100000 - n)):
    name = ('JS:*handler%d /srv/app/module%d.js:%d:%d' % (i, i % 97, i % 1000, i % 80)).encode() + b'\0'
    out += struct.pack('<IIQ', 0, 56 + len(name) + 64, last)
    out += struct.pack('<IIQQQQ', pid, pid, 0x100000000000 + i * 1024, 0x100000000000 + i * 1024, 64, 10**6 + i)
    out += name + b'\xcc' * 64
open(p, 'wb').write(data[:off] + bytes(out))
PY
	n=$("$PERF" script -i "$w/perf.data" -F pid 2>>"$LOG" | wc -l)
	t0=$(date +%s%N)
	"$PERF" inject --jit -i "$w/perf.data" -o "$w/perf.jit.data" >>"$LOG" 2>&1
	t1=$(date +%s%N)
	"$PERF" report -i "$w/perf.jit.data" --stdio >/dev/null 2>>"$LOG"
	t2=$(date +%s%N)
	find "$w" -maxdepth 1 -name "jitted-*.so" -delete
	[ "${n:-0}" -gt 0 ] || { echo "perf inject --jit: n/a (no samples)"; return; }
	per=$(((t2 - t0) / n))
	echo "perf inject --jit + perf report of $n samples, the jitdump padded to 100 000 loads:" \
		"$(calc 'printf "%.1f", (b - a) / 1e9' "$t0" "$t1") s + $(calc 'printf "%.1f", (b - a) / 1e9' "$t1" "$t2") s, $per ns per sample"
	"$JS" 100000 "$n" 16 | grep '^jitdump ' | tee "$w/xl.out"
	x=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "samples:") { v = $(i + 1) } } END { print v }' "$w/xl.out")
	echo "xlprobe per sample (jitdump read spread over the same samples) / perf inject + report per sample:" \
		"$(calc 'printf "%.4f", a / b' "$x" "$per")"
}

bench_unwind() {
	local NOFP=$OUT/tests/workloads/nofp v r
	want 9 || return 0
	echo
	echo "== 9. Unwinding with CFI: cost per sample against frame pointers; the bound at 3 % =="
	if [ ! -x "$NOFP" ]; then
		echo "n/a: $NOFP not built (make build-tests)"
		return
	fi
	# nofp --spin-ms 2000: 2 s of its CPU time in main -> spin_a -> spin_b
	# -> spin_c (no frame pointers), pinned; the recorder on the other
	# CPUs. fp/c8/c16 sample at a fixed 999 Hz (bound 50 %), so each takes
	# the same ~2000 samples; bound: the defaults (3 %, 8 KiB).
	declare -A UW_RUNS=([alone]="" [fp]="" [c8]="" [c16]="" [bound]="")
	declare -A UW_COST=([alone]="" [fp]="" [c8]="" [c16]="" [bound]="")
	declare -A UW_REC=([fp]="" [c8]="" [c16]="")
	declare -A UW_LINE=([fp]="" [c8]="" [c16]="" [bound]="")
	declare -A UW_LABEL=()
	bench_labels uw UW_LABEL
	uw_run() {
		local uopts=() t
		case $1 in
		alone)
			RES=$(timeout -k 5 "$RUN_TIMEOUT" taskset -c "$WCPU" "$NOFP" --spin-ms 2000 2>>"$LOG" |
				awk '$1 == "DONE" { print $2 }') || RES=""
			return ;;
		fp) uopts=(--sample-overhead 50 --stack-copy 0) ;;
		c8) uopts=(--sample-overhead 50 --stack-copy 8K) ;;
		c16) uopts=(--sample-overhead 50 --stack-copy 16K) ;;
		bound) uopts=(--sample) ;;
		esac
		RES=$(timeout -k 5 "$RUN_TIMEOUT" "${ON_TRACER_CPUS[@]}" \
			"$XLPROBE" record "${uopts[@]}" -o "$TMP/uw.xlp" -- taskset -c "$WCPU" "$NOFP" --spin-ms 2000 \
			2>"$TMP/uw.err" | awk '$1 == "DONE" { print $2 }') || RES=""
		cat "$TMP/uw.err" >>"$LOG"
		UW_LINE[$1]=$(grep 'user stacks unwound' "$TMP/uw.err" | sed 's/^xlprobe: //')
		# cost in the traced thread per on-CPU sample, the CPU it is a share of
		t=$("$XLPROBE" dump "$TMP/uw.xlp" 2>>"$LOG" | awk '
			$1 == "sampling" {
				for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
				c += v["cost_ns"]; n += v["on_samples"] + v["off_captures"]; u += v["cpu_ns"]
			}
			END { if (n) printf "%.0f %d %.0f", c, n, u }')
		[ -n "$t" ] && UW_COST[$1]+="$t;"
		# the recorder's time per unwound stack, as it prints it (on its own CPU)
		UW_REC[$1]+="$(sed -n 's/.*the recorder unwound each in \([0-9.]*\) us.*/\1/p' "$TMP/uw.err") "
	}
	for ((r = 0; r < REPS; r++)); do
		for v in alone fp c8 c16 bound; do
			uw_run "$v"
			[ -n "$RES" ] && UW_RUNS[$v]+="$RES "
		done
	done
	# shellcheck disable=SC2086
	ubase=$(median ${UW_RUNS[alone]})
	# per run: cost / samples in the thread; the recorder's extra CPU / samples
	per_sample() { printf '%s' "$1" | tr ';' '\n' | awk 'NF >= 2 && $2 > 0 { print $1 / $2 / 1e3 }' | sort -n |
		awk '{ a[NR] = $1 } END { if (NR) printf "%.2f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; else print "n/a" }'; }
	printf '%-48s %10s %8s %12s %14s\n' "variant (nofp --spin-ms 2000, pinned)" "iterations" "slowdown" \
		"us/sample" "recorder us"
	declare -A UW_PS=()
	for v in alone fp c8 c16 bound; do
		# shellcheck disable=SC2086
		m=$(median ${UW_RUNS[$v]})
		UW_PS[$v]=$(per_sample "${UW_COST[$v]}")
		# shellcheck disable=SC2086 # the run list is words
		printf '%-48s %10.0f %8s %12s %14s\n' "${UW_LABEL[$v]}" "${m:-0}" \
			"$(calc 'printf "%.3f", a / b' "$ubase" "$m")" \
			"$([ "$v" = alone ] && echo - || echo "${UW_PS[$v]}")" \
			"$(case $v in c8 | c16) median ${UW_REC[$v]} ;; *) echo - ;; esac)"
	done
	echo "cost per sample in the traced thread, CFI / frame pointers: 8K $(calc 'printf "%.2f", a / b' "${UW_PS[c8]}" "${UW_PS[fp]}")," \
		"16K $(calc 'printf "%.2f", a / b' "${UW_PS[c16]}" "${UW_PS[fp]}") (the copy is added to the frame-pointer walk, which stays)"
	for v in fp c8 c16; do
		[ -n "${UW_LINE[$v]}" ] && echo "  $v, last run: ${UW_LINE[$v]}"
	done
	# the default bound with CFI on: cost / CPU over the runs
	printf '%s' "${UW_COST[bound]}" | tr ';' '\n' | awk 'NF == 3 && $3 > 0 { c += $1; u += $3; o = 100 * $1 / $3; if (o > mx) mx = o }
		END { if (u > 0) printf "default bound with CFI: sampling took %.2f %% of the traced CPU (worst run %.2f %%); bound 3 %%: %s\n",
			100 * c / u, mx, (100 * c / u <= 3) ? "met" : "OVER"; else print "default bound with CFI: n/a" }'
}
