#!/usr/bin/env bash
# Builds the pieces the GPU machine needs (Release, no GUI) into build-gpu/ and assembles a
# self-contained bundle in build-gpu/bundle/ that travels to a GPU machine and runs there without
# LD_LIBRARY_PATH (which would leak into the traced programs):
#
#   bin/sightline, bin/gpu_capture_check         RUNPATH $ORIGIN/../lib/sightline/deps
#   lib/sightline/libsightline-inject.so          the launcher finds modules at <exe>/../lib/sightline
#   lib/sightline/libsightline-cuda.so            RUNPATH $ORIGIN/deps, then the CUDA toolkit's dirs
#   lib/sightline/python/                         --python-functions-trace start-up hook
#   lib/sightline/deps/                           non-glibc libraries (simdjson, sqlite, zstd, ...) + libcupti
#   clients/                                      cuda_workload empty_kernels many_ops api_cost (nvcc),
#                                                 sightline-demo + libsightline-demo-gpu.so
#
#   scripts/gpu-bundle.sh [BUILD_DIR=build-gpu]
# Re-runnable: the build is incremental, the bundle is assembled afresh each time.
# Then on the GPU machine: bash tests/gpu/run_on_gpu_machine.sh build-gpu/bundle "$OUT"
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build-gpu}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
BUNDLE=$BUILD/bundle
JOBS=${JOBS:-2}
MAX_BUNDLE_BYTES=$((60 * 1024 * 1024))

say() { printf '== %s\n' "$*"; }
die() { printf 'gpu-bundle: error: %s\n' "$*" >&2; exit 1; }

for tool in cmake ninja readelf strip ldd; do
  command -v "$tool" >/dev/null || die "$tool not found"
done
if ! command -v patchelf >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing patchelf (apt-get)"
    apt-get install -y patchelf >/dev/null 2>&1 || true
  fi
  command -v patchelf >/dev/null ||
    die "patchelf not found (apt-get install patchelf): it sets the bundle's RUNPATHs"
fi

# ---- configure (cheap when nothing changed) ----
say "configure $BUILD (Release, GUI off)"
mkdir -p "$BUILD"
cmake -S "$ROOT" -B "$BUILD" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DSIGHTLINE_BUILD_GUI=OFF \
  -DSIGHTLINE_BUILD_TESTS=ON \
  -DSIGHTLINE_WITH_CUDA=ON \
  -DSIGHTLINE_FUZZ=OFF \
  -DSIGHTLINE_SANITIZE= \
  '-DCMAKE_BUILD_RPATH=$ORIGIN/../lib/sightline/deps;$ORIGIN/deps' \
  >"$BUILD/configure.log" 2>&1 || { tail -30 "$BUILD/configure.log"; die "cmake configure failed"; }
grep -E "Sightline:" "$BUILD/configure.log" || true

# ---- build only what the GPU run needs ----
targets=(sightline sightline-inject sightline-cuda gpu_capture_check gpu_clients)
optional=(sightline-demo sightline-demo-gpu sightline-cublas sightline-cudnn sightline-nccl)
all_targets=$(ninja -C "$BUILD" -t targets all 2>/dev/null | sed 's/:.*//')
for t in "${targets[@]}"; do
  grep -qx "$t" <<<"$all_targets" || die "target $t is not in this build (CUDA toolkit/CUPTI/nvcc found? see $BUILD/configure.log)"
done
for t in "${optional[@]}"; do
  if grep -qx "$t" <<<"$all_targets"; then targets+=("$t"); else say "optional target $t not in this build: skipped"; fi
done
say "ninja -j$JOBS ${targets[*]}"
ninja -C "$BUILD" -j"$JOBS" "${targets[@]}"

# ---- assemble ----
say "assemble $BUNDLE"
rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/bin" "$BUNDLE/lib/sightline/deps" "$BUNDLE/clients"
cp "$BUILD/app/cli/sightline" "$BUILD/tests/gpu/gpu_capture_check" "$BUNDLE/bin/"
cp "$BUILD"/lib/sightline/libsightline-*.so "$BUNDLE/lib/sightline/"
if [ -d "$BUILD/lib/sightline/python" ]; then
  cp -r "$BUILD/lib/sightline/python" "$BUNDLE/lib/sightline/python"
fi
for c in cuda_workload empty_kernels many_ops api_cost; do
  cp "$BUILD/tests/gpu/clients/$c" "$BUNDLE/clients/"
done
if [ -x "$BUILD/tests/clients/sightline-demo" ] && [ -f "$BUILD/tests/clients/libsightline-demo-gpu.so" ]; then
  cp "$BUILD/tests/clients/sightline-demo" "$BUILD/tests/clients/libsightline-demo-gpu.so" "$BUNDLE/clients/"
fi

