# The ground truth of a server scenario as its client saw it. Input: the
# client's log as text, a line per request: START_US LATENCY_US [STATUS]
# (CLOCK_REALTIME). $span: [FROM, TO] (realtime ns), the recording;
# $windows: [START, END] pairs (realtime ns, bin/windows): a request under
# way at some time of a window is a perturbed one.
# Prints, space-separated: requests, perturbed requests, their %, median
# latency (ns) of the perturbed and of the other requests, the ratio,
# requests that did not succeed (STATUS not 200 or "OK"), the perturbed
# requests slower than 90 % of the others (their 90th percentile).
def median: sort | if length == 0 then null else .[(length - 1) / 2 | floor] end;
def q90: sort | if length == 0 then null else .[(length - 1) * 0.9 | floor] end;
def fmt: if . == null then "-" else tostring end;
($windows | map(map(. / 1000))) as $w
| [split("\n")[] | select(length > 0) | split(" ")
   | {s: (.[0] | tonumber), l: (.[1] | tonumber), ok: ((.[2] // "200") | . == "200" or . == "OK")}
   | select(.s >= $span[0] / 1000 and .s + .l <= $span[1] / 1000)] as $all
| [$all[] | .in = (.s as $s | .l as $l | any($w[]; $s < .[1] and $s + $l > .[0]))] as $all
| ([$all[] | select(.in) | .l * 1000] | median) as $lp
| ([$all[] | select(.in | not) | .l * 1000] | median) as $lq
| ([$all[] | select(.in | not) | .l * 1000] | q90) as $q90
| [($all | length), ([$all[] | select(.in)] | length),
   (if ($all | length) > 0 then ([$all[] | select(.in)] | length) * 100 / ($all | length) | round else 0 end),
   ($lp | fmt), ($lq | fmt),
   (if $lp != null and $lq != null and $lq > 0 then $lp / $lq * 10 | round / 10 | tostring else "-" end),
   ([$all[] | select(.ok | not)] | length),
   (if $q90 == null then 0 else [$all[] | select(.in and .l * 1000 > $q90)] | length end)]
| map(tostring) | join(" ")
