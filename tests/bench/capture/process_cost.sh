#!/bin/sh
# Per-process cost of tracing (issue #15, target: a process that starts and exits pays <= 1 ms):
# 200 /bin/true from a shell loop, plain against `sightline profile`, side by side in one
# farm-bench run. With a second sightline binary (an older build) as $2 it also gives new/old.
#   tests/bench/capture/process_cost.sh build/app/cli/sightline [/tmp/old/build/app/cli/sightline]
set -eu
new=$1
old=${2:-}
out=${TMPDIR:-/tmp}/sightline-process-cost
mkdir -p "$out"
loop='for i in $(seq 200); do /bin/true; done'
flags="-q true -f true -s none --cpuctxsw none"
echo "== 200 processes: sightline profile (A) vs plain (B)"
farm-bench -n 8 --vs "sh -c '$loop'" -- $new profile $flags -o "$out/a.rep" sh -c "$loop"
echo "== one /bin/true: the fixed cost of a profile"
farm-bench -n 8 -- $new profile $flags -o "$out/t.rep" /bin/true
if [ -n "$old" ]; then
    echo "== 200 processes: this build (A) vs $old (B)"
    farm-bench -n 8 --vs "$old profile $flags -o $out/b.rep sh -c '$loop'" -- \
        $new profile $flags -o "$out/a.rep" sh -c "$loop"
fi
