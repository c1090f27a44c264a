#!/bin/sh
# The cli component installed into a fresh prefix (what the .deb holds): its `sightline` package
# imports from PREFIX/lib/python3/dist-packages and the installed `sightline recipe` finds it.
# usage: install_test.sh BUILD_DIR WORK_DIR PYTHON
set -eu
build=$1 work=$2 python=$3
rm -rf "$work" && mkdir -p "$work/runs"
cmake --install "$build" --component cli --prefix "$work/prefix" > "$work/install.log"
site="$work/prefix/lib/python3/dist-packages"
test -f "$site/sightline/__init__.py" && ls "$site"/sightline/_core*.so > /dev/null
"$work/prefix/bin/sightline" generate -n 3000 -o "$work/runs/rank0.rep" 2> /dev/null
"$work/prefix/bin/sightline" generate -n 3000 -s 2 -o "$work/runs/rank1.rep" 2> /dev/null
PYTHONPATH="$site" "$python" -c "
import sys, sightline
assert sightline.__file__.startswith('$site'), sightline.__file__
r = sightline.open('$work/runs/rank0.rep')
assert r.event_count('kernel') > 0
"
# No PYTHONPATH: the installed CLI puts its own dist-packages on the path.
env -u PYTHONPATH "$work/prefix/bin/sightline" recipe cuda_gpu_kern_sum --input "$work/runs" --workers 1 \
    -o "$work/k.csv" > "$work/recipe.out"
grep -q "2 reports, 2 ranks (ranks from file name)" "$work/recipe.out"
test "$(head -1 "$work/k.csv" | cut -d, -f1)" = Rank
echo "install test passed"
