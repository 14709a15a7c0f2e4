# Why a report (xlprobe report --json) does not meet the expectation
# $fn (functions separated by |, "-" for no accusation, or "-" among them), $factor (factors
# separated by |: any of them), $peer ("-": any); empty when it does. The
# expected function must be critical, or on a critical function's chain
# (the drill-down from the outermost critical function to the deepest one
# that holds the added time, which is the one named: a deeper true answer),
# with an expected factor, and no critical function may carry another.
def base: sub(" \\[queued before it\\]$"; "");
# A function slowed because its CPU did not run it (cpu_steal: the
# hypervisor's steal clock, or late timers) was perturbed by the host, not by
# the scenario: it is left out of the judgement (tests/e2e/test_e2e.c), when
# cpu_steal is its first factor or its only factors are cpu_steal and
# cpu_run: the host that takes a vCPU also slows the one it leaves running
# (one CI run, 2026-11-28: pg_none's tuplesort_performsort "because of
# cpu_run > 17.8 ms, cpu_steal > 2.7 ms", steal 3.4 ms per slow run against
# 9.6 us per fast one, its CPU time 18 % longer with the same calls; the
# judges of tests/e2e and tests/root/test_pool accept cpu_run alone, this
# one only with the steal that shows the host).
def by_host: ((.factors // []) | map(.factor)) as $x
  | ($x[0] // "-") == "cpu_steal"
    or (any($x[]; . == "cpu_steal") and all($x[]; . == "cpu_steal" or . == "cpu_run"));
# The whole run's answer names the application's frame first (issue 34): of
# the user frames on its samples' path down to the deepest, the deepest
# JIT frame, else the deepest one outside the C runtime's libraries (the
# list of analysis/dataset/dataset_samples.c's runtime_module()): computed here
# from the path the report prints, against the frame it names.
def runtime_bin: test("^(libc\\.so|libc-|ld-linux|ld-musl|libpthread|libm\\.so|libm-|libdl\\.so|librt\\.so|libgcc_s|libstdc\\+\\+|libc\\+\\+|linux-vdso|\\[vdso\\]|linker|libjvm\\.so|libnode\\.so|libart\\.so)");
def app_first:
  if (.whole_run.holds // false) and ((.critical_functions | length) == 0)
     and (.whole_run.growth.path // null) != null then
    (.whole_run.growth.deepest) as $d
    | [.whole_run.growth.path[:($d + 1)][1:][] | select((.kernel | not) and .function != null)] as $u
    | (($u | map(select(.binary == "[jit]")) | last)
       // ($u | map(select(.binary | runtime_bin | not)) | last)) as $want
    | if $want == null then ""
      elif (.whole_run.app_frame.function // "none") != $want.function then
        "the whole run's samples reach \(.whole_run.deepest_frame.function // "-") through the application's \($want.function), but the answer names \(.whole_run.app_frame.function // "no application frame")"
      else "" end
  else "" end;
(
($fn | split("|")) as $fns
| ($factor | split("|")) as $factors
# The runqueue wait before an interaction (its pseudo-function "SYMBOL
# [queued before it]") is the interaction's own: it is judged as SYMBOL.
| [.critical_functions[] | select(by_host | not)
   | {f: (.function | base), c: [.chain[]?.function | base], x: (.factors[0].factor // "-"), p: (.peer.comm // "-")}] as $cf
| ($cf | map("\(if (.c | length) > 1 then .c | join(" → ") else .f end)/\(.x)") | join(", ")) as $found
| if $fn == "-" then
    if ($cf | length) == 0 then "" else "accused \($found) though nothing was perturbed" end
  # "-" among other functions: nothing accused, or one of them (a slowdown
  # the machine itself makes, measured without xlprobe: tests/real/expected)
  elif ($cf | length) == 0 and any($fns[]; . == "-") then ""
  # "[whole-run]" among the functions: the whole run's answer (no function
  # named, the slow runs explained by a resource) with an expected factor
  # is accepted too
  elif ($cf | length) == 0 and any($fns[]; . == "[whole-run]") and (.whole_run.holds // false)
       and ((.whole_run.factor // "") as $wf | any($factors[]; . == $wf)) then ""
  # "[waits:STATE]" among the functions: the waits' answer (no function, no
  # resource of the whole run; the run's thread held up by a blocker that
  # was in STATE, e.g. another process's threads waiting for a CPU) is
  # accepted too
  elif ($cf | length) == 0 and (.wait_answer.holds // false)
       and ((.wait_chains.blockers[.wait_answer.blocker].state // "") as $st
            | any($fns[]; . == "[waits:\($st)]")) then ""
  elif ($cf | length) == 0 then "no accusation (\(.status)), expected \($fn)/\($factor)"
  else
    ($cf | map(select([.f] + .c | any(.[]; . as $f | any($fns[]; . == $f))))) as $hit
    | if ($hit | length) == 0 then "found \($found), expected \($fn)/\($factor)"
      elif ($hit | map(select(.x as $x | any($factors[]; . == $x))) | length) == 0 then "found \($found), expected factor \($factor)"
      elif ($cf | map(select(.x as $x | any($factors[]; . == $x) | not)) | length) > 0 then "found \($found): a wrong factor besides"
      elif $peer != "-" and ($hit | map(select(.p == $peer)) | length) == 0 then "found \($found) with IPC peer \($hit[0].p), expected \($peer)"
      else "" end
  end
) as $why
| if $why != "" then $why else app_first end
