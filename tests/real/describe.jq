# One line about a report (xlprobe report --json): status, runs, each
# critical function with its factors, the verdict.
def ms: if . == null then "-" elif . >= 1e6 then "\(. / 1e5 | round / 10) ms" else "\(. / 1e3 | round) us" end;
"status \(.status), \(.runs.count) runs, \(.runs.slow) slow (median \(.runs.slow_median_ns | ms) vs \(.runs.fast_median_ns | ms))"
+ ([.critical_functions[]
    | "; \(.function) > \(.threshold_ns | ms): "
      + (if (.factors | length) == 0 then "no factor" else "" end)
      + ([.factors[] | "\(.factor) \(.slow_median | ms) vs \(.fast_median | ms) (\(.slow_hits)/\(.slow) slow, \(.fast_hits)/\(.fast) fast)"] | join(", "))
      + (if .peer then ", peer \(.peer.comm)" else "" end)] | join(""))
+ "; verdict: \(.verdict)" + (if .note then " (\(.note))" else "" end)
