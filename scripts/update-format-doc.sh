#!/usr/bin/env bash
# Rewrites the generated table section of model/FORMAT.md from the .rep schema's descriptors
# (model/rep/RepSchema.h) with the model tests' RepSchemaDoc test in its update mode.
# Run after changing a table: RepSchemaDoc.FormatMdTablesMatchTheDescriptors fails until they match.
# Usage: scripts/update-format-doc.sh [path/to/model_tests]
set -euo pipefail
cd "$(dirname "$0")/.."
TESTS=${1:-build/tests/model_tests}
SIGHTLINE_UPDATE_FORMAT_DOC=1 "$TESTS" --gtest_filter='RepSchemaDoc.*' >/dev/null
git --no-pager diff --stat -- model/FORMAT.md
