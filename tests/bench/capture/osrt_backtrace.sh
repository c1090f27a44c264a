#!/usr/bin/env bash
# Cost of --osrt-backtrace-threshold, A/B pairs in one run, wall seconds: N recorded OS runtime
# calls (one-byte reads of /dev/zero, --osrt-threshold=0) made DEPTH calls deep in a program
# built without frame pointers (osrt_reads.c).
#  1. every call gets a native stack (--osrt-backtrace-threshold=0, A) against none (B):
#     (A - B) / N is what one stack adds to a slow call;
#  2. no call reaches the threshold (1 s, A) against the option not given (B): calls under the
#     threshold must cost what they cost before (A/B near 1).
#   tests/bench/capture/osrt_backtrace.sh [N] [PAIRS] [DEPTH]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
n=${1:-100000}
runs=${2:-5}
depth=${3:-20}
sl=${SIGHTLINE:-$root/build/app/cli/sightline}
prog=${OSRT_READS:-$root/build/tests/bench/capture/osrt_reads}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -x "$sl" ] && [ -x "$prog" ] || { echo "build sightline and osrt_reads first" >&2; exit 1; }
. "$here/ab_pairs.sh"
echo "$n recorded reads, $depth calls deep"
prof="$sl profile -q true -f true -t osrt --osrt-threshold=0 -s none --cpuctxsw none -o $out/r"
pairs "stack at each read" "$prof --osrt-backtrace-threshold=0 $prog $n $depth" \
    "$prof $prog $n $depth" | tee "$out/line"
awk -v n="$n" '{ for (i = 1; i <= NF; ++i) { if ($i == "A") a = $(i + 1); if ($i == "B") b = $(i + 1) } }
    END { printf "per slow call: %.2f us more with the stack (median walls)\n", (a - b) / n * 1e6 }' "$out/line"
pairs "threshold above every read" "$prof --osrt-backtrace-threshold=1000000000 $prog $n $depth" \
    "$prof $prog $n $depth"
