#!/bin/bash
# Opening N reports of E events each as one timeline (the merged tab) next to opening one report
# of N x E events, in the same run: wall time to the row tree and peak RSS, each variant in its
# own process, best of RUNS. The reports are generated once and kept under $CACHE.
# Usage: merge_open_bench.sh BUILD_DIR [N=64] [E=1000000] [RUNS=3]
set -euo pipefail
build=${1:?usage: merge_open_bench.sh BUILD_DIR [N] [E] [RUNS]}
n=${2:-64}
e=${3:-1000000}
runs=${4:-3}
cli=$build/app/cli/sightline
bench=$build/tests/bench/viewer/bench_merge_open
cache=${CACHE:-/tmp/sl-merge-bench}/${n}x${e}
mkdir -p "$cache/ranks"
for ((i = 0; i < n; i++)); do
  f=$(printf '%s/ranks/rank%03d.rep' "$cache" "$i")
  [[ -s $f ]] || "$cli" generate -o "$f" --events "$e" --seed $((i + 1)) --force-overwrite >/dev/null
done
one=$cache/one.rep
[[ -s $one ]] || "$cli" generate -o "$one" --events $((n * e)) --seed 1 --force-overwrite >/dev/null
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; reports in $cache"
for ((r = 1; r <= runs; r++)); do
  echo "run $r merged $n x $e: $("$bench" --merge "$cache/ranks")"
  echo "run $r one report of $((n * e)): $("$bench" "$one")"
done
