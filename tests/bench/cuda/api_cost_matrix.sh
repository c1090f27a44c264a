#!/usr/bin/env bash
# What tracing adds to each CUDA API call a framework makes around its launches, on a GPU
# machine, in one command:
#   tests/bench/cuda/api_cost_matrix.sh BUNDLE OUT_FILE [RUNS=3]
# BUNDLE as scripts/gpu-bundle.sh assembles it. Runs clients/api_cost (cudaGetDevice,
# cudaSetDevice, cudaGetLastError, cudaStreamQuery, cudaEventRecord, launches, and a
# PyTorch-like launch with 17 device queries) plain and under each way of recording API calls,
# interleaved, and prints each call's median ns and what tracing added.
set -u
B=$(cd "${1:?bundle}" && pwd); OUTF=${2:?out file}; RUNS=${3:-3}
SL=$B/bin/sightline; AC=$B/clients/api_cost
W=$(mktemp -d /tmp/sl-api-matrix-XXXXXX)
trap 'rm -rf "$W"' EXIT
. "$(dirname "$0")/matrix_lib.sh"
log() { echo "$*" | tee -a "$OUTF"; }
: >"$OUTF"
[ -x "$AC" ] || { log "SKIP: $AC is not in the bundle"; exit 77; }
HERE=$(cd "$(dirname "$0")" && pwd)
g++ -O2 -o "$W/clock_cost" "$HERE/clock_cost.cpp" 2>/dev/null && log "clock: $("$W/clock_cost")"
# name|environment|profile options ("-" = run plain)
configs=(
  "plain||-"
  "preload-only(-t nvtx)||-t nvtx -s none"
  "activity-runtime-only|SIGHTLINE_CUDA_API_RECORDS=activity SIGHTLINE_CUDA_KINDS=runtime|-t cuda -s none"
  "activity|SIGHTLINE_CUDA_API_RECORDS=activity|-t cuda -s none"
  "callbacks(default)||-t cuda -s none"
  "callbacks+event-trace||-t cuda -s none --cuda-event-trace=true"
  "callbacks+kernel-only|SIGHTLINE_CUDA_API_RECORDS=callbacks SIGHTLINE_CUDA_KINDS=kernel|-t cuda -s none"
)
override_configs
declare -A ns
for rep in $(seq "$RUNS"); do
  for c in "${configs[@]}"; do
    name=${c%%|*}
    out=$(run_config "$c" "$W/$rep-${name%%(*}.rep" "$AC")
    while read -r api calls per; do
      api=${api#api=}; per=${per#ns_per_call=}
      [ -n "$per" ] && ns["$name|$api"]+="$per "
    done <<<"$(grep '^api=' <<<"$out")"
    echo "run $rep $name: $(grep -c '^api=' <<<"$out") lines" >>"$OUTF"
  done
done
apis=$(printf '%s\n' "${!ns[@]}" | sed 's/^[^|]*|//' | sort -u)
for api in $apis; do
  base=$(tr ' ' '\n' <<<"${ns[plain|$api]:-}" | grep . | median)
  for c in "${configs[@]}"; do
    name=${c%%|*}
    m=$(tr ' ' '\n' <<<"${ns[$name|$api]:-}" | grep . | median)
    add=$(awk "BEGIN {if (\"$m\" != \"\" && \"$base\" != \"\") printf \"%+.0f\", $m - $base; else print \"?\"}")
    log "$(printf 'api %-20s %-26s median %9s ns  added %7s ns  (runs: %s)' "$api" "$name" "${m:-?}" "$add" "${ns[$name|$api]:-}")"
  done
done
tail -5 "$W/err.log" 2>/dev/null >>"$OUTF"
# The recorded calls of one capture per way: the same functions, the same counts.
for way in activity callbacks; do
  rep=$W/1-$way.rep
  [ -f "$rep" ] || continue
  log "CUDA API calls recorded ($way):"
  "$SL" stats -q -r cuda_api_sum -f csv "$rep" 2>&1 |
    awk -F, 'NR == 1 {next} {gsub(/"/, ""); printf "  %-28s %8d calls  avg %s ns\n", $9, $3, $4}' |
    sort | tee -a "$OUTF"
done
