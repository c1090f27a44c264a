#!/usr/bin/env bash
# Cost of -t cublas and -t nccl per library call (issue #19). tests/clients/cudalibs/cudalibs_cost.c
# times its own loop of N calls of a cheap function of the library that needs no GPU
# (cublasGetProperty, cublasLtGetVersion, ncclGetVersion), so the profiler's start-up and merge are not in it.
# Profiled with -t osrt,<lib> (A) and -t osrt (B), everything else equal (no CPU sampling or
# context switches), A and B in turn; A - B is what one recorded call adds (the wrapper, the
# clock reads and the record). The whole command's wall time (the merge included) is printed too.
#   tests/bench/capture/cudalibs_overhead.sh [N] [PAIRS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/client_ab.sh"
client_setup CUDALIBS_COST cudalibs_cost "build with the CUDA toolkit's cuBLAS and NCCL" 1000000 "$@"
echo "$n calls per run, $runs pairs, $(nproc) cores"
for what in cublas cublaslt nccl; do
    lib=${what%lt}  # cuBLASLt is traced by -t cublas
    rm -f "$out/a" "$out/b"
    one() {  # one run: "<ns per call> <wall s>"
        local t0 t1 ns
        t0=$(date +%s.%N)
        ns=$($prof "$@" "$client" "$what" "$n" 2>"$out/err" | sed -n 's/^ns_per_call \([0-9.]*\).*/\1/p')
        t1=$(date +%s.%N)
        [ -n "$ns" ] || { cat "$out/err"; exit 1; }
        echo "$ns $(echo "$t1 - $t0" | bc)"
    }
    client_pairs "-t osrt,$lib" "-t osrt"
    paste "$out/a" "$out/b" | awk -v what="$what" -v lib="$lib" "$awk_median"'
        { ++k; a[k] = $1; aw[k] = $2; b[k] = $3; bw[k] = $4 }
        END {
            ma = median(a, k); mb = median(b, k)
            printf "%s: %.1f ns per call with -t %s, %.1f ns without (medians of %d)\n", what, ma, lib, mb, k
            printf "%s: per recorded call: %.0f ns\n", what, ma - mb
            printf "%s: whole command: %.2f s with -t %s, %.2f s without\n", what, median(aw, k), lib, median(bw, k)
        }'
done
