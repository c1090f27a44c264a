#!/usr/bin/env bash
# What tracing costs a PyTorch training loop's wall time, launch-bound and GPU-bound, on a GPU
# machine, in one command:
#   tests/bench/cuda/torch_shapes_cost.sh BUNDLE OUT_FILE [RUNS=3]
# torch_train.py in both shapes (TORCH_TRAIN_SHAPE): "small" (300 steps), whose GPU is idle most
# of the time, so each launch's added cost shows in the loop's time; "large" (100 steps), whose
# GPU is busy throughout, as in most training, so the launches run ahead of it. Each shape runs
# plain, under the default CUDA capture (-t cuda,nvtx) and with --cuda-event-trace=true,
# RUNS rounds interleaved; one line per configuration: the median loop time and the change
# against plain (issue #16: <= 3%).
set -u
B=$(cd "${1:?bundle}" && pwd); RUNS=${3:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
TRAIN=$HERE/../../gpu/torch_train.py
SL=$B/bin/sightline
. "$HERE/matrix_lib.sh"
matrix_start "${2:?out file}" "$SL"
require_torch "$TRAIN"
configs=(
  "plain||-"
  "default||-t cuda,nvtx"
  "event-trace||-t cuda,nvtx --cuda-event-trace=true"
)
override_configs
# TORCH_SHAPES (default "small:300 large:100") chooses the shapes and their steps.
for spec in ${TORCH_SHAPES:-small:300 large:100}; do
  spec=${spec/:/ }
  read -r shape steps <<<"$spec"
  declare -A secs=()
  TORCH_TRAIN_SHAPE=$shape loop_matrix "$shape" 12 python3 "$TRAIN" "$steps"
  unset secs
done
tail -5 "$W/err.log" 2>/dev/null >>"$OUTF"
