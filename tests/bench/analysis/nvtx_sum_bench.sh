#!/bin/sh
# Per-name summary of N NVTX ranges (issue #23: nvtx_sum over 10 M ranges >= 5x faster than Tracy's
# 1.48 s; over 1 M ranges <= 0.10x of the report's own import). Writes a Chrome trace of N
# complete ("X") CPU ranges of 200 names on 8 threads (as PyTorch's profiler writes cpu_op), imports
# it with `sightline import`, then times `sightline stats -r nvtx_sum` (whole process, RUNS runs)
# and prints the medians, the ratio to the import and the peak memory.
#   tests/bench/analysis/nvtx_sum_bench.sh build/app/cli/sightline [N] [RUNS]
set -eu
sl=$1
n=${2:-1000000}
runs=${3:-5}
dir=${TMPDIR:-/tmp}/sightline-nvtx-sum-bench
mkdir -p "$dir"
trace=$dir/ranges$n.json
rep=$dir/ranges$n.rep
if [ ! -s "$trace" ]; then
  python3 - "$n" "$trace" <<'PY'
import sys
n, path = int(sys.argv[1]), sys.argv[2]
names = [f"aten::op_{i:03d}" for i in range(200)]
with open(path, "w", buffering=1 << 22) as f:
    f.write('{"traceEvents": [\n')
    per = n // 8
    out = []
    for t in range(8):
        ts = 1000.0
        for i in range(per if t < 7 else n - per * 7):
            dur = 1 + (i * 7919 + t) % 97
            out.append(f'{{"ph": "X", "cat": "cpu_op", "name": "{names[(i * 31 + t) % 200]}", '
                       f'"pid": 1, "tid": {t + 1}, "ts": {ts:.3f}, "dur": {dur}.250}}')
            ts += dur + 1.5
            if len(out) >= 100000:
                f.write(",\n".join(out) + ",\n")
                out = []
    out.append('{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "bench"}}')
    f.write(",\n".join(out) + "\n]}\n")
PY
fi
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: > "$dir/import.times"
for r in 1 2 3; do
  /usr/bin/time -f "%e %M" -o "$dir/t" "$sl" import -q -f "$trace" -o "$rep"
  cat "$dir/t" >> "$dir/import.times"
done
: > "$dir/stats.times"
r=0
while [ $r -lt "$runs" ]; do
  /usr/bin/time -f "%e %M" -o "$dir/t" "$sl" stats -q -r nvtx_sum "$rep" > "$dir/out.txt"
  cat "$dir/t" >> "$dir/stats.times"
  r=$((r + 1))
done
imp=$(cut -d' ' -f1 "$dir/import.times" | median)
sum=$(cut -d' ' -f1 "$dir/stats.times" | median)
mem=$(cut -d' ' -f2 "$dir/stats.times" | median)
echo "ranges: $n ($(grep -c 'aten::op_' "$dir/out.txt") names in the report), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "import (sightline import, median of 3): $imp s"
echo "nvtx_sum (whole process, median of $runs): $sum s, peak $((mem / 1024)) MiB"
awk -v s="$sum" -v i="$imp" 'BEGIN { printf "nvtx_sum / import: %.3f\n", s / i }'
awk -v s="$sum" 'BEGIN { printf "Tracy 0.14 took 1.48 s for 10 M ranges (2026-11-26, docs/PERFORMANCE.md): Tracy / nvtx_sum at this N = %.1fx (meaningful at N = 10000000)\n", 1.48 / s }'
