# shellcheck shell=bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tools/bench/components.sh: sections 3 (analysis speed), 4 (BPF building
# blocks) and 5 (reading forged files): run where they are sourced.
#
# Sourced by tools/bench.sh in its turn, after the parts before it (its top
# says what each section measures; make bench and make bench-quick run it).

# ---- 3. analysis speed -------------------------------------------------------------

sec_begin 3
if want 3; then
	echo
	echo "== 3. Analysis speed =="
	if [ -x "$ANALYSIS" ]; then
		timeout -k 5 300 "$ANALYSIS" || note "bench_analysis failed (exit $?)"
	else
		echo "n/a: $ANALYSIS not built"
	fi
	if [ -x "$OUT/tests/bench/bench_scaling" ]; then
		timeout -k 5 300 "$OUT/tests/bench/bench_scaling" || note "bench_growth failed (exit $?)"
	else
		echo "n/a: $OUT/tests/bench/bench_scaling not built"
	fi
fi

# ---- 4. BPF building blocks ------------------------------------------------------

# What each primitive of xlprobe's programs costs here, to tell where the
# time of section 1 and 2 goes (.output/tests/bench/micro/bpf_micro, built
# by `make build-tests` from tests/bench/micro/).
sec_begin 4
if want 4; then
	MICRO_PROGS="m0_gate_only m12_gate_only_last m1_ktime m2_hash_lookup m13_task_storage_hit
		m14_task_storage_miss m3_array_lookup m4_8_probe_reads m5_8_direct_loads m15_task_pt_regs
		m6_4_atomic_adds m7_4_plain_adds m8_snapshot_40_u64 m9_ringbuf_output_376
		m10_ringbuf_reserve_376 m11_ringbuf_reserve_64"
	echo
	echo "== 4. Cost of BPF building blocks here (tests/bench/micro: $(echo "$MICRO_PROGS" | wc -w) programs on tp_btf/sys_enter) =="
	declare -A MICRO_DESC=()
	bench_labels micro MICRO_DESC
	if [ ! -x "$MICRO" ]; then
		echo "n/a: $MICRO not built (make build-tests)"
	else
		for ((r = 0; r < 3; r++)); do
			timeout -k 5 "$RUN_TIMEOUT" taskset -c "$WCPU" "$MICRO" 200000 >>"$TMP/micro.out" 2>>"$LOG"
		done
		# medians of 3 runs; "added" is over the floor of the last program: the
		# first one also pays for cold caches
		# shellcheck disable=SC2046 # one number per run
		floor=$(median $(awk '$1 == "m12_gate_only_last" { print $3 }' "$TMP/micro.out"))
		printf '  %-56s %8s %8s\n' "program (each on every syscall of the driver)" "avg ns" "added"
		for p in $MICRO_PROGS; do
			# shellcheck disable=SC2046 # one number per run
			m=$(median $(awk -v p="$p" '$1 == p { print $3 }' "$TMP/micro.out"))
			printf '  %-56s %8s %8s\n' "${MICRO_DESC[$p]}" "$m" "$(calc 'printf "%+.0f", a - b' "$m" "$floor")"
		done
	fi
fi

# ---- 5. reading forged files ----------------------------------------------------
sec_begin 5
if want 5; then
	echo
	echo "== 5. Reading forged files (linear time) =="
	if [ -x "$OUT/tests/bench/bench_read" ]; then
		XLP_ROOT=$ROOT timeout -k 5 300 "$OUT/tests/bench/bench_read" || note "bench_read failed (exit $?)"
	else
		echo "n/a: $OUT/tests/bench/bench_read not built"
	fi
fi
