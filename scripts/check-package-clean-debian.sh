#!/usr/bin/env bash
# Installs the cli package with apt into a fresh minimal Debian 12 (debootstrap --variant=minbase:
# no Qt, no compiler) and profiles a small process tree with it: what a user does on a GPU
# server. Needs root, debootstrap and Debian's mirror; about a minute. Not part of ctest (the
# network and the time); tests/e2e/package_install.sh checks the same package without them.
#   scripts/check-package-clean-debian.sh [BUILD_DIR] [ROOT_DIR]
set -euo pipefail
build=${1:-$(cd "$(dirname "$0")/.." && pwd)/build}
root=${2:-$(mktemp -d /tmp/sightline-clean-debian.XXXXXX)}
(cd "$build" && cpack -G DEB -D CPACK_COMPONENTS_ALL=cli -B "$root.pkg" >/dev/null)
deb=$(ls "$root".pkg/sightline_*.deb | head -1)
[[ -x $root/usr/bin/apt-get ]] || debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/dev/null
cp "$deb" "$root/tmp/"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount --bind /proc "$root/proc"
trap 'umount "$root/proc"' EXIT
chroot "$root" bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/$(basename "$deb") >/dev/null"
echo "Qt packages installed: $(chroot "$root" dpkg -l | grep -ci qt || true)"
chroot "$root" bash -c "cd /tmp && sightline profile -q true -f true -o t.rep -t osrt bash -c 'ls / >/dev/null; sleep 0.2' && sightline info t.rep | grep -E 'OS runtime calls|Thread running'"
echo "clean Debian 12: the cli package installs and profiles"
