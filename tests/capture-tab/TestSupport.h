#pragma once
// Shared helpers of the Capture tab tests: a temporary folder, isolated QSettings, a fake
// `sightline` script and waiting on the event loop.
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <functional>
#include <ostream>

// Readable QString values in GoogleTest failure messages.
inline void PrintTo(const QString& s, std::ostream* os) {
    *os << '"' << s.toStdString() << '"';
}
inline void PrintTo(const QStringList& l, std::ostream* os) {
    *os << '[' << l.join("|").toStdString() << ']';
}

namespace sl::viewer::test {

// Points QSettings (INI format, user scope) into `dir` so tests never touch the user's settings.
void isolateSettings(const QString& dir);
// Writes an executable shell script that behaves like `sightline` for the tab: `profile --help`
// prints options without CUDA; `profile [opts] PROGRAM ARGS` logs its argv to $FAKE_SIGHTLINE_LOG,
// runs the program, prints progress on stderr, writes a small report file and "Generated:".
// SIGINT stops the program and still writes the report.
QString writeFakeSightline(const QString& dir);
// Writes an executable shell script with `body` and returns its path.
QString writeScript(const QString& path, const QString& body);
// Runs the event loop until `done` or the timeout; returns done().
bool waitFor(const std::function<bool()>& done, int timeoutMs = 15000);
QString readText(const QString& path);

}  // namespace sl::viewer::test
