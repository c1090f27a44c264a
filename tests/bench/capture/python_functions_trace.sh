#!/usr/bin/env bash
# Cost of --python-functions-trace (issue #17), A/B pairs in one run:
#  - per traced call: N calls of json.dumps (listed), profiled with the trace (A) and without (B);
#    (A - B) / N is what one traced call adds (a push and a pop through ctypes);
#  - on code that is not listed: N calls of an unlisted function, with the trace on (A) and off
#    (B): sys.setprofile (Python < 3.12) sees every call, sys.monitoring (>= 3.12) none.
#   tests/bench/capture/python_functions_trace.sh [PYTHON] [N] [PAIRS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
python=${1:-$root/build/venv/bin/python}
n=${2:-1000000}
runs=${3:-5}
sl=${SIGHTLINE:-$root/build/app/cli/sightline}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
. "$here/ab_pairs.sh"
echo "python: $($python -c 'import sys; print(sys.version.split()[0])'), $n calls"
prof="$sl profile -q true -f true -t nvtx -s none --cpuctxsw none -o $out/r"
for mode in listed unlisted; do
    pairs "$mode" "$prof --python-functions-trace=$here/py_calls.json $python $here/py_calls.py $mode $n" \
        "$prof $python $here/py_calls.py $mode $n"
done
