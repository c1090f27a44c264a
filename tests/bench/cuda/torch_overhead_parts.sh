#!/usr/bin/env bash
# Which part of a capture slows the PyTorch loop, on a GPU machine, in one command:
#   tests/bench/cuda/torch_overhead_parts.sh BUNDLE OUT_DIR [RUNS=2]
# 1. api_cost under every kind, under every kind but one (API records by our callbacks), and
#    under kernel records alone: which kinds make CUPTI slow down every API call, the negligible
#    queries (cudaGetDevice) too. On 2026-11-27 the default made cudaGetDevice +180..220 ns on
#    one H200 VM, kernel records alone +0, and kernel records with any one other kind +0..8 ns
#    on another: leaving one out at a time tells which kinds together cost it.
# 2. torch_train.py under: NVTX with and without context-switch tracing; kernel records alone;
#    every kind but the ones step 1 found slow; the default both ways (API records by our
#    callbacks or by CUPTI's activity); the default with --python-backtrace=cuda (issue #17:
#    <= 5 us per recorded call; the loop makes about 26 per step).
set -u
B=$(cd "${1:?bundle}" && pwd); OUT=${2:?out dir}; RUNS=${3:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
cb="SIGHTLINE_CUDA_API_RECORDS=callbacks"
prof="-t cuda -s none"
kinds="memcpy memset sync event overhead stream"
all="kernel,memcpy,memset,sync,event,overhead,stream"
api_configs="plain||-
kernel|$cb SIGHTLINE_CUDA_KINDS=kernel|$prof
all|$cb|$prof
activity-all|SIGHTLINE_CUDA_API_RECORDS=activity|$prof"
for k in $kinds; do
  api_configs+=$'\n'"all-but-$k|$cb SIGHTLINE_CUDA_KINDS=$(tr ',' '\n' <<<"$all" | grep -vx "$k" | paste -sd,)|$prof"
done
MATRIX_CONFIGS=$api_configs timeout 150 bash "$HERE/api_cost_matrix.sh" "$B" "$OUT/api_kinds.txt" "$RUNS" \
  >"$OUT/api_kinds.log" 2>&1
# A kind is slow when leaving it out takes over 80 ns off cudaGetDevice under every kind.
med() { awk -v c="$1" '$2 == "cudaGetDevice" && $3 == c {print $5}' "$OUT/api_kinds.txt"; }
base=$(med all); fast=kernel; slow=
for k in $kinds; do
  v=$(med "all-but-$k")
  if [ -n "$v" ] && [ -n "$base" ] && awk "BEGIN {exit !($base - $v > 80)}"; then slow+="$k "; else fast+=",$k"; fi
done
echo "cudaGetDevice: plain $(med plain) ns, kernel records alone $(med kernel), every kind ${base:-?}; kinds whose absence saves over 80 ns: ${slow:-none}; the rest: $fast" |
  tee "$OUT/kinds_verdict.txt"
torch_configs="plain||-
nvtx-no-ctxsw||-t nvtx -s none --cpuctxsw none
nvtx||-t nvtx -s none
kernel-only|$cb SIGHTLINE_CUDA_KINDS=kernel|$prof
fast-kinds|$cb SIGHTLINE_CUDA_KINDS=$fast|-t cuda,nvtx -s none
default-callbacks|$cb|-t cuda,nvtx -s none
default-activity|SIGHTLINE_CUDA_API_RECORDS=activity|-t cuda,nvtx -s none
python-backtrace|$cb|-t cuda,nvtx -s none --python-backtrace=cuda"
MATRIX_CONFIGS=$torch_configs ALL_APIS_RUN=0 timeout 300 bash "$HERE/torch_cost_matrix.sh" "$B" \
  "$OUT/torch_parts.txt" 300 "$RUNS" >"$OUT/torch_parts.log" 2>&1
grep -h "median" "$OUT/api_kinds.txt" "$OUT/torch_parts.txt"
