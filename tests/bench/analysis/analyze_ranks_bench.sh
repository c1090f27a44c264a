#!/usr/bin/env bash
# `sightline analyze` over R rank reports of N events each (issue #20), side by side with its
# baseline in the same run: R separate `analyze` runs, one per report (what a user did before).
# Both print JSON to /dev/null; RUNS runs each, wall seconds of each run printed, quote the median.
# The reports are generated once into DIR (rank R/2 a straggler).
#   tests/bench/analysis/analyze_ranks_bench.sh [N] [R] [RUNS] [DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
n=${1:-1000000}
ranks=${2:-4}
runs=${3:-3}
dir=${4:-/tmp}
sl=${SIGHTLINE:-$root/build/app/cli/sightline}
reps=()
for ((r = 0; r < ranks; ++r)); do
    rep=$dir/analyze_ranks_bench_${n}_$r.rep
    gap=0
    ((r == ranks / 2)) && gap=2000
    [[ -f $rep ]] || "$sl" generate -n "$n" -s $((r + 1)) --rank $r --host-gap $gap -f -o "$rep" 2>/dev/null
    reps+=("$rep")
done
echo "$ranks reports of $("$sl" info "${reps[0]}" | grep -m1 '^Events') each, in $dir"
seconds() {  # wall seconds of the command
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
separately() { for rep in "${reps[@]}"; do "$sl" analyze -f json -q "$rep"; done; }
for ((i = 0; i < runs; ++i)); do
    echo "baseline, $ranks separate runs: $(seconds separately) s"
    echo "analyze over $ranks ranks:       $(seconds "$sl" analyze -f json -q "${reps[@]}") s"
done
