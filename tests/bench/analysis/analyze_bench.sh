#!/usr/bin/env bash
# All rules of `sightline analyze` over a synthetic report of N events (issue #18: <= 2 s for
# 10 M events), whole command (load, indexes, rules, JSON out), RUNS runs under GNU time; quote
# the median. The report is generated once into DIR.
#   tests/bench/analysis/analyze_bench.sh [N] [RUNS] [DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
n=${1:-10000000}
runs=${2:-5}
dir=${3:-/tmp}
sl=${SIGHTLINE:-$root/build/app/cli/sightline}
rep=$dir/analyze_bench_$n.rep
[[ -f $rep ]] || "$sl" generate -n "$n" -f -o "$rep" >/dev/null
echo "report: $rep ($(du -h "$rep" | cut -f1)), $("$sl" info "$rep" | grep -m1 '^Events')"
for ((i = 0; i < runs; ++i)); do
    /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KB peak" "$sl" analyze -f json -q "$rep" >/dev/null
done
