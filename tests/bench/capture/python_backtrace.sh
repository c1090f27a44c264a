#!/usr/bin/env bash
# Cost of --python-backtrace (issue #17: <= 5 us per recorded call), A/B pairs in one run, wall
# seconds: N recorded OS runtime calls (one-byte reads, --osrt-threshold=0) made 30 Python calls
# deep, profiled with backtraces (A) and without (B); (A - B) / N is what one backtrace adds.
#   tests/bench/capture/python_backtrace.sh [PYTHON] [N] [PAIRS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
python=${1:-$root/build/venv/bin/python}
n=${2:-200000}
runs=${3:-5}
sl=${SIGHTLINE:-$root/build/app/cli/sightline}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
. "$here/ab_pairs.sh"
echo "python: $($python -c 'import sys; print(sys.version.split()[0])'), $n recorded reads"
prof="$sl profile -q true -f true -t osrt --osrt-threshold=0 -s none --cpuctxsw none -o $out/r"
pairs "backtrace at each read" "$prof --python-backtrace=osrt $python $here/py_reads.py $n" \
    "$prof $python $here/py_reads.py $n" | tee "$out/line"
awk -v n="$n" '{ for (i = 1; i <= NF; ++i) { if ($i == "A") a = $(i + 1); if ($i == "B") b = $(i + 1) } }
    END { printf "per recorded call: %.2f us more with the backtrace (median walls)\n", (a - b) / n * 1e6 }' "$out/line"
