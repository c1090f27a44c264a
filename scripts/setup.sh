#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages from scripts/packages.txt) and configures and
# builds Sightline into build/ (or $SIGHTLINE_BUILD_DIR), and makes the virtual environment
# <build>/venv with the Python packages the tests need (scripts/python-requirements.txt, from
# PyPI; the system Python is left alone). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${SIGHTLINE_BUILD_DIR:-$ROOT/build}

missing=()
while read -r pkg; do
  [[ -z "$pkg" || "$pkg" == \#* ]] && continue
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done < scripts/packages.txt
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

mkdir -p "$BUILD_DIR"
# The tests' Python, made before the build: the test binaries list their Python cases when
# they are built (gtest discovery), and a case whose interpreter is missing then is never run.
# Debian's interpreter (not a version manager's shim) in a virtual environment,
# remade only when the requirements change.
VENV=$BUILD_DIR/venv
REQS=$ROOT/scripts/python-requirements.txt
if [[ ! -x $VENV/bin/python ]] || ! cmp -s "$REQS" "$VENV/requirements.installed"; then
  echo "setup: making $VENV ($(grep -v '^#' "$REQS" | tr '\n' ' '))"
  /usr/bin/python3 -m venv --clear "$VENV"
  if ! "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQS"; then
    echo "setup: could not install the Python packages of $REQS from PyPI into $VENV" >&2
    exit 1
  fi
  cp "$REQS" "$VENV/requirements.installed"
fi

cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build "$BUILD_DIR" -j"$(nproc)"

