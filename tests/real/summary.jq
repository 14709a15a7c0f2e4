# Input: the ground truth of truth.jq. $marks: the times (CLOCK_REALTIME
# ns, bin/mark) at which a perturbation began; the run under way at a mark
# (a launch wrapper perturbs its own launch, bin/nth), else the first run to
# start after it, is a perturbed run. $windows: [START, END] pairs (bin/windows,
# a server perturbed from outside for a while): every run under way at some
# time of a window is a perturbed run. $res, $min: a run "shows" the
# perturbation when its counter $res reached $min ns; $min "Kx" means K times
# the median latency of the runs not perturbed (a server's requests last what
# the machine's speed of the day makes them).
# Prints, space-separated: runs, perturbed runs, their %, median latency of
# the perturbed and of the other runs, the ratio, perturbed runs that show
# it, other runs that show it, then function=% for each marked function that
# holds part of the added time (difference of its medians against the
# difference of the latencies), largest first.
def median: sort | if length == 0 then null else .[(length - 1) / 2 | floor] end;
def fmt: if . == null then "-" else tostring end;
(.runs | sort_by(.start)) as $runs
| ($runs | map(.start)) as $starts
| .start as $begin
| .offset as $off
| ([$marks[] | . - $off | select(. > $begin) | . as $m | $starts | bsearch($m)
    | if . < 0 then -1 - . else . end
    | if . > 0 and $runs[. - 1].start + $runs[. - 1].lat >= $m then . - 1 else . end
    | select(. < ($starts | length))]
   + [$windows[] | map(. - $off) as [$a, $b] | select($b > $begin)
      | range($runs | length) as $i | $runs[$i] | select(.start < $b and .start + .lat > $a) | $i]
   | unique) as $hit
| ([range($runs | length)] - $hit) as $miss
| [$hit[] | $runs[.]] as $p
| [$miss[] | $runs[.]] as $q
| ($p | map(.lat) | median) as $lp
| ($q | map(.lat) | median) as $lq
| (if ($min | endswith("x")) then ($min | rtrimstr("x") | tonumber) * ($lq // 0) else ($min | tonumber) end) as $min
| ([$runs[].fn | keys[]] | unique) as $syms
| [($runs | length), ($p | length),
   (if ($runs | length) > 0 then ($p | length) * 100 / ($runs | length) | round else 0 end),
   ($lp | fmt), ($lq | fmt),
   (if $lp != null and $lq != null and $lq > 0 then $lp / $lq * 10 | round / 10 | tostring else "-" end),
   ($p | map(select(.res[$res] >= $min)) | length), ($q | map(select(.res[$res] >= $min)) | length)]
  + (if $lp != null and $lq != null and $lp > $lq then
       [$syms[] as $s
        | {s: $s, add: (($p | map(.fn[$s] // 0) | median) - ($q | map(.fn[$s] // 0) | median))}
        | {s, pct: (.add * 100 / ($lp - $lq) | round)} | select(.pct >= 1)]
       | sort_by(-.pct) | map("\(.s)=\(.pct)%")
     else [] end)
| map(tostring) | join(" ")
