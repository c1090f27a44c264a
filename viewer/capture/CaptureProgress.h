#pragma once
// Reads the progress that `sightline profile --progress-fd N` writes as JSON lines
// (capture/launcher/ProgressChannel.h): "started" (the program's pid), "progress" (processes and
// events so far), "warning", "report" (one per report written), "finished" and "error". Never
// parses the mixed stderr text, which also carries the traced program's own output. Fed line by
// line; keeps the latest values. Pure; any thread.
#include <QString>
#include <QStringList>

namespace sl::viewer {

class CaptureProgress {
public:
    // Takes one complete line (without the newline). Returns whether a value changed. A line
    // that is not a JSON object of the channel is ignored.
    bool feedLine(const QString& line);

    qint64 events() const { return m_events; }             // -1 until reported
    int processes() const { return m_processes; }          // -1 until reported
    qint64 rootPid() const { return m_rootPid; }           // -1 until reported
    QStringList reportPaths() const { return m_reports; }  // in the order written (repeat: several)
    QStringList warnings() const { return m_warnings; }    // data the report will miss
    QString lastError() const { return m_lastError; }      // the profiler's error, if it failed
    int exitCode() const { return m_exitCode; }            // the program's; -1 until finished
    // Remote captures: the report's copy to this computer ({"event":"copy"}); -1 until then.
    qint64 copiedBytes() const { return m_copied; }
    qint64 copyTotal() const { return m_copyTotal; }
    bool finished() const { return m_exitCode >= 0 || !m_lastError.isEmpty(); }

private:
    qint64 m_events = -1, m_rootPid = -1, m_copied = -1, m_copyTotal = -1;
    int m_processes = -1, m_exitCode = -1;
    QStringList m_reports, m_warnings;
    QString m_lastError;
};

}  // namespace sl::viewer
