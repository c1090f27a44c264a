#!/usr/bin/env bash
# What each part of CUDA tracing costs per kernel launch, on a GPU machine, in one command:
#   tests/bench/cuda/launch_cost_matrix.sh BUNDLE OUT_FILE
# BUNDLE as scripts/gpu-bundle.sh assembles it. Interleaves the configurations (plain program,
# all of -t cuda, CUPTI's own clock, subsets of activity kinds, the preloaded module alone) over
# empty_kernels (100,000 launches) and the PyTorch loop, 3 runs each, and prints the medians.
set -u
B=$(cd "${1:?bundle}" && pwd); OUTF=${2:?out file}
HERE=$(cd "$(dirname "$0")" && pwd)
SL=$B/bin/sightline; EK=$B/clients/empty_kernels
W=$(mktemp -d /tmp/sl-matrix-XXXXXX)
. "$HERE/matrix_lib.sh"
log() { echo "$*" | tee -a "$OUTF"; }
: >"$OUTF"
g++ -O2 -o "$W/clock_cost" "$HERE/clock_cost.cpp" && log "clock: $("$W/clock_cost")"
# name|environment|profile options ("-" = run plain)
configs=(
  "plain||-"
  "preload-only(-t nvtx)||-t nvtx -s none"
  "cuda(default)||-t cuda -s none"
  "cuda-all-apis||-t cuda -s none --cuda-trace-all-apis=true"
  "cuda-no-driver-kind|SIGHTLINE_CUDA_API_RECORDS=activity SIGHTLINE_CUDA_KINDS=kernel,memcpy,memset,runtime,sync,event,overhead,stream|-t cuda -s none"
  "kernel+runtime|SIGHTLINE_CUDA_API_RECORDS=activity SIGHTLINE_CUDA_KINDS=kernel,runtime|-t cuda -s none"
)
run_one() { run_config "$1" "$W/r.rep" "${@:2}"; }  # CONFIG PROGRAM...
declare -A launch torch
for rep in 1 2 3; do
  for c in "${configs[@]}"; do
    v=$(run_one "$c" "$EK" 100000 | field ns_per_launch); launch[$c]+="$v "
  done
done
for c in "${configs[@]}"; do
  log "$(printf 'launch %-28s median %8s ns  (runs: %s)' "${c%%|*}" "$(tr ' ' '\n' <<<"${launch[$c]}" | grep . | median)" "${launch[$c]}")"
done
tail -3 "$W/err.log" >>"$OUTF"
if python3 "$HERE/../../gpu/torch_train.py" 1 >/dev/null 2>&1; then
  tconfigs=("${configs[0]}" "${configs[2]}")
  for rep in 1 2 3; do
    for c in "${tconfigs[@]}"; do
      v=$(run_one "$c" python3 "$HERE/../../gpu/torch_train.py" 300 | field seconds); torch[$c]+="$v "
    done
  done
  for c in "${tconfigs[@]}"; do
    log "$(printf 'torch  %-28s median %8s s   (runs: %s)' "${c%%|*}" "$(tr ' ' '\n' <<<"${torch[$c]}" | grep . | median)" "${torch[$c]}")"
  done
fi
rm -rf "$W"
