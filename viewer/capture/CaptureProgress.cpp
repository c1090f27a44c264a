#include "viewer/capture/CaptureProgress.h"

#include <QRegularExpression>

namespace sl::viewer {

namespace {

// Only the profiler's own lines count: they start with "sightline" (the traced program's stderr
// shares the stream and may well say "42 events").
bool isProfilerLine(const QString& line) { return line.startsWith("sightline", Qt::CaseInsensitive); }

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
            m_reportPath = line;
            return true;
        }
    }
    static const QRegularExpression generated("^(?:sightline(?: profile)?:\\s*)?Generated:\\s*(.*)$");
    if (auto m = generated.match(line); m.hasMatch()) {
        if (m.captured(1).isEmpty()) m_expectPath = true;
        else m_reportPath = m.captured(1);
        return !m_expectPath;
    }
    if (!isProfilerLine(line)) return false;
    bool changed = false;
    static const QRegularExpression events("\\b([0-9][0-9,]*)\\s+events?\\b");
    static const QRegularExpression processes("\\b([0-9]+)\\s+process(?:es)?\\b");
    static const QRegularExpression report("(?:report|wrote)\\S*\\s*:?\\s+(\\S+\\.rep)\\b", QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression error("^sightline(?: profile)?:\\s*(?:error:\\s*)?(.*\\b(?:error|cannot|failed|not found|not writable)\\b.*)$",
                                          QRegularExpression::CaseInsensitiveOption);
    if (auto m = events.match(line); m.hasMatch()) m_events = number(m.captured(1)), changed = true;
    if (auto m = processes.match(line); m.hasMatch()) m_processes = int(number(m.captured(1))), changed = true;
    if (auto m = report.match(line); m.hasMatch()) m_reportPath = m.captured(1), changed = true;
    if (auto m = error.match(line); m.hasMatch()) m_lastError = m.captured(1), changed = true;
    return changed;
}

}  // namespace sl::viewer
