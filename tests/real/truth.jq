# Ground truth of one trace (input: xlprobe dump --json): {offset: realtime -
# monotonic clock (ns), start: when recording began (monotonic ns), runs:
# [{start, lat: latency ns, res: counters over the run, fn: {function: ns}}]}.
# --interaction traces: each call of the interaction function with its own
# counters (a PostgreSQL backend has one thread) and the calls of the same
# thread that began inside it. --repeat traces: each launch, from its exec
# to its exit as the launch record has them, with its process's totals.
# A call nested in a call of the same function is counted once.
def outer_total:
  sort_by(.entry)
  | reduce .[] as $c ({end: 0, sum: 0};
      if $c.entry < .end then . else .sum += $c.wall | .end = $c.entry + $c.wall end)
  | .sum;
def by_sym: group_by(.sym) | map({key: .[0].sym, value: outer_total}) | from_entries;
def call: {sym, tid, entry: .entry_ns, wall: .incl.wall};

{offset: .meta.boot_offset_ns, start: .meta.start_ns} + {runs: (
if .meta.repeat > 0 then
  ([.records[] | select(.type == "proc")] | INDEX(.pid | tostring)) as $procs
  | ([.records[] | select(.type == "call") | {pid} + call]
     | group_by(.pid) | map({key: (.[0].pid | tostring), value: by_sym}) | from_entries) as $fns
  | [.records[] | select(.type == "launch") | $procs[.pid | tostring] as $p | select($p != null)
     | {start: .start_ns, lat: (.end_ns - .start_ns), res: $p.tot, fn: ($fns[.pid | tostring] // {})}]
else
  ([.meta.functions[] | select(.flags | index("interaction")) | .id][0]) as $iid
  | reduce (.records[] | select(.type == "call")) as $c ({pending: [], runs: []};
      if $c.func == $iid then
        .runs += [{start: $c.entry_ns, lat: $c.incl.wall, res: $c.incl,
                   fn: ([.pending[] | select(.tid == $c.tid and .entry >= $c.entry_ns)] | by_sym)}]
        | .pending = []
      else .pending += [$c | call] end)
  | .runs
end)}
