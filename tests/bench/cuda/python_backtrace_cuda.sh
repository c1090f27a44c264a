#!/usr/bin/env bash
# Cost of --python-backtrace=cuda (issue #17: <= 5 us per recorded call) without a GPU: N
# launches from Python through the stand-in CUPTI (tests/cuda/FakeCupti.cpp), which calls the
# CUDA module's API callback around each one as CUPTI does; profiled with backtraces (A) and
# without (B), A/B pairs in one run; (A - B) / N is what one backtrace adds: the callback, the
# stack read and its record, the merge's correlation-id lookup. A real CUPTI's own cost of
# delivering the callbacks is not in it (on a GPU: tests/bench/cuda/torch_per_call_cost.sh).
#   tests/bench/cuda/python_backtrace_cuda.sh [PYTHON] [N] [PAIRS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
python=${1:-python3}
n=${2:-100000}
runs=${3:-5}
sl=${SIGHTLINE:-$root/build/app/cli/sightline}
fake=${FAKE_CUPTI_DIR:-$root/build/tests/cuda/fake-cupti}
[ -e "$fake/libcupti.so.13" ] || { echo "no stand-in CUPTI at $fake (build the tests)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
. "$here/../capture/ab_pairs.sh"
echo "python: $($python -c 'import sys; print(sys.version.split()[0])'), $n launches"
prof="$sl profile -q true -f true -t cuda -s none --cpuctxsw none -o $out/r -e LD_LIBRARY_PATH=$fake"
client=$root/tests/clients/python/cuda_backtrace.py
pairs "backtrace at each launch" "$prof --python-backtrace=cuda $python $client $n" \
    "$prof $python $client $n" | tee "$out/line"
awk -v n="$n" '{ for (i = 1; i <= NF; ++i) { if ($i == "A") a = $(i + 1); if ($i == "B") b = $(i + 1) } }
    END { printf "per recorded call: %.2f us more with the backtrace (median walls)\n", (a - b) / n * 1e6 }' "$out/line"
