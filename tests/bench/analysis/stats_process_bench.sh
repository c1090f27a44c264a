#!/usr/bin/env bash
# Whole-process `sightline stats -r REPORT` over a synthetic report of N events (default 12.65 M:
# about 5 M kernels and 5 M CUDA API calls), side by side with what nsys users run on exports:
# the same summary as one SQL GROUP BY (sqlite3 CLI) over our nsys-schema SQLite export of that
# report. Runs alternate (ours, SQL, ours, ...), RUNS pairs; prints each run and the medians.
# SIGHTLINE_B=path also times a second sightline binary (a before/after of a change) in each round.
#   tests/bench/analysis/stats_process_bench.sh [N] [RUNS] [DIR] [REPORT]
# Issue #23's row: cuda_gpu_kern_sum over 5 M kernels >= 50x faster than the SQL.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
n=${1:-12650000}
runs=${2:-5}
dir=${3:-/tmp}
report=${4:-cuda_gpu_kern_sum}
sl=${SIGHTLINE:-$root/build/app/cli/sightline}
rep=$dir/stats_bench_$n.rep
db=$dir/stats_bench_$n.sqlite
[[ -f $rep ]] || "$sl" generate -n "$n" -f -o "$rep" >/dev/null
[[ -f $db ]] || "$sl" export -t sqlite -f true -o "$db" "$rep" >/dev/null
command -v sqlite3 >/dev/null || { echo "needs the sqlite3 CLI (apt install sqlite3)" >&2; exit 2; }
echo "report: $rep ($(du -h "$rep" | cut -f1)); export: $db ($(du -h "$db" | cut -f1))"
sql="SELECT s.value, sum(k.end - k.start) AS total, count(*), avg(k.end - k.start), min(k.end - k.start),
     max(k.end - k.start), sum((k.end - k.start) * (k.end - k.start)) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k
     JOIN StringIds AS s ON s.id = k.demangledName GROUP BY k.demangledName ORDER BY total DESC;"
timeit() {  # prints wall seconds and peak KB of the command; its output is thrown away
    local tf
    tf=$(mktemp)
    # time writes to its own file: the command's stderr is thrown away with its stdout.
    /usr/bin/time -o "$tf" -f "%e %M" "$@" >/dev/null 2>/dev/null || true
    tail -1 "$tf"
    rm -f "$tf"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ours=() sql_t=() other=()
for ((i = 0; i < runs; ++i)); do
    read -r a am <<<"$(timeit "$sl" stats -q -r "$report" -f csv "$rep")"
    read -r b bm <<<"$(timeit sqlite3 "$db" "$sql")"
    line="run $((i + 1)): sightline ${a} s (${am} KB peak), SQL ${b} s (${bm} KB)"
    if [[ -n ${SIGHTLINE_B:-} ]]; then
        read -r c cm <<<"$(timeit "$SIGHTLINE_B" stats -q -r "$report" -f csv "$rep")"
        line+=", SIGHTLINE_B ${c} s (${cm} KB)"
        other+=("$c")
    fi
    echo "$line"
    ours+=("$a") sql_t+=("$b")
done
ma=$(printf '%s\n' "${ours[@]}" | median) mb=$(printf '%s\n' "${sql_t[@]}" | median)
echo "median: sightline $ma s, SQL $mb s, SQL/sightline $(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.1f", (a > 0) ? b / a : 0}')x"
if ((${#other[@]})); then
    mc=$(printf '%s\n' "${other[@]}" | median)
    echo "median: SIGHTLINE_B $mc s, SIGHTLINE_B/sightline $(awk -v a="$ma" -v c="$mc" 'BEGIN {printf "%.2f", (a > 0) ? c / a : 0}')x"
fi
