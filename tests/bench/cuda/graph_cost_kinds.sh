#!/usr/bin/env bash
# What slows CUDA graphs of small nodes under tracing, on a GPU machine, in one command:
#   tests/bench/cuda/graph_cost_kinds.sh BUNDLE OUT_FILE [SECONDS=1]
# On an H200 (2026-11-28) `many_ops ... graph` (graphs of 256 empty kernels and 32 memsets on 4
# streams) ran 3.6 M operations a second plain, 1.2-1.5 M traced at graph level (one record per
# graph launch) and 0.5 M at node level. This runs it plain and at both levels under kernel
# records alone, kernel and memset records, and every kind (the default), and prints the
# operations per second of each: whether the graph-level slowdown comes with the kernel kind
# itself (CUPTI instrumenting every node even when it reports only the graph) or with another.
# GRAPH_COST_LEVELS (default "graph node") and GRAPH_COST_KINDS (default "kernel kernel,memset
# every"; "every" is the default set) choose others.
set -u
B=$(cd "${1:?bundle}" && pwd); SECS=${3:-1}
SL=$B/bin/sightline; OPS=$B/clients/many_ops
. "$(dirname "$0")/matrix_lib.sh"
matrix_start "${2:?out file}" "$OPS"
rate() { sed -n 's/.*ops_per_s=\([0-9]*\).*/\1/p' | head -1; }
cb=SIGHTLINE_CUDA_API_RECORDS=callbacks
for rep in 1 2; do
  v=$(cd "$W" && timeout 60 "$OPS" "$SECS" "$W/e" graph | rate)
  log "run $rep plain: ${v:-?} ops/s"
  for level in ${GRAPH_COST_LEVELS:-graph node}; do
    for kinds in ${GRAPH_COST_KINDS:-kernel kernel,memset every}; do
      [ "$kinds" = every ] && kinds=
      v=$(cd "$W" && timeout 120 env $cb ${kinds:+SIGHTLINE_CUDA_KINDS=$kinds} "$SL" profile -q true \
          -t cuda -s none --cpuctxsw none --cuda-graph-trace=$level -o "$W/r.rep" -f true \
          "$OPS" "$SECS" "$W/e" graph 2>>"$W/err.log" | rate)
      log "run $rep $level-level ${kinds:-every kind}: ${v:-?} ops/s"
    done
  done
done
tail -3 "$W/err.log" 2>/dev/null >>"$OUTF"
