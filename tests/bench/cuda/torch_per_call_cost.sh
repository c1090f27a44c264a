#!/usr/bin/env bash
# What kernel records and Python backtraces cost each CUDA call of the PyTorch loop, on a GPU
# machine, in one command:
#   tests/bench/cuda/torch_per_call_cost.sh BUNDLE OUT_DIR [RUNS=3]
# The loop-time matrices (torch_cost_matrix.sh) vary by up to 20% from run to run; the
# durations of the calls inside a report do not. So this compares, per function, the median
# duration of the loop's CUDA calls under:
#   api-only     API records by our callbacks, no activity kind but memset (no kernel records)
#   api+kernel   the same with kernel records: what CUPTI's kernel instrumentation adds to each
#                launching call (cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel)
#   default      -t cuda,nvtx
#   event-trace  the default with --cuda-event-trace=true (CUDA_EVENT records; the default before
#                2026-11-28): what they add to every call, the negligible queries too
#   backtrace    the default with --python-backtrace=cuda: what a Python backtrace adds to each
#                recorded call (issue #17: <= 5 us); our callback reads the entry time before
#                the backtrace, so the backtrace is inside the call's duration
# and, from the api+kernel report, how busy the GPU was and how long kernels waited after their
# launch returned (kernel_timing.py): a launch-bound loop's GPU is mostly idle.
# Loop times of every configuration (interleaved, RUNS each) are printed too.
# TORCH_CALL_CONFIGS="plain default backtrace" runs only the configurations named.
set -u
B=$(cd "${1:?bundle}" && pwd); OUT=${2:?out dir}; RUNS=${3:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
TRAIN=$HERE/../../gpu/torch_train.py
SL=$B/bin/sightline
W=$(mktemp -d /tmp/sl-torch-calls-XXXXXX)
trap 'rm -rf "$W"' EXIT
. "$HERE/matrix_lib.sh"
mkdir -p "$OUT"
OUTF=$OUT/torch_per_call.txt
: >"$OUTF"
require_torch "$TRAIN"
cb="SIGHTLINE_CUDA_API_RECORDS=callbacks"
quiet="-s none --cpuctxsw none"
configs=(
  "plain||-"
  "api-only|$cb SIGHTLINE_CUDA_KINDS=memset|-t cuda $quiet"
  "api+kernel|$cb SIGHTLINE_CUDA_KINDS=kernel,memset|-t cuda $quiet"
  "default||-t cuda,nvtx $quiet"
  "event-trace||-t cuda,nvtx $quiet --cuda-event-trace=true"
  "backtrace||-t cuda,nvtx $quiet --python-backtrace=cuda"
)
if [ -n "${TORCH_CALL_CONFIGS:-}" ]; then
  kept=()
  for c in "${configs[@]}"; do
    case " $TORCH_CALL_CONFIGS " in *" ${c%%|*} "*) kept+=("$c") ;; esac
  done
  configs=("${kept[@]}")
fi
declare -A secs
loop_matrix loop 12 python3 "$TRAIN" 300
# Per-call medians, pooled over the runs' reports of each configuration.
for c in "${configs[@]}"; do
  name=${c%%|*}
  [ "$name" = plain ] && continue
  for rep in $(seq "$RUNS"); do
    [ -f "$W/$rep-$name.rep" ] || continue
    timeout 60 "$SL" export --type sqlite -o "$W/$rep-$name.sqlite" --force-overwrite=true \
      "$W/$rep-$name.rep" >/dev/null 2>>"$W/err.log" || continue
    timeout 60 python3 "$HERE/kernel_timing.py" "$W/$rep-$name.sqlite" "$name#$rep" >>"$W/timing.txt" 2>&1
  done
done
grep -v " api " "$W/timing.txt" | tee -a "$OUTF"
# One line per function and configuration: the median of the runs' medians.
awk '$2 == "api" { split($1, a, "#"); key = a[1] " " $3; v[key] = v[key] " " $7; n[key] = $5 }
     END { for (k in v) print k, n[k], v[k] }' "$W/timing.txt" |
  while read -r cfg fn calls meds; do
    printf '%-12s %-50s calls %7s  median %8.0f ns  (runs: %s)\n' "$cfg" "$fn" "$calls" \
      "$(tr ' ' '\n' <<<"$meds" | grep . | median)" "$meds"
  done | sort -k2,2 -k1,1 | tee -a "$OUTF"
"$SL" info "$W/1-backtrace.rep" 2>&1 | grep -iE "backtrace|python|diagnostic" | head -8 | tee -a "$OUTF"
tail -5 "$W/err.log" 2>/dev/null >>"$OUTF"
cp "$W/1-backtrace.rep" "$OUT/torch_backtrace.rep" 2>/dev/null
cp "$W/1-api+kernel.rep" "$OUT/torch_api_kernel.rep" 2>/dev/null
true
