#!/usr/bin/env bash
# Where the PyTorch loop's tracing overhead goes, on a GPU machine, in one command:
#   tests/bench/cuda/torch_cost_matrix.sh BUNDLE OUT_FILE [STEPS=300] [RUNS=3]
# BUNDLE as scripts/gpu-bundle.sh assembles it. Runs tests/gpu/torch_train.py plain and under
# configurations that each add one part of `-t cuda,nvtx` (the preloaded module alone, CUPTI's
# RUNTIME records, kernel records, all kinds but DRIVER, the default (API records by our
# callbacks), API records by CUPTI's RUNTIME and DRIVER kinds instead), interleaved, and prints
# each configuration's median loop time and its overhead against plain. Then the CUDA API calls
# per step by name (cuda_api_sum) of a default capture, of one with API records by CUPTI's
# activity, and of one with every API call (the negligible queries too).
# Exits 77 without PyTorch on a GPU.
set -u
B=$(cd "${1:?bundle}" && pwd); OUTF=${2:?out file}; STEPS=${3:-300}; RUNS=${4:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
TRAIN=$HERE/../../gpu/torch_train.py
SL=$B/bin/sightline
W=$(mktemp -d /tmp/sl-torch-matrix-XXXXXX)
trap 'rm -rf "$W"' EXIT
. "$HERE/matrix_lib.sh"
: >"$OUTF"
require_torch "$TRAIN"
# name|environment|profile options ("-" = run plain)
configs=(
  "plain||-"
  "preload-only(-t nvtx)||-t nvtx -s none"
  "runtime-records|SIGHTLINE_CUDA_API_RECORDS=activity SIGHTLINE_CUDA_KINDS=runtime|-t cuda -s none"
  "kernel-records|SIGHTLINE_CUDA_API_RECORDS=activity SIGHTLINE_CUDA_KINDS=kernel|-t cuda -s none"
  "all-but-driver|SIGHTLINE_CUDA_API_RECORDS=activity SIGHTLINE_CUDA_KINDS=kernel,memcpy,memset,runtime,sync,event,overhead,stream|-t cuda -s none"
  "default(-t cuda,nvtx)||-t cuda,nvtx -s none"
  "api-by-activity|SIGHTLINE_CUDA_API_RECORDS=activity|-t cuda,nvtx -s none"
  "kernel+api-by-callbacks|SIGHTLINE_CUDA_API_RECORDS=callbacks SIGHTLINE_CUDA_KINDS=kernel|-t cuda -s none"
)
override_configs
declare -A secs
loop_matrix torch 24 python3 "$TRAIN" "$STEPS"
tail -5 "$W/err.log" 2>/dev/null >>"$OUTF"
api_sum() {  # REPORT TITLE
  [ -f "$1" ] || return 0
  log "CUDA API calls of $2 ($STEPS steps + 5 warm-up), by count:"
  "$SL" stats -q -r cuda_api_sum -f csv "$1" 2>&1 |
    awk -F, -v s="$((STEPS + 5))" 'NR == 1 {next} {gsub(/"/, ""); printf "  %-40s %8d calls  %6.1f per step  avg %s ns\n", $9, $3, $3 / s, $4}' |
    sort -k2 -nr | head -25 | tee -a "$OUTF"
  "$SL" info "$1" 2>&1 | grep -iE "diagnostic|dropped|lost|cuda\." | head -10 | tee -a "$OUTF"
}
api_sum "$W/1-default.rep" "one default capture"
api_sum "$W/1-api-by-activity.rep" "one capture with API records by CUPTI's activity kinds"
# Every call, the negligible queries too: what the loop makes per step (ALL_APIS_RUN=0: not).
[ "${ALL_APIS_RUN:-1}" = 1 ] && timeout 150 "$SL" profile -t cuda -s none --cuda-trace-all-apis=true -o "$W/all-apis.rep" \
  --force-overwrite=true python3 "$TRAIN" "$STEPS" >/dev/null 2>>"$W/err.log"
api_sum "$W/all-apis.rep" "one capture with --cuda-trace-all-apis=true"
