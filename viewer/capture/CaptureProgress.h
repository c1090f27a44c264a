#pragma once
// Reads the progress that `sightline profile` writes to stderr out of the mixed stderr stream,
// which also carries the traced program's own stderr. Lines of the profiler start with
// "sightline"; the ones used are
//   sightline: capture running: pid 123 (prog args)
//   sightline: 1,234 events, 2 processes                 (periodic progress, when the CLI has it)
//   sightline: merged 1,234 events from 2 processes in 15 ms; report written to PATH (1.2 KiB)
//   sightline: error: MESSAGE / sightline profile: error: MESSAGE (see 'sightline profile --help')
// and nsys's "Generated:" followed by the path. Fed line by line; keeps the latest values.
// Pure; any thread.
#include <QString>
#include <QStringList>

namespace sl::viewer {

class CaptureProgress {
public:
    // Takes one complete line (without the newline). Returns whether a value changed.
    bool feedLine(const QString& line);

    qint64 events() const { return m_events; }             // -1 until reported
    int processes() const { return m_processes; }          // -1 until reported
    qint64 rootPid() const { return m_rootPid; }           // -1 until reported
    QStringList reportPaths() const { return m_reports; }  // in the order written (repeat: several)
    QString lastError() const { return m_lastError; }      // the last "error:" line of the profiler

private:
    qint64 m_events = -1, m_rootPid = -1;
    int m_processes = -1;
    QStringList m_reports;
    QString m_lastError;
    bool m_expectPath = false;  // nsys style: "Generated:" then the path on the next line
};

}  // namespace sl::viewer
