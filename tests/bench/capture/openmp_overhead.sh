#!/usr/bin/env bash
# Cost of -t openmp (issue #19): tests/clients/openmp/omp_region_cost.c times its own loop of N
# small parallel regions of 2 threads on LLVM's libomp (9 OpenMP events each), so the
# profiler's start-up and merge are not in the figure. Profiled with -t openmp,osrt (A) and
# -t osrt (B), everything else equal (no CPU sampling or context switches), A and B in turn.
# (A - B) is what recording one region adds; / 9 per recorded event.
#   tests/bench/capture/openmp_overhead.sh [N] [PAIRS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
n=${1:-20000}
runs=${2:-5}
sl=${SIGHTLINE:-$root/build/app/cli/sightline}
client=${OMP_REGION_COST:-$root/build/tests/clients/omp_region_cost}
[ -x "$client" ] || { echo "no $client (build with clang and libomp-dev installed)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
prof="$sl profile -f true -s none --cpuctxsw none -o $out/r"
echo "$n parallel regions of 2 threads, $runs pairs, $(nproc) cores"
one() {
    local ns
    ns=$($prof "$@" "$client" "$n" 2>"$out/err" | sed -n 's/^omp: \([0-9.]*\) ns.*/\1/p')
    [ -n "$ns" ] || { cat "$out/err"; exit 1; }
    echo "$ns"
}
one -t openmp,osrt >/dev/null  # warm-up
one -t osrt >/dev/null
for ((k = 0; k < runs; ++k)); do
    one -t openmp,osrt >>"$out/a"
    one -t osrt >>"$out/b"
done
paste "$out/a" "$out/b" | awk '
    function median(v, n,   i, j, t) {
        for (i = 2; i <= n; ++i)
            for (j = i; j > 1 && v[j - 1] > v[j]; --j) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    { ++k; a[k] = $1; b[k] = $2 }
    END {
        ma = median(a, k); mb = median(b, k)
        printf "parallel region: %.0f ns with -t openmp, %.0f ns without (medians of %d)\n", ma, mb, k
        printf "per region: +%.0f ns (+%.0f%%); per recorded event: %.0f ns\n", ma - mb, (ma / mb - 1) * 100, (ma - mb) / 9
    }'
