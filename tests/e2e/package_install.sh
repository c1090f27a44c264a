#!/usr/bin/env bash
# The command-line package as users install it (issue #25): builds the cli .deb with CPack,
# checks that it is small, stripped (its debug information in the -dbgsym package) and needs no
# Qt, unpacks it into a fresh root and runs `sightline profile` from there: the installed binary
# must find its own injection libraries and Python hook, not the build tree's.
#   package_install.sh BUILD_DIR WORK_DIR CLIENT PYTHON
set -euo pipefail
build=$1 work=$2 client=$3 python=$4
rm -rf "$work" && mkdir -p "$work/root"
fail() { echo "FAIL: $*"; exit 1; }

(cd "$build" && cpack -G DEB -D CPACK_COMPONENTS_ALL=cli -B "$work/pkg" >"$work/cpack.log" 2>&1) ||
    { tail -20 "$work/cpack.log"; fail "cpack could not build the cli package"; }
deb=$(ls "$work"/pkg/sightline_*.deb 2>/dev/null | head -1)
dbg=$(ls "$work"/pkg/sightline-dbgsym_*.ddeb 2>/dev/null | head -1)
[[ -n $deb ]] || fail "no sightline_*.deb in $work/pkg"
[[ -n $dbg ]] || fail "no sightline-dbgsym_*.ddeb: the debug information is not split off"
size=$(stat -c %s "$deb")
echo "cli package: $(basename "$deb") $((size / 1024)) KiB; debug symbols: $(basename "$dbg") $(($(stat -c %s "$dbg") / 1024)) KiB"
((size < 8 * 1024 * 1024)) || fail "the cli package is $size bytes (a few MB expected: is it stripped?)"
depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends != *qt* && $depends != *Qt* ]] || fail "the cli package depends on Qt: $depends"

dpkg-deb -x "$deb" "$work/root"
sl=$work/root/usr/bin/sightline
[[ -x $sl ]] || fail "no usr/bin/sightline in the package"
if file "$sl" | grep -q "not stripped"; then fail "usr/bin/sightline is not stripped"; fi
if ldd "$sl" | grep -qi "qt"; then fail "usr/bin/sightline links Qt: $(ldd "$sl" | grep -i qt)"; fi

# Its own injection library, not the build tree's.
"$sl" status --environment >"$work/status.txt" 2>&1 || true
grep -q "injection library: $work/root/usr/lib/sightline/libsightline-inject.so" "$work/status.txt" ||
    { cat "$work/status.txt"; fail "the installed sightline does not use its own injection library"; }

# A capture from the unpacked package: NVTX and OS runtime calls from the injection library.
(cd "$work" && "$sl" profile -q true -f true -o "$work/installed.rep" -t nvtx,osrt -s none "$client" \
    >"$work/profile.log" 2>&1) || { cat "$work/profile.log"; fail "sightline profile from the package failed"; }
"$sl" info "$work/installed.rep" >"$work/info.txt"
grep -Eq "NVTX ranges +[1-9]" "$work/info.txt" || { cat "$work/info.txt"; fail "no NVTX ranges in the report"; }
grep -Eq "OS runtime calls +[1-9]" "$work/info.txt" || { cat "$work/info.txt"; fail "no OS runtime calls in the report"; }

# Its Python hook: Python sampling from the package.
if [[ -x $python ]]; then
    "$sl" profile -q true -f true -o "$work/python.rep" -t none -s none --python-sampling=true \
        "$python" -c "import time; t = time.time()
while time.time() - t < 0.3: sum(range(1000))" >"$work/python.log" 2>&1 ||
        { cat "$work/python.log"; fail "Python sampling from the package failed"; }
    "$sl" info "$work/python.rep" | grep -Eq "CPU samples +[1-9]" || fail "no Python samples in the report"
fi
echo "package install: all checks passed"
