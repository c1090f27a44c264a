#include "viewer/capture/CaptureProgress.h"

#include <QRegularExpression>

namespace sl::viewer {

namespace {

// Only the profiler's own lines count (the traced program's stderr may well say "42 events").
bool isProfilerLine(const QString& line) {
    return line.startsWith("sightline");
}

qint64 number(const QString& digits) {
    QString d = digits;
    d.remove(',');
    return d.toLongLong();
}

}  // namespace

bool CaptureProgress::feedLine(const QString& rawLine) {
    const QString line = rawLine.trimmed();
    if (m_expectPath) {
        m_expectPath = false;
        if (!line.isEmpty()) {
            m_reports << line;
            return true;
        }
    }
    static const QRegularExpression generated("^Generated:\\s*(.*)$");
    if (auto m = generated.match(line); m.hasMatch()) {
        if (m.captured(1).isEmpty())
            m_expectPath = true;
        else
            m_reports << m.captured(1);
        return !m_expectPath;
    }
    if (!isProfilerLine(line)) return false;
    static const QRegularExpression error(
        "^sightline(?: [a-z]+)?: error: (.*?)(?: \\(see 'sightline [a-z]+ --help'\\))?$");
    if (auto m = error.match(line); m.hasMatch()) {
        m_lastError = m.captured(1);
        return true;
    }
    bool changed = false;
    static const QRegularExpression running("^sightline: capture running: pid ([0-9]+)\\b");
    static const QRegularExpression events("\\b([0-9][0-9,]*) events?\\b");
    static const QRegularExpression processes("\\b([0-9]+) process(?:es)?\\b");
    static const QRegularExpression written("; report written to (.+\\.rep)(?: \\(.*\\))?$");
    if (auto m = running.match(line); m.hasMatch()) {
        m_rootPid = m.captured(1).toLongLong();  // the rest of the line is the program's command
        return true;
    }
    if (auto m = events.match(line); m.hasMatch()) m_events = number(m.captured(1)), changed = true;
    if (auto m = processes.match(line); m.hasMatch())
        m_processes = int(number(m.captured(1))), changed = true;
    if (auto m = written.match(line); m.hasMatch()) m_reports << m.captured(1), changed = true;
    return changed;
}

}  // namespace sl::viewer
