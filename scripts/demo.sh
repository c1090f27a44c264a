#!/usr/bin/env bash
# The main job on the bundled demo: set up and build, profile the demo program, and open the
# report in sightline-ui. Without a display, writes the report and a timeline screenshot and
# prints the report's summary instead.
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

if [[ -x "$DEMO" ]] && "$SL" profile --help >/dev/null 2>&1; then
  echo "demo: profiling the bundled demo program"
  "$SL" profile -f true -o "$REPORT" "$DEMO"
else
  echo "demo: capture is not built here; generating a synthetic report instead"
  "$SL" generate -n 2000000 -f -o "$REPORT"
fi

UI="$BUILD_DIR/app/gui/sightline-ui"
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" && -x "$UI" ]]; then
  exec "$UI" "$REPORT"
fi
echo "demo: no display: writing a screenshot and the summary"
if [[ -x "$UI" ]] && "$UI" --help 2>/dev/null | grep -q -- --screenshot; then
  xvfb-run -a -s "-screen 0 1920x1080x24 -noreset" "$UI" --screenshot "$OUT_DIR/demo-timeline.png" --size 1600x900 "$REPORT" \
    && echo "demo: timeline screenshot: $OUT_DIR/demo-timeline.png"
fi
"$SL" info "$REPORT"
echo "demo: report: $REPORT"