# Our own binaries lose their symbol tables (the clients keep theirs: they are the traced programs).
strip --strip-unneeded "$BUNDLE"/bin/* "$BUNDLE"/lib/sightline/libsightline-*.so

# ---- dependencies: everything ldd resolves except the C/C++ runtime and the NVIDIA driver ----
is_system_lib() {
  case $1 in
    linux-vdso.so* | ld-linux*.so* | libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | \
    libutil.so.* | libresolv.so.* | libstdc++.so.* | libgcc_s.so.* | libcuda.so.* | libnvidia-*) return 0 ;;
  esac
  return 1
}
copy_deps_of() {  # FILE...
  local f name path
  for f in "$@"; do
    while read -r name _ path _; do
      [ -n "$name" ] || continue
      is_system_lib "$name" && continue
      case $path in /*) ;; *) die "$f: $name not found by ldd (${path:-?})" ;; esac
      [ -e "$BUNDLE/lib/sightline/deps/$name" ] || cp -L "$path" "$BUNDLE/lib/sightline/deps/$name"
    done < <(ldd "$f" | awk '$2 == "=>" {print $1, $2, $3}')
  done
}
copy_deps_of "$BUNDLE"/bin/* "$BUNDLE/lib/sightline/libsightline-inject.so"

# CUPTI: the module's own RUNPATH points into this machine's toolkit; ship the one it was built
# against (found the way CMake found it) and look there first.
cupti=$(sed -n 's/^CUDA_cupti_LIBRARY:FILEPATH=//p' "$BUILD/CMakeCache.txt")
[ -n "$cupti" ] && [ -e "$cupti" ] || die "CUDA_cupti_LIBRARY not in $BUILD/CMakeCache.txt"
cupti_dir=$(dirname "$cupti")
cupti_soname=$(readelf -d "$(readlink -f "$cupti")" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ -n "$cupti_soname" ] || die "no SONAME in $cupti"
cp -L "$cupti" "$BUNDLE/lib/sightline/deps/$cupti_soname"
copy_deps_of "$BUNDLE/lib/sightline/deps/$cupti_soname"

# ---- RUNPATHs: only bundle-relative (and the toolkit dirs for CUPTI), no build-machine paths ----
for f in "$BUNDLE"/bin/*; do
  patchelf --set-rpath '$ORIGIN/../lib/sightline/deps' "$f"
done
patchelf --set-rpath "\$ORIGIN/deps:$cupti_dir:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64" \
  "$BUNDLE/lib/sightline/libsightline-cuda.so"
# The bundled libraries find each other (libdw needs libelf, liblzma, libbz2, libz: DT_RUNPATH
# is not inherited from the executable that loads them).
for f in "$BUNDLE"/lib/sightline/deps/*.so*; do
  patchelf --set-rpath '$ORIGIN' "$f"
done
# Preloaded into traced programs (the injection module, the CUDA library modules): they link libc
# only and need no search path of their own.
for f in "$BUNDLE"/lib/sightline/libsightline-inject.so "$BUNDLE"/lib/sightline/libsightline-{cublas,cudnn,nccl}.so; do
  [ -e "$f" ] && patchelf --remove-rpath "$f"
done

# ---- verify ----
say "RUNPATHs"
for f in "$BUNDLE"/bin/* "$BUNDLE"/lib/sightline/*.so; do
  printf '%-40s %s\n' "${f#"$BUNDLE"/}" "$(readelf -d "$f" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')"
done
bad=0
for f in "$BUNDLE"/bin/* "$BUNDLE"/lib/sightline/*.so "$BUNDLE"/lib/sightline/deps/*.so*; do
  while read -r name _ path _; do
    is_system_lib "$name" && continue
    case $(readlink -f "$path") in
      "$BUNDLE"/lib/sightline/deps/*) ;;
      *) echo "NOT FROM THE BUNDLE: ${f#"$BUNDLE"/}: $name => $path"; bad=1 ;;
    esac
  done < <(ldd "$f" | awk '$2 == "=>" {print $1, $2, $3}')
  if ldd "$f" | grep -q "not found"; then echo "UNRESOLVED in $f:"; ldd "$f" | grep "not found"; bad=1; fi
done
[ $bad = 0 ] || die "some libraries do not resolve from the bundle"
"$BUNDLE/bin/sightline" --help >/dev/null || die "bundle's sightline does not run"
modules=$("$BUNDLE/bin/sightline" status --environment 2>&1 | grep -E "inject_library|cuda_library|injection library" || true)
echo "$modules"
echo "$modules" | grep -q "$BUNDLE/lib/sightline/libsightline-inject.so" ||
  die "bundle's sightline does not find its own libsightline-inject.so"

glibc=$(for f in "$BUNDLE"/bin/* "$BUNDLE"/lib/sightline/*.so "$BUNDLE"/lib/sightline/deps/* "$BUNDLE"/clients/*; do
          objdump -T "$f" 2>/dev/null; done | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
glibcxx=$(for f in "$BUNDLE"/bin/* "$BUNDLE"/lib/sightline/*.so "$BUNDLE"/lib/sightline/deps/* "$BUNDLE"/clients/*; do
            objdump -T "$f" 2>/dev/null; done | grep -o 'GLIBCXX_[0-9.]*' | sort -uV | tail -1)
say "needs at most $glibc and $glibcxx from the GPU machine (plus the NVIDIA driver)"

say "bundle contents"
(cd "$BUNDLE" && find . -type f -printf '%10s  %p\n' | sort -k2)
bytes=$(du -sb "$BUNDLE" | cut -f1)
say "bundle size: $bytes bytes ($(awk "BEGIN {printf \"%.1f\", $bytes / 1048576}") MiB)"
[ "$bytes" -lt "$MAX_BUNDLE_BYTES" ] || die "bundle is over 60 MiB"
say "done: on the GPU machine run: bash tests/gpu/run_on_gpu_machine.sh ${BUNDLE#"$ROOT"/} \"\$OUT\""
