#!/bin/sh
# What capturing over SSH costs, against an sshd this script starts on 127.0.0.1 (as the tests do):
#  1. the report's copy: `sightline remote fetch` (a `cat` channel of the ssh master, temporary
#     file, size check, fsync, link) against `scp` of the same file over a fresh connection;
#  2. a whole short capture: `sightline profile --remote` (connect, version check, detached start,
#     three tail channels, copy back) against the same `sightline profile` run here.
# Usage: tests/bench/remote/remote_cost.sh [BUILD_DIR] [RUNS] [EVENTS]   (as root: sshd needs it)
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${2:-5}
events=${3:-5000000}
sl=$build/app/cli/sightline
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d /tmp/sl-remote-bench-XXXXXX)
. "$here/../capture/ab_pairs.sh"
trap 'kill $sshd_pid 2>/dev/null; rm -rf "$out"' EXIT

mkdir -p /run/sshd "$out/home"
for k in hostkey client; do ssh-keygen -q -t ed25519 -N '' -f "$out/$k"; done
cp "$out/client.pub" "$out/authorized_keys"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$out/sshd_config" <<CFG
Port $port
ListenAddress 127.0.0.1
HostKey $out/hostkey
AuthorizedKeysFile $out/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
UsePAM no
StrictModes no
PidFile none
Subsystem sftp internal-sftp
SetEnv PATH=/usr/bin:/bin HOME=$out/home
CFG
echo "[127.0.0.1]:$port $(cut -d' ' -f1-2 "$out/hostkey.pub")" >"$out/known_hosts"
cat >"$out/ssh_config" <<CFG
Host *
  UserKnownHostsFile $out/known_hosts
  GlobalKnownHostsFile /dev/null
  IdentitiesOnly yes
  IdentityAgent none
  IdentityFile $out/client
CFG
/usr/sbin/sshd -D -e -f "$out/sshd_config" 2>"$out/sshd.log" &
sshd_pid=$!
sleep 1
export SIGHTLINE_SSH_CONFIG=$out/ssh_config
target=$(id -un)@127.0.0.1:$port

# A finished capture there with a large report, as `profile --remote` leaves one.
id=20260101-000000-000001
session=$out/home/.cache/sightline/remote/$id
mkdir -p "$session"
"$sl" generate -n "$events" -o "$session/report.rep" >/dev/null 2>&1
echo : >"$session/run.sh"; echo 0 >"$session/exit"; echo 1 >"$session/pid"
size=$(stat -c %s "$session/report.rep")
echo "machine: $(nproc) cores, $(uname -r); report $((size / 1048576)) MiB ($events events); loopback sshd"

pairs "copy: sightline remote fetch (A) vs scp (B)" \
    "$sl remote fetch --remote $target $id -o $out/fetched.rep -f true -q" \
    "scp -q -F $out/ssh_config -P $port $(id -un)@127.0.0.1:$session/report.rep $out/scp.rep"
cmp "$out/fetched.rep" "$session/report.rep"

pairs "capture of exit_code: profile --remote (A) vs local profile (B)" \
    "$sl profile -q -s none --remote $target --remote-sightline $sl -o $out/r.rep -f true $build/tests/clients/exit_code 0" \
    "$sl profile -q -s none -o $out/l.rep -f true $build/tests/clients/exit_code 0"
