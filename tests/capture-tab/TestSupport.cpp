#include "TestSupport.h"

#include <QCoreApplication>
#include <QFile>
#include <QSettings>
#include <QTest>

namespace sl::viewer::test {

void isolateSettings(const QString& dir) {
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir);
}

QString writeScript(const QString& path, const QString& body) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
    f.write(body.toUtf8());
    f.close();
    f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

QString writeFakeSightline(const QString& dir) {
    return writeScript(dir + "/sightline", R"SH(#!/bin/sh
# Mimics `sightline profile` (capture/launcher): its stderr (the running line, the merge bar,
# the "merged ...; report written to" line and "sightline: error:" lines) and the JSON lines of
# --progress-fd N (capture/launcher/ProgressChannel.h).
[ -n "$FAKE_SIGHTLINE_LOG" ] && printf '%s\n' "$@" > "$FAKE_SIGHTLINE_LOG"
if [ "$1" = profile ] && [ "$2" = --list-options ]; then
  # The shape of a build without CUDA capture (model/options/OptionDocs.cpp optionsJson).
  echo '{"command":"profile","cuda":false,"options":['
  echo '{"name":"cuda-memory-usage","support":"not available"},'
  echo '{"name":"gpu-metrics-devices","support":"not available"}]}'
  exit 0
fi
if [ "$1" = status ]; then
  # The shape of `sightline status -e --format json` (capture/launcher/EnvironmentChecks.cpp).
  echo '[{"id":"kernel","title":"Linux kernel","level":"ok","detail":"6.1","fix":"","value":"6.1"},'
  echo '{"id":"perf_event_paranoid","title":"perf_event_paranoid","level":"fail","detail":"4: CPU sampling off","fix":"sudo sysctl kernel.perf_event_paranoid=1","value":"4"},'
  echo '{"id":"cuda_driver","title":"CUDA driver","level":"warn","detail":"no NVIDIA driver","fix":"install the NVIDIA driver","value":""}]'
  exit 0
fi
shift
out=""
repeat=""
pfd=""
while [ $# -gt 0 ]; do
  case "$1" in
    --output=*) out="${1#--output=}" ;;
    --progress-fd=*) pfd="${1#--progress-fd=}" ;;
    --capture-range-end=repeat*) repeat=1 ;;
    --) shift; break ;;
    -*) ;;
    *) break ;;
  esac
  shift
done
progress() { [ -n "$pfd" ] && printf '%s\n' "$1" > "/proc/self/fd/$pfd"; return 0; }
[ -z "$out" ] && out=report1.rep
case "$out" in *.rep) ;; *) out="$out.rep" ;; esac
if ! command -v "$1" >/dev/null 2>&1; then
  echo "sightline: error: cannot run '$1': No such file or directory" >&2
  progress "{\"event\":\"error\",\"message\":\"cannot run '$1': No such file or directory\"}"
  exit 1
fi
finish() {
  [ -n "$child" ] && kill "$child" 2>/dev/null
  progress '{"event":"progress","seconds":0,"processes":1,"events":1042}'
  printf 'sightline: merging [####      ]  40%%\rsightline: merging [##########] 100%%\n' >&2
  if [ -n "$repeat" ]; then names="${out%.rep}.1.rep ${out%.rep}.2.rep"; else names="$out"; fi
  for name in $names; do
    if ! ( echo "fake report of $1" > "$name" ) 2>/dev/null; then
      echo "sightline: error: writing $name: cannot create the file" >&2
      progress "{\"event\":\"error\",\"message\":\"writing $name: cannot create the file\"}"
      exit 1
    fi
    echo "sightline: merged 1,042 events from 1 processes in 3 ms; report written to $name (1.00 KiB)" >&2
    progress "{\"event\":\"report\",\"path\":\"$name\",\"bytes\":1024}"
  done
  progress '{"event":"finished","exit_code":0}'
  exit 0
}
trap 'finish stopped' INT
"$@" &
child=$!
echo "sightline: capture running: pid $child ($*)" >&2
progress "{\"event\":\"started\",\"pid\":$child,\"command\":[]}"
wait "$child"
child=""
finish ended
)SH");
}

bool waitFor(const std::function<bool()>& done, int timeoutMs) {
    return QTest::qWaitFor(done, timeoutMs);
}

QString readText(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}

}  // namespace sl::viewer::test
