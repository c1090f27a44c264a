#!/usr/bin/env bash
# The main job on the bundled demo: set up and build, profile the demo program, and open the
# report in sightline-ui. Where the demo could not run GPU work (no NVIDIA driver, or a build
# without the CUDA toolkit) it says so and also opens a real GPU report: a PyTorch ResNet-50
# training trace (Kineto JSON from a V100, pytorch/kineto's sample, BSD license; see
# tests/data/import/NOTICE.md) imported with `sightline import`, so the CUDA API, kernel,
# memory and projected NVTX rows are there to see. Without a display, writes the reports and a
# timeline screenshot of each and prints their summaries instead.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${SIGHTLINE_BUILD_DIR:-$ROOT/build}
scripts/setup.sh
OUT_DIR=${SIGHTLINE_DEMO_DIR:-$ROOT/demo-output}
mkdir -p "$OUT_DIR"
REPORT="$OUT_DIR/demo.rep"
SL="$BUILD_DIR/app/cli/sightline"
DEMO="$BUILD_DIR/tests/clients/sightline-demo"
GPU_SAMPLE_SOURCE="$ROOT/tests/data/import/kineto_resnet50_legacy_2021.json.gz"
GPU_REPORT=""

ran_gpu=false
if [[ -x "$DEMO" ]] && "$SL" profile --help >/dev/null 2>&1; then
  echo "demo: profiling the bundled demo program"
  "$SL" profile -f true -o "$REPORT" "$DEMO" | tee "$OUT_DIR/demo-run.log"
  grep -q "sightline-demo: GPU work done" "$OUT_DIR/demo-run.log" && ran_gpu=true
else
  echo "demo: capture is not built here; generating a synthetic report instead"
  "$SL" generate -n 2000000 -f -o "$REPORT"
fi
if ! $ran_gpu; then
  echo "demo: no GPU work in this run, so its report has no CUDA rows. Also opening a real GPU"
  echo "      report: a PyTorch ResNet-50 training trace (Kineto, Tesla V100; pytorch/kineto's sample,"
  echo "      BSD license, tests/data/import/NOTICE.md), imported with 'sightline import'"
  GPU_REPORT="$OUT_DIR/gpu-sample.rep"
  "$SL" import -q -f "$GPU_SAMPLE_SOURCE" -o "$GPU_REPORT"
fi

UI="$BUILD_DIR/app/gui/sightline-ui"
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" && -x "$UI" ]]; then
  exec "$UI" "$REPORT" ${GPU_REPORT:+"$GPU_REPORT"}  # one tab each
fi
echo "demo: no display: writing screenshots and the summaries"
if [[ -x "$UI" ]] && "$UI" --help 2>/dev/null | grep -q -- --screenshot; then
  for rep in "$REPORT" ${GPU_REPORT:+"$GPU_REPORT"}; do
    png="${rep%.rep}-timeline.png"
    xvfb-run -a -s "-screen 0 1920x1080x24 -noreset" "$UI" --screenshot "$png" --size 1600x900 "$rep" \
      && echo "demo: timeline screenshot: $png"
  done
fi
"$SL" info "$REPORT"
echo "demo: report: $REPORT"
if [[ -n "$GPU_REPORT" ]]; then
  "$SL" info "$GPU_REPORT"
  echo "demo: GPU report: $GPU_REPORT"
fi
