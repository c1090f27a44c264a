#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan, into build-fuzz/ or
# $SIGHTLINE_FUZZ_DIR) and runs each for SECONDS (default 60) from its corpus in
# tests/fuzz/corpus/<target> (new inputs go to a scratch copy, not into the repository).
# Any crash, leak, sanitizer report, hang (> 10 s for one input), out-of-memory (> 2 GiB) or
# breach of the targets' memory cap fails the run; the input is saved under build-fuzz/findings.
#   scripts/fuzz.sh [SECONDS] [TARGET ...]
# Needs clang and libclang-rt-14-dev (scripts/packages.txt; scripts/setup.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
FUZZ_DIR=${SIGHTLINE_FUZZ_DIR:-$ROOT/build-fuzz}
seconds=${1:-60}
shift || true
all=(fuzz_rep fuzz_chunk fuzz_import fuzz_raw_stream fuzz_nvtx_records fuzz_options fuzz_progress)
targets=("$@")
((${#targets[@]})) || targets=("${all[@]}")

CC=clang CXX=clang++ cmake -S "$ROOT" -B "$FUZZ_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSIGHTLINE_FUZZ=ON -DSIGHTLINE_BUILD_GUI=OFF -DSIGHTLINE_BUILD_TESTS=OFF -DSIGHTLINE_WITH_CUDA=OFF >/dev/null
cmake --build "$FUZZ_DIR" -j"$(nproc)" --target fuzzers

findings=$FUZZ_DIR/findings
mkdir -p "$findings"
failed=()
for t in "${targets[@]}"; do
  corpus=$ROOT/tests/fuzz/corpus/${t#fuzz_}
  work=$FUZZ_DIR/corpus/${t#fuzz_}
  mkdir -p "$work"
  dict=()
  [[ -f $ROOT/tests/fuzz/dict/${t#fuzz_}.dict ]] && dict=(-dict="$ROOT/tests/fuzz/dict/${t#fuzz_}.dict")
  echo "== $t: ${seconds} s"
  log=$FUZZ_DIR/$t.log
  if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$FUZZ_DIR/tests/fuzz/$t" "$work" "$corpus" "${dict[@]}" -max_total_time="$seconds" \
      -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$findings/$t-" >"$log" 2>&1; then
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|cov:" "$log" | tail -3
  else
    echo "$t FAILED (log: $log)"; grep -E "ERROR|SUMMARY|memory cap|Test unit written" "$log" | head -5
    failed+=("$t")
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds} s each: no finding"
