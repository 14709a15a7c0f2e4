# Input: the runs of truth.jq; $res, $min: a run is perturbed when its
# counter $res reached $min ns. Prints: runs, perturbed, perturbed %,
# median latency of the perturbed and of the other runs, their ratio, then
# function=% for each marked function that holds part of the added time
# (difference of its medians, against the difference of the latencies).
def median: sort | if length == 0 then null else .[(length - 1) / 2 | floor] end;
def fmt: if . == null then "-" else tostring end;
map(select(.res[$res] >= $min)) as $p
| map(select(.res[$res] < $min)) as $q
| ($p | map(.lat) | median) as $lp
| ($q | map(.lat) | median) as $lq
| ([.[].fn | keys[]] | unique) as $syms
| [length, ($p | length), (if length > 0 then ($p | length) * 100 / length | round else 0 end),
   ($lp | fmt), ($lq | fmt),
   (if $lp != null and $lq != null and $lq > 0 then $lp / $lq * 10 | round / 10 | tostring else "-" end)]
  + (if $lp != null and $lq != null and $lp > $lq then
       [$syms[] as $s
        | {s: $s, add: (($p | map(.fn[$s] // 0) | median) - ($q | map(.fn[$s] // 0) | median))}
        | {s, pct: (.add * 100 / ($lp - $lq) | round)} | select(.pct >= 1)]
       | sort_by(-.pct) | map("\(.s)=\(.pct)%")
     else [] end)
| map(tostring) | join(" ")
