#!/bin/sh
# Per-process cost of tracing (issue #15, target: a process that starts and exits pays <= 1 ms):
# 200 /bin/true from a shell loop, plain against `sightline profile`, A and B in turn (ab_pairs.sh),
# and the fixed cost of a profile (one /bin/true, against plain). With a second sightline binary
# (an older build) as $2 it also gives new/old.
#   tests/bench/capture/process_cost.sh build/app/cli/sightline [/tmp/old/build/app/cli/sightline]
# Environment: RUNS (pairs per comparison, default 8).
set -eu
new=$1
old=${2:-}
runs=${RUNS:-8}
out=${TMPDIR:-/tmp}/sightline-process-cost
mkdir -p "$out"
. "$(dirname "$0")/ab_pairs.sh"
loop="sh -c 'for i in \$(seq 200); do /bin/true; done'"
flags="-q true -f true -s none --cpuctxsw none"
echo "== 200 processes: sightline profile (A) vs plain (B)"
pairs "200 processes, profile / plain" "$new profile $flags -o $out/a.rep $loop" "$loop"
echo "== one /bin/true: the fixed cost of a profile"
timed "one /bin/true under profile" "$new profile $flags -o $out/t.rep /bin/true"
echo "per process: (A - B of the 200 processes - the fixed cost) / 200"
if [ -n "$old" ]; then
    echo "== 200 processes: this build (A) vs $old (B)"
    pairs "200 processes, new / old" "$new profile $flags -o $out/a.rep $loop" \
        "$old profile $flags -o $out/b.rep $loop"
fi
