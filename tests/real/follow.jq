# tests/real/test_postgres pg_follow: from `xlprobe dump --json` of a
# recording with -p on the postmaster, one line:
#   FORKS PROBED PROBED_WITH_CALLS CALLS_OF_PROBED CALLS_OF_OTHERS
# a probed backend is one whose fork record has the "probed" flag.
[.records[] | select(.type == "fork")] as $forks
| [.records[] | select(.type == "call")] as $calls
| ($forks | map(select(any(.flags[]; . == "probed"))) | map(.pid)) as $probed
| [($forks | length),
   ($probed | length),
   ([$probed[] as $p | select(any($calls[]; .pid == $p))] | length),
   ([$calls[] | select(.pid as $p | any($probed[]; . == $p))] | length),
   ([$calls[] | select(.pid as $p | any($probed[]; . == $p) | not)] | length)]
| map(tostring) | join(" ")
