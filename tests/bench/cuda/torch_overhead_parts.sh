#!/usr/bin/env bash
# Which part of a capture slows the PyTorch loop, on a GPU machine, in one command:
#   tests/bench/cuda/torch_overhead_parts.sh BUNDLE OUT_DIR [RUNS=2]
# 1. api_cost under CUPTI's kernel records plus one other activity kind at a time (API records
#    by our callbacks): which kinds make CUPTI slow down every API call, the negligible queries
#    (cudaGetDevice) too.
# 2. torch_train.py under: the preloaded module with nothing traced; NVTX with and without
#    context-switch tracing; kernel records alone; every kind but the ones step 1 found slow;
#    the default both ways (API records by CUPTI's activity or by our callbacks).
set -u
B=$(cd "${1:?bundle}" && pwd); OUT=${2:?out dir}; RUNS=${3:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
cb="SIGHTLINE_CUDA_API_RECORDS=callbacks"
prof="-t cuda -s none"
kinds="memcpy memset sync event overhead stream"
api_configs="plain||-
kernel|$cb SIGHTLINE_CUDA_KINDS=kernel|$prof"
for k in $kinds; do api_configs+=$'\n'"kernel+$k|$cb SIGHTLINE_CUDA_KINDS=kernel,$k|$prof"; done
MATRIX_CONFIGS=$api_configs timeout 120 bash "$HERE/api_cost_matrix.sh" "$B" "$OUT/api_kinds.txt" "$RUNS" \
  >"$OUT/api_kinds.log" 2>&1
# A kind is slow when it adds over 80 ns to cudaGetDevice beyond kernel records alone.
base=$(awk '$2 == "cudaGetDevice" && $3 == "kernel" {print $5}' "$OUT/api_kinds.txt")
fast=kernel; slow=
for k in $kinds; do
  v=$(awk -v c="kernel+$k" '$2 == "cudaGetDevice" && $3 == c {print $5}' "$OUT/api_kinds.txt")
  if [ -n "$v" ] && [ -n "$base" ] && awk "BEGIN {exit !($v - $base > 80)}"; then slow+="$k "; else fast+=",$k"; fi
done
echo "cudaGetDevice: kernel records alone ${base:-?} ns; kinds that slow every call: ${slow:-none}; the rest: $fast" |
  tee "$OUT/kinds_verdict.txt"
torch_configs="plain||-
preload(-t none)||-t none -s none --cpuctxsw none
nvtx-no-ctxsw||-t nvtx -s none --cpuctxsw none
nvtx||-t nvtx -s none
kernel-only|$cb SIGHTLINE_CUDA_KINDS=kernel|$prof
fast-kinds|$cb SIGHTLINE_CUDA_KINDS=$fast|-t cuda,nvtx -s none
default-callbacks|$cb|-t cuda,nvtx -s none
default-activity||-t cuda,nvtx -s none"
MATRIX_CONFIGS=$torch_configs ALL_APIS_RUN=0 timeout 300 bash "$HERE/torch_cost_matrix.sh" "$B" \
  "$OUT/torch_parts.txt" 300 "$RUNS" >"$OUT/torch_parts.log" 2>&1
grep -h "median" "$OUT/api_kinds.txt" "$OUT/torch_parts.txt"
