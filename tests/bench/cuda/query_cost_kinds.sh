#!/usr/bin/env bash
# Which CUPTI activity kinds, together, make every negligible CUDA query slower, on a GPU
# machine, in one command:
#   tests/bench/cuda/query_cost_kinds.sh BUNDLE OUT_FILE [N=20000]
# Under the default kinds `cudaGetDevice` costs +180-223 ns on some H200 VMs (PyTorch makes
# about 370 such queries per step: 7% of a launch-bound loop's step), under kernel records
# alone +0-4 ns, and on one VM kernel records plus any single other kind +0-8 ns. So this runs
# `api_cost N` under kernel records plus every subset of the six other kinds (64 captures, API
# records by our callbacks, as the default), prints the ns added to `cudaGetDevice` for each,
# and names the smallest subsets that make it slow (over 80 ns added): the kinds to look at.
set -u
B=$(cd "${1:?bundle}" && pwd); N=${3:-20000}
SL=$B/bin/sightline; AC=$B/clients/api_cost
. "$(dirname "$0")/matrix_lib.sh"
matrix_start "${2:?out file}" "$AC"
getdev() { grep '^api=cudaGetDevice ' | field ns_per_call; }
kinds=(memcpy memset sync event overhead stream)
plain=$(for i in 1 2 3; do timeout 60 "$AC" "$N" | getdev; done | median)
[ -n "$plain" ] || { log "SKIP: api_cost did not run (no GPU?)"; exit 77; }
log "cudaGetDevice plain: $plain ns ($N calls, median of 3)"
for mask in $(seq 0 63); do
  set_=kernel
  for b in 0 1 2 3 4 5; do (( mask >> b & 1 )) && set_+=",${kinds[b]}"; done
  v=$(timeout 120 env SIGHTLINE_CUDA_API_RECORDS=callbacks SIGHTLINE_CUDA_KINDS=$set_ "$SL" profile \
      -q true -t cuda -s none --cpuctxsw none -o "$W/r.rep" -f true "$AC" "$N" 2>>"$W/err.log" | getdev)
  printf '%s %s %s\n' "$mask" "$set_" "${v:-?}" >>"$W/all.txt"
  log "$(printf '%-50s cudaGetDevice %8s ns  added %s' "$set_" "${v:-?}" \
      "$(awk -v v="${v:-}" -v p="$plain" 'BEGIN {if (v == "") print "?"; else printf "%+.0f", v - p}')")"
done
# Slow subsets none of whose proper subsets is slow.
declare -A slow
while read -r m set_ v; do
  [ "$v" = "?" ] && continue
  awk -v v="$v" -v p="$plain" 'BEGIN {exit !(v - p > 80)}' && slow[$m]=$set_
done <"$W/all.txt"
for m in "${!slow[@]}"; do
  minimal=1
  for o in "${!slow[@]}"; do
    if [ "$o" != "$m" ] && (( (o & m) == o )); then minimal=0; break; fi
  done
  [ $minimal = 1 ] && echo "smallest slow set: ${slow[$m]}"
done | sort | tee -a "$OUTF"
grep -q "smallest slow set" "$OUTF" || log "no set of kinds made cudaGetDevice over 80 ns slower here"
tail -3 "$W/err.log" 2>/dev/null >>"$OUTF"
