#!/usr/bin/env bash
# Cost of --python-sampling (issue #17: <= 5% CPU at 100 Hz on a pure-Python loop), A/B pairs in
# one run, CPU seconds (user + system of the whole profile, the program included): a fixed
# pure-Python loop 30 calls deep, profiled with Python sampling at HZ (A) and without (B), native
# sampling and context switches off so that only the Python sampler differs; then the same with
# native sampling on (the default), where the Python samples are joined with the native ones.
#   tests/bench/capture/python_sampling.sh [PYTHON] [N] [PAIRS] [HZ...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
python=${1:-$root/build/venv/bin/python}
n=${2:-50000000}
runs=${3:-5}
shift 3 2>/dev/null || shift $#
rates=("$@")
((${#rates[@]})) || rates=(100 1000)
sl=${SIGHTLINE:-$root/build/app/cli/sightline}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
. "$here/ab_pairs.sh"
metric=cpu
echo "python: $($python -c 'import sys; print(sys.version.split()[0])'), loop of $n"
quiet="$sl profile -q true -f true -t none -s none --cpuctxsw none -o $out/r"
native="$sl profile -q true -f true -t none -o $out/r"
for hz in "${rates[@]}"; do
    pairs "python sampling $hz Hz, nothing else" \
        "$quiet --python-sampling=true --python-sampling-frequency=$hz $python $here/py_loop.py $n" \
        "$quiet $python $here/py_loop.py $n"
done
pairs "python sampling 100 Hz joined with native sampling (default -s, 1000 Hz)" \
    "$native --python-sampling=true --python-sampling-frequency=100 $python $here/py_loop.py $n" \
    "$native $python $here/py_loop.py $n"
for hz in "${rates[@]}"; do
    echo -n "$hz Hz: "
    $quiet --python-sampling=true --python-sampling-frequency=$hz $python $here/py_loop.py $n | grep "sampler thread"
done
