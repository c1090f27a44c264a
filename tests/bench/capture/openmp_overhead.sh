#!/usr/bin/env bash
# Cost of -t openmp (issue #19): tests/clients/openmp/omp_region_cost.c times its own loop of N
# small parallel regions of 2 threads on LLVM's libomp (9 OpenMP events each), so the
# profiler's start-up and merge are not in the figure. Profiled with -t openmp,osrt (A) and
# -t osrt (B), everything else equal (no CPU sampling or context switches), A and B in turn.
# (A - B) is what recording one region adds; / 9 per recorded event.
#   tests/bench/capture/openmp_overhead.sh [N] [PAIRS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/client_ab.sh"
client_setup OMP_REGION_COST omp_region_cost "build with clang and libomp-dev installed" 20000 "$@"
echo "$n parallel regions of 2 threads, $runs pairs, $(nproc) cores"
one() {
    local ns
    ns=$($prof "$@" "$client" "$n" 2>"$out/err" | sed -n 's/^omp: \([0-9.]*\) ns.*/\1/p')
    [ -n "$ns" ] || { cat "$out/err"; exit 1; }
    echo "$ns"
}
client_pairs "-t openmp,osrt" "-t osrt"
paste "$out/a" "$out/b" | awk "$awk_median"'
    { ++k; a[k] = $1; b[k] = $2 }
    END {
        ma = median(a, k); mb = median(b, k)
        printf "parallel region: %.0f ns with -t openmp, %.0f ns without (medians of %d)\n", ma, mb, k
        printf "per region: +%.0f ns (+%.0f%%); per recorded event: %.0f ns\n", ma - mb, (ma / mb - 1) * 100, (ma - mb) / 9
    }'
