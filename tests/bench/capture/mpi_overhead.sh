#!/usr/bin/env bash
# Cost of -t mpi per MPI call (issue #19). tests/clients/mpi/mpi_call_cost.c times its own loop
# of N MPI_Iprobe calls on one rank (a local call: no waiting on another rank, so the figure is
# the wrapper's and the record's cost, not the scheduler's), so the profiler's start-up and
# merge are not in it. Profiled with -t osrt,mpi (A) and -t osrt (B), everything else equal (no
# CPU sampling or context switches), A and B in turn; A - B is what one recorded call adds. The
# whole command's wall time (the merge of N events included) is printed too.
#   tests/bench/capture/mpi_overhead.sh [N] [PAIRS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/client_ab.sh"
client_setup MPI_CALL_COST mpi_call_cost "build with libopenmpi-dev installed" 2000000 "$@"
mpirun="mpirun --allow-run-as-root --mca btl_vader_single_copy_mechanism none -np 1"
echo "$(mpirun --version 2>&1 | head -1), $n MPI_Iprobe calls, $runs pairs, $(nproc) cores"
one() {  # one run: "<ns per call> <wall s>"
    local t0 t1 ns
    t0=$(date +%s.%N)
    ns=$($prof "$@" $mpirun "$client" iprobe "$n" 2>"$out/err" | sed -n 's/^iprobe: \([0-9.]*\) ns.*/\1/p')
    t1=$(date +%s.%N)
    [ -n "$ns" ] || { cat "$out/err"; exit 1; }
    echo "$ns $(echo "$t1 - $t0" | bc)"
}
client_pairs "-t osrt,mpi" "-t osrt"
paste "$out/a" "$out/b" | awk "$awk_median"'
    { ++k; a[k] = $1; aw[k] = $2; b[k] = $3; bw[k] = $4 }
    END {
        ma = median(a, k); mb = median(b, k)
        printf "MPI_Iprobe: %.1f ns per call with -t mpi, %.1f ns without (medians of %d)\n", ma, mb, k
        printf "per recorded MPI call: %.0f ns\n", ma - mb
        printf "whole command: %.2f s with -t mpi, %.2f s without\n", median(aw, k), median(bw, k)
    }'
