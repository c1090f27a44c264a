#!/usr/bin/env bash
# Rewrites the generated option table of docs/capture.md from the option definition
# (model/options) with a CUDA-enabled build's `sightline profile --list-options --format markdown`.
# Run after changing an option: the option_docs test fails until the docs match.
# Usage: scripts/update-option-docs.sh [path/to/sightline]
set -euo pipefail
cd "$(dirname "$0")/.."
SIGHTLINE=${1:-build/app/cli/sightline}
table=$("$SIGHTLINE" profile --list-options --format markdown)
python3 - docs/capture.md "$table" <<'PY'
import sys
path, table = sys.argv[1], sys.argv[2] + "\n"
text = open(path).read()
begin, end = "<!-- options:profile begin -->\n", "<!-- options:profile end -->"
a, b = text.index(begin) + len(begin), text.index(end)
open(path, "w").write(text[:a] + table + text[b:])
PY
