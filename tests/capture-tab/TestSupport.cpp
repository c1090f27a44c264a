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
[ -n "$FAKE_SIGHTLINE_LOG" ] && printf '%s\n' "$@" > "$FAKE_SIGHTLINE_LOG"
if [ "$1" = profile ] && [ "$2" = --help ]; then
  echo "usage: sightline profile [options] PROGRAM [ARGS...]"
  echo "  -t, --trace LIST   cuda,nvtx,osrt or none (cuda: not available in this build)"
  exit 0
fi
shift
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --output=*) out="${1#--output=}" ;;
    --) shift; break ;;
    -*) ;;
    *) break ;;
  esac
  shift
done
[ -z "$out" ] && out=report1.rep
case "$out" in *.rep) ;; *) out="$out.rep" ;; esac
if ! command -v "$1" >/dev/null 2>&1; then
  echo "sightline profile: error: cannot run '$1': not found" >&2
  exit 1
fi
if ! ( : > "$out" ) 2>/dev/null; then
  echo "sightline profile: error: cannot write '$out': not writable" >&2
  exit 1
fi
finish() {
  [ -n "$child" ] && kill "$child" 2>/dev/null
  echo "fake report of $*" > "$out"
  echo "sightline: $n events, 1 process" >&2
  echo "Generated:" >&2
  echo "    $out" >&2
  exit 0
}
trap 'finish stopped' INT
echo "sightline: capturing" >&2
"$@" &
child=$!
n=0
while kill -0 "$child" 2>/dev/null; do
  n=$((n + 7))
  echo "sightline: $n events, 1 process" >&2
  sleep 0.05
done
child=""
finish ended
)SH");
}

bool waitFor(const std::function<bool()>& done, int timeoutMs) { return QTest::qWaitFor(done, timeoutMs); }

QString readText(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}

}  // namespace sl::viewer::test
